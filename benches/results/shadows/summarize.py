#!/usr/bin/env python3
"""Rows of benches/results/shadows/summary*.json from a gpu.sh run's reports.

    summarize.py REPORTS_DIR COMMIT RUN > summary.json

REPORTS_DIR holds `<name>.report.json` files of `battle --report`, named
as gpu.sh names them; each gives a row {device, units, camera, tier,
shadows, terrain, gpu_frame_ms_median, shadow_ms, terrain_ms,
shadow_share_of_frame, shadow_passes_ms_median, draw_ms, far_field_ms,
flip_mean, flip_p95, coverage_ratio, still_flip_ratio, run, commit, date,
command}. Every scope is a per-frame median; a pass run once per cascade
counts as the sum of its cascades (the profiler sums a scope opened
several times in a frame). The terrain is one prop draw inside `draw`, so
`terrain_ms` is null.
"""
import datetime
import glob
import json
import os
import sys


def rounded(value, digits):
    return None if value is None else round(value, digits)


def row(path, commit, run):
    report = json.load(open(path))
    scopes = {s["name"]: s["median_ms"] for s in report["gpu_ms"]}
    shadows = "shadows" in scopes
    quality = report.get("quality") or {}
    log = path.replace(".report.json", ".log")
    command = open(log).readline().strip() if os.path.exists(log) else None
    frame = scopes["frame"]
    shadow_ms = scopes.get("shadows", 0.0)
    return {
        "device": report["device"],
        "units": report["units"],
        "camera": report["camera"],
        "tier": report["tier"],
        "shadows": shadows,
        "terrain": True,
        "gpu_frame_ms_median": round(frame, 3),
        "shadow_ms": round(shadow_ms, 3),
        "terrain_ms": None,
        "shadow_share_of_frame": round(shadow_ms / frame, 3),
        "shadow_passes_ms_median": {
            name: round(ms, 3) for name, ms in scopes.items() if name.startswith("shadow")
        },
        "draw_ms": rounded(scopes.get("draw"), 3),
        "far_field_ms": rounded(scopes.get("far field"), 3),
        "flip_mean": rounded(quality.get("flip_mean"), 4),
        "flip_p95": rounded(quality.get("flip_p95"), 4),
        "coverage_ratio": rounded(quality.get("coverage_ratio"), 4),
        "still_flip_ratio": rounded(quality.get("still_flip_ratio"), 3),
        "run": run,
        "commit": commit,
        "date": datetime.date.today().isoformat(),
        "command": command,
    }


def main():
    reports, commit, run = sys.argv[1:4]
    rows = [row(p, commit, run) for p in sorted(glob.glob(os.path.join(reports, "*.report.json")))]
    order = {"overview": 0, "front": 1, "ground": 2}
    rows.sort(key=lambda r: (r["tier"], r["units"], order.get(r["camera"], 3), r["shadows"]))
    json.dump(rows, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
