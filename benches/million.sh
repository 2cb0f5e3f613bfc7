#!/usr/bin/env bash
# The million-unit benchmark (issue 10): the headless battle at 1920x1080 on
# the overview and front-line cameras, with the far field off, on at the
# fixed default size (12 px, no budget), and on under the default frame
# budget (16.6 ms), one report and screenshot per configuration.
#
#   benches/million.sh BATTLE OUT_DIR [UNITS...]    (default 1000000 4000000)
#
# 600 steps (20 s of battle: the front is engaged). Fixed configurations
# render every 15th step (40 frames, 10 warm-up); budget runs every 4th
# (150 frames, the first 90 left out while the controller settles).
set -euo pipefail
battle=$1
out=$2
shift 2
units=("$@")
[ ${#units[@]} -gt 0 ] || units=(1000000 4000000)
mkdir -p "$out"
for u in "${units[@]}"; do
  for camera in overview front; do
    run() {
      local name=battle_${u}_${camera}_$1
      shift
      "$battle" --headless --units "$u" --width 1920 --height 1080 --camera "$camera" \
        --frames 600 "$@" --report "$out/$name.json" --screenshot "$out/$name.png"
    }
    run off --far-field off --budget-ms 0 --render-every 15 --warmup 10
    run on --far-field on --budget-ms 0 --render-every 15 --warmup 10
    run budget --far-field on --budget-ms 16.6 --render-every 4 --warmup 90
  done
done
