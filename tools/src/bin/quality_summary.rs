//! Gathers the `quality` of headless battle reports (`battle --headless
//! --quality --report X.json`) into one summary: a row per report with the
//! device, units, camera, the GPU frame median and the quality figures
//! (see `horde_tools::quality`). `tools/quality.sh` runs the battles and
//! then this.
//!
//! ```text
//! quality_summary --out benches/results/quality/summary.json benches/results/quality/*.report.json
//! ```

use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result};
use clap::Parser;
use horde_bake::output::OutputPath;
use horde_tools::quality::Quality;
use serde::{Deserialize, Serialize};

#[derive(Debug, Parser)]
#[command(
    version,
    about = "Gathers headless battle reports' quality figures into one summary"
)]
struct Args {
    /// Where to write the summary (JSON).
    #[arg(long)]
    out: PathBuf,
    /// Headless battle reports written with --quality.
    #[arg(required = true)]
    reports: Vec<PathBuf>,
}

/// What the summary reads of a report.
#[derive(Debug, Deserialize)]
struct BattleReport {
    device: String,
    units: u32,
    camera: String,
    gpu_ms: Vec<horde::profiler::ScopeStats>,
    quality: Option<Quality>,
}

/// One row of the summary.
#[derive(Debug, Serialize)]
struct Row {
    device: String,
    units: u32,
    camera: String,
    /// The `frame` timestamp scope's median over the run.
    gpu_frame_ms_median: Option<f64>,
    flip_mean: f64,
    flip_p95: f64,
    /// The frame's unit pixels over the reference's.
    coverage_ratio: Option<f64>,
    /// Consecutive-frame FLIP of a still camera over the reference's.
    still_flip_ratio: Option<f64>,
}

fn row(path: &Path) -> Result<Row> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let report: BattleReport =
        serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
    let quality = report.quality.with_context(|| {
        format!(
            "{} has no quality figures: run battle with --quality",
            path.display()
        )
    })?;
    Ok(Row {
        device: report.device,
        units: report.units,
        camera: report.camera,
        gpu_frame_ms_median: report
            .gpu_ms
            .iter()
            .find(|scope| scope.name == "frame")
            .map(|scope| scope.median_ms),
        flip_mean: quality.flip_mean,
        flip_p95: quality.flip_p95,
        coverage_ratio: quality.coverage_ratio,
        still_flip_ratio: quality.still_flip_ratio,
    })
}

fn main() -> Result<()> {
    let args = Args::parse();
    let output = OutputPath::check(args.out.as_path())?;
    let rows = args
        .reports
        .iter()
        .map(PathBuf::as_path)
        .map(row)
        .collect::<Result<Vec<Row>>>()?;
    output.write(serde_json::to_string_pretty(&rows)?.as_bytes())?;
    println!("wrote {output} ({} rows)", rows.len());
    Ok(())
}
