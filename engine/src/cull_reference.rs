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
//! See `passes::cull` for the algorithm and the data layout.

use crate::config::LOD_COUNT;
use crate::gpu_types::{
    AnimState, CullGlobals, Instance, TypeInfo, INSTANCE_INDEX_BITS, MAX_TYPES,
};

/// Distance (world units) below which the projected error stops growing; the
/// shader gets it as specialization constant 1. A power of two, so its square
/// is exact.
pub const MIN_LOD_DISTANCE: f32 = 1.0 / 1024.0;
/// Bit of `AnimState::blend` where a unit's 2-bit LOD state starts.
pub const UNIT_LOD_SHIFT: u32 = 24;
/// A LOD state is 2 bits (props: `Instance::params` bits 0..2).
pub const LOD_STATE_MASK: u32 = 3;

/// What one cull dispatch reads and updates in place.
#[derive(Debug)]
pub enum ReferenceBatch<'a> {
    /// Units: LOD state in `AnimState::blend` bits 24..26, one state per instance.
    Units {
        instances: &'a [Instance],
        anim_states: &'a mut [AnimState],
    },
    /// Props: LOD state in `Instance::params` bits 0..2.
    Props { instances: &'a mut [Instance] },
}

/// The draw commands and instance lists the dispatches of one frame fill.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReferenceOutput {
    /// `instanceCount` of each command: what was appended, clamped to the
    /// capacity of the region it was appended to.
    pub instance_counts: Vec<u32>,
    /// Every entry appended to each command's region (`index | lod << 30`),
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
pub fn world_sphere(instance: &Instance, type_info: &TypeInfo) -> Sphere {
    let [x, y, z, r] = type_info.sphere;
    let model = [x * instance.scale, y * instance.scale, z * instance.scale];
    let (s, c) = instance.heading.sin_cos();
    let rotated = [
        c * model[0] + s * model[2],
        model[1],
        -s * model[0] + c * model[2],
    ];
    Sphere {
        centre: [
            rotated[0] + instance.position[0],
            rotated[1] + instance.position[1],
            rotated[2] + instance.position[2],
        ],
        radius: r * instance.scale,
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

/// The coarsest LOD below `lod_count` that fits `threshold`; 0 when none does.
fn coarsest_fitting(
    type_info: &TypeInfo,
    lod_count: u32,
    size_px: f32,
    distance_squared: f32,
    threshold: f32,
) -> u32 {
    (1..lod_count)
        .rev()
        .find(|&lod| {
            error_fits(
                type_info.lod_error[lod as usize],
                size_px,
                distance_squared,
                threshold,
            )
        })
        .unwrap_or(0)
}

/// The LOD of a visible instance this frame, given last frame's state.
///
/// Without history it would be the coarsest LOD whose projected error is at
/// most the threshold. With it: while the previous LOD still fits the
/// threshold it is kept, unless a coarser one fits the tighter threshold
/// `threshold * (1 - hysteresis)`; once it no longer fits, the coarsest LOD
/// that fits the threshold is taken.
pub fn choose_lod(
    sphere: &Sphere,
    type_info: &TypeInfo,
    globals: &CullGlobals,
    previous_state: u32,
) -> u32 {
    let lod_count = type_info.skeleton[3].clamp(1, LOD_COUNT);
    let camera = globals.camera;
    let offset = [
        sphere.centre[0] - camera[0],
        sphere.centre[1] - camera[1],
        sphere.centre[2] - camera[2],
    ];
    let distance_squared = ((offset[0] * offset[0] + offset[1] * offset[1])
        + offset[2] * offset[2])
        .max(MIN_LOD_DISTANCE * MIN_LOD_DISTANCE);
    let size_px = (sphere.radius * 2.0) * camera[3];
    let threshold = globals.lod[0];
    let tight_threshold = threshold * (1.0 - globals.lod[1]);
    let previous = (previous_state & LOD_STATE_MASK).min(lod_count - 1);
    let previous_error = type_info.lod_error[previous as usize];
    if !error_fits(previous_error, size_px, distance_squared, threshold) {
        coarsest_fitting(type_info, lod_count, size_px, distance_squared, threshold)
    } else {
        previous.max(coarsest_fitting(
            type_info,
            lod_count,
            size_px,
            distance_squared,
            tight_threshold,
        ))
    }
}

/// Culls one batch as the shader does: updates the LOD states of visible
/// instances in place and appends them to `output`. `types` stands for the
/// uniform table; entries past its end read as zeroed.
pub fn cull(
    globals: &CullGlobals,
    types: &[TypeInfo],
    batch: ReferenceBatch<'_>,
    output: &mut ReferenceOutput,
) {
    let count = match &batch {
        ReferenceBatch::Units {
            instances,
            anim_states,
        } => instances.len().min(anim_states.len()),
        ReferenceBatch::Props { instances } => instances.len(),
    };
    let mut batch = batch;
    for index in 0..count {
        let (instance, state) = match &batch {
            ReferenceBatch::Units {
                instances,
                anim_states,
            } => (instances[index], anim_states[index].blend >> UNIT_LOD_SHIFT),
            ReferenceBatch::Props { instances } => (instances[index], instances[index].params),
        };
        if instance.type_index as usize >= MAX_TYPES {
            continue;
        }
        let type_info = types
            .get(instance.type_index as usize)
            .copied()
            .unwrap_or_default();
        let sphere = world_sphere(&instance, &type_info);
        if !in_frustum(&sphere, &globals.planes) {
            continue;
        }
        let lod = choose_lod(&sphere, &type_info, globals, state);
        match &mut batch {
            ReferenceBatch::Units { anim_states, .. } => {
                let blend = &mut anim_states[index].blend;
                *blend = (*blend & !(LOD_STATE_MASK << UNIT_LOD_SHIFT)) | (lod << UNIT_LOD_SHIFT);
            }
            ReferenceBatch::Props { instances } => {
                let params = &mut instances[index].params;
                *params = (*params & !LOD_STATE_MASK) | lod;
            }
        }
        let command = type_info.command[lod as usize] as usize;
        if command >= output.instance_counts.len() {
            continue;
        }
        let list_base = type_info.instance_base[lod as usize].min(output.instance_list_len);
        let capacity = type_info.materials[1].min(output.instance_list_len - list_base);
        let appended = &mut output.appended[command];
        let entry = index as u32 | (lod << INSTANCE_INDEX_BITS);
        let position = appended.binary_search(&entry).unwrap_or_else(|at| at);
        appended.insert(position, entry);
        output.instance_counts[command] = (appended.len() as u32).min(capacity);
    }
}
