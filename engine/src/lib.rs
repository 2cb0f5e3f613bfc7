//! horde: a Vulkan-native, GPU-driven crowd renderer.
//!
//! Module map, from the bottom up:
//! - [`context`]: loader, instance and validation messenger, device selection
//!   and tiers, and the [`Gpu`](context::Gpu) every object shares.
//! - [`memory`] and [`owned`]: buffers, images, staging uploads and deferred
//!   release; every other Vulkan handle, destroyed when dropped.
//! - [`reflect`] and [`pipeline`]: SPIR-V reflection and checked pipelines;
//!   [`sampler`]: the passes' samplers.
//! - [`config`] and [`gpu_types`]: the constants and structs Rust and GLSL
//!   share.
//! - [`frames`] and [`profiler`]: frames in flight and GPU timestamps.
//! - [`target`] and [`swapchain`]: offscreen and window render targets. The
//!   engine presents to any window through its raw handles; the window, its
//!   event loop and input are application code (`horde_tools::window`).
//! - [`frame`] and [`barriers`]: the frame context passes record through, the
//!   checked dispatch, and the barriers derived from declared buffer uses.
//! - [`camera`], [`mesh`] and [`atlas`]: the camera, procedural meshes and
//!   vertex quantization, the texture atlas.
//! - [`anim`]: animation controllers and clip roles.
//! - [`scene`] and [`world`]: what a renderer starts with, and the types,
//!   units, props and GPU buffers made from it.
//! - [`passes`]: one file per GPU pass of the production frame;
//!   [`reference`](mod@reference): the CPU twin of each, under the same file name
//!   (`passes/cull.rs` and `reference/cull.rs`), which the tests compare
//!   with the GPU.
//! - [`simulation`]: the frame's simulation slot, where an application's
//!   GPU simulation (the battle demo's, in the `horde-battle` crate) runs.
//! - [`baselines`]: the strategies users would otherwise pick, drawn
//!   through the production draw pass, which never names them.
//! - [`renderer`]: records one frame for either target;
//!   [`frame_graph`]: that frame drawn as a graph of passes and resources.
//! - [`asset`]: the baked `.horde` asset format.

pub mod anim;
pub mod atlas;
pub mod barriers;
pub mod baselines;
pub mod camera;
pub mod config;
pub mod context;
pub mod far_field_budget;
pub mod frame;
pub mod frame_graph;
pub mod frames;
pub mod gpu_types;
pub mod memory;
pub mod mesh;
pub mod owned;
pub mod passes;
pub mod pipeline;
pub mod profiler;
pub mod reference;
pub mod reflect;
pub mod renderer;
pub mod sampler;
pub mod scene;
pub mod shadow;
pub mod simulation;
pub mod srgb;
pub mod swapchain;
pub mod target;
pub mod world;

/// The baked `.horde` asset format, from the GPU-free `horde-asset` crate.
pub use horde_asset as asset;

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
    #[allow(unused_imports)]
    use super::Spirv;
    include!(concat!(env!("OUT_DIR"), "/shaders.rs"));
}

/// Everything that can go wrong in the engine.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A Vulkan call failed.
    #[error("Vulkan error: {0}")]
    Vulkan(ash::vk::Result),
    /// No usable device, or the loader is missing.
    #[error("no usable Vulkan device: {0}")]
    NoDevice(String),
    /// A setting or request the engine cannot honour.
    #[error("{0}")]
    Config(String),
    /// A shader and its pipeline layout disagree.
    #[error("pipeline layout mismatch: {0}")]
    Layout(String),
    /// An allocation failed.
    #[error("out of GPU memory: {0}")]
    OutOfMemory(String),
    /// The memory allocator failed otherwise.
    #[error("allocator: {0}")]
    Allocator(#[from] gpu_allocator::AllocationError),
    /// A file could not be read or written.
    #[error("{0}")]
    Io(String),
    /// The device was lost (driver crash, reset, or removal).
    #[error("the GPU device was lost; restart the program")]
    DeviceLost,
    /// The window's surface is gone (`VK_ERROR_SURFACE_LOST_KHR`): the window
    /// may recreate it from the window's handles.
    #[error("the window's Vulkan surface was lost")]
    SurfaceLost,
    /// The window system failed.
    #[error("window: {0}")]
    Window(String),
    /// A fatal GPU error (device lost, out of memory) while rendering a frame,
    /// with the crash marker: the last pass recorded before it.
    #[error("{source} (frame {frame}, last pass recorded: {pass})")]
    InFrame {
        /// The error itself.
        source: Box<Error>,
        /// The frame being recorded or submitted.
        frame: u64,
        /// The crash marker (see `profiler.rs`).
        pass: &'static str,
    },
}

impl Error {
    /// True for the errors a frame cannot recover from: the device was lost,
    /// or device or host memory ran out.
    pub fn is_fatal_gpu(&self) -> bool {
        match self {
            Error::DeviceLost | Error::OutOfMemory(_) | Error::InFrame { .. } => true,
            Error::Vulkan(result) => matches!(
                *result,
                ash::vk::Result::ERROR_OUT_OF_DEVICE_MEMORY
                    | ash::vk::Result::ERROR_OUT_OF_HOST_MEMORY
            ),
            _ => false,
        }
    }
}

impl From<ash::vk::Result> for Error {
    fn from(result: ash::vk::Result) -> Error {
        match result {
            ash::vk::Result::ERROR_DEVICE_LOST => Error::DeviceLost,
            ash::vk::Result::ERROR_SURFACE_LOST_KHR => Error::SurfaceLost,
            _ => Error::Vulkan(result),
        }
    }
}
