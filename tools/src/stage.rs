//! The stage a battle is set on, sized to its armies: the fog, the sky, the
//! ground's size and the draw distance, and the view corridors props keep
//! out of. Everything follows from the armies' box ([`SceneBounds`]) and the
//! camera presets built on it (`presets.rs`), so 10k units and 4M units
//! both read.
//!
//! **Fog.** The shaders fog by `1 − exp(−density · distance)` towards the sky
//! colour. The farthest the armies are seen from is the farthest corner of
//! their box from any preset camera, over the image aspects of
//! [`PLANNED_ASPECTS`] (a narrow image stands the overview farther off):
//! [`Stage::far_corner_distance`]. The density is chosen so that this corner
//! is [`FAR_CORNER_FOG`] fogged, no more: `density = −ln(1 − FAR_CORNER_FOG)
//! / far`. The visibility distance, where fog reaches [`HORIZON_FOG`] and
//! the ground has melted into the sky, is `−ln(1 − HORIZON_FOG) / density`.
//!
//! **Sky and ground.** The sky is the clear colour, and the fog's colour is
//! the sky's ([`Environment::default`]'s), so the ground fades into the sky at
//! the horizon. The field reaches the visibility distance in every direction
//! ([`Stage::field_size`]), so no preset sees past its edge; the renderer draws
//! as far ([`Stage::max_draw_distance`]), so no unit the fog leaves visible is
//! cut off by the cull's far plane. Sun and ambient light keep their
//! defaults: they do not depend on the scene's size.
//!
//! **Shadows** reach as far as the fog leaves the armies visible: the sun's
//! cascades cover [`Stage::far_corner_distance`] past the nearest ground a
//! camera sees (at least `MIN_SHADOW_DISTANCE`).
//!
//! **Props keep out of the views.** A prop may stand where its bounding sphere
//! misses the *view hull* of every preset camera: the convex hull of the
//! camera's position and the armies' box (every sight line from the camera to
//! a point of an army lies in it). The box scaled towards the camera by `t`
//! (`B_t = E + t (B − E)`) sweeps the hull as `t` runs over `0..1`; the
//! distance from a point to `B_t` is convex in `t` (the swept set is convex),
//! so a golden-section search over `t` finds the distance to the hull
//! ([`distance_to_view_hull`]). The overview's hull is taken at every aspect
//! of [`PLANNED_ASPECTS`].

use glam::Vec3;
use horde::renderer::{Environment, RenderSettings, Renderer};

use crate::presets::{preset_camera, Preset, SceneBounds, DEFAULT_ASPECT};

/// How much the fog may veil the armies' farthest corner from a preset.
pub const FAR_CORNER_FOG: f32 = 0.1;
/// The fog at the visibility distance: the ground is the sky's colour there.
pub const HORIZON_FOG: f32 = 0.98;
/// Image aspects the fog and the props' keep-out are planned for: square
/// to wide screen.
pub const PLANNED_ASPECTS: [f32; 3] = [1.0, DEFAULT_ASPECT, 2.4];
/// The nearest the visibility distance comes, in metres (a tiny battle
/// still gets a horizon).
const MIN_VISIBILITY: f32 = 600.0;
/// The least distance shadows cover past the nearest ground, metres.
const MIN_SHADOW_DISTANCE: f32 = 100.0;

/// What a renderer needs to show a battle at its size.
#[derive(Clone, Copy, Debug)]
pub struct Stage {
    /// Fog, sun and ambient light.
    pub environment: Environment,
    /// How far the renderer draws (`RenderSettings::max_draw_distance`).
    pub max_draw_distance: f32,
    /// The side of the square field under everything, in metres.
    pub field_size: f32,
    /// The sun casts shadows (`RenderSettings::shadows`).
    pub shadows: bool,
    /// Metres of view distance they cover past the nearest ground
    /// (`RenderSettings::shadow_distance`).
    pub shadow_distance: f32,
}

impl Default for Stage {
    /// The renderer's defaults: for scenes that are not sized (the viewer's).
    fn default() -> Stage {
        let settings = RenderSettings::default();
        Stage {
            environment: Environment::default(),
            max_draw_distance: settings.max_draw_distance,
            field_size: settings.max_draw_distance,
            shadows: settings.shadows,
            shadow_distance: settings.shadow_distance,
        }
    }
}

impl Stage {
    /// The stage of a battle whose armies stand in `armies`: the fog rule of
    /// the module doc.
    pub fn for_armies(armies: &SceneBounds) -> Stage {
        let far = Stage::far_corner_distance(armies);
        let density = -(1.0 - FAR_CORNER_FOG).ln() / far;
        let visibility = (-(1.0 - HORIZON_FOG).ln() / density).max(MIN_VISIBILITY);
        let density = density.min(-(1.0 - HORIZON_FOG).ln() / visibility);
        let center = armies.sanitized().center;
        let reach = visibility + center.x.abs().max(center.z.abs());
        Stage {
            environment: Environment {
                fog_density: density,
                ..Environment::default()
            },
            max_draw_distance: visibility,
            field_size: 2.0 * reach,
            shadows: true,
            shadow_distance: far.max(MIN_SHADOW_DISTANCE),
        }
    }

    /// The farthest any corner of the armies' box lies from any preset
    /// camera, over [`PLANNED_ASPECTS`]; at least 1 m.
    pub fn far_corner_distance(armies: &SceneBounds) -> f32 {
        let corners = armies.corners();
        preset_positions(armies)
            .flat_map(|camera| corners.map(|corner| corner.distance(camera)))
            .fold(1.0, f32::max)
    }

    /// The fog the renderer puts on something `distance` metres away.
    pub fn fog_at(&self, distance: f32) -> f32 {
        1.0 - (-self.environment.fog_density * distance.max(0.0)).exp()
    }

    /// Sets the renderer's environment and draw distance.
    pub fn apply(&self, renderer: &mut Renderer) {
        renderer.environment = self.environment;
        renderer.settings.max_draw_distance = self.max_draw_distance;
        renderer.settings.shadows = self.shadows;
        renderer.settings.shadow_distance = self.shadow_distance;
    }
}

/// The positions of every preset camera, the overview's at every planned
/// aspect.
fn preset_positions(armies: &SceneBounds) -> impl Iterator<Item = Vec3> + '_ {
    PLANNED_ASPECTS.into_iter().flat_map(move |aspect| {
        Preset::ALL.map(|preset| preset_camera(armies, preset, aspect).position)
    })
}

/// The sight lines from the preset cameras to the armies, which props keep
/// out of.
#[derive(Clone, Debug)]
pub struct ViewCorridors {
    cameras: Vec<Vec3>,
    min: Vec3,
    max: Vec3,
}

impl ViewCorridors {
    /// The corridors of the presets of a battle whose armies stand in
    /// `armies`.
    pub fn new(armies: &SceneBounds) -> ViewCorridors {
        let (min, max) = armies.framed_box();
        let mut cameras: Vec<Vec3> = Vec::new();
        for position in preset_positions(armies) {
            if !cameras.iter().any(|c| c.distance(position) < 1e-3) {
                cameras.push(position);
            }
        }
        ViewCorridors { cameras, min, max }
    }

    /// True when a sphere at `center` of `radius` stands in a corridor (or
    /// in the armies' box).
    pub fn blocked(&self, center: Vec3, radius: f32) -> bool {
        self.cameras
            .iter()
            .any(|&camera| distance_to_view_hull(center, camera, self.min, self.max) <= radius)
    }
}

/// The distance from `point` to the convex hull of `apex` and the box
/// `min..max`: a golden-section search over the box's scale towards the
/// apex (module doc). 0 inside.
pub fn distance_to_view_hull(point: Vec3, apex: Vec3, min: Vec3, max: Vec3) -> f32 {
    let at = |t: f32| {
        let lo = apex + (min - apex) * t;
        let hi = apex + (max - apex) * t;
        point.clamp(lo.min(hi), lo.max(hi)).distance(point)
    };
    let ratio = (5f32.sqrt() - 1.0) * 0.5;
    let (mut a, mut b) = (0.0f32, 1.0f32);
    let mut c = b - ratio * (b - a);
    let mut d = a + ratio * (b - a);
    let (mut fc, mut fd) = (at(c), at(d));
    for _ in 0..48 {
        if fc <= fd {
            b = d;
            d = c;
            fd = fc;
            c = b - ratio * (b - a);
            fc = at(c);
        } else {
            a = c;
            c = d;
            fc = fd;
            d = a + ratio * (b - a);
            fd = at(d);
        }
    }
    fc.min(fd).min(at(0.0)).min(at(1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn armies(half_x: f32, half_z: f32) -> SceneBounds {
        SceneBounds {
            center: Vec3::ZERO,
            half_extent: Vec3::new(half_x, 0.0, half_z),
            front_near_end: None,
        }
    }

    #[test]
    fn hull_distance_is_zero_inside_and_exact_outside() {
        let (min, max) = (Vec3::new(-1.0, 0.0, -1.0), Vec3::new(1.0, 2.0, 1.0));
        let apex = Vec3::new(0.0, 1.0, 10.0);
        assert_eq!(
            distance_to_view_hull(Vec3::new(0.0, 1.0, 0.0), apex, min, max),
            0.0
        );
        // On the segment from the apex to the box.
        assert!(distance_to_view_hull(Vec3::new(0.0, 1.0, 5.0), apex, min, max) < 1e-4);
        // Beside the box, away from the apex: the box's own distance.
        let beside = distance_to_view_hull(Vec3::new(4.0, 1.0, -1.0), apex, min, max);
        assert!((beside - 3.0).abs() < 1e-3, "{beside}");
        // Behind the box, seen from the apex: the box's distance again.
        let behind = distance_to_view_hull(Vec3::new(0.0, 1.0, -5.0), apex, min, max);
        assert!((behind - 4.0).abs() < 1e-3, "{behind}");
        // Beyond the apex.
        let past = distance_to_view_hull(Vec3::new(0.0, 1.0, 13.0), apex, min, max);
        assert!((past - 3.0).abs() < 1e-3, "{past}");
    }

    #[test]
    fn fog_leaves_the_far_corner_readable_and_hides_the_field_edge() {
        for (x, z) in [(1.0, 1.0), (97.0, 82.0), (817.0, 802.0), (1617.0, 1602.0)] {
            let bounds = armies(x, z);
            let stage = Stage::for_armies(&bounds);
            let far = Stage::far_corner_distance(&bounds);
            assert!(stage.fog_at(far) <= FAR_CORNER_FOG + 1e-4, "{x}: {stage:?}");
            assert!(stage.max_draw_distance >= far, "{x}: {stage:?}");
            assert!(stage.fog_at(stage.field_size * 0.5) >= HORIZON_FOG - 1e-3);
            assert!(
                stage.environment.fog_density.is_finite() && stage.environment.fog_density > 0.0
            );
        }
    }

    #[test]
    fn absurd_bounds_give_a_finite_stage() {
        for bounds in [
            SceneBounds {
                center: Vec3::NAN,
                half_extent: Vec3::INFINITY,
                front_near_end: Some(f32::NAN),
            },
            SceneBounds {
                center: Vec3::ZERO,
                half_extent: Vec3::ZERO,
                front_near_end: Some(-1.0e9),
            },
        ] {
            let stage = Stage::for_armies(&bounds);
            assert!(
                stage.environment.fog_density.is_finite() && stage.environment.fog_density > 0.0
            );
            assert!(stage.max_draw_distance.is_finite() && stage.field_size.is_finite());
            let corridors = ViewCorridors::new(&bounds);
            corridors.blocked(Vec3::ZERO, 1.0);
        }
    }
}
