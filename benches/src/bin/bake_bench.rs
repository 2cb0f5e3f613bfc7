//! Bake benchmark: wall time of baking a character per bone encoding, the
//! resulting asset sizes by section, and the error report, as JSON.
//!
//! `bake_bench [--character PATH] [--animations LIB ...] [--runs N] [-o OUT.json]`
//! defaults to the KayKit Knight from `../shared/gltf-samples`.

use anyhow::Context as _;
use clap::Parser;
use horde_asset::{self as asset, BoneEncoding};
use horde_bake::output::OutputPath;
use horde_bake::{self as bake, BakeOptions};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(Parser)]
#[command(about = "Time the bake of one character per bone encoding and report asset sizes")]
struct Cli {
    /// Character glTF.
    #[arg(
        long,
        default_value = "../shared/gltf-samples/KayKit_Knight/Knight.glb"
    )]
    character: PathBuf,
    /// Animation libraries bound by joint name.
    #[arg(long)]
    animations: Vec<PathBuf>,
    /// Bakes per encoding; the minimum and median are reported.
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// Output JSON file (stdout if absent).
    #[arg(short, long)]
    output: Option<PathBuf>,
}

fn main() -> anyhow::Result<()> {
    env_logger::init();
    let cli = Cli::parse();
    let output = cli.output.as_ref().map(OutputPath::check).transpose()?;
    let libraries: Vec<&Path> = cli.animations.iter().map(PathBuf::as_path).collect();
    let mut results = Vec::new();
    for encoding in BoneEncoding::ALL {
        let options = BakeOptions {
            encoding,
            ..BakeOptions::default()
        };
        let mut seconds = Vec::with_capacity(cli.runs);
        let mut last = None;
        for _ in 0..cli.runs.max(1) {
            let started = Instant::now();
            let baked = bake::bake_unit(&cli.character, &libraries, &options, &|_| {})
                .with_context(|| format!("baking {}", cli.character.display()))?;
            seconds.push(started.elapsed().as_secs_f64());
            last = Some(baked);
        }
        seconds.sort_by(f64::total_cmp);
        let Some(baked) = last else { continue };
        let bytes = asset::write(&baked.asset)?;
        let sections: Vec<_> = asset::section_table(&bytes)?
            .iter()
            .map(|s| json!({"tag": String::from_utf8_lossy(&s.tag), "bytes": s.len}))
            .collect();
        let report = &baked.asset.report;
        let stat = |s: asset::ErrorStat| json!({"max": s.max, "rms": s.rms});
        results.push(json!({
            "encoding": encoding.name(),
            "bake_seconds_min": seconds[0],
            "bake_seconds_median": seconds[seconds.len() / 2],
            "file_bytes": bytes.len(),
            "bone_texture_bytes": baked.asset.animation.as_ref().map_or(0, |a| a.texels.len()),
            "sections": sections,
            "lods": baked.asset.lods.iter().map(|l| json!({
                "vertices": l.vertices.len(), "triangles": l.indices.len() / 3, "error": l.error
            })).collect::<Vec<_>>(),
            "report": {
                "model_height": report.model_height,
                "time_samples": report.time_samples,
                "two_bone_naive": stat(report.two_bone_naive),
                "two_bone_fitted": stat(report.two_bone_fitted),
                "mat3x4": stat(report.mat3x4),
                "quat32": stat(report.quat32),
                "quat16": stat(report.quat16),
                "frame_rate": stat(report.frame_rate),
                "total": stat(report.total),
            },
        }));
    }
    let document = json!({
        "benchmark": "bake",
        "character": cli.character.display().to_string(),
        "animations": cli.animations.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
        "runs": cli.runs,
        "profile": if cfg!(debug_assertions) { "dev" } else { "release" },
        "threads": std::thread::available_parallelism().map_or(1, usize::from),
        "results": results,
    });
    let text = serde_json::to_string_pretty(&document)?;
    match &output {
        Some(output) => output.write((text + "\n").as_bytes())?,
        None => println!("{text}"),
    }
    Ok(())
}
