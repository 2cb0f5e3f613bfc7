//! A perspective camera with reverse-Z and an infinite far plane.
//!
//! Reverse-Z maps the near plane to depth 1 and infinity to 0, which spreads
//! float precision evenly over distance; depth tests use `GREATER` and clear to
//! 0. The projection targets Vulkan's clip space (Y down), so the image is
//! upright with a plain viewport and front faces stay counter-clockwise.

use glam::{Mat4, Vec3};

/// Where the camera is and what it sees.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    pub position: Vec3,
    pub target: Vec3,
    /// Vertical field of view in radians.
    pub fov_y: f32,
    pub near: f32,
}

impl Camera {
    /// A camera at `position` looking at `target`, 50° vertical field of view.
    pub fn look_at(position: Vec3, target: Vec3) -> Camera {
        Camera {
            position,
            target,
            fov_y: 50f32.to_radians(),
            near: 0.1,
        }
    }

    /// World to view, right-handed, +Y up.
    pub fn view(&self) -> Mat4 {
        glam::camera::rh::view::look_at_mat4(self.position, self.target, Vec3::Y)
    }

    /// View to clip: reverse-Z, infinite far plane.
    pub fn projection(&self, aspect: f32) -> Mat4 {
        glam::camera::rh::proj::vulkan::perspective_infinite_reverse(
            self.fov_y,
            aspect.max(1e-6),
            self.near,
        )
    }

    /// Projection × view.
    pub fn view_projection(&self, aspect: f32) -> Mat4 {
        self.projection(aspect) * self.view()
    }

    /// Moves camera and target together over the ground: `forward` along the
    /// view direction projected on the ground, `right` across it, both in
    /// multiples of the distance to the target (so speed follows zoom).
    pub fn pan(&mut self, forward: f32, right: f32) {
        let offset = self.target - self.position;
        let ground = Vec3::new(offset.x, 0.0, offset.z).normalize_or(Vec3::NEG_Z);
        let side = ground.cross(Vec3::Y);
        let step = (ground * forward + side * right) * offset.length();
        self.position += step;
        self.target += step;
    }

    /// An orbit step: rotates the camera about its target by `yaw` and `pitch`
    /// radians and scales its distance by `zoom`.
    pub fn orbit(&mut self, yaw: f32, pitch: f32, zoom: f32) {
        let offset = self.position - self.target;
        let distance = (offset.length() * zoom).clamp(1.0, 5000.0);
        let current_pitch = (offset.y / offset.length().max(1e-6))
            .clamp(-1.0, 1.0)
            .asin();
        let current_yaw = offset.z.atan2(offset.x);
        let new_pitch = (current_pitch + pitch).clamp(0.05, 1.5);
        let new_yaw = current_yaw + yaw;
        let direction = Vec3::new(
            new_pitch.cos() * new_yaw.cos(),
            new_pitch.sin(),
            new_pitch.cos() * new_yaw.sin(),
        );
        self.position = self.target + direction * distance;
    }
}
