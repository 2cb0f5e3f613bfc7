//! The far field (compute rasterizer of distant units) on the GPU:
//! - coverage: the rasterizer's test kernel against its CPU reference,
//!   pixel for pixel and bit for bit, over hand-made triangles (shared
//!   edges, slivers, sub-pixel, off-screen, behind the camera, too large),
//!   and a jittered grid covering every pixel centre of its rectangle once;
//! - the same units through the mesh path and the far field at the
//!   transition size, for two views with idle and walking units, within a
//!   stated perceptual threshold;
//! - occlusion both ways between far-field units and raster geometry;
//! - the mobile tier falls back to meshes.
//!
//! Validation is on throughout and must stay silent (`finish`).

use ash::vk;
use glam::{Vec3, Vec4};
use gpu_allocator::MemoryLocation;
use horde::asset::Asset;
use horde::barriers::{uses, Access};
use horde::camera::Camera;
use horde::config::FAR_FIELD_MAX_VERTICES;
use horde::context::{Context, Tier};
use horde::frame::ComputePipeline;
use horde::gpu_types::AnimParams;
use horde::memory::{upload_buffer, Buffer};
use horde::passes::far_field::meshes::mid_vertex_capacity;
use horde::reference::far_field::{coverage, Coverage};
use horde::scene::{rgba8, static_asset, Scene};
use horde::shaders;
use horde::world::{PropPlacement, UnitSpawn};
use horde_tests::{
    baked_knight, dispatch_storage, finish, gpu_context, output_dir, render_scene, PassHarness,
};

const WIDTH: u32 = 64;
const HEIGHT: u32 = 48;

/// A clip-space vertex (w = 1, so the projection's division is exact) at
/// pixel (`x`, `y`) of the test target with reverse-Z depth `z`.
fn at(x: f32, y: f32, z: f32) -> Vec4 {
    Vec4::new(
        x / WIDTH as f32 * 2.0 - 1.0,
        y / HEIGHT as f32 * 2.0 - 1.0,
        z,
        1.0,
    )
}

/// Runs `far_field_test.comp` over `triangles` on a WIDTH x HEIGHT target.
fn run_kernel(ctx: &mut Context, triangles: &[[Vec4; 3]]) -> Coverage {
    let storage = vk::DescriptorType::STORAGE_BUFFER;
    let pipeline = ComputePipeline::new(
        ctx,
        "far field test",
        &shaders::FAR_FIELD_TEST_COMP,
        &[storage; 4],
        &[],
    )
    .expect("test pipeline");
    let clips: Vec<Vec4> = triangles.iter().flatten().copied().collect();
    let input = upload_buffer(
        ctx,
        "far field test triangles",
        vk::BufferUsageFlags::STORAGE_BUFFER,
        bytemuck::cast_slice(&clips),
    )
    .expect("upload triangles");
    let pixels = u64::from(WIDTH * HEIGHT);
    let output = |name: &str, bytes: u64| {
        Buffer::new(
            ctx,
            name,
            bytes,
            vk::BufferUsageFlags::STORAGE_BUFFER
                | vk::BufferUsageFlags::TRANSFER_SRC
                | vk::BufferUsageFlags::TRANSFER_DST,
            MemoryLocation::GpuOnly,
        )
        .expect("output buffer")
    };
    let keys = output("far field test keys", pixels * 8);
    let counts = output("far field test counts", pixels * 4);
    let outcomes = output("far field test outcomes", triangles.len() as u64 * 8);
    let mut harness = PassHarness::new(ctx);
    let push = [WIDTH, HEIGHT, triangles.len() as u32];
    let bytes = harness.run(
        ctx,
        |frame| {
            frame.uses(&[
                uses(keys.raw, Access::TransferWrite),
                uses(counts.raw, Access::TransferWrite),
                uses(outcomes.raw, Access::TransferWrite),
            ]);
            for buffer in [&keys, &counts, &outcomes] {
                // SAFETY: the buffers live until the frame has completed.
                unsafe {
                    frame
                        .ctx
                        .device
                        .cmd_fill_buffer(frame.cmd, buffer.raw, 0, vk::WHOLE_SIZE, 0)
                };
            }
            dispatch_storage(
                frame,
                &pipeline,
                &[
                    (input.raw, Access::ComputeRead),
                    (keys.raw, Access::ComputeWrite),
                    (counts.raw, Access::ComputeWrite),
                    (outcomes.raw, Access::ComputeWrite),
                ],
                bytemuck::cast_slice(&push),
                triangles.len() as u32,
            );
        },
        &[&keys, &counts, &outcomes],
    );
    let result = Coverage {
        keys: bytemuck::pod_collect_to_vec(&bytes[0]),
        counts: bytemuck::pod_collect_to_vec(&bytes[1]),
        outcomes: bytemuck::pod_collect_to_vec(&bytes[2]),
    };
    drop((harness, keys, counts, outcomes, input, pipeline));
    result
}

/// A grid of `n` x `n` quads over [x0, x1] x [y0, y1], inner vertices
/// jittered, each quad split along alternating diagonals, alternating
/// windings: every inner edge is shared by two triangles.
fn jittered_grid(n: usize, (x0, y0): (f32, f32), (x1, y1): (f32, f32)) -> Vec<[Vec4; 3]> {
    let mut seed = 12345u32;
    let mut jitter = || {
        seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (seed >> 8) as f32 / (1u32 << 24) as f32 - 0.5
    };
    let mut points = vec![vec![Vec4::ZERO; n + 1]; n + 1];
    for (j, row) in points.iter_mut().enumerate() {
        for (i, point) in row.iter_mut().enumerate() {
            let inner = |k: usize| k > 0 && k < n;
            let (dx, dy) = (x1 - x0, y1 - y0);
            let x = x0 + dx * i as f32 / n as f32 + if inner(i) { jitter() * 2.0 } else { 0.0 };
            let y = y0 + dy * j as f32 / n as f32 + if inner(j) { jitter() * 2.0 } else { 0.0 };
            *point = at(x, y, 0.3 + 0.01 * (i + j) as f32);
        }
    }
    let mut triangles = Vec::new();
    for j in 0..n {
        for i in 0..n {
            let (a, b, c, d) = (
                points[j][i],
                points[j][i + 1],
                points[j + 1][i + 1],
                points[j + 1][i],
            );
            let pair = if (i + j) % 2 == 0 {
                [[a, b, c], [a, c, d]]
            } else {
                [[a, b, d], [d, c, b]]
            };
            triangles.extend(pair);
        }
    }
    triangles
}

#[test]
fn coverage_and_depth_equal_the_reference() {
    let mut ctx = gpu_context(None);
    assert!(
        ctx.far_field_supported,
        "this device should have 64-bit atomics"
    );
    let behind = |x: f32, y: f32| Vec4::new(x, y, 0.1, -1.0);
    let coincident = [
        at(36.0, 16.0, 0.45),
        at(46.0, 18.0, 0.45),
        at(38.0, 27.0, 0.45),
    ];
    let mut triangles = vec![
        // A quad of two triangles on a shared diagonal, both windings.
        [at(2.0, 2.0, 0.5), at(14.0, 2.0, 0.5), at(14.0, 12.0, 0.6)],
        [at(2.0, 2.0, 0.5), at(2.0, 12.0, 0.6), at(14.0, 12.0, 0.6)],
        // A fan around a vertex on a pixel centre, edges through centres.
        [at(20.5, 6.5, 0.4), at(26.5, 2.5, 0.4), at(26.5, 6.5, 0.4)],
        [at(20.5, 6.5, 0.4), at(26.5, 6.5, 0.4), at(26.5, 10.5, 0.4)],
        [at(20.5, 6.5, 0.4), at(26.5, 10.5, 0.4), at(20.5, 12.5, 0.4)],
        [at(20.5, 6.5, 0.4), at(20.5, 12.5, 0.4), at(16.5, 6.5, 0.4)],
        [at(20.5, 6.5, 0.4), at(16.5, 6.5, 0.4), at(20.5, 0.5, 0.4)],
        [at(20.5, 6.5, 0.4), at(20.5, 0.5, 0.4), at(26.5, 2.5, 0.4)],
        // Slivers: long and a fraction of a pixel wide.
        [at(30.0, 2.0, 0.7), at(60.0, 3.0, 0.7), at(30.0, 2.4, 0.2)],
        [at(31.1, 5.0, 0.5), at(31.4, 30.0, 0.5), at(31.3, 5.0, 0.5)],
        // Sub-pixel: one holding a pixel centre, one between centres.
        [at(50.3, 8.3, 0.9), at(50.8, 8.4, 0.9), at(50.5, 8.9, 0.9)],
        [at(52.6, 8.6, 0.9), at(52.9, 8.6, 0.9), at(52.7, 8.9, 0.9)],
        // Degenerate: three points on a line.
        [
            at(44.0, 44.0, 0.5),
            at(46.0, 46.0, 0.5),
            at(48.0, 48.0, 0.5),
        ],
        // Partly off the target (clamped), wholly off it (rejected).
        [
            at(56.0, 20.0, 0.5),
            at(70.0, 24.0, 0.5),
            at(58.0, 30.0, 0.6),
        ],
        [
            at(-10.0, 20.0, 0.5),
            at(-2.0, 24.0, 0.5),
            at(-6.0, 30.0, 0.6),
        ],
        [
            at(10.0, 50.0, 0.5),
            at(20.0, 60.0, 0.5),
            at(12.0, 70.0, 0.6),
        ],
        // Wholly behind the camera (rejected), across the near plane and
        // closer than it (the raster's business: fallback).
        [behind(0.1, 0.1), behind(0.3, 0.1), behind(0.2, 0.4)],
        [at(10.0, 30.0, 0.5), behind(0.3, 0.1), at(12.0, 40.0, 0.5)],
        [
            at(10.0, 30.0, 1.5),
            at(14.0, 30.0, 0.5),
            at(12.0, 40.0, 0.5),
        ],
        // Too large for the compute rasterizer: fallback.
        [at(1.0, 14.0, 0.5), at(50.0, 16.0, 0.5), at(3.0, 46.0, 0.5)],
        // Overlapping at different depths: the nearest (largest) wins.
        [
            at(34.0, 34.0, 0.2),
            at(46.0, 34.0, 0.2),
            at(34.0, 46.0, 0.8),
        ],
        [
            at(36.0, 33.0, 0.5),
            at(47.0, 44.0, 0.5),
            at(35.0, 45.0, 0.5),
        ],
        // Coincident and flat (its twin comes last, in another SIMD batch of
        // a CPU device): each sample's weighted depth is exactly the area
        // times the stored depth, a tie the larger key, the later
        // triangle's, must win; `far_may_win` must not reject it.
        coincident,
    ];
    triangles.extend(jittered_grid(4, (4.2, 30.3), (28.7, 46.6)));
    triangles.push(coincident);
    let gpu = run_kernel(&mut ctx, &triangles);
    let cpu = coverage(&triangles, WIDTH, HEIGHT);
    assert_eq!(
        gpu.outcomes, cpu.outcomes,
        "setup outcome and area per triangle"
    );
    let covered = cpu.counts.iter().filter(|&&n| n > 0).count();
    let differing: Vec<usize> = (0..gpu.keys.len())
        .filter(|&i| gpu.keys[i] != cpu.keys[i] || gpu.counts[i] != cpu.counts[i])
        .collect();
    assert!(
        differing.is_empty(),
        "{} of {} pixels differ from the reference (first at {:?})",
        differing.len(),
        gpu.keys.len(),
        differing
            .first()
            .map(|&i| (i as u32 % WIDTH, i as u32 / WIDTH))
    );
    assert!(covered > 300, "only {covered} pixels covered");
    let codes: Vec<i32> = cpu.outcomes.iter().map(|o| o[0]).collect();
    assert_eq!(&codes[12..20], &[1, 1, 0, 0, 0, 2, 2, 2], "{codes:?}");
    // The two halves of the quad, and the fan, cover each centre once.
    assert!(
        cpu.counts.iter().all(|&n| n <= 2),
        "at most one of the two overlapping pairs"
    );
    for (x, y) in [(5, 5), (10, 8), (13, 3), (3, 10)] {
        assert_eq!(
            cpu.counts[(y * WIDTH + x) as usize],
            1,
            "quad pixel ({x}, {y})"
        );
    }
    finish(ctx);
}

#[test]
fn a_jittered_grid_covers_each_pixel_centre_once() {
    let mut ctx = gpu_context(None);
    let (lo, hi) = ((3.3, 2.2), (41.7, 36.9));
    let grid = jittered_grid(6, lo, hi);
    let gpu = run_kernel(&mut ctx, &grid);
    let cpu = coverage(&grid, WIDTH, HEIGHT);
    assert_eq!(gpu.keys, cpu.keys);
    assert_eq!(gpu.counts, cpu.counts);
    for y in 0..HEIGHT {
        for x in 0..WIDTH {
            let (cx, cy) = (x as f32 + 0.5, y as f32 + 0.5);
            let inside = cx > lo.0 && cx < hi.0 && cy > lo.1 && cy < hi.1;
            let count = gpu.counts[(y * WIDTH + x) as usize];
            assert_eq!(count, u32::from(inside), "pixel ({x}, {y})");
        }
    }
    finish(ctx);
}

/// Target of the image tests.
const IMAGE_WIDTH: u32 = 480;
const IMAGE_HEIGHT: u32 = 270;
/// Pixels the units' bounding spheres span in the image tests: the default
/// far-field size, where the mesh hands over to the far field.
const TRANSITION_PX: f32 = horde::renderer::DEFAULT_FAR_FIELD_PX;

/// The distance at which `asset`'s bounding sphere spans `px` pixels.
fn distance_for(asset: &Asset, px: f32) -> f32 {
    let camera = Camera::look_at(Vec3::ZERO, Vec3::NEG_Z);
    let pixels_per_unit = IMAGE_HEIGHT as f32 / (2.0 * (camera.fov_y * 0.5).tan());
    2.0 * asset.bounds.sphere_radius * pixels_per_unit / px
}

/// `units` knights (even ones idle, odd ones walking in place) and `props`
/// (sphere scale and position), with a ground field.
fn knight_scene(knight: &Asset, units: &[(Vec3, f32)], spheres: &[(Vec3, f32)]) -> Scene {
    let spawns = units
        .iter()
        .enumerate()
        .map(|(index, &(position, heading))| UnitSpawn {
            unit_type: 0,
            team: (index % 2) as u32,
            position,
            heading,
            scale: 1.0,
            tint: rgba8(if index % 2 == 0 {
                Vec3::new(1.0, 0.9, 0.8)
            } else {
                Vec3::new(0.7, 0.8, 1.0)
            }),
            params: AnimParams {
                speed: if index % 2 == 0 { 0.0 } else { 1.4 },
                ..AnimParams::default()
            },
        })
        .collect();
    let mut props: Vec<PropPlacement> = spheres
        .iter()
        .map(|&(position, scale)| PropPlacement {
            prop_type: 0,
            position,
            heading: 0.0,
            scale,
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
        units: spawns,
        props,
        simulation: None,
        ground_prop_types: vec![1],
        ground_texture: None,
    }
}

/// Renders `scene` from `camera` (12 frames of 1/30 s) with units as meshes
/// (`far` false) or in the far field: its size is set to 1.5 x `units_px`,
/// the units' size (they enter below 0.75 x, the hysteresis), so all of
/// them go there.
fn render(
    ctx: &mut Context,
    scene: &Scene,
    camera: &Camera,
    (far, units_px): (bool, f32),
) -> image::RgbaImage {
    render_sized(ctx, scene, camera, (far, units_px, true), 1, 1.0)
}

/// As [`render`] (which supersamples the far field, the default), with the
/// far field's supersampling on or off, at `scale`
/// times the image size (the units then `scale` times as many pixels), at
/// `lod_bias` (larger: finer LODs).
fn render_sized(
    ctx: &mut Context,
    scene: &Scene,
    camera: &Camera,
    (far, units_px, supersampling): (bool, f32, bool),
    scale: u32,
    lod_bias: f32,
) -> image::RgbaImage {
    render_scene(
        ctx,
        scene,
        camera,
        |renderer| {
            assert!(renderer.has_far_field());
            renderer.settings.far_field_px = if far { units_px * 1.5 } else { 0.0 };
            renderer.settings.far_field_supersampling = supersampling;
            renderer.settings.lod_bias = lod_bias;
        },
        IMAGE_WIDTH * scale,
        IMAGE_HEIGHT * scale,
        12,
        1.0 / 30.0,
    )
}

/// The mean of each 2×2 block: a 2× supersampled render brought to size.
fn downsample_2x2(image: &image::RgbaImage) -> image::RgbaImage {
    image::RgbaImage::from_fn(image.width() / 2, image.height() / 2, |x, y| {
        let mut sum = [0u32; 4];
        for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
            let pixel = image.get_pixel(2 * x + dx, 2 * y + dy);
            for (total, channel) in sum.iter_mut().zip(pixel.0) {
                *total += u32::from(channel);
            }
        }
        image::Rgba(sum.map(|total| ((total + 2) / 4) as u8))
    })
}

fn differs(a: &image::Rgba<u8>, b: &image::Rgba<u8>) -> bool {
    (0..3).any(|c| a[c].abs_diff(b[c]) > 2)
}

/// Mean absolute colour difference (0-255 per channel, averaged over the
/// channels) between `mesh` and `far` over the pixels either covers (differs
/// from `empty`), and the intersection over union of their coverage.
fn compare(
    empty: &image::RgbaImage,
    mesh: &image::RgbaImage,
    far: &image::RgbaImage,
) -> (f64, f64, usize) {
    let (mut sum, mut union, mut both) = (0.0f64, 0usize, 0usize);
    for ((e, m), f) in empty.pixels().zip(mesh.pixels()).zip(far.pixels()) {
        let (in_mesh, in_far) = (differs(m, e), differs(f, e));
        if in_mesh || in_far {
            union += 1;
            both += usize::from(in_mesh && in_far);
            sum += (0..3).map(|c| f64::from(m[c].abs_diff(f[c]))).sum::<f64>() / 3.0;
        }
    }
    (
        sum / union.max(1) as f64,
        both as f64 / union.max(1) as f64,
        union,
    )
}

/// Perceptual threshold of the transition: mean absolute colour difference
/// over the units' pixels, in 8-bit steps (of 255).
const MAX_MEAN_DIFFERENCE: f64 = 24.0;
/// The same, between the supersampled far field and the meshes drawn at
/// twice the size and box-filtered down. At the transition size (48 px)
/// the meshes' per-pixel sun and shadow show against the far field's per
/// vertex: measured 15.7 (front) and 16.5 (side) for the knight on
/// lavapipe, against 18.7 and 7.7 single-sampled.
const MAX_MEAN_DIFFERENCE_SUPERSAMPLED: f64 = 20.0;
/// The two paths' unit pixels overlap at least this much (intersection
/// over union).
const MIN_COVERAGE_IOU: f64 = 0.85;

#[test]
fn mesh_and_far_field_agree_at_the_transition() {
    let mut ctx = gpu_context(None);
    agree_at_the_transition(
        &mut ctx,
        &baked_knight(),
        ("knight", MIN_COVERAGE_IOU, MAX_MEAN_DIFFERENCE),
        1.0,
    );
    finish(ctx);
}

/// The generated skeleton at the transition size, at a LOD bias so large
/// that the LOD rule asks for LOD 0: the meshes draw it, the far field its
/// finest LOD within the mid-size pipeline's capacity (LOD 2, 1643
/// vertices, on an H100; LOD 3, 713, where shared memory is 32 KiB, as on
/// lavapipe), more vertices than the small units' batches hold. The
/// mid-size pipeline draws them, and must agree with the meshes as the
/// small one does.
#[test]
fn mid_size_units_in_the_far_field_agree_with_meshes() {
    let mut ctx = gpu_context(None);
    let path = horde_tests::repo_root().join("assets/skeleton.glb");
    let skeleton = horde_bake::bake_unit(&path, &[], &horde_bake::BakeOptions::default(), &|_| {})
        .expect("bake the skeleton")
        .asset;
    let capacity = mid_vertex_capacity(ctx.limits.max_compute_shared_memory);
    let drawn: Vec<u32> = skeleton
        .lods
        .iter()
        .filter_map(|lod| {
            let vertices = lod.vertices.len() as u32;
            (vertices <= capacity).then_some(vertices)
        })
        .collect();
    println!("mid-size capacity {capacity}: far-field LODs of {drawn:?} vertices");
    assert!(
        drawn[0] > FAR_FIELD_MAX_VERTICES,
        "the skeleton's finest far-field LOD ({} vertices) fits the small pipeline",
        drawn[0]
    );
    // Thin bones a pixel wide, and on lavapipe LOD 3 against LOD 0: the
    // coverage overlaps less than the knight's (0.87 measured on lavapipe),
    // and the colours differ more: LOD 3 is inflated to the source's
    // silhouette (`lod::inflate_to_silhouette`, by 1 cm), for the sizes
    // the LOD rule draws it at, up to about 35 px; at 48 px, where only
    // this test's bias draws it, that shows (one sample from the front:
    // 22.6 before the inflation, 25.5 after).
    agree_at_the_transition(&mut ctx, &skeleton, ("skeleton", 0.78, 27.0), 1000.0);
    finish(ctx);
}

/// Units of `knight` at the transition size drawn as meshes and by the far
/// field (at `lod_bias`) agree in colour (a mean difference under
/// `max_mean` single-sampled, [`MAX_MEAN_DIFFERENCE_SUPERSAMPLED`]
/// supersampled) and coverage (an intersection over union of at least
/// `min_iou`), from the front and the side.
fn agree_at_the_transition(
    ctx: &mut Context,
    knight: &Asset,
    (asset_name, min_iou, max_mean): (&str, f64, f64),
    lod_bias: f32,
) {
    let distance = distance_for(knight, TRANSITION_PX);
    let spacing = distance * 0.05;
    // Six rows of eight, turned every way, idle and walking.
    let units: Vec<(Vec3, f32)> = (0..48)
        .map(|i| {
            let (column, row) = ((i % 8) as f32, (i / 8) as f32);
            let x = (column - 3.5) * spacing + row * spacing * 0.5;
            (Vec3::new(x, 0.0, (row - 2.5) * spacing), 0.6 * i as f32)
        })
        .collect();
    let scene = knight_scene(knight, &units, &[]);
    let empty_scene = Scene {
        units: Vec::new(),
        ..scene.clone()
    };
    let views = [
        ("front", Vec3::new(0.0, distance * 0.3, distance)),
        (
            "side",
            Vec3::new(distance * 0.8, distance * 0.15, distance * 0.55),
        ),
    ];
    for (name, eye) in views {
        let camera = Camera::look_at(eye, Vec3::new(0.0, 1.0, 0.0));
        let mut draw = |scene, far, supersampling, scale| {
            render_sized(
                ctx,
                scene,
                &camera,
                (far, TRANSITION_PX, supersampling),
                scale,
                lod_bias,
            )
        };
        let empty = draw(&empty_scene, false, true, 1);
        // One sample per pixel on both paths: they agree sample for sample.
        let mesh = draw(&scene, false, true, 1);
        let far = draw(&scene, true, false, 1);
        // Both antialiased: the supersampled far field against the meshes
        // drawn at twice the size (every unit still a mesh) and filtered.
        let mesh_2x = draw(&scene, false, false, 2);
        let mesh_supersampled = downsample_2x2(&mesh_2x);
        let far_supersampled = draw(&scene, true, true, 1);
        for (what, image) in [
            ("mesh", &mesh),
            ("far", &far),
            ("mesh_supersampled", &mesh_supersampled),
            ("far_supersampled", &far_supersampled),
        ] {
            image
                .save(output_dir().join(format!("far_field_{asset_name}_{name}_{what}.png")))
                .expect("save");
        }
        for (what, mesh, far, limit) in [
            ("one sample", &mesh, &far, max_mean),
            (
                "supersampled",
                &mesh_supersampled,
                &far_supersampled,
                MAX_MEAN_DIFFERENCE_SUPERSAMPLED,
            ),
        ] {
            let (mean, iou, pixels) = compare(&empty, mesh, far);
            println!(
                "{asset_name}, {name}, {what}: mean difference {mean:.2}/255, coverage IoU {iou:.3}, \
                 {pixels} pixels"
            );
            assert!(pixels > 100, "{name}: the units cover only {pixels} pixels");
            assert!(
                mean < limit,
                "{name}, {what}: mean difference {mean:.2} over {pixels} unit pixels"
            );
            // Coverage is compared pixel for pixel where both paths take one
            // sample per pixel; antialiased edges are partial and show in
            // the mean difference instead.
            if what == "one sample" {
                assert!(iou > min_iou, "{name}, {what}: coverage IoU {iou:.3}");
            }
        }
    }
}

#[test]
fn far_units_and_meshes_occlude_each_other() {
    let mut ctx = gpu_context(None);
    let knight = baked_knight();
    // Larger than the transition size, so a few hundred pixels show.
    const UNITS_PX: f32 = 48.0;
    let distance = distance_for(&knight, UNITS_PX);
    let eye = Vec3::new(0.0, distance * 0.15, distance);
    let camera = Camera::look_at(eye, Vec3::new(0.0, 1.0, 0.0));
    // Left: a knight hidden behind a sphere nearer the camera. Right: a
    // knight in front of a sphere.
    let offset = distance * 0.12;
    let hidden = Vec3::new(-offset, 0.0, 0.0);
    let shown = Vec3::new(offset, 0.0, 0.0);
    let front_sphere = hidden + (eye - hidden).normalize() * distance * 0.1 + Vec3::Y;
    let back_sphere = shown + Vec3::new(0.0, 1.0, -distance * 0.1);
    let scene = knight_scene(
        &knight,
        &[(hidden, 0.0), (shown, 0.3)],
        &[
            (front_sphere, distance * 0.04),
            (back_sphere, distance * 0.05),
        ],
    );
    let empty_scene = Scene {
        units: Vec::new(),
        ..scene.clone()
    };
    let empty = render(&mut ctx, &empty_scene, &camera, (false, UNITS_PX));
    let mesh = render(&mut ctx, &scene, &camera, (false, UNITS_PX));
    let far = render(&mut ctx, &scene, &camera, (true, UNITS_PX));
    far.save(output_dir().join("far_field_occlusion.png"))
        .expect("save");
    let half = IMAGE_WIDTH / 2;
    let shows = |image: &image::RgbaImage, left: bool| {
        image
            .enumerate_pixels()
            .filter(|&(x, y, p)| (x < half) == left && differs(p, empty.get_pixel(x, y)))
            .count()
    };
    // The hidden knight leaves no trace, on either path.
    assert_eq!(
        shows(&mesh, true),
        0,
        "the mesh path shows the hidden knight"
    );
    assert_eq!(
        shows(&far, true),
        0,
        "the far field shows the hidden knight"
    );
    // The knight before the sphere shows on both paths, over the sphere.
    let (mesh_shown, far_shown) = (shows(&mesh, false), shows(&far, false));
    let sphere_pixel = |x: u32, y: u32| {
        let p = empty.get_pixel(x, y);
        p[0] > p[1] + 40
    };
    let over_sphere = far
        .enumerate_pixels()
        .filter(|&(x, y, p)| x >= half && sphere_pixel(x, y) && differs(p, empty.get_pixel(x, y)))
        .count();
    println!("knight in front: {mesh_shown} mesh pixels, {far_shown} far-field pixels, {over_sphere} over the sphere");
    assert!(
        mesh_shown > 20,
        "the mesh knight covers {mesh_shown} pixels"
    );
    assert!(
        far_shown as f64 > 0.7 * mesh_shown as f64,
        "the far-field knight covers {far_shown} pixels, the mesh {mesh_shown}"
    );
    assert!(
        over_sphere > 10,
        "the far-field knight hides the sphere behind it on {over_sphere} pixels"
    );
    finish(ctx);
}

#[test]
fn the_mobile_tier_keeps_far_units_as_meshes() {
    let mut ctx = gpu_context(Some(Tier::Mobile));
    assert!(!ctx.far_field_supported);
    let knight = baked_knight();
    let scene = knight_scene(&knight, &[(Vec3::ZERO, 0.0)], &[]);
    let (mut renderer, target) = horde_tests::offscreen_renderer(&mut ctx, &scene, 64, 64);
    assert!(!renderer.has_far_field());
    assert_eq!(renderer.settings.far_field_px, 0.0);
    renderer.settings.far_field_px = 1.0e6;
    let far = Camera::look_at(Vec3::new(0.0, 50.0, 400.0), Vec3::ZERO);
    for frame in 0..3 {
        renderer
            .render_offscreen(&ctx, &target, &far, 1.0 / 30.0, frame == 2)
            .expect("frame");
    }
    renderer.finish(&ctx).expect("finish");
    let stats = renderer.stats.clone();
    assert_eq!(stats.units_far_field, 0, "{stats:?}");
    assert_eq!(stats.units_visible(), 1, "{stats:?}");
    drop((renderer, target));
    finish(ctx);
}

/// Units the cull sends to the far field but which are large on screen (a
/// frozen cull camera far away, the view close): their triangles are too
/// large for the compute rasterizer, so they are drawn as meshes of the LOD
/// the far field would have drawn, exactly as the mesh path draws them from
/// that cull camera.
#[test]
fn units_too_large_for_the_far_field_fall_back_to_the_raster() {
    let mut ctx = gpu_context(None);
    let knight = baked_knight();
    let units: Vec<(Vec3, f32)> = (0..3)
        .map(|i| (Vec3::new(i as f32 * 1.5 - 1.5, 0.0, 0.0), 0.4 * i as f32))
        .collect();
    let scene = knight_scene(&knight, &units, &[]);
    let view = Camera::look_at(Vec3::new(0.0, 1.2, 2.5), Vec3::new(0.0, 1.0, 0.0));
    // From here the units' spheres span about 10 px: far field at 18 px,
    // and LOD 6 (the 0.07 ratio, for the raster only) as meshes. The far
    // field would draw its units with the 0.1 LOD's mesh; those it hands
    // back draw at the cull's LOD, as the mesh path does.
    let cull = Camera::look_at(Vec3::new(0.0, 20.0, 150.0), Vec3::ZERO);
    let mut render_with = |far_field_px: f32| {
        let (mut renderer, target) =
            horde_tests::offscreen_renderer(&mut ctx, &scene, IMAGE_WIDTH, IMAGE_HEIGHT);
        renderer.settings.far_field_px = far_field_px;
        renderer.settings.cull_camera = Some(cull);
        for frame in 0..4 {
            renderer
                .render_offscreen(&ctx, &target, &view, 1.0 / 30.0, frame == 3)
                .expect("frame");
        }
        renderer.finish(&ctx).expect("finish");
        let stats = renderer.stats.clone();
        let image = target.read_rgba().expect("read back");
        drop((renderer, target));
        (image, stats)
    };
    let (mesh, mesh_stats) = render_with(0.0);
    let (far, far_stats) = render_with(TRANSITION_PX * 1.5);
    far.save(output_dir().join("far_field_fallback.png"))
        .expect("save");
    assert_eq!(far_stats.units_far_field, 3, "{far_stats:?}");
    assert_eq!(far_stats.units_per_lod[6], 3, "{far_stats:?}");
    assert_eq!(mesh_stats.units_per_lod[6], 3, "{mesh_stats:?}");
    assert!(knight.lods[6].raster_only);
    let differing = mesh
        .pixels()
        .zip(far.pixels())
        .filter(|(a, b)| differs(a, b))
        .count();
    assert_eq!(
        differing, 0,
        "the fallback draws the units as the mesh path does"
    );
    finish(ctx);
}

/// With a frame budget the renderer adapts the far-field size from the
/// profiler's frame time: an unreachable budget moves it (which way is the
/// controller's to find: on lavapipe the far field costs more than the
/// raster), within its bounds, the LOD threshold follows, and validation
/// stays silent. (The control law itself is tested on the CPU in
/// `far_field_budget`, and in a headless run with a model cost below.)
#[test]
fn a_frame_budget_steers_the_far_field_size() {
    let mut ctx = gpu_context(None);
    let knight = baked_knight();
    let scene = knight_scene(&knight, &[(Vec3::ZERO, 0.0)], &[]);
    let (mut renderer, target) = horde_tests::offscreen_renderer(&mut ctx, &scene, 64, 64);
    renderer.settings.budget_ms = Some(1.0e-6);
    let start = renderer.settings.far_field_px;
    let camera = Camera::look_at(Vec3::new(0.0, 20.0, 200.0), Vec3::ZERO);
    let mut sizes = Vec::new();
    for frame in 0..12 {
        renderer
            .render_offscreen(&ctx, &target, &camera, 1.0 / 30.0, frame == 11)
            .expect("frame");
        sizes.push(renderer.settings.far_field_px);
    }
    let available = renderer.profiler.available();
    let status = renderer.budget().expect("a budget steers the frame");
    drop((renderer, target));
    finish(ctx);
    let bounds =
        horde::renderer::BUDGET_MIN_FAR_FIELD_PX..=horde::renderer::BUDGET_MAX_FAR_FIELD_PX;
    assert!(sizes.iter().all(|px| bounds.contains(px)), "{sizes:?}");
    assert_eq!(status.far_field_px, *sizes.last().unwrap());
    let size_ratio = status.far_field_px / start;
    let threshold_ratio =
        status.lod_threshold_px / horde::renderer::RenderSettings::default().lod_threshold_px;
    assert!(
        (threshold_ratio - size_ratio.sqrt()).abs() < 1e-4,
        "the LOD threshold follows the size: {threshold_ratio} for {size_ratio}"
    );
    if available {
        assert!(status.measured_ms.is_some());
        assert_ne!(*sizes.last().unwrap(), start, "{sizes:?}");
    }
}

/// The budget's cost model in the headless test: milliseconds per visible
/// unit by LOD (about proportional to the generated knight's vertices per
/// LOD, through the raster) and per far-field unit.
fn model_cost(stats: &horde::renderer::DrawStats) -> f32 {
    const MESH_MS: [f32; 4] = [0.4, 0.16, 0.06, 0.008];
    const FAR_MS: f32 = 0.002;
    let mesh: f32 = stats
        .units_per_lod
        .iter()
        .enumerate()
        .map(|(lod, &count)| count as f32 * MESH_MS[lod.min(MESH_MS.len() - 1)])
        .sum();
    mesh + stats.units_far_field as f32 * FAR_MS
}

/// The frame budget in a headless run, with a synthetic cost (the model
/// above over the real per-LOD statistics, which arrive as late as GPU
/// timestamps do): knights from 3 m to 400 m, a budget halfway (in ratio)
/// between the cost with everything as meshes and with the far field at its
/// largest. The controller reaches the band below the budget and holds
/// still: no reversal of direction in the last 60 frames.
#[test]
fn the_budget_converges_in_a_headless_run_with_a_model_cost() {
    let mut ctx = gpu_context(None);
    let knight = baked_knight();
    let units: Vec<(Vec3, f32)> = (0..600)
        .map(|i| {
            let distance = 3.0 * (400.0f32 / 3.0).powf(i as f32 / 599.0);
            let across = ((i * 37) % 21) as f32 - 10.0;
            (Vec3::new(across * 0.08 * distance, 0.0, -distance), 0.0)
        })
        .collect();
    let scene = knight_scene(&knight, &units, &[]);
    let (mut renderer, target) = horde_tests::offscreen_renderer(&mut ctx, &scene, 160, 90);
    let camera = Camera::look_at(Vec3::new(0.0, 1.5, 0.0), Vec3::new(0.0, 1.0, -50.0));
    let render = |renderer: &mut horde::renderer::Renderer, frames: u32| {
        for _ in 0..frames {
            renderer
                .render_offscreen(&ctx, &target, &camera, 1.0 / 30.0, false)
                .expect("frame");
        }
        model_cost(&renderer.stats)
    };
    renderer.settings.far_field_px = horde::renderer::BUDGET_MIN_FAR_FIELD_PX;
    let most = render(&mut renderer, 4);
    renderer.settings.far_field_px = horde::renderer::BUDGET_MAX_FAR_FIELD_PX;
    let least = render(&mut renderer, 4);
    assert!(most > 2.0 * least, "model cost {most} to {least}");
    let budget = (most * least).sqrt();
    // The budget never goes below the size it starts from: start at the
    // least, with every unit a mesh.
    renderer.settings.far_field_px = horde::renderer::BUDGET_MIN_FAR_FIELD_PX;
    renderer.settings.budget_ms = Some(budget);
    renderer.settings.budget_source = horde::renderer::BudgetSource::Model(model_cost);
    let mut sizes = Vec::new();
    for _ in 0..160 {
        render(&mut renderer, 1);
        sizes.push(renderer.settings.far_field_px);
    }
    let status = renderer.budget().expect("a budget steers the frame");
    let cost = render(&mut renderer, 3);
    drop((renderer, target));
    finish(ctx);
    let tail = &sizes[100..];
    let reversals = tail
        .windows(3)
        .filter(|w| (w[1] - w[0]) * (w[2] - w[1]) < 0.0)
        .count();
    println!(
        "budget {budget:.2} ms (costs {least:.2}..{most:.2}): settled at {:.1} px, \
         LOD threshold {:.2} px, model cost {cost:.2} ms",
        status.far_field_px, status.lod_threshold_px
    );
    assert_eq!(reversals, 0, "the size hunts: {tail:?}");
    let ratio = cost / budget;
    assert!(
        (0.85..=1.02).contains(&ratio),
        "settled at {ratio:.3} of the budget"
    );
}
