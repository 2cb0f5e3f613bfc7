//! The clips' bounding spheres (`horde_asset::clip_bounds`), which the
//! posed cull's occlusion test takes: every vertex of every LOD, skinned as
//! the GPU skins it (the CPU twin, `horde::asset::skinning`) at times
//! between the sampled ones, lies inside its clip's sphere, and a
//! crossfade's inside the sphere the cull takes around both clips'
//! (`horde::reference::cull::occlusion_sphere`), which the shader's choice
//! equals (`clip_spheres_test.comp`). They must also be tighter than the
//! asset's own sphere, or occlusion culling gains nothing.

use std::path::Path;

use bytemuck::{Pod, Zeroable};
use glam::Vec3;
use horde::asset::clip_bounds::{clip_spheres, SphereXyzr};
use horde::asset::{skinning, Asset, BoneEncoding};
use horde::config::{ANIM_CURRENT_CLIP_SHIFT, ANIM_PREVIOUS_CLIP_SHIFT};
use horde::gpu_types::{AnimState, TypeInfo, MAX_CLIPS};
use horde::reference::cull::occlusion_sphere;
use horde::shaders;
use horde_bake::{self as bake, BakeOptions};
use horde_tests::{baked_knight, finish, gpu_context, run_storage_kernel, samples_dir};

/// Times per frame interval the containment is checked at (none of them the
/// halfway sample the spheres were built from, apart from the ends).
const STEPS_PER_FRAME: u32 = 5;

/// Every (clip, time) this test checks: each frame interval at
/// `STEPS_PER_FRAME` points.
fn check_times(asset: &Asset) -> Vec<(usize, f32)> {
    let animation = asset.animation.as_ref().expect("a unit");
    let mut times = Vec::new();
    for (index, clip) in animation.clips.iter().enumerate() {
        let intervals = clip.frame_count.saturating_sub(1).max(1);
        for step in 0..=intervals * STEPS_PER_FRAME {
            let fraction = step as f32 / (intervals * STEPS_PER_FRAME) as f32;
            times.push((index, clip.duration * fraction));
        }
    }
    times
}

/// Every LOD vertex skinned at (clip, time).
fn skinned(asset: &Asset, texels: &[glam::Vec4], clip: usize, time: f32) -> Vec<Vec3> {
    let animation = asset.animation.as_ref().expect("a unit");
    let pose = skinning::sample_pose(animation, texels, &animation.clips[clip], time);
    asset
        .lods
        .iter()
        .flat_map(|lod| &lod.vertices)
        .map(|vertex| skinning::skin_position(animation.encoding, &asset.bounds, vertex, &pose))
        .collect()
}

/// How far `point` lies outside `sphere` (negative inside).
fn outside(sphere: &SphereXyzr, point: Vec3) -> f32 {
    point.distance(Vec3::from_slice(sphere)) - sphere[3]
}

/// Asserts that every LOD vertex lies inside its clip's sphere at every
/// checked time; returns the spheres.
fn check_containment(name: &str, asset: &Asset) -> Vec<SphereXyzr> {
    let spheres = clip_spheres(asset);
    let animation = asset.animation.as_ref().expect("a unit");
    assert_eq!(
        spheres.len(),
        animation.clips.len(),
        "{name}: a sphere per clip"
    );
    let texels = skinning::texels_f32(animation);
    for (clip, time) in check_times(asset) {
        let worst = skinned(asset, &texels, clip, time)
            .into_iter()
            .map(|point| outside(&spheres[clip], point))
            .fold(f32::NEG_INFINITY, f32::max);
        assert!(
            worst <= 0.0,
            "{name}: clip '{}' at {time} s reaches {worst} past its sphere {:?}",
            animation.clips[clip].name,
            spheres[clip]
        );
    }
    spheres
}

fn bake_sample(relative: &str, encoding: BoneEncoding) -> Asset {
    let options = BakeOptions {
        encoding,
        ..BakeOptions::default()
    };
    let path = samples_dir().join(relative);
    bake::bake_unit(Path::new(&path), &[], &options, &|_| {})
        .unwrap_or_else(|err| panic!("baking {relative}: {err}"))
        .asset
}

#[test]
fn the_knights_clips_hold_every_lod_and_are_tighter_than_its_sphere() {
    let knight = baked_knight();
    let spheres = check_containment("knight", &knight);
    let animation = knight.animation.as_ref().expect("a unit");
    let whole = knight.bounds.sphere_radius;
    for (clip, sphere) in animation.clips.iter().zip(&spheres) {
        println!("{}: radius {:.3} of {whole:.3}", clip.name, sphere[3]);
    }
    let standing = animation
        .clips
        .iter()
        .zip(&spheres)
        .filter(|(clip, _)| clip.name != "die");
    for (clip, sphere) in standing {
        assert!(
            sphere[3] < 0.65 * whole,
            "clip '{}': radius {} is not much tighter than the asset's {whole}",
            clip.name,
            sphere[3]
        );
    }

    // A crossfade blends two clips' skinned positions: each blend lies in
    // the sphere the cull takes around both.
    let texels = skinning::texels_f32(animation);
    let type_info = TypeInfo {
        sphere_center: knight.bounds.sphere_center,
        sphere_radius: knight.bounds.sphere_radius,
        clip_count: animation.clips.len() as u32,
        ..TypeInfo::default()
    };
    let count = animation.clips.len();
    for (current, previous) in (0..count).flat_map(|a| (0..count).map(move |b| (a, b))) {
        let anim = AnimState {
            clips: (current as u32) << ANIM_CURRENT_CLIP_SHIFT
                | (previous as u32) << ANIM_PREVIOUS_CLIP_SHIFT,
            blend: u32::from(half::f16::from_f32(0.5).to_bits()),
            ..AnimState::default()
        };
        let sphere = occlusion_sphere(&type_info, &anim, &spheres);
        let at = |clip: usize| animation.clips[clip].duration * 0.37;
        let a = skinned(&knight, &texels, current, at(current));
        let b = skinned(&knight, &texels, previous, at(previous));
        for blend in [0.0, 0.25, 0.5, 0.75, 1.0] {
            let worst = a
                .iter()
                .zip(&b)
                .map(|(a, b)| outside(&sphere, b.lerp(*a, blend)))
                .fold(f32::NEG_INFINITY, f32::max);
            assert!(
                worst <= 0.0,
                "clips {current} and {previous} blended {blend}: {worst} past {sphere:?}"
            );
        }
    }
}

#[test]
fn quaternion_encodings_stay_inside_between_frames() {
    check_containment(
        "Fox quat32",
        &bake_sample("Fox/Fox.glb", BoneEncoding::QuatF32),
    );
    check_containment(
        "CesiumMan quat16",
        &bake_sample("CesiumMan/CesiumMan.glb", BoneEncoding::QuatF16),
    );
}

#[test]
fn dual_quaternions_keep_the_assets_sphere() {
    let asset = bake_sample("CesiumMan/CesiumMan.glb", BoneEncoding::DualQuatF32);
    let bounds = &asset.bounds;
    let [x, y, z] = bounds.sphere_center;
    for sphere in clip_spheres(&asset) {
        assert_eq!(sphere, [x, y, z, bounds.sphere_radius]);
    }
}

/// `clip_spheres_test.comp`'s case, as std430 lays it out.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct SphereCase {
    whole: [f32; 4],
    first_clip: u32,
    clip_count: u32,
    pad: [u32; 2],
    anim: AnimState,
}

/// The sphere the posed cull takes (`clip_spheres.glsl`) is its twin's
/// (`reference::cull::occlusion_sphere`) on random clip tables and states:
/// clips out of range, blends of 0, between, 1, above 1 and NaN, spheres
/// inside others and apart, and types whose own sphere is the smaller.
#[test]
fn the_gpu_takes_the_twins_sphere() {
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 40) as f32 / (1u64 << 24) as f32
    };
    let mut table: Vec<SphereXyzr> = Vec::with_capacity(MAX_CLIPS);
    for index in 0..MAX_CLIPS {
        let sphere = [
            next() * 2.0 - 1.0,
            next() * 2.0,
            next() * 2.0 - 1.0,
            0.2 + next() * 2.0,
        ];
        // Every fourth sphere lies inside the one before it.
        table.push(match (index % 4, table.last()) {
            (3, Some(&[x, y, z, r])) => [x + 0.1 * r, y, z, 0.5 * r],
            _ => sphere,
        });
    }
    let blends = [0.0, 0.25, 0.5, 0.999, 1.0, 2.0, f32::NAN];
    let cases: Vec<SphereCase> = (0..4096)
        .map(|_| {
            let clip_count = (next() * 12.0) as u32;
            let near_end = next() < 0.1;
            let first_clip = if near_end {
                MAX_CLIPS as u32 - (next() * 12.0) as u32
            } else {
                (next() * (MAX_CLIPS - 16) as f32) as u32
            };
            // Two past the type's clips now and then.
            let current = (next() * (clip_count + 2) as f32) as u32;
            let previous = (next() * (clip_count + 2) as f32) as u32;
            let blend = blends[(next() * blends.len() as f32) as usize % blends.len()];
            SphereCase {
                whole: [0.0, 1.4, 0.0, 0.5 + next() * 2.5],
                first_clip,
                clip_count,
                pad: [0; 2],
                anim: AnimState {
                    clips: current << ANIM_CURRENT_CLIP_SHIFT
                        | previous << ANIM_PREVIOUS_CLIP_SHIFT,
                    blend: u32::from(half::f16::from_f32(blend).to_bits()),
                    ..AnimState::default()
                },
            }
        })
        .collect();
    let mut ctx = gpu_context(None);
    let bytes = run_storage_kernel(
        &mut ctx,
        "clip spheres test",
        &shaders::CLIP_SPHERES_TEST_COMP,
        &[bytemuck::cast_slice(&cases), bytemuck::cast_slice(&table)],
        (cases.len() * 16) as u64,
        bytemuck::bytes_of(&(cases.len() as u32)),
        cases.len() as u32,
    );
    finish(ctx);
    let gpu: Vec<SphereXyzr> = bytemuck::pod_collect_to_vec(&bytes);
    let mut posed = 0;
    for (index, (case, gpu)) in cases.iter().zip(&gpu).enumerate() {
        let type_info = TypeInfo {
            sphere_center: [case.whole[0], case.whole[1], case.whole[2]],
            sphere_radius: case.whole[3],
            first_clip: case.first_clip,
            clip_count: case.clip_count,
            ..TypeInfo::default()
        };
        let twin = occlusion_sphere(&type_info, &case.anim, &table);
        let worst = gpu
            .iter()
            .zip(&twin)
            .map(|(g, t)| (g - t).abs() / (1.0 + t.abs()))
            .fold(0.0, f32::max);
        assert!(
            worst <= 1e-5,
            "case {index}: the GPU took {gpu:?}, the twin {twin:?}"
        );
        posed += usize::from(twin != case.whole);
    }
    assert!(posed > 1000, "only {posed} cases took a clip's sphere");
}
