//! CPU/GPU struct layouts and pipeline-layout checking, from SPIR-V reflection.

use ash::vk;
use horde::gpu_types::layouts;
use horde::pipeline::{binding, check_layout, LayoutDesc};
use horde::reflect::reflect;
use horde::shaders;

#[test]
fn shared_structs_match_the_glsl_layout() {
    let reflections: Vec<_> = shaders::ALL
        .iter()
        .map(|shader| (shader.name, reflect(shader.words).expect("reflect")))
        .collect();
    for (name, members) in layouts() {
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
            (0, 2, vk::DescriptorType::STORAGE_BUFFER)
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
