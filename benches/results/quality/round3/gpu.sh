#!/bin/bash
# Issue 21, third round, on the GPU machine: the battle drawn up for its size
# (armies about twice as wide as deep, 40 m apart; presets at the centres'
# front end). Binaries: .bench/merged (before: e7b2dcc) and .bench/round3
# (after). $1 = what: "montage" (the after montage of overview, front and
# ground at 10k, 1M and 4M, 20 s in) or "quality UNITS CAMERAS" (before and
# after, side by side, with --quality).
set -euo pipefail
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export HORDE_ROOT=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for side in before after; do
  mkdir -p /tmp/$side
  src=$([ $side = before ] && echo merged || echo round3)
  for b in battle montage; do
    [ -f .bench/$src/$b.xz ] && { xz -dc .bench/$src/$b.xz > /tmp/$side/$b; chmod +x /tmp/$side/$b; }
  done
done
mkdir -p /tmp/out
if [ "$1" = montage ]; then
  HORDE_CACHE_DIR=/tmp/cache-after timeout 540 /tmp/after/montage --battle /tmp/after/battle --out /tmp/montage \
    > /tmp/out/montage.log 2>&1 || tail -5 /tmp/out/montage.log
  cp /tmp/montage/montage.png $OUT/ 2>/dev/null || true
  tar czf $OUT/montage_reports.tgz -C /tmp/montage $(cd /tmp/montage && ls *.json) 2>/dev/null || true
  for f in /tmp/montage/*_1M.png; do cp $f $OUT/; done 2>/dev/null || true
  grep -h "gpu frame" /tmp/montage/*.log 2>/dev/null | head -20 || true
  exit 0
fi
run() { # side units camera
  local side=$1 units=$2 camera=$3; shift 3
  local name="${side}_${units}_${camera}"
  HORDE_CACHE_DIR=/tmp/cache-$side timeout ${RUN_TIMEOUT:-200} /tmp/$side/battle --headless --quality --units $units \
    --camera $camera --width 1920 --height 1080 --frames 600 \
    --screenshot /tmp/out/$name.png --report /tmp/out/$name.report.json "$@" \
    > /tmp/out/$name.log 2>&1 || echo "$name failed: $(tail -3 /tmp/out/$name.log)"
  grep -h "gpu frame\|quality against" /tmp/out/$name.log | sed "s/^/$name: /" | cut -c1-260 || true
}
for units in $2; do
  for camera in $3; do
    for side in ${SIDES:-before after}; do run $side $units $camera; done
  done
done
tar czf $OUT/reports.tgz -C /tmp/out $(cd /tmp/out && ls *.json *.log)
cp /tmp/out/after_1000000_front*.png $OUT/ 2>/dev/null || true
