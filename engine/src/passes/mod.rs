//! GPU passes, one file each, in frame order.

pub mod animate;
pub mod cull;
pub mod draw;
pub mod upload;
