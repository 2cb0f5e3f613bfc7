//! The production frame's GPU passes, one file each. The frame runs them in
//! this order (see `Renderer::record`): upload, the simulation slot (an
//! application's simulation, `simulation.rs`, or else simulate), animate,
//! cull, far field, statistics, bounds (debug), draw (with the impostors,
//! then the far field's resolve, last), and the HUD over the result when the application gives
//! one. Each pass's CPU twin is `reference/` under the same name; the
//! baselines that stand in for cull are in `baselines/`, which these passes
//! never name. The depth pyramid (`depth_pyramid`) reduces the frame's depth
//! for the cull's occlusion test.

pub mod animate;
pub mod bounds;
pub mod cull;
pub mod depth_pyramid;
pub mod draw;
pub mod far_field;
pub mod hud;
pub mod impostor;
pub mod shadow;
pub mod simulate;
pub mod sky;
pub mod statistics;
pub mod upload;
