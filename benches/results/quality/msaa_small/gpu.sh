#!/bin/bash
# Issue 21 on the GPU machine: 4x MSAA off and on at 10k (three presets)
# and 100k (front), --quality (FLIP, coverage and still-camera shimmer
# against the 2x2 supersampled LOD 0 reference), 1920x1080, 600 steps,
# default budget, with .bench/round6j (8586b1c).
set -euo pipefail
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export HORDE_ROOT=$PWD HORDE_CACHE_DIR=/tmp/cache
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
xz -dc .bench/${BIN:-round6j}/battle.xz > /tmp/battle; chmod +x /tmp/battle
mkdir -p /tmp/out
run() { # units camera msaa
  local name="$1_$2_msaa_$3"
  timeout 200 /tmp/battle --headless --quality --units $1 --camera $2 --msaa $3 \
    --width 1920 --height 1080 --frames 600 --report /tmp/out/$name.report.json \
    > /tmp/out/$name.log 2>&1 || echo "$name failed: $(tail -3 /tmp/out/$name.log)"
  grep -h "gpu frame\|quality against" /tmp/out/$name.log | sed "s/^.*INFO[^ ]* /$name: /" | cut -c1-260 || true
}
for camera in overview front ground; do
  for msaa in off on; do run 10000 $camera $msaa; done
done
for msaa in off on; do run 100000 front $msaa; done
tar czf $OUT/reports.tgz -C /tmp/out .
