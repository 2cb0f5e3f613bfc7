#!/bin/bash
# Issue 21, round 4, on the GPU machine: the reference single-sampled
# whatever the frame's MSAA (9543ea5) and --msaa auto (4x MSAA up to 100k
# units) by default, with .bench/round6k (the closing commit of the round).
# --quality (FLIP, coverage, still-camera shimmer against the 2x2
# supersampled LOD 0 reference of the same GPU state), 1920x1080, 600 steps
# (20 s of battle), default 16.6 ms budget. 10k: each preset with the
# default (MSAA on) and --msaa off; 100k and 1M: the front, by default.
set -euo pipefail
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export HORDE_ROOT=$PWD HORDE_CACHE_DIR=/tmp/cache
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
xz -dc .bench/round6k/battle.xz > /tmp/battle; chmod +x /tmp/battle
mkdir -p /tmp/out
run() { # name units camera [battle arguments]
  local name=$1 units=$2 camera=$3; shift 3
  timeout 240 /tmp/battle --headless --quality --units $units --camera $camera \
    --width 1920 --height 1080 --frames 600 --report /tmp/out/$name.report.json \
    --screenshot /tmp/out/$name.png "$@" \
    > /tmp/out/$name.log 2>&1 || echo "$name failed: $(tail -3 /tmp/out/$name.log)"
  grep -h "gpu frame\|quality against" /tmp/out/$name.log | sed "s/^.*INFO[^ ]* /$name: /" | cut -c1-260 || true
}
for camera in overview front ground; do
  run 10000_$camera 10000 $camera
  run 10000_${camera}_msaa_off 10000 $camera --msaa off
done
run 100000_front 100000 front
run 1000000_front 1000000 front
tar czf $OUT/reports.tgz -C /tmp/out $(cd /tmp/out && ls *.json *.log)
cp /tmp/out/10000_front.png $OUT/10k_front_msaa.png
cp /tmp/out/10000_front_msaa_off.png $OUT/10k_front_msaa_off.png
