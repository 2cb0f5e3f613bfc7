//! The soak's short version for CI: a small headless battle rendered every
//! step for a few hundred frames on lavapipe, validation (synchronization
//! included) on, memory sampled every few frames as `tools/soak.sh` samples
//! it on a GPU for 20,000 frames.
//!
//! Asserted: no validation message; the sampling worked (strided samples up
//! to the last frame, a real RSS); the GPU allocations (gpu-allocator's
//! allocated and reserved bytes) identical in every sample from warm-up to
//! the end: a frame allocates nothing that outlives it.
//!
//! The process's RSS is bounded, not held flat: on lavapipe (Mesa 22.3.6) it
//! grows about 0.75 MB per frame whatever horde does, with validation off and
//! with `LP_NUM_THREADS=0` too; heaptrack puts the growth in lavapipe's
//! rasterizer and LLVM JIT, and it is freed when the device is destroyed.
//! The bound, [`RSS_BYTES_PER_FRAME_BOUND`], catches a leak of our own on top
//! of that (one of the battle's readbacks, a frame's worth of buffers); the
//! test prints the growth it measured. On a GPU driver the soak's RSS is flat
//! (`benches/results/soak/`).

use horde::asset::BoneEncoding;
use horde::gpu_types::BattleRules;
use horde::renderer::Strategy;
use horde_bake::cache::CacheOptions;
use horde_tests::{finish, gpu_context};
use horde_tools::battle::{battle_scene, BattleCamera, BattleOptions};
use horde_tools::headless::{run_headless, HeadlessOptions};
use horde_tools::memory_samples::memory_trend;

/// Frames rendered, one per battle step.
const FRAMES: u32 = 300;
/// Frames between memory samples.
const SAMPLE_EVERY: u32 = 10;
/// Lavapipe's own growth per frame (see the module doc) with a margin.
const RSS_BYTES_PER_FRAME_BOUND: f64 = 2.0 * 1024.0 * 1024.0;

#[test]
fn a_validated_soak_keeps_gpu_memory_flat() {
    horde_tests::init_logging();
    let battle = battle_scene(&BattleOptions {
        units: 200,
        props: 12,
        seed: 5,
        encoding: BoneEncoding::Mat3x4F32,
        models: Vec::new(),
        cache: CacheOptions::default(),
        rules: BattleRules::default(),
        clip_map: Vec::new(),
    })
    .expect("battle scene");
    let ctx = gpu_context(None);
    let options = HeadlessOptions {
        steps: FRAMES,
        render_every: 1,
        width: 160,
        height: 90,
        camera: BattleCamera::Front,
        color_by_lod: false,
        lod_bias: 1.0,
        far_field: true,
        far_field_px: None,
        budget_ms: None,
        strategy: Strategy::GpuDriven,
        progress: false,
        memory_every: Some(SAMPLE_EVERY),
    };
    let result = run_headless(&ctx, &battle, &options);
    finish(ctx);
    let (report, _) = result.expect("the soak runs");
    let samples = &report.memory_samples;

    assert_eq!(report.frames_rendered, FRAMES);
    assert_eq!(
        samples.len(),
        (FRAMES / SAMPLE_EVERY) as usize,
        "{samples:?}"
    );
    assert_eq!(samples.last().map(|s| s.frame), Some(FRAMES));
    assert!(
        samples.iter().all(|s| s.rss_bytes > 1 << 20),
        "RSS not read: {samples:?}"
    );

    let trend = memory_trend(samples).expect("a trend over the run");
    println!(
        "soak: {FRAMES} frames; from frame {} to {}: RSS {} -> {} bytes ({:.0} bytes/frame), \
         GPU allocated {} -> {} bytes, reserved {} -> {} bytes",
        trend.start.frame,
        trend.end.frame,
        trend.start.rss_bytes,
        trend.end.rss_bytes,
        trend.rss_bytes_per_frame,
        trend.start.gpu_allocated_bytes,
        trend.end.gpu_allocated_bytes,
        trend.start.gpu_reserved_bytes,
        trend.end.gpu_reserved_bytes
    );
    let after_warm_up = samples.iter().filter(|s| s.frame >= trend.start.frame);
    for sample in after_warm_up {
        assert_eq!(
            (sample.gpu_allocated_bytes, sample.gpu_reserved_bytes),
            (
                trend.start.gpu_allocated_bytes,
                trend.start.gpu_reserved_bytes
            ),
            "GPU memory changed by frame {}",
            sample.frame
        );
    }
    assert!(trend.start.gpu_allocated_bytes > 0);
    assert!(
        trend.rss_bytes_per_frame < RSS_BYTES_PER_FRAME_BOUND,
        "RSS grew {:.0} bytes per frame",
        trend.rss_bytes_per_frame
    );
}
