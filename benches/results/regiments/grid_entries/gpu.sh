#!/bin/bash
# Issue 23 on the GPU machine: the battle step per part, before
# (.bench/round3b, 69e2d70: scans one thread per chunk of 64 cells, entries
# hold unit indices) and after (.bench/round4, 11a66b6: scans in
# workgroups, entries hold unit, side and position), side by side in one
# call: one step a frame, 200 frames, 1920x1080, no budget, at 100k, 1M and
# 4M units. Then the marks debug view (units coloured by regiment state) at
# 10k (60 s) and 1M (20 s), overview and front.
set -euo pipefail
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p /tmp/before /tmp/after /tmp/out
xz -dc .bench/round3b/battle.xz > /tmp/before/battle
xz -dc .bench/round4/battle.xz > /tmp/after/battle
chmod +x /tmp/before/battle /tmp/after/battle
for units in 100000 1000000 4000000; do
  for side in before after; do
    name=${side}_${units}
    HORDE_CACHE_DIR=/tmp/cache timeout 150 /tmp/$side/battle --headless --units $units --frames 200 \
      --render-every 1 --width 1920 --height 1080 --budget-ms 0 --report /tmp/out/$name.report.json \
      > /tmp/out/$name.log 2>&1 || echo "$name failed: $(tail -2 /tmp/out/$name.log)"
    grep -h "gpu battle" /tmp/out/$name.log | sed "s/^.*gpu /$name: /" || true
  done
done
tar czf $OUT/step_parts.tgz -C /tmp/out $(cd /tmp/out && ls)
for run in "10000 1800" "1000000 600"; do
  set -- $run
  for camera in overview front; do
    HORDE_CACHE_DIR=/tmp/cache timeout 150 /tmp/after/battle --headless --units $1 --frames $2 \
      --render-every $2 --width 1920 --height 1080 --camera $camera --color-by-state \
      --screenshot $OUT/marks_$1_$camera.png > /tmp/out/marks_$1_$camera.log 2>&1 \
      || echo "marks $1 $camera failed: $(tail -2 /tmp/out/marks_$1_$camera.log)"
  done
done
