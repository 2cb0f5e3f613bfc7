//! The sphere-against-pyramid occlusion test (`shaders/occlusion.glsl`,
//! through its kernel `occlusion_test.comp`) reading a depth pyramid's
//! atlas as the cull does, against its CPU twin
//! (`horde::reference::depth_pyramid::sphere_occluded`): the twin's atlas
//! of a crafted depth image, uploaded as an `R32_SFLOAT` image and bound as
//! a combined image sampler, for spheres whose answer no small change of
//! position, size or distance would flip, both answers among them; and an
//! atlas smaller than the pyramid the cull names, which hides nothing.
//! `depth_pyramid.rs` tests that the pass's own atlas equals the twin's.
//!
//! Validation, synchronization validation included, is on throughout and
//! must stay silent (`finish`).

use ash::vk;
use glam::{UVec2, Vec2, Vec3};
use gpu_allocator::MemoryLocation;
use horde::barriers::{uses, Access};
use horde::camera::Camera;
use horde::context::Context;
use horde::frame::ComputePipeline;
use horde::frames::Descriptor;
use horde::memory::{upload_buffer, upload_image, Buffer};
use horde::reference::depth_pyramid::{sphere_occluded, DepthPyramid};
use horde::sampler::create_sampler;
use horde::shaders;
use horde_tests::{finish, gpu_context, PassHarness};

/// A deterministic generator of values in [0, 1).
struct Lcg(u32);

impl Lcg {
    fn next(&mut self) -> f32 {
        self.0 = self.0.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (self.0 >> 8) as f32 / (1u32 << 24) as f32
    }
}

/// `occlusion_test.comp`'s push constants.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct OcclusionPush {
    projection_scale: [f32; 2],
    near: f32,
    sphere_count: u32,
    viewport: [u32; 2],
    pyramid_size: [u32; 2],
}

/// The kernel's answer for each sphere (centre in view space, radius).
fn occlusion_on_gpu(
    ctx: &mut Context,
    pyramid: &DepthPyramid,
    spheres: &[(Vec3, f32)],
    push: OcclusionPush,
) -> Vec<bool> {
    let storage = vk::DescriptorType::STORAGE_BUFFER;
    let sampled = vk::DescriptorType::COMBINED_IMAGE_SAMPLER;
    let pipeline = ComputePipeline::new(
        ctx,
        "occlusion test",
        &shaders::OCCLUSION_TEST_COMP,
        &[sampled, storage, storage],
        &[],
    )
    .expect("test pipeline");
    // The twin's atlas, in SHADER_READ_ONLY_OPTIMAL (upload_image), as the
    // pass leaves its own.
    let ([width, height], texels) = pyramid.atlas();
    let atlas = upload_image(
        ctx,
        "test pyramid atlas",
        vk::Extent2D { width, height },
        vk::Format::R32_SFLOAT,
        bytemuck::cast_slice(&texels),
    )
    .expect("atlas");
    let sampler = create_sampler(ctx, vk::Filter::NEAREST, "test atlas sampler").expect("sampler");
    let usage = vk::BufferUsageFlags::STORAGE_BUFFER;
    let upload = |name, bytes: &[u8]| upload_buffer(ctx, name, usage, bytes).expect(name);
    let packed: Vec<[f32; 4]> = spheres.iter().map(|(c, r)| c.extend(*r).into()).collect();
    let input = upload("test spheres", bytemuck::cast_slice(&packed));
    let output = Buffer::new(
        ctx,
        "test occluded",
        spheres.len() as u64 * 4,
        usage | vk::BufferUsageFlags::TRANSFER_SRC,
        MemoryLocation::GpuOnly,
    )
    .expect("output");
    let mut harness = PassHarness::new(ctx);
    let bytes = harness.run(
        ctx,
        |frame| {
            frame.uses(&[
                uses(input.raw, Access::ComputeRead),
                uses(output.raw, Access::ComputeWrite),
            ]);
            frame
                .dispatch(
                    &pipeline,
                    &[
                        Descriptor::Sampled(atlas.view, *sampler),
                        Descriptor::Storage(input.raw),
                        Descriptor::Storage(output.raw),
                    ],
                    bytemuck::bytes_of(&push),
                    spheres.len() as u32,
                )
                .expect("dispatch the test kernel");
        },
        &[&output],
    );
    let words: Vec<u32> = bytemuck::pod_collect_to_vec(&bytes[0]);
    drop((harness, output, input, sampler, atlas, pipeline));
    words.into_iter().map(|w| w != 0).collect()
}

#[test]
fn the_occlusion_test_agrees_with_the_twin() {
    let mut ctx = gpu_context(None);
    let (width, height) = (61u32, 45u32);
    let viewport = UVec2::new(width, height);
    let near = 0.5;
    let camera = Camera {
        near,
        ..Camera::look_at(Vec3::ZERO, Vec3::NEG_Z)
    };
    let projection = camera.projection(width as f32 / height as f32);
    let scale = Vec2::new(projection.x_axis.x, projection.y_axis.y);
    // A wall 10 ahead (depth 0.05), with a hole to the sky, a nearer block
    // and a patch of noise.
    let mut random = Lcg(5);
    let depths: Vec<f32> = (0..width * height)
        .map(|i| {
            let (x, y) = (i % width, i / width);
            if (8..20).contains(&x) && (6..16).contains(&y) {
                0.0
            } else if (40..55).contains(&x) && (25..40).contains(&y) {
                0.2
            } else if (25..35).contains(&x) && (30..42).contains(&y) {
                0.01 + 0.1 * random.next()
            } else {
                0.05
            }
        })
        .collect();
    let pyramid = DepthPyramid::build(&depths, width, height, 1).expect("the twin");
    let cpu = |centre: Vec3, radius: f32| {
        sphere_occluded(&pyramid, centre, radius, scale, near, viewport)
    };
    // Spheres over the view whose answer survives a nudge of a pixel and
    // a half, 3 % of the radius and 1 % of the distance, either way.
    let mut spheres = Vec::new();
    while spheres.len() < 400 {
        let z = 1.0 + 40.0 * random.next();
        let centre = Vec3::new(
            (random.next() - 0.5) * 1.6 * z,
            (random.next() - 0.5) * 1.2 * z,
            -z,
        );
        let radius = (0.01 + 0.15 * random.next()) * z;
        let answer = cpu(centre, radius);
        let pixel = 1.5 * z * 2.0 / (scale.x * width as f32);
        let shifts = [Vec3::X * pixel, Vec3::Y * pixel, Vec3::Z * 0.01 * z];
        let nudges = shifts.iter().flat_map(|&s| [(s, 1.0), (-s, 1.0)]);
        let mut nudges = nudges.chain([(Vec3::ZERO, 1.03), (Vec3::ZERO, 0.97)]);
        if nudges.all(|(shift, grow)| cpu(centre + shift, radius * grow) == answer) {
            spheres.push((centre, radius));
        }
    }
    // And the rejections: across the near plane, behind the camera, off
    // screen.
    spheres.extend([
        (Vec3::new(0.0, 0.0, -0.7), 0.3),
        (Vec3::new(0.0, 0.0, 10.0), 1.0),
        (Vec3::new(100.0, 0.0, -10.0), 1.0),
    ]);
    let push = OcclusionPush {
        projection_scale: scale.into(),
        near,
        sphere_count: spheres.len() as u32,
        viewport: [width, height],
        pyramid_size: pyramid.level_sizes()[0],
    };
    let gpu = occlusion_on_gpu(&mut ctx, &pyramid, &spheres, push);
    let expected: Vec<bool> = spheres.iter().map(|&(c, r)| cpu(c, r)).collect();
    let occluded = expected.iter().filter(|&&o| o).count();
    assert!(
        occluded >= 50 && spheres.len() - occluded >= 50,
        "both answers are exercised: {occluded} of {} occluded",
        spheres.len()
    );
    let differing: Vec<_> = (0..spheres.len())
        .filter(|&i| gpu[i] != expected[i])
        .map(|i| (spheres[i], gpu[i]))
        .collect();
    assert!(
        differing.is_empty(),
        "{} of {} spheres differ from the twin: {differing:?}",
        differing.len(),
        spheres.len()
    );
    // An atlas smaller than pyramid_size says (the 1 x 1 one before the
    // first pyramid, a cull's placeholder) hides nothing, even at the near
    // plane's depth, which would hide every sphere it were read for.
    let placeholder = DepthPyramid::build(&[1.0], 1, 1, 1).expect("1 x 1");
    let gpu = occlusion_on_gpu(&mut ctx, &placeholder, &spheres, push);
    assert!(gpu.iter().all(|&o| !o), "a 1 x 1 atlas hid a sphere");
    finish(ctx);
}
