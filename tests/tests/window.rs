//! The battle demo in a real window under X11 with the HUD: open, present a
//! few hundred frames of a small battle, move the camera with held keys,
//! drags and scroll, jump through the presets, run the cinematic camera, flip the debug toggles, hide and show
//! the HUD, pause, resize twice, minimize and restore, close; zero
//! validation messages and no leaks. Scripted input goes through the same
//! handler as real events (`horde_tools::window`).
//!
//! With no `DISPLAY` the test starts its own Xvfb server, so it runs (never
//! skips) on a headless machine; `.ci/run` also wraps the suite in `xvfb-run`.

use std::sync::{Arc, Mutex};

use horde_tests::{assert_clean_exit, init_logging, window_battle, VirtualDisplay};
use horde_tools::battle::{army_names, battle_hud};
use horde_tools::window::{run_window, KeyCode, MouseButton, WindowAction, WindowScript};

/// A press on `frame` and the release on the next.
fn tap(frame: u64, key: KeyCode) -> [(u64, WindowAction); 2] {
    [
        (frame, WindowAction::Press(key)),
        (frame + 1, WindowAction::Release(key)),
    ]
}

/// Frames at which the script pauses and resumes the simulation.
const PAUSE: (u64, u64) = (230, 240);

fn script() -> WindowScript {
    let mut script = vec![
        // Fly forward, then right and fast, then up.
        (10, WindowAction::Press(KeyCode::KeyW)),
        (40, WindowAction::Release(KeyCode::KeyW)),
        (45, WindowAction::Press(KeyCode::ShiftLeft)),
        (45, WindowAction::Press(KeyCode::ArrowRight)),
        (60, WindowAction::Release(KeyCode::ArrowRight)),
        (60, WindowAction::Release(KeyCode::ShiftLeft)),
        (65, WindowAction::Press(KeyCode::KeyE)),
        (70, WindowAction::Release(KeyCode::KeyE)),
        (
            75,
            WindowAction::Drag {
                button: MouseButton::Left,
                dx: 120,
                dy: 30,
            },
        ),
        (
            80,
            WindowAction::Drag {
                button: MouseButton::Right,
                dx: -60,
                dy: 10,
            },
        ),
        (85, WindowAction::Scroll(3)),
        (110, WindowAction::Resize(400, 250)),
        (160, WindowAction::Resize(240, 160)),
        (180, WindowAction::Minimize),
        (200, WindowAction::Restore),
        (300, WindowAction::Close),
    ];
    for (frame, key) in [
        (90, KeyCode::Digit1),
        (95, KeyCode::Digit2),
        (100, KeyCode::Digit3),
        // The cinematic camera runs from here to frame 250.
        (105, KeyCode::KeyC),
        (130, KeyCode::KeyL),
        (132, KeyCode::KeyB),
        (134, KeyCode::KeyF),
        (136, KeyCode::KeyF),
        (138, KeyCode::Equal),
        (140, KeyCode::Equal),
        (142, KeyCode::Minus),
        // The HUD is hidden from 150 to 220.
        (150, KeyCode::KeyH),
        (220, KeyCode::KeyH),
        (PAUSE.0, KeyCode::KeyP),
        (PAUSE.1, KeyCode::KeyP),
        (250, KeyCode::KeyC),
    ] {
        script.extend(tap(frame, key));
    }
    script
}

#[test]
fn window_with_hud_and_camera_controls_runs_cleanly() {
    init_logging();
    let display = VirtualDisplay::ensure();
    let hud_lines = Arc::new(Mutex::new(Vec::new()));
    let last_lines = hud_lines.clone();
    let simulation_dts = Arc::new(Mutex::new(Vec::new()));
    let recorded = simulation_dts.clone();
    let mut options = window_battle("horde window test", (320, 180), (200, 3), script());
    let start_camera = options.camera;
    let armies = army_names(&["knight", "skeleton"]);
    options.on_frame = Some(Box::new(move |renderer, dt| {
        recorded.lock().expect("dt log").push(dt);
        let lines = battle_hud(renderer, dt, &armies);
        *last_lines.lock().expect("HUD lines") = lines.clone();
        lines
    }));
    options.budget_ms = Some(16.6);
    // Once, on the first frame presented: the window's BGRA image replayed
    // and measured against its reference.
    options.quality_every_s = Some(3600.0);
    let result = run_window(options);
    drop(display);
    let report = result.expect("the window run succeeds");
    println!("{report:#?}");
    let [(flip_mean, flip_p95, coverage)] = report.quality[..] else {
        panic!("one quality measurement: {:?}", report.quality);
    };
    assert!(
        flip_mean > 0.0 && flip_mean < 0.2 && flip_p95 >= flip_mean,
        "{flip_mean} {flip_p95}"
    );
    assert!(
        coverage.is_some_and(|ratio| (0.8..1.25).contains(&ratio)),
        "{coverage:?}"
    );
    assert!(
        report.frames_presented >= 250,
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

    // The camera moved: keys, drags, scroll, presets and the cinematic sweep.
    let camera = report.camera.expect("the final camera");
    assert_ne!(camera, start_camera);
    assert!(
        report.camera_changes >= 100,
        "camera changed in {} frames",
        report.camera_changes
    );
    assert!(!report.cinematic, "C stopped the cinematic camera again");

    // Toggles: L and B on, F twice (off), LOD bias × 1.25² / 1.25.
    let settings = report.settings;
    assert!(settings.color_by_lod && settings.show_bounds);
    assert!(settings.cull_camera.is_none());
    assert!(
        (settings.lod_bias - 1.25).abs() < 1e-4,
        "{}",
        settings.lod_bias
    );

    // The HUD was drawn, except while hidden or minimized.
    assert!(report.hud_visible);
    assert!(
        report.hud_frames >= 150 && report.hud_frames + 40 <= report.frames_presented,
        "HUD in {} of {} frames",
        report.hud_frames,
        report.frames_presented
    );

    // The hook got the simulation dt: 0 while paused, positive otherwise.
    assert!(!report.clock.paused);
    let dts = simulation_dts.lock().expect("dt log");
    assert!(dts.len() >= 290, "hook ran {} times", dts.len());
    let (pause, resume) = (PAUSE.0 as usize, PAUSE.1 as usize);
    assert!(dts[pause..resume].iter().all(|&dt| dt == 0.0), "paused");
    assert!(
        dts[resume..resume + 10].iter().all(|&dt| dt > 0.0),
        "resumed"
    );
    assert!(dts[1..pause].iter().all(|&dt| dt > 0.0), "running");

    // The battle ran and the HUD told its state.
    let lines = hud_lines.lock().expect("HUD lines");
    let time = lines
        .iter()
        .find(|l| l.label == "battle time")
        .expect("battle time");
    let seconds: f32 = time.value.trim_end_matches(" s").parse().expect("seconds");
    assert!(seconds > 1.0, "the battle advanced only {seconds} s");
    assert!(
        lines.iter().any(|l| l.label == "knight army alive"),
        "{lines:?}"
    );

    assert_clean_exit(&report);
}
