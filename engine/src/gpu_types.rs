//! Structs shared by the CPU and the GPU: the one source of truth.
//!
//! Each is `#[repr(C)]` + `bytemuck::Pod` with a `const` size assert. The GLSL
//! twin lives in `shaders/types.glsl`; the test `layout` compares every member
//! offset with what the GLSL compiler chose (via SPIR-V reflection). No `vec3`
//! appears in buffer layouts: std430 and std140 align it like a `vec4`.
//!
//! GPU state per unit is 48 bytes: a 32-byte [`Instance`] the CPU writes and a
//! 16-byte [`AnimState`] the GPU owns.

use ash::vk;
use bytemuck::{Pod, Zeroable};
use std::mem::{offset_of, size_of};

pub use crate::asset::PackedVertex;

/// Unit types and prop types together.
pub const MAX_TYPES: usize = 64;
/// Clips of all unit types together (16 KiB of uniforms, the mobile limit).
pub const MAX_CLIPS: usize = 1024;
/// Materials of all types together.
pub const MAX_MATERIALS: usize = 256;
/// Animation controller states of all unit types together.
pub const MAX_ANIM_STATES: usize = 512;
/// Animation controller transitions of all unit types together.
pub const MAX_ANIM_TRANSITIONS: usize = 1024;
/// `Instance::type_index` of a despawned unit: the passes skip it.
pub const INACTIVE_TYPE: u32 = 0xffff;
/// Instance-list entries hold the source index in their low 30 bits and the
/// LOD in the top 2.
pub const INSTANCE_INDEX_BITS: u32 = 30;

/// Per-frame constants, uniform buffer `Globals` at set 0 binding 0.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct FrameGlobals {
    /// Projection × view, reverse-Z, Vulkan clip space.
    pub view_proj: [[f32; 4]; 4],
    /// World-space camera position; w unused.
    pub camera_position: [f32; 4],
    /// Direction towards the light (normalized); w = ambient intensity.
    pub light_direction: [f32; 4],
    /// Light colour × intensity; w unused.
    pub light_color: [f32; 4],
    /// Fog colour; w = fog density per world unit.
    pub fog_color: [f32; 4],
    /// Framebuffer width, height, 1/width, 1/height.
    pub viewport: [f32; 4],
    /// x: debug view (0 shaded, 1 colour by LOD); y, z, w unused.
    pub debug: [u32; 4],
}
const _: () = assert!(size_of::<FrameGlobals>() == 160);

/// One unit or prop as the CPU writes it (32 bytes, std430 array element).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable, PartialEq)]
pub struct Instance {
    /// World position of the model origin.
    pub position: [f32; 3],
    /// Rotation about +Y in radians.
    pub heading: f32,
    /// Uniform scale.
    pub scale: f32,
    /// Index into the type table; [`INACTIVE_TYPE`] when despawned.
    pub type_index: u32,
    /// RGBA8 unorm tint, multiplied with the base colour.
    pub tint: u32,
    /// Units: animation parameters (see [`AnimParams`]). Props: the cull
    /// pass keeps the LOD of the last frame here, for hysteresis.
    pub params: u32,
}
const _: () = assert!(size_of::<Instance>() == 32);

/// Animation parameters packed into [`Instance::params`]:
/// bits 0..16 speed (f16, units/s), bit 16 dead, bits 20..24 attack command
/// serial, bits 24..28 hit command serial, bits 28..32 attack variant.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AnimParams {
    pub speed: f32,
    pub dead: bool,
    /// Incremented (mod 16) to command one attack.
    pub attack_serial: u8,
    /// Incremented (mod 16) to command one hit reaction.
    pub hit_serial: u8,
    /// Which attack clip the next attack plays (0 or 1).
    pub attack_variant: u8,
}

impl AnimParams {
    /// The packed word.
    pub fn pack(self) -> u32 {
        u32::from(half::f16::from_f32(self.speed).to_bits())
            | (u32::from(self.dead) << 16)
            | (u32::from(self.attack_serial & 15) << 20)
            | (u32::from(self.hit_serial & 15) << 24)
            | (u32::from(self.attack_variant & 15) << 28)
    }

    /// Unpacks a word made by [`AnimParams::pack`].
    pub fn unpack(word: u32) -> AnimParams {
        AnimParams {
            speed: half::f16::from_bits(word as u16).to_f32(),
            dead: word & (1 << 16) != 0,
            attack_serial: ((word >> 20) & 15) as u8,
            hit_serial: ((word >> 24) & 15) as u8,
            attack_variant: ((word >> 28) & 15) as u8,
        }
    }
}

/// A unit's animation state, written by the animate pass (16 bytes).
///
/// - `clips`: bits 0..8 controller state (local to the type), 8..16 current
///   clip, 16..24 previous clip (fading out), 24..28 last attack serial seen,
///   28..32 last hit serial seen.
/// - `time_current`, `time_previous`: seconds into each clip.
/// - `blend`: bits 0..16 crossfade progress (f16, 1 = only the current clip),
///   16..24 fade duration in 1/50 s, 24..26 the unit's LOD last frame (written
///   by the cull pass, for hysteresis), bit 26 set when the previous clip
///   wraps (loops) rather than holding its last frame; 27..32 zero.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable, PartialEq)]
pub struct AnimState {
    pub clips: u32,
    pub time_current: f32,
    pub time_previous: f32,
    pub blend: u32,
}
const _: () = assert!(size_of::<AnimState>() == 16);

/// Per-type constants (uniform buffer `Types`), for units and props alike.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable, PartialEq)]
pub struct TypeInfo {
    /// xyz: model position of unorm16 0; w unused.
    pub quant_min: [f32; 4],
    /// xyz: size of the quantization box; w unused.
    pub quant_extent: [f32; 4],
    /// xyz: model-space centre of the conservative bounding sphere; w radius.
    pub sphere: [f32; 4],
    /// Simplification error of each LOD as a fraction of the model size.
    pub lod_error: [f32; 4],
    /// First instance-list entry of each LOD's region.
    pub instance_base: [u32; 4],
    /// Index of each LOD's indirect draw command.
    pub command: [u32; 4],
    /// x bone count (0 for props), y first clip (global), z clip count,
    /// w LOD count.
    pub skeleton: [u32; 4],
    /// x first controller state (global), y state count, z first any-state
    /// transition (global), w any-state transition count.
    pub controller: [u32; 4],
    /// x first material (global); y instance capacity of each LOD region;
    /// z, w unused.
    pub materials: [u32; 4],
}
const _: () = assert!(size_of::<TypeInfo>() == 144);

/// One clip in the bone texture (uniform buffer `Clips`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable, PartialEq)]
pub struct ClipInfo {
    /// Texel index of frame 0, bone 0, row 0 in the shared bone texture.
    pub first_texel: u32,
    pub frame_count: u32,
    /// Seconds from the first to the last frame.
    pub duration: f32,
    /// 1 when the clip loops.
    pub looping: u32,
}
const _: () = assert!(size_of::<ClipInfo>() == 16);

/// A material: base colour factor and where its texture sits in the atlas.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable, PartialEq)]
pub struct MaterialInfo {
    /// Linear RGBA factor.
    pub base_color: [f32; 4],
    /// Atlas rectangle: xy offset, zw size, in UV units; zw = 0 means untextured.
    pub atlas_rect: [f32; 4],
}
const _: () = assert!(size_of::<MaterialInfo>() == 32);

/// One state of an animation controller (storage buffer `Controllers`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable, PartialEq)]
pub struct AnimStateDef {
    /// Clip index local to the type.
    pub clip: u32,
    /// Playback speed multiplier.
    pub speed: f32,
    /// [`STATE_NO_ANY`] | [`STATE_PLAY_ONCE`].
    pub flags: u32,
    /// Bits 0..16 first transition (global), 16..32 transition count.
    pub transitions: u32,
}
const _: () = assert!(size_of::<AnimStateDef>() == 16);

/// A transition of an animation controller.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable, PartialEq)]
pub struct AnimTransitionDef {
    /// Target state, local to the type.
    pub target: u32,
    /// One of the `CONDITION_*` constants.
    pub condition: u32,
    /// Threshold for the speed conditions; attack variant for `ATTACK`.
    pub threshold: f32,
    /// Crossfade seconds.
    pub fade: f32,
}
const _: () = assert!(size_of::<AnimTransitionDef>() == 16);

/// Per-frame inputs of the cull pass (uniform buffer `CullGlobals`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable, PartialEq)]
pub struct CullGlobals {
    /// Frustum planes (left, right, bottom, top, near, far): xyz inward
    /// normal, w offset; inside when `dot(n, p) + w >= 0`. The far plane lies
    /// at the max draw distance ahead of the camera.
    pub planes: [[f32; 4]; 6],
    /// xyz camera position; w pixels per unit of size at distance 1
    /// (viewport height / (2 tan(fov_y / 2))).
    pub camera: [f32; 4],
    /// x LOD error threshold in pixels (already divided by the LOD bias),
    /// y hysteresis fraction, z max draw distance (for reference: the far
    /// plane, `planes[5]`, carries it), w unused.
    pub lod: [f32; 4],
    /// Unused: the cull pass takes the instance count and the units/props
    /// mode per dispatch as push constants, so units and props share one
    /// `CullGlobals` per frame.
    pub counts: [u32; 4],
}
const _: () = assert!(size_of::<CullGlobals>() == 144);

// The vertex is read as two attributes: position, normal and UV as four
// words, then bones, weight and material as four bytes.
const _: () = assert!(
    offset_of!(PackedVertex, normal) == 8
        && offset_of!(PackedVertex, uv) == 12
        && offset_of!(PackedVertex, bones) == 16
);
const _: () = assert!(
    offset_of!(PackedVertex, weight) == offset_of!(PackedVertex, bones) + 2
        && offset_of!(PackedVertex, pad) == offset_of!(PackedVertex, bones) + 3
);

/// Vertex binding 0: mesh vertices; binding 1: instance-list entries (u32).
pub fn mesh_vertex_bindings() -> [vk::VertexInputBindingDescription; 2] {
    [
        vk::VertexInputBindingDescription {
            binding: 0,
            stride: size_of::<PackedVertex>() as u32,
            input_rate: vk::VertexInputRate::VERTEX,
        },
        vk::VertexInputBindingDescription {
            binding: 1,
            stride: 4,
            input_rate: vk::VertexInputRate::INSTANCE,
        },
    ]
}

/// Attribute locations and formats matching `shaders/mesh_inputs.glsl`. The
/// pipeline helper keeps only the locations a vertex shader declares.
pub fn mesh_vertex_attributes() -> [vk::VertexInputAttributeDescription; 3] {
    let attribute =
        |location, binding, format, offset: usize| vk::VertexInputAttributeDescription {
            location,
            binding,
            format,
            offset: offset as u32,
        };
    [
        // Position, normal and UV as four words, unpacked in the shader.
        attribute(
            0,
            0,
            vk::Format::R32G32B32A32_UINT,
            offset_of!(PackedVertex, position),
        ),
        // Bones, weight and material (the `pad` byte).
        attribute(
            1,
            0,
            vk::Format::R8G8B8A8_UINT,
            offset_of!(PackedVertex, bones),
        ),
        attribute(2, 1, vk::Format::R32_UINT, 0),
    ]
}

/// Member offsets of each shared struct, by GLSL name, for the layout test.
pub fn layouts() -> Vec<(&'static str, Vec<(&'static str, usize)>)> {
    macro_rules! layout {
        ($ty:ident { $($field:ident),* $(,)? }) => {
            (stringify!($ty), vec![$((stringify!($field), offset_of!($ty, $field))),*])
        };
    }
    vec![
        layout!(FrameGlobals {
            view_proj,
            camera_position,
            light_direction,
            light_color,
            fog_color,
            viewport,
            debug
        }),
        layout!(Instance {
            position,
            heading,
            scale,
            type_index,
            tint,
            params
        }),
        layout!(AnimState {
            clips,
            time_current,
            time_previous,
            blend
        }),
        layout!(TypeInfo {
            quant_min,
            quant_extent,
            sphere,
            lod_error,
            instance_base,
            command,
            skeleton,
            controller,
            materials
        }),
        layout!(ClipInfo {
            first_texel,
            frame_count,
            duration,
            looping
        }),
        layout!(MaterialInfo {
            base_color,
            atlas_rect
        }),
        layout!(AnimStateDef {
            clip,
            speed,
            flags,
            transitions
        }),
        layout!(AnimTransitionDef {
            target,
            condition,
            threshold,
            fade
        }),
        layout!(CullGlobals {
            planes,
            camera,
            lod,
            counts
        }),
    ]
}

/// Transition conditions of [`AnimTransitionDef::condition`].
pub mod condition {
    /// The current clip does not loop and has reached its end.
    pub const CLIP_END: u32 = 0;
    /// Speed parameter above the threshold.
    pub const SPEED_ABOVE: u32 = 1;
    /// Speed parameter at or below the threshold.
    pub const SPEED_BELOW: u32 = 2;
    /// The dead flag is set.
    pub const DEAD: u32 = 3;
    /// The dead flag is clear.
    pub const ALIVE: u32 = 4;
    /// A new attack command whose variant equals the threshold (consumed).
    pub const ATTACK: u32 = 5;
    /// A new hit command (consumed).
    pub const HIT: u32 = 6;
}

/// [`AnimStateDef::flags`] bit: any-state transitions do not apply.
pub const STATE_NO_ANY: u32 = 1;
/// [`AnimStateDef::flags`] bit: the state plays its clip once and holds the
/// last frame, even when the clip loops (attack, hit, death).
pub const STATE_PLAY_ONCE: u32 = 2;
