#version 450
// Translucent bounding spheres, brighter at the rim, coloured by LOD.
#include "types.glsl"

layout(location = 0) in vec3 in_normal;
layout(location = 1) flat in uint in_lod;

layout(location = 0) out vec4 out_color;

const vec3 LOD_COLORS[4] = vec3[4](vec3(0.1, 0.8, 0.2), vec3(0.95, 0.8, 0.1), vec3(0.9, 0.2, 0.1), vec3(0.6, 0.2, 0.9));

void main() {
    float rim = 1.0 - abs(normalize(in_normal).y);
    out_color = vec4(LOD_COLORS[min(in_lod, 3u)], 0.12 + 0.25 * rim);
}
