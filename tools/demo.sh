#!/usr/bin/env bash
# Builds and runs the demo. With a display it opens a window; without one it
# renders headless (on lavapipe when there is no GPU) and writes horde.png.
# Extra arguments go to the viewer (see `--help`).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --bin viewer
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  exec target/release/viewer "$@"
else
  exec target/release/viewer --headless --frames 8 --screenshot horde.png "$@"
fi
