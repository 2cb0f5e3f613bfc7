#!/bin/bash
# CPU per frame at 4M units: e131f7f (A) against the final HEAD (F), five
# alternating pairs of 80-frame runs.
xz -dc .bench/final/crowd_bench.xz > /tmp/cb_final && chmod +x /tmp/cb_final
OLD=$PWD/.bench/before/crowd_bench
ARGS="--units 4000000 --frames 80 --warmup 20 --compare-units 1000"
mkdir -p $OUT/json
run() { name=$1; shift; "$@" $ARGS --out /tmp/res/$name > $OUT/$name.log 2>&1; cp /tmp/res/$name/crowd.json $OUT/json/$name.json; printf "%s %s\n" $name "$(grep -E '^ +4000000 units' $OUT/$name.log | grep -oE 'cpu [0-9.]+ ms')"; }
export HORDE_ROOT=$PWD/.bench/oldroot
for i in 1 2 3 4 5; do run A$i $OLD; run F$i /tmp/cb_final --far-field off --lod-error 0.025; done
cd $OUT && tar czf json.tgz json && rm -rf json && tar czf logs.tgz *.log && rm *.log
