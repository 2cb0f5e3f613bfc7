//! Structs shared by the CPU and the GPU: the one source of truth.
//!
//! Each is `#[repr(C)]` + `bytemuck::Pod` with a `const` size assert. The GLSL
//! twin lives in `shaders/types.glsl`; the test `gpu_layout` compares every
//! member offset with what the GLSL compiler chose (via SPIR-V reflection).
//! No `vec3` appears in buffer layouts: std430 aligns it like a `vec4`.

use ash::vk;
use bytemuck::{Pod, Zeroable};
use std::mem::{offset_of, size_of};

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
}
const _: () = assert!(size_of::<FrameGlobals>() == 144);

/// How to turn a mesh's quantized positions back into model space:
/// `position = quant_min + unorm16 * quant_extent`. Storage buffer `Meshes`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable, PartialEq)]
pub struct MeshInfo {
    /// xyz: the minimum corner of the quantization box; w unused.
    pub quant_min: [f32; 4],
    /// xyz: the box's size; w unused.
    pub quant_extent: [f32; 4],
}
const _: () = assert!(size_of::<MeshInfo>() == 32);

/// A 20-byte quantized vertex, read as vertex attributes:
/// position `R16G16B16A16_UNORM`, octahedral normal `R16G16_SNORM`, UV
/// `R16G16_SFLOAT`, two bone indices `R8G8_UINT`, and the first bone's weight
/// `R8_UNORM` (the second bone gets the rest).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable, PartialEq)]
pub struct MeshVertex {
    pub position: [u16; 4],
    pub normal: [i16; 2],
    pub uv: [u16; 2],
    pub bones: [u8; 2],
    pub weight: u8,
    pub pad: u8,
}
const _: () = assert!(size_of::<MeshVertex>() == 20);

/// One drawn instance, read as per-instance vertex attributes (locations 4-7).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable, PartialEq)]
pub struct DrawInstance {
    /// World position of the model origin.
    pub position: [f32; 3],
    /// Rotation about +Y in radians.
    pub heading: f32,
    /// Uniform scale.
    pub scale: f32,
    /// Team or variety tint, RGBA8 unorm, multiplied with the base colour.
    pub tint: [u8; 4],
    /// Index into the `Meshes` buffer.
    pub mesh: u32,
    pub pad: u32,
}
const _: () = assert!(size_of::<DrawInstance>() == 32);

/// Vertex binding 0: mesh vertices; binding 1: instances.
pub fn mesh_vertex_bindings() -> [vk::VertexInputBindingDescription; 2] {
    [
        vk::VertexInputBindingDescription {
            binding: 0,
            stride: size_of::<MeshVertex>() as u32,
            input_rate: vk::VertexInputRate::VERTEX,
        },
        vk::VertexInputBindingDescription {
            binding: 1,
            stride: size_of::<DrawInstance>() as u32,
            input_rate: vk::VertexInputRate::INSTANCE,
        },
    ]
}

/// Attribute locations and formats matching `shaders/mesh_inputs.glsl`. The
/// pipeline helper keeps only the locations a vertex shader declares.
pub fn mesh_vertex_attributes() -> [vk::VertexInputAttributeDescription; 9] {
    let attribute =
        |location, binding, format, offset: usize| vk::VertexInputAttributeDescription {
            location,
            binding,
            format,
            offset: offset as u32,
        };
    [
        attribute(
            0,
            0,
            vk::Format::R16G16B16A16_UNORM,
            offset_of!(MeshVertex, position),
        ),
        attribute(
            1,
            0,
            vk::Format::R16G16_SNORM,
            offset_of!(MeshVertex, normal),
        ),
        attribute(2, 0, vk::Format::R16G16_SFLOAT, offset_of!(MeshVertex, uv)),
        attribute(3, 0, vk::Format::R8G8_UINT, offset_of!(MeshVertex, bones)),
        attribute(4, 0, vk::Format::R8_UNORM, offset_of!(MeshVertex, weight)),
        attribute(
            5,
            1,
            vk::Format::R32G32B32A32_SFLOAT,
            offset_of!(DrawInstance, position),
        ),
        attribute(
            6,
            1,
            vk::Format::R32_SFLOAT,
            offset_of!(DrawInstance, scale),
        ),
        attribute(
            7,
            1,
            vk::Format::R8G8B8A8_UNORM,
            offset_of!(DrawInstance, tint),
        ),
        attribute(8, 1, vk::Format::R32_UINT, offset_of!(DrawInstance, mesh)),
    ]
}

/// Member offsets of each shared struct, by GLSL name, for the layout test.
pub fn layouts() -> Vec<(&'static str, Vec<(&'static str, usize)>)> {
    vec![
        (
            "FrameGlobals",
            vec![
                ("view_proj", offset_of!(FrameGlobals, view_proj)),
                ("camera_position", offset_of!(FrameGlobals, camera_position)),
                ("light_direction", offset_of!(FrameGlobals, light_direction)),
                ("light_color", offset_of!(FrameGlobals, light_color)),
                ("fog_color", offset_of!(FrameGlobals, fog_color)),
                ("viewport", offset_of!(FrameGlobals, viewport)),
            ],
        ),
        (
            "MeshInfo",
            vec![
                ("quant_min", offset_of!(MeshInfo, quant_min)),
                ("quant_extent", offset_of!(MeshInfo, quant_extent)),
            ],
        ),
    ]
}
