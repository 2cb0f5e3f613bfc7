//! The baselines: what users would otherwise pick to draw a crowd, in the
//! same binary and on the same GPU, so benchmarks compare the GPU-driven
//! frame with each as a ratio (`RenderSettings::strategy`):
//! - [`naive`]: CPU skinning into a dynamic vertex buffer, one draw per unit
//!   (a SkinnedMeshRenderer);
//! - [`instanced`]: bone-texture skinning, instanced, no culling, LOD 0
//!   everywhere (GPU Gems 3 ch. 2, Unity Animation Instancing);
//! - [`cpu_cull`]: CPU frustum culling and LOD on worker threads, lists
//!   uploaded per frame (the Unite Austin 2017 demo).
//!
//! They stand in for the cull pass (and `naive` for the animate pass too)
//! and draw through the production draw pass: their lists share the cull's
//! layout, and `naive`'s own per-unit draws enter the render pass as an
//! extra draw (`passes::draw::ExtraDraw`). The production passes depend on
//! none of them; the renderer picks one.

pub mod cpu_cull;
pub mod instanced;
pub mod naive;
