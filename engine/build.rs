//! Compiles every GLSL stage in `../shaders` (not its subfolders: those
//! belong to other crates) to SPIR-V and embeds it (`horde-shader-build`).
//! Every entry of `config::SHADER_CONSTANTS` is a macro definition of the
//! same name (unsigned literals; floats through `uintBitsToFloat`, exact).

use std::path::PathBuf;

#[allow(dead_code)]
#[path = "src/config.rs"]
mod config;

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let shaders = manifest.join("../shaders");
    println!("cargo:rerun-if-changed=src/config.rs");
    let constants: Vec<(&str, String)> = config::SHADER_CONSTANTS
        .iter()
        .map(|(name, value)| (*name, value.glsl()))
        .collect();
    horde_shader_build::compile(&horde_shader_build::ShaderSet {
        stages: &shaders,
        include_dirs: &[&shaders],
        constants: &constants,
    });
}
