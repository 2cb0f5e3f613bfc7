//! Asset fidelity on exporters' habits (issue 12): height from the posed rest
//! pose, several skins over one skeleton, per-clip sample rates, materials,
//! and normals under scaled joint matrices.

mod support;

use glam::{Mat4, Quat, Vec3};
use horde_asset::skinning::{bone_normal, skin_normal};
use horde_asset::PackedVertex;
use horde_bake::{bake_unit, inspect, BakeOptions, Baked};
use serde_json::json;
use support::{push_accessor, skinned_strip, strip, temp_dir, Strip, Synthetic};

fn quiet(_: &str) {}

fn bake(synthetic: &Synthetic, tag: &str, options: &BakeOptions) -> Baked {
    let dir = temp_dir(tag);
    let path = synthetic.write_glb(&dir, tag);
    bake_unit(&path, &[], options, &quiet).unwrap_or_else(|error| panic!("{tag}: {error}"))
}

/// The FBX-converter layout: bind space Z-up in centimetres, the armature
/// under a node turned -90 degrees about x and scaled (here x100 so the
/// numbers stay exact). Vertices land at `armature * joint * inverseBind * v`.
#[test]
fn height_and_bounds_come_from_the_posed_rest_pose() {
    let mut s = strip(Strip {
        angle: 0.3,
        duration: 1.0,
        up: Vec3::Z,
    });
    let turn = Quat::from_rotation_x(-std::f32::consts::FRAC_PI_2);
    s.json["nodes"]
        .as_array_mut()
        .expect("nodes")
        .push(json!({"name": "armature", "children": [0], "rotation": turn.to_array(), "scale": [100.0, 100.0, 100.0]}));
    s.json["scenes"][0]["nodes"] = json!([3, 2]);
    let baked = bake(&s, "fbx-like", &BakeOptions::default());
    let height = baked.asset.bounds.height;
    assert!(
        (height - 200.0).abs() < 1e-2,
        "height {height}, expected 200 (bind space says 0)"
    );
    assert_eq!(baked.asset.report.model_height, height);
    // The sphere holds the drawn (x100) positions, not the bind-space ones.
    assert!(
        baked.asset.bounds.sphere_radius > 99.0,
        "{:?}",
        baked.asset.bounds
    );
    let report = inspect::report_text(&baked.asset.report);
    assert!(report.contains("model height 200.0"), "{report}");
}

/// Two meshes, one skin each, over the same two joints in opposite orders:
/// both meshes are kept and bound to the right bones.
#[test]
fn several_skins_merge_into_one_palette_by_joint_node() {
    let single = skinned_strip(1.0);
    let mut split = single.clone();
    // Mesh 0 keeps the lower two triangles, mesh 1 the upper two with its
    // own skin listing the joints in the other order.
    let lower: Vec<u8> = [0u16, 1, 3, 0, 3, 2]
        .iter()
        .flat_map(|i| i.to_le_bytes())
        .collect();
    let upper: Vec<u8> = [2u16, 3, 5, 2, 5, 4]
        .iter()
        .flat_map(|i| i.to_le_bytes())
        .collect();
    let lower = push_accessor(&mut split, &lower, 5123, "SCALAR", 6, json!({}));
    let upper = push_accessor(&mut split, &upper, 5123, "SCALAR", 6, json!({}));
    let swapped: Vec<u8> = [
        [1u8, 0, 0, 0],
        [1, 0, 0, 0],
        [1, 0, 0, 0],
        [1, 0, 0, 0],
        [0, 1, 0, 0],
        [0, 1, 0, 0],
    ]
    .into_iter()
    .flatten()
    .collect();
    let swapped = push_accessor(&mut split, &swapped, 5121, "VEC4", 6, json!({}));
    // Middle-row weights are (0.5, 0.5), so swapping their joints is the same
    // binding; rows 0-1 and 4-5 have weight 1 on the first slot.
    let attributes = split.json["meshes"][0]["primitives"][0]["attributes"].clone();
    let mut upper_attributes = attributes.clone();
    upper_attributes["JOINTS_0"] = json!(swapped);
    split.json["meshes"] = json!([
        {"name": "lower", "primitives": [{"attributes": attributes, "indices": lower}]},
        {"name": "upper", "primitives": [{"attributes": upper_attributes, "indices": upper}]}
    ]);
    let ibm = split.json["skins"][0]["inverseBindMatrices"].clone();
    let ibm_swapped = {
        let mut bytes = Vec::new();
        for m in [Mat4::from_translation(-Vec3::Y), Mat4::IDENTITY] {
            bytes.extend(m.to_cols_array().iter().flat_map(|v| v.to_le_bytes()));
        }
        push_accessor(&mut split, &bytes, 5126, "MAT4", 2, json!({}))
    };
    split.json["skins"] = json!([
        {"joints": [0, 1], "inverseBindMatrices": ibm},
        {"joints": [1, 0], "inverseBindMatrices": ibm_swapped}
    ]);
    split.json["nodes"]
        .as_array_mut()
        .expect("nodes")
        .push(json!({"name": "upper", "mesh": 1, "skin": 1}));
    split.json["scenes"][0]["nodes"] = json!([0, 2, 3]);
    let whole = bake(&single, "one-skin", &BakeOptions::default());
    let merged = bake(&split, "two-skins", &BakeOptions::default());
    assert_eq!(merged.asset.bone_names, ["root", "tip"]);
    assert_eq!(
        merged.asset.lods[0].indices.len(),
        whole.asset.lods[0].indices.len(),
        "a mesh was dropped: {:?}",
        merged.asset.report.warnings
    );
    let tolerance = 1e-3 * whole.asset.bounds.height;
    assert!(
        (merged.asset.bounds.sphere_radius - whole.asset.bounds.sphere_radius).abs() < tolerance
    );
    assert!(merged.asset.report.total.max <= whole.asset.report.total.max + tolerance);
}

/// The same joint bound differently by two skins cannot share a bone: it
/// becomes two bones on one node, and nothing is dropped.
#[test]
fn conflicting_bind_matrices_become_separate_bones() {
    let mut s = skinned_strip(1.0);
    let other = {
        let mut bytes = Vec::new();
        for m in [
            Mat4::IDENTITY,
            Mat4::from_translation(Vec3::new(0.0, -1.5, 0.0)),
        ] {
            bytes.extend(m.to_cols_array().iter().flat_map(|v| v.to_le_bytes()));
        }
        push_accessor(&mut s, &bytes, 5126, "MAT4", 2, json!({}))
    };
    s.json["skins"]
        .as_array_mut()
        .expect("skins")
        .push(json!({"joints": [0, 1], "inverseBindMatrices": other}));
    s.json["nodes"]
        .as_array_mut()
        .expect("nodes")
        .push(json!({"name": "copy", "mesh": 0, "skin": 1}));
    s.json["scenes"][0]["nodes"] = json!([0, 2, 3]);
    let baked = bake(&s, "conflict", &BakeOptions::default());
    assert_eq!(baked.asset.bone_names, ["root", "tip", "tip"]);
}

/// A fast clip (a 1.5 rad turn in 0.1 s) gets a higher rate, on its key grid,
/// and meets the bound; a slow one keeps the base rate.
#[test]
fn each_clip_gets_the_rate_its_motion_needs() {
    let fast = bake(
        &strip(Strip {
            angle: 1.5,
            duration: 0.1,
            up: Vec3::Y,
        }),
        "fast",
        &BakeOptions::default(),
    );
    let slow = bake(&skinned_strip(0.2), "slow", &BakeOptions::default());
    let rate =
        |baked: &Baked| inspect::clip_rate(&baked.asset.animation.as_ref().expect("anim").clips[0]);
    assert!(
        (rate(&slow) - 30.0).abs() < 0.5,
        "slow clip at {} fps",
        rate(&slow)
    );
    assert!(rate(&fast) > 30.5, "fast clip kept at {} fps", rate(&fast));
    // Its keys are 0.1 s apart: frames land on them (a multiple of 10 fps).
    let multiple = rate(&fast) / 10.0;
    assert!(
        (multiple - multiple.round()).abs() < 1e-3,
        "{} fps",
        rate(&fast)
    );
    let report = &fast.asset.report;
    assert!(
        report.frame_rate.max <= 0.01 * report.model_height * 1.001,
        "interpolation error {} above 1 % of {}",
        report.frame_rate.max,
        report.model_height
    );
    // The bound is an option: a loose one leaves the fast clip at the base rate.
    let loose = bake(
        &strip(Strip {
            angle: 1.5,
            duration: 0.1,
            up: Vec3::Y,
        }),
        "fast-loose",
        &BakeOptions {
            max_interp_error: 0.5,
            ..BakeOptions::default()
        },
    );
    assert!(
        (rate(&loose) - 30.0).abs() < 0.5,
        "loose bound at {} fps",
        rate(&loose)
    );
}

#[test]
fn double_sided_and_emissive_materials_are_kept() {
    let mut s = skinned_strip(1.0);
    s.json["materials"] = json!([{
        "name": "eyes",
        "doubleSided": true,
        "emissiveFactor": [1.0, 0.5, 0.25],
        "extensions": {"KHR_materials_emissive_strength": {"emissiveStrength": 4.0}}
    }]);
    s.json["extensionsUsed"] = json!(["KHR_materials_emissive_strength"]);
    s.json["meshes"][0]["primitives"][0]["material"] = json!(0);
    let baked = bake(&s, "material", &BakeOptions::default());
    let eyes = baked
        .asset
        .materials
        .iter()
        .find(|material| material.name == "eyes")
        .expect("material kept");
    assert!(eyes.double_sided);
    assert_eq!(eyes.emissive_factor, [4.0, 2.0, 1.0]);
    let bytes = horde_asset::write(&baked.asset).expect("write");
    assert_eq!(
        horde_asset::read(&bytes).expect("read").materials,
        baked.asset.materials
    );
}

/// Joint matrices that carry a x100 (and a non-uniform) scale: the skinned
/// normal is unit length and perpendicular to the skinned surface.
#[test]
fn normals_stay_unit_and_perpendicular_under_scaled_joints() {
    let tangent = Vec3::new(1.0, 0.0, 0.0);
    let normal = Vec3::new(0.0, 0.6, 0.8);
    let bitangent = normal.cross(tangent);
    for matrix in [
        Mat4::from_scale(Vec3::splat(100.0)),
        Mat4::from_scale_rotation_translation(
            Vec3::new(100.0, 3.0, 0.5),
            Quat::from_rotation_y(0.7),
            Vec3::new(1.0, 2.0, 3.0),
        ),
        Mat4::from_scale(Vec3::new(-100.0, 100.0, 100.0)),
    ] {
        let skinned = bone_normal(&matrix, normal);
        assert!(
            (skinned.length() - 1.0).abs() < 1e-5,
            "{matrix:?}: length {}",
            skinned.length()
        );
        for along in [tangent, bitangent] {
            let surface = matrix.transform_vector3(along).normalize();
            assert!(
                skinned.dot(surface).abs() < 1e-5,
                "{matrix:?}: not perpendicular"
            );
        }
    }
    // Blending a x100 bone with an unscaled one: each counts by its weight.
    let vertex = PackedVertex {
        bones: [0, 1],
        weight: 128,
        ..PackedVertex::default()
    };
    let pose = [
        Mat4::from_scale(Vec3::splat(100.0)),
        Mat4::from_rotation_z(std::f32::consts::FRAC_PI_2),
    ];
    let blended = skin_normal(&vertex, Vec3::Y, &pose);
    assert!((blended.length() - 1.0).abs() < 1e-5);
    let expected = (Vec3::Y * (128.0 / 255.0) + Vec3::NEG_X * (127.0 / 255.0)).normalize();
    assert!(blended.distance(expected) < 1e-4, "{blended} vs {expected}");
}
