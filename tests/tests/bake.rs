//! Bake pipeline tests: every sample model baked and checked against exact glTF
//! evaluation, hand-computed poses, round trips, the two-bone fit, and hostile
//! inputs for both the `.horde` reader and the glTF importer.

use glam::{Mat4, Quat, Vec3, Vec4};
use horde_asset::{self as asset, skinning, Asset, BoneEncoding};
use horde_bake::import::{Channel, Interp, Target};
use horde_bake::silhouette::{Shape, Silhouette};
use horde_bake::{self as bake, sample, two_bone, BakeOptions, Baked, ClipSelection};
use std::f32::consts::FRAC_1_SQRT_2;
use std::path::{Path, PathBuf};

/// The shared sample models beside the repository. A checkout elsewhere (a git
/// worktree) points `HORDE_GLTF_SAMPLES` at them instead.
const SAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/gltf-samples");

fn sample_path(relative: &str) -> PathBuf {
    let root = std::env::var_os("HORDE_GLTF_SAMPLES")
        .map_or_else(|| PathBuf::from(SAMPLES), PathBuf::from);
    root.join(relative)
}

fn quiet(_: &str) {}

fn bake_sample(character: &str, libraries: &[&str], options: &BakeOptions) -> Baked {
    let libraries: Vec<PathBuf> = libraries.iter().map(|l| sample_path(l)).collect();
    let libraries: Vec<&Path> = libraries.iter().map(PathBuf::as_path).collect();
    bake::bake_unit(&sample_path(character), &libraries, options, &quiet)
        .unwrap_or_else(|error| panic!("baking {character}: {error}"))
}

/// Writes, reads back and compares; returns the asset as read.
fn round_trip(asset: &Asset) -> Asset {
    let bytes = asset::write(asset).unwrap_or_else(|error| panic!("{}: {error}", asset.name));
    let read = asset::read(&bytes).unwrap_or_else(|error| panic!("{}: {error}", asset.name));
    assert_eq!(&read, asset, "round trip changed {}", asset.name);
    read
}

/// Checks the runtime reading of the file against exact four-influence skinning
/// of the source at every `stride`-th report time (frames and mid-frames), and
/// that the bounding sphere holds every runtime position.
fn check_against_exact(baked: &Baked, read: &Asset, stride: usize) {
    let animation = read.animation.as_ref().expect("unit has animation");
    let texels = skinning::texels_f32(animation);
    let lod0 = &read.lods[0];
    let map = &baked.source_vertex[0];
    let report = &read.report;
    let tolerance = report.total.max + 1e-5 * report.model_height.max(1.0);
    let center = Vec3::from(read.bounds.sphere_center);
    let mut worst = 0.0f32;
    for (clip, stored) in baked.source.clips.iter().zip(&animation.clips) {
        let count = stored.frame_count;
        let steps = if count > 1 { 2 * (count - 1) + 1 } else { 1 };
        for step in (0..steps).step_by(stride) {
            if stored.looping && step == steps - 1 && count > 1 {
                continue;
            }
            let time = sample::frame_time(stored.duration, count, step as f32 * 0.5);
            let exact = sample::skin_matrices(&baked.source.skeleton, Some(clip), time);
            let runtime = skinning::sample_pose(animation, &texels, stored, time);
            for (vertex, &source) in lod0.vertices.iter().zip(map) {
                let source = source as usize;
                let reference = two_bone::skin_exact(
                    &exact,
                    &baked.source.influences[source],
                    baked.source.positions[source],
                );
                let actual =
                    skinning::skin_position(animation.encoding, &read.bounds, vertex, &runtime);
                worst = worst.max(actual.distance(reference));
                assert!(
                    actual.distance(center) <= read.bounds.sphere_radius,
                    "{}: clip {:?} t {time}: vertex outside the bounding sphere",
                    read.name,
                    stored.name
                );
            }
        }
    }
    assert!(
        worst <= tolerance,
        "{}: runtime error {worst} exceeds the reported {}",
        read.name,
        report.total.max
    );
}

fn has_more_than_two_influences(baked: &Baked) -> bool {
    baked
        .source
        .influences
        .iter()
        .any(|influences| influences.count() > 2)
}

fn check_sample(
    name: &str,
    character: &str,
    libraries: &[&str],
    options: &BakeOptions,
    stride: usize,
) {
    let baked = bake_sample(character, libraries, options);
    let read = round_trip(&baked.asset);
    check_against_exact(&baked, &read, stride);
    let report = &read.report;
    let lods = &read.lods;
    // One LOD per ratio (the raster-only ones where they are steps), less
    // coarse ones that covered too little of the silhouette, plus the coarse
    // proxy where the box-per-bone one replaced the coarsest
    // (`every_lod_covers_the_silhouette`).
    let ratios =
        BakeOptions::default().lod_ratios.len() + BakeOptions::default().raster_lod_ratios.len();
    assert!(
        (2..=ratios + 1).contains(&lods.len()),
        "{name}: {} LODs",
        lods.len()
    );
    assert!(
        lods.windows(2)
            .all(|pair| pair[1].indices.len() <= pair[0].indices.len()),
        "{name}: every LOD is at most as detailed as the one before"
    );
    assert!(
        lods.iter().all(|lod| lod.indices.len() >= 3),
        "{name}: an empty LOD"
    );
    if has_more_than_two_influences(&baked) {
        assert!(
            report.two_bone_fitted.rms < report.two_bone_naive.rms,
            "{name}: fitted RMS {} does not beat naive {}",
            report.two_bone_fitted.rms,
            report.two_bone_naive.rms
        );
    } else {
        assert!(
            report.two_bone_fitted.rms <= report.two_bone_naive.rms + 1e-7,
            "{name}"
        );
    }
    println!("{name}: {}", bake::inspect::report_text(report));
}

#[test]
fn simple_skin_within_reported_error() {
    check_sample(
        "SimpleSkin",
        "SimpleSkin/SimpleSkin.gltf",
        &[],
        &BakeOptions::default(),
        1,
    );
}

#[test]
fn rigged_simple_within_reported_error() {
    check_sample(
        "RiggedSimple",
        "RiggedSimple/RiggedSimple.glb",
        &[],
        &BakeOptions::default(),
        1,
    );
}

#[test]
fn rigged_figure_within_reported_error() {
    check_sample(
        "RiggedFigure",
        "RiggedFigure/RiggedFigure.glb",
        &[],
        &BakeOptions::default(),
        1,
    );
}

#[test]
fn cesium_man_within_reported_error() {
    check_sample(
        "CesiumMan",
        "CesiumMan/CesiumMan.glb",
        &[],
        &BakeOptions::default(),
        1,
    );
}

#[test]
fn fox_within_reported_error() {
    check_sample("Fox", "Fox/Fox.glb", &[], &BakeOptions::default(), 1);
}

#[test]
fn skeleton_minion_within_reported_error() {
    let path = "KayKit_Skeleton_Minion/skeleton_minion.glb";
    check_sample("Minion", path, &[], &BakeOptions::default(), 1);
}

#[test]
fn knight_within_reported_error() {
    check_sample(
        "Knight",
        "KayKit_Knight/Knight.glb",
        &[],
        &BakeOptions::default(),
        7,
    );
}

#[test]
fn warrior_with_knight_clips_within_reported_error() {
    let options = BakeOptions {
        clips: [
            "Idle",
            "Walking_A=walk",
            "Running_A=run",
            "1H_Melee_Attack_Chop=attack",
            "Death_A=die",
        ]
        .map(ClipSelection::parse)
        .to_vec(),
        ..BakeOptions::default()
    };
    let warrior = "KayKit_Skeleton_Warrior/Skeleton_Warrior.glb";
    check_sample(
        "Warrior",
        warrior,
        &["KayKit_Knight/Knight.glb"],
        &options,
        1,
    );
    let baked = bake_sample(warrior, &["KayKit_Knight/Knight.glb"], &options);
    let names: Vec<&str> = baked
        .asset
        .animation
        .iter()
        .flat_map(|a| &a.clips)
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(names, ["Idle", "walk", "run", "attack", "die"]);
}

#[test]
fn warrior_without_clips_is_refused() {
    let path = sample_path("KayKit_Skeleton_Warrior/Skeleton_Warrior.glb");
    let error = bake::bake_unit(&path, &[], &BakeOptions::default(), &quiet).expect_err("error");
    assert!(error.to_string().contains("no animation clips"), "{error}");
    assert!(
        error.to_string().contains("Skeleton_Warrior.glb"),
        "{error}"
    );
}

#[test]
fn every_encoding_round_trips_and_reports() {
    for encoding in BoneEncoding::ALL {
        let options = BakeOptions {
            encoding,
            ..BakeOptions::default()
        };
        let baked = bake_sample("CesiumMan/CesiumMan.glb", &[], &options);
        let read = round_trip(&baked.asset);
        assert_eq!(read.animation.as_ref().map(|a| a.encoding), Some(encoding));
        check_against_exact(&baked, &read, 3);
        let report = &read.report;
        assert!(report.mat3x4.max <= report.quat32.max && report.quat32.max <= report.quat16.max);
    }
}

#[test]
fn prop_bakes_and_round_trips() {
    let path = sample_path("RiggedSimple/RiggedSimple.glb");
    let baked = bake::bake_prop(&path, &BakeOptions::default(), &quiet).expect("prop");
    let read = round_trip(&baked.asset);
    assert!(read.animation.is_none() && read.bone_names.is_empty());
    assert!(read.lods[0].vertices.iter().all(|v| v.bones == [0, 0]));
    assert!(read
        .report
        .warnings
        .iter()
        .any(|w| w.contains("static prop")));
}

#[test]
fn write_through_output_path_then_read_file() {
    let baked = bake_sample("SimpleSkin/SimpleSkin.gltf", &[], &BakeOptions::default());
    let dir = scratch_dir("atomic");
    let path = dir.join("simple.horde");
    let bytes = asset::write(&baked.asset).expect("encode");
    let output = bake::output::OutputPath::check(&path).expect("check");
    output.write(&bytes).expect("write");
    assert_eq!(asset::read_file(&path).expect("read"), baked.asset);
    let leftovers = std::fs::read_dir(&dir).expect("dir").count();
    assert_eq!(leftovers, 1, "temporary file left behind");
    let missing = asset::read_file(dir.join("none.horde"))
        .expect_err("error")
        .to_string();
    assert!(missing.contains("none.horde"), "{missing}");
}

// ---------------------------------------------------------------- pose sampling

#[test]
fn simple_skin_poses_match_hand_computation() {
    let model =
        bake::import::import_character(&sample_path("SimpleSkin/SimpleSkin.gltf")).expect("import");
    let clip = &model.clips[0];
    assert_eq!((clip.start, clip.duration), (0.0, 5.5));
    // Joint 1 sits at (0, 1, 0) and rotates about z; its skin matrix rotates
    // the point (0.5, 2, 0) about the pivot (0, 1, 0).
    let point = Vec3::new(0.5, 2.0, 0.0);
    let rotate = |degrees: f32| {
        let (sin, cos) = degrees.to_radians().sin_cos();
        Vec3::new(0.5 * cos - sin, 0.5 * sin + cos + 1.0, 0.0)
    };
    // t = 1.0: key 2, (0, 0, 0.707, 0.707) = 90 degrees.
    // t = 0.25: halfway from identity to key 1 (45 degrees): 22.5 degrees.
    // t = 5.25: halfway from key 10 (-45 degrees) to key 11 (identity).
    for (time, degrees) in [
        (0.0, 0.0),
        (1.0, 90.0),
        (0.25, 22.5),
        (1.25, 90.0),
        (5.25, -22.5),
    ] {
        let pose = sample::skin_matrices(&model.skeleton, Some(clip), time);
        let moved = pose[1].transform_point3(point);
        assert!(
            moved.distance(rotate(degrees)) < 1e-3,
            "t {time}: {moved} vs {}",
            rotate(degrees)
        );
        assert!(pose[0].abs_diff_eq(Mat4::IDENTITY, 1e-6));
    }
}

#[test]
fn rigged_simple_keys_and_slerp_match_hand_computation() {
    let model = bake::import::import_character(&sample_path("RiggedSimple/RiggedSimple.glb"))
        .expect("import");
    let clip = &model.clips[0];
    let channel = clip
        .channels
        .iter()
        .find(|c| c.target == Target::Rotation && c.times.len() > 2)
        .expect("rotation channel");
    for key in 0..channel.times.len() {
        let value = sample::channel_value(channel, channel.times[key]);
        assert!(value.abs_diff_eq(channel.values[key], 1e-6), "key {key}");
    }
    // Slerp by hand at a quarter of the interval between keys 1 and 2.
    let (a, b) = (channel.values[1], channel.values[2]);
    let b = if a.dot(b) < 0.0 { -b } else { b };
    let angle = a.dot(b).clamp(-1.0, 1.0).acos();
    let s = 0.25;
    let expected = if angle < 1e-4 {
        a.lerp(b, s).normalize()
    } else {
        (a * ((1.0 - s) * angle).sin() + b * (s * angle).sin()) / angle.sin()
    };
    let time = channel.times[1] + s * (channel.times[2] - channel.times[1]);
    let value = sample::channel_value(channel, time);
    assert!(value.abs_diff_eq(expected, 1e-4), "{value} vs {expected}");
    // The bone's global matrix is parent global times local: at a key time the
    // animated node's local rotation is the key's.
    let globals = sample::node_globals(&model.skeleton, Some(clip), channel.times[1] - clip.start);
    let node = &model.skeleton.nodes[channel.node];
    let parent = node.parent.map_or(Mat4::IDENTITY, |p| globals[p]);
    let local = parent.inverse() * globals[channel.node];
    let (_, rotation, _) = local.to_scale_rotation_translation();
    let key = Quat::from_vec4(channel.values[1]).normalize();
    assert!(rotation.dot(key).abs() > 1.0 - 1e-5);
}

fn channel(interpolation: Interp, times: Vec<f32>, values: Vec<Vec4>) -> Channel {
    Channel {
        node: 0,
        target: Target::Translation,
        interpolation,
        times,
        values,
    }
}

#[test]
fn step_cubic_and_clamping_match_hand_computation() {
    let step = channel(Interp::Step, vec![1.0, 2.0], vec![Vec4::X, Vec4::Y]);
    assert_eq!(sample::channel_value(&step, 1.9), Vec4::X);
    assert_eq!(sample::channel_value(&step, 2.0), Vec4::Y);
    assert_eq!(
        sample::channel_value(&step, 0.0),
        Vec4::X,
        "before the first key"
    );
    assert_eq!(
        sample::channel_value(&step, 9.0),
        Vec4::Y,
        "after the last key"
    );
    // Hermite with zero tangents at s = 0.5 is the midpoint; with tangent m0 it
    // adds (s^3 - 2s^2 + s) * m0 * dt = 0.125 * m0 * dt.
    let zero = Vec4::ZERO;
    let cubic = channel(
        Interp::CubicSpline,
        vec![0.0, 2.0],
        vec![zero, Vec4::X, Vec4::Z, zero, Vec4::Y * 3.0, zero],
    );
    let value = sample::channel_value(&cubic, 1.0);
    let expected = (Vec4::X + Vec4::Y * 3.0) * 0.5 + Vec4::Z * 0.125 * 2.0;
    assert!(value.abs_diff_eq(expected, 1e-6), "{value} vs {expected}");
    assert_eq!(sample::frame_count(1.0, 30.0), 31);
    assert_eq!(sample::frame_count(0.0, 30.0), 1);
}

// ------------------------------------------------------- synthetic glTF inputs

fn scratch_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("horde-bake-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// Binary data of the synthetic skinned triangle, section by section.
struct SyntheticData {
    positions: [[f32; 3]; 3],
    joints: [[u8; 4]; 3],
    weights: [[f32; 4]; 3],
    rotations: [[f32; 4]; 2],
}

impl Default for SyntheticData {
    fn default() -> Self {
        Self {
            positions: [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 2.0, 0.0]],
            joints: [[0, 1, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0]],
            weights: [
                [0.5, 0.3, 0.0, 0.0],
                [0.5, 0.5, 0.0, 0.0],
                [1.0, 0.0, 0.0, 0.0],
            ],
            rotations: [
                [0.0, 0.0, 0.0, 1.0],
                [0.0, 0.0, FRAC_1_SQRT_2, FRAC_1_SQRT_2],
            ],
        }
    }
}

fn synthetic_bin(data: &SyntheticData) -> Vec<u8> {
    let mut bin = Vec::new();
    let floats = |bin: &mut Vec<u8>, values: &[f32]| {
        values
            .iter()
            .for_each(|v| bin.extend_from_slice(&v.to_le_bytes()));
    };
    floats(&mut bin, data.positions.as_flattened()); // 0..36
    bin.extend(data.joints.as_flattened()); // 36..48
    floats(&mut bin, data.weights.as_flattened()); // 48..96
    let inverse_binds = [Mat4::IDENTITY, Mat4::from_translation(-Vec3::Y)];
    inverse_binds
        .iter()
        .for_each(|m| floats(&mut bin, &m.to_cols_array())); // 96..224
    floats(&mut bin, &[1.0, 2.0]); // 224..232: key times, starting after 0
    floats(&mut bin, data.rotations.as_flattened()); // 232..264
    floats(&mut bin, &[0.0]); // 264..268: pose clip time
    floats(&mut bin, &[0.0, 1.5, 0.0]); // 268..280: pose clip translation
    bin
}

fn synthetic_json() -> serde_json::Value {
    serde_json::json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0, 1]}],
        "nodes": [
            {"name": "body", "mesh": 0, "skin": 0},
            {"name": "root", "children": [2]},
            {"name": "tip", "translation": [0.0, 1.0, 0.0]}
        ],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "JOINTS_0": 1, "WEIGHTS_0": 2}}]}],
        "skins": [{"joints": [1, 2], "inverseBindMatrices": 3}],
        "animations": [
            {"name": "bend", "samplers": [{"input": 4, "output": 5, "interpolation": "LINEAR"}],
             "channels": [{"sampler": 0, "target": {"node": 2, "path": "rotation"}}]},
            {"name": "pose", "samplers": [{"input": 6, "output": 7, "interpolation": "STEP"}],
             "channels": [{"sampler": 0, "target": {"node": 2, "path": "translation"}}]}
        ],
        "buffers": [{"uri": "data.bin", "byteLength": 280}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 36},
            {"buffer": 0, "byteOffset": 36, "byteLength": 12},
            {"buffer": 0, "byteOffset": 48, "byteLength": 48},
            {"buffer": 0, "byteOffset": 96, "byteLength": 128},
            {"buffer": 0, "byteOffset": 224, "byteLength": 8},
            {"buffer": 0, "byteOffset": 232, "byteLength": 32},
            {"buffer": 0, "byteOffset": 264, "byteLength": 4},
            {"buffer": 0, "byteOffset": 268, "byteLength": 12}
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
             "min": [0.0, 0.0, 0.0], "max": [1.0, 2.0, 0.0]},
            {"bufferView": 1, "componentType": 5121, "count": 3, "type": "VEC4"},
            {"bufferView": 2, "componentType": 5126, "count": 3, "type": "VEC4"},
            {"bufferView": 3, "componentType": 5126, "count": 2, "type": "MAT4"},
            {"bufferView": 4, "componentType": 5126, "count": 2, "type": "SCALAR", "min": [1.0], "max": [2.0]},
            {"bufferView": 5, "componentType": 5126, "count": 2, "type": "VEC4"},
            {"bufferView": 6, "componentType": 5126, "count": 1, "type": "SCALAR", "min": [0.0], "max": [0.0]},
            {"bufferView": 7, "componentType": 5126, "count": 1, "type": "VEC3"}
        ]
    })
}

/// Writes a synthetic model, edited by `edit`, and returns its path.
fn synthetic(
    name: &str,
    data: &SyntheticData,
    edit: impl FnOnce(&mut serde_json::Value),
) -> PathBuf {
    let dir = scratch_dir(name);
    let mut json = synthetic_json();
    edit(&mut json);
    std::fs::write(dir.join("data.bin"), synthetic_bin(data)).expect("bin");
    let path = dir.join(format!("{name}.gltf"));
    std::fs::write(&path, serde_json::to_vec_pretty(&json).expect("json")).expect("gltf");
    path
}

fn bake_error(path: &Path) -> String {
    match bake::bake_unit(path, &[], &BakeOptions::default(), &quiet) {
        Ok(_) => panic!("{} baked without error", path.display()),
        Err(error) => error.to_string(),
    }
}

#[test]
fn synthetic_offset_clip_pose_clip_and_weight_normalization() {
    let path = synthetic("valid", &SyntheticData::default(), |_| {});
    let baked = bake::bake_unit(&path, &[], &BakeOptions::default(), &quiet).expect("bake");
    let animation = baked.asset.animation.as_ref().expect("animation");
    let bend = &animation.clips[0];
    assert_eq!(
        (bend.name.as_str(), bend.duration, bend.frame_count),
        ("bend", 1.0, 31)
    );
    let pose = &animation.clips[1];
    assert_eq!(
        (pose.name.as_str(), pose.duration, pose.frame_count),
        ("pose", 0.0, 1)
    );
    // The clip starts at t = 1 in the file: its first frame is the first key.
    let source = &baked.source.clips[0];
    assert_eq!(source.start, 1.0);
    let end = sample::skin_matrices(&baked.source.skeleton, Some(source), 1.0);
    let tip = end[1].transform_point3(Vec3::new(0.0, 2.0, 0.0));
    assert!(tip.distance(Vec3::new(-1.0, 1.0, 0.0)) < 1e-5, "{tip}");
    let report = &baked.asset.report;
    assert!(report
        .warnings
        .iter()
        .any(|w| w.contains("1 vertices had weights not summing to 1")));
    round_trip(&baked.asset);
}

#[test]
fn importer_rejects_no_skin() {
    let path = synthetic("noskin", &SyntheticData::default(), |json| {
        json["nodes"][0]
            .as_object_mut()
            .map(|node| node.remove("skin"));
        json.as_object_mut().map(|root| root.remove("skins"));
    });
    let message = bake_error(&path);
    assert!(
        message.contains("no skin") && message.contains("noskin.gltf"),
        "{message}"
    );
}

#[test]
fn importer_rejects_missing_buffer() {
    let path = synthetic("nobuffer", &SyntheticData::default(), |json| {
        json["buffers"][0]["uri"] = "gone.bin".into();
    });
    let message = bake_error(&path);
    assert!(
        message.contains("missing file \"gone.bin\"") && message.contains("nobuffer.gltf"),
        "{message}"
    );
}

#[test]
fn importer_rejects_nan_keyframes() {
    let data = SyntheticData {
        rotations: [[0.0, 0.0, 0.0, 1.0], [f32::NAN, 0.0, 0.0, 1.0]],
        ..Default::default()
    };
    let message = bake_error(&synthetic("nankey", &data, |_| {}));
    assert!(
        message.contains("NaN or infinite keyframe") && message.contains("\"bend\""),
        "{message}"
    );
}

#[test]
fn importer_rejects_joint_index_out_of_range() {
    let data = SyntheticData {
        joints: [[0, 7, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0]],
        ..Default::default()
    };
    let message = bake_error(&synthetic("badjoint", &data, |_| {}));
    assert!(
        message.contains("joint index 7 out of range (skin has 2 joints)"),
        "{message}"
    );
}

#[test]
fn importer_rejects_empty_mesh() {
    let path = synthetic("points", &SyntheticData::default(), |json| {
        json["meshes"][0]["primitives"][0]["mode"] = 0.into();
    });
    let message = bake_error(&path);
    assert!(message.contains("empty mesh: no triangles"), "{message}");
}

#[test]
fn importer_rejects_unknown_required_extension() {
    let path = synthetic("extension", &SyntheticData::default(), |json| {
        json["extensionsUsed"] = serde_json::json!(["EXT_made_up"]);
        json["extensionsRequired"] = serde_json::json!(["EXT_made_up"]);
    });
    let message = bake_error(&path);
    assert!(
        message.contains("unsupported required extension(s): EXT_made_up"),
        "{message}"
    );
}

#[test]
fn importer_rejects_unknown_clip_selection() {
    let options = BakeOptions {
        clips: vec![ClipSelection::parse("Dance")],
        ..BakeOptions::default()
    };
    let path = sample_path("Fox/Fox.glb");
    let error = bake::bake_unit(&path, &[], &options, &quiet)
        .expect_err("error")
        .to_string();
    assert!(
        error.contains("--clip \"Dance\": no such clip (available: Survey, Walk, Run)"),
        "{error}"
    );
}

// ------------------------------------------------------------- hostile .horde

/// Without its impostor: the impostor's cells (4 MB) would make the
/// every-byte loops below take hours; `tests/tests/impostors.rs` covers the
/// `IMPO` section.
fn small_asset_bytes() -> Vec<u8> {
    let baked = bake_sample("SimpleSkin/SimpleSkin.gltf", &[], &BakeOptions::default()).asset;
    asset::write(&asset::Asset {
        impostor: None,
        ..baked
    })
    .expect("a baked asset serializes")
}

/// Recomputes the checksum so that a corruption reaches the deeper checks.
fn reseal(bytes: &mut [u8]) {
    let checksum = asset::fnv1a32(&bytes[asset::HEADER_SIZE..]);
    bytes[24..28].copy_from_slice(&checksum.to_le_bytes());
}

fn section(bytes: &[u8], tag: &[u8; 4]) -> asset::SectionInfo {
    *asset::section_table(bytes)
        .expect("table")
        .iter()
        .find(|s| &s.tag == tag)
        .expect("section")
}

fn read_error(bytes: &[u8]) -> String {
    match asset::read(bytes) {
        Ok(_) => panic!("hostile file accepted"),
        Err(error) => error.to_string(),
    }
}

/// Overwrites clip 0's ground speed and reseals the file.
fn set_ground_speed(bytes: &mut [u8], speed: f32) {
    let anim = section(bytes, b"ANIM");
    // encoding, bone count, width, height, clip count, then clip 0: name
    // (length and bytes), first texel, frame count, duration, looping flag.
    let name_len = u32::from_le_bytes(
        bytes[anim.offset + 20..anim.offset + 24]
            .try_into()
            .expect("4"),
    );
    let speed_at = anim.offset + 24 + name_len as usize + 13;
    bytes[speed_at..speed_at + 4].copy_from_slice(&speed.to_le_bytes());
    reseal(bytes);
}

#[test]
fn read_file_names_the_file_with_a_bad_ground_speed() {
    let mut bytes = small_asset_bytes();
    set_ground_speed(&mut bytes, -3.0);
    let path = scratch_dir("bad-ground-speed").join("bad.horde");
    std::fs::write(&path, &bytes).expect("write");
    let message = asset::read_file(&path).expect_err("refused").to_string();
    assert!(
        message.contains("bad.horde") && message.contains("ground speed -3"),
        "{message}"
    );
}

/// A named way of damaging a valid file.
type Corruption = Box<dyn Fn(&mut Vec<u8>)>;

#[test]
fn reader_rejects_hostile_files() {
    let good = small_asset_bytes();
    assert!(asset::read(&good).is_ok());
    let cases: Vec<(&str, Corruption, &str)> = vec![
        (
            "empty",
            Box::new(|b| b.clear()),
            "shorter than the 32-byte header",
        ),
        (
            "truncated",
            Box::new(|b| b.truncate(b.len() - 7)),
            "header declares",
        ),
        ("bad magic", Box::new(|b| b[0] = b'X'), "bad magic"),
        (
            "wrong version",
            Box::new(|b| b[8] = 9),
            "unsupported version 9",
        ),
        (
            "bad checksum",
            Box::new(|b| *b.last_mut().expect("byte") ^= 1),
            "checksum mismatch",
        ),
        (
            "section out of range",
            Box::new(|b| {
                b[36..44].copy_from_slice(&u64::MAX.to_le_bytes());
                reseal(b);
            }),
            "lies outside",
        ),
        (
            "overlapping sections",
            Box::new(|b| {
                let first = section(b, b"META");
                let second = asset::HEADER_SIZE + asset::SECTION_ENTRY_SIZE;
                b[second + 4..second + 12].copy_from_slice(&(first.offset as u64).to_le_bytes());
                reseal(b);
            }),
            "sections overlap",
        ),
        (
            "too many sections",
            Box::new(|b| {
                b[12..16].copy_from_slice(&1000u32.to_le_bytes());
                reseal(b);
            }),
            "section count 1000",
        ),
        (
            "a LOD flag no version has",
            Box::new(|b| {
                let lod = section(b, b"LOD_");
                b[lod.offset + 4..lod.offset + 8].copy_from_slice(&4u32.to_le_bytes());
                reseal(b);
            }),
            "LOD flags 0x4",
        ),
        (
            "LOD 0 raster only",
            Box::new(|b| {
                let lod = section(b, b"LOD_");
                let flag = asset::LOD_FLAG_RASTER_ONLY.to_le_bytes();
                b[lod.offset + 4..lod.offset + 8].copy_from_slice(&flag);
                reseal(b);
            }),
            "LOD 0: raster only",
        ),
        (
            "overflowing vertex count",
            Box::new(|b| {
                let lod = section(b, b"LOD_");
                b[lod.offset + 8..lod.offset + 12].copy_from_slice(&u32::MAX.to_le_bytes());
                reseal(b);
            }),
            "vertex count 4294967295 needs at least",
        ),
        (
            "index out of range",
            Box::new(|b| {
                let lod = section(b, b"LOD_");
                let vertex_count =
                    u32::from_le_bytes(b[lod.offset + 8..lod.offset + 12].try_into().expect("4"));
                let first_index = lod.offset + 12 + vertex_count as usize * 20 + 4;
                b[first_index..first_index + 4].copy_from_slice(&99_999u32.to_le_bytes());
                reseal(b);
            }),
            "index 99999 out of range",
        ),
        (
            "bone index out of range",
            Box::new(|b| {
                let lod = section(b, b"LOD_");
                b[lod.offset + 12 + 16] = 200;
                reseal(b);
            }),
            "bone index [200",
        ),
        (
            "NaN pose",
            Box::new(|b| {
                let anim = section(b, b"ANIM");
                let texels_start = anim.offset + anim.len - 1024 * 16;
                b[texels_start..texels_start + 4].copy_from_slice(&f32::NAN.to_le_bytes());
                reseal(b);
            }),
            "NaN or infinite pose",
        ),
        (
            "clip outside texture",
            Box::new(|b| {
                let anim = section(b, b"ANIM");
                // encoding, bone count, width, height, clip count, then clip 0's
                // name length (4) and name bytes, then its first texel.
                let name_len = u32::from_le_bytes(
                    b[anim.offset + 20..anim.offset + 24].try_into().expect("4"),
                );
                let first_texel = anim.offset + 24 + name_len as usize;
                b[first_texel..first_texel + 4].copy_from_slice(&1_000_000u32.to_le_bytes());
                reseal(b);
            }),
            "outside the 1024-texel bone texture",
        ),
        (
            "version 2 (no ground speeds)",
            Box::new(|b| b[8] = 2),
            "unsupported version 2",
        ),
        (
            "NaN ground speed",
            Box::new(|b| set_ground_speed(b, f32::NAN)),
            "clip ground speed is not finite",
        ),
        (
            "negative ground speed",
            Box::new(|b| set_ground_speed(b, -1.0)),
            "ground speed -1 outside",
        ),
        (
            "absurd ground speed",
            Box::new(|b| set_ground_speed(b, 1e9)),
            "ground speed 1000000000 outside",
        ),
    ];
    for (name, corrupt, expected) in cases {
        let mut bytes = good.clone();
        corrupt(&mut bytes);
        let message = read_error(&bytes);
        assert!(
            message.contains(expected),
            "{name}: got {message:?}, expected {expected:?}"
        );
    }
}

#[test]
fn reader_survives_every_truncation_and_byte_flip() {
    let good = small_asset_bytes();
    for len in (0..good.len()).step_by(7) {
        assert!(asset::read(&good[..len]).is_err());
    }
    // Flipped bytes with a fixed checksum exercise the field checks; any
    // outcome but a panic is acceptable.
    for position in (asset::HEADER_SIZE..good.len()).step_by(3) {
        let mut bytes = good.clone();
        bytes[position] ^= 0xA5;
        reseal(&mut bytes);
        let _ = asset::read(&bytes);
    }
}

/// The bind-pose positions of `lod` as the runtime decodes them.
fn decoded_positions(asset: &Asset, lod: &asset::MeshLod) -> Vec<Vec3> {
    lod.vertices
        .iter()
        .map(|v| skinning::decode_position(&asset.bounds, v))
        .collect()
}

/// The silhouette of `asset`'s LOD 0 as the runtime reads it, over a
/// sphere round its bind pose, as the bake's: the asset's sphere holds the
/// animated poses, in the skeleton's space, which for a Z-up armature
/// (CesiumMan) leaves part of the bind pose outside.
fn decoded_silhouette(asset: &Asset) -> Silhouette {
    let first = &asset.lods[0];
    let source = decoded_positions(asset, first);
    let (low, high) = source.iter().fold(
        (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
        |(low, high), &p| (low.min(p), high.max(p)),
    );
    let center = (low + high) * 0.5;
    let radius = source
        .iter()
        .map(|p| p.distance(center))
        .fold(0.0, f32::max);
    Silhouette::of(
        Shape {
            positions: &source,
            indices: &first.indices,
        },
        center,
        radius,
    )
}

/// How much of `silhouette` `lod` of `asset` covers, as decoded.
fn decoded_coverage(asset: &Asset, silhouette: &Silhouette, lod: &asset::MeshLod) -> f32 {
    silhouette.coverage(Shape {
        positions: &decoded_positions(asset, lod),
        indices: &lod.indices,
    })
}

/// Every LOD of every unit covers its source's silhouette within 5 %, as
/// the runtime reads its vertices (quantized, bind pose): meshopt's LODs
/// inflated along their normals (`lod::inflate_to_silhouette`; the
/// generated knight's 0.1 LOD covered 86 %), and the box proxies
/// (`proxy.rs`) that replace meshopt's coarsest (whose 3 % LODs
/// covered 10 % of the generated knight to 70 % of the fox), the coarse
/// proxy of at most `COARSE_PROXY_BOXES` boxes last. A crowd drawn at
/// those LODs would look thinner than its reference. Real files of three
/// exporters and the generated knight; the fox, low-poly with many bones,
/// keeps meshopt LODs.
#[test]
fn every_lod_covers_the_silhouette() {
    let generated = concat!(env!("CARGO_MANIFEST_DIR"), "/../assets/knight.glb");
    let models = [
        sample_path("KayKit_Knight/Knight.glb"),
        sample_path("Fox/Fox.glb"),
        sample_path("CesiumMan/CesiumMan.glb"),
        PathBuf::from(generated),
    ];
    for model in &models {
        let baked = bake::bake_unit(model, &[], &BakeOptions::default(), &quiet)
            .unwrap_or_else(|error| panic!("baking {}: {error}", model.display()));
        let asset = &baked.asset;
        let last = asset.lods.last().expect("LODs");
        let silhouette = decoded_silhouette(asset);
        for (level, lod) in asset.lods.iter().enumerate().skip(1) {
            let coverage = decoded_coverage(asset, &silhouette, lod);
            assert!(
                (0.95..=1.05).contains(&coverage),
                "{}: LOD {level} (box proxy: {}) covers {coverage:.3} of the silhouette",
                model.display(),
                lod.box_proxy
            );
        }
        assert_eq!(
            last.box_proxy,
            !model.ends_with("Fox/Fox.glb"),
            "{}: the proxy replaces meshopt's coarsest LOD where it is cheaper",
            model.display()
        );
        assert!(
            last.vertices.len() < asset.lods[asset.lods.len() - 2].vertices.len(),
            "{}: the coarsest LOD is the smallest",
            model.display()
        );
        if last.box_proxy {
            assert!(
                last.vertices.len() <= 8 * horde_bake::lod::COARSE_PROXY_BOXES,
                "{}: the coarsest LOD has {} vertices, more than the coarse proxy's boxes",
                model.display(),
                last.vertices.len()
            );
        }
    }
}

/// Every generated prop whose slab proxy is built (`proxy::slab_boxes`,
/// `lod::fit_prop_proxy`) ends with it: at most `PROP_PROXY_BOXES` boxes,
/// at most half the vertices of the LOD before, covering the source's
/// silhouette within 0.95..1.10 as the runtime reads it, and an error no
/// less than the LOD before's (the cull picks LODs by error). The tree,
/// whose coarsest meshopt LOD the million-unit overview draws 40,000
/// times, has one; a prop without one has a coarsest LOD under twice the
/// proxy's vertices.
#[test]
fn props_end_with_a_slab_proxy_that_covers_the_silhouette() {
    use horde_bake::lod::PROP_PROXY_BOXES;
    for name in ["tree", "rock", "pillar", "banner", "fence"] {
        let path = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../assets"))
            .join(format!("{name}.glb"));
        let baked = bake::bake_prop(&path, &BakeOptions::default(), &quiet)
            .unwrap_or_else(|error| panic!("baking {name}: {error}"));
        let asset = round_trip(&baked.asset);
        let lods = &asset.lods;
        let table: Vec<String> = lods
            .iter()
            .map(|lod| {
                format!(
                    "{}v {}t {:.4}{}",
                    lod.vertices.len(),
                    lod.indices.len() / 3,
                    lod.error,
                    if lod.box_proxy { " proxy" } else { "" }
                )
            })
            .collect();
        println!("{name}: {}", table.join(", "));
        assert!(
            lods.windows(2).all(|pair| pair[1].error >= pair[0].error),
            "{name}: errors decrease: {table:?}"
        );
        assert!(
            lods[..lods.len() - 1].iter().all(|lod| !lod.box_proxy),
            "{name}: a box proxy before the coarsest LOD"
        );
        let [.., before, last] = lods.as_slice() else {
            panic!("{name}: one LOD");
        };
        if !last.box_proxy {
            assert!(
                name != "tree" && last.vertices.len() < 2 * 8 * PROP_PROXY_BOXES,
                "{name}: no slab proxy after a coarsest LOD of {} vertices",
                last.vertices.len()
            );
            continue;
        }
        assert!(
            last.vertices.len() <= 8 * PROP_PROXY_BOXES
                && 2 * last.vertices.len() <= before.vertices.len(),
            "{name}: a proxy of {} vertices after {}",
            last.vertices.len(),
            before.vertices.len()
        );
        assert!(last.vertices.iter().all(|v| v.bones == [0, 0]));
        let coverage = decoded_coverage(&asset, &decoded_silhouette(&asset), last);
        println!("{name}: the slab proxy covers {coverage:.3} of the silhouette");
        assert!(
            (0.95..=1.10).contains(&coverage),
            "{name}: the slab proxy covers {coverage:.3} of the silhouette"
        );
    }
}
