//! `bake`: glTF 2.0 to `.horde` crowd assets.
//!
//! ```text
//! bake CHARACTER.glb [--animations LIB.glb ...] -o unit.horde
//! bake --prop MESH.glb -o prop.horde
//! bake inspect unit.horde
//! ```

use anyhow::{bail, Context as _};
use clap::{Args, Parser, Subcommand, ValueEnum};
use horde_asset::BoneEncoding;
use horde_bake::output::OutputPath;
use horde_bake::{self as bake, BakeOptions, ClipSelection, TwoBoneMethod};
use std::path::PathBuf;

#[derive(Parser)]
#[command(
    name = "bake",
    version,
    about = "Bake glTF 2.0 characters and props into .horde crowd assets"
)]
#[command(args_conflicts_with_subcommands = true)]
#[command(allow_negative_numbers = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    bake: BakeArgs,
}

#[derive(Subcommand)]
enum Command {
    /// Print a .horde file's header, sections, clips, bones, LODs, sizes and error report.
    Inspect {
        /// The .horde file.
        file: PathBuf,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum EncodingArg {
    /// Three RGBA32F texels per bone (exact).
    Mat3x4,
    /// Quaternion + translation/scale, RGBA32F.
    Quat32,
    /// Quaternion + translation/scale, RGBA16F.
    Quat16,
    /// Dual quaternion, RGBA32F; two bones blended without candy-wrapper collapse.
    Dualquat,
}

#[derive(Clone, Copy, ValueEnum)]
enum TwoBoneArg {
    /// Least-squares pair and weight over all baked poses.
    Fitted,
    /// Two strongest influences, renormalized.
    Naive,
}

#[derive(Args)]
struct BakeArgs {
    /// Input glTF (.glb or .gltf): a skinned character, or a static mesh with --prop.
    input: Option<PathBuf>,
    /// Output .horde file (written atomically; see horde_bake::output).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Bake a static prop instead of a skinned unit.
    #[arg(long)]
    prop: bool,
    /// Animation library whose clips are bound to the character by joint name (repeatable).
    #[arg(long = "animations", value_name = "LIB.glb")]
    animations: Vec<PathBuf>,
    /// Keep only these clips, optionally renamed: `Walk` or `Walking_A=walk` (repeatable).
    #[arg(long = "clip", value_name = "SOURCE[=NAME]")]
    clips: Vec<String>,
    /// Mark a clip looping, overriding the first-equals-last-frame test (repeatable).
    #[arg(long = "loop", value_name = "NAME")]
    looping: Vec<String>,
    /// Mark a clip non-looping (repeatable).
    #[arg(long = "no-loop", value_name = "NAME")]
    not_looping: Vec<String>,
    /// Base frames per second of the baked clips.
    #[arg(long, default_value_t = 30.0)]
    rate: f32,
    /// Largest frame-interpolation error, in % of the rest-pose height; a clip
    /// that exceeds it at --rate is sampled faster (up to --max-rate).
    #[arg(
        long = "max-interp-error",
        value_name = "PERCENT",
        default_value_t = 1.0
    )]
    max_interp_error: f32,
    /// Highest frames per second a clip may be raised to.
    #[arg(long = "max-rate", default_value_t = 240.0)]
    max_rate: f32,
    /// Bone texture encoding.
    #[arg(long, value_enum, default_value = "mat3x4")]
    encoding: EncodingArg,
    /// Two-bone reduction stored in the vertices.
    #[arg(long = "two-bone", value_enum, default_value = "fitted")]
    two_bone: TwoBoneArg,
    /// Number of LODs (ratios default to 1, 0.5, 0.3, 0.1, 0.03, then thirds).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=horde_asset::MAX_LODS as i64))]
    lods: Option<u32>,
    /// Triangle ratio of each LOD, comma-separated, LOD 0 first (overrides --lods).
    #[arg(long = "lod-ratios", value_delimiter = ',')]
    lod_ratios: Vec<f32>,
    /// Triangle ratios of a unit's LODs for the raster only, comma-separated,
    /// inserted where they fall between two of the chain's (default
    /// 0.2,0.14,0.07; given without values, none; props take none): the far
    /// field draws their units with the next finer LOD.
    #[arg(long = "raster-lod-ratios", value_delimiter = ',', num_args = 0..)]
    raster_lod_ratios: Option<Vec<f32>>,
    /// Largest relative simplification error of LOD 1, ratio 0.5 (doubled for each factor of 3, or part of one, below it).
    #[arg(long = "lod-error", default_value_t = 0.025)]
    lod_error: f32,
    /// Bone texture width in texels (the mobile tier needs height <= 4096).
    #[arg(
        long = "texture-width",
        default_value_t = horde_asset::DEFAULT_BONE_TEXTURE_WIDTH,
        value_parser = clap::value_parser!(u32).range(1..=i64::from(horde_asset::MAX_TEXTURE_SIDE))
    )]
    texture_width: u32,
    /// Asset name (default: the input file stem).
    #[arg(long)]
    name: Option<String>,
}

fn lod_ratios(args: &BakeArgs) -> Vec<f32> {
    if !args.lod_ratios.is_empty() {
        return args.lod_ratios.clone();
    }
    let defaults = BakeOptions::default().lod_ratios;
    let count = args.lods.map_or(defaults.len(), |lods| lods as usize);
    (0..count)
        .map(|level| {
            defaults.get(level).copied().unwrap_or_else(|| {
                defaults.last().copied().unwrap_or(1.0)
                    / 3f32.powi((level + 1 - defaults.len()) as i32)
            })
        })
        .collect()
}

fn options(args: &BakeArgs) -> BakeOptions {
    BakeOptions {
        name: args.name.clone(),
        sample_rate: args.rate,
        max_interp_error: args.max_interp_error / 100.0,
        max_sample_rate: args.max_rate,
        encoding: match args.encoding {
            EncodingArg::Mat3x4 => BoneEncoding::Mat3x4F32,
            EncodingArg::Quat32 => BoneEncoding::QuatF32,
            EncodingArg::Quat16 => BoneEncoding::QuatF16,
            EncodingArg::Dualquat => BoneEncoding::DualQuatF32,
        },
        lod_ratios: lod_ratios(args),
        raster_lod_ratios: args
            .raster_lod_ratios
            .clone()
            .unwrap_or_else(|| BakeOptions::default().raster_lod_ratios),
        lod_target_error: args.lod_error,
        clips: args
            .clips
            .iter()
            .map(|clip| ClipSelection::parse(clip))
            .collect(),
        looping: args.looping.clone(),
        not_looping: args.not_looping.clone(),
        two_bone: match args.two_bone {
            TwoBoneArg::Fitted => TwoBoneMethod::Fitted,
            TwoBoneArg::Naive => TwoBoneMethod::Naive,
        },
        texture_width: args.texture_width,
        ..BakeOptions::default()
    }
}

fn inspect(file: &PathBuf) -> anyhow::Result<()> {
    let bytes = std::fs::read(file).with_context(|| format!("{}: cannot read", file.display()))?;
    let asset = horde_asset::read(&bytes).with_context(|| format!("{}", file.display()))?;
    let sections = horde_asset::section_table(&bytes)?;
    print!(
        "{}",
        bake::inspect::inspect_text(&asset, &sections, bytes.len())
    );
    Ok(())
}

fn run_bake(args: &BakeArgs) -> anyhow::Result<()> {
    let Some(input) = &args.input else {
        bail!("no input file (see bake --help)");
    };
    let Some(output) = &args.output else {
        bail!("no output file: pass -o OUTPUT.horde");
    };
    if args.prop && !args.animations.is_empty() {
        bail!("--prop takes no --animations");
    }
    let output = OutputPath::check(output)?;
    let options = options(args);
    let spinner = indicatif::ProgressBar::new_spinner();
    spinner.enable_steady_tick(std::time::Duration::from_millis(100));
    let started = std::time::Instant::now();
    let progress = |stage: &str| {
        log::info!("{stage}");
        spinner.set_message(stage.to_owned());
    };
    let libraries: Vec<&std::path::Path> = args.animations.iter().map(PathBuf::as_path).collect();
    let baked = if args.prop {
        bake::bake_prop(input, &options, &progress)
    } else {
        bake::bake_unit(input, &libraries, &options, &progress)
    };
    spinner.finish_and_clear();
    let baked = baked?;
    let bytes = horde_asset::write(&baked.asset)
        .with_context(|| format!("encoding {}", output.path().display()))?;
    output.write(&bytes)?;
    let size = bytes.len();
    println!(
        "{} -> {} ({size} bytes) in {:.2} s",
        input.display(),
        output,
        started.elapsed().as_secs_f64()
    );
    for (level, lod) in baked.asset.lods.iter().enumerate() {
        println!(
            "  LOD {level}: {} vertices, {} triangles, error {:.5}",
            lod.vertices.len(),
            lod.indices.len() / 3,
            lod.error
        );
    }
    if let Some(animation) = &baked.asset.animation {
        let texel_size = animation.encoding.texel_size();
        let texels_per_frame =
            (animation.bone_count * animation.encoding.texels_per_bone()) as usize;
        let base_bytes: usize = animation
            .clips
            .iter()
            .map(|clip| {
                bake::sample::frame_count(clip.duration, options.sample_rate) as usize
                    * texels_per_frame
                    * texel_size
            })
            .sum();
        let stored_bytes: usize = animation
            .clips
            .iter()
            .map(|clip| clip.frame_count as usize * texels_per_frame * texel_size)
            .sum();
        println!(
            "  {} clips, {} bones, {} bone texture {}x{}: {stored_bytes} bytes of poses \
             ({base_bytes} at the base {} fps)",
            animation.clips.len(),
            animation.bone_count,
            animation.encoding.name(),
            animation.texture_width,
            animation.texture_height,
            options.sample_rate
        );
        for clip in &animation.clips {
            println!(
                "    clip {:<32} {:>4} frames at {:>6.1} fps{}",
                clip.name,
                clip.frame_count,
                bake::inspect::clip_rate(clip),
                if clip.frame_count > bake::sample::frame_count(clip.duration, options.sample_rate)
                {
                    "  (raised: fast motion)"
                } else {
                    ""
                }
            );
        }
    }
    print!("{}", bake::inspect::report_text(&baked.asset.report));
    Ok(())
}

fn main() -> anyhow::Result<()> {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let cli = Cli::parse();
    match &cli.command {
        Some(Command::Inspect { file }) => inspect(file),
        None => run_bake(&cli.bake),
    }
}
