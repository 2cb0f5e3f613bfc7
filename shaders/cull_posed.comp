#version 450
// The cull whose occlusion test takes each unit's sphere from the clips it
// plays (cull.glsl says what it does).
#define CULL_POSED_SPHERES
#include "cull.glsl"
