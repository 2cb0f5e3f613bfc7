//! The battle's scene at its size (issue 21), on the CPU: the camera presets
//! frame the armies of 10k, 1M and 4M units as `presets.rs` says, the fog
//! leaves the armies' far corner readable, the cinematic sweep follows the
//! front, and no prop stands between a preset camera and the armies.

use glam::{Vec3, Vec3Swizzles};
use horde::camera::Camera;
use horde_battle::plan::battle_plan;
use horde_battle::BattleRules;
use horde_tools::battle::{
    battle_scene, prop_sphere, BattleCamera, BattleLayout, BattleOptions, GAP,
};
use horde_tools::presets::{
    cinematic_camera, preset_camera, Preset, SceneBounds, DEFAULT_ASPECT, EYE_HEIGHT,
    FRONT_MAX_DISTANCE, UNIT_TOP,
};
use horde_tools::stage::{Stage, FAR_CORNER_FOG, HORIZON_FOG, PLANNED_ASPECTS};

/// The scales the issue names.
const SCALES: [u32; 3] = [10_000, 1_000_000, 4_000_000];

fn armies(units: u32) -> SceneBounds {
    BattleLayout::new(units, BattleRules::default().spacing).bounds()
}

/// Where `point` lands in normalized device coordinates, if in front.
fn ndc(camera: &Camera, aspect: f32, point: Vec3) -> Option<(f32, f32)> {
    let clip = camera.view_projection(aspect) * point.extend(1.0);
    (clip.w > 1e-3).then(|| (clip.x / clip.w, clip.y / clip.w))
}

fn in_view(camera: &Camera, aspect: f32, point: Vec3) -> bool {
    ndc(camera, aspect, point).is_some_and(|(x, y)| x.abs() <= 1.0 && y.abs() <= 1.0)
}

/// Pixels a unit `UNIT_TOP` tall standing at `foot` spans in an image
/// `height` pixels tall.
fn unit_pixels(camera: &Camera, aspect: f32, foot: Vec3, height: f32) -> f32 {
    let (_, bottom) = ndc(camera, aspect, foot).expect("in front");
    let (_, top) = ndc(camera, aspect, foot + Vec3::Y * UNIT_TOP).expect("in front");
    (top - bottom).abs() * 0.5 * height
}

#[test]
fn overview_frames_both_armies_whole_at_every_scale() {
    for units in [2, 400].into_iter().chain(SCALES) {
        let bounds = armies(units);
        for aspect in PLANNED_ASPECTS {
            let camera = preset_camera(&bounds, Preset::Overview, aspect);
            let mut reach: f32 = 0.0;
            for corner in bounds.corners() {
                let (x, y) = ndc(&camera, aspect, corner)
                    .unwrap_or_else(|| panic!("{units} units: corner {corner} behind the camera"));
                assert!(
                    x.abs() <= 0.95 && y.abs() <= 0.95,
                    "{units} units, aspect {aspect}: corner {corner} at ({x}, {y})"
                );
                reach = reach.max(x.abs()).max(y.abs());
            }
            assert!(
                reach > 0.85,
                "{units} units: the armies fill only {reach} of the image"
            );
            // It looks into the armies' box: at the front line's centre
            // from the side, give or take the box's perspective; from
            // behind army 0 (a front longer than deep) at the line.
            let target = camera.target;
            let across = if bounds.half_extent.z > bounds.half_extent.x {
                bounds.half_extent.x
            } else {
                1e-2 * bounds.radius()
            };
            assert!(target.x.abs() < across, "{units} units: {target}");
            assert!(target.z.abs() < bounds.half_extent.z, "{target}");
        }
    }
}

#[test]
fn front_preset_sees_both_front_ranks_and_the_line_at_a_readable_size() {
    let aspect = DEFAULT_ASPECT;
    for units in SCALES {
        let bounds = armies(units);
        let camera = preset_camera(&bounds, Preset::FrontLine, aspect);
        let near_end = -bounds.half_extent.z;
        let target = camera.target;
        assert!(
            target.x.abs() < 1e-3 && target.z > near_end,
            "{units}: {target}"
        );
        assert!(camera.position.distance(target) <= FRONT_MAX_DISTANCE + 1e-3);
        assert!(camera.position.y > 5.0, "{units}: {:?}", camera.position);
        // Both armies' front ranks, as drawn up and at contact, around the
        // point looked at.
        for x in [-GAP / 2.0, -1.0, 1.0, GAP / 2.0] {
            for dz in [-10.0, 0.0, 10.0] {
                let foot = Vec3::new(x, 0.0, target.z + dz);
                assert!(
                    in_view(&camera, aspect, foot),
                    "{units}: {foot} out of view"
                );
                assert!(in_view(&camera, aspect, foot + Vec3::Y * UNIT_TOP));
            }
            let pixels = unit_pixels(&camera, aspect, Vec3::new(x, 0.0, target.z), 1080.0);
            assert!(
                pixels > 12.0,
                "{units}: a front-rank unit spans {pixels} px"
            );
        }
        // The line runs on into the distance, in view.
        let far = Vec3::new(0.0, 0.0, bounds.half_extent.z.min(target.z + 400.0));
        assert!(in_view(&camera, aspect, far), "{units}: {far} out of view");
    }
}

#[test]
fn ground_preset_stands_beside_the_front_at_eye_height_looking_along_it() {
    for units in SCALES {
        let bounds = armies(units);
        let near_end = bounds.near_end();
        assert!(near_end > -bounds.half_extent.z, "{units}: {bounds:?}");
        let plan = battle_plan(units, 1, BattleRules::default());
        for aspect in PLANNED_ASPECTS {
            let camera = preset_camera(&bounds, Preset::GroundLevel, aspect);
            let p = camera.position;
            // Within 10 m of the centres' front line's near end, at eye
            // height, clear of every unit as drawn up.
            let off_end = Vec3::new(p.x, 0.0, p.z - near_end).length();
            assert!(off_end < 10.0, "{units}: {off_end} m from the front's end");
            assert!((p.y - EYE_HEIGHT).abs() < 1e-3);
            let nearest = plan
                .units
                .iter()
                .map(|unit| {
                    Vec3::new(unit.position[0], 0.0, unit.position[1]).distance(p.with_y(0.0))
                })
                .fold(f32::INFINITY, f32::min);
            assert!(nearest > 3.0, "{units}: {p} stands among the armies");
            // Looking along the line within 10 degrees, near level.
            let view = (camera.target - p).normalize();
            let yaw = view.x.atan2(view.z).to_degrees();
            assert!(
                yaw.abs() < 10.0,
                "{units}: yaw {yaw} degrees from the front"
            );
            assert!(view.y.abs() < 0.1);
            // Both armies' front ranks beside the fighting, in view: at
            // contact from 20 m on, as drawn up (GAP apart) from 1.5 GAP on.
            for (x, z) in [
                (-1.0, 20.0),
                (1.0, 20.0),
                (-GAP / 2.0, 1.5 * GAP),
                (GAP / 2.0, 1.5 * GAP),
            ] {
                let foot = Vec3::new(x, 0.0, near_end + z);
                assert!(
                    in_view(&camera, aspect, foot),
                    "{units}: {foot} out of view"
                );
            }
        }
    }
}

#[test]
fn fog_leaves_the_far_corner_readable_and_the_field_reaches_the_haze() {
    for units in SCALES {
        let bounds = armies(units);
        let stage = Stage::for_armies(&bounds);
        for preset in Preset::ALL {
            for aspect in PLANNED_ASPECTS {
                let camera = preset_camera(&bounds, preset, aspect);
                let far = bounds
                    .corners()
                    .iter()
                    .map(|corner| corner.distance(camera.position))
                    .fold(0.0, f32::max);
                let fog = stage.fog_at(far);
                assert!(
                    fog <= FAR_CORNER_FOG + 1e-4,
                    "{units} units, {preset:?}: the far corner {far} m off is {:.0} % fogged",
                    fog * 100.0
                );
                assert!(stage.max_draw_distance > far);
            }
        }
        // Seen from the overview, the field's edge has melted into the sky.
        let overview = preset_camera(&bounds, Preset::Overview, DEFAULT_ASPECT);
        let edge = stage.field_size * 0.5 - overview.position.xz().length();
        assert!(
            stage.fog_at(edge) >= HORIZON_FOG - 0.01,
            "{units}: {stage:?}"
        );
        println!(
            "{units} units: fog density {:.2e}/m, visibility {:.0} m, field {:.0} m",
            stage.environment.fog_density, stage.max_draw_distance, stage.field_size
        );
    }
}

#[test]
fn cinematic_sweep_follows_the_front_line() {
    for units in SCALES {
        let bounds = armies(units);
        let h = bounds.half_extent;
        let mut along: (f32, f32) = (f32::INFINITY, f32::NEG_INFINITY);
        for i in 0..3000 {
            let camera = cinematic_camera(&bounds, i as f32 * 0.1);
            let target = camera.target;
            assert!(
                target.x.abs() <= 8.0 + 1e-3,
                "{units}: {target} off the front"
            );
            assert!(
                target.z.abs() <= h.z,
                "{units}: {target} beyond the front's ends"
            );
            along = (along.0.min(target.z), along.1.max(target.z));
            assert!(
                camera.position.y > 8.0,
                "{units}: {:?} too low",
                camera.position
            );
        }
        // It runs along most of the front.
        assert!(
            along.1 - along.0 > h.z,
            "{units}: only {along:?} of ±{}",
            h.z
        );
    }
}

#[test]
fn presets_of_absurd_bounds_and_aspects_are_finite() {
    let absurd = [
        SceneBounds {
            center: Vec3::NAN,
            half_extent: Vec3::INFINITY,
            front_near_end: Some(f32::NAN),
        },
        SceneBounds {
            center: Vec3::ZERO,
            half_extent: Vec3::ZERO,
            front_near_end: Some(f32::INFINITY),
        },
        SceneBounds {
            center: Vec3::splat(1e30),
            half_extent: Vec3::splat(-1e30),
            front_near_end: Some(-1e30),
        },
        armies(0),
        armies(u32::MAX),
    ];
    for bounds in absurd {
        for aspect in [f32::NAN, 0.0, -1.0, f32::INFINITY, 1e-9, DEFAULT_ASPECT] {
            for preset in Preset::ALL {
                let camera = preset_camera(&bounds, preset, aspect);
                assert!(
                    camera.position.is_finite() && camera.target.is_finite(),
                    "{bounds:?} {preset:?} {aspect}: {camera:?}"
                );
                assert!(camera.position.distance(camera.target) > 0.1);
            }
        }
        let camera = cinematic_camera(&bounds, 12.0);
        assert!(camera.position.is_finite() && camera.target.is_finite());
    }
}

/// The distance from `point` to the segment `a..b`.
fn segment_distance(point: Vec3, a: Vec3, b: Vec3) -> f32 {
    let ab = b - a;
    let t = ((point - a).dot(ab) / ab.length_squared().max(1e-12)).clamp(0.0, 1.0);
    point.distance(a + ab * t)
}

/// Every sight line from a preset camera to a sample of both armies' units
/// (their chests, every front-rank unit among them) misses every prop's
/// bounding sphere.
fn assert_no_prop_blocks_a_view(units: u32, props: u32) {
    let battle = battle_scene(&BattleOptions {
        units,
        props,
        seed: 3,
        encoding: horde::asset::BoneEncoding::Mat3x4F32,
        models: Vec::new(),
        cache: horde_bake::cache::CacheOptions::default(),
        rules: BattleRules::default(),
        clip_map: Vec::new(),
    })
    .expect("battle scene");
    let scene = &battle.scene;
    // The field is the last prop: everything stands on it.
    let scattered = &scene.props[..scene.props.len() - 1];
    assert!(
        scattered.len() as f32 >= props as f32 * 0.9,
        "{units} units: only {} of {props} props found a place",
        scattered.len()
    );
    let spheres: Vec<(Vec3, f32)> = scattered
        .iter()
        .map(|prop| prop_sphere(&scene.prop_types[prop.prop_type as usize].bounds, prop))
        .collect();
    let stride = (scene.units.len() / 1500).max(1);
    let samples: Vec<Vec3> = scene
        .units
        .iter()
        .enumerate()
        .filter(|(i, _)| i % stride == 0 || *i as u32 % battle.regiment_size.max(1) == 0)
        .map(|(_, unit)| unit.position + Vec3::Y * 1.2)
        .chain(battle.bounds().corners())
        .collect();
    for camera in [
        BattleCamera::Overview,
        BattleCamera::Front,
        BattleCamera::Ground,
    ] {
        for (width, height) in [(1920, 1080), (480, 270), (1000, 1000)] {
            let eye = battle.camera(camera, width, height).position;
            for &(center, radius) in &spheres {
                for &sample in &samples {
                    assert!(
                        segment_distance(center, eye, sample) > radius,
                        "{units} units, {camera:?} at {width}x{height}: a prop at {center} \
                         (radius {radius}) stands between {eye} and {sample}"
                    );
                }
            }
        }
    }
}

#[test]
fn no_prop_blocks_a_preset_view_at_10k() {
    assert_no_prop_blocks_a_view(10_000, 400);
}

#[test]
fn no_prop_blocks_a_preset_view_at_1m() {
    assert_no_prop_blocks_a_view(1_000_000, 4_000);
}
