//! The sun's shadows on both tiers: a prop's and a unit's shadow fall on
//! the ground where the CPU predicts (along the sun's rays,
//! `horde::shadow::shadow_on_ground`), and nowhere else; validation clean.

use glam::Vec3;
use horde::camera::Camera;
use horde::context::Tier;
use horde::gpu_types::AnimParams;
use horde::mesh::{ground, sphere};
use horde::renderer::Environment;
use horde::scene::{rgba8, static_asset, Scene, UnitSpawn};
use horde::shadow::shadow_on_ground;
use horde::world::PropPlacement;
use horde_tests::{baked_knight, brightness, finish, gpu_context, pixel_of, render_scene};

const SIZE: u32 = 160;
/// Towards the sun: low in the +x sky, so shadows fall a few metres to -x.
const SUN: Vec3 = Vec3::new(0.6, 0.8, 0.0);
/// The floating ball's centre, and the knight's chest (scale 2).
const BALL: Vec3 = Vec3::new(-2.0, 4.0, 3.0);
const KNIGHT: Vec3 = Vec3::new(4.0, 0.0, -3.0);
const KNIGHT_SCALE: f32 = 2.0;
const CHEST_HEIGHT: f32 = 1.1 * KNIGHT_SCALE;

/// Ground (type 0, the scene's ground: it casts nothing), a ball floating
/// above it (type 1) and a knight standing on it.
fn scene() -> Scene {
    let prop = |prop_type, position, scale| PropPlacement {
        prop_type,
        position,
        heading: 0.0,
        scale,
        tint: rgba8(Vec3::splat(0.8)),
    };
    Scene {
        unit_types: vec![baked_knight()],
        controllers: vec![None],
        prop_types: vec![
            static_asset("ground", &ground(100.0, 4)),
            static_asset("ball", &sphere(24, 16)),
        ],
        units: vec![UnitSpawn {
            unit_type: 0,
            team: 0,
            position: KNIGHT,
            heading: 0.0,
            scale: KNIGHT_SCALE,
            tint: rgba8(Vec3::ONE),
            params: AnimParams::default(),
        }],
        props: vec![prop(0, Vec3::ZERO, 1.0), prop(1, BALL, 2.0)],
        ground_prop_types: vec![0],
        ..Scene::default()
    }
}

/// The camera high above, looking down.
fn camera() -> Camera {
    Camera::look_at(Vec3::new(0.0, 30.0, 0.01), Vec3::ZERO)
}

fn render(tier: Tier, shadows: bool) -> image::RgbaImage {
    let mut ctx = gpu_context(Some(tier));
    let image = render_scene(
        &mut ctx,
        &scene(),
        &camera(),
        |renderer| {
            renderer.environment = Environment {
                sun_direction: SUN,
                sun_color: Vec3::splat(0.8),
                ambient: 0.2,
                fog_density: 0.0,
                ..Environment::default()
            };
            renderer.settings.shadows = shadows;
        },
        SIZE,
        SIZE,
        2,
        1.0 / 30.0,
    );
    finish(ctx);
    image
}

fn shadows_land_where_predicted(tier: Tier) {
    let lit = render(tier, false);
    let shadowed = render(tier, true);
    let camera = camera();
    let chest = KNIGHT + Vec3::Y * CHEST_HEIGHT;
    // Each caster's shadow, and the point as far the other way (towards
    // the sun: lit in both images).
    for (what, caster, ground_level) in [("ball", BALL, 0.0), ("knight", chest, KNIGHT.y)] {
        let shade = shadow_on_ground(caster, SUN, ground_level);
        let sunward = Vec3::new(2.0 * caster.x - shade.x, 0.0, 2.0 * caster.z - shade.z);
        let (at_shade, at_sunward) = (
            pixel_of(&camera, shade, (SIZE, SIZE)),
            pixel_of(&camera, sunward, (SIZE, SIZE)),
        );
        let ratio = brightness(&shadowed, at_shade) / brightness(&lit, at_shade);
        println!("{tier:?}: the {what}'s shadow keeps {ratio} of the light");
        // In full shadow the ground keeps about 0.52 of its light (the
        // ambient: the ball's shadow); the knight's chest, a few texels
        // wide in a cascade of shadow LODs within 3 texels, shades most of
        // the 3x3 pixels (0.58 to 0.60). Lit ground keeps 1.
        assert!(
            ratio < 0.7,
            "{tier:?}: the {what}'s shadow at {shade} (pixel {at_shade:?}) keeps {ratio} of the light"
        );
        let ratio = brightness(&shadowed, at_sunward) / brightness(&lit, at_sunward);
        assert!(
            ratio > 0.97,
            "{tier:?}: the ground sunward of the {what} at {sunward} (pixel {at_sunward:?}) \
             keeps only {ratio} of the light"
        );
    }
    // Far from every caster the ground is as lit as without shadows.
    let open = pixel_of(&camera, Vec3::new(-8.0, 0.0, -8.0), (SIZE, SIZE));
    assert!(brightness(&shadowed, open) >= brightness(&lit, open) - 1.0);
}

#[test]
fn shadows_land_where_predicted_on_desktop() {
    shadows_land_where_predicted(Tier::Desktop);
}

#[test]
fn shadows_land_where_predicted_on_mobile() {
    shadows_land_where_predicted(Tier::Mobile);
}

/// The far field's smallest shadow casters, splatted (`shadow_splat.comp`)
/// against the CPU twin (`horde::reference::shadow::splat`): the same
/// texels at the same depths, and exactly the units within the splat size
/// struck out of the far-field list (the others left to the rasterizer).
#[test]
fn splats_match_the_cpu_reference() {
    use ash::vk;
    use horde::config::{ENTRY_INDEX_BITS, ENTRY_INDEX_MASK, ROUTE_FAR_FIELD};
    use horde::gpu_types::{
        DrawCommand, FrameGlobals, RouteInfo, TypeInfo, UnitInfo, UnitPlacement,
    };
    use horde::memory::upload_buffer;
    use horde::passes::shadow::{record_splats, splat_pipeline, SplatInputs, SplatPush};
    use horde::shadow::{fit_cascades, ShadowView};
    use horde::world::buffers::DRAW_COMMANDS_BYTES;
    use horde_tests::PassHarness;

    const UNITS: u32 = 3000;
    const MAP: u32 = 256;
    let mut ctx = gpu_context(Some(Tier::Desktop));
    let cascade = fit_cascades(&ShadowView {
        camera: Camera::look_at(Vec3::new(0.0, 40.0, 60.0), Vec3::ZERO),
        aspect: 16.0 / 9.0,
        sun_direction: SUN,
        ground_bottom: 0.0,
        ground_top: 0.0,
        distance: 200.0,
        cascade_count: 1,
        map_size: MAP,
    })[0];
    // The splat's size test reads this scale, not the matrix: units up to
    // scale 1.2 are splatted, the larger ones left
    // to the rasterizer.
    let texels_per_metre = horde::shadow::SHADOW_SPLAT_TEXELS / (2.0 * 1.2);
    let far_command = ROUTE_FAR_FIELD;
    let mut type_info = TypeInfo {
        sphere_center: [0.0, 0.9, 0.0],
        sphere_radius: 1.0,
        lod_count: 1,
        ..TypeInfo::default()
    };
    type_info.routes[ROUTE_FAR_FIELD as usize] = RouteInfo {
        command: far_command,
        list_base: 0,
        capacity: UNITS,
        ..RouteInfo::default()
    };
    let mut types = vec![TypeInfo::default(); horde::gpu_types::MAX_TYPES];
    types[0] = type_info;
    // Scales from 0.2 to 2.2: the larger units span more than the splat
    // size and stay in the list.
    let mut seed = 0x5eed_u32;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        (seed % 10_000) as f32 / 10_000.0
    };
    let (mut infos, mut placements) = (Vec::new(), Vec::new());
    for _ in 0..UNITS {
        infos.push(UnitInfo {
            type_index: 0,
            team: 0,
            tint: 0,
            scale: 0.2 + 2.0 * next(),
        });
        placements.push(UnitPlacement {
            position: [(next() - 0.5) * 60.0, next() * 3.0, (next() - 0.5) * 60.0],
            heading: 0.0,
        });
    }
    let mut commands = vec![DrawCommand::default(); horde::config::MAX_DRAW_COMMANDS as usize];
    commands[far_command as usize].instance_count = UNITS;
    let mut lists = bytemuck::cast_slice::<_, u8>(&commands).to_vec();
    assert_eq!(lists.len() as u64, DRAW_COMMANDS_BYTES);
    let entries: Vec<u32> = (0..UNITS)
        .map(|u| u | (ROUTE_FAR_FIELD << ENTRY_INDEX_BITS))
        .collect();
    lists.extend_from_slice(bytemuck::cast_slice(&entries));
    let globals = FrameGlobals {
        view_proj: cascade.view_proj.to_cols_array_2d(),
        ..FrameGlobals::default()
    };
    let storage = vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::TRANSFER_SRC;
    let upload = |ctx: &mut horde::context::Context, name: &str, usage, bytes: &[u8]| {
        upload_buffer(ctx, name, usage, bytes).expect("upload")
    };
    let uniform = vk::BufferUsageFlags::UNIFORM_BUFFER;
    let globals = upload(&mut ctx, "globals", uniform, bytemuck::bytes_of(&globals));
    let types = upload(&mut ctx, "types", uniform, bytemuck::cast_slice(&types));
    let infos_buffer = upload(&mut ctx, "infos", storage, bytemuck::cast_slice(&infos));
    let placements_buffer = upload(
        &mut ctx,
        "placements",
        storage,
        bytemuck::cast_slice(&placements),
    );
    let lists = upload(&mut ctx, "lists", storage, &lists);
    let visibility = upload(
        &mut ctx,
        "visibility",
        storage | vk::BufferUsageFlags::TRANSFER_DST,
        &vec![0xffu8; (MAP * MAP * 8) as usize],
    );
    let pipeline = splat_pipeline(&ctx).expect("splat pipeline");
    let inputs = SplatInputs {
        globals: globals.raw,
        types: types.raw,
        infos: infos_buffer.raw,
        placements: placements_buffer.raw,
        lists: lists.raw,
        visibility: visibility.raw,
    };
    let push = SplatPush {
        size: MAP,
        unit_type_count: 1,
        splat_texels: horde::shadow::SHADOW_SPLAT_TEXELS,
        texels_per_metre,
        width_per_span: horde::shadow::SHADOW_SPLAT_WIDTH,
    };
    let mut harness = PassHarness::new(&ctx);
    let read = harness.run(
        &mut ctx,
        |frame| record_splats(frame, &pipeline, &inputs, &push, UNITS).expect("record"),
        &[&lists, &visibility],
    );
    let gpu_entries: Vec<u32> =
        bytemuck::pod_collect_to_vec(&read[0][DRAW_COMMANDS_BYTES as usize..]);
    let gpu_depths: Vec<u64> = bytemuck::pod_collect_to_vec(&read[1]);

    let mut expected = vec![0u64; (MAP * MAP) as usize];
    let mut splatted = 0;
    for (unit, (info, placement)) in infos.iter().zip(&placements).enumerate() {
        let span = (2.0 * info.scale) * texels_per_metre;
        let small = span <= push.splat_texels;
        let entry = gpu_entries[unit];
        assert_eq!(
            entry == ENTRY_INDEX_MASK,
            small,
            "unit {unit} (scale {})",
            info.scale
        );
        if !small {
            assert_eq!(entry, entries[unit]);
            continue;
        }
        splatted += 1;
        let top = 2.0 * 0.9 * info.scale;
        let feet = Vec3::from_array(placement.position);
        let splat = horde::reference::shadow::splat(
            &cascade.view_proj,
            MAP,
            (feet, top),
            (span, horde::shadow::SHADOW_SPLAT_WIDTH),
        );
        for (x, y, depth) in splat {
            let key = &mut expected[(y * MAP + x) as usize];
            *key = (*key).max(u64::from(depth) << 32);
        }
    }
    assert!(
        splatted > 300 && splatted < UNITS as usize - 300,
        "{splatted} splatted"
    );
    // Coverage texel for texel; depths within a millionth (the GPU and
    // glam may order the matrix product's additions differently).
    let covered = expected.iter().filter(|&&k| k != 0).count();
    let depth = |key: u64| f32::from_bits((key >> 32) as u32);
    let mut coverage_differs = 0;
    for (&want, &got) in expected.iter().zip(&gpu_depths) {
        if (want == 0) != (got == 0) {
            coverage_differs += 1;
        } else if want != 0 {
            assert!(
                (depth(want) - depth(got)).abs() <= 1e-6,
                "depth {} against the reference's {}",
                depth(got),
                depth(want)
            );
        }
    }
    assert!(covered > 1000, "{covered} texels covered");
    // The GPU's square root may round a step count differently where a
    // line's length is within an ulp of a whole number of texels.
    assert!(
        coverage_differs * 200 <= covered,
        "{coverage_differs} of {covered} texels covered on one side only"
    );
    drop((harness, pipeline));
    drop((
        globals,
        types,
        infos_buffer,
        placements_buffer,
        lists,
        visibility,
    ));
    finish(ctx);
}
