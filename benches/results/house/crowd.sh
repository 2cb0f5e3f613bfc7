#!/bin/bash
# Issue 20 (the house): the crowd benchmark before (B = e96361b, the last
# commit before the battle left the core) and after (A = the house's code),
# ABBA, in one call on the GPU machine. Both read the same assets (unchanged
# by the move). Run from the repository root with the two stripped release
# binaries unpacked from .bench/.
set -euo pipefail
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
for b in before after; do xz -dc .bench/$b/crowd_bench.xz > /tmp/cb_$b; chmod +x /tmp/cb_$b; done
export HORDE_ROOT=$PWD
ARGS="--units 10000,100000,1000000,4000000 --frames 60 --warmup 20 --skip-comparisons"
mkdir -p $OUT/json
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
run() { name=$1; shift; "$@" $ARGS --out /tmp/res/$name > $OUT/$name.log 2>&1; cp /tmp/res/$name/crowd.json $OUT/json/$name.json; echo "== $name"; grep -E "units, far" $OUT/$name.log | grep -v INFO | sed -e 's/recording per pass.*)/)/' -e 's/(p95[^)]*)//g'; }
run B1 /tmp/cb_before; run A1 /tmp/cb_after; run A2 /tmp/cb_after; run B2 /tmp/cb_before
cd $OUT && tar czf crowd_json.tgz json && rm -rf json && tar czf crowd_logs.tgz *.log && rm *.log
