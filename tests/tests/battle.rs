//! The battle: the GPU battle pass against its CPU reference step by step,
//! determinism of whole headless runs, the battle's progress to a winner, and
//! a reference screenshot.

use horde::camera::Camera;
use horde::config::{ANIM_COMMAND_DEAD, ANIM_COMMAND_VICTORY};
use horde::gpu_types::{UnitMotion, UnitPlacement};
use horde::renderer::{Renderer, Strategy};
use horde_bake::cache::CacheOptions;
use horde_battle::reference::battle::{self as battle_reference, BattleState};
use horde_battle::{Battle, BattleReadback, BattleRules};
use horde_tests::{compare_with_reference, finish, gpu_context, Tolerance};
use horde_tools::battle::{battle_scene, BattleCamera, BattleOptions, BattleScene};
use horde_tools::headless::{check_capacity, run_headless, unit_capacity, HeadlessOptions};

fn small_battle(units: u32, rules: BattleRules) -> BattleScene {
    horde_tests::init_logging();
    battle_scene(&BattleOptions {
        units,
        props: 12,
        seed: 7,
        encoding: horde::asset::BoneEncoding::Mat3x4F32,
        models: Vec::new(),
        cache: CacheOptions::default(),
        rules,
        clip_map: Vec::new(),
    })
    .expect("battle scene")
}

/// Fast rules, so a test battle marches, clashes and ends in a few hundred
/// steps.
fn quick_rules() -> BattleRules {
    BattleRules {
        walk_speed: 4.0,
        run_speed: 6.0,
        damage_min: 40,
        damage_range: 30,
        attack_seconds: 0.5,
        corpse_seconds: 1.0,
        sink_speed: 1.0,
        ..BattleRules::default()
    }
}

struct GpuState {
    battle: BattleReadback,
    placements: Vec<UnitPlacement>,
    motions: Vec<UnitMotion>,
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
    }
}

/// Every GPU step equals the CPU reference applied to the GPU's previous
/// state: exactly, but for the heading (GPU `atan` is loose).
#[test]
fn battle_pass_equals_cpu_reference_step_by_step() {
    let mut ctx = gpu_context(None);
    let rules = quick_rules();
    let battle = small_battle(60, rules);
    let (mut renderer, target) = horde_tests::offscreen_renderer(&mut ctx, &battle.scene, 32, 32);
    let camera = Camera::look_at(glam::Vec3::new(0.0, 50.0, 1.0), glam::Vec3::ZERO);
    // Frame 0 only uploads the spawns.
    renderer
        .render_offscreen(&ctx, &target, &camera, 0.0, true)
        .expect("frame");
    let mut before = read(&ctx, &renderer);
    let (mut deaths, mut attacks, mut victory) = (0, 0, false);
    for step in 0..420 {
        renderer
            .simulation_mut::<Battle>()
            .expect("battle")
            .queue_steps(1);
        renderer
            .render_offscreen(&ctx, &target, &camera, rules.step_seconds, true)
            .expect("frame");
        let after = read(&ctx, &renderer);
        let mut expected = before;
        battle_reference::step(
            &rules,
            step,
            &mut BattleState {
                combat: &mut expected.battle.combat,
                placements: &mut expected.placements,
                motions: &mut expected.motions,
                lanes: &mut expected.battle.lanes,
                counts: &mut expected.battle.counts,
            },
        );
        assert_eq!(
            after.battle.combat, expected.battle.combat,
            "combat after step {step}"
        );
        assert_eq!(
            after.battle.lanes, expected.battle.lanes,
            "lanes after step {step}"
        );
        assert_eq!(
            after.battle.counts, expected.battle.counts,
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
        attacks += after.battle.counts.attacks;
        deaths = after
            .motions
            .iter()
            .filter(|m| m.anim_commands & ANIM_COMMAND_DEAD != 0)
            .count();
        victory |= after
            .motions
            .iter()
            .any(|m| m.anim_commands & ANIM_COMMAND_VICTORY != 0);
        before = after;
    }
    // The comparison covered the march, the clash, deaths and the end.
    assert!(attacks > 50, "only {attacks} swings in the compared steps");
    assert!(deaths > 20, "only {deaths} deaths in the compared steps");
    assert!(victory, "no army won within the compared steps");
    drop((renderer, target));
    finish(ctx);
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
    let ctx = gpu_context(None);
    let options = HeadlessOptions {
        steps,
        render_every,
        width: 320,
        height: 180,
        camera: BattleCamera::Front,
        strategy,
        ..HeadlessOptions::default()
    };
    let result = run_headless(&ctx, battle, &options);
    finish(ctx);
    result
}

/// Two runs of one seed agree on every count over time and on every pixel;
/// and the battle reaches first contact, casualties and a winner in bounded
/// time.
#[test]
fn headless_battles_are_deterministic_and_end_with_a_winner() {
    let battle = small_battle(400, BattleRules::default());
    let steps = 30 * 150;
    let (first, first_image) = headless(&battle, steps, 90);
    let (second, second_image) = headless(&battle, steps, 90);
    assert_eq!(
        first.timeline, second.timeline,
        "alive counts over time differ"
    );
    assert!(first_image == second_image, "the screenshots differ");

    let contact = first.first_contact_seconds.expect("the armies never met");
    assert!(contact < 20.0, "first contact only after {contact} s");
    let casualties = first
        .timeline
        .iter()
        .find(|s| s.alive[0] + s.alive[1] < 400)
        .map(|s| s.seconds)
        .expect("nobody fell");
    assert!(
        casualties < 30.0,
        "first casualties only after {casualties} s"
    );
    let winner = first.winner.expect("no army won within 150 s");
    let end = first.end_seconds.expect("an end time");
    let last = first.timeline.last().expect("samples");
    assert!(last.alive[winner as usize] > 0 && last.alive[1 - winner as usize] == 0);
    println!(
        "contact {contact:.1} s, casualties {casualties:.1} s, army {winner} won at {end:.1} s \
         with {} standing",
        last.alive[winner as usize]
    );
}

/// The front line 20 s into the battle, rendered once: the clash, the fallen
/// and the ranks stepping up.
#[test]
fn battle_front_line_matches_the_reference() {
    let battle = small_battle(400, BattleRules::default());
    let (report, image) = headless(&battle, 600, 600);
    assert_eq!(report.frames_rendered, 1);
    compare_with_reference("battle_front", &image, Tolerance::RENDER);
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
/// visibility buffer to the draw's resolve.
#[test]
fn frame_graph_in_the_docs_is_the_code() {
    let battle = battle_scene(&BattleOptions {
        units: 200,
        props: 12,
        seed: 7,
        encoding: horde::asset::BoneEncoding::Mat3x4F32,
        models: Vec::new(),
        cache: CacheOptions::default(),
        rules: BattleRules::default(),
        clip_map: Vec::new(),
    })
    .expect("battle scene");
    let ctx = gpu_context(None);
    let options = HeadlessOptions {
        steps: 2,
        width: 320,
        height: 180,
        camera: BattleCamera::Front,
        frame_graph: true,
        ..HeadlessOptions::default()
    };
    let result = run_headless(&ctx, &battle, &options);
    finish(ctx);
    let (report, _) = result.expect("headless battle");
    let graph = report.frame_graph.expect("a frame graph");
    let passes: Vec<&str> = graph.passes.iter().map(|(name, _)| *name).collect();
    assert_eq!(
        passes,
        [
            "upload",
            "battle",
            "animate",
            "cull",
            "far field",
            "statistics",
            "draw"
        ]
    );
    let index = |name: &str| passes.iter().position(|p| *p == name).expect(name);
    let handed = |from: &str, to: &str| {
        graph
            .edges
            .get(&(index(from), index(to)))
            .map(|buffers| buffers.keys().cloned().collect::<Vec<_>>())
            .unwrap_or_default()
    };
    assert!(
        handed("battle", "animate").contains(&"unit motions".to_owned()),
        "battle -> animate: {:?}",
        handed("battle", "animate")
    );
    assert!(
        handed("far field", "draw").contains(&"far field visibility".to_owned()),
        "far field -> draw: {:?}",
        handed("far field", "draw")
    );
    let committed = std::fs::read_to_string(horde_tests::repo_root().join("docs/frame-graph.dot"))
        .expect("docs/frame-graph.dot (tools/frame-graph.sh writes it)");
    assert_eq!(
        committed,
        graph.to_dot(),
        "docs/frame-graph.dot is not the frame the code records: run tools/frame-graph.sh"
    );
}
