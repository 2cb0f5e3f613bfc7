//! The stress test end to end on a tiny sweep, validation on: every
//! strategy measured at two sizes, the outputs written and readable, the
//! bound skipping what it must; and the report's pure parts (dates,
//! Markdown) on their own.

use horde::asset::BoneEncoding;
use horde::context::Tier;
use horde::renderer::Strategy;
use horde_bake::cache::CacheOptions;
use horde_tests::output_dir;
use horde_tools::crowd::CameraPreset;
use horde_tools::stress::{
    markdown, run_sweep, utc_date, write_outputs, SizeBefore, SkipRule, SummaryRow, SweepOptions,
};

fn tiny_sweep(max_frame_ms: f64) -> SweepOptions {
    SweepOptions {
        units: vec![40, 80],
        strategies: Strategy::ALL.to_vec(),
        cameras: vec![CameraPreset::Close],
        encodings: vec![BoneEncoding::Mat3x4F32],
        tiers: vec![Tier::Desktop],
        frames: 2,
        warmup: 1,
        width: 64,
        height: 48,
        max_frame_ms,
        bandwidth_tb_per_s: 3.35,
        static_compare: true,
        quality: true,
        far_field: false,
        impostors: None,
        device: None,
        validation: true,
        cache: CacheOptions {
            enabled: true,
            dir: Some(output_dir().join("bake-cache")),
        },
        progress: false,
    }
}

#[test]
fn a_tiny_sweep_measures_every_strategy_and_writes_the_report() {
    horde_tests::init_logging();
    let report = run_sweep(&tiny_sweep(600_000.0), "tiny sweep".to_owned()).expect("sweep");
    assert!(report.skipped.is_empty(), "{:#?}", report.skipped);
    assert_eq!(report.points.len(), 8, "4 strategies x 2 sizes");
    for point in &report.points {
        assert!(point.frame_ms_median > 0.0, "{point:?}");
        assert!(point.memory.allocated_bytes > 0);
        let names: Vec<&str> = point.gpu_ms.iter().map(|s| s.name.as_str()).collect();
        assert!(
            names.contains(&"draw") && names.contains(&"frame"),
            "{names:?}"
        );
        if point.strategy == "gpu-driven" {
            let efficiency = &point.efficiency;
            assert!(efficiency.cull_bytes_per_unit.is_some_and(|b| b >= 36.0));
            assert!(efficiency.skinned_static_ratio.is_some());
        }
        // The naive baseline animates on the CPU: its GPU state has no
        // reference to replay.
        match &point.quality {
            None => assert_eq!(point.strategy, "naive", "{point:?}"),
            Some(quality) => {
                assert_ne!(point.strategy, "naive");
                assert!((0.0..=1.0).contains(&quality.flip_mean), "{quality:?}");
                assert!(quality.flip_p95 >= 0.0 && quality.flip_p95 <= 1.0);
                assert!(
                    quality.coverage_ratio.is_some_and(|r| r > 0.0),
                    "{quality:?}"
                );
            }
        }
    }
    let out = output_dir().join("stress");
    write_outputs(&report, &out).expect("write outputs");
    let summary: Vec<SummaryRow> = serde_json::from_str(
        &std::fs::read_to_string(out.join("summary.json")).expect("read summary.json"),
    )
    .expect("parse summary.json");
    assert_eq!(summary.len(), 8);
    assert!(summary
        .iter()
        .all(|row| row.flip_mean.is_some() == (row.strategy != "naive")));
    for plot in ["frame_time.png", "ratio.png", "passes.png"] {
        let image = image::open(out.join(plot)).expect("a readable plot");
        assert!(image.width() >= 640, "{plot}");
    }
    let md = std::fs::read_to_string(out.join("report.md")).expect("read report.md");
    assert!(md.contains("| gpu-driven | 80 | front-line |"), "{md}");
    assert!(md.contains("## Image quality"), "{md}");
}

#[test]
fn a_tight_bound_skips_and_says_why() {
    horde_tests::init_logging();
    let mut options = tiny_sweep(0.0001);
    options.strategies = vec![Strategy::Instanced];
    options.static_compare = false;
    let report = run_sweep(&options, "bounded sweep".to_owned()).expect("sweep");
    assert!(report.points.is_empty());
    assert_eq!(report.skipped.len(), 2);
    assert!(
        report.skipped[0]
            .reason
            .contains("its first frame at this size took"),
        "{:?}",
        report.skipped
    );
    assert!(
        report.skipped[1].reason.contains("predicted"),
        "{:?}",
        report.skipped
    );
    assert!(markdown(&report).contains("## Skipped"));
}

/// The GPU-driven frame is never skipped by prediction: under a bound no
/// frame meets, each size renders a frame of its own before it is skipped.
#[test]
fn a_tight_bound_renders_the_gpu_driven_frame_at_every_size() {
    horde_tests::init_logging();
    let mut options = tiny_sweep(0.0001);
    options.strategies = vec![Strategy::GpuDriven];
    options.static_compare = false;
    let report = run_sweep(&options, "bounded gpu-driven sweep".to_owned()).expect("sweep");
    assert!(report.points.is_empty());
    let reasons: Vec<(u32, &str)> = report
        .skipped
        .iter()
        .map(|skip| (skip.units, skip.reason.as_str()))
        .collect();
    assert_eq!(reasons.len(), 2, "{reasons:?}");
    for (units, reason) in &reasons {
        assert!(
            reason.contains("its first frame at this size took"),
            "{units}: {reason}"
        );
    }
}

/// The skip rule on the H100 sweep that skipped gpu-driven at 1M units: a
/// strategy whose frame is sub-linear in units (18.7 ms at 10k, 107 ms at
/// 1M) is rendered where a linear prediction says 1871 ms, and skipped only
/// by a frame it rendered there; a linear baseline is skipped by the
/// prediction.
#[test]
fn the_skip_rule_measures_a_sub_linear_strategy_a_linear_model_would_skip() {
    let rule = SkipRule {
        max_frame_ms: 1500.0,
    };
    let sub_linear_ms = |units: u32| 18.71 * (f64::from(units) / 10_000.0).powf(0.38);
    let before = Some(SizeBefore::Frame {
        units: 10_000,
        frame_ms: sub_linear_ms(10_000),
    });
    for strategy in [Strategy::GpuDriven, Strategy::CpuCulled] {
        assert_eq!(rule.before_rendering(strategy, 1_000_000, before), None);
        let failed = Some(SizeBefore::Failed { units: 10_000 });
        assert_eq!(rule.before_rendering(strategy, 1_000_000, failed), None);
    }
    let frame_ms = sub_linear_ms(1_000_000);
    assert!((100.0..115.0).contains(&frame_ms), "{frame_ms}");
    assert_eq!(rule.after_frames("its first frame", frame_ms), None);
    let slow = rule
        .after_frames("its first frame at this size", 1600.0)
        .expect("over the bound");
    assert!(slow.contains("1600 ms, over the 1500 ms bound"), "{slow}");

    for strategy in [Strategy::Naive, Strategy::Instanced] {
        let reason = rule
            .before_rendering(strategy, 1_000_000, before)
            .expect("a linear baseline is predicted over the bound");
        assert!(
            reason.contains("predicted 1871 ms per frame, over the 1500 ms bound"),
            "{reason}"
        );
        assert_eq!(rule.before_rendering(strategy, 50_000, before), None);
    }
}

#[test]
fn dates_are_utc_iso_8601() {
    assert_eq!(utc_date(0), "1970-01-01T00:00:00Z");
    assert_eq!(utc_date(951_782_400), "2000-02-29T00:00:00Z");
    assert_eq!(utc_date(1_795_392_000 + 3_723), "2026-11-23T01:02:03Z");
}
