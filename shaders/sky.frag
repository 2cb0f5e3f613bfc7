#version 450
// The sky: the main render pass's colour wherever no draw covered a sample
// (engine/src/passes/draw.rs). Drawn with full_screen.vert at the far plane,
// tested GREATER_OR_EQUAL against the depth cleared to 0 and writing none,
// so it fills exactly the samples nothing else did: the render pass leaves
// its colour undefined instead of clearing it (a clear the render pipeline
// writes in full, 33 MB at 1080p with 4x MSAA).
layout(push_constant) uniform Sky {
    // Linear colour.
    vec4 color;
} sky;

layout(location = 0) out vec4 out_color;

void main() {
    out_color = sky.color;
}
