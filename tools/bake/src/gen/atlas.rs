//! The colour atlas shared by every generated file.
//!
//! Layout: a 128 x 128 RGB PNG split into a 4 x 4 grid of 32-pixel cells, one
//! material swatch per cell ([`Cell`] names them). A part maps its (u, v) onto
//! the inner 70% of its cell, so bilinear filtering and the first mip levels never
//! reach a neighbouring swatch. Each swatch is its base colour modulated by value
//! noise, stretched along one axis for brushed metal and wood grain, so surfaces
//! read as materials rather than flat fills. Because all files share one atlas,
//! a renderer can bind one texture for every unit type and prop.

use glam::Vec2;
use image::{codecs::png::PngEncoder, ExtendedColorType, ImageEncoder, ImageError};

use super::random::value_noise;

/// Atlas edge length in pixels.
pub const ATLAS_SIZE: u32 = 128;
/// Cells per atlas edge.
const GRID: u32 = 4;
/// Fraction of a cell's edge left unused on each side.
const CELL_MARGIN: f32 = 0.15;
/// Seed of the texture noise; fixed, because the atlas is shared by all seeds.
const NOISE_SEED: u64 = 0x5EED_A71A5;

/// One swatch of the atlas.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cell(u8);

impl Cell {
    pub const STEEL: Cell = Cell(0);
    pub const DARK_STEEL: Cell = Cell(1);
    pub const GOLD: Cell = Cell(2);
    pub const LEATHER: Cell = Cell(3);
    pub const CLOTH_RED: Cell = Cell(4);
    pub const CLOTH_BLUE: Cell = Cell(5);
    pub const WOOD: Cell = Cell(6);
    pub const BONE: Cell = Cell(7);
    pub const DARK_BONE: Cell = Cell(8);
    pub const RUST: Cell = Cell(9);
    pub const SHADOW: Cell = Cell(10);
    pub const STONE: Cell = Cell(11);
    pub const MOSS: Cell = Cell(12);
    pub const BARK: Cell = Cell(13);
    pub const LEAF: Cell = Cell(14);
    pub const RAGS: Cell = Cell(15);

    /// Atlas UV of the point `local` (each component in 0..1) of this cell.
    pub fn uv(self, local: Vec2) -> Vec2 {
        let column = f32::from(self.0 % GRID as u8);
        let row = f32::from(self.0 / GRID as u8);
        let inner = CELL_MARGIN + (1.0 - 2.0 * CELL_MARGIN) * local.clamp(Vec2::ZERO, Vec2::ONE);
        (Vec2::new(column, row) + inner) / GRID as f32
    }
}

/// A material swatch: base colour, noise strength, and noise frequency along the
/// cell's x and y (unequal frequencies give streaks).
struct Swatch {
    colour: [f32; 3],
    strength: f32,
    frequency: [f32; 2],
}

/// Swatches in cell order.
const SWATCHES: [Swatch; 16] = [
    swatch([0.66, 0.69, 0.74], 0.18, [1.0, 12.0]),
    swatch([0.30, 0.32, 0.36], 0.20, [1.0, 10.0]),
    swatch([0.86, 0.68, 0.24], 0.20, [6.0, 6.0]),
    swatch([0.42, 0.27, 0.16], 0.25, [8.0, 8.0]),
    swatch([0.66, 0.10, 0.09], 0.20, [16.0, 3.0]),
    swatch([0.13, 0.24, 0.62], 0.20, [16.0, 3.0]),
    swatch([0.52, 0.35, 0.20], 0.35, [2.0, 16.0]),
    swatch([0.88, 0.84, 0.72], 0.15, [6.0, 6.0]),
    swatch([0.55, 0.50, 0.40], 0.20, [6.0, 6.0]),
    swatch([0.50, 0.25, 0.12], 0.55, [5.0, 5.0]),
    swatch([0.05, 0.04, 0.04], 0.10, [4.0, 4.0]),
    swatch([0.56, 0.55, 0.52], 0.30, [5.0, 5.0]),
    swatch([0.30, 0.42, 0.18], 0.35, [7.0, 7.0]),
    swatch([0.33, 0.23, 0.15], 0.40, [2.0, 18.0]),
    swatch([0.22, 0.48, 0.16], 0.35, [9.0, 9.0]),
    swatch([0.25, 0.22, 0.18], 0.35, [10.0, 4.0]),
];

const fn swatch(colour: [f32; 3], strength: f32, frequency: [f32; 2]) -> Swatch {
    Swatch {
        colour,
        strength,
        frequency,
    }
}

/// The atlas as RGB8 pixels, row-major from the top (glTF's UV origin).
fn atlas_pixels() -> Vec<u8> {
    let cell_size = ATLAS_SIZE / GRID;
    let mut pixels = Vec::with_capacity((ATLAS_SIZE * ATLAS_SIZE * 3) as usize);
    for y in 0..ATLAS_SIZE {
        for x in 0..ATLAS_SIZE {
            let index = (y / cell_size) * GRID + x / cell_size;
            let swatch = &SWATCHES[index as usize];
            let local_x = (x % cell_size) as f32 / cell_size as f32;
            let local_y = (y % cell_size) as f32 / cell_size as f32;
            let noise = value_noise(
                NOISE_SEED,
                local_x * swatch.frequency[0],
                local_y * swatch.frequency[1],
                index as f32 * 7.0,
            );
            let shade = 1.0 + swatch.strength * (noise - 0.5);
            for channel in swatch.colour {
                pixels.push(((channel * shade).clamp(0.0, 1.0) * 255.0).round() as u8);
            }
        }
    }
    pixels
}

/// The atlas encoded as PNG.
pub fn atlas_png() -> Result<Vec<u8>, ImageError> {
    let mut png = Vec::new();
    PngEncoder::new(&mut png).write_image(
        &atlas_pixels(),
        ATLAS_SIZE,
        ATLAS_SIZE,
        ExtendedColorType::Rgb8,
    )?;
    Ok(png)
}
