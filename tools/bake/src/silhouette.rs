//! Silhouette coverage: how much of a source's silhouette a LOD covers,
//! measured once for the source and then for each candidate LOD. The
//! proxies built to cover it are `proxy.rs`'s.
//!
//! A unit a few pixels tall shows nothing of its shape but how many pixels
//! it covers, and a crowd of them is as dense as those pixels. meshopt's
//! coarsest LODs keep the surface within an error bound, but thin parts
//! (limbs, weapons, shield rims) collapse or are pruned under it: the
//! generated knight's 3 % LOD covered 10 % of its source's silhouette,
//! and a million-unit battle, nearly all of it drawn at that LOD by the
//! far field, looked like a thin haze over the ground.
//!
//! # Measuring
//! A [`Silhouette`] rasterizes the source once and
//! [`Silhouette::coverage`] a shape, both in bind pose, orthographically
//! from [`VIEWS`] directions around the unit (8 azimuths at 0°, 30° and
//! 60° of elevation: the battle's cameras look from the side to high
//! above) into a [`GRID`]² grid over the bounding sphere, both windings
//! (the silhouette, not the front faces), and averages the per-view ratios
//! of covered cells.

use glam::{Mat3, Vec2, Vec3};

use crate::import::SourceModel;
use horde_asset::Bounds;

/// Orthographic view directions of the coverage measurement.
pub const VIEWS: usize = 24;
/// Cells per side of the measurement's grid over the bounding sphere.
pub const GRID: u32 = 160;

/// A mesh for the measurement: bind-pose positions and a triangle list.
#[derive(Clone, Copy)]
pub struct Shape<'a> {
    pub positions: &'a [Vec3],
    pub indices: &'a [u32],
}

/// The measurement's view directions (unit vectors from the unit to the
/// eye).
fn view_directions() -> [Vec3; VIEWS] {
    std::array::from_fn(|index| {
        let azimuth = (index % 8) as f32 * std::f32::consts::TAU / 8.0;
        let elevation = (index / 8) as f32 * 30f32.to_radians();
        Vec3::new(
            azimuth.cos() * elevation.cos(),
            elevation.sin(),
            azimuth.sin() * elevation.cos(),
        )
    })
}

/// Covered cells of `shape` seen along `-eye` over the sphere
/// (`center`, `radius`).
fn covered_cells(shape: Shape, eye: Vec3, center: Vec3, radius: f32) -> u32 {
    let forward = -eye;
    let side = if forward.cross(Vec3::Y).length_squared() > 1e-6 {
        Vec3::Y
    } else {
        Vec3::Z
    };
    let right = forward.cross(side).normalize();
    let up = right.cross(forward);
    let to_view = Mat3::from_cols(right, up, forward).transpose();
    let cells = GRID as f32;
    let projected: Vec<Vec2> = shape
        .positions
        .iter()
        .map(|&p| {
            let local = to_view * (p - center) / radius.max(1e-12);
            (Vec2::new(local.x, local.y) * 0.5 + 0.5) * cells
        })
        .collect();
    let mut grid = vec![false; (GRID * GRID) as usize];
    let edge = |from: Vec2, to: Vec2, point: Vec2| (to - from).perp_dot(point - from);
    for triangle in shape.indices.chunks_exact(3) {
        let [a, b, c] = [0, 1, 2].map(|corner| {
            projected
                .get(triangle[corner] as usize)
                .copied()
                .unwrap_or(Vec2::ZERO)
        });
        let low = a.min(b).min(c).floor().max(Vec2::ZERO);
        let high = a.max(b).max(c).ceil().min(Vec2::splat(cells - 1.0));
        if low.x > high.x || low.y > high.y {
            continue;
        }
        for y in low.y as u32..=high.y as u32 {
            for x in low.x as u32..=high.x as u32 {
                let point = Vec2::new(x as f32 + 0.5, y as f32 + 0.5);
                let w = [edge(a, b, point), edge(b, c, point), edge(c, a, point)];
                if w.iter().all(|&e| e >= 0.0) || w.iter().all(|&e| e <= 0.0) {
                    grid[(y * GRID + x) as usize] = true;
                }
            }
        }
    }
    grid.iter().filter(|&&covered| covered).count() as u32
}

/// A source's silhouette in each of [`VIEWS`], measured once: the shapes
/// fitted to it (the proxies, the inflated LODs) are measured against it
/// at every step of a bisection.
pub struct Silhouette {
    center: Vec3,
    radius: f32,
    /// Covered cells in each view.
    cells: [u32; VIEWS],
}

impl Silhouette {
    /// The silhouette of `source` over the sphere (`center`, `radius`)
    /// that holds it.
    pub fn of(source: Shape, center: Vec3, radius: f32) -> Silhouette {
        Silhouette {
            center,
            radius,
            cells: view_directions().map(|eye| covered_cells(source, eye, center, radius)),
        }
    }

    /// The silhouette of a model's bind pose (every material group) over
    /// the bind-pose sphere of `bounds`.
    pub fn of_model(model: &SourceModel, bounds: &Bounds) -> Silhouette {
        let indices: Vec<u32> = model
            .groups
            .iter()
            .flat_map(|group| group.indices.iter().copied())
            .collect();
        let source = Shape {
            positions: &model.positions,
            indices: &indices,
        };
        Silhouette::of(
            source,
            Vec3::from(bounds.sphere_center),
            bounds.sphere_radius,
        )
    }

    /// The mean over [`VIEWS`] of `shape`'s silhouette area over this one
    /// (a view where the source covers nothing counts 1).
    pub fn coverage(&self, shape: Shape) -> f32 {
        let ratios = view_directions()
            .into_iter()
            .zip(self.cells)
            .map(|(eye, cells)| {
                if cells == 0 {
                    1.0
                } else {
                    covered_cells(shape, eye, self.center, self.radius) as f32 / cells as f32
                }
            });
        ratios.sum::<f32>() / VIEWS as f32
    }
}

/// The least `x` in `low..=high` whose `coverage(x)` is at least 1, for a
/// coverage that grows with `x`, bisected `steps` times; `high` where even
/// that covers less.
pub fn least_covering(low: f32, high: f32, steps: u32, coverage: impl Fn(f32) -> f32) -> f32 {
    let (mut low, mut high) = (low, high);
    if coverage(high) < 1.0 {
        return high;
    }
    for _ in 0..steps {
        let middle = 0.5 * (low + high);
        if coverage(middle) < 1.0 {
            low = middle;
        } else {
            high = middle;
        }
    }
    high
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proxy::{cube_corner, CUBE_TRIANGLES};

    fn cube(half: f32) -> (Vec<Vec3>, Vec<u32>) {
        let positions = (0..8).map(|corner| cube_corner(corner) * half).collect();
        let indices = CUBE_TRIANGLES.iter().flatten().copied().collect();
        (positions, indices)
    }

    #[test]
    fn coverage_is_the_ratio_of_silhouette_areas() {
        let (big, indices) = cube(1.0);
        let (small, _) = cube(0.5);
        let shape = |positions| Shape {
            positions,
            indices: &indices,
        };
        let radius = 3f32.sqrt();
        let same = Silhouette::of(shape(&big), Vec3::ZERO, radius).coverage(shape(&big));
        assert_eq!(same, 1.0);
        // Half the size, a quarter of the area in every view, to the grid.
        let quarter = Silhouette::of(shape(&big), Vec3::ZERO, radius).coverage(shape(&small));
        assert!((quarter - 0.25).abs() < 0.02, "{quarter}");
        // Back faces count: the silhouette of a reversed cube is the same.
        let reversed: Vec<u32> = indices.chunks(3).flat_map(|t| [t[0], t[2], t[1]]).collect();
        let flipped = Shape {
            positions: &big,
            indices: &reversed,
        };
        assert_eq!(
            Silhouette::of(shape(&big), Vec3::ZERO, radius).coverage(flipped),
            1.0
        );
    }
}
