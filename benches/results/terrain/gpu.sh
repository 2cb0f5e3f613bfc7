#!/bin/bash
# Issue 22 (terrain) on the GPU machine. `gpu.sh montage`: the three
# presets at 10k, 1M and 4M with the terrain (.bench/round5, the commit
# named in the README). `gpu.sh cost`: the 1M frame at each preset before
# (.bench/round4e, cbb8468: flat field) and after (.bench/round5: terrain),
# side by side, 600 frames at 1920x1080, default budget, with the quality
# measurement against the supersampled reference.
set -euo pipefail
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export HORDE_ROOT=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p /tmp/before /tmp/after /tmp/out
xz -dc .bench/round4e/battle.xz > /tmp/before/battle
for b in battle montage; do xz -dc .bench/round5/$b.xz > /tmp/after/$b; done
chmod +x /tmp/before/* /tmp/after/*
if [ "$1" = montage ]; then
  HORDE_CACHE_DIR=/tmp/cache timeout 560 /tmp/after/montage --battle /tmp/after/battle --out /tmp/montage \
    > /tmp/out/montage.log 2>&1 || tail -5 /tmp/out/montage.log
  cp /tmp/montage/montage.png $OUT/
  tar czf $OUT/montage_reports.tgz -C /tmp/montage $(cd /tmp/montage && ls *.json)
  for f in /tmp/montage/*_1M.png; do cp $f $OUT/; done
  exit 0
fi
for camera in overview front ground; do
  for side in before after; do
    name=${side}_1000000_$camera
    HORDE_CACHE_DIR=/tmp/cache timeout 150 /tmp/$side/battle --headless --quality --units 1000000 \
      --camera $camera --width 1920 --height 1080 --frames 600 --report /tmp/out/$name.report.json \
      > /tmp/out/$name.log 2>&1 || echo "$name failed: $(tail -3 /tmp/out/$name.log)"
    grep -h "gpu frame\|gpu draw\|quality against" /tmp/out/$name.log | sed "s/^.*INFO[^ ]* /$name: /" | cut -c1-240 || true
  done
done
tar czf $OUT/cost_reports.tgz -C /tmp/out $(cd /tmp/out && ls)
