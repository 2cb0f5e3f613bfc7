#version 450
// egui's colours and textures carry premultiplied alpha; the shared pipeline
// blend multiplies by source alpha, so the colour is divided by it here.

layout(set = 0, binding = 0) uniform sampler2D hud_texture;

layout(location = 0) in vec4 in_color;
layout(location = 1) in vec2 in_uv;

layout(location = 0) out vec4 out_color;

void main() {
    vec4 premultiplied = in_color * texture(hud_texture, in_uv);
    float alpha = premultiplied.a;
    out_color = vec4(alpha > 0.0 ? premultiplied.rgb / alpha : vec3(0.0), alpha);
}
