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
//! [`Buffer`]: crate::memory::Buffer
//! [`Image`]: crate::memory::Image
//! [`Pipeline`]: crate::pipeline::Pipeline
//! [`Owned`]: crate::owned::Owned

use std::ffi::{c_void, CStr, CString};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use ash::vk;
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, Allocator, AllocatorCreateDesc};
use gpu_allocator::AllocationError;

use crate::Error;

/// Which set of GPU features the renderer is built around.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Tier {
    /// multiDrawIndirect, drawIndirectFirstInstance, large workgroups.
    Desktop,
    /// What Android Baseline 2022 guarantees: one indirect draw per call, base
    /// instance passed by the CPU, 4 storage buffers per stage, 128 invocations.
    Mobile,
}

impl Tier {
    /// Parses `desktop` or `mobile`.
    pub fn parse(text: &str) -> Result<Tier, Error> {
        match text.trim().to_ascii_lowercase().as_str() {
            "desktop" => Ok(Tier::Desktop),
            "mobile" => Ok(Tier::Mobile),
            other => Err(Error::Config(format!(
                "unknown tier '{other}': expected 'desktop' or 'mobile'"
            ))),
        }
    }

    /// The lowercase name.
    pub fn name(self) -> &'static str {
        match self {
            Tier::Desktop => "desktop",
            Tier::Mobile => "mobile",
        }
    }
}

/// Limits the engine honours, already clamped to the tier.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// One `vkCmdDrawIndexedIndirect` may carry several commands.
    pub multi_draw_indirect: bool,
    /// Indirect commands may use a non-zero `firstInstance`.
    pub draw_indirect_first_instance: bool,
    pub max_storage_buffers_per_stage: u32,
    pub max_compute_invocations: u32,
    pub max_image_dimension_2d: u32,
    pub max_push_constants_size: u32,
    pub max_storage_buffer_range: u32,
    pub min_storage_buffer_offset_alignment: u64,
    pub min_uniform_buffer_offset_alignment: u64,
    /// Nanoseconds per timestamp tick, or `None` where timestamps are unsupported.
    pub timestamp_period_ns: Option<f32>,
    pub subgroup_size: u32,
}

/// Validation messages seen so far, by severity.
#[derive(Debug, Default)]
pub struct ValidationCounts {
    errors: AtomicU32,
    warnings: AtomicU32,
    /// The first few error and warning texts, for test failure messages.
    messages: Mutex<Vec<String>>,
}

impl ValidationCounts {
    /// Errors reported by the validation layer or the driver.
    pub fn errors(&self) -> u32 {
        self.errors.load(Ordering::Relaxed)
    }

    /// Warnings reported by the validation layer or the driver.
    pub fn warnings(&self) -> u32 {
        self.warnings.load(Ordering::Relaxed)
    }

    /// The first error and warning messages, kept for reports.
    pub fn messages(&self) -> Vec<String> {
        self.messages.lock().map(|m| m.clone()).unwrap_or_default()
    }
}

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
    /// Instance extensions the window system needs (from `ash_window`).
    pub surface_extensions: Vec<&'static CStr>,
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
        }
    }
}

/// The instance and its debug messenger, destroyed when dropped. Only a
/// [`Gpu`] holds one once the device exists: the device goes first.
struct Instance {
    /// Keeps the loader library open while the instance lives.
    entry: ash::Entry,
    raw: ash::Instance,
    debug_utils: Option<ash::ext::debug_utils::Instance>,
    messenger: vk::DebugUtilsMessengerEXT,
    /// The messenger's user data: it must outlive the messenger.
    validation_counts: Arc<ValidationCounts>,
}

impl Drop for Instance {
    fn drop(&mut self) {
        // SAFETY: every object made from the instance is gone: the device (if
        // any) was destroyed by the `Gpu` that owns this instance, and
        // surfaces hold that `Gpu`.
        unsafe {
            if let Some(debug_utils) = &self.debug_utils {
                debug_utils.destroy_debug_utils_messenger(self.messenger, None);
            }
            self.raw.destroy_instance(None);
        }
    }
}

/// The Vulkan instance, logical device and memory allocator, shared through an
/// `Arc` by the [`Context`] and every object made from the device. Dropping
/// the last `Arc` destroys the allocator, then the device, then the instance.
pub struct Gpu {
    pub device: ash::Device,
    debug_utils: Option<ash::ext::debug_utils::Device>,
    /// Present when the instance has the window system's extensions.
    pub surface_loader: Option<ash::khr::surface::Instance>,
    /// Present when the device has `VK_KHR_swapchain` enabled.
    pub swapchain_loader: Option<ash::khr::swapchain::Device>,
    /// `None` only while [`Context::new`] builds the `Gpu`, and in `drop`.
    allocator: Mutex<Option<Allocator>>,
    /// Dropped after `Gpu::drop` has destroyed the device.
    instance: Instance,
}

impl Gpu {
    /// Allocates memory.
    pub fn allocate(&self, desc: &AllocationCreateDesc) -> Result<Allocation, AllocationError> {
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
}

const VALIDATION_LAYER: &CStr = c"VK_LAYER_KHRONOS_validation";

unsafe extern "system" fn debug_callback(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    _types: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    user_data: *mut c_void,
) -> vk::Bool32 {
    // SAFETY: the layer passes valid callback data for the duration of the call,
    // and `user_data` is the `ValidationCounts` kept alive by the `Context`.
    let (message, counts) = unsafe {
        let message = (*data)
            .message_as_c_str()
            .map(|m| m.to_string_lossy().into_owned())
            .unwrap_or_default();
        (message, &*(user_data as *const ValidationCounts))
    };
    let keep = |counts: &ValidationCounts| {
        if let Ok(mut messages) = counts.messages.lock() {
            if messages.len() < 16 {
                messages.push(message.clone());
            }
        }
    };
    if severity.contains(vk::DebugUtilsMessageSeverityFlagsEXT::ERROR) {
        counts.errors.fetch_add(1, Ordering::Relaxed);
        keep(counts);
        log::error!("vulkan: {message}");
    } else if severity.contains(vk::DebugUtilsMessageSeverityFlagsEXT::WARNING) {
        counts.warnings.fetch_add(1, Ordering::Relaxed);
        keep(counts);
        log::warn!("vulkan: {message}");
    } else if severity.contains(vk::DebugUtilsMessageSeverityFlagsEXT::INFO) {
        log::debug!("vulkan: {message}");
    } else {
        log::trace!("vulkan: {message}");
    }
    vk::FALSE
}

/// Device features the tier needs, and a reason when the device lacks them.
fn desktop_shortfall(
    features: &vk::PhysicalDeviceFeatures,
    props: &vk::PhysicalDeviceProperties,
) -> Option<String> {
    let l = &props.limits;
    let mut missing = Vec::new();
    if features.multi_draw_indirect == vk::FALSE {
        missing.push("multiDrawIndirect".to_owned());
    }
    if features.draw_indirect_first_instance == vk::FALSE {
        missing.push("drawIndirectFirstInstance".to_owned());
    }
    if l.max_per_stage_descriptor_storage_buffers < 8 {
        missing.push(format!(
            "8 storage buffers per stage (has {})",
            l.max_per_stage_descriptor_storage_buffers
        ));
    }
    if l.max_compute_work_group_invocations < crate::config::UNIT_WORKGROUP_SIZE {
        missing.push(format!(
            "{} compute invocations (has {})",
            crate::config::UNIT_WORKGROUP_SIZE,
            l.max_compute_work_group_invocations
        ));
    }
    (!missing.is_empty()).then(|| missing.join(", "))
}

fn device_type_rank(kind: vk::PhysicalDeviceType) -> u32 {
    match kind {
        vk::PhysicalDeviceType::DISCRETE_GPU => 0,
        vk::PhysicalDeviceType::INTEGRATED_GPU => 1,
        vk::PhysicalDeviceType::VIRTUAL_GPU => 2,
        vk::PhysicalDeviceType::CPU => 3,
        _ => 4,
    }
}

struct Candidate {
    physical_device: vk::PhysicalDevice,
    name: String,
    props: vk::PhysicalDeviceProperties,
    queue_family: u32,
}

fn candidates(instance: &ash::Instance) -> Result<Vec<Candidate>, Error> {
    // SAFETY: the instance is valid; these are plain queries.
    let devices = unsafe { instance.enumerate_physical_devices() }?;
    let mut found = Vec::new();
    for physical_device in devices {
        // SAFETY: as above.
        let props = unsafe { instance.get_physical_device_properties(physical_device) };
        let families =
            unsafe { instance.get_physical_device_queue_family_properties(physical_device) };
        let wanted = vk::QueueFlags::GRAPHICS | vk::QueueFlags::COMPUTE;
        let Some(queue_family) = families.iter().position(|f| f.queue_flags.contains(wanted))
        else {
            continue;
        };
        if props.api_version < vk::API_VERSION_1_1 {
            continue;
        }
        let name = props
            .device_name_as_c_str()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        found.push(Candidate {
            physical_device,
            name,
            props,
            queue_family: queue_family as u32,
        });
    }
    // Stable sort keeps the driver's order within a device type.
    found.sort_by_key(|c| device_type_rank(c.props.device_type));
    Ok(found)
}

fn pick_device(mut found: Vec<Candidate>, wanted: Option<&str>) -> Result<Candidate, Error> {
    let list = found
        .iter()
        .enumerate()
        .map(|(i, c)| format!("{i}: {}", c.name))
        .collect::<Vec<_>>()
        .join(", ");
    if found.is_empty() {
        return Err(Error::NoDevice(
            "no Vulkan 1.1 device with a graphics+compute queue (install a driver, or \
             mesa-vulkan-drivers for lavapipe)"
                .to_owned(),
        ));
    }
    let index = match wanted {
        None => 0,
        Some(text) => match text.trim().parse::<usize>() {
            Ok(i) if i < found.len() => i,
            Ok(i) => {
                return Err(Error::NoDevice(format!(
                    "device index {i} is out of range; devices: {list}"
                )))
            }
            Err(_) => {
                let needle = text.to_lowercase();
                found
                    .iter()
                    .position(|c| c.name.to_lowercase().contains(&needle))
                    .ok_or_else(|| {
                        Error::NoDevice(format!(
                            "no device name contains '{text}'; devices: {list}"
                        ))
                    })?
            }
        },
    };
    Ok(found.swap_remove(index))
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
        let env_tier = std::env::var("HORDE_TIER")
            .ok()
            .filter(|v| !v.trim().is_empty());
        let forced = match (desc.tier, env_tier) {
            (Some(tier), _) => Some((tier, "requested by the caller".to_owned())),
            (None, Some(text)) => Some((Tier::parse(&text)?, "forced by HORDE_TIER".to_owned())),
            (None, None) => None,
        };
        let (tier, why) = match (forced, &shortfall) {
            (Some((Tier::Desktop, _)), Some(missing)) => {
                return Err(Error::Config(format!(
                    "the desktop tier was requested, but {} lacks {missing}",
                    chosen.name
                )))
            }
            (Some((tier, why)), _) => (tier, why),
            (None, Some(missing)) => (Tier::Mobile, format!("the device lacks {missing}")),
            (None, None) => (
                Tier::Desktop,
                "the device has every desktop feature".to_owned(),
            ),
        };
        log::info!("device: {} ({driver_info})", chosen.name);
        log::info!("tier: {} ({why})", tier.name());

        let l = &props.limits;
        let timestamps = l.timestamp_compute_and_graphics == vk::TRUE && l.timestamp_period > 0.0;
        let limits = match tier {
            Tier::Desktop => Limits {
                multi_draw_indirect: true,
                draw_indirect_first_instance: true,
                max_storage_buffers_per_stage: l.max_per_stage_descriptor_storage_buffers,
                max_compute_invocations: l.max_compute_work_group_invocations,
                max_image_dimension_2d: l.max_image_dimension2_d,
                max_push_constants_size: l.max_push_constants_size,
                max_storage_buffer_range: l.max_storage_buffer_range,
                min_storage_buffer_offset_alignment: l.min_storage_buffer_offset_alignment,
                min_uniform_buffer_offset_alignment: l.min_uniform_buffer_offset_alignment,
                timestamp_period_ns: timestamps.then_some(l.timestamp_period),
                subgroup_size: subgroup.subgroup_size.max(1),
            },
            Tier::Mobile => Limits {
                multi_draw_indirect: false,
                draw_indirect_first_instance: false,
                max_storage_buffers_per_stage: l.max_per_stage_descriptor_storage_buffers.min(4),
                max_compute_invocations: l.max_compute_work_group_invocations.min(128),
                max_image_dimension_2d: l.max_image_dimension2_d.min(4096),
                max_push_constants_size: l.max_push_constants_size.min(128),
                max_storage_buffer_range: l.max_storage_buffer_range.min(128 << 20),
                min_storage_buffer_offset_alignment: l.min_storage_buffer_offset_alignment,
                min_uniform_buffer_offset_alignment: l.min_uniform_buffer_offset_alignment,
                timestamp_period_ns: timestamps.then_some(l.timestamp_period),
                subgroup_size: subgroup.subgroup_size.max(1),
            },
        };

        // Only what the tier uses; anything else stays off so validation flags it.
        let enabled = match tier {
            Tier::Desktop => vk::PhysicalDeviceFeatures::default()
                .multi_draw_indirect(true)
                .draw_indirect_first_instance(true),
            Tier::Mobile => vk::PhysicalDeviceFeatures::default(),
        };
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
        let device_info = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queue_infos)
            .enabled_extension_names(&extensions)
            .enabled_features(&enabled);
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
            driver_info,
            queue_family: chosen.queue_family,
            queue,
            tier,
            limits,
            surface_supported,
        };
        context.set_name(context.queue, "main queue");
        Ok(context)
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

    /// GPU objects (buffers, images, pipelines, owned handles) still holding
    /// the device, for the no-leak check before the context is dropped.
    pub fn live_device_objects(&self) -> usize {
        Arc::strong_count(&self.gpu) - 1
    }

    /// Gives a Vulkan object a debug name (no-op without debug utils).
    pub fn set_name<H: vk::Handle>(&self, handle: H, name: &str) {
        let Some(debug_utils) = &self.gpu.debug_utils else {
            return;
        };
        let Ok(name) = CString::new(name) else { return };
        let info = vk::DebugUtilsObjectNameInfoEXT::default()
            .object_handle(handle)
            .object_name(&name);
        // SAFETY: the handle belongs to this device; naming is advisory.
        if let Err(err) = unsafe { debug_utils.set_debug_utils_object_name(&info) } {
            log::debug!("naming {name:?} failed: {err}");
        }
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

impl Instance {
    /// Creates the instance with the requested layers and extensions, and the
    /// debug messenger where debug utils exist.
    fn new(entry: ash::Entry, desc: &ContextDesc) -> Result<Instance, Error> {
        let counts = Arc::new(ValidationCounts::default());
        // SAFETY: plain enumeration through a loaded entry.
        let layers = unsafe { entry.enumerate_instance_layer_properties() }?;
        let extensions = unsafe { entry.enumerate_instance_extension_properties(None) }?;
        let has_layer = layers
            .iter()
            .any(|l| l.layer_name_as_c_str().is_ok_and(|n| n == VALIDATION_LAYER));
        let has_debug_utils = extensions.iter().any(|e| {
            e.extension_name_as_c_str()
                .is_ok_and(|n| n == ash::ext::debug_utils::NAME)
        });
        if desc.validation && !has_layer {
            return Err(Error::Config(
                "validation was requested but VK_LAYER_KHRONOS_validation is not installed \
                 (apt-get install vulkan-validationlayers)"
                    .to_owned(),
            ));
        }

        let app_name = CString::new(desc.app_name.clone()).unwrap_or_default();
        let app_info = vk::ApplicationInfo::default()
            .application_name(&app_name)
            .engine_name(c"horde")
            .api_version(vk::API_VERSION_1_1);
        let mut layer_names = Vec::new();
        let mut extension_names: Vec<*const i8> =
            desc.surface_extensions.iter().map(|e| e.as_ptr()).collect();
        // Debug utils give names and labels to captures even without validation.
        if has_debug_utils || desc.validation {
            extension_names.push(ash::ext::debug_utils::NAME.as_ptr());
        }
        let enabled_validation = [vk::ValidationFeatureEnableEXT::SYNCHRONIZATION_VALIDATION];
        let mut validation_features =
            vk::ValidationFeaturesEXT::default().enabled_validation_features(&enabled_validation);
        let severity = vk::DebugUtilsMessageSeverityFlagsEXT::ERROR
            | vk::DebugUtilsMessageSeverityFlagsEXT::WARNING
            | vk::DebugUtilsMessageSeverityFlagsEXT::INFO
            | vk::DebugUtilsMessageSeverityFlagsEXT::VERBOSE;
        let message_types = vk::DebugUtilsMessageTypeFlagsEXT::GENERAL
            | vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
            | vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE;
        let user_data = Arc::as_ptr(&counts) as *mut c_void;
        let mut messenger_info = vk::DebugUtilsMessengerCreateInfoEXT::default()
            .message_severity(severity)
            .message_type(message_types)
            .pfn_user_callback(Some(debug_callback))
            .user_data(user_data);
        if desc.validation {
            layer_names.push(VALIDATION_LAYER.as_ptr());
            extension_names.push(ash::ext::validation_features::NAME.as_ptr());
        }
        let mut instance_info = vk::InstanceCreateInfo::default()
            .application_info(&app_info)
            .enabled_layer_names(&layer_names)
            .enabled_extension_names(&extension_names);
        if desc.validation {
            instance_info = instance_info
                // The chained messenger also catches messages from instance creation.
                .push_next(&mut validation_features)
                .push_next(&mut messenger_info);
            log::info!("validation: on, with synchronization validation");
        }
        // SAFETY: all pointers in the create info outlive the call.
        let raw = unsafe { entry.create_instance(&instance_info, None) }?;
        // From here on, dropping `instance` destroys what was made.
        let mut instance = Instance {
            debug_utils: None,
            messenger: vk::DebugUtilsMessengerEXT::null(),
            validation_counts: counts,
            raw,
            entry,
        };
        if has_debug_utils || desc.validation {
            let debug_utils = ash::ext::debug_utils::Instance::new(&instance.entry, &instance.raw);
            let messenger_info = vk::DebugUtilsMessengerCreateInfoEXT::default()
                .message_severity(severity)
                .message_type(message_types)
                .pfn_user_callback(Some(debug_callback))
                .user_data(user_data);
            // SAFETY: the counts the user data points to live in `instance`,
            // which destroys the messenger before dropping them.
            instance.messenger =
                unsafe { debug_utils.create_debug_utils_messenger(&messenger_info, None) }?;
            instance.debug_utils = Some(debug_utils);
        }
        Ok(instance)
    }
}
