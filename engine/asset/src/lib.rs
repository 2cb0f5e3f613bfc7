//! The `.horde` baked asset format: types, writer and validating reader.
//!
//! One file holds one unit type (skinned, with baked animation) or one static prop.
//! `horde-bake` writes it; the renderer reads it with [`read_file`] and uploads
//! the vertex, index and bone-texture data as they are.
//!
//! # Layout (version 4, every integer and float little-endian)
//!
//! ```text
//! offset size  field
//! 0      8     magic "HORDEAST"
//! 8      4     version (u32) = 4
//! 12     4     section count S (u32), 1..=64
//! 16     8     file length in bytes (u64), equal to the real length
//! 24     4     checksum (u32): FNV-1a 32 of bytes [32, file length)
//! 28     4     reserved, 0
//! 32     20*S  section table, one entry per section:
//!              tag [u8; 4], offset (u64), length (u64)
//! ...          section bodies, anywhere after the table, not overlapping
//! ```
//!
//! Strings are a u32 byte length (at most 4096) followed by UTF-8 bytes. Every
//! section must be consumed exactly; trailing bytes are an error. The sections:
//!
//! - `META` (once): name (string), kind (u8: 0 unit, 1 prop), bone count B (u32,
//!   0 for props, 1..=256 for units), B bone names (strings), bounds: quant_min
//!   (3 f32), quant_max (3 f32), sphere_center (3 f32), sphere_radius (f32),
//!   height (f32).
//! - `MATL` (once): count (u32), then per material: name (string), base colour
//!   factor (4 f32), base colour texture (u32, `u32::MAX` for none), emissive
//!   factor (3 f32), emissive texture (u32, `u32::MAX` for none), double-sided
//!   (u8, 0 or 1).
//! - `TEXR` (once): count (u32), then per texture: width (u32), height (u32),
//!   width*height*4 bytes of sRGB RGBA8, row-major (base colour and emissive
//!   textures alike).
//! - `ANIM` (units only, once): encoding (u32: 0 mat3x4 f32, 1 quat f32, 2 quat
//!   f16), bone count (u32, equal to META's), texture width (u32), texture height
//!   (u32), clip count (u32), clips (name string, first texel u32, frame count u32,
//!   duration f32, looping u8, ground speed f32, foot phase f32), then
//!   width*height texels of 16
//!   bytes (RGBA32F) or 8 bytes (RGBA16F), row-major. Encoding 3 is the dual
//!   quaternion (real xyzw, dual xyzw), RGBA32F. The ground speed (model units
//!   per second at 1x playback, 0 for a clip that does not walk) is finite,
//!   at least 0 and at most [`MAX_GROUND_SPEED_PER_HEIGHT`] model heights per
//!   second. The foot phase (in [0, 1), 0 for a clip that does not walk) is
//!   the normalized time at which the left (+X) foot is mid-stance, so that
//!   two locomotion clips can be blended in step. Version 2 had neither; it
//!   is rejected like any other version, and the bake cache rebakes it.
//! - `LOD_` (1..=16, in order, LOD 0 first): simplification error (f32), flags
//!   (u32: [`LOD_FLAG_BOX_PROXY`] since version 5, [`LOD_FLAG_RASTER_ONLY`]
//!   since version 6, no other bit; LOD 0 never raster only), vertex
//!   count (u32), vertices (20 bytes each, [`PackedVertex`]), index count (u32,
//!   a multiple of 3), indices (u32 each), submesh count (u32), submeshes (first
//!   index, index count, material: 3 u32).
//! - `REPT` (once): the [`ErrorReport`]: model height, sample rate (f32), sample
//!   count (u32), then eight (max, rms) f32 pairs in field order, then a warning
//!   count (u32, at most 1024) and the warnings (strings).
//! - `IMPO` (units only, at most once; version 4): the animated impostor
//!   ([`Impostor`]): views per side V (u32, [`IMPOSTOR_VIEWS_PER_SIDE`]), cell
//!   side C in texels (u32, [`IMPOSTOR_CELL_PX`]), frame count F (u32,
//!   1..=[`MAX_IMPOSTOR_FRAMES`]), projected error (f32, a fraction of the
//!   bounding sphere's diameter, like a LOD's), the box the cells frame
//!   (centre, 3 f32; half extents, 3 f32, positive), clip count (u32, equal to
//!   ANIM's), per clip (in ANIM order) first frame (u32), frame count (u32)
//!   and looping (u8), then the albedo cells and the normal cells, each
//!   `F * V * V * C * C * 4` bytes. Cell (frame f, view v) starts at texel
//!   `(f * V * V + v) * C * C`, row-major, row 0 at the top. Albedo is sRGB
//!   RGBA8 with the (conservative) coverage in alpha; the normal cell holds the model-space
//!   normal as `n * 0.5 + 0.5` in RGB (alpha 0). View v = (row, column) of
//!   a hemi-octahedral grid over the upper hemisphere (`horde-bake`'s
//!   `impostor`); its cell is the orthographic projection of the box along
//!   the view: right `r` and up `u` of the view span `±dot(|r|, half)` and
//!   `±dot(|u|, half)` around the box's centre.
//!   Every ANIM clip has frames: a clip the bake did not render points at
//!   the frames of the clip that stands in for it.
//!
//! # Bone texture
//!
//! Texel index of (clip c, frame f, bone b, row r) is
//! `clips[c].first_texel + (f * bone_count + b) * texels_per_bone + r`, texel
//! (x, y) = (index % width, index / width). `mat3x4` stores the first three rows
//! of the 4x4 skin matrix (column 3 is translation); `quat` stores the rotation
//! quaternion (x, y, z, w), then (translation xyz, uniform scale). A clip of
//! duration D and N frames stores poses at `t_i = i * D / (N - 1)`, both ends
//! included; a pose clip has N = 1 and D = 0. The runtime blends frames per texel
//! (`mix`), normalizing quaternions after the blend; the bake keeps neighbouring
//! frames' quaternions in one hemisphere so that the blend is the short way round.
//!
//! # Reader guarantees
//!
//! [`read`] checks every size, offset, count and index before use: bone indices
//! below the bone count, vertex indices below the vertex count, submesh ranges
//! inside the index buffer, clip texel ranges inside the texture, finite poses and
//! bounds, plausible clip ground speeds. No allocation exceeds the file's own length.

pub mod clip_bounds;
mod read;
pub mod skinning;
mod validate;
mod write;

use bytemuck::{Pod, Zeroable};

pub use read::{read, read_file, section_table, SectionInfo};
pub use write::write;

/// File signature, the first eight bytes of every `.horde` file.
pub const MAGIC: [u8; 8] = *b"HORDEAST";
/// Format version this crate reads and writes.
pub const VERSION: u32 = 6;
/// Bytes of the fixed header before the section table.
pub const HEADER_SIZE: usize = 32;
/// Bytes of one section table entry.
pub const SECTION_ENTRY_SIZE: usize = 20;
/// Most sections a file may declare.
pub const MAX_SECTIONS: u32 = 64;
/// Most levels of detail a file may hold.
pub const MAX_LODS: usize = 16;
/// Most bones a unit may have: vertex bone indices are 8-bit.
pub const MAX_BONES: usize = 256;
/// Longest string (names, warnings) in bytes.
pub const MAX_STRING_LEN: usize = 4096;
/// Most warnings an error report may carry.
pub const MAX_WARNINGS: usize = 1024;
/// Largest texture side (base colour or bone texture) the reader accepts.
pub const MAX_TEXTURE_SIDE: u32 = 16384;
/// Bone texture width in texels the bake uses unless told otherwise. The
/// engine reads each asset's own width from its `ANIM` section, so this is a
/// default, not a limit.
pub const DEFAULT_BONE_TEXTURE_WIDTH: u32 = 1024;
/// Fastest clip ground speed the reader accepts, in model heights per second
/// (a sprinting human covers about 5): anything faster is corrupt data.
pub const MAX_GROUND_SPEED_PER_HEIGHT: f32 = 50.0;
/// Impostor views per side of the hemi-octahedral grid (V * V views).
pub const IMPOSTOR_VIEWS_PER_SIDE: u32 = 8;
/// Impostor cell side in texels.
pub const IMPOSTOR_CELL_PX: u32 = 32;
/// Most impostor frames (over all clips) a file may hold.
pub const MAX_IMPOSTOR_FRAMES: u32 = 256;
/// Material texture index meaning "no texture".
pub const NO_TEXTURE: u32 = u32::MAX;

/// Section tags, in the order the writer emits them.
pub(crate) mod tag {
    pub const META: [u8; 4] = *b"META";
    pub const MATERIALS: [u8; 4] = *b"MATL";
    pub const TEXTURES: [u8; 4] = *b"TEXR";
    pub const ANIMATION: [u8; 4] = *b"ANIM";
    pub const LOD: [u8; 4] = *b"LOD_";
    pub const REPORT: [u8; 4] = *b"REPT";
    pub const IMPOSTOR: [u8; 4] = *b"IMPO";
}

/// What an asset is drawn as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AssetKind {
    /// Skinned, with baked animation.
    Unit,
    /// Static, one implicit bone.
    Prop,
}

/// How a bone pose is stored in the bone texture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoneEncoding {
    /// Three RGBA32F texels: rows 0..3 of the skin matrix.
    Mat3x4F32,
    /// Two RGBA32F texels: rotation quaternion, then translation and uniform scale.
    QuatF32,
    /// As [`BoneEncoding::QuatF32`] in RGBA16F.
    QuatF16,
    /// Two RGBA32F texels: the unit dual quaternion (real part, then dual
    /// part) of a rigid pose. The runtime blends a vertex's two bones as dual
    /// quaternions (no candy-wrapper collapse on twists) instead of as
    /// matrices. Poses with scale cannot be stored.
    DualQuatF32,
}

impl BoneEncoding {
    /// Every encoding, in file-code order.
    pub const ALL: [BoneEncoding; 4] = [
        Self::Mat3x4F32,
        Self::QuatF32,
        Self::QuatF16,
        Self::DualQuatF32,
    ];

    /// Texels one bone of one frame occupies.
    pub fn texels_per_bone(self) -> u32 {
        match self {
            Self::Mat3x4F32 => 3,
            Self::QuatF32 | Self::QuatF16 | Self::DualQuatF32 => 2,
        }
    }

    /// Bytes of one texel (RGBA32F or RGBA16F).
    pub fn texel_size(self) -> usize {
        match self {
            Self::Mat3x4F32 | Self::QuatF32 | Self::DualQuatF32 => 16,
            Self::QuatF16 => 8,
        }
    }

    /// The code stored in the `ANIM` section.
    pub fn code(self) -> u32 {
        match self {
            Self::Mat3x4F32 => 0,
            Self::QuatF32 => 1,
            Self::QuatF16 => 2,
            Self::DualQuatF32 => 3,
        }
    }

    /// The value of the shaders' `BONE_ENCODING` specialization constant
    /// (`skinning.glsl`): 0 matrix rows, 1 quaternion + translation/scale
    /// (RGBA32F or RGBA16F alike), 2 dual quaternion.
    pub fn shader_constant(self) -> u32 {
        match self {
            Self::Mat3x4F32 => 0,
            Self::QuatF32 | Self::QuatF16 => 1,
            Self::DualQuatF32 => 2,
        }
    }

    /// The encoding of a stored code.
    pub fn from_code(code: u32) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|encoding| encoding.code() == code)
    }

    /// Short name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Self::Mat3x4F32 => "mat3x4",
            Self::QuatF32 => "quat32",
            Self::QuatF16 => "quat16",
            Self::DualQuatF32 => "dualquat",
        }
    }
}

/// 20-byte quantized vertex, the vertex buffer element of every LOD.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct PackedVertex {
    /// xyz unorm16 inside `Bounds::quant_min..quant_max`; w = 0.
    pub position: [u16; 4],
    /// Octahedral-encoded unit normal, snorm16.
    pub normal: [i16; 2],
    /// Texture coordinate as f16 bits.
    pub uv: [u16; 2],
    /// Bone indices (props: 0, 0).
    pub bones: [u8; 2],
    /// Weight of `bones[0]` in 0..=255; `bones[1]` gets `255 - weight`.
    pub weight: u8,
    /// Zero.
    pub pad: u8,
}

const _: () = assert!(std::mem::size_of::<PackedVertex>() == 20);

/// A range of one LOD's index buffer drawn with one material.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Submesh {
    /// First index of the range, a multiple of 3.
    pub first_index: u32,
    /// Index count of the range, a multiple of 3.
    pub index_count: u32,
    /// Index into [`Asset::materials`].
    pub material: u32,
}

/// One level of detail.
#[derive(Clone, Debug, PartialEq)]
pub struct MeshLod {
    /// Quantized vertices, in vertex-fetch order.
    pub vertices: Vec<PackedVertex>,
    /// Triangle list, in vertex-cache and overdraw order.
    pub indices: Vec<u32>,
    /// Material ranges covering `indices`.
    pub submeshes: Vec<Submesh>,
    /// Simplification error as a fraction of the mesh size (meshopt's relative
    /// error); 0 for LOD 0.
    pub error: f32,
    /// A box proxy of the bake (`tools/bake/src/silhouette.rs`): rigid boxes
    /// whose corners carry the UV of the nearest source vertex, a colour
    /// that holds at the corner only, so a renderer that can reads the
    /// texture once a vertex rather than interpolating the UV across a face
    /// (the far field does).
    pub box_proxy: bool,
    /// A LOD for the raster only: the bake inserts it between two LODs of
    /// the chain to shorten the raster's steps in vertices, and a renderer
    /// that draws far units in compute (horde's far field) draws its units
    /// with the next finer LOD instead, as it would without it. Never LOD 0.
    pub raster_only: bool,
}

/// Bits of a LOD's flags word in the file (`LOD_` section).
pub const LOD_FLAG_BOX_PROXY: u32 = 1;
/// See [`MeshLod::raster_only`].
pub const LOD_FLAG_RASTER_ONLY: u32 = 2;

impl MeshLod {
    /// The LOD's flags word in the file.
    pub fn flags(&self) -> u32 {
        let flag = |set: bool, bit: u32| if set { bit } else { 0 };
        flag(self.box_proxy, LOD_FLAG_BOX_PROXY) | flag(self.raster_only, LOD_FLAG_RASTER_ONLY)
    }
}

/// Base colour and emissive material.
#[derive(Clone, Debug, PartialEq)]
pub struct Material {
    /// Name from the source file (may be empty).
    pub name: String,
    /// Linear RGBA multiplier.
    pub base_color_factor: [f32; 4],
    /// Index into [`Asset::textures`].
    pub base_color_texture: Option<u32>,
    /// Linear RGB emitted light, `KHR_materials_emissive_strength` already
    /// multiplied in; zero for none.
    pub emissive_factor: [f32; 3],
    /// sRGB emissive texture (index into [`Asset::textures`]), multiplied by
    /// `emissive_factor`.
    pub emissive_texture: Option<u32>,
    /// Whether back faces are drawn (and lit with the flipped normal) instead
    /// of culled.
    pub double_sided: bool,
}

impl Default for Material {
    /// Opaque white, single-sided, not emissive.
    fn default() -> Self {
        Self {
            name: String::new(),
            base_color_factor: [1.0; 4],
            base_color_texture: None,
            emissive_factor: [0.0; 3],
            emissive_texture: None,
            double_sided: false,
        }
    }
}

/// sRGB base colour texture.
#[derive(Clone, Debug, PartialEq)]
pub struct Texture {
    /// Width in texels.
    pub width: u32,
    /// Height in texels.
    pub height: u32,
    /// Row-major RGBA8, `width * height * 4` bytes.
    pub rgba8: Vec<u8>,
}

/// Quantization box and culling bounds, in model units.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Bounds {
    /// Position that unorm16 0 decodes to.
    pub quant_min: [f32; 3],
    /// Position that unorm16 65535 decodes to.
    pub quant_max: [f32; 3],
    /// Centre of a sphere holding the mesh in every frame of every clip.
    pub sphere_center: [f32; 3],
    /// Radius of that sphere.
    pub sphere_radius: f32,
    /// Height (y extent) of the model in its rest pose, skinned: every vertex
    /// at `jointGlobal * inverseBind * v`, as the runtime draws it.
    pub height: f32,
}

/// One animation clip inside the bone texture.
#[derive(Clone, Debug, PartialEq)]
pub struct Clip {
    /// Name, after any renaming at bake time.
    pub name: String,
    /// Texel index of frame 0, bone 0, row 0.
    pub first_texel: u32,
    /// Stored frames, both ends included (1 for a pose).
    pub frame_count: u32,
    /// Seconds from the first to the last frame (0 for a pose).
    pub duration: f32,
    /// Whether the runtime wraps time modulo the duration.
    pub looping: bool,
    /// How fast the clip walks, in model units per second at 1x playback:
    /// the speed at which the ground passes under a planted foot (plus any
    /// root motion). A unit moving at this speed times its scale plays the
    /// clip at 1x without foot sliding. 0 for clips that do not walk.
    pub ground_speed: f32,
    /// Normalized time (0..1) at which the left (+X) foot is mid-stance, so
    /// that a walk and a run blend with their feet in step. 0 for clips that
    /// do not walk.
    pub foot_phase: f32,
}

/// Baked poses of every clip.
#[derive(Clone, Debug, PartialEq)]
pub struct Animation {
    /// Texel layout of one bone.
    pub encoding: BoneEncoding,
    /// Bones per frame; equals `Asset::bone_names.len()`.
    pub bone_count: u32,
    /// Texture width in texels.
    pub texture_width: u32,
    /// Texture height in texels.
    pub texture_height: u32,
    /// Raw row-major RGBA32F or RGBA16F texels.
    pub texels: Vec<u8>,
    /// Clips, in texture order.
    pub clips: Vec<Clip>,
}

/// Maximum and root-mean-square vertex distance, in model units.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ErrorStat {
    /// Largest distance over all vertices and sampled times.
    pub max: f32,
    /// Root mean square of the distance over all vertices and sampled times.
    pub rms: f32,
}

/// What the bake's approximations cost, measured against exact 4-influence
/// skinning of the source at exact clip times (frame times and mid-frame times).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ErrorReport {
    /// Rest-pose (skinned) height of the model, the unit of the percentages.
    pub model_height: f32,
    /// Base frames per second; a clip whose frame interpolation would exceed
    /// the bake's bound is sampled faster (its rate is `(frames - 1) / duration`).
    pub sample_rate: f32,
    /// Time samples the statistics cover.
    pub time_samples: u32,
    /// Top-2 influences renormalized, exact poses.
    pub two_bone_naive: ErrorStat,
    /// Fitted bone pair and weight, exact poses.
    pub two_bone_fitted: ErrorStat,
    /// Exact influences, poses through the mat3x4 encoding.
    pub mat3x4: ErrorStat,
    /// Exact influences, poses through the quat32 encoding.
    pub quat32: ErrorStat,
    /// Exact influences, poses through the quat16 encoding.
    pub quat16: ErrorStat,
    /// Exact influences and poses, blended as dual quaternions instead of
    /// matrices (what the dual-quaternion encoding changes).
    pub dual_quat: ErrorStat,
    /// Exact influences, f32 poses blended between stored frames.
    pub frame_rate: ErrorStat,
    /// Everything the runtime does with this file: quantized vertices, two
    /// stored bones, the stored encoding, frame blending.
    pub total: ErrorStat,
    /// What the bake changed, dropped or could not do.
    pub warnings: Vec<String>,
}

/// Where one clip's impostor frames are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImpostorClip {
    /// First frame of the clip in the impostor's frames.
    pub first_frame: u32,
    /// Frames of the clip (at least 1).
    pub frame_count: u32,
    /// Looping clips store frames at `i * D / N` (the end is the start);
    /// the others at `i * D / (N - 1)`, both ends included.
    pub looping: bool,
}

/// The animated impostor: the unit pre-rendered from `views_per_side²`
/// directions over the upper hemisphere at every frame (layout in the
/// module doc, `IMPO`).
#[derive(Clone, Debug, PartialEq)]
pub struct Impostor {
    pub views_per_side: u32,
    pub cell_px: u32,
    pub frame_count: u32,
    /// Projected error as a fraction of the bounding sphere's diameter: the
    /// cull compares it with the LOD threshold like a mesh LOD's error.
    pub error: f32,
    /// Centre of the model-space box holding every baked frame.
    pub box_center: [f32; 3],
    /// Its half extents: each cell frames the box's projection.
    pub box_half_extent: [f32; 3],
    /// One per ANIM clip, in order.
    pub clips: Vec<ImpostorClip>,
    /// sRGB RGBA8 cells, conservative coverage in alpha (any sample of a
    /// texel covered: 255).
    pub albedo: Vec<u8>,
    /// RGBA8 cells: model-space normal `n * 0.5 + 0.5`, alpha 0.
    pub normal: Vec<u8>,
}

impl Impostor {
    /// Bytes of one channel's cells.
    pub fn channel_bytes(&self) -> usize {
        let side = self.views_per_side as usize;
        let cell = self.cell_px as usize;
        self.frame_count as usize * side * side * cell * cell * 4
    }
}

/// A whole baked unit type or prop.
#[derive(Clone, Debug, PartialEq)]
pub struct Asset {
    /// Name (the source file stem unless given).
    pub name: String,
    /// Unit or prop.
    pub kind: AssetKind,
    /// Joint names in bone-index order (empty for props).
    pub bone_names: Vec<String>,
    /// Baked poses; `None` for props.
    pub animation: Option<Animation>,
    /// Levels of detail, LOD 0 first.
    pub lods: Vec<MeshLod>,
    /// Materials the submeshes refer to.
    pub materials: Vec<Material>,
    /// Textures the materials refer to.
    pub textures: Vec<Texture>,
    /// Quantization and culling bounds.
    pub bounds: Bounds,
    /// The bake's error report.
    pub report: ErrorReport,
    /// The animated impostor (units only; `None` when not baked).
    pub impostor: Option<Impostor>,
}

/// Why a `.horde` file was rejected.
#[derive(Debug, thiserror::Error)]
pub enum AssetError {
    /// The file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file was read but its content is invalid.
    #[error("{path}: {source}")]
    InFile {
        /// The file.
        path: String,
        /// What is wrong with it.
        source: Box<AssetError>,
    },
    /// Shorter than its header or a declared field.
    #[error("truncated: {0}")]
    Truncated(String),
    /// The first eight bytes are not [`MAGIC`].
    #[error("bad magic {0:02x?}: not a .horde file")]
    BadMagic([u8; 8]),
    /// A version this reader does not know.
    #[error("unsupported version {found} (this reader reads version {VERSION})")]
    UnsupportedVersion {
        /// The version in the file.
        found: u32,
    },
    /// The stored checksum does not match the content.
    #[error("checksum mismatch: stored {stored:#010x}, computed {computed:#010x}")]
    ChecksumMismatch {
        /// Checksum in the header.
        stored: u32,
        /// Checksum of the bytes.
        computed: u32,
    },
    /// The section table is inconsistent.
    #[error("bad section table: {0}")]
    BadSection(String),
    /// A field holds a value outside its range.
    #[error("invalid {0}")]
    Invalid(String),
}

/// FNV-1a, 32-bit: the file checksum. Simple, dependency-free, and enough to
/// catch truncation and bit rot (it is not a defence against forgery).
pub fn fnv1a32(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5_u32, |hash, &byte| {
        (hash ^ u32::from(byte)).wrapping_mul(0x0100_0193)
    })
}
