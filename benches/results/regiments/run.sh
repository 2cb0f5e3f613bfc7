#!/bin/bash
# Issue 23 (regiments) on the GPU machine: the default battle at 10k and 1M
# units run until it resolves (at most 300 s of battle time), the battle
# step's cost at 100k and 1M, and screenshots at 60 s. Run from the
# repository root with the stripped release binary of the commit in
# $BATTLE_XZ (default .bench/head/battle.xz) and the Vulkan loader's debs
# in .gl/; writes the
# reports, logs, screenshots and summary.json into $OUT. About 5 minutes.
set -euo pipefail
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export HORDE_ROOT=$PWD HORDE_CACHE_DIR=/tmp/horde-cache
mkdir -p /tmp/bin $OUT/json
xz -dc ${BATTLE_XZ:-.bench/head/battle.xz} > /tmp/bin/battle; chmod +x /tmp/bin/battle
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
B=/tmp/bin/battle
SIZE="--width 1920 --height 1080 --budget-ms 0"

run() { # name, then battle's arguments
  name=$1; shift
  start=$(date +%s)
  timeout 240 $B --headless $SIZE "$@" --report $OUT/json/$name.json > $OUT/$name.log 2>&1 \
    || echo "== $name failed or timed out (rc $?)"
  echo "== $name ($(( $(date +%s) - start )) s): $(grep -E 'after .* s:' $OUT/$name.log | sed 's/.*INFO[^ ]* //' | tail -1)"
}

# The whole battle: 9000 steps (300 s), a frame every 300 steps (10 s), so
# the timeline has a sample every 10 s; the screenshot is the last frame.
run battle_10k --units 10000 --frames 9000 --render-every 300 --warmup 2 \
  --camera overview --screenshot $OUT/battle_10k_end.png
run battle_1m --units 1000000 --frames 9000 --render-every 300 --warmup 2 \
  --camera overview --screenshot $OUT/battle_1m_end.png
# The step's cost: one step per frame, so the battle scope is one step.
run step_100k --units 100000 --frames 600 --render-every 1 --warmup 60 --camera overview
run step_1m --units 1000000 --frames 200 --render-every 1 --warmup 20 --camera overview
# 60 s in: the fronts, from above and along the line.
for camera in overview front; do
  run at60_10k_$camera --units 10000 --frames 1800 --render-every 1800 --camera $camera \
    --screenshot $OUT/battle_10k_60s_$camera.png
done
run at60_1m_front --units 1000000 --frames 1800 --render-every 1800 --camera front \
  --screenshot $OUT/battle_1m_60s_front.png

python3 - "$OUT" <<'PY'
import json, sys, os
out = sys.argv[1]
def load(name):
    path = os.path.join(out, 'json', name + '.json')
    return json.load(open(path)) if os.path.exists(path) else None
def battle_ms(report):
    return next((p['median_ms'] for p in report['gpu_ms'] if p['name'] == 'battle'), None)
rows = []
for units, whole, step in [(10000, 'battle_10k', None), (1000000, 'battle_1m', 'step_1m'), (100000, None, 'step_100k')]:
    w, s = load(whole) if whole else None, load(step) if step else None
    r = w or s
    if r is None:
        continue
    step_ms = battle_ms(s) if s else (battle_ms(w) / w['render_every'] if w and battle_ms(w) else None)
    rows.append({
        'device': r['device'], 'units': units,
        'step_ms_median': step_ms,
        'cpu_ms_median': (s or w)['cpu_ms_median'],
        'winner': w['armies'][w['winner']] if w and w['winner'] is not None else None,
        'end_seconds': w['end_seconds'] if w else None,
        'melee_fronts_at_60s': w['melee_fronts_at_60s'] if w else None,
        'flank_attacks': w['flank_attacks'] if w else None,
        'rear_attacks': w['rear_attacks'] if w else None,
        'routs': w['routs'] if w else None,
    })
json.dump(rows, open(os.path.join(out, 'summary.json'), 'w'), indent=1)
print(json.dumps(rows, indent=1))
for name in ['battle_10k', 'battle_1m']:
    r = load(name)
    if r:
        print(name, 'timeline (s, alive, fronts, routs, standing):')
        for t in r['timeline']:
            print('  %6.1f %s %d %d %s' % (t['seconds'], t['alive'], t['melee_fronts'], t['routs'], t['standing']))
PY
cd $OUT && tar czf logs.tgz *.log && rm *.log
