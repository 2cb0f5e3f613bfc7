//! The animated impostor: the unit rendered on the CPU from
//! `IMPOSTOR_VIEWS_PER_SIDE²` directions at a few frames of the clips a
//! distant crowd plays, into small cells of albedo and normal (format in
//! `horde_asset`, section `IMPO`).
//!
//! # Views: hemi-octahedral, 8 × 8
//! A view direction `d` (from the model towards the eye, `d.y >= 0`) maps to
//! the square by `p = d / (|x| + |y| + |z|)`, `(u, v) = (p.x + p.z, p.x - p.z)`;
//! grid point (row, column) sits at `u = column / (V - 1) * 2 - 1`, `v` from
//! the row likewise, so the square's border is the horizon and its centre
//! looks straight down. Crowd cameras look at units from above the ground,
//! never from below, so the lower hemisphere would be wasted cells. 8 × 8 =
//! 64 views put 28 of them on the horizon, 12.9° apart; the runtime blends
//! the four nearest, so a point half a radius off the sphere's centre moves
//! by at most `0.5 · sin(6.4°) ≈ 0.06` radii between neighbours. 6 × 6
//! would double that; 12 × 12 would cost 2.25 × the memory for detail that a
//! 32-pixel cell cannot show.
//!
//! # Cells and frames
//! A cell is 32 × 32 texels framing the box that holds every baked frame,
//! by an orthographic projection along `d`, with screen right `r =
//! cross(+Y, d)` (`+X` straight down) and up `u = cross(d, r)`: the cell
//! spans `±dot(|r|, half)` by `±dot(|u|, half)` around the box's centre,
//! the box's own projection. The cull's sphere is conservative over every
//! clip and would waste most of the cell (a standing knight fills a third
//! of its height); the box fills it from the side and front. It is
//! rendered at 2 × 2 samples per texel and resolved: alpha is 1 where any
//! sample is covered (conservative, so parts thinner than a texel survive
//! the alpha test), colour and normal the average of the covered samples
//! (not premultiplied, so an alpha-tested edge keeps its colour). Albedo is the
//! material's base colour × texture (nearest texel, linear, then sRGB);
//! emission is not stored. The pose is the runtime's: the bone texture
//! blended between stored frames ([`horde_asset::skinning`]), the two-bone
//! LOD 0 vertices.
//!
//! Clips: the first clip of each role (idle, walk, run, attack, die) gets
//! [`FRAMES_PER_CLIP`] frames (a classic sprite walk cycle: enough to read
//! the gait at a few pixels, 12 fps for a 0.66 s walk); a looping clip at
//! `i · D / N`, others at `i · D / (N - 1)`. The other clips stand in as the
//! nearest role (an attack variant as the attack, a hit or a victory as
//! idle). 5 × 8 frames × 64 views × 32² texels × 2 channels is 21 MB per
//! unit type; six types fill one 4096 × 3840 page of the runtime atlas.
//!
//! # Error
//! The impostor's projected error, as a fraction of the sphere's diameter
//! (the unit of a LOD's error): a texel, at most `|half| / 32` over the
//! sphere's diameter, plus the view blend's displacement of half a radius
//! at half the grid spacing, `0.25 · sin(6.4°)`. Both are upper bounds for
//! a humanoid, whose depth from the centre is under half its radius.
//!
//! Each cell is independent: cells render in parallel (rayon), and the
//! result does not depend on the thread count.

use glam::{Mat4, Vec2, Vec3, Vec4};
use horde_asset::skinning::{sample_pose, skin_normal, skin_position, texels_f32};
use horde_asset::{
    Animation, Asset, Bounds, Clip, Impostor, ImpostorClip, MeshLod, IMPOSTOR_CELL_PX,
    IMPOSTOR_VIEWS_PER_SIDE,
};
use rayon::prelude::*;

/// Frames of each clip the impostor renders.
pub const FRAMES_PER_CLIP: u32 = 8;
/// Samples per texel along each axis.
const SUPERSAMPLING: u32 = 2;

/// The clip roles a distant crowd plays, in baking order.
const ROLES: [&[&str]; 5] = [
    &["idle"],
    &["walk"],
    &["run"],
    &["attack"],
    &["die", "death", "dead"],
];

/// The view direction (towards the eye, unit length) of grid point
/// (`row`, `column`).
pub fn view_direction(row: u32, column: u32) -> Vec3 {
    let side = (IMPOSTOR_VIEWS_PER_SIDE - 1) as f32;
    let u = column as f32 / side * 2.0 - 1.0;
    let v = row as f32 / side * 2.0 - 1.0;
    let x = (u + v) * 0.5;
    let z = (u - v) * 0.5;
    let y = 1.0 - x.abs() - z.abs();
    Vec3::new(x, y.max(0.0), z).normalize()
}

/// Screen right and up of a view along `direction` (towards the eye).
pub fn view_basis(direction: Vec3) -> (Vec3, Vec3) {
    let right = Vec3::Y.cross(direction);
    let right = if right.length_squared() > 1e-8 {
        right.normalize()
    } else {
        Vec3::X
    };
    (right, direction.cross(right))
}

/// The impostor's projected error (see the module doc) for a box of
/// `half_extent` and a sphere of `radius`.
pub fn projected_error(half_extent: Vec3, radius: f32) -> f32 {
    let half_spacing = std::f32::consts::PI / (4.0 * (IMPOSTOR_VIEWS_PER_SIDE - 1) as f32);
    let texel = half_extent.length() / (IMPOSTOR_CELL_PX as f32 * radius.max(f32::MIN_POSITIVE));
    (texel + 0.25 * half_spacing.sin()).min(1.0)
}

/// The half extents of a view's cell: the box's projection on its right
/// and up.
pub fn cell_half_extent(half_extent: Vec3, right: Vec3, up: Vec3) -> Vec2 {
    Vec2::new(
        right.abs().dot(half_extent).max(f32::MIN_POSITIVE),
        up.abs().dot(half_extent).max(f32::MIN_POSITIVE),
    )
}

/// The model-space box of every vertex of `frames`: centre and half extents.
fn frame_box(frames: &[Vec<PosedTriangle>]) -> (Vec3, Vec3) {
    let (mut low, mut high) = (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY));
    for triangle in frames.iter().flatten() {
        for p in triangle.positions {
            low = low.min(p);
            high = high.max(p);
        }
    }
    if low.cmpgt(high).any() {
        return (Vec3::ZERO, Vec3::ONE);
    }
    (
        (low + high) * 0.5,
        ((high - low) * 0.5).max(Vec3::splat(1e-6)),
    )
}

/// Which clips get frames (indices into `clips`), and for every clip the
/// index of the baked clip that shows it.
fn plan_clips(clips: &[Clip]) -> (Vec<usize>, Vec<usize>) {
    let role_of = |clip: &Clip| {
        let name = clip.name.to_lowercase();
        ROLES
            .iter()
            .position(|words| words.iter().any(|word| name.contains(word)))
    };
    let mut baked: Vec<usize> = Vec::new();
    let mut by_role: [Option<usize>; 5] = [None; 5];
    for (index, clip) in clips.iter().enumerate() {
        if let Some(role) = role_of(clip) {
            if by_role[role].is_none() {
                by_role[role] = Some(index);
                baked.push(index);
            }
        }
    }
    if baked.is_empty() {
        baked = (0..clips.len().min(ROLES.len())).collect();
    }
    let fallback = by_role[0].unwrap_or(baked[0]);
    let shown = clips
        .iter()
        .enumerate()
        .map(|(index, clip)| {
            if baked.contains(&index) {
                index
            } else {
                role_of(clip)
                    .and_then(|role| by_role[role])
                    .unwrap_or(fallback)
            }
        })
        .collect();
    (baked, shown)
}

/// Frame times of a baked clip.
fn frame_times(clip: &Clip) -> Vec<f32> {
    if clip.duration <= 0.0 || clip.frame_count <= 1 {
        return vec![0.0];
    }
    let n = FRAMES_PER_CLIP;
    let step = if clip.looping {
        clip.duration / n as f32
    } else {
        clip.duration / (n - 1) as f32
    };
    (0..n).map(|i| i as f32 * step).collect()
}

/// A triangle ready to rasterize in one pose: model positions, normals, UVs
/// and its material.
struct PosedTriangle {
    positions: [Vec3; 3],
    normals: [Vec3; 3],
    uvs: [Vec2; 3],
    material: usize,
}

/// Material colour sources: base colour factor (linear) and texture.
struct Shading<'a> {
    asset: &'a Asset,
}

impl Shading<'_> {
    fn albedo(&self, material: usize, uv: Vec2) -> Vec4 {
        let Some(material) = self.asset.materials.get(material) else {
            return Vec4::ONE;
        };
        let factor = Vec4::from(material.base_color_factor);
        let Some(texture) = material
            .base_color_texture
            .and_then(|t| self.asset.textures.get(t as usize))
        else {
            return factor;
        };
        let wrap = |c: f32, size: u32| {
            let f = c - c.floor();
            ((f * size as f32) as u32).min(size - 1)
        };
        let (x, y) = (wrap(uv.x, texture.width), wrap(uv.y, texture.height));
        let at = (y as usize * texture.width as usize + x as usize) * 4;
        let Some(texel) = texture.rgba8.get(at..at + 4) else {
            return factor;
        };
        let linear = |c: u8| srgb_to_linear(f32::from(c) / 255.0);
        factor
            * Vec4::new(
                linear(texel[0]),
                linear(texel[1]),
                linear(texel[2]),
                f32::from(texel[3]) / 255.0,
            )
    }

    fn double_sided(&self, material: usize) -> bool {
        self.asset
            .materials
            .get(material)
            .is_some_and(|m| m.double_sided)
    }
}

pub fn srgb_to_linear(c: f32) -> f32 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

pub fn linear_to_srgb(c: f32) -> f32 {
    let c = c.clamp(0.0, 1.0);
    if c <= 0.003_130_8 {
        c * 12.92
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    }
}

/// The LOD 0 triangles in `pose`, in model space.
fn posed_triangles(
    lod: &MeshLod,
    animation: &Animation,
    bounds: &Bounds,
    pose: &[Mat4],
) -> Vec<PosedTriangle> {
    let vertices: Vec<(Vec3, Vec3, Vec2)> = lod
        .vertices
        .iter()
        .map(|vertex| {
            let position = skin_position(animation.encoding, bounds, vertex, pose);
            let normal = skin_normal(vertex, decode_normal(vertex.normal), pose);
            let uv = Vec2::new(
                half::f16::from_bits(vertex.uv[0]).to_f32(),
                half::f16::from_bits(vertex.uv[1]).to_f32(),
            );
            (position, normal, uv)
        })
        .collect();
    let mut triangles = Vec::with_capacity(lod.indices.len() / 3);
    for submesh in &lod.submeshes {
        let start = submesh.first_index as usize;
        let end = start + submesh.index_count as usize;
        for corners in lod.indices.get(start..end).unwrap_or(&[]).chunks_exact(3) {
            let vertex = |i: usize| vertices[corners[i] as usize];
            let (a, b, c) = (vertex(0), vertex(1), vertex(2));
            triangles.push(PosedTriangle {
                positions: [a.0, b.0, c.0],
                normals: [a.1, b.1, c.1],
                uvs: [a.2, b.2, c.2],
                material: submesh.material as usize,
            });
        }
    }
    triangles
}

/// The octahedral normal of a packed vertex, as the shader decodes it.
fn decode_normal(normal: [i16; 2]) -> Vec3 {
    let e = Vec2::new(
        (f32::from(normal[0]) / 32767.0).max(-1.0),
        (f32::from(normal[1]) / 32767.0).max(-1.0),
    );
    let mut n = Vec3::new(e.x, e.y, 1.0 - e.x.abs() - e.y.abs());
    let t = (-n.z).max(0.0);
    n.x += if n.x >= 0.0 { -t } else { t };
    n.y += if n.y >= 0.0 { -t } else { t };
    n.normalize_or(Vec3::Z)
}

/// One cell: `IMPOSTOR_CELL_PX²` albedo and normal texels (RGBA8 each).
pub struct Cell {
    pub albedo: Vec<u8>,
    pub normal: Vec<u8>,
}

/// Renders `triangles` seen along `direction` into one cell framing the
/// box (`centre`, `half_extent`).
fn render_cell(
    triangles: &[PosedTriangle],
    shading: &Shading,
    direction: Vec3,
    (centre, half_extent): (Vec3, Vec3),
) -> Cell {
    let (right, up) = view_basis(direction);
    let extent = cell_half_extent(half_extent, right, up);
    let side = IMPOSTOR_CELL_PX * SUPERSAMPLING;
    let samples = (side * side) as usize;
    let mut depth = vec![f32::NEG_INFINITY; samples];
    let mut colour = vec![Vec4::ZERO; samples];
    let mut normal = vec![Vec3::ZERO; samples];
    let to_screen = |p: Vec3| {
        let p = p - centre;
        Vec3::new(
            (p.dot(right) / extent.x * 0.5 + 0.5) * side as f32,
            (0.5 - p.dot(up) / extent.y * 0.5) * side as f32,
            p.dot(direction),
        )
    };
    for triangle in triangles {
        let [a, b, c] = triangle.positions.map(to_screen);
        // Screen y points down: a counter-clockwise (front) face has a
        // negative area here.
        let area = (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x);
        if area == 0.0 || !area.is_finite() {
            continue;
        }
        let front = area < 0.0;
        if !front && !shading.double_sided(triangle.material) {
            continue;
        }
        let min_x = a.x.min(b.x).min(c.x).floor().max(0.0) as u32;
        let max_x = (a.x.max(b.x).max(c.x).ceil().min(side as f32)) as u32;
        let min_y = a.y.min(b.y).min(c.y).floor().max(0.0) as u32;
        let max_y = (a.y.max(b.y).max(c.y).ceil().min(side as f32)) as u32;
        for y in min_y..max_y {
            for x in min_x..max_x {
                let p = Vec2::new(x as f32 + 0.5, y as f32 + 0.5);
                let edge = |from: Vec3, to: Vec3| {
                    (to.x - from.x) * (p.y - from.y) - (to.y - from.y) * (p.x - from.x)
                };
                let w0 = edge(b, c) / area;
                let w1 = edge(c, a) / area;
                let w2 = edge(a, b) / area;
                if w0 < 0.0 || w1 < 0.0 || w2 < 0.0 {
                    continue;
                }
                let z = w0 * a.z + w1 * b.z + w2 * c.z;
                let sample = (y * side + x) as usize;
                if z <= depth[sample] {
                    continue;
                }
                let uv = triangle.uvs[0] * w0 + triangle.uvs[1] * w1 + triangle.uvs[2] * w2;
                let albedo = shading.albedo(triangle.material, uv);
                let n =
                    triangle.normals[0] * w0 + triangle.normals[1] * w1 + triangle.normals[2] * w2;
                depth[sample] = z;
                colour[sample] = albedo;
                normal[sample] = if front { n } else { -n };
            }
        }
    }
    resolve(&depth, &colour, &normal, side)
}

/// Averages each texel's `SUPERSAMPLING²` samples.
fn resolve(depth: &[f32], colour: &[Vec4], normal: &[Vec3], side: u32) -> Cell {
    let texels = (IMPOSTOR_CELL_PX * IMPOSTOR_CELL_PX) as usize;
    let mut cell = Cell {
        albedo: Vec::with_capacity(texels * 4),
        normal: Vec::with_capacity(texels * 4),
    };
    for ty in 0..IMPOSTOR_CELL_PX {
        for tx in 0..IMPOSTOR_CELL_PX {
            let mut covered = 0u32;
            let mut sum_colour = Vec3::ZERO;
            let mut sum_normal = Vec3::ZERO;
            for sy in 0..SUPERSAMPLING {
                for sx in 0..SUPERSAMPLING {
                    let x = tx * SUPERSAMPLING + sx;
                    let y = ty * SUPERSAMPLING + sy;
                    let sample = (y * side + x) as usize;
                    if depth[sample] > f32::NEG_INFINITY {
                        covered += 1;
                        sum_colour += colour[sample].truncate();
                        sum_normal += normal[sample];
                    }
                }
            }
            let unorm = |c: f32| (c.clamp(0.0, 1.0) * 255.0).round() as u8;
            if covered == 0 {
                cell.albedo.extend_from_slice(&[0; 4]);
                cell.normal.extend_from_slice(&[128, 128, 128, 0]);
                continue;
            }
            let mean = sum_colour / covered as f32;
            // Conservative: a texel any sample covers is inside, so a bone
            // or a sword thinner than a texel survives the runtime's alpha
            // test (the skeleton's limbs are about one texel wide).
            let alpha = 1.0;
            cell.albedo.extend_from_slice(&[
                unorm(linear_to_srgb(mean.x)),
                unorm(linear_to_srgb(mean.y)),
                unorm(linear_to_srgb(mean.z)),
                unorm(alpha),
            ]);
            let n = sum_normal.normalize_or(Vec3::Y) * 0.5 + Vec3::splat(0.5);
            cell.normal
                .extend_from_slice(&[unorm(n.x), unorm(n.y), unorm(n.z), 0]);
        }
    }
    cell
}

/// Renders the impostor of a baked unit `asset` (its animation and LOD 0);
/// `None` for a prop.
pub fn bake(asset: &Asset) -> Option<Impostor> {
    let animation = asset.animation.as_ref()?;
    let lod = asset.lods.first()?;
    if animation.clips.is_empty() {
        return None;
    }
    let (baked, shown) = plan_clips(&animation.clips);
    let texels = texels_f32(animation);
    let mut baked_clips: Vec<(usize, ImpostorClip)> = Vec::new();
    let mut poses: Vec<Vec<Mat4>> = Vec::new();
    for &index in &baked {
        let clip = &animation.clips[index];
        let times = frame_times(clip);
        baked_clips.push((
            index,
            ImpostorClip {
                first_frame: poses.len() as u32,
                frame_count: times.len() as u32,
                looping: clip.looping && times.len() > 1,
            },
        ));
        poses.extend(
            times
                .iter()
                .map(|&time| sample_pose(animation, &texels, clip, time)),
        );
    }
    let clips = shown
        .iter()
        .map(|&index| {
            baked_clips
                .iter()
                .find(|(baked, _)| *baked == index)
                .map(|(_, clip)| *clip)
                .unwrap_or(baked_clips[0].1)
        })
        .collect();
    let shading = Shading { asset };
    let views = IMPOSTOR_VIEWS_PER_SIDE * IMPOSTOR_VIEWS_PER_SIDE;
    let frames: Vec<Vec<PosedTriangle>> = poses
        .par_iter()
        .map(|pose| posed_triangles(lod, animation, &asset.bounds, pose))
        .collect();
    let frame_box = frame_box(&frames);
    let cells: Vec<Cell> = (0..frames.len() as u32 * views)
        .into_par_iter()
        .map(|cell| {
            let view = cell % views;
            let direction = view_direction(
                view / IMPOSTOR_VIEWS_PER_SIDE,
                view % IMPOSTOR_VIEWS_PER_SIDE,
            );
            render_cell(
                &frames[(cell / views) as usize],
                &shading,
                direction,
                frame_box,
            )
        })
        .collect();
    let mut albedo = Vec::with_capacity(cells.len() * cells[0].albedo.len());
    let mut normal = Vec::with_capacity(albedo.capacity());
    for cell in cells {
        albedo.extend_from_slice(&cell.albedo);
        normal.extend_from_slice(&cell.normal);
    }
    Some(Impostor {
        views_per_side: IMPOSTOR_VIEWS_PER_SIDE,
        cell_px: IMPOSTOR_CELL_PX,
        frame_count: poses.len() as u32,
        error: projected_error(frame_box.1, asset.bounds.sphere_radius),
        box_center: frame_box.0.to_array(),
        box_half_extent: frame_box.1.to_array(),
        clips,
        albedo,
        normal,
    })
}
