//! GPU passes, one file each. The frame runs them in this order (see
//! `Renderer::record`): upload, battle (battle demo), simulate, animate,
//! cull, far field, statistics, bounds (debug), draw (with the far field's
//! resolve last).

pub mod animate;
pub mod battle;
pub mod bounds;
pub mod cull;
pub mod draw;
pub mod far_field;
pub mod simulate;
pub mod statistics;
pub mod upload;
