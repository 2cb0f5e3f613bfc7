//! Clip ground speeds measured by the bake: the generated knight and the
//! KayKit Knight walk and run at plausible speeds for their legs, and their
//! idle, attack, victory and death clips measure 0. A human (1.8 m, 0.95 m
//! legs) walks at 1.2-1.6 m/s (0.65-0.9 heights or 1.3-1.7 leg lengths per
//! second) and runs at 2.5-6 m/s; the KayKit figures are chibi (legs a
//! sixth of the height), so their walk is slower in heights per second and
//! faster in leg lengths per second than a human's.
//! The figures are printed (`cargo test -p horde-bake --test ground_speed --
//! --nocapture`).

use horde_bake::{self as bake, BakeOptions, Baked, ClipSelection};
use std::path::{Path, PathBuf};

/// The shared sample models beside the repository, or under
/// `HORDE_GLTF_SAMPLES` for a checkout elsewhere (a git worktree).
const SAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/gltf-samples");
/// The generated default content.
const ASSETS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets");

fn sample_path(relative: &str) -> PathBuf {
    let root = std::env::var_os("HORDE_GLTF_SAMPLES")
        .map_or_else(|| PathBuf::from(SAMPLES), PathBuf::from);
    root.join(relative)
}

fn quiet(_: &str) {}

/// Bakes `clips` of `path` and prints each clip's ground speed.
fn bake_clips(path: &Path, clips: &[&str]) -> Baked {
    bake_clips_from(path, &[], clips)
}

/// Bakes `clips` of `path` (found in it or in `libraries`) and prints each
/// clip's ground speed.
fn bake_clips_from(path: &Path, libraries: &[&Path], clips: &[&str]) -> Baked {
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
    let baked = bake::bake_unit(path, libraries, &options, &quiet)
        .unwrap_or_else(|error| panic!("baking {}: {error}", path.display()));
    let height = baked.asset.bounds.height;
    let leg = leg_length(&baked);
    for clip in &baked.asset.animation.as_ref().expect("animation").clips {
        println!(
            "{}: {:<22} ground speed {:.3} units/s = {:.3} heights/s = {:.3} leg lengths/s \
             ({:.2} m/s at 1.8 m tall, {:.2} m/s with 0.95 m legs), left foot mid-stance at \
             {:.2}",
            baked.asset.name,
            clip.name,
            clip.ground_speed,
            clip.ground_speed / height,
            clip.ground_speed / leg,
            clip.ground_speed / height * 1.8,
            clip.ground_speed / leg * 0.95,
            clip.foot_phase
        );
    }
    baked
}

/// Hip height in the bind pose above the lowest bone: the leg length.
fn leg_length(baked: &Baked) -> f32 {
    let bind = bake::ground_speed::bind_positions(&baked.source.skeleton.inverse_bind);
    let hips = baked
        .asset
        .bone_names
        .iter()
        .position(|name| name.to_lowercase().contains("hips"))
        .expect("a hips bone");
    let floor = bind.iter().map(|p| p.y).fold(f32::INFINITY, f32::min);
    bind[hips].y - floor
}

/// Ground speed of `name` in heights per second.
fn speed(baked: &Baked, name: &str) -> f32 {
    let animation = baked.asset.animation.as_ref().expect("animation");
    let clip = animation
        .clips
        .iter()
        .find(|clip| clip.name == name)
        .unwrap_or_else(|| panic!("no clip {name}"));
    clip.ground_speed / baked.asset.bounds.height
}

/// Checks `name`'s speed in heights per second and in leg lengths per second.
fn assert_within(baked: &Baked, name: &str, heights: [f32; 2], legs: [f32; 2]) {
    let per_height = speed(baked, name);
    let per_leg = per_height * baked.asset.bounds.height / leg_length(baked);
    assert!(
        (heights[0]..=heights[1]).contains(&per_height) && (legs[0]..=legs[1]).contains(&per_leg),
        "{}: {name} moves at {per_height} heights/s, {per_leg} leg lengths/s; expected \
         {heights:?} and {legs:?}",
        baked.asset.name
    );
}

#[test]
fn generated_knight_walks_and_runs_at_human_speeds() {
    let baked = bake_clips(
        &PathBuf::from(ASSETS).join("knight.glb"),
        &["idle", "walk", "run", "attack_slash", "victory", "die"],
    );
    assert_within(&baked, "walk", [0.6, 1.0], [1.1, 2.0]);
    assert_within(&baked, "run", [1.2, 3.5], [2.2, 7.0]);
    assert!(speed(&baked, "run") > 1.3 * speed(&baked, "walk"));
    for still in ["idle", "attack_slash", "victory", "die"] {
        assert_eq!(speed(&baked, still), 0.0, "{still}");
    }
}

#[test]
fn kaykit_knight_walks_and_runs_at_human_speeds() {
    let baked = bake_clips(
        &sample_path("KayKit_Knight/Knight.glb"),
        &[
            "Idle",
            "Walking_A",
            "Running_A",
            "Cheer",
            "1H_Melee_Attack_Chop",
        ],
    );
    assert_within(&baked, "Walking_A", [0.25, 1.0], [1.0, 3.0]);
    assert_within(&baked, "Running_A", [0.8, 3.0], [4.0, 15.0]);
    assert!(speed(&baked, "Running_A") > 1.3 * speed(&baked, "Walking_A"));
    for still in ["Idle", "Cheer", "1H_Melee_Attack_Chop"] {
        assert_eq!(speed(&baked, still), 0.0, "{still}");
    }
}

#[test]
fn kaykit_skeletons_walk_and_run_at_plausible_speeds() {
    let minion = bake_clips(
        &sample_path("KayKit_Skeleton_Minion/skeleton_minion.glb"),
        &["Idle", "Walking_A", "Running_A"],
    );
    assert_within(&minion, "Walking_A", [0.25, 1.0], [1.0, 3.0]);
    assert_within(&minion, "Running_A", [0.8, 3.0], [4.0, 15.0]);
    // The warrior ships no clips: it borrows the Knight's (same rig).
    let knight = sample_path("KayKit_Knight/Knight.glb");
    let warrior = bake_clips_from(
        &sample_path("KayKit_Skeleton_Warrior/Skeleton_Warrior.glb"),
        &[&knight],
        &["Idle", "Walking_A", "Running_A"],
    );
    assert_within(&warrior, "Walking_A", [0.25, 1.0], [1.0, 3.0]);
    assert_within(&warrior, "Running_A", [0.8, 3.0], [4.0, 15.0]);
}

#[test]
fn bad_or_still_clips_measure_still() {
    use bake::ground_speed::{measure, soles, Gait, Soles};
    use glam::{Mat4, Vec3};
    use horde_bake::import::Influences;
    let still = Gait::default();
    assert_eq!(measure(&[], &[], &Soles::default(), 1.0, 1.8), still);
    let rigid = Influences {
        bones: [0; 4],
        weights: [1.0, 0.0, 0.0, 0.0],
    };
    let feet = soles(
        &[Vec3::new(0.1, 0.0, 0.0), Vec3::new(-0.1, 0.0, 0.0), Vec3::Y],
        &[rigid; 3],
        1.8,
    );
    assert_eq!((feet.sides[0].len(), feet.sides[1].len()), (1, 1));
    let pose = vec![vec![Mat4::IDENTITY; 2]; 10];
    let bind = [Vec3::ZERO, Vec3::Y];
    assert_eq!(measure(&pose, &bind, &feet, 1.0, 1.8), still);
    assert_eq!(measure(&pose, &bind, &feet, f32::NAN, 1.8), still);
    // Influences naming bones the poses lack are refused, not indexed.
    let stray = Influences {
        bones: [7, 0, 0, 0],
        ..rigid
    };
    let bad_feet = soles(&[Vec3::X, -Vec3::X], &[stray; 2], 1.8);
    assert_eq!(measure(&pose, &bind, &bad_feet, 1.0, 1.8), still);
}
