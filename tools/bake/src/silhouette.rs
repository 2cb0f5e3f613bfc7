//! Silhouette coverage of LODs, and the coarsest LOD of a skinned unit
//! built for it: a box per bone.
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
//!
//! # The proxy
//! [`bone_boxes`] replaces the coarsest LOD: each bone that dominates at
//! least [`MIN_BONE_VERTICES`] vertices gets the box of those vertices in
//! the bone's bind space (its axes follow the limb), trimmed to the
//! [`TRIM`]..1-[`TRIM`] quantiles so a stray vertex does not inflate it,
//! rigidly skinned to that bone, 8 corners and 12 triangles. Corners take
//! the normal of the box's diagonal (smooth light, as a blob), the UV of
//! the nearest of the bone's vertices (its colour in the atlas) and the
//! material most of them have. Boxes overestimate round limbs from the
//! diagonal and miss gaps between parts, so one scale for all boxes about
//! their centres is bisected until the proxy's coverage is the source's.
//!
//! # The coarse proxy
//! [`coarse_bone_boxes`] keeps only the boxes with the largest surface
//! area (a convex body's mean silhouette), fitted again: the same coverage
//! from fewer vertices, for units a few pixels tall, where a hand or a
//! neck is a fraction of a pixel (`lod::COARSE_PROXY_BOXES` says how
//! many, and why).

use glam::{Mat3, Mat4, Vec2, Vec3};

use crate::import::SourceModel;
use crate::two_bone::TwoBone;
use horde_asset::Bounds;

/// Orthographic view directions of the coverage measurement.
pub const VIEWS: usize = 24;
/// Cells per side of the measurement's grid over the bounding sphere.
pub const GRID: u32 = 160;
/// Bones with fewer dominated vertices get no box.
pub const MIN_BONE_VERTICES: usize = 4;
/// Quantile trimmed at each end of a box's extent along each axis.
pub const TRIM: f32 = 0.02;
/// Bisection steps of the proxy's scale.
const SCALE_STEPS: u32 = 20;

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

/// One box of the proxy.
#[derive(Clone, Copy, Debug)]
struct BoneBox {
    bone: u16,
    /// Bind space from the box's unit cube (-1..1 on each axis).
    from_cube: Mat4,
    material: u32,
}

/// The proxy's mesh: positions, normals, UVs, the bone of each vertex, and
/// triangles grouped by material (`(material, indices)`, materials in
/// increasing order).
#[derive(Clone, Debug, Default)]
pub struct Proxy {
    pub positions: Vec<Vec3>,
    pub normals: Vec<Vec3>,
    pub uvs: Vec<Vec2>,
    /// The source vertex nearest each vertex among its bone's (its UV's).
    pub nearest: Vec<u32>,
    pub bones: Vec<u16>,
    pub groups: Vec<(u32, Vec<u32>)>,
    /// Its silhouette coverage over the source's ([`Silhouette::coverage`]).
    pub coverage: f32,
    /// The scale its boxes were given about their centres.
    pub scale: f32,
}

/// The value at quantile `q` of `values` (sorted in place).
fn quantile(values: &mut [f32], q: f32) -> f32 {
    values.sort_by(f32::total_cmp);
    let index = ((values.len() - 1) as f32 * q).round() as usize;
    values[index.min(values.len() - 1)]
}

/// The boxes of the bones that dominate enough vertices.
fn boxes(model: &SourceModel, skin: &[TwoBone]) -> Vec<BoneBox> {
    let mut vertex_material = vec![0u32; model.positions.len()];
    for group in &model.groups {
        for &index in &group.indices {
            if let Some(slot) = vertex_material.get_mut(index as usize) {
                *slot = group.material;
            }
        }
    }
    let bone_count = model.skeleton.inverse_bind.len();
    let mut dominated: Vec<Vec<usize>> = vec![Vec::new(); bone_count];
    for (vertex, two_bone) in skin.iter().enumerate() {
        let bone = if two_bone.weight >= 128 {
            two_bone.bones[0]
        } else {
            two_bone.bones[1]
        };
        if let Some(list) = dominated.get_mut(usize::from(bone)) {
            list.push(vertex);
        }
    }
    let mut boxes = Vec::new();
    for (bone, vertices) in dominated.iter().enumerate() {
        if vertices.len() < MIN_BONE_VERTICES {
            continue;
        }
        let to_bone = model.skeleton.inverse_bind[bone];
        let local: Vec<Vec3> = vertices
            .iter()
            .map(|&v| to_bone.transform_point3(model.positions[v]))
            .collect();
        let mut low = Vec3::ZERO;
        let mut high = Vec3::ZERO;
        for axis in 0..3 {
            let mut values: Vec<f32> = local.iter().map(|p| p[axis]).collect();
            low[axis] = quantile(&mut values, TRIM);
            high[axis] = quantile(&mut values, 1.0 - TRIM);
        }
        let center = (low + high) * 0.5;
        let half = ((high - low) * 0.5).max(Vec3::splat(1e-4));
        let from_bone = to_bone.inverse();
        let from_cube = from_bone * Mat4::from_translation(center) * Mat4::from_scale(half);
        let mut counts = std::collections::BTreeMap::<u32, usize>::new();
        for &v in vertices {
            *counts.entry(vertex_material[v]).or_default() += 1;
        }
        let material = counts
            .iter()
            .max_by_key(|&(material, count)| (*count, std::cmp::Reverse(*material)))
            .map_or(0, |(&material, _)| material);
        boxes.push(BoneBox {
            bone: bone as u16,
            from_cube,
            material,
        });
    }
    boxes
}

/// Corners of the unit cube, index bits x, y, z.
fn cube_corner(corner: usize) -> Vec3 {
    Vec3::new(
        if corner & 1 != 0 { 1.0 } else { -1.0 },
        if corner & 2 != 0 { 1.0 } else { -1.0 },
        if corner & 4 != 0 { 1.0 } else { -1.0 },
    )
}

/// The cube's 12 triangles over its corners, counter-clockwise from
/// outside.
const CUBE_TRIANGLES: [[u32; 3]; 12] = [
    [0, 2, 3],
    [0, 3, 1],
    [4, 5, 7],
    [4, 7, 6],
    [0, 1, 5],
    [0, 5, 4],
    [2, 6, 7],
    [2, 7, 3],
    [0, 4, 6],
    [0, 6, 2],
    [1, 3, 7],
    [1, 7, 5],
];

/// The proxy of `boxes` with every box scaled by `scale` about its centre,
/// its corners clamped to the quantization box of `bounds`.
fn proxy_mesh(
    model: &SourceModel,
    skin: &[TwoBone],
    boxes: &[BoneBox],
    scale: f32,
    bounds: &Bounds,
) -> Proxy {
    let (quant_min, quant_max) = (Vec3::from(bounds.quant_min), Vec3::from(bounds.quant_max));
    let mut proxy = Proxy {
        scale,
        ..Proxy::default()
    };
    let mut by_material = std::collections::BTreeMap::<u32, Vec<u32>>::new();
    for bone_box in boxes {
        let base = proxy.positions.len() as u32;
        let to_box = Mat3::from_mat4(bone_box.from_cube);
        let nearest = |point: Vec3| {
            skin.iter()
                .enumerate()
                .filter(|(_, two_bone)| {
                    let dominant = if two_bone.weight >= 128 {
                        two_bone.bones[0]
                    } else {
                        two_bone.bones[1]
                    };
                    dominant == bone_box.bone
                })
                .map(|(vertex, _)| vertex)
                .min_by(|&a, &b| {
                    model.positions[a]
                        .distance_squared(point)
                        .total_cmp(&model.positions[b].distance_squared(point))
                })
                .unwrap_or(0)
        };
        for corner in 0..8 {
            let cube = cube_corner(corner);
            let position = bone_box
                .from_cube
                .transform_point3(cube * scale)
                .clamp(quant_min, quant_max);
            proxy.positions.push(position);
            proxy
                .normals
                .push((to_box.inverse().transpose() * cube).normalize_or(Vec3::Y));
            let source = nearest(position);
            proxy
                .uvs
                .push(model.uvs.get(source).copied().unwrap_or(Vec2::ZERO));
            proxy.nearest.push(source as u32);
            proxy.bones.push(bone_box.bone);
        }
        let indices = by_material.entry(bone_box.material).or_default();
        for triangle in CUBE_TRIANGLES {
            indices.extend(triangle.map(|corner| base + corner));
        }
    }
    proxy.groups = by_material.into_iter().collect();
    proxy
}

/// The box-per-bone proxy of a skinned model whose silhouette coverage is
/// its source's (`silhouette`, [`Silhouette::of_model`]; module doc), or
/// `None` when no bone dominates enough vertices.
pub fn bone_boxes(
    model: &SourceModel,
    skin: &[TwoBone],
    bounds: &Bounds,
    silhouette: &Silhouette,
) -> Option<Proxy> {
    let boxes = boxes(model, skin);
    if boxes.is_empty() {
        return None;
    }
    Some(fitted_proxy(model, skin, &boxes, bounds, silhouette))
}

/// The coarse proxy (module doc): the `max_boxes` boxes of
/// [`bone_boxes`] with the largest surface area, fitted to the source's
/// coverage as it is, or `None` when [`bone_boxes`] has at most that many.
pub fn coarse_bone_boxes(
    model: &SourceModel,
    skin: &[TwoBone],
    bounds: &Bounds,
    silhouette: &Silhouette,
    max_boxes: usize,
) -> Option<Proxy> {
    let mut boxes = boxes(model, skin);
    if boxes.len() <= max_boxes {
        return None;
    }
    // Cauchy: a convex body's mean projected area over all directions is a
    // quarter of its surface, so these are the boxes that cover the most.
    let surface = |bone_box: &BoneBox| {
        let axes = Mat3::from_mat4(bone_box.from_cube);
        let (x, y, z) = (axes.x_axis, axes.y_axis, axes.z_axis);
        x.cross(y).length() + y.cross(z).length() + z.cross(x).length()
    };
    boxes.sort_by(|a, b| surface(b).total_cmp(&surface(a)).then(a.bone.cmp(&b.bone)));
    boxes.truncate(max_boxes);
    boxes.sort_by_key(|bone_box| bone_box.bone);
    Some(fitted_proxy(model, skin, &boxes, bounds, silhouette))
}

/// The proxy of `boxes`, scaled about their centres until it covers
/// `silhouette`, its corners within the quantization box (as the stored
/// vertices are: a box grown past it is cut by it).
fn fitted_proxy(
    model: &SourceModel,
    skin: &[TwoBone],
    boxes: &[BoneBox],
    bounds: &Bounds,
    silhouette: &Silhouette,
) -> Proxy {
    let measure = |scale: f32| {
        let mut proxy = proxy_mesh(model, skin, boxes, scale, bounds);
        let indices: Vec<u32> = proxy
            .groups
            .iter()
            .flat_map(|(_, indices)| indices.iter().copied())
            .collect();
        proxy.coverage = silhouette.coverage(Shape {
            positions: &proxy.positions,
            indices: &indices,
        });
        proxy
    };
    // Between a shrunk and a grown proxy.
    measure(least_covering(0.25, 4.0, SCALE_STEPS, |scale| {
        measure(scale).coverage
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

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
