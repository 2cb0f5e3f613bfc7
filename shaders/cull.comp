#version 450
// The cull without the clips' spheres (cull.glsl says what it does).
#include "cull.glsl"
