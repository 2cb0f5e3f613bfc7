// Baked-animation skinning, shared by the unit vertex shader and its compute
// twin (skin_twin.comp) so tests check the exact code that draws.
//
// The includer declares `bone_texture` (sampler2D, read with texelFetch only)
// and includes types.glsl first. The rules match horde_asset::skinning
// (engine/asset/src/skinning.rs):
// 1. Looping clips wrap time modulo the duration, others clamp.
// 2. f = t / D * (N - 1); frames floor(f) and min(floor(f) + 1, N - 1),
//    blended by fract(f), texel by texel; quaternions are normalized after.
// 3. Two bones blended linearly by weight (the second gets 1 - weight):
//    transforming the point by each bone and mixing the results equals
//    transforming it by the mixed matrix.
// 4. Normals: each bone's inverse-transpose direction, normalized, then
//    blended by weight. The blend is left unnormalized (shorter than unit
//    where the two bones disagree): shade() normalizes the interpolated
//    normal anyway, so its direction is horde_asset's skin_normal. Where
//    every bone of the type has one scale (BONE_SHAPE 2) both bones' normals
//    already have one length and are blended as they come, to the same
//    direction.
#ifndef HORDE_SKINNING_GLSL
#define HORDE_SKINNING_GLSL

// 0: mat3x4 (three texels: the matrix rows); 1: quaternion + translation and
// uniform scale (two texels), RGBA32F or RGBA16F alike; 2: dual quaternion
// (two texels: real, dual), whose two bones blend as dual quaternions
// (BoneEncoding::shader_constant).
layout(constant_id = 0) const uint BONE_ENCODING = 0u;
// The unit types' bone matrices (BoneShape, checked by the world at load):
// 0 general; 1 rotations with a uniform scale, so the linear part maps
// normals itself (its inverse transpose differs only in length) and the
// cofactors are skipped; 2 the same with one scale for every bone of a
// type, so the two bones' normals need no normalization before the blend.
layout(constant_id = 2) const uint BONE_SHAPE = 0u;

vec4 bone_texel(uint index) {
    uint width = uint(textureSize(bone_texture, 0).x);
    return texelFetch(bone_texture, ivec2(int(index % width), int(index / width)), 0);
}

struct FramePair {
    uint first;
    uint second;
    float blend;
};

// A clip at a time: where its bones start in the texture and the pair of
// frames to blend. The far field poses each unit once and skins its
// vertices from the pose.
struct ClipPose {
    uint first_texel;
    FramePair frames;
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

ClipPose clip_pose(ClipInfo clip, float time) {
    return ClipPose(clip.first_texel, frame_lookup(clip, time));
}

vec3 quat_rotate(vec4 q, vec3 v) {
    vec3 u = cross(q.xyz, v) * 2.0;
    return v + q.w * u + cross(q.xyz, u);
}

// Applies one bone of a pose to a point and a normal.
void apply_bone(ClipPose pose, uint bone_count, uint bone, vec3 point, vec3 normal,
                out vec3 out_point, out vec3 out_normal) {
    uint texels_per_bone = BONE_ENCODING == 0u ? 3u : 2u;
    FramePair frames = pose.frames;
    uint a = pose.first_texel + (frames.first * bone_count + bone) * texels_per_bone;
    uint b = pose.first_texel + (frames.second * bone_count + bone) * texels_per_bone;
    if (BONE_ENCODING == 0u) {
        vec4 row0 = mix(bone_texel(a), bone_texel(b), frames.blend);
        vec4 row1 = mix(bone_texel(a + 1u), bone_texel(b + 1u), frames.blend);
        vec4 row2 = mix(bone_texel(a + 2u), bone_texel(b + 2u), frames.blend);
        vec4 p = vec4(point, 1.0);
        out_point = vec3(dot(row0, p), dot(row1, p), dot(row2, p));
        // Normals take the inverse transpose of the linear part, whose rows
        // are the cross products of its rows over the determinant: right under
        // non-uniform scale, and the sign keeps a mirror's flip. The length is
        // dropped (skin() normalizes unless every bone has one scale), so a
        // x100 joint scale cannot wash out or outweigh the other bone.
        vec3 r0 = row0.xyz;
        vec3 r1 = row1.xyz;
        vec3 r2 = row2.xyz;
        if (BONE_SHAPE >= 1u) {
            out_normal = vec3(dot(r0, normal), dot(r1, normal), dot(r2, normal));
        } else {
            vec3 c0 = cross(r1, r2);
            float det = dot(r0, c0);
            vec3 n = vec3(dot(c0, normal), dot(cross(r2, r0), normal), dot(cross(r0, r1), normal));
            out_normal = det < 0.0 ? -n : n;
        }
    } else {
        vec4 q = mix(bone_texel(a), bone_texel(b), frames.blend);
        float length_squared = dot(q, q);
        q = length_squared > 0.0 ? q * inversesqrt(length_squared) : vec4(0.0, 0.0, 0.0, 1.0);
        vec4 translation_scale = mix(bone_texel(a + 1u), bone_texel(b + 1u), frames.blend);
        out_point = translation_scale.w * quat_rotate(q, point) + translation_scale.xyz;
        // A negative scale mirrors: the normal flips with it.
        out_normal = sign(translation_scale.w) * quat_rotate(q, normal);
    }
}

// One bone's dual quaternion, blended between the pose's frame pair and
// normalized by its real part (as horde_asset::skinning::decode_bone does).
void bone_dual_quat(ClipPose pose, uint bone_count, uint bone, out vec4 real, out vec4 dual) {
    FramePair frames = pose.frames;
    uint a = pose.first_texel + (frames.first * bone_count + bone) * 2u;
    uint b = pose.first_texel + (frames.second * bone_count + bone) * 2u;
    real = mix(bone_texel(a), bone_texel(b), frames.blend);
    dual = mix(bone_texel(a + 1u), bone_texel(b + 1u), frames.blend);
    float len = length(real);
    real = len > 0.0 ? real / len : vec4(0.0, 0.0, 0.0, 1.0);
    dual = len > 0.0 ? dual / len : vec4(0.0);
}

// Dual-quaternion blend of two bones (the second in the first's hemisphere),
// normalized, applied to a point (rotation, then translation 2 d r*) and a
// normal (rotation).
vec3 skin_dual_quat(ClipPose pose, uint bone_count, uvec2 bones, float weight, vec3 point,
                    vec3 normal, out vec3 out_normal) {
    vec4 r0;
    vec4 d0;
    vec4 r1;
    vec4 d1;
    bone_dual_quat(pose, bone_count, bones.x, r0, d0);
    bone_dual_quat(pose, bone_count, bones.y, r1, d1);
    float w1 = dot(r0, r1) < 0.0 ? weight - 1.0 : 1.0 - weight;
    vec4 real = r0 * weight + r1 * w1;
    vec4 dual = d0 * weight + d1 * w1;
    float len = length(real);
    real = len > 0.0 ? real / len : vec4(0.0, 0.0, 0.0, 1.0);
    dual = len > 0.0 ? dual / len : vec4(0.0);
    vec3 translation = 2.0 * (real.w * dual.xyz - dual.w * real.xyz + cross(real.xyz, dual.xyz));
    out_normal = normalize(quat_rotate(real, normal));
    return quat_rotate(real, point) + translation;
}

// One reciprocal square root, not a square root and a division: this runs
// for every bone of every skinned vertex.
vec3 safe_normalize(vec3 v) {
    float length_squared = dot(v, v);
    return length_squared > 0.0 ? v * inversesqrt(length_squared) : vec3(0.0, 1.0, 0.0);
}

// Skins a model-space point and normal (any length) with two bones of a
// clip's pose; the normal comes out as a direction (rule 4): at most unit
// length, or about the type's one bone scale with BONE_SHAPE 2, for every
// clip alike, so that a crossfade can mix two of them.
vec3 skin_posed(ClipPose pose, uint bone_count, uvec2 bones, float weight, vec3 point,
                vec3 normal, out vec3 out_normal) {
    if (BONE_ENCODING == 2u) {
        return skin_dual_quat(pose, bone_count, bones, weight, point, normal, out_normal);
    }
    vec3 p0;
    vec3 n0;
    apply_bone(pose, bone_count, bones.x, point, normal, p0, n0);
    if (BONE_SHAPE != 2u) {
        n0 = safe_normalize(n0);
    }
    if (weight >= 1.0) {
        out_normal = n0;
        return p0;
    }
    vec3 p1;
    vec3 n1;
    apply_bone(pose, bone_count, bones.y, point, normal, p1, n1);
    if (BONE_SHAPE != 2u) {
        n1 = safe_normalize(n1);
    }
    out_normal = n0 * weight + n1 * (1.0 - weight);
    return p0 * weight + p1 * (1.0 - weight);
}

// The same, `time` into `clip`.
vec3 skin(ClipInfo clip, uint bone_count, float time, uvec2 bones, float weight,
          vec3 point, vec3 normal, out vec3 out_normal) {
    return skin_posed(clip_pose(clip, time), bone_count, bones, weight, point, normal,
                      out_normal);
}

// A unit's pose: the current clip's pose crossfaded from the previous
// clip's by `blend` (1: the current clip alone). A clip of weight 0 is not
// sampled, so a finished crossfade and a unit at either end of a walk/run
// blend skin once.
vec3 skin_crossfade_posed(ClipPose current, ClipPose previous, float blend, uint bone_count,
                          uvec2 bones, float weight, vec3 point, vec3 normal,
                          out vec3 out_normal) {
    if (!(blend < 1.0)) {
        return skin_posed(current, bone_count, bones, weight, point, normal, out_normal);
    }
    vec3 previous_normal;
    vec3 previous_position = skin_posed(previous, bone_count, bones, weight, point, normal,
                                        previous_normal);
    if (!(blend > 0.0)) {
        out_normal = previous_normal;
        return previous_position;
    }
    vec3 current_normal;
    vec3 position = skin_posed(current, bone_count, bones, weight, point, normal,
                               current_normal);
    out_normal = mix(previous_normal, current_normal, blend);
    return mix(previous_position, position, blend);
}

// The same, the current clip at `time_current`, the previous at
// `time_previous`.
vec3 skin_crossfade(ClipInfo current, float time_current, ClipInfo previous,
                    float time_previous, float blend, uint bone_count, uvec2 bones,
                    float weight, vec3 point, vec3 normal, out vec3 out_normal) {
    return skin_crossfade_posed(clip_pose(current, time_current),
                                clip_pose(previous, time_previous), blend, bone_count, bones,
                                weight, point, normal, out_normal);
}

#endif
