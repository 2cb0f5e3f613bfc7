#!/bin/bash
# Default configuration (today's assets, far field on): fe7503d (B) against the final HEAD (F), BFFB.
xz -dc .bench/final/crowd_bench.xz > /tmp/cb_final && chmod +x /tmp/cb_final
xz -dc .bench/diag/newf.xz > /tmp/cb_b && chmod +x /tmp/cb_b
export HORDE_ROOT=$PWD
ARGS="--units 100000,1000000,4000000 --frames 30 --warmup 10 --skip-comparisons"
mkdir -p $OUT/json
run() { name=$1; shift; "$@" $ARGS --out /tmp/res/$name > $OUT/$name.log 2>&1; cp /tmp/res/$name/crowd.json $OUT/json/$name.json; echo "== $name"; grep -E "units, far" $OUT/$name.log | grep -v INFO | sed -e 's/recording per pass.*)/)/' -e 's/(p95[^)]*)//g'; }
run B1 /tmp/cb_b; run F1 /tmp/cb_final; run F2 /tmp/cb_final; run B2 /tmp/cb_b
cd $OUT && tar czf json.tgz json && rm -rf json && tar czf logs.tgz *.log && rm *.log
