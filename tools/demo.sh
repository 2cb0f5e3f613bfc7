#!/usr/bin/env bash
# Builds and runs the battle demo. With a display it opens a window; without
# one it simulates 20 s of battle headless (on lavapipe when there is no GPU)
# and writes the front line to horde.png. Extra arguments go to `battle` (see
# `--help`).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --bin battle
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  exec target/release/battle "$@"
else
  exec target/release/battle --headless --frames 600 --render-every 200 --camera front \
    --screenshot horde.png "$@"
fi
