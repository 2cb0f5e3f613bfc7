//! The CPU twin of the battle's spatial grid (`shaders/battle/battle_grid_*.comp`):
//! count, prefix sum, scatter, and the neighbour query the unit step makes.
//! `passes/battle.rs` ("The grid") documents the layout of the `grid` buffer.
//!
//! The twin scatters in unit order; the GPU's order within a cell follows
//! its atomics. Everything that reads the grid is indifferent to that order
//! (integer sums, minima with the unit index as tie-break), so the tests
//! compare cells as sets.

use crate::config::{GRID_CHUNK, GRID_MIN_CELLS};

/// The cells of a battle of `units` unit slots: a power of two, at least
/// one super-chunk ([`GRID_MIN_CELLS`]).
pub fn cell_count(units: u32) -> u32 {
    units
        .checked_next_power_of_two()
        .unwrap_or(1 << 31)
        .max(GRID_MIN_CELLS)
}

/// Where each section of the `grid` buffer starts, in `u32` words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GridLayout {
    pub cells: u32,
    pub units: u32,
}

impl GridLayout {
    pub fn new(units: u32) -> GridLayout {
        GridLayout {
            cells: cell_count(units),
            units,
        }
    }
    /// Living units per cell: counted, then counted down again by the
    /// scatter, so zero between steps.
    pub fn counts(&self) -> usize {
        0
    }
    /// Each cell's first entry, relative to its chunk.
    pub fn starts(&self) -> usize {
        self.cells as usize
    }
    /// Each chunk's first entry, relative to its super-chunk.
    pub fn chunk_starts(&self) -> usize {
        2 * self.cells as usize
    }
    /// Each super-chunk's first entry.
    pub fn super_starts(&self) -> usize {
        self.chunk_starts() + (self.cells / GRID_CHUNK) as usize
    }
    /// Entries in all (living units binned).
    pub fn total(&self) -> usize {
        self.super_starts() + (self.cells / GRID_MIN_CELLS) as usize
    }
    /// Unit indices, grouped by cell.
    pub fn entries(&self) -> usize {
        self.total() + 1
    }
    /// Words in the buffer.
    pub fn words(&self) -> usize {
        self.entries() + self.units as usize
    }

    /// The first entry of `cell`.
    pub fn cell_start(&self, grid: &[u32], cell: u32) -> u32 {
        if cell >= self.cells {
            return grid[self.total()];
        }
        grid[self.starts() + cell as usize]
            + grid[self.chunk_starts() + (cell / GRID_CHUNK) as usize]
            + grid[self.super_starts() + (cell / GRID_MIN_CELLS) as usize]
    }
}

/// `grid_cell` of `battle.glsl`: the cell coordinates of a ground position.
pub fn cell_coords(position: [f32; 2], cell_size: f32) -> [i32; 2] {
    [
        (position[0] / cell_size).floor() as i32,
        (position[1] / cell_size).floor() as i32,
    ]
}

/// `grid_bucket` of `battle.glsl`: the hashed cell of cell coordinates
/// (the field is unbounded: routing units run off it).
pub fn bucket(coords: [i32; 2], cells: u32) -> u32 {
    ((coords[0] as u32).wrapping_mul(73_856_093) ^ (coords[1] as u32).wrapping_mul(19_349_663))
        & (cells - 1)
}

/// The three scans of the prefix sum over `grid`'s counts.
pub fn prefix_sum(layout: &GridLayout, grid: &mut [u32]) {
    let chunks = layout.cells / GRID_CHUNK;
    for chunk in 0..chunks {
        let mut sum = 0u32;
        for cell in chunk * GRID_CHUNK..(chunk + 1) * GRID_CHUNK {
            grid[layout.starts() + cell as usize] = sum;
            sum += grid[layout.counts() + cell as usize];
        }
        grid[layout.chunk_starts() + chunk as usize] = sum;
    }
    let supers = layout.cells / GRID_MIN_CELLS;
    for group in 0..supers {
        let mut sum = 0u32;
        for chunk in group * GRID_CHUNK..(group + 1) * GRID_CHUNK {
            let total = grid[layout.chunk_starts() + chunk as usize];
            grid[layout.chunk_starts() + chunk as usize] = sum;
            sum += total;
        }
        grid[layout.super_starts() + group as usize] = sum;
    }
    let mut sum = 0u32;
    for group in 0..supers {
        let total = grid[layout.super_starts() + group as usize];
        grid[layout.super_starts() + group as usize] = sum;
        sum += total;
    }
    grid[layout.total()] = sum;
}

/// The distinct buckets of the 3×3 cells around `position` (a bucket that
/// two cells hash to is visited once), in a fixed order.
pub fn neighbour_buckets(position: [f32; 2], cell_size: f32, cells: u32) -> ([u32; 9], usize) {
    let centre = cell_coords(position, cell_size);
    let mut buckets = [0u32; 9];
    let mut count = 0;
    for dz in -1..=1 {
        for dx in -1..=1 {
            let b = bucket(
                [centre[0].wrapping_add(dx), centre[1].wrapping_add(dz)],
                cells,
            );
            if !buckets[..count].contains(&b) {
                buckets[count] = b;
                count += 1;
            }
        }
    }
    (buckets, count)
}

/// Every unit binned within the 3×3 cells around `position`, through the
/// grid: a superset of the units within `cell_size` of it.
pub fn neighbours(
    layout: &GridLayout,
    grid: &[u32],
    position: [f32; 2],
    cell_size: f32,
) -> Vec<u32> {
    let (buckets, count) = neighbour_buckets(position, cell_size, layout.cells);
    let mut found = Vec::new();
    for &b in &buckets[..count] {
        let (start, end) = (layout.cell_start(grid, b), layout.cell_start(grid, b + 1));
        found.extend_from_slice(
            &grid[layout.entries() + start as usize..layout.entries() + end as usize],
        );
    }
    found
}
