//! Two-phase occlusion culling through the whole frame (`passes/cull.rs`,
//! `passes/depth_pyramid.rs`): a crowd of knights behind a row of large
//! spheres, seen from the ground, drawn with occlusion culling on and off by
//! two renderers stepping the same time. Occlusion culling must not change a
//! pixel, in any frame, while the camera walks along the crowd (what becomes
//! visible is drawn in its first frame, by the late phase), and it must hide
//! some units, or the test proves nothing. On both tiers, with and without
//! MSAA (whose depth the pyramid reads per sample), with every unit a mesh
//! and with most of them in the far field (desktop tier), validation on.
//! Behind a wall lower than the knight's own sphere, the desktop tier's
//! cull hides the knights by the spheres of the clips they play, and the
//! mobile tier's, which tests the type's sphere, hides none.

use ash::vk;
use glam::Vec3;
use horde::asset::Asset;
use horde::camera::Camera;
use horde::context::{Context, Tier};
use horde::gpu_types::AnimParams;
use horde::renderer::{DrawStats, Renderer};
use horde::scene::{rgba8, static_asset, Scene};
use horde::target::Msaa;
use horde::world::{PropPlacement, UnitSpawn};
use horde_tests::{baked_knight, finish, gpu_context, output_dir};

const WIDTH: u32 = 160;
const HEIGHT: u32 = 96;
const FRAMES: u32 = 8;
const DT: f32 = 1.0 / 30.0;

/// A 16 x 10 grid of knights, half of them walking in place, behind a row
/// of spheres that hide most of the grid's left half from a camera on the
/// ground; a ground field under all.
fn crowd_scene(knight: &Asset) -> Scene {
    let units = (0..160)
        .map(|index| UnitSpawn {
            unit_type: 0,
            team: (index % 2) as u32,
            position: Vec3::new(
                (index % 16) as f32 * 1.5 - 12.0,
                0.0,
                -((index / 16) as f32) * 1.5 - 10.0,
            ),
            heading: index as f32 * 0.7,
            scale: 1.0,
            tint: rgba8(Vec3::new(0.9, 0.8, 0.7)),
            params: AnimParams {
                speed: if index % 2 == 0 { 0.0 } else { 1.4 },
                ..AnimParams::default()
            },
        })
        .collect();
    let mut props: Vec<PropPlacement> = (0..4)
        .map(|index| PropPlacement {
            prop_type: 0,
            position: Vec3::new(index as f32 * 3.0 - 12.0, 1.5, -6.0),
            heading: 0.0,
            scale: 2.0,
            tint: rgba8(Vec3::new(0.8, 0.3, 0.3)),
        })
        .collect();
    props.push(PropPlacement::at_origin(1, Vec3::new(0.36, 0.45, 0.24)));
    Scene {
        unit_types: vec![knight.clone()],
        controllers: vec![None],
        prop_types: vec![
            static_asset("sphere", &horde::mesh::sphere(24, 16)),
            static_asset("field", &horde::mesh::ground(400.0, 8)),
        ],
        units,
        props,
        simulation: None,
        ground_prop_types: vec![1],
        ground_texture: None,
    }
}

/// The camera of frame `frame`: at head height in front of the spheres,
/// walking to the right, so units come out from behind them.
fn camera(frame: u32) -> Camera {
    let x = -9.0 + frame as f32 * 0.6;
    Camera::look_at(Vec3::new(x, 1.6, 2.0), Vec3::new(x + 2.0, 1.0, -20.0))
}

/// Five staggered ranks of knights shoulder to shoulder, 8 m from the
/// camera, and a 6 x 6 block 100 m away behind them: nothing but units
/// hides the block, all of them small enough for the far field.
fn wall_scene(knight: &Asset) -> Scene {
    let wall = (0..70).map(|index| {
        let rank = index / 14;
        let stagger = (rank % 2) as f32 * 0.17;
        (
            (index % 14) as f32 * 0.35 - 2.3 + stagger,
            -8.0 - rank as f32 * 0.5,
        )
    });
    let block = (0..36).map(|index| {
        (
            (index % 6) as f32 * 0.5 - 1.25,
            -100.0 - (index / 6) as f32 * 0.8,
        )
    });
    let mut scene = crowd_scene(knight);
    scene.units = wall
        .chain(block)
        .enumerate()
        .map(|(index, (x, z))| UnitSpawn {
            position: Vec3::new(x, 0.0, z),
            heading: 0.0,
            ..scene.units[index]
        })
        .collect();
    scene.props.retain(|prop| prop.prop_type == 1);
    scene
}

/// The camera of frame `frame` before the wall, at its chest's height,
/// stepping sideways along it.
fn wall_camera(frame: u32) -> Camera {
    let x = -0.4 + frame as f32 * 0.1;
    Camera::look_at(Vec3::new(x, 0.9, 0.0), Vec3::new(x, 0.9, -20.0))
}

/// Every frame of the walk with occlusion culling `on`, the statistics of
/// the last, and whether impostors were on (the mobile tier's default).
/// Units spanning fewer than `far_field_px` go to the far field (0: every
/// unit a mesh).
fn render_walk(
    ctx: &mut Context,
    (scene, camera): (&Scene, fn(u32) -> Camera),
    msaa: Msaa,
    far_field_px: f32,
    on: bool,
) -> (Vec<image::RgbaImage>, DrawStats, bool) {
    let extent = vk::Extent2D {
        width: WIDTH,
        height: HEIGHT,
    };
    let (mut renderer, target) =
        Renderer::new_offscreen(ctx, scene, extent, msaa).expect("create renderer and target");
    renderer.settings.occlusion = on;
    renderer.settings.far_field_px = far_field_px;
    let images = (0..FRAMES)
        .map(|frame| {
            renderer
                .render_offscreen(ctx, &target, &camera(frame), DT, true)
                .expect("render frame");
            target.read_rgba().expect("read back")
        })
        .collect();
    let stats = renderer.finish(ctx).expect("finish");
    let impostors = renderer.settings.impostors;
    drop((renderer, target));
    (images, stats, impostors)
}

/// Renders the walk with occlusion culling on and off: the same pixels,
/// some units hidden. With `far_field_px` the wall and its camera: the far
/// field draws every unit, and only units hide units.
fn occlusion_changes_no_pixel(tier: Option<Tier>, msaa: Msaa, far_field_px: f32) {
    let knight = baked_knight();
    let mut ctx = gpu_context(tier);
    let walk = if far_field_px > 0.0 {
        (wall_scene(&knight), wall_camera as fn(u32) -> Camera)
    } else {
        (crowd_scene(&knight), camera as fn(u32) -> Camera)
    };
    let walk = (&walk.0, walk.1);
    let (culled, culled_stats, impostors) = render_walk(&mut ctx, walk, msaa, far_field_px, true);
    let (all, all_stats, _) = render_walk(&mut ctx, walk, msaa, far_field_px, false);
    for (frame, (culled, all)) in culled.iter().zip(&all).enumerate() {
        let differing = culled
            .pixels()
            .zip(all.pixels())
            .filter(|(a, b)| a != b)
            .count();
        if differing > 0 {
            let name = format!("occlusion_{tier:?}_{msaa:?}_{far_field_px}px_frame{frame}");
            culled
                .save(output_dir().join(format!("{name}_on.png")))
                .expect("save");
            all.save(output_dir().join(format!("{name}_off.png")))
                .expect("save");
        }
        assert_eq!(
            differing, 0,
            "frame {frame}: {differing} pixels differ with occlusion culling on \
             (images in target/test-output)"
        );
    }
    println!(
        "{tier:?} {msaa:?} far field below {far_field_px} px: units drawn {} of {} in the \
         frustum ({} by the far field), {} occluded; props occluded {}",
        culled_stats.units_visible(),
        all_stats.units_visible(),
        culled_stats.units_far_field,
        culled_stats.units_occluded,
        culled_stats.props_occluded
    );
    if far_field_px > 0.0 {
        // Every unit is the far field's, and only units stand in front of
        // units: what is hidden, the far field's depth hid.
        assert_eq!(all_stats.units_far_field, all_stats.units_visible());
        assert!(culled_stats.units_far_field < all_stats.units_far_field);
    }
    assert_eq!(all_stats.units_occluded, 0, "occlusion off hides nothing");
    assert!(
        culled_stats.units_occluded >= 20,
        "the spheres or the wall hide only {} units",
        culled_stats.units_occluded
    );
    // A unit in the impostor crossfade band is drawn twice, and counted
    // twice as visible but once as hidden: the sum is exact without
    // impostors.
    let accounted = culled_stats.units_visible() + culled_stats.units_occluded;
    if impostors {
        assert!(accounted <= all_stats.units_visible());
    } else {
        assert_eq!(
            accounted,
            all_stats.units_visible(),
            "every unit in the frustum is drawn or counted hidden"
        );
    }
    finish(ctx);
}

#[test]
fn occlusion_culling_changes_no_pixel_desktop() {
    occlusion_changes_no_pixel(None, Msaa::Off, 0.0);
}

#[test]
fn occlusion_culling_changes_no_pixel_with_msaa() {
    occlusion_changes_no_pixel(None, Msaa::X4, 0.0);
}

#[test]
fn occlusion_culling_changes_no_pixel_mobile() {
    occlusion_changes_no_pixel(Some(Tier::Mobile), Msaa::Off, 0.0);
}

/// The far field's units take part: the early phase's far field is in the
/// pyramid, and what it hides is not rasterized by the late one.
#[test]
fn occlusion_culling_changes_no_pixel_with_the_far_field() {
    occlusion_changes_no_pixel(None, Msaa::Off, 100.0);
}

#[test]
fn occlusion_culling_changes_no_pixel_with_the_far_field_and_msaa() {
    occlusion_changes_no_pixel(None, Msaa::X4, 100.0);
}

/// Ten knights, idle and walking, 12 to 13.5 m from the camera behind a
/// wall of overlapping spheres `wall_top` m high, 6 m away.
fn wall_of_spheres_scene(knight: &Asset, wall_top: f32) -> Scene {
    let mut scene = crowd_scene(knight);
    scene.units = (0..10)
        .map(|index| UnitSpawn {
            position: Vec3::new(
                (index % 5) as f32 - 2.0,
                0.0,
                -12.0 - (index / 5) as f32 * 1.5,
            ),
            ..scene.units[index]
        })
        .collect();
    let field = scene.props.pop().expect("the field");
    scene.props = (0..15)
        .map(|index| PropPlacement {
            prop_type: 0,
            position: Vec3::new(index as f32 - 7.0, wall_top - 1.5, -6.0),
            heading: 0.0,
            scale: 1.5,
            tint: rgba8(Vec3::new(0.8, 0.3, 0.3)),
        })
        .chain([field])
        .collect();
    scene
}

/// A camera at 1 m, looking along -Z over the wall.
fn wall_of_spheres_camera(_: u32) -> Camera {
    Camera::look_at(Vec3::new(0.0, 1.0, 0.0), Vec3::new(0.0, 1.0, -20.0))
}

/// The clips' spheres hide what the type's cannot, and only that. A wall
/// 2 m high hides the spheres of the clips the knights play (idle: 1.23 m
/// around 0.97 m high), not the knight's own sphere (2.48 m around 1.38 m),
/// whose top shows over it: the desktop tier's posed cull hides every
/// knight, the mobile tier's (the type's sphere, and impostors) none.
/// Over a wall 1.4 m high their heads show, and must be drawn (half the
/// clips' radii would hide them). Occlusion culling changes no pixel.
#[test]
fn the_clips_spheres_hide_units_behind_a_wall_the_types_sphere_overtops() {
    let knight = baked_knight();
    let cases = [
        (2.0, None, Some(10)),
        (2.0, Some(Tier::Mobile), Some(0)),
        (1.4, None, None),
    ];
    for (wall_top, tier, hidden) in cases {
        let scene = wall_of_spheres_scene(&knight, wall_top);
        let mut ctx = gpu_context(tier);
        let walk = (&scene, wall_of_spheres_camera as fn(u32) -> Camera);
        let (culled, stats, _) = render_walk(&mut ctx, walk, Msaa::Off, 0.0, true);
        let (all, all_stats, _) = render_walk(&mut ctx, walk, Msaa::Off, 0.0, false);
        finish(ctx);
        println!(
            "wall {wall_top} m, {tier:?}: {} of {} units hidden",
            stats.units_occluded,
            all_stats.units_visible()
        );
        assert_eq!(all_stats.units_visible() as usize, scene.units.len());
        if let Some(hidden) = hidden {
            assert_eq!(
                stats.units_occluded as usize, hidden,
                "{wall_top} m, {tier:?}"
            );
        }
        assert!(
            culled == all,
            "wall {wall_top} m, {tier:?}: occlusion culling changed the picture"
        );
    }
}
