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
//! - Every LOD: vertex cache order per submesh, then overdraw order (threshold
//!   1.05), then vertex fetch order, which also drops unused vertices.
//! - Quantization: position unorm16 in the bind-pose box, octahedral normal
//!   snorm16, UV f16, two 8-bit bone indices and an 8-bit weight.

use crate::import::SourceModel;
use crate::silhouette;
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

/// Packs a vertex's attributes.
fn pack_vertex(
    bounds: &Bounds,
    position: Vec3,
    normal: Vec3,
    uv: Vec2,
    two_bone: TwoBone,
) -> PackedVertex {
    let min = Vec3::from(bounds.quant_min);
    let extent = (Vec3::from(bounds.quant_max) - min).max(Vec3::splat(f32::MIN_POSITIVE));
    let unorm = ((position - min) / extent).clamp(Vec3::ZERO, Vec3::ONE);
    let position = unorm.to_array().map(|c| (c * 65535.0).round() as u16);
    let uv = uv.to_array().map(|c| half::f16::from_f32(c).to_bits());
    PackedVertex {
        position: [position[0], position[1], position[2], 0],
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

/// The silhouette coverage of `lod` (packed) over the source's.
pub fn silhouette_coverage(model: &SourceModel, bounds: &Bounds, lod: &BuiltLod) -> f32 {
    let positions: Vec<Vec3> = lod
        .source_vertex
        .iter()
        .map(|&v| model.positions[v as usize])
        .collect();
    let source_indices: Vec<u32> = model
        .groups
        .iter()
        .flat_map(|group| group.indices.iter().copied())
        .collect();
    silhouette::coverage_ratio(
        silhouette::Shape {
            positions: &positions,
            indices: &lod.lod.indices,
        },
        silhouette::Shape {
            positions: &model.positions,
            indices: &source_indices,
        },
        Vec3::from(bounds.sphere_center),
        bounds.sphere_radius,
    )
}

/// Fits the coarsest LODs of a skinned unit to its silhouette
/// (`silhouette.rs`). When meshopt's coarsest of several LODs covers less
/// than [`MIN_SILHOUETTE_COVERAGE`] of the source's silhouette, the
/// box-per-bone proxy replaces it if it has fewer vertices than the LOD
/// before it; otherwise coarsest LODs under [`MIN_KEPT_COVERAGE`] are
/// dropped (LOD 0 stays). Returns the coarsest LOD's coverage.
pub fn fit_coarsest_to_silhouette(
    lods: &mut Vec<BuiltLod>,
    model: &SourceModel,
    skin: &[TwoBone],
    bounds: &Bounds,
) -> Option<f32> {
    let coverage = replace_coarsest_with_proxy(lods, model, skin, bounds)?;
    if coverage >= MIN_KEPT_COVERAGE {
        return Some(coverage);
    }
    let mut coverage = coverage;
    while lods.len() > 1 && coverage < MIN_KEPT_COVERAGE {
        lods.pop();
        coverage = silhouette_coverage(model, bounds, lods.last()?);
    }
    Some(coverage)
}

/// Replaces the coarsest of several LODs of a skinned unit with the
/// box-per-bone proxy (`silhouette.rs`) when meshopt's covers less than
/// [`MIN_SILHOUETTE_COVERAGE`] of the source's silhouette and the proxy has
/// fewer vertices than the LOD before it. Its error is the larger of twice
/// the LOD before it's (the bound each meshopt LOD may double) and the RMS
/// distance of its corners from the source vertices they take their UVs
/// from, relative to the model's size like meshopt's, so the cull picks it
/// only where the meshopt LOD it replaces would have been picked. Returns
/// the coarsest LOD's coverage, kept or replaced.
fn replace_coarsest_with_proxy(
    lods: &mut [BuiltLod],
    model: &SourceModel,
    skin: &[TwoBone],
    bounds: &Bounds,
) -> Option<f32> {
    let [.., before, coarsest] = lods else {
        return None;
    };
    let coverage = silhouette_coverage(model, bounds, coarsest);
    if coverage >= MIN_SILHOUETTE_COVERAGE {
        return Some(coverage);
    }
    let center = Vec3::from(bounds.sphere_center);
    let Some(proxy) = silhouette::bone_boxes(model, skin, center, bounds.sphere_radius) else {
        return Some(coverage);
    };
    if proxy.positions.len() >= before.lod.vertices.len() {
        return Some(coverage);
    }
    let scale = (Vec3::from(bounds.quant_max) - Vec3::from(bounds.quant_min))
        .max_element()
        .max(1e-6);
    let squared: f32 = proxy
        .positions
        .iter()
        .zip(&proxy.nearest)
        .map(|(p, &v)| p.distance_squared(model.positions[v as usize]))
        .sum();
    let rms = (squared / proxy.positions.len().max(1) as f32).sqrt() / scale;
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
    *coarsest = BuiltLod {
        lod: MeshLod {
            vertices,
            indices,
            submeshes,
            error: (2.0 * before.lod.error).max(rms),
        },
        source_vertex: proxy.nearest.clone(),
    };
    Some(proxy.coverage)
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

/// Builds `ratios.len()` LODs (ratio 1 first). `displacements` holds, per
/// chosen pose, every vertex's offset from its bind position.
pub fn build(
    model: &SourceModel,
    skin: &[TwoBone],
    bounds: &Bounds,
    ratios: &[f32],
    target_error: f32,
    displacements: &[Vec<Vec3>],
) -> Vec<BuiltLod> {
    let vertex_count = model.positions.len();
    let position_bytes: &[u8] = bytemuck::cast_slice(&model.positions);
    let stride = size_of::<Vec3>();
    let Ok(adapter) = meshopt::VertexDataAdapter::new(position_bytes, stride, 0) else {
        return Vec::new();
    };
    let scale = (Vec3::from(bounds.quant_max) - Vec3::from(bounds.quant_min))
        .max_element()
        .max(1e-6);
    let (attribute_values, attribute_weights, attribute_stride) =
        attributes(model, displacements, scale);
    let unlocked = vec![false; vertex_count];
    let mut lods = Vec::with_capacity(ratios.len());
    for (level, &ratio) in ratios.iter().enumerate() {
        let mut indices = Vec::new();
        let mut submeshes = Vec::new();
        let mut lod_error = 0.0f32;
        for group in &model.groups {
            // Each coarser LOD may stray twice as far as the one before: the
            // renderer picks LODs by projected error, so a coarser LOD is only
            // seen from farther away, and a fixed bound would stop the last
            // LODs at the same triangle count.
            let level_error = target_error * 2f32.powi(level.saturating_sub(1) as i32);
            let simplified = if level == 0 || ratio >= 1.0 {
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
        lods.push(BuiltLod {
            lod: MeshLod {
                vertices,
                indices,
                submeshes,
                error: lod_error,
            },
            source_vertex,
        });
    }
    lods
}
