//! Packing the unit types' impostors (the `IMPO` section of their assets)
//! into the runtime atlas and clip table. Pure CPU work.
//!
//! # Layout
//! - Two images of `IMPOSTOR_ATLAS_WIDTH` × `height` texels: albedo (sRGB
//!   RGBA8, coverage in alpha) and normal (RGBA8, model-space `n * 0.5 +
//!   0.5`). Cells of `IMPOSTOR_CELL_PX`² texels fill them row by row: cell
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
use crate::config::{IMPOSTOR_ATLAS_WIDTH, IMPOSTOR_CELL_PX, IMPOSTOR_VIEWS_PER_SIDE};
use crate::gpu_types::{ImpostorBox, ImpostorClip, MAX_TYPES};
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
    Ok(atlas)
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
