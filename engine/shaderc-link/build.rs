//! Detects Debian's split shaderc install and completes its static link.
//! See `src/lib.rs` for why.

use std::path::{Path, PathBuf};

/// glslang and SPIRV-Tools archives, in link order (users before providers).
const SPLIT_LIBS: &[&str] = &[
    "glslang",
    "HLSL",
    "OGLCompiler",
    "OSDependent",
    "MachineIndependent",
    "GenericCodeGen",
    "SPIRV",
    "SPIRV-Tools-opt",
    "SPIRV-Tools",
];

/// A complete `libshaderc_combined.a` embeds glslang and is tens of MiB; Debian's
/// holds ten small objects. Anything below this is the split variant.
const COMPLETE_COMBINED_MIN_BYTES: u64 = 4 << 20;

fn search_dir() -> Option<PathBuf> {
    if let Ok(dir) = std::env::var("SHADERC_LIB_DIR") {
        return Some(PathBuf::from(dir));
    }
    if std::env::var("VULKAN_SDK").is_ok() {
        return None;
    }
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").ok()?;
    let arch = if arch == "x86" {
        "i386".to_owned()
    } else {
        arch
    };
    let dir = PathBuf::from(format!("/usr/lib/{arch}-linux-gnu"));
    dir.exists().then_some(dir)
}

fn is_split_install(dir: &Path) -> bool {
    let combined = dir.join("libshaderc_combined.a");
    let Ok(meta) = std::fs::metadata(&combined) else {
        return false;
    };
    meta.len() < COMPLETE_COMBINED_MIN_BYTES && dir.join("libglslang.a").exists()
}

fn main() {
    println!("cargo:rerun-if-env-changed=SHADERC_LIB_DIR");
    println!("cargo:rerun-if-env-changed=VULKAN_SDK");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() != Ok("linux") {
        return;
    }
    let Some(dir) = search_dir() else { return };
    if !is_split_install(&dir) {
        return;
    }
    println!("cargo:rustc-link-search=native={}", dir.display());
    for lib in SPLIT_LIBS {
        println!("cargo:rustc-link-lib=static={lib}");
    }
    println!("cargo:rustc-link-lib=dylib=stdc++");
}
