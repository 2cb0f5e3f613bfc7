#!/bin/bash
# Issue 23 on the GPU machine, one call: the battle step per part for five
# binaries side by side, then the marks debug view, then run.sh (the
# default battles to their end) with the last binary.
#   before  .bench/round3b (69e2d70): scans one thread per chunk of 64
#           cells; entries hold unit indices; a count dispatch every step
#   entries .bench/round4  (11a66b6): scans by workgroups (chunks of 256);
#           entries hold unit, side and position
#   scan    .bench/round4b (592ae7a): chunks of 512, the second level ends
#           the scan up to 262,144 cells; buckets' ranges loaded first
#   count   .bench/round4d (e562427): the unit step counts the next step's
#           grid; the count dispatch runs before the first step only
#   after   .bench/round4e (cbb8468): a unit looks only as far as its
#           state needs (separation, reach or engage radius)
# Step parts: one step a frame, 1920x1080, no budget; 900 frames (30 s of
# battle: the armies meet) at 100k and 1M, 200 at 4M. Marks: units coloured
# by regiment state at 10k (60 s) and 1M (20 s), overview and front.
set -euo pipefail
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p /tmp/out
declare -A XZ=([before]=round3b [entries]=round4 [scan]=round4b [count]=round4d [after]=round4e)
for side in before entries scan count after; do
  mkdir -p /tmp/$side
  xz -dc .bench/${XZ[$side]}/battle.xz > /tmp/$side/battle
  chmod +x /tmp/$side/battle
done
for run in "100000 900" "1000000 900" "4000000 200"; do
  set -- $run
  for side in before entries scan count after; do
    name=${side}_$1
    HORDE_CACHE_DIR=/tmp/cache timeout 150 /tmp/$side/battle --headless --units $1 --frames $2 \
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
mkdir -p /tmp/summary
OUT=/tmp/summary BATTLE_XZ=.bench/round4e/battle.xz bash benches/results/regiments/run.sh \
  | grep -v '^  ' | cut -c1-240
cp /tmp/summary/summary.json $OUT/
tar czf $OUT/summary.tgz -C /tmp/summary .
