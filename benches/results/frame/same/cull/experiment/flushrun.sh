#!/bin/bash
# Cull cold against cold: a 256 MB fill before the cull scope (HORDE_EXP_FLUSH)
# in e131f7f (old) and HEAD (new); new serialized (HORDE_PROFILE_SERIAL=1).
for v in new old stats; do xz -dc .bench/flush/$v.xz > /tmp/x_$v && chmod +x /tmp/x_$v; done
/tmp/x_stats .bench/flush/old_cull.spv .bench/flush/new_cull.spv 2>&1 | tee $OUT/stats.txt
export HORDE_ROOT=$PWD/.bench/oldroot HORDE_PROFILE_SERIAL=1
U="--units 1000000,4000000 --frames 60 --warmup 20"
run() { name=$1; shift; echo "== $name"; "$@" > $OUT/$name.log 2>&1; grep -E "units," $OUT/$name.log | grep -v INFO | sed -e 's/recording per pass.*)/)/' -e 's/(p95[^)]*)//g'; }
old() { run $1 /tmp/x_old $U --compare-units 10000 --out /tmp/r/$1; }
new() { run $1 /tmp/x_new $U --skip-comparisons --far-field off --lod-error 0.025 --out /tmp/r/$1; }
old A1; new B1
HORDE_EXP_FLUSH=1 old AF1; HORDE_EXP_FLUSH=1 new BF1
HORDE_EXP_FLUSH=1 new BF2; HORDE_EXP_FLUSH=1 old AF2
new B2; old A2
