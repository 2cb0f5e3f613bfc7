#!/bin/bash
# Issue 21 on the GPU machine: image quality on the mobile tier (no far
# field: distant units are impostors; HORDE_TIER's limits), with
# .bench/round6l (508ad4f: the first commit whose battle runs on the mobile
# tier). --quality against the 2x2 supersampled LOD 0
# reference of the same GPU state, 1920x1080, 600 steps, default budget.
set -euo pipefail
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export HORDE_ROOT=$PWD HORDE_CACHE_DIR=/tmp/cache
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
xz -dc .bench/round6l/battle.xz > /tmp/battle; chmod +x /tmp/battle
mkdir -p /tmp/out
run() { # units camera
  local name="mobile_$1_$2"
  timeout 150 /tmp/battle --headless --quality --tier mobile --units $1 --camera $2 \
    --width 1920 --height 1080 --frames 600 --report /tmp/out/$name.report.json \
    --screenshot /tmp/out/$name.png > /tmp/out/$name.log 2>&1 \
    || echo "$name failed: $(tail -3 /tmp/out/$name.log)"
  grep -h "tier\|impostor\|gpu frame\|quality against" /tmp/out/$name.log | sed "s/^.*INFO[^ ]* /$name: /" | cut -c1-240 || true
}
for camera in overview front ground; do run 10000 $camera; done
for camera in front overview; do run 1000000 $camera; done
tar czf $OUT/reports.tgz -C /tmp/out $(cd /tmp/out && ls *.json *.log)
cp /tmp/out/mobile_1000000_front.png /tmp/out/mobile_10000_front.png $OUT/ 2>/dev/null || true
