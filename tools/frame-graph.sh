#!/usr/bin/env bash
# Regenerates docs/frame-graph.dot and docs/frame-graph.svg: the battle's
# frame as the code records it (passes, the buffers they hand on, the
# barriers), drawn by Graphviz (`apt-get install graphviz`). The test
# `frame_graph_in_the_docs_is_the_code` (tests/tests/battle.rs) renders the
# same small battle and fails when the committed .dot differs.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo run --quiet --bin battle -- --units 200 --props 12 --seed 7 --frames 2 \
  --width 320 --height 180 --camera front --budget-ms 0 --frame-graph docs/frame-graph.dot
