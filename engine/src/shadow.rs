//! Sun shadow cascades on the CPU: where each cascade's map lies, its
//! matrix, the cull inputs of its casters, and the lookup's prediction for
//! tests. The GPU side is `passes/shadow.rs`; the receivers' lookup is
//! `sun_visibility` in `shaders/shadow.glsl`.
//!
//! # Cascades
//! Shadows cover view distances from `start`, the nearest ground the camera
//! can see (its height above the highest ground, at least its near plane),
//! to `start + distance`. The range is split by the practical scheme
//! (Zhang et al. 2006): each split the mean of the logarithmic and the
//! uniform split, weighted [`SPLIT_LOG_WEIGHT`], so near cascades are small
//! and sharp and far ones wide. Each cascade is an orthographic box along
//! the sun:
//! - across, the light-space box of what its slice of the view frustum
//!   must shadow: the slice cut to the ground slab, from the lowest ground
//!   to [`RECEIVER_HEIGHT`] above the highest (`slice_points`). A camera
//!   high above the battle sees the ground through a small part of each
//!   slice, so the boxes are a fraction of the slice's bounding sphere (a
//!   first version fitted spheres: each unit then cast into all three
//!   cascades, and the 1M overview's shadows cost 29 ms on an H100). Made
//!   square, its half width rounded up to a whole metre, its centre snapped
//!   to whole texels, so a still sun casts still shadows while the camera
//!   moves without turning;
//! - along the sun, from the far side of the slice to [`CASTER_REACH`]
//!   metres sunward of its near side, so casters outside the view still
//!   cast into it.
//!
//! Reverse-Z, as the camera: depth 1 at the box's sunward face, 0 at its far
//! face; nearer the sun is larger.
//!
//! # Casters
//! The cull (`cull.comp`) runs once per cascade with [`cascade_cull`]: the
//! box's six planes, `orthographic` set (a unit's projected size is its
//! diameter × texels per metre, whatever the distance), the LOD threshold in
//! texels, and the far field's size in texels, so units a few texels tall
//! are rasterized by the far field's compute rasterizer, depth only (the
//! smallest splatted, `shadow_splat.comp`), and meshes within
//! [`SHADOW_MIN_CASTER_TEXELS`] are not drawn.

use glam::{Mat4, Vec3, Vec4};

use crate::camera::Camera;
use crate::gpu_types::CullGlobals;

/// The weight of the logarithmic split against the uniform one.
pub const SPLIT_LOG_WEIGHT: f32 = 0.75;
/// Metres sunward of a cascade's slice within which casters still cast.
pub const CASTER_REACH: f32 = 150.0;
/// The tallest receiver above the highest ground, metres (trees, banners).
pub const RECEIVER_HEIGHT: f32 = 20.0;
/// A cascade's shadow LODs: the coarsest whose error stays within this many
/// texels (the default of `RenderSettings::shadow_lod_texels`). The
/// receivers filter over a 3x3-texel tent, so an error of 3 texels does not
/// show: against 2 it took the 1M ground preset's shadows from 3.14 to
/// 2.58 ms at a FLIP of 0.0139 against 0.0137 (H100,
/// `benches/results/shadows/summary_lod.json`).
pub const SHADOW_LOD_THRESHOLD_TEXELS: f32 = 3.0;
/// Units whose bounding sphere spans at most this many texels of a cascade
/// are drawn into it by the far field's compute rasterizer (where the
/// device has it). The raster skins about 0.5 G vertices/s on an H100
/// (DESIGN.md): at 24 texels the 1M ground preset's mesh casters took
/// 20 ms; with the far field's mid-size pipeline, 160 texels against 64
/// took the 10k ground preset's shadows from 5.5 to 2.5 ms at the same
/// FLIP (`benches/results/near_field/`).
pub const SHADOW_FAR_FIELD_TEXELS: f32 = 160.0;
/// Mesh casters (props; units without the far field) spanning at most
/// this many texels cast nothing: their shadow would be smaller than the
/// receivers' filter.
pub const SHADOW_MIN_CASTER_TEXELS: f32 = 4.0;
/// Far casters spanning at most this many texels are splatted: the line
/// from their feet to their top, a texel a step, [`SHADOW_SPLAT_WIDTH`]
/// of their span wide (`shadow_splat.comp`), not skinned and rasterized.
/// Skinning the casters of 8 to 16 texels was most of the shadows' time at
/// the 1M ground preset (2.2 of 5.1 ms, H100) and the front's largest
/// part (1.47 ms of 4.61); but a line is not a unit's shadow, and at the
/// 1M front splats up to 16 texels took FLIP from 0.094 (8 texels) to
/// 0.130 for 1.6 ms less (`benches/results/near_field/`), so 8.
pub const SHADOW_SPLAT_TEXELS: f32 = 8.0;
/// A splat's width in texels per texel of its sphere's span, rounded (at
/// least one): one texel up to 9 texels, two from 10 to 16. A unit's
/// silhouette seen from the sun is thin limbs and gaps; a splat as wide as
/// its body shadows the ground between the ranks too (FLIP at the 1M front
/// 0.157 with 0.3, 0.125 with 0.17; 0.097 with 8-texel splats of 0.3,
/// `benches/results/shadows/splat_sizes/`).
pub const SHADOW_SPLAT_WIDTH: f32 = 0.15;
/// Receivers move this many texels along their normal before the lookup,
/// and the compared depth this many texels' worth sunward.
const NORMAL_OFFSET_TEXELS: f32 = 1.5;
const DEPTH_BIAS_TEXELS: f32 = 1.0;

/// What the cascades are fitted to.
#[derive(Clone, Copy, Debug)]
pub struct ShadowView {
    pub camera: Camera,
    /// Width over height of the camera's image.
    pub aspect: f32,
    /// Direction towards the sun.
    pub sun_direction: Vec3,
    /// The lowest and the highest ground (world Y): the camera sees no
    /// ground nearer than its height above the highest, and receivers stand
    /// between the two (up to [`RECEIVER_HEIGHT`] above the highest).
    pub ground_bottom: f32,
    pub ground_top: f32,
    /// Metres of view distance shadows cover past the nearest ground.
    pub distance: f32,
    pub cascade_count: u32,
    /// Texels along each side of a cascade's map.
    pub map_size: u32,
}

/// One cascade.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cascade {
    /// World to the map's clip space (x, y in ±1, reverse-Z depth in 0..=1).
    pub view_proj: Mat4,
    /// The view distances the cascade's slice spans.
    pub near: f32,
    pub far: f32,
    /// Half the box's width, metres.
    pub half_width: f32,
    /// Metres along the sun the box spans (its depth range).
    pub depth_range: f32,
    /// Texels along each side.
    pub map_size: u32,
}

/// The cascades of `view`, nearest first (none when the count or the
/// distance is 0).
pub fn fit_cascades(view: &ShadowView) -> Vec<Cascade> {
    let count = view.cascade_count;
    if count == 0 || view.distance <= 0.0 || view.map_size == 0 {
        return Vec::new();
    }
    let camera = &view.camera;
    let start = (camera.position.y - view.ground_top)
        .max(camera.near)
        .max(1e-3);
    let end = start + view.distance;
    let split = |i: u32| {
        let t = i as f32 / count as f32;
        let logarithmic = start * (end / start).powf(t);
        let uniform = start + (end - start) * t;
        SPLIT_LOG_WEIGHT * logarithmic + (1.0 - SPLIT_LOG_WEIGHT) * uniform
    };
    (0..count)
        .map(|i| {
            let near = if i == 0 { camera.near } else { split(i) };
            fit_cascade(view, near, split(i + 1))
        })
        .collect()
}

/// The basis of the sun's view: right, up, and the direction light travels.
fn sun_basis(sun_direction: Vec3) -> (Vec3, Vec3, Vec3) {
    let forward = -sun_direction.normalize_or(Vec3::Y);
    let reference = if forward.y.abs() > 0.99 {
        Vec3::Z
    } else {
        Vec3::Y
    };
    let right = forward.cross(reference).normalize();
    let up = right.cross(forward);
    (right, up, forward)
}

/// The points bounding what cascade slice `near..far` (view depths) must
/// shadow: the slice of the view frustum cut to the ground slab (world Y
/// from the lowest ground to [`RECEIVER_HEIGHT`] over the highest). The
/// vertices of a convex solid cut by two planes: its own inside the slab,
/// and where its edges cross the planes. The whole slice when it misses the
/// slab (a view of the sky).
fn slice_points(view: &ShadowView, near: f32, far: f32) -> Vec<Vec3> {
    let camera = &view.camera;
    let forward = (camera.target - camera.position).normalize_or(Vec3::NEG_Z);
    let reference = if forward.y.abs() > 0.999 {
        Vec3::Z
    } else {
        Vec3::Y
    };
    let right = forward.cross(reference).normalize();
    let up = right.cross(forward);
    let tan_half = (camera.fov_y * 0.5).tan();
    let corner = |depth: f32, sx: f32, sy: f32| {
        camera.position
            + (forward + right * (sx * tan_half * view.aspect) + up * (sy * tan_half)) * depth
    };
    let signs = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)];
    let near_face = signs.map(|(sx, sy)| corner(near, sx, sy));
    let far_face = signs.map(|(sx, sy)| corner(far, sx, sy));
    let mut edges: Vec<(Vec3, Vec3)> = Vec::with_capacity(12);
    for i in 0..4 {
        let j = (i + 1) % 4;
        edges.extend([
            (near_face[i], far_face[i]),
            (near_face[i], near_face[j]),
            (far_face[i], far_face[j]),
        ]);
    }
    let (low, high) = (view.ground_bottom, view.ground_top + RECEIVER_HEIGHT);
    let mut points: Vec<Vec3> = near_face
        .iter()
        .chain(&far_face)
        .copied()
        .filter(|p| (low..=high).contains(&p.y))
        .collect();
    for (a, b) in edges {
        for plane in [low, high] {
            if (a.y - plane) * (b.y - plane) < 0.0 {
                points.push(a.lerp(b, (plane - a.y) / (b.y - a.y)));
            }
        }
    }
    if points.is_empty() {
        points.extend(near_face.iter().chain(&far_face));
    }
    points
}

/// The cascade of the view slice from `near` to `far` (view depths): the
/// light-space box of [`slice_points`], square, its half width rounded up
/// to a whole metre and its centre snapped to whole texels; along the sun
/// from its far side to [`CASTER_REACH`] metres sunward of its near side.
fn fit_cascade(view: &ShadowView, near: f32, far: f32) -> Cascade {
    let (right, up, light) = sun_basis(view.sun_direction);
    let points = slice_points(view, near, far);
    let along = |axis: Vec3| {
        points.iter().fold((f32::MAX, f32::MIN), |(lo, hi), p| {
            let d = p.dot(axis);
            (lo.min(d), hi.max(d))
        })
    };
    let ((x0, x1), (y0, y1), (z0, z1)) = (along(right), along(up), along(light));
    let half_width = (0.5 * (x1 - x0).max(y1 - y0)).ceil().max(1.0);
    let texel = 2.0 * half_width / view.map_size as f32;
    let snap = |value: f32| (value / texel).round() * texel;
    let (x, y) = (snap(0.5 * (x0 + x1)), snap(0.5 * (y0 + y1)));
    let (box_near, box_far) = (z0 - CASTER_REACH, z1 + texel);
    let depth_range = box_far - box_near;
    let rows = [
        (right / half_width).extend(-x / half_width),
        (up / half_width).extend(-y / half_width),
        (-light / depth_range).extend(box_far / depth_range),
        Vec4::W,
    ];
    Cascade {
        view_proj: Mat4::from_cols(rows[0], rows[1], rows[2], rows[3]).transpose(),
        near,
        far,
        half_width,
        depth_range,
        map_size: view.map_size,
    }
}

impl Cascade {
    /// World metres per texel.
    pub fn texel(&self) -> f32 {
        2.0 * self.half_width / self.map_size as f32
    }

    /// The receiver's bias: the normal offset in metres and the depth bias
    /// in reverse-Z units (`FrameGlobals::shadow_cascade_bias`).
    pub fn bias(&self) -> [f32; 4] {
        let texel = self.texel();
        [
            NORMAL_OFFSET_TEXELS * texel,
            DEPTH_BIAS_TEXELS * texel / self.depth_range,
            0.0,
            0.0,
        ]
    }

    /// The map's (u, v) in 0..=1 and reverse-Z depth of a world point.
    pub fn project(&self, world: Vec3) -> Vec3 {
        let clip = self.view_proj * world.extend(1.0);
        Vec3::new(clip.x * 0.5 + 0.5, clip.y * 0.5 + 0.5, clip.z)
    }
}

/// The cull inputs of `cascade`'s casters: its box, `orthographic`, texels
/// per metre, the LOD threshold of `lod_threshold_texels`, and the far field
/// where `far_field` (the device has it).
pub fn cascade_cull(cascade: &Cascade, lod_threshold_texels: f32, far_field: bool) -> CullGlobals {
    let row = |i: usize| cascade.view_proj.row(i);
    let normalized = |plane: Vec4| plane / plane.truncate().length().max(f32::MIN_POSITIVE);
    // x and y within ±1, depth within 0..=1 (w is 1).
    let planes = [
        row(3) + row(0),
        row(3) - row(0),
        row(3) + row(1),
        row(3) - row(1),
        row(3) - row(2),
        row(2),
    ]
    .map(|plane| normalized(plane).to_array());
    let inverse = cascade.view_proj.inverse();
    CullGlobals {
        planes,
        camera_position: inverse
            .transform_point3(Vec3::new(0.0, 0.0, 1.0))
            .to_array(),
        pixels_per_unit: cascade.map_size as f32 / (2.0 * cascade.half_width),
        lod_threshold_px: lod_threshold_texels,
        lod_hysteresis: 0.25,
        max_draw_distance: cascade.depth_range,
        far_field_px: if far_field {
            SHADOW_FAR_FIELD_TEXELS
        } else {
            0.0
        },
        impostor_threshold_px: 0.0,
        impostor_band: 0.0,
        orthographic: 1,
        min_size_px: SHADOW_MIN_CASTER_TEXELS,
        ..CullGlobals::default()
    }
}

/// Where the shadow of the point `caster` falls on the horizontal ground at
/// height `ground`: along the sun's rays.
pub fn shadow_on_ground(caster: Vec3, sun_direction: Vec3, ground: f32) -> Vec3 {
    let sun = sun_direction.normalize_or(Vec3::Y);
    let along = (caster.y - ground) / sun.y.max(1e-6);
    caster - sun * along
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view() -> ShadowView {
        ShadowView {
            camera: Camera::look_at(Vec3::new(0.0, 20.0, 40.0), Vec3::ZERO),
            aspect: 16.0 / 9.0,
            sun_direction: Vec3::new(0.4, 0.8, 0.3),
            ground_bottom: 0.0,
            ground_top: 0.0,
            distance: 300.0,
            cascade_count: 3,
            map_size: 2048,
        }
    }

    #[test]
    fn cascades_tile_the_range_and_grow() {
        let cascades = fit_cascades(&view());
        assert_eq!(cascades.len(), 3);
        assert_eq!(cascades[0].near, 0.1);
        assert!(cascades[0].half_width < 60.0, "{}", cascades[0].half_width);
        for pair in cascades.windows(2) {
            assert_eq!(pair[0].far, pair[1].near);
            assert!(pair[1].half_width > pair[0].half_width);
        }
        assert!(
            (cascades[2].far - 320.0).abs() < 1e-3,
            "{}",
            cascades[2].far
        );
    }

    #[test]
    fn the_slice_lies_inside_its_box() {
        let view = view();
        let camera = view.camera;
        let forward = (camera.target - camera.position).normalize();
        for cascade in fit_cascades(&view) {
            for depth in [cascade.near, cascade.far] {
                let p = cascade.project(camera.position + forward * depth);
                assert!(
                    (0.0..=1.0).contains(&p.x) && (0.0..=1.0).contains(&p.y),
                    "{p}"
                );
                assert!((0.0..=1.0).contains(&p.z), "{p}");
            }
        }
    }

    #[test]
    fn nearer_the_sun_is_deeper_and_planes_agree() {
        let view = view();
        let cascade = fit_cascades(&view)[1];
        let ground = Vec3::new(2.0, 0.0, 3.0);
        let above = ground + view.sun_direction.normalize() * 5.0;
        assert!(cascade.project(above).z > cascade.project(ground).z);
        let cull = cascade_cull(&cascade, SHADOW_LOD_THRESHOLD_TEXELS, true);
        let inside = |p: Vec3| {
            cull.planes
                .iter()
                .all(|n| n[0] * p.x + n[1] * p.y + n[2] * p.z + n[3] >= -1e-3)
        };
        assert!(inside(ground));
        let far_away = ground + Vec3::new(cascade.half_width * 3.0, 0.0, 0.0);
        assert!(!inside(far_away));
    }

    #[test]
    fn a_moving_camera_moves_the_box_in_whole_texels() {
        let mut view = view();
        let a = fit_cascades(&view)[2];
        view.camera.position.x += 0.37;
        view.camera.target.x += 0.37;
        let b = fit_cascades(&view)[2];
        assert_eq!(a.half_width, b.half_width);
        let shift = (b.view_proj.col(3).x - a.view_proj.col(3).x) * a.half_width / a.texel();
        assert!((shift - shift.round()).abs() < 1e-2, "{shift}");
    }

    #[test]
    fn shadows_fall_away_from_the_sun() {
        let shadow = shadow_on_ground(Vec3::new(0.0, 2.0, 0.0), Vec3::new(0.0, 1.0, 1.0), 0.0);
        assert!((shadow - Vec3::new(0.0, 0.0, -2.0)).length() < 1e-5);
    }
}
