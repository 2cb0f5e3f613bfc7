#!/bin/bash
# Cull diagnostics: e131f7f (oldf) and HEAD (newf) with cull variants
# (HORDE_EXP_CULL): frustum only, loads only, no append.
for v in newf oldf; do xz -dc .bench/diag/$v.xz > /tmp/x_$v && chmod +x /tmp/x_$v; done
export HORDE_ROOT=$PWD/.bench/oldroot HORDE_PROFILE_SERIAL=1
U="--units 1000000,4000000 --frames 30 --warmup 10"
run() { name=$1; shift; echo "== $name"; "$@" > $OUT/$name.log 2>&1; grep -E "units[,:] " $OUT/$name.log | grep -v INFO | grep -v draw\ \( | sed -e 's/recording per pass.*)/)/' -e 's/(p95[^)]*)//g' -e 's/draw .*statistics/stat/'; }
old() { run old_$1 env HORDE_EXP_CULL=$2 /tmp/x_oldf $U --compare-units 10000 --out /tmp/r/o$1; }
new() { run new_$1 env HORDE_EXP_CULL=$2 /tmp/x_newf $U --skip-comparisons --far-field off --lod-error 0.025 --out /tmp/r/n$1; }
old base cull.comp; new base cull.comp
old fr cull_frustum.comp; new fr cull_frustum.comp
old ld cull_load.comp; new ld cull_load.comp
old na cull_noappend.comp; new na cull_noappend.comp
new base2 cull.comp; old base2 cull.comp
cd $OUT && tar czf logs.tgz *.log && rm *.log
