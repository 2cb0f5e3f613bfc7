//! Constants shared by Rust and GLSL: the one source of truth.
//!
//! `build.rs` includes this file and passes every constant to shaderc as a macro
//! definition of the same name, so shaders never hard-code these numbers. Keep it
//! free of `use` items and dependencies: it is compiled in two crates.

/// Threads per workgroup of the per-unit compute passes on the desktop tier.
pub const CULL_WORKGROUP_SIZE: u32 = 256;
/// Workgroup size that fits the mobile tier's 128-invocation limit.
pub const CULL_WORKGROUP_SIZE_MOBILE: u32 = 64;
/// Levels of detail per type: the full mesh and three simplifications. The
/// instance-list entry and the LOD state keep it in 2 bits.
pub const LOD_COUNT: u32 = 4;
/// Frames the CPU may record ahead of the GPU.
pub const FRAMES_IN_FLIGHT: u32 = 2;
/// Timestamp scopes per frame the profiler can hold.
pub const MAX_PROFILER_SCOPES: u32 = 32;
