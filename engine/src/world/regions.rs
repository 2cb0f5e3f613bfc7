//! Routes and regions: each (type, route)'s draw command and instance-list
//! region, laid out from the types' capacities, and the tables uploaded
//! from them. Pure CPU work, testable without a device.
//!
//! Type `t`, route `r` is command `t * MAX_ROUTES + r`, at the head of the
//! draw-list buffer. Each (type, route) a type uses owns a region of the
//! instance lists as large as the type's capacity, so culling never
//! overflows it; [`layout_regions`] lays them out again when a capacity
//! grows. The impostor route is the exception: every unit type's impostors
//! are one quad mesh, so they share one command (right after the last
//! type's, [`impostor_command`]) and one region as large as the capacities
//! of the types that have an impostor; the per-type command of that route
//! draws nothing.

use crate::asset::AssetKind;
use crate::config::{MAX_ROUTES, ROUTE_FAR_FIELD, ROUTE_IMPOSTOR};
use crate::gpu_types::{DrawCommand, RouteInfo, TypeInfo, MAX_TYPES};
use crate::world::types::{LodRange, WorldType, MIN_TYPE_CAPACITY};

/// The draw command all impostors share: right after the last type's.
pub fn impostor_command(types: &[WorldType]) -> u32 {
    types.len() as u32 * MAX_ROUTES
}

/// The two commands after the impostors', never drawn: their instance
/// counts are the units' and the props' that occlusion culling hid this
/// frame (`passes/cull.rs`).
pub fn occluded_commands(types: &[WorldType]) -> [u32; 2] {
    let impostors = impostor_command(types);
    [impostors + 1, impostors + 2]
}

/// Routes a type has a region of its own for: its mesh LODs, and the far
/// field for unit types whose coarsest LOD fits the far field's shared
/// memory (the impostors' region is shared).
fn uses_route(world_type: &WorldType, route: u32) -> bool {
    route < world_type.info.lod_count
        || (route == ROUTE_FAR_FIELD
            && world_type.kind == AssetKind::Unit
            && world_type
                .lods
                .last()
                .is_some_and(|lod| lod.vertex_count <= crate::config::FAR_FIELD_MAX_VERTICES))
}

/// Instance-list entries the regions of `types` need at their capacities.
pub fn region_entries(types: &[WorldType]) -> u32 {
    let routes = |t: &WorldType| (0..MAX_ROUTES).filter(|&r| uses_route(t, r)).count() as u32;
    (types.iter().map(|t| t.capacity * routes(t)).sum::<u32>() + impostor_capacity(types)).max(1)
}

/// Entries of the shared impostor region: every unit is at most once in it.
fn impostor_capacity(types: &[WorldType]) -> u32 {
    types
        .iter()
        .filter(|t| t.has_impostor)
        .map(|t| t.capacity)
        .sum()
}

/// Assigns each (type, route) its command and instance-list region from the
/// types' capacities. Returns the instance-list entries all regions need.
pub fn layout_regions(types: &mut [WorldType]) -> u32 {
    let mut base = 0u32;
    for (type_index, world_type) in types.iter_mut().enumerate() {
        world_type.info.capacity = world_type.capacity;
        for route in 0..MAX_ROUTES {
            let used = uses_route(world_type, route);
            let capacity = if used { world_type.capacity } else { 0 };
            world_type.info.routes[route as usize] = RouteInfo {
                error: world_type.info.routes[route as usize].error,
                command: WorldType::command(type_index, route),
                list_base: base,
                capacity,
            };
            base += capacity;
        }
    }
    let impostor_region = RouteInfo {
        error: 0.0,
        command: impostor_command(types),
        list_base: base,
        capacity: impostor_capacity(types),
    };
    for world_type in types.iter_mut().filter(|t| t.has_impostor) {
        let route = &mut world_type.info.routes[ROUTE_IMPOSTOR as usize];
        *route = RouteInfo {
            error: route.error,
            ..impostor_region
        };
    }
    (base + impostor_region.capacity).max(1)
}

/// The type table as uploaded: `MAX_TYPES` entries, unused ones zero.
pub fn type_table(types: &[WorldType]) -> Vec<TypeInfo> {
    let mut table = vec![TypeInfo::default(); MAX_TYPES];
    for (slot, world_type) in table.iter_mut().zip(types) {
        *slot = world_type.info;
    }
    table
}

/// Draw commands with zero instances, one per (type, route): the per-frame
/// reset source. With `first_instance_in_command` false (the mobile tier)
/// `firstInstance` stays 0 and the draw binds the list at an offset instead.
/// With `mesh`, every used mesh route and the far-field route draw that
/// mesh (the bounds view: far units, up to 100 px, get their sphere too).
/// The impostors' command comes last and draws `impostor_quad`.
pub fn command_template(
    types: &[WorldType],
    first_instance_in_command: bool,
    mesh: Option<LodRange>,
    impostor_quad: LodRange,
) -> Vec<DrawCommand> {
    let mut commands = Vec::with_capacity(types.len() * MAX_ROUTES as usize);
    for world_type in types {
        for route in 0..MAX_ROUTES {
            let info = &world_type.info.routes[route as usize];
            let own = world_type.lods.get(route as usize).copied();
            let far_field = route == ROUTE_FAR_FIELD && info.capacity > 0;
            let range = match (own, mesh) {
                (Some(_), Some(mesh)) => mesh,
                (None, Some(mesh)) if far_field => mesh,
                (own, _) => own.unwrap_or_default(),
            };
            commands.push(DrawCommand {
                index_count: range.index_count,
                instance_count: 0,
                first_index: range.first_index,
                vertex_offset: range.vertex_offset,
                first_instance: if first_instance_in_command {
                    info.list_base
                } else {
                    0
                },
            });
        }
    }
    let impostor_base = types
        .iter()
        .find(|t| t.has_impostor)
        .map_or(0, |t| t.info.routes[ROUTE_IMPOSTOR as usize].list_base);
    commands.push(DrawCommand {
        index_count: impostor_quad.index_count,
        instance_count: 0,
        first_index: impostor_quad.first_index,
        vertex_offset: impostor_quad.vertex_offset,
        first_instance: if first_instance_in_command {
            impostor_base
        } else {
            0
        },
    });
    // The hidden units' and props' counters.
    commands.extend([DrawCommand::default(); 2]);
    commands
}

/// Doubles any type's capacity its live count outgrew; true when one did.
pub fn grow_capacities(types: &mut [WorldType]) -> bool {
    let mut changed = false;
    for world_type in types {
        if world_type.live > world_type.capacity {
            world_type.capacity = world_type.live.max(MIN_TYPE_CAPACITY).next_power_of_two();
            changed = true;
        }
    }
    changed
}
