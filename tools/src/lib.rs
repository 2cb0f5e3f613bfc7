//! Library code behind horde's GPU binaries (viewer, contact_sheet). The
//! binaries in `src/bin/` are thin command-line fronts over these modules, so
//! tests can drive them directly. Baking and content generation live in the
//! GPU-free `horde-bake` crate (`tools/bake`).

pub mod crowd;
