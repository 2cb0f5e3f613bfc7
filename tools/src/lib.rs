//! Application code behind horde's GPU binaries (battle, viewer,
//! contact_sheet, stress): the window and its input, its camera controls and
//! HUD, the demo scenes, their ground texture and the battle's clip map, the
//! stress test's sweep and report, the soak's memory samples and the strided
//! logs that keep long runs' reports small. The binaries in `src/bin/` are
//! thin command-line fronts over these modules, so tests can drive them
//! directly.
//! Baking and content generation live in the GPU-free `horde-bake` crate
//! (`tools/bake`).

pub mod battle;
pub mod camera_rig;
pub mod cli;
pub mod clip_map;
pub mod crowd;
pub mod first_scene;
pub mod ground_texture;
pub mod headless;
pub mod hud;
pub mod memory_samples;
pub mod presets;
pub mod quality;
pub mod stage;
pub mod stress;
pub mod strided;
pub mod window;
