//! The CPU twin of `shaders/cull.comp`: the same culling and LOD rules in plain
//! Rust over slices, for tests (GPU output must equal it exactly) and for the
//! `cpu-culled` baseline.
//!
//! Exactness: every quantity that decides visibility or LOD is computed from
//! the same inputs with the same f32 additions, subtractions and
//! multiplications, in the same order, as the shader (where they are `precise`,
//! so the GPU may not fuse or reorder them). Those operations round exactly as
//! IEEE 754 says on every Vulkan device, and the rules avoid division and
//! square roots, whose GPU precision Vulkan leaves loose. The one inexact input
//! is the rotation of an off-axis sphere centre by the heading (GPU `sin`/`cos`
//! differ from the CPU's): spheres centred on the +Y axis, the usual case, are
//! unaffected by it.
//!
//! See [`crate::passes::cull`] for the algorithm and the data layout.

use glam::Vec3;

use crate::config::{
    ANIM_CURRENT_CLIP_SHIFT, ANIM_PREVIOUS_CLIP_SHIFT, MAX_LODS, ROUTE_CODE_IMPOSTOR,
    ROUTE_FAR_FIELD, ROUTE_IMPOSTOR,
};
use crate::gpu_types::{
    AnimState, CullGlobals, TypeInfo, UnitInfo, UnitPlacement, ENTRY_INDEX_BITS, MAX_CLIPS,
    MAX_TYPES,
};

/// Distance (world units) below which the projected error stops growing; the
/// shader gets it as specialization constant 1. A power of two, so its square
/// is exact.
pub const MIN_LOD_DISTANCE: f32 = 1.0 / 1024.0;

/// What one cull dispatch reads, and the routes it updates in place.
#[derive(Debug)]
pub struct ReferenceBatch<'a> {
    pub infos: &'a [UnitInfo],
    pub placements: &'a [UnitPlacement],
    /// The route code each instance took last frame (see [`choose_route`]);
    /// updated for visible ones.
    pub routes: &'a mut [u32],
}

/// The draw commands and instance lists the dispatches of one frame fill.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReferenceOutput {
    /// `instanceCount` of each command: what was appended, clamped to the
    /// capacity of the region it was appended to.
    pub instance_counts: Vec<u32>,
    /// Every entry appended to each command's region (`index | code << ENTRY_INDEX_BITS`),
    /// sorted; the GPU writes them in any order, and only the first
    /// `instance_counts[c]` of them when a region overflows.
    pub appended: Vec<Vec<u32>>,
    /// Length of the instance-list buffer in entries.
    pub instance_list_len: u32,
}

impl ReferenceOutput {
    /// The state right after the reset: `command_count` commands with no
    /// instances, and an instance-list buffer of `instance_list_len` entries.
    pub fn new(command_count: usize, instance_list_len: u32) -> ReferenceOutput {
        ReferenceOutput {
            instance_counts: vec![0; command_count],
            appended: vec![Vec::new(); command_count],
            instance_list_len,
        }
    }
}

/// A world bounding sphere.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sphere {
    pub centre: [f32; 3],
    pub radius: f32,
}

/// The instance's bounding sphere in the world: the type's model sphere scaled,
/// rotated about +Y by the heading (as `rotate_y` in `common.glsl`), moved.
pub fn world_sphere(info: &UnitInfo, placement: &UnitPlacement, type_info: &TypeInfo) -> Sphere {
    let [x, y, z] = type_info.sphere_center;
    let model = [x * info.scale, y * info.scale, z * info.scale];
    let (s, c) = placement.heading.sin_cos();
    let rotated = [
        c * model[0] + s * model[2],
        model[1],
        -s * model[0] + c * model[2],
    ];
    Sphere {
        centre: [
            rotated[0] + placement.position[0],
            rotated[1] + placement.position[1],
            rotated[2] + placement.position[2],
        ],
        radius: type_info.sphere_radius * info.scale,
    }
}

/// The smallest sphere (`[x, y, z, radius]`) around spheres `a` and `b`,
/// as `enclosing_sphere` in `cull.glsl`.
pub fn enclosing_sphere(a: [f32; 4], b: [f32; 4]) -> [f32; 4] {
    let (centre_a, centre_b) = (Vec3::from_slice(&a), Vec3::from_slice(&b));
    let gap = centre_a.distance(centre_b);
    if gap + b[3] <= a[3] {
        return a;
    }
    if gap + a[3] <= b[3] {
        return b;
    }
    let radius = (gap + a[3] + b[3]) * 0.5;
    centre_a
        .lerp(centre_b, (radius - a[3]) / gap)
        .extend(radius)
        .to_array()
}

/// The model-space sphere (`[x, y, z, radius]`) the posed cull's occlusion
/// test takes for a unit of `type_info` in `anim` (`posed_sphere` in
/// `clip_spheres.glsl`): its current clip's sphere of `clip_spheres` (the
/// world's clip table's), around its previous clip's too while that fades out,
/// where that is smaller than the type's sphere; else the type's.
pub fn occlusion_sphere(
    type_info: &TypeInfo,
    anim: &AnimState,
    clip_spheres: &[[f32; 4]],
) -> [f32; 4] {
    let [x, y, z] = type_info.sphere_center;
    let whole = [x, y, z, type_info.sphere_radius];
    let first = type_info.first_clip as usize;
    let count = type_info.clip_count as usize;
    let current = ((anim.clips >> ANIM_CURRENT_CLIP_SHIFT) & 0xff) as usize;
    let previous = ((anim.clips >> ANIM_PREVIOUS_CLIP_SHIFT) & 0xff) as usize;
    if count == 0 || current >= count || previous >= count || first + count > MAX_CLIPS {
        return whole;
    }
    let sphere = |local: usize| clip_spheres.get(first + local).copied();
    let (Some(current_sphere), Some(previous_sphere)) = (sphere(current), sphere(previous)) else {
        return whole;
    };
    let fading = half::f16::from_bits(anim.blend as u16).to_f32() < 1.0;
    let posed = if fading {
        enclosing_sphere(current_sphere, previous_sphere)
    } else {
        current_sphere
    };
    if posed[3] < whole[3] {
        posed
    } else {
        whole
    }
}

/// True when the sphere is inside or crosses every plane.
pub fn in_frustum(sphere: &Sphere, planes: &[[f32; 4]; 6]) -> bool {
    let [x, y, z] = sphere.centre;
    planes
        .iter()
        .all(|p| ((p[0] * x + p[1] * y) + p[2] * z) + p[3] >= -sphere.radius)
}

/// Whether a LOD's projected error, `lod_error * size_px / max(d, MIN)`, is at
/// most `threshold` pixels, compared squared: no division, no square root.
fn error_fits(lod_error: f32, size_px: f32, distance_squared: f32, threshold: f32) -> bool {
    let error_px = lod_error * size_px;
    error_px * error_px <= (threshold * threshold) * distance_squared
}

/// Whether the sphere projects within `limit` pixels,
/// `size_px / max(d, MIN) <= limit`, compared squared.
fn projects_within(size_px: f32, distance_squared: f32, limit: f32) -> bool {
    size_px * size_px <= (limit * limit) * distance_squared
}

/// The coarsest LOD above `floor` and below `lod_count` that fits
/// `threshold`; `floor` when none does.
fn coarsest_fitting(
    type_info: &TypeInfo,
    floor: u32,
    lod_count: u32,
    size_px: f32,
    distance_squared: f32,
    threshold: f32,
) -> u32 {
    (floor + 1..lod_count)
        .rev()
        .find(|&lod| {
            error_fits(
                type_info.routes[lod as usize].error,
                size_px,
                distance_squared,
                threshold,
            )
        })
        .unwrap_or(floor)
}

/// Where a visible instance goes this frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RouteDecision {
    /// The route code stored for next frame's hysteresis (see
    /// [`choose_route`]).
    pub code: u32,
    /// The mesh LOD the unit takes (or would take, as an impostor).
    pub lod: u32,
    /// Also drawn as an impostor: a mesh-drawn unit within the crossfade
    /// band.
    pub banded: bool,
    /// Not drawn: a mesh within `min_size_px` (its route stays).
    pub dropped: bool,
}

/// The route code of a visible instance this frame, given last frame's: its
/// LOD, plus `ROUTE_FAR_FIELD` when the far field draws it, or
/// `ROUTE_CODE_IMPOSTOR` when its impostor does.
///
/// One LOD rule serves both paths: without history the coarsest LOD whose
/// projected error is at most the threshold; with it, while the previous LOD
/// still fits the threshold it is kept, unless a coarser one fits the tighter
/// threshold `threshold * (1 - hysteresis)`; once it no longer fits, the
/// coarsest LOD that fits the threshold is taken. The far field (where the
/// type has one and `far_field_px > 0`) then takes instances whose sphere
/// projects within `far_field_px` pixels; an instance enters it only within
/// `far_field_px * (1 - hysteresis)`. Outside the far field, the impostor
/// (where the type has one and `impostor_threshold_px > 0`) takes instances
/// whose impostor error fits `impostor_threshold_px`; within
/// `impostor_threshold_px * (1 + impostor_band)` a mesh-drawn instance is
/// banded (see [`RouteDecision`]).
pub fn choose_route(
    sphere: &Sphere,
    type_info: &TypeInfo,
    globals: &CullGlobals,
    previous_code: u32,
) -> u32 {
    decide_route(sphere, type_info, globals, previous_code).code
}

/// [`choose_route`], with the LOD and the band.
pub fn decide_route(
    sphere: &Sphere,
    type_info: &TypeInfo,
    globals: &CullGlobals,
    previous_code: u32,
) -> RouteDecision {
    let lod_count = type_info.lod_count.clamp(1, MAX_LODS);
    let camera = globals.camera_position;
    let offset = [
        sphere.centre[0] - camera[0],
        sphere.centre[1] - camera[1],
        sphere.centre[2] - camera[2],
    ];
    let distance_squared = if globals.orthographic != 0 {
        1.0
    } else {
        ((offset[0] * offset[0] + offset[1] * offset[1]) + offset[2] * offset[2])
            .max(MIN_LOD_DISTANCE * MIN_LOD_DISTANCE)
    };
    let size_px = (sphere.radius * 2.0) * globals.pixels_per_unit;
    let threshold = globals.lod_threshold_px;
    let tight_threshold = threshold * (1.0 - globals.lod_hysteresis);
    let previous_far = previous_code >= ROUTE_FAR_FIELD;
    let previous = if previous_far {
        previous_code - ROUTE_FAR_FIELD
    } else {
        previous_code
    }
    .min(lod_count - 1);
    let previous_error = type_info.routes[previous as usize].error;
    let lod = if !error_fits(previous_error, size_px, distance_squared, threshold) {
        coarsest_fitting(
            type_info,
            0,
            lod_count,
            size_px,
            distance_squared,
            threshold,
        )
    } else {
        coarsest_fitting(
            type_info,
            previous,
            lod_count,
            size_px,
            distance_squared,
            tight_threshold,
        )
    };
    let far_field_open =
        globals.far_field_px > 0.0 && type_info.routes[ROUTE_FAR_FIELD as usize].capacity > 0;
    let far_limit = if previous_far {
        globals.far_field_px
    } else {
        globals.far_field_px * (1.0 - globals.lod_hysteresis)
    };
    let far = far_field_open && projects_within(size_px, distance_squared, far_limit);
    let impostor_route = type_info.routes[ROUTE_IMPOSTOR as usize];
    let impostor_open = !far && globals.impostor_threshold_px > 0.0 && impostor_route.capacity > 0;
    let impostor = impostor_open
        && error_fits(
            impostor_route.error,
            size_px,
            distance_squared,
            globals.impostor_threshold_px,
        );
    let band_threshold = globals.impostor_threshold_px * (1.0 + globals.impostor_band);
    let banded = impostor_open
        && !impostor
        && error_fits(
            impostor_route.error,
            size_px,
            distance_squared,
            band_threshold,
        );
    let code = if far {
        ROUTE_FAR_FIELD + lod
    } else if impostor {
        ROUTE_CODE_IMPOSTOR
    } else {
        lod
    };
    let dropped = !far
        && globals.min_size_px > 0.0
        && projects_within(size_px, distance_squared, globals.min_size_px);
    RouteDecision {
        code,
        lod,
        banded,
        dropped,
    }
}

/// The route (the index into `TypeInfo::routes`) of a route code.
pub fn route_of(code: u32) -> u32 {
    if code == ROUTE_CODE_IMPOSTOR {
        ROUTE_IMPOSTOR
    } else {
        code.min(ROUTE_FAR_FIELD)
    }
}

/// Appends `entry` to `target`'s command and region, as the shader does.
fn append(output: &mut ReferenceOutput, target: crate::gpu_types::RouteInfo, entry: u32) {
    let command = target.command as usize;
    if command >= output.instance_counts.len() {
        return;
    }
    let list_base = target.list_base.min(output.instance_list_len);
    let capacity = target.capacity.min(output.instance_list_len - list_base);
    let appended = &mut output.appended[command];
    let position = appended.binary_search(&entry).unwrap_or_else(|at| at);
    appended.insert(position, entry);
    output.instance_counts[command] = (appended.len() as u32).min(capacity);
}

/// Culls one batch as the shader does: updates the routes of visible
/// instances in place and appends them to `output`. `types` stands for the
/// uniform table; entries past its end read as zeroed.
pub fn cull(
    globals: &CullGlobals,
    types: &[TypeInfo],
    batch: ReferenceBatch<'_>,
    output: &mut ReferenceOutput,
) {
    let count = batch
        .infos
        .len()
        .min(batch.placements.len())
        .min(batch.routes.len());
    for index in 0..count {
        let info = batch.infos[index];
        if info.type_index as usize >= MAX_TYPES {
            continue;
        }
        let type_info = types
            .get(info.type_index as usize)
            .copied()
            .unwrap_or_default();
        let sphere = world_sphere(&info, &batch.placements[index], &type_info);
        if !in_frustum(&sphere, &globals.planes) {
            continue;
        }
        let decision = decide_route(&sphere, &type_info, globals, batch.routes[index]);
        if decision.dropped {
            continue;
        }
        let code = decision.code;
        batch.routes[index] = code;
        // Impostor entries carry the mesh LOD the unit would take.
        let lod_entry = index as u32 | (decision.lod << ENTRY_INDEX_BITS);
        let entry = if code == ROUTE_CODE_IMPOSTOR {
            lod_entry
        } else {
            index as u32 | (code << ENTRY_INDEX_BITS)
        };
        append(output, type_info.routes[route_of(code) as usize], entry);
        if decision.banded {
            append(output, type_info.routes[ROUTE_IMPOSTOR as usize], lod_entry);
        }
    }
}
