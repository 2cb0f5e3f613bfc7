//! A surface that cannot be made again ends the window run with a clear
//! error, not a panic or a hang: the surface is lost (the test-only hook
//! `Context::fail_next`, through the script's `LoseSurface`), recreated,
//! and lost again before a frame is presented on the new one, which is what
//! a window the window system no longer presents to looks like.
//!
//! One test per binary: winit allows one event loop per process.

use ash::vk;
use horde::context::ContextDesc;
use horde::gpu_types::BattleRules;
use horde::Error;
use horde_bake::cache::CacheOptions;
use horde_tests::{init_logging, VirtualDisplay};
use horde_tools::battle::{battle_scene, BattleCamera, BattleOptions};
use horde_tools::window::{run_window, WindowAction, WindowOptions};

#[test]
fn a_surface_lost_again_at_once_ends_the_run_with_a_clear_error() {
    init_logging();
    let display = VirtualDisplay::ensure();
    let battle = battle_scene(&BattleOptions {
        units: 100,
        props: 10,
        seed: 4,
        encoding: horde::asset::BoneEncoding::Mat3x4F32,
        models: Vec::new(),
        cache: CacheOptions::default(),
        rules: BattleRules::default(),
        clip_map: Vec::new(),
    })
    .expect("battle scene");
    let result = run_window(WindowOptions {
        title: "horde unrecoverable surface test".to_owned(),
        width: 320,
        height: 180,
        present_mode: vk::PresentModeKHR::FIFO,
        context: ContextDesc {
            validation: true,
            ..ContextDesc::default()
        },
        camera: battle.camera(BattleCamera::Overview),
        scene_bounds: battle.bounds(),
        scene: battle.scene,
        // Lost on frame 10, recreated on 11 and lost again there; the close
        // on 60 is never reached.
        script: vec![
            (10, WindowAction::LoseSurface),
            (11, WindowAction::LoseSurface),
            (60, WindowAction::Close),
        ],
        on_frame: None,
        budget_ms: None,
    });
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
