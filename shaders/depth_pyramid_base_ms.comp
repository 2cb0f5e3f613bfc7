#version 450
// The depth pyramid's base level from a multisampled depth image: the min
// over every sample (depth_pyramid.glsl explains it).
#define MULTISAMPLED
#include "depth_pyramid.glsl"
