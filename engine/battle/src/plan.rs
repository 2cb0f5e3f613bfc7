//! The battle plan: each army drawn up from the seed as a centre of line
//! regiments in rows, a wing at each end of the front row, and a reserve
//! behind. Army 0 stands on the −x side facing +x, army 1 on the +x side
//! facing −x, [`GAP`] metres between the front rows.
//!
//! Sizes follow the unit count: a regiment holds about 1.4 √(units per
//! army) units (20 to 1000; more where [`MAX_REGIMENTS`] would be exceeded),
//! so regiments are about √units too, and the regiment step, which scans
//! the table, costs about as much as the unit step. Of an army's
//! regiments a sixth is the reserve, an eighth each wing, the rest the
//! centre. The centre stands in rows of divisions of `DIVISION` (two)
//! regiments with gaps between them, as many rows as make it
//! `CENTRE_ASPECT` (two) times as wide as deep, so an army of any size stands
//! in a box about twice as wide as deep and the whole field is about
//! square: one camera frames it whole, and regiments stay apart on screen
//! (a single row of a million units' regiments would run 18 km). Centre
//! regiments stand in line (three files per rank of depth); the wing at
//! the −z end stands in wedges and the one at the +z end in columns, each
//! a block beside its end of the centre, front to back, then outwards, no
//! deeper than the centre; the reserve stands in columns, in rows behind
//! the centre no wider than it. The seed gives each regiment its starting
//! morale (0.8 to 1.2), and each unit its hit points and a little jitter
//! in its slot; the layout, and so the armies' extent, follows from the
//! unit count alone. Units are laid out regiment by regiment, slot by
//! slot: unit ids are army 0's regiments, then army 1's.

use horde::gpu_types::UnitPlacement;

use crate::config::{
    FORMATION_COLUMN, FORMATION_LINE, FORMATION_WEDGE, MAX_REGIMENTS, ROLE_CENTRE, ROLE_RESERVE,
    ROLE_WING,
};
use crate::reference::battle::{battle_hash, slot_position};
use crate::terrain::Terrain;
use crate::{BattleRules, BattleSetup, RegimentSetup};

/// Metres between the armies' front rows when the battle begins.
pub const GAP: f32 = 40.0;
/// Metres between regiments side by side, and between rows.
const INTERVAL: f32 = 6.0;
const ROW_GAP: f32 = 12.0;
/// The centre's width over its depth: with the wings beside it and the
/// reserve behind, an army stands in a box about twice as wide as deep, so
/// the two armies and the gap make a field about as deep as it is wide,
/// which one camera frames whole and close enough to tell regiments apart.
const CENTRE_ASPECT: f32 = 2.0;
/// Metres between the centre's last row and the reserve.
const RESERVE_GAP: f32 = 25.0;
/// The centre's rows are divisions of this many regiments side by side,
/// [`DIVISION_GAP`] metres apart: each meets the enemy as its own front
/// (the 10k battle's three fronts at 60 s, `tests/battle.rs`).
const DIVISION: u32 = 2;
const DIVISION_GAP: f32 = 30.0;

/// A unit as the plan places it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlannedUnit {
    pub army: u32,
    pub regiment: u32,
    /// Ground position (x, z) and heading (radians, `atan2(x, z)` of its
    /// facing).
    pub position: [f32; 2],
    pub heading: f32,
}

/// The armies drawn up: the battle's setup and where every unit stands.
#[derive(Clone, Debug, PartialEq)]
pub struct BattlePlan {
    pub setup: BattleSetup,
    pub units: Vec<PlannedUnit>,
    /// Half the extent (x, z) of the box the armies stand in, around the
    /// origin.
    pub half_extent: [f32; 2],
}

impl BattlePlan {
    /// The units' placements as the plan stands them, on its terrain.
    pub fn placements(&self) -> Vec<UnitPlacement> {
        let terrain = &self.setup.terrain;
        self.units
            .iter()
            .map(|unit| UnitPlacement {
                position: [
                    unit.position[0],
                    terrain.height(unit.position),
                    unit.position[1],
                ],
                heading: unit.heading,
            })
            .collect()
    }
}

/// A small seeded generator (splitmix64).
struct Dice(u64);

impl Dice {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }
    fn below(&mut self, n: u32) -> u32 {
        (self.next() % u64::from(n.max(1))) as u32
    }
}

/// Units per regiment for an army of `count`.
pub fn regiment_size(count: u32) -> u32 {
    let by_root = ((count as f32).sqrt() * 1.4).round() as u32;
    let by_limit = count.div_ceil(MAX_REGIMENTS / 2);
    by_root.clamp(20, 1000).max(by_limit).max(1)
}

/// The files of a regiment of `units` units in `formation`: a line three
/// per rank of depth, a wedge or column half the square root.
fn files(formation: u32, units: u32) -> u32 {
    match formation {
        FORMATION_LINE => ((units as f32 * 3.0).sqrt().ceil() as u32).max(1),
        _ => ((units as f32).sqrt().ceil() as u32 / 2).max(1),
    }
}

/// Width and depth of a regiment of `units` units in `formation` at
/// `spacing`, with the [`files`] [`draw_up`] gives it.
fn formation_extent(formation: u32, units: u32, spacing: f32) -> [f32; 2] {
    RegimentSetup {
        army: 0,
        role: ROLE_CENTRE,
        formation,
        files: files(formation, units),
        first_unit: 0,
        unit_count: units,
        anchor: [0.0; 2],
        facing: [1.0, 0.0],
        morale: 1.0,
    }
    .extent(spacing)
}

/// The z of column `column` of a centre row of `in_row` regiments `pitch`
/// apart, in divisions of [`DIVISION`] with [`DIVISION_GAP`] between them,
/// centred on z = 0.
fn centre_z(column: u32, in_row: u32, pitch: f32) -> f32 {
    let (division, divisions) = (column / DIVISION, in_row.div_ceil(DIVISION));
    (column as f32 - (in_row - 1) as f32 / 2.0) * pitch
        + (division as f32 - (divisions - 1) as f32 / 2.0) * DIVISION_GAP
}

/// The middle of the gap between two divisions of a centre row of `in_row`
/// regiments nearest `z`; none in a row of one division.
fn division_gap_near(z: f32, in_row: u32, pitch: f32) -> Option<f32> {
    (1..in_row.div_ceil(DIVISION))
        .map(|division| {
            let first = division * DIVISION;
            (centre_z(first - 1, in_row, pitch) + centre_z(first, in_row, pitch)) / 2.0
        })
        .min_by(|a, b| (a - z).abs().total_cmp(&(b - z).abs()))
}

/// Where the `index`th of `count` blocks stands across a row of `columns`
/// blocks `pitch` apart, centred on z = 0: its row and its z.
fn centred_slot(index: u32, count: u32, columns: u32, pitch: f32) -> (u32, f32) {
    let (row, column) = (index / columns, index % columns);
    let in_row = columns.min(count - row * columns);
    (row, (column as f32 - (in_row - 1) as f32 / 2.0) * pitch)
}

/// Where the armies stand, from the unit count and spacing alone.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlanExtent {
    /// Half the extent (x, z) of the box the armies stand in, around the
    /// origin.
    pub half_extent: [f32; 2],
    /// The z where the stretch of front the camera presets look along
    /// begins: the gap between two of the centre's front divisions nearest
    /// a quarter of the way along the centre, clear of the wings that march
    /// round the line's ends; the centre's near end when no gap lies in its
    /// near half (a row of one or two divisions), so the stretch is not
    /// just the far half.
    pub front_stretch_start: f32,
}

/// The regiments of `units` units (army 0 the odd one) at `spacing`, their
/// morale from `dice`, and where they stand.
fn draw_up(units: u32, spacing: f32, dice: &mut Dice) -> (Vec<RegimentSetup>, PlanExtent) {
    let armies = [units.div_ceil(2), units / 2];
    let mut regiments = Vec::new();
    let mut first_unit = 0u32;
    let mut half_extent = [0.0f32; 2];
    let mut front_stretch_start = 0.0f32;
    for (army, &count) in armies.iter().enumerate() {
        let army = army as u32;
        if count == 0 {
            continue;
        }
        let size = regiment_size(count);
        let total = count.div_ceil(size);
        let reserve = total / 6;
        let per_wing = total / 8;
        let centre = total - reserve - 2 * per_wing;
        let side = if army == 0 { -1.0 } else { 1.0 };
        let facing = [-side, 0.0];
        let front = GAP / 2.0;
        // The centre: rows of divisions, as wide as CENTRE_ASPECT times deep.
        let [line_width, line_depth] = formation_extent(FORMATION_LINE, size, spacing);
        let (pitch, row_depth) = (line_width + INTERVAL, line_depth + ROW_GAP);
        let per_row = ((centre as f32 * CENTRE_ASPECT * row_depth / pitch)
            .sqrt()
            .round() as u32)
            .clamp(1, centre.max(1));
        let rows = centre.div_ceil(per_row);
        let divisions = per_row.div_ceil(DIVISION);
        let centre_half = (per_row as f32 * pitch + (divisions - 1) as f32 * DIVISION_GAP) / 2.0;
        let centre_depth = rows as f32 * row_depth;
        if army == 0 {
            front_stretch_start = division_gap_near(-centre_half / 2.0, per_row.min(centre), pitch)
                .filter(|&gap| gap <= -centre_half / 4.0)
                .unwrap_or(-centre_half);
        }
        // The wings: a block beside each end of the centre, no deeper than it.
        let wing_rows = |formation: u32| {
            let depth = formation_extent(formation, size, spacing)[1] + ROW_GAP;
            ((centre_depth / depth).floor() as u32).clamp(1, per_wing.max(1))
        };
        // The reserve: rows of columns behind the centre, no wider than it.
        let [column_width, column_depth] = formation_extent(FORMATION_COLUMN, size, spacing);
        let reserve_pitch = (pitch * 0.5).max(column_width + INTERVAL);
        let reserve_columns =
            ((2.0 * centre_half / reserve_pitch).floor() as u32).clamp(1, reserve.max(1));
        // Roles in order: centre row by row, the wings, then the reserve.
        let mut roles = Vec::with_capacity(total as usize);
        roles.extend((0..centre).map(|i| (ROLE_CENTRE, i)));
        roles.extend((0..2 * per_wing).map(|i| (ROLE_WING, i)));
        roles.extend((0..reserve).map(|i| (ROLE_RESERVE, i)));
        let mut left = count;
        for (index, &(role, within)) in roles.iter().enumerate() {
            let unit_count = left.div_ceil(total - index as u32);
            left -= unit_count;
            let formation = match role {
                ROLE_CENTRE => FORMATION_LINE,
                ROLE_WING if within % 2 == 0 => FORMATION_WEDGE,
                _ => FORMATION_COLUMN,
            };
            let mut regiment = RegimentSetup {
                army,
                role,
                formation,
                files: files(formation, unit_count),
                first_unit,
                unit_count,
                anchor: [0.0; 2],
                facing,
                morale: 0.8 + 0.4 * dice.unit(),
            };
            let [width, depth] = regiment.extent(spacing);
            let (x, z) = match role {
                ROLE_CENTRE => {
                    let (row, column) = (within / per_row, within % per_row);
                    let in_row = per_row.min(centre - row * per_row);
                    (
                        front + row as f32 * row_depth,
                        centre_z(column, in_row, pitch),
                    )
                }
                ROLE_WING => {
                    // Wedges at the −z end, columns at the +z end; front to
                    // back, then outwards.
                    let end = if within % 2 == 0 { -1.0 } else { 1.0 };
                    let [wing_width, wing_depth] = formation_extent(formation, size, spacing);
                    let wing_rows = wing_rows(formation);
                    let place = within / 2;
                    let (row, column) = (place % wing_rows, place / wing_rows);
                    (
                        front + row as f32 * (wing_depth + ROW_GAP),
                        end * (centre_half
                            + INTERVAL
                            + (column as f32 + 0.5) * (wing_width + INTERVAL)),
                    )
                }
                _ => {
                    let (row, z) = centred_slot(within, reserve, reserve_columns, reserve_pitch);
                    (
                        front + centre_depth + RESERVE_GAP + row as f32 * (column_depth + ROW_GAP),
                        z,
                    )
                }
            };
            regiment.anchor = [side * x, z];
            half_extent[0] = half_extent[0].max(x + depth);
            half_extent[1] = half_extent[1].max(z.abs() + width / 2.0);
            first_unit += unit_count;
            regiments.push(regiment);
        }
    }
    let extent = PlanExtent {
        half_extent,
        front_stretch_start,
    };
    (regiments, extent)
}

/// Where `units` units stand at `spacing`.
pub fn plan_extent(units: u32, spacing: f32) -> PlanExtent {
    draw_up(units, spacing, &mut Dice(0)).1
}

/// Draws up `units` units (army 0 the odd one) under `rules`, from `seed`.
pub fn battle_plan(units: u32, seed: u64, rules: BattleRules) -> BattlePlan {
    let mut dice = Dice(seed ^ u64::from(battle_hash(0x0ba7_71e5)));
    let spacing = rules.spacing;
    let (regiments, extent) = draw_up(units, spacing, &mut dice);
    let mut placed = Vec::with_capacity(units as usize);
    let mut health = Vec::with_capacity(units as usize);
    for (index, regiment) in regiments.iter().enumerate() {
        let state = regiment.state(spacing);
        let heading = regiment.facing[0].atan2(regiment.facing[1]);
        for slot in 0..regiment.unit_count {
            let at = slot_position(&state, slot, spacing);
            placed.push(PlannedUnit {
                army: regiment.army,
                regiment: index as u32,
                position: [
                    at[0] + (dice.unit() - 0.5) * 0.3,
                    at[1] + (dice.unit() - 0.5) * 0.3,
                ],
                heading,
            });
            health.push(90 + dice.below(41) as i32);
        }
    }
    BattlePlan {
        setup: BattleSetup {
            rules,
            regiments,
            health,
            terrain: Terrain::flat(extent.half_extent[0].max(extent.half_extent[1])),
        },
        units: placed,
        half_extent: extent.half_extent,
    }
}
