//! GPU passes, one file each, in frame order.

pub mod cull;
pub mod mesh;
