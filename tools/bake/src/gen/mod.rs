//! Procedural content: rigged, animated knights and skeletons, and static props,
//! written as binary glTF 2.0.
//!
//! Everything is a pure function of (content kind, seed): a seeded SplitMix64
//! ([`random`]) draws proportions and variants; parts are parametric surfaces
//! ([`shapes`]) placed on a 21-joint humanoid rig ([`rig`]); skin weights blend by
//! distance to bone segments ([`skinning`]); clips are authored stances sampled
//! into LINEAR keys and grounded by forward kinematics ([`clips`]); one shared
//! 128 x 128 colour atlas is embedded as PNG ([`atlas`]); and [`glb`] lays out the
//! bytes. Nothing reads the clock, iterates a hash map or formats floats by
//! locale, so the same seed always gives the same bytes.
//!
//! Units: Y up, facing +Z, metres, feet on y = 0, about 1.8 m tall. The file
//! module docs give each layout in detail.

pub mod atlas;
pub mod clips;
pub mod glb;
pub mod props;
pub mod random;
pub mod rig;
pub mod shapes;
pub mod skinning;
pub mod units;

use std::path::{Path, PathBuf};

use crate::output::OutputPath;
use props::{build_prop, PropKind};
use units::{build_unit, UnitKind};

/// Errors while generating or writing content.
#[derive(Debug, thiserror::Error)]
pub enum GenError {
    #[error("mesh has {0} vertices, more than 16-bit indices can address")]
    TooManyVertices(usize),
    #[error("encoding the atlas PNG failed: {0}")]
    Png(#[from] image::ImageError),
    #[error("serialising the glTF JSON failed: {0}")]
    Json(#[from] gltf_json::Error),
    #[error(transparent)]
    Output(#[from] crate::output::OutputError),
}

/// What to generate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Content {
    Unit(UnitKind),
    Prop(PropKind),
}

impl Content {
    /// The name of the mesh inside the file and the default file stem.
    pub fn name(self) -> &'static str {
        match self {
            Content::Unit(UnitKind::Knight) => "knight",
            Content::Unit(UnitKind::Skeleton) => "skeleton",
            Content::Prop(kind) => kind.name(),
        }
    }
}

/// A generated file and facts about it for logs and tests.
#[derive(Debug, Clone)]
pub struct Generated {
    pub content: Content,
    pub seed: u64,
    pub glb: Vec<u8>,
    pub vertex_count: usize,
    pub triangle_count: usize,
    /// Seed-chosen variants (helmet, weapon, shield kinds); empty for props.
    pub variants: Vec<&'static str>,
}

/// Builds one piece of content from `seed` and encodes it as GLB.
pub fn generate(content: Content, seed: u64) -> Result<Generated, GenError> {
    let name = content.name();
    let (glb, mesh_counts, variants) = match content {
        Content::Unit(kind) => {
            let unit = build_unit(kind, seed);
            let parts = glb::SkinnedParts {
                rig: &unit.rig,
                skin: &unit.skin,
                clips: &unit.clips,
            };
            let glb = glb::encode(name, &unit.mesh, Some(parts))?;
            (
                glb,
                (unit.mesh.vertex_count(), unit.mesh.indices.len() / 3),
                unit.variants,
            )
        }
        Content::Prop(kind) => {
            let mesh = build_prop(kind, seed);
            let glb = glb::encode(name, &mesh, None)?;
            (
                glb,
                (mesh.vertex_count(), mesh.indices.len() / 3),
                Vec::new(),
            )
        }
    };
    Ok(Generated {
        content,
        seed,
        glb,
        vertex_count: mesh_counts.0,
        triangle_count: mesh_counts.1,
        variants,
    })
}

/// The committed default content set: what, from which seed, in which file.
pub const DEFAULT_SET: [(Content, u64, &str); 11] = [
    (Content::Unit(UnitKind::Knight), 2, "knight.glb"),
    (Content::Unit(UnitKind::Skeleton), 4, "skeleton.glb"),
    (Content::Unit(UnitKind::Knight), 11, "knight_2.glb"),
    (Content::Unit(UnitKind::Knight), 13, "knight_3.glb"),
    (Content::Unit(UnitKind::Skeleton), 6, "skeleton_2.glb"),
    (Content::Unit(UnitKind::Skeleton), 9, "skeleton_3.glb"),
    (Content::Prop(PropKind::Rock), 3, "rock.glb"),
    (Content::Prop(PropKind::Pillar), 4, "pillar.glb"),
    (Content::Prop(PropKind::Banner), 5, "banner.glb"),
    (Content::Prop(PropKind::Tree), 6, "tree.glb"),
    (Content::Prop(PropKind::Fence), 7, "fence.glb"),
];

/// Generates the default set into `directory` (created if missing) and
/// returns each written path with what was written. Every output path is
/// checked before anything is generated.
pub fn write_default_set(directory: &Path) -> Result<Vec<(PathBuf, Generated)>, GenError> {
    let outputs = DEFAULT_SET
        .iter()
        .map(|&(_, _, file_name)| OutputPath::check(directory.join(file_name)))
        .collect::<Result<Vec<_>, _>>()?;
    DEFAULT_SET
        .iter()
        .zip(outputs)
        .map(|(&(content, seed, _), output)| {
            let generated = generate(content, seed)?;
            output.write(&generated.glb)?;
            Ok((output.path().to_path_buf(), generated))
        })
        .collect()
}
