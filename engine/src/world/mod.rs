//! The world: unit and prop types loaded from `.horde` assets, the units and
//! props placed in it, and the GPU buffers the passes read.
//!
//! One job per module:
//! - [`types`]: packing assets into the GPU tables (pure CPU).
//! - [`buffers`]: the GPU buffers and their growth.
//! - [`ground`]: the ground texture's mips and materials.
//! - [`units`]: unit ids, the CPU's copy of what it owns, and the commands
//!   waiting for the upload pass (`passes/upload.rs`).
//!
//! This module ties them together: the API the application calls, and an
//! explicit readback of GPU-owned state for tools and tests (never on the
//! frame's hot path: it waits for the GPU).

pub mod buffers;
pub mod ground;
pub mod impostors;
pub mod regions;
pub mod types;
pub mod units;

use std::ops::Range;

use glam::Vec2;

use crate::anim::{Controller, PackedControllers};
use crate::asset::{Asset, BoneEncoding};
use crate::config::MAX_ROUTES;
use crate::context::Context;
use crate::gpu_types::{AnimParams, AnimState, ClipInfo, UnitInfo, UnitMotion, UnitPlacement};
use crate::memory::read_buffers;
use crate::simulation::SimulationUnits;
use crate::Error;

pub use crate::scene::{GroundTexture, PropPlacement, UnitSpawn};
pub use buffers::{Needed, WorldBuffers};
pub use types::{BoneShape, LodRange, WorldType};
pub use units::{CpuUnitState, UnitId, UnitTable};

/// The scene's ground, as the world needs it: which prop types it is, and
/// the texture tiled over them.
#[derive(Clone, Copy, Debug, Default)]
pub struct Ground<'a> {
    pub prop_types: &'a [u32],
    pub texture: Option<&'a GroundTexture>,
}

/// Everything the crowd passes read, and the CPU side behind it.
pub struct World {
    pub types: Vec<WorldType>,
    pub unit_type_count: u32,
    pub encoding: BoneEncoding,
    /// What the unit types' bone matrices are: how the vertex shader maps
    /// and blends normals.
    pub bone_shape: BoneShape,
    /// The bounds view's sphere mesh, after every type's LODs.
    pub bounds_mesh: LodRange,
    /// The impostors' quad, after the sphere.
    pub impostor_quad: LodRange,
    pub buffers: WorldBuffers,
    pub units: UnitTable,
    /// Ground texture tiles per metre (0: no ground texture).
    pub ground_texture_scale: f32,
    /// An application's simulation moves the units (the renderer runs one
    /// in the frame's simulation slot): the CPU's copy of their placements
    /// falls behind, and the CPU baselines refuse the world.
    pub simulated: bool,
    initial_states: Vec<AnimState>,
    /// The clip table as uploaded, for the CPU animation of the `naive`
    /// baseline.
    pub clips: Vec<ClipInfo>,
    /// The animation controllers as uploaded, for the same.
    pub controllers: PackedControllers,
    /// A type's capacity grew: the type table and command templates must be
    /// uploaded again.
    pub tables_dirty: bool,
}

/// GPU-owned unit state, read back for tools and tests.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UnitStateReadback {
    pub infos: Vec<UnitInfo>,
    pub placements: Vec<UnitPlacement>,
    pub motions: Vec<UnitMotion>,
    pub anim_states: Vec<AnimState>,
    pub routes: Vec<u32>,
    /// `SimulationUnits::marks`.
    pub marks: Vec<u32>,
}

impl World {
    /// Loads the types and uploads everything static. Unit types must share a
    /// bone encoding and bone-texture width.
    pub fn new(
        ctx: &Context,
        unit_types: &[&Asset],
        prop_types: &[&Asset],
        controllers: &[Controller],
        ground: &Ground,
    ) -> Result<World, Error> {
        let mut packed = types::pack_types(
            unit_types,
            prop_types,
            controllers,
            ctx.limits.max_image_dimension_2d,
        )?;
        regions::layout_regions(&mut packed.types);
        let ground_levels = match ground.texture {
            Some(texture) => {
                ground::mark_ground_materials(
                    &mut packed.materials,
                    &packed.types,
                    packed.unit_type_count,
                    ground.prop_types,
                )?;
                ground::ground_levels(texture)?
            }
            None => vec![vec![255; 4]],
        };
        let buffers = WorldBuffers::new(
            ctx,
            &packed,
            regions::region_entries(&packed.types),
            &ground_levels,
        )?;
        Ok(World {
            ground_texture_scale: ground.texture.map_or(0.0, |t| 1.0 / t.tile_metres),
            unit_type_count: packed.unit_type_count,
            encoding: packed.bone_texture.encoding,
            bone_shape: packed.bone_shape,
            bounds_mesh: packed.bounds_mesh,
            impostor_quad: packed.impostor_quad,
            initial_states: packed.initial_states,
            clips: packed.clips,
            controllers: packed.controllers,
            types: packed.types,
            buffers,
            units: UnitTable::default(),
            simulated: false,
            tables_dirty: false,
        })
    }

    /// Unit slots, despawned ones included: the passes' thread count.
    pub fn unit_count(&self) -> u32 {
        self.units.unit_count()
    }

    /// Props placed so far.
    pub fn prop_count(&self) -> u32 {
        self.units.prop_count()
    }

    /// Live units.
    pub fn live_units(&self) -> u32 {
        self.units.live_units()
    }

    /// Unit infos as the CPU last wrote them.
    pub fn infos(&self) -> &[UnitInfo] {
        self.units.infos()
    }

    /// Draw commands of unit types.
    pub fn unit_commands(&self) -> Range<u32> {
        0..self.unit_type_count * MAX_ROUTES
    }

    /// The draw command all impostors share, after the types' commands.
    pub fn impostor_command(&self) -> u32 {
        regions::impostor_command(&self.types)
    }

    /// The commands whose instance counts are the hidden units and props
    /// ([`regions::occluded_commands`]).
    pub fn occluded_commands(&self) -> [u32; 2] {
        regions::occluded_commands(&self.types)
    }

    /// Some unit type has an impostor.
    pub fn has_impostors(&self) -> bool {
        self.types.iter().any(|t| t.has_impostor)
    }

    /// Draw commands of prop types, after the units'.
    pub fn prop_commands(&self) -> Range<u32> {
        self.unit_type_count * MAX_ROUTES..self.types.len() as u32 * MAX_ROUTES
    }

    /// What the per-record buffers must hold now.
    pub fn needed(&self) -> Needed {
        Needed {
            units: self.unit_count(),
            props: self.prop_count(),
            list_entries: regions::region_entries(&self.types),
        }
    }

    /// Spawns units; returns their ids in order.
    pub fn spawn_units(&mut self, spawns: &[UnitSpawn]) -> Result<Vec<UnitId>, Error> {
        let ids = self
            .units
            .spawn(spawns, self.unit_type_count, &self.initial_states)?;
        for spawn in spawns {
            self.types[spawn.unit_type as usize].live += 1;
        }
        self.tables_dirty |= regions::grow_capacities(&mut self.types);
        Ok(ids)
    }

    /// Removes units; their slots are reused by later spawns.
    pub fn despawn_units(&mut self, ids: &[UnitId]) {
        for type_index in self.units.despawn(ids) {
            self.types[type_index as usize].live -= 1;
        }
    }

    /// Orders units: their animation parameters (speed, dead, commands).
    pub fn set_params(&mut self, updates: &[(UnitId, AnimParams)]) {
        self.units.set_params(updates);
    }

    /// Sets the ground velocity (x, z) of units; the simulate pass moves them.
    pub fn set_velocities(&mut self, updates: &[(UnitId, Vec2)]) {
        self.units.set_velocities(updates);
    }

    /// Teleports units to a position and heading.
    pub fn teleport_units(&mut self, updates: &[(UnitId, glam::Vec3, f32)]) {
        self.units.teleport(updates);
    }

    /// Overwrites units' animation states (a posed contact sheet, a test).
    /// The animate pass carries on from them.
    pub fn set_anim_states(&mut self, states: &[(UnitId, AnimState)]) {
        self.units.set_anim_states(states);
    }

    /// Places static props.
    pub fn place_props(&mut self, props: &[PropPlacement]) -> Result<(), Error> {
        let prop_types = self.types.len() as u32 - self.unit_type_count;
        self.units
            .place_props(props, self.unit_type_count, prop_types)?;
        for prop in props {
            self.types[(self.unit_type_count + prop.prop_type) as usize].live += 1;
        }
        self.tables_dirty |= regions::grow_capacities(&mut self.types);
        Ok(())
    }

    /// The unit buffers a simulation reads and writes this frame.
    pub fn simulation_units(&self) -> SimulationUnits {
        let b = &self.buffers;
        SimulationUnits {
            count: self.unit_count(),
            infos: b.unit_infos.buffer.raw,
            placements: b.unit_placements.buffer.raw,
            motions: b.unit_motions.buffer.raw,
            marks: b.unit_marks.buffer.raw,
            marks_shown: false,
        }
    }

    /// Reads every unit's GPU-owned state back. Waits for the GPU: for tools
    /// and tests, never per frame.
    pub fn read_unit_state(&self, ctx: &Context) -> Result<UnitStateReadback, Error> {
        let count = u64::from(self.unit_count());
        let b = &self.buffers;
        let [infos, placements, motions, anim_states, routes, marks] = read_buffers(
            ctx,
            [
                (&b.unit_infos.buffer, 16 * count),
                (&b.unit_placements.buffer, 16 * count),
                (&b.unit_motions.buffer, 16 * count),
                (&b.anim_states.buffer, 16 * count),
                (&b.unit_routes.buffer, 4 * count),
                (&b.unit_marks.buffer, 4 * count),
            ],
        )?;
        Ok(UnitStateReadback {
            infos: bytemuck::pod_collect_to_vec(&infos),
            placements: bytemuck::pod_collect_to_vec(&placements),
            motions: bytemuck::pod_collect_to_vec(&motions),
            anim_states: bytemuck::pod_collect_to_vec(&anim_states),
            routes: bytemuck::pod_collect_to_vec(&routes),
            marks: bytemuck::pod_collect_to_vec(&marks),
        })
    }
}
