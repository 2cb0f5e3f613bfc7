//! Writes a model as a binary glTF 2.0 file (GLB).
//!
//! Byte layout: the 12-byte GLB header, a JSON chunk (padded with spaces to 4
//! bytes), then one BIN chunk (padded with zeros) holding every buffer view back
//! to back, each starting on a 4-byte boundary. Views, in order: POSITION,
//! NORMAL, TEXCOORD_0, then for skinned models JOINTS_0 (u8 x 4) and WEIGHTS_0
//! (f32 x 4); indices (u16); for skinned models the inverse bind matrices and,
//! per clip, one key-time view followed by one output view per channel; last,
//! the atlas PNG. Vertex attributes are not interleaved, so no view has a stride.
//!
//! Nodes: a skinned model's joints come first, in skin order (node i is joint
//! i), followed by the mesh node, which has no transform and is a scene root
//! beside the hips, as the glTF spec recommends for skinned meshes. A static
//! model has a single mesh node.
//!
//! Determinism: the JSON is serialised by serde from structs and BTreeMaps, and
//! floats are printed by the shortest round-trip algorithm, so the same model
//! always gives the same bytes.

use gltf_json as json;
use json::accessor::{ComponentType, GenericComponentType, Type};
use json::validation::{Checked::Valid, USize64};
use json::Index;

use super::atlas::atlas_png;
use super::clips::Clip;
use super::rig::{Joint, Rig};
use super::shapes::MeshData;
use super::skinning::SkinWeights;
use super::GenError;

/// The animated parts of a skinned model.
#[derive(Debug, Clone, Copy)]
pub struct SkinnedParts<'a> {
    pub rig: &'a Rig,
    pub skin: &'a SkinWeights,
    pub clips: &'a [Clip],
}

/// Accumulates the BIN chunk and the JSON objects that describe it.
struct Document {
    root: json::Root,
    bin: Vec<u8>,
}

impl Document {
    /// Appends `bytes` as a buffer view (4-byte aligned) and returns its index.
    fn view(
        &mut self,
        bytes: &[u8],
        target: Option<json::buffer::Target>,
    ) -> Index<json::buffer::View> {
        while self.bin.len() % 4 != 0 {
            self.bin.push(0);
        }
        let offset = self.bin.len();
        self.bin.extend_from_slice(bytes);
        self.root.push(json::buffer::View {
            buffer: Index::new(0),
            byte_length: USize64::from(bytes.len()),
            byte_offset: Some(USize64::from(offset)),
            byte_stride: None,
            name: None,
            target: target.map(Valid),
            extensions: None,
            extras: Default::default(),
        })
    }

    /// Appends data as its own view plus an accessor over all of it.
    fn accessor(
        &mut self,
        bytes: &[u8],
        count: usize,
        component: ComponentType,
        kind: Type,
        target: Option<json::buffer::Target>,
        bounds: Option<(Vec<f32>, Vec<f32>)>,
    ) -> Index<json::Accessor> {
        let view = self.view(bytes, target);
        let (min, max) = match bounds {
            Some((min, max)) => (Some(json::Value::from(min)), Some(json::Value::from(max))),
            None => (None, None),
        };
        self.root.push(json::Accessor {
            buffer_view: Some(view),
            byte_offset: None,
            count: USize64::from(count),
            component_type: Valid(GenericComponentType(component)),
            extensions: None,
            extras: Default::default(),
            type_: Valid(kind),
            min,
            max,
            name: None,
            normalized: false,
            sparse: None,
        })
    }

    /// An f32 accessor over `values` (each of `N` components), optionally with
    /// per-component bounds (required for positions and animation inputs).
    fn floats<const N: usize>(
        &mut self,
        values: &[[f32; N]],
        kind: Type,
        target: Option<json::buffer::Target>,
        with_bounds: bool,
    ) -> Index<json::Accessor> {
        let bounds = with_bounds.then(|| {
            let mut min = [f32::INFINITY; N];
            let mut max = [f32::NEG_INFINITY; N];
            for value in values {
                for component in 0..N {
                    min[component] = min[component].min(value[component]);
                    max[component] = max[component].max(value[component]);
                }
            }
            (min.to_vec(), max.to_vec())
        });
        let bytes: &[u8] = bytemuck::cast_slice(values.as_flattened());
        self.accessor(
            bytes,
            values.len(),
            ComponentType::F32,
            kind,
            target,
            bounds,
        )
    }
}

/// Serialises a model to GLB bytes. `name` names the mesh and its node.
pub fn encode(
    name: &str,
    mesh: &MeshData,
    skinned: Option<SkinnedParts>,
) -> Result<Vec<u8>, GenError> {
    let mut doc = Document {
        root: json::Root {
            asset: json::Asset {
                generator: Some("horde gen".to_string()),
                ..Default::default()
            },
            ..Default::default()
        },
        bin: Vec::new(),
    };
    let array = Some(json::buffer::Target::ArrayBuffer);
    let positions: Vec<[f32; 3]> = mesh.positions.iter().map(|p| p.to_array()).collect();
    let normals: Vec<[f32; 3]> = mesh.normals.iter().map(|n| n.to_array()).collect();
    let uvs: Vec<[f32; 2]> = mesh.uvs.iter().map(|uv| uv.to_array()).collect();
    let mut attributes = std::collections::BTreeMap::new();
    attributes.insert(
        Valid(json::mesh::Semantic::Positions),
        doc.floats(&positions, Type::Vec3, array, true),
    );
    attributes.insert(
        Valid(json::mesh::Semantic::Normals),
        doc.floats(&normals, Type::Vec3, array, false),
    );
    attributes.insert(
        Valid(json::mesh::Semantic::TexCoords(0)),
        doc.floats(&uvs, Type::Vec2, array, false),
    );
    if let Some(parts) = skinned {
        let joints: &[u8] = bytemuck::cast_slice(&parts.skin.joints);
        let joints = doc.accessor(
            joints,
            parts.skin.joints.len(),
            ComponentType::U8,
            Type::Vec4,
            array,
            None,
        );
        attributes.insert(Valid(json::mesh::Semantic::Joints(0)), joints);
        attributes.insert(
            Valid(json::mesh::Semantic::Weights(0)),
            doc.floats(&parts.skin.weights, Type::Vec4, array, false),
        );
    }
    let indices: Vec<u16> = mesh
        .indices
        .iter()
        .map(|&index| {
            u16::try_from(index).map_err(|_| GenError::TooManyVertices(mesh.vertex_count()))
        })
        .collect::<Result<_, _>>()?;
    let indices = doc.accessor(
        bytemuck::cast_slice(&indices),
        indices.len(),
        ComponentType::U16,
        Type::Scalar,
        Some(json::buffer::Target::ElementArrayBuffer),
        None,
    );

    let png = atlas_png()?;
    let image_view = doc.view(&png, None);
    let image = doc.root.push(json::Image {
        buffer_view: Some(image_view),
        mime_type: Some(json::image::MimeType("image/png".to_string())),
        name: Some("atlas".to_string()),
        uri: None,
        extensions: None,
        extras: Default::default(),
    });
    let sampler = doc.root.push(json::texture::Sampler {
        mag_filter: Some(Valid(json::texture::MagFilter::Linear)),
        min_filter: Some(Valid(json::texture::MinFilter::LinearMipmapLinear)),
        wrap_s: Valid(json::texture::WrappingMode::ClampToEdge),
        wrap_t: Valid(json::texture::WrappingMode::ClampToEdge),
        ..Default::default()
    });
    let texture = doc.root.push(json::Texture {
        name: Some("atlas".to_string()),
        sampler: Some(sampler),
        source: image,
        extensions: None,
        extras: Default::default(),
    });
    let material = doc.root.push(json::Material {
        name: Some(name.to_string()),
        pbr_metallic_roughness: json::material::PbrMetallicRoughness {
            base_color_factor: json::material::PbrBaseColorFactor([1.0, 1.0, 1.0, 1.0]),
            base_color_texture: Some(json::texture::Info {
                index: texture,
                tex_coord: 0,
                extensions: None,
                extras: Default::default(),
            }),
            metallic_factor: json::material::StrengthFactor(0.0),
            roughness_factor: json::material::StrengthFactor(0.8),
            ..Default::default()
        },
        ..Default::default()
    });
    let mesh_index = doc.root.push(json::Mesh {
        name: Some(name.to_string()),
        primitives: vec![json::mesh::Primitive {
            attributes,
            extensions: None,
            extras: Default::default(),
            indices: Some(indices),
            material: Some(material),
            mode: Valid(json::mesh::Mode::Triangles),
            targets: None,
        }],
        weights: None,
        extensions: None,
        extras: Default::default(),
    });

    let mut scene_roots = Vec::new();
    let mut skin_index = None;
    if let Some(parts) = skinned {
        let joint_nodes = write_joints(&mut doc, parts.rig);
        let inverse_binds: Vec<[f32; 16]> = Joint::ALL
            .iter()
            .map(|&joint| parts.rig.inverse_bind(joint).to_cols_array())
            .collect();
        let inverse_binds = doc.floats(&inverse_binds, Type::Mat4, None, false);
        skin_index = Some(doc.root.push(json::Skin {
            extensions: None,
            extras: Default::default(),
            inverse_bind_matrices: Some(inverse_binds),
            joints: joint_nodes.clone(),
            name: Some(format!("{name}_rig")),
            skeleton: Some(joint_nodes[Joint::Hips.index()]),
        }));
        for clip in parts.clips {
            write_clip(&mut doc, clip, &joint_nodes);
        }
        scene_roots.push(joint_nodes[Joint::Hips.index()]);
    }
    let mesh_node = doc.root.push(json::Node {
        mesh: Some(mesh_index),
        name: Some(name.to_string()),
        skin: skin_index,
        ..Default::default()
    });
    scene_roots.push(mesh_node);
    let scene = doc.root.push(json::Scene {
        extensions: None,
        extras: Default::default(),
        name: Some(name.to_string()),
        nodes: scene_roots,
    });
    doc.root.scene = Some(scene);

    while doc.bin.len() % 4 != 0 {
        doc.bin.push(0);
    }
    doc.root.push(json::Buffer {
        byte_length: USize64::from(doc.bin.len()),
        name: None,
        uri: None,
        extensions: None,
        extras: Default::default(),
    });
    let mut json_bytes = doc.root.to_vec()?;
    while json_bytes.len() % 4 != 0 {
        json_bytes.push(b' ');
    }
    Ok(glb_container(&json_bytes, &doc.bin))
}

/// Joint nodes in skin order with their bind-pose translations and children.
fn write_joints(doc: &mut Document, rig: &Rig) -> Vec<Index<json::Node>> {
    // Node indices are known before the nodes exist: the joints are pushed first
    // and in skin order, so joint i becomes node (first + i).
    let first = doc.root.nodes.len() as u32;
    let node_of = |joint: Joint| Index::new(first + joint.index() as u32);
    Joint::ALL
        .iter()
        .map(|&joint| {
            let children: Vec<_> = joint.children().map(node_of).collect();
            doc.root.push(json::Node {
                name: Some(joint.name().to_string()),
                translation: Some(rig.local_translation(joint).to_array()),
                children: (!children.is_empty()).then_some(children),
                ..Default::default()
            })
        })
        .collect()
}

/// One glTF animation per clip: a shared key-time input, a LINEAR rotation
/// channel for every joint and a LINEAR translation channel for the hips.
fn write_clip(doc: &mut Document, clip: &Clip, joint_nodes: &[Index<json::Node>]) {
    let times: Vec<[f32; 1]> = clip.times.iter().map(|&time| [time]).collect();
    let input = doc.floats(&times, Type::Scalar, None, true);
    let mut targets = Vec::new();
    for joint in Joint::ALL {
        let rotations: Vec<[f32; 4]> = clip
            .rotations
            .iter()
            .map(|key| key[joint.index()].to_array())
            .collect();
        let output = doc.floats(&rotations, Type::Vec4, None, false);
        targets.push((joint, json::animation::Property::Rotation, output));
    }
    let translations: Vec<[f32; 3]> = clip
        .hips_translations
        .iter()
        .map(|t| t.to_array())
        .collect();
    let output = doc.floats(&translations, Type::Vec3, None, false);
    targets.push((Joint::Hips, json::animation::Property::Translation, output));

    let samplers = targets
        .iter()
        .map(|&(_, _, output)| json::animation::Sampler {
            extensions: None,
            extras: Default::default(),
            input,
            interpolation: Valid(json::animation::Interpolation::Linear),
            output,
        })
        .collect();
    let channels = targets
        .into_iter()
        .enumerate()
        .map(|(sampler, (joint, path, _))| json::animation::Channel {
            sampler: Index::new(sampler as u32),
            target: json::animation::Target {
                extensions: None,
                extras: Default::default(),
                node: joint_nodes[joint.index()],
                path: Valid(path),
            },
            extensions: None,
            extras: Default::default(),
        })
        .collect();
    doc.root.push(json::Animation {
        extensions: None,
        extras: Default::default(),
        channels,
        name: Some(clip.name.to_string()),
        samplers,
    });
}

/// Wraps padded JSON and BIN chunks in the GLB container.
fn glb_container(json_chunk: &[u8], bin_chunk: &[u8]) -> Vec<u8> {
    const MAGIC: &[u8; 4] = b"glTF";
    const VERSION: u32 = 2;
    const JSON_CHUNK: u32 = 0x4E4F_534A;
    const BIN_CHUNK: u32 = 0x004E_4942;
    let total = 12 + 8 + json_chunk.len() + 8 + bin_chunk.len();
    let mut glb = Vec::with_capacity(total);
    glb.extend_from_slice(MAGIC);
    glb.extend_from_slice(&VERSION.to_le_bytes());
    glb.extend_from_slice(&(total as u32).to_le_bytes());
    for (kind, chunk) in [(JSON_CHUNK, json_chunk), (BIN_CHUNK, bin_chunk)] {
        glb.extend_from_slice(&(chunk.len() as u32).to_le_bytes());
        glb.extend_from_slice(&kind.to_le_bytes());
        glb.extend_from_slice(chunk);
    }
    glb
}
