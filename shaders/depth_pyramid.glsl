// The depth pyramid's base level, shared by depth_pyramid_base.comp and
// depth_pyramid_base_ms.comp (which defines MULTISAMPLED first); the module
// doc of engine/src/passes/depth_pyramid.rs explains the layout, and
// engine/src/reference/depth_pyramid.rs is the CPU twin.
//
// Reverse-Z: the farthest depth is the smallest, so each texel keeps the MIN
// of its footprint, which never hides anything (conservative for
// occlusion). Base texel (x, y) of a width x height image is the min over
// the pixels (2x..2x+1, 2y..2y+1) inside the image and, when MULTISAMPLED,
// over every sample of each: a pixel past the last column or row is
// replaced by the last one, already counted, which leaves the min as it is.
// The level is ceil(width / 2) x ceil(height / 2) texels, row by row from
// the buffer's start. Min is exact, so the twin agrees bit for bit.
//
// With the far field (far_samples_per_axis > 0) a pixel's depth follows
// what its resolve shows (far_field_resolve.frag): the far field's samples
// (0 where one holds nothing) are tested against the raster's depth as
// one, at their nearest, and the covered ones averaged. So where even the
// nearest is behind every raster sample, the raster hides anything behind
// it, and the pixel keeps the raster's farthest; elsewhere every far
// sample shows, and a unit hides only behind the farthest of them (a unit
// drawn into an empty sample, or behind the raster at one, would show).
//
// One thread per texel over a grid of at most a few thousand workgroups,
// each thread striding over the level (a 1-D dispatch of one thread per
// texel would run out of workgroups at 8K).

layout(local_size_x = 64) in;

#ifdef MULTISAMPLED
// Samples per pixel of the depth attachment.
layout(constant_id = 0) const int SAMPLES = 4;
layout(set = 0, binding = 0) uniform sampler2DMS depth_image;
#else
layout(set = 0, binding = 0) uniform sampler2D depth_image;
#endif
layout(set = 0, binding = 1, std430) writeonly buffer DepthPyramid { float depth_pyramid[]; };
// The far field's visibility buffer (engine/src/passes/far_field/mod.rs):
// per sample (low word: colour, high word: reverse-Z depth bits), row by
// row over the sample grid, width × far_samples_per_axis wide.
layout(set = 0, binding = 2, std430) readonly buffer FarField { uvec2 far_field[]; };

layout(push_constant) uniform Dispatch {
    // The depth image, in pixels.
    uint width;
    uint height;
    // The far field's samples per pixel along each axis; 0: no far field.
    uint far_samples_per_axis;
} dispatch;

// The depth behind which nothing shows in pixel `p`, whose raster samples'
// farthest depth is `raster` (see the top of this file).
float with_far_field(ivec2 p, float raster) {
    uint n = dispatch.far_samples_per_axis;
    uint row = dispatch.width * n;
    uint farthest = 0xffffffffu;
    uint nearest = 0u;
    for (uint j = 0u; j < n; j++) {
        for (uint i = 0u; i < n; i++) {
            uint index = (uint(p.y) * n + j) * row + uint(p.x) * n + i;
            uint depth_bits = index < uint(far_field.length()) ? far_field[index].y : 0u;
            farthest = min(farthest, depth_bits);
            nearest = max(nearest, depth_bits);
        }
    }
    return uintBitsToFloat(nearest) <= raster ? raster : uintBitsToFloat(farthest);
}

// The farthest (smallest) depth of pixel `p`'s samples.
float pixel_farthest(ivec2 p) {
#ifdef MULTISAMPLED
    float farthest = texelFetch(depth_image, p, 0).r;
    for (int s = 1; s < SAMPLES; s++) {
        farthest = min(farthest, texelFetch(depth_image, p, s).r);
    }
#else
    float farthest = texelFetch(depth_image, p, 0).r;
#endif
    if (dispatch.far_samples_per_axis > 0u) {
        farthest = with_far_field(p, farthest);
    }
    return farthest;
}

void main() {
    uvec2 size = uvec2(dispatch.width, dispatch.height);
    uvec2 base = size / 2u + (size & 1u);
    uint count = min(base.x * base.y, uint(depth_pyramid.length()));
    ivec2 last = ivec2(size) - 1;
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint i = gl_GlobalInvocationID.x; i < count; i += stride) {
        ivec2 p0 = 2 * ivec2(i % base.x, i / base.x);
        ivec2 p1 = min(p0 + 1, last);
        depth_pyramid[i] = min(min(pixel_farthest(p0), pixel_farthest(ivec2(p1.x, p0.y))),
                               min(pixel_farthest(ivec2(p0.x, p1.y)), pixel_farthest(p1)));
    }
}
