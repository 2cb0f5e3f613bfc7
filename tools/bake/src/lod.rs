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
use crate::proxy::{self, Proxy};
use crate::silhouette::{least_covering, Shape, Silhouette};
use crate::two_bone::TwoBone;
use glam::{Vec2, Vec3};
use horde_asset::{Bounds, MeshLod, PackedVertex, Submesh};

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

/// Silhouette coverage (`silhouette.rs`) below which the coarsest LOD of a
/// skinned unit is replaced by the box-per-bone proxy.
pub const MIN_SILHOUETTE_COVERAGE: f32 = 0.95;
/// Silhouette coverage below which a unit's coarsest LOD that no cheaper
/// proxy can replace (a low-poly model with many bones) is dropped: the
/// LOD before it, drawn where it would have been, thins the crowd less.
pub const MIN_KEPT_COVERAGE: f32 = 0.9;

/// The most a meshopt LOD is inflated along its normals to cover the
/// source's silhouette ([`inflate_to_silhouette`]), relative to the
/// model's size: 2 %, under half the knight's LOD 3 error (5.4 %).
pub const MAX_INFLATION: f32 = 0.02;

/// The model's size that relative errors are fractions of (meshopt's
/// scale): the largest side of the quantization box.
fn model_size(bounds: &Bounds) -> f32 {
    (Vec3::from(bounds.quant_max) - Vec3::from(bounds.quant_min))
        .max_element()
        .max(1e-6)
}

/// How much of `silhouette` (the source's) `lod` covers with its vertices
/// at their source positions moved `distance` along their normals, within
/// the quantization box; and those positions.
fn inflated_coverage(
    silhouette: &Silhouette,
    model: &SourceModel,
    bounds: &Bounds,
    lod: &BuiltLod,
    distance: f32,
) -> (f32, Vec<Vec3>) {
    let (low, high) = (Vec3::from(bounds.quant_min), Vec3::from(bounds.quant_max));
    let positions: Vec<Vec3> = lod
        .source_vertex
        .iter()
        .map(|&v| {
            let v = v as usize;
            (model.positions[v] + model.normals[v] * distance).clamp(low, high)
        })
        .collect();
    let coverage = silhouette.coverage(Shape {
        positions: &positions,
        indices: &lod.lod.indices,
    });
    (coverage, positions)
}

/// Inflates the meshopt LODs after LOD 0 (not the box proxies) along their
/// normals until each covers the source's silhouette, by at most
/// [`MAX_INFLATION`]: simplification collapses thin parts (the generated
/// knight's 0.1 LOD covered about 85 %), and a crowd drawn at those LODs,
/// the units from about 20 to 100 pixels, looked thinner than its
/// reference. The LOD keeps meshopt's error: the offset moves its outline
/// towards the source's, on average, rather than away from it.
pub fn inflate_to_silhouette(
    lods: &mut [BuiltLod],
    model: &SourceModel,
    bounds: &Bounds,
    silhouette: &Silhouette,
) {
    for (level, lod) in lods.iter_mut().enumerate().skip(1) {
        if lod.lod.box_proxy {
            continue;
        }
        let coverage =
            |distance: f32| inflated_coverage(silhouette, model, bounds, lod, distance).0;
        let before = coverage(0.0);
        if before >= 1.0 {
            continue;
        }
        let max = MAX_INFLATION * model_size(bounds);
        let distance = least_covering(0.0, max, INFLATION_STEPS, coverage);
        let (after, positions) = inflated_coverage(silhouette, model, bounds, lod, distance);
        log::info!(
            "LOD {level}: {before:.3} of the source's silhouette, {after:.3} inflated by {distance:.4}"
        );
        for (vertex, position) in lod.lod.vertices.iter_mut().zip(positions) {
            vertex.position = quantize_position(bounds, position);
        }
    }
}

/// Bisection steps of [`inflate_to_silhouette`].
const INFLATION_STEPS: u32 = 12;

/// The most boxes of the coarse proxy (`proxy::coarse_bone_boxes`),
/// the LOD after the box-per-bone proxy. 80 vertices, so the far field
/// takes a full batch of `FAR_FIELD_BATCH_UNITS` (8) such units into its
/// `FAR_FIELD_MAX_VERTICES` (672) of shared memory, where it took four of
/// the generated knight's 21 boxes (168 vertices): the pass is bound by
/// each batch's chain of reads, and a million-unit overview draws nearly
/// every unit at the coarsest LOD, a few pixels tall.
pub const COARSE_PROXY_BOXES: usize = 10;

/// Fits the coarsest LODs of a skinned unit to its silhouette
/// (`silhouette.rs`, with the proxies of `proxy.rs`). When meshopt's coarsest of several LODs covers less
/// than [`MIN_SILHOUETTE_COVERAGE`] of the source's silhouette, the
/// box-per-bone proxy replaces it if it has fewer vertices than the LOD
/// before it, and the coarse proxy of [`COARSE_PROXY_BOXES`] follows it
/// where the unit has more boxes than that and its boxes grown about their
/// centres still cover the source's silhouette; otherwise coarsest LODs under
/// [`MIN_KEPT_COVERAGE`] are dropped (LOD 0 stays). Returns the coarsest
/// LOD's coverage.
pub fn fit_coarsest_to_silhouette(
    lods: &mut Vec<BuiltLod>,
    model: &SourceModel,
    skin: &[TwoBone],
    bounds: &Bounds,
    silhouette: &Silhouette,
) -> Option<f32> {
    let (coverage, replaced) = replace_coarsest_with_proxy(lods, model, skin, bounds, silhouette)?;
    if replaced {
        let coarse = proxy::coarse_bone_boxes(model, skin, bounds, silhouette, COARSE_PROXY_BOXES);
        let fits = |proxy: &Proxy| proxy.coverage >= MIN_SILHOUETTE_COVERAGE;
        if let (Some(coarse), Some(before)) = (coarse.filter(fits), lods.last()) {
            let error = unit_proxy_error(&coarse, model, bounds, before);
            lods.push(proxy_lod(&coarse, bounds, error));
            return Some(coarse.coverage);
        }
    }
    if coverage >= MIN_KEPT_COVERAGE {
        return Some(coverage);
    }
    let mut coverage = coverage;
    while lods.len() > 1 && coverage < MIN_KEPT_COVERAGE {
        lods.pop();
        coverage = inflated_coverage(silhouette, model, bounds, lods.last()?, 0.0).0;
    }
    Some(coverage)
}

/// Replaces the coarsest of several LODs of a skinned unit with the
/// box-per-bone proxy (`proxy.rs`) when meshopt's covers less than
/// [`MIN_SILHOUETTE_COVERAGE`] of the source's silhouette and the proxy has
/// fewer vertices than the LOD before it. Returns the coarsest LOD's
/// coverage, kept or replaced, and whether it was replaced.
fn replace_coarsest_with_proxy(
    lods: &mut [BuiltLod],
    model: &SourceModel,
    skin: &[TwoBone],
    bounds: &Bounds,
    silhouette: &Silhouette,
) -> Option<(f32, bool)> {
    let [finer @ .., before, coarsest] = lods else {
        return None;
    };
    let coverage = inflated_coverage(silhouette, model, bounds, coarsest, 0.0).0;
    if coverage >= MIN_SILHOUETTE_COVERAGE {
        return Some((coverage, false));
    }
    let Some(proxy) = proxy::bone_boxes(model, skin, bounds, silhouette) else {
        return Some((coverage, false));
    };
    if proxy.positions.len() >= before.lod.vertices.len() {
        return Some((coverage, false));
    }
    // Its error follows the LOD before it that is not raster only, so that
    // the far field's chain is what it is without the raster's LODs.
    let error_before = std::iter::once(&*before)
        .chain(finer.iter().rev())
        .find(|lod| !lod.lod.raster_only)
        .unwrap_or(before);
    let error = unit_proxy_error(&proxy, model, bounds, error_before);
    *coarsest = proxy_lod(&proxy, bounds, error);
    Some((proxy.coverage, true))
}

/// Boxes (slabs) of a prop's slab proxy (`proxy::slab_boxes`): 32
/// vertices. Of 3 to 6, 4 is where the generated tree stops gaining much:
/// its `Proxy::slab_distance` from the source is 16.3 % of its size with
/// 3 slabs, 11.0 % with 4, 9.5 % with 5 and 8.9 % with 6, and the other
/// props change by less. The banner, whose coarsest LOD has 61 vertices,
/// gets none.
pub const PROP_PROXY_BOXES: usize = 4;
/// The most a prop's slab proxy may cover of its source's silhouette: the
/// fit stops at the least scale that covers it all, so more is a jump in
/// coverage that a crowd of props would show as thicker.
pub const MAX_PROP_PROXY_COVERAGE: f32 = 1.1;
/// Appends a prop's slab proxy of [`PROP_PROXY_BOXES`]
/// (`proxy::slab_boxes`) as its coarsest LOD, where its coverage of
/// the source's silhouette is within [`MIN_SILHOUETTE_COVERAGE`] and
/// [`MAX_PROP_PROXY_COVERAGE`], the coarsest LOD has at least twice its
/// vertices (less would not pay for the blockier shape) and the format has
/// a LOD slot left. Its error is its `Proxy::slab_distance` relative to
/// the model's size like meshopt's, at least the LOD before's: the
/// geometric bound the cull projects holds for 95 % of its surface, and
/// the errors never decrease. Where that distance is under the LOD
/// before's error the two tie, and the cull, which takes the coarsest LOD
/// whose error fits, draws the proxy wherever it drew that LOD. Returns
/// the proxy's coverage and error when it is appended.
pub fn fit_prop_proxy(
    lods: &mut Vec<BuiltLod>,
    model: &SourceModel,
    bounds: &Bounds,
    silhouette: &Silhouette,
) -> Option<(f32, f32)> {
    let before = lods.last()?;
    if lods.len() >= horde_asset::MAX_LODS {
        return None;
    }
    let proxy = proxy::slab_boxes(model, bounds, silhouette, PROP_PROXY_BOXES)?;
    let covers = (MIN_SILHOUETTE_COVERAGE..=MAX_PROP_PROXY_COVERAGE).contains(&proxy.coverage);
    if !covers || before.lod.vertices.len() < 2 * proxy.positions.len() {
        return None;
    }
    let distance = proxy.slab_distance(model)? / model_size(bounds);
    let error = before.lod.error.max(distance);
    lods.push(proxy_lod(&proxy, bounds, error));
    Some((proxy.coverage, error))
}

/// The error of a unit's box proxy that follows `before` (the LOD before it
/// that is not raster only): the larger of twice `before`'s (the bound each
/// meshopt LOD may double) and the RMS distance of its corners from the
/// source vertices they take their UVs from, relative to the model's size
/// like meshopt's, so the cull picks it only where a meshopt LOD as coarse
/// would have been picked.
fn unit_proxy_error(proxy: &Proxy, model: &SourceModel, bounds: &Bounds, before: &BuiltLod) -> f32 {
    let squared: f32 = proxy
        .positions
        .iter()
        .zip(&proxy.nearest)
        .map(|(p, &v)| p.distance_squared(model.positions[v as usize]))
        .sum();
    let rms = (squared / proxy.positions.len().max(1) as f32).sqrt() / model_size(bounds);
    (2.0 * before.lod.error).max(rms)
}

/// The LOD of a proxy (`proxy.rs`) with simplification error `error`,
/// rigidly skinned.
fn proxy_lod(proxy: &Proxy, bounds: &Bounds, error: f32) -> BuiltLod {
    let mut indices = Vec::new();
    let mut submeshes = Vec::new();
    for (material, group) in &proxy.groups {
        submeshes.push(Submesh {
            first_index: indices.len() as u32,
            index_count: group.len() as u32,
            material: *material,
        });
        indices.extend(group);
    }
    let vertices = (0..proxy.positions.len())
        .map(|v| {
            let two_bone = TwoBone {
                bones: [proxy.bones[v]; 2],
                weight: 255,
            };
            pack_vertex(
                bounds,
                proxy.positions[v],
                proxy.normals[v],
                proxy.uvs[v],
                two_bone,
            )
        })
        .collect();
    BuiltLod {
        lod: MeshLod {
            vertices,
            indices,
            submeshes,
            error,
            box_proxy: true,
            raster_only: false,
        },
        source_vertex: proxy.nearest.clone(),
    }
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
/// two LODs whose ratios it falls between, where it is a step: under
/// [`MAX_KEPT_TRIANGLE_SHARE`] of the finer one's triangles, and the
/// coarser one under that share of its own. A ratio outside the chain
/// refines no step and is left out.
fn insert_raster_lods(
    lods: &mut Vec<(f32, BuiltLod)>,
    raster_ratios: &[f32],
    build_lod: impl Fn(f32) -> BuiltLod,
) {
    let mut ratios = raster_ratios.to_vec();
    ratios.sort_by(|a, b| b.total_cmp(a));
    let triangles = |lod: &BuiltLod| lod.lod.indices.len() as f32 / 3.0;
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
        let steps = triangles(&lod) < MAX_KEPT_TRIANGLE_SHARE * triangles(&lods[coarser - 1].1)
            && triangles(&lods[coarser].1) < MAX_KEPT_TRIANGLE_SHARE * triangles(&lod);
        if steps {
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

/// A LOD keeps at most this share of the triangles of the LOD before it;
/// one with more is dropped by [`drop_near_copies`].
const MAX_KEPT_TRIANGLE_SHARE: f32 = 0.95;

/// Drops each simplified LOD whose next LOD has nearly as many triangles:
/// where meshopt stops at the same collapses for two ratios (a fence's flat
/// boards, a tree's trunk), the finer of the two is a copy that the
/// renderer would pass over, since the coarser one's error is no larger.
fn drop_near_copies(lods: &mut Vec<(f32, BuiltLod)>) {
    let triangles: Vec<usize> = lods.iter().map(|(_, lod)| lod.lod.indices.len()).collect();
    let mut level = 0;
    lods.retain(|_| {
        let keep = level == 0
            || triangles.get(level + 1).is_none_or(|&next| {
                (next as f32) < MAX_KEPT_TRIANGLE_SHARE * triangles[level] as f32
            });
        level += 1;
        keep
    });
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
