#!/bin/bash
# Issue 25 (the near field) on the GPU machine: the stripped release
# binaries of .bench/$BENCH (after) and .bench/$BEFORE (before), side by
# side in one call.
#   gpu.sh demo   the default demo (10k units, default settings: shadows,
#                 MSAA auto, budget) at the three presets, quality against
#                 the reference: before, after, and after with
#                 --occlusion off;
#   gpu.sh mesh   1M units with the far field and the budget off (every
#                 unit a mesh), front and ground, every 10th of 600 steps
#                 rendered: before and after;
#   gpu.sh full   1M units with everything on (default settings) at the
#                 three presets, quality against the reference: before
#                 and after;
#   gpu.sh shots  the 10k and 1M frames at the three presets (after), and
#                 the 1M ground with the LOD colours: what occlusion
#                 culling leaves on screen.
# Each run's log starts with its command line; summarize.py makes the rows.
set -euo pipefail
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export HORDE_ROOT=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p /tmp/bin /tmp/before /tmp/out /tmp/shots
xz -dc .bench/$BENCH/battle.xz > /tmp/bin/battle
xz -dc .bench/$BEFORE/battle.xz > /tmp/before/battle
chmod +x /tmp/bin/battle /tmp/before/battle
run() { # binary, name, timeout, args...
  local binary=$1 name=$2 limit=$3; shift 3
  echo "battle --headless --width 1920 --height 1080 $*" > /tmp/out/$name.log
  HORDE_CACHE_DIR=/tmp/cache timeout $limit $binary --headless --width 1920 --height 1080 \
    --report /tmp/out/$name.report.json "$@" >> /tmp/out/$name.log 2>&1 \
    || echo "$name failed: $(tail -3 /tmp/out/$name.log)"
  grep -h "gpu frame\|gpu draw\|gpu cull\|gpu depth\|quality against" /tmp/out/$name.log \
    | sed "s/^.*INFO[^ ]* /$name: /" | cut -c1-200 || true
}
case "$1" in
demo)
  for camera in overview front ground; do
    run /tmp/before/battle before_10k_$camera 120 --quality --units 10000 --camera $camera --frames 600
    run /tmp/bin/battle after_10k_$camera 120 --quality --units 10000 --camera $camera --frames 600
    run /tmp/bin/battle after_10k_${camera}_occlusion_off 120 --quality --units 10000 \
      --camera $camera --frames 600 --occlusion off
  done ;;
mesh)
  for camera in front ground; do
    for side in before after; do
      binary=/tmp/bin/battle; [ $side = before ] && binary=/tmp/before/battle
      run $binary ${side}_1m_mesh_$camera 200 --units 1000000 --camera $camera --frames 600 \
        --render-every 10 --far-field off --budget-ms 0
    done
  done ;;
full)
  for camera in overview front ground; do
    run /tmp/before/battle before_1m_$camera 150 --quality --units 1000000 --camera $camera --frames 600
    run /tmp/bin/battle after_1m_$camera 150 --quality --units 1000000 --camera $camera --frames 600
  done ;;
shots)
  for units in 10000 1000000; do
    for camera in overview front ground; do
      run /tmp/bin/battle shot_${units}_$camera 150 --units $units --camera $camera --frames 600 \
        --screenshot /tmp/shots/${units}_$camera.png
    done
  done
  run /tmp/bin/battle shot_1000000_ground_lod 150 --units 1000000 --camera ground --frames 600 \
    --color-by-lod --screenshot /tmp/shots/1000000_ground_lod.png ;;
esac
for f in /tmp/shots/*.png; do [ -f $f ] && cp $f $OUT/; done
tar czf $OUT/reports_$1.tgz -C /tmp/out $(cd /tmp/out && ls)
