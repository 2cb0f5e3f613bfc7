#!/bin/bash
# Splat sizes and widths (README.md beside this), on the GPU machine with a
# `battle` patched to read HORDE_X_* (README.md says how), in .bench/$BENCH:
#   BENCH=exp1 gpu.sh sizes    splat, far-field and LOD sizes, 1M, 300 frames
#   BENCH=exp2 gpu.sh widths   splat widths at the front, with the reference
set -uo pipefail
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export HORDE_ROOT=$PWD
mkdir -p /tmp/bin /tmp/out
xz -dc .bench/$BENCH/battle.xz > /tmp/bin/battle; chmod +x /tmp/bin/battle
run() { # name, env..., -- args
  local name=$1; shift
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
  local t0=$(date +%s)
  env "${envs[@]}" HORDE_CACHE_DIR=/tmp/cache timeout 150 /tmp/bin/battle --headless --width 1920 --height 1080 \
    --report /tmp/out/$name.report.json "$@" > /tmp/out/$name.log 2>&1 || echo "$name failed: $(tail -3 /tmp/out/$name.log)"
  python3 - /tmp/out/$name.report.json $name $(( $(date +%s) - t0 )) <<'PY'
import json,sys
d=json.load(open(sys.argv[1])); g={r['name']:r['median_ms'] for r in d['gpu_ms']}
keys=['frame','draw','far field','shadows','shadow draw','shadow far field','shadow splat','shadow cull','shadow merge']
print(sys.argv[2], sys.argv[3]+'s', ' '.join('%s=%.2f'%(k.replace('shadow ','s.').replace(' ','_'),g.get(k,-1)) for k in keys))
print('   casc', ' '.join('%s=%.2f'%(k.split(': ')[0].replace('shadow ','')+k[-1],v) for k,v in g.items() if 'cascade' in k), 'q', d.get('quality',{}) and round(d['quality'].get('flip_mean',0),4))
PY
}
case "$1" in
sizes)  # BENCH=exp1: splat and far-field sizes, LOD threshold
  for cam in ground front; do
    run ${cam}_base -- --units 1000000 --camera $cam --frames 300 --shadows on
    run ${cam}_s16 HORDE_X_SPLAT=16 -- --units 1000000 --camera $cam --frames 300 --shadows on
    run ${cam}_s16l4 HORDE_X_SPLAT=16 HORDE_X_LOD=4 -- --units 1000000 --camera $cam --frames 300 --shadows on
    run ${cam}_s24f48 HORDE_X_SPLAT=24 HORDE_X_FAR=48 -- --units 1000000 --camera $cam --frames 300 --shadows on
    run ${cam}_off -- --units 1000000 --camera $cam --frames 300 --shadows off
  done
  run ground_s16_q HORDE_X_SPLAT=16 -- --units 1000000 --camera ground --frames 300 --shadows on --quality --screenshot $OUT/ground_s16.png
  run ground_base_q -- --units 1000000 --camera ground --frames 300 --shadows on --quality --screenshot $OUT/ground_base.png ;;
widths)  # BENCH=exp2: splat widths against the reference
  A="--units 1000000 --frames 600 --quality"
  run front_s8w30 HORDE_X_SPLAT=8 HORDE_X_WIDTH=0.3 -- $A --camera front --screenshot $OUT/front_s8w30.png
  run front_s16w30 HORDE_X_SPLAT=16 HORDE_X_WIDTH=0.3 -- $A --camera front
  run front_s16w17 HORDE_X_SPLAT=16 HORDE_X_WIDTH=0.17 -- $A --camera front --screenshot $OUT/front_s16w17.png
  run front_s12w20 HORDE_X_SPLAT=12 HORDE_X_WIDTH=0.2 -- $A --camera front
  run overview_s16w17l4 HORDE_X_SPLAT=16 HORDE_X_WIDTH=0.17 HORDE_X_LOD=4 -- $A --camera overview ;;
esac
tar czf $OUT/$1.tgz -C /tmp/out .
