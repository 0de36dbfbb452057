#version 450
// incident3: reads and writes the storage buffer "compute.input" and the texel view "compute.view".
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Input { uint values[]; } data;
layout(set = 0, binding = 1, r32ui) uniform uimageBuffer texels;

void main() {
  uint i = gl_GlobalInvocationID.x;
  data.values[i] += 1u;
  imageStore(texels, int(i), uvec4(data.values[i]));
}
