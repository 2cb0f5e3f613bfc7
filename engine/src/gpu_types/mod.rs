//! Structs shared by the CPU and the GPU: the one source of truth.
//!
//! Each is `#[repr(C)]` + `bytemuck::Pod` with a `const` size assert. The GLSL
//! twin lives in `shaders/types.glsl`; the test `layout` compares every member
//! offset with what the GLSL compiler chose (via SPIR-V reflection). A `vec3`
//! appears only when a scalar follows it and fills its padding (std140 and
//! std430 align a `vec3` like a `vec4`); the layout test proves each offset.
//! Constants shared with GLSL live in [`crate::config`].
//!
//! # Unit state, split by owner (16 bytes each, one buffer each)
//! - [`UnitInfo`]: what the CPU writes once at spawn (type, team, tint, scale).
//! - [`UnitPlacement`]: where the unit stands. GPU-owned: the simulation
//!   slot moves it (the simulate pass, or an application's simulation such
//!   as the battle); the CPU changes it only through a teleport command.
//! - [`UnitMotion`]: velocity and the animation inputs. GPU-owned: the
//!   simulation slot writes it and the animate pass reads it; CPU orders
//!   write single fields through commands.
//! - [`AnimState`]: the animation state machine, owned by the animate pass.
//! - The route of last frame (a `u32`), owned by the cull pass, for hysteresis.
//!
//! Each pass reads only the buffers it needs: cull reads 36 bytes per unit
//! (info, placement, route), animate 48, the unit vertex shader 48.

use ash::vk;
use bytemuck::{Pod, Zeroable};
use std::mem::{offset_of, size_of};

pub use crate::asset::PackedVertex;
pub use layouts::{layouts, Layouts};

mod layouts;
use crate::config::{
    ANIM_COMMAND_ATTACK_SHIFT, ANIM_COMMAND_DEAD, ANIM_COMMAND_HIT_SHIFT,
    ANIM_COMMAND_VARIANT_SHIFT, ANIM_COMMAND_VICTORY, ANIM_SERIAL_MASK, MAX_ROUTES,
};
const MAX_SHADOW_CASCADES: usize = crate::config::MAX_SHADOW_CASCADES as usize;
pub use crate::config::{
    ENTRY_INDEX_BITS, INACTIVE_TYPE, MAX_ANIM_STATES, MAX_ANIM_TRANSITIONS, STATE_LOCOMOTION,
    STATE_NO_ANY, STATE_PLAY_ONCE,
};

/// Unit types and prop types together.
pub const MAX_TYPES: usize = crate::config::MAX_TYPES as usize;
/// Clips of all unit types together.
pub const MAX_CLIPS: usize = crate::config::MAX_CLIPS as usize;
/// Materials of all types together.
pub const MAX_MATERIALS: usize = crate::config::MAX_MATERIALS as usize;

/// Per-frame constants, uniform buffer `Globals` at set 0 binding 0.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct FrameGlobals {
    /// Projection × view, reverse-Z, Vulkan clip space.
    pub view_proj: [[f32; 4]; 4],
    /// World-space camera position.
    pub camera_position: [f32; 3],
    /// `DEBUG_VIEW_*` of [`crate::config`].
    pub debug_view: u32,
    /// Direction towards the light (normalized).
    pub light_direction: [f32; 3],
    /// Ambient light intensity.
    pub ambient: f32,
    /// Light colour × intensity.
    pub light_color: [f32; 3],
    /// Fog density per world unit.
    pub fog_density: f32,
    /// Fog colour, linear.
    pub fog_color: [f32; 3],
    /// Seconds since the renderer started (for effects that move).
    pub time: f32,
    /// Framebuffer width and height in pixels.
    pub viewport_size: [f32; 2],
    /// 1 / width, 1 / height.
    pub inverse_viewport_size: [f32; 2],
    /// Pixels per unit of size at distance 1 (as `CullGlobals`).
    pub pixels_per_unit: f32,
    /// The cull's `impostor_threshold_px` (0: no impostors), so that the
    /// mesh and the impostor dither the same band (`impostor_fade` in
    /// common.glsl).
    pub impostor_threshold_px: f32,
    /// The cull's `impostor_band`.
    pub impostor_band: f32,
    /// Sun shadow cascades the receivers look up, each as it was last
    /// drawn, this frame or the one before (0: no shadows;
    /// `passes/shadow/`).
    pub shadow_cascade_count: u32,
    /// Per cascade: how far a receiver is moved along its normal before the
    /// lookup (metres, about a texel), and the depth added to it (reverse-Z
    /// units); z and w unused.
    pub shadow_cascade_bias: [[f32; 4]; MAX_SHADOW_CASCADES],
    /// Per cascade: world to the shadow map's clip space (orthographic,
    /// reverse-Z: nearer the sun is larger).
    pub shadow_view_proj: [[[f32; 4]; 4]; MAX_SHADOW_CASCADES],
    /// 1 / the shadow map's size in texels.
    pub shadow_inverse_size: f32,
    /// Where shadows end, in metres from the camera (they fade out over its
    /// last tenth).
    pub shadow_distance: f32,
    /// Ground texture tiles per metre (`Scene::ground_texture`; 0: none).
    pub ground_texture_scale: f32,
    pub pad: f32,
}
const _: () = assert!(size_of::<FrameGlobals>() == 416);

/// What the CPU writes once when a unit spawns or a prop is placed (16 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable, PartialEq)]
pub struct UnitInfo {
    /// Index into the type table; [`INACTIVE_TYPE`] when despawned.
    pub type_index: u32,
    /// Army the unit fights for (0 for props).
    pub team: u32,
    /// RGBA8 unorm tint, multiplied with the base colour.
    pub tint: u32,
    /// Uniform scale.
    pub scale: f32,
}
const _: () = assert!(size_of::<UnitInfo>() == 16);

/// Where a unit stands (16 bytes); GPU-owned for units, CPU-written for props.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable, PartialEq)]
pub struct UnitPlacement {
    /// World position of the model origin.
    pub position: [f32; 3],
    /// Rotation about +Y in radians.
    pub heading: f32,
}
const _: () = assert!(size_of::<UnitPlacement>() == 16);

/// How a unit moves and what its animation is told (16 bytes, GPU-owned).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable, PartialEq)]
pub struct UnitMotion {
    /// World-space velocity on the ground plane (x, z), units per second.
    pub velocity: [f32; 2],
    /// Locomotion speed the animation follows, units per second.
    pub speed: f32,
    /// Dead flag and command serials, see [`AnimParams`] and the
    /// `ANIM_COMMAND_*` constants.
    pub anim_commands: u32,
}
const _: () = assert!(size_of::<UnitMotion>() == 16);

/// The animation inputs of a unit: its speed and the commands in
/// [`UnitMotion::anim_commands`], unpacked.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AnimParams {
    /// Ground speed, world units per second ([`UnitMotion::speed`]).
    pub speed: f32,
    pub dead: bool,
    /// Celebrating: idle and moving units play the victory clip until it
    /// clears.
    pub victory: bool,
    /// Incremented (mod 16) to command one attack.
    pub attack_serial: u8,
    /// Incremented (mod 16) to command one hit reaction.
    pub hit_serial: u8,
    /// Which attack clip the next attack plays.
    pub attack_variant: u8,
}

impl AnimParams {
    /// The `anim_commands` word.
    pub fn commands(self) -> u32 {
        let field = |value: u8, shift: u32| (u32::from(value) & ANIM_SERIAL_MASK) << shift;
        (if self.dead { ANIM_COMMAND_DEAD } else { 0 })
            | (if self.victory {
                ANIM_COMMAND_VICTORY
            } else {
                0
            })
            | field(self.attack_serial, ANIM_COMMAND_ATTACK_SHIFT)
            | field(self.hit_serial, ANIM_COMMAND_HIT_SHIFT)
            | field(self.attack_variant, ANIM_COMMAND_VARIANT_SHIFT)
    }

    /// Reads the parameters back from a motion record.
    pub fn of(motion: &UnitMotion) -> AnimParams {
        let word = motion.anim_commands;
        let field = |shift: u32| ((word >> shift) & ANIM_SERIAL_MASK) as u8;
        AnimParams {
            speed: motion.speed,
            dead: word & ANIM_COMMAND_DEAD != 0,
            victory: word & ANIM_COMMAND_VICTORY != 0,
            attack_serial: field(ANIM_COMMAND_ATTACK_SHIFT),
            hit_serial: field(ANIM_COMMAND_HIT_SHIFT),
            attack_variant: field(ANIM_COMMAND_VARIANT_SHIFT),
        }
    }
}

/// A unit's animation state, written by the animate pass (16 bytes). Its two
/// words are bitfields (the `ANIM_*` shifts of [`crate::config`]): 16 bytes
/// keep the animate pass and the vertex shader at one load per unit.
///
/// - `clips`: controller state (local to the type), current clip, previous
///   clip (fading out), last attack and hit serials seen.
/// - `time_current`, `time_previous`: seconds into each clip.
/// - `blend`: crossfade progress (f16, 1 = only the current clip), fade
///   duration in steps, and whether the previous clip wraps.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable, PartialEq)]
pub struct AnimState {
    pub clips: u32,
    pub time_current: f32,
    pub time_previous: f32,
    pub blend: u32,
}
const _: () = assert!(size_of::<AnimState>() == 16);

/// One route of a type: a mesh LOD, or the far field (16 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable, PartialEq)]
pub struct RouteInfo {
    /// Simplification error of the LOD as a fraction of the model size
    /// (0 for LOD 0; unused for the far field).
    pub error: f32,
    /// Index of its draw command in the draw-list buffer.
    pub command: u32,
    /// First entry of its instance-list region.
    pub list_base: u32,
    /// Entries its region holds; 0 disables the route.
    pub capacity: u32,
}
const _: () = assert!(size_of::<RouteInfo>() == 16);

/// Per-type constants (uniform buffer `Types`), for units and props alike.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable, PartialEq)]
pub struct TypeInfo {
    /// Model position of unorm16 0.
    pub quant_min: [f32; 3],
    /// Bones of the skeleton (0 for props).
    pub bone_count: u32,
    /// Size of the quantization box.
    pub quant_extent: [f32; 3],
    /// Mesh LODs: routes `0..lod_count`.
    pub lod_count: u32,
    /// Model-space centre of the conservative bounding sphere.
    pub sphere_center: [f32; 3],
    pub sphere_radius: f32,
    /// First clip (global) and clip count.
    pub first_clip: u32,
    pub clip_count: u32,
    /// First material (global).
    pub first_material: u32,
    /// Instances alive of this type the regions were sized for.
    pub capacity: u32,
    /// First controller state (global) and state count.
    pub first_controller_state: u32,
    pub controller_state_count: u32,
    /// First any-state transition (global) and their count.
    pub first_any_transition: u32,
    pub any_transition_count: u32,
    /// Routes `0..lod_count` are the mesh LODs; `ROUTE_FAR_FIELD` the far
    /// field; `ROUTE_IMPOSTOR` the impostor.
    pub routes: [RouteInfo; MAX_ROUTES as usize],
}
const _: () = assert!(size_of::<TypeInfo>() == 80 + 16 * MAX_ROUTES as usize);
const _: () = assert!(size_of::<TypeInfo>() * MAX_TYPES <= 16 * 1024);

/// `VkDrawIndexedIndirectCommand`, as the cull pass writes it (20 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable, PartialEq, Eq)]
pub struct DrawCommand {
    pub index_count: u32,
    pub instance_count: u32,
    pub first_index: u32,
    pub vertex_offset: i32,
    pub first_instance: u32,
}
const _: () = assert!(size_of::<DrawCommand>() == size_of::<vk::DrawIndexedIndirectCommand>());

/// The mesh the far field rasterizes for one (unit type, LOD): that LOD, or
/// the finest coarser one within the far field's vertex limit (uniform
/// buffer `FarMeshes`, `[type * MAX_LODS + lod]`, written when the pass is
/// created; see `passes/far_field/meshes.rs`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable, PartialEq, Eq)]
pub struct FarFieldMesh {
    /// First index of the LOD in the shared index buffer.
    pub first_index: u32,
    /// Indices (three per triangle); 0 for types without a far field.
    pub index_count: u32,
    /// The LOD's first vertex in the shared vertex buffer; indices count
    /// from it.
    pub first_vertex: u32,
    /// Vertices of the LOD (`FAR_MESH_VERTEX_COUNT_MASK`) and flags
    /// (`FAR_MESH_BOX_PROXY`): a flag here keeps the table at 16
    /// bytes an entry, the uniform array's stride.
    pub vertex_count_flags: u32,
}
const _: () = assert!(size_of::<FarFieldMesh>() == 16);

/// One clip's impostor frames (uniform buffer `ImpostorClips`, indexed as
/// `Clips`; see `passes/impostor.rs`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable, PartialEq)]
pub struct ImpostorClip {
    /// Atlas cell of frame 0, view 0; a frame's views follow one another.
    pub first_cell: u32,
    /// Frames of the clip; 0 for a type without an impostor.
    pub frame_count: u32,
    /// The clip's duration in seconds (its frames may be another clip's,
    /// standing in for it).
    pub duration: f32,
    /// 1 when the frames loop (stored at `i * D / N`).
    pub looping: u32,
}
const _: () = assert!(size_of::<ImpostorClip>() == 16);
const _: () = assert!(size_of::<ImpostorClip>() * MAX_CLIPS <= 16 * 1024);

/// The box a unit type's impostor cells frame (uniform buffer
/// `ImpostorBoxes`, `[type]`): each view's cell is the box's orthographic
/// projection along it (see `passes/impostor.rs`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable, PartialEq)]
pub struct ImpostorBox {
    /// Model-space centre.
    pub center: [f32; 3],
    /// The type's first atlas cell: no clip of the type samples before it.
    pub first_cell: u32,
    /// Half extents, model units.
    pub half_extent: [f32; 3],
    /// Cells of the type: no clip samples at or past `first_cell + cell_count`.
    pub cell_count: u32,
}
const _: () = assert!(size_of::<ImpostorBox>() == 32);
const _: () = assert!(size_of::<ImpostorBox>() * MAX_TYPES <= 16 * 1024);

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

/// A material (uniform buffer `Materials`): base colour and emission, each
/// a factor times an optional rectangle of the shared atlas.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable, PartialEq)]
pub struct MaterialInfo {
    /// Linear RGBA factor.
    pub base_color: [f32; 4],
    /// Atlas rectangle of the base colour texture: xy offset, zw size, in UV
    /// units; zw = 0 means untextured.
    pub atlas_rect: [f32; 4],
    /// Linear RGB emitted light (0 for none).
    pub emissive: [f32; 3],
    /// `MATERIAL_*` bits of [`crate::config`]: double-sided, ground
    /// texture.
    pub flags: u32,
    /// Atlas rectangle of the emissive texture, as `atlas_rect`.
    pub emissive_rect: [f32; 4],
}
const _: () = assert!(size_of::<MaterialInfo>() == 64);
const _: () = assert!(size_of::<MaterialInfo>() * MAX_MATERIALS <= 16 * 1024);

/// One state of an animation controller (storage buffer `Controllers`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable, PartialEq)]
pub struct AnimStateDef {
    /// Clip index local to the type.
    pub clip: u32,
    /// Playback speed multiplier (states without [`STATE_LOCOMOTION`]).
    pub speed: f32,
    /// [`STATE_NO_ANY`] | [`STATE_PLAY_ONCE`] | [`STATE_LOCOMOTION`].
    pub flags: u32,
    /// Bits 0..16 first transition (global), 16..32 transition count.
    pub transitions: u32,
    /// Locomotion states: the clip blended with `clip` by speed (the run
    /// to a walk); equal to `clip` when there is none.
    pub blend_clip: u32,
    /// Locomotion states: ground speed of `clip` at 1x, model units per
    /// second (`Clip::ground_speed`).
    pub clip_ground_speed: f32,
    /// Locomotion states: ground speed of `blend_clip` at 1x.
    pub blend_clip_ground_speed: f32,
    /// Locomotion states: `blend_clip`'s normalized time minus `clip`'s at
    /// the same foot position (`Clip::foot_phase` difference, in [0, 1)).
    pub blend_phase_offset: f32,
    /// Locomotion states: the speed (model units per second, times the
    /// unit's scale) up to which `clip` plays alone, and from which
    /// `blend_clip` plays alone; the weight is linear between.
    pub blend_start_speed: f32,
    pub blend_end_speed: f32,
}
const _: () = assert!(size_of::<AnimStateDef>() == 40);

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
    /// Frustum planes (left, right, bottom, top, near, far) as plane
    /// equations: xyz inward normal, w offset; inside when `dot(n, p) + w >= 0`.
    /// The far plane lies at the max draw distance ahead of the camera.
    pub planes: [[f32; 4]; 6],
    pub camera_position: [f32; 3],
    /// Pixels per unit of size at distance 1: viewport height / (2 tan(fov_y / 2)).
    pub pixels_per_unit: f32,
    /// LOD error threshold in pixels, already divided by the LOD bias.
    pub lod_threshold_px: f32,
    /// Fraction by which a coarser route must beat its threshold to be taken.
    pub lod_hysteresis: f32,
    /// Nothing farther is drawn (the far plane carries it too).
    pub max_draw_distance: f32,
    /// Units whose bounding sphere projects smaller than this many pixels go
    /// to the far field, where their type has one; 0 disables the far field.
    pub far_field_px: f32,
    /// A unit type's impostor (route `ROUTE_IMPOSTOR`) is taken where its
    /// projected error is at most this many pixels, as a mesh LOD's is
    /// against `lod_threshold_px`; 0 disables impostors.
    pub impostor_threshold_px: f32,
    /// The crossfade band: where the impostor's projected error is within
    /// `impostor_threshold_px * (1 + impostor_band)` a mesh-drawn unit is
    /// also drawn as an impostor, the two dithered.
    pub impostor_band: f32,
    /// 1 for an orthographic view (a shadow cascade): the projected size is
    /// `2r * pixels_per_unit` whatever the distance.
    pub orthographic: u32,
    /// Instances drawn as meshes whose bounding sphere projects within this
    /// many pixels are not drawn (a shadow cascade's casters too small to
    /// cast a visible shadow); 0 draws every one.
    pub min_size_px: f32,
    /// The first three rows of the view matrix (world to view space:
    /// right-handed, the camera looking down -Z), for the occlusion test.
    pub view_rows: [[f32; 4]; 3],
    /// The projection's x and y scales (`P[0][0]`, `P[1][1]`; Vulkan's y
    /// points down, so the second is negative).
    pub projection_scale: [f32; 2],
    /// The camera's near distance: a point `d` ahead has depth `near / d`.
    pub near: f32,
    pub pad: u32,
    /// The depth image's size in pixels, and the depth pyramid's base
    /// level's (`passes/depth_pyramid.rs`).
    pub viewport: [u32; 2],
    pub pyramid_size: [u32; 2],
}
const _: () = assert!(size_of::<CullGlobals>() == 224);

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

/// A shared struct's name and its members' offsets, as the layout test
/// compares them with SPIR-V reflection: `layout!(Type { a, b })`. Exported
/// for the crates that share structs of their own (`horde-battle`).
#[macro_export]
macro_rules! layout {
    ($ty:ident { $($field:ident),* $(,)? }) => {
        (
            stringify!($ty),
            vec![$((stringify!($field), ::std::mem::offset_of!($ty, $field))),*],
        )
    };
}

/// Transition conditions of [`AnimTransitionDef::condition`].
pub mod condition {
    pub use crate::config::{
        CONDITION_ALIVE as ALIVE, CONDITION_ATTACK as ATTACK, CONDITION_CLIP_END as CLIP_END,
        CONDITION_DEAD as DEAD, CONDITION_HIT as HIT, CONDITION_NO_VICTORY as NO_VICTORY,
        CONDITION_SPEED_ABOVE as SPEED_ABOVE, CONDITION_SPEED_BELOW as SPEED_BELOW,
        CONDITION_VICTORY as VICTORY,
    };
}
