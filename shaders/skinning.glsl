// Baked-animation skinning, shared by the unit vertex shader and its compute
// twin (skin_twin.comp) so tests check the exact code that draws.
//
// The includer includes types.glsl first and declares `bone_texture`
// (sampler2D, read with texelFetch only), or defines SKINNING_KEYS_ONLY to use
// only the pose keys. BONE_ENCODING_ID picks the encoding's specialization
// constant id (0 unless defined). The rules match engine/src/asset/skinning.rs:
// 1. Looping clips wrap time modulo the duration, others clamp.
// 2. f = t / D * (N - 1); frames floor(f) and min(floor(f) + 1, N - 1),
//    blended by fract(f), texel by texel; quaternions are normalized after.
// 3. Two bones blended linearly by weight (the second gets 1 - weight):
//    transforming the point by each bone and mixing the results equals
//    transforming it by the mixed matrix.
#ifndef HORDE_SKINNING_GLSL
#define HORDE_SKINNING_GLSL

// 0: mat3x4 (three texels: the matrix rows); 1: quaternion + translation and
// uniform scale (two texels), RGBA32F or RGBA16F alike.
#ifndef BONE_ENCODING_ID
#define BONE_ENCODING_ID 0
#endif
layout(constant_id = BONE_ENCODING_ID) const uint BONE_ENCODING = 0u;

struct FramePair {
    uint first;
    uint second;
    float blend;
};

FramePair frame_lookup(ClipInfo clip, float time) {
    FramePair pair = FramePair(0u, 0u, 0.0);
    if (clip.frame_count <= 1u || clip.duration <= 0.0) {
        return pair;
    }
    float t = clip.looping != 0u ? time - clip.duration * floor(time / clip.duration)
                                 : clamp(time, 0.0, clip.duration);
    uint last = clip.frame_count - 1u;
    float frame = t / clip.duration * float(last);
    pair.first = min(uint(floor(frame)), last);
    pair.second = min(pair.first + 1u, last);
    pair.blend = frame - float(pair.first);
    return pair;
}

// Texels of one frame: every bone of the skeleton.
uint frame_stride(uint bone_count) {
    return bone_count * (BONE_ENCODING == 0u ? 3u : 2u);
}

// A pose key: the texel of bone 0, row 0 of the first of the two frames to
// blend, and the blend towards the next frame. The cull pass computes it once
// per visible unit, so the vertex shader starts at the texel fetches. When
// the blend is 0 the next frame is never read (at the end of a clip there is
// none).
struct PoseKey {
    uint base;
    float blend;
};

PoseKey pose_key(ClipInfo clip, uint bone_count, float time) {
    FramePair frames = frame_lookup(clip, time);
    return PoseKey(clip.first_texel + frames.first * frame_stride(bone_count), frames.blend);
}

#ifndef SKINNING_KEYS_ONLY
vec4 bone_texel(uint index) {
    uint width = uint(textureSize(bone_texture, 0).x);
    return texelFetch(bone_texture, ivec2(int(index % width), int(index / width)), 0);
}

vec3 quat_rotate(vec4 q, vec3 v) {
    vec3 u = cross(q.xyz, v) * 2.0;
    return v + q.w * u + cross(q.xyz, u);
}

// Applies one bone to a point and a normal: `a` and `b` are the bone's first
// texels in the two frames, blended by `blend`.
void apply_bone(uint a, uint b, float blend, vec3 point, vec3 normal,
                out vec3 out_point, out vec3 out_normal) {
    if (BONE_ENCODING == 0u) {
        vec4 row0 = mix(bone_texel(a), bone_texel(b), blend);
        vec4 row1 = mix(bone_texel(a + 1u), bone_texel(b + 1u), blend);
        vec4 row2 = mix(bone_texel(a + 2u), bone_texel(b + 2u), blend);
        vec4 p = vec4(point, 1.0);
        out_point = vec3(dot(row0, p), dot(row1, p), dot(row2, p));
        out_normal = vec3(dot(row0.xyz, normal), dot(row1.xyz, normal), dot(row2.xyz, normal));
    } else {
        vec4 q = mix(bone_texel(a), bone_texel(b), blend);
        float len = length(q);
        q = len > 0.0 ? q / len : vec4(0.0, 0.0, 0.0, 1.0);
        vec4 translation_scale = mix(bone_texel(a + 1u), bone_texel(b + 1u), blend);
        out_point = translation_scale.w * quat_rotate(q, point) + translation_scale.xyz;
        // A negative scale mirrors: the normal flips with it.
        out_normal = sign(translation_scale.w) * quat_rotate(q, normal);
    }
}

// Skins a model-space point and normal with two bones at a pose key.
vec3 skin_keyed(PoseKey key, uint bone_count, uvec2 bones, float weight,
                vec3 point, vec3 normal, out vec3 out_normal) {
    uint texels_per_bone = BONE_ENCODING == 0u ? 3u : 2u;
    uint next = key.blend > 0.0 ? key.base + frame_stride(bone_count) : key.base;
    vec3 p0;
    vec3 n0;
    apply_bone(key.base + bones.x * texels_per_bone, next + bones.x * texels_per_bone, key.blend,
               point, normal, p0, n0);
    if (weight >= 1.0) {
        out_normal = n0;
        return p0;
    }
    vec3 p1;
    vec3 n1;
    apply_bone(key.base + bones.y * texels_per_bone, next + bones.y * texels_per_bone, key.blend,
               point, normal, p1, n1);
    out_normal = n0 * weight + n1 * (1.0 - weight);
    return p0 * weight + p1 * (1.0 - weight);
}

// Skins a model-space point and normal with two bones at `time` into `clip`.
vec3 skin(ClipInfo clip, uint bone_count, float time, uvec2 bones, float weight,
          vec3 point, vec3 normal, out vec3 out_normal) {
    return skin_keyed(pose_key(clip, bone_count, time), bone_count, bones, weight, point,
                      normal, out_normal);
}
#endif

#endif
