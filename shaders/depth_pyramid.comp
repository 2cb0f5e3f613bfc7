#version 450
// One level of the depth pyramid from the level below it, in the one
// buffer that holds them all; the module doc of
// engine/src/passes/depth_pyramid.rs explains the layout, and
// engine/src/reference/depth_pyramid.rs is the CPU twin.
//
// Level k is ceil(w / 2) x ceil(h / 2) texels for a level k - 1 of w x h,
// stored row by row right after it. Texel (x, y) is the min (reverse-Z: the
// farthest depth) of the source texels (2x..2x+1, 2y..2y+1) inside the
// source level: one past the last column or row is replaced by the last,
// already counted. So a level-k texel covers exactly the pixels
// [x * 2^(k+1), (x + 1) * 2^(k+1)) of the depth image along each axis,
// clipped to it, with no rounding of odd sizes to powers of two.
//
// One thread per destination texel over a bounded grid, striding as the
// base level does. The source and destination ranges do not overlap; the
// pass puts a barrier between levels.

layout(local_size_x = 64) in;

layout(set = 0, binding = 0, std430) buffer DepthPyramid { float depth_pyramid[]; };

layout(push_constant) uniform Dispatch {
    // Where level k - 1 starts (in floats) and its size in texels.
    uint source_offset;
    uint source_width;
    uint source_height;
    // Where level k starts; its size follows from the source's.
    uint destination_offset;
} dispatch;

float source_texel(uvec2 t) {
    return depth_pyramid[dispatch.source_offset + t.y * dispatch.source_width + t.x];
}

void main() {
    uvec2 source = uvec2(dispatch.source_width, dispatch.source_height);
    uvec2 size = source / 2u + (source & 1u);
    uint count = size.x * size.y;
    uint floats = uint(depth_pyramid.length());
    if (dispatch.source_offset + source.x * source.y > floats
        || dispatch.destination_offset + count > floats) {
        return;
    }
    uvec2 last = source - 1u;
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint i = gl_GlobalInvocationID.x; i < count; i += stride) {
        uvec2 t0 = 2u * uvec2(i % size.x, i / size.x);
        uvec2 t1 = min(t0 + 1u, last);
        depth_pyramid[dispatch.destination_offset + i] =
            min(min(source_texel(t0), source_texel(uvec2(t1.x, t0.y))),
                min(source_texel(uvec2(t0.x, t1.y)), source_texel(t1)));
    }
}
