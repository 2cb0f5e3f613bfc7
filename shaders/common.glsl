// Shared GLSL helpers. Config constants (LOD_COUNT, ...) arrive as macro
// definitions from engine/src/config.rs.
#ifndef HORDE_COMMON_GLSL
#define HORDE_COMMON_GLSL

#endif
