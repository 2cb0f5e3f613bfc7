//! Camera presets from the scene's bounds ([`SceneBounds`]): an overview,
//! the front line, ground level, and the cinematic path
//! ([`cinematic_camera`]), as pure functions: the window's rig
//! (`camera_rig.rs`), the headless runs and the stage (`stage.rs`) all
//! take their cameras from here.
//!
//! The battle's armies face each other along the x axis with the front line
//! at the bounds' centre x; their ranks run along z. Presets and the
//! cinematic path are built for that layout from the bounds alone (the
//! armies' box: feet on the ground, [`UNIT_TOP`] tall), so any scene size
//! works, from a few units to millions:
//! - **Overview** (`1`): the camera looks down at [`OVERVIEW_PITCH_DEG`]
//!   from the +z side, across the front line, so army 0 stands left of it
//!   and army 1 right; or, where the front is longer than the armies are
//!   deep (regiments drawn up in line), from behind army 0 (the −x side),
//!   so the front runs across the image and army 1 stands beyond it. Its
//!   position is solved in closed form so that all
//!   eight corners of the box fall inside [`OVERVIEW_FILL`] of the image at
//!   its aspect: with the orientation fixed, each corner `p` (view-space
//!   coordinates `a` across, `b` up, `c` along the view) stays inside the
//!   horizontal frustum planes when `|a − e_a| ≤ k_x (c − e_c)`, which is
//!   linear in the camera's coordinates `e`. The tightest pair of planes
//!   gives `e_a = (P + Q) / 2` and the nearest `e_c = (Q − P) / (2 k_x)`, with
//!   `P = max(a − k_x c)` and `Q = min(a + k_x c)`; the same holds
//!   vertically, and the camera takes the farther of the two depths. Both
//!   armies are whole and centred at any count; the camera looks at where
//!   its view axis meets the ground.
//! - **Front line** (`2`): an elevated oblique view along the front from
//!   beyond its near end ([`SceneBounds::near_end`]: in a battle, a gap
//!   between two divisions of the centre, clear of the wings that march
//!   round the line's ends), pitched
//!   [`FRONT_PITCH_DEG`] down and swung [`FRONT_YAW_DEG`] over army 0's
//!   side, at a distance that follows the front's width but never exceeds
//!   [`FRONT_MAX_DISTANCE`]: units stay many pixels tall (a 1.8 m unit
//!   spans about 15 px of a 1080-pixel image at that distance) whatever the
//!   army size, and the clash line runs from the image's foot into the
//!   distance between the two armies.
//! - **Ground level** (`3`): at eye height on the line, [`GROUND_SETBACK`]
//!   metres beyond the same near end, looking along it: beside the
//!   fighting, army 0 on the right and army 1 on the left, the clash
//!   receding down the middle of the image.
//! - **Cinematic** (`C`): a circle around a target that runs up and down the
//!   front line; its radius follows the front's width within
//!   [`CINEMATIC_MIN_DISTANCE`]..[`CINEMATIC_MAX_DISTANCE`], so it follows the
//!   fighting rather than the whole field.
//!
//! The front and ground presets do not depend on the image's aspect, the
//! overview does (a narrower image stands it farther off).

use glam::Vec3;
use horde::camera::Camera;
use horde::scene::Scene;

/// Seconds of one full cinematic sweep around the battle.
const CINEMATIC_PERIOD: f32 = 120.0;
/// The cinematic circle's radius, in metres: half the front's width within
/// these bounds (the lower one keeps the camera above the tallest props).
pub const CINEMATIC_MIN_DISTANCE: f32 = 40.0;
pub const CINEMATIC_MAX_DISTANCE: f32 = 300.0;
/// Eye height of the ground-level preset, in world units (metres).
pub const EYE_HEIGHT: f32 = 1.7;
/// How far beyond the front line's near end the ground preset stands, in
/// metres.
pub const GROUND_SETBACK: f32 = 5.0;
/// How far along the front the ground preset looks, in metres.
const GROUND_LOOK: f32 = 40.0;
/// The height of the box presets frame above the units' feet: units stand
/// 1.8 m tall, ±8 %.
pub const UNIT_TOP: f32 = 2.0;
/// The overview's downward pitch, in degrees.
pub const OVERVIEW_PITCH_DEG: f32 = 55.0;
/// The part of the half-image (each axis) the overview's box may fill.
pub const OVERVIEW_FILL: f32 = 0.92;
/// The front preset's downward pitch, and its swing from the front line's
/// direction over army 0's side, in degrees.
pub const FRONT_PITCH_DEG: f32 = 28.0;
pub const FRONT_YAW_DEG: f32 = 20.0;
/// The front preset's distance to the point of the front line it looks at:
/// 0.9 × the front's half width within these bounds, in metres.
pub const FRONT_MIN_DISTANCE: f32 = 15.0;
pub const FRONT_MAX_DISTANCE: f32 = 140.0;
/// The image aspect presets assume where none is given (1920x1080).
pub const DEFAULT_ASPECT: f32 = 16.0 / 9.0;
/// The farthest a scene's centre or half extent may lie, in metres: bounds
/// beyond are clamped, so absurd input still gives finite cameras.
const MAX_COORDINATE: f32 = 1.0e6;

/// The box the scene occupies: the application's armies and props.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SceneBounds {
    pub center: Vec3,
    /// Half the size along each axis (non-negative).
    pub half_extent: Vec3,
    /// The z where the stretch of front line the front and ground presets
    /// look along begins, if the scene knows it (a battle's: a gap between
    /// two divisions of its centre, clear of the wings that march round the
    /// line's ends); the box's near (−z) face otherwise. Those presets
    /// stand there.
    pub front_near_end: Option<f32>,
}

impl Default for SceneBounds {
    /// A 2 m box around the origin.
    fn default() -> SceneBounds {
        SceneBounds {
            center: Vec3::ZERO,
            half_extent: Vec3::ONE,
            front_near_end: None,
        }
    }
}

impl SceneBounds {
    /// The bounds of `points` (units' and props' feet), widened by `margin`
    /// across the ground but not in height, so the bottom stays the ground;
    /// a unit box at the origin when there are none.
    pub fn around(points: impl IntoIterator<Item = Vec3>, margin: f32) -> SceneBounds {
        let (min, max) = points.into_iter().filter(|p| p.is_finite()).fold(
            (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
            |(min, max), p| (min.min(p), max.max(p)),
        );
        if !min.is_finite() || !max.is_finite() {
            return SceneBounds::default();
        }
        let margin = if margin.is_finite() {
            margin.max(0.0)
        } else {
            0.0
        };
        SceneBounds {
            center: (min + max) * 0.5,
            half_extent: (max - min) * 0.5 + Vec3::new(1.0, 0.0, 1.0) * margin,
            front_near_end: None,
        }
        .sanitized()
    }

    /// The bounds of a scene's units and props, with a few metres of margin.
    pub fn of_scene(scene: &Scene) -> SceneBounds {
        let units = scene.units.iter().map(|unit| unit.position);
        let props = scene.props.iter().map(|prop| prop.position);
        SceneBounds::around(units.chain(props), 2.0)
    }

    /// These bounds with every coordinate finite and within
    /// ±`MAX_COORDINATE`, the half extents non-negative.
    pub fn sanitized(&self) -> SceneBounds {
        let clamp = |v: Vec3| {
            Vec3::from_array(v.to_array().map(|x| {
                if x.is_nan() {
                    0.0
                } else {
                    x.clamp(-MAX_COORDINATE, MAX_COORDINATE)
                }
            }))
        };
        let center = clamp(self.center);
        let half_extent = clamp(self.half_extent).abs();
        let box_near_end = center.z - half_extent.z;
        SceneBounds {
            center,
            half_extent,
            front_near_end: self
                .front_near_end
                .filter(|z| z.is_finite())
                .map(|z| z.clamp(box_near_end, center.z)),
        }
    }

    /// The larger horizontal half extent, at least 1.
    pub fn radius(&self) -> f32 {
        self.half_extent.x.max(self.half_extent.z).max(1.0)
    }

    /// The z where the presets' stretch of front line begins:
    /// [`SceneBounds::front_near_end`], or the box's near face.
    pub fn near_end(&self) -> f32 {
        let b = self.sanitized();
        b.front_near_end.unwrap_or(b.center.z - b.half_extent.z)
    }

    /// The ground height: the bottom of the box.
    pub fn ground(&self) -> f32 {
        self.center.y - self.half_extent.y.abs()
    }

    /// The box presets frame: the bounds across the ground, from the ground
    /// up to at least [`UNIT_TOP`].
    pub fn framed_box(&self) -> (Vec3, Vec3) {
        let b = self.sanitized();
        let ground = b.ground();
        let top = (b.center.y + b.half_extent.y).max(ground + UNIT_TOP);
        (
            Vec3::new(
                b.center.x - b.half_extent.x,
                ground,
                b.center.z - b.half_extent.z,
            ),
            Vec3::new(
                b.center.x + b.half_extent.x,
                top,
                b.center.z + b.half_extent.z,
            ),
        )
    }

    /// The eight corners of [`SceneBounds::framed_box`].
    pub fn corners(&self) -> [Vec3; 8] {
        let (min, max) = self.framed_box();
        std::array::from_fn(|i| {
            Vec3::new(
                if i & 1 == 0 { min.x } else { max.x },
                if i & 2 == 0 { min.y } else { max.y },
                if i & 4 == 0 { min.z } else { max.z },
            )
        })
    }
}

/// A camera preset, on the number keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Preset {
    /// `1`: both armies whole, from high up across the front line.
    Overview,
    /// `2`: along the front line, from above and beyond its near end.
    FrontLine,
    /// `3`: at eye height at the front line's end, looking along it.
    GroundLevel,
}

impl Preset {
    /// Every preset, in key order.
    pub const ALL: [Preset; 3] = [Preset::Overview, Preset::FrontLine, Preset::GroundLevel];
}

/// `aspect` if it is a usable image aspect, else [`DEFAULT_ASPECT`]; within
/// 1:10 and 10:1.
pub(crate) fn usable_aspect(aspect: f32) -> f32 {
    if aspect.is_finite() && aspect > 0.0 {
        aspect.clamp(0.1, 10.0)
    } else {
        DEFAULT_ASPECT
    }
}

/// The camera of `preset` for a scene in `bounds`, for an image of `aspect`
/// (width / height; a bad one counts as [`DEFAULT_ASPECT`]).
pub fn preset_camera(bounds: &SceneBounds, preset: Preset, aspect: f32) -> Camera {
    let bounds = bounds.sanitized();
    let c = bounds.center;
    let h = bounds.half_extent;
    let ground = bounds.ground();
    match preset {
        Preset::Overview => {
            let pitch = OVERVIEW_PITCH_DEG.to_radians();
            // A front longer than the armies are deep is seen from behind
            // army 0, so it runs across the image instead of away from it.
            let forward = if h.z > h.x {
                Vec3::new(pitch.cos(), -pitch.sin(), 0.0)
            } else {
                Vec3::new(0.0, -pitch.sin(), -pitch.cos())
            };
            frame_points(
                &bounds.corners(),
                forward,
                usable_aspect(aspect),
                OVERVIEW_FILL,
                ground,
            )
        }
        Preset::FrontLine => {
            let distance = (h.z * 0.9).clamp(FRONT_MIN_DISTANCE, FRONT_MAX_DISTANCE);
            let near_end = bounds.near_end();
            let target = Vec3::new(
                c.x,
                ground + 1.0,
                near_end + (distance * 0.5).min(c.z + h.z - near_end),
            );
            let (pitch, yaw) = (FRONT_PITCH_DEG.to_radians(), FRONT_YAW_DEG.to_radians());
            let back = Vec3::new(
                -yaw.sin() * pitch.cos(),
                pitch.sin(),
                -yaw.cos() * pitch.cos(),
            );
            Camera::look_at(target + back * distance, target)
        }
        Preset::GroundLevel => {
            let position = Vec3::new(c.x, ground + EYE_HEIGHT, bounds.near_end() - GROUND_SETBACK);
            let target = Vec3::new(c.x, ground + 1.2, position.z + GROUND_LOOK);
            Camera::look_at(position, target)
        }
    }
}

/// The nearest camera looking along `forward` (a unit vector pointing
/// down) that holds every one of `points` inside `fill` of the image at
/// `aspect`, looking at where its axis meets the ground (the closed form of
/// the module doc).
fn frame_points(points: &[Vec3], forward: Vec3, aspect: f32, fill: f32, ground: f32) -> Camera {
    let template = Camera::look_at(Vec3::ZERO, forward);
    let right = forward.cross(Vec3::Y).normalize_or(Vec3::X);
    let up = right.cross(forward);
    let ky = (template.fov_y * 0.5).tan() * fill;
    let kx = ky * aspect;
    let mut horizontal = (f32::NEG_INFINITY, f32::INFINITY);
    let mut vertical = (f32::NEG_INFINITY, f32::INFINITY);
    for p in points {
        let (a, b, c) = (p.dot(right), p.dot(up), p.dot(forward));
        horizontal = (horizontal.0.max(a - kx * c), horizontal.1.min(a + kx * c));
        vertical = (vertical.0.max(b - ky * c), vertical.1.min(b + ky * c));
    }
    let depth =
        ((horizontal.1 - horizontal.0) / (2.0 * kx)).min((vertical.1 - vertical.0) / (2.0 * ky));
    let position = right * (horizontal.0 + horizontal.1) * 0.5
        + up * (vertical.0 + vertical.1) * 0.5
        + forward * depth;
    if !position.is_finite() {
        return Camera::look_at(Vec3::new(0.0, 10.0, 10.0), Vec3::ZERO);
    }
    // The axis meets the ground ahead: forward points down.
    let along = ((position.y - ground) / (-forward.y).max(1e-3)).max(1.0);
    Camera::look_at(position, position + forward * along)
}

/// The cinematic path at `seconds`: a slow circle around a target that runs
/// up and down the front line, whose radius, height and target drift on
/// incommensurate periods, so it never looks like a loop. Smooth in time
/// (sums of sines), defined for every time.
pub fn cinematic_camera(bounds: &SceneBounds, seconds: f32) -> Camera {
    let bounds = bounds.sanitized();
    let c = bounds.center;
    let h = bounds.half_extent;
    let ground = bounds.ground();
    let t = if seconds.is_finite() { seconds } else { 0.0 };
    let angle = std::f32::consts::TAU * t / CINEMATIC_PERIOD;
    let target = Vec3::new(
        c.x + (h.x * 0.05).min(8.0) * (t * 0.071).sin(),
        ground,
        c.z + h.z * 0.6 * (t * 0.043).sin(),
    );
    let reach = (h.z * 0.5).clamp(CINEMATIC_MIN_DISTANCE, CINEMATIC_MAX_DISTANCE);
    let distance = reach * (1.0 + 0.2 * (t * 0.037).sin());
    let height = distance * (0.45 + 0.15 * (t * 0.053).sin());
    let position = target + Vec3::new(distance * angle.cos(), height, distance * angle.sin());
    Camera::look_at(position, target)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A 120 m by 80 m field, 2 m tall.
    pub(crate) fn bounds() -> SceneBounds {
        SceneBounds {
            center: Vec3::new(0.0, 1.0, 0.0),
            half_extent: Vec3::new(60.0, 1.0, 40.0),
            front_near_end: None,
        }
    }

    #[test]
    fn cinematic_path_is_continuous_and_deterministic() {
        let bounds = bounds();
        let step = 1.0 / 240.0;
        let mut previous = cinematic_camera(&bounds, 0.0);
        for i in 1..(240 * 60) {
            let t = i as f32 * step;
            let camera = cinematic_camera(&bounds, t);
            // At most ~a metre per second along a path of a few hundred metres.
            assert!(camera.position.distance(previous.position) < 0.05, "t={t}");
            assert!(camera.target.distance(previous.target) < 0.05, "t={t}");
            assert!(camera.position.y > bounds.center.y, "t={t}");
            previous = camera;
        }
        assert_eq!(
            cinematic_camera(&bounds, 17.5),
            cinematic_camera(&bounds, 17.5)
        );
        assert!(cinematic_camera(&bounds, f32::NAN).position.is_finite());
    }

    #[test]
    fn bounds_around_points() {
        let bounds = SceneBounds::around(
            [Vec3::new(-10.0, 0.0, -4.0), Vec3::new(10.0, 2.0, 4.0)],
            1.0,
        );
        assert_eq!(bounds.center, Vec3::new(0.0, 1.0, 0.0));
        assert_eq!(bounds.half_extent, Vec3::new(11.0, 1.0, 5.0));
        let empty = SceneBounds::around([], 1.0);
        assert!(empty.center.is_finite() && empty.half_extent.is_finite());
    }
}
