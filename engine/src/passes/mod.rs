//! GPU passes, one file each, in frame order.

pub mod animate;
pub mod draw;
