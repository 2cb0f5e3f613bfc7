//! The window's camera controls, as a pure function of input and time: no
//! winit, no GPU, so tests drive it directly.
//!
//! A [`CameraRig`] owns a [`Camera`] (a position and the target it looks at)
//! and changes it three ways:
//! - **Held keys** ([`MotionKeys`]), applied per frame by [`CameraRig::update`]
//!   with the frame's wall-clock `dt`, so speed does not depend on frame
//!   rate. Forward/back move along the view direction flattened onto the
//!   ground, left/right across it, up/down along world Y; position and target
//!   move together. Speed follows the distance to the target (slow up close,
//!   fast from afar), ×4 with the fast key.
//! - **Mouse**: [`CameraRig::orbit`] turns the camera around its target (left
//!   drag), [`CameraRig::look`] turns the view around the camera's position
//!   (right drag: fly-style looking), [`CameraRig::dolly`] moves towards or
//!   away from the target (scroll).
//! - **Presets** (`presets.rs`): an overview, the front line, ground
//!   level; and a **cinematic** mode whose camera is a smooth function of
//!   the time since it started ([`cinematic_camera`]), eased in from
//!   wherever the camera was. Any manual input ends it.
//!

use glam::Vec3;
use horde::camera::Camera;

use crate::presets::{
    cinematic_camera, preset_camera, usable_aspect, Preset, SceneBounds, DEFAULT_ASPECT,
};

/// Radians per pixel of mouse drag.
const RADIANS_PER_PIXEL: f32 = 0.005;
/// Distance factor per scroll line (below 1: scrolling up moves closer).
const DOLLY_PER_LINE: f32 = 0.9;
/// Ground speed, in distances-to-target per second.
const SPEED_PER_DISTANCE: f32 = 0.8;
/// The slowest movement, in world units per second.
const MIN_SPEED: f32 = 4.0;
/// Speed factor of the fast key.
const FAST_FACTOR: f32 = 4.0;
/// Seconds the cinematic camera takes to blend in from the current view.
const CINEMATIC_EASE_IN: f32 = 3.0;
/// The movement keys held this frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MotionKeys {
    pub forward: bool,
    pub back: bool,
    pub left: bool,
    pub right: bool,
    pub up: bool,
    pub down: bool,
    pub fast: bool,
}

impl MotionKeys {
    /// True when any movement key (not just `fast`) is held.
    pub fn any(&self) -> bool {
        self.forward || self.back || self.left || self.right || self.up || self.down
    }
}

/// The cinematic mode's state: when it started, and from which camera it
/// eases in.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Cinematic {
    seconds: f32,
    from: Camera,
}

/// The camera and how input changes it.
#[derive(Clone, Debug)]
pub struct CameraRig {
    camera: Camera,
    bounds: SceneBounds,
    /// The image's width / height, for the presets.
    aspect: f32,
    cinematic: Option<Cinematic>,
}

impl CameraRig {
    /// A rig starting at `camera` for a scene in `bounds`.
    pub fn new(camera: Camera, bounds: SceneBounds) -> CameraRig {
        CameraRig {
            camera,
            bounds,
            aspect: DEFAULT_ASPECT,
            cinematic: None,
        }
    }

    /// Tells the presets the image's size (a 0×0 one is ignored).
    pub fn set_image_size(&mut self, width: u32, height: u32) {
        if width > 0 && height > 0 {
            self.aspect = usable_aspect(width as f32 / height as f32);
        }
    }

    /// The camera to render with.
    pub fn camera(&self) -> Camera {
        self.camera
    }

    /// True while the cinematic mode runs.
    pub fn is_cinematic(&self) -> bool {
        self.cinematic.is_some()
    }

    /// Advances by `dt` seconds of wall-clock time with `keys` held. Movement
    /// ends the cinematic mode. Returns whether the camera changed.
    pub fn update(&mut self, keys: &MotionKeys, dt: f32) -> bool {
        let before = self.camera;
        let dt = if dt.is_finite() { dt.max(0.0) } else { 0.0 };
        if keys.any() {
            self.cinematic = None;
            self.fly(keys, dt);
        } else if let Some(cinematic) = self.cinematic.as_mut() {
            cinematic.seconds += dt;
            let path = cinematic_camera(&self.bounds, cinematic.seconds);
            let blend = smoothstep(cinematic.seconds / CINEMATIC_EASE_IN);
            self.camera = Camera {
                position: cinematic.from.position.lerp(path.position, blend),
                target: cinematic.from.target.lerp(path.target, blend),
                ..path
            };
        }
        self.camera != before
    }

    fn fly(&mut self, keys: &MotionKeys, dt: f32) {
        let offset = self.camera.target - self.camera.position;
        let forward = Vec3::new(offset.x, 0.0, offset.z).normalize_or(Vec3::NEG_Z);
        let right = forward.cross(Vec3::Y);
        let axis = |plus: bool, minus: bool| f32::from(u8::from(plus)) - f32::from(u8::from(minus));
        let direction = forward * axis(keys.forward, keys.back)
            + right * axis(keys.right, keys.left)
            + Vec3::Y * axis(keys.up, keys.down);
        let speed = (offset.length() * SPEED_PER_DISTANCE).max(MIN_SPEED)
            * if keys.fast { FAST_FACTOR } else { 1.0 };
        let step = direction.normalize_or_zero() * speed * dt;
        self.camera.position += step;
        self.camera.target += step;
    }

    /// Turns the camera around its target by a drag of `dx`, `dy` pixels.
    pub fn orbit(&mut self, dx: f32, dy: f32) {
        self.cinematic = None;
        if dx.is_finite() && dy.is_finite() {
            self.camera
                .orbit(dx * RADIANS_PER_PIXEL, dy * RADIANS_PER_PIXEL, 1.0);
        }
    }

    /// Turns the view around the camera's position by a drag of `dx`, `dy`
    /// pixels: the target moves, the camera stays.
    pub fn look(&mut self, dx: f32, dy: f32) {
        self.cinematic = None;
        if !(dx.is_finite() && dy.is_finite()) {
            return;
        }
        let offset = self.camera.target - self.camera.position;
        let distance = offset.length().max(1e-3);
        let direction = offset / distance;
        let yaw = direction.z.atan2(direction.x) + dx * RADIANS_PER_PIXEL;
        // Short of straight up or down, where the view's up vector degenerates.
        let pitch = (direction.y.clamp(-1.0, 1.0).asin() - dy * RADIANS_PER_PIXEL).clamp(-1.5, 1.5);
        let turned = Vec3::new(
            pitch.cos() * yaw.cos(),
            pitch.sin(),
            pitch.cos() * yaw.sin(),
        );
        self.camera.target = self.camera.position + turned * distance;
    }

    /// Moves towards (positive `lines`) or away from the target by scroll
    /// lines.
    pub fn dolly(&mut self, lines: f32) {
        self.cinematic = None;
        if lines.is_finite() {
            self.camera.orbit(0.0, 0.0, DOLLY_PER_LINE.powf(lines));
        }
    }

    /// Jumps to `preset`.
    pub fn preset(&mut self, preset: Preset) {
        self.cinematic = None;
        self.camera = preset_camera(&self.bounds, preset, self.aspect);
    }

    /// Starts the cinematic mode (easing in from the current camera), or
    /// stops it where it is.
    pub fn toggle_cinematic(&mut self) {
        self.cinematic = match self.cinematic {
            Some(_) => None,
            None => Some(Cinematic {
                seconds: 0.0,
                from: self.camera,
            }),
        };
    }
}

/// 0 below 0, 1 above 1, a smooth S between.
fn smoothstep(x: f32) -> f32 {
    let x = x.clamp(0.0, 1.0);
    x * x * (3.0 - 2.0 * x)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets::tests::bounds;
    use crate::presets::{preset_camera, DEFAULT_ASPECT, EYE_HEIGHT};

    fn rig() -> CameraRig {
        // Looking along -Z from +Z, level with the target.
        CameraRig::new(
            Camera::look_at(Vec3::new(0.0, 10.0, 50.0), Vec3::new(0.0, 10.0, 0.0)),
            bounds(),
        )
    }

    fn moved(keys: MotionKeys, dt: f32) -> Vec3 {
        let mut rig = rig();
        let start = rig.camera();
        rig.update(&keys, dt);
        let end = rig.camera();
        assert!(
            (end.target - end.position).abs_diff_eq(start.target - start.position, 1e-3),
            "movement keeps the view direction"
        );
        end.position - start.position
    }

    #[test]
    fn keys_move_along_the_view_across_it_and_up() {
        let forward = moved(
            MotionKeys {
                forward: true,
                ..Default::default()
            },
            0.1,
        );
        assert!(forward.z < 0.0 && forward.x.abs() < 1e-4 && forward.y.abs() < 1e-4);
        let back = moved(
            MotionKeys {
                back: true,
                ..Default::default()
            },
            0.1,
        );
        assert!(back.z > 0.0);
        let right = moved(
            MotionKeys {
                right: true,
                ..Default::default()
            },
            0.1,
        );
        assert!(right.x > 0.0 && right.z.abs() < 1e-4, "{right}");
        let left = moved(
            MotionKeys {
                left: true,
                ..Default::default()
            },
            0.1,
        );
        assert!(left.x < 0.0);
        let up = moved(
            MotionKeys {
                up: true,
                ..Default::default()
            },
            0.1,
        );
        assert!(up.y > 0.0 && up.x.abs() < 1e-4 && up.z.abs() < 1e-4);
        let down = moved(
            MotionKeys {
                down: true,
                ..Default::default()
            },
            0.1,
        );
        assert!(down.y < 0.0);
        let none = moved(MotionKeys::default(), 0.1);
        assert_eq!(none, Vec3::ZERO);
    }

    #[test]
    fn movement_is_frame_rate_independent_and_fast_is_faster() {
        let keys = MotionKeys {
            forward: true,
            ..Default::default()
        };
        let once = moved(keys, 0.2);
        let mut rig = rig();
        let start = rig.camera().position;
        for _ in 0..20 {
            rig.update(&keys, 0.01);
        }
        let many = rig.camera().position - start;
        assert!(once.abs_diff_eq(many, 1e-3), "{once} vs {many}");
        let fast = moved(MotionKeys { fast: true, ..keys }, 0.2);
        assert!(fast.length() > once.length() * 3.0);
    }

    #[test]
    fn bad_dt_and_drags_change_nothing_and_do_not_panic() {
        let mut rig = rig();
        let start = rig.camera();
        let keys = MotionKeys {
            forward: true,
            ..Default::default()
        };
        assert!(!rig.update(&keys, f32::NAN));
        assert!(!rig.update(&keys, -1.0));
        rig.orbit(f32::NAN, 1.0);
        rig.look(f32::INFINITY, 0.0);
        rig.dolly(f32::NAN);
        assert_eq!(rig.camera(), start);
    }

    #[test]
    fn mouse_orbits_looks_and_dollies() {
        let mut rig = rig();
        let start = rig.camera();
        rig.orbit(100.0, 0.0);
        let orbited = rig.camera();
        assert_eq!(orbited.target, start.target, "orbit keeps the target");
        assert!((orbited.position.distance(orbited.target) - 50.0).abs() < 1e-3);
        assert!(orbited.position.distance(start.position) > 1.0);

        let mut rig = CameraRig::new(start, bounds());
        rig.look(100.0, 0.0);
        let looked = rig.camera();
        assert_eq!(looked.position, start.position, "look keeps the position");
        assert!(looked.target.distance(start.target) > 1.0);

        let mut rig = CameraRig::new(start, bounds());
        rig.dolly(3.0);
        let closer = rig.camera();
        assert!(closer.position.distance(closer.target) < 50.0);
    }

    #[test]
    fn presets_differ_and_look_at_the_battle() {
        let bounds = bounds();
        let presets = [Preset::Overview, Preset::FrontLine, Preset::GroundLevel]
            .map(|preset| preset_camera(&bounds, preset, DEFAULT_ASPECT));
        for (i, a) in presets.iter().enumerate() {
            assert!(a.position.is_finite() && a.target.is_finite());
            assert!(a.position.distance(a.target) > 1.0);
            for b in &presets[i + 1..] {
                assert!(a.position.distance(b.position) > 1.0, "{a:?} vs {b:?}");
            }
        }
        let ground = bounds.center.y - bounds.half_extent.y;
        assert!(presets[0].position.y > presets[1].position.y);
        assert!(presets[1].position.y > presets[2].position.y);
        assert!((presets[2].position.y - ground - EYE_HEIGHT).abs() < 1e-4);
        let mut rig = rig();
        rig.preset(Preset::FrontLine);
        assert_eq!(rig.camera(), presets[1]);
    }

    #[test]
    fn cinematic_mode_eases_in_continuously_and_input_ends_it() {
        let mut rig = rig();
        let start = rig.camera();
        rig.toggle_cinematic();
        assert!(rig.is_cinematic());
        let mut previous = start;
        for _ in 0..(60 * 5) {
            rig.update(&MotionKeys::default(), 1.0 / 60.0);
            let camera = rig.camera();
            assert!(camera.position.distance(previous.position) < 1.0);
            previous = camera;
        }
        assert!(previous.position.distance(start.position) > 1.0, "it moved");
        rig.update(
            &MotionKeys {
                left: true,
                ..Default::default()
            },
            0.01,
        );
        assert!(!rig.is_cinematic());
        rig.toggle_cinematic();
        rig.orbit(1.0, 0.0);
        assert!(!rig.is_cinematic());
        rig.toggle_cinematic();
        rig.toggle_cinematic();
        assert!(!rig.is_cinematic());
    }
}
