//! Foot-slide tests: a unit moved at walk speed, at run speed and at the
//! speed halfway between them (where the move state blends walk and run
//! evenly, in step by the clips' foot phases) keeps its planted foot still
//! on the ground.
//!
//! Method: bake the unit's idle, walk and run clips, build its humanoid
//! controller, and step one unit with the animate pass's CPU reference
//! (`horde::reference::animate::step`, which the animate tests prove equal to the GPU bit
//! for bit) at 60 fps while it moves along +Z at a constant speed. Every frame
//! the sole vertices (the lowest 4 % of the bind-pose mesh, split into left
//! and right by X) are skinned as the vertex shader skins them: the current
//! and previous clips at their times, mixed by the blend, times the unit's
//! scale, plus the unit's position. The lower foot is the planted one when
//! it is within [`CONTACT_BAND`] of the height of the lowest sole over the
//! run (a running foot in flight is not); over each complete plant (a run of
//! frames where the same foot is planted) the drift is the ground-plane (XZ)
//! distance its sole centroid moved, and the slip the farthest it strayed
//! from where it landed. The bound: drift under
//! 10 % of the stride (ground covered per gait cycle). A baseline that plays
//! the walk at 1x whatever the speed (no matching) shows the measure sees
//! sliding. The figures are printed (`-- --nocapture`).

use std::path::{Path, PathBuf};

use glam::Vec3;
use horde::anim::{initial_state, pack, AnimFields, Controller, PackedControllers};
use horde::asset::skinning::{sample_pose, skin_position, texels_f32};
use horde::asset::{Animation, Asset, Clip};
use horde::gpu_types::{
    AnimParams, AnimState, ClipInfo, TypeInfo, UnitMotion, MAX_CLIPS, MAX_TYPES,
};
use horde::reference::animate::{step, AnimTables};
use horde_bake::{BakeOptions, ClipSelection};

const DT: f32 = 1.0 / 60.0;
/// Seconds of motion before measuring: the crossfade into the move state
/// and the blend weight settle.
const WARM_UP: f32 = 2.0;
/// Seconds measured (several gait cycles).
const MEASURED: f32 = 4.0;
/// Largest drift of a planted foot, as a fraction of the stride.
const MAX_DRIFT_PER_STRIDE: f32 = 0.10;
/// Height above the lowest sole within which a sole touches the ground, as
/// a fraction of the unit's height.
const CONTACT_BAND: f32 = 0.03;

/// A sample model: beside the repository, or under `HORDE_GLTF_SAMPLES` when
/// the checkout is elsewhere (a git worktree).
fn sample_path(relative: &str) -> PathBuf {
    let beside = horde_tests::samples_dir().join(relative);
    match std::env::var_os("HORDE_GLTF_SAMPLES") {
        Some(root) if !beside.exists() => PathBuf::from(root).join(relative),
        _ => beside,
    }
}

fn quiet(_: &str) {}

/// Bakes the `[idle, walk, run]` clips of the unit at `path`, LOD 0 only.
fn bake(path: &Path, clips: [&str; 3]) -> Asset {
    let options = BakeOptions {
        clips: clips
            .iter()
            .map(|&name| ClipSelection {
                source: name.to_owned(),
                name: name.to_owned(),
            })
            .collect(),
        lod_ratios: vec![1.0],
        ..BakeOptions::default()
    };
    horde_bake::bake_unit(path, &[], &options, &quiet)
        .unwrap_or_else(|error| panic!("baking {}: {error}", path.display()))
        .asset
}

/// The sole vertices of LOD 0 (lowest 4 % of the height), left (+X) and right.
fn soles(asset: &Asset) -> [Vec<usize>; 2] {
    let lod = &asset.lods[0];
    let positions: Vec<Vec3> = lod
        .vertices
        .iter()
        .map(|vertex| horde::asset::skinning::decode_position(&asset.bounds, vertex))
        .collect();
    let floor = positions.iter().map(|p| p.y).fold(f32::INFINITY, f32::min);
    let low: Vec<usize> = (0..positions.len())
        .filter(|&index| positions[index].y <= floor + 0.04 * asset.bounds.height)
        .collect();
    let centre = low.iter().map(|&index| positions[index].x).sum::<f32>() / low.len() as f32;
    let (left, right) = low
        .into_iter()
        .partition(|&index| positions[index].x >= centre);
    [left, right]
}

/// One unit of the asset's humanoid controller, stepped on the CPU.
struct Walker<'a> {
    asset: &'a Asset,
    animation: &'a Animation,
    texels: Vec<glam::Vec4>,
    controller: Controller,
    packed: PackedControllers,
    types: Vec<TypeInfo>,
    clips: Vec<ClipInfo>,
    soles: [Vec<usize>; 2],
}

impl<'a> Walker<'a> {
    fn new(asset: &'a Asset, controller: Controller) -> Walker<'a> {
        let animation = asset.animation.as_ref().expect("animation");
        let packed = pack(&[&controller]).expect("pack");
        let [first_state, state_count, first_any, any_count] = packed.ranges[0];
        let mut types = vec![TypeInfo::default(); MAX_TYPES];
        types[0] = TypeInfo {
            bone_count: animation.bone_count,
            lod_count: 1,
            first_clip: 0,
            clip_count: animation.clips.len() as u32,
            first_controller_state: first_state,
            controller_state_count: state_count,
            first_any_transition: first_any,
            any_transition_count: any_count,
            ..TypeInfo::default()
        };
        let mut clips = vec![ClipInfo::default(); MAX_CLIPS];
        for (slot, clip) in clips.iter_mut().zip(&animation.clips) {
            *slot = ClipInfo {
                first_texel: clip.first_texel,
                frame_count: clip.frame_count,
                duration: clip.duration,
                looping: u32::from(clip.looping),
            };
        }
        Walker {
            asset,
            animation,
            texels: texels_f32(animation),
            controller,
            packed,
            types,
            clips,
            soles: soles(asset),
        }
    }

    /// World-space sole centroids (left, right) of a unit in `state` at
    /// `position`, skinned as `unit.vert` skins: both clips mixed by the blend.
    fn feet(&self, state: AnimState, scale: f32, position: Vec3) -> [Vec3; 2] {
        let fields = AnimFields::decode(state);
        let clip = |index: u32| -> &Clip { &self.animation.clips[index as usize] };
        let current = sample_pose(
            self.animation,
            &self.texels,
            clip(fields.current_clip),
            fields.time_current,
        );
        let previous = sample_pose(
            self.animation,
            &self.texels,
            clip(fields.previous_clip),
            fields.time_previous,
        );
        let lod = &self.asset.lods[0];
        let encoding = self.animation.encoding;
        self.soles.clone().map(|sole| {
            let sum: Vec3 = sole
                .iter()
                .map(|&index| {
                    let vertex = &lod.vertices[index];
                    let now = skin_position(encoding, &self.asset.bounds, vertex, &current);
                    let model = if fields.blend < 1.0 {
                        let before = skin_position(encoding, &self.asset.bounds, vertex, &previous);
                        before.lerp(now, fields.blend)
                    } else {
                        now
                    };
                    model * scale + position
                })
                .sum();
            sum / sole.len() as f32
        })
    }

    /// Moves a unit of `scale` along +Z at `speed` and measures its plants.
    fn measure(&self, unit: u32, scale: f32, speed: f32) -> Plants {
        let tables = AnimTables {
            types: &self.types,
            clips: &self.clips,
            states: &self.packed.states,
            transitions: &self.packed.transitions,
        };
        let params = AnimParams {
            speed,
            ..AnimParams::default()
        };
        let motion = UnitMotion {
            velocity: [0.0, speed],
            speed,
            anim_commands: params.commands(),
        };
        let mut state = initial_state(&self.controller, &self.animation.clips);
        let mut position = Vec3::ZERO;
        let mut samples = Vec::new();
        let frames = ((WARM_UP + MEASURED) / DT).round() as u32;
        for frame in 0..frames {
            state = step(state, unit, scale, &motion, DT, &self.types[0], &tables);
            position.z += speed * DT;
            if frame as f32 * DT >= WARM_UP {
                samples.push(self.feet(state, scale, position));
            }
        }
        let fields = AnimFields::decode(state);
        let band = CONTACT_BAND * self.asset.bounds.height * scale;
        Plants::of(&samples, speed, fields.blend, band)
    }
}

/// What one run measured.
struct Plants {
    /// Ground-plane distance the planted foot moved over each complete plant.
    drifts: Vec<f32>,
    /// Farthest each planted foot strayed from where it landed.
    slips: Vec<f32>,
    /// Ground covered per gait cycle (two plants).
    stride: f32,
    /// The walk's weight at the end.
    walk_weight: f32,
}

impl Plants {
    fn of(samples: &[[Vec3; 2]], speed: f32, walk_weight: f32, band: f32) -> Plants {
        let floor = samples
            .iter()
            .flatten()
            .map(|sole| sole.y)
            .fold(f32::INFINITY, f32::min);
        // The planted foot of each frame; none in flight.
        let planted: Vec<Option<usize>> = samples
            .iter()
            .map(|feet| {
                let lower = usize::from(feet[1].y < feet[0].y);
                (feet[lower].y <= floor + band).then_some(lower)
            })
            .collect();
        // Runs of frames with one foot planted: (foot, first, last).
        let mut runs = Vec::new();
        let mut start = 0;
        for frame in 1..=planted.len() {
            if frame == planted.len() || planted[frame] != planted[start] {
                if let Some(foot) = planted[start] {
                    runs.push((foot, start, frame - 1));
                }
                start = frame;
            }
        }
        // The first and last runs are cut by the window; blips are not plants.
        let complete: Vec<(usize, usize, usize)> = runs
            .iter()
            .copied()
            .skip(1)
            .take(runs.len().saturating_sub(2))
            .filter(|&(_, first, last)| last - first >= 3)
            .collect();
        let ground = |point: Vec3| glam::Vec2::new(point.x, point.z);
        let drifts = complete
            .iter()
            .map(|&(foot, first, last)| {
                ground(samples[last][foot]).distance(ground(samples[first][foot]))
            })
            .collect();
        let slips = complete
            .iter()
            .map(|&(foot, first, last)| {
                let landed = ground(samples[first][foot]);
                (first..=last)
                    .map(|frame| ground(samples[frame][foot]).distance(landed))
                    .fold(0.0, f32::max)
            })
            .collect();
        let left_starts: Vec<usize> = complete
            .iter()
            .filter(|run| run.0 == 0)
            .map(|run| run.1)
            .collect();
        let cycle_frames = match (left_starts.first(), left_starts.last()) {
            (Some(first), Some(last)) if left_starts.len() > 1 => {
                (last - first) as f32 / (left_starts.len() - 1) as f32
            }
            _ => f32::NAN,
        };
        Plants {
            drifts,
            slips,
            stride: speed * cycle_frames * DT,
            walk_weight,
        }
    }

    fn max_drift(&self) -> f32 {
        self.drifts.iter().copied().fold(0.0, f32::max)
    }

    fn max_slip(&self) -> f32 {
        self.slips.iter().copied().fold(0.0, f32::max)
    }
}

/// Measures walk, blend and run speeds (and the unmatched baseline) for a unit
/// of `scale`, prints the figures and checks the bound.
fn check_unit(asset: &Asset, scale: f32) {
    let animation = asset.animation.as_ref().expect("animation");
    let controller = Controller::humanoid(&animation.clips);
    let moving = controller.state_named("move").expect("move state") as usize;
    let def = controller.states[moving];
    let walk = def.clip_ground_speed * scale;
    let run = def.blend_clip_ground_speed * scale;
    assert!(
        walk > 0.0 && run > walk,
        "{}: walk {walk}, run {run}",
        asset.name
    );
    let walker = Walker::new(asset, controller.clone());
    // Heights of a 1.8 m human, for figures in centimetres.
    let to_cm = 180.0 / (asset.bounds.height * scale);
    let report = |label: &str, speed: f32, plants: &Plants| {
        println!(
            "{} (scale {scale}) {label} at {speed:.3} units/s: walk weight {:.2}, stride {:.3} \
             ({:.0} cm), {} plants, drift max {:.4} ({:.1} cm, {:.1} % of stride), \
             mean {:.4}, slip max {:.4} ({:.1} cm)",
            asset.name,
            plants.walk_weight,
            plants.stride,
            plants.stride * to_cm,
            plants.drifts.len(),
            plants.max_drift(),
            plants.max_drift() * to_cm,
            100.0 * plants.max_drift() / plants.stride,
            plants.drifts.iter().sum::<f32>() / plants.drifts.len().max(1) as f32,
            plants.max_slip(),
            plants.max_slip() * to_cm,
        );
    };
    println!(
        "{} (scale {scale}): walk {walk:.3}, run {run:.3} units/s, blend from {:.3} to {:.3}",
        asset.name,
        def.blend_start_speed * scale,
        def.blend_end_speed * scale
    );
    for (label, speed) in [
        ("walk", walk),
        ("midpoint", 0.5 * (walk + run)),
        ("run", run),
    ] {
        let plants = walker.measure(7, scale, speed);
        report(label, speed, &plants);
        assert!(plants.drifts.len() >= 4, "{label}: too few plants");
        assert!(plants.stride.is_finite() && plants.stride > 0.0);
        assert!(
            plants.max_drift() < MAX_DRIFT_PER_STRIDE * plants.stride,
            "{}: the planted foot slides {} per plant at {label} speed (stride {})",
            asset.name,
            plants.max_drift(),
            plants.stride
        );
    }

    // Baseline: the walk at 1x whatever the speed (ground speeds that make
    // every speed look matched), moved at the midpoint speed.
    let speed = 0.5 * (walk + run);
    let mut unmatched = controller;
    let state = &mut unmatched.states[moving];
    state.blend_clip = state.clip;
    state.clip_ground_speed = speed / scale;
    state.blend_clip_ground_speed = speed / scale;
    state.blend_start_speed = speed / scale;
    state.blend_end_speed = speed / scale;
    let plants = Walker::new(asset, unmatched).measure(7, scale, speed);
    report("unmatched walk at 1x", speed, &plants);
    assert!(
        plants.max_drift() > MAX_DRIFT_PER_STRIDE * plants.stride,
        "{}: the baseline should slide",
        asset.name
    );
}

#[test]
fn generated_knight_feet_stay_planted() {
    let asset = bake(
        &horde_tests::repo_root().join("assets/knight.glb"),
        ["idle", "walk", "run"],
    );
    check_unit(&asset, 1.0);
    check_unit(&asset, 1.15);
}

#[test]
fn kaykit_knight_feet_stay_planted() {
    let asset = bake(
        &sample_path("KayKit_Knight/Knight.glb"),
        ["Idle", "Walking_A", "Running_A"],
    );
    check_unit(&asset, 1.0);
}
