#!/bin/bash
# Issue 24 (animated impostors) on the GPU machine, in one call: the headless
# battle at 1920x1080 from the front camera under the default 16.6 ms budget,
# with --quality (FLIP against the 2x2 supersampled LOD 0 reference):
#   mobile tier (--tier mobile), 100k and 1M units, impostors off then on;
#   desktop tier, 1M units, the far field (impostors off) then impostors
#   (far field off).
# CAMERA=overview runs the same from the overview preset (the whole armies).
# Writes into $OUT one report per run (<tier>_<units>_<impostors>.json), the
# logs, and summary.json: rows {device, tier, units, camera, impostors,
# far_field, gpu_frame_ms_median, flip_mean}, to be committed as
# benches/results/impostors/summary.json.
#
# Run from the repository root, with the loader debs in .gl/ (as for
# benches/results/quality/) and the stripped release battle binary of the
# commit to measure in .bench/impostors/battle.xz:
#   cargo build --release --bin battle && strip -o /tmp/battle target/release/battle
#   mkdir -p .bench/impostors && xz -c /tmp/battle > .bench/impostors/battle.xz
# 450 steps, every third rendered (150 frames, the first 70 left out while
# the budget settles): about 6 minutes on an H100, most of it the 1M mobile
# frames without impostors (about 0.3 s each).
set -euo pipefail
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export HORDE_ROOT=$PWD HORDE_CACHE_DIR=/tmp/horde-cache
mkdir -p /tmp/bin
xz -dc .bench/impostors/battle.xz > /tmp/bin/battle
chmod +x /tmp/bin/battle
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
run() {
  local name=$1
  shift
  local start=$SECONDS
  /tmp/bin/battle --headless --quality --camera "${CAMERA:-front}" --width 1920 --height 1080 \
    --frames 450 --render-every 3 --warmup 70 --report "$OUT/$name.json" "$@" \
    > "$OUT/$name.log" 2>&1 || { echo "== $name failed"; tail -5 "$OUT/$name.log"; return 0; }
  python3 - "$OUT/$name.json" "$name" $((SECONDS - start)) <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
frame = next(p["median_ms"] for p in r["gpu_ms"] if p["name"] == "frame")
flip = (r.get("quality") or {}).get("flip_mean")
print(f"== {sys.argv[2]} ({sys.argv[3]} s): frame {frame:.2f} ms, flip {flip}, "
      f"impostors {r['impostors']}, far field {r['far_field']}, budget {r.get('budget')}, "
      f"visible {r['visible']}")
PY
}
# The first run bakes the two unit types (with their impostors) into the cache.
run mobile_100000_off --tier mobile --units 100000 --impostors off
run mobile_100000_on --tier mobile --units 100000 --impostors on
run mobile_1000000_on --tier mobile --units 1000000 --impostors on
run desktop_1000000_far_field --units 1000000 --impostors off
run desktop_1000000_impostors --units 1000000 --impostors on --far-field off
run mobile_1000000_off --tier mobile --units 1000000 --impostors off
python3 - "$OUT" <<'PY' > "$OUT/summary.json"
import glob, json, os, sys
rows = []
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    if path.endswith("summary.json"):
        continue
    r = json.load(open(path))
    rows.append({
        "device": r["device"],
        "tier": r["tier"],
        "units": r["units"],
        "camera": r["camera"],
        "impostors": r["impostors"],
        "far_field": r["far_field"],
        "gpu_frame_ms_median": next(p["median_ms"] for p in r["gpu_ms"] if p["name"] == "frame"),
        "flip_mean": (r.get("quality") or {}).get("flip_mean"),
    })
print(json.dumps(rows, indent=2))
PY
cat "$OUT/summary.json"
