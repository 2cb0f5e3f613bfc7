//! The Vulkan instance and the validation messages.
//!
//! [`Instance`] creates the instance with the window system's extensions and,
//! where asked, the Khronos validation layer with synchronization validation.
//! Where debug utils exist it also creates a messenger whose callback routes
//! every message to `log` and counts errors and warnings in
//! [`ValidationCounts`], so tests can assert zero. The counts are shared
//! through an `Arc`: they outlive the messenger, and a test still reads the
//! leaks the layer reports when the device is destroyed.

use std::ffi::{c_void, CStr, CString};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use ash::vk;

use super::ContextDesc;
use crate::Error;

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

/// The instance and its debug messenger, destroyed when dropped. Only a
/// [`Gpu`](super::Gpu) holds one once the device exists: the device goes first.
pub(super) struct Instance {
    /// Keeps the loader library open while the instance lives.
    pub(super) entry: ash::Entry,
    pub(super) raw: ash::Instance,
    pub(super) debug_utils: Option<ash::ext::debug_utils::Instance>,
    messenger: vk::DebugUtilsMessengerEXT,
    /// The messenger's user data: it must outlive the messenger.
    pub(super) validation_counts: Arc<ValidationCounts>,
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

impl Instance {
    /// Creates the instance with the requested layers and extensions, and the
    /// debug messenger where debug utils exist.
    pub(super) fn new(entry: ash::Entry, desc: &ContextDesc) -> Result<Instance, Error> {
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
