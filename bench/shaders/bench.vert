#version 450
// vkleak_bench record+submit: a small triangle per draw, moved and coloured by its descriptor
// set's uniform buffer.
layout(location = 0) in vec2 position;
layout(set = 0, binding = 0) uniform Params {
  vec4 offset;
  vec4 color;
} params;
layout(location = 0) out vec4 color;

void main() {
  gl_Position = vec4(position + params.offset.xy, 0.0, 1.0);
  color = params.color;
}
