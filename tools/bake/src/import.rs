//! glTF 2.0 import: the scene graph, the skins, the meshes bound to them,
//! materials, textures and animation clips, converted into plain arrays. The
//! file has passed [`crate::source`]'s checks before anything here reads it.
//!
//! - Node transforms are kept for every node, because animated non-joint parents
//!   of the skeleton move the joints too. The skinned mesh node's own transform
//!   and its parents' are ignored, as the glTF spec requires.
//! - Every skin a mesh uses is merged into one joint palette by joint node
//!   (exporters often write one skin per mesh over one skeleton); all
//!   primitives of all skinned meshes are merged into one vertex array, their
//!   joint indices remapped to the palette; triangles are grouped by material
//!   (the later submeshes).
//! - A mesh node without a skin whose ancestor is a joint (a sword in a hand, a
//!   helmet) becomes a one-bone part: its vertices are moved into bind space
//!   (`inverse(IBM[j]) * local chain * p`), so the joint's skin matrix moves them.
//! - Influences: JOINTS_0/WEIGHTS_0 and JOINTS_1/WEIGHTS_1 are merged, the four
//!   strongest kept and renormalized (with a warning if a sum was not 1).
//! - Animation channels are bound to character nodes by index for the
//!   character's own clips and by node name for separate animation libraries,
//!   so a library whose joint order differs still drives the right bones.
//!
//! `import/mesh.rs` builds the vertex array, `import/materials.rs` the
//! materials and textures, `import/clips.rs` the animation clips.

use crate::BakeError;
use glam::{Mat3, Mat4, Quat, Vec2, Vec3, Vec4};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

mod clips;
mod materials;
mod mesh;
use clips::clips;
use materials::materials_and_textures;
use mesh::{finish_mesh, MeshBuilder};

/// Rest transform and place in the hierarchy of one glTF node.
#[derive(Clone, Debug)]
pub struct Node {
    /// Node name (empty if unnamed).
    pub name: String,
    /// Parent node index.
    pub parent: Option<usize>,
    /// Rest translation.
    pub translation: Vec3,
    /// Rest rotation.
    pub rotation: Quat,
    /// Rest scale.
    pub scale: Vec3,
}

/// The node hierarchy and the skin's joints.
#[derive(Clone, Debug)]
pub struct Skeleton {
    /// Every node of the character file.
    pub nodes: Vec<Node>,
    /// Node indices with parents before children.
    pub order: Vec<usize>,
    /// Node index of each bone (the merged skins' joint palette).
    pub joints: Vec<usize>,
    /// Inverse bind matrix of each bone.
    pub inverse_bind: Vec<Mat4>,
}

/// Up to four bone influences, strongest first, weights summing to 1.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Influences {
    /// Bone indices.
    pub bones: [u16; 4],
    /// Weights; unused slots are 0.
    pub weights: [f32; 4],
}

impl Influences {
    /// A vertex moved by one bone only.
    pub fn single(bone: u16) -> Self {
        Self {
            bones: [bone, 0, 0, 0],
            weights: [1.0, 0.0, 0.0, 0.0],
        }
    }

    /// Number of influences with a non-zero weight.
    pub fn count(&self) -> usize {
        self.weights.iter().filter(|&&weight| weight > 0.0).count()
    }
}

/// Triangles of one material.
#[derive(Clone, Debug)]
pub struct TriangleGroup {
    /// Index into [`SourceModel::materials`].
    pub material: u32,
    /// Triangle list into the model's vertex arrays.
    pub indices: Vec<u32>,
}

/// How a channel's keys are interpolated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interp {
    /// Linear (slerp for rotations).
    Linear,
    /// Hold the previous key.
    Step,
    /// Hermite spline with in and out tangents.
    CubicSpline,
}

/// Which node property a channel drives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// Translation.
    Translation,
    /// Rotation (quaternion xyzw).
    Rotation,
    /// Scale.
    Scale,
}

/// One animated property of one node.
#[derive(Clone, Debug)]
pub struct Channel {
    /// Character node index.
    pub node: usize,
    /// Property.
    pub target: Target,
    /// Interpolation.
    pub interpolation: Interp,
    /// Key times, non-decreasing.
    pub times: Vec<f32>,
    /// Key values (xyz or xyzw); three per key for cubic splines (in-tangent,
    /// value, out-tangent).
    pub values: Vec<Vec4>,
}

/// One animation clip, bound to the character's nodes.
#[derive(Clone, Debug)]
pub struct SourceClip {
    /// Clip name.
    pub name: String,
    /// Earliest key time: clip time 0.
    pub start: f32,
    /// Latest key time minus `start`.
    pub duration: f32,
    /// Channels.
    pub channels: Vec<Channel>,
}

/// A material before it is written.
pub type SourceMaterial = horde_asset::Material;

/// Everything the bake needs from the input files.
#[derive(Clone, Debug)]
pub struct SourceModel {
    /// Node hierarchy and bones (no joints for props).
    pub skeleton: Skeleton,
    /// Bind-space (props: world-space) positions.
    pub positions: Vec<Vec3>,
    /// Unit normals.
    pub normals: Vec<Vec3>,
    /// Texture coordinates of set 0.
    pub uvs: Vec<Vec2>,
    /// Four-bone influences per vertex.
    pub influences: Vec<Influences>,
    /// Triangles grouped by material.
    pub groups: Vec<TriangleGroup>,
    /// Materials (at least one).
    pub materials: Vec<SourceMaterial>,
    /// Base colour textures.
    pub textures: Vec<horde_asset::Texture>,
    /// Clips of the character file and of the animation libraries.
    pub clips: Vec<SourceClip>,
    /// Things the import dropped or changed.
    pub warnings: Vec<String>,
}

/// A loaded glTF file.
struct GltfFile {
    path: PathBuf,
    document: gltf::Document,
    buffers: Vec<gltf::buffer::Data>,
    images: Vec<gltf::image::Data>,
}

impl GltfFile {
    fn error(&self, message: impl Into<String>) -> BakeError {
        BakeError::Input {
            path: self.path.display().to_string(),
            message: message.into(),
        }
    }

    fn buffer(&self, buffer: gltf::Buffer<'_>) -> Option<&[u8]> {
        self.buffers
            .get(buffer.index())
            .map(|data| data.0.as_slice())
    }
}

fn load(path: &Path) -> Result<GltfFile, BakeError> {
    let loaded = crate::source::load(path)?;
    Ok(GltfFile {
        path: path.to_path_buf(),
        document: loaded.document,
        buffers: loaded.buffers,
        images: loaded.images,
    })
}

fn nodes_of(file: &GltfFile) -> (Vec<Node>, Vec<usize>) {
    let mut nodes: Vec<Node> = file
        .document
        .nodes()
        .map(|node| {
            let (translation, rotation, scale) = node.transform().decomposed();
            Node {
                name: node.name().unwrap_or_default().to_owned(),
                parent: None,
                translation: Vec3::from(translation),
                rotation: Quat::from_array(rotation).normalize(),
                scale: Vec3::from(scale),
            }
        })
        .collect();
    for node in file.document.nodes() {
        for child in node.children() {
            nodes[child.index()].parent = Some(node.index());
        }
    }
    // `source::load` refused anything but a forest, so a depth-first walk from
    // the roots visits every node once, parents first.
    let mut order = Vec::with_capacity(nodes.len());
    let mut stack: Vec<usize> = (0..nodes.len())
        .filter(|&n| nodes[n].parent.is_none())
        .collect();
    stack.reverse();
    while let Some(index) = stack.pop() {
        order.push(index);
        if let Some(node) = file.document.nodes().nth(index) {
            stack.extend(node.children().map(|child| child.index()));
        }
    }
    (nodes, order)
}

/// Local matrix of a node at rest.
pub fn rest_matrix(node: &Node) -> Mat4 {
    Mat4::from_scale_rotation_translation(node.scale, node.rotation, node.translation)
}

/// World matrices of every node at rest.
pub fn rest_globals(skeleton: &Skeleton) -> Vec<Mat4> {
    let mut globals = vec![Mat4::IDENTITY; skeleton.nodes.len()];
    for &index in &skeleton.order {
        let node = &skeleton.nodes[index];
        let parent = node.parent.map_or(Mat4::IDENTITY, |parent| globals[parent]);
        globals[index] = parent * rest_matrix(node);
    }
    globals
}

/// A model of `skeleton` with nothing else yet.
pub(crate) fn empty_model(skeleton: Skeleton) -> SourceModel {
    SourceModel {
        skeleton,
        positions: Vec::new(),
        normals: Vec::new(),
        uvs: Vec::new(),
        influences: Vec::new(),
        groups: Vec::new(),
        materials: Vec::new(),
        textures: Vec::new(),
        clips: Vec::new(),
        warnings: Vec::new(),
    }
}

/// Appends a default white material and returns its index.
fn default_material(model: &mut SourceModel) -> u32 {
    model.materials.push(SourceMaterial {
        name: "default".into(),
        ..SourceMaterial::default()
    });
    model.materials.len() as u32 - 1
}

/// Imports a skinned character: its skin, meshes, rigid parts and clips.
pub fn import_character(path: &Path) -> Result<SourceModel, BakeError> {
    let file = load(path)?;
    let (nodes, order) = nodes_of(&file);
    let mesh_nodes: Vec<gltf::Node<'_>> = file
        .document
        .nodes()
        .filter(|node| node.mesh().is_some())
        .collect();
    let palette = merge_skins(&file, &mesh_nodes)?;
    let SkinPalette {
        joints,
        inverse_bind,
        maps,
    } = palette;
    let skeleton = Skeleton {
        nodes,
        order,
        joints,
        inverse_bind,
    };
    let mut model = empty_model(skeleton);
    materials_and_textures(&file, &mut model)?;
    let default = default_material(&mut model);
    let mut builder = MeshBuilder {
        model: &mut model,
        default_material: default,
        renormalized: 0,
    };
    let rest = rest_globals(&builder.model.skeleton);
    for node in &mesh_nodes {
        let Some(mesh) = node.mesh() else { continue };
        let mesh_name = mesh.name().or(node.name()).unwrap_or_default().to_owned();
        let (transform, bone, joint_map) = match node.skin() {
            Some(node_skin) => match maps.get(&node_skin.index()) {
                Some(map) => (Mat4::IDENTITY, None, map.as_slice()),
                None => {
                    return Err(file.error(format!(
                        "mesh {mesh_name:?}: skin {} was not merged",
                        node_skin.index()
                    )))
                }
            },
            None => match rigid_attachment(&builder.model.skeleton, node.index(), &rest) {
                Some((transform, bone)) => (transform, bone, [].as_slice()),
                None => {
                    builder.model.warnings.push(format!(
                        "{}: mesh {mesh_name:?} is not skinned nor attached to a joint: skipped",
                        path.display()
                    ));
                    continue;
                }
            },
        };
        for primitive in mesh.primitives() {
            builder.primitive(&file, &mesh_name, &primitive, transform, bone, joint_map)?;
        }
    }
    let renormalized = builder.renormalized;
    finish_mesh(&file, &mut model, renormalized)?;
    let identity: Vec<Option<usize>> = (0..model.skeleton.nodes.len()).map(Some).collect();
    model.clips = clips(&file, &identity, &mut model.warnings)?;
    Ok(model)
}

/// Every skin of a character merged into one joint palette.
struct SkinPalette {
    /// Node of each bone.
    joints: Vec<usize>,
    /// Inverse bind matrix of each bone.
    inverse_bind: Vec<Mat4>,
    /// For each merged skin index, its joint slots' bone indices.
    maps: HashMap<usize, Vec<u16>>,
}

/// Whether two inverse bind matrices agree to f32 export precision.
fn same_bind(a: &Mat4, b: &Mat4) -> bool {
    let scale = a
        .abs()
        .to_cols_array()
        .iter()
        .fold(1.0f32, |m, &v| m.max(v));
    (*a - *b)
        .abs()
        .to_cols_array()
        .iter()
        .all(|&d| d <= 1e-4 * scale)
}

/// Merges the skins the mesh nodes use (or the file's first skin if none
/// does) into one palette by joint node: exporters often write one skin per
/// mesh over the same skeleton. A joint that two skins bind differently
/// becomes two bones driven by the same node. Only a palette beyond
/// [`horde_asset::MAX_BONES`] bones is refused.
fn merge_skins(file: &GltfFile, mesh_nodes: &[gltf::Node<'_>]) -> Result<SkinPalette, BakeError> {
    let mut skins: Vec<gltf::Skin<'_>> = Vec::new();
    for skin in mesh_nodes.iter().filter_map(|node| node.skin()) {
        if !skins.iter().any(|seen| seen.index() == skin.index()) {
            skins.push(skin);
        }
    }
    if skins.is_empty() {
        skins.extend(file.document.skins().next());
    }
    if skins.is_empty() {
        return Err(file.error("no skin: nothing to animate (bake static meshes with --prop)"));
    }
    let mut palette = SkinPalette {
        joints: Vec::new(),
        inverse_bind: Vec::new(),
        maps: HashMap::new(),
    };
    for skin in &skins {
        let joints: Vec<usize> = skin.joints().map(|joint| joint.index()).collect();
        if joints.is_empty() {
            return Err(file.error(format!("skin {} has no joints", skin.index())));
        }
        let inverse_bind: Vec<Mat4> = match skin
            .reader(|buffer| file.buffer(buffer))
            .read_inverse_bind_matrices()
        {
            Some(matrices) => matrices.map(|m| Mat4::from_cols_array_2d(&m)).collect(),
            None => vec![Mat4::IDENTITY; joints.len()],
        };
        if inverse_bind.len() != joints.len()
            || !inverse_bind
                .iter()
                .all(|m| m.is_finite() && m.determinant().abs() > 1e-12)
        {
            return Err(file.error(format!(
                "skin {}: inverse bind matrices: wrong count, NaN or singular",
                skin.index()
            )));
        }
        let mut map = Vec::with_capacity(joints.len());
        for (&node, bind) in joints.iter().zip(&inverse_bind) {
            let existing = palette
                .joints
                .iter()
                .zip(&palette.inverse_bind)
                .position(|(&known, known_bind)| known == node && same_bind(known_bind, bind));
            let bone = existing.unwrap_or_else(|| {
                palette.joints.push(node);
                palette.inverse_bind.push(*bind);
                palette.joints.len() - 1
            });
            if bone >= horde_asset::MAX_BONES {
                return Err(file.error(format!(
                    "{} skins merge into more than {} distinct joints",
                    skins.len(),
                    horde_asset::MAX_BONES
                )));
            }
            map.push(bone as u16);
        }
        palette.maps.insert(skin.index(), map);
    }
    Ok(palette)
}

/// Bind-space placement and bone of a rigid mesh node under a joint:
/// `inverse(IBM[j]) * inverse(rest_global[j]) * rest_global[node]`.
fn rigid_attachment(
    skeleton: &Skeleton,
    node: usize,
    rest: &[Mat4],
) -> Option<(Mat4, Option<u16>)> {
    let mut ancestor = skeleton.nodes[node].parent;
    while let Some(index) = ancestor {
        if let Some(bone) = skeleton.joints.iter().position(|&joint| joint == index) {
            let joint_bind = skeleton.inverse_bind[bone].inverse();
            let local_chain = rest[index].inverse() * rest[node];
            return Some((joint_bind * local_chain, Some(bone as u16)));
        }
        ancestor = skeleton.nodes[index].parent;
    }
    None
}

/// Imports a static prop: every mesh of the default scene in world space.
pub fn import_prop(path: &Path) -> Result<SourceModel, BakeError> {
    let file = load(path)?;
    let (nodes, order) = nodes_of(&file);
    let skeleton = Skeleton {
        nodes,
        order,
        joints: Vec::new(),
        inverse_bind: Vec::new(),
    };
    let rest = rest_globals(&skeleton);
    let mut model = empty_model(skeleton);
    materials_and_textures(&file, &mut model)?;
    let default = default_material(&mut model);
    let mut builder = MeshBuilder {
        model: &mut model,
        default_material: default,
        renormalized: 0,
    };
    for node in file.document.nodes() {
        let Some(mesh) = node.mesh() else { continue };
        let mesh_name = mesh.name().or(node.name()).unwrap_or_default().to_owned();
        if node.skin().is_some() {
            builder.model.warnings.push(format!(
                "{}: mesh {mesh_name:?} is skinned; baked as a static prop in its rest pose",
                path.display()
            ));
        }
        for primitive in mesh.primitives() {
            builder.primitive(
                &file,
                &mesh_name,
                &primitive,
                rest[node.index()],
                Some(0),
                &[],
            )?;
        }
    }
    finish_mesh(&file, &mut model, 0)?;
    Ok(model)
}

/// Imports the clips of an animation library, binding its nodes to the
/// character's by name.
pub fn import_library(
    path: &Path,
    skeleton: &Skeleton,
    warnings: &mut Vec<String>,
) -> Result<Vec<SourceClip>, BakeError> {
    let file = load(path)?;
    let by_name: HashMap<&str, usize> = skeleton
        .nodes
        .iter()
        .enumerate()
        .filter(|(_, node)| !node.name.is_empty())
        .map(|(index, node)| (node.name.as_str(), index))
        .collect();
    let binding: Vec<Option<usize>> = file
        .document
        .nodes()
        .map(|node| node.name().and_then(|name| by_name.get(name).copied()))
        .collect();
    let bound_joints = skeleton
        .joints
        .iter()
        .filter(|joint| binding.contains(&Some(**joint)))
        .count();
    if bound_joints == 0 {
        return Err(file.error("no node name matches a joint of the character"));
    }
    let library_clips = clips(&file, &binding, warnings)?;
    if library_clips.is_empty() {
        return Err(file.error("animation library without animations"));
    }
    Ok(library_clips)
}
