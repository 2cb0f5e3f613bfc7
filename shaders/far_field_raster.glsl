// The far field's triangle rasterizer, shared by far_field.comp and its test
// kernel far_field_test.comp; engine/src/reference/far_field.rs is its CPU
// twin, which the coverage test holds to the same result pixel for pixel.
//
// The includer enables 64-bit integers and defines
// FAR_FIELD_WRITE(x, y, key) (int, int, uint64_t), called once per covered
// pixel with key = depth bits << 32 | payload. It may define
// FAR_FIELD_PAYLOAD(wa, wb, wc, area), the payload of a covered pixel from
// the corners' integer barycentric weights (a's, b's, c's as passed, which
// sum to `area`); without it every pixel gets far_rasterize's `payload`.
// It may define FAR_FIELD_MAY_WIN(x, y, weighted, area), false where the
// pixel's depth, weighted / area, surely loses to what the pixel holds
// (far_may_win with the pixel's key): the pixel then skips its 64-bit
// division and its payload.
//
// 1. far_project: clip -> a vertex snapped to 1/2^FAR_FIELD_SUBPIXEL_BITS
//    pixel (clamped to a guard band so it fits an int) and its reverse-Z
//    depth as float bits; depth_bits 0 marks a vertex on the camera side of
//    the near plane (or behind the camera).
// 2. far_triangle_setup: reject (all vertices before the near plane, or no
//    pixel centre inside the snapped box on screen), fall back (some vertices
//    before the near plane, or a box over FAR_FIELD_MAX_TRIANGLE_PX: the
//    raster must draw the unit), or the range of pixels to test.
// 3. far_rasterize: integer edge functions relative to the box corner (at
//    most 2^13 sub-pixels a side, so products fit 32 bits), the top-left
//    fill rule (Vulkan's rule: an edge pixel belongs to exactly one of two
//    triangles sharing the edge), and depth interpolated from the float bits
//    with the integer barycentric weights in 64 bits: exact, monotonic, and
//    linear in depth wherever the three depths share an exponent (always,
//    within a few-pixel unit).
#ifndef HORDE_FAR_FIELD_RASTER_GLSL
#define HORDE_FAR_FIELD_RASTER_GLSL

#ifndef FAR_FIELD_PAYLOAD
#define FAR_FIELD_PAYLOAD(wa, wb, wc, area) payload
#endif
#ifndef FAR_FIELD_MAY_WIN
#define FAR_FIELD_MAY_WIN(x, y, weighted, area) true
#endif

const uint FAR_TRIANGLE_REJECT = 0u;
const uint FAR_TRIANGLE_RASTER = 1u;
const uint FAR_TRIANGLE_FALLBACK = 2u;

const int FAR_SUBPIXEL = 1 << int(FAR_FIELD_SUBPIXEL_BITS);

struct FarVertex {
    ivec2 position;
    uint depth_bits;
};

FarVertex far_project(vec4 clip, vec2 viewport) {
    FarVertex v = FarVertex(ivec2(0), 0u);
    // Reverse-Z: depth z / w is 1 at the near plane and falls towards 0 at
    // infinity; a vertex is past the near plane when w > 0 and z <= w.
    if (!(clip.w > 0.0) || !(clip.z <= clip.w)) {
        return v;
    }
    precise vec2 ndc = clip.xy / clip.w;
    precise vec2 pixel = (ndc * 0.5 + 0.5) * viewport;
    float guard = float(FAR_FIELD_GUARD_PX);
    pixel = clamp(pixel, vec2(-guard), viewport + guard);
    precise vec2 scaled = pixel * float(FAR_SUBPIXEL) + 0.5;
    v.position = ivec2(floor(scaled));
    // Past the far plane (a shadow cascade's; the camera's is at infinity)
    // depth would be negative, whose bits order above every positive one.
    precise float depth = max(clip.z / clip.w, 0.0);
    v.depth_bits = max(floatBitsToUint(depth), 1u);
    return v;
}

// What to do with a triangle; `pixels` (first x, first y, last x, last y)
// when it is to be rasterized.
uint far_triangle_setup(FarVertex a, FarVertex b, FarVertex c, ivec2 target, out ivec4 pixels) {
    pixels = ivec4(0, 0, -1, -1);
    uint before_near = uint(a.depth_bits == 0u) + uint(b.depth_bits == 0u) + uint(c.depth_bits == 0u);
    if (before_near == 3u) {
        return FAR_TRIANGLE_REJECT;
    }
    if (before_near > 0u) {
        return FAR_TRIANGLE_FALLBACK;
    }
    ivec2 lo = min(min(a.position, b.position), c.position);
    ivec2 hi = max(max(a.position, b.position), c.position);
    // Pixels whose centre x * S + S / 2 lies inside [lo, hi], on the target.
    int shift = int(FAR_FIELD_SUBPIXEL_BITS);
    ivec2 first = max((lo - FAR_SUBPIXEL / 2 + (FAR_SUBPIXEL - 1)) >> shift, ivec2(0));
    ivec2 last = min((hi - FAR_SUBPIXEL / 2) >> shift, target - 1);
    if (first.x > last.x || first.y > last.y) {
        return FAR_TRIANGLE_REJECT;
    }
    int largest = int(FAR_FIELD_MAX_TRIANGLE_PX) * FAR_SUBPIXEL;
    if (hi.x - lo.x > largest || hi.y - lo.y > largest) {
        return FAR_TRIANGLE_FALLBACK;
    }
    pixels = ivec4(first, last);
    return FAR_TRIANGLE_RASTER;
}

// Twice the signed area of p (relative to `from` -> `to`) in sub-pixels.
int far_edge(ivec2 from, ivec2 to, ivec2 p) {
    return (to.x - from.x) * (p.y - from.y) - (to.y - from.y) * (p.x - from.x);
}

// Twice the signed area of a triangle set up for rasterization, in y-down
// framebuffer coordinates: negative is counter-clockwise on screen, which is
// front-facing (FrontFace::COUNTER_CLOCKWISE).
int far_triangle_area(FarVertex a, FarVertex b, FarVertex c) {
    ivec2 origin = min(min(a.position, b.position), c.position);
    return far_edge(a.position - origin, b.position - origin, c.position - origin);
}

// Whether a sample of depth floor(weighted / area) may still win a pixel
// whose key is `stored`: not where the stored depth is greater,
// stored_depth > weighted / area <=> weighted < stored_depth * area. Such a
// sample's key is smaller whatever its payload. One of equal depth may win
// by its payload, so it is kept: the larger key wins in any order.
bool far_may_win(uint64_t weighted, int area, uint64_t stored) {
    return weighted >= (stored >> 32) * uint64_t(area);
}

// floor(n / d), exactly, for 0 < d < 2^31 and a quotient below 2^32 (a
// depth: weighted depth bits over the weights' sum). The hardware has no
// 64-bit division, and its emulation is long: this took the 1M front's far
// field from 7.91 to 7.66 ms on an H200 (benches/results/near_field/, call
// 53), the same bits. A float estimate is off by at most about 2^-21 of
// the quotient (float(n), float(d) and the division each within a few
// ulps), so the remainder is within about 2^11 d; a second float step on
// the remainder leaves the quotient off by at most one, which the last
// integer step corrects.
uint64_t far_divide(uint64_t n, int d) {
    int64_t divisor = int64_t(d);
    float inverse = 1.0 / float(d);
    int64_t q = int64_t(float(n) * inverse);
    int64_t r = int64_t(n) - q * divisor;
    q += int64_t(floor(float(r) * inverse));
    r = int64_t(n) - q * divisor;
    if (r < 0l) {
        q -= 1l;
    } else if (r >= divisor) {
        q += 1l;
    }
    return uint64_t(q);
}

// With the inside on the positive side of every edge: a top edge (flat,
// going right) or a left edge (going up the screen) owns its pixels.
bool far_top_left(ivec2 from, ivec2 to) {
    ivec2 d = to - from;
    return d.y < 0 || (d.y == 0 && d.x > 0);
}

void far_rasterize(FarVertex a, FarVertex b, FarVertex c, ivec4 pixels, uint payload) {
    ivec2 origin = min(min(a.position, b.position), c.position);
    ivec2 pa = a.position - origin;
    ivec2 pb = b.position - origin;
    ivec2 pc = c.position - origin;
    uint za = a.depth_bits;
    uint zb = b.depth_bits;
    uint zc = c.depth_bits;
    int area = far_edge(pa, pb, pc);
    // After the swap below, b's weight is c's and c's is b's.
    bool swapped = area < 0;
    if (swapped) {
        ivec2 p = pb;
        pb = pc;
        pc = p;
        uint z = zb;
        zb = zc;
        zc = z;
        area = -area;
    }
    if (area == 0) {
        return;
    }
    int bias_a = far_top_left(pb, pc) ? 0 : -1;
    int bias_b = far_top_left(pc, pa) ? 0 : -1;
    int bias_c = far_top_left(pa, pb) ? 0 : -1;
    for (int y = pixels.y; y <= pixels.w; y++) {
        for (int x = pixels.x; x <= pixels.z; x++) {
            ivec2 p = ivec2(x, y) * FAR_SUBPIXEL + FAR_SUBPIXEL / 2 - origin;
            int wa = far_edge(pb, pc, p);
            int wb = far_edge(pc, pa, p);
            int wc = far_edge(pa, pb, p);
            if (wa + bias_a >= 0 && wb + bias_b >= 0 && wc + bias_c >= 0) {
                uint64_t weighted = uint64_t(wa) * uint64_t(za) + uint64_t(wb) * uint64_t(zb)
                                  + uint64_t(wc) * uint64_t(zc);
                if (!FAR_FIELD_MAY_WIN(x, y, weighted, area)) {
                    continue;
                }
                uint64_t depth = far_divide(weighted, area);
                uint pixel_payload = swapped ? FAR_FIELD_PAYLOAD(wa, wc, wb, area)
                                             : FAR_FIELD_PAYLOAD(wa, wb, wc, area);
                FAR_FIELD_WRITE(x, y, (depth << 32) | uint64_t(pixel_payload));
            }
        }
    }
}

#endif
