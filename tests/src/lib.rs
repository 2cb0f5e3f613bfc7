//! Helpers shared by the integration tests in `tests/tests/`.
//!
//! - [`gpu_context`] creates a context with the validation layer and
//!   synchronization validation on, on whatever device the machine has
//!   (lavapipe in CI). No GPU test is ever skipped.
//! - [`finish`] drops the context and fails the test on any validation
//!   message, leaked allocation, or GPU object still alive.
//! - [`VirtualDisplay`] gives the window tests an X display: Xvfb, started
//!   when there is no `DISPLAY`; [`window_battle`] the validated window over
//!   a small battle they all drive.
//! - [`compare_with_reference`] checks a rendered image against a committed PNG
//!   under `tests/reference/`, writing the actual and diff images under
//!   `target/test-output/` when it fails; [`compare_with_reference_by_flip`]
//!   does so by FLIP's mean error, for renders whose edges drivers
//!   rasterize differently.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use horde::context::{Context, ContextDesc, Tier};
use horde_tools::battle::{battle_scene, BattleCamera, BattleOptions};
use horde_tools::window::{WindowOptions, WindowReport, WindowScript};

/// The repository root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Where the real third-party glTF samples live (outside the project):
/// beside the checkout, else where `HORDE_GLTF_SAMPLES` says (a git
/// worktree's sibling folder is not the main checkout's).
pub fn samples_dir() -> PathBuf {
    let beside = repo_root().join("../shared/gltf-samples");
    match std::env::var_os("HORDE_GLTF_SAMPLES") {
        Some(root) if !beside.exists() => PathBuf::from(root),
        _ => beside,
    }
}

/// Where failing tests write their images.
pub fn output_dir() -> PathBuf {
    let dir = repo_root().join("target/test-output");
    std::fs::create_dir_all(&dir).expect("create target/test-output");
    dir
}

/// The knight of `assets/` baked with the default options (LODs, bone
/// texture, impostor), as the engine loads it.
pub fn baked_knight() -> horde::asset::Asset {
    let path = repo_root().join("assets/knight.glb");
    horde_bake::bake_unit(&path, &[], &horde_bake::BakeOptions::default(), &|_| {})
        .unwrap_or_else(|err| panic!("baking {}: {err}", path.display()))
        .asset
}

/// Logs to the test's captured output; harmless when called twice.
pub fn init_logging() {
    let _ = env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .is_test(true)
        .try_init();
}

/// An X display for a window test: the one in `DISPLAY`, else an Xvfb server
/// started on a free display (and `DISPLAY` pointed at it), stopped when this
/// is dropped. A window test binary holds a single test (winit allows one
/// event loop per process), so no other thread reads the environment while
/// it is set.
pub struct VirtualDisplay {
    xvfb: Option<Child>,
}

impl VirtualDisplay {
    /// Uses `DISPLAY`, or starts Xvfb.
    pub fn ensure() -> VirtualDisplay {
        if std::env::var_os("DISPLAY").is_some() {
            return VirtualDisplay { xvfb: None };
        }
        let mut child = Command::new("Xvfb")
            .args([
                "-displayfd",
                "1",
                "-screen",
                "0",
                "1280x1024x24",
                "-nolisten",
                "tcp",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("no DISPLAY and Xvfb cannot start: apt-get install xvfb");
        let stdout = child.stdout.take().expect("Xvfb stdout");
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("Xvfb reports its display");
        std::env::set_var("DISPLAY", format!(":{}", line.trim()));
        VirtualDisplay { xvfb: Some(child) }
    }
}

impl Drop for VirtualDisplay {
    fn drop(&mut self) {
        if let Some(xvfb) = self.xvfb.as_mut() {
            let _ = xvfb.kill();
            let _ = xvfb.wait();
        }
    }
}

/// A validated context on the machine's device, optionally forced to a tier.
pub fn gpu_context(tier: Option<Tier>) -> Context {
    gpu_context_as(test_context_desc(tier))
}

/// What [`gpu_context`] creates: validation on, `tier` forced or detected;
/// a test changes a field of it for [`gpu_context_as`].
pub fn test_context_desc(tier: Option<Tier>) -> ContextDesc {
    ContextDesc {
        app_name: "horde-tests".to_owned(),
        validation: true,
        tier,
        ..ContextDesc::default()
    }
}

/// A context as `desc` says, with logging on; panics naming the error.
pub fn gpu_context_as(desc: ContextDesc) -> Context {
    init_logging();
    Context::new(&desc).unwrap_or_else(|err| panic!("creating the Vulkan context: {err}"))
}

/// Drops `ctx` and asserts no validation message, no leaked allocation and no
/// GPU object still alive (every object holds the device, so one still alive
/// here would keep the device, and the objects the validation layer reports
/// at its destruction, from being destroyed at all).
pub fn finish(ctx: Context) {
    let leaks = ctx.live_allocations();
    let live_objects = ctx.live_device_objects();
    let validation = ctx.validation_counts();
    drop(ctx);
    assert!(leaks.is_empty(), "leaked GPU allocations: {leaks:?}");
    assert_eq!(
        live_objects, 0,
        "GPU objects still alive at the end of the test"
    );
    assert_eq!(
        (validation.errors(), validation.warnings()),
        (0, 0),
        "validation messages: {:#?}",
        validation.messages()
    );
}

/// How far a render may stray from its reference.
#[derive(Clone, Copy, Debug)]
pub struct Tolerance {
    /// A pixel differs when any channel differs by more than this.
    pub channel: u8,
    /// The fraction of pixels allowed to differ.
    pub max_differing_fraction: f64,
}

impl Tolerance {
    /// Rasterizers may differ in edge coverage and rounding between drivers:
    /// allow a small channel error everywhere and a thin fringe of edge pixels.
    pub const RENDER: Tolerance = Tolerance {
        channel: 6,
        max_differing_fraction: 0.01,
    };
}

/// Compares `image` with `tests/reference/{name}.png`. A missing reference
/// fails. On failure the actual and a diff image go to `target/test-output/`.
pub fn compare_with_reference(name: &str, image: &image::RgbaImage, tolerance: Tolerance) {
    compare_with_reference_as(name, name, image, tolerance);
}

/// Like [`compare_with_reference`], for a render that must match the reference
/// of another (the mobile tier against desktop): output files are named
/// after `name`, the reference after `reference`.
pub fn compare_with_reference_as(
    reference: &str,
    name: &str,
    image: &image::RgbaImage,
    tolerance: Tolerance,
) {
    let reference_path = repo_root()
        .join("tests/reference")
        .join(format!("{reference}.png"));
    let actual_path = output_dir().join(format!("{name}.actual.png"));
    image.save(&actual_path).expect("write actual image");
    let reference = match image::open(&reference_path) {
        Ok(reference) => reference.to_rgba8(),
        Err(err) => panic!(
            "missing reference {} ({err}); the actual render is at {}; review it and copy it \
             there to accept it",
            reference_path.display(),
            actual_path.display()
        ),
    };
    assert_eq!(
        reference.dimensions(),
        image.dimensions(),
        "{name}: reference and render differ in size"
    );
    let mut diff = image::RgbaImage::new(image.width(), image.height());
    let mut differing = 0usize;
    for (x, y, actual) in image.enumerate_pixels() {
        let expected = reference.get_pixel(x, y);
        let delta = (0..4)
            .map(|c| actual[c].abs_diff(expected[c]))
            .max()
            .unwrap_or(0);
        if delta > tolerance.channel {
            differing += 1;
            diff.put_pixel(x, y, image::Rgba([255, 0, 255, 255]));
        } else {
            let gray = expected[0] / 3 + expected[1] / 3 + expected[2] / 3;
            diff.put_pixel(x, y, image::Rgba([gray, gray, gray, 255]));
        }
    }
    let fraction = differing as f64 / f64::from(image.width() * image.height());
    if fraction > tolerance.max_differing_fraction {
        let diff_path = output_dir().join(format!("{name}.diff.png"));
        diff.save(&diff_path).expect("write diff image");
        panic!(
            "{name}: {:.3}% of pixels differ by more than {} (allowed {:.3}%); actual {}, diff {}",
            fraction * 100.0,
            tolerance.channel,
            tolerance.max_differing_fraction * 100.0,
            actual_path.display(),
            diff_path.display()
        );
    }
}

/// Compares `image` with `tests/reference/{name}.png` by FLIP
/// (`horde_tools::quality::flip`): the mean per-pixel error must stay
/// within `max_flip_mean`. A missing reference fails. The actual image is
/// always written to `target/test-output/`, and FLIP's error map beside it
/// on failure.
pub fn compare_with_reference_by_flip(name: &str, image: &image::RgbaImage, max_flip_mean: f64) {
    let reference_path = repo_root()
        .join("tests/reference")
        .join(format!("{name}.png"));
    let actual_path = output_dir().join(format!("{name}.actual.png"));
    image.save(&actual_path).expect("write actual image");
    let reference = match image::open(&reference_path) {
        Ok(reference) => reference.to_rgba8(),
        Err(err) => panic!(
            "missing reference {} ({err}); the actual render is at {}; review it and copy it \
             there to accept it",
            reference_path.display(),
            actual_path.display()
        ),
    };
    let result = horde_tools::quality::flip(&reference, image)
        .unwrap_or_else(|err| panic!("{name}: {err:#}"));
    if result.mean > max_flip_mean {
        let map_path = output_dir().join(format!("{name}.flip.png"));
        result.error_map.save(&map_path).expect("write FLIP map");
        panic!(
            "{name}: FLIP mean {:.4} (p95 {:.4}) over the allowed {max_flip_mean}; actual {}, \
             error map {}",
            result.mean,
            result.p95,
            actual_path.display(),
            map_path.display()
        );
    }
}

/// The pixel a world point lands on in a `width` x `height` frame of
/// `camera`.
pub fn pixel_of(
    camera: &horde::camera::Camera,
    world: glam::Vec3,
    (width, height): (u32, u32),
) -> (u32, u32) {
    let size = glam::Vec2::new(width as f32, height as f32);
    let clip = camera.view_projection(size.x / size.y) * world.extend(1.0);
    let ndc = glam::Vec2::new(clip.x, clip.y) / clip.w;
    let pixel = (ndc * 0.5 + 0.5) * size;
    (pixel.x as u32, pixel.y as u32)
}

/// The mean green of the 3x3 pixels around `at` (within the image's
/// border): how lit the ground is there, for the shadow tests.
pub fn brightness(image: &image::RgbaImage, (x, y): (u32, u32)) -> f32 {
    let mut sum = 0.0;
    for dy in 0..3 {
        for dx in 0..3 {
            sum += f32::from(image.get_pixel(x + dx - 1, y + dy - 1)[1]);
        }
    }
    sum / 9.0
}

/// A renderer for `scene` and an offscreen target of `width` x `height`,
/// one sample per pixel (the default; MSAA's own tests ask for 4×).
pub fn offscreen_renderer(
    ctx: &mut Context,
    scene: &horde::scene::Scene,
    width: u32,
    height: u32,
) -> (horde::renderer::Renderer, horde::target::Offscreen) {
    let extent = ash::vk::Extent2D { width, height };
    horde::renderer::Renderer::new_offscreen(ctx, scene, extent, horde::target::Msaa::Off)
        .expect("create renderer and target")
}

/// Renders `frames` frames of `scene` offscreen, `dt` seconds apart, and
/// returns the last one. `setup` may change settings before the first frame.
#[allow(clippy::too_many_arguments)]
pub fn render_scene(
    ctx: &mut Context,
    scene: &horde::scene::Scene,
    camera: &horde::camera::Camera,
    setup: impl FnOnce(&mut horde::renderer::Renderer),
    width: u32,
    height: u32,
    frames: u32,
    dt: f32,
) -> image::RgbaImage {
    let (mut renderer, target) = offscreen_renderer(ctx, scene, width, height);
    setup(&mut renderer);
    for frame in 0..frames {
        renderer
            .render_offscreen(ctx, &target, camera, dt, frame + 1 == frames)
            .expect("render frame");
    }
    let image = target.read_rgba().expect("read back");
    drop((renderer, target));
    image
}

/// Frames recorded outside a renderer, for tests that drive one pass over
/// buffers of their own: frame slots, a profiler, the barrier tracker and a
/// deferred-release queue, as the renderer has them.
pub struct PassHarness {
    pub frames: horde::frames::Frames,
    pub profiler: horde::profiler::Profiler,
    pub tracker: horde::barriers::Tracker,
    pub deferred: horde::memory::DeferredRelease,
}

impl PassHarness {
    pub fn new(ctx: &Context) -> PassHarness {
        PassHarness {
            frames: horde::frames::Frames::new(ctx).expect("create frame slots"),
            profiler: horde::profiler::Profiler::new(ctx).expect("create the profiler"),
            tracker: horde::barriers::Tracker::default(),
            deferred: horde::memory::DeferredRelease::default(),
        }
    }

    /// Records one frame with `record`, then copies every buffer of
    /// `readback` into host memory (declared as uses, so the tracker orders
    /// the copies), submits, waits, and returns their bytes in order.
    pub fn run(
        &mut self,
        ctx: &mut Context,
        record: impl FnOnce(&mut horde::frame::Frame),
        readback: &[&horde::memory::Buffer],
    ) -> Vec<Vec<u8>> {
        use horde::barriers::{uses, Access};
        let start = self.frames.begin(ctx).expect("begin frame");
        if let Some(completed) = start.completed {
            self.deferred.collect(completed);
        }
        self.profiler.begin_frame(ctx, start.cmd, start.slot);
        let mut copies = Vec::new();
        for buffer in readback {
            let host = horde::memory::Buffer::new(
                ctx,
                &format!("{} readback", buffer.name),
                buffer.size,
                ash::vk::BufferUsageFlags::TRANSFER_DST,
                gpu_allocator::MemoryLocation::GpuToCpu,
            )
            .expect("create a readback buffer");
            copies.push(host);
        }
        {
            let mut frame = horde::frame::Frame::new(
                ctx,
                &start,
                &mut self.frames.slots[start.slot].descriptors,
                &mut self.profiler,
                &mut self.tracker,
                &mut self.deferred,
            )
            .expect("begin the frame's descriptors");
            record(&mut frame);
            let mut declared = Vec::new();
            for (source, host) in readback.iter().zip(&copies) {
                declared.push(uses(source.raw, Access::TransferRead));
                declared.push(uses(host.raw, Access::TransferWrite));
            }
            frame.uses(&declared);
            for (source, host) in readback.iter().zip(&copies) {
                let region = ash::vk::BufferCopy::default().size(source.size);
                // SAFETY: both buffers hold `source.size` bytes and live until
                // the frame has completed.
                unsafe {
                    frame
                        .ctx
                        .device
                        .cmd_copy_buffer(frame.cmd, source.raw, host.raw, &[region])
                };
            }
            let hosts: Vec<_> = copies
                .iter()
                .map(|host| uses(host.raw, Access::HostRead))
                .collect();
            frame.uses(&hosts);
        }
        self.frames
            .submit(ctx, &start, &[], &[])
            .expect("submit frame");
        self.frames.wait_all(ctx).expect("wait for the frame");
        copies
            .into_iter()
            .map(|host| {
                let bytes = host.mapped().expect("mapped readback").to_vec();
                self.tracker.forget(host.raw);
                bytes
            })
            .collect()
    }
}

/// Declares the uses of `buffers` and dispatches `pipeline` over
/// `invocations` threads, its set 0 the buffers in order as storage
/// buffers: a test kernel's dispatch inside [`PassHarness::run`].
pub fn dispatch_storage(
    frame: &mut horde::frame::Frame,
    pipeline: &horde::frame::ComputePipeline,
    buffers: &[(ash::vk::Buffer, horde::barriers::Access)],
    push: &[u8],
    invocations: u32,
) {
    let declared: Vec<_> = buffers
        .iter()
        .map(|&(buffer, access)| horde::barriers::uses(buffer, access))
        .collect();
    frame.uses(&declared);
    let descriptors: Vec<_> = buffers
        .iter()
        .map(|&(buffer, _)| horde::frames::Descriptor::Storage(buffer))
        .collect();
    frame
        .dispatch(pipeline, &descriptors, push, invocations)
        .unwrap_or_else(|err| panic!("dispatch {}: {err}", pipeline.pipeline.name));
}

/// Runs a test kernel whose set 0 is `inputs` (uploaded, read-only storage
/// buffers) then one output storage buffer of `output_bytes`, over
/// `invocations` threads with push constants `push`, and returns the
/// output's bytes.
pub fn run_storage_kernel(
    ctx: &mut Context,
    name: &str,
    shader: &horde::Spirv,
    inputs: &[&[u8]],
    output_bytes: u64,
    push: &[u8],
    invocations: u32,
) -> Vec<u8> {
    use ash::vk;
    use horde::barriers::Access;
    let pipeline = horde::frame::ComputePipeline::new(
        ctx,
        name,
        shader,
        &vec![vk::DescriptorType::STORAGE_BUFFER; inputs.len() + 1],
        &[],
    )
    .unwrap_or_else(|err| panic!("{name} pipeline: {err}"));
    let usage = vk::BufferUsageFlags::STORAGE_BUFFER;
    let uploaded: Vec<_> = inputs
        .iter()
        .enumerate()
        .map(|(i, bytes)| {
            horde::memory::upload_buffer(ctx, &format!("{name} input {i}"), usage, bytes)
                .unwrap_or_else(|err| panic!("{name} input {i}: {err}"))
        })
        .collect();
    let output = horde::memory::Buffer::new(
        ctx,
        &format!("{name} output"),
        output_bytes,
        usage | vk::BufferUsageFlags::TRANSFER_SRC,
        gpu_allocator::MemoryLocation::GpuOnly,
    )
    .unwrap_or_else(|err| panic!("{name} output: {err}"));
    let mut buffers: Vec<_> = uploaded
        .iter()
        .map(|buffer| (buffer.raw, Access::ComputeRead))
        .collect();
    buffers.push((output.raw, Access::ComputeWrite));
    let mut harness = PassHarness::new(ctx);
    let mut bytes = harness.run(
        ctx,
        |frame| dispatch_storage(frame, &pipeline, &buffers, push, invocations),
        &[&output],
    );
    drop((harness, output, uploaded, pipeline));
    bytes.remove(0)
}

/// Window options for a window test: a battle of `units` units (a tenth as
/// many props) from `seed`, seen from the overview camera, in a FIFO window
/// of `width` x `height` with the validation layer on, driven by `script`;
/// no frame hook and no frame budget (a test sets them where it needs them).
pub fn window_battle(
    title: &str,
    (width, height): (u32, u32),
    (units, seed): (u32, u64),
    script: WindowScript,
) -> WindowOptions {
    let battle = battle_scene(&BattleOptions {
        units,
        props: units / 10,
        seed,
        encoding: horde::asset::BoneEncoding::Mat3x4F32,
        models: Vec::new(),
        cache: horde_bake::cache::CacheOptions::default(),
        rules: horde_battle::BattleRules::default(),
        clip_map: Vec::new(),
    })
    .expect("battle scene");
    WindowOptions {
        title: title.to_owned(),
        width,
        height,
        present_mode: ash::vk::PresentModeKHR::FIFO,
        context: ContextDesc {
            validation: true,
            ..ContextDesc::default()
        },
        camera: battle.camera(BattleCamera::Overview, width, height),
        scene_bounds: battle.bounds(),
        stage: battle.stage,
        scene: battle.scene,
        script,
        on_frame: None,
        budget_ms: None,
        // The windows draw with MSAA, so its swapchain path (shared
        // multisampled images, resolve into each image, the overlay's own
        // framebuffer) goes through resizes, minimizing and surface loss.
        msaa: horde::target::Msaa::X4,
        quality_every_s: None,
    }
}

/// A window run ended cleanly: no allocation or GPU object alive at
/// shutdown, no validation message.
pub fn assert_clean_exit(report: &WindowReport) {
    assert!(
        report.leaked_allocations.is_empty(),
        "{:?}",
        report.leaked_allocations
    );
    assert_eq!(report.leaked_objects, 0, "GPU objects alive at shutdown");
    assert_eq!(
        (report.validation_errors, report.validation_warnings),
        (0, 0),
        "{:#?}",
        report.validation_messages
    );
}
