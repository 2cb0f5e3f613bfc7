//! The stress test: horde's GPU-driven frame against its baselines over unit
//! counts, cameras, encodings and tiers, measured in one run (see
//! `horde_tools::stress`). Writes `report.json`, `summary.json`, `report.md`
//! and PNG plots into `--out`.
//!
//! ```text
//! stress --out benches/results/stress                  # the full sweep
//! stress --preset lavapipe --out target/stress-lavapipe   # about a minute on lavapipe
//! stress --plot benches/results/stress/report.json     # plots and tables again
//! ```

use std::path::PathBuf;

use anyhow::{Context as _, Result};
use clap::Parser;
use horde::asset::BoneEncoding;
use horde::context::Tier;
use horde::renderer::Strategy;
use horde_bake::cache::CacheOptions;
use horde_tools::cli::{parse_strategy, Encoding, OnOff, TierArg};
use horde_tools::crowd::CameraPreset;
use horde_tools::stress::{markdown, plot_all, run_sweep, write_outputs, Report, SweepOptions};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Preset {
    /// Every strategy at 1k to 4M units, both cameras, 1920 x 1080.
    Full,
    /// A small sweep that finishes in about a minute on lavapipe.
    Lavapipe,
}

/// A float in `min..=max`.
fn bounded(text: &str, min: f64, max: f64) -> Result<f64, String> {
    let value: f64 = text.parse().map_err(|err| format!("{err}"))?;
    if !(min..=max).contains(&value) {
        return Err(format!("{value} is outside {min}..={max}"));
    }
    Ok(value)
}

fn parse_frame_bound(text: &str) -> Result<f64, String> {
    bounded(text, 1.0, 600_000.0)
}

fn parse_bandwidth(text: &str) -> Result<f64, String> {
    bounded(text, 0.001, 1000.0)
}

#[derive(Debug, Parser)]
#[command(
    version,
    about = "horde stress test: the GPU-driven frame against the naive, instanced and cpu-culled baselines"
)]
struct Args {
    /// A starting set of defaults; the options below override it.
    #[arg(long, value_enum, default_value_t = Preset::Full)]
    preset: Preset,
    /// Unit counts, comma-separated (default 1000,10000,100000,1000000,4000000;
    /// lavapipe 500,2000,8000).
    #[arg(long, value_delimiter = ',', value_parser = clap::value_parser!(u32).range(1..=16_000_000))]
    units: Vec<u32>,
    /// Strategies, comma-separated (default all).
    #[arg(long, value_delimiter = ',', value_parser = parse_strategy)]
    strategies: Vec<Strategy>,
    /// Cameras, comma-separated: overview, close (the front line) (default
    /// both; lavapipe close).
    #[arg(long, value_enum, value_delimiter = ',')]
    cameras: Vec<CameraPreset>,
    /// The GPU-driven frame's far field (the baselines draw every unit as a
    /// mesh): off measures the mesh paths against each other.
    #[arg(long, value_enum, default_value_t = OnOff::Off)]
    far_field: OnOff,
    /// The GPU-driven frame's impostors (default: on where the device has
    /// no far field, the mobile tier).
    #[arg(long, value_enum)]
    impostors: Option<OnOff>,
    /// Bone encodings, comma-separated (default mat3x4).
    #[arg(long, value_enum, value_delimiter = ',')]
    encodings: Vec<Encoding>,
    /// Feature tiers, comma-separated (default desktop).
    #[arg(long, value_enum, value_delimiter = ',')]
    tiers: Vec<TierArg>,
    /// Measured frames per point (default 20; lavapipe 3).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    frames: Option<u32>,
    /// Warm-up frames per point (default 5; lavapipe 2).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    warmup: Option<u32>,
    /// Width in pixels (default 1920; lavapipe 320).
    #[arg(long, value_parser = clap::value_parser!(u32).range(16..=16384))]
    width: Option<u32>,
    /// Height in pixels (default 1080; lavapipe 180).
    #[arg(long, value_parser = clap::value_parser!(u32).range(16..=16384))]
    height: Option<u32>,
    /// Skip a point whose first frame, or warm-up, took longer, in ms
    /// (default 1500; lavapipe 4000). The naive and instanced baselines,
    /// whose frame grows linearly in units, are also skipped where the size
    /// before predicts a longer frame; the GPU-driven frame and cpu-culled
    /// are always rendered first.
    #[arg(long, value_parser = parse_frame_bound)]
    max_frame_ms: Option<f64>,
    /// The device's memory bandwidth in TB/s, for the cull pass's share
    /// (the NVIDIA H100 SXM's 3.35 by default).
    #[arg(long, default_value_t = 3.35, value_parser = parse_bandwidth)]
    bandwidth_tb_per_s: f64,
    /// Do not draw the GPU-driven points unskinned for the skinned/static
    /// ratio.
    #[arg(long)]
    no_static_compare: bool,
    /// Measure each point's image quality (every strategy but naive): FLIP
    /// and unit coverage against a reference of the same GPU state (every
    /// unit a mesh at LOD 0, no far field, 2×2 supersampled) and the
    /// still-camera shimmer; adds the report's and summary's quality columns.
    #[arg(long)]
    quality: bool,
    /// GPU by index or name substring (also HORDE_DEVICE).
    #[arg(long)]
    device: Option<String>,
    /// Vulkan validation layers on (slow).
    #[arg(long)]
    validation: bool,
    /// Bake every glTF anew instead of using the baked-asset cache.
    #[arg(long)]
    no_cache: bool,
    /// Output folder.
    #[arg(long, default_value = "benches/results/stress")]
    out: PathBuf,
    /// Only draw the plots and `report.md` again from a `report.json`.
    #[arg(long)]
    plot: Option<PathBuf>,
}

fn options(args: &Args) -> SweepOptions {
    let lavapipe = args.preset == Preset::Lavapipe;
    let or = |given: &[u32], full: &[u32], small: &[u32]| -> Vec<u32> {
        if !given.is_empty() {
            given.to_vec()
        } else if lavapipe {
            small.to_vec()
        } else {
            full.to_vec()
        }
    };
    let pick = |full, small| if lavapipe { small } else { full };
    SweepOptions {
        units: or(
            &args.units,
            &[1_000, 10_000, 100_000, 1_000_000, 4_000_000],
            &[500, 2_000, 8_000],
        ),
        strategies: if args.strategies.is_empty() {
            Strategy::ALL.to_vec()
        } else {
            args.strategies.clone()
        },
        cameras: if !args.cameras.is_empty() {
            args.cameras.clone()
        } else if lavapipe {
            vec![CameraPreset::Close]
        } else {
            vec![CameraPreset::Overview, CameraPreset::Close]
        },
        encodings: if args.encodings.is_empty() {
            vec![BoneEncoding::Mat3x4F32]
        } else {
            args.encodings.iter().map(|e| e.bone_encoding()).collect()
        },
        tiers: if args.tiers.is_empty() {
            vec![Tier::Desktop]
        } else {
            args.tiers.iter().map(|tier| tier.tier()).collect()
        },
        frames: args.frames.unwrap_or(pick(20, 3)),
        warmup: args.warmup.unwrap_or(pick(5, 2)),
        width: args.width.unwrap_or(pick(1920, 320)),
        height: args.height.unwrap_or(pick(1080, 180)),
        max_frame_ms: args
            .max_frame_ms
            .unwrap_or(if lavapipe { 4000.0 } else { 1500.0 }),
        bandwidth_tb_per_s: args.bandwidth_tb_per_s,
        static_compare: !args.no_static_compare,
        quality: args.quality,
        far_field: args.far_field.on(),
        impostors: args.impostors.map(OnOff::on),
        device: args.device.clone(),
        validation: args.validation,
        cache: CacheOptions {
            enabled: !args.no_cache,
            dir: None,
        },
        progress: true,
    }
}

fn main() -> Result<()> {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let args = Args::parse();
    if let Some(json) = &args.plot {
        let text =
            std::fs::read_to_string(json).with_context(|| format!("reading {}", json.display()))?;
        let report: Report =
            serde_json::from_str(&text).with_context(|| format!("parsing {}", json.display()))?;
        let dir = json.parent().unwrap_or(std::path::Path::new("."));
        plot_all(&report, dir)?;
        std::fs::write(dir.join("report.md"), markdown(&report))
            .with_context(|| format!("writing report.md in {}", dir.display()))?;
        println!("wrote the plots and report.md in {}", dir.display());
        return Ok(());
    }
    let options = options(&args);
    let command = std::env::args().collect::<Vec<_>>().join(" ");
    let report = run_sweep(&options, command)?;
    write_outputs(&report, &args.out)?;
    println!("{}", markdown(&report));
    println!(
        "{} points measured, {} skipped; wrote report.json, summary.json, report.md, \
         frame_time.png, ratio.png and passes.png in {}",
        report.points.len(),
        report.skipped.len(),
        args.out.display()
    );
    Ok(())
}
