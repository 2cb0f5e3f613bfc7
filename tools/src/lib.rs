//! Application and offline library code behind horde's binaries: the window
//! and its input, the demo scenes, the bake and the content generator. The
//! binaries in `src/bin/` are thin command-line fronts over these modules, so
//! tests can drive them directly.

pub mod bake;
pub mod crowd;
pub mod first_scene;
pub mod gen;
pub mod window;
