#!/usr/bin/env bash
# The quality benchmark (DESIGN.md, "Image quality"): the headless battle at
# 1920x1080, 20 s in (600 steps, each rendered), for 10k, 1M and 4M units
# from the overview, front and ground cameras, each with --quality: FLIP and
# unit coverage of the last frame against a reference of the same GPU state
# (every unit a mesh at LOD 0, no far field, no budget, 2x2 supersampled)
# and the still-camera shimmer against the reference's. Writes, in
# benches/results/quality/: <units>_<camera>.report.json, .png,
# .reference.png and .flip.png per run, and summary.json (a row per run:
# device, units, camera, gpu_frame_ms_median, flip_mean, flip_p95,
# coverage_ratio, still_flip_ratio). The 1M front pictures are also copied
# to 1m_front_frame.png and 1m_front_reference.png.
#
#   tools/quality.sh                           # builds target/release/{battle,quality_summary}
#   BATTLE=/path/to/battle SUMMARY=/path/to/quality_summary tools/quality.sh
#   QUALITY_UNITS="10000" QUALITY_CAMERAS="front" tools/quality.sh --budget-ms 0   # extra args go to battle
set -euo pipefail
cd "$(dirname "$0")/.."
units=${QUALITY_UNITS:-10000 1000000 4000000}
cameras=${QUALITY_CAMERAS:-overview front ground}
battle=${BATTLE:-}
summary=${SUMMARY:-}
if [ -z "$battle" ] || [ -z "$summary" ]; then
  cargo build --release --bin battle --bin quality_summary
  battle=${battle:-target/release/battle}
  summary=${summary:-target/release/quality_summary}
fi
out=benches/results/quality
mkdir -p "$out"
reports=()
for count in $units; do
  for camera in $cameras; do
    name="${count}_${camera}"
    "$battle" --headless --quality --units "$count" --camera "$camera" \
      --width 1920 --height 1080 --frames 600 \
      --screenshot "$out/$name.png" --report "$out/$name.report.json" "$@"
    reports+=("$out/$name.report.json")
  done
done
"$summary" --out "$out/summary.json" "${reports[@]}"
if [ -f "$out/1000000_front.png" ]; then
  cp "$out/1000000_front.png" "$out/1m_front_frame.png"
  cp "$out/1000000_front.reference.png" "$out/1m_front_reference.png"
fi
