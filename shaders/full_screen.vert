#version 450
// One triangle over the whole target at the far plane (depth 0, reverse-Z):
// vertex 0 at the top left, 1 and 2 past the right and bottom edges. The
// far field's resolve and the sky draw it.
void main() {
    vec2 corner = vec2(float((gl_VertexIndex << 1) & 2), float(gl_VertexIndex & 2));
    gl_Position = vec4(corner * 2.0 - 1.0, 0.0, 1.0);
}
