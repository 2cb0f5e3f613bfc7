//! Constants the battle shares with its shaders, as `horde::config` is for
//! the core: `build.rs` includes this file and hands every entry of
//! [`SHADER_CONSTANTS`] to shaderc as a macro definition of the same name.
//! Keep it free of `use` items: it is compiled in two crates.

/// `LaneState::target` of a lane with no enemy left to fight.
pub const NO_LANE: u32 = u32::MAX;

/// Every constant above that the battle's shaders use, by its GLSL name
/// (unsigned integers).
pub const SHADER_CONSTANTS: &[(&str, u32)] = &[("NO_LANE", NO_LANE)];
