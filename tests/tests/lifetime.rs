//! Resource lifetime by `Drop` over the shared device: a constructor that
//! fails midway leaves nothing behind, and objects that outlive the context
//! are still destroyed before the device and the instance; a frame slot's
//! cached descriptor sets never outlive what they name.

use ash::vk;
use gpu_allocator::MemoryLocation;
use horde::context::Context;
use horde::frames::{Descriptor, Frames};
use horde::memory::{upload_buffer, upload_image, Buffer, Image};
use horde::pipeline::{binding, compute_pipeline, LayoutDesc, Pipeline};
use horde::renderer::Renderer;
use horde::{shaders, Error};
use horde_tests::{finish, gpu_context};
use horde_tools::first_scene::first_scene;

/// Buffers, an image, then a pipeline whose layout misses what the shader
/// binds: the reflection check fails after the memory was allocated.
fn resources_then_mismatched_pipeline(ctx: &Context) -> Result<(Buffer, Image, Pipeline), Error> {
    let staging = Buffer::new(
        ctx,
        "doomed staging",
        4096,
        vk::BufferUsageFlags::STORAGE_BUFFER,
        MemoryLocation::CpuToGpu,
    )?;
    drop(staging);
    let records = Buffer::new(
        ctx,
        "doomed records",
        1 << 20,
        vk::BufferUsageFlags::STORAGE_BUFFER,
        MemoryLocation::GpuOnly,
    )?;
    let uploaded = upload_buffer(
        ctx,
        "doomed upload",
        vk::BufferUsageFlags::STORAGE_BUFFER,
        &[7u8; 256],
    )?;
    drop(uploaded);
    let texels = [255u8; 4 * 4 * 4];
    let extent = vk::Extent2D {
        width: 4,
        height: 4,
    };
    let image = upload_image(
        ctx,
        "doomed image",
        extent,
        vk::Format::R8G8B8A8_UNORM,
        &texels,
    )?;
    // scatter.comp binds two storage buffers; declare one uniform buffer.
    let compute = vk::ShaderStageFlags::COMPUTE;
    let set0 = [binding(0, vk::DescriptorType::UNIFORM_BUFFER, compute)];
    let pipeline = compute_pipeline(
        ctx,
        "mismatched scatter",
        &shaders::SCATTER_COMP,
        &LayoutDesc {
            sets: &[&set0],
            push_constant_size: 16,
        },
        &[64],
    )?;
    Ok((records, image, pipeline))
}

#[test]
fn failed_constructor_leaves_no_allocation_and_no_object() {
    let ctx = gpu_context(None);
    let err = resources_then_mismatched_pipeline(&ctx)
        .err()
        .expect("the layout does not match the shader");
    assert!(matches!(err, Error::Layout(_)), "{err}");
    assert_eq!(ctx.live_allocations(), Vec::<String>::new());
    assert_eq!(ctx.live_device_objects(), 0);
    finish(ctx);
}

#[test]
fn failed_target_drops_the_renderer_made_before_it() {
    let ctx = gpu_context(None);
    // The renderer is complete (world, passes, frames, profiler) when the
    // target's first image fails: everything must go.
    let too_large = vk::Extent2D {
        width: ctx.limits.max_image_dimension_2d + 1,
        height: 16,
    };
    let err = Renderer::new_offscreen(&ctx, &first_scene(64), too_large, Default::default())
        .err()
        .expect("the target exceeds the device's image size");
    assert!(err.to_string().contains("offscreen colour"), "{err}");
    assert_eq!(ctx.live_allocations(), Vec::<String>::new());
    assert_eq!(ctx.live_device_objects(), 0);
    finish(ctx);
}

/// The scatter shader's pipeline: set 0 of two storage buffers.
fn scatter_pipeline(ctx: &Context, name: &str) -> Pipeline {
    let compute = vk::ShaderStageFlags::COMPUTE;
    let set0 = [
        binding(0, vk::DescriptorType::STORAGE_BUFFER, compute),
        binding(1, vk::DescriptorType::STORAGE_BUFFER, compute),
    ];
    compute_pipeline(
        ctx,
        name,
        &shaders::SCATTER_COMP,
        &LayoutDesc {
            sets: &[&set0],
            push_constant_size: 16,
        },
        &[64],
    )
    .expect("pipeline")
}

#[test]
fn objects_that_outlive_the_context_are_destroyed_before_the_device() {
    let ctx = gpu_context(None);
    let validation = ctx.validation_counts();
    let buffer = Buffer::new(
        &ctx,
        "outlives the context",
        1024,
        vk::BufferUsageFlags::STORAGE_BUFFER,
        MemoryLocation::GpuOnly,
    )
    .expect("buffer");
    let pipeline = scatter_pipeline(&ctx, "outlives the context");
    // The context goes first; the device, its allocator and the instance
    // stay until the last object holding them is dropped.
    drop(ctx);
    drop(pipeline);
    drop(buffer);
    assert_eq!(
        (validation.errors(), validation.warnings()),
        (0, 0),
        "validation messages: {:#?}",
        validation.messages()
    );
}

/// A slot's descriptor cache hands back the set it made for the same
/// layout and buffers, makes another for other buffers, and empties once any
/// object was destroyed (its handle may come back for a new one).
#[test]
fn cached_descriptor_sets_are_reused_until_an_object_is_destroyed() {
    let ctx = gpu_context(None);
    let storage = |name: &str| {
        Buffer::new(
            &ctx,
            name,
            256,
            vk::BufferUsageFlags::STORAGE_BUFFER,
            MemoryLocation::GpuOnly,
        )
        .expect("buffer")
    };
    let (a, b) = (storage("a"), storage("b"));
    let pipeline = scatter_pipeline(&ctx, "cached sets");
    let layout = pipeline.set_layouts[0];
    let mut frames = Frames::new(&ctx).expect("frames");
    let cache = &mut frames.slots[0].descriptors;
    let ab = [Descriptor::Storage(a.raw), Descriptor::Storage(b.raw)];
    let ba = [Descriptor::Storage(b.raw), Descriptor::Storage(a.raw)];
    cache.begin_frame(&ctx).expect("begin");
    let first = cache.set(&ctx, layout, &ab).expect("set");
    assert_eq!(cache.set(&ctx, layout, &ab).expect("set"), first);
    assert_ne!(cache.set(&ctx, layout, &ba).expect("set"), first);
    assert_eq!(cache.len(), 2);
    cache.begin_frame(&ctx).expect("next frame");
    assert_eq!(cache.set(&ctx, layout, &ab).expect("set"), first);
    assert_eq!(cache.len(), 2, "nothing was destroyed: the sets stay");
    drop(storage("destroyed"));
    cache.begin_frame(&ctx).expect("frame after a destruction");
    assert!(cache.is_empty(), "a destroyed object empties the cache");
    cache.set(&ctx, layout, &ab).expect("set");
    assert_eq!(cache.len(), 1);
    drop(frames);
    drop(pipeline);
    drop((a, b));
    finish(ctx);
}
