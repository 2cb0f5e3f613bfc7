//! Levels of detail, vertex-cache/overdraw/fetch optimization and quantization,
//! all with meshoptimizer.
//!
//! - LOD 0 is the source. Each further LOD simplifies every submesh (material
//!   range) of the source on its own to `ratio` of its triangles with
//!   `meshopt_simplifyWithAttributes`. Attributes: the normal, the UV (so UV
//!   seams, which are split vertices, stay put) and the vertex's displacement
//!   from bind pose in a few extreme baked poses, scaled like positions (so
//!   vertices that the skeleton moves apart, like the two sides of a joint, are
//!   not merged: this is what keeps skin weights intact).
//! - The chain: a LOD's error bound follows its ratio ([`error_bound`]), so
//!   a LOD inserted between two others leaves their meshes as they were;
//!   a LOD whose next one has nearly as many triangles is dropped
//!   (`drop_near_copies`). The raster-only LODs (`MeshLod::raster_only`,
//!   `BakeOptions::raster_lod_ratios`) then go between the two LODs their
//!   ratios fall between, where each is a step (`insert_raster_lods`);
//!   after the silhouette fit, one whose error is not below the next LOD's
//!   is dropped ([`drop_unpicked_raster_lods`]).
//! - A unit's LOD the far field may draw holds at most
//!   [`FAR_FIELD_LOD_MAX_VERTICES`], or is simplified again until it does,
//!   as far as its error bound allows.
//! - Every LOD: vertex cache order per submesh, then overdraw order (threshold
//!   1.05), then vertex fetch order, which also drops unused vertices.
//! - Quantization: position unorm16 in the bind-pose box, octahedral normal
//!   snorm16, UV f16, two 8-bit bone indices and an 8-bit weight.
//! - Silhouettes (units): a coarsest LOD that covers too little of the
//!   source's silhouette is replaced by the box-per-bone proxy, followed by
//!   the coarse proxy of [`COARSE_PROXY_BOXES`]
//!   ([`fit_coarsest_to_silhouette`], `proxy.rs`). Props: the slab
//!   proxy of [`PROP_PROXY_BOXES`] follows meshopt's coarsest LOD
//!   ([`fit_prop_proxy`]). For both, the meshopt LODs after LOD 0 are then
//!   inflated along their normals to cover it ([`inflate_to_silhouette`]).

use crate::import::SourceModel;
use crate::two_bone::TwoBone;
use glam::{Vec2, Vec3};
use horde_asset::{Bounds, MeshLod, PackedVertex, Submesh};

mod silhouette_fit;

pub use silhouette_fit::{
    fit_coarsest_to_silhouette, fit_prop_proxy, inflate_to_silhouette, COARSE_PROXY_BOXES,
    MAX_INFLATION, MAX_PROP_PROXY_COVERAGE, MIN_KEPT_COVERAGE, MIN_SILHOUETTE_COVERAGE,
    PROP_PROXY_BOXES,
};

/// Attribute weights: normal xyz, uv, then displacement components.
const NORMAL_WEIGHT: f32 = 0.5;
const UV_WEIGHT: f32 = 1.0;
const DISPLACEMENT_WEIGHT: f32 = 1.0;

/// One LOD with, for each of its vertices, the source vertex it came from.
pub struct BuiltLod {
    /// The quantized LOD.
    pub lod: MeshLod,
    /// Source vertex of each LOD vertex.
    pub source_vertex: Vec<u32>,
}

/// Octahedral encoding of a unit vector into two snorm16 values.
pub fn octahedral(normal: Vec3) -> [i16; 2] {
    let n = normal / (normal.x.abs() + normal.y.abs() + normal.z.abs()).max(1e-20);
    let folded = if n.z >= 0.0 {
        Vec2::new(n.x, n.y)
    } else {
        let sign = |v: f32| if v >= 0.0 { 1.0 } else { -1.0 };
        Vec2::new((1.0 - n.y.abs()) * sign(n.x), (1.0 - n.x.abs()) * sign(n.y))
    };
    [folded.x, folded.y].map(|c| (c.clamp(-1.0, 1.0) * 32767.0).round() as i16)
}

/// A position as unorm16 in the quantization box (`PackedVertex::position`).
fn quantize_position(bounds: &Bounds, position: Vec3) -> [u16; 4] {
    let min = Vec3::from(bounds.quant_min);
    let extent = (Vec3::from(bounds.quant_max) - min).max(Vec3::splat(f32::MIN_POSITIVE));
    let unorm = ((position - min) / extent).clamp(Vec3::ZERO, Vec3::ONE);
    let [x, y, z] = unorm.to_array().map(|c| (c * 65535.0).round() as u16);
    [x, y, z, 0]
}

/// Packs a vertex's attributes.
fn pack_vertex(
    bounds: &Bounds,
    position: Vec3,
    normal: Vec3,
    uv: Vec2,
    two_bone: TwoBone,
) -> PackedVertex {
    let uv = uv.to_array().map(|c| half::f16::from_f32(c).to_bits());
    PackedVertex {
        position: quantize_position(bounds, position),
        normal: octahedral(normal),
        uv,
        bones: two_bone.bones.map(|bone| bone as u8),
        weight: two_bone.weight,
        pad: 0,
    }
}

/// Packs a source vertex.
fn pack(model: &SourceModel, skin: &[TwoBone], bounds: &Bounds, vertex: usize) -> PackedVertex {
    pack_vertex(
        bounds,
        model.positions[vertex],
        model.normals[vertex],
        model.uvs[vertex],
        skin[vertex],
    )
}

/// The model's size that relative errors are fractions of (meshopt's
/// scale): the largest side of the quantization box.
fn model_size(bounds: &Bounds) -> f32 {
    (Vec3::from(bounds.quant_max) - Vec3::from(bounds.quant_min))
        .max_element()
        .max(1e-6)
}

/// Simplification attributes of every vertex: normal, UV, displacements.
fn attributes(
    model: &SourceModel,
    displacements: &[Vec<Vec3>],
    scale: f32,
) -> (Vec<f32>, Vec<f32>, usize) {
    let stride = 5 + 3 * displacements.len();
    let mut weights = vec![
        NORMAL_WEIGHT,
        NORMAL_WEIGHT,
        NORMAL_WEIGHT,
        UV_WEIGHT,
        UV_WEIGHT,
    ];
    weights.extend(std::iter::repeat_n(
        DISPLACEMENT_WEIGHT,
        3 * displacements.len(),
    ));
    let mut values = Vec::with_capacity(stride * model.positions.len());
    for vertex in 0..model.positions.len() {
        values.extend_from_slice(&model.normals[vertex].to_array());
        values.extend_from_slice(&model.uvs[vertex].to_array());
        for pose in displacements {
            values.extend_from_slice(&(pose[vertex] / scale).to_array());
        }
    }
    (values, weights, stride)
}

/// Vertex fetch order: vertices numbered by first use in the index buffer,
/// unused ones dropped (meshopt's `optimizeVertexFetchRemap` rule, done here
/// because the crate's wrapper truncates the remap table to the used count,
/// which loses the entries of higher old indices). Returns old-to-new and
/// new-to-old maps.
fn fetch_order(indices: &[u32], vertex_count: usize) -> (Vec<u32>, Vec<u32>) {
    let mut remap = vec![u32::MAX; vertex_count];
    let mut source_vertex = Vec::new();
    for &index in indices {
        let slot = &mut remap[index as usize];
        if *slot == u32::MAX {
            *slot = source_vertex.len() as u32;
            source_vertex.push(index);
        }
    }
    (remap, source_vertex)
}

/// The largest error meshopt may introduce in the LOD of triangle ratio
/// `ratio`: `target_error` down to ratio 0.5, doubled once for each factor
/// of 3, or part of one, by which the ratio falls below 0.5 (0.3: ×2, 0.2:
/// ×2, 0.14: ×4, 0.1: ×4, 0.03: ×8). A coarser LOD may stray farther
/// because the renderer picks LODs by projected error, so it is only seen
/// from farther away, and a fixed bound would stop the last LODs at the
/// same triangle count. The bound follows
/// the ratio, not the LOD's place in the chain, so that a LOD inserted
/// between two others leaves their bounds (and meshes) as they were.
pub fn error_bound(target_error: f32, ratio: f32) -> f32 {
    // The small slack keeps a ratio of exactly 0.5 / 3^k on its own step
    // when the logarithm rounds up.
    let steps = ((0.5 / ratio).ln() / 3f32.ln() - 1e-4).ceil().max(0.0);
    target_error * 2f32.powf(steps)
}

/// A unit LOD the far field may draw: its reach (`1 / error` pixels of the
/// bounding sphere across at the default threshold of 1 px) is within the
/// far field's largest size (the budget's, `BUDGET_MAX_FAR_FIELD_PX` in the
/// engine). Such a LOD must fit the far field's mid-size pipeline: the
/// far field draws a LOD it cannot hold as the next coarser one (the
/// generated `knight_3`'s 0.3 LOD had 1,737 vertices, so its units of 17 to
/// 100 px drew the 0.1 LOD, at up to 6 px of error).
pub const FAR_FIELD_LOD_REACH_PX: f32 = 192.0;
/// The most vertices a unit LOD within [`FAR_FIELD_LOD_REACH_PX`] may
/// have: what the far field's mid-size pipeline holds in 48 KiB of shared
/// memory, what NVIDIA's Vulkan drivers give a workgroup (the H100's and
/// H200's; the engine's `mid_vertex_capacity(49152)`, a test checks the
/// two agree).
pub const FAR_FIELD_LOD_MAX_VERTICES: usize = 1700;
/// Simplifications tried to bring a LOD within [`FAR_FIELD_LOD_MAX_VERTICES`].
const FAR_FIELD_FIT_ATTEMPTS: u32 = 8;

/// Whether the far field may draw a unit LOD of simplification error
/// `error` (LOD 0, error 0, is never its).
pub fn far_field_may_draw(error: f32) -> bool {
    error > 0.0 && error * FAR_FIELD_LOD_REACH_PX > 1.0
}

/// The LODs a bake asks for.
#[derive(Clone, Copy, Debug)]
pub struct LodChain<'a> {
    /// Triangle ratio of each LOD, ratio 1 first (`BakeOptions::lod_ratios`).
    pub ratios: &'a [f32],
    /// Ratios of the raster-only LODs (`BakeOptions::raster_lod_ratios`).
    pub raster_ratios: &'a [f32],
    /// LOD 1's error bound (`BakeOptions::lod_target_error`).
    pub target_error: f32,
}

/// Builds the LODs of `chain` (ratio 1 first). `displacements` holds, per
/// chosen pose, every vertex's offset from its bind position. A skinned
/// unit's (`unit`) LOD that the far field may draw ([`far_field_may_draw`])
/// and has more than [`FAR_FIELD_LOD_MAX_VERTICES`] is simplified again to
/// fewer triangles, within the same error bound, until it fits
/// (`fit_far_field`; where the bound stops it above that, it stays). Then
/// each raster-only LOD goes between the two LODs its ratio falls between
/// (`insert_raster_lods`), so the others are the LODs of the chain without
/// them, byte for byte.
pub fn build(
    model: &SourceModel,
    skin: &[TwoBone],
    bounds: &Bounds,
    chain: LodChain,
    displacements: &[Vec<Vec3>],
    unit: bool,
) -> Vec<BuiltLod> {
    let LodChain {
        ratios,
        raster_ratios,
        target_error,
    } = chain;
    let vertex_count = model.positions.len();
    let position_bytes: &[u8] = bytemuck::cast_slice(&model.positions);
    let stride = size_of::<Vec3>();
    let Ok(adapter) = meshopt::VertexDataAdapter::new(position_bytes, stride, 0) else {
        return Vec::new();
    };
    let scale = model_size(bounds);
    let (attribute_values, attribute_weights, attribute_stride) =
        attributes(model, displacements, scale);
    let unlocked = vec![false; vertex_count];
    // The LOD of triangle ratio `ratio` within the error bound of `bound_ratio`.
    let build_lod = |ratio: f32, bound_ratio: f32| {
        let mut indices = Vec::new();
        let mut submeshes = Vec::new();
        let mut lod_error = 0.0f32;
        for group in &model.groups {
            let level_error = error_bound(target_error, bound_ratio);
            let simplified = if ratio >= 1.0 {
                group.indices.clone()
            } else {
                let target =
                    (((group.indices.len() / 3) as f32 * ratio).round() as usize * 3).max(3);
                let simplify = |options: meshopt::SimplifyOptions, level_error: f32| {
                    let mut error = 0.0;
                    let result = meshopt::simplify_with_attributes_and_locks(
                        &group.indices,
                        &adapter,
                        &attribute_values,
                        &attribute_weights,
                        attribute_stride * size_of::<f32>(),
                        &unlocked,
                        target,
                        level_error,
                        options,
                        Some(&mut error),
                    );
                    (result, error)
                };
                // Pruning drops small disconnected parts (rivets, buckles) once
                // they are below the error bound. Texture-atlas models have so
                // many UV seams that the target may be out of reach; only then
                // are collapses across seams allowed (the cost is texture swim
                // at a distance, and it shows in the recorded error).
                // A part can collapse to nothing at a large bound: halve the
                // bound until something is left, down to LOD 1's.
                let mut bound = level_error;
                let (mut result, mut error) = simplify(meshopt::SimplifyOptions::Prune, bound);
                while result.is_empty() && bound > target_error {
                    bound = (bound / 2.0).max(target_error);
                    (result, error) = simplify(meshopt::SimplifyOptions::Prune, bound);
                }
                if result.len() > target * 3 / 2 {
                    let (permissive, permissive_error) = simplify(
                        meshopt::SimplifyOptions::Prune | meshopt::SimplifyOptions::Permissive,
                        bound,
                    );
                    if permissive.len() < result.len() {
                        (result, error) = (permissive, permissive_error);
                    }
                }
                lod_error = lod_error.max(error);
                result
            };
            let mut optimized = meshopt::optimize_vertex_cache(&simplified, vertex_count);
            meshopt::optimize_overdraw_in_place(&mut optimized, &adapter, 1.05);
            submeshes.push(Submesh {
                first_index: indices.len() as u32,
                index_count: optimized.len() as u32,
                material: group.material,
            });
            indices.extend(optimized);
        }
        submeshes.retain(|submesh| submesh.index_count > 0);
        let (remap, source_vertex) = fetch_order(&indices, vertex_count);
        for index in &mut indices {
            *index = remap[*index as usize];
        }
        let vertices = source_vertex
            .iter()
            .map(|&old| pack(model, skin, bounds, old as usize))
            .collect();
        BuiltLod {
            lod: MeshLod {
                vertices,
                indices,
                submeshes,
                error: lod_error,
                box_proxy: false,
                raster_only: false,
            },
            source_vertex,
        }
    };
    let mut lods = Vec::with_capacity(ratios.len());
    for (level, &ratio) in ratios.iter().enumerate() {
        let ratio = if level == 0 { 1.0 } else { ratio };
        let lod = build_lod(ratio, ratio);
        let too_large = unit
            && lod.source_vertex.len() > FAR_FIELD_LOD_MAX_VERTICES
            && far_field_may_draw(lod.lod.error);
        let fitted = if too_large {
            fit_far_field(&build_lod, ratio, lod.source_vertex.len())
        } else {
            None
        };
        lods.push((ratio, fitted.unwrap_or(lod)));
    }
    drop_near_copies(&mut lods);
    insert_raster_lods(&mut lods, raster_ratios, |ratio| build_lod(ratio, ratio));
    lods.into_iter().map(|(_, lod)| lod).collect()
}

/// Inserts a raster-only LOD (`MeshLod::raster_only`) of each of
/// `raster_ratios` into `lods` (ratio and LOD, ratio 1 first), between the
/// two LODs whose ratios it falls between, where it is a step from the
/// finer one and the coarser one a step from it ([`is_step`]). A ratio
/// outside the chain refines no step and is left out.
fn insert_raster_lods(
    lods: &mut Vec<(f32, BuiltLod)>,
    raster_ratios: &[f32],
    build_lod: impl Fn(f32) -> BuiltLod,
) {
    let mut ratios = raster_ratios.to_vec();
    ratios.sort_by(|a, b| b.total_cmp(a));
    for ratio in ratios {
        let Some(coarser) = lods
            .iter()
            .position(|&(chain_ratio, _)| chain_ratio < ratio)
        else {
            continue;
        };
        if coarser == 0 || lods[coarser - 1].0 <= ratio {
            continue;
        }
        let mut lod = build_lod(ratio);
        lod.lod.raster_only = true;
        if is_step(&lods[coarser - 1].1, &lod) && is_step(&lod, &lods[coarser].1) {
            lods.insert(coarser, (ratio, lod));
        }
    }
}

/// Drops each raster-only LOD whose error is not below the next kept
/// LOD's: the cull takes the coarsest LOD whose error fits, so it would
/// never draw it (the generated skeleton's 0.07 LOD has the error of the
/// box proxy after it, which the silhouette fit sets).
pub fn drop_unpicked_raster_lods(lods: &mut Vec<BuiltLod>) {
    let mut next_error = f32::INFINITY;
    let mut kept = vec![true; lods.len()];
    for (level, lod) in lods.iter().enumerate().rev() {
        if lod.lod.raster_only && lod.lod.error >= next_error {
            kept[level] = false;
        } else {
            next_error = lod.lod.error;
        }
    }
    let mut kept = kept.into_iter();
    lods.retain(|_| kept.next().unwrap_or(true));
}

/// The LOD of `ratio` (which has `vertices`, too many) simplified again
/// within `ratio`'s error bound to at most [`FAR_FIELD_LOD_MAX_VERTICES`];
/// `None` where the bound stops it above that (then the LOD stays as it
/// is, and the far field draws the next coarser LOD in its place: the
/// KayKit knight's 0.5 LOD, 4,333 vertices, comes down to 1,879 at most).
fn fit_far_field(
    build_lod: &impl Fn(f32, f32) -> BuiltLod,
    ratio: f32,
    mut vertices: usize,
) -> Option<BuiltLod> {
    let mut fitted_ratio = ratio;
    for _ in 0..FAR_FIELD_FIT_ATTEMPTS {
        // Vertices fall about as fast as triangles; aim a little below.
        fitted_ratio *= 0.98 * FAR_FIELD_LOD_MAX_VERTICES as f32 / vertices as f32;
        let trial = build_lod(fitted_ratio, ratio);
        let trial_vertices = trial.source_vertex.len();
        if trial_vertices <= FAR_FIELD_LOD_MAX_VERTICES {
            return Some(trial);
        }
        if trial_vertices >= vertices {
            return None;
        }
        vertices = trial_vertices;
    }
    None
}

/// A LOD keeps less than this share of the triangles of the LOD before it
/// ([`is_step`]); one with more is dropped by [`drop_near_copies`].
const MAX_KEPT_TRIANGLE_SHARE: f32 = 0.95;

/// Whether `coarser` is a step from `finer`: under
/// [`MAX_KEPT_TRIANGLE_SHARE`] of its triangles.
fn is_step(finer: &BuiltLod, coarser: &BuiltLod) -> bool {
    (coarser.lod.indices.len() as f32) < MAX_KEPT_TRIANGLE_SHARE * finer.lod.indices.len() as f32
}

/// Drops each simplified LOD whose next LOD has nearly as many triangles:
/// where meshopt stops at the same collapses for two ratios (a fence's flat
/// boards, a tree's trunk), the finer of the two is a copy that the
/// renderer would pass over, since the coarser one's error is no larger.
fn drop_near_copies(lods: &mut Vec<(f32, BuiltLod)>) {
    let kept: Vec<bool> = (0..lods.len())
        .map(|level| {
            level == 0
                || lods
                    .get(level + 1)
                    .is_none_or(|(_, next)| is_step(&lods[level].1, next))
        })
        .collect();
    let mut kept = kept.into_iter();
    lods.retain(|_| kept.next().unwrap_or(true));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lod(error: f32, raster_only: bool) -> BuiltLod {
        BuiltLod {
            lod: MeshLod {
                vertices: Vec::new(),
                indices: Vec::new(),
                submeshes: Vec::new(),
                error,
                box_proxy: false,
                raster_only,
            },
            source_vertex: Vec::new(),
        }
    }

    /// A raster-only LOD is kept only where its error is below the next
    /// kept LOD's, so that the cull can pick it: the second of two raster
    /// LODs goes, and then the first, whose error is now above the next.
    #[test]
    fn raster_only_lods_the_cull_would_never_pick_are_dropped() {
        let mut lods = vec![
            lod(0.0, false),
            lod(0.01, true),
            lod(0.02, false),
            lod(0.058, true),
            lod(0.06, true),
            lod(0.055, false),
            lod(0.07, true),
        ];
        drop_unpicked_raster_lods(&mut lods);
        let kept: Vec<(f32, bool)> = lods
            .iter()
            .map(|built| (built.lod.error, built.lod.raster_only))
            .collect();
        assert_eq!(
            kept,
            [
                (0.0, false),
                (0.01, true),
                (0.02, false),
                (0.055, false),
                (0.07, true)
            ]
        );
    }
}
