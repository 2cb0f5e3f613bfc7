//! The window's lifecycle under X11 (Xvfb): 50 resizes, 1×1 and extreme
//! aspect ratios among them (the window system and the surface's limits
//! clamp what they must), minimize and restore, focus lost with a key held
//! and gained again, and a close while frames are in flight. No swapchain
//! of 0 extent is made, no validation message is reported and nothing leaks.
//!
//! One test per binary: winit allows one event loop per process.

use horde_tests::{assert_clean_exit, init_logging, window_battle, VirtualDisplay};
use horde_tools::window::{run_window, KeyCode, WindowAction, WindowScript};

/// Frames between two resizes: enough for the window system's answer to
/// arrive and a frame to be drawn at the new size.
const RESIZE_EVERY: u64 = 4;
/// Sizes requested that no ordinary window has.
const EXTREMES: [(u32, u32); 8] = [
    (1, 1),
    (4000, 8),
    (8, 2000),
    (1, 700),
    (1200, 1),
    (2, 2),
    (3000, 3),
    (5, 1000),
];
/// Resizes in the run.
const RESIZES: u64 = 50;
/// The frame W is pressed (and never released), focus lost and gained.
const FOCUS: (u64, u64, u64) = (230, 232, 236);

/// 50 sizes: the extremes interleaved with ordinary sizes.
fn sizes() -> Vec<(u32, u32)> {
    (0..RESIZES as u32)
        .map(|i| match i % 5 {
            0 if (i / 5) < EXTREMES.len() as u32 => EXTREMES[(i / 5) as usize],
            _ => (64 + (i * 137) % 1100, 48 + (i * 71) % 800),
        })
        .collect()
}

fn script() -> WindowScript {
    let mut script: WindowScript = sizes()
        .into_iter()
        .enumerate()
        .map(|(i, (w, h))| (5 + i as u64 * RESIZE_EVERY, WindowAction::Resize(w, h)))
        .collect();
    script.extend([
        (210, WindowAction::Resize(640, 360)),
        (215, WindowAction::Minimize),
        (220, WindowAction::Restore),
        (FOCUS.0, WindowAction::Press(KeyCode::KeyW)),
        (FOCUS.1, WindowAction::Focus(false)),
        (FOCUS.2, WindowAction::Focus(true)),
        (250, WindowAction::Close),
    ]);
    script
}

#[test]
fn fifty_resizes_minimize_focus_and_close_run_cleanly() {
    init_logging();
    let display = VirtualDisplay::ensure();
    let result = run_window(window_battle(
        "horde window lifecycle test",
        (320, 180),
        (100, 4),
        script(),
    ));
    drop(display);
    let report = result.expect("the window run succeeds");
    let extents = &report.swapchain_extents;
    println!(
        "presented {}, skipped {}, {} swapchains: {extents:?}",
        report.frames_presented, report.frames_skipped, report.swapchains_created
    );

    // Every resize made a swapchain, none of them empty.
    assert_eq!(extents.len(), report.swapchains_created as usize);
    assert!(
        report.swapchains_created as u64 > RESIZES,
        "{} swapchains for {RESIZES} resizes",
        report.swapchains_created
    );
    assert!(
        extents.iter().all(|&(w, h)| w > 0 && h > 0),
        "a swapchain of 0 extent: {extents:?}"
    );
    assert!(extents.contains(&(1, 1)), "no 1×1 swapchain: {extents:?}");
    let aspect = |&(w, h): &(u32, u32)| w as f32 / h as f32;
    let widest = extents.iter().map(aspect).fold(0.0, f32::max);
    let tallest = extents.iter().map(aspect).fold(f32::MAX, f32::min);
    assert!(widest >= 100.0, "widest aspect {widest}");
    assert!(tallest <= 0.01, "tallest aspect {tallest}");

    // Minimized frames were skipped; the rest were drawn.
    assert!(
        report.frames_skipped >= 1,
        "nothing skipped while minimized"
    );
    assert!(
        report.frames_presented >= 200,
        "presented {}",
        report.frames_presented
    );

    // Losing the focus released W: the camera moved only while it was held.
    // Two scripted, and those the window system sent (focus at the start).
    assert!(
        report.focus_changes >= 2,
        "{} focus changes",
        report.focus_changes
    );
    let held = FOCUS.1 - FOCUS.0;
    assert!(
        (1..=held).contains(&report.camera_changes),
        "the camera changed in {} frames; W was held for {held}",
        report.camera_changes
    );

    // The close came with frames in flight; teardown waited, leaked nothing.
    assert_clean_exit(&report);
}
