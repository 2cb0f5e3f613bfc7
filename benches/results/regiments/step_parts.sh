#!/bin/bash
# Issue 23 on the GPU machine: the battle step's cost per part (regiments,
# grid, units), before (.bench/round3: one thread per regiment scans the
# regiment table) and after (.bench/round3b: a workgroup per regiment scans
# it together), side by side in one call: one step a frame, 200 frames,
# 1920x1080, no budget, at 100k, 1M and 4M units.
set -euo pipefail
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p /tmp/before /tmp/after /tmp/out
xz -dc .bench/round3/battle.xz > /tmp/before/battle
xz -dc .bench/round3b/battle.xz > /tmp/after/battle
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
