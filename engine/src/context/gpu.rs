//! The shared device: the instance, the logical device and the memory
//! allocator in one [`Gpu`], held through an `Arc` by the context and by every
//! GPU object. The last holder to drop destroys them in order: the allocator,
//! the device, then the instance (see the `context` module doc, "Lifetime").

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::{Mutex, PoisonError};

use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, Allocator};
use gpu_allocator::AllocationError;

use super::instance::Instance;

/// The Vulkan instance, logical device and memory allocator, shared through an
/// `Arc` by the [`Context`](super::Context) and every object made from the device. Dropping
/// the last `Arc` destroys the allocator, then the device, then the instance.
pub struct Gpu {
    pub device: ash::Device,
    pub(super) debug_utils: Option<ash::ext::debug_utils::Device>,
    /// Present when the instance has the window system's extensions.
    pub surface_loader: Option<ash::khr::surface::Instance>,
    /// Present when the device has `VK_KHR_swapchain` enabled.
    pub swapchain_loader: Option<ash::khr::swapchain::Device>,
    /// `None` only while [`Context::new`](super::Context::new) builds the `Gpu`, and in `drop`.
    pub(super) allocator: Mutex<Option<Allocator>>,
    /// Dropped after `Gpu::drop` has destroyed the device.
    pub(super) instance: Instance,
    /// The failure a test asked for ([`InjectedFailure`] as a number, 0 for
    /// none); see [`Context::fail_next`](super::Context::fail_next).
    pub(super) injected_failure: AtomicU8,
    /// Objects destroyed so far: a cache of descriptor sets is stale once
    /// this moves (a new object may reuse a destroyed one's handle).
    pub(super) destroyed: AtomicU64,
    /// Debug names of the buffers, by raw handle, for the frame graph (a
    /// handle reused by a later buffer takes that buffer's name).
    pub(super) buffer_names: Mutex<std::collections::HashMap<u64, String>>,
}

/// A failure [`Context::fail_next`](super::Context::fail_next) makes happen:
/// a test-only hook for the error paths no real device can be made to take
/// on demand.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum InjectedFailure {
    /// The next memory allocation fails as out of device memory.
    Allocation = 1,
    /// The next frame submission fails as `VK_ERROR_DEVICE_LOST`, and
    /// nothing is submitted.
    Submit = 2,
    /// The next swapchain image acquisition fails as
    /// `VK_ERROR_SURFACE_LOST_KHR`, and nothing is acquired.
    AcquireSurfaceLost = 3,
}

impl Gpu {
    /// Counts one destroyed object (see [`Gpu::destroyed`]).
    pub(crate) fn note_destroyed(&self) {
        self.destroyed.fetch_add(1, Ordering::Relaxed);
    }

    /// How many objects (buffers, images, views, samplers, pipelines and
    /// their layouts, ...) have been destroyed so far.
    pub(crate) fn destroyed(&self) -> u64 {
        self.destroyed.load(Ordering::Relaxed)
    }

    /// Whether `failure` was injected, clearing it if so.
    pub(crate) fn take_injected(&self, failure: InjectedFailure) -> bool {
        self.injected_failure
            .compare_exchange(failure as u8, 0, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }

    /// Allocates memory.
    pub fn allocate(&self, desc: &AllocationCreateDesc) -> Result<Allocation, AllocationError> {
        if self.take_injected(InjectedFailure::Allocation) {
            return Err(AllocationError::OutOfMemory);
        }
        let mut allocator = self
            .allocator
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        allocator
            .as_mut()
            .ok_or_else(|| AllocationError::Internal("the allocator is gone".to_owned()))?
            .allocate(desc)
    }

    /// Returns memory to the allocator; a null allocation is ignored.
    pub fn free(&self, allocation: Allocation) {
        let mut allocator = self
            .allocator
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(allocator) = allocator.as_mut() {
            if let Err(err) = allocator.free(allocation) {
                log::error!("freeing GPU memory: {err}");
            }
        }
    }
}

impl Drop for Gpu {
    fn drop(&mut self) {
        let allocator = self
            .allocator
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        // SAFETY: this is the last holder of the device, so every object made
        // from it has been dropped; waiting for idle covers work still queued.
        unsafe {
            if let Err(err) = self.device.device_wait_idle() {
                log::error!("waiting for the device before destroying it: {err}");
            }
            if let Some(allocator) = allocator {
                allocator.report_memory_leaks(log::Level::Error);
                // Frees the memory blocks, which needs the device.
                drop(allocator);
            }
            self.device.destroy_device(None);
        }
        // `self.instance` drops next, destroying the messenger and instance.
    }
}
