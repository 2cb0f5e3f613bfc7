#version 450
// Translucent bounding spheres, brighter at the rim, coloured by route.
#include "types.glsl"
#include "common.glsl"

layout(location = 0) in vec3 in_normal;
layout(location = 1) flat in uint in_route;

layout(location = 0) out vec4 out_color;

void main() {
    float rim = 1.0 - abs(normalize(in_normal).y);
    out_color = vec4(route_color(in_route), 0.12 + 0.25 * rim);
}
