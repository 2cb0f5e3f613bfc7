#!/bin/bash
# Issue 23 on the GPU machine: the battle step per part for three binaries
# side by side (`gpu.sh steps`), then the default battles to their end with
# the last (`gpu.sh battles`, run.sh).
#   before  .bench/round5  (242b978): terrain; slopes do not slow anyone
#   slopes  .bench/round6a (46e6608): units and their regiments' anchors
#           slower uphill (the slope read where it is used)
#   batch4  .bench/round6b (f4400dd): a bucket's entries read four at a
#           time; the slope read before the neighbours
#   after   .bench/round6c: and the counts held twice by parity (no clear
#           between steps), the regiments beside the grid's first scan
#   after1  .bench/round6d: the same, entries read one at a time
#   after2  .bench/round6e: the same, entries read two at a time
# Step parts: one step a frame, 1920x1080, no budget, 900 frames (the first
# 30 s of battle: the armies meet at about 10 s) at 100k and 1M.
set -euo pipefail
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
declare -A XZ=([before]=round5 [slopes]=round6a [batch4]=round6b [after]=round6c [after1]=round6d [after2]=round6e)
SIDES="before slopes batch4 after after1 after2"
case ${1:-steps} in
steps)
  mkdir -p /tmp/out
  for side in $SIDES; do
    mkdir -p /tmp/$side
    xz -dc .bench/${XZ[$side]}/battle.xz > /tmp/$side/battle
    chmod +x /tmp/$side/battle
  done
  for run in "100000 900" "1000000 900"; do
    set -- $run
    for side in $SIDES; do
      name=${side}_$1
      HORDE_CACHE_DIR=/tmp/cache timeout 150 /tmp/$side/battle --headless --units $1 --frames $2 \
        --render-every 1 --width 1920 --height 1080 --budget-ms 0 --report /tmp/out/$name.report.json \
        > /tmp/out/$name.log 2>&1 || echo "$name failed: $(tail -2 /tmp/out/$name.log)"
      grep -h "gpu battle" /tmp/out/$name.log | sed "s/^.*gpu /$name: /" || true
    done
  done
  tar czf $OUT/step_parts.tgz -C /tmp/out $(cd /tmp/out && ls)
  ;;
battles)
  mkdir -p /tmp/summary
  OUT=/tmp/summary BATTLE_XZ=.bench/${XZ[after]}/battle.xz bash benches/results/regiments/run.sh \
    | grep -v '^  ' | cut -c1-240
  cp /tmp/summary/summary.json $OUT/
  cp /tmp/summary/*.png $OUT/ 2>/dev/null || true
  tar czf $OUT/summary.tgz -C /tmp/summary json $(cd /tmp/summary && ls *.log)
  ;;
esac
