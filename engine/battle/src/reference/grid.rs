//! The CPU twin of the battle's spatial grid (`shaders/battle/battle_grid_*.comp`):
//! count, prefix sum, scatter, and the neighbour query the unit step makes.
//! `passes/battle.rs` ("The grid") documents the layout of the `grid` buffer.
//!
//! The twin scatters in unit order; the GPU's order within a cell follows
//! its atomics. Everything that reads the grid is indifferent to that order
//! (integer sums, minima with the unit index as tie-break), so the tests
//! compare cells as sets.

use crate::config::{GRID_CHUNK, GRID_ENTRY_WORDS, GRID_MIN_CELLS};

/// The most cells three levels of the prefix sum scan: `GRID_CHUNK³`.
pub const MAX_CELLS: u32 = GRID_CHUNK * GRID_CHUNK * GRID_CHUNK;

/// The cells of a battle of `units` unit slots: a power of two, at least
/// one chunk ([`GRID_MIN_CELLS`]).
pub fn cell_count(units: u32) -> u32 {
    units
        .checked_next_power_of_two()
        .unwrap_or(1 << 31)
        .max(GRID_MIN_CELLS)
}

/// What a grid entry holds ([`GRID_ENTRY_WORDS`] words): what the
/// neighbour query reads of a unit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GridEntry {
    pub unit: u32,
    /// Its army, plus [`GRID_ENTRY_BROKEN`](crate::config::GRID_ENTRY_BROKEN)
    /// while its regiment does not stand.
    pub side: u32,
    /// Where it stood (x, z) when binned: its `grid_position`.
    pub position: [f32; 2],
}

impl GridEntry {
    /// Its words, as the scatter writes them.
    pub fn words(&self) -> [u32; GRID_ENTRY_WORDS as usize] {
        [
            self.unit,
            self.side,
            self.position[0].to_bits(),
            self.position[1].to_bits(),
        ]
    }
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
    /// Chunks of [`GRID_CHUNK`] cells.
    pub fn chunks(&self) -> u32 {
        self.cells / GRID_CHUNK
    }
    /// Super-chunks of [`GRID_CHUNK`] chunks (the last may be partial).
    pub fn supers(&self) -> u32 {
        self.chunks().div_ceil(GRID_CHUNK)
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
        self.chunk_starts() + self.chunks() as usize
    }
    /// Entries in all (living units binned).
    pub fn total(&self) -> usize {
        self.super_starts() + self.supers() as usize
    }
    /// The entries, grouped by cell, [`GRID_ENTRY_WORDS`] words each.
    pub fn entries(&self) -> usize {
        self.total() + 1
    }
    /// Words in the buffer.
    pub fn words(&self) -> usize {
        self.entries() + self.units as usize * GRID_ENTRY_WORDS as usize
    }

    /// The first entry of `cell`.
    pub fn cell_start(&self, grid: &[u32], cell: u32) -> u32 {
        if cell >= self.cells {
            return grid[self.total()];
        }
        grid[self.starts() + cell as usize]
            + grid[self.chunk_starts() + (cell / GRID_CHUNK) as usize]
            + grid[self.super_starts() + (cell / (GRID_CHUNK * GRID_CHUNK)) as usize]
    }

    /// The words of entry `index`.
    fn entry_words(&self, index: u32) -> std::ops::Range<usize> {
        let first = self.entries() + index as usize * GRID_ENTRY_WORDS as usize;
        first..first + GRID_ENTRY_WORDS as usize
    }

    /// Entry `index`.
    pub fn entry(&self, grid: &[u32], index: u32) -> GridEntry {
        let words = &grid[self.entry_words(index)];
        GridEntry {
            unit: words[0],
            side: words[1],
            position: [f32::from_bits(words[2]), f32::from_bits(words[3])],
        }
    }

    /// Writes entry `index`, as the scatter does.
    pub fn set_entry(&self, grid: &mut [u32], index: u32, entry: &GridEntry) {
        grid[self.entry_words(index)].copy_from_slice(&entry.words());
    }

    /// The entries of `cell`.
    pub fn cell_entries(&self, grid: &[u32], cell: u32) -> Vec<GridEntry> {
        (self.cell_start(grid, cell)..self.cell_start(grid, cell + 1))
            .map(|index| self.entry(grid, index))
            .collect()
    }

    /// The words of every cell's entries in an order independent of the
    /// scatter's atomics: each cell's entries sorted by unit.
    pub fn sort_cells(&self, grid: &mut [u32]) {
        for cell in 0..self.cells {
            let mut entries = self.cell_entries(grid, cell);
            entries.sort_unstable_by_key(|entry| entry.unit);
            let start = self.cell_start(grid, cell);
            for (index, entry) in (start..).zip(&entries) {
                self.set_entry(grid, index, entry);
            }
        }
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

/// One level of `battle_grid_scan.comp`: `items` words from `source`
/// become, at `target`, starts relative to their chunk of [`GRID_CHUNK`];
/// each chunk's total goes to `totals`.
fn scan_level(grid: &mut [u32], items: u32, source: usize, target: usize, totals: usize) {
    for chunk in 0..items.div_ceil(GRID_CHUNK) {
        let mut sum = 0u32;
        for item in chunk * GRID_CHUNK..((chunk + 1) * GRID_CHUNK).min(items) {
            let count = grid[source + item as usize];
            grid[target + item as usize] = sum;
            sum += count;
        }
        grid[totals + chunk as usize] = sum;
    }
}

/// The three levels of the prefix sum over `grid`'s counts.
pub fn prefix_sum(layout: &GridLayout, grid: &mut [u32]) {
    let (chunk_starts, super_starts) = (layout.chunk_starts(), layout.super_starts());
    scan_level(
        grid,
        layout.cells,
        layout.counts(),
        layout.starts(),
        chunk_starts,
    );
    scan_level(
        grid,
        layout.chunks(),
        chunk_starts,
        chunk_starts,
        super_starts,
    );
    scan_level(
        grid,
        layout.supers(),
        super_starts,
        super_starts,
        layout.total(),
    );
}

/// The distinct buckets of the cells that the square of half-side
/// `radius` around `position` overlaps, within the 3×3 around its cell (a
/// bucket that two cells hash to is visited once), in a fixed order:
/// `look_around` of `battle_units.comp`. `radius` is at most `cell_size`.
pub fn neighbour_buckets(
    position: [f32; 2],
    radius: f32,
    cell_size: f32,
    cells: u32,
) -> ([u32; 9], usize) {
    let centre = cell_coords(position, cell_size);
    let low = cell_coords([position[0] - radius, position[1] - radius], cell_size);
    let high = cell_coords([position[0] + radius, position[1] + radius], cell_size);
    let axis =
        |a: usize| low[a].max(centre[a].wrapping_sub(1))..=high[a].min(centre[a].wrapping_add(1));
    let mut buckets = [0u32; 9];
    let mut count = 0;
    for z in axis(1) {
        for x in axis(0) {
            let b = bucket([x, z], cells);
            if !buckets[..count].contains(&b) {
                buckets[count] = b;
                count += 1;
            }
        }
    }
    (buckets, count)
}

/// The entries of every unit binned in the cells that the square of
/// half-side `radius` (at most `cell_size`) around `position` overlaps,
/// through the grid: a superset of the units within `radius` of it.
pub fn neighbour_entries(
    layout: &GridLayout,
    grid: &[u32],
    position: [f32; 2],
    radius: f32,
    cell_size: f32,
) -> Vec<GridEntry> {
    let (buckets, count) = neighbour_buckets(position, radius, cell_size, layout.cells);
    buckets[..count]
        .iter()
        .flat_map(|&b| layout.cell_entries(grid, b))
        .collect()
}

/// The units of [`neighbour_entries`].
pub fn neighbours(
    layout: &GridLayout,
    grid: &[u32],
    position: [f32; 2],
    radius: f32,
    cell_size: f32,
) -> Vec<u32> {
    neighbour_entries(layout, grid, position, radius, cell_size)
        .iter()
        .map(|entry| entry.unit)
        .collect()
}
