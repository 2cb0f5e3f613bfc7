#!/usr/bin/env bash
# The soak: the headless battle with the Khronos validation layer on
# (synchronization validation included), 20,000 frames at 100,000 units,
# rendering every step, sampling the process's RSS and the GPU allocations
# every 100 frames. Writes benches/results/soak/<device>.json, whose
# `memory_samples`, `validation_errors` and `validation_warnings` are the
# figures; the log's last lines summarise them. Exits non-zero on a
# validation error or a leak (as every headless run does).
#
#   tools/soak.sh                          # builds target/release/battle
#   BATTLE=/path/to/battle tools/soak.sh   # a binary built elsewhere
#   SOAK_FRAMES=2000 tools/soak.sh --camera front   # shorter; extra args go to battle
#
# battle's defaults apply otherwise: 1280x720, the overview camera, the far
# field on where the device has it.
#
# On a machine without the Vulkan loader or the validation layer (the GPU
# machine), bring them and point the loader at them:
#   LD_LIBRARY_PATH=/path/with/libvulkan.so.1 VK_ADD_LAYER_PATH=/path/with/VkLayer_khronos_validation.json
set -euo pipefail
cd "$(dirname "$0")/.."
frames=${SOAK_FRAMES:-20000}
units=${SOAK_UNITS:-100000}
battle=${BATTLE:-}
if [ -z "$battle" ]; then
  cargo build --release --bin battle
  battle=target/release/battle
fi
out=benches/results/soak
mkdir -p "$out"
report="$out/.soak-$$.json"
trap 'rm -f "$report"' EXIT
status=0
"$battle" --headless --validation --units "$units" --frames "$frames" --render-every 1 \
  --memory-every 100 --report "$report" "$@" ||
  status=$?
if [ ! -s "$report" ]; then
  echo "soak: the battle wrote no report (exit $status)" >&2
  [ "$status" -ne 0 ] || status=1
  exit "$status"
fi
# The report's top-level "device" field names the file.
device=$(sed -n 's/^  "device": "\(.*\)",$/\1/p' "$report" | head -n 1)
slug=$(printf '%s' "${device:-unknown}" | tr '[:upper:]' '[:lower:]' | tr -cs 'a-z0-9' '-' | sed 's/^-*//; s/-*$//')
mv "$report" "$out/$slug.json"
echo "soak: wrote $out/$slug.json (exit $status)"
exit "$status"
