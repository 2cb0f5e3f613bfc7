//! The depth pyramid pass on the GPU, against its CPU twin
//! (`horde::reference::depth_pyramid`):
//! - the pyramid of single-sampled depth images of odd and even sizes, bit
//!   for bit, one pass growing and reusing its buffer from size to size,
//!   and the atlas it copies the pyramid into (read back by an image to
//!   buffer copy), on every texel a level claims; before the first record,
//!   the 1 x 1 atlas of 0;
//! - the multisampled base (4 samples), each sample of each pixel its own
//!   depth: drawn by four full-screen draws, one per sample mask;
//! - the base with the far field's visibility buffer over the raster's
//!   depth, at one and at 2x2 samples per pixel.
//!
//! `depth_pyramid_atlas.rs` tests the occlusion test's reading of an atlas.
//!
//! Validation, synchronization validation included, is on throughout and
//! must stay silent (`finish`).

use ash::vk;
use gpu_allocator::MemoryLocation;
use horde::barriers::{uses, Access};
use horde::context::Context;
use horde::frame::Frame;
use horde::frames::Descriptor;
use horde::memory::{full_range, upload_buffer, Buffer, Image, ImageDesc};
use horde::owned::Owned;
use horde::passes::depth_pyramid::{DepthPyramidPass, FarFieldDepth};
use horde::pipeline::binding;
use horde::reference::depth_pyramid::{with_far_field, DepthPyramid};
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

/// Depths in [0, 1] with runs of equal values, the clear value (0) and the
/// near plane (1) among them.
fn crafted_depths(count: usize, random: &mut Lcg) -> Vec<f32> {
    let mut depths = Vec::with_capacity(count);
    while depths.len() < count {
        let value = match random.next() {
            r if r < 0.1 => 0.0,
            r if r < 0.15 => 1.0,
            _ => random.next(),
        };
        let run = 1 + (random.next() * 4.0) as usize;
        depths.extend(std::iter::repeat_n(value, run));
    }
    depths.truncate(count);
    depths
}

fn extent(width: u32, height: u32) -> vk::Extent2D {
    vk::Extent2D { width, height }
}

/// The pass's pyramid, read back after the frames recorded so far.
fn read_pyramid(ctx: &mut Context, harness: &mut PassHarness, pass: &DepthPyramidPass) -> Vec<f32> {
    let bytes = harness.run(ctx, |_| {}, &[pass.buffer()]);
    bytemuck::pod_collect_to_vec(&bytes[0])
}

/// Fails unless the GPU's pyramid starts with the twin's, bit for bit.
fn assert_same_pyramid(gpu: &[f32], twin: &DepthPyramid, what: &str) {
    let expected = twin.data();
    assert!(
        gpu.len() >= expected.len(),
        "{what}: the buffer is too small"
    );
    let differing: Vec<usize> = (0..expected.len())
        .filter(|&i| gpu[i].to_bits() != expected[i].to_bits())
        .collect();
    assert!(
        differing.is_empty(),
        "{what}: {} of {} texels differ from the twin (first at float {:?}: {:?} vs {:?})",
        differing.len(),
        expected.len(),
        differing.first(),
        differing.first().map(|&i| gpu[i]),
        differing.first().map(|&i| expected[i]),
    );
}

/// One side of an image barrier: layout, stages, accesses.
type ImageUse = (vk::ImageLayout, vk::PipelineStageFlags, vk::AccessFlags);

/// Records a barrier of the whole of `image` (one level, one layer) from
/// `from` to `to`.
fn image_barrier(frame: &Frame, image: &Image, from: ImageUse, to: ImageUse) {
    let ((old_layout, src_stage, src_access), (new_layout, dst_stage, dst_access)) = (from, to);
    let aspect = if image.format == vk::Format::D32_SFLOAT {
        vk::ImageAspectFlags::DEPTH
    } else {
        vk::ImageAspectFlags::COLOR
    };
    let barrier = vk::ImageMemoryBarrier::default()
        .src_access_mask(src_access)
        .dst_access_mask(dst_access)
        .old_layout(old_layout)
        .new_layout(new_layout)
        .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .image(image.raw)
        .subresource_range(full_range(aspect));
    let none = vk::DependencyFlags::empty();
    // SAFETY: the image outlives the frame.
    unsafe {
        (frame.ctx.device).cmd_pipeline_barrier(
            frame.cmd,
            src_stage,
            dst_stage,
            none,
            &[],
            &[],
            &[barrier],
        );
    }
}

/// The layout, stage and access in which compute shaders read an image.
const COMPUTE_SAMPLED: ImageUse = (
    vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
    vk::PipelineStageFlags::COMPUTE_SHADER,
    vk::AccessFlags::SHADER_READ,
);

/// A copy's region over the whole of `image`, at the buffer's start.
fn whole_image(image: &Image, aspect_mask: vk::ImageAspectFlags) -> vk::BufferImageCopy {
    vk::BufferImageCopy::default()
        .image_subresource(vk::ImageSubresourceLayers {
            aspect_mask,
            layer_count: 1,
            ..Default::default()
        })
        .image_extent(vk::Extent3D {
            width: image.extent.width,
            height: image.extent.height,
            depth: 1,
        })
}

/// Records the copy of `staging` (D32 depths, row by row) into `image`,
/// then its transition to `SHADER_READ_ONLY_OPTIMAL` for compute reads.
fn upload_depth(frame: &Frame, staging: &Buffer, image: &Image) {
    let (transfer, dst) = (
        vk::PipelineStageFlags::TRANSFER,
        vk::ImageLayout::TRANSFER_DST_OPTIMAL,
    );
    let written = (dst, transfer, vk::AccessFlags::TRANSFER_WRITE);
    let undefined = (
        vk::ImageLayout::UNDEFINED,
        transfer,
        vk::AccessFlags::empty(),
    );
    image_barrier(frame, image, undefined, written);
    let region = whole_image(image, vk::ImageAspectFlags::DEPTH);
    let (device, cmd) = (&frame.ctx.device, frame.cmd);
    // SAFETY: the image and the staging buffer outlive the frame.
    unsafe { device.cmd_copy_buffer_to_image(cmd, staging.raw, image.raw, dst, &[region]) };
    image_barrier(frame, image, written, COMPUTE_SAMPLED);
}

/// A single-sampled depth image of `width` x `height` and a buffer holding
/// `depths` for [`upload_depth`] to copy into it.
fn depth_image(ctx: &Context, depths: &[f32], width: u32, height: u32) -> (Image, Buffer) {
    let image = Image::create(
        ctx,
        "test depth",
        &ImageDesc::new(
            extent(width, height),
            vk::Format::D32_SFLOAT,
            vk::ImageUsageFlags::SAMPLED | vk::ImageUsageFlags::TRANSFER_DST,
        ),
    )
    .expect("depth image");
    let staging = upload_buffer(
        ctx,
        "test depth staging",
        vk::BufferUsageFlags::TRANSFER_SRC,
        bytemuck::cast_slice(depths),
    )
    .expect("staging buffer");
    (image, staging)
}

/// The pass's atlas, read back after the frames recorded so far, row by
/// row. The copy takes it out of `SHADER_READ_ONLY_OPTIMAL` after compute
/// shaders (where the pass leaves it) and puts it back as it was.
fn read_atlas(ctx: &mut Context, harness: &mut PassHarness, pass: &DepthPyramidPass) -> Vec<f32> {
    let atlas = pass.atlas_image();
    let texels = u64::from(atlas.extent.width) * u64::from(atlas.extent.height);
    let host = Buffer::new(
        ctx,
        "test atlas readback",
        texels * 4,
        vk::BufferUsageFlags::TRANSFER_DST,
        MemoryLocation::GpuToCpu,
    )
    .expect("readback buffer");
    let (transfer, source) = (
        vk::PipelineStageFlags::TRANSFER,
        vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
    );
    let sampled = (
        COMPUTE_SAMPLED.0,
        COMPUTE_SAMPLED.1,
        vk::AccessFlags::empty(),
    );
    let read = (source, transfer, vk::AccessFlags::TRANSFER_READ);
    harness.run(
        ctx,
        |frame| {
            frame.uses(&[uses(host.raw, Access::TransferWrite)]);
            image_barrier(frame, atlas, sampled, read);
            let region = whole_image(atlas, vk::ImageAspectFlags::COLOR);
            // SAFETY: the atlas and the buffer outlive the frame; the buffer
            // holds every texel.
            unsafe {
                (frame.ctx.device).cmd_copy_image_to_buffer(
                    frame.cmd,
                    atlas.raw,
                    source,
                    host.raw,
                    &[region],
                )
            };
            let read = (source, transfer, vk::AccessFlags::empty());
            image_barrier(frame, atlas, read, COMPUTE_SAMPLED);
            frame.uses(&[uses(host.raw, Access::HostRead)]);
        },
        &[],
    );
    harness.tracker.forget(host.raw);
    bytemuck::pod_collect_to_vec(host.mapped().expect("mapped readback"))
}

/// Fails unless the GPU's atlas has the twin's size and, on every texel a
/// level claims, its value, bit for bit (the others are never read).
fn assert_same_atlas(pass: &DepthPyramidPass, gpu: &[f32], twin: &DepthPyramid, what: &str) {
    let ([width, height], expected) = twin.atlas();
    let extent = pass.atlas_image().extent;
    assert_eq!(
        [extent.width, extent.height],
        [width, height],
        "{what}: atlas size"
    );
    assert_eq!(gpu.len(), expected.len(), "{what}: texels read back");
    let mut differing = Vec::new();
    for (level, &[w, h]) in twin.level_sizes().iter().enumerate() {
        let row = twin.level_row(level).expect("a level");
        for (x, y) in (0..h).flat_map(|y| (0..w).map(move |x| (x, row + y))) {
            let at = (y * width + x) as usize;
            if gpu[at].to_bits() != expected[at].to_bits() {
                differing.push((level, x, y, gpu[at], expected[at]));
            }
        }
    }
    assert!(
        differing.is_empty(),
        "{what}: {} atlas texels differ from the twin's (level, x, atlas row, GPU, twin): {:?}",
        differing.len(),
        &differing[..differing.len().min(8)]
    );
}

#[test]
fn the_pyramid_equals_the_twin_bit_for_bit() {
    let mut ctx = gpu_context(None);
    let mut harness = PassHarness::new(&ctx);
    let mut pass = DepthPyramidPass::new(&ctx, vk::SampleCountFlags::TYPE_1).expect("the pass");
    assert_eq!(pass.base_size(), [0, 0]);
    assert_eq!(read_atlas(&mut ctx, &mut harness, &pass), [0.0]);
    let mut random = Lcg(2024);
    // Odd, then larger (the buffer grows), then smaller (it is reused).
    for (width, height) in [(37, 23), (64, 48), (1, 1), (17, 9), (130, 3)] {
        let what = format!("{width}x{height}");
        let depths = crafted_depths((width * height) as usize, &mut random);
        let twin = DepthPyramid::build(&depths, width, height, 1).expect("the twin");
        let (image, staging) = depth_image(&ctx, &depths, width, height);
        harness.run(
            &mut ctx,
            |frame| {
                upload_depth(frame, &staging, &image);
                assert!(pass
                    .record(frame, image.view, extent(0, height), None)
                    .is_err());
                // Twice: the second build reuses the buffer and the atlas
                // of the first, whose barriers must order it after the
                // first's copy (the renderer's next frame, in short).
                for _ in 0..2 {
                    pass.record(frame, image.view, extent(width, height), None)
                        .expect("record the pyramid");
                }
            },
            &[],
        );
        assert_eq!(pass.base_size(), twin.level_sizes()[0], "{what}");
        let gpu = read_pyramid(&mut ctx, &mut harness, &pass);
        assert_same_pyramid(&gpu, &twin, &what);
        let atlas = read_atlas(&mut ctx, &mut harness, &pass);
        assert_same_atlas(&pass, &atlas, &twin, &what);
    }
    drop((pass, harness));
    finish(ctx);
}

#[test]
fn bad_settings_are_errors() {
    let ctx = gpu_context(None);
    let three = vk::SampleCountFlags::TYPE_1 | vk::SampleCountFlags::TYPE_2;
    assert!(DepthPyramidPass::new(&ctx, three).is_err());
    assert!(DepthPyramidPass::new(&ctx, vk::SampleCountFlags::empty()).is_err());
    finish(ctx);
}

/// A 4-sample depth image whose samples the test sets one by one: the far
/// field's resolve (a full-screen triangle writing `gl_FragDepth` from a
/// buffer of one key per pixel, depth bits in the high word, 0 discarded)
/// drawn four times, with sample mask `1 << s` for sample `s`.
struct MultisampledDepth {
    pipelines: Vec<Owned<vk::Pipeline>>,
    layout: Owned<vk::PipelineLayout>,
    set_layout: Owned<vk::DescriptorSetLayout>,
    framebuffer: Owned<vk::Framebuffer>,
    render_pass: Owned<vk::RenderPass>,
    depth: Image,
    /// The colour attachment the resolve writes, never read.
    _color: Image,
}

const SAMPLES: u32 = 4;

impl MultisampledDepth {
    fn new(ctx: &Context, size: vk::Extent2D) -> MultisampledDepth {
        let samples = vk::SampleCountFlags::TYPE_4;
        let image = |name, format, usage| {
            let desc = ImageDesc {
                samples,
                ..ImageDesc::new(size, format, usage)
            };
            Image::create(ctx, name, &desc).expect("multisampled image")
        };
        let (rgba, d32) = (vk::Format::R8G8B8A8_UNORM, vk::Format::D32_SFLOAT);
        let color = image("test colour", rgba, vk::ImageUsageFlags::COLOR_ATTACHMENT);
        let depth_usage =
            vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT | vk::ImageUsageFlags::SAMPLED;
        let depth = image("test multisampled depth", d32, depth_usage);
        let attachment = |format, store_op, final_layout| {
            vk::AttachmentDescription::default()
                .format(format)
                .samples(samples)
                .load_op(vk::AttachmentLoadOp::CLEAR)
                .store_op(store_op)
                .final_layout(final_layout)
        };
        let color_layout = vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL;
        let attachments = [
            attachment(rgba, vk::AttachmentStoreOp::DONT_CARE, color_layout),
            attachment(
                d32,
                vk::AttachmentStoreOp::STORE,
                vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
            ),
        ];
        let color_ref = [vk::AttachmentReference {
            attachment: 0,
            layout: color_layout,
        }];
        let depth_ref = vk::AttachmentReference {
            attachment: 1,
            layout: vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL,
        };
        let subpass = [vk::SubpassDescription::default()
            .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
            .color_attachments(&color_ref)
            .depth_stencil_attachment(&depth_ref)];
        // The depth writes, made visible to the pyramid's compute reads.
        let outgoing = [vk::SubpassDependency::default()
            .src_subpass(0)
            .dst_subpass(vk::SUBPASS_EXTERNAL)
            .src_stage_mask(vk::PipelineStageFlags::LATE_FRAGMENT_TESTS)
            .src_access_mask(vk::AccessFlags::DEPTH_STENCIL_ATTACHMENT_WRITE)
            .dst_stage_mask(vk::PipelineStageFlags::COMPUTE_SHADER)
            .dst_access_mask(vk::AccessFlags::SHADER_READ)];
        let info = vk::RenderPassCreateInfo::default()
            .attachments(&attachments)
            .subpasses(&subpass)
            .dependencies(&outgoing);
        let device = &ctx.device;
        // SAFETY (this block and the ones below): valid create infos of
        // this device; each object is owned the moment it is made.
        let render_pass = unsafe { device.create_render_pass(&info, None) }.expect("render pass");
        let render_pass = Owned::new(ctx, render_pass, "test multisampled pass");
        let views = [color.view, depth.view];
        let info = vk::FramebufferCreateInfo::default()
            .render_pass(*render_pass)
            .attachments(&views)
            .width(size.width)
            .height(size.height)
            .layers(1);
        let framebuffer = unsafe { device.create_framebuffer(&info, None) }.expect("framebuffer");
        let framebuffer = Owned::new(ctx, framebuffer, "test multisampled framebuffer");
        let storage = vk::DescriptorType::STORAGE_BUFFER;
        let bindings = [binding(0, storage, vk::ShaderStageFlags::FRAGMENT)];
        let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings);
        let set_layout = unsafe { device.create_descriptor_set_layout(&info, None) };
        let set_layout = Owned::new(ctx, set_layout.expect("set layout"), "test keys");
        let set_layouts = [*set_layout];
        let push = [vk::PushConstantRange::default()
            .stage_flags(vk::ShaderStageFlags::VERTEX | vk::ShaderStageFlags::FRAGMENT)
            .size(12)];
        let info = vk::PipelineLayoutCreateInfo::default()
            .set_layouts(&set_layouts)
            .push_constant_ranges(&push);
        let layout = unsafe { device.create_pipeline_layout(&info, None) };
        let layout = Owned::new(ctx, layout.expect("pipeline layout"), "test resolve");
        let module = |spirv: &horde::Spirv| {
            let info = vk::ShaderModuleCreateInfo::default().code(spirv.words);
            let module = unsafe { device.create_shader_module(&info, None) };
            Owned::new(ctx, module.expect("shader module"), spirv.name)
        };
        let vertex = module(&shaders::FULL_SCREEN_VERT);
        let fragment = module(&shaders::FAR_FIELD_RESOLVE_FRAG);
        let stages = [
            (vk::ShaderStageFlags::VERTEX, *vertex),
            (vk::ShaderStageFlags::FRAGMENT, *fragment),
        ]
        .map(|(stage, module)| {
            vk::PipelineShaderStageCreateInfo::default()
                .stage(stage)
                .module(module)
                .name(c"main")
        });
        let vertex_input = vk::PipelineVertexInputStateCreateInfo::default();
        let assembly = vk::PipelineInputAssemblyStateCreateInfo::default()
            .topology(vk::PrimitiveTopology::TRIANGLE_LIST);
        let viewport = vk::PipelineViewportStateCreateInfo::default()
            .viewport_count(1)
            .scissor_count(1);
        let raster = vk::PipelineRasterizationStateCreateInfo::default().line_width(1.0);
        let depth_state = vk::PipelineDepthStencilStateCreateInfo::default()
            .depth_test_enable(true)
            .depth_write_enable(true)
            .depth_compare_op(vk::CompareOp::GREATER);
        let blend_attachment = [vk::PipelineColorBlendAttachmentState::default()
            .color_write_mask(vk::ColorComponentFlags::RGBA)];
        let blend = vk::PipelineColorBlendStateCreateInfo::default().attachments(&blend_attachment);
        let dynamic = [vk::DynamicState::VIEWPORT, vk::DynamicState::SCISSOR];
        let dynamic = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&dynamic);
        let pipelines = (0..SAMPLES)
            .map(|sample| {
                let mask = [1u32 << sample];
                let multisample = vk::PipelineMultisampleStateCreateInfo::default()
                    .rasterization_samples(samples)
                    .sample_mask(&mask);
                let info = vk::GraphicsPipelineCreateInfo::default()
                    .stages(&stages)
                    .vertex_input_state(&vertex_input)
                    .input_assembly_state(&assembly)
                    .viewport_state(&viewport)
                    .rasterization_state(&raster)
                    .multisample_state(&multisample)
                    .depth_stencil_state(&depth_state)
                    .color_blend_state(&blend)
                    .dynamic_state(&dynamic)
                    .layout(*layout)
                    .render_pass(*render_pass);
                let cache = vk::PipelineCache::null();
                let created = unsafe { device.create_graphics_pipelines(cache, &[info], None) };
                let pipeline = created.map_err(|(_, err)| err).expect("pipeline")[0];
                Owned::new(ctx, pipeline, &format!("test resolve of sample {sample}"))
            })
            .collect();
        MultisampledDepth {
            pipelines,
            layout,
            set_layout,
            framebuffer,
            render_pass,
            depth,
            _color: color,
        }
    }

    /// Records the render pass that writes `keys[s]` into sample `s`.
    fn draw(&self, frame: &mut Frame, keys: &[Buffer]) {
        let size = self.depth.extent;
        let read = |k: &Buffer| uses(k.raw, Access::FragmentRead);
        frame.uses(&keys.iter().map(read).collect::<Vec<_>>());
        let sets: Vec<vk::DescriptorSet> = keys
            .iter()
            .map(|k| {
                frame
                    .descriptor_set(*self.set_layout, &[Descriptor::Storage(k.raw)])
                    .expect("descriptor set")
            })
            .collect();
        // All zero: colour, and depth 0 (infinitely far).
        let clear = [vk::ClearValue::default(); 2];
        let area = vk::Rect2D::default().extent(size);
        let begin = vk::RenderPassBeginInfo::default()
            .render_pass(*self.render_pass)
            .framebuffer(*self.framebuffer)
            .render_area(area)
            .clear_values(&clear);
        let viewport = vk::Viewport::default()
            .width(size.width as f32)
            .height(size.height as f32)
            .max_depth(1.0);
        let push = [size.width, size.height, 1];
        let (device, cmd) = (&frame.ctx.device, frame.cmd);
        // SAFETY: every object outlives the frame; the sets were made with
        // the pipelines' set layout.
        unsafe {
            device.cmd_begin_render_pass(cmd, &begin, vk::SubpassContents::INLINE);
            device.cmd_set_viewport(cmd, 0, &[viewport]);
            device.cmd_set_scissor(cmd, 0, &[area]);
            for (pipeline, &set) in self.pipelines.iter().zip(&sets) {
                device.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, **pipeline);
                device.cmd_bind_descriptor_sets(
                    cmd,
                    vk::PipelineBindPoint::GRAPHICS,
                    *self.layout,
                    0,
                    &[set],
                    &[],
                );
                device.cmd_push_constants(
                    cmd,
                    *self.layout,
                    vk::ShaderStageFlags::VERTEX | vk::ShaderStageFlags::FRAGMENT,
                    0,
                    bytemuck::cast_slice(&push),
                );
                device.cmd_draw(cmd, 3, 1, 0, 0);
            }
            device.cmd_end_render_pass(cmd);
        }
    }
}

#[test]
fn the_multisampled_base_takes_every_sample() {
    let mut ctx = gpu_context(None);
    // SAFETY: the context's physical device.
    let properties = unsafe { (ctx.instance).get_physical_device_properties(ctx.physical_device) };
    let limits = properties.limits;
    let four = vk::SampleCountFlags::TYPE_4;
    assert!(limits.sampled_image_depth_sample_counts.contains(four));
    assert!(limits.framebuffer_depth_sample_counts.contains(four));
    let (width, height) = (37, 23);
    let size = extent(width, height);
    let pixels = (width * height) as usize;
    // Per sample, per pixel: a depth in (0, 1], or 0 (no key: the sample
    // keeps the clear value). Some pixels get one depth in every sample.
    let mut random = Lcg(77);
    let mut samples: Vec<Vec<f32>> = (0..SAMPLES)
        .map(|_| crafted_depths(pixels, &mut random))
        .collect();
    for pixel in (0..pixels).step_by(5) {
        let shared = samples[0][pixel];
        for sample in &mut samples[1..] {
            sample[pixel] = shared;
        }
    }
    let keys: Vec<Buffer> = samples
        .iter()
        .map(|depths| {
            let words: Vec<[u32; 2]> = depths.iter().map(|d| [0, d.to_bits()]).collect();
            upload_buffer(
                &ctx,
                "test keys",
                vk::BufferUsageFlags::STORAGE_BUFFER,
                bytemuck::cast_slice(&words),
            )
            .expect("keys")
        })
        .collect();
    let interleaved: Vec<f32> = (0..pixels)
        .flat_map(|pixel| samples.iter().map(move |sample| sample[pixel]))
        .collect();
    let twin = DepthPyramid::build(&interleaved, width, height, SAMPLES).expect("the twin");
    let target = MultisampledDepth::new(&ctx, size);
    let mut pass = DepthPyramidPass::new(&ctx, four).expect("the pass");
    let mut harness = PassHarness::new(&ctx);
    harness.run(
        &mut ctx,
        |frame| {
            target.draw(frame, &keys);
            pass.record(frame, target.depth.view, size, None)
                .expect("record the pyramid");
        },
        &[],
    );
    let gpu = read_pyramid(&mut ctx, &mut harness, &pass);
    assert_same_pyramid(&gpu, &twin, "4 samples");
    let atlas = read_atlas(&mut ctx, &mut harness, &pass);
    assert_same_atlas(&pass, &atlas, &twin, "4 samples");
    // Sample 0 alone is not the answer: the test would catch a base that
    // reads one sample.
    let first_only = DepthPyramid::build(&samples[0], width, height, 1).expect("sample 0");
    assert_ne!(first_only.data(), twin.data());
    drop((pass, harness, target, keys));
    finish(ctx);
}

#[test]
fn the_far_fields_depth_joins_the_base() {
    let mut ctx = gpu_context(None);
    let mut harness = PassHarness::new(&ctx);
    let mut pass = DepthPyramidPass::new(&ctx, vk::SampleCountFlags::TYPE_1).expect("the pass");
    let (width, height) = (37, 23);
    let pixels = (width * height) as usize;
    let mut random = Lcg(4242);
    let depths = crafted_depths(pixels, &mut random);
    let (image, staging) = depth_image(&ctx, &depths, width, height);
    let raster_only = DepthPyramid::build(&depths, width, height, 1).expect("the twin");
    for samples_per_axis in [1u32, 2] {
        let what = format!("far field of {samples_per_axis}² samples a pixel");
        // Keys of crafted depths (0: nothing drawn), a colour in the low
        // word that the pyramid must ignore.
        let far_depths = crafted_depths(pixels * (samples_per_axis as usize).pow(2), &mut random);
        let keys: Vec<u64> = far_depths
            .iter()
            .map(|d| u64::from(d.to_bits()) << 32 | 0x3ff_ffff)
            .collect();
        let visibility = upload_buffer(
            &ctx,
            "test far field",
            vk::BufferUsageFlags::STORAGE_BUFFER,
            bytemuck::cast_slice(&keys),
        )
        .expect("visibility buffer");
        let merged = with_far_field(&depths, width, height, 1, &keys, samples_per_axis)
            .expect("the merged depths");
        let twin = DepthPyramid::build(&merged, width, height, 1).expect("the twin");
        let far = FarFieldDepth {
            visibility: visibility.raw,
            samples_per_axis,
        };
        harness.run(
            &mut ctx,
            |frame| {
                upload_depth(frame, &staging, &image);
                pass.record(frame, image.view, extent(width, height), Some(far))
                    .expect("record the pyramid");
            },
            &[],
        );
        let gpu = read_pyramid(&mut ctx, &mut harness, &pass);
        assert_same_pyramid(&gpu, &twin, &what);
        let atlas = read_atlas(&mut ctx, &mut harness, &pass);
        assert_same_atlas(&pass, &atlas, &twin, &what);
        // The far field moved texels nearer where it covers the pixel in
        // front of the raster, and with several samples a pixel farther
        // where one of them would let a unit show through.
        let pairs = raster_only.data().iter().zip(twin.data());
        assert!(pairs.clone().any(|(raster, both)| both > raster), "{what}");
        let farther = pairs.clone().any(|(raster, both)| both < raster);
        assert_eq!(farther, samples_per_axis > 1, "{what}");
        drop(visibility);
    }
    drop((pass, harness, image, staging));
    finish(ctx);
}
