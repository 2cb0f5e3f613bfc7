//! The battle's headless stress run: simulate a number of fixed steps,
//! render one frame per `render_every` steps offscreen, and report what the
//! GPU and CPU spent and how the battle went.
//!
//! Every rendered frame records `render_every` battle steps before it and
//! advances animation by the same time, so the outcome does not depend on how
//! often frames are rendered, only on the seed and the step count. The
//! battle's counts reach the CPU a frame or two late, without stalls; at the
//! end the run waits for the frames in flight, so the report describes the
//! last step simulated.
//!
//! With [`HeadlessOptions::memory_every`] the run samples the process's RSS
//! and the GPU allocations every N rendered frames (`memory_samples.rs`), for
//! the soak (`tools/soak.sh`). Nothing the run keeps grows with its length:
//! the memory samples, the timeline and the CPU times are strided logs
//! (`strided.rs`), thinned evenly once full; first contact and the end are
//! found in every sample, before thinning.
//!
//! With [`HeadlessOptions::quality`] the run then measures the last frame's
//! image quality (`quality.rs`): FLIP and unit coverage against a reference
//! replayed from the same GPU state, and, with the battle paused (no more
//! steps queued) and the camera still, the shimmer of consecutive frames.
//! The report's timings, counts and visible units are taken before, so they
//! describe the run alone.

use anyhow::Result;
use ash::vk;
use horde::context::{Context, MemoryUsage};
use horde::frame_graph::FrameGraph;
use horde::profiler::{percentile, ScopeStats};
use horde::renderer::{DrawStats, Renderer, Strategy};
use horde::shadow::SHADOW_FAR_FIELD_TEXELS;
use horde::target::Msaa;
use horde_battle::fronts::melee_fronts;
use horde_battle::{Battle, BattleRules, BattleStats};
use indicatif::{ProgressBar, ProgressStyle};

use crate::battle::{winner, BattleCamera, BattleScene, RegimentsByState};
use crate::memory_samples::{MemoryLog, MemorySample};
use crate::quality::{measure_frame, measure_still, quality, Quality, STILL_FRAMES};
use crate::strided::StridedLog;

/// The most timeline samples a report holds (a sample per rendered frame
/// until then).
pub const TIMELINE_SAMPLES: usize = 4096;
/// The most CPU frame times the percentiles are taken over.
const CPU_SAMPLES: usize = 16_384;

/// GPU memory a unit needs, in bytes, counted generously: its five state
/// records (68 bytes), its battle record (32), its grid words (at most 3)
/// and its instance-list entries.
const BYTES_PER_UNIT: u64 = 128;

/// The most units (or props) the device can hold: one dispatch's reach, and
/// what half of the largest device-local heap's budget holds.
pub fn unit_capacity(ctx: &Context) -> u64 {
    let threads = 65_535 * u64::from(ctx.unit_workgroup_size());
    let heap = ctx
        .memory_usage()
        .heaps
        .iter()
        .map(|heap| heap.budget_bytes.max(heap.size_bytes / 2))
        .max();
    heap.map_or(threads, |bytes| (bytes / 2 / BYTES_PER_UNIT).min(threads))
}

/// Refuses `units` the device cannot hold, suggesting a number it can.
pub fn check_capacity(ctx: &Context, units: u64) -> Result<()> {
    let limit = unit_capacity(ctx);
    if units > limit {
        anyhow::bail!(
            "{} cannot hold {units} units (one dispatch and half its memory budget reach              {limit}); try --units {}",
            ctx.device_name,
            limit / 1000 * 1000
        );
    }
    Ok(())
}

/// What a headless run does.
#[derive(Clone, Debug)]
pub struct HeadlessOptions {
    /// Simulation steps.
    pub steps: u32,
    /// One frame is rendered per this many steps (the last may cover fewer).
    pub render_every: u32,
    /// Rendered frames left out of the timings (default: a quarter of them,
    /// at most 30): the first frames compile, fill caches and, with a
    /// budget, let the controller settle.
    pub warmup_frames: Option<u32>,
    pub width: u32,
    pub height: u32,
    pub camera: BattleCamera,
    pub color_by_lod: bool,
    /// Colour units by their simulation's marks (the battle: regiment state).
    pub color_by_mark: bool,
    pub lod_bias: f32,
    /// Route distant units to the far field where the device has it.
    pub far_field: bool,
    /// Far-field size in pixels (default: the renderer's).
    pub far_field_px: Option<f32>,
    /// The far field samples each pixel on a 2×2 grid
    /// (`RenderSettings::far_field_supersampling`).
    pub far_field_supersampling: bool,
    /// Draw distant units as animated impostors (`None`: the renderer's
    /// default, on where the device has no far field).
    pub impostors: Option<bool>,
    /// The raster path's anti-aliasing.
    pub msaa: Msaa,
    /// The shadow casters' LOD threshold in texels (default: the
    /// renderer's, `RenderSettings::shadow_lod_texels`).
    pub shadow_lod_texels: Option<f32>,
    /// The far field draws the shadow casters up to its size, also with
    /// `far_field` off (`RenderSettings::shadow_far_field`).
    pub shadow_far_field: bool,
    /// The shadow cascades past the first drawn in turn, one a frame
    /// (`RenderSettings::shadow_cascades_in_turn`).
    pub shadow_cascades_in_turn: bool,
    /// Two-phase occlusion culling (`RenderSettings::occlusion`).
    pub occlusion: bool,
    /// GPU frame budget the far-field size (or, without the far field, the
    /// impostor threshold) adapts to.
    pub budget_ms: Option<f32>,
    /// The largest far-field size the budget may choose (default: the
    /// renderer's, `RenderSettings::budget_max_far_field_px`).
    pub budget_max_far_field_px: Option<f32>,
    /// The GPU-driven frame or a baseline.
    pub strategy: Strategy,
    /// Draw a progress bar on the terminal.
    pub progress: bool,
    /// Sample RSS and GPU memory every this many rendered frames (and after
    /// the last); `None` samples nothing.
    pub memory_every: Option<u32>,
    /// Record the first frame's graph of passes and buffers (the spawns'
    /// upload and a battle step included: every pass of the frame declares
    /// its uses; [`Report::frame_graph`]).
    pub frame_graph: bool,
    /// Measure the last frame's quality against its reference
    /// ([`Report::quality`]).
    pub quality: bool,
}

impl Default for HeadlessOptions {
    /// `battle --headless`'s defaults, less the budget (fixed thresholds)
    /// and the progress bar: 600 steps, every one rendered, 1280x720, the
    /// overview camera, the GPU-driven frame with the far field.
    fn default() -> HeadlessOptions {
        HeadlessOptions {
            steps: 600,
            render_every: 1,
            warmup_frames: None,
            width: 1280,
            height: 720,
            camera: BattleCamera::Overview,
            color_by_lod: false,
            color_by_mark: false,
            lod_bias: 1.0,
            far_field: true,
            far_field_px: None,
            far_field_supersampling: true,
            impostors: None,
            msaa: Msaa::default(),
            shadow_lod_texels: None,
            shadow_far_field: true,
            shadow_cascades_in_turn: true,
            occlusion: true,
            budget_ms: None,
            budget_max_far_field_px: None,
            strategy: Strategy::GpuDriven,
            progress: false,
            memory_every: None,
            frame_graph: false,
            quality: false,
        }
    }
}

/// The battle's state at one moment, for the report's timeline.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Sample {
    pub step: u32,
    pub seconds: f32,
    /// Living units per army (casualties are what is missing).
    pub alive: [u32; 2],
    /// Units within reach of an enemy.
    pub fighting: u32,
    /// Each army's regiments by state.
    pub regiments: [RegimentsByState; 2],
    /// Separate melee fronts (`horde_battle::fronts`).
    pub melee_fronts: u32,
    /// Since the start: blows into a formation's flank and rear, routs and
    /// rallies.
    pub flank_attacks: u32,
    pub rear_attacks: u32,
    pub routs: u32,
    pub rallies: u32,
    /// Regiments per army still fighting (not routing, fled or destroyed).
    pub standing: [u32; 2],
}

/// What the frame budget chose (`Renderer::budget`).
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct BudgetReport {
    pub budget_ms: f32,
    pub measured_ms: Option<f32>,
    pub far_field_px: f32,
    pub lod_threshold_px: f32,
    pub far_field_supersampling_dropped: bool,
}

/// The headless run's report.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Report {
    pub device: String,
    pub driver: String,
    pub tier: String,
    pub encoding: String,
    pub strategy: String,
    pub units: u32,
    pub props: u32,
    /// Regiments per army and units in a regiment (about), as planned.
    pub regiments_per_army: [u32; 2],
    pub regiment_size: u32,
    pub steps: u32,
    pub step_seconds: f32,
    pub render_every: u32,
    pub frames_rendered: u32,
    pub width: u32,
    pub height: u32,
    /// The camera preset (`overview`, `front`, `ground`).
    pub camera: String,
    /// Whether the far field drew the distant units, and below how many
    /// pixels (at the end of the run, after any budget adaptation).
    pub far_field: String,
    /// Whether distant units were drawn as impostors, and their threshold
    /// (at the end of the run, after any budget adaptation).
    pub impostors: String,
    /// Whether the sun cast shadows, and who drew the casters.
    pub shadows: String,
    /// The raster path's anti-aliasing: `4x` or `off`.
    pub msaa: String,
    /// Two-phase occlusion culling: `on` or `off` (`visible` counts what
    /// it hid).
    pub occlusion: String,
    /// The frame budget, its filtered cost and the far-field size (or the
    /// impostor threshold) and LOD threshold it chose, at the end of the
    /// run; none without a budget.
    pub budget: Option<BudgetReport>,
    /// GPU milliseconds per pass over the frames after warm-up.
    pub gpu_ms: Vec<ScopeStats>,
    pub cpu_ms_median: f64,
    pub cpu_ms_p95: f64,
    pub cpu_ms_p99: f64,
    /// Visible units and props per route in the last frame.
    pub visible: DrawStats,
    /// Living units per army over time, one sample per rendered frame, thinned
    /// evenly to at most [`TIMELINE_SAMPLES`] on long runs (the last is
    /// always there).
    pub timeline: Vec<Sample>,
    /// The armies' names by unit type ("knight army"), in the order of the
    /// timeline's `alive` counts and of `winner`.
    pub armies: [String; 2],
    /// The army left standing, once the other has no regiment that fights
    /// (all routing, fled or destroyed; 0 or 1, as in `armies`).
    pub winner: Option<u32>,
    /// Seconds of battle until the first sample that shows a unit within
    /// reach of an enemy, or casualties.
    pub first_contact_seconds: Option<f32>,
    /// Seconds until one army had no regiment left that fights.
    pub end_seconds: Option<f32>,
    /// Melee fronts at the first sample at or after 60 s of battle, and the
    /// most seen in any sample.
    pub melee_fronts_at_60s: Option<u32>,
    pub max_melee_fronts: u32,
    /// At the end of the run: blows into flanks and rears, routs, rallies.
    pub flank_attacks: u32,
    pub rear_attacks: u32,
    pub routs: u32,
    pub rallies: u32,
    pub memory: MemoryUsage,
    /// RSS and GPU allocations over the run (with `memory_every`), at most
    /// [`crate::memory_samples::MAX_SAMPLES`], evenly strided.
    pub memory_samples: Vec<MemorySample>,
    /// Validation errors and warnings (0 without `--validation`): counted to
    /// the end of the run, and by `battle` to the end of the device's
    /// teardown, where leaked objects are reported.
    pub validation_errors: u32,
    pub validation_warnings: u32,
    /// The first frame's graph, with [`HeadlessOptions::frame_graph`].
    #[serde(skip)]
    pub frame_graph: Option<FrameGraph>,
    /// The last frame against its reference and the still-camera shimmer,
    /// with [`HeadlessOptions::quality`].
    pub quality: Option<Quality>,
    /// The reference and FLIP's error map of the last frame, with
    /// [`HeadlessOptions::quality`].
    #[serde(skip)]
    pub quality_images: Option<QualityImages>,
}

/// The images behind [`Report::quality`], the size of the frame.
#[derive(Clone, Debug)]
pub struct QualityImages {
    /// The 2×2 supersampled reference, box-filtered.
    pub reference: image::RgbaImage,
    /// FLIP's per-pixel error of the frame, magma colour map.
    pub flip_error: image::RgbaImage,
}

fn sample(rules: &BattleRules, stats: &BattleStats) -> Sample {
    Sample {
        step: stats.step,
        seconds: stats.step as f32 * rules.step_seconds,
        alive: stats.counts.alive,
        fighting: stats.counts.fighting,
        regiments: [0, 1].map(|army| RegimentsByState::of(stats, army)),
        melee_fronts: melee_fronts(&stats.regiments),
        flank_attacks: stats.totals.flank_attacks,
        rear_attacks: stats.totals.rear_attacks,
        routs: stats.totals.routs,
        rallies: stats.totals.rallies,
        standing: stats.counts.standing,
    }
}

/// The battle's counts over the run: strided samples for the report, and the
/// first contact and the end, found in every sample.
struct Timeline {
    samples: StridedLog<Sample>,
    /// Samples seen, kept or not.
    seen: u64,
    latest: Option<Sample>,
    first: Option<Sample>,
    first_contact: Option<Sample>,
    end: Option<(Sample, Option<u32>)>,
    at_60s: Option<Sample>,
    max_fronts: u32,
}

impl Timeline {
    fn new() -> Timeline {
        Timeline {
            samples: StridedLog::new(1, TIMELINE_SAMPLES),
            seen: 0,
            latest: None,
            first: None,
            first_contact: None,
            end: None,
            at_60s: None,
            max_fronts: 0,
        }
    }

    /// Takes the battle's latest counts if they are new.
    fn record(&mut self, renderer: &Renderer, rules: &BattleRules) {
        let Some(stats) = renderer
            .simulation::<Battle>()
            .and_then(|b| b.stats.as_ref())
        else {
            return;
        };
        if self.latest.is_some_and(|latest| latest.step >= stats.step) {
            return;
        }
        let sample = sample(rules, stats);
        // Samples are a frame apart: casualties show a contact between two.
        if sample.fighting > 0 || sample.alive[0] + sample.alive[1] < self.first_alive(&sample) {
            self.first_contact.get_or_insert(sample);
        }
        if sample.standing.contains(&0) {
            self.end.get_or_insert((sample, winner(stats)));
        }
        if sample.seconds >= 60.0 {
            self.at_60s.get_or_insert(sample);
        }
        self.max_fronts = self.max_fronts.max(sample.melee_fronts);
        self.first.get_or_insert(sample);
        self.samples.push(self.seen, sample);
        self.seen += 1;
        self.latest = Some(sample);
    }

    /// Units alive in the first sample (or in `sample`, the first).
    fn first_alive(&self, sample: &Sample) -> u32 {
        let first = self.first.unwrap_or(*sample);
        first.alive[0] + first.alive[1]
    }

    /// The samples kept, the latest always among them.
    fn into_samples(mut self) -> Vec<Sample> {
        if let Some(latest) = self.latest {
            self.samples.push_last(self.seen - 1, latest);
        }
        self.samples.into_values()
    }
}

fn progress_bar(options: &HeadlessOptions) -> ProgressBar {
    if !options.progress {
        return ProgressBar::hidden();
    }
    let progress = ProgressBar::new(u64::from(options.steps));
    progress.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} steps, {per_sec}, eta {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    progress
}

/// Runs the battle of `battle` headless; returns the report and the last
/// frame's pixels.
pub fn run_headless(
    ctx: &Context,
    battle: &BattleScene,
    options: &HeadlessOptions,
) -> Result<(Report, image::RgbaImage)> {
    let extent = vk::Extent2D {
        width: options.width,
        height: options.height,
    };
    let camera = battle.camera(options.camera, options.width, options.height);
    let (mut renderer, target) = Renderer::new_offscreen(ctx, &battle.scene, extent, options.msaa)?;
    battle.stage.apply(&mut renderer);
    renderer.settings.color_by_lod = options.color_by_lod;
    renderer.settings.color_by_mark = options.color_by_mark;
    renderer.settings.lod_bias = options.lod_bias;
    renderer.settings.strategy = options.strategy;
    renderer.settings.far_field_supersampling = options.far_field_supersampling;
    if let Some(px) = options.far_field_px {
        renderer.settings.far_field_px = px;
    }
    if let Some(impostors) = options.impostors {
        renderer.settings.impostors = impostors;
    }
    if let Some(texels) = options.shadow_lod_texels {
        renderer.settings.shadow_lod_texels = texels;
    }
    renderer.settings.occlusion = options.occlusion;
    renderer.settings.shadow_far_field = options.shadow_far_field;
    renderer.settings.shadow_cascades_in_turn = options.shadow_cascades_in_turn;
    if !options.far_field {
        renderer.settings.far_field_px = 0.0;
    }
    if options.far_field || (renderer.settings.impostors && renderer.has_impostors()) {
        renderer.settings.budget_ms = options.budget_ms;
    }
    if let Some(px) = options.budget_max_far_field_px {
        renderer.settings.budget_max_far_field_px = px;
    }
    let rules = battle.rules;
    let render_every = options.render_every.max(1);
    let frames = options.steps.div_ceil(render_every);
    let warmup = options
        .warmup_frames
        .unwrap_or((frames / 4).min(30))
        .min(frames.saturating_sub(1));
    let progress = progress_bar(options);
    let mut cpu_ms = StridedLog::new(1, CPU_SAMPLES);
    let mut timeline = Timeline::new();
    let mut memory = options.memory_every.map(MemoryLog::new);
    let mut done = 0;
    let mut frame_graph = None;
    for frame in 0..frames {
        if frame == warmup {
            // Forget the warm-up frames' times, those in flight too.
            renderer.finish(ctx)?;
            renderer.profiler.clear_history();
        }
        let steps = render_every.min(options.steps - done);
        done += steps;
        if let Some(battle) = renderer.simulation_mut::<Battle>() {
            battle.queue_steps(steps);
        }
        let last = frame + 1 == frames;
        let dt = steps as f32 * rules.step_seconds;
        if frame == 0 && options.frame_graph {
            renderer.capture_frame_graph();
        }
        renderer.render_offscreen(ctx, &target, &camera, dt, last)?;
        if frame == 0 && options.frame_graph {
            frame_graph = renderer.take_frame_graph(ctx);
        }
        if frame >= warmup {
            cpu_ms.push(u64::from(frame - warmup), renderer.cpu_ms);
        }
        timeline.record(&renderer, &rules);
        if let Some(memory) = memory.as_mut() {
            memory.after_frame(ctx, frame + 1);
        }
        progress.inc(u64::from(steps));
    }
    renderer.finish(ctx)?;
    timeline.record(&renderer, &rules);
    if let Some(memory) = memory.as_mut() {
        memory.sample(ctx, frames);
    }
    progress.finish_and_clear();
    let image = target.read_rgba()?;
    let mut cpu_ms = cpu_ms.into_values();
    cpu_ms.sort_by(f64::total_cmp);
    let (first_contact, end) = (timeline.first_contact, timeline.end);
    let (at_60s, max_fronts) = (timeline.at_60s, timeline.max_fronts);
    let totals = timeline.latest.unwrap_or_default();
    let mut report = Report {
        device: ctx.device_name.clone(),
        driver: ctx.driver_info.clone(),
        tier: ctx.tier.name().to_owned(),
        encoding: renderer.world.encoding.name().to_owned(),
        strategy: options.strategy.name().to_owned(),
        units: renderer.world.live_units(),
        props: renderer.world.prop_count(),
        regiments_per_army: battle.regiments_per_army,
        regiment_size: battle.regiment_size,
        steps: options.steps,
        step_seconds: rules.step_seconds,
        render_every,
        frames_rendered: frames,
        width: options.width,
        height: options.height,
        camera: clap::ValueEnum::to_possible_value(&options.camera).map_or_else(
            || format!("{:?}", options.camera),
            |v| v.get_name().to_owned(),
        ),
        far_field: if !renderer.has_far_field() {
            "off (the device or tier lacks 64-bit atomics)".to_owned()
        } else if renderer.settings.far_field_px > 0.0 {
            let samples = if renderer.settings.far_field_supersampling {
                "2x2 samples per pixel"
            } else {
                "1 sample per pixel"
            };
            format!("on, below {} px, {samples}", renderer.settings.far_field_px)
        } else {
            "off".to_owned()
        },
        shadows: if !renderer.settings.shadows {
            "off".to_owned()
        } else {
            let casters = if renderer.has_far_field() && renderer.settings.shadow_far_field {
                format!(
                    "casters up to {SHADOW_FAR_FIELD_TEXELS} texels by the far field, the rest \
                     meshes"
                )
            } else {
                "every caster a mesh".to_owned()
            };
            let turns = if renderer.settings.shadow_cascades_in_turn {
                "the farther cascades in turn"
            } else {
                "every cascade every frame"
            };
            format!("on, {casters}, {turns}")
        },
        impostors: if !renderer.has_impostors() {
            "off (no unit type has an impostor)".to_owned()
        } else if renderer.settings.impostors {
            format!(
                "on, error below {} px, band {}",
                renderer.settings.impostor_threshold_px, renderer.settings.impostor_band
            )
        } else {
            "off".to_owned()
        },
        msaa: match renderer.msaa {
            Msaa::X4 => "4x",
            Msaa::Off => "off",
        }
        .to_owned(),
        occlusion: if renderer.settings.occlusion {
            "on"
        } else {
            "off"
        }
        .to_owned(),
        budget: renderer.budget().map(|status| BudgetReport {
            budget_ms: status.budget_ms,
            measured_ms: status.measured_ms,
            far_field_px: status.far_field_px,
            lod_threshold_px: status.lod_threshold_px,
            far_field_supersampling_dropped: status.far_field_supersampling_dropped,
        }),
        gpu_ms: renderer.profiler.stats(),
        cpu_ms_median: percentile(&cpu_ms, 0.5),
        cpu_ms_p95: percentile(&cpu_ms, 0.95),
        cpu_ms_p99: percentile(&cpu_ms, 0.99),
        visible: renderer.stats.clone(),
        armies: battle.armies.clone(),
        winner: end.and_then(|(_, winner)| winner),
        first_contact_seconds: first_contact.map(|s| s.seconds),
        end_seconds: end.map(|(s, _)| s.seconds),
        melee_fronts_at_60s: at_60s.map(|s| s.melee_fronts),
        max_melee_fronts: max_fronts,
        flank_attacks: totals.flank_attacks,
        rear_attacks: totals.rear_attacks,
        routs: totals.routs,
        rallies: totals.rallies,
        timeline: timeline.into_samples(),
        memory: ctx.memory_usage(),
        memory_samples: memory.map(MemoryLog::into_samples).unwrap_or_default(),
        validation_errors: ctx.validation_counts().errors(),
        validation_warnings: ctx.validation_counts().warnings(),
        frame_graph,
        quality: None,
        quality_images: None,
    };
    if options.quality {
        // No steps are queued from here: the battle stands still.
        let frame = measure_frame(ctx, &mut renderer, &target, &camera, &image)?;
        let still = measure_still(ctx, &mut renderer, &target, &camera, STILL_FRAMES)?;
        report.quality = Some(quality(&frame, still));
        report.quality_images = Some(QualityImages {
            flip_error: image::DynamicImage::ImageRgb8(frame.flip.error_map).to_rgba8(),
            reference: frame.reference,
        });
    }
    drop((renderer, target));
    Ok((report, image))
}
