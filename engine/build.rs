//! Compiles every GLSL shader in `../shaders` to SPIR-V with shaderc and embeds
//! it: `OUT_DIR/shaders.rs` holds one `Spirv` constant per stage file, named after
//! the file (`cull.comp` -> `CULL_COMP`).
//!
//! - Warnings are errors.
//! - `#include "x.glsl"` resolves inside `shaders/`.
//! - Every constant of `src/config.rs` is a macro definition of the same name.
//! - Cargo reruns this when any shader, header or the config changes.

extern crate shaderc_link;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

#[allow(dead_code)]
#[path = "src/config.rs"]
mod config;

/// The config constants handed to GLSL. The compiler flags a constant missing
/// here as dead code in this build script.
const DEFINES: &[(&str, u32)] = &[
    ("CULL_WORKGROUP_SIZE", config::CULL_WORKGROUP_SIZE),
    (
        "CULL_WORKGROUP_SIZE_MOBILE",
        config::CULL_WORKGROUP_SIZE_MOBILE,
    ),
    ("LOD_COUNT", config::LOD_COUNT),
    ("FRAMES_IN_FLIGHT", config::FRAMES_IN_FLIGHT),
    ("MAX_PROFILER_SCOPES", config::MAX_PROFILER_SCOPES),
];

fn stage_of(path: &Path) -> Option<shaderc::ShaderKind> {
    match path.extension()?.to_str()? {
        "comp" => Some(shaderc::ShaderKind::Compute),
        "vert" => Some(shaderc::ShaderKind::Vertex),
        "frag" => Some(shaderc::ShaderKind::Fragment),
        _ => None,
    }
}

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let shader_dir = manifest.join("../shaders");
    println!("cargo:rerun-if-changed={}", shader_dir.display());
    println!("cargo:rerun-if-changed=src/config.rs");

    let mut sources: Vec<PathBuf> = std::fs::read_dir(&shader_dir)
        .expect("shaders/ directory is readable")
        .map(|entry| entry.expect("shaders/ entry").path())
        .collect();
    sources.sort();
    for path in &sources {
        println!("cargo:rerun-if-changed={}", path.display());
    }

    let compiler = shaderc::Compiler::new().expect("shaderc compiler");
    let mut options = shaderc::CompileOptions::new().expect("shaderc options");
    options.set_target_env(
        shaderc::TargetEnv::Vulkan,
        shaderc::EnvVersion::Vulkan1_1 as u32,
    );
    options.set_target_spirv(shaderc::SpirvVersion::V1_3);
    options.set_warnings_as_errors();
    options.set_generate_debug_info();
    options.set_optimization_level(shaderc::OptimizationLevel::Performance);
    for (name, value) in DEFINES {
        options.add_macro_definition(name, Some(&value.to_string()));
    }
    let include_dir = shader_dir.clone();
    options.set_include_callback(move |requested, _kind, requester, _depth| {
        let path = include_dir.join(requested);
        std::fs::read_to_string(&path)
            .map(|content| shaderc::ResolvedInclude {
                resolved_name: path.display().to_string(),
                content,
            })
            .map_err(|err| format!("{requester}: cannot include {requested}: {err}"))
    });

    let mut generated = String::new();
    let mut all = Vec::new();
    let mut failures = Vec::new();
    for path in &sources {
        let Some(kind) = stage_of(path) else { continue };
        let file_name = path.file_name().unwrap().to_str().unwrap().to_owned();
        let source = std::fs::read_to_string(path).expect("shader source is UTF-8");
        match compiler.compile_into_spirv(&source, kind, &file_name, "main", Some(&options)) {
            Ok(artifact) => {
                let ident = file_name.replace(['.', '-'], "_").to_uppercase();
                let words = artifact.as_binary();
                write!(
                    generated,
                    "pub const {ident}: Spirv = Spirv {{ name: \"{file_name}\", words: &["
                )
                .unwrap();
                for word in words {
                    write!(generated, "{word:#x},").unwrap();
                }
                generated.push_str("] };\n");
                all.push(ident);
            }
            Err(err) => failures.push(format!("{file_name}:\n{err}")),
        }
    }
    writeln!(
        generated,
        "/// Every shader above.\npub const ALL: &[Spirv] = &[{}];",
        all.join(", ")
    )
    .unwrap();
    if !failures.is_empty() {
        panic!("shader compilation failed:\n{}", failures.join("\n"));
    }
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("shaders.rs");
    std::fs::write(out, generated).expect("write shaders.rs");
}
