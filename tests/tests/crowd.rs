//! The crowd renderer end to end on the GPU: baked sample units mid-animation
//! (a crossfade included), props, the LOD colour view and the mobile tier,
//! against reference images; world growth and despawning against the draw
//! statistics. Validation is on throughout and must stay silent.

use std::path::Path;

use glam::Vec3;
use horde::asset::{Asset, BoneEncoding};
use horde::camera::Camera;
use horde::context::{Context, Tier};
use horde::gpu_types::AnimParams;
use horde::renderer::Renderer;
use horde::scene::{rgba8, static_asset, Scene};
use horde::target::Offscreen;
use horde::world::{PropPlacement, UnitId, UnitSpawn};
use horde_bake::{self as bake, BakeOptions};
use horde_tests::{
    compare_with_reference, compare_with_reference_as, finish, gpu_context, offscreen_renderer,
    repo_root, samples_dir, Tolerance,
};

fn quiet(_: &str) {}

fn bake_unit(path: &Path, encoding: BoneEncoding) -> Asset {
    let options = BakeOptions {
        encoding,
        ..BakeOptions::default()
    };
    bake::bake_unit(path, &[], &options, &quiet)
        .unwrap_or_else(|err| panic!("baking {}: {err}", path.display()))
        .asset
}

fn bake_prop(name: &str) -> Asset {
    let path = repo_root().join(format!("assets/{name}.glb"));
    bake::bake_prop(&path, &BakeOptions::default(), &quiet)
        .unwrap_or_else(|err| panic!("baking {name}: {err}"))
        .asset
}

/// CesiumMan, the KayKit Knight and the Fox in three rows, some walking, plus a
/// row of the generated props on a field.
fn sample_scene(encoding: BoneEncoding) -> Scene {
    let unit_types = vec![
        bake_unit(&samples_dir().join("CesiumMan/CesiumMan.glb"), encoding),
        bake_unit(&samples_dir().join("KayKit_Knight/Knight.glb"), encoding),
        bake_unit(&samples_dir().join("Fox/Fox.glb"), encoding),
    ];
    let mut units = Vec::new();
    for (type_index, asset) in unit_types.iter().enumerate() {
        let scale = 1.8 / asset.bounds.height.max(1e-3);
        for column in 0..6 {
            units.push(UnitSpawn {
                unit_type: type_index as u32,
                team: 0,
                position: Vec3::new(column as f32 * 1.6 - 4.0, 0.0, -(type_index as f32) * 2.5),
                heading: 0.4,
                scale,
                tint: rgba8(Vec3::ONE),
                params: AnimParams {
                    speed: if column % 2 == 0 { 1.4 } else { 0.0 },
                    ..AnimParams::default()
                },
            });
        }
    }
    let prop_names = ["rock", "pillar", "banner", "tree", "fence"];
    let mut prop_types: Vec<Asset> = prop_names.iter().map(|name| bake_prop(name)).collect();
    let mut props: Vec<PropPlacement> = (0..prop_names.len() as u32)
        .map(|prop_type| PropPlacement {
            prop_type,
            position: Vec3::new(prop_type as f32 * 3.0 - 6.0, 0.0, -9.0),
            heading: 0.3,
            scale: if prop_type == 3 { 0.5 } else { 1.0 },
            tint: rgba8(Vec3::ONE),
        })
        .collect();
    prop_types.push(static_asset("field", &horde::mesh::ground(60.0, 4)));
    props.push(PropPlacement::at_origin(
        prop_names.len() as u32,
        Vec3::new(0.36, 0.45, 0.24),
    ));
    Scene {
        controllers: vec![None; unit_types.len()],
        unit_types,
        prop_types,
        units,
        props,
        simulation: None,
        ground_prop_types: Vec::new(),
        ground_texture: None,
    }
}

fn sample_camera() -> Camera {
    Camera::look_at(Vec3::new(1.0, 6.5, 8.0), Vec3::new(0.0, 0.3, -3.0))
}

/// Renders the sample scene: 20 frames of 1/30 s, then the even columns
/// stop and the odd ones attack, then 4 more frames, so the last image is
/// mid-crossfade (fades take 0.15-0.25 s).
fn render_samples(
    ctx: &mut Context,
    setup: impl FnOnce(&mut Renderer),
) -> (image::RgbaImage, Renderer, Offscreen) {
    let scene = sample_scene(BoneEncoding::Mat3x4F32);
    let (mut renderer, target) = offscreen_renderer(ctx, &scene, 480, 270);
    setup(&mut renderer);
    let camera = sample_camera();
    let dt = 1.0 / 30.0;
    for _ in 0..20 {
        renderer
            .render_offscreen(ctx, &target, &camera, dt, false)
            .expect("frame");
    }
    let orders: Vec<(UnitId, AnimParams)> = (0..renderer.world.unit_count())
        .map(|index| {
            let params = if index % 2 == 0 {
                AnimParams::default()
            } else {
                AnimParams {
                    attack_serial: 1,
                    ..AnimParams::default()
                }
            };
            (UnitId(index), params)
        })
        .collect();
    renderer.world.set_params(&orders);
    for frame in 0..4 {
        renderer
            .render_offscreen(ctx, &target, &camera, dt, frame == 3)
            .expect("frame");
    }
    let image = target.read_rgba().expect("read back");
    (image, renderer, target)
}

fn teardown(ctx: Context, renderer: Renderer, target: Offscreen) {
    drop(renderer);
    drop(target);
    finish(ctx);
}

#[test]
fn sample_units_mid_crossfade_and_props_match_reference() {
    let mut ctx = gpu_context(None);
    // Every unit a mesh, as on the mobile tier, which is held to this
    // image (the far field has tests of its own, tests/tests/far_field.rs).
    let (image, renderer, target) = render_samples(&mut ctx, |renderer| {
        renderer.settings.far_field_px = 0.0;
    });
    let stats = renderer.stats.clone();
    teardown(ctx, renderer, target);
    assert_eq!(
        stats.units_visible(),
        18,
        "every unit is in view: {stats:?}"
    );
    assert_eq!(stats.props_visible(), 6, "every prop is in view: {stats:?}");
    compare_with_reference("crowd_samples", &image, Tolerance::RENDER);
}

#[test]
fn mobile_tier_matches_the_desktop_crowd() {
    let mut ctx = gpu_context(Some(Tier::Mobile));
    let (image, renderer, target) = render_samples(&mut ctx, |_| {});
    teardown(ctx, renderer, target);
    compare_with_reference_as(
        "crowd_samples",
        "crowd_samples_mobile",
        &image,
        Tolerance::RENDER,
    );
}

#[test]
fn lod_colour_view_matches_reference() {
    let mut ctx = gpu_context(None);
    let (image, renderer, target) = render_samples(&mut ctx, |renderer| {
        renderer.settings.color_by_lod = true;
        // Coarser LODs come nearer, so the view shows several.
        renderer.settings.lod_bias = 0.15;
    });
    let stats = renderer.stats.clone();
    teardown(ctx, renderer, target);
    let used = stats.units_per_lod.iter().filter(|&&n| n > 0).count();
    assert!(
        used >= 2,
        "the LOD view should show several LODs: {stats:?}"
    );
    compare_with_reference("crowd_lod_colours", &image, Tolerance::RENDER);
}

#[test]
fn bounds_view_draws_cleanly() {
    let mut ctx = gpu_context(None);
    let (image, renderer, target) = render_samples(&mut ctx, |renderer| {
        renderer.settings.show_bounds = true;
    });
    teardown(ctx, renderer, target);
    compare_with_reference("crowd_bounds", &image, Tolerance::RENDER);
}

#[test]
fn world_grows_and_despawns_with_exact_counts() {
    let mut ctx = gpu_context(None);
    let knight = bake_unit(
        &repo_root().join("assets/knight.glb"),
        BoneEncoding::QuatF16,
    );
    let scene = Scene {
        controllers: vec![None],
        unit_types: vec![knight],
        ..Scene::default()
    };
    let (mut renderer, target) = offscreen_renderer(&mut ctx, &scene, 64, 64);
    // A camera high above sees a 100 m square of units.
    let camera = Camera::look_at(Vec3::new(0.0, 400.0, 0.1), Vec3::ZERO);
    let spawn = |count: u32, offset: u32| -> Vec<UnitSpawn> {
        (offset..offset + count)
            .map(|i| UnitSpawn {
                unit_type: 0,
                team: i % 2,
                position: Vec3::new(
                    (i % 60) as f32 * 1.5 - 45.0,
                    0.0,
                    (i / 60) as f32 * 1.5 - 45.0,
                ),
                heading: 0.0,
                scale: 1.0,
                tint: rgba8(Vec3::ONE),
                params: AnimParams::default(),
            })
            .collect()
    };
    let frame = |renderer: &mut Renderer, ctx: &mut Context| {
        // Statistics come back FRAMES_IN_FLIGHT frames late: render enough.
        for _ in 0..3 {
            renderer
                .render_offscreen(ctx, &target, &camera, 1.0 / 30.0, true)
                .expect("frame");
        }
        renderer.stats.units_visible()
    };
    renderer.world.spawn_units(&spawn(500, 0)).expect("spawn");
    assert_eq!(frame(&mut renderer, &mut ctx), 500);
    // Past the initial capacity of 1024 units and of every LOD region.
    let ids = renderer
        .world
        .spawn_units(&spawn(2500, 500))
        .expect("spawn more");
    assert_eq!(frame(&mut renderer, &mut ctx), 3000);
    renderer.world.despawn_units(&ids[..1000]);
    assert_eq!(frame(&mut renderer, &mut ctx), 2000);
    // Freed slots are reused.
    let again = renderer.world.spawn_units(&spawn(10, 0)).expect("respawn");
    assert!(again.iter().all(|id| id.0 < 3000), "{again:?}");
    assert_eq!(frame(&mut renderer, &mut ctx), 2010);
    assert!(renderer
        .world
        .spawn_units(&[UnitSpawn {
            unit_type: 7,
            ..spawn(1, 0)[0]
        }])
        .is_err());
    drop(renderer);
    drop(target);
    finish(ctx);
}

/// The knight in a 5,000-unit grid, for the state tests.
fn grid_scene(units: u32) -> Scene {
    let knight = bake_unit(
        &repo_root().join("assets/knight.glb"),
        BoneEncoding::Mat3x4F32,
    );
    Scene {
        controllers: vec![None],
        unit_types: vec![knight],
        units: (0..units)
            .map(|i| UnitSpawn {
                unit_type: 0,
                team: i % 2,
                position: Vec3::new((i % 70) as f32, 0.0, (i / 70) as f32),
                heading: 0.0,
                scale: 1.0,
                tint: rgba8(Vec3::ONE),
                params: AnimParams::default(),
            })
            .collect(),
        ..Scene::default()
    }
}

#[test]
fn sparse_updates_reach_the_gpu_exactly() {
    use horde::gpu_types::{UnitMotion, UnitPlacement};

    let mut ctx = gpu_context(None);
    let scene = grid_scene(5000);
    let (mut renderer, target) = offscreen_renderer(&mut ctx, &scene, 32, 32);
    let camera = sample_camera();
    // What the GPU must hold: the spawn, then every command in order.
    let mut placements: Vec<UnitPlacement> = scene
        .units
        .iter()
        .map(|u| UnitPlacement {
            position: u.position.to_array(),
            heading: u.heading,
        })
        .collect();
    let mut motions = vec![UnitMotion::default(); 5000];
    // Scattered single units (the scatter pass) and a long run (a copy),
    // changed over several frames, some units several times.
    let mut seed = 12345u32;
    for frame in 0..6u32 {
        let mut params = Vec::new();
        let mut moves = Vec::new();
        for _ in 0..400 {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            let id = UnitId(seed % 5000);
            let order = AnimParams {
                speed: (seed >> 20) as f32 / 256.0,
                attack_serial: (seed >> 4) as u8 & 15,
                ..AnimParams::default()
            };
            params.push((id, order));
            motions[id.0 as usize].speed = order.speed;
            motions[id.0 as usize].anim_commands = order.commands();
            let position = Vec3::new(frame as f32, 1.0, (seed >> 8) as f32 / 1e5);
            moves.push((id, position, 0.5));
        }
        for index in 1000 + frame * 100..1000 + frame * 100 + 64 {
            moves.push((UnitId(index), Vec3::splat(index as f32), 1.0));
        }
        for &(UnitId(index), position, heading) in &moves {
            placements[index as usize] = UnitPlacement {
                position: position.to_array(),
                heading,
            };
        }
        renderer.world.set_params(&params);
        renderer.world.teleport_units(&moves);
        renderer
            .render_offscreen(&ctx, &target, &camera, 1.0 / 30.0, frame == 5)
            .expect("frame");
    }
    let gpu = renderer.world.read_unit_state(&ctx).expect("read back");
    let infos_match = gpu.infos.as_slice() == renderer.world.infos();
    drop(renderer);
    drop(target);
    finish(ctx);
    assert!(infos_match, "GPU unit infos differ from the CPU's");
    let first =
        |a: &[UnitPlacement], b: &[UnitPlacement]| a.iter().zip(b).position(|(x, y)| x != y);
    assert_eq!(first(&gpu.placements, &placements), None, "placements");
    let first_motion = gpu.motions.iter().zip(&motions).position(|(x, y)| x != y);
    assert_eq!(first_motion, None, "motions");
}

/// The GPU moves units; the CPU then edits one field of one unit. Run twice
/// from the same start, with and without the edit: every other unit's
/// GPU-written state is bit for bit the same, and the edited unit keeps its
/// GPU-written placement and velocity.
#[test]
fn cpu_edits_never_overwrite_gpu_owned_state() {
    use horde::world::UnitStateReadback;

    let run = |ctx: &mut Context, edit: bool| -> UnitStateReadback {
        let scene = grid_scene(2000);
        let (mut renderer, target) = offscreen_renderer(ctx, &scene, 32, 32);
        let camera = sample_camera();
        let velocities: Vec<(UnitId, glam::Vec2)> = (0..2000u32)
            .map(|i| (UnitId(i), glam::Vec2::new((i % 7) as f32 * 0.3, 1.0)))
            .collect();
        renderer.world.set_velocities(&velocities);
        renderer.world.set_params(
            &(0..2000u32)
                .map(|i| {
                    let order = AnimParams {
                        speed: 1.4,
                        ..AnimParams::default()
                    };
                    (UnitId(i), order)
                })
                .collect::<Vec<_>>(),
        );
        for _ in 0..5 {
            renderer
                .render_offscreen(ctx, &target, &camera, 0.1, false)
                .expect("frame");
        }
        if edit {
            let order = AnimParams {
                speed: 3.5,
                ..AnimParams::default()
            };
            renderer.world.set_params(&[(UnitId(7), order)]);
        }
        for frame in 0..3 {
            renderer
                .render_offscreen(ctx, &target, &camera, 0.1, frame == 2)
                .expect("frame");
        }
        let state = renderer.world.read_unit_state(ctx).expect("read back");
        drop(renderer);
        drop(target);
        state
    };
    let mut ctx = gpu_context(None);
    let edited = run(&mut ctx, true);
    let untouched = run(&mut ctx, false);
    finish(ctx);
    // The GPU moved every unit 0.8 s at 1 unit/s along +z.
    for (index, placement) in untouched.placements.iter().enumerate() {
        let z0 = (index / 70) as f32;
        assert!(
            (placement.position[2] - (z0 + 0.8)).abs() < 1e-3,
            "unit {index} was not moved by the GPU: {placement:?}"
        );
    }
    for index in 0..2000 {
        if index == 7 {
            continue;
        }
        assert_eq!(
            edited.placements[index], untouched.placements[index],
            "placement {index}"
        );
        assert_eq!(
            edited.motions[index], untouched.motions[index],
            "motion {index}"
        );
        assert_eq!(
            edited.anim_states[index], untouched.anim_states[index],
            "animation {index}"
        );
        assert_eq!(
            edited.routes[index], untouched.routes[index],
            "route {index}"
        );
    }
    assert_eq!(
        edited.placements[7], untouched.placements[7],
        "edited unit's placement"
    );
    assert_eq!(edited.motions[7].velocity, untouched.motions[7].velocity);
    assert_eq!(
        edited.motions[7].speed, 3.5,
        "the edit itself reached the GPU"
    );
}
