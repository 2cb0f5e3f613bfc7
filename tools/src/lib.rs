//! Offline library code behind horde's binaries. The binaries in `src/bin/` are
//! thin command-line fronts over these modules, so tests can drive them directly.

pub mod bake;
pub mod crowd;
pub mod gen;
