//! Synthetic glTF files built in code, so each test states exactly what its
//! input holds: a two-joint skinned strip with one clip, written as GLB or as
//! `.gltf` + `.bin`, which tests then bend into the case they check.

#![allow(dead_code)] // each test binary uses a different part of this module

use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

/// A glTF document and its single binary buffer.
#[derive(Clone)]
pub struct Synthetic {
    /// The glTF JSON; `buffers[0].byteLength` is set from `bin` when written.
    pub json: Value,
    /// Buffer 0.
    pub bin: Vec<u8>,
}

/// A fresh, empty directory under the system temp directory.
pub fn temp_dir(tag: &str) -> PathBuf {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let dir = std::env::temp_dir().join(format!(
        "horde-bake-test-{tag}-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create temp dir");
    dir
}

fn f32s(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// Appends `bytes` as a new buffer view (4-byte aligned) and returns its index.
pub fn push_view(synthetic: &mut Synthetic, bytes: &[u8]) -> usize {
    while synthetic.bin.len() % 4 != 0 {
        synthetic.bin.push(0);
    }
    let offset = synthetic.bin.len();
    synthetic.bin.extend_from_slice(bytes);
    let views = synthetic.json["bufferViews"]
        .as_array_mut()
        .expect("bufferViews");
    views.push(json!({"buffer": 0, "byteOffset": offset, "byteLength": bytes.len()}));
    views.len() - 1
}

/// Appends an accessor over a new view and returns its index.
pub fn push_accessor(
    synthetic: &mut Synthetic,
    bytes: &[u8],
    component_type: u32,
    kind: &str,
    count: usize,
    extra: Value,
) -> usize {
    let view = push_view(synthetic, bytes);
    let accessors = synthetic.json["accessors"]
        .as_array_mut()
        .expect("accessors");
    let mut accessor = json!({
        "bufferView": view, "componentType": component_type, "type": kind, "count": count
    });
    if let (Some(target), Some(extra)) = (accessor.as_object_mut(), extra.as_object()) {
        target.extend(extra.clone());
    }
    accessors.push(accessor);
    accessors.len() - 1
}

/// What [`strip`] builds.
#[derive(Clone, Copy)]
pub struct Strip {
    /// Radians joint 1 turns about x over the clip.
    pub angle: f32,
    /// Clip length in seconds.
    pub duration: f32,
    /// Bind-space "up": the strip's long axis and joint 1's offset.
    pub up: glam::Vec3,
}

/// [`strip`] with `angle`, one second, y up.
pub fn skinned_strip(angle: f32) -> Synthetic {
    strip(Strip {
        angle,
        duration: 1.0,
        up: glam::Vec3::Y,
    })
}

/// A skinned strip 2 units long along `up`: node 0 is the root joint, node 1
/// its child joint one unit up, node 2 the skinned mesh. Vertices: three rows
/// of two, bottom row on joint 0, middle row half and half, top row on joint
/// 1. One clip, "bend", turns joint 1 by `angle` radians about x.
pub fn strip(shape: Strip) -> Synthetic {
    let Strip {
        angle,
        duration,
        up,
    } = shape;
    let mut s = Synthetic {
        json: json!({
            "asset": {"version": "2.0"},
            "scene": 0,
            "scenes": [{"nodes": [0, 2]}],
            "nodes": [
                {"name": "root", "children": [1]},
                {"name": "tip", "translation": up.to_array()},
                {"name": "strip", "mesh": 0, "skin": 0}
            ],
            "buffers": [{"byteLength": 0}],
            "bufferViews": [],
            "accessors": [],
            "meshes": [],
            "skins": [],
            "animations": []
        }),
        bin: Vec::new(),
    };
    let corners: Vec<glam::Vec3> = (0..3)
        .flat_map(|row| [-0.5f32, 0.5].map(|x| glam::Vec3::X * x + up * row as f32))
        .collect();
    let low = corners.iter().fold(glam::Vec3::INFINITY, |a, &b| a.min(b));
    let high = corners
        .iter()
        .fold(glam::Vec3::NEG_INFINITY, |a, &b| a.max(b));
    let positions: Vec<f32> = corners.iter().flat_map(|c| c.to_array()).collect();
    let position = push_accessor(
        &mut s,
        &f32s(&positions),
        5126,
        "VEC3",
        6,
        json!({"min": low.to_array(), "max": high.to_array()}),
    );
    let joints: Vec<u8> = [
        [0u8, 0, 0, 0],
        [0, 0, 0, 0],
        [0, 1, 0, 0],
        [0, 1, 0, 0],
        [1, 0, 0, 0],
        [1, 0, 0, 0],
    ]
    .into_iter()
    .flatten()
    .collect();
    let joint = push_accessor(&mut s, &joints, 5121, "VEC4", 6, json!({}));
    let weights: Vec<f32> = [
        [1.0, 0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0, 0.0],
        [0.5, 0.5, 0.0, 0.0],
        [0.5, 0.5, 0.0, 0.0],
        [1.0, 0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0, 0.0],
    ]
    .into_iter()
    .flatten()
    .collect();
    let weight = push_accessor(&mut s, &f32s(&weights), 5126, "VEC4", 6, json!({}));
    let indices: Vec<u8> = [0u16, 1, 3, 0, 3, 2, 2, 3, 5, 2, 5, 4]
        .iter()
        .flat_map(|i| i.to_le_bytes())
        .collect();
    let index = push_accessor(&mut s, &indices, 5123, "SCALAR", 12, json!({}));
    let mut ibm = Vec::new();
    ibm.extend_from_slice(&glam::Mat4::IDENTITY.to_cols_array());
    ibm.extend_from_slice(&glam::Mat4::from_translation(-up).to_cols_array());
    let inverse_bind = push_accessor(&mut s, &f32s(&ibm), 5126, "MAT4", 2, json!({}));
    let times = push_accessor(
        &mut s,
        &f32s(&[0.0, duration]),
        5126,
        "SCALAR",
        2,
        json!({"min": [0.0], "max": [duration]}),
    );
    let turn = glam::Quat::from_rotation_x(angle);
    let rotations = push_accessor(
        &mut s,
        &f32s(&[0.0, 0.0, 0.0, 1.0, turn.x, turn.y, turn.z, turn.w]),
        5126,
        "VEC4",
        2,
        json!({}),
    );
    s.json["meshes"] = json!([{"name": "strip", "primitives": [{
        "attributes": {"POSITION": position, "JOINTS_0": joint, "WEIGHTS_0": weight},
        "indices": index
    }]}]);
    s.json["skins"] = json!([{"joints": [0, 1], "inverseBindMatrices": inverse_bind}]);
    s.json["animations"] = json!([{
        "name": "bend",
        "samplers": [{"input": times, "output": rotations, "interpolation": "LINEAR"}],
        "channels": [{"sampler": 0, "target": {"node": 1, "path": "rotation"}}]
    }]);
    s
}

impl Synthetic {
    fn sealed_json(&self, uri: Option<&str>) -> Vec<u8> {
        let mut json = self.json.clone();
        if json["buffers"][0]["byteLength"] == json!(0) {
            json["buffers"][0]["byteLength"] = json!(self.bin.len());
        }
        if let Some(uri) = uri {
            json["buffers"][0]["uri"] = json!(uri);
        }
        serde_json::to_vec(&json).expect("serialize")
    }

    /// The GLB bytes: header, JSON chunk, BIN chunk.
    pub fn glb(&self) -> Vec<u8> {
        let mut json = self.sealed_json(None);
        while json.len() % 4 != 0 {
            json.push(b' ');
        }
        let mut bin = self.bin.clone();
        while bin.len() % 4 != 0 {
            bin.push(0);
        }
        let total = 12 + 8 + json.len() + 8 + bin.len();
        let mut out = Vec::with_capacity(total);
        out.extend_from_slice(b"glTF");
        out.extend_from_slice(&2u32.to_le_bytes());
        out.extend_from_slice(&(total as u32).to_le_bytes());
        out.extend_from_slice(&(json.len() as u32).to_le_bytes());
        out.extend_from_slice(b"JSON");
        out.extend_from_slice(&json);
        out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
        out.extend_from_slice(b"BIN\0");
        out.extend_from_slice(&bin);
        out
    }

    /// Writes `dir/name.glb`.
    pub fn write_glb(&self, dir: &Path, name: &str) -> PathBuf {
        let path = dir.join(format!("{name}.glb"));
        std::fs::write(&path, self.glb()).expect("write glb");
        path
    }

    /// Writes `dir/name.gltf` whose buffer is `uri` (default `name.bin`), and
    /// the buffer bytes to `dir/name.bin`.
    pub fn write_gltf(&self, dir: &Path, name: &str, uri: Option<&str>) -> PathBuf {
        let bin_name = format!("{name}.bin");
        std::fs::write(dir.join(&bin_name), &self.bin).expect("write bin");
        let path = dir.join(format!("{name}.gltf"));
        std::fs::write(&path, self.sealed_json(Some(uri.unwrap_or(&bin_name))))
            .expect("write gltf");
        path
    }
}
