//! The `cpu-culled` baseline: frustum culling and LOD selection on the CPU
//! over worker threads, the instance lists uploaded every frame, one
//! indirect draw per (type, LOD), as Unity's Unite Austin 2017 crowd demo
//! draws.
//!
//! # Data layout
//! - Input: the CPU's unit state ([`CpuUnitState`](crate::world::CpuUnitState)
//!   placements, the unit infos) and the props as placed; the type table as
//!   the GPU reads it.
//! - State: each unit's and prop's route of last frame (hysteresis), owned
//!   by this pass on the CPU, as the cull pass owns the GPU's.
//! - Output: one host-visible buffer per frame slot in the layout of the
//!   world's draw lists (`baselines/instanced.rs`): the commands with their
//!   instance counts, then the lists. The draw pass draws from it with the
//!   GPU-driven frame's pipelines, and the statistics pass reads its counts.
//!
//! # Algorithm
//! 1. The instances are cut into chunks of [`CHUNK`]; rayon's workers cull
//!    the chunks in parallel with the exact CPU twin of the cull shader
//!    (`reference/cull.rs`: world sphere, six planes, route with hysteresis),
//!    each into per-command entry lists of its own.
//! 2. The chunks' lists are copied per command, in chunk order, straight
//!    into the frame slot's mapped buffer (capped at each region's
//!    capacity), and the command head is written. Nothing waits for the GPU: the slot's
//!    fence has signalled before the frame records.
//!
//! The GPU does the rest of the frame unchanged: animation on the GPU, the
//! same vertex shader. What differs from the GPU-driven frame is where the
//! culling runs and that its result crosses the bus every frame.

use rayon::prelude::*;

use crate::baselines::instanced::{write_lists, HostLists};
use crate::config::{FRAMES_IN_FLIGHT, MAX_ROUTES};
use crate::frame::Frame;
use crate::gpu_types::{
    CullGlobals, TypeInfo, UnitInfo, UnitPlacement, ENTRY_INDEX_BITS, MAX_TYPES,
};
use crate::memory::Buffer;
use crate::reference::cull::{choose_route, in_frustum, route_of, world_sphere};
use crate::world::regions::type_table;
use crate::world::World;
use crate::Error;

/// Instances per parallel task: large enough that a task's bookkeeping is
/// small against its work, small enough to balance over the workers.
pub const CHUNK: usize = 16 * 1024;

/// The per-slot lists and the routes of last frame.
pub struct CpuCullPass {
    slots: Vec<HostLists>,
    unit_routes: Vec<u32>,
    prop_routes: Vec<u32>,
}

impl Default for CpuCullPass {
    fn default() -> CpuCullPass {
        CpuCullPass {
            slots: (0..FRAMES_IN_FLIGHT)
                .map(|_| HostLists::default())
                .collect(),
            unit_routes: Vec::new(),
            prop_routes: Vec::new(),
        }
    }
}

/// Per chunk of instances, per command, the entries appended.
type ChunkLists = Vec<Vec<Vec<u32>>>;

/// Culls `infos` and `placements` (one batch: units or props) in parallel
/// chunks; returns each chunk's entries per command, in instance order.
fn cull_batch(
    globals: &CullGlobals,
    types: &[TypeInfo],
    infos: &[UnitInfo],
    placements: &[UnitPlacement],
    routes: &mut [u32],
    command_count: usize,
) -> ChunkLists {
    routes
        .par_chunks_mut(CHUNK)
        .enumerate()
        .map(|(chunk, routes)| {
            let first = chunk * CHUNK;
            let mut appended = vec![Vec::new(); command_count];
            for (offset, route) in routes.iter_mut().enumerate() {
                let index = first + offset;
                let (Some(info), Some(placement)) = (infos.get(index), placements.get(index))
                else {
                    continue;
                };
                let Some(type_info) = types.get(info.type_index as usize) else {
                    continue;
                };
                let sphere = world_sphere(info, placement, type_info);
                if !in_frustum(&sphere, &globals.planes) {
                    continue;
                }
                *route = choose_route(&sphere, type_info, globals, *route);
                let command = type_info.routes[route_of(*route) as usize].command as usize;
                if let Some(list) = appended.get_mut(command) {
                    list.push(index as u32 | (*route << ENTRY_INDEX_BITS));
                }
            }
            appended
        })
        .collect()
}

impl CpuCullPass {
    /// The baseline with no history.
    pub fn new() -> CpuCullPass {
        CpuCullPass::default()
    }

    /// Culls every unit and prop for `globals` on the CPU and writes the
    /// frame slot's draw lists, which it returns.
    pub fn record(
        &mut self,
        frame: &mut Frame,
        world: &World,
        globals: &CullGlobals,
    ) -> Result<&Buffer, Error> {
        refuse_gpu_motion(world, "cpu-culled")?;
        let cpu = world.units.cpu_state();
        let (prop_infos, prop_placements) = world.units.props();
        self.unit_routes.resize(world.unit_count() as usize, 0);
        self.prop_routes.resize(world.prop_count() as usize, 0);
        let types = type_table(&world.types);
        let command_count = world.types.len() * MAX_ROUTES as usize;
        let units = cull_batch(
            globals,
            &types[..MAX_TYPES],
            world.infos(),
            &cpu.placements,
            &mut self.unit_routes,
            command_count,
        );
        let props = cull_batch(
            globals,
            &types[..MAX_TYPES],
            prop_infos,
            prop_placements,
            &mut self.prop_routes,
            command_count,
        );
        let slot = self
            .slots
            .get_mut(frame.slot)
            .ok_or_else(|| Error::Config(format!("frame slot {} out of range", frame.slot)))?;
        slot.ensure(
            frame,
            world,
            &format!("cpu-culled draw lists {}", frame.slot),
        )?;
        let buffer = slot
            .buffer
            .as_mut()
            .ok_or_else(|| Error::Config("cpu-culled draw lists missing".to_owned()))?;
        // Each command's entries, chunk by chunk: units, then props.
        write_lists(frame.ctx, buffer, world, |command| {
            units
                .iter()
                .chain(&props)
                .map(|chunk| &chunk[command][..])
                .collect()
        })?;
        Ok(buffer)
    }
}

/// Fails when the GPU moves units (velocities, a simulation): a CPU baseline
/// draws the CPU's unit state and cannot follow them.
pub fn refuse_gpu_motion(world: &World, baseline: &str) -> Result<(), Error> {
    if world.units.moving() || world.simulated {
        return Err(Error::Config(format!(
            "the {baseline} baseline draws the CPU's unit state; it cannot follow units the GPU \
             moves (velocities or a simulation)"
        )));
    }
    Ok(())
}
