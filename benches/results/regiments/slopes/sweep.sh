#!/bin/bash
# Issue 23 on the GPU machine: how long the default battles last under
# rule variants (battle --rule), with .bench/round6h (the commit that adds
# --rule; an army breaks at 35 %), or BIN=round6i (92b1eb1: at 30 %). Each variant: the 10k battle (a timeline sample every second)
# and the 1M battle (every 10 s), to at most 300 s of battle.
set -euo pipefail
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export HORDE_CACHE_DIR=/tmp/cache
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
xz -dc .bench/${BIN:-round6h}/battle.xz > /tmp/battle; chmod +x /tmp/battle
mkdir -p /tmp/sweep
# The first call swept the defaults below; the second, VARIANTS="
# army_break_fraction=0.31 army_break_fraction=0.32 army_break_fraction=0.33";
# the third, BIN=round6i SWEEP=sweep_pace VARIANTS="morale_per_panic_second=0.025
# morale_per_casualty=0.7 attack_seconds=6".
variants=("" "rally_distance=90" "rally_distance=120" "army_break_fraction=0.3"
  "slope_slowing=2" "reserve_seconds=60")
[ -n "${VARIANTS:-}" ] && read -ra variants <<< "$VARIANTS"
for variant in "${variants[@]}"; do
  name=${variant:-default}
  rule=(); [ -n "$variant" ] && rule=(--rule "$variant")
  for run in "10000 30" "1000000 300"; do
    set -- $run
    timeout 120 /tmp/battle --headless --units $1 --frames 9000 --render-every $2 --warmup 2 \
      --width 1920 --height 1080 --budget-ms 0 --camera overview "${rule[@]}" \
      --report /tmp/sweep/${name}_$1.json > /tmp/sweep/${name}_$1.log 2>&1 \
      || echo "$name $1 failed: $(tail -1 /tmp/sweep/${name}_$1.log)"
  done
done
python3 - <<'PY'
import json, glob, os
rows = []
for path in sorted(glob.glob('/tmp/sweep/*.json')):
    r = json.load(open(path))
    name = os.path.basename(path)[:-5]
    rows.append({k: r.get(k) for k in ['units', 'winner', 'end_seconds', 'melee_fronts_at_60s',
                                        'flank_attacks', 'rear_attacks', 'routs', 'rallies']})
    rows[-1]['variant'] = name.rsplit('_', 1)[0]
    print(name, rows[-1])
json.dump(rows, open(os.environ['OUT'] + '/' + os.environ.get('SWEEP', 'sweep') + '.json', 'w'), indent=1)
PY
tar czf $OUT/${SWEEP:-sweep}.tgz -C /tmp/sweep .
