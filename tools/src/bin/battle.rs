//! The battle demo: two armies march, clash, fight and fall, simulated and
//! drawn on the GPU. In a window, or headless as a stress test that writes a
//! PNG and a JSON report.
//!
//! ```text
//! battle                                         # window
//! battle --headless --units 100000 --frames 900 --render-every 30 \
//!        --screenshot battle.png --report battle.json
//! battle --model Knight.glb --model Skeleton_Warrior.glb
//! battle --model Robot.glb --model Fighter.glb --clip-map 2:victory=Cheering
//! battle --headless --quality --screenshot front.png --report front.json
//! ```
//!
//! `--quality` measures the last frame against a reference of the same GPU
//! state (every unit a mesh at LOD 0, no far field, no budget, 2×2
//! supersampled): FLIP, unit coverage and the still-camera shimmer go into
//! the report's `quality`, and beside the screenshot `X.png` go the
//! reference `X.reference.png` and FLIP's error map `X.flip.png`. In a
//! window it measures the presented frame every [`QUALITY_EVERY_S`] seconds
//! and the HUD shows FLIP and coverage.
//!
//! The default of 10,000 units: the crowd benchmark draws 10k units in
//! 15 ms on an NVIDIA H100's small graphics partition
//! (`benches/results/crowd`), and a mid-range desktop GPU rasterizes at least
//! as fast, so 10k holds 60 fps there with the simulation's 0.1 ms beside it.

use std::path::PathBuf;

use anyhow::{bail, Context as _, Result};
use clap::Parser;
use horde::asset::BoneEncoding;
use horde::context::{Context, ContextDesc};
use horde::renderer::Strategy;
use horde_bake::cache::CacheOptions;
use horde_bake::output::OutputPath;
use horde_battle::BattleRules;
use horde_tools::battle::{battle_hud, battle_scene, BattleCamera, BattleOptions, BattleScene};
use horde_tools::cli::{
    close_context, parse_strategy, Encoding, MsaaChoice, OnOff, PresentMode, TierArg,
};
use horde_tools::clip_map::ClipMapping;
use horde_tools::headless::{check_capacity, run_headless, HeadlessOptions};
use horde_tools::memory_samples::memory_trend;
use horde_tools::window::{run_window, window_verdict, WindowOptions};

#[derive(Debug, Parser)]
#[command(
    version,
    about = "horde battle: two armies march, clash, fight and fall, simulated and drawn on the GPU",
    allow_negative_numbers = true
)]
struct Args {
    /// Units in the two armies together.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u32).range(2..=16_000_000))]
    units: u32,
    /// Props scattered around the field (default: one per 25 units, 40 to 40,000).
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=1_000_000))]
    props: Option<u32>,
    /// Seed of the armies' layout and variety (the battle itself follows from it).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Feature tier (also HORDE_TIER); default: what the device supports.
    #[arg(long, value_enum)]
    tier: Option<TierArg>,
    /// Bone texture encoding the unit types are baked with.
    #[arg(long, value_enum, default_value_t = Encoding::Mat3x4)]
    encoding: Encoding,
    /// A glTF (or .horde) character for the armies: the first for army 0, the
    /// second for army 1; one file fields both. Default: the generated knight
    /// and skeleton.
    #[arg(long = "model")]
    models: Vec<PathBuf>,
    /// Which clip plays a role (idle, walk, run, attack, hit, die, victory),
    /// where the name search picks wrong or finds none: `--clip-map
    /// idle=Survey --clip-map attack=Chop`. `ARMY:role=clip` maps one army
    /// only: army 1 (the first --model) or 2, or the model's file stem
    /// (`--clip-map 2:attack=CharacterArmature|Punch`). The search knows the
    /// names of the common rigs (Mixamo, Quaternius, KayKit, Synty); a role
    /// a battle can do without (run, hit, die, victory; idle or walk given
    /// the other) plays another role's clip where it has none, with a
    /// warning. Only a model without an attack, or without both idle and
    /// walk, is refused.
    #[arg(long = "clip-map", value_name = "[ARMY:]ROLE=CLIP")]
    clip_map: Vec<ClipMapping>,
    /// Sets a battle rule, for studying or tuning the battle (repeatable):
    /// `--rule slope_slowing=2 --rule rally_distance=90`. Every rule of
    /// `BattleRules` but the derived turn step; refused when out of range.
    #[arg(long = "rule", value_name = "NAME=VALUE")]
    rules: Vec<String>,
    /// Bake every glTF anew instead of using the baked-asset cache
    /// (`HORDE_CACHE_DIR`, else ~/.cache/horde).
    #[arg(long)]
    no_cache: bool,
    /// Camera preset at the start.
    #[arg(long, value_enum, default_value_t = BattleCamera::Overview)]
    camera: BattleCamera,
    /// Run offscreen: simulate `--frames` fixed steps, render every `--render-every`-th.
    #[arg(long)]
    headless: bool,
    /// Headless: simulation steps (1/30 s each).
    #[arg(long, default_value_t = 600, value_parser = clap::value_parser!(u32).range(1..=10_000_000))]
    frames: u32,
    /// Headless: render one frame per this many steps.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    render_every: u32,
    /// Headless: rendered frames left out of the timings (default: a
    /// quarter of them, at most 30).
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=10_000_000))]
    warmup: Option<u32>,
    /// Headless: where to write the last frame (.png, .jpg or .jpeg).
    #[arg(long)]
    screenshot: Option<PathBuf>,
    /// Headless: where to write the report (JSON).
    #[arg(long)]
    report: Option<PathBuf>,
    /// Where to write the first frame's graph of passes, buffers and barriers
    /// (Graphviz .dot), and beside it the picture (.svg) where Graphviz's
    /// `dot` is installed. Runs headless.
    #[arg(long)]
    frame_graph: Option<PathBuf>,
    /// Width in pixels.
    #[arg(long, default_value_t = 1280, value_parser = clap::value_parser!(u32).range(16..=16384))]
    width: u32,
    /// Height in pixels.
    #[arg(long, default_value_t = 720, value_parser = clap::value_parser!(u32).range(16..=16384))]
    height: u32,
    /// Colour units and props by LOD.
    #[arg(long)]
    color_by_lod: bool,
    /// Colour units by their regiment's state (the marks debug view; M in a
    /// window): holding grey, advancing blue, charging orange, engaged red,
    /// pursuing purple, routing yellow, fled brown, fallen dark.
    #[arg(long)]
    color_by_state: bool,
    /// LOD bias (as in Unity): above 1 finer LODs reach farther.
    #[arg(long, default_value_t = 1.0)]
    lod_bias: f32,
    /// GPU by index or name substring (also HORDE_DEVICE).
    #[arg(long)]
    device: Option<String>,
    /// Swapchain present mode.
    #[arg(long, value_enum, default_value_t = PresentMode::Fifo)]
    present_mode: PresentMode,
    /// Enable the Khronos validation layer (also HORDE_VALIDATION=1).
    #[arg(long)]
    validation: bool,
    /// Headless: the far field (distant units rasterized by a compute
    /// shader), where the device has 64-bit atomics. The window uses the
    /// renderer's default: on where supported.
    #[arg(long, value_enum, default_value_t = OnOff::On)]
    far_field: OnOff,
    /// Headless: units whose bounding sphere spans fewer pixels go to the far
    /// field (default 100, 12 on a CPU device such as lavapipe; the frame
    /// budget goes below it only where the far field is the slower, and on
    /// a CPU device never above it).
    #[arg(long, value_parser = positive)]
    far_field_px: Option<f32>,
    /// Headless: distant units as animated impostors, their type's last LOD
    /// (default: on where the device has no far field, the mobile tier).
    #[arg(long, value_enum)]
    impostors: Option<OnOff>,
    /// Headless: the far field samples each pixel on a 2×2 grid and
    /// averages (antialiased distant units); off: one sample per pixel.
    #[arg(long, value_enum, default_value_t = OnOff::On)]
    far_field_aa: OnOff,
    /// The raster path's anti-aliasing: 4× MSAA (on), one sample per pixel
    /// (off), or auto: 4× for battles of at most 100,000 units (on an H100
    /// it lowers FLIP and shimmer at 10k within the frame budget; at 1M it
    /// costs the frame 0.7-3.7 ms; benches/results/quality/).
    #[arg(long, value_enum, default_value_t = MsaaChoice::Auto)]
    msaa: MsaaChoice,
    /// The sun's shadows: units and props onto the ground and each other,
    /// in cascaded shadow maps (three on the desktop tier, the far crowd
    /// cast by the far field's compute rasterizer; one near cascade on the
    /// mobile tier).
    #[arg(long, value_enum, default_value_t = OnOff::On)]
    shadows: OnOff,
    /// Headless: the shadow casters' LOD threshold, texels of silhouette
    /// error a cascade allows (default 3; larger draws coarser casters).
    #[arg(long, value_parser = positive)]
    shadow_lod_texels: Option<f32>,
    /// Headless: the far field's compute rasterizer draws the shadow
    /// casters up to 160 texels across, where the device has it, also with
    /// --far-field off (off: every caster a mesh, as the reference draws
    /// them).
    #[arg(long, value_enum, default_value_t = OnOff::On)]
    shadow_far_field: OnOff,
    /// Headless: the shadow cascades past the nearest take turns, one
    /// drawn a frame, the other kept from the frame before (off: every
    /// cascade every frame, as the reference draws them).
    #[arg(long, value_enum, default_value_t = OnOff::On)]
    shadow_cascades_in_turn: OnOff,
    /// Two-phase occlusion culling: units and props hidden behind what was
    /// drawn are not drawn (the pyramid of last frame's visible set's
    /// depth; V toggles it in a window).
    #[arg(long, value_enum, default_value_t = OnOff::On)]
    occlusion: OnOff,
    /// Headless: the GPU-driven frame (gpu-driven) or a baseline drawing the
    /// same battle (instanced). The CPU baselines (naive, cpu-culled) draw
    /// the CPU's copy of the units and cannot follow a battle the GPU
    /// simulates: they are refused with that reason.
    #[arg(long, value_parser = parse_strategy, default_value = "gpu-driven")]
    strategy: Strategy,
    /// GPU frame budget in milliseconds: the far-field size and the LOD
    /// threshold adapt to it every frame (0: fixed thresholds, as set by
    /// --far-field-px and --lod-bias).
    #[arg(long, value_parser = non_negative, default_value_t = DEFAULT_BUDGET_MS)]
    budget_ms: f32,
    /// Headless: the largest far-field size, pixels, the frame budget may
    /// choose (default 192; past it, a frame still over budget drops the
    /// far field's supersampling).
    #[arg(long, value_parser = positive)]
    budget_max_far_field_px: Option<f32>,
    /// Headless: sample the process's RSS and the GPU allocations every this
    /// many rendered frames into the report's `memory_samples` (the soak,
    /// `tools/soak.sh`).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=10_000_000))]
    memory_every: Option<u32>,
    /// Measure the quality against a 2×2 supersampled reference of the
    /// same state (every unit a mesh at LOD 0, no far field, no budget).
    /// Headless: the last frame, then the shimmer of a still camera over the
    /// paused battle; with --screenshot X.png also writes X.reference.png
    /// and X.flip.png. In a window: the presented frame every 3 s, shown in
    /// the HUD (the window stalls while the reference is drawn).
    #[arg(long)]
    quality: bool,
}

/// Seconds between a window's quality measurements with `--quality`.
const QUALITY_EVERY_S: f32 = 3.0;

/// 60 frames per second.
const DEFAULT_BUDGET_MS: f32 = 16.6;

/// Bytes per mebibyte, for the memory log line.
const MIB: f64 = 1024.0 * 1024.0;

/// A finite number above 0.
fn positive(text: &str) -> Result<f32, String> {
    match text.parse::<f32>() {
        Ok(value) if value.is_finite() && value > 0.0 => Ok(value),
        _ => Err(format!("{text} is not a finite number above 0")),
    }
}

/// A finite number, 0 or above.
fn non_negative(text: &str) -> Result<f32, String> {
    match text.parse::<f32>() {
        Ok(value) if value.is_finite() && value >= 0.0 => Ok(value),
        _ => Err(format!("{text} is not a finite number, 0 or above")),
    }
}

impl Args {
    /// The frame budget, unless turned off.
    fn budget_ms(&self) -> Option<f32> {
        Some(self.budget_ms).filter(|&ms| ms > 0.0)
    }

    fn encoding(&self) -> BoneEncoding {
        self.encoding.bone_encoding()
    }

    fn context_desc(&self) -> ContextDesc {
        let mut desc = ContextDesc::default();
        desc.validation |= self.validation;
        if let Some(device) = &self.device {
            desc.device = Some(device.clone());
        }
        if let Some(tier) = self.tier {
            desc.tier = Some(tier.tier());
        }
        desc
    }

    fn battle(&self) -> Result<BattleScene> {
        if !(self.lod_bias.is_finite() && self.lod_bias > 0.0) {
            bail!(
                "--lod-bias must be a positive number, not {}",
                self.lod_bias
            );
        }
        let mut rules = BattleRules::default();
        for rule in &self.rules {
            let Some((name, value)) = rule.split_once('=') else {
                bail!("--rule {rule}: expected NAME=VALUE, as slope_slowing=2");
            };
            rules = rules.with_rule(name.trim(), value.trim())?;
        }
        rules.validate()?;
        let mut battle = battle_scene(&BattleOptions {
            units: self.units,
            props: self.props.unwrap_or((self.units / 25).clamp(40, 40_000)),
            seed: self.seed,
            encoding: self.encoding(),
            models: self.models.clone(),
            cache: CacheOptions {
                enabled: !self.no_cache,
                dir: None,
            },
            rules,
            clip_map: self.clip_map.clone(),
        })?;
        battle.stage.shadows = self.shadows.on();
        Ok(battle)
    }
}

fn headless(args: &Args) -> Result<()> {
    // Checked before any work, so a bad path fails now, not after the battle.
    let screenshot = args
        .screenshot
        .as_ref()
        .map(OutputPath::check_image)
        .transpose()?;
    let quality_outputs = match (&screenshot, args.quality) {
        (Some(screenshot), true) => Some((
            OutputPath::check_image(beside(screenshot.path(), "reference"))?,
            OutputPath::check_image(beside(screenshot.path(), "flip"))?,
        )),
        _ => None,
    };
    let report_output = args.report.as_ref().map(OutputPath::check).transpose()?;
    let graph_output = args
        .frame_graph
        .as_ref()
        .map(OutputPath::check)
        .transpose()?;
    let battle = args.battle()?;
    let ctx = Context::new(&args.context_desc())?;
    let options = HeadlessOptions {
        steps: args.frames,
        render_every: args.render_every,
        warmup_frames: args.warmup,
        width: args.width,
        height: args.height,
        camera: args.camera,
        color_by_lod: args.color_by_lod,
        color_by_mark: args.color_by_state,
        lod_bias: args.lod_bias,
        far_field: args.far_field.on(),
        strategy: args.strategy,
        far_field_px: args.far_field_px,
        far_field_supersampling: args.far_field_aa.on(),
        impostors: args.impostors.map(OnOff::on),
        msaa: args.msaa.msaa(args.units),
        shadow_lod_texels: args.shadow_lod_texels,
        shadow_far_field: args.shadow_far_field.on(),
        shadow_cascades_in_turn: args.shadow_cascades_in_turn.on(),
        occlusion: args.occlusion.on(),
        budget_ms: args.budget_ms(),
        budget_max_far_field_px: args.budget_max_far_field_px,
        progress: true,
        memory_every: args.memory_every,
        frame_graph: graph_output.is_some(),
        quality: args.quality,
    };
    let result = check_capacity(
        &ctx,
        u64::from(args.units).max(battle.scene.props.len() as u64),
    )
    .and_then(|()| run_headless(&ctx, &battle, &options));
    let validation = ctx.validation_counts();
    let closed = close_context(ctx);
    let (mut report, image) = result?;
    report.validation_errors = validation.errors();
    report.validation_warnings = validation.warnings();
    for pass in &report.gpu_ms {
        log::info!(
            "gpu {}: median {:.3} ms, p99 {:.3} ms",
            pass.name,
            pass.median_ms,
            pass.p99_ms
        );
    }
    if let Some(last) = report.timeline.last() {
        let [first, second] = &report.armies;
        let winner = report
            .winner
            .and_then(|army| report.armies.get(army as usize))
            .map_or("none yet", String::as_str);
        log::info!(
            "after {:.1} s: {first} {} alive, {second} {} alive; winner: {winner} (at {:?} s); \
             regiments {:?}; melee fronts at 60 s {:?}, at most {}; {} flank and {} rear \
             attacks, {} routs, {} rallies",
            last.seconds,
            last.alive[0],
            last.alive[1],
            report.end_seconds,
            last.regiments,
            report.melee_fronts_at_60s,
            report.max_melee_fronts,
            report.flank_attacks,
            report.rear_attacks,
            report.routs,
            report.rallies,
        );
    }
    if let Some(trend) = memory_trend(&report.memory_samples) {
        log::info!(
            "memory from frame {} to {}: RSS {:.1} -> {:.1} MiB ({:+.0} bytes/frame, median \
             {:+.0}), GPU allocated {} -> {} bytes, reserved {} -> {} bytes",
            trend.start.frame,
            trend.end.frame,
            trend.start.rss_bytes as f64 / MIB,
            trend.end.rss_bytes as f64 / MIB,
            trend.rss_bytes_per_frame,
            trend.rss_median_bytes_per_frame,
            trend.start.gpu_allocated_bytes,
            trend.end.gpu_allocated_bytes,
            trend.start.gpu_reserved_bytes,
            trend.end.gpu_reserved_bytes
        );
    }
    if let Some(quality) = &report.quality {
        log::info!(
            "quality against the LOD 0 reference: FLIP mean {:.4}, p95 {:.4}; unit coverage \
             {}; still-camera FLIP {:.4} (reference {:.4}, ratio {})",
            quality.flip_mean,
            quality.flip_p95,
            quality
                .coverage_ratio
                .map_or("n/a (no unit in the reference)".to_owned(), |r| format!(
                    "{r:.3}"
                )),
            quality.still_flip_mean,
            quality.still_flip_reference_mean,
            quality
                .still_flip_ratio
                .map_or("n/a (the reference stands still)".to_owned(), |r| format!(
                    "{r:.3}"
                ))
        );
    }
    if let Some(output) = &screenshot {
        output.write_image(&image)?;
        println!("wrote {output}");
    }
    if let (Some((reference, flip)), Some(images)) = (&quality_outputs, &report.quality_images) {
        reference.write_image(&images.reference)?;
        println!("wrote {reference}");
        flip.write_image(&images.flip_error)?;
        println!("wrote {flip}");
    }
    if let Some(output) = &report_output {
        output.write(serde_json::to_string_pretty(&report)?.as_bytes())?;
        println!("wrote {output}");
    }
    if let (Some(output), Some(graph)) = (&graph_output, &report.frame_graph) {
        write_frame_graph(output, &graph.to_dot())?;
    }
    closed
}

/// `X.png` as `X.{what}.png`: an image written beside the screenshot, in
/// its format.
fn beside(screenshot: &std::path::Path, what: &str) -> PathBuf {
    let extension = screenshot
        .extension()
        .map_or("png".into(), |e| e.to_string_lossy());
    screenshot.with_extension(format!("{what}.{extension}"))
}

/// Writes the graph's `dot` text to `output` and, where Graphviz is
/// installed, its SVG beside it (`output` with the extension `svg`).
fn write_frame_graph(output: &OutputPath, dot: &str) -> Result<()> {
    output.write(dot.as_bytes())?;
    println!("wrote {output}");
    let rendered = std::process::Command::new("dot")
        .arg("-Tsvg")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write as _;
            child
                .stdin
                .take()
                .expect("piped stdin")
                .write_all(dot.as_bytes())?;
            child.wait_with_output()
        });
    match rendered {
        Ok(svg) if svg.status.success() => {
            let svg_output = OutputPath::check(output.path().with_extension("svg"))?;
            svg_output.write(&svg.stdout)?;
            println!("wrote {svg_output}");
        }
        Ok(failed) => bail!(
            "Graphviz could not draw {output}: {}",
            String::from_utf8_lossy(&failed.stderr).trim()
        ),
        Err(err) => log::warn!(
            "no picture of the frame graph: Graphviz's `dot` did not run ({err}); install graphviz"
        ),
    }
    Ok(())
}

fn main() -> Result<()> {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info")).init();
    let args = Args::parse();
    if args.headless || args.frame_graph.is_some() {
        return headless(&args).context("headless battle failed");
    }
    if args.screenshot.is_some() || args.report.is_some() || args.quality {
        bail!("--screenshot, --report and --quality are headless runs' outputs: add --headless");
    }
    let present_mode = args.present_mode.vk();
    let battle = args.battle()?;
    let camera = battle.camera(args.camera, args.width, args.height);
    let scene_bounds = battle.bounds();
    let armies = battle.armies.clone();
    let mut color_by_state = args.color_by_state;
    // Applied once, on the first frame: V toggles it after.
    let mut occlusion_off = !args.occlusion.on();
    let report = run_window(WindowOptions {
        title: "horde battle".to_owned(),
        width: args.width,
        height: args.height,
        present_mode,
        context: args.context_desc(),
        scene: battle.scene,
        camera,
        scene_bounds,
        stage: battle.stage,
        script: Vec::new(),
        on_frame: Some(Box::new(move |renderer, dt| {
            if std::mem::take(&mut color_by_state) {
                renderer.settings.color_by_mark = true;
            }
            if std::mem::take(&mut occlusion_off) {
                renderer.settings.occlusion = false;
            }
            battle_hud(renderer, dt, &armies)
        })),
        budget_ms: args.budget_ms(),
        msaa: args.msaa.msaa(args.units),
        quality_every_s: args.quality.then_some(QUALITY_EVERY_S),
    })
    .context("window run failed")?;
    log::info!(
        "presented {} frames on {}",
        report.frames_presented,
        report.device_name
    );
    window_verdict(&report)
}
