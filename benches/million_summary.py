#!/usr/bin/env python3
"""Writes summary.json from the reports of benches/million.sh.

    benches/million_summary.py DIR

One entry per configuration (battle_<units>_<camera>_<off|on|budget>.json):
{device, units, camera, far_field, budget_ms, gpu_frame_ms_median,
gpu_frame_ms_p95, passes: {name: median ms}, visible_units_per_lod,
visible_units_far_field, far_field_px, lod_threshold_px}.
"""
import glob
import json
import os
import re
import sys

directory = sys.argv[1]
entries = []
for path in sorted(glob.glob(os.path.join(directory, "battle_*.json"))):
    match = re.fullmatch(r"battle_(\d+)_(\w+?)_(off|on|budget)\.json", os.path.basename(path))
    if not match:
        continue
    with open(path) as f:
        report = json.load(f)
    scopes = {scope["name"]: scope for scope in report["gpu_ms"]}
    budget = report.get("budget")
    entries.append({
        "device": report["device"],
        "units": int(match.group(1)),
        "camera": match.group(2),
        "far_field": match.group(3) != "off",
        "budget_ms": budget["budget_ms"] if budget else None,
        "gpu_frame_ms_median": round(scopes["frame"]["median_ms"], 3),
        "gpu_frame_ms_p95": round(scopes["frame"]["p95_ms"], 3),
        "passes": {name: round(s["median_ms"], 3) for name, s in scopes.items() if name != "frame"},
        "visible_units_per_lod": report["visible"]["units_per_lod"],
        "visible_units_far_field": report["visible"]["units_far_field"],
        "far_field_px": budget["far_field_px"] if budget else None,
        "lod_threshold_px": budget["lod_threshold_px"] if budget else None,
    })
entries.sort(key=lambda e: (e["units"], e["camera"], e["far_field"], e["budget_ms"] or 0))
output = os.path.join(directory, "summary.json")
with open(output + ".tmp", "w") as f:
    json.dump(entries, f, indent=1)
    f.write("\n")
os.replace(output + ".tmp", output)
print(f"wrote {output}: {len(entries)} configurations")
