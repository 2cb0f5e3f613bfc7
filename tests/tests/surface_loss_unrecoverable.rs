//! A surface that cannot be made again ends the window run with a clear
//! error, not a panic or a hang: the surface is lost (the test-only hook
//! `Context::fail_next`, through the script's `LoseSurface`), recreated,
//! and lost again before a frame is presented on the new one, which is what
//! a window the window system no longer presents to looks like.
//!
//! One test per binary: winit allows one event loop per process.

use horde::Error;
use horde_tests::{init_logging, window_battle, VirtualDisplay};
use horde_tools::window::{run_window, WindowAction};

#[test]
fn a_surface_lost_again_at_once_ends_the_run_with_a_clear_error() {
    init_logging();
    let display = VirtualDisplay::ensure();
    // Lost on frame 10, recreated on 11 and lost again there; the close on
    // 60 is never reached.
    let script = vec![
        (10, WindowAction::LoseSurface),
        (11, WindowAction::LoseSurface),
        (60, WindowAction::Close),
    ];
    let result = run_window(window_battle(
        "horde unrecoverable surface test",
        (320, 180),
        (100, 4),
        script,
    ));
    drop(display);
    let error = result.expect_err("the run must fail");
    let message = error.to_string();
    println!("{message}");
    assert!(matches!(error, Error::Window(_)), "{error:?}");
    assert!(
        message.contains("surface was lost again") && message.contains("no longer presents"),
        "{message}"
    );
}
