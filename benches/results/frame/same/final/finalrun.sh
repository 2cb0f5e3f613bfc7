#!/bin/bash
# ABBA: e131f7f (A) against the final HEAD (F), both on e131f7f's assets,
# F rebuilding e131f7f's LODs (--lod-error 0.025, --far-field off).
xz -dc .bench/final/crowd_bench.xz > /tmp/cb_final && chmod +x /tmp/cb_final
OLD=$PWD/.bench/before/crowd_bench
ARGS="--units 10000,100000,1000000,4000000 --frames 60 --warmup 20 --compare-units 100000"
mkdir -p $OUT/json
run() { name=$1; shift; echo "== $name"; "$@" $ARGS --out /tmp/res/$name > $OUT/$name.log 2>&1; cp /tmp/res/$name/crowd.json $OUT/json/$name.json; grep -E "units" $OUT/$name.log | grep -v INFO | sed -e 's/recording per pass.*)/)/' -e 's/(p95[^)]*)//g'; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
export HORDE_ROOT=$PWD/.bench/oldroot
run A1 $OLD
run F1 /tmp/cb_final --far-field off --lod-error 0.025
run F2 /tmp/cb_final --far-field off --lod-error 0.025
run A2 $OLD
cd $OUT && tar czf json.tgz json && rm -rf json && tar czf logs.tgz *.log && rm *.log
