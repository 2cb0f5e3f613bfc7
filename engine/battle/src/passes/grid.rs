//! The battle's spatial grid: five dispatches of each battle step
//! (`passes/battle.rs` records them between the regiments and the units)
//! that bin every living unit of a regiment into a uniform grid of the
//! ground, so a unit finds its neighbours by looking at the 3×3 cells
//! around it.
//!
//! # Data
//! `grid` (`u32` words, [`GridLayout`]): per cell a count, a start relative
//! to its chunk of [`GRID_CHUNK`] cells; per chunk a start relative to its
//! super-chunk of [`GRID_CHUNK`] chunks; per super-chunk a start; the total;
//! then the unit indices grouped by cell. A cell is an `engage_radius`
//! square of the ground, hashed into a power of two of buckets at least as
//! many as units (at least [`GRID_MIN_CELLS`]): the field is unbounded
//! (routing units run off it) and the grid's size is linear in units. A
//! bucket two cells share holds both; the query visits it once and filters
//! by distance. Each unit's `UnitCombat::grid_position` is where it stood
//! when binned: what its neighbours read while it moves.
//!
//! # Algorithm (count, prefix sum, scatter)
//! 1. `battle_grid_count.comp`, one thread per unit: a living unit of a
//!    regiment notes its `grid_position` and adds 1 to its cell's count.
//! 2. `battle_grid_scan_cells.comp`, one thread per chunk: the cells'
//!    starts within the chunk and the chunk's total, sequentially (no shared
//!    memory, so any workgroup size and tier).
//! 3. `battle_grid_scan_chunks.comp`, one thread per super-chunk: the same
//!    over chunks.
//! 4. `battle_grid_scan_total.comp`, one thread: the same over super-chunks
//!    (4,096 at 16M units), and the total.
//! 5. `battle_grid_scatter.comp`, one thread per unit: the unit takes entry
//!    `start(cell) + count − 1` by counting its cell down with an atomic, so
//!    the counts are zero again for the next step.
//!
//! A cell's start is the sum of its three levels' starts, read where it is
//! used (`battle_grid.glsl`, [`GridLayout::cell_start`]).
//!
//! # Determinism
//! The counts, starts and total are integer sums: the same whatever the
//! order of the atomics. The order of the entries within a cell follows the
//! scatter's atomics, and nothing that reads the grid depends on it: the
//! unit step sums integer pushes and takes minima with the unit index as
//! tie-break. [`crate::reference::grid`] is the CPU twin; the tests compare
//! the starts exactly and the cells as sets.

use ash::vk;

use horde::barriers::{uses, Access};
use horde::context::Context;
use horde::frame::{BoundSet, ComputePipeline, Frame};
use horde::frames::Descriptor;
use horde::Error;

use crate::config::{GRID_CHUNK, GRID_MIN_CELLS};
use crate::reference::grid::GridLayout;
use crate::shaders;

/// The grid's five pipelines.
pub struct GridPass {
    count: ComputePipeline,
    scan_cells: ComputePipeline,
    scan_chunks: ComputePipeline,
    scan_total: ComputePipeline,
    scatter: ComputePipeline,
}

/// The grid's descriptor sets for one frame.
#[derive(Clone, Copy, Debug)]
pub struct GridSets {
    count: BoundSet,
    scan_cells: BoundSet,
    scan_chunks: BoundSet,
    scan_total: BoundSet,
    scatter: BoundSet,
}

/// What one frame's grid dispatches bind.
#[derive(Clone, Copy, Debug)]
pub struct GridBuffers {
    /// The battle's state (combat records, rules).
    pub battle: vk::Buffer,
    pub placements: vk::Buffer,
    pub grid: vk::Buffer,
}

impl GridPass {
    pub fn new(ctx: &Context) -> Result<GridPass, Error> {
        let group = [ctx.unit_workgroup_size()];
        let storage = vk::DescriptorType::STORAGE_BUFFER;
        let pipeline = |name: &str, shader: &horde::Spirv, bindings: usize| {
            ComputePipeline::new(ctx, name, shader, &vec![storage; bindings], &group)
        };
        Ok(GridPass {
            count: pipeline("battle grid count", &shaders::BATTLE_GRID_COUNT_COMP, 3)?,
            scan_cells: pipeline(
                "battle grid scan cells",
                &shaders::BATTLE_GRID_SCAN_CELLS_COMP,
                1,
            )?,
            scan_chunks: pipeline(
                "battle grid scan chunks",
                &shaders::BATTLE_GRID_SCAN_CHUNKS_COMP,
                1,
            )?,
            scan_total: pipeline(
                "battle grid scan total",
                &shaders::BATTLE_GRID_SCAN_TOTAL_COMP,
                1,
            )?,
            scatter: pipeline("battle grid scatter", &shaders::BATTLE_GRID_SCATTER_COMP, 2)?,
        })
    }

    /// The frame's descriptor sets, one per pipeline, for every step.
    pub fn bind(&self, frame: &mut Frame, buffers: &GridBuffers) -> Result<GridSets, Error> {
        let (battle, grid) = (buffers.battle, buffers.grid);
        Ok(GridSets {
            count: frame.bind_set(
                &self.count,
                &[
                    Descriptor::Storage(battle),
                    Descriptor::Storage(buffers.placements),
                    Descriptor::Storage(grid),
                ],
            )?,
            scan_cells: frame.bind_set(&self.scan_cells, &[Descriptor::Storage(grid)])?,
            scan_chunks: frame.bind_set(&self.scan_chunks, &[Descriptor::Storage(grid)])?,
            scan_total: frame.bind_set(&self.scan_total, &[Descriptor::Storage(grid)])?,
            scatter: frame.bind_set(
                &self.scatter,
                &[Descriptor::Storage(battle), Descriptor::Storage(grid)],
            )?,
        })
    }

    /// Records one step's binning of `unit_count` units; `push` is the
    /// battle's push constants of the step.
    pub fn record(
        &self,
        frame: &mut Frame,
        sets: &GridSets,
        buffers: &GridBuffers,
        push: &[u8],
        unit_count: u32,
    ) -> Result<(), Error> {
        let (battle, grid) = (buffers.battle, buffers.grid);
        let layout = GridLayout::new(unit_count);
        frame.uses(&[
            uses(battle, Access::ComputeWrite),
            uses(buffers.placements, Access::ComputeRead),
            uses(grid, Access::ComputeWrite),
        ]);
        frame.dispatch_with(&self.count, sets.count, push, unit_count)?;
        frame.uses(&[uses(grid, Access::ComputeWrite)]);
        frame.dispatch_with(
            &self.scan_cells,
            sets.scan_cells,
            push,
            layout.cells / GRID_CHUNK,
        )?;
        frame.uses(&[uses(grid, Access::ComputeWrite)]);
        frame.dispatch_with(
            &self.scan_chunks,
            sets.scan_chunks,
            push,
            layout.cells / GRID_MIN_CELLS,
        )?;
        frame.uses(&[uses(grid, Access::ComputeWrite)]);
        frame.dispatch_with(&self.scan_total, sets.scan_total, push, 1)?;
        frame.uses(&[
            uses(battle, Access::ComputeRead),
            uses(grid, Access::ComputeWrite),
        ]);
        frame.dispatch_with(&self.scatter, sets.scatter, push, unit_count)
    }
}
