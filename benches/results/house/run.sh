#!/bin/bash
# Issue 20 (the house): the crowd benchmark and the headless battle before
# (B = e96361b, the last commit before the battle left the core) and after
# (A = 3ebe756, the house's code), ABBA, in one call on the GPU machine.
# Both read the same assets (the move changed none). Run from the
# repository root with the stripped release binaries in .bench/{before,after}.
set -euo pipefail
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
for b in before after; do for bin in crowd_bench battle; do
  xz -dc .bench/$b/$bin.xz > /tmp/${bin}_$b; chmod +x /tmp/${bin}_$b; done; done
export HORDE_ROOT=$PWD HORDE_CACHE_DIR=/tmp/horde-cache
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
mkdir -p $OUT/json
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
ARGS="--units 100000,1000000,4000000 --frames 40 --warmup 10 --skip-comparisons"
crowd() { name=crowd_$1; shift; "$@" $ARGS --out /tmp/res/$name > $OUT/$name.log 2>&1; cp /tmp/res/$name/crowd.json $OUT/json/$name.json; echo "== $name"; grep -E "units, far" $OUT/$name.log | grep -v INFO | sed -e 's/recording per pass.*)/)/' -e 's/(p95[^)]*)//g'; }
crowd B1 /tmp/crowd_bench_before; crowd A1 /tmp/crowd_bench_after; crowd A2 /tmp/crowd_bench_after; crowd B2 /tmp/crowd_bench_before
battle() {
  name=battle_$1; bin=$2; camera=$3
  $bin --headless --units 1000000 --camera $camera --width 1920 --height 1080 --frames 450 \
    --render-every 10 --warmup 15 --budget-ms 0 --report $OUT/json/$name.json > $OUT/$name.log 2>&1
  echo "== $name"
  python3 -c "import json; r=json.load(open('$OUT/json/$name.json')); print(' '.join('%s=%.4f' % (p['name'], p['median_ms']) for p in r['gpu_ms']), 'cpu=%.3f' % r['cpu_ms_median'])"
}
for camera in front overview; do
  battle B1_$camera /tmp/battle_before $camera; battle A1_$camera /tmp/battle_after $camera
  battle A2_$camera /tmp/battle_after $camera; battle B2_$camera /tmp/battle_before $camera
done
cd $OUT && tar czf json.tgz json && rm -rf json && tar czf logs.tgz *.log && rm *.log
