//! Reports that never lie and fatal GPU errors that end cleanly:
//! - `Renderer::finish` after a single frame returns that frame's statistics
//!   and GPU times (they otherwise arrive frames late);
//! - an allocation failure and a lost device, made to happen by the
//!   test-only hook `Context::fail_next`, come back as errors naming the last
//!   pass recorded, and the renderer and context then tear down without a
//!   hang, a leak or a validation message.

use std::sync::mpsc;
use std::time::Duration;

use horde::asset::BoneEncoding;
use horde::context::InjectedFailure;
use horde::renderer::Renderer;
use horde::Error;
use horde_bake::cache::CacheOptions;
use horde_tests::{finish, gpu_context, offscreen_renderer, repo_root};
use horde_tools::crowd::{crowd_camera, crowd_scene, CameraPreset, CrowdOptions};

const UNITS: u32 = 40;

/// A small crowd of the generated units and props, baked through a cache in
/// `target/`.
fn small_crowd() -> horde::scene::Scene {
    crowd_scene(&CrowdOptions {
        units: UNITS,
        encoding: BoneEncoding::Mat3x4F32,
        lod_error: None,
        samples: false,
        seed: 1,
        cache: CacheOptions {
            enabled: true,
            dir: Some(repo_root().join("target/horde-cache")),
        },
    })
    .expect("crowd scene")
}

/// Runs `test` on its own thread and fails if it does not return in time: a
/// fatal error must end the run, not hang it.
fn without_hanging(test: impl FnOnce() + Send + 'static) {
    let (done, finished) = mpsc::channel();
    let worker = std::thread::spawn(move || {
        test();
        let _ = done.send(());
    });
    match finished.recv_timeout(Duration::from_secs(300)) {
        Ok(()) => worker.join().expect("test thread"),
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            if let Err(panic) = worker.join() {
                std::panic::resume_unwind(panic);
            }
        }
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("the run hung after a fatal error"),
    }
}

#[test]
fn finish_reports_a_single_frame() {
    let mut ctx = gpu_context(None);
    let scene = small_crowd();
    let camera = crowd_camera(CameraPreset::Overview, UNITS);
    let (mut renderer, target) = offscreen_renderer(&mut ctx, &scene, 320, 180);
    renderer
        .render_offscreen(&ctx, &target, &camera, 1.0 / 30.0, true)
        .expect("frame");
    assert_eq!(renderer.stats.units_visible(), 0, "statistics came early");
    let stats = renderer.finish(&ctx).expect("finish");
    assert_eq!(stats.frame, 0);
    assert!(
        stats.units_per_lod.iter().sum::<u32>() > 0,
        "no visible units reported: {stats:?}"
    );
    assert!(stats.props_visible() > 0, "no visible props: {stats:?}");
    if renderer.profiler.available() {
        let names: Vec<&str> = renderer.profiler.last_frame().iter().map(|s| s.0).collect();
        for pass in ["frame", "cull", "draw"] {
            assert!(names.contains(&pass), "no GPU time of {pass}: {names:?}");
        }
        assert!(renderer.profiler.stats().iter().all(|s| s.samples == 1));
    }
    drop((renderer, target));
    finish(ctx);
}

/// Renders one frame with `failure` injected; returns the error and the
/// renderer's crash marker, after tearing everything down.
fn render_failing(failure: InjectedFailure) -> (Error, Option<&'static str>) {
    let mut ctx = gpu_context(None);
    let scene = small_crowd();
    let camera = crowd_camera(CameraPreset::Overview, UNITS);
    let (mut renderer, target): (Renderer, _) = offscreen_renderer(&mut ctx, &scene, 320, 180);
    ctx.fail_next(failure);
    let error = renderer
        .render_offscreen(&ctx, &target, &camera, 1.0 / 30.0, false)
        .expect_err("the injected failure");
    let marker = renderer.profiler.last_opened();
    drop((renderer, target));
    finish(ctx);
    (error, marker)
}

#[test]
fn an_allocation_failure_names_the_pass_and_ends_cleanly() {
    without_hanging(|| {
        let (error, marker) = render_failing(InjectedFailure::Allocation);
        let message = error.to_string();
        assert!(
            matches!(&error, Error::InFrame { source, pass: "upload", frame: 0 }
                if matches!(**source, Error::OutOfMemory(_))),
            "{message}"
        );
        assert_eq!(marker, Some("upload"));
        assert!(message.contains("out of GPU memory"), "{message}");
        assert!(message.contains("last pass recorded: upload"), "{message}");
    });
}

#[test]
fn a_lost_device_names_the_pass_and_ends_cleanly() {
    without_hanging(|| {
        let (error, marker) = render_failing(InjectedFailure::Submit);
        let message = error.to_string();
        let pass = marker.expect("a pass was recorded");
        assert!(
            matches!(&error, Error::InFrame { source, frame: 0, .. }
                if matches!(**source, Error::DeviceLost)),
            "{message}"
        );
        assert!(message.contains("the GPU device was lost"), "{message}");
        assert!(
            message.contains(&format!("last pass recorded: {pass}")),
            "{message}"
        );
    });
}
