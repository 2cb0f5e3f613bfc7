#version 450
// The far field: skins the LOD the cull chose for every far-field unit
// (FarMeshes) and rasterizes its triangles into a 64-bit visibility buffer;
// the module doc of engine/src/passes/far_field/mod.rs explains the layout and
// the algorithm. One workgroup per unit: its vertices are skinned once into
// shared memory (the same skinning code and vertex decoding as unit.vert),
// then its triangles are set up and rasterized from there.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
#extension GL_KHR_shader_subgroup_ballot : require
#include "types.glsl"
#include "common.glsl"

layout(local_size_x_id = 3) in;

layout(set = 0, binding = 0) uniform Globals { FrameGlobals globals; };
layout(set = 0, binding = 1, std140) uniform Types { TypeInfo types[MAX_TYPES]; };
// [type * MAX_LODS + lod]
layout(set = 0, binding = 2, std140) uniform FarMeshes { FarFieldMesh far_meshes[MAX_TYPES * MAX_LODS]; };
layout(set = 0, binding = 3, std140) uniform Clips { ClipInfo clips[MAX_CLIPS]; };
layout(set = 0, binding = 4, std140) uniform Materials { MaterialInfo materials[MAX_MATERIALS]; };
layout(set = 0, binding = 5, std430) readonly buffer Infos { UnitInfo infos[]; };
layout(set = 0, binding = 6, std430) readonly buffer Placements { UnitPlacement placements[]; };
layout(set = 0, binding = 7, std430) readonly buffer AnimStates { AnimState anim_states[]; };
// PackedVertex, five words each (see mesh_inputs.glsl).
layout(set = 0, binding = 8, std430) readonly buffer Vertices { uint vertex_words[]; };
layout(set = 0, binding = 9, std430) readonly buffer Indices { uint indices[]; };
// The draw commands, then the instance lists (as cull.comp writes them).
layout(set = 0, binding = 10, std430) buffer DrawLists {
    DrawCommand commands[MAX_DRAW_COMMANDS];
    uint entries[];
};
// One key per pixel, row by row: reverse-Z depth bits << 32 | colour.
layout(set = 0, binding = 11, std430) buffer Visibility { uint64_t visibility[]; };
layout(set = 0, binding = 12) uniform sampler2D bone_texture;
layout(set = 0, binding = 13) uniform sampler2D atlas;
layout(set = 0, binding = 14, std430) readonly buffer Marks { uint marks[]; };
layout(set = 0, binding = 15, std430) readonly buffer ShadowDepths { uint shadow_depths[]; };
// The far-field items (flat indices over the types' lists) whose mesh is
// larger than the small pipeline holds: the small pipeline appends them,
// the mid-size one draws them (count zeroed before the small one runs).
layout(set = 0, binding = 16, std430) buffer MidItems {
    uint mid_count;
    uint mid_items[];
};
#include "shadow.glsl"

// 1: a shadow cascade's casters (`globals.view_proj` is the cascade's):
// depth only, both faces, no shading; the payload is 0.
layout(constant_id = 1) const uint DEPTH_ONLY = 0u;
// The vertices a workgroup holds in shared memory, and the fewest a mesh
// must have for this pipeline to draw it: the small-unit pipeline takes
// meshes of 1..=FAR_FIELD_MAX_VERTICES in batches, the mid-size one the
// larger meshes, up to what the device's shared memory holds
// (FarFieldPass::new), one or two units a batch.
layout(constant_id = 4) const uint VERTEX_CAPACITY = FAR_FIELD_MAX_VERTICES;
layout(constant_id = 5) const uint MIN_VERTICES = 0u;
// AnimState::blend of a pose without crossfade: 1.0 as f16.
const uint STILL_POSE_BLEND = 0x3C00u;

layout(push_constant) uniform Dispatch {
    uint width;
    uint height;
    // Unit types: the first types of the table.
    uint unit_type_count;
} dispatch;

#include "skinning.glsl"

// Nearer is larger in reverse-Z, so the nearest key wins with atomicMax; a
// plain read first skips the atomic where a nearer key is already there.
void write_pixel(int x, int y, uint64_t key) {
    uint index = uint(y) * dispatch.width + uint(x);
    if (visibility[index] < key) {
        atomicMax(visibility[index], key);
    }
}
#define FAR_FIELD_WRITE(x, y, key) write_pixel(x, y, key)
// A sample that surely loses to its pixel's depth (far_may_win) is rejected
// before its 64-bit division and its shading: in a dense crowd most samples
// lie behind a nearer unit's (the 1M ground's far field 10.34 -> 9.13 ms on
// an H200, benches/results/near_field/ call 52).
#define FAR_FIELD_MAY_WIN(x, y, weighted, area) \
    far_may_win(weighted, area, visibility[uint(y) * dispatch.width + uint(x)])
// `globals.debug_view`, read once in main (HIDDEN_FROM_INLINING).
uint g_debug_view;

// Per-sample shading, as the raster interpolates mesh.frag's inputs
// across a triangle: each vertex carries its lighting split around the
// base colour texel, colour = texel × light + add (light: base colour
// factor × tint × sun and ambient, fogged; add: emission, fogged, and the
// fog's colour), and its UV. A covered sample interpolates the three with
// the barycentric weights and reads the atlas at the interpolated UV, so a
// unit of 30 to 100 pixels (the mid-size pipeline) shows neither facets
// nor a texture blurred to its vertices. The triangle's corners (linear
// colours), set before far_rasterize; casters write no colour.
vec3 g_light[3];
vec3 g_add[3];
vec2 g_uv[3];
// The triangle's material's atlas rectangle; z = 0: untextured.
vec4 g_atlas_rect;
uint shade_sample(int wa, int wb, int wc, int area) {
    if (DEPTH_ONLY == 1u) {
        return 0u;
    }
    vec3 weights = vec3(wa, wb, wc) / float(area);
    vec3 light = weights.x * g_light[0] + weights.y * g_light[1] + weights.z * g_light[2];
    vec3 add = weights.x * g_add[0] + weights.y * g_add[1] + weights.z * g_add[2];
    vec3 texel = vec3(1.0);
    if (g_atlas_rect.z > 0.0) {
        vec2 uv = weights.x * g_uv[0] + weights.y * g_uv[1] + weights.z * g_uv[2];
        texel = textureLod(atlas, g_atlas_rect.xy + fract(uv) * g_atlas_rect.zw, 0.0).rgb;
    }
    return far_pack_color(texel * light + add);
}
#define FAR_FIELD_PAYLOAD(wa, wb, wc, area) shade_sample(wa, wb, wc, area)
#include "far_field_raster.glsl"

// Back light of a vertex whose material is single-sided: its back faces
// are not drawn. Packed colours never set the top two bits.
const uint NO_BACK_FACE = 0xffffffffu;
// Light (texel multiplier) is packed at half scale: sun and ambient light
// add up to more than 1.
const float LIGHT_PACK_SCALE = 0.5;

// Per vertex: the snapped position, the depth bits, the packed light of
// the front and the back face, the packed add term, the UV (half2):
// FAR_FIELD_SHARED_BYTES_PER_VERTEX in all.
shared ivec2 s_position[VERTEX_CAPACITY];
shared uint s_depth[VERTEX_CAPACITY];
shared uint s_front[VERTEX_CAPACITY];
shared uint s_back[VERTEX_CAPACITY];
shared uint s_add[VERTEX_CAPACITY];
shared uint s_uv[VERTEX_CAPACITY];
// The batch: units, their mesh (type * MAX_LODS + lod), and where their
// vertices and triangles start in the batch's flat ranges (one past the
// last unit: the totals).
shared uint s_batch_units;
shared uint s_batch_next;
shared uint s_unit[FAR_FIELD_BATCH_UNITS];
// The unit's place in its chunk's tables (s_item_*).
shared uint s_unit_item[FAR_FIELD_BATCH_UNITS];
shared uint s_mesh[FAR_FIELD_BATCH_UNITS];
shared uint s_vertex_base[FAR_FIELD_BATCH_UNITS + 1];
shared uint s_triangle_base[FAR_FIELD_BATCH_UNITS + 1];
// What each unit's skinned vertices say, gathered with shared atomics:
// which sides of the near plane they lie on (the NEAR_ bits, plus
// UNIT_FALLBACK), and their snapped box (min x, min y, max x, max y).
const uint NEAR_BEFORE = 1u;
const uint NEAR_PAST = 2u;
const uint UNIT_FALLBACK = 4u;
shared uint s_flags[FAR_FIELD_BATCH_UNITS];
shared int s_box[FAR_FIELD_BATCH_UNITS][4];
#include "far_field_items.glsl"

vec3 atlas_texel(vec4 rect, vec2 uv) {
    return textureLod(atlas, rect.xy + fract(uv) * rect.zw, 0.0).rgb;
}

// Whether the far-field mesh of `mesh_index` is a box proxy (its type's
// coarsest LODs): the bake's silhouette boxes, each corner with the UV of
// the source vertex nearest it (its colour in the atlas), so a UV
// interpolated across a box wanders over unrelated texels. There the texel
// is read per vertex.
bool box_proxy(uint mesh_index) {
    return (far_meshes[mesh_index].vertex_count_flags & uint(FAR_MESH_BOX_PROXY)) != 0u;
}

// Skins vertex `v` of the far-field mesh of the unit of chunk item `item`
// exactly as unit.vert does, projects and snaps it into shared slot `slot`,
// and shades it as mesh.frag would (front and back), around the base
// colour texel unless `vertex_texel` (then with it). Returns the projected
// vertex (depth_bits 0 when it lies before the near plane or outside the
// vertex buffer).
FarVertex skin_vertex(uint type_index, FarFieldMesh mesh, uint v, uint slot, uint item,
                      bool vertex_texel) {
    uint base = (mesh.first_vertex + v) * 5u;
    if (base + 4u >= uint(vertex_words.length())) {
        s_depth[slot] = 0u;
        return FarVertex(ivec2(0), 0u);
    }
    uvec4 raw = uvec4(vertex_words[base], vertex_words[base + 1u], vertex_words[base + 2u],
                      vertex_words[base + 3u]);
    uint skin_word = vertex_words[base + 4u];
    uvec4 skin_bytes = uvec4(skin_word, skin_word >> 8, skin_word >> 16, skin_word >> 24) & 0xffu;
    vec3 model_position = types[type_index].quant_min
        + vec3(unpackUnorm2x16(raw.x), unpackUnorm2x16(raw.y).x) * types[type_index].quant_extent;
    vec3 model_normal = octahedral_decode(unpackSnorm2x16(raw.z));
    vec2 uv = unpackHalf2x16(raw.w);
    uvec4 state = s_item_state[item];
    vec4 placement = s_item_placement[item];
    vec3 normal;
    vec3 position = skin_crossfade_posed(item_pose(item, 0u), item_pose(item, 1u),
                                         uintBitsToFloat(state.w), types[type_index].bone_count,
                                         skin_bytes.xy, float(skin_bytes.z) / 255.0,
                                         model_position, model_normal, normal);
    vec3 world = rotate_y(position * uintBitsToFloat(state.y), placement.w) + placement.xyz;
    vec3 world_normal = rotate_y(normal, placement.w);
    FarVertex projected = far_project(globals.view_proj * vec4(world, 1.0),
                                      vec2(dispatch.width, dispatch.height));
    s_position[slot] = projected.position;
    s_depth[slot] = projected.depth_bits;
    if (DEPTH_ONLY == 1u) {
        s_front[slot] = 0u;
        s_back[slot] = 0u;
        return projected;
    }

    MaterialInfo material = materials[min(types[type_index].first_material + skin_bytes.w,
                                          uint(MAX_MATERIALS) - 1u)];
    // The base colour texel is read per sample (shade_sample), or here; the
    // rest of mesh.frag's shading is per vertex.
    vec3 albedo = material.base_color.rgb * unpackUnorm4x8(state.x).rgb;
    if (vertex_texel && material.atlas_rect.z > 0.0) {
        albedo *= atlas_texel(material.atlas_rect, uv);
    }
    vec3 emitted = material.emissive;
    if (material.emissive_rect.z > 0.0) {
        emitted *= atlas_texel(material.emissive_rect, uv);
    }
    s_uv[slot] = packHalf2x16(uv);
    if (g_debug_view == DEBUG_VIEW_LOD) {
        albedo = route_color(ROUTE_FAR_FIELD);
        emitted = vec3(0.0);
    }
    if (g_debug_view == DEBUG_VIEW_MARKS) {
        albedo = mark_color(state.z).rgb;
        emitted = vec3(0.0);
    }
    bool double_sided = (material.flags & MATERIAL_DOUBLE_SIDED) != 0u;
    if (g_debug_view == DEBUG_VIEW_UNIT_MASK) {
        // Every far-field pixel is a unit's: white, unlit (no light, an add
        // of 1.0, which packs and averages exactly).
        s_front[slot] = 0u;
        s_back[slot] = double_sided ? 0u : NO_BACK_FACE;
        s_add[slot] = far_pack_color(vec3(1.0));
        return projected;
    }
    // A unit a few pixels tall, shaded per vertex: one bilinear comparison
    // is as good as the tent there, at a quarter of the shadow reads (the
    // 1M overview's far field took 1.4 ms more with shadows on with the tent).
    float sun = sun_visibility_filtered(world, world_normal, globals, false);
    // shade() is affine in the albedo: shade(albedo, 0) - shade(0, 0) is
    // the light, shade(0, emitted) the add term (fog included).
    vec3 fog_only = shade(vec3(0.0), vec3(0.0), world_normal, world, sun, globals);
    s_add[slot] = far_pack_color(shade(vec3(0.0), emitted, world_normal, world, sun, globals));
    s_front[slot] = far_pack_color(
        (shade(albedo, vec3(0.0), world_normal, world, sun, globals) - fog_only) * LIGHT_PACK_SCALE);
    s_back[slot] = double_sided
        ? far_pack_color((shade(albedo, vec3(0.0), -world_normal, world, sun, globals) - fog_only)
                         * LIGHT_PACK_SCALE)
        : NO_BACK_FACE;
    return projected;
}

// The shared slots of triangle `t` of a mesh whose vertices start at slot
// `base`; false when an index is outside the mesh.
bool triangle_slots(FarFieldMesh mesh, uint vertex_count, uint base, uint t, out uvec3 tri) {
    uint first = mesh.first_index + t * 3u;
    tri = uvec3(0u);
    if (first + 2u >= uint(indices.length())) {
        return false;
    }
    tri = uvec3(indices[first], indices[first + 1u], indices[first + 2u]);
    if (!all(lessThan(tri, uvec3(vertex_count)))) {
        return false;
    }
    tri += base;
    return true;
}

// The atlas rectangle of the material of vertex `v` of the mesh (the
// triangle's first), where the shaded view reads the base colour texture;
// z = 0 otherwise.
vec4 triangle_atlas_rect(uint type_index, FarFieldMesh mesh, uint v) {
    uint word = (mesh.first_vertex + v) * 5u + 4u;
    if (g_debug_view != DEBUG_VIEW_SHADED || word >= uint(vertex_words.length())) {
        return vec4(0.0);
    }
    uint material = min(types[type_index].first_material + (vertex_words[word] >> 24),
                        uint(MAX_MATERIALS) - 1u);
    return materials[material].atlas_rect;
}

FarVertex shared_vertex(uint slot) {
    return FarVertex(s_position[slot], s_depth[slot]);
}

// Appends the unit to the instance list of mesh LOD `lod`, as cull.comp
// appends.
void append_fallback(uint type_index, uint unit, uint lod) {
    lod = min(lod, clamp(types[type_index].lod_count, 1u, uint(MAX_LODS)) - 1u);
    RouteInfo route = types[type_index].routes[lod];
    if (route.command >= uint(MAX_DRAW_COMMANDS)) {
        return;
    }
    uint list_length = uint(entries.length());
    uint list_base = min(route.list_base, list_length);
    uint capacity = min(route.capacity, list_length - list_base);
    uint slot = atomicAdd(commands[route.command].instance_count, 1u);
    if (slot < capacity) {
        entries[list_base + slot] = unit | (lod << ENTRY_INDEX_BITS);
    } else {
        atomicMin(commands[route.command].instance_count, capacity);
    }
}

// The unit of the batch whose range of `bases` holds `index`.
uint batch_unit(uint index, uint units, bool triangles) {
    uint u = 0u;
    while (u + 1u < units
           && index >= (triangles ? s_triangle_base[u + 1u] : s_vertex_base[u + 1u])) {
        u++;
    }
    return u;
}

// Whether the unit of the batch is drawn by the compute rasterizer: some
// vertex past the near plane, and not sent to the raster.
bool rasterized(uint u) {
    uint flags = s_flags[u];
    return (flags & NEAR_PAST) != 0u && (flags & (NEAR_BEFORE | UNIT_FALLBACK)) == 0u;
}

// The batch, by the whole workgroup (every barrier is reached by all lanes).
void draw_batch(uint units) {
    uint lane = gl_LocalInvocationID.x;
    uint lanes = gl_WorkGroupSize.x;
    uint vertex_total = s_vertex_base[units];
    for (uint slot = lane; slot < vertex_total; slot += lanes) {
        uint u = batch_unit(slot, units, false);
        uint mesh_index = s_mesh[u];
        uint type_index = mesh_index / uint(MAX_LODS);
        FarVertex projected = skin_vertex(type_index, far_meshes[mesh_index],
                                          slot - s_vertex_base[u], slot, s_unit_item[u],
                                          box_proxy(mesh_index));
        if (projected.depth_bits == 0u) {
            atomicOr(s_flags[u], NEAR_BEFORE);
        } else {
            atomicOr(s_flags[u], NEAR_PAST);
            atomicMin(s_box[u][0], projected.position.x);
            atomicMin(s_box[u][1], projected.position.y);
            atomicMax(s_box[u][2], projected.position.x);
            atomicMax(s_box[u][3], projected.position.y);
        }
    }
    barrier();

    // Per unit: every vertex before the near plane draws nothing. Some on
    // each side: a triangle may cross the plane, which the compute
    // rasterizer must not take, so the raster draws the unit. A box larger
    // than the rasterizer's triangle limit: its triangles are checked one by
    // one, and one too large sends the unit to the raster. Nothing visible
    // is dropped.
    ivec2 target = ivec2(dispatch.width, dispatch.height);
    int largest = int(FAR_FIELD_MAX_TRIANGLE_PX) * FAR_SUBPIXEL;
    bool check = false;
    for (uint u = 0u; u < units; u++) {
        check = check || (rasterized(u) && (s_box[u][2] - s_box[u][0] > largest
                                            || s_box[u][3] - s_box[u][1] > largest));
    }
    uint triangle_total = s_triangle_base[units];
    if (check) {
        for (uint t = lane; t < triangle_total; t += lanes) {
            uint u = batch_unit(t, units, true);
            FarFieldMesh mesh = far_meshes[s_mesh[u]];
            uint vertex_count = s_vertex_base[u + 1u] - s_vertex_base[u];
            uvec3 tri;
            ivec4 pixels;
            if (rasterized(u)
                && triangle_slots(mesh, vertex_count, s_vertex_base[u], t - s_triangle_base[u], tri)
                && far_triangle_setup(shared_vertex(tri.x), shared_vertex(tri.y),
                                      shared_vertex(tri.z), target, pixels)
                   == FAR_TRIANGLE_FALLBACK) {
                atomicOr(s_flags[u], UNIT_FALLBACK);
            }
        }
        barrier();
    }
    if (lane < units) {
        uint flags = s_flags[lane];
        if ((flags & NEAR_PAST) != 0u && (flags & (NEAR_BEFORE | UNIT_FALLBACK)) != 0u) {
            append_fallback(s_mesh[lane] / uint(MAX_LODS), s_unit[lane],
                            s_mesh[lane] % uint(MAX_LODS));
        }
    }
    for (uint t = lane; t < triangle_total; t += lanes) {
        uint u = batch_unit(t, units, true);
        if (!rasterized(u)) {
            continue;
        }
        FarFieldMesh mesh = far_meshes[s_mesh[u]];
        uint vertex_count = s_vertex_base[u + 1u] - s_vertex_base[u];
        uvec3 tri;
        ivec4 pixels;
        if (!triangle_slots(mesh, vertex_count, s_vertex_base[u], t - s_triangle_base[u], tri)) {
            continue;
        }
        FarVertex a = shared_vertex(tri.x);
        FarVertex b = shared_vertex(tri.y);
        FarVertex c = shared_vertex(tri.z);
        if (far_triangle_setup(a, b, c, target, pixels) != FAR_TRIANGLE_RASTER) {
            continue;
        }
        int area = far_triangle_area(a, b, c);
        if (area == 0) {
            continue;
        }
        if (DEPTH_ONLY == 0u) {
            // The first vertex's material decides, as the raster's flat
            // material does.
            uvec3 lights = uvec3(s_front[tri.x], s_front[tri.y], s_front[tri.z]);
            // A positive area is clockwise on screen: a back face
            // (far_triangle_area).
            if (area > 0) {
                if (s_back[tri.x] == NO_BACK_FACE) {
                    continue;
                }
                uvec3 back = uvec3(s_back[tri.x], s_back[tri.y], s_back[tri.z]);
                lights = mix(back, lights, equal(back, uvec3(NO_BACK_FACE)));
            }
            uint type_index = s_mesh[u] / uint(MAX_LODS);
            g_atlas_rect = box_proxy(s_mesh[u])
                ? vec4(0.0) : triangle_atlas_rect(type_index, mesh, tri.x - s_vertex_base[u]);
            for (uint corner = 0u; corner < 3u; corner++) {
                uint slot = tri[corner];
                g_light[corner] = far_unpack_color(lights[corner]) / LIGHT_PACK_SCALE;
                g_add[corner] = far_unpack_color(s_add[slot]);
                g_uv[corner] = unpackHalf2x16(s_uv[slot]);
            }
        }
        far_rasterize(a, b, c, pixels, 0u);
    }
}

// Each workgroup takes FAR_FIELD_BATCH_UNITS items at a time (a grid-stride
// loop) and draws them in as few batches as shared memory allows.
void main() {
    uint lane = gl_LocalInvocationID.x;
    g_debug_view = HIDDEN_FROM_INLINING(globals.debug_view);
    uint type_count = min(HIDDEN_FROM_INLINING(dispatch.unit_type_count), uint(MAX_TYPES));
    if (lane < 3u) {
        s_live[lane] = 0u;
    }
    if (lane == 0u) {
        uint total = 0u;
        for (uint t = 0u; t < type_count; t++) {
            s_first[t] = total;
            RouteInfo route = types[t].routes[ROUTE_FAR_FIELD];
            if (route.capacity > 0u && route.command < uint(MAX_DRAW_COMMANDS)) {
                total += min(commands[route.command].instance_count, route.capacity);
            }
        }
        s_first[type_count] = total;
    }
    barrier();
    uint total = MIN_VERTICES == 0u
        ? s_first[type_count] : min(mid_count, uint(mid_items.length()));
    uint chunk = uint(FAR_FIELD_BATCH_UNITS);
    uint chunk_index = 0u;
    for (uint first = gl_WorkGroupID.x * chunk; first < total;
         first += gl_NumWorkGroups.x * chunk) {
        uint last = min(first + chunk, total);
        // A chunk with nothing to draw is skipped after one parallel read:
        // a shadow cascade's list is mostly struck-out splats (all of it at
        // the 1M overview), which lane 0 read one by one, with a batch's
        // barriers a chunk, at 1.3 ms a cascade on an H100. Counter
        // `chunk_index % 3` is reset two chunks ahead, so one barrier a
        // chunk orders its reset, its counting and every lane's read.
        uint counter = chunk_index % 3u;
        chunk_index++;
        if (lane == 0u) {
            s_live[chunk_index % 3u] = 0u;
        }
        if (lane < chunk) {
            read_item(first, last, lane, type_count, counter);
        }
        barrier();
        if (s_live[counter] == 0u) {
            continue;
        }
        uint next = first;
        while (next < last) {
            if (lane == 0u) {
                gather_batch(next, last, first);
            }
            barrier();
            next = s_batch_next;
            draw_batch(s_batch_units);
            // The next batch overwrites the shared vertices.
            barrier();
        }
    }
}
