//! A lost window surface is recreated: `VK_ERROR_SURFACE_LOST_KHR` on an
//! image acquisition (made to happen by the test-only hook
//! `Context::fail_next`, through the script's `LoseSurface`) makes the window
//! build a new surface from its handles, and a swapchain on it, and go on
//! presenting. Twice, so the second loss is recovered too; no validation
//! message, no leak.
//!
//! One test per binary: winit allows one event loop per process.

use horde_tests::{assert_clean_exit, init_logging, window_battle, VirtualDisplay};
use horde_tools::window::{run_window, WindowAction};

/// Frames at which the surface is lost.
const LOSSES: [u64; 2] = [20, 50];
/// The frame that closes the window.
const CLOSE: u64 = 90;

#[test]
fn a_lost_surface_is_recreated_and_presenting_goes_on() {
    init_logging();
    let display = VirtualDisplay::ensure();
    let mut script: Vec<_> = LOSSES
        .iter()
        .map(|&frame| (frame, WindowAction::LoseSurface))
        .collect();
    script.push((CLOSE, WindowAction::Close));
    let result = run_window(window_battle(
        "horde surface loss test",
        (320, 180),
        (100, 4),
        script,
    ));
    drop(display);
    let report = result.expect("the window run recovers and ends cleanly");
    println!(
        "presented {}, skipped {}, surfaces recreated {}, swapchains {:?}",
        report.frames_presented,
        report.frames_skipped,
        report.surfaces_recreated,
        report.swapchain_extents
    );
    assert_eq!(report.surfaces_recreated, LOSSES.len() as u32);
    // The first swapchain and one per new surface, at the window's size.
    assert_eq!(report.swapchain_extents, vec![(320, 180); 1 + LOSSES.len()]);
    // Each loss costs the frame that hit it (one more each is allowed); every
    // other frame, those after the last loss included, is presented.
    let lost = 2 * LOSSES.len() as u64;
    assert!(
        report.frames_presented + lost > CLOSE,
        "presented {} of {} frames",
        report.frames_presented,
        CLOSE + 1
    );
    assert_clean_exit(&report);
}
