#version 450
// incident5: samples one texture (set 0, the cached bind group) into an output slot (set 1).
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) uniform sampler2D tex;
layout(set = 1, binding = 0) writeonly buffer Output { vec4 texels[]; };
layout(push_constant) uniform Push { uint index; } push;

void main() {
  texels[push.index] = textureLod(tex, vec2(0.5, 0.5), 0.0);
}
