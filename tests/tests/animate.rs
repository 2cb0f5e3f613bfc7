//! Animate pass tests: the GPU state machine equals the CPU reference
//! (`horde::reference::animate::step`) over 1,000 frames of random commands (speeds through
//! the walk/run blend, victory, attacks, hits, death) and random unit scales
//! on both tiers; the reference behaves as the humanoid controller promises
//! (locomotion rate and blend follow the speed, per-unit variety, victory);
//! the animate pass owns every bit of `AnimState` and never touches the cull
//! pass's routes; the humanoid controller and `clip_roles` map real clip
//! names sensibly; bad controllers and clip maps are errors.

use std::collections::BTreeSet;
use std::mem::size_of;
use std::path::PathBuf;

use ash::vk;
use horde::anim::{
    clip_roles, clip_roles_with_overrides, initial_state, pack, unit_hash, AnimFields, Controller,
    PackedControllers, Role,
};
use horde::asset::Clip;
use horde::barriers::{uses, Access};
use horde::config::{ANIM_PREVIOUS_LOOPS_BIT, ROUTE_FAR_FIELD};
use horde::context::{Context, Tier};
use horde::frame::Frame;
use horde::gpu_types::{
    condition, AnimParams, AnimState, AnimStateDef, AnimTransitionDef, ClipInfo, TypeInfo,
    UnitInfo, UnitMotion, INACTIVE_TYPE, MAX_ANIM_STATES, MAX_CLIPS, MAX_TYPES, STATE_LOCOMOTION,
};
use horde::memory::{upload_buffer, Buffer};
use horde::passes::animate::{AnimateBuffers, AnimatePass};
use horde::reference::animate::{step, step_unit, AnimTables};
use horde_tests::{finish, gpu_context, PassHarness};

/// A small deterministic generator (xorshift64*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize]
    }
}

/// A sample model: beside the repository, or under `HORDE_GLTF_SAMPLES` when
/// the checkout is elsewhere (a git worktree).
fn sample_path(relative: &str) -> PathBuf {
    let beside = horde_tests::samples_dir().join(relative);
    match std::env::var_os("HORDE_GLTF_SAMPLES") {
        Some(root) if !beside.exists() => PathBuf::from(root).join(relative),
        _ => beside,
    }
}

fn clip_names(relative: &str) -> Vec<String> {
    let path = sample_path(relative);
    let gltf = gltf::Gltf::open(&path).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
    gltf.animations()
        .map(|animation| animation.name().unwrap_or_default().to_owned())
        .collect()
}

/// A clip; walks and runs get the ground speeds a bake would measure for a
/// human in metres.
fn clip(name: &str, duration: f32, looping: bool) -> Clip {
    let lower = name.to_lowercase();
    let ground_speed = if lower.contains("walk") {
        1.3
    } else if lower.contains("run") {
        3.3
    } else {
        0.0
    };
    Clip {
        name: name.to_owned(),
        first_texel: 0,
        frame_count: (duration * 30.0) as u32 + 1,
        duration,
        looping,
        ground_speed,
        foot_phase: 0.0,
    }
}

/// Clips with the given names and random durations and loop flags.
fn random_clips(names: &[String], rng: &mut Rng, shortest: f32, longest: f32) -> Vec<Clip> {
    names
        .iter()
        .map(|name| {
            let duration = shortest + (longest - shortest) * rng.unit();
            clip(name, duration, rng.below(2) == 0)
        })
        .collect()
}

fn names(list: &[&str]) -> Vec<String> {
    list.iter().map(|name| (*name).to_owned()).collect()
}

/// Every table the pass reads, for a set of unit types.
struct Tables {
    types: Vec<TypeInfo>,
    clips: Vec<ClipInfo>,
    packed: PackedControllers,
}

impl Tables {
    fn new(clip_sets: &[Vec<Clip>], controllers: &[Controller]) -> Tables {
        let packed = pack(&controllers.iter().collect::<Vec<_>>()).expect("pack controllers");
        let mut types = vec![TypeInfo::default(); MAX_TYPES];
        let mut clips = vec![ClipInfo::default(); MAX_CLIPS];
        let mut first_clip = 0;
        for (index, set) in clip_sets.iter().enumerate() {
            let [first_state, state_count, first_any, any_count] = packed.ranges[index];
            types[index] = TypeInfo {
                bone_count: 20,
                lod_count: 3,
                first_clip: first_clip as u32,
                clip_count: set.len() as u32,
                first_controller_state: first_state,
                controller_state_count: state_count,
                first_any_transition: first_any,
                any_transition_count: any_count,
                ..TypeInfo::default()
            };
            for (slot, source) in clips[first_clip..].iter_mut().zip(set) {
                *slot = ClipInfo {
                    first_texel: source.first_texel,
                    frame_count: source.frame_count,
                    duration: source.duration,
                    looping: u32::from(source.looping),
                };
            }
            first_clip += set.len();
        }
        Tables {
            types,
            clips,
            packed,
        }
    }

    fn view(&self) -> AnimTables<'_> {
        AnimTables {
            types: &self.types,
            clips: &self.clips,
            states: &self.packed.states,
            transitions: &self.packed.transitions,
        }
    }

    /// Storage buffer `Controllers`: the states padded to `MAX_ANIM_STATES`,
    /// then the transitions.
    fn controller_bytes(&self) -> Vec<u8> {
        let mut states = self.packed.states.clone();
        states.resize(MAX_ANIM_STATES as usize, AnimStateDef::default());
        let mut bytes = bytemuck::cast_slice::<_, u8>(&states).to_vec();
        bytes.extend_from_slice(bytemuck::cast_slice(&self.packed.transitions));
        bytes
    }
}

const UNITS: usize = 5003;
const FRAMES: u32 = 1000;
const COMPARE_EVERY: u32 = 50;

/// The pass's six buffers on the GPU (the animation states readable back).
struct GpuUnits {
    infos: Buffer,
    motions: Buffer,
    anim_states: Buffer,
    types: Buffer,
    clips: Buffer,
    controllers: Buffer,
}

impl GpuUnits {
    fn new(
        ctx: &mut Context,
        tables: &Tables,
        infos: &[UnitInfo],
        motions: &[UnitMotion],
        states: &[AnimState],
    ) -> GpuUnits {
        let storage = vk::BufferUsageFlags::STORAGE_BUFFER;
        let uniform = vk::BufferUsageFlags::UNIFORM_BUFFER;
        let upload =
            |name: &str, usage, data: &[u8]| upload_buffer(ctx, name, usage, data).expect(name);
        GpuUnits {
            infos: upload("unit infos", storage, bytemuck::cast_slice(infos)),
            // Commands arrive as transfer writes (upload adds TRANSFER_DST).
            motions: upload("unit motions", storage, bytemuck::cast_slice(motions)),
            anim_states: upload(
                "anim states",
                storage | vk::BufferUsageFlags::TRANSFER_SRC,
                bytemuck::cast_slice(states),
            ),
            types: upload("types", uniform, bytemuck::cast_slice(&tables.types)),
            clips: upload("clips", uniform, bytemuck::cast_slice(&tables.clips)),
            controllers: upload("controllers", storage, &tables.controller_bytes()),
        }
    }

    fn buffers(&self) -> AnimateBuffers<'_> {
        AnimateBuffers {
            infos: &self.infos,
            motions: &self.motions,
            anim_states: &self.anim_states,
            types: &self.types,
            clips: &self.clips,
            controllers: &self.controllers,
        }
    }

    /// Writes `motions[unit]` for every unit of `changed` in `frame`, before
    /// the pass reads them; each unit's record is one write.
    fn command(&self, frame: &mut Frame, motions: &[UnitMotion], changed: &BTreeSet<usize>) {
        frame.uses(&[uses(self.motions.raw, Access::TransferWrite)]);
        for &unit in changed {
            let offset = (unit * size_of::<UnitMotion>()) as u64;
            // SAFETY: the write lies inside the motions buffer, which has
            // TRANSFER_DST usage; the declared use orders it after last
            // frame's reads, and the pass's declaration orders it before
            // this frame's.
            unsafe {
                frame.ctx.device.cmd_update_buffer(
                    frame.cmd,
                    self.motions.raw,
                    offset,
                    bytemuck::bytes_of(&motions[unit]),
                )
            };
        }
    }
}

/// One random command for a unit: a new speed (idle, below the walk, in the
/// walk/run blend, past the run, past the rate clamp), death or revival, an
/// attack (variant 0, 1, or 2 which no controller has), a hit, or victory
/// on or off.
fn random_command(motion: UnitMotion, rng: &mut Rng) -> UnitMotion {
    let mut p = AnimParams::of(&motion);
    match rng.below(11) {
        0..=3 => p.speed = rng.pick(&[0.0, 0.05, 0.1, 0.5, 1.5, 2.2, 2.6, 4.0, 12.0]),
        4 => p.dead = !p.dead,
        5..=7 => {
            p.attack_serial = p.attack_serial.wrapping_add(1);
            p.attack_variant = rng.pick(&[0, 0, 1, 1, 2]);
        }
        8 => p.victory = !p.victory,
        _ => p.hit_serial = p.hit_serial.wrapping_add(1),
    }
    UnitMotion {
        speed: p.speed,
        anim_commands: p.commands(),
        ..motion
    }
}

fn describe(state: AnimState) -> String {
    format!("{state:?} = {:?}", AnimFields::decode(state))
}

/// Runs 1,000 frames of random commands through the pass and the reference,
/// comparing every state bit for bit every 50 frames and at the end.
fn gpu_matches_reference(tier: Option<Tier>) {
    let mut ctx = gpu_context(tier);
    let mut rng = Rng(0x0005_eed0_fa11_0a75);
    let clip_sets = vec![
        random_clips(&clip_names("KayKit_Knight/Knight.glb"), &mut rng, 0.3, 2.0),
        random_clips(&clip_names("Fox/Fox.glb"), &mut rng, 0.3, 2.0),
        random_clips(
            &names(&[
                "Idle",
                "Walk",
                "Run",
                "Attack_Slash",
                "Attack_Thrust",
                "Hit",
                "Death",
                "Victory",
            ]),
            &mut rng,
            0.1,
            0.6,
        ),
        vec![clip("Pose", 0.0, true), clip("Stab", 0.4, false)],
    ];
    let controllers: Vec<Controller> = clip_sets.iter().map(|c| Controller::humanoid(c)).collect();
    let tables = Tables::new(&clip_sets, &controllers);

    let infos: Vec<UnitInfo> = (0..UNITS)
        .map(|_| UnitInfo {
            type_index: if rng.below(20) == 0 {
                INACTIVE_TYPE
            } else {
                rng.below(clip_sets.len() as u64) as u32
            },
            team: rng.below(2) as u32,
            tint: rng.next() as u32,
            scale: 0.8 + 0.45 * rng.unit(),
        })
        .collect();
    let mut motions: Vec<UnitMotion> = (0..UNITS)
        .map(|_| {
            let velocity = [rng.unit() - 0.5, rng.unit() - 0.5];
            random_command(
                UnitMotion {
                    velocity,
                    ..UnitMotion::default()
                },
                &mut rng,
            )
        })
        .collect();
    let mut states: Vec<AnimState> = infos
        .iter()
        .map(|info| {
            let type_index = (info.type_index as usize).min(clip_sets.len() - 1);
            initial_state(&controllers[type_index], &clip_sets[type_index])
        })
        .collect();

    let gpu = GpuUnits::new(&mut ctx, &tables, &infos, &motions, &states);
    let pass = AnimatePass::new(&ctx).expect("animate pass");
    let mut harness = PassHarness::new(&ctx);

    let synthetic = &controllers[2];
    let mut entered = vec![false; synthetic.states.len()];
    let mut compared = 0;
    for frame in 0..FRAMES {
        let dt = match rng.below(50) {
            0 => 0.0,
            1 => 0.25,
            2 => 3.0,
            3..=20 => 1.0 / 30.0,
            _ => 1.0 / 60.0,
        };
        // One write per changed unit: two writes to one record would race.
        let mut changed = BTreeSet::new();
        for _ in 0..rng.below(UNITS as u64 / 25) {
            changed.insert(rng.below(UNITS as u64) as usize);
        }
        for &unit in &changed {
            motions[unit] = random_command(motions[unit], &mut rng);
        }
        let compare = (frame + 1) % COMPARE_EVERY == 0 || frame + 1 == FRAMES;
        let readback: &[&Buffer] = if compare { &[&gpu.anim_states] } else { &[] };
        let read = harness.run(
            &mut ctx,
            |frame| {
                gpu.command(frame, &motions, &changed);
                pass.record(frame, &gpu.buffers(), UNITS as u32, dt)
                    .expect("record animate");
            },
            readback,
        );

        let view = tables.view();
        for (unit, ((info, motion), state)) in infos
            .iter()
            .zip(&motions)
            .zip(states.iter_mut())
            .enumerate()
        {
            *state = step_unit(unit as u32, info, motion, *state, dt, &view);
            if info.type_index == 2 {
                entered[AnimFields::decode(*state).state as usize] = true;
            }
        }
        if let Some(bytes) = read.first() {
            let gpu_states: &[AnimState] = bytemuck::cast_slice(bytes);
            assert_eq!(gpu_states.len(), UNITS);
            let mismatches: Vec<String> = (0..UNITS)
                .filter(|&unit| gpu_states[unit] != states[unit])
                .take(5)
                .map(|unit| {
                    format!(
                        "unit {unit} (type {}, params {:?}):\n  gpu {}\n  cpu {}",
                        infos[unit].type_index,
                        AnimParams::of(&motions[unit]),
                        describe(gpu_states[unit]),
                        describe(states[unit])
                    )
                })
                .collect();
            assert!(
                mismatches.is_empty(),
                "frame {frame}: GPU and CPU reference differ:\n{}",
                mismatches.join("\n")
            );
            compared += 1;
        }
    }
    assert_eq!(compared, FRAMES / COMPARE_EVERY);
    let missed: Vec<&String> = synthetic
        .state_names
        .iter()
        .zip(&entered)
        .filter(|(_, entered)| !**entered)
        .map(|(name, _)| name)
        .collect();
    assert!(missed.is_empty(), "states never entered: {missed:?}");

    drop(harness);
    drop(pass);
    drop(gpu);
    finish(ctx);
}

#[test]
fn gpu_matches_the_cpu_reference_on_desktop() {
    gpu_matches_reference(None);
}

#[test]
fn gpu_matches_the_cpu_reference_on_mobile() {
    gpu_matches_reference(Some(Tier::Mobile));
}

/// The motion record the simulate pass would write for `params`.
fn motion_of(params: AnimParams) -> UnitMotion {
    UnitMotion {
        velocity: [0.0, params.speed],
        speed: params.speed,
        anim_commands: params.commands(),
    }
}

/// The playback speed factor the hash gives unit `index` (0.9..1.1).
fn variety(index: u32) -> f32 {
    0.9 + 0.2 * ((unit_hash(index) & 0xffff) as f32 / 65536.0)
}

/// The phase (0..1) at which unit `index` starts looping states.
fn phase(index: u32) -> f32 {
    (unit_hash(index) >> 16) as f32 / 65536.0
}

/// One unit of the humanoid controller over fixed clips, stepped on the CPU.
struct Unit {
    controller: Controller,
    tables: Tables,
    state: AnimState,
    params: AnimParams,
    /// Index in the unit buffers: the seed of its variety.
    index: u32,
    scale: f32,
}

impl Unit {
    fn new() -> Unit {
        let clips = vec![
            clip("Idle", 1.0, true),
            clip("Walk", 0.8, true),
            clip("Run", 0.6, true),
            // Loops in the file; the controller plays it once anyway.
            clip("Attack_Chop", 0.5, true),
            clip("Hit", 0.3, false),
            clip("Death", 1.2, false),
            clip("Victory", 2.0, false),
        ];
        let controller = Controller::humanoid(&clips);
        let tables = Tables::new(
            std::slice::from_ref(&clips),
            std::slice::from_ref(&controller),
        );
        let state = initial_state(&controller, &clips);
        Unit {
            controller,
            tables,
            state,
            params: AnimParams::default(),
            index: 0,
            scale: 1.0,
        }
    }

    fn frame(&mut self, dt: f32) -> AnimFields {
        self.state = step(
            self.state,
            self.index,
            self.scale,
            &self.motion(),
            dt,
            &self.tables.types[0],
            &self.tables.view(),
        );
        self.fields()
    }

    fn motion(&self) -> UnitMotion {
        motion_of(self.params)
    }

    /// Steps at 60 fps for `seconds`.
    fn run(&mut self, seconds: f32) -> AnimFields {
        for _ in 0..(seconds * 60.0).round() as u32 {
            self.frame(1.0 / 60.0);
        }
        self.fields()
    }

    fn fields(&self) -> AnimFields {
        AnimFields::decode(self.state)
    }

    fn state_name(&self) -> &str {
        &self.controller.state_names[self.fields().state as usize]
    }
}

#[test]
fn attack_plays_once_then_crossfades_back_to_idle() {
    let mut unit = Unit::new();
    let start = unit.frame(1.0 / 60.0);
    assert_eq!(unit.state_name(), "idle");
    assert_eq!((start.blend, start.fade_steps), (1.0, 0));

    unit.params.attack_serial = 1;
    let started = unit.frame(1.0 / 60.0);
    assert_eq!(unit.state_name(), "attack");
    assert_eq!((started.current_clip, started.previous_clip), (3, 0));
    assert_eq!((started.time_current, started.blend), (0.0, 0.0));
    assert_eq!(started.attack_seen, 1);
    assert!((started.fade_seconds() - 0.15).abs() <= 0.011);

    // The attack plays at the unit's own speed factor.
    let playing = unit.run(0.3);
    assert_eq!(unit.state_name(), "attack");
    let expected = 0.3 * variety(unit.index);
    assert!(
        (playing.time_current - expected).abs() < 1e-4,
        "{playing:?}"
    );

    // The clip loops in the file, but the attack ends at 0.5 s and returns.
    let mut frames = 0;
    while unit.state_name() == "attack" {
        unit.frame(1.0 / 60.0);
        frames += 1;
        assert!(frames < 30, "the attack never ended");
    }
    let back = unit.fields();
    assert_eq!(unit.state_name(), "idle");
    assert_eq!((back.current_clip, back.previous_clip), (0, 3));
    assert_eq!((back.time_previous, back.blend), (0.5, 0.0));
    assert!(!back.previous_loops);
    assert!((back.fade_seconds() - 0.2).abs() <= 0.011);

    // The attack clip holds its last frame while it fades out, and the same
    // command does not fire again.
    let fading = unit.run(0.1);
    assert_eq!(fading.time_previous, 0.5);
    assert!(fading.blend > 0.4 && fading.blend < 0.6, "{fading:?}");
    let settled = unit.run(2.0);
    assert_eq!(unit.state_name(), "idle");
    assert_eq!(settled.blend, 1.0);
}

#[test]
fn dead_units_hold_the_last_frame_ignore_hits_and_revive_to_idle() {
    let mut unit = Unit::new();
    unit.params.speed = 3.0;
    unit.run(0.5);
    assert_eq!(unit.state_name(), "move");

    unit.params.dead = true;
    let dying = unit.frame(1.0 / 60.0);
    assert_eq!(unit.state_name(), "die");
    assert_eq!(dying.current_clip, 5);
    let dead = unit.run(3.0);
    assert_eq!(unit.state_name(), "die");
    assert_eq!(dead.time_current, 1.2, "death holds its last frame");

    unit.params.hit_serial = 1;
    unit.params.attack_serial = 1;
    let still_dead = unit.run(1.0);
    assert_eq!(unit.state_name(), "die");
    assert_eq!((still_dead.hit_seen, still_dead.attack_seen), (0, 0));
    assert_eq!(still_dead.time_current, 1.2);

    unit.params = AnimParams::default();
    let revived = unit.frame(1.0 / 60.0);
    assert_eq!(unit.state_name(), "idle");
    assert_eq!((revived.current_clip, revived.previous_clip), (0, 5));
    assert!((revived.fade_seconds() - 0.3).abs() <= 0.011);
}

#[test]
fn pending_commands_fire_once_the_state_allows_them() {
    let mut unit = Unit::new();
    unit.params.dead = true;
    unit.run(0.5);
    unit.params.hit_serial = 3;
    unit.run(0.5);
    assert_eq!(unit.state_name(), "die");
    unit.params.dead = false;
    unit.frame(1.0 / 60.0);
    assert_eq!(unit.state_name(), "idle");
    let hit = unit.frame(1.0 / 60.0);
    assert_eq!(unit.state_name(), "hit");
    assert_eq!(hit.hit_seen, 3);
    unit.run(1.0);
    assert_eq!(unit.state_name(), "idle");
}

#[test]
fn speed_threshold_picks_idle_or_move() {
    let mut unit = Unit::new();
    let cases = [
        (0.05, "idle"),
        (1.0, "move"),
        (3.0, "move"),
        (0.1, "idle"),
        (2.6, "move"),
        (0.0, "idle"),
    ];
    for (speed, expected) in cases {
        unit.params.speed = speed;
        unit.frame(1.0 / 60.0);
        assert_eq!(unit.state_name(), expected, "at speed {speed}");
    }
}

/// Runs `unit` at `speed` for two seconds (the fade in and the blend settle)
/// and returns the walk's weight and how far the walk advanced per second.
fn settle_at(unit: &mut Unit, speed: f32) -> (f32, f32) {
    unit.params.speed = speed;
    unit.run(2.0);
    assert_eq!(unit.state_name(), "move");
    let before = unit.fields();
    assert_eq!(before.fade_steps, 0, "the blend follows the fade");
    let after = unit.frame(1.0 / 60.0);
    let mut advanced = after.time_current - before.time_current;
    if advanced < 0.0 {
        advanced += 0.8;
    }
    (after.blend, advanced * 60.0)
}

#[test]
fn locomotion_rate_and_blend_follow_the_speed() {
    // Walk: 0.8 s, 1.3 units/s; run: 0.6 s, 3.3 units/s (see `clip`).
    let rate_at = |speed: f32, scale: f32| {
        let mut unit = Unit::new();
        unit.scale = scale;
        settle_at(&mut unit, speed)
    };
    // At the walk's ground speed times the scale, the walk plays alone at 1x.
    for scale in [1.0, 1.5] {
        let (weight, rate) = rate_at(1.3 * scale, scale);
        assert_eq!(weight, 1.0);
        assert!((rate - 1.0).abs() < 1e-3, "scale {scale}: rate {rate}");
    }
    // Slower: the walk alone, slower, down to the clamp.
    let (weight, rate) = rate_at(0.65, 1.0);
    assert_eq!(weight, 1.0);
    assert!((rate - 0.5).abs() < 1e-3, "rate {rate}");
    let (_, rate) = rate_at(0.2, 1.0);
    assert!((rate - 0.25).abs() < 1e-3, "clamped rate {rate}");
    // At the run's speed, the run alone: the walk's time advances by the
    // run's cycles (1 / 0.6 s) times the walk's duration.
    let (weight, rate) = rate_at(3.3, 1.0);
    assert_eq!(weight, 0.0);
    assert!((rate - 0.8 / 0.6).abs() < 1e-3, "rate {rate}");
    // Halfway: an even blend whose stride covers the speed.
    let (weight, rate) = rate_at(2.3, 1.0);
    assert!((weight - 0.5).abs() < 2e-3, "weight {weight}");
    let w = weight;
    let cycle = 0.6 * (1.0 - w) + 0.8 * w;
    let stride = 3.3 * 0.6 * (1.0 - w) + 1.3 * 0.8 * w;
    let expected = 2.3 / stride * 0.8;
    assert!(
        (rate - expected).abs() < 1e-3,
        "rate {rate}, expected {expected}"
    );
    assert!(cycle > 0.6 && cycle < 0.8);
}

#[test]
fn locomotion_keeps_the_run_in_phase_with_the_walk() {
    let mut unit = Unit::new();
    unit.params.speed = 2.3;
    for _ in 0..120 {
        let fields = unit.frame(1.0 / 60.0);
        if fields.fade_steps == 0 && unit.state_name() == "move" {
            assert_eq!((fields.current_clip, fields.previous_clip), (1, 2));
            let walk_phase = fields.time_current / 0.8;
            let run_phase = fields.time_previous / 0.6;
            assert!((walk_phase - run_phase).abs() < 1e-5, "{fields:?}");
        }
    }
    // A speed change eases the weight at 4 per second.
    let before = unit.fields().blend;
    unit.params.speed = 3.3;
    let after = unit.frame(0.05);
    assert!(
        (before - after.blend - 0.2).abs() < 2e-3,
        "{before} -> {after:?}"
    );
    // Stopping fades out from the clip with the larger weight (the run).
    unit.run(1.0);
    unit.params.speed = 0.0;
    let stopping = unit.frame(1.0 / 60.0);
    assert_eq!(unit.state_name(), "idle");
    assert_eq!((stopping.current_clip, stopping.previous_clip), (0, 2));
}

#[test]
fn bad_speeds_never_make_bad_times() {
    for speed in [f32::NAN, f32::INFINITY, -5.0, 1e30] {
        let mut unit = Unit::new();
        unit.params.speed = 1.0;
        unit.run(1.0);
        unit.params.speed = speed;
        let fields = unit.run(1.0);
        assert!(
            fields.time_current.is_finite() && fields.time_previous.is_finite(),
            "speed {speed}: {fields:?}"
        );
        assert!(
            (0.0..=1.0).contains(&fields.blend),
            "speed {speed}: {fields:?}"
        );
    }
}

#[test]
fn units_vary_in_speed_and_phase_but_not_in_locomotion() {
    let factors: Vec<f32> = (0..1000).map(variety).collect();
    assert!(factors.iter().all(|f| (0.9..1.1).contains(f)));
    let spread = factors.iter().copied().fold(f32::MIN, f32::max)
        - factors.iter().copied().fold(f32::MAX, f32::min);
    assert!(spread > 0.19, "speed factors span {spread}");
    // Neighbours in a rank idle at different speeds.
    let idle_time = |index: u32| {
        let mut unit = Unit::new();
        unit.index = index;
        unit.run(0.5).time_current
    };
    let times: BTreeSet<u32> = (0..8).map(|i| idle_time(i).to_bits()).collect();
    assert_eq!(times.len(), 8, "eight neighbours, eight idle times");
    assert!((idle_time(3) - 0.5 * variety(3)).abs() < 1e-4);
    // They start walking at their own phase, then walk at the ground's rate.
    let walking = |index: u32| {
        let mut unit = Unit::new();
        unit.index = index;
        unit.params.speed = 1.3;
        unit.frame(1.0 / 60.0)
    };
    for index in 0..8 {
        let started = walking(index);
        assert!((started.time_current - phase(index) * 0.8).abs() < 1e-5);
        let mut unit = Unit::new();
        unit.index = index;
        let (_, rate) = settle_at(&mut unit, 1.3);
        assert!((rate - 1.0).abs() < 1e-3, "unit {index}: rate {rate}");
    }
    let phases: BTreeSet<u32> = (0..8).map(|i| walking(i).time_current.to_bits()).collect();
    assert_eq!(phases.len(), 8);
    // Play-once states start at their beginning whatever the phase.
    let mut unit = Unit::new();
    unit.index = 5;
    unit.params.attack_serial = 1;
    assert_eq!(unit.frame(1.0 / 60.0).time_current, 0.0);
}

#[test]
fn victory_plays_until_it_clears_and_death_still_wins() {
    let mut unit = Unit::new();
    unit.params.speed = 2.0;
    unit.run(0.5);
    unit.params.victory = true;
    let cheering = unit.frame(1.0 / 60.0);
    assert_eq!(unit.state_name(), "victory");
    assert_eq!(cheering.current_clip, 6);
    assert!((cheering.fade_seconds() - 0.3).abs() <= 0.011);
    // The clip does not loop: it holds its last frame.
    let held = unit.run(3.0);
    assert_eq!(unit.state_name(), "victory");
    assert_eq!(held.time_current, 2.0);
    unit.params.victory = false;
    unit.frame(1.0 / 60.0);
    assert_eq!(unit.state_name(), "idle");
    unit.params.victory = true;
    unit.frame(1.0 / 60.0);
    assert_eq!(unit.state_name(), "victory");
    unit.params.dead = true;
    unit.frame(1.0 / 60.0);
    assert_eq!(unit.state_name(), "die");
    assert_eq!(
        AnimParams::of(&motion_of(unit.params)),
        unit.params,
        "the victory bit round-trips"
    );
}

#[test]
fn crossfade_blends_over_the_fade_time_and_both_clips_advance() {
    let mut unit = Unit::new();
    unit.run(0.5);
    let before = unit.fields();
    assert!((before.time_current - 0.5 * variety(unit.index)).abs() < 1e-4);
    unit.params.speed = 1.0;
    let started = unit.frame(1.0 / 60.0);
    assert_eq!(unit.state_name(), "move");
    assert_eq!((started.current_clip, started.previous_clip), (1, 0));
    assert_eq!(started.blend, 0.0);
    let fade = started.fade_seconds();
    assert!((fade - 0.25).abs() <= 0.011, "fade {fade}");
    let mut last = started;
    let mut seconds = 0.0;
    while last.blend < 1.0 {
        let dt = 1.0 / 60.0;
        let next = unit.frame(dt);
        seconds += dt;
        assert!(next.blend > last.blend, "the blend rises every frame");
        assert!((next.blend - (seconds / fade).min(1.0)).abs() < 0.02);
        // The walk at the rate its 1.3 units/s ground speed asks for (the
        // clip wraps at 0.8 s), the idle fading out at 1x.
        let advanced = (next.time_current - last.time_current).rem_euclid(0.8);
        assert!((advanced - dt / 1.3).abs() < 1e-5);
        if next.blend < 1.0 {
            assert!((next.time_previous - last.time_previous - dt).abs() < 1e-5);
        } else {
            // The fade is over: the run takes the previous slot, in phase.
            assert_eq!((next.previous_clip, next.fade_steps), (2, 0));
        }
        last = next;
        assert!(seconds < 1.0, "the crossfade never finished");
    }
    assert!((seconds - fade).abs() < 1.5 / 60.0, "took {seconds} s");
    let looped = unit.run(1.0);
    assert!(looped.time_current < 0.8, "walk wraps: {looped:?}");
}

/// The commands of the scripted run of `lod_bits_survive_every_transition`.
const SCRIPT: [fn(&mut AnimParams); 8] = [
    |p| p.speed = 3.0,
    |p| p.speed = 2.0,
    |p| p.attack_serial = 1,
    |p| p.hit_serial = 1,
    |p| p.dead = true,
    |p| p.dead = false,
    |p| p.victory = true,
    |p| p.victory = false,
];

/// LOD now lives in the cull pass's route buffer, not in `AnimState`: the
/// animate pass owns every bit of the state (each is one of its fields, and
/// bits that are none are cleared), and on the GPU it leaves the routes of
/// the units it animates untouched through every transition, each route
/// (every mesh LOD and the far field) on one unit.
#[test]
fn lod_bits_survive_every_transition() {
    // The reference: every state it writes round-trips through the fields.
    let mut unit = Unit::new();
    let stray = AnimState {
        blend: unit.state.blend | 0xfe00_0000,
        ..unit.state
    };
    assert_eq!(AnimFields::decode(stray).encode(), unit.state);
    unit.state = stray;
    for command in SCRIPT {
        command(&mut unit.params);
        for _ in 0..40 {
            unit.frame(1.0 / 30.0);
            assert_eq!(AnimFields::decode(unit.state).encode(), unit.state);
            assert_eq!(
                unit.state.blend & !(ANIM_PREVIOUS_LOOPS_BIT | 0x00ff_ffff),
                0
            );
        }
    }

    // The GPU: one unit per route, with a route buffer beside the states as
    // the world keeps it; the states follow the reference bit for bit.
    let mut ctx = gpu_context(None);
    let template = Unit::new();
    let routes: Vec<u32> = (0..=ROUTE_FAR_FIELD).collect();
    let count = routes.len();
    let infos = vec![
        UnitInfo {
            type_index: 0,
            scale: 1.0,
            ..UnitInfo::default()
        };
        count
    ];
    let mut motions = vec![template.motion(); count];
    let mut states = vec![stray; count];
    let gpu = GpuUnits::new(&mut ctx, &template.tables, &infos, &motions, &states);
    let route_buffer = upload_buffer(
        &ctx,
        "routes",
        vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::TRANSFER_SRC,
        bytemuck::cast_slice(&routes),
    )
    .expect("routes");
    let pass = AnimatePass::new(&ctx).expect("animate pass");
    let mut harness = PassHarness::new(&ctx);
    let mut params = AnimParams::default();
    let everyone: BTreeSet<usize> = (0..count).collect();
    let nobody = BTreeSet::new();
    for (step_index, command) in SCRIPT.iter().enumerate() {
        command(&mut params);
        motions.fill(motion_of(params));
        for frame in 0..40 {
            let changed = if frame == 0 { &everyone } else { &nobody };
            let last = frame == 39;
            let readback: &[&Buffer] = if last {
                &[&gpu.anim_states, &route_buffer]
            } else {
                &[]
            };
            let read = harness.run(
                &mut ctx,
                |frame| {
                    gpu.command(frame, &motions, changed);
                    pass.record(frame, &gpu.buffers(), count as u32, 1.0 / 30.0)
                        .expect("record animate");
                },
                readback,
            );
            let view = template.tables.view();
            for (index, (state, motion)) in states.iter_mut().zip(&motions).enumerate() {
                *state = step(
                    *state,
                    index as u32,
                    1.0,
                    motion,
                    1.0 / 30.0,
                    &template.tables.types[0],
                    &view,
                );
            }
            if last {
                let gpu_states: &[AnimState] = bytemuck::cast_slice(&read[0]);
                assert_eq!(gpu_states, &states[..], "after command {step_index}");
                let gpu_routes: &[u32] = bytemuck::cast_slice(&read[1]);
                assert_eq!(gpu_routes, &routes[..], "after command {step_index}");
            }
        }
    }
    // The same script as the reference run above, to the same state.
    assert_eq!(states[0], unit.state);
    drop(harness);
    drop(pass);
    drop(route_buffer);
    drop(gpu);
    finish(ctx);
}

#[test]
fn inactive_units_are_left_alone() {
    let unit = Unit::new();
    let info = UnitInfo {
        type_index: INACTIVE_TYPE,
        ..UnitInfo::default()
    };
    let motion = UnitMotion {
        speed: 3.0,
        anim_commands: AnimParams {
            dead: true,
            ..AnimParams::default()
        }
        .commands(),
        ..UnitMotion::default()
    };
    let state = unit.state;
    assert_eq!(
        step_unit(0, &info, &motion, state, 0.5, &unit.tables.view()),
        state
    );
}

/// (state, clip) per state; a locomotion state adds ("<state> blend", its
/// blend clip).
fn clip_names_of(clips: &[Clip], controller: &Controller) -> Vec<(String, String)> {
    let mut names = Vec::new();
    for (state, def) in controller.state_names.iter().zip(&controller.states) {
        names.push((state.clone(), clips[def.clip as usize].name.clone()));
        if def.flags & STATE_LOCOMOTION != 0 {
            names.push((
                format!("{state} blend"),
                clips[def.blend_clip as usize].name.clone(),
            ));
        }
    }
    names
}

/// The humanoid controller over a sample's clip names.
fn humanoid_of(sample: &str) -> (Vec<Clip>, Controller) {
    let clips: Vec<Clip> = clip_names(sample)
        .iter()
        .map(|name| clip(name, 1.0, true))
        .collect();
    let controller = Controller::humanoid(&clips);
    (clips, controller)
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
        .collect()
}

#[test]
fn humanoid_maps_the_knight_clips() {
    let (clips, controller) = humanoid_of("KayKit_Knight/Knight.glb");
    assert_eq!(
        clip_names_of(&clips, &controller),
        pairs(&[
            ("idle", "Idle"),
            ("move", "Walking_A"),
            ("move blend", "Running_A"),
            ("attack", "1H_Melee_Attack_Chop"),
            ("attack 2", "1H_Melee_Attack_Slice_Diagonal"),
            ("hit", "Hit_A"),
            ("die", "Death_A"),
            ("victory", "Cheer"),
        ])
    );
    controller.validate().expect("valid");
    // The move state carries the clips' ground speeds.
    let moving = controller.states[controller.state_named("move").expect("move") as usize];
    assert_eq!(
        (moving.clip_ground_speed, moving.blend_clip_ground_speed),
        (1.3, 3.3)
    );
}

#[test]
fn clip_roles_find_every_role_and_take_overrides() {
    let clips: Vec<Clip> = clip_names("KayKit_Knight/Knight.glb")
        .iter()
        .map(|name| clip(name, 1.0, true))
        .collect();
    let named = |roles: &horde::anim::ClipRoles, role: Role| clips[roles[&role]].name.clone();
    let casting = clip_roles(&clips).expect("every required role");
    assert!(casting.fallbacks.is_empty(), "{:?}", casting.fallbacks);
    let roles = casting.roles;
    assert_eq!(roles.len(), Role::ALL.len());
    assert_eq!(named(&roles, Role::Victory), "Cheer");
    assert_eq!(named(&roles, Role::Walk), "Walking_A");
    let overridden = clip_roles_with_overrides(
        &clips,
        &pairs(&[("walk", "Walking_B"), ("Attack", "2H_Melee_Attack_Spin")]),
    )
    .expect("overrides")
    .roles;
    assert_eq!(named(&overridden, Role::Walk), "Walking_B");
    assert_eq!(named(&overridden, Role::Attack), "2H_Melee_Attack_Spin");
    assert_eq!(named(&overridden, Role::Run), "Running_A");
    let controller = Controller::humanoid_with_roles(&clips, &overridden);
    controller.validate().expect("valid");
    assert_eq!(
        clips[controller.states[1].clip as usize].name, "Walking_B",
        "the move state walks with the override"
    );

    let unknown_role = clip_roles_with_overrides(&clips, &pairs(&[("dance", "Cheer")]));
    let message = unknown_role.expect_err("unknown role").to_string();
    assert!(message.contains("unknown role \"dance\"") && message.contains("victory"));
    let unknown_clip = clip_roles_with_overrides(&clips, &pairs(&[("walk", "Moonwalk")]));
    let message = unknown_clip.expect_err("unknown clip").to_string();
    assert!(message.contains("Moonwalk") && message.contains("Walking_A"));
}

/// The Fox has an idle (Survey), a walk and a run but no attack: refused,
/// naming what was found; given an attack, its hit, die and victory fall
/// back to the idle.
#[test]
fn clip_roles_name_what_was_found_when_a_required_role_is_missing() {
    let clips: Vec<Clip> = clip_names("Fox/Fox.glb")
        .iter()
        .map(|name| clip(name, 1.0, true))
        .collect();
    let message = clip_roles(&clips).expect_err("no attack").to_string();
    assert!(message.contains("no clip for attack (found"), "{message}");
    assert!(
        message.contains("idle=Survey") && message.contains("walk=Walk"),
        "{message}"
    );
    // The override fills the gap; the roles a battle can do without fall back.
    let casting = clip_roles_with_overrides(&clips, &pairs(&[("attack", "Run")]))
        .expect("overrides fill the roles");
    assert_eq!(
        clips[casting.roles[&Role::Victory]].name,
        "Survey",
        "victory falls back to idle"
    );
    let fell_back: Vec<(Role, Role)> = casting
        .fallbacks
        .iter()
        .map(|fallback| (fallback.role, fallback.plays))
        .collect();
    assert_eq!(
        fell_back,
        [
            (Role::Hit, Role::Idle),
            (Role::Die, Role::Idle),
            (Role::Victory, Role::Idle)
        ]
    );
    let message = clip_roles(&[]).expect_err("no clips").to_string();
    assert!(
        message.contains("no clip for idle or walk, attack"),
        "{message}"
    );
}

#[test]
fn humanoid_maps_the_fox_clips_with_fallbacks() {
    let (clips, controller) = humanoid_of("Fox/Fox.glb");
    assert_eq!(
        clip_names_of(&clips, &controller),
        pairs(&[
            ("idle", "Survey"),
            ("move", "Walk"),
            ("move blend", "Run"),
            ("attack", "Survey"),
            ("hit", "Survey"),
            ("die", "Survey"),
            ("victory", "Survey"),
        ])
    );
    // One attack state takes every variant.
    let attack = controller.state_named("attack").expect("attack state");
    assert!(controller
        .transitions
        .iter()
        .any(|t| t.target == attack && t.condition == condition::ATTACK && t.threshold < 0.0));
}

#[test]
fn humanoid_without_clips_is_still_a_valid_controller() {
    let controller = Controller::humanoid(&[]);
    controller.validate().expect("valid");
    assert_eq!(controller.states.iter().map(|s| s.clip).max(), Some(0));
}

#[test]
fn bad_controllers_are_errors() {
    let good = Controller::humanoid(&[clip("Idle", 1.0, true)]);
    let mut bad_target = good.clone();
    bad_target.any_state[0].target = 99;
    let mut bad_fade = good.clone();
    bad_fade.transitions[0].fade = f32::NAN;
    let mut bad_range = good.clone();
    bad_range.states[0].transitions = 500 | 3 << 16;
    let mut bad_speed = good.clone();
    bad_speed.states[1].speed = -1.0;
    let mut bad_condition = good.clone();
    bad_condition.transitions[1].condition = 42;
    let mut bad_ground_speed = good.clone();
    bad_ground_speed.states[1].clip_ground_speed = f32::NAN;
    let mut bad_blend_clip = good.clone();
    bad_blend_clip.states[1].blend_clip = 300;
    let empty = Controller::default();
    let too_many = Controller {
        states: vec![AnimStateDef::default(); 300],
        ..Controller::default()
    };
    for (what, controller) in [
        ("target", &bad_target),
        ("fade", &bad_fade),
        ("range", &bad_range),
        ("speed", &bad_speed),
        ("condition", &bad_condition),
        ("ground speed", &bad_ground_speed),
        ("blend clip", &bad_blend_clip),
        ("empty", &empty),
        ("too many states", &too_many),
    ] {
        assert!(pack(&[&good, controller]).is_err(), "{what} was accepted");
    }
    let huge = Controller {
        states: vec![AnimStateDef::default(); 200],
        transitions: vec![AnimTransitionDef::default(); 10],
        ..Controller::default()
    };
    let err = pack(&[&huge, &huge, &huge]).unwrap_err().to_string();
    assert!(err.contains("states"), "{err}");
    assert!(pack(&[&good, &good]).is_ok());
}
