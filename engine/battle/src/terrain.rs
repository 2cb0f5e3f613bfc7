//! The ground the battle is fought on: a height field, seeded hills and
//! valleys sampled on a square grid and interpolated bilinearly.
//!
//! # Data
//! [`Terrain`]: the samples' origin (world x, z of sample (0, 0)), their
//! spacing and its inverse, the sample counts, then the heights row by row
//! (+X along a row, +Z from row to row). On the GPU it is one storage
//! buffer, [`TerrainInfo`] then the heights (`terrain.glsl`), which the unit
//! step reads: a living unit stands at the height under it, a corpse sinks
//! from there.
//!
//! # Algorithm
//! - Generation ([`Terrain::generate`]): three octaves of value noise
//!   (smoothstep-interpolated random heights on coarse lattices of 500, 220
//!   and 90 m, amplitudes 1, 0.45 and 0.2), scaled so the field's relief
//!   is `relief` metres from its lowest to its highest sample. The lattices
//!   are fixed in metres, so a larger field has more hills, not taller ones;
//!   with the battle's 24 m the steepest slopes stay under 15 %, gentle
//!   enough to march over.
//! - The height at (x, z) ([`Terrain::height`], `terrain_height` of
//!   `terrain.glsl`): the sample coordinates `(p - origin) * inverse
//!   spacing`, clamped to the grid; the cell's four samples interpolated
//!   bilinearly. Only additions, subtractions and multiplications, so the
//!   GPU and the CPU twin agree bit for bit.
//! - The mesh ([`Terrain::mesh`]): one vertex per sample at its height, its
//!   normal from the central differences, and as V its height from the
//!   lowest (0) to the highest (1) sample, so a colour ramp tints valleys
//!   and hilltops apart (on slopes this gentle the light alone hardly
//!   shows them); two triangles a cell. A cell's triangles and the bilinear
//!   height differ by at most a few centimetres on these slopes.

use glam::{Vec2, Vec3};

use horde::mesh::MeshData;

pub use crate::gpu_types::TerrainInfo;

/// A height field: [`TerrainInfo`] and its heights, row by row.
#[derive(Clone, Debug, PartialEq)]
pub struct Terrain {
    pub info: TerrainInfo,
    pub heights: Vec<f32>,
}

/// The steepest relief a generated terrain may have, in metres.
pub const MAX_RELIEF: f32 = 200.0;

impl Terrain {
    /// A flat terrain at height 0 over the square of half-side
    /// `half_extent` around the origin.
    pub fn flat(half_extent: f32) -> Terrain {
        Terrain::from_heights(half_extent, 2, |_, _| 0.0)
    }

    /// Hills and valleys from `seed` over the square of half-side
    /// `half_extent` around the origin, `relief` metres from the lowest to
    /// the highest sample (clamped to 0..=[`MAX_RELIEF`] and to a twentieth
    /// of `half_extent`), sampled every `half_extent / 128` metres or 4 m,
    /// whichever is more.
    pub fn generate(seed: u64, half_extent: f32, relief: f32) -> Terrain {
        let half_extent = half_extent.max(1.0);
        // A small field gets low hills: a twentieth of its half-side.
        let relief = if relief.is_finite() {
            relief.clamp(0.0, MAX_RELIEF).min(half_extent * 0.05)
        } else {
            0.0
        };
        let samples = ((2.0 * half_extent / 4.0).ceil() as u32 + 1).clamp(2, 257);
        let octaves = [(500.0, 1.0), (220.0, 0.45), (90.0, 0.2)];
        let noise = |x: f32, z: f32| -> f32 {
            octaves
                .iter()
                .enumerate()
                .map(|(octave, &(wavelength, amplitude))| {
                    amplitude
                        * value_noise(
                            seed.wrapping_add(octave as u64),
                            x / wavelength,
                            z / wavelength,
                        )
                })
                .sum()
        };
        let mut terrain = Terrain::from_heights(half_extent, samples, noise);
        let (low, high) = terrain
            .heights
            .iter()
            .fold((f32::MAX, f32::MIN), |(lo, hi), &h| (lo.min(h), hi.max(h)));
        let scale = if high > low {
            relief / (high - low)
        } else {
            0.0
        };
        for height in &mut terrain.heights {
            *height = (*height - low) * scale;
        }
        terrain
    }

    /// `samples`² samples (at least 2) over the square of half-side
    /// `half_extent`, each `height(x, z)` at its world position.
    pub fn from_heights(
        half_extent: f32,
        samples: u32,
        height: impl Fn(f32, f32) -> f32,
    ) -> Terrain {
        let samples = samples.max(2);
        let spacing = 2.0 * half_extent / (samples - 1) as f32;
        let origin = [-half_extent, -half_extent];
        let mut heights = Vec::with_capacity((samples * samples) as usize);
        for row in 0..samples {
            for column in 0..samples {
                let x = origin[0] + column as f32 * spacing;
                let z = origin[1] + row as f32 * spacing;
                heights.push(height(x, z));
            }
        }
        Terrain {
            info: TerrainInfo {
                origin,
                spacing,
                inverse_spacing: 1.0 / spacing,
                samples: [samples, samples],
                pad: [0; 2],
            },
            heights,
        }
    }

    fn sample(&self, column: u32, row: u32) -> f32 {
        self.heights[(row * self.info.samples[0] + column) as usize]
    }

    /// The four samples of the cell under world (x, z), as (h00, h10, h01,
    /// h11), and the position within it: `terrain_cell` of `terrain.glsl`,
    /// operation for operation.
    fn cell(&self, position: [f32; 2]) -> ([f32; 4], [f32; 2]) {
        let info = &self.info;
        let last = [info.samples[0] - 1, info.samples[1] - 1];
        let mut cell = [0u32; 2];
        let mut fraction = [0f32; 2];
        for axis in 0..2 {
            let g = (position[axis] - info.origin[axis]) * info.inverse_spacing;
            // `max` first: a NaN coordinate stands at the grid's edge.
            let g = g.max(0.0).min(last[axis] as f32);
            let c = (g.floor() as u32).min(last[axis] - 1);
            cell[axis] = c;
            fraction[axis] = g - c as f32;
        }
        let [c, r] = cell;
        let samples = [
            self.sample(c, r),
            self.sample(c + 1, r),
            self.sample(c, r + 1),
            self.sample(c + 1, r + 1),
        ];
        (samples, fraction)
    }

    /// The height at world (x, z): `terrain_height` of `terrain.glsl`,
    /// operation for operation.
    pub fn height(&self, position: [f32; 2]) -> f32 {
        let ([h00, h10, h01, h11], [fx, fz]) = self.cell(position);
        let near = h00 + (h10 - h00) * fx;
        let far = h01 + (h11 - h01) * fx;
        near + (far - near) * fz
    }

    /// The slope at world (x, z), metres risen per metre along +X and along
    /// +Z: the derivative of [`Terrain::height`] within the cell
    /// (`terrain_slope` of `terrain.glsl`, operation for operation).
    pub fn slope(&self, position: [f32; 2]) -> [f32; 2] {
        let ([h00, h10, h01, h11], [fx, fz]) = self.cell(position);
        let rise_near = h10 - h00;
        let along_x = rise_near + (h11 - h01 - rise_near) * fz;
        let near = h00 + rise_near * fx;
        let far = h01 + (h11 - h01) * fx;
        let spacing = self.info.inverse_spacing;
        [along_x * spacing, (far - near) * spacing]
    }

    /// Whether its info and heights agree (a terrain from elsewhere than
    /// [`Terrain::generate`] may not).
    pub fn validate(&self) -> Result<(), horde::Error> {
        let info = &self.info;
        let [columns, rows] = info.samples;
        let bad = |why: &str| Err(horde::Error::Config(format!("battle terrain: {why}")));
        if columns < 2 || rows < 2 || columns > 4096 || rows > 4096 {
            return bad(&format!("{columns} × {rows} samples (2 to 4096 a side)"));
        }
        if self.heights.len() != (columns * rows) as usize {
            return bad(&format!(
                "{} heights for {columns} × {rows} samples",
                self.heights.len()
            ));
        }
        let finite = info
            .origin
            .iter()
            .chain(&self.heights)
            .all(|v| v.is_finite());
        if !(finite && info.spacing > 0.0 && info.spacing.is_finite()) {
            return bad("origin, spacing and heights must be finite, the spacing above 0");
        }
        if info.inverse_spacing != 1.0 / info.spacing {
            return bad("inverse_spacing is not 1 / spacing");
        }
        Ok(())
    }

    /// The buffer the GPU reads: the info, then the heights.
    pub fn bytes(&self) -> Vec<u8> {
        let mut bytes = bytemuck::bytes_of(&self.info).to_vec();
        bytes.extend_from_slice(bytemuck::cast_slice(&self.heights));
        bytes
    }

    /// The ground's mesh: a vertex per sample, V its relative height (0 at
    /// the lowest sample, just under 1 at the highest), U 0.5.
    pub fn mesh(&self) -> MeshData {
        let [columns, rows] = self.info.samples;
        let spacing = self.info.spacing;
        let (low, high) = self
            .heights
            .iter()
            .fold((f32::MAX, f32::MIN), |(lo, hi), &h| (lo.min(h), hi.max(h)));
        let range = (high - low).max(f32::MIN_POSITIVE);
        let mut mesh = MeshData::default();
        for row in 0..rows {
            for column in 0..columns {
                let x = self.info.origin[0] + column as f32 * spacing;
                let z = self.info.origin[1] + row as f32 * spacing;
                mesh.positions
                    .push(Vec3::new(x, self.sample(column, row), z));
                let left = self.sample(column.saturating_sub(1), row);
                let right = self.sample((column + 1).min(columns - 1), row);
                let back = self.sample(column, row.saturating_sub(1));
                let front = self.sample(column, (row + 1).min(rows - 1));
                let normal = Vec3::new(left - right, 2.0 * spacing, back - front).normalize();
                mesh.normals.push(normal);
                let relative = (self.sample(column, row) - low) / range;
                mesh.uvs.push(Vec2::new(0.5, relative.clamp(0.0, 0.999)));
            }
        }
        for row in 0..rows - 1 {
            for column in 0..columns - 1 {
                let a = row * columns + column;
                let b = a + columns;
                mesh.indices
                    .extend_from_slice(&[a, b, a + 1, a + 1, b, b + 1]);
            }
        }
        mesh
    }
}

/// Smoothly interpolated random values at the integer lattice points,
/// in [0, 1).
fn value_noise(seed: u64, x: f32, z: f32) -> f32 {
    let (x0, z0) = (x.floor(), z.floor());
    let smooth = |t: f32| t * t * (3.0 - 2.0 * t);
    let (tx, tz) = (smooth(x - x0), smooth(z - z0));
    let at = |dx: f32, dz: f32| lattice_value(seed, (x0 + dx) as i64, (z0 + dz) as i64);
    let near = at(0.0, 0.0) + (at(1.0, 0.0) - at(0.0, 0.0)) * tx;
    let far = at(0.0, 1.0) + (at(1.0, 1.0) - at(0.0, 1.0)) * tx;
    near + (far - near) * tz
}

/// A random value in [0, 1) for a lattice point (splitmix64 of the point
/// and the seed).
fn lattice_value(seed: u64, x: i64, z: i64) -> f32 {
    let mut h = seed
        ^ (x as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)
        ^ (z as u64).wrapping_mul(0xc2b2_ae3d_27d4_eb4f);
    h = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h = (h ^ (h >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^= h >> 31;
    (h >> 40) as f32 / (1u64 << 24) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heights_interpolate_the_samples_and_stay_within_the_relief() {
        let terrain = Terrain::generate(7, 1000.0, 24.0);
        let (low, high) = terrain
            .heights
            .iter()
            .fold((f32::MAX, f32::MIN), |(lo, hi), &h| (lo.min(h), hi.max(h)));
        assert!(
            low.abs() < 1e-4 && (high - 24.0).abs() < 1e-3,
            "{low}..{high}"
        );
        let spacing = terrain.info.spacing;
        for (column, row) in [(0, 0), (3, 7), (100, 200), (256, 256)] {
            let x = terrain.info.origin[0] + column as f32 * spacing;
            let z = terrain.info.origin[1] + row as f32 * spacing;
            let height = terrain.height([x, z]);
            assert!((height - terrain.sample(column, row)).abs() < 1e-3);
        }
        // Beyond the grid the edge's height holds.
        assert_eq!(terrain.height([-1e6, -1e6]), terrain.sample(0, 0));
        assert!(terrain.height([f32::NAN, 0.0]).is_finite());
        // Gentle: no sample step steeper than 15 %.
        let [columns, rows] = terrain.info.samples;
        for row in 0..rows {
            for column in 1..columns {
                let rise = terrain.sample(column, row) - terrain.sample(column - 1, row);
                assert!(rise.abs() / spacing < 0.15, "slope {}", rise / spacing);
            }
        }
    }

    #[test]
    fn the_slope_is_the_heights_derivative() {
        let plane = Terrain::from_heights(100.0, 9, |x, z| 0.1 * x - 0.05 * z);
        let [along_x, along_z] = plane.slope([13.0, -27.0]);
        assert!((along_x - 0.1).abs() < 1e-5 && (along_z + 0.05).abs() < 1e-5);
        // Within a cell of a hilly field, a small step rises by the slope.
        let hills = Terrain::generate(11, 500.0, 24.0);
        for position in [[10.3, -20.1], [-301.7, 144.2], [250.0, 250.9]] {
            let [along_x, along_z] = hills.slope(position);
            let step = 0.01;
            let dx = hills.height([position[0] + step, position[1]]) - hills.height(position);
            let dz = hills.height([position[0], position[1] + step]) - hills.height(position);
            assert!(
                (dx / step - along_x).abs() < 5e-3,
                "{} {along_x}",
                dx / step
            );
            assert!(
                (dz / step - along_z).abs() < 5e-3,
                "{} {along_z}",
                dz / step
            );
        }
    }

    #[test]
    fn flat_terrain_is_zero_everywhere_and_the_mesh_faces_up() {
        let terrain = Terrain::flat(100.0);
        assert_eq!(terrain.height([12.5, -40.0]), 0.0);
        let mesh = Terrain::generate(3, 200.0, 10.0).mesh();
        assert!(mesh.uvs.iter().all(|uv| (0.0..1.0).contains(&uv.y)));
        assert!(mesh.normals.iter().all(|n| n.y > 0.9));
        assert_eq!(mesh.positions.len(), mesh.normals.len());
        assert!(mesh
            .indices
            .iter()
            .all(|&i| (i as usize) < mesh.positions.len()));
    }

    #[test]
    fn a_terrain_whose_info_and_heights_disagree_is_refused() {
        assert!(Terrain::generate(3, 200.0, 10.0).validate().is_ok());
        let mut short = Terrain::flat(10.0);
        short.heights.pop();
        let mut nan = Terrain::flat(10.0);
        nan.heights[0] = f32::NAN;
        let mut skewed = Terrain::flat(10.0);
        skewed.info.inverse_spacing *= 2.0;
        let mut huge = Terrain::flat(10.0);
        huge.info.samples = [1 << 20, 2];
        for bad in [short, nan, skewed, huge] {
            let message = bad.validate().expect_err("refused").to_string();
            assert!(message.contains("battle terrain"), "{message}");
        }
    }
}
