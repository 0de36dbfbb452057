#version 450
// every_object_type: a triangle from gl_VertexIndex, no vertex buffers.
void main() {
  vec2 positions[3] = vec2[](vec2(-0.5, 0.5), vec2(0.5, 0.5), vec2(0.0, -0.5));
  gl_Position = vec4(positions[gl_VertexIndex], 0.0, 1.0);
}
