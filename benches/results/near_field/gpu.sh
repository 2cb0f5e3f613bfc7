#!/bin/bash
# Issue 25 (the near field) on the GPU machine: the stripped release
# `battle` of .bench/$BENCH, with occlusion culling off (before) and on
# (after) side by side in one call; with BEFORE set, that commit's binary
# (.bench/$BEFORE) runs the before side instead.
#   gpu.sh demo   the default demo (10k units, default settings: shadows,
#                 MSAA auto, budget) at the three presets, quality against
#                 the reference;
#   gpu.sh mesh   1M units with the far field and the budget off (every
#                 unit a mesh), front and ground, every 10th of 600 steps
#                 rendered;
#   gpu.sh full   1M units with everything on (default settings) at the
#                 three presets, quality against the reference (full_before,
#                 full_after: one side);
#   gpu.sh demo48 the default demo (after) with the far field from 48 px;
#   gpu.sh 4m     4M units at the three presets (after), every 5th of 600
#                 steps rendered, no reference;
#   gpu.sh sweep  the far-field size the budget starts from (and never
#                 goes below): 12, 48 and 100 px at 10k on the three
#                 presets, 12 and 48 px at the 1M front, default settings
#                 otherwise, quality against the reference (after only);
#   gpu.sh texture  (a binary reading HORDE_X_SPLAT_TEXELS and
#                 HORDE_X_SHADOW_FAR_TEXELS, see README) the far field's
#                 per-sample texture at 48 and 100 px at the 10k front and
#                 ground, shadow casters in the far field up to 160 texels,
#                 and at 1M the three presets, the front with splats up to
#                 8 texels and none;
#   gpu.sh knobs  what the 1M frame's time goes to at the overview and
#                 ground presets (after, default settings, quality against
#                 the reference): as it is, and with no props, the far
#                 field sampled once a pixel, no shadows, or coarser LODs;
#   gpu.sh inlining  before (BEFORE=prev) and after HIDDEN_FROM_INLINING
#                 in the cull and the far field: 1M units at the overview
#                 (no reference) and the front (quality against the
#                 reference), default settings, then the ground (after);
#   gpu.sh shots  the 10k and 1M frames at the three presets (after), and
#                 the 1M ground with the LOD colours: what occlusion
#                 culling leaves on screen;
#   gpu.sh occl   (BEFORE set) the far field in occlusion culling: 1M and
#                 4M units at the three presets, before and after, default
#                 settings, no reference (4M every 5th step rendered); 1M
#                 after with the reference, the 1M ground's frame saved;
#                 the default demo before and after with the reference
#                 (call 16 ran this mode; 600 s cut it off there);
#   gpu.sh late   (BEFORE set) the late rasterization's smaller grid: 1M
#                 units at the three presets, before and after, default
#                 settings, no reference; then the 4M front (after) with
#                 the reference, every step rendered;
#   gpu.sh q4m    the 4M ground and overview (after) with the reference,
#                 every step rendered;
#   gpu.sh knobs10k  what the 10k ground's frame goes to (after, no
#                 reference): as it is, MSAA off, no shadows, no props,
#                 occlusion off, the far field sampled once a pixel, from
#                 48 px, and off.
#   gpu.sh far10k the default demo's ground with the far field from 100,
#                 150, 192 and 256 px, the front and overview from 192 px,
#                 the ground with coarser LODs (bias 0.5), coarser shadow
#                 casters (6 texels), MSAA off from 192 px (all with the
#                 reference), and at 960x540 (none): how far the far field
#                 may reach before the picture pays.
#   gpu.sh clears (a binary with clears_knobs.patch) the 10k ground with
#                 the shadow cascades' render passes empty and/or not
#                 cleared, the main early pass empty and/or not cleared,
#                 the units not drawn, MSAA off: what the raster's fixed
#                 costs are; and the same binary clearing the shadow
#                 cascades and the main pass's multisampled colour and
#                 depth with vkCmdClear*Image before their render passes
#                 (HORDE_X_SHADOW_CLEAR, HORDE_X_MAIN_CLEAR) instead of
#                 their load op, at 10k ground and 1M front.
#   gpu.sh atomic (BEFORE set) the desktop tier's shadow casters by
#                 fragment atomics, no depth image to clear: the default
#                 demo before and after with the reference, then 1M units
#                 at the three presets before and after, no reference;
#                 the after side's 10k ground and 1M front frames saved.
#   gpu.sh discard (BEFORE set; BENCH a binary whose mesh.frag lacks the
#                 impostor crossfade's discard) the default demo's three
#                 presets and the 1M ground, before and after, no
#                 reference: what the discard costs the draw.
#   gpu.sh colordc (BENCH a binary with color_dont_care.patch) the default
#                 demo's three presets with the multisampled colour's
#                 clear and without it (HORDE_X_COLOR_DONT_CARE; the sky is
#                 left undefined), no reference: what a sky pass could
#                 save.
#   gpu.sh sky    (BEFORE set) the sky drawn instead of the colour cleared:
#                 the default demo before and after with the reference,
#                 then 1M units at the front and overview, no reference;
#                 the after side's 10k ground frame saved.
#   gpu.sh verify (BEFORE set) the sky at the end of the early part
#                 (after) against the late part (before): the default demo
#                 before and after (after with the reference); 1M units at the three
#                 presets before and after, no reference, then after with
#                 the reference; 4M units at the three presets (after),
#                 every 5th step rendered, no reference; the after side's
#                 frames of every scale and preset saved (as JPEG).
#   gpu.sh resolve (BEFORE set; after: the early part resolving nothing,
#                 the shadows' far field on with the camera's off) the
#                 default demo's three presets before and after (the
#                 ground twice in turn), no reference; the after side
#                 without the far field's resolve draw (x28, with
#                 no_resolve.patch) at 10k and the 1M front; 1M units with the far field and the
#                 budget off (every unit a mesh) at the front and ground,
#                 every 10th step rendered, before and after, then after
#                 with the reference.
#   gpu.sh meshq  (BEFORE set) 1M units, every unit a mesh (as in
#                 `resolve`), before with the reference: what the mesh
#                 casters' shadows score; then 4M units at the three presets
#                 (after) with the reference, every step rendered.
#   gpu.sh shared (BEFORE set) large triangles rasterized by their
#                 subgroup together: the default demo and 1M units at the
#                 three presets, before and after, no reference; whether
#                 each pair's last frames are identical (cmp); the after
#                 side's 10k ground and 1M front frames saved; the 1M front
#                 without the budget, before and after, compared too.
#   gpu.sh sharedpx (a binary with shared_px.patch) the 10k ground and front
#                 with boxes of over 8, 16, 32, 64 and 128 samples shared,
#                 and none; the 1M front with 16, 32, 64 and none.
#   gpu.sh sharedq the default demo and 1M units at the three presets
#                 (after) with the reference, the frames saved (JPEG; the
#                 same as `final`).
#   gpu.sh sharedunit (BEFORE set; a knob binary, .bench/$KNOB, with
#                 shared_px.patch) sharing only in batches holding a unit
#                 over 32 samples: the default demo's three presets and the
#                 1M front and overview, before and after (frames compared
#                 at 10k); then the knob binary with no sharing, sharing in
#                 the small units' pipeline only, and from units of 64
#                 samples.
#   gpu.sh variants (VARIANTS="name ..." binaries in .bench/<name>) each at
#                 the 10k ground and the 1M front and overview, in turn.
#   gpu.sh tiles  (BEFORE set) the far field's resolve drawn only over the
#                 tiles holding a covered sample: the default demo and 1M
#                 units at the three presets, before and after, no
#                 reference; whether each pair's last frames are identical.
#   gpu.sh tiles0 the same at the 10k ground and the 1M ground and front
#                 without the budget (which steers by measured time).
#   gpu.sh frag   (BEFORE: a binary with frag_knobs.patch) where the 10k
#                 draw's time goes, without the budget: the three presets
#                 before and after (the shadow tent's 9 reads), then the
#                 before binary with no shadow lookup in the receivers
#                 (HORDE_X_NO_RECEIVE) and with the unit mask view's
#                 trivial fragment shader (HORDE_X_DEBUG_VIEW=2), the
#                 ground also with coarser LODs (bias 0.5) and both; then
#                 the after side's three presets with the budget and the
#                 reference.
#   gpu.sh vertex (VARIANTS="name ..." binaries in .bench/<name>) what the
#                 units' vertex shader costs: each at the 10k ground without
#                 the budget, then 1M units as meshes (far field and budget
#                 off) at the front, every 10th step rendered.
#   gpu.sh final  every scale with FLIP beside the frame time: the default
#                 demo and 1M units at the three presets with the
#                 reference, the frames saved (JPEG).
#   gpu.sh final4m 4M units at the three presets, every 5th step rendered,
#                 no reference, the frames saved; then the 4M front with
#                 the reference, every step rendered.
#   gpu.sh lodhalf (BEFORE set) a LOD at half the triangles after LOD 0:
#                 the default demo's three presets after with the
#                 reference and before without, the ground first; then the
#                 1M ground and front the same way (call 43 ran the
#                 before side's binary on both sides: an A/A run).
#   gpu.sh lodhalfq (BEFORE set) the half LOD again, both sides with the
#                 reference at the default demo's three presets, the 10k
#                 ground without the budget, the 1M ground and front with
#                 default settings and with every unit a mesh (call 44).
#   gpu.sh varyings (BEFORE set) the mesh shaders' outputs packed into
#                 three locations: what lodhalfq runs (call 46).
#   gpu.sh aniso  (BEFORE set) the ground's anisotropic filter: the default
#                 demo's three presets and the 1M ground, before and after,
#                 with the reference (call 47); aniso1m the 1M front and
#                 overview the same way; anisofull all six (call 49).
#   gpu.sh anisoknob (BENCH a binary with anisotropy_knob.patch) the
#                 10k ground and front with the reference at anisotropy 2,
#                 4 and 8 (HORDE_X_ANISOTROPY; call 48).
#   gpu.sh budget8 1M at the three presets under a budget of 8 ms (the
#                 issue's 1M goal), with the reference (call 45).
#   gpu.sh shots4m 4M at the three presets (after), every 5th of 600 steps
#                 rendered, no reference, a frame each (call 45).
#   gpu.sh ffknobs (BENCH a binary with ff_knobs.patch) what the far
#                 field's time goes to: 1M units at the three presets, no
#                 budget, every 2nd of 600 steps rendered, no reference, with
#                 HORDE_X_FF_KNOBS 0 (as it is), 1 (no shading), 2 (no sun
#                 lookup), 4 (no rasterization), 8 (no skinning) and 16 (no
#                 per-sample texel) (call 51).
#   gpu.sh ffopt  (BENCH a binary with ff_opt.patch) three changes to the
#                 far field that leave its picture as it is, by
#                 HORDE_X_FF_KNOBS: 32 the units' flags and boxes reduced
#                 over the subgroup before the shared atomics, 64 a sample
#                 behind the visibility buffer's depth rejected before its
#                 division and shading, 128 the chunk's items read by its
#                 lanes together; 224 all three: 1M units at the three
#                 presets and the 10k ground and front, no budget, the 1M
#                 frames of 0 and 224 compared (cmp) (call 52).
#   gpu.sh divide (VARIANTS="before gather division" binaries in .bench)
#                 the far field's 64-bit division by float steps: each
#                 variant at 1M units at the three presets and the 10k
#                 ground and front, no budget, every 2nd of 600 steps
#                 rendered at 1M; the frames of the last two compared (cmp)
#                 (call 53; call 56: VARIANTS="e54 p56", each unit posed
#                 once).
#   gpu.sh farq   (BEFORE set) as anisofull: the default demo and 1M units
#                 at the three presets, before and after, with the
#                 reference, the frames saved (SCENES="units:camera ..."
#                 for fewer; call 54: the 10k scenes, then the 1M ones).
#   gpu.sh posed  (BEFORE set) occlusion culling by the clips' spheres: 1M
#                 units at the three presets and the 10k ground and front,
#                 no budget, every 2nd of 600 steps rendered, before and
#                 after, the last frames compared (cmp); then 1M units with
#                 every unit a mesh (far field and budget off) at the ground
#                 and front, every 10th step rendered (call 63; SCENES
#                 and MESH_CAMERAS for fewer).
#   gpu.sh farq4m (BEFORE set) 4M units at the three presets, before and
#                 after, every 5th of 600 steps rendered (every
#                 $RENDER_EVERY-th where set), no reference, the after
#                 side's frames saved (call 55).
#   gpu.sh castertexels (BENCH a binary with shadow_texels_knob.patch)
#                 how large a shadow caster the far field should take: up
#                 to 48, 64, 96, 160 (the default) and 256 texels at the
#                 10k ground and front, 64, 96 and 160 at the 1M ground
#                 and front; all without the budget.
#   gpu.sh lodscale (BEFORE set) the LOD error over the sphere's diameter:
#                 1M units with the far field and the budget off (every
#                 unit a mesh) at the front and ground, every 10th of 600
#                 steps rendered; then 1M units at the three presets and
#                 the 10k ground without the budget (the far field's and
#                 the draw's time at fixed thresholds), before and after,
#                 the frames saved (call 57).
#   gpu.sh lodbias (BEFORE set) the LOD threshold the corrected error
#                 needs: the before side and the after side at each of
#                 BIASES (`--lod-bias`, the threshold divided by it) with
#                 the reference at each of SCENES ("units:camera ...")
#                 (calls 59-60).
#   gpu.sh meshlod (BEFORE set) 1M units with the far field and the budget
#                 off (every unit a mesh) at the front and ground, every
#                 10th of 600 steps rendered, before and after, with the
#                 reference: what the corrected LOD error costs the picture
#                 there (call 60); with SHOTS set, the frames saved.
#   gpu.sh lodchain (VARIANTS="name ..." binaries in .bench/<name>) the
#                 LOD chain's intermediate LODs: each variant with the
#                 reference at each of SCENES ("units:camera ...", default
#                 settings), then at 1M units with every unit a mesh (far
#                 field and budget off) at each of MESH_CAMERAS, every 10th
#                 of 600 steps rendered, with the reference (call 72).
#   gpu.sh farmap (BEFORE set; BENCH a binary with lod_chain6.patch or
#                 lod_chain7.patch and far_lod_map.patch) the far field
#                 drawing the 0.3 LOD's mesh for units at the intermediate
#                 LODs (HORDE_X_FAR_LOD_MAP=$FAR_LOD_MAP, "0,1,2,2,4,5,6"
#                 for lod_chain6): before, after, and after with the map,
#                 with the reference, at each of SCENES (call 74,
#                 section 23).
#   gpu.sh farbias (BEFORE set; BENCH a binary with lod_chain7.patch and
#                 far_field_lod_bias.patch) before, then the after binary at
#                 each of BIASES (--far-field-lod-bias), with the
#                 reference, at each of SCENES (section 23).
# Modes combine: gpu.sh "demo mesh". Each run's log starts with its
# command line; summarize.py makes the rows.
set -euo pipefail
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export HORDE_ROOT=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p /tmp/bin /tmp/out /tmp/shots
xz -dc .bench/$BENCH/battle.xz > /tmp/bin/battle
chmod +x /tmp/bin/battle
before=(/tmp/bin/battle --occlusion off)
if [ -n "${BEFORE:-}" ]; then
  mkdir -p /tmp/before
  xz -dc .bench/$BEFORE/battle.xz > /tmp/before/battle
  chmod +x /tmp/before/battle
  before=(/tmp/before/battle)
fi
after=(/tmp/bin/battle --occlusion on)
run() { # name, timeout, command... (SIZE="W H" for another size than 1920x1080)
  local name=$1 limit=$2; shift 2
  local size=(${SIZE:-1920 1080})
  echo "$* --headless --width ${size[0]} --height ${size[1]}" > /tmp/out/$name.log
  HORDE_CACHE_DIR=/tmp/cache timeout $limit "$@" --headless --width ${size[0]} --height ${size[1]} \
    --report /tmp/out/$name.report.json >> /tmp/out/$name.log 2>&1 \
    || echo "$name failed: $(tail -3 /tmp/out/$name.log)"
  grep -h "gpu frame\|gpu draw\|gpu shadow\|gpu far field:\|quality against\|occluded" \
    /tmp/out/$name.log | sed "s/^.*INFO[^ ]* /$name: /" | cut -c1-200 || true
  # What finished comes back even if the call is cut off.
  tar czf $OUT/reports.tgz -C /tmp/out $(cd /tmp/out && ls)
}
count_label() { # 10000 -> 10k, 1000000 -> 1m, 4000000 -> 4m (a scene's name)
  [ $1 -lt 1000000 ] && echo $(( $1 / 1000 ))k || echo $(( $1 / 1000000 ))m
}
unpack_variants() { # each of $VARIANTS to /tmp/variant_<name>
  for name in $VARIANTS; do
    xz -dc .bench/$name/battle.xz > /tmp/variant_$name && chmod +x /tmp/variant_$name
  done
}
for mode in $1; do
  case "$mode" in
  demo)
    for camera in overview front ground; do
      shot=(); [ $camera = front ] && shot=(--screenshot /tmp/shots/10k_front.png)
      run before_10k_$camera 120 "${before[@]}" --quality --units 10000 --camera $camera --frames 600
      run after_10k_$camera 120 "${after[@]}" --quality --units 10000 --camera $camera \
        --frames 600 "${shot[@]}"
    done ;;
  demo48)
    for camera in overview front ground; do
      run after48_10k_$camera 120 "${after[@]}" --quality --units 10000 --camera $camera \
        --frames 600 --far-field-px 48
    done ;;
  4m)
    for camera in overview front ground; do
      run after_4m_$camera 150 "${after[@]}" --units 4000000 --camera $camera --frames 600 \
        --render-every 5
    done ;;
  mesh)
    for camera in front ground; do
      run before_1m_mesh_$camera 200 "${before[@]}" --units 1000000 --camera $camera \
        --frames 600 --render-every 10 --far-field off --budget-ms 0
      run after_1m_mesh_$camera 200 "${after[@]}" --units 1000000 --camera $camera \
        --frames 600 --render-every 10 --far-field off --budget-ms 0
    done ;;
  full|full_before|full_after)
    for camera in overview front ground; do
      shot=(); [ $camera = front ] && shot=(--screenshot /tmp/shots/1m_front.png)
      [ $mode = full_after ] || run before_1m_$camera 150 "${before[@]}" --quality \
        --units 1000000 --camera $camera --frames 600
      [ $mode = full_before ] || run after_1m_$camera 150 "${after[@]}" --quality \
        --units 1000000 --camera $camera --frames 600 "${shot[@]}"
    done ;;
  sweep)
    for camera in overview front ground; do
      for px in 12 48 100; do
        run sweep_10k_${camera}_$px 120 "${after[@]}" --quality --units 10000 --camera $camera \
          --frames 600 --far-field-px $px
      done
    done
    for px in 12 48; do
      run sweep_1m_front_$px 150 "${after[@]}" --quality --units 1000000 --camera front \
        --frames 600 --far-field-px $px
    done ;;
  texture)
    for camera in front ground; do
      for px in 48 100; do
        shot=(); [ $camera$px = front100 ] && shot=(--screenshot /tmp/shots/10k_front_100.png)
        run texture_10k_${camera}_$px 120 "${after[@]}" --quality --units 10000 --camera $camera \
          --frames 600 --far-field-px $px "${shot[@]}"
      done
    done
    HORDE_X_SHADOW_FAR_TEXELS=160 run texture_10k_ground_100_casters160 120 "${after[@]}" \
      --quality --units 10000 --camera ground --frames 600 --far-field-px 100
    for camera in overview front ground; do
      shot=(); [ $camera = front ] && shot=(--screenshot /tmp/shots/1m_front.png)
      run texture_1m_$camera 150 "${after[@]}" --quality --units 1000000 --camera $camera \
        --frames 600 "${shot[@]}"
    done
    for splat in 8 0; do
      HORDE_X_SPLAT_TEXELS=$splat run texture_1m_front_splat$splat 150 "${after[@]}" --quality \
        --units 1000000 --camera front --frames 600
    done ;;
  inlining)
    run before_1m_overview 120 "${before[@]}" --units 1000000 --camera overview --frames 600
    run after_1m_overview 120 "${after[@]}" --units 1000000 --camera overview --frames 600
    run before_1m_front 150 "${before[@]}" --quality --units 1000000 --camera front --frames 600
    run after_1m_front 150 "${after[@]}" --quality --units 1000000 --camera front --frames 600
    run after_1m_ground 150 "${after[@]}" --quality --units 1000000 --camera ground \
      --frames 600 ;;
  knobs)
    for camera in overview ground; do
      run knobs_1m_$camera 150 "${after[@]}" --quality --units 1000000 --camera $camera \
        --frames 600
      run knobs_1m_${camera}_no_props 150 "${after[@]}" --quality --units 1000000 \
        --camera $camera --frames 600 --props 0
      run knobs_1m_${camera}_aa_off 150 "${after[@]}" --quality --units 1000000 \
        --camera $camera --frames 600 --far-field-aa off
      run knobs_1m_${camera}_no_shadows 150 "${after[@]}" --units 1000000 --camera $camera \
        --frames 600 --shadows off
      run knobs_1m_${camera}_lod_bias_half 150 "${after[@]}" --quality --units 1000000 \
        --camera $camera --frames 600 --lod-bias 0.5
    done ;;
  shots)
    for units in 10000 1000000; do
      for camera in overview front ground; do
        run shot_${units}_$camera 150 "${after[@]}" --units $units --camera $camera --frames 600 \
          --screenshot /tmp/shots/${units}_$camera.png
      done
    done
    run shot_1000000_ground_lod 150 "${after[@]}" --units 1000000 --camera ground --frames 600 \
      --color-by-lod --screenshot /tmp/shots/1000000_ground_lod.png ;;
  occl)
    for camera in overview front ground; do
      run before_1m_$camera 150 "${before[@]}" --units 1000000 --camera $camera --frames 600
      run after_1m_$camera 150 "${after[@]}" --units 1000000 --camera $camera --frames 600
    done
    for camera in overview front ground; do
      run before_4m_$camera 150 "${before[@]}" --units 4000000 --camera $camera --frames 600 \
        --render-every 5
      run after_4m_$camera 150 "${after[@]}" --units 4000000 --camera $camera --frames 600 \
        --render-every 5
    done
    for camera in overview front ground; do
      shot=(); [ $camera = ground ] && shot=(--screenshot /tmp/shots/1m_ground.png)
      run quality_1m_$camera 150 "${after[@]}" --quality --units 1000000 --camera $camera \
        --frames 600 "${shot[@]}"
    done
    for camera in overview front ground; do
      run before_10k_$camera 120 "${before[@]}" --quality --units 10000 --camera $camera \
        --frames 600
      run after_10k_$camera 120 "${after[@]}" --quality --units 10000 --camera $camera --frames 600
    done ;;
  late)
    for camera in overview front ground; do
      run before_1m_$camera 150 "${before[@]}" --units 1000000 --camera $camera --frames 600
      run after_1m_$camera 150 "${after[@]}" --units 1000000 --camera $camera --frames 600
    done
    run quality_4m_front 330 "${after[@]}" --quality --units 4000000 --camera front \
      --frames 600 --screenshot /tmp/shots/4m_front.png ;;
  q4m)
    for camera in ground overview; do
      run quality_4m_$camera 290 "${after[@]}" --quality --units 4000000 --camera $camera \
        --frames 600
    done ;;
  knobs10k)
    run knobs_10k_ground 60 "${after[@]}" --units 10000 --camera ground --frames 600
    run knobs_10k_ground_msaa_off 60 "${after[@]}" --units 10000 --camera ground --frames 600 \
      --msaa off
    run knobs_10k_ground_no_shadows 60 "${after[@]}" --units 10000 --camera ground \
      --frames 600 --shadows off
    run knobs_10k_ground_no_props 60 "${after[@]}" --units 10000 --camera ground --frames 600 \
      --props 0
    run knobs_10k_ground_occlusion_off 60 /tmp/bin/battle --occlusion off --units 10000 \
      --camera ground --frames 600
    run knobs_10k_ground_aa_off 60 "${after[@]}" --units 10000 --camera ground --frames 600 \
      --far-field-aa off
    run knobs_10k_ground_far48 60 "${after[@]}" --units 10000 --camera ground --frames 600 \
      --far-field-px 48
    run knobs_10k_ground_no_far_field 60 "${after[@]}" --units 10000 --camera ground \
      --frames 600 --far-field off ;;
  far10k)
    ten=("${after[@]}" --quality --units 10000 --frames 600)
    for px in 100 150 192 256; do
      shot=(); [ $px = 192 ] && shot=(--screenshot /tmp/shots/10k_ground_192.png)
      run far_10k_ground_$px 90 "${ten[@]}" --camera ground --far-field-px $px \
        --budget-max-far-field-px 256 "${shot[@]}"
    done
    for camera in front overview; do
      run far_10k_${camera}_192 90 "${ten[@]}" --camera $camera --far-field-px 192
    done
    run far_10k_ground_lod_bias 90 "${ten[@]}" --camera ground --lod-bias 0.5
    run far_10k_ground_shadow_lod 90 "${ten[@]}" --camera ground --shadow-lod-texels 6
    run far_10k_ground_192_msaa_off 90 "${ten[@]}" --camera ground --far-field-px 192 \
      --msaa off
    SIZE="960 540" run far_10k_ground_half 90 "${after[@]}" --units 10000 --frames 600 \
      --camera ground ;;
  clears)
    ten=("${after[@]}" --units 10000 --frames 600 --camera ground)
    run clears_base 60 "${ten[@]}"
    HORDE_X_SHADOW_EMPTY=1 run clears_shadow_empty 60 "${ten[@]}"
    HORDE_X_SHADOW_DONT_CARE=1 run clears_shadow_dont_care 60 "${ten[@]}"
    HORDE_X_SHADOW_EMPTY=1 HORDE_X_SHADOW_DONT_CARE=1 run clears_shadow_empty_dont_care 60 \
      "${ten[@]}"
    HORDE_X_MAIN_EMPTY=1 run clears_main_empty 60 "${ten[@]}"
    HORDE_X_MAIN_EMPTY=1 HORDE_X_MAIN_DONT_CARE=1 run clears_main_empty_dont_care 60 "${ten[@]}"
    HORDE_X_MAIN_DONT_CARE=1 run clears_main_dont_care 60 "${ten[@]}"
    HORDE_X_NO_UNITS=1 run clears_no_units 60 "${ten[@]}"
    run clears_msaa_off 60 "${ten[@]}" --msaa off
    HORDE_X_MAIN_EMPTY=1 run clears_main_empty_msaa_off 60 "${ten[@]}" --msaa off ;;
  atomic)
    for camera in ground front overview; do
      shot=(); [ $camera != overview ] && shot=(--screenshot /tmp/shots/10k_$camera.png)
      run atomic_before_10k_$camera 90 "${before[@]}" --quality --units 10000 \
        --camera $camera --frames 600
      run atomic_after_10k_$camera 90 "${after[@]}" --quality --units 10000 --camera $camera \
        --frames 600 "${shot[@]}"
    done
    for camera in ground front overview; do
      shot=(); [ $camera = front ] && shot=(--screenshot /tmp/shots/1m_front.png)
      run atomic_before_1m_$camera 90 "${before[@]}" --units 1000000 --camera $camera \
        --frames 600
      run atomic_after_1m_$camera 90 "${after[@]}" --units 1000000 --camera $camera \
        --frames 600 "${shot[@]}"
    done ;;
  discard)
    for camera in ground front overview; do
      run before_10k_$camera 60 "${before[@]}" --units 10000 --camera $camera --frames 600
      run after_10k_$camera 60 "${after[@]}" --units 10000 --camera $camera --frames 600
    done
    run before_1m_ground 90 "${before[@]}" --units 1000000 --camera ground --frames 600
    run after_1m_ground 90 "${after[@]}" --units 1000000 --camera ground --frames 600 ;;
  colordc)
    for camera in ground front overview; do
      run colordc_clear_10k_$camera 60 "${after[@]}" --units 10000 --camera $camera --frames 600
      HORDE_X_COLOR_DONT_CARE=1 run colordc_dont_care_10k_$camera 60 "${after[@]}" \
        --units 10000 --camera $camera --frames 600
    done ;;
  sky)
    for camera in ground front overview; do
      shot=(); [ $camera = ground ] && shot=(--screenshot /tmp/shots/sky_10k_ground.png)
      run before_10k_$camera 90 "${before[@]}" --quality --units 10000 --camera $camera \
        --frames 600
      run after_10k_$camera 90 "${after[@]}" --quality --units 10000 --camera $camera \
        --frames 600 "${shot[@]}"
    done
    for camera in front overview; do
      run before_1m_$camera 90 "${before[@]}" --units 1000000 --camera $camera --frames 600
      run after_1m_$camera 90 "${after[@]}" --units 1000000 --camera $camera --frames 600
    done ;;
  verify)
    for camera in ground front overview; do
      run before_10k_$camera 60 "${before[@]}" --units 10000 --camera $camera --frames 600
      run after_10k_$camera 90 "${after[@]}" --quality --units 10000 --camera $camera \
        --frames 600 --screenshot /tmp/shots/10k_$camera.png
    done
    for camera in ground front overview; do
      run before_1m_$camera 60 "${before[@]}" --units 1000000 --camera $camera --frames 600
      run after_1m_$camera 60 "${after[@]}" --units 1000000 --camera $camera --frames 600
    done
    for camera in ground front overview; do
      run quality_1m_$camera 90 "${after[@]}" --quality --units 1000000 --camera $camera \
        --frames 600 --screenshot /tmp/shots/1m_$camera.png
    done
    for camera in ground front overview; do
      run after_4m_$camera 90 "${after[@]}" --units 4000000 --camera $camera --frames 600 \
        --render-every 5 --screenshot /tmp/shots/4m_$camera.png
    done ;;
  resolve)
    for turn in ground1 front1 overview1 ground2; do
      camera=${turn%?}
      run before${turn: -1}_10k_$camera 60 "${before[@]}" --units 10000 --camera $camera \
        --frames 600
      run after${turn: -1}_10k_$camera 60 "${after[@]}" --units 10000 --camera $camera \
        --frames 600
    done
    # The far field's resolve not drawn: what it costs (x28, the after side
    # with no_resolve.patch; the picture lacks the far units).
    xz -dc .bench/x28/battle.xz > /tmp/x28 && chmod +x /tmp/x28
    for camera in ground front overview; do
      HORDE_X_NO_FF_RESOLVE=1 run noresolve_10k_$camera 60 /tmp/x28 --units 10000 \
        --camera $camera --frames 600
    done
    HORDE_X_NO_FF_RESOLVE=1 run noresolve_1m_front 60 /tmp/x28 --units 1000000 \
      --camera front --frames 600
    for camera in front ground; do
      mesh=(--units 1000000 --camera $camera --frames 600 --render-every 10 --far-field off
        --budget-ms 0)
      run before_1m_mesh_$camera 90 "${before[@]}" "${mesh[@]}"
      run after_1m_mesh_$camera 90 "${after[@]}" "${mesh[@]}"
      run quality_1m_mesh_$camera 120 "${after[@]}" "${mesh[@]}" --quality \
        --screenshot /tmp/shots/1m_mesh_$camera.png
    done ;;
  meshq)
    for camera in front ground; do
      run before_quality_1m_mesh_$camera 120 "${before[@]}" --units 1000000 --camera $camera \
        --frames 600 --render-every 10 --far-field off --budget-ms 0 --quality
    done
    for camera in front ground overview; do
      run quality_4m_$camera 150 "${after[@]}" --quality --units 4000000 --camera $camera \
        --frames 600
    done ;;
  shared)
    mkdir -p /tmp/cmp
    for units in 10000 1000000; do
      for camera in ground front overview; do
        name=$(count_label $units)_$camera
        run before_$name 120 "${before[@]}" --units $units --camera $camera --frames 600 \
          --screenshot /tmp/cmp/before_$name.png
        run after_$name 120 "${after[@]}" --units $units --camera $camera --frames 600 \
          --screenshot /tmp/cmp/after_$name.png
        cmp -s /tmp/cmp/before_$name.png /tmp/cmp/after_$name.png \
          && echo "$name: frames identical" || echo "$name: frames differ"
      done
    done 2>&1 | tee /tmp/out/frames_compared.txt
    run before_1m_front_no_budget 120 "${before[@]}" --units 1000000 --camera front \
      --frames 600 --budget-ms 0 --screenshot /tmp/cmp/before_1m_front_no_budget.png
    run after_1m_front_no_budget 120 "${after[@]}" --units 1000000 --camera front \
      --frames 600 --budget-ms 0 --screenshot /tmp/cmp/after_1m_front_no_budget.png
    { cmp -s /tmp/cmp/before_1m_front_no_budget.png /tmp/cmp/after_1m_front_no_budget.png \
      && echo "1m_front_no_budget: frames identical" \
      || echo "1m_front_no_budget: frames differ"; } | tee -a /tmp/out/frames_compared.txt
    cp /tmp/cmp/after_10k_ground.png /tmp/cmp/after_1m_front.png /tmp/shots/ ;;
  sharedpx)
    # 4294967295: never shared (the sharing loop compiled out).
    for px in 8 16 32 64 128 4294967295; do
      for camera in ground front; do
        HORDE_X_SHARED_PX=$px run sharedpx_10k_${camera}_$px 60 "${after[@]}" --units 10000 \
          --camera $camera --frames 600
      done
    done
    for px in 16 32 64 4294967295; do
      HORDE_X_SHARED_PX=$px run sharedpx_1m_front_$px 90 "${after[@]}" --units 1000000 \
        --camera front --frames 600
    done ;;
  sharedunit)
    mkdir -p /tmp/cmp
    for camera in ground front overview; do
      run before_10k_$camera 60 "${before[@]}" --units 10000 --camera $camera --frames 600 \
        --screenshot /tmp/cmp/before_10k_$camera.png
      run after_10k_$camera 60 "${after[@]}" --units 10000 --camera $camera --frames 600 \
        --screenshot /tmp/cmp/after_10k_$camera.png
      { cmp -s /tmp/cmp/before_10k_$camera.png /tmp/cmp/after_10k_$camera.png \
        && echo "10k_$camera: frames identical" || echo "10k_$camera: frames differ"; } \
        | tee -a /tmp/out/frames_compared.txt
    done
    for camera in front overview; do
      run before_1m_$camera 90 "${before[@]}" --units 1000000 --camera $camera --frames 600
      run after_1m_$camera 90 "${after[@]}" --units 1000000 --camera $camera --frames 600
    done
    xz -dc .bench/$KNOB/battle.xz > /tmp/knob && chmod +x /tmp/knob
    never=4294967295
    for units in 10000 1000000; do
      name=$([ $units = 10000 ] && echo 10k_ground || echo 1m_front)
      camera=$([ $units = 10000 ] && echo ground || echo front)
      HORDE_X_SHARED_SMALL=$never HORDE_X_SHARED_MID=$never run knob_none_$name 90 /tmp/knob \
        --occlusion on --units $units --camera $camera --frames 600
      HORDE_X_SHARED_MID=$never run knob_small_$name 90 /tmp/knob --occlusion on \
        --units $units --camera $camera --frames 600
      HORDE_X_SHARED_UNIT=64 run knob_unit64_$name 90 /tmp/knob --occlusion on \
        --units $units --camera $camera --frames 600
    done ;;
  variants)
    unpack_variants
    for scene in "10000 ground" "1000000 front" "1000000 overview"; do
      set -- $scene
      for name in $VARIANTS; do
        run ${name}_$([ $1 = 10000 ] && echo 10k || echo 1m)_$2 90 /tmp/variant_$name \
          --occlusion on --units $1 --camera $2 --frames 600
      done
    done ;;
  farmap|farbias)
    for scene in $SCENES; do
      units=${scene%:*} camera=${scene#*:}
      name=$(count_label $units)_$camera
      scene_args=(--quality --units $units --camera $camera --frames 600)
      run before_$name 150 "${before[@]}" "${scene_args[@]}"
      if [ $mode = farmap ]; then
        run after_$name 150 "${after[@]}" "${scene_args[@]}"
        HORDE_X_FAR_LOD_MAP=$FAR_LOD_MAP run mapped_$name 150 "${after[@]}" "${scene_args[@]}"
      else
        for bias in $BIASES; do
          run bias${bias}_$name 150 "${after[@]}" "${scene_args[@]}" --far-field-lod-bias $bias
        done
      fi
    done ;;
  lodchain)
    unpack_variants
    for scene in $SCENES; do
      units=${scene%:*} camera=${scene#*:}
      for name in $VARIANTS; do
        run ${name}_$(count_label $units)_$camera 150 /tmp/variant_$name \
          --occlusion on --quality --units $units --camera $camera --frames 600
      done
    done
    for camera in $MESH_CAMERAS; do
      for name in $VARIANTS; do
        run ${name}_1m_mesh_$camera 200 /tmp/variant_$name --occlusion on --quality \
          --units 1000000 --camera $camera --frames 600 --render-every 10 --far-field off \
          --budget-ms 0
      done
    done ;;
  vertex)
    unpack_variants
    for name in $VARIANTS; do
      run ${name}_10k_ground 60 /tmp/variant_$name --occlusion on --units 10000 \
        --camera ground --frames 600 --budget-ms 0
    done
    for name in $VARIANTS; do
      run ${name}_1m_mesh_front 120 /tmp/variant_$name --occlusion on --units 1000000 \
        --camera front --frames 600 --render-every 10 --far-field off --budget-ms 0
    done ;;
  final4m)
    for camera in overview front ground; do
      run after_4m_$camera 150 "${after[@]}" --units 4000000 --camera $camera --frames 600 \
        --render-every 5 --screenshot /tmp/shots/4m_$camera.png
    done
    run quality_4m_front 200 "${after[@]}" --quality --units 4000000 --camera front \
      --frames 600 ;;
  lodhalf)
    for scene in "10000 ground" "10000 front" "10000 overview" "1000000 ground" "1000000 front"; do
      set -- $scene
      name=$([ $1 = 10000 ] && echo 10k || echo 1m)_$2
      run after_$name 90 "${after[@]}" --quality --units $1 --camera $2 --frames 600 \
        --screenshot /tmp/shots/$name.png
      run before_$name 60 "${before[@]}" --units $1 --camera $2 --frames 600
    done ;;
  lodhalfq|varyings)
    for camera in ground front overview; do
      run before_10k_$camera 90 "${before[@]}" --quality --units 10000 --camera $camera \
        --frames 600
      run after_10k_$camera 90 "${after[@]}" --quality --units 10000 --camera $camera \
        --frames 600 --screenshot /tmp/shots/10k_$camera.png
    done
    for side in before after; do
      declare -n bin=$side
      run ${side}_10k_ground_nobudget 60 "${bin[@]}" --units 10000 --camera ground --frames 600 \
        --budget-ms 0
      for camera in ground front; do
        run ${side}_1m_$camera 60 "${bin[@]}" --units 1000000 --camera $camera --frames 600
        run ${side}_1m_mesh_$camera 90 "${bin[@]}" --units 1000000 --camera $camera \
          --frames 600 --render-every 10 --far-field off --budget-ms 0
      done
    done ;;
  aniso|aniso1m|anisofull|farq)
    scenes="10000:ground 10000:front 10000:overview 1000000:ground"
    [ $mode = aniso1m ] && scenes="1000000:front 1000000:overview"
    [ $mode = aniso1m ] || [ $mode = aniso ] || scenes="$scenes 1000000:front 1000000:overview"
    [ $mode = farq ] && scenes=${SCENES:-$scenes}
    for scene in $scenes; do
      units=${scene%:*} camera=${scene#*:}
      name=$(count_label $units)_$camera
      for side in before after; do
        declare -n bin=$side
        run ${side}_$name 150 "${bin[@]}" --quality --units $units --camera $camera \
          --frames 600 --screenshot /tmp/shots/${side}_$name.png
      done
    done ;;
  anisoknob)
    for camera in ground front; do
      for a in 2 4 8; do
        run knob_10k_${camera}_$a 150 env HORDE_X_ANISOTROPY=$a "${after[@]}" --quality \
          --units 10000 --camera $camera --frames 600
      done
    done ;;
  budget8)
    for camera in ground front overview; do
      run budget8_1m_$camera 150 "${after[@]}" --quality --units 1000000 --camera $camera \
        --frames 600 --budget-ms 8 --screenshot /tmp/shots/1m_budget8_$camera.png
    done ;;
  ffknobs)
    for camera in overview front ground; do
      for k in 0 1 2 4 8 16; do
        run knob${k}_1m_$camera 90 env HORDE_X_FF_KNOBS=$k "${after[@]}" --units 1000000 \
          --camera $camera --frames 600 --render-every 2 --budget-ms 0
      done
    done ;;
  ffopt)
    for scene in 1000000:overview 1000000:front 1000000:ground 10000:ground 10000:front; do
      units=${scene%:*} camera=${scene#*:}
      name=$(count_label $units)_$camera
      every=2; [ $units = 10000 ] && every=1
      for k in 0 32 64 128 224; do
        shot=(); [ $k = 0 ] || [ $k = 224 ] && shot=(--screenshot /tmp/shots/knob${k}_$name.png)
        run knob${k}_$name 90 env HORDE_X_FF_KNOBS=$k "${after[@]}" --units $units \
          --camera $camera --frames 600 --render-every $every --budget-ms 0 "${shot[@]}"
      done
      cmp /tmp/shots/knob0_$name.png /tmp/shots/knob224_$name.png && echo "$name: frames identical"
    done ;;
  divide)
    set -- $VARIANTS
    unpack_variants
    for scene in 1000000:overview 1000000:front 1000000:ground 10000:ground 10000:front; do
      units=${scene%:*} camera=${scene#*:}
      name=$(count_label $units)_$camera
      every=2; [ $units = 10000 ] && every=1
      for variant in $VARIANTS; do
        run ${variant}_$name 90 /tmp/variant_$variant --occlusion on --units $units \
          --camera $camera --frames 600 --render-every $every --budget-ms 0 \
          --screenshot /tmp/shots/${variant}_$name.png
      done
      cmp /tmp/shots/${@: -2:1}_$name.png /tmp/shots/${@: -1}_$name.png \
        && echo "$name: frames identical"
    done ;;
  lodscale)
    for camera in front ground; do
      for side in before after; do
        declare -n bin=$side
        run ${side}_1m_mesh_$camera 120 "${bin[@]}" --units 1000000 --camera $camera \
          --frames 600 --render-every 10 --far-field off --budget-ms 0 \
          --screenshot /tmp/shots/${side}_1m_mesh_$camera.png
      done
    done
    for scene in 1000000:front 1000000:ground 1000000:overview 10000:ground; do
      units=${scene%:*} camera=${scene#*:}
      name=$(count_label $units)_$camera
      every=2; [ $units = 10000 ] && every=1
      for side in before after; do
        declare -n bin=$side
        run ${side}_${name}_nobudget 90 "${bin[@]}" --units $units --camera $camera \
          --frames 600 --render-every $every --budget-ms 0 \
          --screenshot /tmp/shots/${side}_${name}_nobudget.png
      done
    done ;;
  lodbias)
    for scene in $SCENES; do
      units=${scene%:*} camera=${scene#*:}
      name=$(count_label $units)_$camera
      run before_$name 150 "${before[@]}" --quality --units $units --camera $camera \
        --frames 600
      for bias in $BIASES; do
        run bias${bias}_$name 150 "${after[@]}" --quality --units $units --camera $camera \
          --frames 600 --lod-bias $bias --screenshot /tmp/shots/bias${bias}_$name.png
      done
    done ;;
  meshlod)
    for camera in front ground; do
      for side in before after; do
        declare -n bin=$side
        shot=(); [ -n "${SHOTS:-}" ] && shot=(--screenshot /tmp/shots/${side}_1m_mesh_$camera.png)
        run ${side}_1m_mesh_$camera 200 "${bin[@]}" --quality --units 1000000 \
          --camera $camera --frames 600 --render-every 10 --far-field off --budget-ms 0 \
          "${shot[@]}"
      done
    done ;;
  posed)
    mkdir -p /tmp/cmp
    for scene in ${SCENES:-1000000:ground 1000000:front 1000000:overview 10000:ground 10000:front}; do
      units=${scene%:*} camera=${scene#*:}
      name=$(count_label $units)_$camera
      for side in before after; do
        declare -n bin=$side
        run ${side}_nb_$name 90 "${bin[@]}" --units $units --camera $camera --frames 600 \
          --render-every 2 --budget-ms 0 --screenshot /tmp/cmp/${side}_$name.png
      done
      cmp -s /tmp/cmp/before_$name.png /tmp/cmp/after_$name.png \
        && echo "$name: frames identical" || echo "$name: frames DIFFER"
    done
    for camera in ${MESH_CAMERAS-ground front}; do
      for side in before after; do
        declare -n bin=$side
        run ${side}_1m_mesh_$camera 200 "${bin[@]}" --units 1000000 --camera $camera \
          --frames 600 --render-every 10 --far-field off --budget-ms 0
      done
    done ;;
  farq4m)
    for camera in ground front overview; do
      for side in before after; do
        declare -n bin=$side
        shot=(); [ $side = after ] && shot=(--screenshot /tmp/shots/4m_$camera.png)
        run ${side}_4m_$camera 120 "${bin[@]}" --units 4000000 --camera $camera --frames 600 \
          --render-every ${RENDER_EVERY:-5} "${shot[@]}"
      done
    done ;;
  shots4m)
    for camera in ground front overview; do
      run after_4m_$camera 90 "${after[@]}" --units 4000000 --camera $camera --frames 600 \
        --render-every 5 --screenshot /tmp/shots/4m_$camera.png
    done ;;
  castertexels)
    for scene in "10000 ground" "10000 front" "1000000 ground" "1000000 front"; do
      set -- $scene
      texels="48 64 96 160 256"
      [ $1 = 10000 ] || texels="64 96 160"
      for t in $texels; do
        HORDE_X_SHADOW_FAR_TEXELS=$t run casters${t}_$([ $1 = 10000 ] && echo 10k || echo 1m)_$2 \
          90 "${after[@]}" --units $1 --camera $2 --frames 600 --budget-ms 0
      done
    done ;;
  tiles|tiles0)
    mkdir -p /tmp/cmp
    scenes=("10000 ground" "10000 front" "10000 overview" "1000000 ground" "1000000 front"
      "1000000 overview")
    budget=()
    if [ $mode = tiles0 ]; then
      scenes=("10000 ground" "1000000 ground" "1000000 front")
      budget=(--budget-ms 0)
    fi
    for scene in "${scenes[@]}"; do
      set -- $scene
      units=$1 camera=$2
      name=$(count_label $units)_$camera${budget:+_no_budget}
      for side in before after; do
        [ $side = before ] && bin=("${before[@]}") || bin=("${after[@]}")
        run ${side}_$name 120 "${bin[@]}" --units $units --camera $camera --frames 600 \
          "${budget[@]}" --screenshot /tmp/cmp/${side}_$name.png
      done
      { cmp -s /tmp/cmp/before_$name.png /tmp/cmp/after_$name.png \
        && echo "$name: frames identical" || echo "$name: frames differ"; } \
        | tee -a /tmp/out/frames_compared.txt
    done ;;
  sharedq|final)
    for units in 10000 1000000; do
      for camera in ground front overview; do
        name=$(count_label $units)_$camera
        run quality_$name 150 "${after[@]}" --quality --units $units --camera $camera \
          --frames 600 --screenshot /tmp/shots/$name.png
      done
    done ;;
  frag)
    for camera in ground front overview; do
      ten=(--units 10000 --camera $camera --frames 600 --budget-ms 0)
      run before_10k_$camera 60 "${before[@]}" "${ten[@]}"
      run after_10k_$camera 60 "${after[@]}" "${ten[@]}"
      HORDE_X_NO_RECEIVE=1 run unlit_10k_$camera 60 "${before[@]}" "${ten[@]}"
      HORDE_X_DEBUG_VIEW=2 run mask_10k_$camera 60 "${before[@]}" "${ten[@]}"
    done
    ground=(--units 10000 --camera ground --frames 600 --budget-ms 0 --lod-bias 0.5)
    run coarse_10k_ground 60 "${before[@]}" "${ground[@]}"
    HORDE_X_DEBUG_VIEW=2 run coarse_mask_10k_ground 60 "${before[@]}" "${ground[@]}"
    for camera in ground front overview; do
      run quality_10k_$camera 90 "${after[@]}" --quality --units 10000 --camera $camera \
        --frames 600 --screenshot /tmp/shots/10k_$camera.png
    done ;;
  clearcmd)
    ten=("${after[@]}" --units 10000 --frames 600 --camera ground)
    run clears_base 60 "${ten[@]}"
    HORDE_X_SHADOW_CLEAR=1 run clears_shadow_cmd 60 "${ten[@]}"
    HORDE_X_MAIN_CLEAR=1 run clears_main_cmd 60 "${ten[@]}"
    HORDE_X_SHADOW_CLEAR=1 HORDE_X_MAIN_CLEAR=1 run clears_both_cmd 60 "${ten[@]}"
    million=("${after[@]}" --units 1000000 --frames 600 --camera front --msaa on)
    run clears_1m_front_base 90 "${million[@]}"
    HORDE_X_SHADOW_CLEAR=1 HORDE_X_MAIN_CLEAR=1 run clears_1m_front_both_cmd 90 "${million[@]}" ;;
  esac
done
# At most 8 files come back: the frames as JPEG in one archive (PNG where
# Python has no PIL).
shots=$(ls /tmp/shots/*.png 2>/dev/null | grep -v '\.reference\.png$\|\.flip\.png$' || true)
if [ -n "$shots" ]; then
  python3 -c 'import sys; from PIL import Image
for f in sys.argv[1:]: Image.open(f).convert("RGB").save(f[:-4] + ".jpg", quality=92)' $shots \
    && tar cf $OUT/shots.tar -C /tmp/shots $(cd /tmp/shots && ls *.jpg) \
    || tar cf $OUT/shots.tar -C /tmp/shots $(cd /tmp/shots && ls *.png)
fi
tar czf $OUT/reports.tgz -C /tmp/out $(cd /tmp/out && ls)
