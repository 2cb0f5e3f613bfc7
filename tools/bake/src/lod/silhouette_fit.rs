//! The coarse end of a LOD chain fitted to the source's silhouette
//! (`silhouette.rs`): a unit's coarsest LOD replaced by its box proxies
//! (`proxy.rs`), a prop's slab proxy appended, and the meshopt LODs
//! inflated along their normals to cover the outline. The chain itself is
//! built by the parent module.

use super::{model_size, pack_vertex, quantize_position, BuiltLod};
use crate::import::SourceModel;
use crate::proxy::{self, Proxy};
use crate::silhouette::{least_covering, Shape, Silhouette};
use crate::two_bone::TwoBone;
use glam::Vec3;
use horde_asset::{Bounds, MeshLod, Submesh};

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
