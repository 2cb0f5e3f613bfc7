#!/bin/bash
# Issue 22 (shadows) on the GPU machine, with the stripped release binaries
# of .bench/$BENCH (the commit named in the README).
#   gpu.sh look      the three presets at 1M, 1920x1080, shadows on, 20 s in:
#                    screenshots and the pass times (a first look);
#   gpu.sh cost      the 1M frame at each preset with shadows off and on,
#                    side by side, 600 frames (20 s into the battle),
#                    default budget, quality against the reference; the
#                    screenshots with shadows on;
#   gpu.sh montage   the three presets at 10k, 1M and 4M, shadows on;
#   gpu.sh near      front and ground at 1M as `cost` does, shadows on only
#                    (a later version measured against `cost`'s table),
#                    with screenshots;
#   gpu.sh cost4m    as `cost` at 4M units, without the quality reference;
#   gpu.sh lod       the 1M frame with shadows on, quality against the
#                    reference, at shadow LOD thresholds of 2 (the
#                    default), 3 and 4 texels (overview), 2 and 3 (front,
#                    ground), side by side;
#   gpu.sh ab        the 1M frame with shadows on at the three presets,
#                    quality against the reference, with the binaries of
#                    .bench/$BEFORE and of .bench/$BENCH side by side; and
#                    the overview with 40 props (what the props cast);
#   gpu.sh mobile    the three presets at 10k on the mobile tier (one
#                    1024² cascade, no far field), shadows off and on
#                    (MOBILE_SHADOWS=on: on only), quality against the
#                    reference.
# Each run's log starts with its command line; summarize.py makes the
# summary rows from the reports.
set -euo pipefail
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export HORDE_ROOT=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p /tmp/bin /tmp/out /tmp/shots
for b in .bench/$BENCH/*.xz; do xz -dc $b > /tmp/bin/$(basename $b .xz); done
if [ -n "${BEFORE:-}" ]; then
  mkdir -p /tmp/before
  xz -dc .bench/$BEFORE/battle.xz > /tmp/before/battle
  chmod +x /tmp/before/battle
fi
chmod +x /tmp/bin/*
run() { # name, timeout, args...
  local name=$1 limit=$2; shift 2
  echo "battle --headless --width 1920 --height 1080 $*" > /tmp/out/$name.log
  HORDE_CACHE_DIR=/tmp/cache timeout $limit ${BATTLE:-/tmp/bin/battle} --headless --width 1920 --height 1080 \
    --report /tmp/out/$name.report.json "$@" >> /tmp/out/$name.log 2>&1 \
    || echo "$name failed: $(tail -3 /tmp/out/$name.log)"
  grep -h "gpu frame\|gpu shadow\|gpu draw\|gpu far field\|quality against" /tmp/out/$name.log \
    | sed "s/^.*INFO[^ ]* /$name: /" | cut -c1-200 || true
}
case "$1" in
look)
  for camera in overview front ground; do
    run look_$camera 150 --units 1000000 --camera $camera --frames 600 --screenshot /tmp/shots/1m_$camera.png
  done ;;
cost)
  for camera in overview front ground; do
    for shadows in off on; do
      shot=(); [ $shadows = on ] && shot=(--screenshot /tmp/shots/1m_$camera.png)
      run ${camera}_$shadows 150 --quality --units 1000000 --camera $camera --frames 600 \
        --shadows $shadows "${shot[@]}"
    done
  done ;;
near)
  for camera in front ground; do
    run ${camera}_on 150 --quality --units 1000000 --camera $camera --frames 600 --shadows on \
      --screenshot /tmp/shots/1m_$camera.png
  done ;;
cost4m)
  for camera in overview front ground; do
    for shadows in off on; do
      run 4m_${camera}_$shadows 150 --units 4000000 --camera $camera --frames 600 --shadows $shadows
    done
  done ;;
lod)
  for run in overview:2 overview:3 overview:4 front:2 front:3 ground:2 ground:3; do
    camera=${run%:*} texels=${run#*:}
    run lod_${camera}_$texels 150 --quality --units 1000000 --camera $camera --frames 600 \
      --shadows on --shadow-lod-texels $texels
  done ;;
ab)
  for camera in overview front ground; do
    BATTLE=/tmp/before/battle run before_$camera 150 --quality --units 1000000 --camera $camera \
      --frames 600 --shadows on
    run after_$camera 150 --quality --units 1000000 --camera $camera --frames 600 --shadows on
  done
  run after_overview_props40 100 --units 1000000 --props 40 --camera overview --frames 600 \
    --shadows on ;;
mobile)
  for camera in overview front ground; do
    for shadows in ${MOBILE_SHADOWS:-off on}; do
      run mobile_${camera}_$shadows 100 --quality --tier mobile --units 10000 --camera $camera \
        --frames 600 --shadows $shadows
    done
  done ;;
montage)
  HORDE_CACHE_DIR=/tmp/cache timeout 560 /tmp/bin/montage --battle /tmp/bin/battle --out /tmp/montage \
    > /tmp/out/montage.log 2>&1 || tail -5 /tmp/out/montage.log
  cp /tmp/montage/montage.png $OUT/
  for f in /tmp/montage/*.json; do cp $f /tmp/out/; done ;;
esac
# At most 8 files come back: the frames and the front's reference, not
# every FLIP map.
for f in /tmp/shots/1m_{overview,front,ground}.png /tmp/shots/1m_front.reference.png; do
  [ -f $f ] && cp $f $OUT/
done
tar czf $OUT/reports_$1.tgz -C /tmp/out $(cd /tmp/out && ls)
