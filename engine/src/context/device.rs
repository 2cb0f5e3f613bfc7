//! Device selection and feature tiers.
//!
//! - [`candidates`] lists the devices that can run the engine (Vulkan 1.1, one
//!   queue family for graphics and compute), discrete GPUs first, then
//!   integrated, virtual and CPU devices; [`pick_device`] takes the one
//!   `HORDE_DEVICE` or `ContextDesc::device` names, by index or by a
//!   case-insensitive name substring, else the first.
//! - [`choose_tier`] picks the [`Tier`]: forced by the caller or `HORDE_TIER`,
//!   else detected from the features and limits [`desktop_shortfall`] checks.
//! - [`Limits::for_tier`] clamps the device's limits to the tier, so the engine
//!   checks itself against what the tier promises, not what this GPU has.

use ash::vk;

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
    /// Bytes of shared memory a compute workgroup may declare.
    pub max_compute_shared_memory: u32,
    pub max_image_dimension_2d: u32,
    pub max_push_constants_size: u32,
    pub max_storage_buffer_range: u32,
    pub min_storage_buffer_offset_alignment: u64,
    pub min_uniform_buffer_offset_alignment: u64,
    /// Nanoseconds per timestamp tick, or `None` where timestamps are unsupported.
    pub timestamp_period_ns: Option<f32>,
    pub subgroup_size: u32,
    /// The most anisotropy a sampler may ask for: the device's limit where
    /// it has `samplerAnisotropy` (enabled then), else 1 (isotropic only).
    pub max_sampler_anisotropy: f32,
}

impl Limits {
    /// The device's limits `l`, clamped to what `tier` promises, with
    /// anisotropic filtering where the device has it (`anisotropy`).
    pub(super) fn for_tier(
        tier: Tier,
        l: &vk::PhysicalDeviceLimits,
        subgroup_size: u32,
        anisotropy: bool,
    ) -> Limits {
        let timestamps = l.timestamp_compute_and_graphics == vk::TRUE && l.timestamp_period > 0.0;
        let max_sampler_anisotropy = if anisotropy {
            l.max_sampler_anisotropy.max(1.0)
        } else {
            1.0
        };
        match tier {
            Tier::Desktop => Limits {
                multi_draw_indirect: true,
                draw_indirect_first_instance: true,
                max_storage_buffers_per_stage: l.max_per_stage_descriptor_storage_buffers,
                max_compute_invocations: l.max_compute_work_group_invocations,
                max_compute_shared_memory: l.max_compute_shared_memory_size,
                max_image_dimension_2d: l.max_image_dimension2_d,
                max_push_constants_size: l.max_push_constants_size,
                max_storage_buffer_range: l.max_storage_buffer_range,
                min_storage_buffer_offset_alignment: l.min_storage_buffer_offset_alignment,
                min_uniform_buffer_offset_alignment: l.min_uniform_buffer_offset_alignment,
                timestamp_period_ns: timestamps.then_some(l.timestamp_period),
                subgroup_size: subgroup_size.max(1),
                max_sampler_anisotropy,
            },
            Tier::Mobile => Limits {
                multi_draw_indirect: false,
                draw_indirect_first_instance: false,
                max_storage_buffers_per_stage: l.max_per_stage_descriptor_storage_buffers.min(4),
                max_compute_invocations: l.max_compute_work_group_invocations.min(128),
                max_compute_shared_memory: l.max_compute_shared_memory_size.min(16 << 10),
                max_image_dimension_2d: l.max_image_dimension2_d.min(4096),
                max_push_constants_size: l.max_push_constants_size.min(128),
                max_storage_buffer_range: l.max_storage_buffer_range.min(128 << 20),
                min_storage_buffer_offset_alignment: l.min_storage_buffer_offset_alignment,
                min_uniform_buffer_offset_alignment: l.min_uniform_buffer_offset_alignment,
                timestamp_period_ns: timestamps.then_some(l.timestamp_period),
                subgroup_size: subgroup_size.max(1),
                max_sampler_anisotropy,
            },
        }
    }
}

/// The tier to build for, and why, for the log: the caller's request, else
/// `HORDE_TIER`, else the desktop tier unless the device falls short of it
/// (`shortfall`, from [`desktop_shortfall`]). Requesting the desktop tier on a
/// device that falls short is an error.
pub(super) fn choose_tier(
    requested: Option<Tier>,
    shortfall: Option<&str>,
    device_name: &str,
) -> Result<(Tier, String), Error> {
    let env_tier = std::env::var("HORDE_TIER")
        .ok()
        .filter(|v| !v.trim().is_empty());
    let forced = match (requested, env_tier) {
        (Some(tier), _) => Some((tier, "requested by the caller".to_owned())),
        (None, Some(text)) => Some((Tier::parse(&text)?, "forced by HORDE_TIER".to_owned())),
        (None, None) => None,
    };
    let chosen = match (forced, shortfall) {
        (Some((Tier::Desktop, _)), Some(missing)) => {
            return Err(Error::Config(format!(
                "the desktop tier was requested, but {device_name} lacks {missing}"
            )))
        }
        (Some((tier, why)), _) => (tier, why),
        (None, Some(missing)) => (Tier::Mobile, format!("the device lacks {missing}")),
        (None, None) => (
            Tier::Desktop,
            "the device has every desktop feature".to_owned(),
        ),
    };
    Ok(chosen)
}

/// Device features the tier needs, and a reason when the device lacks them.
pub(super) fn desktop_shortfall(
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
    if features.fragment_stores_and_atomics == vk::FALSE {
        missing.push("fragmentStoresAndAtomics".to_owned());
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

/// Whether the far field's compute rasterizer can run, or why not: it needs
/// the desktop tier (the mobile tier promises no 64-bit atomics), 64-bit
/// integers in shaders (`shaderInt64`) and 64-bit atomics on storage buffers
/// (`shaderBufferInt64Atomics`, from `VK_KHR_shader_atomic_int64`: the
/// instance targets Vulkan 1.1, where it is an extension).
pub(super) fn far_field_support(
    instance: &ash::Instance,
    physical_device: vk::PhysicalDevice,
    tier: Tier,
    features: &vk::PhysicalDeviceFeatures,
    has_atomic_int64_extension: bool,
) -> Result<(), String> {
    if tier != Tier::Desktop {
        return Err("the mobile tier has no 64-bit atomics".to_owned());
    }
    if features.shader_int64 == vk::FALSE {
        return Err("the device lacks shaderInt64".to_owned());
    }
    if !has_atomic_int64_extension {
        return Err("the device lacks VK_KHR_shader_atomic_int64".to_owned());
    }
    let mut atomics = vk::PhysicalDeviceShaderAtomicInt64Features::default();
    let mut features2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut atomics);
    // SAFETY: a physical device of this Vulkan 1.1 instance; the chained
    // struct belongs to an extension the device offers.
    unsafe { instance.get_physical_device_features2(physical_device, &mut features2) };
    if atomics.shader_buffer_int64_atomics == vk::FALSE {
        return Err("the device lacks shaderBufferInt64Atomics".to_owned());
    }
    // SAFETY: a physical device of this instance.
    let limits = unsafe { instance.get_physical_device_properties(physical_device) }.limits;
    let threads = crate::config::FAR_FIELD_WORKGROUP_SIZE;
    if limits.max_compute_work_group_invocations < threads
        || limits.max_compute_work_group_size[0] < threads
    {
        return Err(format!(
            "the device runs fewer than {threads} compute threads per workgroup"
        ));
    }
    Ok(())
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

/// A physical device that can run the engine: Vulkan 1.1 and a queue family
/// that does graphics and compute.
pub(super) struct Candidate {
    pub(super) physical_device: vk::PhysicalDevice,
    pub(super) name: String,
    pub(super) props: vk::PhysicalDeviceProperties,
    pub(super) queue_family: u32,
}

/// The usable devices, discrete GPUs first.
pub(super) fn candidates(instance: &ash::Instance) -> Result<Vec<Candidate>, Error> {
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

/// The device `wanted` names (an index or a name substring), else the first.
pub(super) fn pick_device(
    mut found: Vec<Candidate>,
    wanted: Option<&str>,
) -> Result<Candidate, Error> {
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
