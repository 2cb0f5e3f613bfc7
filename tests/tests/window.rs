//! A real window under X11: open, present 120+ frames, resize twice, minimize
//! and restore, close; zero validation messages and no leaks.
//!
//! With no `DISPLAY` the test starts its own Xvfb server, so it runs (never
//! skips) on a headless machine; `.ci/run` also wraps the suite in `xvfb-run`.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use ash::vk;
use horde::context::ContextDesc;
use horde_tests::init_logging;
use horde_tools::first_scene::{first_scene, first_scene_camera};
use horde_tools::window::{run_window, WindowAction, WindowOptions};

/// Starts Xvfb on a free display and points `DISPLAY` at it.
fn start_xvfb() -> Child {
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
    let display = format!(":{}", line.trim());
    // SAFETY of intent: this test binary holds a single test, so no other
    // thread reads the environment concurrently.
    std::env::set_var("DISPLAY", &display);
    child
}

#[test]
fn window_presents_resizes_minimizes_and_closes_cleanly() {
    init_logging();
    let mut xvfb = std::env::var_os("DISPLAY").is_none().then(start_xvfb);
    let units = 256;
    let result = run_window(WindowOptions {
        title: "horde window test".to_owned(),
        width: 640,
        height: 360,
        present_mode: vk::PresentModeKHR::FIFO,
        context: ContextDesc {
            validation: true,
            ..ContextDesc::default()
        },
        scene: first_scene(units),
        camera: first_scene_camera(units),
        script: vec![
            (30, WindowAction::Resize(800, 500)),
            (60, WindowAction::Resize(480, 320)),
            (90, WindowAction::Minimize),
            (110, WindowAction::Restore),
            (170, WindowAction::Close),
        ],
        on_frame: None,
    });
    if let Some(xvfb) = xvfb.as_mut() {
        let _ = xvfb.kill();
        let _ = xvfb.wait();
    }
    let report = result.expect("the window run succeeds");
    println!("{report:#?}");
    assert!(
        report.frames_presented >= 120,
        "presented {}",
        report.frames_presented
    );
    assert!(
        report.frames_skipped >= 1,
        "frames while minimized must be skipped"
    );
    // The first swapchain, two resizes and the restore.
    assert!(
        report.swapchains_created >= 4,
        "created {}",
        report.swapchains_created
    );
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
