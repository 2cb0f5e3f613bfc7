#version 450
// Scatters staged records to their slots: the upload of sparse changes in one
// dispatch instead of one copy region per changed record. The staging buffer
// holds, per record, its destination index followed by its words.
#include "types.glsl"

layout(constant_id = 0) const uint WORKGROUP_SIZE = 64u;
layout(local_size_x_id = 0) in;

layout(set = 0, binding = 0, std430) readonly buffer Staged { uint staged[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Destination { uint destination[]; };

layout(push_constant) uniform Push {
    uint count;          // records to scatter
    uint words;          // words per record
    uint first_word;     // where the first record's index is in `staged`
    uint destination_words; // size of `destination` in words, for the bounds check
} push;

void main() {
    uint record = gl_GlobalInvocationID.x;
    if (record >= push.count) {
        return;
    }
    uint source = push.first_word + record * (push.words + 1u);
    uint target = staged[source] * push.words;
    if (target + push.words > push.destination_words) {
        return;
    }
    for (uint word = 0u; word < push.words; word++) {
        destination[target + word] = staged[source + 1u + word];
    }
}
