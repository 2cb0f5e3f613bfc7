//! The coarsest LODs built to cover the source's silhouette
//! (`silhouette.rs` measures it): a box per bone of a skinned unit, a
//! box per horizontal slab of a static prop.
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
//!
//! # The slab proxy (props)
//! A prop has one implicit bone, so [`slab_boxes`] splits its vertices
//! into horizontal slabs of equal height over the [`TRIM`]..1-[`TRIM`]
//! quantiles of their heights (+Y up); a slab of fewer than
//! [`MIN_BONE_VERTICES`] joins the one above it. Each slab's box is the
//! trimmed quantile box of its vertices in bind space, axis-aligned and
//! rigid to bone 0, with corners as above, their UVs the nearest of the
//! slab's vertices: a tree's trunk box takes bark, its crown boxes
//! leaves. Equal heights beat slabs of equal vertex counts, whose bottom
//! slab on the generated tree held the crown's lower vertices with the
//! trunk's and so was a crown-wide box from the ground: with 4 slabs the
//! fitted proxy's silhouette overlaps the tree's by 71 % (intersection
//! over union, mean of the views) against 56 %, the pillar's, banner's
//! and fence's by 73, 61 and 26 % against 62, 42 and 18 %, the rock's by
//! 68 % either way.
//! The fit scales the boxes' widths only (x and z about their centres):
//! the slabs keep their heights, so the trunk stays on the ground and the
//! crown on the trunk; a uniform scale lifted the tree's trunk 16 cm.

use glam::{BVec3, Mat3, Mat4, Vec2, Vec3};

use crate::import::SourceModel;
use crate::silhouette::{least_covering, Shape, Silhouette};
use crate::two_bone::TwoBone;
use horde_asset::Bounds;

/// Bones with fewer dominated vertices get no box.
pub const MIN_BONE_VERTICES: usize = 4;
/// Quantile trimmed at each end of a box's extent along each axis.
pub const TRIM: f32 = 0.02;
/// Bisection steps of the proxy's scale.
const SCALE_STEPS: u32 = 20;

/// One box of a proxy.
#[derive(Clone, Debug)]
struct ProxyBox {
    bone: u16,
    /// Bind space from the box's unit cube (-1..1 on each axis).
    from_cube: Mat4,
    material: u32,
    /// The source vertices it was made of: each corner takes the UV of the
    /// nearest.
    vertices: Vec<usize>,
}

/// The proxy's mesh: positions, normals, UVs, the bone of each vertex, and
/// triangles grouped by material (`(material, indices)`, materials in
/// increasing order). Vertices come 8 a box, in `cube_corner` order.
#[derive(Clone, Debug, Default)]
pub struct Proxy {
    pub positions: Vec<Vec3>,
    pub normals: Vec<Vec3>,
    pub uvs: Vec<Vec2>,
    /// The source vertex nearest each vertex among its box's (its UV's).
    pub nearest: Vec<u32>,
    pub bones: Vec<u16>,
    pub groups: Vec<(u32, Vec<u32>)>,
    /// Its silhouette coverage over the source's ([`Silhouette::coverage`]).
    pub coverage: f32,
    /// The scale its boxes were given about their centres.
    pub scale: f32,
}

impl Proxy {
    /// The axis-aligned box (low and high corners) round each of its
    /// boxes: the box itself where it is axis-aligned (the slab proxy's).
    pub fn box_extents(&self) -> Vec<(Vec3, Vec3)> {
        self.positions.chunks_exact(8).map(bounding_box).collect()
    }

    /// The 95th-percentile two-sided distance between a slab proxy's surface
    /// (the union of its axis-aligned boxes, sampled by
    /// `visible_face_samples`) and the source's vertices: the larger of the
    /// 95th percentiles of each source vertex's distance to the nearest
    /// surface sample and of each sample's to the nearest source vertex.
    /// Point to point, so it errs large, by up to half a sample spacing one
    /// way and the source's vertex spacing the other. `None` when either side
    /// is empty.
    pub fn slab_distance(&self, model: &SourceModel) -> Option<f32> {
        let boxes = self.box_extents();
        let samples: Vec<Vec3> = (0..boxes.len())
            .flat_map(|index| visible_face_samples(&boxes, index))
            .collect();
        if samples.is_empty() || model.positions.is_empty() {
            return None;
        }
        let mut sample_to_source = vec![f32::INFINITY; samples.len()];
        let mut source_to_sample = vec![f32::INFINITY; model.positions.len()];
        for (sample, sample_nearest) in samples.iter().zip(&mut sample_to_source) {
            for (position, source_nearest) in model.positions.iter().zip(&mut source_to_sample) {
                let squared = sample.distance_squared(*position);
                *sample_nearest = sample_nearest.min(squared);
                *source_nearest = source_nearest.min(squared);
            }
        }
        let squared =
            quantile(&mut sample_to_source, 0.95).max(quantile(&mut source_to_sample, 0.95));
        Some(squared.sqrt())
    }
}

/// Samples per side of each box face in [`Proxy::slab_distance`]: a 16th of
/// the box's side apart, 5 to 13 cm on the generated tree's crown.
const FACE_SAMPLES: usize = 16;

/// The points on the faces of `boxes[index]` (low and high corners)
/// outside every other box: its part of the union's surface, on a
/// [`FACE_SAMPLES`]² grid a face.
fn visible_face_samples(boxes: &[(Vec3, Vec3)], index: usize) -> Vec<Vec3> {
    let (low, high) = boxes[index];
    let hidden = |point: Vec3| {
        boxes
            .iter()
            .enumerate()
            .any(|(other, &(other_low, other_high))| {
                other != index && point.cmpgt(other_low).all() && point.cmplt(other_high).all()
            })
    };
    let along = |step: usize| (step as f32 + 0.5) / FACE_SAMPLES as f32;
    let mut samples = Vec::new();
    for axis in 0..3 {
        let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
        for side in [low[axis], high[axis]] {
            for i in 0..FACE_SAMPLES {
                for j in 0..FACE_SAMPLES {
                    let mut point = Vec3::ZERO;
                    point[axis] = side;
                    point[u] = low[u] + along(i) * (high[u] - low[u]);
                    point[v] = low[v] + along(j) * (high[v] - low[v]);
                    if !hidden(point) {
                        samples.push(point);
                    }
                }
            }
        }
    }
    samples
}

/// The least axis-aligned box (low and high corners) holding `points`.
fn bounding_box(points: &[Vec3]) -> (Vec3, Vec3) {
    points.iter().fold(
        (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
        |(low, high), &point| (low.min(point), high.max(point)),
    )
}

/// The value at quantile `q` of `values` (sorted in place; not empty).
fn quantile(values: &mut [f32], q: f32) -> f32 {
    values.sort_by(f32::total_cmp);
    let index = ((values.len() - 1) as f32 * q).round() as usize;
    values[index.min(values.len() - 1)]
}

/// The material of each source vertex (the last group's that uses it).
fn vertex_materials(model: &SourceModel) -> Vec<u32> {
    let mut vertex_material = vec![0u32; model.positions.len()];
    for group in &model.groups {
        for &index in &group.indices {
            if let Some(slot) = vertex_material.get_mut(index as usize) {
                *slot = group.material;
            }
        }
    }
    vertex_material
}

/// The [`TRIM`]..1-[`TRIM`] quantiles of `points` (not empty) on each axis.
fn trimmed_extent(points: &[Vec3]) -> (Vec3, Vec3) {
    let mut low = Vec3::ZERO;
    let mut high = Vec3::ZERO;
    for axis in 0..3 {
        let mut values: Vec<f32> = points.iter().map(|p| p[axis]).collect();
        low[axis] = quantile(&mut values, TRIM);
        high[axis] = quantile(&mut values, 1.0 - TRIM);
    }
    (low, high)
}

/// The box from `low` to `high` in the space that `from_local` maps to
/// bind space, made of `vertices`, with the material most of them have.
fn proxy_box(
    vertex_material: &[u32],
    bone: u16,
    from_local: Mat4,
    (low, high): (Vec3, Vec3),
    vertices: Vec<usize>,
) -> ProxyBox {
    let center = (low + high) * 0.5;
    let half = ((high - low) * 0.5).max(Vec3::splat(1e-4));
    let mut counts = std::collections::BTreeMap::<u32, usize>::new();
    for &v in &vertices {
        *counts.entry(vertex_material[v]).or_default() += 1;
    }
    let material = counts
        .iter()
        .max_by_key(|&(material, count)| (*count, std::cmp::Reverse(*material)))
        .map_or(0, |(&material, _)| material);
    ProxyBox {
        bone,
        from_cube: from_local * Mat4::from_translation(center) * Mat4::from_scale(half),
        material,
        vertices,
    }
}

/// The boxes of the bones that dominate enough vertices, each in its
/// bone's bind space.
fn boxes_per_bone(model: &SourceModel, skin: &[TwoBone]) -> Vec<ProxyBox> {
    let vertex_material = vertex_materials(model);
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
    dominated
        .into_iter()
        .zip(&model.skeleton.inverse_bind)
        .enumerate()
        .filter(|(_, (vertices, _))| vertices.len() >= MIN_BONE_VERTICES)
        .map(|(bone, (vertices, &to_bone))| {
            let local: Vec<Vec3> = vertices
                .iter()
                .map(|&v| to_bone.transform_point3(model.positions[v]))
                .collect();
            let extent = trimmed_extent(&local);
            proxy_box(
                &vertex_material,
                bone as u16,
                to_bone.inverse(),
                extent,
                vertices,
            )
        })
        .collect()
}

/// Corners of the unit cube, index bits x, y, z.
pub(crate) fn cube_corner(corner: usize) -> Vec3 {
    Vec3::new(
        if corner & 1 != 0 { 1.0 } else { -1.0 },
        if corner & 2 != 0 { 1.0 } else { -1.0 },
        if corner & 4 != 0 { 1.0 } else { -1.0 },
    )
}

/// The cube's 12 triangles over its corners, counter-clockwise from
/// outside.
pub(crate) const CUBE_TRIANGLES: [[u32; 3]; 12] = [
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

/// The proxy of `boxes` with every box scaled by `scale` about its centre
/// along `scaled_axes` (of its cube), its corners clamped to the
/// quantization box of `bounds`.
fn proxy_mesh(
    model: &SourceModel,
    boxes: &[ProxyBox],
    scale: f32,
    scaled_axes: BVec3,
    bounds: &Bounds,
) -> Proxy {
    let (quant_min, quant_max) = (Vec3::from(bounds.quant_min), Vec3::from(bounds.quant_max));
    let mut proxy = Proxy {
        scale,
        ..Proxy::default()
    };
    let box_scale = Vec3::select(scaled_axes, Vec3::splat(scale), Vec3::ONE);
    let mut by_material = std::collections::BTreeMap::<u32, Vec<u32>>::new();
    for proxy_box in boxes {
        let base = proxy.positions.len() as u32;
        let to_box = Mat3::from_mat4(proxy_box.from_cube);
        let nearest = |point: Vec3| {
            proxy_box
                .vertices
                .iter()
                .copied()
                .min_by(|&a, &b| {
                    model.positions[a]
                        .distance_squared(point)
                        .total_cmp(&model.positions[b].distance_squared(point))
                })
                .unwrap_or(0)
        };
        for corner in 0..8 {
            let cube = cube_corner(corner);
            let position = proxy_box
                .from_cube
                .transform_point3(cube * box_scale)
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
            proxy.bones.push(proxy_box.bone);
        }
        let indices = by_material.entry(proxy_box.material).or_default();
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
    let boxes = boxes_per_bone(model, skin);
    if boxes.is_empty() {
        return None;
    }
    Some(fitted_proxy(model, &boxes, BVec3::TRUE, bounds, silhouette))
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
    let mut boxes = boxes_per_bone(model, skin);
    if boxes.len() <= max_boxes {
        return None;
    }
    // Cauchy: a convex body's mean projected area over all directions is a
    // quarter of its surface, so these are the boxes that cover the most.
    let surface = |proxy_box: &ProxyBox| {
        let axes = Mat3::from_mat4(proxy_box.from_cube);
        let (x, y, z) = (axes.x_axis, axes.y_axis, axes.z_axis);
        x.cross(y).length() + y.cross(z).length() + z.cross(x).length()
    };
    boxes.sort_by(|a, b| surface(b).total_cmp(&surface(a)).then(a.bone.cmp(&b.bone)));
    boxes.truncate(max_boxes);
    boxes.sort_by_key(|proxy_box| proxy_box.bone);
    Some(fitted_proxy(model, &boxes, BVec3::TRUE, bounds, silhouette))
}

/// The vertices of `positions` in `count` horizontal slabs of equal height
/// over the [`TRIM`]..1-[`TRIM`] quantiles of their heights, bottom first
/// (those below and above that range in the end slabs); none when
/// `positions` is empty.
fn equal_height_slabs(positions: &[Vec3], count: usize) -> Vec<Vec<usize>> {
    let mut heights: Vec<f32> = positions.iter().map(|p| p.y).collect();
    if heights.is_empty() {
        return Vec::new();
    }
    let bottom = quantile(&mut heights, TRIM);
    let top = quantile(&mut heights, 1.0 - TRIM);
    let step = ((top - bottom) / count as f32).max(f32::MIN_POSITIVE);
    let mut slabs = vec![Vec::new(); count];
    for (vertex, position) in positions.iter().enumerate() {
        // Saturating cast: below the range, and NaN, is slab 0.
        let index = ((position.y - bottom) / step) as usize;
        if let Some(slab) = slabs.get_mut(index.min(count.saturating_sub(1))) {
            slab.push(vertex);
        }
    }
    slabs
}

/// The slab proxy of a static model (module doc) in at most `slabs` boxes,
/// fitted to its source's coverage (`silhouette`,
/// [`Silhouette::of_model`]), or `None` when it has fewer vertices than a
/// box needs.
pub fn slab_boxes(
    model: &SourceModel,
    bounds: &Bounds,
    silhouette: &Silhouette,
    slabs: usize,
) -> Option<Proxy> {
    // A slab of too few vertices joins the one above it, the top one the
    // one below.
    let mut merged: Vec<Vec<usize>> = Vec::new();
    let mut pending = Vec::new();
    for slab in equal_height_slabs(&model.positions, slabs) {
        pending.extend(slab);
        if pending.len() >= MIN_BONE_VERTICES {
            merged.push(std::mem::take(&mut pending));
        }
    }
    merged.last_mut()?.extend(pending);
    let vertex_material = vertex_materials(model);
    let boxes: Vec<ProxyBox> = merged
        .into_iter()
        .map(|vertices| {
            let positions: Vec<Vec3> = vertices.iter().map(|&v| model.positions[v]).collect();
            let extent = trimmed_extent(&positions);
            proxy_box(&vertex_material, 0, Mat4::IDENTITY, extent, vertices)
        })
        .collect();
    // Only their widths are fitted: they keep their heights, on the ground.
    let widths = BVec3::new(true, false, true);
    Some(fitted_proxy(model, &boxes, widths, bounds, silhouette))
}

/// The proxy of `boxes`, scaled about their centres along `scaled_axes`
/// (of their cubes) until it covers `silhouette`, its corners within the
/// quantization box (as the stored vertices are: a box grown past it is
/// cut by it).
fn fitted_proxy(
    model: &SourceModel,
    boxes: &[ProxyBox],
    scaled_axes: BVec3,
    bounds: &Bounds,
    silhouette: &Silhouette,
) -> Proxy {
    let measure = |scale: f32| {
        let mut proxy = proxy_mesh(model, boxes, scale, scaled_axes, bounds);
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
    use crate::import::{Skeleton, TriangleGroup};

    /// A surface of revolution about the y axis: `rings` + 1 circles of
    /// `segments` vertices from `bottom` to `top`, of radius `radius(t)`
    /// for `t` in 0..=1, appended to `model` with material `material`
    /// and UV `uv`.
    fn revolve(
        model: &mut SourceModel,
        (bottom, top): (f32, f32),
        radius: impl Fn(f32) -> f32,
        material: u32,
        uv: Vec2,
    ) {
        let (rings, segments) = (12u32, 16u32);
        let base = model.positions.len() as u32;
        for ring in 0..=rings {
            let t = ring as f32 / rings as f32;
            for segment in 0..segments {
                let angle = segment as f32 / segments as f32 * std::f32::consts::TAU;
                let direction = Vec3::new(angle.cos(), 0.0, angle.sin());
                model
                    .positions
                    .push(direction * radius(t) + Vec3::Y * (bottom + (top - bottom) * t));
                model.normals.push(direction);
                model.uvs.push(uv);
            }
        }
        let mut indices = Vec::new();
        for ring in 0..rings {
            for segment in 0..segments {
                let next = (segment + 1) % segments;
                let [a, b] = [segment, next].map(|s| base + ring * segments + s);
                let [c, d] = [segment, next].map(|s| base + (ring + 1) * segments + s);
                indices.extend([a, c, d, a, d, b]);
            }
        }
        model.groups.push(TriangleGroup { material, indices });
    }

    /// A static model with no vertices.
    fn empty_model() -> SourceModel {
        crate::import::empty_model(Skeleton {
            nodes: Vec::new(),
            order: Vec::new(),
            joints: Vec::new(),
            inverse_bind: Vec::new(),
        })
    }

    /// The bounds the prop bake gives `model`: its box, the sphere about
    /// the box's centre.
    fn prop_bounds(model: &SourceModel) -> Bounds {
        let (low, high) = bounding_box(&model.positions);
        let center = (low + high) * 0.5;
        Bounds {
            quant_min: low.to_array(),
            quant_max: high.to_array(),
            sphere_center: center.to_array(),
            sphere_radius: model
                .positions
                .iter()
                .map(|p| p.distance(center))
                .fold(0.0, f32::max),
            height: high.y - low.y,
        }
    }

    /// A tree: a trunk 0.3 wide and 2 tall (bark, material 0) under a
    /// crown 2.4 wide, a sphere from 1.8 to 4.2 (leaves, material 1).
    #[test]
    fn slab_proxy_of_a_tree_is_a_narrow_trunk_under_a_wide_crown() {
        let (bark, leaves) = (Vec2::new(0.1, 0.1), Vec2::new(0.9, 0.9));
        let mut tree = empty_model();
        revolve(&mut tree, (0.0, 2.0), |_| 0.15, 0, bark);
        let sphere = |t: f32| (t * std::f32::consts::PI).sin() * 1.2;
        revolve(&mut tree, (1.8, 4.2), sphere, 1, leaves);
        let bounds = prop_bounds(&tree);
        let silhouette = Silhouette::of_model(&tree, &bounds);
        let proxy = slab_boxes(&tree, &bounds, &silhouette, 4).expect("a proxy");
        assert_eq!(proxy.positions.len(), 4 * 8, "a box a slab");
        assert!(
            (0.95..=1.10).contains(&proxy.coverage),
            "covers {:.3} of the tree's silhouette",
            proxy.coverage
        );
        let widths: Vec<f32> = proxy
            .box_extents()
            .iter()
            .map(|(low, high)| (high.x - low.x).max(high.z - low.z))
            .collect();
        // Slab 1 (1.05 to 2.1) is the trunk's top and the crown's bottom
        // cap, mostly trunk.
        assert!(
            widths[0] < 0.5 && widths[0] <= widths[1] && widths[2..].iter().all(|&w| w > 1.2),
            "the trunk's boxes are narrow, the crown's wide: {widths:?}"
        );
        let material_of = |box_index: u32| {
            proxy
                .groups
                .iter()
                .find(|(_, indices)| indices.contains(&(box_index * 8)))
                .map(|&(material, _)| material)
        };
        assert_eq!(material_of(0), Some(0), "the trunk's box is bark");
        assert_eq!(material_of(3), Some(1), "the crown's top box is leaves");
        assert!(proxy.uvs[..8].iter().all(|&uv| uv == bark));
        assert!(proxy.uvs[24..].iter().all(|&uv| uv == leaves));
        assert!(proxy.bones.iter().all(|&bone| bone == 0));
        // Bad input: nothing to box.
        let empty = empty_model();
        let empty_bounds = Bounds::default();
        let nothing = Silhouette::of_model(&empty, &empty_bounds);
        assert!(slab_boxes(&empty, &empty_bounds, &nothing, 4).is_none());
        assert!(slab_boxes(&tree, &bounds, &silhouette, 0).is_none());
    }
}
