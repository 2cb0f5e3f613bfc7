//! The world: unit and prop types loaded from `.horde` assets, the units and
//! props placed in it, and every GPU buffer the passes read.
//!
//! # Data layout
//! - **Types** (units first, then props) share one vertex buffer of
//!   [`PackedVertex`] and one u32 index buffer, every LOD of every type back to
//!   back. [`TypeInfo`] (uniform, `MAX_TYPES`) holds each type's quantization
//!   box, bounding sphere, LOD errors, clip and controller ranges, and where
//!   its instance-list regions and draw commands are. A vertex's `pad` byte is
//!   set to its material, local to the type.
//! - **Animation**: the bone textures of every unit type are stacked into one
//!   2D texture (all must share the encoding and width); [`ClipInfo`]s point
//!   into it. Controllers (states, transitions) are two storage buffers.
//! - **Materials** (uniform) give a base colour factor and a rectangle in one
//!   shared base-colour atlas (see `atlas.rs`).
//! - **Units**: [`Instance`] (32 bytes, written by the CPU) + [`AnimState`]
//!   (16 bytes, owned by the GPU) = 48 bytes per unit. **Props**: one
//!   [`Instance`] each.
//! - **Draw commands**: one `VkDrawIndexedIndirectCommand` per (type, LOD),
//!   command `type * LOD_COUNT + lod`; a template with zero instance counts is
//!   copied over them every frame before culling. Each (type, LOD) owns a
//!   region of the one instance-list buffer as large as the type's capacity,
//!   so culling can never overflow it.
//!
//! # Updates
//! The CPU keeps a mirror of every [`Instance`]. Spawns, updates and despawns
//! change the mirror and mark records dirty; once per frame
//! [`World::record_uploads`] sends only the dirty records through the frame
//! slot's staging buffer: long runs of neighbours by copy, scattered ones by
//! one compute dispatch (`passes/upload.rs`). Nothing is re-uploaded in
//! full, and the CPU does no per-unit work for units that did not change.
//! When a capacity is exceeded the buffers grow (doubling); GPU-owned state is
//! copied on the GPU and the old buffers go to the deferred-release queue.

use std::ops::Range;

use ash::vk;
use glam::Vec3;
use gpu_allocator::MemoryLocation;

use crate::anim::{self, Controller};
use crate::asset::{Asset, AssetKind, BoneEncoding, PackedVertex};
use crate::atlas;
use crate::config::{FRAMES_IN_FLIGHT, LOD_COUNT};
use crate::context::Context;
use crate::frames::FrameStart;
use crate::gpu_types::{
    AnimParams, AnimState, AnimStateDef, AnimTransitionDef, ClipInfo, Instance, MaterialInfo,
    TypeInfo, INACTIVE_TYPE, MAX_CLIPS, MAX_MATERIALS, MAX_TYPES,
};
use crate::memory::{
    memory_barrier, upload_buffer, upload_image, Buffer, DeferredRelease, Image, Released,
};
use crate::mesh::quantize;
use crate::passes::upload::{Scatter, UploadPass};
use crate::Error;

const COMMAND_BYTES: u64 = std::mem::size_of::<vk::DrawIndexedIndirectCommand>() as u64;
/// Smallest per-type instance capacity.
const MIN_TYPE_CAPACITY: u32 = 64;

/// Identifies a unit for updates and despawning.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct UnitId(pub u32);

/// A unit to spawn.
#[derive(Clone, Copy, Debug)]
pub struct UnitSpawn {
    /// Index among the world's unit types.
    pub unit_type: u32,
    pub position: Vec3,
    pub heading: f32,
    pub scale: f32,
    /// Packed RGBA8 tint (see `scene::rgba8`).
    pub tint: u32,
    pub params: AnimParams,
}

/// A prop to place.
#[derive(Clone, Copy, Debug)]
pub struct PropPlacement {
    /// Index among the world's prop types.
    pub prop_type: u32,
    pub position: Vec3,
    pub heading: f32,
    pub scale: f32,
    pub tint: u32,
}

/// Where one LOD of one type sits in the shared mesh buffers.
#[derive(Clone, Copy, Debug, Default)]
pub struct LodRange {
    pub first_index: u32,
    pub index_count: u32,
    pub vertex_offset: i32,
}

/// One loaded type.
#[derive(Clone, Debug)]
pub struct WorldType {
    pub name: String,
    pub kind: AssetKind,
    pub lods: Vec<LodRange>,
    pub info: TypeInfo,
    /// Instances alive of this type.
    pub live: u32,
    /// Size of each of its instance-list regions.
    pub capacity: u32,
}

/// Host-visible staging memory of one frame slot.
#[derive(Default)]
struct Staging {
    buffer: Option<Buffer>,
    used: u64,
}

/// A buffer that holds an array of records and can grow.
struct Growable {
    buffer: Buffer,
    /// Capacity in records.
    capacity: u32,
}

/// Everything the crowd passes read and the CPU mirror behind it.
pub struct World {
    pub types: Vec<WorldType>,
    pub unit_type_count: u32,
    pub encoding: BoneEncoding,
    pub vertices: Buffer,
    pub indices: Buffer,
    pub type_table: Buffer,
    pub clip_table: Buffer,
    pub material_table: Buffer,
    pub controller_states: Buffer,
    pub controller_transitions: Buffer,
    pub bone_texture: Image,
    pub atlas: Image,
    pub command_template: Buffer,
    pub commands: Buffer,
    /// The debug view's sphere mesh, after every type's LODs.
    pub bounds_mesh: LodRange,
    /// Commands drawing the sphere mesh with each real command's instances.
    pub bounds_commands: Buffer,
    units: Growable,
    anim_states: Growable,
    props: Growable,
    lists: Growable,
    staging: Vec<Staging>,
    cpu_units: Vec<Instance>,
    cpu_props: Vec<Instance>,
    free_units: Vec<u32>,
    dirty_units: Vec<u32>,
    dirty_props: Vec<u32>,
    new_anim_states: Vec<(u32, AnimState)>,
    initial_states: Vec<AnimState>,
    /// GPU copies of grown buffers, recorded at the next upload.
    pending_copies: Vec<(Buffer, vk::Buffer, u64)>,
    tables_dirty: bool,
}

fn ceil_capacity(count: u32) -> u32 {
    count.max(MIN_TYPE_CAPACITY).next_power_of_two()
}

impl World {
    /// Loads the types and uploads everything static. Unit types must share a
    /// bone encoding and bone-texture width.
    pub fn new(
        ctx: &mut Context,
        unit_types: &[&Asset],
        prop_types: &[&Asset],
        controllers: &[Controller],
    ) -> Result<World, Error> {
        let type_count = unit_types.len() + prop_types.len();
        if type_count > MAX_TYPES {
            return Err(Error::Config(format!(
                "{type_count} types exceed the renderer's {MAX_TYPES}"
            )));
        }
        if controllers.len() != unit_types.len() {
            return Err(Error::Config(format!(
                "{} unit types but {} controllers",
                unit_types.len(),
                controllers.len()
            )));
        }
        let packed_controllers = anim::pack(&controllers.iter().collect::<Vec<_>>())?;
        let initial_states: Vec<AnimState> = controllers
            .iter()
            .zip(unit_types)
            .map(|(controller, asset)| {
                let clips = asset
                    .animation
                    .as_ref()
                    .map(|a| a.clips.as_slice())
                    .unwrap_or(&[]);
                anim::initial_state(controller, clips)
            })
            .collect();
        let encoding = unit_types
            .iter()
            .find_map(|a| a.animation.as_ref().map(|anim| anim.encoding))
            .unwrap_or(BoneEncoding::Mat3x4F32);

        let mut vertices: Vec<PackedVertex> = Vec::new();
        let mut indices: Vec<u32> = Vec::new();
        let mut types = Vec::with_capacity(type_count);
        let mut clips: Vec<ClipInfo> = Vec::new();
        let mut materials: Vec<MaterialInfo> = Vec::new();
        let mut material_textures: Vec<Option<(usize, u32)>> = Vec::new();
        let mut bone_rows: Vec<u8> = Vec::new();
        let mut bone_width = 0u32;
        let mut bone_height = 0u32;

        for (type_index, asset) in unit_types.iter().chain(prop_types).enumerate() {
            let is_unit = type_index < unit_types.len();
            if is_unit != (asset.kind == AssetKind::Unit) || (is_unit && asset.animation.is_none())
            {
                return Err(Error::Config(format!(
                    "asset '{}' is a {:?} but was given as a {}",
                    asset.name,
                    asset.kind,
                    if is_unit { "unit type" } else { "prop type" }
                )));
            }
            let mut info = TypeInfo::default();
            let bounds = &asset.bounds;
            let min = Vec3::from(bounds.quant_min);
            info.quant_min = min.extend(0.0).to_array();
            info.quant_extent = (Vec3::from(bounds.quant_max) - min).extend(0.0).to_array();
            info.sphere = Vec3::from(bounds.sphere_center)
                .extend(bounds.sphere_radius)
                .to_array();
            let lod_count = asset.lods.len().min(LOD_COUNT as usize);
            if lod_count == 0 {
                return Err(Error::Config(format!("asset '{}' has no mesh", asset.name)));
            }
            info.skeleton[3] = lod_count as u32;
            info.materials[0] = materials.len() as u32;
            let mut lods = Vec::with_capacity(lod_count);
            for (lod_index, lod) in asset.lods.iter().take(lod_count).enumerate() {
                info.lod_error[lod_index] = lod.error;
                let first_vertex = vertices.len();
                vertices.extend_from_slice(&lod.vertices);
                for submesh in &lod.submeshes {
                    let material = submesh.material.min(255) as u8;
                    let range = submesh.first_index as usize
                        ..(submesh.first_index + submesh.index_count) as usize;
                    for &index in lod.indices.get(range).unwrap_or(&[]) {
                        if let Some(v) = vertices.get_mut(first_vertex + index as usize) {
                            v.pad = material;
                        }
                    }
                }
                lods.push(LodRange {
                    first_index: indices.len() as u32,
                    index_count: lod.indices.len() as u32,
                    vertex_offset: first_vertex as i32,
                });
                indices.extend_from_slice(&lod.indices);
            }
            for material in &asset.materials {
                materials.push(MaterialInfo {
                    base_color: material.base_color_factor,
                    atlas_rect: [0.0; 4],
                });
                material_textures.push(material.base_color_texture.map(|t| (type_index, t)));
            }
            if asset.materials.is_empty() {
                materials.push(MaterialInfo {
                    base_color: [1.0; 4],
                    atlas_rect: [0.0; 4],
                });
                material_textures.push(None);
            }
            if let (true, Some(animation)) = (is_unit, &asset.animation) {
                if animation.encoding != encoding {
                    return Err(Error::Config(format!(
                        "unit type '{}' is baked as {}, but the first unit type as {}; bake all \
                         unit types with one --encoding",
                        asset.name,
                        animation.encoding.name(),
                        encoding.name()
                    )));
                }
                if bone_width != 0 && animation.texture_width != bone_width {
                    return Err(Error::Config(format!(
                        "unit type '{}' has a bone texture {} texels wide, others {bone_width}",
                        asset.name, animation.texture_width
                    )));
                }
                bone_width = animation.texture_width;
                let texel_offset = bone_height * bone_width;
                info.skeleton[0] = animation.bone_count;
                info.skeleton[1] = clips.len() as u32;
                info.skeleton[2] = animation.clips.len() as u32;
                for clip in &animation.clips {
                    clips.push(ClipInfo {
                        first_texel: clip.first_texel + texel_offset,
                        frame_count: clip.frame_count,
                        duration: clip.duration,
                        looping: u32::from(clip.looping),
                    });
                }
                bone_rows.extend_from_slice(&animation.texels);
                bone_height += animation.texture_height;
                info.controller = packed_controllers.ranges[type_index];
            }
            types.push(WorldType {
                name: asset.name.clone(),
                kind: asset.kind,
                lods,
                info,
                live: 0,
                capacity: MIN_TYPE_CAPACITY,
            });
        }
        if clips.len() > MAX_CLIPS || materials.len() > MAX_MATERIALS {
            return Err(Error::Config(format!(
                "{} clips and {} materials exceed the renderer's {MAX_CLIPS} and {MAX_MATERIALS}",
                clips.len(),
                materials.len()
            )));
        }
        let max_image = ctx.limits.max_image_dimension_2d;
        if bone_height > max_image || bone_width > max_image {
            return Err(Error::Config(format!(
                "the unit types' bone textures need {bone_width}x{bone_height} texels, more than \
                 this device and tier allow ({max_image}); bake fewer clips or a lower --rate"
            )));
        }

        let textures: Vec<&crate::asset::Texture> = unit_types
            .iter()
            .chain(prop_types)
            .flat_map(|asset| asset.textures.iter())
            .collect();
        let packed = atlas::pack(&textures, max_image.min(4096)).ok_or_else(|| {
            Error::Config("the base colour textures do not fit one atlas".to_owned())
        })?;
        let mut texture_starts = Vec::new();
        let mut next = 0usize;
        for asset in unit_types.iter().chain(prop_types) {
            texture_starts.push(next);
            next += asset.textures.len();
        }
        for (material, texture) in materials.iter_mut().zip(&material_textures) {
            if let Some((type_index, texture)) = texture {
                if let Some(rect) = packed
                    .rects
                    .get(texture_starts[*type_index] + *texture as usize)
                {
                    material.atlas_rect = *rect;
                }
            }
        }

        let mut type_table = vec![TypeInfo::default(); MAX_TYPES];
        let mut clip_table = clips;
        clip_table.resize(MAX_CLIPS, ClipInfo::default());
        let mut material_table = materials;
        material_table.resize(MAX_MATERIALS, MaterialInfo::default());
        let mut states = packed_controllers.states;
        if states.is_empty() {
            states.push(AnimStateDef::default());
        }
        let mut transitions = packed_controllers.transitions;
        if transitions.is_empty() {
            transitions.push(AnimTransitionDef::default());
        }

        let sphere = quantize(&crate::mesh::sphere(16, 10)).0;
        let bounds_mesh = LodRange {
            first_index: indices.len() as u32,
            index_count: crate::mesh::sphere(16, 10).indices.len() as u32,
            vertex_offset: vertices.len() as i32,
        };
        indices.extend_from_slice(&crate::mesh::sphere(16, 10).indices);
        vertices.extend_from_slice(&sphere);

        layout_regions(&mut types, &mut type_table);
        let template = command_template(ctx, &types, None);
        let bounds_template = command_template(ctx, &types, Some(bounds_mesh));
        let list_entries = region_entries(&types);
        let (bone_format, bone_data, bone_extent) = if bone_height == 0 {
            (
                vk::Format::R32G32B32A32_SFLOAT,
                vec![0u8; 16],
                vk::Extent2D {
                    width: 1,
                    height: 1,
                },
            )
        } else {
            let format = match encoding {
                BoneEncoding::QuatF16 => vk::Format::R16G16B16A16_SFLOAT,
                _ => vk::Format::R32G32B32A32_SFLOAT,
            };
            (
                format,
                bone_rows,
                vk::Extent2D {
                    width: bone_width,
                    height: bone_height,
                },
            )
        };
        let atlas_extent = vk::Extent2D {
            width: packed.width,
            height: packed.height,
        };

        // Created in field order; on failure everything made so far is destroyed.
        let storage = vk::BufferUsageFlags::STORAGE_BUFFER;
        let transfer = vk::BufferUsageFlags::TRANSFER_DST | vk::BufferUsageFlags::TRANSFER_SRC;
        let uniform = vk::BufferUsageFlags::UNIFORM_BUFFER | vk::BufferUsageFlags::TRANSFER_DST;
        let lists = vk::BufferUsageFlags::VERTEX_BUFFER | storage;
        let mut created: Vec<Released> = Vec::new();
        let made = (|| -> Result<(), Error> {
            let mut upload =
                |ctx: &mut Context, name: &str, usage, data: &[u8]| -> Result<(), Error> {
                    created.push(Released::Buffer(upload_buffer(ctx, name, usage, data)?));
                    Ok(())
                };
            upload(
                ctx,
                "world vertices",
                vk::BufferUsageFlags::VERTEX_BUFFER | storage,
                bytemuck::cast_slice(&vertices),
            )?;
            upload(
                ctx,
                "world indices",
                vk::BufferUsageFlags::INDEX_BUFFER,
                bytemuck::cast_slice(&indices),
            )?;
            upload(
                ctx,
                "world types",
                uniform,
                bytemuck::cast_slice(&type_table),
            )?;
            upload(
                ctx,
                "world clips",
                uniform,
                bytemuck::cast_slice(&clip_table),
            )?;
            upload(
                ctx,
                "world materials",
                uniform,
                bytemuck::cast_slice(&material_table),
            )?;
            upload(
                ctx,
                "controller states",
                storage,
                bytemuck::cast_slice(&states),
            )?;
            upload(
                ctx,
                "controller transitions",
                storage,
                bytemuck::cast_slice(&transitions),
            )?;
            upload(
                ctx,
                "draw command template",
                transfer,
                bytemuck::cast_slice(&template),
            )?;
            upload(
                ctx,
                "draw commands",
                vk::BufferUsageFlags::INDIRECT_BUFFER | storage | transfer,
                bytemuck::cast_slice(&template),
            )?;
            upload(
                ctx,
                "bounds draw commands",
                vk::BufferUsageFlags::INDIRECT_BUFFER | transfer,
                bytemuck::cast_slice(&bounds_template),
            )?;
            created.push(Released::Image(upload_image(
                ctx,
                "bone texture",
                bone_extent,
                bone_format,
                &bone_data,
            )?));
            created.push(Released::Image(upload_image(
                ctx,
                "base colour atlas",
                atlas_extent,
                vk::Format::R8G8B8A8_SRGB,
                &packed.rgba8,
            )?));
            for (name, size, usage) in [
                ("units", 32 * 1024, storage | transfer),
                ("unit animation states", 16 * 1024, storage | transfer),
                ("props", 32 * 1024, storage | transfer),
                ("instance lists", u64::from(list_entries) * 4, lists),
            ] {
                created.push(Released::Buffer(Buffer::new(
                    ctx,
                    name,
                    size,
                    usage,
                    MemoryLocation::GpuOnly,
                )?));
            }
            Ok(())
        })();
        if let Err(err) = made {
            for resource in created.into_iter().rev() {
                match resource {
                    Released::Buffer(buffer) => buffer.destroy(ctx),
                    Released::Image(image) => image.destroy(ctx),
                }
            }
            return Err(err);
        }
        let mut resources = created.into_iter();
        let mut buffer = || take_buffer(&mut resources);
        let (vertices, indices, type_table, clip_table, material_table) =
            (buffer(), buffer(), buffer(), buffer(), buffer());
        let (controller_states, controller_transitions, command_template, commands) =
            (buffer(), buffer(), buffer(), buffer());
        let bounds_commands = buffer();
        let (bone_texture, atlas) = (take_image(&mut resources), take_image(&mut resources));
        let mut buffer = || take_buffer(&mut resources);
        let (units, anim_states, props, lists) = (buffer(), buffer(), buffer(), buffer());
        Ok(World {
            types,
            unit_type_count: unit_types.len() as u32,
            encoding,
            vertices,
            indices,
            type_table,
            clip_table,
            material_table,
            controller_states,
            controller_transitions,
            bone_texture,
            atlas,
            command_template,
            commands,
            bounds_mesh,
            bounds_commands,
            units: Growable {
                buffer: units,
                capacity: 1024,
            },
            anim_states: Growable {
                buffer: anim_states,
                capacity: 1024,
            },
            props: Growable {
                buffer: props,
                capacity: 1024,
            },
            lists: Growable {
                buffer: lists,
                capacity: list_entries,
            },
            staging: (0..FRAMES_IN_FLIGHT).map(|_| Staging::default()).collect(),
            cpu_units: Vec::new(),
            cpu_props: Vec::new(),
            free_units: Vec::new(),
            dirty_units: Vec::new(),
            dirty_props: Vec::new(),
            new_anim_states: Vec::new(),
            initial_states,
            pending_copies: Vec::new(),
            tables_dirty: false,
        })
    }

    /// Units spawned so far, despawned slots included: the passes' thread count.
    pub fn unit_count(&self) -> u32 {
        self.cpu_units.len() as u32
    }

    /// Props placed so far.
    pub fn prop_count(&self) -> u32 {
        self.cpu_props.len() as u32
    }

    /// Live units.
    pub fn live_units(&self) -> u32 {
        self.unit_count() - self.free_units.len() as u32
    }

    /// Unit records as the CPU last wrote them.
    pub fn units(&self) -> &[Instance] {
        &self.cpu_units
    }

    pub fn units_buffer(&self) -> &Buffer {
        &self.units.buffer
    }
    pub fn anim_states_buffer(&self) -> &Buffer {
        &self.anim_states.buffer
    }
    pub fn props_buffer(&self) -> &Buffer {
        &self.props.buffer
    }
    /// Instance lists of every (type, LOD) region, units and props alike.
    pub fn lists_buffer(&self) -> &Buffer {
        &self.lists.buffer
    }

    /// Commands of unit types: `0..unit_type_count * LOD_COUNT`.
    pub fn unit_commands(&self) -> Range<u32> {
        0..self.unit_type_count * LOD_COUNT
    }

    /// Commands of prop types, after the units'.
    pub fn prop_commands(&self) -> Range<u32> {
        self.unit_type_count * LOD_COUNT..self.types.len() as u32 * LOD_COUNT
    }

    /// Spawns units; returns their ids in order.
    pub fn spawn_units(&mut self, spawns: &[UnitSpawn]) -> Result<Vec<UnitId>, Error> {
        let mut ids = Vec::with_capacity(spawns.len());
        for spawn in spawns {
            if spawn.unit_type >= self.unit_type_count {
                return Err(Error::Config(format!(
                    "unit type {} does not exist ({} unit types)",
                    spawn.unit_type, self.unit_type_count
                )));
            }
            if !(spawn.position.is_finite() && spawn.heading.is_finite() && spawn.scale.is_finite())
            {
                return Err(Error::Config(
                    "a unit's position, heading and scale must be finite".to_owned(),
                ));
            }
        }
        let needed = self.cpu_units.len() + spawns.len().saturating_sub(self.free_units.len());
        if needed >= 1 << crate::gpu_types::INSTANCE_INDEX_BITS {
            return Err(Error::Config(format!(
                "{needed} units exceed the 2^30 the instance lists address"
            )));
        }
        for spawn in spawns {
            let record = Instance {
                position: spawn.position.to_array(),
                heading: spawn.heading,
                scale: spawn.scale,
                type_index: spawn.unit_type,
                tint: spawn.tint,
                params: spawn.params.pack(),
            };
            let index = match self.free_units.pop() {
                Some(index) => {
                    self.cpu_units[index as usize] = record;
                    index
                }
                None => {
                    self.cpu_units.push(record);
                    self.cpu_units.len() as u32 - 1
                }
            };
            self.dirty_units.push(index);
            self.new_anim_states
                .push((index, self.initial_states[spawn.unit_type as usize]));
            self.types[spawn.unit_type as usize].live += 1;
            ids.push(UnitId(index));
        }
        self.grow_type_regions();
        Ok(ids)
    }

    /// Sets the animation parameters of units.
    pub fn set_params(&mut self, updates: &[(UnitId, AnimParams)]) {
        for &(UnitId(index), params) in updates {
            if let Some(unit) = self.cpu_units.get_mut(index as usize) {
                if unit.type_index != INACTIVE_TYPE {
                    unit.params = params.pack();
                    self.dirty_units.push(index);
                }
            }
        }
    }

    /// Moves units.
    pub fn set_transforms(&mut self, updates: &[(UnitId, Vec3, f32)]) {
        for &(UnitId(index), position, heading) in updates {
            if let Some(unit) = self.cpu_units.get_mut(index as usize) {
                if unit.type_index != INACTIVE_TYPE && position.is_finite() && heading.is_finite() {
                    unit.position = position.to_array();
                    unit.heading = heading;
                    self.dirty_units.push(index);
                }
            }
        }
    }

    /// The parameters a unit was last given.
    pub fn params(&self, id: UnitId) -> Option<AnimParams> {
        self.cpu_units
            .get(id.0 as usize)
            .filter(|u| u.type_index != INACTIVE_TYPE)
            .map(|u| AnimParams::unpack(u.params))
    }

    /// Overwrites units' animation states (a posed contact sheet, a test).
    /// The animate pass carries on from them.
    pub fn set_anim_states(&mut self, states: &[(UnitId, AnimState)]) {
        for &(UnitId(index), state) in states {
            let alive = self
                .cpu_units
                .get(index as usize)
                .is_some_and(|u| u.type_index != INACTIVE_TYPE);
            if alive {
                self.new_anim_states.push((index, state));
            }
        }
    }

    /// Removes units; their slots are reused by later spawns.
    pub fn despawn_units(&mut self, ids: &[UnitId]) {
        for &UnitId(index) in ids {
            if let Some(unit) = self.cpu_units.get_mut(index as usize) {
                if unit.type_index != INACTIVE_TYPE {
                    self.types[unit.type_index as usize].live -= 1;
                    unit.type_index = INACTIVE_TYPE;
                    self.free_units.push(index);
                    self.dirty_units.push(index);
                }
            }
        }
    }

    /// Places static props.
    pub fn place_props(&mut self, props: &[PropPlacement]) -> Result<(), Error> {
        let prop_types = self.types.len() as u32 - self.unit_type_count;
        for prop in props {
            if prop.prop_type >= prop_types {
                return Err(Error::Config(format!(
                    "prop type {} does not exist ({prop_types} prop types)",
                    prop.prop_type
                )));
            }
        }
        for prop in props {
            let type_index = self.unit_type_count + prop.prop_type;
            self.dirty_props.push(self.cpu_props.len() as u32);
            self.cpu_props.push(Instance {
                position: prop.position.to_array(),
                heading: prop.heading,
                scale: prop.scale,
                type_index,
                tint: prop.tint,
                params: 0,
            });
            self.types[type_index as usize].live += 1;
        }
        self.grow_type_regions();
        Ok(())
    }

    /// Doubles any type's region capacity its live count outgrew, and lays
    /// out the regions again.
    fn grow_type_regions(&mut self) {
        let mut changed = false;
        for world_type in &mut self.types {
            if world_type.live > world_type.capacity {
                world_type.capacity = ceil_capacity(world_type.live);
                changed = true;
            }
        }
        if changed {
            self.tables_dirty = true;
        }
    }

    /// Records this frame's uploads: buffer growth, dirty tables and records.
    /// Ends with a barrier making them visible to compute and vertex shaders.
    pub fn record_uploads(
        &mut self,
        ctx: &mut Context,
        start: &FrameStart,
        deferred: &mut DeferredRelease,
        upload: &UploadPass,
    ) -> Result<(), Error> {
        let cmd = start.cmd;
        // Last frame's reads of the buffers written below (vertex shaders,
        // indirect draws, compute, the statistics copy) come first.
        memory_barrier(
            ctx,
            cmd,
            (
                vk::PipelineStageFlags::DRAW_INDIRECT
                    | vk::PipelineStageFlags::VERTEX_INPUT
                    | vk::PipelineStageFlags::VERTEX_SHADER
                    | vk::PipelineStageFlags::FRAGMENT_SHADER
                    | vk::PipelineStageFlags::COMPUTE_SHADER
                    | vk::PipelineStageFlags::TRANSFER,
                vk::AccessFlags::empty(),
            ),
            (
                vk::PipelineStageFlags::TRANSFER | vk::PipelineStageFlags::COMPUTE_SHADER,
                vk::AccessFlags::empty(),
            ),
        );
        self.grow_buffers(ctx, start.number, deferred)?;
        let grew = !self.pending_copies.is_empty();
        for (old, new, bytes) in self.pending_copies.drain(..) {
            let region = vk::BufferCopy::default().size(bytes);
            // SAFETY: both buffers are alive; the old one is released only
            // after this frame completes.
            unsafe { ctx.device.cmd_copy_buffer(cmd, old.raw, new, &[region]) };
            deferred.push(start.number, Released::Buffer(old));
        }
        if grew {
            // The staging copies below write into the grown buffers too.
            let transfer = (
                vk::PipelineStageFlags::TRANSFER,
                vk::AccessFlags::TRANSFER_WRITE,
            );
            memory_barrier(ctx, cmd, transfer, transfer);
        }
        let mut type_table = Vec::new();
        let mut template = Vec::new();
        let mut bounds_template = Vec::new();
        if self.tables_dirty {
            let mut table = vec![TypeInfo::default(); MAX_TYPES];
            layout_regions(&mut self.types, &mut table);
            type_table = table;
            template = command_template(ctx, &self.types, None);
            bounds_template = command_template(ctx, &self.types, Some(self.bounds_mesh));
        }
        self.dirty_units.sort_unstable();
        self.dirty_units.dedup();
        self.dirty_props.sort_unstable();
        self.dirty_props.dedup();
        // A slot spawned twice since the last upload keeps its latest state:
        // reversed, the stable sort puts the latest first and dedup keeps it.
        self.new_anim_states.reverse();
        self.new_anim_states.sort_by_key(|(index, _)| *index);
        self.new_anim_states.dedup_by_key(|(index, _)| *index);

        // Records, plus a destination index each when they are scattered.
        let bytes = (type_table.len() * std::mem::size_of::<TypeInfo>()
            + (template.len() + bounds_template.len()) * 4
            + (self.dirty_units.len() + self.dirty_props.len()) * (32 + 4)
            + self.new_anim_states.len() * (16 + 4)) as u64;
        let staging = prepare_staging(&mut self.staging[start.slot], ctx, start, bytes, deferred)?;
        let mut copies: Vec<(vk::Buffer, vk::BufferCopy)> = Vec::new();
        let mut write = |staging: &mut Staging,
                         data: &[u8],
                         dst: vk::Buffer,
                         dst_offset: u64|
         -> Result<(), Error> {
            let buffer = staging
                .buffer
                .as_mut()
                .expect("staging exists when bytes > 0");
            buffer.write(staging.used, data)?;
            copies.push((
                dst,
                vk::BufferCopy {
                    src_offset: staging.used,
                    dst_offset,
                    size: data.len() as u64,
                },
            ));
            staging.used += data.len() as u64;
            Ok(())
        };
        if !type_table.is_empty() {
            write(
                staging,
                bytemuck::cast_slice(&type_table),
                self.type_table.raw,
                0,
            )?;
            write(
                staging,
                bytemuck::cast_slice(&template),
                self.command_template.raw,
                0,
            )?;
            write(
                staging,
                bytemuck::cast_slice(&bounds_template),
                self.bounds_commands.raw,
                0,
            )?;
            self.tables_dirty = false;
        }
        let mut scatters = Vec::new();
        let units: Vec<(u32, Instance)> = self
            .dirty_units
            .iter()
            .map(|&i| (i, self.cpu_units[i as usize]))
            .collect();
        stage(
            staging,
            &units,
            &self.units.buffer,
            &mut copies,
            &mut scatters,
        )?;
        let props: Vec<(u32, Instance)> = self
            .dirty_props
            .iter()
            .map(|&i| (i, self.cpu_props[i as usize]))
            .collect();
        stage(
            staging,
            &props,
            &self.props.buffer,
            &mut copies,
            &mut scatters,
        )?;
        let anim_buffer = &self.anim_states.buffer;
        stage(
            staging,
            &self.new_anim_states,
            anim_buffer,
            &mut copies,
            &mut scatters,
        )?;
        self.dirty_units.clear();
        self.dirty_props.clear();
        self.new_anim_states.clear();
        if let Some(buffer) = &staging.buffer {
            copies.sort_by_key(|(dst, _)| vk::Handle::as_raw(*dst));
            for group in copies.chunk_by(|a, b| a.0 == b.0) {
                let regions: Vec<vk::BufferCopy> = group.iter().map(|(_, c)| *c).collect();
                // SAFETY: regions lie inside both buffers (capacities grew first).
                unsafe {
                    ctx.device
                        .cmd_copy_buffer(cmd, buffer.raw, group[0].0, &regions)
                };
            }
            if !scatters.is_empty() {
                // The scatter binds whole buffers that copies above also wrote.
                memory_barrier(
                    ctx,
                    cmd,
                    (
                        vk::PipelineStageFlags::TRANSFER,
                        vk::AccessFlags::TRANSFER_WRITE,
                    ),
                    (
                        vk::PipelineStageFlags::COMPUTE_SHADER,
                        vk::AccessFlags::SHADER_WRITE,
                    ),
                );
            }
            upload.record(ctx, start, buffer, &scatters)?;
        }
        // Uploads before this frame's compute, vertex and fragment work.
        memory_barrier(
            ctx,
            cmd,
            (
                vk::PipelineStageFlags::TRANSFER | vk::PipelineStageFlags::COMPUTE_SHADER,
                vk::AccessFlags::TRANSFER_WRITE | vk::AccessFlags::SHADER_WRITE,
            ),
            (
                vk::PipelineStageFlags::COMPUTE_SHADER
                    | vk::PipelineStageFlags::VERTEX_SHADER
                    | vk::PipelineStageFlags::FRAGMENT_SHADER
                    | vk::PipelineStageFlags::TRANSFER,
                vk::AccessFlags::SHADER_READ
                    | vk::AccessFlags::SHADER_WRITE
                    | vk::AccessFlags::UNIFORM_READ
                    | vk::AccessFlags::TRANSFER_READ
                    | vk::AccessFlags::TRANSFER_WRITE,
            ),
        );
        Ok(())
    }

    /// Replaces any buffer whose capacity is exceeded.
    fn grow_buffers(
        &mut self,
        ctx: &mut Context,
        frame: u64,
        deferred: &mut DeferredRelease,
    ) -> Result<(), Error> {
        let units = self.cpu_units.len() as u32;
        let props = self.cpu_props.len() as u32;
        let list_entries = region_entries(&self.types);
        let storage = vk::BufferUsageFlags::STORAGE_BUFFER
            | vk::BufferUsageFlags::TRANSFER_DST
            | vk::BufferUsageFlags::TRANSFER_SRC;
        let lists = vk::BufferUsageFlags::VERTEX_BUFFER | vk::BufferUsageFlags::STORAGE_BUFFER;
        // Units and their animation states keep their contents (GPU copy);
        // instance lists are rebuilt by every cull, so they are just replaced.
        for (growable, needed, record, usage, keep) in [
            (&mut self.units, units, 32u64, storage, true),
            (&mut self.anim_states, units, 16, storage, true),
            (&mut self.props, props, 32, storage, true),
            (&mut self.lists, list_entries, 4, lists, false),
        ] {
            if needed <= growable.capacity {
                continue;
            }
            let capacity = needed.next_power_of_two();
            let size = u64::from(capacity) * record;
            let max = u64::from(ctx.limits.max_storage_buffer_range);
            if size > max {
                return Err(Error::Config(format!(
                    "'{}' would need {size} bytes, more than this device and tier address in one \
                     storage buffer ({max})",
                    growable.buffer.name
                )));
            }
            let name = growable.buffer.name.clone();
            let buffer = Buffer::new(ctx, &name, size, usage, MemoryLocation::GpuOnly)?;
            log::debug!("world: '{name}' grows to {capacity} records");
            let old = std::mem::replace(&mut growable.buffer, buffer);
            let old_bytes = u64::from(growable.capacity) * record;
            growable.capacity = capacity;
            if keep {
                self.pending_copies
                    .push((old, growable.buffer.raw, old_bytes));
            } else {
                deferred.push(frame, Released::Buffer(old));
            }
        }
        Ok(())
    }

    /// Copies this frame's instance counts into the bounds-view commands.
    /// Call after the cull pass; ends with a barrier for the indirect draw.
    pub fn record_bounds_counts(&self, ctx: &Context, cmd: vk::CommandBuffer) {
        let count = self.types.len() as u64 * u64::from(LOD_COUNT);
        // instanceCount is the second word of each 20-byte command.
        let regions: Vec<vk::BufferCopy> = (0..count)
            .map(|command| vk::BufferCopy {
                src_offset: command * COMMAND_BYTES + 4,
                dst_offset: command * COMMAND_BYTES + 4,
                size: 4,
            })
            .collect();
        if regions.is_empty() {
            return;
        }
        // SAFETY: both buffers hold `count` commands; the cull pass's closing
        // barrier orders this copy after its writes.
        unsafe {
            ctx.device
                .cmd_copy_buffer(cmd, self.commands.raw, self.bounds_commands.raw, &regions);
        }
        memory_barrier(
            ctx,
            cmd,
            (
                vk::PipelineStageFlags::TRANSFER,
                vk::AccessFlags::TRANSFER_WRITE,
            ),
            (
                vk::PipelineStageFlags::DRAW_INDIRECT,
                vk::AccessFlags::INDIRECT_COMMAND_READ,
            ),
        );
    }

    /// Drops every buffer and image (the device must be idle). Kept until
    /// callers drop the value directly.
    pub fn destroy(self, _ctx: &Context) {
        drop(self)
    }
}

/// Runs at least this long are copied; shorter ones are scattered.
const COPY_RUN: u32 = 8;

/// Stages `items` (sorted by index, unique) for `destination`: long runs of
/// consecutive indices as copy regions, the rest as `[index, words...]`
/// entries for one scatter.
fn stage<T: bytemuck::Pod>(
    staging: &mut Staging,
    items: &[(u32, T)],
    destination: &Buffer,
    copies: &mut Vec<(vk::Buffer, vk::BufferCopy)>,
    scatters: &mut Vec<Scatter>,
) -> Result<(), Error> {
    let Some(buffer) = staging.buffer.as_mut() else {
        return Ok(());
    };
    let record_bytes = std::mem::size_of::<T>() as u64;
    let mut scattered: Vec<u32> = Vec::new();
    let mut count = 0u32;
    let mut start = 0;
    while start < items.len() {
        let mut end = start + 1;
        while end < items.len() && items[end].0 == items[end - 1].0 + 1 {
            end += 1;
        }
        let run = &items[start..end];
        if run.len() as u32 >= COPY_RUN {
            let records: Vec<T> = run.iter().map(|(_, record)| *record).collect();
            buffer.write(staging.used, &records)?;
            copies.push((
                destination.raw,
                vk::BufferCopy {
                    src_offset: staging.used,
                    dst_offset: u64::from(run[0].0) * record_bytes,
                    size: records.len() as u64 * record_bytes,
                },
            ));
            staging.used += records.len() as u64 * record_bytes;
        } else {
            for (index, record) in run {
                scattered.push(*index);
                scattered.extend_from_slice(bytemuck::cast_slice(std::slice::from_ref(record)));
                count += 1;
            }
        }
        start = end;
    }
    if count > 0 {
        buffer.write(staging.used, &scattered)?;
        scatters.push(Scatter {
            offset: staging.used,
            count,
            words: (record_bytes / 4) as u32,
            destination: destination.raw,
            destination_bytes: destination.size,
        });
        staging.used += scattered.len() as u64 * 4;
    }
    Ok(())
}

/// Empties a slot's staging buffer and grows it to hold `bytes`.
fn prepare_staging<'a>(
    staging: &'a mut Staging,
    ctx: &mut Context,
    start: &FrameStart,
    bytes: u64,
    deferred: &mut DeferredRelease,
) -> Result<&'a mut Staging, Error> {
    staging.used = 0;
    let too_small = staging.buffer.as_ref().is_none_or(|b| b.size < bytes);
    if bytes > 0 && too_small {
        let size = bytes.next_power_of_two().max(64 * 1024);
        let buffer = Buffer::new(
            ctx,
            &format!("frame {} uploads", start.slot),
            size,
            vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::STORAGE_BUFFER,
            MemoryLocation::CpuToGpu,
        )?;
        if let Some(old) = staging.buffer.replace(buffer) {
            // Its last user is this slot's previous frame, already complete.
            deferred.push(start.number.saturating_sub(1), Released::Buffer(old));
        }
    }
    Ok(staging)
}

/// The next resource of a list created in field order: a buffer.
fn take_buffer(resources: &mut impl Iterator<Item = Released>) -> Buffer {
    match resources.next() {
        Some(Released::Buffer(buffer)) => buffer,
        _ => unreachable!("resources are created in field order"),
    }
}

/// The next resource of a list created in field order: an image.
fn take_image(resources: &mut impl Iterator<Item = Released>) -> Image {
    match resources.next() {
        Some(Released::Image(image)) => image,
        _ => unreachable!("resources are created in field order"),
    }
}

/// Instance-list entries all types need.
fn region_entries(types: &[WorldType]) -> u32 {
    types
        .iter()
        .map(|t| t.capacity * LOD_COUNT)
        .sum::<u32>()
        .max(1)
}

/// Assigns each (type, LOD) its command and instance-list region, and writes
/// the type table.
fn layout_regions(types: &mut [WorldType], table: &mut [TypeInfo]) {
    let mut base = 0u32;
    for (type_index, world_type) in types.iter_mut().enumerate() {
        for lod in 0..LOD_COUNT as usize {
            world_type.info.instance_base[lod] = base + lod as u32 * world_type.capacity;
            world_type.info.command[lod] = type_index as u32 * LOD_COUNT + lod as u32;
        }
        world_type.info.materials[1] = world_type.capacity;
        base += world_type.capacity * LOD_COUNT;
        table[type_index] = world_type.info;
    }
}

/// Draw commands with zero instances: the per-frame reset source. On the
/// mobile tier `firstInstance` stays 0 and the draw binds the list at an
/// offset instead.
/// With `mesh`, every command draws that mesh instead (the bounds view).
fn command_template(ctx: &Context, types: &[WorldType], mesh: Option<LodRange>) -> Vec<u32> {
    let mut words = Vec::with_capacity(types.len() * LOD_COUNT as usize * 5);
    for world_type in types {
        for lod in 0..LOD_COUNT as usize {
            let own = world_type.lods.get(lod).copied();
            let range = match (own, mesh) {
                (Some(_), Some(mesh)) => mesh,
                (own, _) => own.unwrap_or_default(),
            };
            let first_instance = if ctx.limits.draw_indirect_first_instance {
                world_type.info.instance_base[lod]
            } else {
                0
            };
            words.extend_from_slice(&[
                range.index_count,
                0,
                range.first_index,
                range.vertex_offset as u32,
                first_instance,
            ]);
        }
    }
    if words.is_empty() {
        words.extend_from_slice(&[0; 5]);
    }
    debug_assert_eq!(words.len() as u64 * 4 % COMMAND_BYTES, 0);
    words
}
