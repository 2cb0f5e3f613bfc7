//! The demo scenes' ground texture: a meadow's mottled grass with patches
//! of bare soil, generated from a seed, that tiles seamlessly.
//!
//! It multiplies the ground's own colour (the battle's height-tinted ramp,
//! the crowd's field tint, each divided by the texture's mean: [`tinted_meadow`]),
//! so it carries the detail only: brightness at three scales (value noise on lattices of 64,
//! 16 and 4 texels, smoothstep-interpolated, wrapping at the texture's
//! edge) and per texel, and a soil hue where a fourth, coarse noise is
//! high. The lattices divide the side, so every scale wraps at the edge and
//! the texture tiles.

use glam::Vec3;
use horde::asset::Texture;
use horde::scene::{rgba8, GroundTexture};
use horde::srgb::srgb_to_linear;

use crate::crowd::Rng;

/// Texels along a side.
pub const GROUND_TEXTURE_SIDE: u32 = 512;
/// Metres one tile covers along X and Z: 2.3 cm a texel.
pub const GROUND_TILE_METRES: f32 = 12.0;

/// Grass and soil, as multipliers of the ground's colour (linear-ish
/// sRGB in 0..=1, before the brightness).
const GRASS: Vec3 = Vec3::new(0.95, 1.0, 0.92);
const SOIL: Vec3 = Vec3::new(1.0, 0.88, 0.74);

/// The meadow of `seed`.
pub fn meadow(seed: u64) -> GroundTexture {
    let side = GROUND_TEXTURE_SIDE;
    let mut rng = Rng::new(seed);
    let coarse = Lattice::new(&mut rng, side / 64);
    let middle = Lattice::new(&mut rng, side / 16);
    let fine = Lattice::new(&mut rng, side / 4);
    let soil = Lattice::new(&mut rng, side / 128);
    let mut rgba8 = Vec::with_capacity((side * side * 4) as usize);
    for y in 0..side {
        for x in 0..side {
            let at =
                |lattice: &Lattice| lattice.sample(x as f32 / side as f32, y as f32 / side as f32);
            let mottle = 0.5 * at(&coarse) + 0.3 * at(&middle) + 0.2 * at(&fine);
            let brightness = 0.78 + 0.22 * (0.4 * mottle + 0.6 * rng.unit());
            let bare = 0.8 * smoothstep(0.62, 0.85, at(&soil));
            let colour = GRASS.lerp(SOIL, bare) * brightness * 255.0;
            let [r, g, b] = colour.round().to_array().map(|c| c as u8);
            rgba8.extend_from_slice(&[r, g, b, 255]);
        }
    }
    GroundTexture {
        texture: Texture {
            width: side,
            height: side,
            rgba8,
        },
        tile_metres: GROUND_TILE_METRES,
    }
}

/// The meadow of `seed`, and the tint (packed RGBA8) that gives a ground
/// under it the colour `tint` (linear) on average: `tint` divided by the
/// texture's mean.
pub fn tinted_meadow(seed: u64, tint: Vec3) -> (GroundTexture, u32) {
    let ground = meadow(seed);
    let tint = rgba8(tint / mean_linear(&ground));
    (ground, tint)
}

/// The texture's mean colour in linear light.
fn mean_linear(ground: &GroundTexture) -> Vec3 {
    let texels = ground.texture.rgba8.chunks_exact(4);
    let count = texels.len().max(1) as f32;
    texels
        .map(|t| {
            Vec3::new(
                srgb_to_linear(t[0]),
                srgb_to_linear(t[1]),
                srgb_to_linear(t[2]),
            )
        })
        .sum::<Vec3>()
        / count
}

/// Random values on a `cells` × `cells` lattice over the unit square,
/// wrapping at its edges.
struct Lattice {
    cells: u32,
    values: Vec<f32>,
}

impl Lattice {
    fn new(rng: &mut Rng, cells: u32) -> Lattice {
        let cells = cells.max(1);
        Lattice {
            cells,
            values: (0..cells * cells).map(|_| rng.unit()).collect(),
        }
    }

    /// The value at (u, v) in the unit square, smoothstep-interpolated.
    fn sample(&self, u: f32, v: f32) -> f32 {
        let (x, y) = (u * self.cells as f32, v * self.cells as f32);
        let (x0, y0) = (x.floor(), y.floor());
        let (tx, ty) = (smoothstep(0.0, 1.0, x - x0), smoothstep(0.0, 1.0, y - y0));
        let value = |i: f32, j: f32| {
            let column = (i as u32) % self.cells;
            let row = (j as u32) % self.cells;
            self.values[(row * self.cells + column) as usize]
        };
        let top = value(x0, y0) + (value(x0 + 1.0, y0) - value(x0, y0)) * tx;
        let bottom = value(x0, y0 + 1.0) + (value(x0 + 1.0, y0 + 1.0) - value(x0, y0 + 1.0)) * tx;
        top + (bottom - top) * ty
    }
}

fn smoothstep(edge0: f32, edge1: f32, x: f32) -> f32 {
    let t = ((x - edge0) / (edge1 - edge0)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The mean absolute difference of neighbouring texels' green, across
    /// the rows (`x` to `x + 1`) for `x` in `columns`.
    fn step_across(texture: &Texture, columns: impl Iterator<Item = u32> + Clone) -> f32 {
        let side = texture.width;
        let green =
            |x: u32, y: u32| f32::from(texture.rgba8[((y * side + x % side) * 4 + 1) as usize]);
        let mut sum = 0.0;
        let mut count = 0;
        for y in 0..side {
            for x in columns.clone() {
                sum += (green(x, y) - green(x + 1, y)).abs();
                count += 1;
            }
        }
        sum / count as f32
    }

    #[test]
    fn the_meadow_tiles_and_is_near_white_with_detail() {
        let ground = meadow(7);
        let texture = &ground.texture;
        assert_eq!(
            texture.rgba8.len() as u32,
            texture.width * texture.height * 4
        );
        // Across the seam (the last column to the first) the texture steps
        // no more than between neighbours inside it.
        let seam = step_across(texture, std::iter::once(texture.width - 1));
        let inside = step_across(texture, 100..110);
        assert!(seam < inside * 1.5, "seam {seam}, inside {inside}");
        let mean = texture
            .rgba8
            .iter()
            .skip(1)
            .step_by(4)
            .map(|&g| f32::from(g))
            .sum::<f32>()
            / (texture.width * texture.height) as f32;
        assert!((205.0..250.0).contains(&mean), "mean green {mean}");
        assert!(inside > 2.0, "no detail: neighbours differ by {inside}");
        assert_eq!(meadow(7).texture.rgba8, texture.rgba8, "not deterministic");
    }
}
