#version 450
// The HUD's textured triangles (egui's `epaint::Vertex`): position in points
// from the top-left corner, texture coordinates, and an sRGB-encoded colour
// with premultiplied alpha. Points become clip space through the screen size
// in points; Vulkan's clip space has Y down, as egui's points do. The colour
// is decoded to linear because the target is an sRGB image that encodes on
// write.

layout(push_constant) uniform Push {
    vec2 screen_size_points;
} push;

layout(location = 0) in vec2 in_position;
layout(location = 1) in vec2 in_uv;
layout(location = 2) in vec4 in_color;

layout(location = 0) out vec4 out_color;
layout(location = 1) out vec2 out_uv;

vec3 linear_from_srgb(vec3 srgb) {
    vec3 lower = srgb / 12.92;
    vec3 higher = pow((srgb + 0.055) / 1.055, vec3(2.4));
    return mix(higher, lower, lessThan(srgb, vec3(0.04045)));
}

void main() {
    gl_Position = vec4(2.0 * in_position / push.screen_size_points - 1.0, 0.0, 1.0);
    out_color = vec4(linear_from_srgb(in_color.rgb), in_color.a);
    out_uv = in_uv;
}
