//! The cull + LOD pass against its CPU reference, exactly: every command's
//! `instanceCount` (and the rest of the command untouched), every (type, LOD)
//! region of the instance lists as a set, and the stored LOD states (with the
//! rest of their words untouched), for units and props, on both tiers, with
//! zero validation messages (synchronization validation included).
//!
//! Random scenes use bounding spheres centred on the +Y axis, so the GPU's
//! `sin`/`cos` (whose precision Vulkan leaves loose) cannot move a sphere and
//! every comparison is exact. Edge cases (tangent spheres, exact LOD
//! thresholds with each hysteresis state, off-axis spheres rotated by the
//! heading) use hand-built planes and distances with power-of-two
//! coefficients, so their expected outcome is exact in f32 and written out
//! by hand as well.

use std::f32::consts::{FRAC_PI_2, PI};
use std::mem::size_of;

use ash::vk;
use glam::Vec3;
use horde::camera::Camera;
use horde::config::LOD_COUNT;
use horde::context::{Context, Tier};
use horde::cull_reference::{cull, ReferenceBatch, ReferenceOutput, UNIT_LOD_SHIFT};
use horde::frames::Frames;
use horde::gpu_types::{
    AnimState, CullGlobals, Instance, TypeInfo, INACTIVE_TYPE, INSTANCE_INDEX_BITS, MAX_TYPES,
};
use horde::memory::{upload_buffer, Buffer};
use horde::passes::cull::{cull_globals, CullBatch, CullPass, CullTargets};
use horde_tests::{finish, gpu_context};

/// Instance-list entries no region covers; they must never change.
const SENTINEL: u32 = 0xdead_beef;
/// Words per `VkDrawIndexedIndirectCommand`; word 1 is `instanceCount`.
const COMMAND_WORDS: usize = 5;

/// A small deterministic generator (SplitMix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u32) -> u32 {
        (self.next() % u64::from(n)) as u32
    }
    fn range(&mut self, low: f32, high: f32) -> f32 {
        low + (high - low) * (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// What the GPU gets and the reference reads.
struct Scene {
    /// The full uniform table (`MAX_TYPES` entries).
    types: Vec<TypeInfo>,
    /// Template command words (`instanceCount` 0), `COMMAND_WORDS` per command.
    template: Vec<u32>,
    /// Region of each command: first entry and capacity.
    regions: Vec<(u32, u32)>,
    list_len: u32,
    units: Vec<Instance>,
    anim_states: Vec<AnimState>,
    props: Vec<Instance>,
}

impl Scene {
    /// Gives every (type, LOD) below `lod_counts[t]` its own command and a
    /// region of `capacities[t]` entries, with gaps of 3 between regions.
    fn new(mut types: Vec<TypeInfo>, capacities: &[u32], rng: &mut Rng) -> Scene {
        let mut regions = Vec::new();
        let mut next_base = 2;
        for (type_info, &capacity) in types.iter_mut().zip(capacities) {
            for lod in 0..type_info.skeleton[3].clamp(1, LOD_COUNT) as usize {
                type_info.command[lod] = regions.len() as u32;
                type_info.instance_base[lod] = next_base;
                type_info.materials[1] = capacity;
                regions.push((next_base, capacity));
                next_base += capacity + 3;
            }
        }
        // Shuffle the command indices so regions and commands do not line up.
        let mut order: Vec<u32> = (0..regions.len() as u32).collect();
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i as u32 + 1) as usize);
        }
        let mut shuffled = vec![(0, 0); regions.len()];
        for type_info in &mut types {
            for lod in 0..type_info.skeleton[3].clamp(1, LOD_COUNT) as usize {
                let old = type_info.command[lod] as usize;
                type_info.command[lod] = order[old];
                shuffled[order[old] as usize] = regions[old];
            }
        }
        types.resize(MAX_TYPES, TypeInfo::default());
        let template = (0..shuffled.len() as u32)
            .flat_map(|c| [3 * (c + 1), 0, 7 * c, 11 * c, shuffled[c as usize].0])
            .collect();
        Scene {
            types,
            template,
            regions: shuffled,
            list_len: next_base + 2,
            units: Vec::new(),
            anim_states: Vec::new(),
            props: Vec::new(),
        }
    }
}

/// A unit or prop type whose sphere is centred on the +Y axis.
fn random_type(rng: &mut Rng) -> TypeInfo {
    let lod_count = 1 + rng.below(LOD_COUNT);
    let error1 = rng.range(0.004, 0.03);
    let error2 = error1 * rng.range(2.0, 6.0);
    TypeInfo {
        sphere: [0.0, rng.range(0.2, 2.0), 0.0, rng.range(0.4, 3.0)],
        lod_error: [0.0, error1, error2, error2 * rng.range(2.0, 6.0)],
        // Some types claim more LODs than LOD_COUNT: the pass clamps them.
        skeleton: [
            0,
            0,
            0,
            if lod_count == LOD_COUNT {
                LOD_COUNT + rng.below(2)
            } else {
                lod_count
            },
        ],
        ..TypeInfo::default()
    }
}

fn random_instance(rng: &mut Rng, types: std::ops::Range<u32>) -> Instance {
    let type_index = match rng.below(100) {
        0..4 => INACTIVE_TYPE,
        4 => MAX_TYPES as u32 + rng.below(1000),
        _ => types.start + rng.below(types.end - types.start),
    };
    Instance {
        position: [
            rng.range(-400.0, 400.0),
            rng.range(-3.0, 3.0),
            rng.range(-400.0, 400.0),
        ],
        heading: rng.range(-PI, PI),
        scale: rng.range(0.5, 2.0),
        type_index,
        tint: rng.next() as u32,
        params: rng.next() as u32,
    }
}

/// `units` units of 6 types and `props` props of 4 types, each region as
/// large as `capacity(instances of its type)`.
fn random_scene(seed: u64, units: usize, props: usize, capacity: impl Fn(u32) -> u32) -> Scene {
    let mut rng = Rng(seed);
    let types: Vec<TypeInfo> = (0..10).map(|_| random_type(&mut rng)).collect();
    let unit_list: Vec<Instance> = (0..units)
        .map(|_| random_instance(&mut rng, 0..6))
        .collect();
    let prop_list: Vec<Instance> = (0..props)
        .map(|_| random_instance(&mut rng, 6..10))
        .collect();
    let per_type: Vec<u32> = (0..10)
        .map(|t| {
            let count = unit_list.iter().chain(&prop_list);
            capacity(count.filter(|i| i.type_index == t).count() as u32)
        })
        .collect();
    let mut scene = Scene::new(types, &per_type, &mut rng);
    scene.anim_states = (0..units)
        .map(|_| AnimState {
            clips: rng.next() as u32,
            time_current: rng.range(0.0, 3.0),
            time_previous: rng.range(0.0, 3.0),
            blend: rng.next() as u32,
        })
        .collect();
    scene.units = unit_list;
    scene.props = prop_list;
    scene
}

/// The scene's buffers on the GPU, host-readable copies of what the pass
/// writes, the pass and the frames.
struct Harness {
    pass: CullPass,
    frames: Frames,
    types: Buffer,
    template: Buffer,
    commands: Buffer,
    lists: Buffer,
    units: Buffer,
    anim_states: Buffer,
    props: Buffer,
    readback: Vec<Buffer>,
}

/// What one frame left on the GPU.
struct Readback {
    commands: Vec<u32>,
    lists: Vec<u32>,
    units: Vec<Instance>,
    anim_states: Vec<AnimState>,
    props: Vec<Instance>,
}

impl Harness {
    /// Uploads `scene`; the live commands start with garbage instance counts
    /// so that the reset is tested too.
    fn new(ctx: &mut Context, scene: &Scene) -> Harness {
        let storage = vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::TRANSFER_SRC;
        let mut garbage = scene.template.clone();
        for command in garbage.chunks_mut(COMMAND_WORDS) {
            command[1] = SENTINEL;
        }
        let upload =
            |name: &str, usage, data: &[u8]| upload_buffer(ctx, name, usage, data).expect("upload");
        let types = upload(
            "types",
            vk::BufferUsageFlags::UNIFORM_BUFFER,
            bytemuck::cast_slice(&scene.types),
        );
        let template = upload(
            "template commands",
            vk::BufferUsageFlags::TRANSFER_SRC,
            bytemuck::cast_slice(&scene.template),
        );
        let commands = upload(
            "commands",
            storage | vk::BufferUsageFlags::INDIRECT_BUFFER,
            bytemuck::cast_slice(&garbage),
        );
        let lists = upload(
            "instance lists",
            storage | vk::BufferUsageFlags::VERTEX_BUFFER,
            bytemuck::cast_slice(&vec![SENTINEL; scene.list_len as usize]),
        );
        let units = upload("units", storage, bytemuck::cast_slice(&scene.units));
        let anim_states = upload(
            "anim states",
            storage,
            bytemuck::cast_slice(&scene.anim_states),
        );
        let props = upload("props", storage, bytemuck::cast_slice(&scene.props));
        let readback = [&commands, &lists, &units, &anim_states, &props]
            .map(|b| (b.name.clone(), b.size))
            .into_iter()
            .map(|(name, size)| {
                Buffer::new(
                    ctx,
                    &format!("{name} readback"),
                    size,
                    vk::BufferUsageFlags::TRANSFER_DST,
                    gpu_allocator::MemoryLocation::GpuToCpu,
                )
                .expect("readback buffer")
            })
            .collect();
        Harness {
            pass: CullPass::new(ctx).expect("create the cull pass"),
            frames: Frames::new(ctx).expect("frames"),
            types,
            template,
            commands,
            lists,
            units,
            anim_states,
            props,
            readback,
        }
    }

    /// Culls `unit_count` units, then `prop_count` props, in one frame, and
    /// reads back everything the pass may have written.
    fn frame(
        &mut self,
        ctx: &Context,
        globals: &CullGlobals,
        unit_count: u32,
        prop_count: u32,
    ) -> Readback {
        let start = self.frames.begin(ctx).expect("begin frame");
        let targets = CullTargets {
            types: &self.types,
            template_commands: &self.template,
            commands: &self.commands,
            instance_lists: &self.lists,
        };
        let batches = [
            CullBatch::Units {
                instances: &self.units,
                anim_states: &self.anim_states,
                count: unit_count,
            },
            CullBatch::Props {
                instances: &self.props,
                count: prop_count,
            },
        ];
        self.pass
            .record(ctx, &start, globals, &targets, &batches)
            .expect("record the cull pass");
        let sources = [
            &self.commands,
            &self.lists,
            &self.units,
            &self.anim_states,
            &self.props,
        ];
        let to_host = vk::MemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
            .dst_access_mask(vk::AccessFlags::HOST_READ);
        // SAFETY: every buffer lives until the frame has completed.
        unsafe {
            for (source, readback) in sources.iter().zip(&self.readback) {
                let region = vk::BufferCopy::default().size(source.size);
                ctx.device
                    .cmd_copy_buffer(start.cmd, source.raw, readback.raw, &[region]);
            }
            ctx.device.cmd_pipeline_barrier(
                start.cmd,
                vk::PipelineStageFlags::TRANSFER,
                vk::PipelineStageFlags::HOST,
                vk::DependencyFlags::empty(),
                &[to_host],
                &[],
                &[],
            );
        }
        self.frames
            .submit(ctx, &start, &[], &[])
            .expect("submit frame");
        self.frames.wait_all(ctx).expect("wait for the frame");
        Readback {
            commands: read(&self.readback[0]),
            lists: read(&self.readback[1]),
            units: read(&self.readback[2]),
            anim_states: read(&self.readback[3]),
            props: read(&self.readback[4]),
        }
    }
}

/// The whole elements in a host-visible buffer.
fn read<T: bytemuck::Pod>(buffer: &Buffer) -> Vec<T> {
    let bytes = buffer.mapped().expect("mapped readback");
    bytes
        .chunks_exact(size_of::<T>())
        .map(bytemuck::pod_read_unaligned)
        .collect()
}

/// Runs the reference over the first `unit_count` units and `prop_count`
/// props of `scene`, updating its LOD states.
fn reference_frame(
    scene: &mut Scene,
    globals: &CullGlobals,
    unit_count: usize,
    prop_count: usize,
) -> ReferenceOutput {
    let mut output = ReferenceOutput::new(scene.regions.len(), scene.list_len);
    let units = ReferenceBatch::Units {
        instances: &scene.units[..unit_count],
        anim_states: &mut scene.anim_states[..unit_count],
    };
    cull(globals, &scene.types, units, &mut output);
    let props = ReferenceBatch::Props {
        instances: &mut scene.props[..prop_count],
    };
    cull(globals, &scene.types, props, &mut output);
    output
}

/// Asserts the GPU frame equals the reference. Overflowing regions hold
/// `capacity` distinct entries of the reference's set.
fn assert_matches(scene: &Scene, expected: &ReferenceOutput, gpu: &Readback, what: &str) {
    for (c, (gpu_command, template)) in gpu
        .commands
        .chunks(COMMAND_WORDS)
        .zip(scene.template.chunks(COMMAND_WORDS))
        .enumerate()
    {
        let mut want = template.to_vec();
        want[1] = expected.instance_counts[c];
        assert_eq!(gpu_command, want, "{what}: command {c}");
        let (base, capacity) = scene.regions[c];
        let mut entries = gpu.lists[base as usize..][..want[1] as usize].to_vec();
        entries.sort_unstable();
        let reference = &expected.appended[c];
        if reference.len() <= capacity as usize {
            assert_eq!(&entries, reference, "{what}: region of command {c}");
        } else {
            entries.dedup();
            assert_eq!(entries.len(), capacity as usize, "{what}: command {c}");
            let strays: Vec<_> = entries
                .iter()
                .filter(|e| reference.binary_search(e).is_err())
                .collect();
            assert!(strays.is_empty(), "{what}: command {c}: strays {strays:?}");
        }
    }
    let mut covered = vec![false; scene.list_len as usize];
    for &(base, capacity) in &scene.regions {
        covered[base as usize..][..capacity as usize].fill(true);
    }
    let outside = (0..gpu.lists.len())
        .filter(|&i| !covered[i] && gpu.lists[i] != SENTINEL)
        .count();
    assert_eq!(outside, 0, "{what}: entries written outside every region");
    assert!(gpu.units == scene.units, "{what}: unit records changed");
    let mismatch =
        |gpu: &[AnimState], cpu: &[AnimState]| gpu.iter().zip(cpu).position(|(g, c)| g != c);
    assert_eq!(
        mismatch(&gpu.anim_states, &scene.anim_states),
        None,
        "{what}: unit LOD states"
    );
    let first_prop = gpu.props.iter().zip(&scene.props).position(|(g, c)| g != c);
    assert_eq!(first_prop, None, "{what}: prop LOD states");
}

/// Several frames of camera poses over a random scene, the LOD state carried
/// from frame to frame.
fn random_scenes_match_the_reference(tier: Tier) {
    let mut ctx = gpu_context(Some(tier));
    let mut scene = random_scene(0x5eed + tier as u64, 100_000, 40_000, |n| n);
    let mut harness = Harness::new(&mut ctx, &scene);
    let look = |from: [f32; 3], to: [f32; 3]| Camera::look_at(Vec3::from(from), Vec3::from(to));
    // (camera, LOD bias, max distance)
    let poses = [
        (look([0.0, 30.0, 0.0], [200.0, 0.0, 100.0]), 1.0, 300.0),
        (look([0.0, 30.0, 0.0], [200.0, 0.0, 100.0]), 1.0, 300.0),
        (look([12.0, 28.0, 6.0], [210.0, 0.0, 104.0]), 1.0, 300.0),
        (look([12.0, 28.0, 6.0], [210.0, 0.0, 104.0]), 2.0, 300.0),
        (look([0.0, 3.0, 0.0], [0.0, 3.0, -100.0]), 1.0, 120.0),
        (look([0.0, 700.0, 1.0], [0.0, 0.0, 0.0]), 0.5, 2000.0),
        (look([0.0, 10.0, 500.0], [0.0, 10.0, 1000.0]), 1.0, 300.0),
    ];
    for (frame, (camera, bias, max_distance)) in poses.iter().enumerate() {
        let globals = cull_globals(camera, 16.0 / 9.0, 720.0, 1.5, *bias, 0.25, *max_distance);
        let (units, props) = (scene.units.len(), scene.props.len());
        let gpu = harness.frame(&ctx, &globals, units as u32, props as u32);
        let expected = reference_frame(&mut scene, &globals, units, props);
        let visible: u32 = expected.instance_counts.iter().sum();
        assert!(
            frame + 1 == poses.len() || visible > 1000,
            "frame {frame}: {visible} visible"
        );
        assert_matches(&scene, &expected, &gpu, &format!("{tier:?} frame {frame}"));
    }
    drop(harness);
    finish(ctx);
}

#[test]
fn random_scenes_match_the_reference_on_desktop() {
    random_scenes_match_the_reference(Tier::Desktop);
}

#[test]
fn random_scenes_match_the_reference_on_mobile() {
    random_scenes_match_the_reference(Tier::Mobile);
}

/// Planes of a box x, y in ±64, z in [-256, -1], camera at the origin with 64
/// pixels per unit, threshold 1 px, hysteresis 1/2: every value exact in f32.
fn exact_globals() -> CullGlobals {
    CullGlobals {
        planes: [
            [1.0, 0.0, 0.0, 64.0],
            [-1.0, 0.0, 0.0, 64.0],
            [0.0, 1.0, 0.0, 64.0],
            [0.0, -1.0, 0.0, 64.0],
            [0.0, 0.0, -1.0, -1.0],
            [0.0, 0.0, 1.0, 256.0],
        ],
        camera: [0.0, 0.0, 0.0, 64.0],
        lod: [1.0, 0.5, 256.0, 0.0],
        counts: [0; 4],
    }
}

const FRUSTUM_TYPE: u32 = 0;
const LOD_TYPE: u32 = 1;
const ROTATED_TYPE: u32 = 2;
const BAD_COMMAND_TYPE: u32 = 3;
const BAD_REGION_TYPE: u32 = 4;

/// A hand-checked case: type, position, scale, heading, previous LOD state,
/// and the expected LOD (`None` when culled).
type EdgeCase = (u32, [f32; 3], f32, f32, u32, Option<u32>);

fn edge_cases() -> Vec<EdgeCase> {
    let mut cases = vec![
        // Tangent from outside (distance exactly -r) is visible; beyond is not.
        (FRUSTUM_TYPE, [-65.0, 0.0, -10.0], 1.0, 0.0, 0, Some(0)),
        (FRUSTUM_TYPE, [-65.5, 0.0, -10.0], 1.0, 0.0, 0, None),
        (FRUSTUM_TYPE, [-64.0, 0.0, -10.0], 1.0, 0.0, 0, Some(0)),
        (FRUSTUM_TYPE, [65.0, 0.0, -10.0], 1.0, 0.0, 0, Some(0)),
        (FRUSTUM_TYPE, [65.5, 0.0, -10.0], 1.0, 0.0, 0, None),
        (FRUSTUM_TYPE, [0.0, 65.0, -10.0], 1.0, 0.0, 0, Some(0)),
        (FRUSTUM_TYPE, [0.0, -65.5, -10.0], 1.0, 0.0, 0, None),
        (FRUSTUM_TYPE, [-66.0, 0.0, -10.0], 2.0, 0.0, 0, Some(0)),
        (FRUSTUM_TYPE, [-66.5, 0.0, -10.0], 2.0, 0.0, 0, None),
        (FRUSTUM_TYPE, [-64.5, 0.0, -10.0], 0.5, 0.0, 0, Some(0)),
        // Near plane at z = -1: tangent at the camera, behind it culled.
        (FRUSTUM_TYPE, [0.0, 0.0, 0.0], 1.0, 0.0, 0, Some(0)),
        (FRUSTUM_TYPE, [0.0, 0.0, 0.5], 1.0, 0.0, 0, None),
        (FRUSTUM_TYPE, [0.0, 0.0, 10.0], 1.0, 0.0, 0, None),
        // Far plane at z = -256.
        (FRUSTUM_TYPE, [0.0, 0.0, -257.0], 1.0, 0.0, 0, Some(0)),
        (FRUSTUM_TYPE, [0.0, 0.0, -257.5], 1.0, 0.0, 0, None),
        // Sphere (8, 0, 0) turned by the heading as rotate_y does:
        // 0 -> x + 8, pi -> x - 8, pi/2 -> z - 8, -pi/2 -> z + 8.
        (ROTATED_TYPE, [-60.0, 0.0, -10.0], 1.0, 0.0, 0, Some(0)),
        (ROTATED_TYPE, [-60.0, 0.0, -10.0], 1.0, PI, 0, None),
        (ROTATED_TYPE, [0.0, 0.0, -1.5], 1.0, FRAC_PI_2, 0, Some(0)),
        (ROTATED_TYPE, [0.0, 0.0, -1.5], 1.0, -FRAC_PI_2, 0, None),
        // Visible but the type's command or region lies outside its buffer.
        (BAD_COMMAND_TYPE, [0.0, 0.0, -10.0], 1.0, 0.0, 2, Some(0)),
        (BAD_REGION_TYPE, [0.0, 0.0, -10.0], 1.0, 0.0, 0, Some(0)),
        // Inactive and unknown types are skipped.
        (INACTIVE_TYPE, [0.0, 0.0, -10.0], 1.0, 0.0, 1, None),
        (MAX_TYPES as u32, [0.0, 0.0, -10.0], 1.0, 0.0, 1, None),
    ];
    // LOD errors 1/d (LOD 1) and 4/d (LOD 2) pixels at distance d. Expected
    // LOD for each previous state 0, 1, 2 (3 reads as 2).
    let table: [(f32, [u32; 3]); 7] = [
        (1.0, [0, 1, 1]),
        (2.0, [1, 1, 1]),
        (3.0, [1, 1, 1]),
        (4.0, [1, 1, 2]),
        (6.0, [1, 1, 2]),
        (8.0, [2, 2, 2]),
        (16.0, [2, 2, 2]),
    ];
    for (distance, lods) in table {
        for previous in 0..4u32 {
            let lod = lods[previous.min(2) as usize];
            cases.push((
                LOD_TYPE,
                [0.0, 0.0, -distance],
                1.0,
                0.0,
                previous,
                Some(lod),
            ));
        }
    }
    cases
}

fn edge_scene() -> Scene {
    let one_lod = |sphere| TypeInfo {
        sphere,
        skeleton: [0, 0, 0, 1],
        ..TypeInfo::default()
    };
    let types = vec![
        one_lod([0.0, 0.0, 0.0, 1.0]),
        TypeInfo {
            sphere: [0.0, 0.0, 0.0, 1.0],
            lod_error: [0.0, 1.0 / 128.0, 1.0 / 32.0, 0.0],
            skeleton: [0, 0, 0, 3],
            ..TypeInfo::default()
        },
        one_lod([8.0, 0.0, 0.0, 1.0]),
        one_lod([0.0, 0.0, 0.0, 1.0]),
        one_lod([0.0, 0.0, 0.0, 1.0]),
    ];
    let mut scene = Scene::new(types, &[64; 5], &mut Rng(7));
    scene.types[BAD_COMMAND_TYPE as usize].command[0] = 1000;
    // A region past the buffer's end holds nothing.
    scene.types[BAD_REGION_TYPE as usize].instance_base[0] = scene.list_len + 5;
    let bad_region = scene.types[BAD_REGION_TYPE as usize].command[0] as usize;
    scene.regions[bad_region] = (scene.list_len, 0);
    let mut rng = Rng(11);
    for (type_index, position, scale, heading, previous, _) in edge_cases() {
        let instance = Instance {
            position,
            heading,
            scale,
            type_index,
            tint: rng.next() as u32,
            params: (rng.next() as u32 & !3) | previous,
        };
        scene.units.push(instance);
        scene.anim_states.push(AnimState {
            clips: rng.next() as u32,
            time_current: 0.5,
            time_previous: 0.25,
            blend: (rng.next() as u32 & !(3 << UNIT_LOD_SHIFT)) | (previous << UNIT_LOD_SHIFT),
        });
        scene.props.push(instance);
    }
    scene
}

fn edge_cases_are_exact(tier: Tier) {
    let mut ctx = gpu_context(Some(tier));
    let mut scene = edge_scene();
    let mut harness = Harness::new(&mut ctx, &scene);
    let globals = exact_globals();
    let count = scene.units.len();
    let gpu = harness.frame(&ctx, &globals, count as u32, count as u32);
    let expected = reference_frame(&mut scene, &globals, count, count);
    assert_matches(&scene, &expected, &gpu, &format!("{tier:?} edge cases"));

    // The hand-written expectations, for units (index i) and props alike.
    let cases = edge_cases();
    for (index, &(type_index, position, scale, heading, previous, lod)) in cases.iter().enumerate()
    {
        let what = format!("case {index}: type {type_index} at {position:?} scale {scale} heading {heading} previous {previous}");
        let unit_state = (gpu.anim_states[index].blend >> UNIT_LOD_SHIFT) & 3;
        let prop_state = gpu.props[index].params & 3;
        assert_eq!(unit_state, lod.unwrap_or(previous), "{what}: unit state");
        assert_eq!(prop_state, lod.unwrap_or(previous), "{what}: prop state");
        let listed = |appended: &[Vec<u32>]| {
            appended
                .iter()
                .flatten()
                .filter(|&&e| e & ((1 << INSTANCE_INDEX_BITS) - 1) == index as u32)
                .count()
        };
        let drawn = lod.is_some() && type_index != BAD_COMMAND_TYPE;
        // Units and props each append it once (to a region of capacity 0
        // for the bad region type).
        assert_eq!(listed(&expected.appended), 2 * usize::from(drawn), "{what}");
    }
    let bad_region = scene.types[BAD_REGION_TYPE as usize].command[0] as usize;
    assert_eq!(expected.instance_counts[bad_region], 0);
    drop(harness);
    finish(ctx);
}

#[test]
fn edge_cases_are_exact_on_desktop() {
    edge_cases_are_exact(Tier::Desktop);
}

#[test]
fn edge_cases_are_exact_on_mobile() {
    edge_cases_are_exact(Tier::Mobile);
}

/// Regions smaller than what is visible: counts clamp to the capacity and no
/// entry lands outside its region.
#[test]
fn overflowing_regions_are_clamped() {
    let mut ctx = gpu_context(None);
    let mut scene = random_scene(99, 20_000, 5_000, |n| n / 50);
    let mut harness = Harness::new(&mut ctx, &scene);
    let camera = Camera::look_at(Vec3::new(0.0, 700.0, 1.0), Vec3::ZERO);
    let globals = cull_globals(&camera, 1.0, 720.0, 1.0, 1.0, 0.25, 2000.0);
    let (units, props) = (scene.units.len(), scene.props.len());
    let gpu = harness.frame(&ctx, &globals, units as u32, props as u32);
    let expected = reference_frame(&mut scene, &globals, units, props);
    let overflowing = expected
        .appended
        .iter()
        .zip(&scene.regions)
        .filter(|(appended, region)| appended.len() > region.1 as usize)
        .count();
    assert!(overflowing > 5, "only {overflowing} regions overflow");
    assert_matches(&scene, &expected, &gpu, "overflow");
    drop(harness);
    finish(ctx);
}

/// No instances, then only inactive ones: the reset leaves every count 0.
#[test]
fn empty_scenes_leave_every_count_zero() {
    let mut ctx = gpu_context(None);
    let mut scene = random_scene(5, 1_000, 1_000, |n| n);
    for instance in scene.units.iter_mut().chain(&mut scene.props) {
        instance.type_index = INACTIVE_TYPE;
    }
    let mut harness = Harness::new(&mut ctx, &scene);
    let globals = exact_globals();
    for count in [0, 1_000] {
        let gpu = harness.frame(&ctx, &globals, count, count);
        let counts: Vec<u32> = gpu.commands.chunks(COMMAND_WORDS).map(|c| c[1]).collect();
        assert!(
            !counts.is_empty() && counts.iter().all(|&c| c == 0),
            "{counts:?}"
        );
        let expected = reference_frame(&mut scene, &globals, count as usize, count as usize);
        assert_matches(&scene, &expected, &gpu, &format!("{count} inactive"));
    }
    drop(harness);
    finish(ctx);
}

/// Planes from the camera: a point straight ahead inside the max distance is
/// inside all six; past it, behind the camera or far to the side it is not.
#[test]
fn camera_planes_bound_the_view() {
    let camera = Camera::look_at(Vec3::new(1.0, 2.0, 3.0), Vec3::new(1.0, 2.0, -7.0));
    let globals = cull_globals(&camera, 1.5, 600.0, 1.0, 2.0, 0.25, 100.0);
    let inside = |p: Vec3| {
        globals
            .planes
            .iter()
            .all(|n| Vec3::new(n[0], n[1], n[2]).dot(p) + n[3] >= 0.0)
    };
    for plane in globals.planes {
        let length = Vec3::new(plane[0], plane[1], plane[2]).length();
        assert!((length - 1.0).abs() < 1e-5, "{plane:?}");
    }
    assert!(inside(Vec3::new(1.0, 2.0, -50.0)));
    assert!(
        !inside(Vec3::new(1.0, 2.0, -104.0)),
        "past the max distance"
    );
    assert!(!inside(Vec3::new(1.0, 2.0, 4.0)), "behind the camera");
    assert!(!inside(Vec3::new(1.0, 2.0, 2.95)), "before the near plane");
    assert!(!inside(Vec3::new(60.0, 2.0, -50.0)), "right of the view");
    assert!(!inside(Vec3::new(1.0, 40.0, -50.0)), "above the view");
    assert!(
        inside(Vec3::new(1.0, 20.0, -50.0)),
        "within the 50 degree field"
    );
    let pixels_per_unit = 600.0 / (2.0 * (25f32.to_radians()).tan());
    assert!((globals.camera[3] - pixels_per_unit).abs() < 1e-3);
    assert_eq!(globals.lod[0], 0.5);
    assert_eq!(size_of::<CullGlobals>(), 144);
}
