#!/bin/bash
# CPU per frame: e131f7f (A) against the final HEAD (F), ABABAB, 150 frames.
xz -dc .bench/final/crowd_bench.xz > /tmp/cb_final && chmod +x /tmp/cb_final
OLD=$PWD/.bench/before/crowd_bench
ARGS="--units 10000,100000,1000000 --frames 150 --warmup 30 --compare-units 10000"
mkdir -p $OUT/json
run() { name=$1; shift; echo "== $name"; "$@" $ARGS --out /tmp/res/$name > $OUT/$name.log 2>&1; cp /tmp/res/$name/crowd.json $OUT/json/$name.json; grep -E "units" $OUT/$name.log | grep -v INFO | grep -oE "^ +[0-9]+ units|cpu [0-9.]+ ms" | tr '\n' ' '; echo; }
export HORDE_ROOT=$PWD/.bench/oldroot
for i in 1 2 3; do run A$i $OLD; run F$i /tmp/cb_final --far-field off --lod-error 0.025; done
cd $OUT && tar czf json.tgz json && rm -rf json && tar czf logs.tgz *.log && rm *.log
