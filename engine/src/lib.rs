//! horde: a Vulkan-native, GPU-driven crowd renderer.

pub mod asset;
pub mod config;

/// One embedded SPIR-V module, compiled from `shaders/` by `build.rs`.
#[derive(Clone, Copy, Debug)]
pub struct Spirv {
    /// Source file name, for error messages and debug names.
    pub name: &'static str,
    /// The SPIR-V words.
    pub words: &'static [u32],
}

/// Every shader of `shaders/`, one constant per stage file.
pub mod shaders {
    use super::Spirv;
    include!(concat!(env!("OUT_DIR"), "/shaders.rs"));
}
