//! Constants shared by Rust and GLSL: the one source of truth.
//!
//! `build.rs` includes this file and hands every entry of [`SHADER_CONSTANTS`]
//! to shaderc as a macro definition of the same name, so every shader sees
//! the same values the same way and none defines its own. The layout test
//! checks that no shader `#define`s one of these names. Keep this file free of
//! `use` items and dependencies: it is compiled in two crates.

/// Threads per workgroup of the per-unit compute passes on the desktop tier.
pub const UNIT_WORKGROUP_SIZE: u32 = 256;
/// Workgroup size that fits the mobile tier's 128-invocation limit.
pub const UNIT_WORKGROUP_SIZE_MOBILE: u32 = 64;
/// Frames the CPU may record ahead of the GPU.
pub const FRAMES_IN_FLIGHT: u32 = 2;
/// Timestamp scopes per frame the profiler can hold.
pub const MAX_PROFILER_SCOPES: u32 = 64;

/// Unit types and prop types together.
pub const MAX_TYPES: u32 = 64;
/// Mesh LODs a type may have. Each type says how many it has
/// (`TypeInfo::lod_count`); this only sizes the tables. Nine: a generated
/// unit's five LODs and coarse proxy, and the raster's three between them
/// (`horde_bake::BakeOptions::raster_lod_ratios`); with nine, 64 types'
/// `TypeInfo`s fill the 16 KiB a uniform buffer may hold on every tier.
pub const MAX_LODS: u32 = 9;
/// The route of the far field: a visible unit goes to one of its type's mesh
/// LODs (routes `0..lod_count`) or, below the far-field size, here.
pub const ROUTE_FAR_FIELD: u32 = MAX_LODS;
/// The route of the animated impostor, a unit type's last LOD (one quad per
/// unit sampling baked views, `passes/impostor.rs`).
pub const ROUTE_IMPOSTOR: u32 = MAX_LODS + 1;
/// Routes per type: every mesh LOD, the far field and the impostor.
pub const MAX_ROUTES: u32 = MAX_LODS + 2;
/// The route code the cull stores for a unit drawn as an impostor (mesh
/// LODs are `0..MAX_LODS`, the far field `ROUTE_FAR_FIELD + lod`).
pub const ROUTE_CODE_IMPOSTOR: u32 = 2 * MAX_LODS;
/// The bit of a stored route code that says the instance was visible at
/// the end of its last frame (occlusion culling's early phase draws those
/// first, `passes/cull.rs`); route codes stay far below it.
pub const ROUTE_VISIBLE: u32 = 1 << 31;
/// The cull's phases (its `phase` push constant): everything at once (no
/// occlusion culling: a shadow cascade, or occlusion off), or two-phase
/// occlusion culling's early and late halves.
pub const CULL_PHASE_ALL: u32 = 0;
pub const CULL_PHASE_EARLY: u32 = 1;
pub const CULL_PHASE_LATE: u32 = 2;
/// Draw commands at the head of the draw-list buffer: one per (type, route),
/// then the one all impostors share (right after the last type's, see
/// `world/regions.rs`), then two that are never drawn: their instance
/// counts are the units and the props occlusion culling hid.
pub const MAX_DRAW_COMMANDS: u32 = MAX_TYPES * MAX_ROUTES + 3;
/// Impostor views per side of the hemi-octahedral grid; equal to the asset
/// format's `IMPOSTOR_VIEWS_PER_SIDE` (asserted in `world/impostors.rs`).
pub const IMPOSTOR_VIEWS_PER_SIDE: u32 = 8;
/// Impostor cell side in texels; equal to the asset format's.
pub const IMPOSTOR_CELL_PX: u32 = 32;
/// Mip levels of the impostor atlas (cells of 32, 16, 8 and 4 texels):
/// distant impostors, a few pixels tall, sample a level near their size
/// instead of aliasing over a 32-texel cell.
pub const IMPOSTOR_MIP_LEVELS: u32 = 4;
/// Width of the runtime impostor atlas in texels (cells side by side, row
/// after row); its height is what the cells need, at most the tier's
/// largest image (4096 on the mobile tier).
pub const IMPOSTOR_ATLAS_WIDTH: u32 = 4096;
/// An instance-list entry holds the unit's index in its low bits and the
/// route code above them: a mesh LOD, or the far field's
/// `ROUTE_FAR_FIELD + lod`, at most 17 in 5 bits (2^27 units).
pub const ENTRY_INDEX_BITS: u32 = 27;
const _: () = assert!((ROUTE_FAR_FIELD + MAX_LODS - 1) >> (32 - ENTRY_INDEX_BITS) == 0);
/// Mask of the index bits of an instance-list entry.
pub const ENTRY_INDEX_MASK: u32 = (1 << ENTRY_INDEX_BITS) - 1;
/// Cull: the draw commands a workgroup counts in shared memory before it
/// reserves their room with one global atomic each; the appends of further
/// commands go straight to the global counters. A generated crowd's
/// workgroup uses far fewer (two unit types, each with a few LODs and the
/// far field).
pub const CULL_GROUP_COMMANDS: u32 = 32;
/// The most depth-pyramid texels per axis the occlusion test reads
/// (`shaders/occlusion.glsl`): it tests a sphere at the finest level where
/// its screen rectangle spans at most this many.
pub const OCCLUSION_FOOTPRINT_TEXELS: u32 = 8;

/// Far field: threads per workgroup (a specialization constant of
/// `far_field.comp`). A workgroup skins and rasterizes a batch of units at
/// once, one thread per vertex, then per triangle: measured on an H100, the
/// pass is bound by the latency of each unit's chain of dependent reads, and
/// more threads per unit (64: 24.9 ms, 128: 17.2 ms, 256: 14.6 ms for 894k
/// units before batching) shorten it.
pub const FAR_FIELD_WORKGROUP_SIZE: u32 = 256;
/// Far field: the vertices a workgroup holds in shared memory
/// (`FAR_FIELD_SHARED_BYTES_PER_VERTEX` each): the most a LOD may have to be drawn by the far field, and what a
/// batch of small LODs shares. 672 holds the generated knight's LOD 3 (657)
/// and leaves room for 16 workgroups of shared memory per H100 SM (1024:
/// 11, 33.0 ms against 24.9 ms at 64 threads).
pub const FAR_FIELD_MAX_VERTICES: u32 = 672;
/// Far field, mid-size units: the most vertices the second pipeline holds
/// in shared memory (fewer where the device's shared memory is smaller,
/// `FarFieldPass::new`), so units of 30 to 100 pixels are drawn by the
/// compute rasterizer at a LOD of up to this many vertices (the generated
/// units' LOD 2: 1567 to 1682; 1,700 fit a device of 48 KiB, an H100 or
/// H200, and the bake keeps every LOD the far field may draw within that)
/// instead of by the raster, about 100x slower for them on an H100
/// (DESIGN.md).
pub const FAR_FIELD_MID_MAX_VERTICES: u32 = 2048;
/// Far field: shared memory per vertex (position 8 bytes; depth, front and
/// back light, add term and UV 4 each), and what the rest of the shader's
/// shared state takes at most, in bytes (1184: the chunk's items with
/// their units' poses, the batch, the types' prefix).
pub const FAR_FIELD_SHARED_BYTES_PER_VERTEX: u32 = 28;
pub const FAR_FIELD_SHARED_RESERVE_BYTES: u32 = 1536;
/// Far field: `FarFieldMesh::vertex_count_flags` holds the LOD's vertices
/// in these bits (at most `FAR_FIELD_MID_MAX_VERTICES`)...
pub const FAR_MESH_VERTEX_COUNT_MASK: u32 = 0xffff;
/// ...and this flag for a box proxy (`horde_asset::MeshLod::box_proxy`),
/// whose texel the far field reads once a vertex.
pub const FAR_MESH_BOX_PROXY: u32 = 1 << 16;
const _: () = assert!(FAR_FIELD_MID_MAX_VERTICES <= FAR_MESH_VERTEX_COUNT_MASK);
/// Far field: the most units in one batch. Eight of the coarse box proxy
/// (80 vertices) fill `FAR_FIELD_MAX_VERTICES`; eleven in 896 vertices of
/// shared memory took the 1M overview's far field from 7.28 to 13.03 ms
/// on an H100 (`benches/results/near_field/`, call 12).
pub const FAR_FIELD_BATCH_UNITS: u32 = 8;
/// Far field: bits of sub-pixel precision of the snapped vertex positions
/// (1/256 pixel, as common raster hardware).
pub const FAR_FIELD_SUBPIXEL_BITS: u32 = 8;
/// Far field: a triangle whose snapped bounding box is wider or taller than
/// this many pixels is too large for the compute rasterizer; its unit is
/// drawn by the raster instead (as its coarsest mesh LOD).
pub const FAR_FIELD_MAX_TRIANGLE_PX: u32 = 32;
/// Far field: samples per pixel along each axis when it supersamples
/// (`RenderSettings::far_field_supersampling`): the visibility buffer holds
/// a 2×2 grid of samples per pixel, which the resolve averages.
pub const FAR_FIELD_SAMPLES_PER_AXIS: u32 = 2;
/// Far field: the resolve's tiles, this many pixels square. Only the tiles
/// holding a covered sample are drawn (`passes/far_field/resolve.rs`); one
/// workgroup of `FAR_FIELD_TILE_PX²` threads finds whether a tile does.
pub const FAR_FIELD_TILE_PX: u32 = 16;
/// Far field: snapped vertex positions are clamped to this many pixels
/// around the target, so they fit 32-bit integers whatever the projection.
pub const FAR_FIELD_GUARD_PX: u32 = 1 << 14;

/// Clips of all unit types together (16 KiB of uniforms, the mobile limit).
pub const MAX_CLIPS: u32 = 1024;
/// Materials of all types together.
pub const MAX_MATERIALS: u32 = 256;
/// Animation controller states of all unit types together: the head of the
/// controller buffer, before the transitions.
pub const MAX_ANIM_STATES: u32 = 512;
/// Animation controller transitions of all unit types together.
pub const MAX_ANIM_TRANSITIONS: u32 = 1024;
/// `UnitInfo::type_index` of a despawned unit or an empty slot: every pass
/// skips it.
pub const INACTIVE_TYPE: u32 = 0xffff;

/// `UnitMotion::anim_commands`: set while the unit is dead.
pub const ANIM_COMMAND_DEAD: u32 = 1;
/// `UnitMotion::anim_commands`: set while the unit celebrates (the battle is
/// won); the controller leaves the victory state when it clears.
pub const ANIM_COMMAND_VICTORY: u32 = 2;
/// `UnitMotion::anim_commands`: the attack command serial (4 bits) starts
/// here; each new value commands one attack.
pub const ANIM_COMMAND_ATTACK_SHIFT: u32 = 4;
/// `UnitMotion::anim_commands`: the hit command serial (4 bits).
pub const ANIM_COMMAND_HIT_SHIFT: u32 = 8;
/// `UnitMotion::anim_commands`: which attack clip the next attack plays (4 bits).
pub const ANIM_COMMAND_VARIANT_SHIFT: u32 = 12;
/// Width mask of the 4-bit fields of `anim_commands` and `AnimState::clips`.
pub const ANIM_SERIAL_MASK: u32 = 15;

/// `AnimState::clips`: controller state (8 bits) at bit 0, the current clip
/// (8 bits) here, the previous clip (8 bits) at `ANIM_PREVIOUS_CLIP_SHIFT`,
/// the last attack and hit serials seen (4 bits each) above.
pub const ANIM_CURRENT_CLIP_SHIFT: u32 = 8;
pub const ANIM_PREVIOUS_CLIP_SHIFT: u32 = 16;
pub const ANIM_ATTACK_SEEN_SHIFT: u32 = 24;
pub const ANIM_HIT_SEEN_SHIFT: u32 = 28;
/// `AnimState::blend`: crossfade progress is an f16 in bits 0..16, the fade
/// duration in steps of [`ANIM_FADE_STEP_SECONDS`] in 8 bits here.
pub const ANIM_FADE_STEPS_SHIFT: u32 = 16;
/// `AnimState::blend`: set when the previous clip wraps rather than holds.
pub const ANIM_PREVIOUS_LOOPS_BIT: u32 = 1 << 24;
/// Seconds per step of the stored fade duration.
pub const ANIM_FADE_STEP_SECONDS: f32 = 0.02;
/// Its inverse, so both sides multiply (GPU division is not exact).
pub const ANIM_FADE_STEPS_PER_SECOND: f32 = 50.0;

/// Transition conditions of `AnimTransitionDef::condition`.
pub const CONDITION_CLIP_END: u32 = 0;
pub const CONDITION_SPEED_ABOVE: u32 = 1;
pub const CONDITION_SPEED_BELOW: u32 = 2;
pub const CONDITION_DEAD: u32 = 3;
pub const CONDITION_ALIVE: u32 = 4;
pub const CONDITION_ATTACK: u32 = 5;
pub const CONDITION_HIT: u32 = 6;
pub const CONDITION_VICTORY: u32 = 7;
pub const CONDITION_NO_VICTORY: u32 = 8;
/// `AnimStateDef::flags`: any-state transitions do not apply.
pub const STATE_NO_ANY: u32 = 1;
/// `AnimStateDef::flags`: play the clip once and hold its last frame.
pub const STATE_PLAY_ONCE: u32 = 2;
/// `AnimStateDef::flags`: a locomotion blend state. It blends `clip` and
/// `blend_clip` by the unit's speed, phase-synchronised, and plays them at
/// the rate that makes their ground speed (times the unit's scale) equal
/// the unit's speed, so the planted foot does not slide.
pub const STATE_LOCOMOTION: u32 = 4;

/// Slowest and fastest playback rate of a locomotion state: beyond them the
/// feet slide rather than the legs windmill or freeze.
pub const LOCOMOTION_MIN_RATE: f32 = 0.25;
pub const LOCOMOTION_MAX_RATE: f32 = 3.0;
/// How fast a locomotion state's blend weight follows the speed (weight
/// per second), so a sudden speed change blends over a quarter second
/// rather than popping.
pub const LOCOMOTION_BLEND_PER_SECOND: f32 = 4.0;
/// A locomotion state's target weight snaps to one clip within these
/// fractions of the blend's ends (towards the second clip): a unit walking
/// or running near a clip's own speed skins one clip, not two, and its rate
/// still matches its speed, so its feet stay planted.
pub const LOCOMOTION_SINGLE_CLIP_BELOW: f32 = 0.15;
pub const LOCOMOTION_SINGLE_CLIP_ABOVE: f32 = 0.85;
/// Per-unit variety: a non-locomotion state plays at
/// `VARIETY_SPEED_MIN + VARIETY_SPEED_RANGE * h` times its speed, with `h`
/// in [0, 1) from a hash of the unit index (the low 16 bits of
/// `unit_hash`), so a rank idles and cheers out of step.
pub const VARIETY_SPEED_MIN: f32 = 0.9;
pub const VARIETY_SPEED_RANGE: f32 = 0.2;
/// `1 / 65536`: turns 16 hash bits into [0, 1) exactly.
pub const VARIETY_UNIT_SCALE: f32 = 1.0 / 65536.0;

/// `FrameGlobals::debug_view`: normal shading.
pub const DEBUG_VIEW_SHADED: u32 = 0;
/// `FrameGlobals::debug_view`: every unit and prop coloured by its route.
pub const DEBUG_VIEW_LOD: u32 = 1;
/// `FrameGlobals::debug_view`: the unit mask of the quality measurement
/// (`renderer/replay.rs`): every unit pixel white, every other surface black,
/// unlit and unfogged, so coverage counts exactly.
pub const DEBUG_VIEW_UNIT_MASK: u32 = 2;
/// `FrameGlobals::debug_view`: every unit in the colour its simulation
/// marked it with (`SimulationUnits::marks`; the battle: its regiment's
/// state), lit; unmarked units grey.
pub const DEBUG_VIEW_MARKS: u32 = 3;

/// Sun shadow cascades at most (`passes/shadow.rs`): the desktop tier
/// draws this many, the mobile tier one.
pub const MAX_SHADOW_CASCADES: u32 = 3;

/// `MaterialInfo::flags`: back faces are drawn, lit with the flipped normal.
pub const MATERIAL_DOUBLE_SIDED: u32 = 1;
/// `MaterialInfo::flags`: the base colour is multiplied by the scene's
/// ground texture, tiled in world X and Z (`Scene::ground_texture`).
pub const MATERIAL_GROUND_TEXTURE: u32 = 2;

/// A value handed to GLSL.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ShaderValue {
    U32(u32),
    F32(f32),
}

/// Every constant above that shaders use, by its GLSL name.
pub const SHADER_CONSTANTS: &[(&str, ShaderValue)] = &[
    ("MAX_TYPES", ShaderValue::U32(MAX_TYPES)),
    ("MAX_LODS", ShaderValue::U32(MAX_LODS)),
    ("MAX_SHADOW_CASCADES", ShaderValue::U32(MAX_SHADOW_CASCADES)),
    ("ROUTE_FAR_FIELD", ShaderValue::U32(ROUTE_FAR_FIELD)),
    ("MAX_ROUTES", ShaderValue::U32(MAX_ROUTES)),
    ("ROUTE_IMPOSTOR", ShaderValue::U32(ROUTE_IMPOSTOR)),
    ("ROUTE_CODE_IMPOSTOR", ShaderValue::U32(ROUTE_CODE_IMPOSTOR)),
    ("ROUTE_VISIBLE", ShaderValue::U32(ROUTE_VISIBLE)),
    ("CULL_PHASE_ALL", ShaderValue::U32(CULL_PHASE_ALL)),
    ("CULL_PHASE_EARLY", ShaderValue::U32(CULL_PHASE_EARLY)),
    ("CULL_PHASE_LATE", ShaderValue::U32(CULL_PHASE_LATE)),
    (
        "IMPOSTOR_VIEWS_PER_SIDE",
        ShaderValue::U32(IMPOSTOR_VIEWS_PER_SIDE),
    ),
    ("IMPOSTOR_CELL_PX", ShaderValue::U32(IMPOSTOR_CELL_PX)),
    ("IMPOSTOR_MIP_LEVELS", ShaderValue::U32(IMPOSTOR_MIP_LEVELS)),
    (
        "IMPOSTOR_ATLAS_WIDTH",
        ShaderValue::U32(IMPOSTOR_ATLAS_WIDTH),
    ),
    ("MAX_DRAW_COMMANDS", ShaderValue::U32(MAX_DRAW_COMMANDS)),
    (
        "FAR_MESH_VERTEX_COUNT_MASK",
        ShaderValue::U32(FAR_MESH_VERTEX_COUNT_MASK),
    ),
    ("FAR_MESH_BOX_PROXY", ShaderValue::U32(FAR_MESH_BOX_PROXY)),
    ("ENTRY_INDEX_BITS", ShaderValue::U32(ENTRY_INDEX_BITS)),
    ("ENTRY_INDEX_MASK", ShaderValue::U32(ENTRY_INDEX_MASK)),
    ("CULL_GROUP_COMMANDS", ShaderValue::U32(CULL_GROUP_COMMANDS)),
    (
        "OCCLUSION_FOOTPRINT_TEXELS",
        ShaderValue::U32(OCCLUSION_FOOTPRINT_TEXELS),
    ),
    ("MAX_CLIPS", ShaderValue::U32(MAX_CLIPS)),
    (
        "FAR_FIELD_MAX_VERTICES",
        ShaderValue::U32(FAR_FIELD_MAX_VERTICES),
    ),
    (
        "FAR_FIELD_SUBPIXEL_BITS",
        ShaderValue::U32(FAR_FIELD_SUBPIXEL_BITS),
    ),
    (
        "FAR_FIELD_MAX_TRIANGLE_PX",
        ShaderValue::U32(FAR_FIELD_MAX_TRIANGLE_PX),
    ),
    ("FAR_FIELD_GUARD_PX", ShaderValue::U32(FAR_FIELD_GUARD_PX)),
    ("FAR_FIELD_TILE_PX", ShaderValue::U32(FAR_FIELD_TILE_PX)),
    (
        "FAR_FIELD_BATCH_UNITS",
        ShaderValue::U32(FAR_FIELD_BATCH_UNITS),
    ),
    ("MAX_MATERIALS", ShaderValue::U32(MAX_MATERIALS)),
    ("MAX_ANIM_STATES", ShaderValue::U32(MAX_ANIM_STATES)),
    ("INACTIVE_TYPE", ShaderValue::U32(INACTIVE_TYPE)),
    ("ANIM_COMMAND_DEAD", ShaderValue::U32(ANIM_COMMAND_DEAD)),
    (
        "ANIM_COMMAND_VICTORY",
        ShaderValue::U32(ANIM_COMMAND_VICTORY),
    ),
    (
        "ANIM_COMMAND_ATTACK_SHIFT",
        ShaderValue::U32(ANIM_COMMAND_ATTACK_SHIFT),
    ),
    (
        "ANIM_COMMAND_HIT_SHIFT",
        ShaderValue::U32(ANIM_COMMAND_HIT_SHIFT),
    ),
    (
        "ANIM_COMMAND_VARIANT_SHIFT",
        ShaderValue::U32(ANIM_COMMAND_VARIANT_SHIFT),
    ),
    ("ANIM_SERIAL_MASK", ShaderValue::U32(ANIM_SERIAL_MASK)),
    (
        "ANIM_CURRENT_CLIP_SHIFT",
        ShaderValue::U32(ANIM_CURRENT_CLIP_SHIFT),
    ),
    (
        "ANIM_PREVIOUS_CLIP_SHIFT",
        ShaderValue::U32(ANIM_PREVIOUS_CLIP_SHIFT),
    ),
    (
        "ANIM_ATTACK_SEEN_SHIFT",
        ShaderValue::U32(ANIM_ATTACK_SEEN_SHIFT),
    ),
    ("ANIM_HIT_SEEN_SHIFT", ShaderValue::U32(ANIM_HIT_SEEN_SHIFT)),
    (
        "ANIM_FADE_STEPS_SHIFT",
        ShaderValue::U32(ANIM_FADE_STEPS_SHIFT),
    ),
    (
        "ANIM_PREVIOUS_LOOPS_BIT",
        ShaderValue::U32(ANIM_PREVIOUS_LOOPS_BIT),
    ),
    (
        "ANIM_FADE_STEP_SECONDS",
        ShaderValue::F32(ANIM_FADE_STEP_SECONDS),
    ),
    (
        "ANIM_FADE_STEPS_PER_SECOND",
        ShaderValue::F32(ANIM_FADE_STEPS_PER_SECOND),
    ),
    ("CONDITION_CLIP_END", ShaderValue::U32(CONDITION_CLIP_END)),
    (
        "CONDITION_SPEED_ABOVE",
        ShaderValue::U32(CONDITION_SPEED_ABOVE),
    ),
    (
        "CONDITION_SPEED_BELOW",
        ShaderValue::U32(CONDITION_SPEED_BELOW),
    ),
    ("CONDITION_DEAD", ShaderValue::U32(CONDITION_DEAD)),
    ("CONDITION_ALIVE", ShaderValue::U32(CONDITION_ALIVE)),
    ("CONDITION_ATTACK", ShaderValue::U32(CONDITION_ATTACK)),
    ("CONDITION_HIT", ShaderValue::U32(CONDITION_HIT)),
    ("CONDITION_VICTORY", ShaderValue::U32(CONDITION_VICTORY)),
    (
        "CONDITION_NO_VICTORY",
        ShaderValue::U32(CONDITION_NO_VICTORY),
    ),
    ("STATE_NO_ANY", ShaderValue::U32(STATE_NO_ANY)),
    ("STATE_PLAY_ONCE", ShaderValue::U32(STATE_PLAY_ONCE)),
    ("STATE_LOCOMOTION", ShaderValue::U32(STATE_LOCOMOTION)),
    ("LOCOMOTION_MIN_RATE", ShaderValue::F32(LOCOMOTION_MIN_RATE)),
    ("LOCOMOTION_MAX_RATE", ShaderValue::F32(LOCOMOTION_MAX_RATE)),
    (
        "LOCOMOTION_BLEND_PER_SECOND",
        ShaderValue::F32(LOCOMOTION_BLEND_PER_SECOND),
    ),
    (
        "LOCOMOTION_SINGLE_CLIP_BELOW",
        ShaderValue::F32(LOCOMOTION_SINGLE_CLIP_BELOW),
    ),
    (
        "LOCOMOTION_SINGLE_CLIP_ABOVE",
        ShaderValue::F32(LOCOMOTION_SINGLE_CLIP_ABOVE),
    ),
    ("VARIETY_SPEED_MIN", ShaderValue::F32(VARIETY_SPEED_MIN)),
    ("VARIETY_SPEED_RANGE", ShaderValue::F32(VARIETY_SPEED_RANGE)),
    ("VARIETY_UNIT_SCALE", ShaderValue::F32(VARIETY_UNIT_SCALE)),
    ("DEBUG_VIEW_SHADED", ShaderValue::U32(DEBUG_VIEW_SHADED)),
    ("DEBUG_VIEW_LOD", ShaderValue::U32(DEBUG_VIEW_LOD)),
    (
        "DEBUG_VIEW_UNIT_MASK",
        ShaderValue::U32(DEBUG_VIEW_UNIT_MASK),
    ),
    ("DEBUG_VIEW_MARKS", ShaderValue::U32(DEBUG_VIEW_MARKS)),
    (
        "MATERIAL_DOUBLE_SIDED",
        ShaderValue::U32(MATERIAL_DOUBLE_SIDED),
    ),
    (
        "MATERIAL_GROUND_TEXTURE",
        ShaderValue::U32(MATERIAL_GROUND_TEXTURE),
    ),
];

impl ShaderValue {
    /// The GLSL literal: `123u` or a float that keeps every bit.
    pub fn glsl(self) -> String {
        match self {
            ShaderValue::U32(value) => format!("{value}u"),
            ShaderValue::F32(value) => format!("uintBitsToFloat({}u)", value.to_bits()),
        }
    }
}
