//! The far field's mesh table (uniform buffer `FarMeshes`): what the far
//! field draws for each (type, LOD), and how many vertices the mid-size
//! pipeline holds.
//!
//! # Data layout
//! One [`FarFieldMesh`] per (type, LOD), `[type * MAX_LODS + lod]`,
//! written once when the pass is created: the LOD's index range, its first
//! vertex, and its vertex count with the box-proxy flag
//! (`FAR_MESH_VERTEX_COUNT_MASK`, `FAR_MESH_BOX_PROXY`). A LOD with more
//! vertices than the mid-size pipeline holds in shared memory
//! ([`mid_vertex_capacity`]: `FAR_FIELD_MID_MAX_VERTICES`, 2048, where the
//! device's shared memory allows) maps to the finest coarser LOD within
//! it; a type whose coarsest LOD is over `FAR_FIELD_MAX_VERTICES` has no
//! far-field region (`world::types::layout_regions`), so cull keeps it a
//! mesh, and its entries are empty.

use crate::config::{
    FAR_FIELD_MAX_VERTICES, FAR_FIELD_MID_MAX_VERTICES, FAR_FIELD_SHARED_BYTES_PER_VERTEX,
    FAR_FIELD_SHARED_RESERVE_BYTES, FAR_MESH_BOX_PROXY, MAX_LODS, ROUTE_FAR_FIELD,
};
use crate::gpu_types::{FarFieldMesh, MAX_TYPES};
use crate::world::World;

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
/// that LOD, or where it has more than `vertex_capacity` vertices (the
/// mid-size pipeline's, [`mid_vertex_capacity`]) the finest coarser one
/// within it. Empty for props, types without a far-field region and LODs
/// past the type's count.
pub fn far_field_meshes(world: &World, vertex_capacity: u32) -> Vec<FarFieldMesh> {
    let mut meshes = vec![FarFieldMesh::default(); MAX_TYPES * MAX_LODS as usize];
    for (type_meshes, world_type) in meshes.chunks_mut(MAX_LODS as usize).zip(&world.types) {
        if world_type.info.routes[ROUTE_FAR_FIELD as usize].capacity == 0 {
            continue;
        }
        for (lod, mesh) in type_meshes.iter_mut().enumerate() {
            let drawn = world_type
                .lods
                .iter()
                .skip(lod)
                .find(|range| range.vertex_count <= vertex_capacity);
            if let (Some(range), true) = (drawn, lod < world_type.lods.len()) {
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
