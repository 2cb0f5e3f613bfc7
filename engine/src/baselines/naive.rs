//! The `naive` baseline: animation and skinning on the CPU into a dynamic
//! vertex buffer, one draw per unit, as a game engine's skinned mesh
//! renderer (Unity's SkinnedMeshRenderer) draws a crowd.
//!
//! # Data layout
//! - Source, per unit type, from its asset: the LOD 0 vertices decoded to
//!   model-space position and normal with their bone influences (up to
//!   [`MAX_INFLUENCES`]; the baked meshes keep two), the clips, and the bone
//!   texture's texels as f32.
//! - State: each unit's animation state, advanced on the CPU with the
//!   animate shader's CPU twin (`reference/animate.rs`), from the CPU's unit
//!   state (`world::CpuUnitState`); the GPU's animate pass does not run.
//! - Output: per frame slot, one host-visible vertex buffer of
//!   [`SkinnedVertex`] (16 bytes: world position, octahedral normal), each
//!   live unit's LOD 0 vertices one after the other.
//! - Draw: `naive.vert` reads the skinned vertex as stream 0 and the baked
//!   vertex (UV, material) as stream 1, bound per unit at its offsets; the
//!   tint and first material are push constants. The shared index buffer's
//!   LOD 0 range is drawn with `vkCmdDrawIndexed`, one call per unit.
//!   `mesh.frag` shades, as for every other strategy.
//!
//! # Algorithm (per frame)
//! 1. rayon's workers take the units in parallel. Per unit: advance its
//!    animation state; build its bone palette (each bone's two frames
//!    blended, the two clips of a crossfade blended, then the unit's world
//!    transform applied); skin every vertex with its influences (linear
//!    blend skinning) straight into the mapped vertex buffer.
//! 2. In the draw pass, one draw per live unit. Props are drawn as the
//!    `instanced` baseline draws them (`baselines/instanced.rs`): they are not
//!    what this baseline measures.
//!
//! Every unit is drawn at LOD 0 and nothing is culled, as a skinned mesh
//! renderer without LOD groups draws. The bone blend is linear for every
//! encoding (a dual-quaternion bake is drawn with linear blending), and the
//! normals are the blended palette's linear part applied and normalized:
//! what a CPU skinning loop does, within the image test's tolerance of the
//! vertex shader.

use std::mem::{offset_of, size_of};

use ash::vk;
use bytemuck::{Pod, Zeroable};
use glam::{Affine3A, Mat4, Quat, Vec3, Vec3A, Vec4};
use gpu_allocator::MemoryLocation;
use rayon::prelude::*;

use crate::anim::AnimFields;
use crate::asset::skinning::{decode_bone, decode_position, frame_lookup, texel_index, texels_f32};
use crate::asset::{Animation, Asset, BoneEncoding, PackedVertex};
use crate::barriers::{uses, Access, BufferUse};
use crate::baselines::cpu_cull::refuse_gpu_motion;
use crate::baselines::instanced::InstancedPass;
use crate::config::FRAMES_IN_FLIGHT;
use crate::context::Context;
use crate::frame::Frame;
use crate::gpu_types::{AnimState, UnitInfo, INACTIVE_TYPE};
use crate::memory::{Buffer, Released};
use crate::mesh::{octahedral_decode, octahedral_encode};
use crate::passes::draw::{set_layout, ExtraDraw, MeshDescriptors};
use crate::passes::statistics::DrawStats;
use crate::pipeline::{graphics_pipeline, GraphicsDesc, LayoutDesc, PassTarget, Pipeline};
use crate::reference::animate::{step_unit, AnimTables};
use crate::world::World;
use crate::{shaders, Error};

/// Bone influences a vertex may have: a skinned mesh renderer's usual four.
pub const MAX_INFLUENCES: usize = 4;

/// One CPU-skinned vertex (16 bytes): world position and unit normal.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable, PartialEq)]
pub struct SkinnedVertex {
    pub position: [f32; 3],
    /// Octahedral snorm16 x2 (`mesh::octahedral_encode`).
    pub normal: [i16; 2],
}
const _: () = assert!(size_of::<SkinnedVertex>() == 16);

/// Per-draw constants of `naive.vert`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
struct DrawConstants {
    tint: u32,
    first_material: u32,
}

/// A vertex as the skinning loop reads it.
#[derive(Clone, Copy, Debug)]
struct SourceVertex {
    position: Vec3A,
    normal: Vec3A,
    /// (bone, weight), the first `influence_count` in use.
    influences: [(u32, f32); MAX_INFLUENCES],
    influence_count: usize,
}

/// What skinning a unit type needs: its LOD 0 vertices, clips and texels.
struct SkinSource {
    vertices: Vec<SourceVertex>,
    animation: Animation,
    texels: Vec<Vec4>,
}

impl SkinSource {
    fn new(asset: &Asset) -> SkinSource {
        let vertices = asset.lods.first().map_or(&[][..], |lod| &lod.vertices[..]);
        let vertices = vertices
            .iter()
            .map(|vertex| source_vertex(asset, vertex))
            .collect();
        // Unit types always have an animation (the world checks); without
        // one every bone stays at identity.
        let mut animation = asset.animation.clone().unwrap_or(Animation {
            encoding: BoneEncoding::Mat3x4F32,
            bone_count: 0,
            texture_width: 0,
            texture_height: 0,
            texels: Vec::new(),
            clips: Vec::new(),
        });
        let texels = texels_f32(&animation);
        // The texels live on as f32; the packed copy is not needed.
        animation.texels = Vec::new();
        SkinSource {
            vertices,
            animation,
            texels,
        }
    }

    /// The skin matrices of every bone of local clip `clip` at `time`, into
    /// `pose` (identity where the clip or texels are missing).
    fn pose(&self, clip: u32, time: f32, pose: &mut Vec<Mat4>) {
        let animation = &self.animation;
        pose.clear();
        pose.resize(animation.bone_count as usize, Mat4::IDENTITY);
        let clips = &animation.clips;
        let Some(clip) = clips.get(clip as usize).or(clips.last()) else {
            return;
        };
        let (first, second, blend) = frame_lookup(clip, time);
        let rows = animation.encoding.texels_per_bone() as usize;
        let mut mixed = [Vec4::ZERO; 3];
        for (bone, matrix) in pose.iter_mut().enumerate() {
            for (row, texel) in mixed.iter_mut().enumerate().take(rows) {
                let a = texel_index(animation, clip, first, bone as u32, row as u32);
                let b = texel_index(animation, clip, second, bone as u32, row as u32);
                let (Some(a), Some(b)) = (self.texels.get(a), self.texels.get(b)) else {
                    return;
                };
                *texel = a.lerp(*b, blend);
            }
            *matrix = decode_bone(animation.encoding, &mixed[..rows]);
        }
    }
}

fn source_vertex(asset: &Asset, vertex: &PackedVertex) -> SourceVertex {
    let weight = f32::from(vertex.weight) / 255.0;
    let mut influences = [(0u32, 0f32); MAX_INFLUENCES];
    influences[0] = (u32::from(vertex.bones[0]), weight);
    influences[1] = (u32::from(vertex.bones[1]), 1.0 - weight);
    SourceVertex {
        position: decode_position(&asset.bounds, vertex).into(),
        normal: octahedral_decode(vertex.normal).into(),
        influences,
        influence_count: if vertex.weight == 255 { 1 } else { 2 },
    }
}

/// Scratch space of one worker: two clips' poses and the palette.
#[derive(Default)]
struct Scratch {
    current: Vec<Mat4>,
    previous: Vec<Mat4>,
    palette: Vec<Affine3A>,
}

/// Advances one unit's animation and skins its LOD 0 into `out`.
fn skin_unit(
    source: &SkinSource,
    world_transform: Affine3A,
    state: &AnimState,
    scratch: &mut Scratch,
    out: &mut [SkinnedVertex],
) {
    let fields = AnimFields::decode(*state);
    source.pose(
        fields.current_clip,
        fields.time_current,
        &mut scratch.current,
    );
    let blend = half::f16::from_bits((state.blend & 0xffff) as u16).to_f32();
    if blend < 1.0 {
        source.pose(
            fields.previous_clip,
            fields.time_previous,
            &mut scratch.previous,
        );
        for (current, previous) in scratch.current.iter_mut().zip(&scratch.previous) {
            *current = *previous * (1.0 - blend) + *current * blend;
        }
    }
    scratch.palette.clear();
    scratch.palette.extend(
        scratch
            .current
            .iter()
            .map(|bone| world_transform * Affine3A::from_mat4(*bone)),
    );
    for (vertex, skinned) in source.vertices.iter().zip(out) {
        let mut position = Vec3A::ZERO;
        let mut normal = Vec3A::ZERO;
        for &(bone, weight) in &vertex.influences[..vertex.influence_count] {
            let matrix = scratch
                .palette
                .get(bone as usize)
                .unwrap_or(&world_transform);
            position += matrix.transform_point3a(vertex.position) * weight;
            normal += matrix.matrix3 * vertex.normal * weight;
        }
        *skinned = SkinnedVertex {
            position: position.to_array(),
            normal: octahedral_encode(Vec3::from(normal).normalize_or(Vec3::Y)),
        };
    }
}

/// The unit's model-to-world transform, as `unit.vert` applies it: scale,
/// rotation about +Y by the heading, translation.
fn world_transform(info: &UnitInfo, position: [f32; 3], heading: f32) -> Affine3A {
    Affine3A::from_scale_rotation_translation(
        Vec3::splat(info.scale),
        Quat::from_rotation_y(heading),
        Vec3::from(position),
    )
}

/// The naive baseline: its pipelines, skinning sources and state.
pub struct NaivePass {
    pipeline: Pipeline,
    double_sided_pipeline: Pipeline,
    sources: Vec<SkinSource>,
    /// Per frame slot, the skinned vertices.
    vertices: Vec<Option<Buffer>>,
    anim_states: Vec<AnimState>,
    /// The CPU state's `anim_generation` the states were taken at.
    anim_generation: Option<u64>,
    /// Per unit, its first vertex this frame (`u32::MAX`: not drawn).
    first_vertex: Vec<u32>,
    props: InstancedPass,
}

/// The vertex streams of `naive.vert`: skinned vertices, baked vertices.
fn vertex_input() -> (
    [vk::VertexInputBindingDescription; 2],
    [vk::VertexInputAttributeDescription; 4],
) {
    let binding = |binding, stride: usize| vk::VertexInputBindingDescription {
        binding,
        stride: stride as u32,
        input_rate: vk::VertexInputRate::VERTEX,
    };
    let attribute =
        |location, binding, format, offset: usize| vk::VertexInputAttributeDescription {
            location,
            binding,
            format,
            offset: offset as u32,
        };
    (
        [
            binding(0, size_of::<SkinnedVertex>()),
            binding(1, size_of::<PackedVertex>()),
        ],
        [
            attribute(0, 0, vk::Format::R32G32B32_SFLOAT, 0),
            attribute(
                1,
                0,
                vk::Format::R16G16_SNORM,
                offset_of!(SkinnedVertex, normal),
            ),
            attribute(
                2,
                1,
                vk::Format::R32G32B32A32_UINT,
                offset_of!(PackedVertex, position),
            ),
            attribute(
                3,
                1,
                vk::Format::R8G8B8A8_UINT,
                offset_of!(PackedVertex, bones),
            ),
        ],
    )
}

impl NaivePass {
    /// Creates the pipelines for `target` and the skinning sources of
    /// `unit_types` (the world's unit types, in order).
    pub fn new(
        ctx: &Context,
        target: PassTarget,
        unit_types: &[&Asset],
    ) -> Result<NaivePass, Error> {
        let set0 = set_layout(false);
        let (bindings, attributes) = vertex_input();
        let pipeline = |name: &str, cull_mode, back_faces: u32| {
            graphics_pipeline(
                ctx,
                name,
                &shaders::NAIVE_VERT,
                &shaders::MESH_FRAG,
                &LayoutDesc {
                    sets: &[&set0],
                    push_constant_size: size_of::<DrawConstants>() as u32,
                },
                &GraphicsDesc {
                    vertex_bindings: &bindings,
                    vertex_attributes: &attributes,
                    target,
                    cull_mode,
                    depth_compare: vk::CompareOp::GREATER,
                    depth_write: true,
                    alpha_blend: false,
                },
                // Constant 1 of mesh.frag: back faces are rasterized.
                &[0, back_faces],
            )
        };
        Ok(NaivePass {
            pipeline: pipeline("naive units", vk::CullModeFlags::BACK, 0)?,
            double_sided_pipeline: pipeline(
                "naive double-sided units",
                vk::CullModeFlags::NONE,
                1,
            )?,
            sources: unit_types
                .iter()
                .map(|asset| SkinSource::new(asset))
                .collect(),
            vertices: (0..FRAMES_IN_FLIGHT).map(|_| None).collect(),
            anim_states: Vec::new(),
            anim_generation: None,
            first_vertex: Vec::new(),
            props: InstancedPass::props_only(),
        })
    }

    /// The skinned-vertex buffer of frame slot `slot`.
    pub fn vertices(&self, slot: usize) -> Result<vk::Buffer, Error> {
        self.vertices
            .get(slot)
            .and_then(Option::as_ref)
            .map(|buffer| buffer.raw)
            .ok_or_else(|| Error::Config(format!("naive: no vertices for frame slot {slot}")))
    }

    /// Animates and skins every unit into this frame slot's vertex buffer
    /// and writes the props' draw lists; returns what the frame draws.
    pub fn record(
        &mut self,
        frame: &mut Frame,
        world: &World,
        dt: f32,
    ) -> Result<DrawStats, Error> {
        refuse_gpu_motion(world, "naive")?;
        let cpu = world.units.cpu_state();
        if self.anim_generation != Some(cpu.anim_generation) {
            self.anim_states.clone_from(&cpu.anim_states);
            self.anim_generation = Some(cpu.anim_generation);
        }
        let infos = world.infos();
        let types = crate::world::regions::type_table(&world.types);
        let tables = AnimTables {
            types: &types,
            clips: &world.clips,
            states: &world.controllers.states,
            transitions: &world.controllers.transitions,
        };
        // Lay the live units' vertices out one after the other.
        self.first_vertex.clear();
        let mut total = 0u64;
        for info in infos {
            match self.sources.get(info.type_index as usize) {
                Some(source) if info.type_index != INACTIVE_TYPE => {
                    self.first_vertex
                        .push(u32::try_from(total).unwrap_or(u32::MAX));
                    total += source.vertices.len() as u64;
                }
                _ => self.first_vertex.push(u32::MAX),
            }
        }
        if total >= u64::from(u32::MAX) {
            return Err(Error::Config(format!(
                "naive: {} units need {total} skinned vertices, more than a draw addresses",
                infos.len()
            )));
        }
        let bytes = total * size_of::<SkinnedVertex>() as u64;
        self.ensure_vertices(frame, bytes)?;
        let slot = frame.slot;
        let buffer = self.vertices[slot]
            .as_mut()
            .ok_or_else(|| Error::Config("naive: vertex buffer missing".to_owned()))?;
        let mapped = buffer
            .allocation
            .mapped_slice_mut()
            .ok_or_else(|| Error::Config("naive: vertex buffer not host-visible".to_owned()))?;
        let skinned: &mut [SkinnedVertex] =
            bytemuck::try_cast_slice_mut(&mut mapped[..bytes as usize])
                .map_err(|err| Error::Config(format!("naive: vertex buffer: {err}")))?;
        // One task per live unit: its animation state and its vertices.
        let mut tasks = Vec::with_capacity(infos.len());
        let mut rest = skinned;
        let states = self.anim_states.iter_mut();
        for (index, (info, state)) in infos.iter().zip(states).enumerate() {
            if self.first_vertex[index] == u32::MAX {
                continue;
            }
            let source = &self.sources[info.type_index as usize];
            let (own, tail) = std::mem::take(&mut rest).split_at_mut(source.vertices.len());
            rest = tail;
            tasks.push((index, state, own));
        }
        let sources = &self.sources;
        tasks
            .into_par_iter()
            .for_each_init(Scratch::default, |scratch, (index, state, out)| {
                let info = &infos[index];
                let motion = cpu.motions.get(index).copied().unwrap_or_default();
                *state = step_unit(index as u32, info, &motion, *state, dt, &tables);
                let placement = cpu.placements.get(index).copied().unwrap_or_default();
                let transform = world_transform(info, placement.position, placement.heading);
                let source = &sources[info.type_index as usize];
                skin_unit(source, transform, state, scratch, out);
            });
        self.props.record(frame, world)?;
        let max_lods = world
            .types
            .iter()
            .map(|t| t.lods.len())
            .max()
            .unwrap_or(0)
            .max(1);
        let mut stats = DrawStats {
            frame: frame.number,
            units_per_lod: vec![0; max_lods],
            props_per_lod: vec![0; max_lods],
            ..DrawStats::default()
        };
        stats.units_per_lod[0] = world.live_units();
        stats.props_per_lod[0] = world.prop_count();
        Ok(stats)
    }

    /// The props' draw lists of the last [`NaivePass::record`].
    pub fn prop_lists(&self) -> Result<&Buffer, Error> {
        self.props.lists()
    }

    fn ensure_vertices(&mut self, frame: &mut Frame, bytes: u64) -> Result<(), Error> {
        let slot = frame.slot;
        let current = self
            .vertices
            .get_mut(slot)
            .ok_or_else(|| Error::Config(format!("frame slot {slot} out of range")))?;
        if current.as_ref().is_some_and(|b| b.size >= bytes) {
            return Ok(());
        }
        if let Some(old) = current.take() {
            frame.forget(old.raw);
            frame.deferred.push(frame.number, Released::Buffer(old));
        }
        *current = Some(Buffer::new(
            frame.ctx,
            &format!("naive skinned vertices {slot}"),
            bytes,
            vk::BufferUsageFlags::VERTEX_BUFFER,
            MemoryLocation::CpuToGpu,
        )?);
        Ok(())
    }
}

/// The naive baseline's own draws, inside the production draw pass.
impl ExtraDraw for NaivePass {
    fn draw_uses(&self, frame: &Frame, _world: &World) -> Result<Vec<BufferUse>, Error> {
        Ok(vec![uses(self.vertices(frame.slot)?, Access::VertexInput)])
    }

    /// Draws every live unit, one draw each, from its CPU-skinned vertices.
    fn draw(&self, frame: &mut Frame, world: &World, mesh: &MeshDescriptors) -> Result<(), Error> {
        if world.unit_count() == 0 {
            return Ok(());
        }
        let set = frame.descriptor_set(self.pipeline.set_layouts[0], &mesh.units)?;
        let skinned = self.vertices(frame.slot)?;
        let baked = world.buffers.vertices.raw;
        let device = &frame.ctx.device;
        let cmd = frame.cmd;
        let infos = world.infos();
        for double_sided in [false, true] {
            let pipeline = if double_sided {
                &self.double_sided_pipeline
            } else {
                &self.pipeline
            };
            // SAFETY: recording inside the main render pass; the set matches
            // the layout and every buffer outlives the frame.
            unsafe {
                device.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, pipeline.raw);
                device.cmd_bind_descriptor_sets(
                    cmd,
                    vk::PipelineBindPoint::GRAPHICS,
                    pipeline.layout,
                    0,
                    &[set],
                    &[],
                );
            }
            for (info, &first_vertex) in infos.iter().zip(&self.first_vertex) {
                let Some(world_type) = world.types.get(info.type_index as usize) else {
                    continue;
                };
                let Some(lod) = world_type.lods.first() else {
                    continue;
                };
                if first_vertex == u32::MAX || world_type.double_sided != double_sided {
                    continue;
                }
                let constants = DrawConstants {
                    tint: info.tint,
                    first_material: world_type.info.first_material,
                };
                let offsets = [
                    u64::from(first_vertex) * size_of::<SkinnedVertex>() as u64,
                    lod.vertex_offset.max(0) as u64 * size_of::<PackedVertex>() as u64,
                ];
                // SAFETY: as above; the offsets lie inside both buffers.
                unsafe {
                    device.cmd_push_constants(
                        cmd,
                        pipeline.layout,
                        vk::ShaderStageFlags::VERTEX | vk::ShaderStageFlags::FRAGMENT,
                        0,
                        bytemuck::bytes_of(&constants),
                    );
                    device.cmd_bind_vertex_buffers(cmd, 0, &[skinned, baked], &offsets);
                    device.cmd_draw_indexed(cmd, lod.index_count, 1, lod.first_index, 0, 0);
                }
            }
        }
        Ok(())
    }
}
