//! Packing the unit types' impostors (the `IMPO` section of their assets)
//! into the runtime atlas and clip table. Pure CPU work.
//!
//! # Layout
//! - Two images of `IMPOSTOR_ATLAS_WIDTH` × `height` texels: albedo (sRGB
//!   RGBA8, coverage in alpha) and normal (RGBA8, model-space `n * 0.5 +
//!   0.5`), with `IMPOSTOR_MIP_LEVELS` levels made cell by cell (cells stay
//!   aligned: 32, 16, 8, 4 texels). A level averages 2 × 2 texels of the
//!   one before: coverage, and colour and normal weighted by coverage
//!   (colour in linear light). Averaged coverage would thin a silhouette
//!   under the 0.5 alpha test, so each cell's coverage at a level is scaled
//!   up until as large a share of its texels passes the test as at level 0
//!   (coverage-preserving mips, as for alpha-tested foliage). Cells of
//!   `IMPOSTOR_CELL_PX`² texels fill them row by row: cell
//!   `c` has its top-left texel at `(c % CELLS_PER_ROW, c / CELLS_PER_ROW) *
//!   IMPOSTOR_CELL_PX`. Neither tier nor lavapipe has descriptor indexing,
//!   so every type shares the two images, as the base colour atlas.
//! - A type's cells are its asset's, in order (frame by frame, each frame's
//!   `IMPOSTOR_VIEWS_PER_SIDE²` views row by row), from its first cell on.
//! - [`ImpostorClip`] per clip, indexed like `ClipInfo` (type's first clip +
//!   local clip): the first cell of its frames, their count, the clip's own
//!   duration and whether the frames loop. A type without an impostor has
//!   zeroed entries and its impostor route stays closed.
//! - [`ImpostorBox`] per type (`MAX_TYPES`, props zero): the box the type's
//!   cells frame, and its range of cells.

use crate::asset::{Asset, Impostor};
use crate::config::{
    IMPOSTOR_ATLAS_WIDTH, IMPOSTOR_CELL_PX, IMPOSTOR_MIP_LEVELS, IMPOSTOR_VIEWS_PER_SIDE,
};
use crate::gpu_types::{ImpostorBox, ImpostorClip, MAX_TYPES};
use crate::srgb::{linear_to_srgb, srgb_to_linear};
use crate::Error;

const _: () = assert!(
    IMPOSTOR_VIEWS_PER_SIDE == crate::asset::IMPOSTOR_VIEWS_PER_SIDE
        && IMPOSTOR_CELL_PX == crate::asset::IMPOSTOR_CELL_PX
);

/// Cells in one row of the atlas.
pub const CELLS_PER_ROW: u32 = IMPOSTOR_ATLAS_WIDTH / IMPOSTOR_CELL_PX;

/// The packed impostor atlas and clip table of every unit type.
#[derive(Clone, Debug, Default)]
pub struct ImpostorAtlas {
    /// 0 when no unit type has an impostor (the images are then 1 × 1).
    pub height: u32,
    pub albedo: Vec<u8>,
    pub normal: Vec<u8>,
    /// Levels 1.. of each image, level `k` of `IMPOSTOR_ATLAS_WIDTH >> k` ×
    /// `height >> k` texels.
    pub albedo_mips: Vec<Vec<u8>>,
    pub normal_mips: Vec<Vec<u8>>,
    /// Per global clip (as the clip table).
    pub clips: Vec<ImpostorClip>,
    /// Per unit type: its impostor's projected error, `None` without one.
    pub errors: Vec<Option<f32>>,
    /// Per type, `MAX_TYPES` of them.
    pub boxes: Vec<ImpostorBox>,
}

impl ImpostorAtlas {
    /// Cells of the atlas.
    pub fn cell_count(&self) -> u32 {
        self.height / IMPOSTOR_CELL_PX * CELLS_PER_ROW
    }
}

/// Packs the impostors of `unit_types` (clips in the order the clip table
/// takes them), within `max_image` texels per side.
pub fn pack(unit_types: &[&Asset], max_image: u32) -> Result<ImpostorAtlas, Error> {
    let views = IMPOSTOR_VIEWS_PER_SIDE * IMPOSTOR_VIEWS_PER_SIDE;
    let cell_texels = (IMPOSTOR_CELL_PX * IMPOSTOR_CELL_PX) as usize;
    let mut atlas = ImpostorAtlas {
        boxes: vec![ImpostorBox::default(); MAX_TYPES],
        ..ImpostorAtlas::default()
    };
    let mut cells = 0u32;
    for (type_index, asset) in unit_types.iter().enumerate() {
        let clip_count = asset.animation.as_ref().map_or(0, |a| a.clips.len());
        match usable(asset) {
            Some(impostor) => {
                let first_cell = cells;
                let durations = asset.animation.iter().flat_map(|a| &a.clips);
                for (clip, animation_clip) in impostor.clips.iter().zip(durations) {
                    atlas.clips.push(ImpostorClip {
                        first_cell: first_cell + clip.first_frame * views,
                        frame_count: clip.frame_count,
                        duration: animation_clip.duration,
                        looping: u32::from(clip.looping),
                    });
                }
                cells += impostor.frame_count * views;
                atlas.errors.push(Some(impostor.error));
                if let Some(slot) = atlas.boxes.get_mut(type_index) {
                    *slot = ImpostorBox {
                        center: impostor.box_center,
                        first_cell,
                        half_extent: impostor.box_half_extent,
                        cell_count: impostor.frame_count * views,
                    };
                }
            }
            _ => {
                atlas
                    .clips
                    .extend((0..clip_count).map(|_| ImpostorClip::default()));
                atlas.errors.push(None);
            }
        }
    }
    if cells == 0 {
        return Ok(atlas);
    }
    let rows = cells.div_ceil(CELLS_PER_ROW);
    let height = rows * IMPOSTOR_CELL_PX;
    if height > max_image || IMPOSTOR_ATLAS_WIDTH > max_image {
        return Err(Error::Config(format!(
            "the unit types' impostors need a {IMPOSTOR_ATLAS_WIDTH}x{height} atlas, more than \
             this device and tier allow ({max_image}); load fewer unit types with impostors"
        )));
    }
    let bytes = IMPOSTOR_ATLAS_WIDTH as usize * height as usize * 4;
    atlas.height = height;
    atlas.albedo = vec![0; bytes];
    atlas.normal = vec![0; bytes];
    let mut cell = 0u32;
    for impostor in unit_types.iter().filter_map(|asset| usable(asset)) {
        let count = impostor.frame_count * views;
        for local in 0..count as usize {
            let source = local * cell_texels * 4..(local + 1) * cell_texels * 4;
            let (Some(albedo), Some(normal)) = (
                impostor.albedo.get(source.clone()),
                impostor.normal.get(source),
            ) else {
                return Err(Error::Config(
                    "an impostor's cells are shorter than its frame count says".to_owned(),
                ));
            };
            copy_cell(&mut atlas.albedo, albedo, cell);
            copy_cell(&mut atlas.normal, normal, cell);
            cell += 1;
        }
    }
    let level_bytes = |level: u32| bytes >> (2 * level);
    atlas.albedo_mips = (1..IMPOSTOR_MIP_LEVELS)
        .map(|level| vec![0; level_bytes(level)])
        .collect();
    atlas.normal_mips = atlas.albedo_mips.clone();
    for cell in 0..cells {
        mip_cell(&mut atlas, cell);
    }
    Ok(atlas)
}

fn unorm(value: f32) -> u8 {
    (value.clamp(0.0, 1.0) * 255.0).round() as u8
}

/// One texel of a mip chain in progress: coverage, and colour and normal
/// premultiplied by it.
#[derive(Clone, Copy, Default)]
struct Texel {
    coverage: f32,
    colour: [f32; 3],
    normal: [f32; 3],
}

/// Makes levels 1.. of cell `cell` from level 0 (see the module doc).
fn mip_cell(atlas: &mut ImpostorAtlas, cell: u32) {
    let side = IMPOSTOR_CELL_PX as usize;
    let stride = IMPOSTOR_ATLAS_WIDTH as usize;
    let x0 = (cell % CELLS_PER_ROW * IMPOSTOR_CELL_PX) as usize;
    let y0 = (cell / CELLS_PER_ROW * IMPOSTOR_CELL_PX) as usize;
    let mut texels: Vec<Texel> = (0..side * side)
        .map(|i| {
            let at = ((y0 + i / side) * stride + x0 + i % side) * 4;
            let a = f32::from(atlas.albedo[at + 3]) / 255.0;
            let n = |c: usize| (f32::from(atlas.normal[at + c]) / 255.0 * 2.0 - 1.0) * a;
            Texel {
                coverage: a,
                colour: [0, 1, 2].map(|c| srgb_to_linear(atlas.albedo[at + c]) * a),
                normal: [n(0), n(1), n(2)],
            }
        })
        .collect();
    let passing =
        |texels: &[Texel], scale: f32| texels.iter().filter(|t| t.coverage * scale >= 0.5).count();
    let share = passing(&texels, 1.0) as f32 / texels.len() as f32;
    for level in 1..IMPOSTOR_MIP_LEVELS as usize {
        let side = side >> level;
        let previous = side * 2;
        texels = (0..side * side)
            .map(|i| {
                let (x, y) = (i % side * 2, i / side * 2);
                let mut sum = Texel::default();
                for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                    let t = texels[(y + dy) * previous + x + dx];
                    sum.coverage += t.coverage * 0.25;
                    for c in 0..3 {
                        sum.colour[c] += t.colour[c] * 0.25;
                        sum.normal[c] += t.normal[c] * 0.25;
                    }
                }
                sum
            })
            .collect();
        // The least scale (from 1) that lets level 0's share pass the test.
        let wanted = (share * texels.len() as f32).round() as usize;
        let mut by_coverage: Vec<f32> = texels.iter().map(|t| t.coverage).collect();
        by_coverage.sort_by(|a, b| b.total_cmp(a));
        let scale = match wanted.checked_sub(1).and_then(|i| by_coverage.get(i)) {
            Some(&coverage) if coverage > 0.0 => (0.5 / coverage).clamp(1.0, 4.0),
            _ => 1.0,
        };
        let level_stride = stride >> level;
        let (lx, ly) = (x0 >> level, y0 >> level);
        for (i, t) in texels.iter().enumerate() {
            let at = ((ly + i / side) * level_stride + lx + i % side) * 4;
            let albedo = &mut atlas.albedo_mips[level - 1][at..at + 4];
            if t.coverage > 0.0 {
                for (channel, colour) in albedo.iter_mut().zip(t.colour) {
                    *channel = linear_to_srgb(colour / t.coverage);
                }
            }
            albedo[3] = unorm(t.coverage * scale);
            let length = t.normal.iter().map(|n| n * n).sum::<f32>().sqrt();
            let normal = &mut atlas.normal_mips[level - 1][at..at + 4];
            for (channel, n) in normal.iter_mut().zip(t.normal) {
                let unit = if length > 0.0 { n / length } else { 0.0 };
                *channel = unorm(unit * 0.5 + 0.5);
            }
            normal[3] = 0;
        }
    }
}

/// The asset's impostor, where it has one for its clips.
fn usable(asset: &Asset) -> Option<&Impostor> {
    let clip_count = asset.animation.as_ref()?.clips.len();
    asset
        .impostor
        .as_ref()
        .filter(|impostor| impostor.clips.len() == clip_count)
}

/// Copies one cell's row-major texels to cell `cell` of an atlas image.
fn copy_cell(image: &mut [u8], texels: &[u8], cell: u32) {
    let row_bytes = (IMPOSTOR_CELL_PX * 4) as usize;
    let x = (cell % CELLS_PER_ROW * IMPOSTOR_CELL_PX) as usize;
    let y = (cell / CELLS_PER_ROW * IMPOSTOR_CELL_PX) as usize;
    let stride = IMPOSTOR_ATLAS_WIDTH as usize * 4;
    for (row, source) in texels.chunks_exact(row_bytes).enumerate() {
        let start = (y + row) * stride + x * 4;
        image[start..start + row_bytes].copy_from_slice(source);
    }
}
