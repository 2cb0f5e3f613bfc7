//! GPU passes, one file each. The frame runs them in this order (see
//! `Renderer::record`): upload, battle (battle demo), simulate, animate,
//! cull, far field, statistics, bounds (debug), draw (with the far field's
//! resolve last), and the HUD over the result when the application gives
//! one. The baselines (`naive`, `instanced`, `cpu_cull`) stand in for the
//! cull pass, and `naive` for the animate pass too, as
//! `RenderSettings::strategy` says.

pub mod animate;
pub mod battle;
pub mod bounds;
pub mod cpu_cull;
pub mod cull;
pub mod draw;
pub mod far_field;
pub mod hud;
pub mod instanced;
pub mod naive;
pub mod simulate;
pub mod statistics;
pub mod upload;
