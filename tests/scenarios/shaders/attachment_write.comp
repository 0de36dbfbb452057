#version 450
// incident2: writes the frame number into the pass attachment through its R32_UINT buffer view.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0, r32ui) uniform writeonly uimageBuffer attachment;
layout(push_constant) uniform Push { uint frame; } push;

void main() {
  imageStore(attachment, int(gl_GlobalInvocationID.x), uvec4(push.frame));
}
