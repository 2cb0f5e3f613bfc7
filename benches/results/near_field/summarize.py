#!/usr/bin/env python3
"""Rows of benches/results/near_field/summary.json from gpu.sh's reports.

    summarize.py REPORTS_DIR BEFORE_COMMIT AFTER_COMMIT > rows.json

REPORTS_DIR holds `<side>_<name>.report.json` files of `battle --report`
(side: before or after, as gpu.sh names them); each gives a row {device,
units, camera, far_field, budget_ms, occlusion, gpu_frame_ms_median,
flip_mean, side, commit, draw_ms, draw_late_ms, cull_ms, cull_late_ms,
depth_pyramid_ms, far_field_ms, shadows_ms, units_drawn, units_occluded,
props_occluded, coverage_ratio, still_flip_ratio, date, command}. Every
scope is a per-frame median over the run's frames after warm-up.
"""
import datetime
import glob
import json
import os
import sys


def rounded(value, digits):
    return None if value is None else round(value, digits)


def row(path, commits):
    report = json.load(open(path))
    scopes = {s["name"]: s["median_ms"] for s in report["gpu_ms"]}
    quality = report.get("quality") or {}
    visible = report["visible"]
    log = path.replace(".report.json", ".log")
    command = open(log).readline().strip() if os.path.exists(log) else None
    side = os.path.basename(path).split("_")[0]
    budget = report.get("budget")
    return {
        "device": report["device"],
        "units": report["units"],
        "camera": report["camera"],
        "far_field": report["far_field"],
        "budget_ms": budget["budget_ms"] if budget else None,
        "occlusion": report.get("occlusion", "off (before)"),
        "gpu_frame_ms_median": round(scopes["frame"], 3),
        "flip_mean": rounded(quality.get("flip_mean"), 4),
        "side": side,
        "commit": commits[side],
        "draw_ms": rounded(scopes.get("draw"), 3),
        "draw_late_ms": rounded(scopes.get("draw late"), 3),
        "cull_ms": rounded(scopes.get("cull"), 3),
        "cull_late_ms": rounded(scopes.get("cull late"), 3),
        "depth_pyramid_ms": rounded(scopes.get("depth pyramid"), 3),
        "far_field_ms": rounded(scopes.get("far field"), 3),
        "shadows_ms": rounded(scopes.get("shadows"), 3),
        "units_drawn": sum(visible["units_per_lod"]) + visible["units_far_field"]
        + visible.get("units_impostor", 0),
        "units_occluded": visible.get("units_occluded", 0),
        "props_occluded": visible.get("props_occluded", 0),
        "coverage_ratio": rounded(quality.get("coverage_ratio"), 4),
        "still_flip_ratio": rounded(quality.get("still_flip_ratio"), 3),
        "date": datetime.date.today().isoformat(),
        "command": command,
    }


def main():
    reports, before, after = sys.argv[1:4]
    commits = {"before": before, "after": after, "shot": after}
    rows = [row(p, commits) for p in sorted(glob.glob(os.path.join(reports, "*.report.json")))]
    order = {"overview": 0, "front": 1, "ground": 2}
    rows.sort(key=lambda r: (r["units"], r["far_field"] == "off", order.get(r["camera"], 3),
                             r["side"] != "before", r["occlusion"]))
    json.dump(rows, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
