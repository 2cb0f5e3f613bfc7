#!/bin/bash
# Issue 21, second round, on the GPU machine: the frame and its quality
# before (.bench/head, df1b9c0) and after (.bench/after, this round: 4x MSAA
# and the silhouette-fitted coarsest LOD), side by side in one call, at
# 1920x1080, 600 steps, default budget. $1 = the unit counts, $2 = the
# cameras; $3 = extra (msaa-off: the after binary once more with --msaa off,
# to split the two changes; montage: the after montage). SIDES (default
# "before after") picks the binaries.
set -euo pipefail
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export HORDE_ROOT=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for side in before after; do
  mkdir -p /tmp/$side
  src=$([ $side = before ] && echo head || echo after)
  for b in battle montage quality_summary; do
    [ -f .bench/$src/$b.xz ] && { xz -dc .bench/$src/$b.xz > /tmp/$side/$b; chmod +x /tmp/$side/$b; }
  done
done
run() { # side units camera extra...
  local side=$1 units=$2 camera=$3; shift 3
  local name="${side}${SUFFIX:-}_${units}_${camera}"
  HORDE_CACHE_DIR=/tmp/cache-$side timeout 200 /tmp/$side/battle --headless --quality --units $units \
    --camera $camera --width 1920 --height 1080 --frames 600 \
    --screenshot /tmp/out/$name.png --report /tmp/out/$name.report.json "$@" \
    > /tmp/out/$name.log 2>&1 || echo "$name failed: $(tail -3 /tmp/out/$name.log)"
  grep -h "gpu frame\|quality against" /tmp/out/$name.log | sed "s/^/$name: /" | cut -c1-260
}
mkdir -p /tmp/out
for units in $1; do
  for camera in $2; do
    for side in ${SIDES:-before after}; do run $side $units $camera; done
    if [ "${3:-}" = msaa-off ]; then SUFFIX=_msaa_off run after $units $camera --msaa off; fi
  done
done
if [ "${3:-}" = montage ]; then
  HORDE_CACHE_DIR=/tmp/cache-after /tmp/after/montage --battle /tmp/after/battle --out /tmp/montage > /tmp/out/montage.log 2>&1 \
    || tail -5 /tmp/out/montage.log
  cp /tmp/montage/montage.png $OUT/ 2>/dev/null || true
  tar czf $OUT/montage_reports.tgz -C /tmp/montage $(cd /tmp/montage && ls *.json) 2>/dev/null || true
fi
tar czf $OUT/reports.tgz -C /tmp/out $(cd /tmp/out && ls *.json *.log)
cp /tmp/out/after_1000000_front*.png $OUT/ 2>/dev/null || true
