//! The Vulkan context: loader, instance, validation, physical device, feature
//! tier, logical device, queue and memory allocator.
//!
//! - The loader (`libvulkan.so.1`) is opened at run time by `ash::Entry::load`, so
//!   a binary starts on machines without the Vulkan SDK.
//! - Validation (`HORDE_VALIDATION=1`, or `ContextDesc::validation`) enables the
//!   Khronos layer with synchronization validation. A debug-utils messenger routes
//!   every message to `log` and counts errors and warnings in
//!   [`ValidationCounts`], so tests can assert zero.
//! - The physical device is the first discrete GPU, then integrated, virtual and
//!   CPU devices. `HORDE_DEVICE` or `ContextDesc::device` picks one by index or
//!   by a case-insensitive name substring.
//! - The [`Tier`] is detected from the device's features and limits, or forced
//!   with `HORDE_TIER=mobile` / `ContextDesc::tier`. Only the features the tier
//!   uses are enabled, and [`Limits`] holds the tier's clamped limits, which the
//!   engine checks itself. Forcing `mobile` on a desktop GPU leaves
//!   multiDrawIndirect and drawIndirectFirstInstance disabled, so the validation
//!   layer reports any use of them.
//! - One queue family does graphics, compute and transfer; every GPU this engine
//!   targets has one.
//!
//! ## Lifetime: `Drop` over a shared device
//! The instance, the device and the allocator live in one [`Gpu`], shared
//! through an `Arc` by the context and by every GPU object: [`Buffer`] and
//! [`Image`], [`Pipeline`], and the [`Owned`] handles (samplers, semaphores,
//! pools, ...). Each object destroys itself when dropped; the last `Arc` to go
//! destroys the allocator, then the device, then the debug messenger and the
//! instance. We chose `Drop` over guard objects because a constructor is then
//! a straight chain of `?`: whatever it made before a failure is dropped, in
//! reverse creation order, with no unwinding code. A struct that owns several
//! objects orders its fields so that declaration order (Rust's drop order) is
//! the reverse of creation order. Holding the instance in the same `Arc` keeps
//! the order right even when an object outlives the [`Context`].
//!
//! Leaks are still found: [`Context::live_allocations`] names the allocations
//! still alive and [`Context::live_device_objects`] counts the objects still
//! holding the device; the tests' `finish` asserts both are zero before the
//! context goes, and the validation layer reports any Vulkan object still alive
//! when the device is destroyed.
//!
//! ## Files
//! - `instance.rs`: the instance, the validation layer and the debug messenger
//!   that counts its messages ([`ValidationCounts`]).
//! - `device.rs`: device selection, the [`Tier`] and its clamped [`Limits`].
//! - `gpu.rs`: the shared device ([`Gpu`]) and its teardown order.
//! - this file: [`ContextDesc`] and [`Context`], which ties them together.
//!
//! [`Buffer`]: crate::memory::Buffer
//! [`Image`]: crate::memory::Image
//! [`Pipeline`]: crate::pipeline::Pipeline
//! [`Owned`]: crate::owned::Owned

mod device;
mod gpu;
mod instance;

use std::ffi::{CStr, CString};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use ash::vk;
use gpu_allocator::vulkan::{Allocator, AllocatorCreateDesc};

use crate::Error;
use device::{candidates, choose_tier, desktop_shortfall, pick_device, Candidate};
pub use device::{Limits, Tier};
pub use gpu::Gpu;
#[doc(hidden)]
pub use gpu::InjectedFailure;
use instance::Instance;
pub use instance::ValidationCounts;

/// How to create a [`Context`]. `Default` reads the `HORDE_*` environment.
#[derive(Clone, Debug)]
pub struct ContextDesc {
    pub app_name: String,
    /// Enable the Khronos validation layer with synchronization validation.
    pub validation: bool,
    /// Device index or name substring; `None` picks the best device.
    pub device: Option<String>,
    /// Force a tier; `None` detects it.
    pub tier: Option<Tier>,
    /// Instance extensions the window system needs (from
    /// [`surface_extensions`](crate::swapchain::surface_extensions)).
    pub surface_extensions: Vec<&'static CStr>,
    /// Filter anisotropically on a CPU device too. Lavapipe (Mesa 22.3)
    /// has the feature, but a ground seen out to its horizon then takes
    /// minutes a frame where it took a fifth of a second (320x180, two
    /// taps), so CPU devices filter isotropically unless asked; the tests
    /// of the filter ask.
    pub anisotropy_on_cpu: bool,
}

impl Default for ContextDesc {
    fn default() -> Self {
        let env = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        ContextDesc {
            app_name: "horde".to_owned(),
            validation: env("HORDE_VALIDATION").is_some_and(|v| v != "0"),
            device: env("HORDE_DEVICE"),
            tier: None,
            surface_extensions: Vec::new(),
            anisotropy_on_cpu: false,
        }
    }
}

/// Device memory in use ([`Context::memory_usage`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct MemoryUsage {
    /// Bytes of live allocations.
    pub allocated_bytes: u64,
    /// Bytes of the memory blocks gpu-allocator holds.
    pub reserved_bytes: u64,
    /// Device-local heaps (empty without `VK_EXT_memory_budget`).
    pub heaps: Vec<HeapBudget>,
}

/// One device-local heap's usage and budget, as the driver reports them.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct HeapBudget {
    pub heap: u32,
    pub size_bytes: u64,
    /// This process's usage.
    pub usage_bytes: u64,
    /// What the process may use before allocations may fail or page.
    pub budget_bytes: u64,
}

/// Everything the passes need to talk to the GPU.
pub struct Context {
    /// Owns the instance, device and allocator; see the module doc.
    pub gpu: Arc<Gpu>,
    /// Copies of the dispatch tables the [`Gpu`] owns, so that calls read
    /// `ctx.device.cmd_*(..)`; dropping them destroys nothing.
    pub entry: ash::Entry,
    pub instance: ash::Instance,
    pub device: ash::Device,
    validation_counts: Arc<ValidationCounts>,
    pub physical_device: vk::PhysicalDevice,
    pub device_name: String,
    pub driver_info: String,
    pub queue_family: u32,
    pub queue: vk::Queue,
    pub tier: Tier,
    pub limits: Limits,
    pub surface_supported: bool,
    /// The far field's compute rasterizer can run: the desktop tier on a
    /// device with `shaderInt64` and `shaderBufferInt64Atomics`, both then
    /// enabled (see `device::far_field_support`).
    pub far_field_supported: bool,
    /// The device rasterizes on the CPU (lavapipe): fill-bound work is
    /// sized down (the shadow map, `passes/shadow.rs`).
    pub software_rasterizer: bool,
}

impl Context {
    /// Loads Vulkan, creates the instance and device, and the allocator.
    pub fn new(desc: &ContextDesc) -> Result<Context, Error> {
        // SAFETY: loading the system Vulkan loader; its initialisers are trusted.
        let entry = unsafe { ash::Entry::load() }.map_err(|err| {
            Error::NoDevice(format!(
                "cannot load the Vulkan loader (libvulkan.so.1): {err}; install libvulkan1"
            ))
        })?;

        let instance = Instance::new(entry, desc)?;
        let found = candidates(&instance.raw)?;
        let chosen = pick_device(found, desc.device.as_deref())?;
        Self::with_device(instance, chosen, desc)
    }

    fn with_device(
        instance: Instance,
        chosen: Candidate,
        desc: &ContextDesc,
    ) -> Result<Context, Error> {
        let props = chosen.props;
        let vk_instance = instance.raw.clone();
        // SAFETY: valid physical device from this instance.
        let features = unsafe { vk_instance.get_physical_device_features(chosen.physical_device) };
        let mut subgroup = vk::PhysicalDeviceSubgroupProperties::default();
        let mut driver = vk::PhysicalDeviceDriverProperties::default();
        let mut props2 = vk::PhysicalDeviceProperties2::default()
            .push_next(&mut subgroup)
            .push_next(&mut driver);
        // SAFETY: the chain holds structs valid for a Vulkan 1.1+ device; the
        // driver properties are core in 1.2 and otherwise left zeroed.
        unsafe { vk_instance.get_physical_device_properties2(chosen.physical_device, &mut props2) };
        let driver_info = format!(
            "{} {}",
            driver
                .driver_name_as_c_str()
                .map(|s| s.to_string_lossy())
                .unwrap_or_default(),
            driver
                .driver_info_as_c_str()
                .map(|s| s.to_string_lossy())
                .unwrap_or_default()
        )
        .trim()
        .to_owned();

        let shortfall = desktop_shortfall(&features, &props);
        let (tier, why) = choose_tier(desc.tier, shortfall.as_deref(), &chosen.name)?;
        log::info!("device: {} ({driver_info})", chosen.name);
        log::info!("tier: {} ({why})", tier.name());
        // The ground's sampler, on either tier where the device has it: at
        // the ground preset the ground fills half the frame at a grazing
        // angle, where isotropic mips blur it (`passes/draw.rs`). Not on a
        // CPU device unless asked (`ContextDesc::anisotropy_on_cpu`).
        let software_rasterizer = props.device_type == vk::PhysicalDeviceType::CPU;
        let anisotropy = features.sampler_anisotropy == vk::TRUE
            && (!software_rasterizer || desc.anisotropy_on_cpu);
        let limits = Limits::for_tier(tier, &props.limits, subgroup.subgroup_size, anisotropy);

        // Only what the tier uses; anything else stays off so validation flags it.
        let enabled = match tier {
            // Fragment atomics: the shadow casters' depths (`passes/shadow`).
            Tier::Desktop => vk::PhysicalDeviceFeatures::default()
                .multi_draw_indirect(true)
                .draw_indirect_first_instance(true)
                .fragment_stores_and_atomics(true),
            Tier::Mobile => vk::PhysicalDeviceFeatures::default(),
        }
        .sampler_anisotropy(anisotropy);
        let priorities = [1.0];
        let queue_infos = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(chosen.queue_family)
            .queue_priorities(&priorities)];
        let mut extensions: Vec<*const i8> = Vec::new();
        // SAFETY: valid physical device.
        let available =
            unsafe { vk_instance.enumerate_device_extension_properties(chosen.physical_device) }?;
        let has_extension = |name: &CStr| {
            available
                .iter()
                .any(|e| e.extension_name_as_c_str().is_ok_and(|n| n == name))
        };
        let surface_supported =
            !desc.surface_extensions.is_empty() && has_extension(ash::khr::swapchain::NAME);
        if surface_supported {
            extensions.push(ash::khr::swapchain::NAME.as_ptr());
        }
        let far_field = device::far_field_support(
            &vk_instance,
            chosen.physical_device,
            tier,
            &features,
            has_extension(ash::khr::shader_atomic_int64::NAME),
        );
        match &far_field {
            Ok(()) => log::info!(
                "far field: compute rasterizer (shaderInt64 and shaderBufferInt64Atomics present)"
            ),
            Err(why) => log::info!("far field: off, units stay meshes ({why})"),
        }
        let far_field_supported = far_field.is_ok();
        let enabled = if far_field_supported {
            extensions.push(ash::khr::shader_atomic_int64::NAME.as_ptr());
            enabled.shader_int64(true)
        } else {
            enabled
        };
        // The desktop tier's shadow casters have a fragment shader that
        // reads none of the mesh vertex shaders' outputs: maintenance4
        // allows that without a validation warning (the driver drops them
        // when it links). Every desktop driver has it (core in Vulkan 1.3),
        // and a device with the extension supports the feature.
        let relaxed_interfaces =
            tier == Tier::Desktop && has_extension(ash::khr::maintenance4::NAME);
        if relaxed_interfaces {
            extensions.push(ash::khr::maintenance4::NAME.as_ptr());
        }
        let mut atomic_int64 = vk::PhysicalDeviceShaderAtomicInt64Features::default()
            .shader_buffer_int64_atomics(true);
        let mut maintenance4 = vk::PhysicalDeviceMaintenance4Features::default().maintenance4(true);
        let mut device_info = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queue_infos)
            .enabled_extension_names(&extensions)
            .enabled_features(&enabled);
        if far_field_supported {
            device_info = device_info.push_next(&mut atomic_int64);
        }
        if relaxed_interfaces {
            device_info = device_info.push_next(&mut maintenance4);
        }
        // SAFETY: the create info and everything it points to outlive the call.
        let device =
            unsafe { vk_instance.create_device(chosen.physical_device, &device_info, None) }?;
        // From here on, dropping `gpu` destroys the device, then the instance.
        let mut gpu = Gpu {
            debug_utils: instance
                .debug_utils
                .as_ref()
                .map(|_| ash::ext::debug_utils::Device::new(&vk_instance, &device)),
            surface_loader: (!desc.surface_extensions.is_empty())
                .then(|| ash::khr::surface::Instance::new(&instance.entry, &vk_instance)),
            swapchain_loader: surface_supported
                .then(|| ash::khr::swapchain::Device::new(&vk_instance, &device)),
            device,
            allocator: Mutex::new(None),
            instance,
            injected_failure: AtomicU8::new(0),
            buffer_names: Mutex::default(),
            destroyed: Default::default(),
        };
        let allocator = Allocator::new(&AllocatorCreateDesc {
            instance: vk_instance.clone(),
            device: gpu.device.clone(),
            physical_device: chosen.physical_device,
            debug_settings: Default::default(),
            buffer_device_address: false,
            allocation_sizes: Default::default(),
        })?;
        *gpu.allocator
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner) = Some(allocator);
        // SAFETY: the family was created with one queue.
        let queue = unsafe { gpu.device.get_device_queue(chosen.queue_family, 0) };

        let context = Context {
            entry: gpu.instance.entry.clone(),
            instance: vk_instance,
            device: gpu.device.clone(),
            validation_counts: gpu.instance.validation_counts.clone(),
            gpu: Arc::new(gpu),
            physical_device: chosen.physical_device,
            device_name: chosen.name,
            software_rasterizer,
            driver_info,
            queue_family: chosen.queue_family,
            queue,
            tier,
            limits,
            surface_supported,
            far_field_supported,
        };
        context.set_name(context.queue, "main queue");
        Ok(context)
    }

    /// Test-only hook: makes the next allocation, frame submission or
    /// swapchain image acquisition fail (see [`InjectedFailure`]), so tests
    /// can drive the error paths.
    #[doc(hidden)]
    pub fn fail_next(&self, failure: InjectedFailure) {
        self.gpu
            .injected_failure
            .store(failure as u8, Ordering::Release);
    }

    /// Threads per workgroup of the per-unit compute passes on this tier.
    pub fn unit_workgroup_size(&self) -> u32 {
        match self.tier {
            Tier::Desktop => crate::config::UNIT_WORKGROUP_SIZE,
            Tier::Mobile => crate::config::UNIT_WORKGROUP_SIZE_MOBILE,
        }
    }

    /// Validation messages counted so far. The handle stays valid after the
    /// context is dropped, so leaks reported at device destruction count.
    pub fn validation_counts(&self) -> Arc<ValidationCounts> {
        self.validation_counts.clone()
    }

    /// Names of the gpu-allocator allocations still alive, for the no-leak
    /// check before the context is dropped.
    pub fn live_allocations(&self) -> Vec<String> {
        let allocator = self
            .gpu
            .allocator
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        allocator
            .as_ref()
            .map(|a| {
                a.generate_report()
                    .allocations
                    .into_iter()
                    .map(|r| r.name)
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Device memory in use: what gpu-allocator has handed out and reserved,
    /// and each device-local heap's usage and budget where the device has
    /// `VK_EXT_memory_budget`.
    pub fn memory_usage(&self) -> MemoryUsage {
        let (allocated_bytes, reserved_bytes) = self
            .gpu
            .allocator
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            .map(|a| {
                let report = a.generate_report();
                (report.total_allocated_bytes, report.total_capacity_bytes)
            })
            .unwrap_or_default();
        MemoryUsage {
            allocated_bytes,
            reserved_bytes,
            heaps: self.memory_budget(),
        }
    }

    fn memory_budget(&self) -> Vec<HeapBudget> {
        // SAFETY: a valid physical device.
        let extensions = unsafe {
            self.instance
                .enumerate_device_extension_properties(self.physical_device)
        }
        .unwrap_or_default();
        let supported = extensions
            .iter()
            .any(|e| e.extension_name_as_c_str() == Ok(ash::ext::memory_budget::NAME));
        if !supported {
            return Vec::new();
        }
        let mut budget = vk::PhysicalDeviceMemoryBudgetPropertiesEXT::default();
        let mut properties = vk::PhysicalDeviceMemoryProperties2::default().push_next(&mut budget);
        // SAFETY: the device supports the extension (a physical-device query
        // needs no enabling); the chain is valid.
        unsafe {
            self.instance
                .get_physical_device_memory_properties2(self.physical_device, &mut properties)
        };
        let heaps = properties
            .memory_properties
            .memory_heaps_as_slice()
            .to_vec();
        heaps
            .iter()
            .enumerate()
            .filter(|(_, heap)| heap.flags.contains(vk::MemoryHeapFlags::DEVICE_LOCAL))
            .map(|(index, heap)| HeapBudget {
                heap: index as u32,
                size_bytes: heap.size,
                usage_bytes: budget.heap_usage[index],
                budget_bytes: budget.heap_budget[index],
            })
            .collect()
    }

    /// GPU objects (buffers, images, pipelines, owned handles) still holding
    /// the device, for the no-leak check before the context is dropped.
    pub fn live_device_objects(&self) -> usize {
        Arc::strong_count(&self.gpu) - 1
    }

    /// Gives a Vulkan object a debug name (for debuggers, with debug
    /// utils; for the frame graph, a buffer's is kept either way).
    pub fn set_name<H: vk::Handle>(&self, handle: H, name: &str) {
        let raw = handle.as_raw();
        if H::TYPE == vk::ObjectType::BUFFER {
            self.gpu
                .buffer_names
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(raw, name.to_owned());
        }
        let Some(debug_utils) = &self.gpu.debug_utils else {
            return;
        };
        let Ok(name) = CString::new(name) else { return };
        let mut info = vk::DebugUtilsObjectNameInfoEXT::default().object_name(&name);
        info.object_type = H::TYPE;
        info.object_handle = raw;
        // SAFETY: the handle belongs to this device; naming is advisory.
        if let Err(err) = unsafe { debug_utils.set_debug_utils_object_name(&info) } {
            log::debug!("naming {name:?} failed: {err}");
        }
    }

    /// The debug name a buffer was given, if any.
    pub fn buffer_name(&self, buffer: vk::Buffer) -> Option<String> {
        use vk::Handle as _;
        self.gpu
            .buffer_names
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&buffer.as_raw())
            .cloned()
    }

    /// Opens a debug label region on a command buffer (for RenderDoc, Nsight).
    pub fn begin_label(&self, cmd: vk::CommandBuffer, name: &str) {
        let Some(debug_utils) = &self.gpu.debug_utils else {
            return;
        };
        let Ok(name) = CString::new(name) else { return };
        let label = vk::DebugUtilsLabelEXT::default().label_name(&name);
        // SAFETY: `cmd` is in the recording state.
        unsafe { debug_utils.cmd_begin_debug_utils_label(cmd, &label) };
    }

    /// Closes the region opened by [`Context::begin_label`].
    pub fn end_label(&self, cmd: vk::CommandBuffer) {
        if let Some(debug_utils) = &self.gpu.debug_utils {
            // SAFETY: matches a `begin_label` on the same command buffer.
            unsafe { debug_utils.cmd_end_debug_utils_label(cmd) };
        }
    }
}
