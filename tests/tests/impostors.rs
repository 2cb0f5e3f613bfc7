//! Animated impostors (issue 24): the bake, the format, the cull's route and
//! the draw, on lavapipe, both tiers.
//!
//! - The bake is deterministic (one thread or many) and fits the mobile
//!   tier's atlas limit.
//! - A baked cell of the generated knight has the silhouette of the knight's
//!   mesh rendered by the engine from that view and frame: intersection over
//!   union at least [`MIN_SILHOUETTE_IOU`].
//! - The cull routes to the impostor (and the crossfade band) exactly as its
//!   CPU twin.
//! - At the switch distance an impostor crowd differs from the mesh crowd by
//!   at most [`MAX_SWITCH_FLIP`] (FLIP mean over the crowd's box), for
//!   three camera elevations and two clips, and is no further from the
//!   2 × 2 supersampled LOD 0 reference than the mesh (plus a slack).
//! - A crowd of impostors matches its golden image, on both tiers.
//! - The mobile tier draws 10k units with impostors, validation clean.
//! - A `.horde` file with a broken `IMPO` section is refused with an error
//!   that names the file and the section.

use glam::Vec3;
use horde::asset::{self, Asset};
use horde::camera::Camera;
use horde::config::ROUTE_CODE_IMPOSTOR;
use horde::context::{Context, Tier};
use horde::gpu_types::{AnimParams, CullGlobals};
use horde::passes::cull::cull_globals;
use horde::reference::cull::{cull, ReferenceBatch, ReferenceOutput};
use horde::scene::{rgba8, Scene};
use horde::target::Msaa;
use horde::world::regions::type_table;
use horde::world::UnitSpawn;
use horde_bake as bake;
use horde_tests::{
    baked_knight, compare_with_reference_by_flip, finish, gpu_context, output_dir, render_scene,
};

/// The least intersection over union of a cell's silhouette (coverage at
/// least one half) and the engine's render of the mesh from the same view
/// and frame, sampled at the cell's 2 × 2 sample points. The bake renders
/// the same pose of the same LOD 0 with the same projection, but its
/// coverage is conservative (a texel any of its four samples covers is
/// inside, so that parts thinner than a texel survive the alpha test):
/// a fringe of about half a texel around a silhouette of 40 to 100 texels
/// costs up to 0.25. Measured 0.82 to 0.92 on lavapipe.
const MIN_SILHOUETTE_IOU: f64 = 0.75;

/// The largest FLIP mean between a crowd drawn as impostors and as meshes
/// at the switch distance, over the box around the crowd. A unit there is
/// about 7 pixels tall (the impostor's error, 0.055 of the sphere's
/// diameter, reaches the 1-pixel threshold at an 18-pixel sphere); the
/// impostor samples its atlas's mip level for that size, smoother than the
/// single-sample mesh, and its conservative coverage is a little fatter.
/// Measured 0.084 to 0.113 on lavapipe for the three views; a missing,
/// mis-posed or mis-lit unit scores 0.3 and more over its box. Against the
/// 2 × 2 supersampled LOD 0 reference the impostor must also be no further
/// than the mesh it replaces, plus [`SWITCH_FLIP_SLACK`] (measured:
/// impostor 0.072 to 0.082, mesh 0.069 to 0.087).
const MAX_SWITCH_FLIP: f64 = 0.14;
/// See [`MAX_SWITCH_FLIP`].
const SWITCH_FLIP_SLACK: f64 = 0.02;

#[test]
fn the_bake_is_deterministic_and_fits_the_mobile_atlas() {
    let knight = baked_knight();
    let impostor = knight.impostor.clone().expect("the knight has an impostor");
    assert_eq!(impostor.views_per_side, asset::IMPOSTOR_VIEWS_PER_SIDE);
    assert_eq!(impostor.cell_px, asset::IMPOSTOR_CELL_PX);
    assert_eq!(
        impostor.frame_count, 40,
        "idle, walk, run, attack, die: 8 each"
    );
    let single = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("thread pool")
        .install(|| bake::impostor::bake(&knight));
    assert!(
        single.as_ref() == Some(&impostor),
        "one thread bakes other bytes"
    );
    // Six unit types (the generated armies) fit one mobile-tier image.
    let types = [&knight; 6];
    let atlas = horde::world::impostors::pack(&types, 4096).expect("six types fit 4096");
    assert!(atlas.height <= 4096, "{}", atlas.height);
    assert!(horde::world::impostors::pack(&[&knight; 7], 4096).is_err());
}

/// A camera 100 sphere radii from the knight's impostor box along grid view
/// (`row`, `column`), looking at the box's centre, and its pixels per model
/// unit there: the box's larger cell extent spans `span_px` of `height`.
fn view_camera(knight: &Asset, row: u32, column: u32, span_px: f32, height: u32) -> (Camera, f32) {
    let impostor = knight.impostor.as_ref().expect("impostor");
    let centre = Vec3::from(impostor.box_center);
    let direction = bake::impostor::view_direction(row, column);
    let (right, up) = bake::impostor::view_basis(direction);
    let extent = bake::impostor::cell_half_extent(Vec3::from(impostor.box_half_extent), right, up);
    let distance = 100.0 * knight.bounds.sphere_radius;
    let pixels_per_unit = span_px / (2.0 * extent.max_element());
    let mut camera = Camera::look_at(centre + direction * distance, centre);
    camera.fov_y = 2.0 * (height as f32 / (2.0 * pixels_per_unit * distance)).atan();
    camera.near = distance * 0.5;
    (camera, pixels_per_unit)
}

fn lone_knight(knight: &Asset) -> Scene {
    Scene {
        unit_types: vec![knight.clone()],
        controllers: vec![None],
        prop_types: Vec::new(),
        units: vec![UnitSpawn {
            unit_type: 0,
            team: 0,
            position: Vec3::ZERO,
            heading: 0.0,
            scale: 1.0,
            tint: rgba8(Vec3::ONE),
            params: AnimParams::default(),
        }],
        props: Vec::new(),
        simulation: None,
        ground_prop_types: Vec::new(),
        ground_texture: None,
    }
}

#[test]
fn a_knight_cell_matches_the_mesh_from_its_view() {
    let knight = baked_knight();
    let impostor = knight.impostor.clone().expect("impostor");
    let mut ctx = gpu_context(None);
    let scene = lone_knight(&knight);
    let cell = asset::IMPOSTOR_CELL_PX;
    let side = asset::IMPOSTOR_VIEWS_PER_SIDE;
    let image_side = 128;
    for (row, column) in [(3, 5), (0, 3), (7, 7)] {
        let (camera, pixels_per_unit) = view_camera(&knight, row, column, 120.0, image_side);
        let image = render_scene(
            &mut ctx,
            &scene,
            &camera,
            |renderer| {
                renderer.settings.impostors = false;
                renderer.settings.far_field_px = 0.0;
                renderer.settings.lod_threshold_px = 1e-6;
            },
            image_side,
            image_side,
            1,
            0.0,
        );
        image
            .save(output_dir().join(format!("impostor_view_{row}_{column}.mesh.png")))
            .expect("save");
        // The clear colour, as the target stores it.
        let background = image.get_pixel(0, 0).0;
        // Idle's frame 0, this view.
        let clip = &impostor.clips[0];
        let view = (row * side + column) as usize;
        let first = (clip.first_frame as usize * (side * side) as usize + view)
            * (cell * cell) as usize
            * 4;
        let texels = &impostor.albedo[first..first + (cell * cell * 4) as usize];
        image::RgbaImage::from_raw(cell, cell, texels.to_vec())
            .expect("cell")
            .save(output_dir().join(format!("impostor_view_{row}_{column}.cell.png")))
            .expect("save");
        let direction = bake::impostor::view_direction(row, column);
        let (right, up) = bake::impostor::view_basis(direction);
        let extent =
            bake::impostor::cell_half_extent(Vec3::from(impostor.box_half_extent), right, up);
        // Whether the mesh covers the image pixel under cell point (u, v).
        let covered = |u: f32, v: f32| {
            let x = (u * 2.0 - 1.0) * extent.x * pixels_per_unit + image_side as f32 / 2.0;
            let y = (v * 2.0 - 1.0) * extent.y * pixels_per_unit + image_side as f32 / 2.0;
            let (x, y) = (x.floor() as i64, y.floor() as i64);
            let inside =
                (0..i64::from(image_side)).contains(&x) && (0..i64::from(image_side)).contains(&y);
            inside && {
                let pixel = image.get_pixel(x as u32, y as u32);
                (0..3).any(|c| pixel[c].abs_diff(background[c]) > 2)
            }
        };
        let (mut both, mut either) = (0u32, 0u32);
        for y in 0..cell {
            for x in 0..cell {
                let samples = (0..4)
                    .filter(|&s| {
                        let u = (x as f32 + 0.25 + 0.5 * (s % 2) as f32) / cell as f32;
                        let v = (y as f32 + 0.25 + 0.5 * (s / 2) as f32) / cell as f32;
                        covered(u, v)
                    })
                    .count();
                let mesh = samples >= 2;
                let baked = texels[((y * cell + x) * 4 + 3) as usize] >= 128;
                both += u32::from(mesh && baked);
                either += u32::from(mesh || baked);
            }
        }
        let iou = f64::from(both) / f64::from(either.max(1));
        println!("view ({row}, {column}): silhouette IoU {iou:.3} over {either} texels");
        assert!(either > 16, "view ({row}, {column}): nothing drawn");
        assert!(
            iou >= MIN_SILHOUETTE_IOU,
            "view ({row}, {column}): IoU {iou:.3} below {MIN_SILHOUETTE_IOU}"
        );
    }
    finish(ctx);
}

const WIDTH: u32 = 480;
const HEIGHT: u32 = 270;

/// Knights in a fan before a camera at the origin looking down -Z, from
/// near to far, heading 0 (so the twin's sphere is exact), even ones idle
/// and odd ones walking in place.
fn receding_crowd(knight: &Asset, count: u32, near: f32, far: f32) -> Scene {
    let units = (0..count)
        .map(|index| {
            let t = index as f32 / (count - 1).max(1) as f32;
            let depth = near + (far - near) * t;
            let lateral = ((index * 7919) % 101) as f32 / 100.0 - 0.5;
            UnitSpawn {
                unit_type: 0,
                team: index % 2,
                position: Vec3::new(lateral * depth * 0.6, -1.0, -depth),
                heading: 0.0,
                scale: 1.0,
                tint: rgba8(Vec3::new(1.0, 0.9, 0.8)),
                params: AnimParams {
                    speed: if index % 2 == 0 { 0.0 } else { 1.4 },
                    ..AnimParams::default()
                },
            }
        })
        .collect();
    Scene {
        units,
        ..lone_knight(knight)
    }
}

/// The cull inputs the renderer builds for `camera` with impostors on.
fn impostor_globals(camera: &Camera, threshold: f32, band: f32) -> CullGlobals {
    let mut globals = cull_globals(
        camera,
        WIDTH as f32 / HEIGHT as f32,
        HEIGHT as f32,
        1.0,
        1.0,
        0.25,
        2000.0,
    );
    globals.impostor_threshold_px = threshold;
    globals.impostor_band = band;
    globals
}

fn cull_matches_the_twin(tier: Option<Tier>) {
    let knight = baked_knight();
    let ctx = gpu_context(tier);
    let scene = receding_crowd(&knight, 400, 4.0, 300.0);
    let camera = Camera::look_at(Vec3::ZERO, Vec3::NEG_Z);
    let extent = ash::vk::Extent2D {
        width: WIDTH,
        height: HEIGHT,
    };
    let (mut renderer, target) =
        horde::renderer::Renderer::new_offscreen(&ctx, &scene, extent, Msaa::Off)
            .expect("renderer");
    renderer.settings.impostors = true;
    renderer.settings.far_field_px = 0.0;
    // The twin routes as the single-phase cull does: no occlusion culling
    // (its hidden units and visible bits, tests/tests/occlusion.rs).
    renderer.settings.occlusion = false;
    let frames = 5;
    for _ in 0..frames {
        renderer
            .render_offscreen(&ctx, &target, &camera, 0.0, true)
            .expect("render");
    }
    let state = renderer.world.read_unit_state(&ctx).expect("read back");
    let globals = impostor_globals(
        &camera,
        renderer.settings.impostor_threshold_px,
        renderer.settings.impostor_band,
    );
    let types = type_table(&renderer.world.types);
    let mut routes = vec![0u32; state.infos.len()];
    let commands = horde::config::MAX_DRAW_COMMANDS as usize;
    let mut output = ReferenceOutput::new(commands, u32::MAX);
    for _ in 0..frames {
        output = ReferenceOutput::new(commands, u32::MAX);
        cull(
            &globals,
            &types,
            ReferenceBatch {
                infos: &state.infos,
                placements: &state.placements,
                routes: &mut routes,
            },
            &mut output,
        );
    }
    assert_eq!(state.routes, routes, "routes: GPU against the CPU twin");
    let impostors = routes
        .iter()
        .filter(|&&code| code == ROUTE_CODE_IMPOSTOR)
        .count();
    let impostor_command = renderer.world.impostor_command() as usize;
    let drawn = output.appended[impostor_command].len();
    println!(
        "{tier:?}: {impostors} of {} units are impostors, {} drawn as impostors (band included)",
        routes.len(),
        drawn
    );
    assert!(impostors > 50 && impostors < 390, "{impostors}");
    assert!(drawn > impostors, "no unit in the crossfade band");
    assert_eq!(
        renderer.stats.units_impostor as usize, drawn,
        "{:?}",
        renderer.stats
    );
    drop((renderer, target));
    finish(ctx);
}

#[test]
fn the_cull_routes_impostors_as_its_twin_on_desktop() {
    cull_matches_the_twin(None);
}

#[test]
fn the_cull_routes_impostors_as_its_twin_on_mobile() {
    cull_matches_the_twin(Some(Tier::Mobile));
}

/// Eight knights side by side at the distance where the impostor's error is
/// the threshold (so the impostor alone draws them), seen from a camera
/// `elevation` degrees above the horizon; `walking`: they walk in place.
fn switch_scene(knight: &Asset, elevation: f32, walking: bool) -> (Scene, Camera) {
    let impostor = knight.impostor.as_ref().expect("impostor");
    let camera = Camera::look_at(Vec3::ZERO, Vec3::NEG_Z);
    let pixels_per_unit = HEIGHT as f32 / (2.0 * (camera.fov_y * 0.5).tan());
    let size_px = 2.0 * knight.bounds.sphere_radius * pixels_per_unit;
    // impostor error × size / distance = 1 px: the switch.
    let distance = impostor.error * size_px * 1.001;
    let centre = Vec3::new(0.0, 0.0, 0.0);
    let units = (0..8)
        .map(|index| UnitSpawn {
            unit_type: 0,
            team: 0,
            position: centre + Vec3::new((index as f32 - 3.5) * 1.6, 0.0, 0.0),
            heading: 0.3 * index as f32,
            scale: 1.0,
            tint: rgba8(Vec3::new(1.0, 0.9, 0.8)),
            params: AnimParams {
                speed: if walking { 1.4 } else { 0.0 },
                ..AnimParams::default()
            },
        })
        .collect();
    let look_at = centre + Vec3::new(0.0, knight.bounds.sphere_center[1], 0.0);
    let angle = elevation.to_radians();
    let eye = look_at + Vec3::new(0.0, angle.sin(), angle.cos()) * distance;
    let scene = Scene {
        units,
        ..lone_knight(knight)
    };
    (scene, Camera::look_at(eye, look_at))
}

/// FLIP mean over the box around the pixels where either image shows a
/// unit, grown by 2 pixels.
fn crowd_flip(mesh: &image::RgbaImage, impostor: &image::RgbaImage) -> f64 {
    let background = mesh.get_pixel(0, 0).0;
    let is_unit = |image: &image::RgbaImage, x: u32, y: u32| {
        let pixel = image.get_pixel(x, y);
        (0..3).any(|c| pixel[c].abs_diff(background[c]) > 2)
    };
    let (mut low, mut high) = ((u32::MAX, u32::MAX), (0, 0));
    for y in 0..mesh.height() {
        for x in 0..mesh.width() {
            if is_unit(mesh, x, y) || is_unit(impostor, x, y) {
                low = (low.0.min(x), low.1.min(y));
                high = (high.0.max(x), high.1.max(y));
            }
        }
    }
    assert!(low.0 <= high.0, "no unit drawn");
    let x = low.0.saturating_sub(2);
    let y = low.1.saturating_sub(2);
    let width = (high.0 + 3).min(mesh.width()) - x;
    let height = (high.1 + 3).min(mesh.height()) - y;
    let crop =
        |image: &image::RgbaImage| image::imageops::crop_imm(image, x, y, width, height).to_image();
    horde_tools::quality::flip(&crop(mesh), &crop(impostor))
        .expect("flip")
        .mean
}

#[test]
fn impostors_at_the_switch_distance_look_like_the_meshes() {
    let knight = baked_knight();
    let mut ctx = gpu_context(None);
    let mut worst = 0.0f64;
    for (elevation, walking) in [(10.0, false), (35.0, true), (60.0, false)] {
        let (scene, camera) = switch_scene(&knight, elevation, walking);
        let render = |ctx: &mut Context, impostors: bool, scale: u32| {
            render_scene(
                ctx,
                &scene,
                &camera,
                |renderer| {
                    renderer.settings.far_field_px = 0.0;
                    renderer.settings.impostors = impostors;
                    if scale > 1 {
                        // The reference: every unit a mesh at LOD 0.
                        renderer.settings.lod_threshold_px = 1e-6;
                    }
                },
                WIDTH * scale,
                HEIGHT * scale,
                8,
                1.0 / 30.0,
            )
        };
        let mesh = render(&mut ctx, false, 1);
        let impostor = render(&mut ctx, true, 1);
        let reference =
            horde_tools::quality::box_downsample_2x2(&render(&mut ctx, false, 2)).expect("2x2");
        let name = format!("impostor_switch_{elevation}_{walking}");
        for (what, image) in [
            ("mesh", &mesh),
            ("impostor", &impostor),
            ("reference", &reference),
        ] {
            image
                .save(output_dir().join(format!("{name}.{what}.png")))
                .expect("save");
        }
        let flip = crowd_flip(&mesh, &impostor);
        let mesh_error = crowd_flip(&reference, &mesh);
        let impostor_error = crowd_flip(&reference, &impostor);
        println!(
            "elevation {elevation}°, walking {walking}: FLIP impostor vs mesh {flip:.4}; against \
             the 2x2 LOD 0 reference: mesh {mesh_error:.4}, impostor {impostor_error:.4}"
        );
        worst = worst.max(flip);
        assert!(
            impostor_error <= mesh_error + SWITCH_FLIP_SLACK,
            "elevation {elevation}: the impostor is further from the reference than the mesh"
        );
    }
    assert!(
        worst <= MAX_SWITCH_FLIP,
        "FLIP {worst:.4} over {MAX_SWITCH_FLIP}"
    );
    finish(ctx);
}

/// A crowd of 200 knights, every one an impostor, on `tier`.
fn impostor_crowd(tier: Option<Tier>) -> image::RgbaImage {
    let knight = baked_knight();
    let mut ctx = gpu_context(tier);
    let scene = receding_crowd(&knight, 200, 10.0, 120.0);
    let camera = Camera::look_at(Vec3::new(0.0, 3.0, 0.0), Vec3::new(0.0, 0.0, -40.0));
    let image = render_scene(
        &mut ctx,
        &scene,
        &camera,
        |renderer| {
            renderer.settings.far_field_px = 0.0;
            renderer.settings.impostors = true;
            // Every unit an impostor.
            renderer.settings.impostor_threshold_px = 1000.0;
        },
        WIDTH,
        HEIGHT,
        6,
        1.0 / 30.0,
    );
    finish(ctx);
    image
}

#[test]
fn an_impostor_crowd_matches_its_golden_image() {
    compare_with_reference_by_flip("impostor_crowd", &impostor_crowd(None), 0.02);
}

#[test]
fn the_mobile_tier_draws_the_same_impostor_crowd() {
    compare_with_reference_by_flip("impostor_crowd", &impostor_crowd(Some(Tier::Mobile)), 0.02);
}

/// A renderer of `count` knights receding from `near` to `far` metres
/// ([`receding_crowd`]) drawn with `msaa`, its target, and the camera that
/// looks down the crowd.
fn mobile_crowd(
    ctx: &Context,
    count: u32,
    near: f32,
    far: f32,
    msaa: Msaa,
) -> (horde::renderer::Renderer, horde::target::Offscreen, Camera) {
    let scene = receding_crowd(&baked_knight(), count, near, far);
    let camera = Camera::look_at(Vec3::new(0.0, 2.0, 0.0), Vec3::new(0.0, 0.0, -100.0));
    let extent = ash::vk::Extent2D {
        width: WIDTH,
        height: HEIGHT,
    };
    let (renderer, target) =
        horde::renderer::Renderer::new_offscreen(ctx, &scene, extent, msaa).expect("renderer");
    (renderer, target, camera)
}

/// With the renderer's default 4x MSAA: the impostor pipeline follows the
/// main pass's sample count.
#[test]
fn the_mobile_tier_draws_ten_thousand_impostors_cleanly() {
    let ctx = gpu_context(Some(Tier::Mobile));
    let (mut renderer, target, camera) = mobile_crowd(&ctx, 10_000, 20.0, 600.0, Msaa::X4);
    assert!(!renderer.has_far_field());
    assert!(
        renderer.settings.impostors,
        "impostors are the mobile tier's default"
    );
    for _ in 0..4 {
        renderer
            .render_offscreen(&ctx, &target, &camera, 1.0 / 30.0, true)
            .expect("render");
    }
    let stats = renderer.stats.clone();
    println!("mobile tier, 10k units: {stats:?}");
    assert!(stats.units_impostor > 5000, "{stats:?}");
    drop((renderer, target));
    finish(ctx);
}

/// The file's `IMPO` section: its offset and length.
fn impostor_section(bytes: &[u8]) -> (usize, usize) {
    let section = asset::section_table(bytes)
        .expect("table")
        .into_iter()
        .find(|s| &s.tag == b"IMPO")
        .expect("IMPO section");
    (section.offset, section.len)
}

/// Re-seals a patched file: its checksum.
fn reseal(bytes: &mut [u8]) {
    let checksum = asset::fnv1a32(&bytes[asset::HEADER_SIZE..]);
    bytes[24..28].copy_from_slice(&checksum.to_le_bytes());
}

#[test]
fn a_broken_atlas_section_is_refused_with_a_clear_error() {
    let knight = baked_knight();
    let bytes = asset::write(&knight).expect("write");
    let (offset, len) = impostor_section(&bytes);
    let patch = |field: usize, value: u32| {
        let mut patched = bytes.clone();
        patched[offset + field..offset + field + 4].copy_from_slice(&value.to_le_bytes());
        reseal(&mut patched);
        patched
    };
    // Views, cell size, frame count, error, the box, the clip count, a
    // clip's first frame.
    let hostile = [
        ("views per side", patch(0, 9)),
        ("cell size", patch(4, 64)),
        ("no frames", patch(8, 0)),
        ("one frame more than stored", patch(8, 41)),
        ("frames beyond the limit", patch(8, u32::MAX)),
        ("error", patch(12, f32::NAN.to_bits())),
        ("box centre", patch(16, f32::INFINITY.to_bits())),
        ("box extent", patch(28, (-1.0f32).to_bits())),
        ("clip count", patch(40, 1_000_000)),
        ("clip frames outside", patch(44, 40)),
    ];
    let dir = output_dir().join("impostor-hostile");
    std::fs::create_dir_all(&dir).expect("dir");
    for (what, file) in hostile {
        let path = dir.join(format!("{}.horde", what.replace(' ', "_")));
        std::fs::write(&path, &file).expect("write");
        let error = asset::read_file(&path)
            .map(|_| ())
            .expect_err(what)
            .to_string();
        println!("{what}: {error}");
        assert!(
            error.contains(&path.display().to_string()),
            "{what}: {error}"
        );
        assert!(
            error.contains("IMPO") || error.contains("impostor"),
            "{what}: {error}"
        );
    }
    // Every truncation inside the section: an error, never a panic.
    for cut in (offset..offset + len).step_by(len / 97 + 1) {
        let mut truncated = bytes[..cut].to_vec();
        let length = truncated.len() as u64;
        truncated[16..24].copy_from_slice(&length.to_le_bytes());
        reseal(&mut truncated);
        assert!(asset::read(&truncated).is_err(), "cut at {cut}");
    }
}

/// The frame cost the budget test models: a mesh costs ten impostors.
fn modelled_cost(stats: &horde::renderer::DrawStats) -> f32 {
    let meshes: u32 = stats.units_per_lod.iter().sum();
    meshes as f32 * 0.01 + stats.units_impostor as f32 * 0.001
}

#[test]
fn the_mobile_budget_moves_the_impostor_switch() {
    let ctx = gpu_context(Some(Tier::Mobile));
    let (mut renderer, target, camera) = mobile_crowd(&ctx, 1000, 3.0, 150.0, Msaa::Off);
    let budget_ms = 3.0;
    renderer.settings.budget_ms = Some(budget_ms);
    renderer.settings.budget_source = horde::renderer::BudgetSource::Model(modelled_cost);
    let start_threshold = renderer.settings.impostor_threshold_px;
    let mut first_cost = None;
    for _ in 0..60 {
        renderer
            .render_offscreen(&ctx, &target, &camera, 0.0, false)
            .expect("render");
        if first_cost.is_none() && !renderer.stats.units_per_lod.is_empty() {
            first_cost = Some(modelled_cost(&renderer.stats));
        }
    }
    let stats = renderer.finish(&ctx).expect("finish");
    let cost = modelled_cost(&stats);
    let status = renderer.budget().expect("the budget steers the frame");
    println!(
        "budget {budget_ms} ms: modelled cost {first_cost:?} -> {cost:.2} ms, impostor threshold \
         {start_threshold} -> {} px, {stats:?}",
        renderer.settings.impostor_threshold_px
    );
    assert!(first_cost.is_some_and(|c| c > budget_ms), "{first_cost:?}");
    assert!(renderer.settings.impostor_threshold_px > start_threshold);
    assert_eq!(status.far_field_px, renderer.settings.impostor_threshold_px);
    assert!(cost <= budget_ms, "{cost} over {budget_ms}");
    drop((renderer, target));
    finish(ctx);
}
