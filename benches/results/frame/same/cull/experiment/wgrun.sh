#!/bin/bash
# ABBA: e131f7f (A), HEAD fe7503d (B), HEAD + the workgroup-aggregated appends (W).
for v in newf oldf; do xz -dc .bench/diag/$v.xz > /tmp/x_$v && chmod +x /tmp/x_$v; done
xz -dc .bench/wg/crowd_bench.xz > /tmp/x_wg && chmod +x /tmp/x_wg
export HORDE_ROOT=$PWD/.bench/oldroot HORDE_PROFILE_SERIAL=1
U="--units 10000,100000,1000000,4000000 --frames 30 --warmup 10"
run() { name=$1; shift; echo "== $name"; "$@" > $OUT/$name.log 2>&1; grep -E "units[,:] " $OUT/$name.log | grep -v INFO | grep -v draw\ \( | sed -e 's/recording per pass.*)/)/' -e 's/(p95[^)]*)//g' -e 's/draw .*statistics/stat/'; }
old() { run $1 /tmp/x_oldf $U --compare-units 10000 --out /tmp/r/$1; }
new() { name=$1; shift; run $name "$@" $U --skip-comparisons --far-field off --lod-error 0.025 --out /tmp/r/$name; }
old A1; new B1 /tmp/x_newf; new W1 /tmp/x_wg; new W2 /tmp/x_wg; new B2 /tmp/x_newf; old A2
cd $OUT && tar czf logs.tgz *.log && rm *.log
