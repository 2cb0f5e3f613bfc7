#version 450
// Applies staged record writes: the upload of sparse changes in one dispatch
// instead of one copy region per changed record. Each staged entry is the
// destination record's index, a mask of the record's words to write, then the
// record's words; words outside the mask keep what the GPU wrote there.
#include "types.glsl"

layout(local_size_x_id = 0) in;

layout(set = 0, binding = 0, std430) readonly buffer Staged { uint staged[]; };
layout(set = 0, binding = 1, std430) buffer Destination { uint destination[]; };

layout(push_constant) uniform Push {
    uint count;             // entries to apply
    uint record_words;      // words per record (at most 32)
    uint first_word;        // where the first entry starts in `staged`
    uint destination_words; // size of `destination` in words, for the bounds check
} push;

void main() {
    uint entry = gl_GlobalInvocationID.x;
    if (entry >= push.count) {
        return;
    }
    uint source = push.first_word + entry * (push.record_words + 2u);
    uint target = staged[source] * push.record_words;
    uint mask = staged[source + 1u];
    if (target + push.record_words > push.destination_words) {
        return;
    }
    for (uint word = 0u; word < push.record_words; word++) {
        if ((mask & (1u << word)) != 0u) {
            destination[target + word] = staged[source + 2u + word];
        }
    }
}
