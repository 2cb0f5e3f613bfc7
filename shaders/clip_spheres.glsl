// The sphere a unit's occlusion test takes from the clips it plays
// (`horde_asset::clip_bounds` makes each clip's; engine/src/passes/cull.rs
// says why). The including shader declares `clip_spheres`, an array of
// MAX_CLIPS vec4 indexed as the clip table: centre xyz, radius w, in the
// model's space. engine/src/reference/cull.rs's `occlusion_sphere` is the
// CPU twin; clip_spheres_test.comp runs this against it.
#ifndef HORDE_CLIP_SPHERES_GLSL
#define HORDE_CLIP_SPHERES_GLSL

// The smallest sphere around spheres `a` and `b` (centre xyz, radius w).
vec4 enclosing_sphere(vec4 a, vec4 b) {
    float gap = distance(a.xyz, b.xyz);
    if (gap + b.w <= a.w) {
        return a;
    }
    if (gap + a.w <= b.w) {
        return b;
    }
    float radius = (gap + a.w + b.w) * 0.5;
    return vec4(mix(a.xyz, b.xyz, (radius - a.w) / gap), radius);
}

// The sphere of the clip that `anim` plays among its type's `clip_count`
// clips from `first_clip`, around the previous clip's too while that
// fades out (the vertex shaders blend the two clips' positions,
// skin_crossfade_posed), where that is smaller than the type's sphere
// `whole`; else `whole`.
vec4 posed_sphere(vec4 whole, uint first_clip, uint clip_count, AnimState anim) {
    uint current = (anim.clips >> ANIM_CURRENT_CLIP_SHIFT) & 0xffu;
    uint previous = (anim.clips >> ANIM_PREVIOUS_CLIP_SHIFT) & 0xffu;
    if (clip_count == 0u || first_clip + clip_count > uint(MAX_CLIPS)
        || current >= clip_count || previous >= clip_count) {
        return whole;
    }
    vec4 sphere = clip_spheres[first_clip + current];
    if (unpackHalf2x16(anim.blend).x < 1.0) {
        sphere = enclosing_sphere(sphere, clip_spheres[first_clip + previous]);
    }
    return sphere.w < whole.w ? sphere : whole;
}

#endif
