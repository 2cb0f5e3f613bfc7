//! The battle's spatial grid: three or four dispatches of each battle step,
//! five before the first (`passes/battle.rs` records them between the
//! regiments and the units)
//! that bin every living unit of a regiment into a uniform grid of the
//! ground, so a unit finds its neighbours by looking at the 3×3 cells
//! around it.
//!
//! # Data
//! `grid` (`u32` words, [`GridLayout`]): per cell a count, a start relative
//! to its chunk of [`GRID_CHUNK`] cells; per chunk a start relative to its
//! super-chunk of [`GRID_CHUNK`] chunks; per super-chunk a start; the total;
//! then the entries grouped by cell, [`GRID_ENTRY_WORDS`] words each: the
//! unit, its side (its army, and whether its regiment stands as this step's
//! regiment dispatch left it) and where it stood (x, z). That is all the
//! neighbour query reads of a neighbour, so a cell's neighbours are read
//! from one place rather than from their scattered combat records and the
//! regiment table: one load a neighbour instead of a chain of three. A cell is an
//! `engage_radius` square of the ground, hashed into a power of two of
//! buckets at least as many as units (at least [`GRID_MIN_CELLS`]): the
//! field is unbounded (routing units run off it) and the grid's size is
//! linear in units. A bucket two cells share holds both; the query visits
//! it once and filters by distance. Each unit's `UnitCombat::grid_position`
//! is where it stood when binned: what its neighbours read while it moves.
//! The battle's terrain follows the entries in the same buffer
//! (`passes/battle.rs`).
//!
//! # Algorithm (count, prefix sum, scatter)
//! 1. `battle_grid_count.comp`, one thread per unit, before the battle's
//!    first step only: a living unit of a regiment notes its
//!    `grid_position` and adds 1 to its cell's count. From then on the
//!    unit step does the same for the next step where it has moved to, so
//!    a step does not read every unit's placement and record again, and
//!    has one dispatch and barrier fewer.
//! 2. `battle_grid_scan.comp` at level 0, one workgroup of
//!    [`GRID_SCAN_THREADS`] per chunk, `GRID_CHUNK / GRID_SCAN_THREADS`
//!    cells a thread: the cells' starts within the chunk and the chunk's
//!    total, by a scan in shared memory.
//! 3. The same at level 1 over the chunks' totals, in place: each chunk's
//!    start within its super-chunk, and the super-chunk's total. With one
//!    super-chunk (up to `GRID_CHUNK²` cells) it writes that super-chunk's
//!    start and the total itself, and step 4 is not dispatched: one
//!    dispatch and barrier fewer for battles up to 262,144 units.
//! 4. The same at level 2, one workgroup, over the super-chunks: their
//!    starts, and the total.
//! 5. `battle_grid_scatter.comp`, one thread per unit: the unit takes entry
//!    `start(cell) + count − 1` by counting its cell down with an atomic, so
//!    the counts are zero again for the next step, and writes its entry
//!    (reading its regiment's army and state); while the frame shows the
//!    marks, every unit of a regiment, binned or fallen, writes its mark
//!    for the debug view.
//!
//! A cell's start is the sum of its three levels' starts, read where it is
//! used (`battle_grid.glsl`, [`GridLayout::cell_start`]).
//!
//! The scans used to be one thread per chunk of 64, summing sequentially:
//! a chain of 64 dependent loads per thread, latency-bound, 0.064 ms of
//! the step at 100k units on an H100 (`benches/results/regiments/`).
//!
//! # Determinism
//! The counts, starts and total are integer sums: the same whatever the
//! order of the atomics. The order of the entries within a cell follows the
//! scatter's atomics, and nothing that reads the grid depends on it: the
//! unit step sums integer pushes and takes minima with the unit index as
//! tie-break. [`crate::reference::grid`] is the CPU twin; the tests compare
//! the starts exactly and the cells as sets.

use ash::vk;

use horde::barriers::{uses, Access, BufferUse};
use horde::context::Context;
use horde::frame::{BoundSet, ComputePipeline, Frame};
use horde::frames::Descriptor;
use horde::Error;

use crate::config::{GRID_CHUNK, GRID_SCAN_THREADS};
#[cfg(doc)]
use crate::config::{GRID_ENTRY_WORDS, GRID_MIN_CELLS};
use crate::reference::grid::GridLayout;
use crate::shaders;

/// Work recorded beside the grid's first scan: its uses, and its recording.
pub type Beside<'a> = (
    &'a [BufferUse],
    &'a mut dyn FnMut(&mut Frame) -> Result<(), Error>,
);

/// The grid's five pipelines (the three scans are one shader, specialized
/// by level).
pub struct GridPass {
    count: ComputePipeline,
    scans: [ComputePipeline; 3],
    scatter: ComputePipeline,
}

/// The grid's descriptor sets for one frame.
#[derive(Clone, Copy, Debug)]
pub struct GridSets {
    count: BoundSet,
    scans: [BoundSet; 3],
    scatter: BoundSet,
}

/// What one frame's grid dispatches bind.
#[derive(Clone, Copy, Debug)]
pub struct GridBuffers {
    /// The battle's state (combat records, rules).
    pub battle: vk::Buffer,
    pub placements: vk::Buffer,
    pub grid: vk::Buffer,
    /// The core's per-unit marks, which the scatter writes.
    pub marks: vk::Buffer,
}

impl GridPass {
    pub fn new(ctx: &Context) -> Result<GridPass, Error> {
        let group = [ctx.unit_workgroup_size()];
        let storage = vk::DescriptorType::STORAGE_BUFFER;
        let pipeline = |name: &str, shader: &horde::Spirv, bindings: usize| {
            ComputePipeline::new(ctx, name, shader, &vec![storage; bindings], &group)
        };
        let scan = |name: &str, level: u32| {
            ComputePipeline::new(
                ctx,
                name,
                &shaders::BATTLE_GRID_SCAN_COMP,
                &[storage],
                &[GRID_SCAN_THREADS, level],
            )
        };
        Ok(GridPass {
            count: pipeline("battle grid count", &shaders::BATTLE_GRID_COUNT_COMP, 3)?,
            scans: [
                scan("battle grid scan cells", 0)?,
                scan("battle grid scan chunks", 1)?,
                scan("battle grid scan total", 2)?,
            ],
            scatter: pipeline("battle grid scatter", &shaders::BATTLE_GRID_SCATTER_COMP, 3)?,
        })
    }

    /// The frame's descriptor sets, one per pipeline, for every step.
    pub fn bind(&self, frame: &mut Frame, buffers: &GridBuffers) -> Result<GridSets, Error> {
        let (battle, grid) = (buffers.battle, buffers.grid);
        let mut scans = Vec::with_capacity(3);
        for scan in &self.scans {
            scans.push(frame.bind_set(scan, &[Descriptor::Storage(grid)])?);
        }
        Ok(GridSets {
            count: frame.bind_set(
                &self.count,
                &[
                    Descriptor::Storage(battle),
                    Descriptor::Storage(buffers.placements),
                    Descriptor::Storage(grid),
                ],
            )?,
            scans: [scans[0], scans[1], scans[2]],
            scatter: frame.bind_set(
                &self.scatter,
                &[
                    Descriptor::Storage(battle),
                    Descriptor::Storage(grid),
                    Descriptor::Storage(buffers.marks),
                ],
            )?,
        })
    }

    /// Records one step's binning of `unit_count` units; `push` is the
    /// battle's push constants of the step. `counted`: the last step's
    /// units counted themselves in (every step but the battle's first).
    /// `beside` (its uses, and its recording) is work that neither reads
    /// nor writes what the cells' scan does: it shares the scan's barrier
    /// and runs beside it.
    #[allow(clippy::too_many_arguments)]
    pub fn record(
        &self,
        frame: &mut Frame,
        sets: &GridSets,
        buffers: &GridBuffers,
        push: &[u8],
        unit_count: u32,
        counted: bool,
        beside: Beside,
    ) -> Result<(), Error> {
        let (battle, grid) = (buffers.battle, buffers.grid);
        let layout = GridLayout::new(unit_count);
        if !counted {
            frame.uses(&[
                uses(battle, Access::ComputeWrite),
                uses(buffers.placements, Access::ComputeRead),
                uses(grid, Access::ComputeWrite),
            ]);
            frame.dispatch_with(&self.count, sets.count, push, unit_count)?;
        }
        // One workgroup per chunk of each level; with one super-chunk the
        // second level ends the scan.
        let levels = [layout.cells, layout.chunks(), layout.supers()];
        let scanned = if layout.supers() == 1 { 2 } else { 3 };
        let (beside_uses, record_beside) = beside;
        for (level, ((scan, set), items)) in self
            .scans
            .iter()
            .zip(sets.scans)
            .zip(levels)
            .take(scanned)
            .enumerate()
        {
            if level == 0 {
                let mut declared = vec![uses(grid, Access::ComputeWrite)];
                declared.extend_from_slice(beside_uses);
                frame.uses(&declared);
                record_beside(frame)?;
            } else {
                frame.uses(&[uses(grid, Access::ComputeWrite)]);
            }
            let groups = items.div_ceil(GRID_CHUNK);
            frame.dispatch_with(scan, set, push, groups * GRID_SCAN_THREADS)?;
        }
        frame.uses(&[
            uses(battle, Access::ComputeRead),
            uses(grid, Access::ComputeWrite),
            uses(buffers.marks, Access::ComputeWrite),
        ]);
        frame.dispatch_with(&self.scatter, sets.scatter, push, unit_count)
    }
}
