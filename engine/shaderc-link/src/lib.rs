//! Link-only crate. Debian and Ubuntu ship a `libshaderc_combined.a` that holds
//! only shaderc's own objects, not the glslang and SPIRV-Tools it needs, so a
//! static link of the `shaderc` crate fails with undefined glslang symbols. This
//! crate's build script adds the missing static libraries when, and only when,
//! it finds such a split install. Where the combined archive is complete (Vulkan
//! SDK, Arch, Fedora, a build from source) it adds nothing.
//!
//! Reference it with `extern crate shaderc_link;` wherever `shaderc` is linked.
