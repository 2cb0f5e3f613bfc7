// The far field's chunks of items (included by far_field.comp after the
// batch's shared state; the module doc of engine/src/passes/far_field/mod.rs
// explains the organisation): the lanes of a workgroup read a chunk's
// FAR_FIELD_BATCH_UNITS entries together (read_item), each posing its unit
// once into the chunk's shared tables, and lane 0 gathers batches from
// those tables (gather_batch) without a read of its own from memory.
#ifndef HORDE_FAR_FIELD_ITEMS_GLSL
#define HORDE_FAR_FIELD_ITEMS_GLSL

// s_first[t]: the far-field units of the unit types before t.
shared uint s_first[MAX_TYPES + 1];
// The live items (not struck out) of a chunk, counted by its lanes in
// parallel (main), in three counters taken in turn.
shared uint s_live[3];
// The chunk's items as its lanes read them together (main): the unit and
// its mesh (type * MAX_LODS + lod), NO_ITEM where this pipeline draws
// nothing, so that gathering a batch reads shared memory only.
const uint NO_ITEM = 0xffffffffu;
shared uint s_item_unit[FAR_FIELD_BATCH_UNITS];
shared uint s_item_mesh[FAR_FIELD_BATCH_UNITS];
// And what its vertices share, read and computed once a unit: the current
// and the previous clip's pose (first texel, frame pair, frame blend as
// float bits), the unit's tint, scale (float bits), mark and crossfade
// blend (float bits), and its placement.
shared uvec4 s_item_pose[FAR_FIELD_BATCH_UNITS][2];
shared uvec4 s_item_state[FAR_FIELD_BATCH_UNITS];
shared vec4 s_item_placement[FAR_FIELD_BATCH_UNITS];

ClipPose item_pose(uint item, uint clip) {
    uvec4 pose = s_item_pose[item][clip];
    return ClipPose(pose.x, FramePair(pose.y, pose.z, uintBitsToFloat(pose.w)));
}

// Flat item `item` of the far-field lists: its type, unit and LOD; false
// when the entry is out of range.
bool far_item(uint item, uint type_count, out uint type_index, out uint unit, out uint lod) {
    type_index = 0u;
    unit = 0u;
    lod = 0u;
    if (item >= s_first[type_count]) {
        return false;
    }
    while (type_index + 1u < type_count && item >= s_first[type_index + 1u]) {
        type_index++;
    }
    uint slot = types[type_index].routes[ROUTE_FAR_FIELD].list_base + item - s_first[type_index];
    unit = 0u;
    lod = 0u;
    if (slot >= uint(entries.length())) {
        return false;
    }
    // Entries carry the unit and its route code, ROUTE_FAR_FIELD + LOD.
    uint entry = entries[slot];
    uint code = entry >> ENTRY_INDEX_BITS;
    unit = entry & ENTRY_INDEX_MASK;
    lod = min(code >= uint(ROUTE_FAR_FIELD) ? code - uint(ROUTE_FAR_FIELD) : code,
              uint(MAX_LODS) - 1u);
    return unit < uint(infos.length()) && unit < uint(placements.length())
        && unit < uint(anim_states.length());
}

// The far-field item the pipeline's `item`-th is: the small pipeline runs
// over every item, the mid-size one over those the small one handed it.
uint mid_item(uint item) {
    if (MIN_VERTICES == 0u) {
        return item;
    }
    return item < uint(mid_items.length()) ? mid_items[item] : 0xffffffffu;
}

// Lane 0: takes the chunk's items `first..last` (the chunk starting at
// `chunk_first`, read by main) into the batch while their vertices fit
// shared memory (at least one), and resets their flags.
void gather_batch(uint first, uint last, uint chunk_first) {
    uint units = 0u;
    uint vertices = 0u;
    uint triangles = 0u;
    uint item = first;
    for (; item < last && units < uint(FAR_FIELD_BATCH_UNITS); item++) {
        uint mesh_index = s_item_mesh[item - chunk_first];
        if (mesh_index == NO_ITEM) {
            continue;
        }
        uint vertex_count =
            far_meshes[mesh_index].vertex_count_flags & uint(FAR_MESH_VERTEX_COUNT_MASK);
        if (vertices + vertex_count > VERTEX_CAPACITY) {
            break;
        }
        s_unit[units] = s_item_unit[item - chunk_first];
        s_unit_item[units] = item - chunk_first;
        s_mesh[units] = mesh_index;
        s_vertex_base[units] = vertices;
        s_triangle_base[units] = triangles;
        s_flags[units] = 0u;
        s_box[units][0] = 0x7fffffff;
        s_box[units][1] = 0x7fffffff;
        s_box[units][2] = -0x7fffffff;
        s_box[units][3] = -0x7fffffff;
        vertices += vertex_count;
        triangles += far_meshes[mesh_index].index_count / 3u;
        units++;
    }
    s_vertex_base[units] = vertices;
    s_triangle_base[units] = triangles;
    s_batch_units = units;
    s_batch_next = item;
}

// Lane `lane` of the chunk starting at `first`: reads item `first + lane`
// into the chunk's shared tables (NO_ITEM where this pipeline draws
// nothing), poses its unit there, and counts it live in `counter`. The
// small pipeline hands a mesh larger than it holds to the mid-size one
// (which holds every mesh of the table, far_field_meshes).
void read_item(uint first, uint last, uint lane, uint type_count, uint counter) {
    uint type_index;
    uint unit;
    uint lod;
    uint mesh_index = NO_ITEM;
    if (first + lane < last
        && far_item(mid_item(first + lane), type_count, type_index, unit, lod)) {
        mesh_index = type_index * uint(MAX_LODS) + lod;
        uint vertex_count =
            far_meshes[mesh_index].vertex_count_flags & uint(FAR_MESH_VERTEX_COUNT_MASK);
        if (vertex_count > VERTEX_CAPACITY && MIN_VERTICES == 0u) {
            uint slot = atomicAdd(mid_count, 1u);
            if (slot < uint(mid_items.length())) {
                mid_items[slot] = first + lane;
            }
        }
        if (vertex_count == 0u || vertex_count > VERTEX_CAPACITY) {
            mesh_index = NO_ITEM;
        }
    }
    if (mesh_index != NO_ITEM) {
        // A shadow caster at its type's coarsest LOD (a few texels) casts
        // its type's first clip's first pose: every such unit reads the
        // same bone texels, and no animation state (shadow LODs,
        // passes/shadow.rs). Casting it at every box proxy saved nothing
        // at the 1M overview (H100: shadow far field 3.98 -> 4.02 ms).
        uint lod_count = clamp(types[type_index].lod_count, 1u, uint(MAX_LODS));
        AnimState anim = AnimState(0u, 0.0, 0.0, STILL_POSE_BLEND);
        if (DEPTH_ONLY == 0u || lod + 1u < lod_count) {
            anim = anim_states[unit];
        }
        uint first_clip = types[type_index].first_clip;
        ClipPose current = clip_pose(
            clips[first_clip + ((anim.clips >> ANIM_CURRENT_CLIP_SHIFT) & 0xffu)],
            anim.time_current);
        ClipPose previous = clip_pose(
            clips[first_clip + ((anim.clips >> ANIM_PREVIOUS_CLIP_SHIFT) & 0xffu)],
            anim.time_previous);
        s_item_pose[lane][0] = uvec4(current.first_texel, current.frames.first,
                                     current.frames.second,
                                     floatBitsToUint(current.frames.blend));
        s_item_pose[lane][1] = uvec4(previous.first_texel, previous.frames.first,
                                     previous.frames.second,
                                     floatBitsToUint(previous.frames.blend));
        UnitInfo info = infos[unit];
        UnitPlacement placement = placements[unit];
        s_item_state[lane] = uvec4(info.tint, floatBitsToUint(info.scale), marks[unit],
                                   floatBitsToUint(unpackHalf2x16(anim.blend).x));
        s_item_placement[lane] = vec4(placement.position, placement.heading);
    }
    s_item_unit[lane] = unit;
    s_item_mesh[lane] = mesh_index;
    if (mesh_index != NO_ITEM) {
        atomicAdd(s_live[counter], 1u);
    }
}

#endif
