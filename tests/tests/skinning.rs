//! Skinning accuracy: the compute twin of the unit vertex shader
//! (`skin_twin.comp`, which includes the same `skinning.glsl`) skins sample
//! meshes from their baked data. It must match the CPU twin
//! (`horde::asset::skinning`) to float tolerance, and exact 4-influence glTF
//! evaluation within the error the bake reported.

use std::path::Path;

use ash::vk;
use bytemuck::{Pod, Zeroable};
use glam::{Vec3, Vec4};
use gpu_allocator::MemoryLocation;
use horde::asset::{skinning, BoneEncoding};
use horde::context::Context;
use horde::frames::{write_set, Descriptor};
use horde::gpu_types::{ClipInfo, MAX_CLIPS};
use horde::memory::{submit_and_wait, upload_buffer, upload_image, Buffer};
use horde::owned::{DescriptorPool, Owned};
use horde::pipeline::{binding, compute_pipeline, LayoutDesc};
use horde::sampler::create_bone_sampler;
use horde::shaders;
use horde_bake::{self as bake, sample, two_bone, BakeOptions, Baked};
use horde_tests::{finish, gpu_context, samples_dir};

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct Push {
    quant_min: [f32; 4],
    quant_extent: [f32; 4],
    vertex_count: u32,
    bone_count: u32,
    clip: u32,
    time: f32,
    output_offset: u32,
    pad: [u32; 3],
}

fn quiet(_: &str) {}

fn bake_sample(relative: &str, encoding: BoneEncoding) -> Baked {
    let options = BakeOptions {
        encoding,
        lod_ratios: vec![1.0],
        ..BakeOptions::default()
    };
    let path = samples_dir().join(relative);
    bake::bake_unit(Path::new(&path), &[], &options, &quiet)
        .unwrap_or_else(|err| panic!("baking {relative}: {err}"))
}

/// Runs the twin for every (clip, time) and returns the skinned positions.
fn gpu_skin(ctx: &mut Context, baked: &Baked, samples: &[(u32, f32)]) -> Vec<Vec<Vec3>> {
    let asset = &baked.asset;
    let animation = asset.animation.as_ref().expect("a unit");
    let lod = &asset.lods[0];
    let format = match animation.encoding {
        BoneEncoding::QuatF16 => vk::Format::R16G16B16A16_SFLOAT,
        _ => vk::Format::R32G32B32A32_SFLOAT,
    };
    let mut clips: Vec<ClipInfo> = animation
        .clips
        .iter()
        .map(|c| ClipInfo {
            first_texel: c.first_texel,
            frame_count: c.frame_count,
            duration: c.duration,
            looping: u32::from(c.looping),
        })
        .collect();
    clips.resize(MAX_CLIPS, ClipInfo::default());
    let vertices = upload_buffer(
        ctx,
        "twin vertices",
        vk::BufferUsageFlags::STORAGE_BUFFER,
        bytemuck::cast_slice(&lod.vertices),
    )
    .expect("vertices");
    let clip_buffer = upload_buffer(
        ctx,
        "twin clips",
        vk::BufferUsageFlags::UNIFORM_BUFFER,
        bytemuck::cast_slice(&clips),
    )
    .expect("clips");
    let extent = vk::Extent2D {
        width: animation.texture_width,
        height: animation.texture_height,
    };
    let bones = upload_image(ctx, "twin bones", extent, format, &animation.texels).expect("bones");
    let sampler = create_bone_sampler(ctx).expect("sampler");
    let out_bytes = (lod.vertices.len() * 16) as u64;
    let output = Buffer::new(
        ctx,
        "twin output",
        out_bytes * samples.len() as u64,
        vk::BufferUsageFlags::STORAGE_BUFFER,
        MemoryLocation::GpuToCpu,
    )
    .expect("output");
    let compute = vk::ShaderStageFlags::COMPUTE;
    let set0 = [
        binding(0, vk::DescriptorType::STORAGE_BUFFER, compute),
        binding(1, vk::DescriptorType::UNIFORM_BUFFER, compute),
        binding(2, vk::DescriptorType::COMBINED_IMAGE_SAMPLER, compute),
        binding(3, vk::DescriptorType::STORAGE_BUFFER, compute),
    ];
    let encoding = animation.encoding.shader_constant();
    let pipeline = compute_pipeline(
        ctx,
        "skin twin",
        &shaders::SKIN_TWIN_COMP,
        &LayoutDesc {
            sets: &[&set0],
            push_constant_size: std::mem::size_of::<Push>() as u32,
        },
        &[encoding],
    )
    .expect("pipeline");

    let sizes = [
        vk::DescriptorPoolSize {
            ty: vk::DescriptorType::STORAGE_BUFFER,
            descriptor_count: 2 * samples.len() as u32,
        },
        vk::DescriptorPoolSize {
            ty: vk::DescriptorType::UNIFORM_BUFFER,
            descriptor_count: samples.len() as u32,
        },
        vk::DescriptorPoolSize {
            ty: vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
            descriptor_count: samples.len() as u32,
        },
    ];
    let pool_info = vk::DescriptorPoolCreateInfo::default()
        .max_sets(1)
        .pool_sizes(&sizes);
    // SAFETY: plain creation.
    let pool = unsafe { ctx.device.create_descriptor_pool(&pool_info, None) }.expect("pool");
    let pool: DescriptorPool = Owned::new(ctx, pool, "skin twin descriptors");
    let layouts = [pipeline.set_layouts[0]];
    let alloc = vk::DescriptorSetAllocateInfo::default()
        .descriptor_pool(*pool)
        .set_layouts(&layouts);
    // SAFETY: the pool has room for one set.
    let set = unsafe { ctx.device.allocate_descriptor_sets(&alloc) }.expect("set")[0];
    write_set(
        ctx,
        set,
        &[
            Descriptor::Storage(vertices.raw),
            Descriptor::Uniform(clip_buffer.raw),
            Descriptor::Sampled(bones.view, *sampler),
            Descriptor::Storage(output.raw),
        ],
    );
    let min = Vec3::from(asset.bounds.quant_min);
    let extent = Vec3::from(asset.bounds.quant_max) - min;
    submit_and_wait(ctx, |cmd| {
        for (index, &(clip, time)) in samples.iter().enumerate() {
            let push = Push {
                quant_min: min.extend(0.0).to_array(),
                quant_extent: extent.extend(0.0).to_array(),
                vertex_count: lod.vertices.len() as u32,
                bone_count: animation.bone_count,
                clip,
                time,
                output_offset: (index * lod.vertices.len()) as u32,
                pad: [0; 3],
            };
            // SAFETY: every dispatch writes its own range of the output.
            unsafe {
                ctx.device
                    .cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, pipeline.raw);
                ctx.device.cmd_bind_descriptor_sets(
                    cmd,
                    vk::PipelineBindPoint::COMPUTE,
                    pipeline.layout,
                    0,
                    &[set],
                    &[],
                );
                ctx.device.cmd_push_constants(
                    cmd,
                    pipeline.layout,
                    vk::ShaderStageFlags::COMPUTE,
                    0,
                    bytemuck::bytes_of(&push),
                );
                ctx.device
                    .cmd_dispatch(cmd, (lod.vertices.len() as u32).div_ceil(64), 1, 1);
            }
        }
        let to_host = vk::MemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::SHADER_WRITE)
            .dst_access_mask(vk::AccessFlags::HOST_READ);
        // SAFETY: makes the shader writes visible to the host.
        unsafe {
            ctx.device.cmd_pipeline_barrier(
                cmd,
                vk::PipelineStageFlags::COMPUTE_SHADER,
                vk::PipelineStageFlags::HOST,
                vk::DependencyFlags::empty(),
                &[to_host],
                &[],
                &[],
            );
        }
    })
    .expect("dispatch");
    let words: &[Vec4] = bytemuck::cast_slice(output.mapped().expect("mapped"));
    let results = samples
        .iter()
        .enumerate()
        .map(|(index, _)| {
            let start = index * lod.vertices.len();
            words[start..start + lod.vertices.len()]
                .iter()
                .map(|v| v.truncate())
                .collect()
        })
        .collect();
    // Everything made here drops now; the GPU is idle after submit_and_wait.
    results
}

/// Checks the GPU twin against the CPU twin and exact glTF skinning.
fn check(relative: &str, encoding: BoneEncoding) {
    let baked = bake_sample(relative, encoding);
    let asset = &baked.asset;
    let animation = asset.animation.as_ref().expect("a unit");
    let texels = skinning::texels_f32(animation);
    // Three times per clip: start, a mid-frame time, and past the end (which
    // wraps or clamps).
    let mut samples = Vec::new();
    for (index, clip) in animation.clips.iter().enumerate().take(4) {
        let frame = clip.duration / (clip.frame_count.max(2) - 1) as f32;
        for time in [0.0, frame * 2.5, clip.duration * 1.37] {
            samples.push((index as u32, time));
        }
    }
    let mut ctx = gpu_context(None);
    let gpu = gpu_skin(&mut ctx, &baked, &samples);
    finish(ctx);

    let height = asset.report.model_height.max(1e-3);
    let float_tolerance = 2e-5 * height;
    let exact_tolerance = asset.report.total.max + float_tolerance;
    let (mut worst_cpu, mut worst_exact) = (0.0f32, 0.0f32);
    for ((clip_index, time), positions) in samples.iter().zip(&gpu) {
        let clip = &animation.clips[*clip_index as usize];
        let pose = skinning::sample_pose(animation, &texels, clip, *time);
        let source_clip = &baked.source.clips[*clip_index as usize];
        let exact_time = if clip.looping && clip.duration > 0.0 {
            time.rem_euclid(clip.duration)
        } else {
            time.clamp(0.0, clip.duration)
        };
        let exact = sample::skin_matrices(&baked.source.skeleton, Some(source_clip), exact_time);
        for ((vertex, gpu_position), &source) in asset.lods[0]
            .vertices
            .iter()
            .zip(positions)
            .zip(&baked.source_vertex[0])
        {
            let cpu = skinning::skin_position(animation.encoding, &asset.bounds, vertex, &pose);
            worst_cpu = worst_cpu.max(cpu.distance(*gpu_position));
            let source = source as usize;
            let reference = two_bone::skin_exact(
                &exact,
                &baked.source.influences[source],
                baked.source.positions[source],
            );
            worst_exact = worst_exact.max(reference.distance(*gpu_position));
        }
    }
    println!(
        "{relative} {}: GPU vs CPU twin {worst_cpu:.2e}, vs exact {worst_exact:.2e} (bake reported {:.2e})",
        encoding.name(),
        asset.report.total.max
    );
    assert!(
        worst_cpu <= float_tolerance,
        "{relative}: GPU and CPU twin differ by {worst_cpu}"
    );
    assert!(
        worst_exact <= exact_tolerance,
        "{relative}: GPU vs exact {worst_exact} exceeds the reported {}",
        asset.report.total.max
    );
}

#[test]
fn cesium_man_mat3x4_matches_cpu_and_exact() {
    check("CesiumMan/CesiumMan.glb", BoneEncoding::Mat3x4F32);
}

#[test]
fn cesium_man_quat16_matches_cpu_and_exact() {
    check("CesiumMan/CesiumMan.glb", BoneEncoding::QuatF16);
}

#[test]
fn cesium_man_dual_quaternion_matches_cpu_and_exact() {
    let baked = bake_sample("CesiumMan/CesiumMan.glb", BoneEncoding::DualQuatF32);
    let stored = baked
        .asset
        .animation
        .as_ref()
        .map(|animation| animation.encoding);
    assert_eq!(
        stored,
        Some(BoneEncoding::DualQuatF32),
        "fell back: {:?}",
        baked.asset.report.warnings
    );
    check("CesiumMan/CesiumMan.glb", BoneEncoding::DualQuatF32);
}

#[test]
fn fox_quat32_matches_cpu_and_exact() {
    check("Fox/Fox.glb", BoneEncoding::QuatF32);
}

#[test]
fn rigged_figure_mat3x4_matches_cpu_and_exact() {
    check("RiggedFigure/RiggedFigure.glb", BoneEncoding::Mat3x4F32);
}
