//! Constants the battle shares with its shaders, as `horde::config` is for
//! the core: `build.rs` includes this file and hands every entry of
//! [`SHADER_CONSTANTS`] to shaderc as a macro definition of the same name.
//! Keep it free of `use` items: it is compiled in two crates.

/// `RegimentState::target` of a regiment with no enemy left standing, and
/// `UnitCombat::regiment` of a unit outside every regiment.
pub const NO_REGIMENT: u32 = u32::MAX;
/// The most regiments a battle holds (both armies): the regiment table and
/// the tallies are fixed arrays of this many records per copy.
pub const MAX_REGIMENTS: u32 = 4096;

/// Regiment states (`RegimentState::state`). Holding: standing in place (a
/// reserve waiting, a rallied regiment, or the winners once no enemy stands).
pub const STATE_HOLDING: u32 = 0;
/// Marching at walk speed towards its goal, wheeling to face it.
pub const STATE_ADVANCING: u32 = 1;
/// Running at the enemy, speeding up over the last metres; the first blows
/// strike harder.
pub const STATE_CHARGING: u32 = 2;
/// In melee: its units fight the enemies within reach.
pub const STATE_ENGAGED: u32 = 3;
/// Chasing a routing regiment for a while.
pub const STATE_PURSUING: u32 = 4;
/// Morale broke: fleeing away from the nearest enemy; may rally once.
pub const STATE_ROUTING: u32 = 5;
/// Fled off the field: out of the battle for good.
pub const STATE_FLED: u32 = 6;
/// Every unit has fallen.
pub const STATE_DESTROYED: u32 = 7;
/// How many states there are (`BattleCounts::regiments`).
pub const REGIMENT_STATES: u32 = 8;

/// The mark (`horde::simulation::SimulationUnits::marks`, RGBA8, red in
/// the low byte) of a living unit whose regiment is in each state, in
/// `STATE_*` order: the debug view that colours units by regiment state.
/// `state_mark` in `battle.glsl` picks from the same constants.
pub const MARK_HOLDING: u32 = rgba8(210, 210, 210);
pub const MARK_ADVANCING: u32 = rgba8(50, 110, 255);
pub const MARK_CHARGING: u32 = rgba8(255, 95, 0);
pub const MARK_ENGAGED: u32 = rgba8(230, 25, 25);
pub const MARK_PURSUING: u32 = rgba8(180, 50, 230);
pub const MARK_ROUTING: u32 = rgba8(255, 230, 25);
pub const MARK_FLED: u32 = rgba8(115, 75, 40);
pub const MARK_DESTROYED: u32 = rgba8(20, 20, 20);
/// The mark of a fallen unit, whatever its regiment does.
pub const MARK_FALLEN: u32 = rgba8(40, 40, 40);
/// Every state's mark, indexed by `STATE_*`.
pub const STATE_MARKS: [u32; REGIMENT_STATES as usize] = [
    MARK_HOLDING,
    MARK_ADVANCING,
    MARK_CHARGING,
    MARK_ENGAGED,
    MARK_PURSUING,
    MARK_ROUTING,
    MARK_FLED,
    MARK_DESTROYED,
];

/// An opaque RGBA8 word, red in the low byte (GLSL's `unpackUnorm4x8`).
const fn rgba8(r: u8, g: u8, b: u8) -> u32 {
    r as u32 | (g as u32) << 8 | (b as u32) << 16 | 0xff << 24
}

/// Regiment roles in the battle plan (`RegimentState::role`).
pub const ROLE_CENTRE: u32 = 0;
/// Wings swing round the enemy's flank before they charge.
pub const ROLE_WING: u32 = 1;
/// Reserves hold until the line falters, then commit (and become centre).
pub const ROLE_RESERVE: u32 = 2;

/// Formations (`RegimentState::formation`): files side by side, ranks deep.
pub const FORMATION_LINE: u32 = 0;
/// A narrow, deep block: as a line, with few files.
pub const FORMATION_COLUMN: u32 = 1;
/// A triangle, apex first: rank `r` holds `2r + 1` units.
pub const FORMATION_WEDGE: u32 = 2;

/// Grid cells per chunk of the prefix sum, and chunks per super-chunk
/// (`passes/grid.rs`): a workgroup of [`GRID_SCAN_THREADS`] scans one
/// chunk. Three levels cover `GRID_CHUNK³` cells; up to `GRID_CHUNK²`
/// (262,144: battles up to 262,144 units) the second level ends the scan.
pub const GRID_CHUNK: u32 = 512;
/// Threads of a scan workgroup, `GRID_CHUNK / GRID_SCAN_THREADS` items each
/// (within the mobile tier's 128 invocations).
pub const GRID_SCAN_THREADS: u32 = 128;
/// The least number of grid cells (one chunk).
pub const GRID_MIN_CELLS: u32 = GRID_CHUNK;
/// Words of one grid entry: the unit, its side (army and whether its
/// regiment stands, [`GRID_ENTRY_BROKEN`]), and where it stood (x, z as
/// `f32` bits): all the neighbour query reads of a neighbour, in one place.
pub const GRID_ENTRY_WORDS: u32 = 4;
/// A grid entry's side word: the unit's army in bit 0, and this bit while
/// its regiment routs or has fled (not standing).
pub const GRID_ENTRY_BROKEN: u32 = 2;
/// Separation pushes are summed as integers of 1/`SEPARATION_SCALE` metres,
/// so their sum does not depend on the order neighbours are visited in.
pub const SEPARATION_SCALE: u32 = 4096;
/// Regiment position sums are integers of 1/`CENTROID_SCALE` metres.
pub const CENTROID_SCALE: u32 = 10;

/// Threads that scan the regiment table for one regiment: the regiment step
/// runs a workgroup of this many per regiment, each reading every
/// `REGIMENT_LANES`th record, and reduces what they found.
pub const REGIMENT_LANES: u32 = 64;

/// The unit step reads a bucket's grid entries this many at a time, and
/// the terrain's slope before the neighbours, when the battle has at most
/// [`READ_AHEAD_UNITS`] units; one at a time and the slope where it is
/// used beyond. A battle that small is about one wave of threads on a
/// large GPU (an H100 holds 270,336): its step is as long as its slowest
/// thread's chain of loads, so loads issued together shorten it. A larger
/// battle is many waves, bound by how many threads fit at once: reading
/// ahead holds more registers, fewer threads fit, and it is slower
/// (`benches/results/regiments/slopes/README.md` measured both).
pub const READ_AHEAD_BATCH: u32 = 4;
pub const READ_AHEAD_UNITS: u32 = 262_144;

/// Words of the terrain's [`TerrainInfo`](crate::gpu_types::TerrainInfo),
/// which the grid buffer holds after its entries, before the heights.
pub const TERRAIN_INFO_WORDS: u32 = 8;
/// Words of its inverse spacing and of its sample counts (x, then z) within
/// it; its origin (x, z) is words 0 and 1.
pub const TERRAIN_INVERSE_SPACING_WORD: u32 = 3;
pub const TERRAIN_SAMPLES_WORD: u32 = 4;

/// Every constant above that the battle's shaders use, by its GLSL name
/// (unsigned integers).
pub const SHADER_CONSTANTS: &[(&str, u32)] = &[
    ("NO_REGIMENT", NO_REGIMENT),
    ("MAX_REGIMENTS", MAX_REGIMENTS),
    ("STATE_HOLDING", STATE_HOLDING),
    ("STATE_ADVANCING", STATE_ADVANCING),
    ("STATE_CHARGING", STATE_CHARGING),
    ("STATE_ENGAGED", STATE_ENGAGED),
    ("STATE_PURSUING", STATE_PURSUING),
    ("STATE_ROUTING", STATE_ROUTING),
    ("STATE_FLED", STATE_FLED),
    ("STATE_DESTROYED", STATE_DESTROYED),
    ("REGIMENT_STATES", REGIMENT_STATES),
    ("MARK_HOLDING", MARK_HOLDING),
    ("MARK_ADVANCING", MARK_ADVANCING),
    ("MARK_CHARGING", MARK_CHARGING),
    ("MARK_ENGAGED", MARK_ENGAGED),
    ("MARK_PURSUING", MARK_PURSUING),
    ("MARK_ROUTING", MARK_ROUTING),
    ("MARK_FLED", MARK_FLED),
    ("MARK_DESTROYED", MARK_DESTROYED),
    ("MARK_FALLEN", MARK_FALLEN),
    ("ROLE_CENTRE", ROLE_CENTRE),
    ("ROLE_WING", ROLE_WING),
    ("ROLE_RESERVE", ROLE_RESERVE),
    ("FORMATION_LINE", FORMATION_LINE),
    ("FORMATION_COLUMN", FORMATION_COLUMN),
    ("FORMATION_WEDGE", FORMATION_WEDGE),
    ("GRID_CHUNK", GRID_CHUNK),
    ("GRID_SCAN_THREADS", GRID_SCAN_THREADS),
    ("GRID_ENTRY_WORDS", GRID_ENTRY_WORDS),
    ("GRID_ENTRY_BROKEN", GRID_ENTRY_BROKEN),
    ("SEPARATION_SCALE", SEPARATION_SCALE),
    ("CENTROID_SCALE", CENTROID_SCALE),
    ("REGIMENT_LANES", REGIMENT_LANES),
    ("TERRAIN_INFO_WORDS", TERRAIN_INFO_WORDS),
    ("TERRAIN_INVERSE_SPACING_WORD", TERRAIN_INVERSE_SPACING_WORD),
    ("TERRAIN_SAMPLES_WORD", TERRAIN_SAMPLES_WORD),
];
