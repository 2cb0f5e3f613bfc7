#version 450
// The far field's resolve: one triangle over the whole target (vertex 0 at
// the top left, 1 and 2 past the right and bottom edges).
void main() {
    vec2 corner = vec2(float((gl_VertexIndex << 1) & 2), float(gl_VertexIndex & 2));
    gl_Position = vec4(corner * 2.0 - 1.0, 0.0, 1.0);
}
