//! The frame's `FrameGlobals`: camera, light, fog, the cull's impostor band
//! and the shadow cascades the receivers look up (as last drawn); the view
//! the cascades are fitted to; and, for tests, the cascades and their
//! depths read back.

use ash::vk;

use super::Renderer;
use crate::camera::Camera;
use crate::config::MAX_SHADOW_CASCADES;
use crate::context::Context;
use crate::gpu_types::{CullGlobals, FrameGlobals};
use crate::shadow::{Cascade, ShadowView};
use crate::Error;

impl Renderer {
    /// The view this frame's shadow cascades are fitted to: the camera's,
    /// the environment's sun and ground, the settings' distance.
    pub(super) fn shadow_view(&self, camera: &Camera, extent: vk::Extent2D) -> ShadowView {
        ShadowView {
            camera: *camera,
            aspect: extent.width.max(1) as f32 / extent.height.max(1) as f32,
            sun_direction: self.environment.sun_direction,
            ground_bottom: self.environment.ground_bottom,
            ground_top: self.environment.ground_top,
            distance: self.settings.shadow_distance,
            cascade_count: MAX_SHADOW_CASCADES,
            map_size: self.shadow.map_size,
        }
    }

    /// The shadow cascades a frame drawn from `camera` into a target of
    /// `extent` fits, whether or not shadows are on.
    pub fn shadow_cascades(&self, camera: &Camera, extent: vk::Extent2D) -> Vec<Cascade> {
        self.shadow.cascades(&self.shadow_view(camera, extent))
    }

    /// The shadow depths the receivers read in the last frame, cascade after
    /// cascade, [`Renderer::shadow_map_size`] rows of as many texels each
    /// (reverse-Z floats: 0 where nothing casts). Waits for the GPU: for
    /// tests, never per frame.
    pub fn read_shadow_depths(&self, ctx: &Context) -> Result<Vec<f32>, Error> {
        self.shadow.read_depths(ctx)
    }

    /// Texels along a side of each shadow cascade's map.
    pub fn shadow_map_size(&self) -> u32 {
        self.shadow.map_size
    }

    /// Writes slot `slot`'s `FrameGlobals`; returns its buffer.
    pub(super) fn write_globals(
        &mut self,
        slot: usize,
        camera: &Camera,
        extent: vk::Extent2D,
        debug_view: u32,
        (cull, cascades): (&CullGlobals, &[Cascade]),
    ) -> Result<vk::Buffer, Error> {
        let (w, h) = (extent.width.max(1) as f32, extent.height.max(1) as f32);
        let env = &self.environment;
        let mut globals = FrameGlobals {
            view_proj: camera.view_projection(w / h).to_cols_array_2d(),
            camera_position: camera.position.to_array(),
            debug_view,
            light_direction: env.sun_direction.normalize().to_array(),
            ambient: env.ambient,
            light_color: env.sun_color.to_array(),
            fog_density: env.fog_density,
            fog_color: env.fog_color.to_array(),
            time: self.time,
            viewport_size: [w, h],
            inverse_viewport_size: [1.0 / w, 1.0 / h],
            pixels_per_unit: cull.pixels_per_unit,
            impostor_threshold_px: cull.impostor_threshold_px,
            impostor_band: cull.impostor_band,
            shadow_inverse_size: 1.0 / self.shadow.map_size as f32,
            ground_texture_scale: self.world.ground_texture_scale,
            ..FrameGlobals::default()
        };
        let cascades = &cascades[..cascades.len().min(MAX_SHADOW_CASCADES as usize)];
        globals.shadow_cascade_count = cascades.len() as u32;
        for (index, cascade) in cascades.iter().enumerate() {
            globals.shadow_view_proj[index] = cascade.view_proj.to_cols_array_2d();
            globals.shadow_cascade_bias[index] = cascade.bias();
            globals.shadow_distance = cascade.far;
        }
        self.globals[slot].write(0, &[globals])?;
        Ok(self.globals[slot].raw)
    }
}
