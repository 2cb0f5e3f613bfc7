#!/bin/bash
# Issue 20 (the house): the headless battle before (B = e96361b) and after
# (A = the house's code), ABBA, 1920x1080, 20 s of battle (600 steps), the
# frame budget off (fixed thresholds: the passes' costs compare directly).
set -euo pipefail
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
for b in before after; do xz -dc .bench/$b/battle.xz > /tmp/battle_$b; chmod +x /tmp/battle_$b; done
export HORDE_ROOT=$PWD HORDE_CACHE_DIR=/tmp/horde-cache
mkdir -p $OUT/json
run() {
  name=$1; bin=$2; units=$3; camera=$4
  $bin --headless --units $units --camera $camera --width 1920 --height 1080 --frames 600 \
    --render-every 10 --warmup 20 --budget-ms 0 --report $OUT/json/$name.json > $OUT/$name.log 2>&1
  echo "== $name $(grep -o '"device": "[^"]*"' $OUT/json/$name.json)"
  python3 -c "import json,sys; r=json.load(open('$OUT/json/$name.json')); print(' '.join('%s=%.4f' % (p['name'], p['median_ms']) for p in r['gpu_ms']), 'cpu=%.3f' % r['cpu_ms_median'])"
}
for units in 100000 1000000; do
  for camera in front overview; do
    run B1_${units}_$camera /tmp/battle_before $units $camera
    run A1_${units}_$camera /tmp/battle_after $units $camera
    run A2_${units}_$camera /tmp/battle_after $units $camera
    run B2_${units}_$camera /tmp/battle_before $units $camera
  done
done
cd $OUT && tar czf battle_json.tgz json && rm -rf json && tar czf battle_logs.tgz *.log && rm *.log
