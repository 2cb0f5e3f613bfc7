#!/bin/bash
# Issue 21 on the GPU machine (stripped release binaries of the commit in
# .bench/$BENCH, default head): the montage of the three presets at 10k, 1M and 4M, then
# tools/quality.sh for the unit counts in $1 (default 1000000), and with
# $2 = aa the 1M front and overview again with the far field's
# supersampling off (--far-field-aa off), the before of that change.
set -euo pipefail
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export HORDE_ROOT=$PWD HORDE_CACHE_DIR=/tmp/horde-cache
mkdir -p /tmp/bin
for b in battle montage quality_summary; do xz -dc .bench/${BENCH:-head}/$b.xz > /tmp/bin/$b; chmod +x /tmp/bin/$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
out=benches/results/quality
if [ "${3:-}" = montage ]; then
  /tmp/bin/montage --battle /tmp/bin/battle --out /tmp/montage > $OUT/montage.log 2>&1
  cp /tmp/montage/montage.png $OUT/
  tar czf $OUT/montage_reports.tgz -C /tmp/montage $(cd /tmp/montage && ls *.json)
fi
QUALITY_UNITS="${1:-1000000}" BATTLE=/tmp/bin/battle SUMMARY=/tmp/bin/quality_summary \
  tools/quality.sh > $OUT/quality.log 2>&1
if [ "${2:-}" = aa ]; then
  for camera in front overview; do
    /tmp/bin/battle --headless --quality --units 1000000 --camera $camera --width 1920 --height 1080 \
      --frames 600 --far-field-aa off --screenshot $out/aa_off_1000000_$camera.png \
      --report $out/aa_off_1000000_$camera.report.json >> $OUT/quality.log 2>&1
  done
  /tmp/bin/quality_summary --out $out/aa_off_summary.json $out/aa_off_*.report.json
fi
grep -h -E "wrote|gpu frame|Error|error" $OUT/quality.log | tail -20
cat $out/summary.json
[ -f $out/aa_off_summary.json ] && cat $out/aa_off_summary.json
cp $out/1m_front_frame.png $out/1m_front_reference.png $OUT/ 2>/dev/null || true
cp $out/1000000_front.flip.png $OUT/ 2>/dev/null || true
tar czf $OUT/quality_json.tgz $out/*.json
