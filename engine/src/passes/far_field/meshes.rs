//! The far field's mesh table (uniform buffer `FarMeshes`): what the far
//! field draws for each (type, LOD), and how many vertices the mid-size
//! pipeline holds.
//!
//! # Data layout
//! One [`FarFieldMesh`] per (type, LOD), `[type * MAX_LODS + lod]`,
//! written once when the pass is created: the LOD's index range, its first
//! vertex, and its vertex count with the box-proxy flag
//! (`FAR_MESH_VERTEX_COUNT_MASK`, `FAR_MESH_BOX_PROXY`).
//!
//! A raster-only LOD (`LodRange::raster_only`: the bake's 0.2 and 0.14
//! between the 0.3 and the 0.1, and its 0.07 after the 0.1) maps to the
//! next finer LOD that is not:
//! those LODs shorten the raster's steps in vertices, where its vertex
//! rate bounds the frame, but in the far field, whose samples are shaded
//! per vertex and whose lanes each rasterize a triangle, they cost the
//! picture and time (`benches/results/near_field/`, sections 22, 23 and
//! 26), so the far field draws what it drew without them. A LOD with more
//! vertices than the mid-size pipeline holds in shared memory
//! ([`mid_vertex_capacity`]: `FAR_FIELD_MID_MAX_VERTICES`, 2048, where the
//! device's shared memory allows) maps to the finest coarser LOD within
//! it that is not raster only; a type whose coarsest LOD is over
//! `FAR_FIELD_MAX_VERTICES` has no far-field region
//! (`world::types::layout_regions`), so cull keeps it a mesh, and its
//! entries are empty.

use crate::config::{
    FAR_FIELD_MAX_VERTICES, FAR_FIELD_MID_MAX_VERTICES, FAR_FIELD_SHARED_BYTES_PER_VERTEX,
    FAR_FIELD_SHARED_RESERVE_BYTES, FAR_MESH_BOX_PROXY, MAX_LODS, ROUTE_FAR_FIELD,
};
use crate::gpu_types::{FarFieldMesh, MAX_TYPES};
use crate::world::{LodRange, World};

/// The vertices the mid-size pipeline holds: [`FAR_FIELD_MID_MAX_VERTICES`],
/// or fewer where the device's shared memory (`shared_bytes`) is smaller;
/// at most [`FAR_FIELD_MAX_VERTICES`] (then there is no mid-size pipeline)
/// and at least that where the small one fits.
pub fn mid_vertex_capacity(shared_bytes: u32) -> u32 {
    let fits = shared_bytes.saturating_sub(FAR_FIELD_SHARED_RESERVE_BYTES)
        / FAR_FIELD_SHARED_BYTES_PER_VERTEX;
    fits.clamp(FAR_FIELD_MAX_VERTICES, FAR_FIELD_MID_MAX_VERTICES)
}

/// The far field's mesh of every (type, LOD), `[type * MAX_LODS + lod]`:
/// [`far_field_lod`]'s. Empty for props, types without a far-field region
/// and LODs past the type's count.
pub fn far_field_meshes(world: &World, vertex_capacity: u32) -> Vec<FarFieldMesh> {
    let mut meshes = vec![FarFieldMesh::default(); MAX_TYPES * MAX_LODS as usize];
    for (type_meshes, world_type) in meshes.chunks_mut(MAX_LODS as usize).zip(&world.types) {
        if world_type.info.routes[ROUTE_FAR_FIELD as usize].capacity == 0 {
            continue;
        }
        for (lod, mesh) in type_meshes.iter_mut().enumerate() {
            let drawn = far_field_lod(&world_type.lods, lod, vertex_capacity)
                .map(|drawn| world_type.lods[drawn]);
            if let Some(range) = drawn {
                *mesh = FarFieldMesh {
                    first_index: range.first_index,
                    index_count: range.index_count,
                    first_vertex: range.vertex_offset.max(0) as u32,
                    vertex_count_flags: range.vertex_count
                        | if range.box_proxy {
                            FAR_MESH_BOX_PROXY
                        } else {
                            0
                        },
                };
            }
        }
    }
    meshes
}

/// The LOD whose mesh the far field draws for a unit at `lod` of `lods`:
/// a raster-only LOD's next finer one that is not, then from there the
/// first that is not raster only and holds at most `vertex_capacity`
/// vertices (the mid-size pipeline's, [`mid_vertex_capacity`]); `None`
/// past the chain or where no such LOD is left.
pub fn far_field_lod(lods: &[LodRange], lod: usize, vertex_capacity: u32) -> Option<usize> {
    if lod >= lods.len() {
        return None;
    }
    let finer = (0..=lod)
        .rev()
        .find(|&finer| !lods[finer].raster_only)
        .unwrap_or(lod);
    (finer..lods.len())
        .find(|&drawn| !lods[drawn].raster_only && lods[drawn].vertex_count <= vertex_capacity)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The default unit chain's shape: 1, 0.5, 0.3, the raster's 0.2 and
    /// 0.14, the 0.1, the raster's 0.07 and two box proxies (the generated
    /// knight's vertex counts).
    fn chain() -> Vec<LodRange> {
        let raster_only = [3, 4, 6];
        [4111, 2407, 1658, 1221, 928, 657, 432, 168, 80]
            .into_iter()
            .enumerate()
            .map(|(lod, vertex_count)| LodRange {
                vertex_count,
                raster_only: raster_only.contains(&lod),
                ..LodRange::default()
            })
            .collect()
    }

    fn drawn(lods: &[LodRange], capacity: u32) -> Vec<Option<usize>> {
        (0..=lods.len())
            .map(|lod| far_field_lod(lods, lod, capacity))
            .collect()
    }

    #[test]
    fn raster_only_lods_are_drawn_with_the_next_finer_lod() {
        let expected = [2, 2, 2, 2, 2, 5, 5, 7, 8].map(Some);
        assert_eq!(drawn(&chain(), 1700), [&expected[..], &[None]].concat());
    }

    #[test]
    fn a_lod_over_capacity_falls_to_the_next_coarser_that_is_not_raster_only() {
        let expected = [5, 5, 5, 5, 5, 5, 5, 7, 8].map(Some);
        assert_eq!(drawn(&chain(), 1000), [&expected[..], &[None]].concat());
        let raster_only = LodRange {
            raster_only: true,
            ..LodRange::default()
        };
        assert_eq!(drawn(&[raster_only; 2], 1000), [None; 3]);
    }
}
