#!/bin/bash
# ABBA: e131f7f (A), HEAD fe7503d (B), HEAD + the previous LOD's route read at once (R).
for v in newf oldf; do xz -dc .bench/diag/$v.xz > /tmp/x_$v && chmod +x /tmp/x_$v; done
xz -dc .bench/reuse/crowd_bench.xz > /tmp/x_reuse && chmod +x /tmp/x_reuse
export HORDE_ROOT=$PWD/.bench/oldroot HORDE_PROFILE_SERIAL=1
U="--units 1000000,4000000 --frames 60 --warmup 20"
run() { name=$1; shift; echo "== $name"; "$@" > $OUT/$name.log 2>&1; grep -E "units[,:] " $OUT/$name.log | grep -v INFO | grep -v draw\ \( | sed -e 's/recording per pass.*)/)/' -e 's/(p95[^)]*)//g' -e 's/draw .*statistics/stat/'; }
old() { run $1 /tmp/x_oldf $U --compare-units 10000 --out /tmp/r/$1; }
new() { name=$1; shift; run $name "$@" $U --skip-comparisons --far-field off --lod-error 0.025 --out /tmp/r/$name; }
old A1; new B1 /tmp/x_newf; new R1 /tmp/x_reuse; new R2 /tmp/x_reuse; new B2 /tmp/x_newf; old A2
cd $OUT && tar czf logs.tgz *.log && rm *.log
