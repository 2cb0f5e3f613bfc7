#!/usr/bin/env python3
"""Rows of benches/results/near_field/summary.json from gpu.sh's reports.

    summarize.py CALL=TGZ=BEFORE_COMMIT=AFTER_COMMIT[=SIDE:COMMIT...] [...] > summary.json

Each TGZ holds `<side>_<name>.report.json` files of `battle --report` and
their logs, as gpu.sh tars them (side: before, after, or the mode's own
prefix, sweep, texture, after48); the `before` side ran BEFORE_COMMIT's
binary (or AFTER_COMMIT's with --occlusion off, where the two are equal),
the others AFTER_COMMIT's, but where SIDE:COMMIT names the side (an
experiment's binary). A side named before1, before2 (turns of one call)
counts as before. Each report gives a row {device, units, camera,
far_field, budget_ms, occlusion, gpu_frame_ms_median, flip_mean, call,
side, commit, far_field_px, lod_threshold_px,
far_field_supersampling_dropped (null before the budget could), draw_ms, draw_late_ms,
cull_ms, cull_late_ms, depth_pyramid_ms, far_field_ms (both phases),
far_field_late_ms, shadows_ms,
units_per_lod, units_far_field, units_occluded, props_occluded,
coverage_ratio, still_flip_ratio, command, run}. Every scope is a per-frame
median over the run's frames after warm-up. `run` is the report's name in
its archive (it says an experiment's knob, which `command` does not: the
rows from call 30 on have it).
"""
import glob
import json
import os
import sys
import tarfile
import tempfile


def rounded(value, digits):
    return None if value is None else round(value, digits)


def row(path, call, commits, overrides):
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
        "occlusion": report.get("occlusion", "off"),
        "gpu_frame_ms_median": round(scopes["frame"], 3),
        "flip_mean": rounded(quality.get("flip_mean"), 4),
        "call": call,
        "side": side,
        "commit": overrides.get(side, commits[0] if side.startswith("before") else commits[1]),
        "far_field_px": rounded(budget["far_field_px"], 1) if budget else None,
        "lod_threshold_px": rounded(budget["lod_threshold_px"], 2) if budget else None,
        "far_field_supersampling_dropped": (budget or {}).get(
            "far_field_supersampling_dropped"),
        "draw_ms": rounded(scopes.get("draw"), 3),
        "draw_late_ms": rounded(scopes.get("draw late"), 3),
        "cull_ms": rounded(scopes.get("cull"), 3),
        "cull_late_ms": rounded(scopes.get("cull late"), 3),
        "depth_pyramid_ms": rounded(scopes.get("depth pyramid"), 3),
        # Both phases' rasterizations with occlusion culling (from c958cc0).
        "far_field_ms": rounded(
            None if "far field" not in scopes
            else scopes["far field"] + scopes.get("far field late", 0.0), 3),
        "far_field_late_ms": rounded(scopes.get("far field late"), 3),
        "shadows_ms": rounded(scopes.get("shadows"), 3),
        "units_per_lod": visible["units_per_lod"],
        "units_far_field": visible["units_far_field"],
        "units_occluded": visible.get("units_occluded", 0),
        "props_occluded": visible.get("props_occluded", 0),
        "coverage_ratio": rounded(quality.get("coverage_ratio"), 4),
        "still_flip_ratio": rounded(quality.get("still_flip_ratio"), 3),
        "command": command,
        "run": os.path.basename(path)[: -len(".report.json")],
    }


def main():
    rows = []
    for argument in sys.argv[1:]:
        call, archive, before, after, *sides = argument.split("=")
        overrides = dict(side.split(":", 1) for side in sides)
        with tempfile.TemporaryDirectory() as folder:
            with tarfile.open(archive) as tar:
                tar.extractall(folder, filter="data")
            for path in sorted(glob.glob(os.path.join(folder, "*.report.json"))):
                rows.append(row(path, call, (before, after), overrides))
    json.dump(rows, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
