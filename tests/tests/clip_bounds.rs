//! The clips' bounding spheres (`horde_asset::clip_bounds`), which the
//! posed cull's occlusion test takes: every vertex of every LOD, skinned as
//! the GPU skins it (the CPU twin, `horde::asset::skinning`) at times
//! between the sampled ones, lies inside its clip's sphere, and a
//! crossfade's inside the sphere the cull takes around both clips'
//! (`horde::reference::cull::occlusion_sphere`). They must also be tighter
//! than the asset's own sphere, or occlusion culling gains nothing.

use std::path::Path;

use glam::Vec3;
use horde::asset::clip_bounds::{clip_spheres, SphereXyzr};
use horde::asset::{skinning, Asset, BoneEncoding};
use horde::config::{ANIM_CURRENT_CLIP_SHIFT, ANIM_PREVIOUS_CLIP_SHIFT};
use horde::gpu_types::{AnimState, TypeInfo};
use horde::reference::cull::occlusion_sphere;
use horde_bake::{self as bake, BakeOptions};
use horde_tests::{baked_knight, samples_dir};

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
