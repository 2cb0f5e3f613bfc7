// Occlusion of a bounding sphere by the depth pyramid (two-phase Hi-Z
// culling as zeux/niagara does it), read from its atlas: every level in one
// R32_SFLOAT image, stacked vertically, level k's texel (x, y) at
// (x, row_k + y), row_k the sum of the heights of the levels before it. The
// layout (and why an atlas) is in the module doc of
// engine/src/passes/depth_pyramid.rs, and
// engine/src/reference/depth_pyramid.rs (`sphere_occluded`) is the CPU twin.
// The including shader defines DEPTH_PYRAMID_SET and DEPTH_PYRAMID_BINDING
// first, where a combined image sampler of the atlas goes (read with
// texelFetch only, so the sampler's filter does not matter).
//
// Reverse-Z, infinite far: a point d ahead of the camera has depth near / d,
// and each pyramid texel holds the farthest (smallest) depth of its pixels.
// 1. A sphere reaching the near plane (z - r <= near, z its centre's
//    distance ahead) is never occluded.
// 2. Its exact screen bounds, per axis: in the plane of that axis and the
//    forward axis, the tangents from the eye to the circle of centre (c, z)
//    and radius r have slopes t = (cz ± r sqrt(c² + z² - r²)) / (z² - r²)
//    (a line X = tZ lies at distance |c - tz| / sqrt(1 + t²) from the
//    centre; setting that to r gives (z² - r²)t² - 2cz t + c² - r² = 0).
//    NDC = scale * t, pixel = (NDC / 2 + 1/2) * viewport; the projection's
//    scale may be negative (Vulkan's Y-down), so the ends are sorted.
// 3. The pixel rectangle, widened by a pixel each side (the slopes' float
//    error is far below that) and clamped to the viewport; off screen: not
//    occluded (the frustum cull's business).
// 4. Its base texels (pixel >> 1); the finest level L where they span at
//    most OCCLUSION_FOOTPRINT_TEXELS (8) texels per axis; the min of those
//    (up to 64) texels, which cover the whole rectangle. A footprint of
//    2 x 2 (zeux/niagara's) is read two levels coarser, where each texel
//    reaches further past the sphere into the gaps between units, where
//    the ground or the sky lies farther: at the 1M ground preset 2 x 2 hid
//    254,528 units, 4 x 4 361,316, 8 x 8 373,316 (its late cull 0.004 ms
//    slower than 4 x 4's), 16 x 16 hardly more (benches/results/near_field,
//    section 21). An atlas too small for pyramid_size (none built yet, a
//    placeholder) hides nothing.
// 5. Occluded when the sphere's nearest depth, near / (z - r), is smaller
//    (farther) than that min, with a small margin.
// Every step is written as the twin writes it (`precise`: no fused
// multiply-add), so the two agree except where sqrt's or the division's
// looser Vulkan precision tips a pixel bound or the final comparison.
#ifndef HORDE_OCCLUSION_GLSL
#define HORDE_OCCLUSION_GLSL

layout(set = DEPTH_PYRAMID_SET, binding = DEPTH_PYRAMID_BINDING) uniform sampler2D depth_pyramid;

// How much nearer than computed the sphere is taken to be, relatively:
// Vulkan's division is accurate to 2.5 ULP, not correctly rounded, so a
// sphere just in front of the pyramid's depth could come out a hair behind
// it. 2^-16 covers that many times over and hides nothing one could see
// (1.5 mm at 100 m). The twin's OCCLUSION_DEPTH_MARGIN is the same.
const float OCCLUSION_DEPTH_MARGIN = 1.0 / 65536.0;

// The slopes X/Z of the two tangents to the circle of centre (c, z) and
// radius r in one screen axis's plane; `denominator` = (z - r)(z + r) > 0.
vec2 occlusion_tangent_slopes(float c, float z, float r, float denominator) {
    precise float root = r * sqrt(c * c + denominator);
    precise float cz = c * z;
    return vec2((cz - root) / denominator, (cz + root) / denominator);
}

// The pixels [first, last] of a viewport `size` pixels across that the
// slopes span projected with `scale`, widened by one each side and
// clamped; false when none is on screen.
bool occlusion_pixel_range(vec2 slopes, float scale, uint size, out uint first, out uint last) {
    precise vec2 pixels = (scale * slopes * 0.5 + 0.5) * float(size);
    precise float low = floor(min(pixels.x, pixels.y)) - 1.0;
    precise float high = floor(max(pixels.x, pixels.y)) + 1.0;
    float limit = float(size) - 1.0;
    first = 0u;
    last = 0u;
    if (!(high >= 0.0) || !(low <= limit)) {
        return false;
    }
    first = uint(max(low, 0.0));
    last = uint(min(high, limit));
    return true;
}

// True only where the sphere is certainly hidden behind the pyramid's
// depths. centre_view: the centre in view space (right-handed, the camera
// looks down -Z, +Y up); projection_scale: (P[0][0], P[1][1]) of the
// projection, either sign; near: the near distance; viewport: the depth
// image in pixels; pyramid_size: the base level, ceil(viewport / 2).
bool sphere_occluded(vec3 centre_view, float radius, vec2 projection_scale, float near,
                     uvec2 viewport, uvec2 pyramid_size) {
    precise float z = -centre_view.z;
    precise float nearest = z - radius;
    // Written as negations so that NaN answers "not occluded".
    if (!(radius >= 0.0) || !(near > 0.0) || !(nearest > near)
        || any(equal(viewport, uvec2(0u))) || any(equal(pyramid_size, uvec2(0u)))) {
        return false;
    }
    precise float denominator = nearest * (z + radius);
    uvec2 first;
    uvec2 last;
    if (!occlusion_pixel_range(occlusion_tangent_slopes(centre_view.x, z, radius, denominator),
                               projection_scale.x, viewport.x, first.x, last.x)
        || !occlusion_pixel_range(occlusion_tangent_slopes(centre_view.y, z, radius, denominator),
                                  projection_scale.y, viewport.y, first.y, last.y)) {
        return false;
    }
    uvec2 low = first >> 1u;
    uvec2 high = last >> 1u;
    uint level = 0u;
    // The atlas row where the level starts.
    uint row = 0u;
    uvec2 size = pyramid_size;
    while (level < 31u && any(greaterThan(size, uvec2(1u)))
           && any(greaterThan((high >> level) - (low >> level),
                              uvec2(OCCLUSION_FOOTPRINT_TEXELS - 1u)))) {
        row += size.y;
        size = size / 2u + (size & 1u);
        level++;
    }
    uvec2 a = min(low >> level, size - 1u);
    uvec2 b = min(high >> level, size - 1u);
    uint row_a = row + a.y;
    uint row_b = row + b.y;
    // An atlas narrower than pyramid_size says, or without the rows read
    // (none built yet: the 1 x 1 placeholder), hides nothing; this also
    // keeps every texelFetch inside the image.
    uvec2 atlas_size = uvec2(textureSize(depth_pyramid, 0));
    if (atlas_size.x < pyramid_size.x || row_b >= atlas_size.y) {
        return false;
    }
    float farthest = uintBitsToFloat(0x7f800000u);
    for (uint y = row_a; y <= row_b; y++) {
        for (uint x = a.x; x <= b.x; x++) {
            farthest = min(farthest, texelFetch(depth_pyramid, ivec2(x, y), 0).r);
        }
    }
    precise float sphere_depth = near / nearest;
    precise float with_margin = sphere_depth * (1.0 + OCCLUSION_DEPTH_MARGIN);
    return with_margin < farthest;
}

#endif
