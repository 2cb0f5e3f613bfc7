//! The far field's shadow casters (`far_field.comp` with `DEPTH_ONLY`, the
//! `shadow far field` pass) against the CPU twins: knights too large to be
//! splatted and small enough for the far field, at their coarsest shadow
//! LOD (which casts its type's still pose), cover the nearest cascade's
//! texels that the CPU predicts, at the depths it predicts. The prediction
//! skins the still pose with `horde_asset::skinning` and rasterizes both
//! faces of every triangle with `horde::reference::far_field`.
//!
//! The GPU skins from the bone texture and projects with its own `sin`,
//! `cos` and division, so vertices may differ from the CPU's in the last
//! bits and a texel centre lying on an edge may fall either way: the test
//! allows a few such texels, and depths within a hair.

use glam::{Vec3, Vec4};
use horde::asset::{skinning, Asset};
use horde::camera::Camera;
use horde::config::FAR_FIELD_MAX_VERTICES;
use horde::context::Context;
use horde::context::Tier;
use horde::gpu_types::AnimParams;
use horde::reference::far_field::coverage;
use horde::renderer::{Environment, RenderSettings};
use horde::scene::{rgba8, static_asset, PropPlacement, Scene, UnitSpawn};
use horde::shadow::{Cascade, SHADOW_FAR_FIELD_TEXELS, SHADOW_SPLAT_TEXELS};
use horde::world::UnitStateReadback;
use horde_tests::{baked_knight, finish, gpu_context, offscreen_renderer};

const SIZE: u32 = 160;
/// Towards the sun: low and to the side, so the knights' shadows are
/// their silhouettes seen from the side.
const SUN: Vec3 = Vec3::new(0.7, 0.45, 0.4);
/// A 4 x 3 grid of knights, this far apart, each turned its own way.
const COLUMNS: usize = 4;
const ROWS: usize = 3;
const SPACING: f32 = 2.5;
/// The knights' diameter in the nearest cascade, in texels: above the
/// splat size, below where the cull's hysteresis lets units enter the far
/// field (0.75 of its size).
const TARGET_TEXELS: f32 = 40.0;

fn knights(knight: &Asset, scale: f32) -> Scene {
    let units = (0..COLUMNS * ROWS)
        .map(|index| {
            let (column, row) = ((index % COLUMNS) as f32, (index / COLUMNS) as f32);
            UnitSpawn {
                unit_type: 0,
                team: (index % 2) as u32,
                position: Vec3::new((column - 1.5) * SPACING, 0.0, (row - 1.0) * SPACING),
                heading: index as f32 * 0.9,
                scale,
                tint: rgba8(Vec3::ONE),
                params: AnimParams::default(),
            }
        })
        .collect();
    Scene {
        unit_types: vec![knight.clone()],
        controllers: vec![None],
        prop_types: vec![static_asset("ground", &horde::mesh::ground(100.0, 4))],
        units,
        props: vec![PropPlacement::at_origin(0, Vec3::splat(0.8))],
        ground_prop_types: vec![0],
        ..Scene::default()
    }
}

/// The camera close above the knights: they fall in the nearest cascade.
fn camera() -> Camera {
    Camera::look_at(Vec3::new(0.0, 9.0, 9.0), Vec3::ZERO)
}

/// Clip-space triangles of every knight's still pose (the first clip's
/// first frame, as `far_field.comp` casts at the coarsest LOD) at its
/// coarsest LOD, in `cascade`.
fn still_pose_triangles(
    knight: &Asset,
    units: &UnitStateReadback,
    cascade: &Cascade,
) -> Vec<[Vec4; 3]> {
    let animation = knight.animation.as_ref().expect("the knight is animated");
    let texels = skinning::texels_f32(animation);
    let pose = skinning::sample_pose(animation, &texels, &animation.clips[0], 0.0);
    let lod = knight.lods.last().expect("the knight has LODs");
    assert!(
        lod.vertices.len() as u32 <= FAR_FIELD_MAX_VERTICES,
        "the coarsest LOD must fit the far field"
    );
    let mut triangles = Vec::new();
    for (info, placement) in units.infos.iter().zip(&units.placements) {
        let (sin, cos) = placement.heading.sin_cos();
        let clip: Vec<Vec4> = lod
            .vertices
            .iter()
            .map(|vertex| {
                let model =
                    skinning::skin_position(animation.encoding, &knight.bounds, vertex, &pose)
                        * info.scale;
                let world = Vec3::new(
                    cos * model.x + sin * model.z,
                    model.y,
                    -sin * model.x + cos * model.z,
                ) + Vec3::from(placement.position);
                cascade.view_proj * world.extend(1.0)
            })
            .collect();
        triangles.extend(lod.indices.chunks_exact(3).map(|t| {
            [
                clip[t[0] as usize],
                clip[t[1] as usize],
                clip[t[2] as usize],
            ]
        }));
    }
    triangles
}

/// What a render of the knights cast: the receivers' depths, the units,
/// cascade 0 and the map's size.
struct Cast {
    depths: Vec<f32>,
    units: UnitStateReadback,
    cascade: Cascade,
    map: u32,
}

/// Renders two frames of the knights `TARGET_TEXELS` wide in cascade 0,
/// every caster at its type's coarsest LOD (which casts the still pose),
/// with the settings `configure` leaves, and reads back what they cast.
fn cast(ctx: &mut Context, knight: &Asset, configure: impl Fn(&mut RenderSettings)) -> Cast {
    let extent = ash::vk::Extent2D {
        width: SIZE,
        height: SIZE,
    };
    let camera = camera();
    let environment = Environment {
        sun_direction: SUN.normalize(),
        fog_density: 0.0,
        ..Environment::default()
    };

    // The scale that makes the knights `TARGET_TEXELS` wide in cascade 0,
    // from a renderer of the same view.
    let texels_per_metre = {
        let (mut renderer, target) = offscreen_renderer(ctx, &knights(knight, 1.0), SIZE, SIZE);
        renderer.environment = environment;
        let cascade = renderer.shadow_cascades(&camera, extent)[0];
        drop((renderer, target));
        cascade.map_size as f32 / (2.0 * cascade.half_width)
    };
    let scale = TARGET_TEXELS / (2.0 * knight.bounds.sphere_radius * texels_per_metre);

    let (mut renderer, target) = offscreen_renderer(ctx, &knights(knight, scale), SIZE, SIZE);
    renderer.environment = environment;
    renderer.settings.shadows = true;
    renderer.settings.lod_bias = 1e-3;
    configure(&mut renderer.settings);
    for frame in 0..2 {
        renderer
            .render_offscreen(ctx, &target, &camera, 1.0 / 30.0, frame == 1)
            .expect("render frame");
    }
    let cast = Cast {
        depths: renderer
            .read_shadow_depths(ctx)
            .expect("read the shadow depths"),
        units: renderer.world.read_unit_state(ctx).expect("read the units"),
        cascade: renderer.shadow_cascades(&camera, extent)[0],
        map: renderer.shadow_map_size(),
    };
    drop((renderer, target));
    cast
}

#[test]
fn far_casters_cover_the_texels_the_cpu_predicts() {
    let mut ctx = gpu_context(Some(Tier::Desktop));
    assert!(ctx.far_field_supported, "lavapipe has 64-bit atomics");
    let knight = baked_knight();
    let Cast {
        depths,
        units,
        cascade,
        map,
    } = cast(&mut ctx, &knight, |_| {});
    finish(ctx);
    let texels_per_metre = cascade.map_size as f32 / (2.0 * cascade.half_width);

    // The premise: every knight is a far-field caster in cascade 0 (the
    // per-unit variety scales them by a few per cent).
    for info in &units.infos {
        let texels = 2.0 * knight.bounds.sphere_radius * info.scale * texels_per_metre;
        assert!(
            texels > SHADOW_SPLAT_TEXELS && texels < 0.75 * SHADOW_FAR_FIELD_TEXELS,
            "a knight {texels} texels wide is not a far-field caster"
        );
    }

    let expected = coverage(&still_pose_triangles(&knight, &units, &cascade), map, map);
    let gpu = &depths[..(map * map) as usize];
    let (mut both, mut gpu_only, mut cpu_only) = (0usize, 0usize, 0usize);
    let mut worst_depth = 0.0f32;
    for (&key, &depth) in expected.keys.iter().zip(gpu) {
        let predicted = f32::from_bits((key >> 32) as u32);
        match (key != 0, depth > 0.0) {
            (true, true) => {
                both += 1;
                worst_depth = worst_depth.max((predicted - depth).abs());
            }
            (false, true) => gpu_only += 1,
            (true, false) => cpu_only += 1,
            (false, false) => {}
        }
    }
    let predicted = both + cpu_only;
    println!(
        "{predicted} texels predicted: {both} cast, {cpu_only} missed, {gpu_only} extra; \
         worst depth difference {worst_depth:e}"
    );
    // Each knight's silhouette covers some forty texels.
    assert!(
        predicted > 30 * units.infos.len(),
        "only {predicted} texels predicted"
    );
    let stray = gpu_only + cpu_only;
    assert!(
        stray * 200 <= predicted,
        "{stray} texels differ from the prediction ({cpu_only} missed, {gpu_only} extra) \
         of {predicted}"
    );
    assert!(
        worst_depth < 1e-5,
        "a cast depth differs from the prediction by {worst_depth}"
    );
}

/// The shadows' far field is a setting of its own: with the camera's far
/// field off (every unit a mesh on screen) the far casters are still the
/// compute rasterizer's, texel for texel; with `shadow_far_field` off too
/// they are meshes, which cast their animated pose, not the still one.
#[test]
fn shadow_far_field_does_not_follow_the_cameras() {
    let mut ctx = gpu_context(Some(Tier::Desktop));
    assert!(ctx.far_field_supported, "lavapipe has 64-bit atomics");
    let knight = baked_knight();
    let both = cast(&mut ctx, &knight, |_| {});
    let shadows_only = cast(&mut ctx, &knight, |settings| settings.far_field_px = 0.0);
    let meshes = cast(&mut ctx, &knight, |settings| {
        settings.far_field_px = 0.0;
        settings.shadow_far_field = false;
    });
    finish(ctx);
    let cast_texels = both.depths.iter().filter(|&&depth| depth > 0.0).count();
    assert!(cast_texels > 300, "only {cast_texels} texels cast");
    let differing = |a: &Cast, b: &Cast| {
        a.depths
            .iter()
            .zip(&b.depths)
            .filter(|(x, y)| x.to_bits() != y.to_bits())
            .count()
    };
    assert_eq!(
        differing(&both, &shadows_only),
        0,
        "the camera's far field changed the far casters' shadows"
    );
    let by_meshes = differing(&both, &meshes);
    println!("{cast_texels} texels cast; {by_meshes} differ when meshes cast");
    assert!(
        by_meshes > 0,
        "with the shadows' far field off the far field still cast"
    );
}
