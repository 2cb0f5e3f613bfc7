//! Owned Vulkan handles: one generic wrapper that destroys its handle when
//! dropped.
//!
//! [`Owned<T>`] holds a raw handle and an `Arc` of the [`Gpu`] that made it
//! (see the lifetime section of [`crate::context`]); [`DeviceObject`] says
//! which `vkDestroy*` call each handle type needs. A constructor wraps each
//! handle the moment it is created, so a later `?` drops what was already
//! made. `*owned` is the raw handle, for recording commands and filling
//! create infos.
//!
//! Destroying a null handle is a no-op in Vulkan, so a struct may start with
//! null handles and fill them in; a failure halfway drops what is there.

use std::ops::Deref;
use std::sync::Arc;

use ash::vk;

use crate::context::{Context, Gpu};

/// A Vulkan handle that a [`Gpu`] can destroy.
pub trait DeviceObject: vk::Handle + Copy {
    /// Whether [`Owned::new`] gives the object a debug name.
    const NAMED: bool = true;

    /// Destroys `self`.
    ///
    /// # Safety
    /// `self` was made from `gpu` (or is null) and the GPU no longer uses it.
    unsafe fn destroy(self, gpu: &Gpu);
}

/// Implements [`DeviceObject`] for handles destroyed by an `ash::Device` call.
macro_rules! device_objects {
    ($($handle:ty => $destroy:ident,)*) => {$(
        impl DeviceObject for $handle {
            unsafe fn destroy(self, gpu: &Gpu) {
                // SAFETY: guaranteed by the caller.
                unsafe { gpu.device.$destroy(self, None) }
            }
        }
    )*};
}

device_objects! {
    vk::Sampler => destroy_sampler,
    vk::RenderPass => destroy_render_pass,
    vk::Framebuffer => destroy_framebuffer,
    vk::ImageView => destroy_image_view,
    vk::ShaderModule => destroy_shader_module,
    vk::Semaphore => destroy_semaphore,
    vk::Fence => destroy_fence,
    vk::CommandPool => destroy_command_pool,
    vk::DescriptorPool => destroy_descriptor_pool,
    vk::QueryPool => destroy_query_pool,
    vk::DescriptorSetLayout => destroy_descriptor_set_layout,
    vk::PipelineLayout => destroy_pipeline_layout,
    vk::Pipeline => destroy_pipeline,
}

impl DeviceObject for vk::SwapchainKHR {
    unsafe fn destroy(self, gpu: &Gpu) {
        // A swapchain exists only where the loader was created with the device.
        if let Some(loader) = &gpu.swapchain_loader {
            // SAFETY: guaranteed by the caller.
            unsafe { loader.destroy_swapchain(self, None) };
        }
    }
}

impl DeviceObject for vk::SurfaceKHR {
    /// A surface is an instance-level object: lavapipe (Mesa 22.3) crashes
    /// when one is named through the device.
    const NAMED: bool = false;

    unsafe fn destroy(self, gpu: &Gpu) {
        // A surface exists only where the instance has the surface extensions.
        if let Some(loader) = &gpu.surface_loader {
            // SAFETY: guaranteed by the caller.
            unsafe { loader.destroy_surface(self, None) };
        }
    }
}

/// A handle destroyed when dropped. The GPU must be done with it by then:
/// owners drop their objects only after waiting for the frames that use them.
pub struct Owned<T: DeviceObject> {
    raw: T,
    gpu: Arc<Gpu>,
}

impl<T: DeviceObject> Owned<T> {
    /// Takes ownership of `raw`, just made from `ctx`'s device or instance,
    /// and gives it a debug name where its type allows.
    pub fn new(ctx: &Context, raw: T, name: &str) -> Owned<T> {
        if T::NAMED {
            ctx.set_name(raw, name);
        }
        Owned {
            raw,
            gpu: ctx.gpu.clone(),
        }
    }
}

impl<T: DeviceObject> Deref for Owned<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.raw
    }
}

impl<T: DeviceObject> Drop for Owned<T> {
    fn drop(&mut self) {
        // SAFETY: `raw` was made from this `gpu`, and the owner's drop order
        // makes sure the GPU is done with it (see the type's doc).
        unsafe { self.raw.destroy(&self.gpu) };
        self.gpu.note_destroyed();
    }
}

pub type Sampler = Owned<vk::Sampler>;
pub type RenderPass = Owned<vk::RenderPass>;
pub type Framebuffer = Owned<vk::Framebuffer>;
pub type ImageView = Owned<vk::ImageView>;
pub type ShaderModule = Owned<vk::ShaderModule>;
pub type Semaphore = Owned<vk::Semaphore>;
pub type Fence = Owned<vk::Fence>;
pub type CommandPool = Owned<vk::CommandPool>;
pub type DescriptorPool = Owned<vk::DescriptorPool>;
pub type QueryPool = Owned<vk::QueryPool>;
pub type SwapchainKhr = Owned<vk::SwapchainKHR>;
pub type Surface = Owned<vk::SurfaceKHR>;
