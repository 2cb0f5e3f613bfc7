//! Build-script helper shared by every crate that embeds shaders (`horde`
//! and `horde-battle`): compiles each GLSL stage file of one folder to
//! SPIR-V with shaderc and writes `OUT_DIR/shaders.rs`, one `Spirv` constant
//! per stage file, named after the file (`cull.comp` -> `CULL_COMP`), and
//! `ALL`, every one of them. The including crate defines `Spirv`.
//!
//! - Warnings are errors; SPIR-V 1.3 for Vulkan 1.1 (the mobile baseline).
//! - `#include "x.glsl"` resolves in the include folders, in order.
//! - Every constant is a macro definition of the same name, so shaders see
//!   the values of the crate's `config.rs` and define none themselves.
//! - Cargo reruns the build script when any file of the folders changes.

extern crate shaderc_link;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// What one crate compiles.
#[derive(Debug)]
pub struct ShaderSet<'a> {
    /// The stage files (`*.comp`, `*.vert`, `*.frag`) directly in this folder.
    pub stages: &'a Path,
    /// Where `#include` looks, in order.
    pub include_dirs: &'a [&'a Path],
    /// `(NAME, GLSL literal)` macro definitions.
    pub constants: &'a [(&'a str, String)],
}

fn stage_of(path: &Path) -> Option<shaderc::ShaderKind> {
    match path.extension()?.to_str()? {
        "comp" => Some(shaderc::ShaderKind::Compute),
        "vert" => Some(shaderc::ShaderKind::Vertex),
        "frag" => Some(shaderc::ShaderKind::Fragment),
        _ => None,
    }
}

/// Compiles `set` into `OUT_DIR/shaders.rs`. Panics (failing the build) with
/// every shader's errors when one does not compile.
pub fn compile(set: &ShaderSet) {
    for dir in std::iter::once(set.stages).chain(set.include_dirs.iter().copied()) {
        println!("cargo:rerun-if-changed={}", dir.display());
    }
    let mut sources: Vec<PathBuf> = std::fs::read_dir(set.stages)
        .unwrap_or_else(|err| panic!("{}: {err}", set.stages.display()))
        .map(|entry| entry.expect("shader folder entry").path())
        .filter(|path| path.is_file())
        .collect();
    sources.sort();

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
    for (name, literal) in set.constants {
        options.add_macro_definition(name, Some(literal));
    }
    let include_dirs: Vec<PathBuf> = set.include_dirs.iter().map(|d| d.to_path_buf()).collect();
    options.set_include_callback(move |requested, _kind, requester, _depth| {
        include_dirs
            .iter()
            .map(|dir| dir.join(requested))
            .find(|path| path.is_file())
            .ok_or_else(|| format!("{requester}: cannot find {requested} in the include folders"))
            .and_then(|path| {
                std::fs::read_to_string(&path)
                    .map(|content| shaderc::ResolvedInclude {
                        resolved_name: path.display().to_string(),
                        content,
                    })
                    .map_err(|err| format!("{requester}: cannot include {requested}: {err}"))
            })
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
                write!(
                    generated,
                    "pub const {ident}: Spirv = Spirv {{ name: \"{file_name}\", words: &["
                )
                .unwrap();
                for word in artifact.as_binary() {
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
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR")).join("shaders.rs");
    std::fs::write(out, generated).expect("write shaders.rs");
}
