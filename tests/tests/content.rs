//! The generated default content bakes: each unit type and prop in `assets/`
//! goes through `bake` without errors, the fitted two-bone reduction does
//! at least as well as the naive one, and the LOD chain's rules hold (a
//! LOD's error bound follows its ratio; no LOD nearly copies the next).

use std::path::Path;

use horde_asset::AssetKind;
use horde_bake::{self as bake, BakeOptions};
use horde_tests::repo_root;

fn quiet(_: &str) {}

#[test]
fn generated_units_bake_with_fitted_two_bone_weights() {
    for name in ["knight", "skeleton"] {
        let path = repo_root().join(format!("assets/{name}.glb"));
        let baked = bake::bake_unit(Path::new(&path), &[], &BakeOptions::default(), &quiet)
            .unwrap_or_else(|err| panic!("baking {name}: {err}"));
        let asset = &baked.asset;
        let report = &asset.report;
        let animation = asset.animation.as_ref().expect("a unit");
        let clips: Vec<&str> = animation.clips.iter().map(|c| c.name.as_str()).collect();
        println!(
            "{name}: {} bones, clips {clips:?}, LOD triangles {:?}; two-bone naive max {:.4} rms {:.4}, \
             fitted max {:.4} rms {:.4} (model height {:.2})",
            animation.bone_count,
            asset.lods.iter().map(|l| l.indices.len() / 3).collect::<Vec<_>>(),
            report.two_bone_naive.max,
            report.two_bone_naive.rms,
            report.two_bone_fitted.max,
            report.two_bone_fitted.rms,
            report.model_height
        );
        assert_eq!(asset.kind, AssetKind::Unit);
        // Our rigs scale no joint, so the vertex shader maps their normals
        // by the bone matrices themselves and blends them as they come.
        assert_eq!(
            horde::world::types::bone_shape(asset),
            horde::world::types::BoneShape::SharedScale,
            "{name}: a bone with a scale of its own"
        );
        // Every ratio's LOD (the coarsest is the box-per-bone proxy), then
        // the coarse proxy of fewer boxes; and the raster's LODs the cull
        // may pick (`lod::drop_unpicked_raster_lods`): the skeleton's 0.07
        // has its box proxy's error.
        let options = BakeOptions::default();
        let raster_only = asset.lods.iter().filter(|lod| lod.raster_only).count();
        assert_eq!(
            asset.lods.len() - raster_only,
            options.lod_ratios.len() + 1,
            "{name}: every LOD"
        );
        assert_eq!(
            raster_only,
            if name == "knight" { 3 } else { 2 },
            "{name}: the raster's LODs"
        );
        // No LOD keeps 95 % of the triangles of the one before
        // (`lod::drop_near_copies`), and none is finer than it.
        for (level, pair) in asset.lods.windows(2).enumerate() {
            let (finer, coarser) = (&pair[0], &pair[1]);
            assert!(
                coarser.indices.len() * 100 < finer.indices.len() * 95,
                "{name}: LOD {} nearly copies LOD {level}",
                level + 1
            );
            assert!(
                coarser.error >= finer.error,
                "{name}: LOD {} is finer than LOD {level}",
                level + 1
            );
            assert!(
                !finer.raster_only || coarser.error > finer.error,
                "{name}: raster-only LOD {level} is never picked",
            );
        }
        // `bake inspect` says how wide on screen each LOD is taken (its
        // reach, 1 / error): the knight's 0.3 LOD up to a sphere 116 px
        // across, its 0.1 LOD up to 18 px, the sixfold step plain to see.
        let text = bake::inspect::inspect_text(asset, &[], 0);
        for (level, lod) in asset.lods.iter().enumerate() {
            let line = text
                .lines()
                .find(|line| line.trim_start().starts_with(&format!("LOD {level}:")))
                .unwrap_or_else(|| panic!("{name}: no line for LOD {level} in\n{text}"));
            let reach = if lod.error > 0.0 {
                format!("<= {:>5.0} px", 1.0 / lod.error)
            } else {
                "any px".to_string()
            };
            assert!(line.contains(&reach), "{name}: {line:?} lacks {reach:?}");
        }
        if name == "knight" {
            assert!(
                text.contains("<=   116 px") && text.contains("<=    18 px"),
                "{text}"
            );
        }
        let coarse = asset.lods.last().expect("LODs");
        assert_eq!(
            coarse.vertices.len(),
            8 * horde_bake::lod::COARSE_PROXY_BOXES,
            "{name}: the coarse proxy"
        );
        for clip in [
            "idle",
            "walk",
            "run",
            "attack_slash",
            "attack_thrust",
            "hit",
            "die",
            "victory",
        ] {
            assert!(
                clips.contains(&clip),
                "{name}: clip {clip} missing from {clips:?}"
            );
        }
        assert!(
            report.two_bone_fitted.rms <= report.two_bone_naive.rms,
            "{name}: fitted {:?} is worse than naive {:?}",
            report.two_bone_fitted,
            report.two_bone_naive
        );
        assert!(
            report.two_bone_fitted.rms > 0.0,
            "{name}: the content should need the reduction"
        );
    }
}

#[test]
fn generated_props_bake() {
    for name in ["rock", "pillar", "banner", "tree", "fence"] {
        let path = repo_root().join(format!("assets/{name}.glb"));
        let baked = bake::bake_prop(Path::new(&path), &BakeOptions::default(), &quiet)
            .unwrap_or_else(|err| panic!("baking {name}: {err}"));
        assert_eq!(baked.asset.kind, AssetKind::Prop);
        assert!(
            baked.asset.lods[0].indices.len() >= 3,
            "{name} has triangles"
        );
    }
}

/// A denser chain than the default: where meshopt stops at the same
/// collapses for two ratios (the fence's 0.14 and 0.1 are the same 90
/// triangles), the finer copy is dropped (`lod::drop_near_copies`), and
/// the LODs the default chain has keep their meshes, since a LOD's error
/// bound follows its ratio, not its place in the chain.
#[test]
fn a_denser_lod_chain_keeps_the_default_lods_and_drops_copies() {
    let dense = BakeOptions {
        lod_ratios: vec![1.0, 0.5, 0.3, 0.2, 0.14, 0.1, 0.03],
        ..BakeOptions::default()
    };
    // The simplified LODs (a box proxy may have as many triangles as the
    // LOD before it: it is another shape, not a copy).
    let triangles = |lods: &[horde_asset::MeshLod]| -> Vec<usize> {
        lods.iter()
            .filter(|lod| !lod.box_proxy)
            .map(|lod| lod.indices.len() / 3)
            .collect()
    };
    for name in ["fence", "tree", "rock"] {
        let path = repo_root().join(format!("assets/{name}.glb"));
        let bake = |options: &BakeOptions| {
            bake::bake_prop(Path::new(&path), options, &quiet)
                .unwrap_or_else(|err| panic!("baking {name}: {err}"))
                .asset
                .lods
        };
        let (default, denser) = (
            triangles(&bake(&BakeOptions::default())),
            triangles(&bake(&dense)),
        );
        for pair in denser.windows(2) {
            assert!(
                pair[1] * 100 < pair[0] * 95,
                "{name}: LODs of {denser:?} triangles nearly copy each other"
            );
        }
        assert!(
            default.iter().all(|count| denser.contains(count)),
            "{name}: the default chain's LODs {default:?} are not all in {denser:?}"
        );
    }
}

/// The bound doubles for each factor of 3 below ratio 0.5, whatever the
/// LOD's place in the chain: the 0.5, 0.3, 0.1 and 0.03 LODs keep the
/// bounds they had as LODs 1 to 4, and a ratio of exactly 0.5 / 3 stays on
/// its step where the logarithm rounds up.
#[test]
fn a_lods_error_bound_follows_its_ratio() {
    for (ratio, bound) in [
        (1.0, 0.025),
        (0.5, 0.025),
        (0.3, 0.05),
        (0.2, 0.05),
        (0.5 / 3.0, 0.05),
        (0.14, 0.1),
        (0.1, 0.1),
        (0.5 / 9.0, 0.1),
        (0.03, 0.2),
        (0.01, 0.4),
    ] {
        let got = bake::lod::error_bound(0.025, ratio);
        assert!(
            (got - bound).abs() < 1e-6,
            "ratio {ratio}: bound {got}, expected {bound}"
        );
    }
}

/// The far field draws a LOD it cannot hold in shared memory as the next
/// coarser one, so the bake keeps every unit LOD the far field may draw
/// within what its mid-size pipeline holds on a device of 48 KiB. The
/// generated `knight_3`'s 0.3 LOD had 1,737 vertices, and its units of 17
/// to 100 px were drawn at the 0.1 LOD, six times the error.
#[test]
fn the_far_fields_lods_fit_its_mid_size_pipeline() {
    use horde::passes::far_field::meshes::mid_vertex_capacity;
    use horde::renderer::{BUDGET_MAX_FAR_FIELD_PX, DEFAULT_FAR_FIELD_PX};
    assert_eq!(
        mid_vertex_capacity(48 * 1024) as usize,
        bake::lod::FAR_FIELD_LOD_MAX_VERTICES
    );
    assert_eq!(bake::lod::FAR_FIELD_LOD_REACH_PX, BUDGET_MAX_FAR_FIELD_PX);
    let path = repo_root().join("assets/knight_3.glb");
    let baked = bake::bake_unit(&path, &[], &BakeOptions::default(), &quiet)
        .unwrap_or_else(|err| panic!("baking knight_3: {err}"));
    let lods = &baked.asset.lods;
    for (level, lod) in lods.iter().enumerate() {
        if bake::lod::far_field_may_draw(lod.error) && !lod.raster_only {
            assert!(
                lod.vertices.len() <= bake::lod::FAR_FIELD_LOD_MAX_VERTICES,
                "LOD {level}: {} vertices",
                lod.vertices.len()
            );
        }
    }
    // The 0.3 LOD, trimmed to fit, still serves every unit up to the far
    // field's default size at an error of at most a pixel.
    assert!(
        lods[2].error * DEFAULT_FAR_FIELD_PX <= 1.0,
        "LOD 2's reach: {} px",
        1.0 / lods[2].error
    );
    assert!(!bake::lod::far_field_may_draw(lods[1].error));
}

/// A LOD that its error bound stops above what the far field holds stays
/// as meshopt made it: trimmed part way it would lose detail and still be
/// drawn as the next coarser LOD. The KayKit knight's 0.5 LOD has 4,333
/// vertices and comes down to 1,879 within its bound.
#[test]
fn a_lod_that_cannot_fit_the_far_field_stays_whole() {
    let path = horde_tests::samples_dir().join("KayKit_Knight/Knight.glb");
    let baked = bake::bake_unit(&path, &[], &BakeOptions::default(), &quiet)
        .unwrap_or_else(|err| panic!("baking {}: {err}", path.display()));
    let lods = &baked.asset.lods;
    assert!(bake::lod::far_field_may_draw(lods[1].error));
    assert!(lods[1].vertices.len() > bake::lod::FAR_FIELD_LOD_MAX_VERTICES);
    assert_eq!(
        lods[1].indices.len() / 3,
        lods[0].indices.len() / 3 / 2,
        "the 0.5 LOD at its ratio"
    );
}

/// The raster-only LODs (the default's 0.2 and 0.14 between the 0.3 and
/// the 0.1 LOD, its 0.07 between the 0.1 and the box proxy) change no
/// other LOD, the box proxy's error included: the far field, which draws
/// their units with the next finer LOD (`passes/far_field/meshes.rs`),
/// draws the meshes it drew without them, byte for byte. Props take none.
#[test]
fn raster_only_lods_leave_the_other_lods_as_they_were() {
    let path = repo_root().join("assets/knight.glb");
    let bake = |options: &BakeOptions| {
        bake::bake_unit(&path, &[], options, &quiet)
            .unwrap_or_else(|err| panic!("baking the knight: {err}"))
            .asset
            .lods
    };
    let with = bake(&BakeOptions::default());
    let without = bake(&BakeOptions {
        raster_lod_ratios: Vec::new(),
        ..BakeOptions::default()
    });
    let raster_only: Vec<usize> = (0..with.len())
        .filter(|&level| with[level].raster_only)
        .collect();
    assert_eq!(raster_only, [3, 4, 6], "the 0.2, 0.14 and 0.07 LODs");
    let others: Vec<_> = with
        .iter()
        .filter(|lod| !lod.raster_only)
        .cloned()
        .collect();
    assert!(
        others == without,
        "the LODs that are not raster only differ from a bake without them"
    );
    for level in [3, 4, 6] {
        let (finer, lod, coarser) = (&with[level - 1], &with[level], &with[level + 1]);
        assert!(
            finer.vertices.len() > lod.vertices.len()
                && lod.vertices.len() > coarser.vertices.len(),
            "LOD {level}: {} vertices between {} and {}",
            lod.vertices.len(),
            finer.vertices.len(),
            coarser.vertices.len()
        );
        assert!(
            finer.error <= lod.error && lod.error <= coarser.error,
            "LOD {level}: error {} between {} and {}",
            lod.error,
            finer.error,
            coarser.error
        );
    }
    let tree = bake::bake_prop(
        &repo_root().join("assets/tree.glb"),
        &BakeOptions::default(),
        &quiet,
    )
    .unwrap_or_else(|err| panic!("baking the tree: {err}"));
    assert!(
        tree.asset.lods.iter().all(|lod| !lod.raster_only),
        "a prop with a raster-only LOD"
    );
}
