//! The world's GPU buffers and their growth.
//!
//! - Static tables, uploaded once (and the type table and command templates
//!   again when a type's instance capacity grows): vertices, indices, types,
//!   clips, materials, controllers, the bone texture and the atlas, and the
//!   impostors' clip table and atlas (albedo and normal images).
//! - Per-unit state, one buffer per record kind (see `gpu_types`): infos,
//!   placements, motions, animation states and routes; props have infos,
//!   placements and routes.
//! - The draw-list buffer: `MAX_DRAW_COMMANDS` draw commands at its head,
//!   then every (type, route) instance-list region. One buffer keeps the cull
//!   pass within the mobile tier's four storage buffers.
//!
//! Per-record buffers grow by doubling. Growth makes a new buffer, asks the
//! upload pass to copy the old contents over on the GPU ([`GrowthCopy`]) and
//! hands the old buffer to the deferred-release queue once copied. The draw
//! lists are rebuilt by every cull, so they are just replaced.

use std::mem::size_of;

use ash::vk;
use gpu_allocator::MemoryLocation;

use crate::context::Context;
use crate::gpu_types::{
    AnimState, AnimStateDef, ClipInfo, DrawCommand, ImpostorClip, MaterialInfo, UnitInfo,
    UnitMotion, UnitPlacement, MAX_CLIPS, MAX_MATERIALS,
};
use crate::memory::{upload_buffer, upload_image, upload_image_levels, Buffer, Image};
use crate::world::regions::{command_template, type_table};
use crate::world::types::PackedTypes;
use crate::Error;

/// Bytes of the draw commands at the head of the draw-list buffer.
pub const DRAW_COMMANDS_BYTES: u64 =
    crate::config::MAX_DRAW_COMMANDS as u64 * size_of::<DrawCommand>() as u64;
/// Records a per-record buffer starts with.
const INITIAL_RECORDS: u32 = 1024;

/// A buffer of records that can grow.
pub struct Growable {
    pub buffer: Buffer,
    /// Capacity in records.
    pub capacity: u32,
    record_bytes: u64,
    /// Bytes before the records (the draw commands of the draw lists).
    head_bytes: u64,
    usage: vk::BufferUsageFlags,
    /// Copy the contents into a grown buffer (false: rebuilt every frame).
    keep: bool,
}

/// A grown buffer's old contents, to be copied into its replacement.
pub struct GrowthCopy {
    pub old: Buffer,
    pub new: vk::Buffer,
    pub bytes: u64,
}

impl Growable {
    fn new(
        ctx: &Context,
        name: &str,
        record_bytes: u64,
        head_bytes: u64,
        capacity: u32,
        usage: vk::BufferUsageFlags,
        keep: bool,
    ) -> Result<Growable, Error> {
        let size = head_bytes + u64::from(capacity) * record_bytes;
        let buffer = Buffer::new(ctx, name, size, usage, MemoryLocation::GpuOnly)?;
        Ok(Growable {
            buffer,
            capacity,
            record_bytes,
            head_bytes,
            usage,
            keep,
        })
    }

    /// Makes room for `needed` records; the old buffer and what to copy from
    /// it when it had to grow.
    fn grow(&mut self, ctx: &Context, needed: u32) -> Result<Option<GrowthCopy>, Error> {
        if needed <= self.capacity {
            return Ok(None);
        }
        let capacity = needed.next_power_of_two();
        let size = self.head_bytes + u64::from(capacity) * self.record_bytes;
        let max = u64::from(ctx.limits.max_storage_buffer_range);
        if size > max {
            return Err(Error::Config(format!(
                "'{}' would need {size} bytes, more than this device and tier address in one \
                 storage buffer ({max})",
                self.buffer.name
            )));
        }
        let name = self.buffer.name.clone();
        let buffer = Buffer::new(ctx, &name, size, self.usage, MemoryLocation::GpuOnly)?;
        log::debug!("world: '{name}' grows to {capacity} records");
        let old_bytes = self.head_bytes + u64::from(self.capacity) * self.record_bytes;
        let old = std::mem::replace(&mut self.buffer, buffer);
        self.capacity = capacity;
        Ok(Some(GrowthCopy {
            new: self.buffer.raw,
            bytes: if self.keep { old_bytes } else { 0 },
            old,
        }))
    }
}

/// An image's levels: the first, then its mips.
fn mip_chain<'a>(first: &'a [u8], mips: &'a [Vec<u8>]) -> Vec<&'a [u8]> {
    std::iter::once(first)
        .chain(mips.iter().map(Vec::as_slice))
        .collect()
}

/// Every GPU resource of the world, in creation order.
pub struct WorldBuffers {
    pub vertices: Buffer,
    pub indices: Buffer,
    pub type_table: Buffer,
    pub clip_table: Buffer,
    /// `vec4[MAX_CLIPS]`: per clip, the model-space sphere that holds it
    /// (`PackedTypes::clip_spheres`).
    pub clip_spheres: Buffer,
    pub material_table: Buffer,
    /// Controller states (`MAX_ANIM_STATES`), then transitions.
    pub controllers: Buffer,
    pub bone_texture: Image,
    pub atlas: Image,
    /// `ImpostorClip[MAX_CLIPS]`, indexed as the clip table.
    pub impostor_clips: Buffer,
    /// `ImpostorBox[MAX_TYPES]`.
    pub impostor_boxes: Buffer,
    /// The impostor atlas: albedo (sRGB) and normal cells (1 × 1 when no
    /// type has an impostor).
    pub impostor_albedo: Image,
    pub impostor_normal: Image,
    /// The ground texture with its mips (`ground.rs`; one white texel when
    /// the scene has none).
    pub ground_texture: Image,
    /// The draw commands with zero instances, copied over the head of the
    /// draw lists before every cull.
    pub command_template: Buffer,
    /// The bounds view's commands: each real command's instances, drawing the
    /// sphere mesh.
    pub bounds_commands: Buffer,
    pub draw_lists: Growable,
    pub unit_infos: Growable,
    pub unit_placements: Growable,
    pub unit_motions: Growable,
    pub anim_states: Growable,
    pub unit_routes: Growable,
    /// One RGBA8 word per unit: the colour its simulation marks it with
    /// (0: none), drawn by `DEBUG_VIEW_MARKS`.
    pub unit_marks: Growable,
    pub prop_infos: Growable,
    pub prop_placements: Growable,
    pub prop_routes: Growable,
}

/// The record counts the per-record buffers must hold.
#[derive(Clone, Copy, Debug)]
pub struct Needed {
    pub units: u32,
    pub props: u32,
    pub list_entries: u32,
}

impl WorldBuffers {
    /// Uploads the packed tables and the ground texture's levels
    /// (`ground::ground_levels`, square) and creates the per-record buffers.
    pub fn new(
        ctx: &Context,
        packed: &PackedTypes,
        list_entries: u32,
        ground_levels: &[Vec<u8>],
    ) -> Result<WorldBuffers, Error> {
        let storage = vk::BufferUsageFlags::STORAGE_BUFFER;
        let transfer = vk::BufferUsageFlags::TRANSFER_DST | vk::BufferUsageFlags::TRANSFER_SRC;
        let uniform = vk::BufferUsageFlags::UNIFORM_BUFFER | vk::BufferUsageFlags::TRANSFER_DST;
        let first_instance = ctx.limits.draw_indirect_first_instance;
        let quad = packed.impostor_quad;
        let template = command_template(&packed.types, first_instance, None, quad);
        let bounds_template = command_template(
            &packed.types,
            first_instance,
            Some(packed.bounds_mesh),
            quad,
        );
        let mut clips = packed.clips.clone();
        clips.resize(MAX_CLIPS, ClipInfo::default());
        let mut clip_spheres = packed.clip_spheres.clone();
        clip_spheres.resize(MAX_CLIPS, [0.0; 4]);
        let mut materials = packed.materials.clone();
        materials.resize(MAX_MATERIALS, MaterialInfo::default());
        let mut controllers: Vec<u8> = Vec::new();
        let mut states = packed.controllers.states.clone();
        states.resize(
            crate::config::MAX_ANIM_STATES as usize,
            AnimStateDef::default(),
        );
        controllers.extend_from_slice(bytemuck::cast_slice(&states));
        controllers.extend_from_slice(bytemuck::cast_slice(&packed.controllers.transitions));
        if packed.controllers.transitions.is_empty() {
            controllers.extend_from_slice(&[0; 16]);
        }
        let bone = &packed.bone_texture;
        let (bone_format, bone_data, bone_extent) = if bone.height == 0 {
            (
                vk::Format::R32G32B32A32_SFLOAT,
                vec![0u8; 16],
                vk::Extent2D {
                    width: 1,
                    height: 1,
                },
            )
        } else {
            let format = match bone.encoding {
                crate::asset::BoneEncoding::QuatF16 => vk::Format::R16G16B16A16_SFLOAT,
                _ => vk::Format::R32G32B32A32_SFLOAT,
            };
            let extent = vk::Extent2D {
                width: bone.width,
                height: bone.height,
            };
            (format, bone.texels.clone(), extent)
        };
        let atlas_extent = vk::Extent2D {
            width: packed.atlas.width,
            height: packed.atlas.height,
        };
        let ground_side = ground_levels
            .first()
            .map_or(1, |level| level.len() / 4)
            .isqrt() as u32;
        let ground_extent = vk::Extent2D {
            width: ground_side.max(1),
            height: ground_side.max(1),
        };
        let mut impostor_clips = packed.impostors.clips.clone();
        impostor_clips.resize(MAX_CLIPS, ImpostorClip::default());
        let impostors = &packed.impostors;
        const EMPTY_TEXEL: [u8; 4] = [0; 4];
        let (impostor_extent, impostor_albedo, impostor_normal) = if impostors.height == 0 {
            let one = vk::Extent2D {
                width: 1,
                height: 1,
            };
            (one, vec![&EMPTY_TEXEL[..]], vec![&EMPTY_TEXEL[..]])
        } else {
            let extent = vk::Extent2D {
                width: crate::config::IMPOSTOR_ATLAS_WIDTH,
                height: impostors.height,
            };
            (
                extent,
                mip_chain(&impostors.albedo, &impostors.albedo_mips),
                mip_chain(&impostors.normal, &impostors.normal_mips),
            )
        };
        let record = |bytes: usize| bytes as u64;
        let per_record = storage | transfer;
        let draw_lists = storage
            | vk::BufferUsageFlags::INDIRECT_BUFFER
            | vk::BufferUsageFlags::VERTEX_BUFFER
            | transfer;
        Ok(WorldBuffers {
            vertices: upload_buffer(
                ctx,
                "world vertices",
                vk::BufferUsageFlags::VERTEX_BUFFER | storage,
                bytemuck::cast_slice(&packed.vertices),
            )?,
            indices: upload_buffer(
                ctx,
                "world indices",
                vk::BufferUsageFlags::INDEX_BUFFER | storage,
                bytemuck::cast_slice(&packed.indices),
            )?,
            type_table: upload_buffer(
                ctx,
                "world types",
                uniform,
                bytemuck::cast_slice(&type_table(&packed.types)),
            )?,
            clip_table: upload_buffer(ctx, "world clips", uniform, bytemuck::cast_slice(&clips))?,
            clip_spheres: upload_buffer(
                ctx,
                "world clip spheres",
                uniform,
                bytemuck::cast_slice(&clip_spheres),
            )?,
            material_table: upload_buffer(
                ctx,
                "world materials",
                uniform,
                bytemuck::cast_slice(&materials),
            )?,
            controllers: upload_buffer(ctx, "animation controllers", storage, &controllers)?,
            bone_texture: upload_image(ctx, "bone texture", bone_extent, bone_format, &bone_data)?,
            atlas: upload_image(
                ctx,
                "base colour atlas",
                atlas_extent,
                vk::Format::R8G8B8A8_SRGB,
                &packed.atlas.rgba8,
            )?,
            impostor_clips: upload_buffer(
                ctx,
                "impostor clips",
                uniform,
                bytemuck::cast_slice(&impostor_clips),
            )?,
            impostor_boxes: upload_buffer(
                ctx,
                "impostor boxes",
                uniform,
                bytemuck::cast_slice(&packed.impostors.boxes),
            )?,
            impostor_albedo: upload_image_levels(
                ctx,
                "impostor albedo atlas",
                impostor_extent,
                vk::Format::R8G8B8A8_SRGB,
                &impostor_albedo,
            )?,
            impostor_normal: upload_image_levels(
                ctx,
                "impostor normal atlas",
                impostor_extent,
                vk::Format::R8G8B8A8_UNORM,
                &impostor_normal,
            )?,
            ground_texture: upload_image_levels(
                ctx,
                "ground texture",
                ground_extent,
                vk::Format::R8G8B8A8_SRGB,
                &ground_levels.iter().map(Vec::as_slice).collect::<Vec<_>>(),
            )?,
            command_template: upload_buffer(
                ctx,
                "draw command template",
                transfer,
                bytemuck::cast_slice(&template),
            )?,
            bounds_commands: upload_buffer(
                ctx,
                "bounds draw commands",
                vk::BufferUsageFlags::INDIRECT_BUFFER | transfer,
                bytemuck::cast_slice(&bounds_template),
            )?,
            draw_lists: Growable::new(
                ctx,
                "draw lists",
                4,
                DRAW_COMMANDS_BYTES,
                list_entries,
                draw_lists,
                false,
            )?,
            unit_infos: Growable::new(
                ctx,
                "unit infos",
                record(size_of::<UnitInfo>()),
                0,
                INITIAL_RECORDS,
                per_record,
                true,
            )?,
            unit_placements: Growable::new(
                ctx,
                "unit placements",
                record(size_of::<UnitPlacement>()),
                0,
                INITIAL_RECORDS,
                per_record,
                true,
            )?,
            unit_motions: Growable::new(
                ctx,
                "unit motions",
                record(size_of::<UnitMotion>()),
                0,
                INITIAL_RECORDS,
                per_record,
                true,
            )?,
            anim_states: Growable::new(
                ctx,
                "unit animation states",
                record(size_of::<AnimState>()),
                0,
                INITIAL_RECORDS,
                per_record,
                true,
            )?,
            unit_routes: Growable::new(
                ctx,
                "unit routes",
                4,
                0,
                INITIAL_RECORDS,
                per_record,
                true,
            )?,
            unit_marks: Growable::new(ctx, "unit marks", 4, 0, INITIAL_RECORDS, per_record, true)?,
            prop_infos: Growable::new(
                ctx,
                "prop infos",
                record(size_of::<UnitInfo>()),
                0,
                INITIAL_RECORDS,
                per_record,
                true,
            )?,
            prop_placements: Growable::new(
                ctx,
                "prop placements",
                record(size_of::<UnitPlacement>()),
                0,
                INITIAL_RECORDS,
                per_record,
                true,
            )?,
            prop_routes: Growable::new(
                ctx,
                "prop routes",
                4,
                0,
                INITIAL_RECORDS,
                per_record,
                true,
            )?,
        })
    }

    /// Grows every buffer whose capacity `needed` exceeds; returns what to
    /// copy from the old buffers (whose release is then the caller's).
    pub fn grow(&mut self, ctx: &Context, needed: Needed) -> Result<Vec<GrowthCopy>, Error> {
        let mut copies = Vec::new();
        for (growable, count) in [
            (&mut self.unit_infos, needed.units),
            (&mut self.unit_placements, needed.units),
            (&mut self.unit_motions, needed.units),
            (&mut self.anim_states, needed.units),
            (&mut self.unit_routes, needed.units),
            (&mut self.unit_marks, needed.units),
            (&mut self.prop_infos, needed.props),
            (&mut self.prop_placements, needed.props),
            (&mut self.prop_routes, needed.props),
            (&mut self.draw_lists, needed.list_entries),
        ] {
            copies.extend(growable.grow(ctx, count)?);
        }
        Ok(copies)
    }
}
