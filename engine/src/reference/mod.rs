//! The CPU twins of the passes, one file each under its pass's name: every
//! GPU pass whose result the tests pin has here the same rules in plain Rust
//! over slices, in the same arithmetic order, and a test that compares the
//! GPU with it (exactly, or within a stated tolerance where Vulkan leaves
//! an operation's precision loose):
//! - [`animate`] (`passes/animate.rs`), bit for bit: `tests/tests/animate.rs`;
//! - [`cull`] (`passes/cull.rs`), exact lists and commands:
//!   `tests/tests/cull.rs`; also the `cpu-culled` baseline's culling;
//! - [`depth_pyramid`] (`passes/depth_pyramid.rs`), the pyramid bit for bit
//!   and the occlusion test's answers away from its decision boundaries:
//!   `tests/tests/depth_pyramid.rs`;
//! - [`far_field`] (`passes/far_field/mod.rs`), the rasterizer's coverage pixel
//!   for pixel: `tests/tests/far_field.rs`.
//!
//! The battle's twin lives beside its pass in the `horde-battle` crate
//! (`reference/battle.rs`), under the same rule.

pub mod animate;
pub mod cull;
pub mod depth_pyramid;
pub mod far_field;
pub mod shadow;
