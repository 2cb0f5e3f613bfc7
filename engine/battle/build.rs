//! Compiles the battle's shaders (`../../shaders/battle`), which include the
//! core's headers (`../../shaders`), with the core's constants and the
//! battle's own (`src/config.rs`) as macro definitions.

use std::path::PathBuf;

#[allow(dead_code)]
#[path = "../src/config.rs"]
mod core_config;

#[allow(dead_code)]
#[path = "src/config.rs"]
mod config;

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let shaders = manifest.join("../../shaders");
    let battle_shaders = shaders.join("battle");
    println!("cargo:rerun-if-changed=src/config.rs");
    println!("cargo:rerun-if-changed=../src/config.rs");
    let constants: Vec<(&str, String)> = core_config::SHADER_CONSTANTS
        .iter()
        .map(|(name, value)| (*name, value.glsl()))
        .chain(
            config::SHADER_CONSTANTS
                .iter()
                .map(|(name, value)| (*name, format!("{value}u"))),
        )
        .collect();
    horde_shader_build::compile(&horde_shader_build::ShaderSet {
        stages: &battle_shaders,
        include_dirs: &[&battle_shaders, &shaders],
        constants: &constants,
    });
}
