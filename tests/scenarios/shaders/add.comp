#version 450
// incident4: c = a + b over 256 floats.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer A { float a[]; };
layout(set = 0, binding = 1) readonly buffer B { float b[]; };
layout(set = 0, binding = 2) writeonly buffer C { float c[]; };

void main() {
  uint i = gl_GlobalInvocationID.x;
  c[i] = a[i] + b[i];
}
