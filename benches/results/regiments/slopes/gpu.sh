#!/bin/bash
# Issue 23 on the GPU machine: the battle step per part, binaries side by
# side, in two calls.
#   `gpu.sh variants` (the first call): how to read the grid
#     before  .bench/round5  (242b978): terrain; slopes slow no one
#     slopes  .bench/round6a (46e6608): units and their regiments' anchors
#             slower uphill (the slope read where it is used)
#     batch4  .bench/round6b (f4400dd): a bucket's entries read four at a
#             time; the slope read before the neighbours
#     after   .bench/round6c: batch4, and the counts held twice by parity
#             (no clear between steps), the regiments beside the grid's
#             first scan
#     after1  .bench/round6d: the same, entries read one at a time
#     after2  .bench/round6e: the same, entries read two at a time
#   `gpu.sh final` (the second call): before against the commit that
#     reads ahead only in battles of at most 262,144 units,
#     .bench/round6f (27b0221).
#   `gpu.sh battles` (the third call): run.sh (the default battles to
#     their end) with round6f, whose regiments' anchors also slowed
#     uphill: the 1M battle did not end within 300 s
#     (anchors_slowed/summary.json).
#   `gpu.sh last` (the fourth call): before against .bench/round6g
#     (bccccb1: anchors march on, only units slow uphill), then run.sh
#     with it: the 1M battle still outlasted 300 s, so sweep.sh tried
#     rule variants (battle --rule).
#   `gpu.sh closing` (the last call): before against .bench/round6i
#     (92b1eb1: an army breaks at 30 % of its regiments), then run.sh
#     with it (break_30/summary.json).
#   `gpu.sh default` (the tenth call): run.sh with .bench/round6j (the
#     closing defaults: morale 0.7 per casualty): ../summary.json.
#   `gpu.sh buffers` (the eleventh call): round6j against .bench/round6l
#     (508ad4f: the terrain in the grid's buffer, the marks written by the
#     scatter, so the battle runs on the mobile tier).
#   `gpu.sh view` (the twelfth call): round6j against .bench/round6m
#     (c1cca97: the terrain read through a read-only view of the grid's
#     binding; a fallen unit writes its mark once).
#   `gpu.sh shown` (the thirteenth call): round6j against .bench/round6n
#     (the scatter writes the marks only while the frame shows them).
#   `gpu.sh release` (the fourteenth call): run.sh with round6n, the
#     session's last code: ../summary.json.
# Step parts: one step a frame, 1920x1080, no budget, 900 frames (the first
# 30 s of battle: the armies meet at about 10 s) at 100k and 1M.
set -euo pipefail
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
declare -A XZ=([before]=round5 [slopes]=round6a [batch4]=round6b [after]=round6c
  [after1]=round6d [after2]=round6e [final]=round6f [last]=round6g [closing]=round6i [default]=round6j [buffers]=round6l [view]=round6m [shown]=round6n [release]=round6n)
MODE=${1:-final}
case $MODE in
variants) SIDES="before slopes batch4 after after1 after2" ;;
final) SIDES="before final" ;;
battles) SIDES="" ;;
last) SIDES="before last" ;;
closing) SIDES="before closing" ;;
default) SIDES="" ;;
buffers) SIDES="default buffers" ;;
view) SIDES="default view" ;;
shown) SIDES="default shown" ;;
release) SIDES="" ;;
*) echo "usage: gpu.sh variants|final|battles|last|closing|default|buffers|view|shown|release"; exit 2 ;;
esac
if [ -n "$SIDES" ]; then
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
tar czf $OUT/step_parts_$MODE.tgz -C /tmp/out $(cd /tmp/out && ls)
fi
if [[ $MODE =~ ^(battles|last|closing|default|release)$ ]]; then
  battle=final; [ $MODE != battles ] && battle=$MODE
  mkdir -p /tmp/summary
  OUT=/tmp/summary BATTLE_XZ=.bench/${XZ[$battle]}/battle.xz bash benches/results/regiments/run.sh \
    | grep -v '^  ' | cut -c1-240
  cp /tmp/summary/summary.json $OUT/
  tar czf $OUT/battles.tgz -C /tmp/summary .
fi
