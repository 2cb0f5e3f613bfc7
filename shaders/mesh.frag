#version 450
#include "types.glsl"
#include "common.glsl"

layout(set = 0, binding = 0) uniform Globals { FrameGlobals globals; };

layout(location = 0) in vec3 in_world_position;
layout(location = 1) in vec3 in_normal;
layout(location = 2) in vec4 in_tint;

layout(location = 0) out vec4 out_color;

void main() {
    out_color = vec4(shade(in_tint.rgb, in_normal, in_world_position, globals), 1.0);
}
