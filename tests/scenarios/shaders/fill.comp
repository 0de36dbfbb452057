#version 450
// Writes a value into a storage buffer (clean_app, every_object_type).
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) writeonly buffer Data { uint values[]; };
layout(push_constant) uniform Push { uint value; } push;

void main() {
  values[gl_GlobalInvocationID.x] = push.value;
}
