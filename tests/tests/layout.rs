//! CPU/GPU struct layouts and pipeline-layout checking, from SPIR-V reflection.

use ash::vk;
use horde::gpu_types::Layouts;
use horde::pipeline::{binding, check_layout, LayoutDesc};
use horde::reflect::reflect;
use horde::{shaders, Spirv};

/// The core's shared structs against the core's shaders, and the battle's
/// against the battle's.
#[test]
fn shared_structs_match_the_glsl_layout() {
    check_struct_layouts(shaders::ALL, horde::gpu_types::layouts());
    check_struct_layouts(
        horde_battle::shaders::ALL,
        horde_battle::gpu_types::layouts(),
    );
}

fn check_struct_layouts(shaders: &[Spirv], layouts: Layouts) {
    let reflections: Vec<_> = shaders
        .iter()
        .map(|shader| (shader.name, reflect(shader.words).expect("reflect")))
        .collect();
    for (name, members) in layouts {
        let mut checked = 0;
        for (shader, reflection) in &reflections {
            // A struct used in a buffer block carries its offsets; a struct
            // only used as a local value has none and is skipped.
            let Some(glsl) = reflection.structs.get(name) else {
                continue;
            };
            if glsl.members.len() > 1 && glsl.members.iter().skip(1).all(|(_, o)| *o == 0) {
                continue;
            }
            let glsl_members: Vec<(&str, usize)> = glsl
                .members
                .iter()
                .map(|(member, offset)| (member.as_str(), *offset as usize))
                .collect();
            assert_eq!(glsl_members, members, "layout of {name} in {shader}");
            checked += 1;
        }
        assert!(checked > 0, "no shader lays out {name} in a buffer");
    }
}

#[test]
fn mesh_shaders_declare_what_the_pass_binds() {
    let reflection = reflect(shaders::MESH_VERT.words).expect("reflect");
    let used: Vec<(u32, u32, vk::DescriptorType)> = reflection
        .bindings
        .iter()
        .map(|b| (b.set, b.binding, b.kind))
        .collect();
    assert_eq!(
        used,
        vec![
            (0, 0, vk::DescriptorType::UNIFORM_BUFFER),
            (0, 1, vk::DescriptorType::UNIFORM_BUFFER),
            (0, 2, vk::DescriptorType::STORAGE_BUFFER),
            (0, 3, vk::DescriptorType::STORAGE_BUFFER)
        ]
    );
    assert_eq!(reflection.input_locations, vec![0, 1, 2]);
}

#[test]
fn layout_mismatches_are_clear_errors() {
    let stages = vk::ShaderStageFlags::VERTEX | vk::ShaderStageFlags::FRAGMENT;
    let wrong_type = [
        binding(0, vk::DescriptorType::UNIFORM_BUFFER, stages),
        binding(1, vk::DescriptorType::UNIFORM_BUFFER, stages),
        binding(2, vk::DescriptorType::UNIFORM_BUFFER, stages),
        binding(3, vk::DescriptorType::STORAGE_BUFFER, stages),
    ];
    let err = check_layout(
        &shaders::MESH_VERT,
        vk::ShaderStageFlags::VERTEX,
        &LayoutDesc {
            sets: &[&wrong_type],
            push_constant_size: 0,
        },
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("mesh.vert") && err.contains("set 0 binding 2"),
        "{err}"
    );
    assert!(
        err.contains("STORAGE_BUFFER in the shader but UNIFORM_BUFFER"),
        "{err}"
    );

    let missing = [binding(0, vk::DescriptorType::UNIFORM_BUFFER, stages)];
    let err = check_layout(
        &shaders::MESH_VERT,
        vk::ShaderStageFlags::VERTEX,
        &LayoutDesc {
            sets: &[&missing],
            push_constant_size: 0,
        },
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("does not declare"), "{err}");

    let hidden = [
        binding(0, vk::DescriptorType::UNIFORM_BUFFER, stages),
        binding(1, vk::DescriptorType::UNIFORM_BUFFER, stages),
        binding(
            2,
            vk::DescriptorType::STORAGE_BUFFER,
            vk::ShaderStageFlags::FRAGMENT,
        ),
        binding(3, vk::DescriptorType::STORAGE_BUFFER, stages),
    ];
    let err = check_layout(
        &shaders::MESH_VERT,
        vk::ShaderStageFlags::VERTEX,
        &LayoutDesc {
            sets: &[&hidden],
            push_constant_size: 0,
        },
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("not visible to the VERTEX stage"), "{err}");
}

/// Every GLSL file under `dir`, its subfolders' too, as (path, text).
fn shader_sources(dir: &std::path::Path) -> Vec<(String, String)> {
    let mut sources = Vec::new();
    for entry in std::fs::read_dir(dir).expect("read a shader folder") {
        let path = entry.expect("shader folder entry").path();
        if path.is_dir() {
            sources.extend(shader_sources(&path));
        } else {
            let text = std::fs::read_to_string(&path).expect("read a shader");
            sources.push((path.display().to_string(), text));
        }
    }
    sources
}

/// Every constant shared with GLSL reaches the shaders from a `config.rs`
/// (the core's, or the battle's for `shaders/battle/`) as a macro
/// definition: no shader defines one itself, and each is used.
#[test]
fn shader_constants_come_from_config_only() {
    let sources = shader_sources(&horde_tests::repo_root().join("shaders"));
    let battle_names = horde_battle::config::SHADER_CONSTANTS
        .iter()
        .map(|(name, _)| *name);
    let core_names = horde::config::SHADER_CONSTANTS
        .iter()
        .map(|(name, _)| *name);
    for name in core_names.chain(battle_names) {
        for (path, text) in &sources {
            let defines = text.lines().any(|line| {
                let mut words = line.split_whitespace();
                words.next() == Some("#define") && words.next() == Some(name)
            });
            assert!(!defines, "{path} defines {name}, which config.rs provides");
        }
        assert!(
            sources.iter().any(|(_, text)| text.contains(name)),
            "no shader uses {name}: remove it from SHADER_CONSTANTS"
        );
    }
}

/// The values the shaders were compiled with are the ones in `config.rs`:
/// reflection of a compute shader's workgroup size shows the specialization
/// route, and the constants' GLSL literals round-trip exactly.
#[test]
fn shader_constant_literals_are_exact() {
    use horde::config::ShaderValue;
    use horde::reflect::LocalSize;
    for (name, value) in horde::config::SHADER_CONSTANTS {
        let literal = value.glsl();
        match value {
            ShaderValue::U32(v) => assert_eq!(literal, format!("{v}u"), "{name}"),
            ShaderValue::F32(v) => {
                let bits: u32 = literal
                    .trim_start_matches("uintBitsToFloat(")
                    .trim_end_matches("u)")
                    .parse()
                    .expect("float literal as bits");
                assert_eq!(f32::from_bits(bits), *v, "{name}");
            }
        }
    }
    let cull = reflect(shaders::CULL_COMP.words).expect("reflect cull.comp");
    assert_eq!(cull.local_size[0], LocalSize::SpecConstant(0));
    let twin = reflect(shaders::SKIN_TWIN_COMP.words).expect("reflect skin_twin.comp");
    assert_eq!(twin.local_size[0], LocalSize::Literal(64));
}

/// The checked dispatch refuses descriptors and push constants that do not
/// fit the shader.
#[test]
fn dispatch_checks_descriptors_and_push_constants() {
    use horde::frame::ComputePipeline;
    use horde::frames::Descriptor;
    let ctx = horde_tests::gpu_context(None);
    let storage = vk::DescriptorType::STORAGE_BUFFER;
    let pipeline = ComputePipeline::new(
        &ctx,
        "scatter under test",
        &shaders::SCATTER_COMP,
        &[storage, storage],
        &[64],
    )
    .expect("create the pipeline");
    assert_eq!(pipeline.workgroup_size, 64);
    assert_eq!(pipeline.push_constant_size, 16);
    let buffer = vk::Buffer::null();
    let good = [Descriptor::Storage(buffer), Descriptor::Storage(buffer)];
    assert!(pipeline.check(&good, &[0; 16]).is_ok());
    let err = pipeline
        .check(&good[..1], &[0; 16])
        .unwrap_err()
        .to_string();
    assert!(err.contains("1 descriptors given for 2 bindings"), "{err}");
    let wrong = [Descriptor::Uniform(buffer), Descriptor::Storage(buffer)];
    let err = pipeline.check(&wrong, &[0; 16]).unwrap_err().to_string();
    assert!(err.contains("binding 0 is STORAGE_BUFFER"), "{err}");
    let err = pipeline.check(&good, &[0; 8]).unwrap_err().to_string();
    assert!(
        err.contains("reads 16 bytes of push constants but 8"),
        "{err}"
    );
    drop(pipeline);
    horde_tests::finish(ctx);
}
