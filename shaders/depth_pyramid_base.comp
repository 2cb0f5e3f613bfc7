#version 450
// The depth pyramid's base level from a single-sampled depth image
// (depth_pyramid.glsl explains it).
#include "depth_pyramid.glsl"
