//! The battle: the GPU battle pass against its CPU twin step by step (the
//! grid included), the grid's neighbour query against brute force, the
//! separation of living units, flank attacks against frontal ones, the
//! length of a 10k battle on the CPU twin, determinism of whole headless
//! runs at two frame rates, and a reference screenshot.

use horde::camera::Camera;
use horde::config::ANIM_COMMAND_DEAD;
use horde::gpu_types::{UnitMotion, UnitPlacement};
use horde::renderer::{Renderer, Strategy};
use horde_bake::cache::CacheOptions;
use horde_battle::config::{
    FORMATION_LINE, FORMATION_WEDGE, MARK_FALLEN, MAX_REGIMENTS, ROLE_CENTRE, ROLE_RESERVE,
    STATE_CHARGING, STATE_MARKS, STATE_PURSUING, STATE_ROUTING,
};
use horde_battle::passes::battle::entry_batch;
use horde_battle::plan::{battle_plan, BattlePlan, PlannedUnit};
use horde_battle::reference::battle::{
    self as battle_reference, slot_position, standing, BattleState, CpuBattle,
};
use horde_battle::reference::grid::{
    bucket, cell_coords, neighbours, prefix_sum, GridEntry, GridLayout,
};
use horde_battle::terrain::Terrain;
use horde_battle::{Battle, BattleReadback, BattleRules, BattleSetup, RegimentSetup};
use horde_tests::{compare_with_reference, finish, gpu_context, Tolerance};
use horde_tools::battle::{
    battle_scene, battle_scene_of, BattleCamera, BattleOptions, BattleScene,
};
use horde_tools::headless::{check_capacity, run_headless, unit_capacity, HeadlessOptions};

fn options(units: u32, rules: BattleRules) -> BattleOptions {
    BattleOptions {
        units,
        props: 12,
        seed: 7,
        encoding: horde::asset::BoneEncoding::Mat3x4F32,
        models: Vec::new(),
        cache: CacheOptions::default(),
        rules,
        clip_map: Vec::new(),
    }
}

fn small_battle(units: u32, rules: BattleRules) -> BattleScene {
    horde_tests::init_logging();
    battle_scene(&options(units, rules)).expect("battle scene")
}

/// Fast rules, so a test battle marches, clashes, routs and ends in a few
/// hundred steps.
fn quick_rules() -> BattleRules {
    BattleRules {
        walk_speed: 3.0,
        run_speed: 5.0,
        charge_speed: 6.0,
        charge_ramp_seconds: 1.0,
        charge_distance: 12.0,
        damage_min: 40,
        damage_range: 30,
        attack_seconds: 0.5,
        corpse_seconds: 1.0,
        sink_speed: 1.0,
        rally_distance: 15.0,
        flee_distance: 30.0,
        morale_recovery: 0.05,
        morale_per_casualty: 1.5,
        morale_per_flank_hit: 0.3,
        morale_per_rear_hit: 0.6,
        army_break_fraction: 0.9,
        ..BattleRules::default()
    }
}

/// A regiment of `count` units at `anchor` facing `facing`, its units
/// `first_unit..`.
fn regiment(
    army: u32,
    formation: u32,
    first_unit: u32,
    count: u32,
    anchor: [f32; 2],
    facing: [f32; 2],
    morale: f32,
) -> RegimentSetup {
    RegimentSetup {
        army,
        role: ROLE_CENTRE,
        formation,
        files: 8,
        first_unit,
        unit_count: count,
        anchor,
        facing,
        morale,
    }
}

/// A plan of `regiments`, each unit in its slot, full hit points.
fn plan_of(rules: BattleRules, regiments: Vec<RegimentSetup>) -> BattlePlan {
    let mut units = Vec::new();
    for (index, regiment) in regiments.iter().enumerate() {
        let state = regiment.state(rules.spacing);
        for slot in 0..regiment.unit_count {
            units.push(PlannedUnit {
                army: regiment.army,
                regiment: index as u32,
                position: slot_position(&state, slot, rules.spacing),
                heading: regiment.facing[0].atan2(regiment.facing[1]),
            });
        }
    }
    BattlePlan {
        setup: BattleSetup {
            rules,
            health: vec![100; units.len()],
            regiments,
            // Low hills, so the units' heights are compared too.
            terrain: Terrain::generate(5, 60.0, 3.0),
        },
        units,
        half_extent: [60.0, 60.0],
    }
}

/// A skirmish of 208 units: a shaky line of army 0 with a shaky wedge of army 1
/// in front of it, and a line of army 1 off its flank, wheeling in to
/// charge it; a second line of army 0 further off, that the flank attack
/// falls on next.
fn skirmish(rules: BattleRules) -> BattlePlan {
    plan_of(
        rules,
        vec![
            regiment(0, FORMATION_LINE, 0, 48, [-4.0, 0.0], [1.0, 0.0], 0.6),
            regiment(1, FORMATION_WEDGE, 48, 49, [14.0, 0.0], [-1.0, 0.0], 0.5),
            regiment(1, FORMATION_LINE, 97, 48, [-10.0, 26.0], [0.0, -1.0], 1.0),
            regiment(0, FORMATION_LINE, 145, 63, [-20.0, -30.0], [1.0, 0.0], 1.0),
        ],
    )
}

struct GpuState {
    battle: BattleReadback,
    placements: Vec<UnitPlacement>,
    motions: Vec<UnitMotion>,
    marks: Vec<u32>,
}

fn read(ctx: &horde::context::Context, renderer: &Renderer) -> GpuState {
    let units = renderer.world.read_unit_state(ctx).expect("read units");
    GpuState {
        battle: renderer
            .simulation::<Battle>()
            .expect("a battle")
            .read_state(ctx)
            .expect("read battle"),
        placements: units.placements,
        motions: units.motions,
        marks: units.marks,
    }
}

/// The grid's entries of every cell, sorted by unit (the order within a
/// cell follows the GPU's atomics).
fn cells_as_sets(layout: &GridLayout, grid: &[u32]) -> Vec<Vec<GridEntry>> {
    (0..layout.cells)
        .map(|cell| {
            let mut entries = layout.cell_entries(grid, cell);
            entries.sort_unstable_by_key(|entry| entry.unit);
            entries
        })
        .collect()
}

/// Every GPU step equals the CPU twin applied to the GPU's previous state:
/// the grid (cells as sets), the regiments, the tallies, the counts, the
/// combat records, the motions and the positions exactly, the headings
/// within 1e-4 rad (GPU `atan` is loose). The skirmish covers marching,
/// wheeling, charges, a flank attack, routs and pursuit.
#[test]
fn battle_pass_equals_cpu_reference_step_by_step() {
    let mut ctx = gpu_context(None);
    let rules = quick_rules();
    let plan = skirmish(rules);
    let units = plan.units.len() as u32;
    let terrain = plan.setup.terrain.clone();
    let battle = battle_scene_of(&options(units, rules), plan).expect("battle scene");
    let (mut renderer, target) = horde_tests::offscreen_renderer(&mut ctx, &battle.scene, 32, 32);
    // The marks view on: the battle writes the marks only while they show.
    renderer.settings.color_by_mark = true;
    let camera = Camera::look_at(glam::Vec3::new(0.0, 50.0, 1.0), glam::Vec3::ZERO);
    // Frame 0 only uploads the spawns.
    renderer
        .render_offscreen(&ctx, &target, &camera, 0.0, true)
        .expect("frame");
    let layout = GridLayout::new(units);
    let mut before = read(&ctx, &renderer);
    let (mut deaths, mut charged, mut pursued) = (0, false, false);
    for step in 0..450 {
        renderer
            .simulation_mut::<Battle>()
            .expect("battle")
            .queue_steps(1);
        renderer
            .render_offscreen(&ctx, &target, &camera, rules.step_seconds, true)
            .expect("frame");
        let after = read(&ctx, &renderer);
        let fallen_before: Vec<bool> = before.battle.combat.iter().map(|f| f.health <= 0).collect();
        let mut expected = before;
        battle_reference::step(
            step,
            &mut BattleState {
                header: &mut expected.battle.header,
                tallies: &mut expected.battle.tallies,
                regiments: &mut expected.battle.regiments,
                regiment_count: 4,
                combat: &mut expected.battle.combat,
                grid: &mut expected.battle.grid,
                placements: &mut expected.placements,
                motions: &mut expected.motions,
                terrain: &terrain,
            },
        );
        let (gpu, cpu) = (&after.battle.grid, &expected.battle.grid);
        assert_eq!(
            gpu[layout.starts()..layout.entries()],
            cpu[layout.starts()..layout.entries()],
            "grid starts after step {step}"
        );
        assert_eq!(
            gpu[..layout.starts()],
            cpu[..layout.starts()],
            "grid counts"
        );
        assert_eq!(
            cells_as_sets(&layout, gpu),
            cells_as_sets(&layout, cpu),
            "grid cells after step {step}"
        );
        assert_eq!(
            after.battle.combat, expected.battle.combat,
            "combat after step {step}"
        );
        assert_eq!(
            after.battle.regiments, expected.battle.regiments,
            "regiments after step {step}"
        );
        assert_eq!(
            after.battle.tallies, expected.battle.tallies,
            "tallies after step {step}"
        );
        assert_eq!(
            after.battle.header, expected.battle.header,
            "counts after step {step}"
        );
        assert_eq!(after.motions, expected.motions, "motions after step {step}");
        for (unit, (gpu, cpu)) in after
            .placements
            .iter()
            .zip(&expected.placements)
            .enumerate()
        {
            assert_eq!(
                gpu.position, cpu.position,
                "unit {unit} position after step {step}"
            );
            let turn = (gpu.heading - cpu.heading).abs();
            assert!(
                turn < 1e-4 || (turn - std::f32::consts::TAU).abs() < 1e-4,
                "unit {unit} heading after step {step}: GPU {} CPU {}",
                gpu.heading,
                cpu.heading
            );
        }
        let copy = ((step + 1) & 1) * MAX_REGIMENTS;
        let table = &after.battle.regiments[copy as usize..copy as usize + 4];
        // The debug view's marks, written by the scatter: each unit's
        // regiment's state, or fallen if it had fallen before the step.
        for (unit, fighter) in after.battle.combat.iter().enumerate() {
            let want = match table.get(fighter.regiment as usize) {
                Some(_) if fallen_before[unit] => MARK_FALLEN,
                Some(regiment) => STATE_MARKS[regiment.state as usize],
                None => 0,
            };
            assert_eq!(
                after.marks[unit], want,
                "unit {unit}'s mark after step {step}"
            );
        }
        charged |= table.iter().any(|r| r.state == STATE_CHARGING);
        pursued |= table.iter().any(|r| r.state == STATE_PURSUING);
        deaths = after
            .motions
            .iter()
            .filter(|m| m.anim_commands & ANIM_COMMAND_DEAD != 0)
            .count();
        before = after;
    }
    // The comparison covered charges, flank attacks, deaths, routs and pursuit.
    let totals = before.battle.header.totals;
    println!("deaths {deaths}, totals {totals:?}, pursued {pursued}");
    assert!(charged, "no regiment charged");
    assert!(totals.flank_attacks >= 3, "flank attacks: {totals:?}");
    assert!(totals.routs >= 2, "routs: {totals:?}");
    assert!(pursued, "no regiment pursued");
    assert!(deaths > 20, "only {deaths} deaths in the compared steps");
}

/// The GPU's grid equals the CPU twin's after the first step of a battle of
/// 300,000 units, whose prefix sum runs all three levels, the first two
/// with several workgroups (1,024 chunks in two super-chunks; smaller
/// battles, as every other test's, end it at the second): the counts and
/// starts exactly, the cells as sets.
#[test]
fn grid_on_the_gpu_equals_the_cpu_twin_on_a_large_battle() {
    let mut ctx = gpu_context(None);
    let battle = small_battle(300_000, BattleRules::default());
    let (mut renderer, target) = horde_tests::offscreen_renderer(&mut ctx, &battle.scene, 32, 32);
    let camera = Camera::look_at(glam::Vec3::new(0.0, 50.0, 1.0), glam::Vec3::ZERO);
    renderer
        .render_offscreen(&ctx, &target, &camera, 0.0, true)
        .expect("frame");
    let mut expected = read(&ctx, &renderer);
    let gpu = renderer.simulation_mut::<Battle>().expect("battle");
    let regiment_count = gpu.regiment_count;
    gpu.queue_steps(1);
    renderer
        .render_offscreen(&ctx, &target, &camera, 1.0 / 30.0, true)
        .expect("frame");
    let after = read(&ctx, &renderer);
    let units = after.battle.combat.len() as u32;
    let layout = GridLayout::new(units);
    assert!(layout.supers() > 1, "{units} units fill one super-chunk");
    battle_reference::step(
        0,
        &mut BattleState {
            header: &mut expected.battle.header,
            tallies: &mut expected.battle.tallies,
            regiments: &mut expected.battle.regiments,
            regiment_count,
            combat: &mut expected.battle.combat,
            grid: &mut expected.battle.grid,
            placements: &mut expected.placements,
            motions: &mut expected.motions,
            terrain: &battle.terrain,
        },
    );
    let (gpu, cpu) = (&after.battle.grid, &expected.battle.grid);
    assert_eq!(cpu[layout.total()], gpu[layout.total()], "binned units");
    assert!(cpu[layout.total()] > 250_000, "most units are binned");
    assert!(
        gpu[..layout.entries()] == cpu[..layout.entries()],
        "grid counts and starts"
    );
    assert!(
        cells_as_sets(&layout, gpu) == cells_as_sets(&layout, cpu),
        "grid cells"
    );
    // A battle this large reads the grid one entry at a time (the small
    // skirmish of the step-by-step test reads ahead): the units move as
    // the twin moves them.
    assert_eq!(entry_batch(units), 1);
    assert!(after.motions == expected.motions, "unit motions");
    assert!(
        after.marks.iter().all(|&mark| mark == 0),
        "marks written while the frame does not show them"
    );
    assert!(
        after
            .placements
            .iter()
            .zip(&expected.placements)
            .all(|(gpu, cpu)| gpu.position == cpu.position),
        "unit positions"
    );
}

/// The grid's query around a point finds every unit within the radius it
/// is asked for (a cell, the reach, the separation; brute force), each
/// once, on random layouts of all densities.
#[test]
fn grid_neighbour_query_equals_brute_force_on_random_layouts() {
    let mut seed = 0x2545_f491_u32;
    let mut random = || {
        seed = battle_reference::battle_hash(seed);
        seed as f32 / u32::MAX as f32
    };
    for (units, extent) in [
        (1u32, 5.0f32),
        (50, 3.0),
        (3000, 40.0),
        (5000, 400.0),
        (9000, 25.0),
        (70_000, 300.0),
    ] {
        let cell = 2.5;
        let positions: Vec<[f32; 2]> = (0..units)
            .map(|_| {
                [
                    (random() - 0.5) * extent * 2.0,
                    (random() - 0.5) * extent * 2.0,
                ]
            })
            .collect();
        let layout = GridLayout::new(units);
        let mut grid = vec![0u32; layout.words()];
        let cells: Vec<u32> = positions
            .iter()
            .map(|&p| bucket(cell_coords(p, cell), layout.cells))
            .collect();
        for &c in &cells {
            grid[c as usize] += 1;
        }
        prefix_sum(&layout, &mut grid);
        assert_eq!(grid[layout.total()], units);
        for (unit, &c) in cells.iter().enumerate() {
            grid[c as usize] -= 1;
            let slot = layout.cell_start(&grid, c) + grid[c as usize];
            let entry = GridEntry {
                unit: unit as u32,
                side: 0,
                position: positions[unit],
            };
            layout.set_entry(&mut grid, slot, &entry);
        }
        let every = (units as usize / 1500).max(7);
        // The radii the unit step looks within: the engage radius (a
        // cell), the reach and the separation.
        for radius in [cell, 1.3, 0.9] {
            for (unit, &p) in positions.iter().enumerate().step_by(every) {
                let mut found = neighbours(&layout, &grid, p, radius, cell);
                let count = found.len();
                found.sort_unstable();
                found.dedup();
                assert_eq!(found.len(), count, "a unit was found twice");
                let near: Vec<u32> = positions
                    .iter()
                    .enumerate()
                    .filter(|(_, q)| {
                        let (dx, dz) = (q[0] - p[0], q[1] - p[1]);
                        dx * dx + dz * dz < radius * radius
                    })
                    .map(|(i, _)| i as u32)
                    .collect();
                for other in near {
                    assert!(
                        found.binary_search(&other).is_ok(),
                        "{units} units: unit {other} within {radius} of unit {unit} was missed"
                    );
                }
            }
        }
    }
}

/// The closest two living units (routing units passing through their own
/// army excepted) of `battle`.
fn closest_pair(battle: &CpuBattle) -> f32 {
    let table = battle.regiment_table();
    let living: Vec<usize> = (0..battle.combat.len())
        .filter(|&u| battle.combat[u].health > 0)
        .collect();
    let mut closest = f32::MAX;
    let layout = GridLayout::new(battle.combat.len() as u32);
    let engage = battle.header.rules.engage_radius;
    for &unit in &living {
        let p = battle.placements[unit].position;
        let mine = &table[battle.combat[unit].regiment as usize];
        for other in neighbours(&layout, &battle.grid, [p[0], p[2]], engage, engage) {
            let other = other as usize;
            let theirs = &table[battle.combat[other].regiment as usize];
            if other == unit || battle.combat[other].health <= 0 {
                continue;
            }
            let passing =
                mine.army == theirs.army && (!standing(mine.state) || !standing(theirs.state));
            if passing {
                continue;
            }
            let q = battle.placements[other].position;
            closest = closest.min(((p[0] - q[0]).powi(2) + (p[2] - q[2]).powi(2)).sqrt());
        }
    }
    closest
}

/// The tolerance of the separation: no two living units stand closer than
/// this (the separation distance is 0.9 m; one push a step, half the
/// overlap each, leaves crowds pressing in a melee a little closer, and
/// rows of regiments marching into the backs of those engaged press
/// harder: 0.32 m at the closest in this battle).
const CLOSEST_ALLOWED: f32 = 0.3;

/// No two living units stand closer than [`CLOSEST_ALLOWED`] through a
/// battle of 2,000 (routing units slip through their own army's ranks, and
/// are left out for those pairs), checked every second on the CPU twin,
/// which the GPU equals step by step.
#[test]
fn no_two_living_units_overlap_beyond_the_tolerance() {
    let plan = battle_plan(2000, 3, BattleRules::default());
    let mut battle = CpuBattle::new(&plan.setup, plan.placements()).expect("battle");
    let mut worst = f32::MAX;
    while battle.seconds() < 150.0 && (battle.step == 0 || !battle.counts().standing.contains(&0)) {
        for _ in 0..30 {
            battle.step();
        }
        // The grid is the one this step's units looked at: rebuild it
        // from where they stand now.
        let closest = {
            let mut probe = battle.clone();
            let units = probe.combat.len() as u32;
            probe.grid = vec![0; GridLayout::new(units).words()];
            let last_step = probe.step - 1;
            battle_reference::count_grid(&mut probe.state());
            battle_reference::build_grid(last_step, &mut probe.state());
            closest_pair(&probe)
        };
        worst = worst.min(closest);
        assert!(
            closest >= CLOSEST_ALLOWED,
            "two living units {closest} m apart at {:.1} s",
            battle.seconds()
        );
    }
    println!("closest pair over the battle: {worst} m");
}

/// Seconds until regiment 0 of `plan` routs, on the CPU twin.
fn seconds_to_rout(plan: &BattlePlan) -> Option<f32> {
    let mut battle = CpuBattle::new(&plan.setup, plan.placements()).expect("battle");
    while battle.seconds() < 240.0 {
        battle.step();
        if battle.regiment_table()[0].state == STATE_ROUTING {
            return Some(battle.seconds());
        }
    }
    None
}

/// The same regiment, holding its ground, charged by the same enemy,
/// routs sooner when the charge comes into its flank than into its front.
#[test]
fn a_regiment_hit_in_the_flank_routs_sooner_than_one_hit_in_front() {
    // A reserve holds without wheeling for as long as this battle lasts.
    let rules = BattleRules {
        reserve_seconds: 1000.0,
        ..BattleRules::default()
    };
    let defender = |morale| RegimentSetup {
        role: ROLE_RESERVE,
        ..regiment(0, FORMATION_LINE, 0, 64, [0.0, 0.0], [1.0, 0.0], morale)
    };
    let front = plan_of(
        rules,
        vec![
            defender(0.5),
            regiment(1, FORMATION_LINE, 64, 64, [30.0, 0.0], [-1.0, 0.0], 1.0),
        ],
    );
    let flank = plan_of(
        rules,
        vec![
            defender(0.5),
            regiment(1, FORMATION_LINE, 64, 64, [-4.0, 30.0], [0.0, -1.0], 1.0),
        ],
    );
    let from_front = seconds_to_rout(&front);
    let from_flank = seconds_to_rout(&flank).expect("the flanked regiment never routed");
    println!("routs after {from_flank:.1} s from the flank, {from_front:?} s from the front");
    assert!(
        from_front.is_none_or(|front| from_flank < 0.8 * front),
        "flank {from_flank} s, front {from_front:?} s"
    );
}

/// Uphill is slower: units running back to their slots, 10 m ahead up a
/// 10 % slope, run at the rules' 1 / (1 + 4 × 0.1) of their flat speed;
/// downhill they run no faster (the CPU twin; the GPU equals it step by
/// step on hills).
#[test]
fn units_climb_slower() {
    let rules = BattleRules {
        reserve_seconds: 1000.0,
        ..BattleRules::default()
    };
    let speed = |grade: f32| {
        let mut plan = plan_of(
            rules,
            vec![
                RegimentSetup {
                    role: ROLE_RESERVE,
                    ..regiment(0, FORMATION_LINE, 0, 16, [0.0, 0.0], [1.0, 0.0], 1.0)
                },
                RegimentSetup {
                    role: ROLE_RESERVE,
                    ..regiment(1, FORMATION_LINE, 16, 16, [150.0, 0.0], [-1.0, 0.0], 1.0)
                },
            ],
        );
        plan.setup.terrain = Terrain::from_heights(200.0, 65, |x, _| grade * x);
        for unit in &mut plan.units[..16] {
            unit.position[0] -= 10.0;
        }
        let mut battle = CpuBattle::new(&plan.setup, plan.placements()).expect("battle");
        battle.step();
        battle.motions[0].speed
    };
    let (flat, uphill, downhill) = (speed(0.0), speed(0.1), speed(-0.1));
    println!("running to its slot: {flat} m/s on the flat, {uphill} up, {downhill} down");
    assert_eq!(flat, rules.run_speed);
    assert!((uphill - flat / 1.4).abs() < 1e-3, "uphill {uphill} m/s");
    assert_eq!(downhill, flat);
}

/// The default 10k battle, on the CPU twin (the GPU equals it step by
/// step): first contact, several separate melee fronts, flank and rear
/// attacks, routs, and a winner within 2 to 5 minutes.
#[test]
fn a_10k_battle_resolves_within_2_to_5_minutes() {
    let plan = battle_plan(10_000, 1, BattleRules::default());
    let mut battle = CpuBattle::new(&plan.setup, plan.placements()).expect("battle");
    let mut fronts_at_60 = None;
    while battle.seconds() < 300.0 && (battle.step == 0 || !battle.counts().standing.contains(&0)) {
        battle.step();
        if fronts_at_60.is_none() && battle.seconds() >= 60.0 {
            fronts_at_60 = Some(horde_battle::fronts::melee_fronts(battle.regiment_table()));
        }
    }
    let (end, totals) = (battle.seconds(), battle.header.totals);
    println!(
        "ended at {end:.1} s, standing {:?}, fronts at 60 s {fronts_at_60:?}, {totals:?}",
        battle.counts().standing
    );
    assert!(
        battle.counts().standing.contains(&0),
        "no winner after {end} s"
    );
    assert!((120.0..=300.0).contains(&end), "ended after {end} s");
    assert!(
        fronts_at_60.is_some_and(|f| f >= 3),
        "fronts at 60 s: {fronts_at_60:?}"
    );
    assert!(
        totals.flank_attacks > 0 && totals.rear_attacks > 0,
        "{totals:?}"
    );
    assert!(totals.routs > 0, "{totals:?}");
}

fn headless(
    battle: &BattleScene,
    steps: u32,
    render_every: u32,
) -> (horde_tools::headless::Report, image::RgbaImage) {
    headless_with(battle, steps, render_every, Strategy::GpuDriven).expect("headless battle")
}

fn headless_with(
    battle: &BattleScene,
    steps: u32,
    render_every: u32,
    strategy: Strategy,
) -> anyhow::Result<(horde_tools::headless::Report, image::RgbaImage)> {
    run_on_a_context(
        battle,
        &HeadlessOptions {
            strategy,
            ..front_view(steps, render_every)
        },
    )
}

/// A 320 x 180 headless run of `steps` steps from the front preset, a
/// frame rendered every `render_every`.
fn front_view(steps: u32, render_every: u32) -> HeadlessOptions {
    HeadlessOptions {
        steps,
        render_every,
        width: 320,
        height: 180,
        camera: BattleCamera::Front,
        ..HeadlessOptions::default()
    }
}

/// Runs `battle` headless with `options` on a context of its own.
fn run_on_a_context(
    battle: &BattleScene,
    options: &HeadlessOptions,
) -> anyhow::Result<(horde_tools::headless::Report, image::RgbaImage)> {
    let ctx = gpu_context(None);
    let result = run_headless(&ctx, battle, options);
    finish(ctx);
    result
}

/// The battle runs on the mobile tier (at most four storage buffers a
/// dispatch: the unit step binds the battle, placements, motions, and the
/// grid with the terrain after it) and plays out there exactly as on the
/// desktop tier.
#[test]
fn the_battle_runs_on_the_mobile_tier_as_on_desktop() {
    let battle = small_battle(400, quick_rules());
    // 15 s: the armies meet and fight.
    let options = front_view(450, 150);
    let run = |tier| {
        let ctx = gpu_context(tier);
        let result = run_headless(&ctx, &battle, &options);
        finish(ctx);
        result.expect("headless battle")
    };
    let (desktop, _) = run(None);
    let (mobile, image) = run(Some(horde::context::Tier::Mobile));
    assert_eq!(mobile.tier, "mobile");
    assert!(
        mobile
            .timeline
            .last()
            .is_some_and(|sample| sample.fighting > 0),
        "{:?}",
        mobile.timeline.last()
    );
    assert_eq!(mobile.timeline, desktop.timeline);
    assert!(image.pixels().any(|p| p.0 != image.get_pixel(0, 0).0));
}

/// Two runs of one seed agree on every count over time and on every pixel;
/// a third, rendering at another frame rate (a frame every 17 steps rather
/// than 60), ends in the same state; and the battle (fast rules) reaches
/// first contact, casualties, routs and a winner within a minute. (A
/// lavapipe frame costs about half a second: the three runs render 166.)
#[test]
fn headless_battles_are_deterministic_and_end_with_a_winner() {
    let rules = BattleRules {
        army_break_fraction: 0.7,
        ..quick_rules()
    };
    let battle = small_battle(400, rules);
    let steps = 30 * 60;
    let (first, first_image) = headless(&battle, steps, 60);
    let (second, second_image) = headless(&battle, steps, 60);
    assert_eq!(
        first.timeline, second.timeline,
        "the battle over time differs"
    );
    assert!(first_image == second_image, "the screenshots differ");
    let (other_rate, _) = headless(&battle, steps, 17);
    assert_eq!(
        other_rate.timeline.last(),
        first.timeline.last(),
        "another frame rate ends elsewhere"
    );

    let contact = first.first_contact_seconds.expect("the armies never met");
    assert!(contact < 30.0, "first contact only after {contact} s");
    let casualties = first
        .timeline
        .iter()
        .find(|s| s.alive[0] + s.alive[1] < 400)
        .map(|s| s.seconds)
        .expect("nobody fell");
    let winner = first.winner.expect("no army won within 60 s");
    let end = first.end_seconds.expect("an end time");
    let last = first.timeline.last().expect("samples");
    assert!(
        last.standing[winner as usize] > 0 && last.standing[1 - winner as usize] == 0,
        "{last:?}, won at {end} s"
    );
    assert!(first.routs > 0, "nobody routed");
    println!(
        "contact {contact:.1} s, casualties {casualties:.1} s, army {winner} won at {end:.1} s \
         with {} standing; {} routs, {} flank and {} rear attacks",
        last.alive[winner as usize], first.routs, first.flank_attacks, first.rear_attacks
    );
}

/// The front 40 s into the battle, rendered once: regiments clashing,
/// the fallen, the wings swinging round.
#[test]
fn battle_front_line_matches_the_reference() {
    let battle = small_battle(400, BattleRules::default());
    let (report, image) = headless(&battle, 1200, 1200);
    assert_eq!(report.frames_rendered, 1);
    compare_with_reference("battle_front", &image, Tolerance::RENDER);
}

/// The marks debug view colours each unit by its regiment's state: the
/// front of `battle_front_line_matches_the_reference`, looked at and kept
/// as `battle_marks` (engaged red at the clash, the ranks behind blue and
/// orange, the fallen dark).
#[test]
fn the_marks_view_colours_units_by_regiment_state() {
    let battle = small_battle(400, BattleRules::default());
    let options = HeadlessOptions {
        color_by_mark: true,
        ..front_view(1200, 1200)
    };
    let (_, image) = run_on_a_context(&battle, &options).expect("headless battle");
    compare_with_reference("battle_marks", &image, Tolerance::RENDER);
}

/// A battle larger than the device holds is refused with a number that fits.
#[test]
fn too_many_units_are_refused_with_a_suggestion() {
    let ctx = gpu_context(None);
    let limit = unit_capacity(&ctx);
    assert!(limit >= 100_000, "capacity {limit} is implausibly small");
    check_capacity(&ctx, limit).expect("the capacity itself fits");
    let err = check_capacity(&ctx, limit * 4)
        .expect_err("four times the capacity")
        .to_string();
    assert!(err.contains("try --units"), "{err}");
    finish(ctx);
}

/// Third-party characters fight through the bake cache (the KayKit
/// skeleton takes the Knight's clips), and a clip map naming a clip that
/// does not exist is refused with the clips there are.
#[test]
fn kaykit_models_fight_and_bad_clip_maps_are_refused() {
    let samples = horde_tests::samples_dir();
    let options = BattleOptions {
        units: 100,
        props: 4,
        seed: 5,
        encoding: horde::asset::BoneEncoding::Mat3x4F32,
        models: vec![
            samples.join("KayKit_Knight/Knight.glb"),
            samples.join("KayKit_Skeleton_Warrior/Skeleton_Warrior.glb"),
        ],
        cache: CacheOptions::default(),
        rules: quick_rules(),
        clip_map: Vec::new(),
    };
    let battle = battle_scene(&options).expect("KayKit battle");
    let (report, _) = headless(&battle, 450, 450);
    let last = report.timeline.last().expect("samples");
    assert!(
        last.alive[0] + last.alive[1] < 100,
        "nobody fell: {:?}",
        report.timeline
    );

    let err = battle_scene(&BattleOptions {
        clip_map: vec!["attack=NoSuchClip".parse().expect("a mapping")],
        ..options
    })
    .err()
    .expect("an unknown clip is refused")
    .to_string();
    assert!(err.contains("NoSuchClip") && err.contains("Cheer"), "{err}");
}

/// The instanced baseline draws the same battle; the CPU baselines, which
/// draw the CPU's copy of the units, refuse a battle the GPU simulates.
#[test]
fn battle_strategies_instanced_draws_and_cpu_baselines_refuse() {
    let battle = small_battle(200, quick_rules());
    let (report, _) = headless_with(&battle, 60, 30, Strategy::Instanced).expect("instanced");
    assert_eq!(report.strategy, "instanced");
    assert_eq!(report.visible.units_per_lod[0], 200, "{:?}", report.visible);
    for strategy in [Strategy::Naive, Strategy::CpuCulled] {
        let err = headless_with(&battle, 2, 1, strategy)
            .expect_err("refused")
            .to_string();
        assert!(err.contains("cannot follow units the GPU moves"), "{err}");
    }
}

/// The frame graph in the docs is the one the code records: the same small
/// battle as `tools/frame-graph.sh` draws, with its passes in frame order,
/// the motions the battle hands to the animation and the far field's
/// visibility buffer and tiles to the draw's resolve.
#[test]
fn frame_graph_in_the_docs_is_the_code() {
    let battle = battle_scene(&options(200, BattleRules::default())).expect("battle scene");
    let options = HeadlessOptions {
        frame_graph: true,
        ..front_view(2, 1)
    };
    let (report, _) = run_on_a_context(&battle, &options).expect("headless battle");
    let graph = report.frame_graph.expect("a frame graph");
    let passes: Vec<&str> = graph.passes.iter().map(|(name, _)| *name).collect();
    assert_eq!(
        passes,
        [
            "upload",
            "battle",
            "animate",
            "shadow buffers",
            "shadow cull",
            "shadow splat",
            "shadow far field",
            "shadow seed",
            "shadow draw",
            "cull",
            "far field",
            "statistics",
            "draw",
            "depth pyramid",
            "cull late",
            "far field late",
            "far field tiles",
            "statistics late",
            "draw late"
        ]
    );
    let index = |name: &str| passes.iter().position(|p| *p == name).expect(name);
    // `from` hands `buffer` to `to`: an edge of the graph carries it.
    let hands = |from: &str, to: &str, buffer: &str| {
        let handed = graph
            .edges
            .get(&(index(from), index(to)))
            .map(|buffers| buffers.keys().cloned().collect::<Vec<_>>())
            .unwrap_or_default();
        assert!(
            handed.iter().any(|name| name == buffer),
            "{from} -> {to}: {handed:?}, no {buffer}"
        );
    };
    hands("battle", "animate", "unit motions");
    // With occlusion culling (the default) the early far field's depth
    // goes into the pyramid, and the resolve is the late part's last draw,
    // after the late far field and the scan of its tiles, which reads the
    // finished visibility buffer.
    hands("far field", "depth pyramid", "far field visibility");
    hands("far field late", "draw late", "far field visibility");
    hands("far field late", "far field tiles", "far field visibility");
    hands("far field tiles", "draw late", "far field tiles");
    // The desktop tier's shadow casters raise the seeded depths in their
    // fragments; the draw's receivers read them.
    hands("shadow seed", "shadow draw", "shadow depths");
    hands("shadow draw", "draw", "shadow depths");
    let committed = std::fs::read_to_string(horde_tests::repo_root().join("docs/frame-graph.dot"))
        .expect("docs/frame-graph.dot (tools/frame-graph.sh writes it)");
    assert_eq!(
        committed,
        graph.to_dot(),
        "docs/frame-graph.dot is not the frame the code records: run tools/frame-graph.sh"
    );
}
