//! The cull + LOD pass against its CPU reference, exactly: every draw
//! command at the head of the draw-list buffer (`instance_count`, and the
//! rest of the command untouched), every (type, route) region of the
//! instance lists as a set, and the routes stored for hysteresis, for units
//! and props, on both tiers, with zero validation messages
//! (synchronization validation included). The info and placement records
//! are only read.
//!
//! Random scenes use bounding spheres centred on the +Y axis, so the GPU's
//! `sin`/`cos` (whose precision Vulkan leaves loose) cannot move a sphere and
//! every comparison is exact. Types have 1 to 6 LODs (some claim more than
//! `MAX_LODS`). Edge cases (tangent spheres, exact LOD thresholds with each
//! hysteresis state, off-axis spheres rotated by the heading) use hand-built
//! planes and distances with power-of-two coefficients, so their expected
//! outcome is exact in f32 and written out by hand as well. The far field is
//! tested over frames of a moving camera, its hysteresis carried in the
//! routes from frame to frame. A scene whose every workgroup appends to
//! more commands than the pass counts in shared memory covers the appends
//! that reserve from the global counters directly.

use std::collections::{BTreeMap, BTreeSet};
use std::f32::consts::{FRAC_PI_2, PI};
use std::mem::size_of;

use ash::vk;
use glam::Vec3;
use horde::camera::Camera;
use horde::config::{
    CULL_GROUP_COMMANDS, ENTRY_INDEX_MASK, MAX_DRAW_COMMANDS, MAX_LODS, MAX_ROUTES, ROUTE_FAR_FIELD,
};
use horde::context::{Context, Tier};
use horde::gpu_types::{
    CullGlobals, DrawCommand, RouteInfo, TypeInfo, UnitInfo, UnitPlacement, ENTRY_INDEX_BITS,
    INACTIVE_TYPE, MAX_CLIPS, MAX_TYPES,
};
use horde::memory::{upload_buffer, Buffer};
use horde::passes::cull::{cull_globals, CullBatch, CullPass, CullPhase, CullTargets};
use horde::reference::cull::{
    choose_route, cull, in_frustum, world_sphere, ReferenceBatch, ReferenceOutput,
};
use horde::world::buffers::DRAW_COMMANDS_BYTES;
use horde_tests::{finish, gpu_context, PassHarness};

/// Instance-list entries no region covers; they must never change.
const SENTINEL: u32 = 0xdead_beef;
/// Draw commands at the head of the draw-list buffer.
const COMMANDS: usize = MAX_DRAW_COMMANDS as usize;
/// Mesh LODs random types have at most (before some claim more).
const RANDOM_MAX_LODS: u32 = 6;

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

/// One set of instances as one dispatch reads them.
#[derive(Clone, Default)]
struct Instances {
    infos: Vec<UnitInfo>,
    placements: Vec<UnitPlacement>,
    /// Last frame's route of each, updated by the reference.
    routes: Vec<u32>,
}

impl Instances {
    fn push(&mut self, info: UnitInfo, placement: UnitPlacement, route: u32) {
        self.infos.push(info);
        self.placements.push(placement);
        self.routes.push(route);
    }

    fn len(&self) -> usize {
        self.infos.len()
    }
}

/// What the GPU gets and the reference reads.
#[derive(Clone)]
struct Scene {
    /// The full uniform table (`MAX_TYPES` entries).
    types: Vec<TypeInfo>,
    /// Every command of the draw-list head, `instance_count` 0.
    template: Vec<DrawCommand>,
    /// Region of each command: first entry and capacity ((0, 0) if unused).
    regions: Vec<(u32, u32)>,
    /// Entries after the draw-list head.
    list_len: u32,
    units: Instances,
    props: Instances,
}

/// The routes a type uses: its mesh LODs (`lod_count` clamped as the shader
/// does), then the far field where it has one.
fn used_routes(type_info: &TypeInfo) -> Vec<u32> {
    let mut routes: Vec<u32> = (0..type_info.lod_count.clamp(1, MAX_LODS)).collect();
    if type_info.routes[ROUTE_FAR_FIELD as usize].capacity > 0 {
        routes.push(ROUTE_FAR_FIELD);
    }
    routes
}

impl Scene {
    /// Gives every route of every type (its LODs, and the far field where
    /// `routes[ROUTE_FAR_FIELD].capacity` is non-zero on entry) its own draw
    /// command, picked at random among all `MAX_DRAW_COMMANDS`, and a region
    /// of `capacities[t]` entries, with gaps of 3 between regions. A far
    /// field of capacity 0 stays closed.
    fn new(mut types: Vec<TypeInfo>, capacities: &[u32], rng: &mut Rng) -> Scene {
        let mut order: Vec<u32> = (0..MAX_DRAW_COMMANDS).collect();
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i as u32 + 1) as usize);
        }
        let mut regions = vec![(0, 0); COMMANDS];
        let mut next_command = 0;
        let mut next_base = 2;
        for (type_info, &capacity) in types.iter_mut().zip(capacities) {
            for route in used_routes(type_info) {
                let command = order[next_command];
                next_command += 1;
                type_info.routes[route as usize] = RouteInfo {
                    command,
                    list_base: next_base,
                    capacity,
                    ..type_info.routes[route as usize]
                };
                regions[command as usize] = (next_base, capacity);
                next_base += capacity + 3;
            }
            type_info.capacity = capacity;
        }
        types.resize(MAX_TYPES, TypeInfo::default());
        let template = (0..MAX_DRAW_COMMANDS)
            .map(|c| DrawCommand {
                index_count: 3 * (c + 1),
                instance_count: 0,
                first_index: 7 * c,
                vertex_offset: -11 * c as i32,
                first_instance: regions[c as usize].0,
            })
            .collect();
        Scene {
            types,
            template,
            regions,
            list_len: next_base + 2,
            units: Instances::default(),
            props: Instances::default(),
        }
    }

    /// The command of `route` of `type_index`.
    fn command(&self, type_index: u32, route: u32) -> usize {
        self.types[type_index as usize].routes[route as usize].command as usize
    }
}

/// A unit or prop type whose sphere is centred on the +Y axis, with 1 to 6
/// LODs of growing error (errors for every route up to `MAX_LODS`, so a
/// type may claim more). `far_field` opens its far-field route.
fn random_type(rng: &mut Rng, far_field: bool) -> TypeInfo {
    let lod_count = 1 + rng.below(RANDOM_MAX_LODS);
    let mut routes = [RouteInfo::default(); MAX_ROUTES as usize];
    let mut error = rng.range(0.004, 0.03);
    for route in &mut routes[1..MAX_LODS as usize] {
        route.error = error;
        error *= rng.range(1.5, 4.0);
    }
    routes[ROUTE_FAR_FIELD as usize].capacity = u32::from(far_field);
    TypeInfo {
        sphere_center: [0.0, rng.range(0.2, 2.0), 0.0],
        sphere_radius: rng.range(0.4, 3.0),
        lod_count,
        routes,
        ..TypeInfo::default()
    }
}

/// A route as the cull pass may find it: any route, or garbage.
fn random_route(rng: &mut Rng) -> u32 {
    match rng.below(20) {
        0 => u32::MAX,
        1 => MAX_ROUTES + rng.below(100),
        _ => rng.below(MAX_ROUTES),
    }
}

fn random_instance(
    rng: &mut Rng,
    types: std::ops::Range<u32>,
    route: impl FnOnce(&mut Rng) -> u32,
    instances: &mut Instances,
) {
    let type_index = match rng.below(100) {
        0..4 => INACTIVE_TYPE,
        4 => MAX_TYPES as u32 + rng.below(1000),
        _ => types.start + rng.below(types.end - types.start),
    };
    let info = UnitInfo {
        type_index,
        team: rng.below(2),
        tint: rng.next() as u32,
        scale: rng.range(0.5, 2.0),
    };
    let placement = UnitPlacement {
        position: [
            rng.range(-400.0, 400.0),
            rng.range(-3.0, 3.0),
            rng.range(-400.0, 400.0),
        ],
        heading: rng.range(-PI, PI),
    };
    let route = route(rng);
    instances.push(info, placement, route);
}

/// Unit types 0..6 and prop types 6..10; `far_units` of the unit types
/// have a far-field route, props never.
const UNIT_TYPES: std::ops::Range<u32> = 0..6;
const PROP_TYPES: std::ops::Range<u32> = 6..10;

/// `units` units and `props` props, each region as large as
/// `capacity(instances of its type)`; unit types below `far_units` have a
/// far field. Routes start from `route`.
fn random_scene(
    seed: u64,
    units: usize,
    props: usize,
    far_units: u32,
    route: impl Fn(&mut Rng) -> u32,
    capacity: impl Fn(u32) -> u32,
) -> Scene {
    let mut rng = Rng(seed);
    let mut types: Vec<TypeInfo> = (0..PROP_TYPES.end)
        .map(|t| random_type(&mut rng, t < far_units))
        .collect();
    // A unit type and a prop type claim more LODs than MAX_LODS: the pass
    // clamps them. Their errors grow slowly, so that every LOD is taken.
    for (type_index, lod_count) in [(1, MAX_LODS + 1), (PROP_TYPES.start + 1, MAX_LODS + 7)] {
        let type_info = &mut types[type_index as usize];
        type_info.lod_count = lod_count;
        for lod in 1..MAX_LODS as usize {
            type_info.routes[lod].error = 0.004 * 1.6f32.powi(lod as i32 - 1);
        }
    }
    let mut unit_list = Instances::default();
    for _ in 0..units {
        random_instance(&mut rng, UNIT_TYPES, &route, &mut unit_list);
    }
    let mut prop_list = Instances::default();
    for _ in 0..props {
        random_instance(&mut rng, PROP_TYPES, &route, &mut prop_list);
    }
    let per_type: Vec<u32> = (0..PROP_TYPES.end)
        .map(|t| {
            let all = unit_list.infos.iter().chain(&prop_list.infos);
            capacity(all.filter(|i| i.type_index == t).count() as u32)
        })
        .collect();
    let mut scene = Scene::new(types, &per_type, &mut rng);
    scene.units = unit_list;
    scene.props = prop_list;
    scene
}

/// One set of instances on the GPU.
struct GpuInstances {
    infos: Buffer,
    placements: Buffer,
    routes: Buffer,
    /// Zeroed: the scenes' types have no clips, so the posed cull keeps
    /// their spheres.
    anim_states: Buffer,
}

impl GpuInstances {
    fn new(ctx: &mut Context, name: &str, instances: &Instances) -> GpuInstances {
        let usage = vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::TRANSFER_SRC;
        let upload = |what: &str, data: &[u8]| {
            upload_buffer(ctx, &format!("{name} {what}"), usage, data).expect("upload")
        };
        GpuInstances {
            infos: upload("infos", bytemuck::cast_slice(&instances.infos)),
            placements: upload("placements", bytemuck::cast_slice(&instances.placements)),
            routes: upload("routes", bytemuck::cast_slice(&instances.routes)),
            anim_states: upload("anim states", &vec![0; 16 * instances.routes.len().max(1)]),
        }
    }

    fn batch(&self, count: u32) -> CullBatch<'_> {
        CullBatch {
            infos: &self.infos,
            placements: &self.placements,
            routes: &self.routes,
            anim_states: &self.anim_states,
            count,
            // The whole-frame phase counts nothing hidden.
            occluded_command: u32::MAX,
        }
    }
}

/// The scene's buffers on the GPU, the pass and the frames.
struct Harness {
    types: Buffer,
    template: Buffer,
    draw_lists: Buffer,
    /// Zeroed `vec4[MAX_CLIPS]`.
    clip_spheres: Buffer,
    units: GpuInstances,
    props: GpuInstances,
    pass: CullPass,
    frames: PassHarness,
}

/// What one frame left on the GPU.
struct Readback {
    commands: Vec<DrawCommand>,
    lists: Vec<u32>,
    unit_routes: Vec<u32>,
    prop_routes: Vec<u32>,
    /// Infos and placements of units, then of props, as bytes.
    records: Vec<Vec<u8>>,
}

impl Harness {
    /// Uploads `scene`; the live commands start with garbage instance counts
    /// so that the reset is tested too.
    fn new(ctx: &mut Context, scene: &Scene) -> Harness {
        let storage = vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::TRANSFER_SRC;
        let garbage: Vec<DrawCommand> = scene
            .template
            .iter()
            .map(|command| DrawCommand {
                instance_count: SENTINEL,
                ..*command
            })
            .collect();
        let mut draw_lists = bytemuck::cast_slice::<_, u8>(&garbage).to_vec();
        assert_eq!(draw_lists.len() as u64, DRAW_COMMANDS_BYTES);
        draw_lists.extend_from_slice(bytemuck::cast_slice(&vec![
            SENTINEL;
            scene.list_len as usize
        ]));
        let types = upload_buffer(
            ctx,
            "types",
            vk::BufferUsageFlags::UNIFORM_BUFFER,
            bytemuck::cast_slice(&scene.types),
        )
        .expect("upload");
        let template = upload_buffer(
            ctx,
            "template commands",
            vk::BufferUsageFlags::TRANSFER_SRC,
            bytemuck::cast_slice(&scene.template),
        )
        .expect("upload");
        let draw_lists = upload_buffer(
            ctx,
            "draw lists",
            storage | vk::BufferUsageFlags::INDIRECT_BUFFER | vk::BufferUsageFlags::VERTEX_BUFFER,
            &draw_lists,
        )
        .expect("upload");
        let units = GpuInstances::new(ctx, "units", &scene.units);
        let props = GpuInstances::new(ctx, "props", &scene.props);
        let clip_spheres = upload_buffer(
            ctx,
            "clip spheres",
            vk::BufferUsageFlags::UNIFORM_BUFFER,
            &vec![0; 16 * MAX_CLIPS],
        )
        .expect("upload");
        Harness {
            types,
            template,
            draw_lists,
            clip_spheres,
            units,
            props,
            pass: CullPass::new(ctx).expect("create the cull pass"),
            frames: PassHarness::new(ctx),
        }
    }

    /// Culls `unit_count` units, then `prop_count` props, in one frame, and
    /// reads back everything the pass may have written, and what it reads.
    fn frame(
        &mut self,
        ctx: &mut Context,
        globals: &CullGlobals,
        unit_count: u32,
        prop_count: u32,
    ) -> Readback {
        let targets = CullTargets {
            types: &self.types,
            template_commands: &self.template,
            draw_lists: &self.draw_lists,
            clip_spheres: &self.clip_spheres,
        };
        let batches = [self.units.batch(unit_count), self.props.batch(prop_count)];
        let pass = &mut self.pass;
        let mut read = self.frames.run(
            ctx,
            |frame| {
                pass.record(frame, globals, &targets, &batches, CullPhase::All)
                    .expect("record the cull pass")
            },
            &[
                &self.draw_lists,
                &self.units.routes,
                &self.props.routes,
                &self.units.infos,
                &self.units.placements,
                &self.props.infos,
                &self.props.placements,
            ],
        );
        let records = read.split_off(3);
        let (head, lists) = read[0].split_at(DRAW_COMMANDS_BYTES as usize);
        Readback {
            commands: words(head),
            lists: words(lists),
            unit_routes: words(&read[1]),
            prop_routes: words(&read[2]),
            records,
        }
    }
}

/// The whole elements in read-back bytes.
fn words<T: bytemuck::Pod>(bytes: &[u8]) -> Vec<T> {
    bytes
        .chunks_exact(size_of::<T>())
        .map(bytemuck::pod_read_unaligned)
        .collect()
}

/// Runs the reference over the first `unit_count` units and `prop_count`
/// props of `scene`, updating their routes.
fn reference_frame(
    scene: &mut Scene,
    globals: &CullGlobals,
    unit_count: usize,
    prop_count: usize,
) -> ReferenceOutput {
    let mut output = ReferenceOutput::new(COMMANDS, scene.list_len);
    for (instances, count) in [
        (&mut scene.units, unit_count),
        (&mut scene.props, prop_count),
    ] {
        let batch = ReferenceBatch {
            infos: &instances.infos[..count],
            placements: &instances.placements[..count],
            routes: &mut instances.routes[..count],
        };
        cull(globals, &scene.types, batch, &mut output);
    }
    output
}

/// Asserts the GPU frame equals the reference. Overflowing regions hold
/// `capacity` distinct entries of the reference's set.
fn assert_matches(scene: &Scene, expected: &ReferenceOutput, gpu: &Readback, what: &str) {
    assert_eq!(gpu.commands.len(), COMMANDS, "{what}");
    for (c, (gpu_command, template)) in gpu.commands.iter().zip(&scene.template).enumerate() {
        let want = DrawCommand {
            instance_count: expected.instance_counts[c],
            ..*template
        };
        assert_eq!(*gpu_command, want, "{what}: command {c}");
        let (base, capacity) = scene.regions[c];
        let mut entries = gpu.lists[base as usize..][..want.instance_count as usize].to_vec();
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
    assert_eq!(gpu.lists.len(), scene.list_len as usize, "{what}");
    let mut covered = vec![false; scene.list_len as usize];
    for &(base, capacity) in &scene.regions {
        covered[base as usize..][..capacity as usize].fill(true);
    }
    let outside = (0..gpu.lists.len())
        .filter(|&i| !covered[i] && gpu.lists[i] != SENTINEL)
        .count();
    assert_eq!(outside, 0, "{what}: entries written outside every region");
    let records: [&[u8]; 4] = [
        bytemuck::cast_slice(&scene.units.infos),
        bytemuck::cast_slice(&scene.units.placements),
        bytemuck::cast_slice(&scene.props.infos),
        bytemuck::cast_slice(&scene.props.placements),
    ];
    for (index, (gpu_records, cpu_records)) in gpu.records.iter().zip(records).enumerate() {
        assert!(
            gpu_records[..cpu_records.len()] == *cpu_records,
            "{what}: record buffer {index} changed"
        );
    }
    // The first differing route; every index past the shorter one differs.
    let mismatch = |gpu: &[u32], cpu: &[u32]| {
        let first = gpu.iter().zip(cpu).position(|(g, c)| g != c);
        first.or((gpu.len() != cpu.len()).then_some(gpu.len().min(cpu.len())))
    };
    assert_eq!(
        mismatch(&gpu.unit_routes, &scene.units.routes),
        None,
        "{what}: unit routes"
    );
    assert_eq!(
        mismatch(&gpu.prop_routes, &scene.props.routes),
        None,
        "{what}: prop routes"
    );
}

/// The entries of every far-field command.
fn far_field_entries(scene: &Scene, expected: &ReferenceOutput) -> usize {
    (0..PROP_TYPES.end)
        .filter(|&t| scene.types[t as usize].routes[ROUTE_FAR_FIELD as usize].capacity > 0)
        .map(|t| expected.appended[scene.command(t, ROUTE_FAR_FIELD)].len())
        .sum()
}

/// The most commands of `types` that one workgroup of `workgroup_size`
/// appended to: past `CULL_GROUP_COMMANDS`, the pass's shared table is full
/// and the rest reserve from the global counters directly.
fn most_commands_per_workgroup(
    scene: &Scene,
    expected: &ReferenceOutput,
    types: std::ops::Range<u32>,
    workgroup_size: u32,
) -> usize {
    let mut commands_of_group: BTreeMap<u32, BTreeSet<usize>> = BTreeMap::new();
    for type_index in types {
        for route in 0..MAX_ROUTES {
            let command = scene.command(type_index, route);
            for entry in &expected.appended[command] {
                let group = (entry & ENTRY_INDEX_MASK) / workgroup_size;
                commands_of_group.entry(group).or_default().insert(command);
            }
        }
    }
    commands_of_group
        .values()
        .map(BTreeSet::len)
        .max()
        .unwrap_or(0)
}

fn look(from: [f32; 3], to: [f32; 3]) -> Camera {
    Camera::look_at(Vec3::from(from), Vec3::from(to))
}

/// Several frames of camera poses over a random scene, the routes carried
/// from frame to frame. Some unit types have a far-field route, but the far
/// field is off (`far_field_px` 0): nothing goes there.
fn random_scenes_match_the_reference(tier: Tier) {
    let mut ctx = gpu_context(Some(tier));
    let seed = 0x5eed + tier as u64;
    let mut scene = random_scene(seed, 100_000, 40_000, 3, random_route, |n| n);
    let mut harness = Harness::new(&mut ctx, &scene);
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
    let mut taken = [0usize; MAX_ROUTES as usize];
    for (frame, (camera, bias, max_distance)) in poses.iter().enumerate() {
        let globals = cull_globals(camera, 16.0 / 9.0, 720.0, 1.5, *bias, 0.25, *max_distance);
        assert_eq!(globals.far_field_px, 0.0);
        let (units, props) = (scene.units.len(), scene.props.len());
        let gpu = harness.frame(&mut ctx, &globals, units as u32, props as u32);
        let expected = reference_frame(&mut scene, &globals, units, props);
        let visible: u32 = expected.instance_counts.iter().sum();
        assert!(
            frame + 1 == poses.len() || visible > 1000,
            "frame {frame}: {visible} visible"
        );
        assert_eq!(far_field_entries(&scene, &expected), 0, "frame {frame}");
        for entry in expected.appended.iter().flatten() {
            taken[(entry >> ENTRY_INDEX_BITS) as usize] += 1;
        }
        assert_matches(&scene, &expected, &gpu, &format!("{tier:?} frame {frame}"));
    }
    // Every mesh LOD is taken, the coarsest of types claiming more than
    // MAX_LODS included; the far field never is.
    assert!(
        taken[..MAX_LODS as usize].iter().all(|&n| n > 0) && taken[ROUTE_FAR_FIELD as usize] == 0,
        "instances per route: {taken:?}"
    );
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
/// pixels per unit, threshold 1 px, hysteresis 1/2, no far field: every
/// value exact in f32.
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
        camera_position: [0.0, 0.0, 0.0],
        pixels_per_unit: 64.0,
        lod_threshold_px: 1.0,
        lod_hysteresis: 0.5,
        max_draw_distance: 256.0,
        far_field_px: 0.0,
        impostor_threshold_px: 0.0,
        impostor_band: 0.0,
        orthographic: 0,
        min_size_px: 0.0,
        ..CullGlobals::default()
    }
}

const FRUSTUM_TYPE: u32 = 0;
const LOD_TYPE: u32 = 1;
const ROTATED_TYPE: u32 = 2;
const BAD_COMMAND_TYPE: u32 = 3;
const BAD_REGION_TYPE: u32 = 4;

/// A hand-checked case: type, position, scale, heading, previous route,
/// and the expected route (`None` when culled).
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
    // LOD for each previous LOD 0, 1, 2 (3 and garbage read as 2, the
    // coarsest LOD; a far-field code as the LOD it carries).
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
        for previous in [0, 1, 2, 3, ROUTE_FAR_FIELD, ROUTE_FAR_FIELD + 1, u32::MAX] {
            let previous_lod = if previous >= ROUTE_FAR_FIELD {
                previous - ROUTE_FAR_FIELD
            } else {
                previous
            };
            let lod = lods[previous_lod.min(2) as usize];
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
    let one_lod = |sphere_center, sphere_radius| TypeInfo {
        sphere_center,
        sphere_radius,
        lod_count: 1,
        ..TypeInfo::default()
    };
    let mut lod_type = one_lod([0.0; 3], 1.0);
    lod_type.lod_count = 3;
    lod_type.routes[1].error = 1.0 / 128.0;
    lod_type.routes[2].error = 1.0 / 32.0;
    let types = vec![
        one_lod([0.0; 3], 1.0),
        lod_type,
        one_lod([8.0, 0.0, 0.0], 1.0),
        one_lod([0.0; 3], 1.0),
        one_lod([0.0; 3], 1.0),
    ];
    let mut scene = Scene::new(types, &[64; 5], &mut Rng(7));
    // The first command past the draw-list head.
    scene.types[BAD_COMMAND_TYPE as usize].routes[0].command = MAX_DRAW_COMMANDS;
    // A region past the buffer's end holds nothing.
    scene.types[BAD_REGION_TYPE as usize].routes[0].list_base = scene.list_len + 5;
    let bad_region = scene.command(BAD_REGION_TYPE, 0);
    scene.regions[bad_region] = (scene.list_len, 0);
    let mut rng = Rng(11);
    for (type_index, position, scale, heading, previous, _) in edge_cases() {
        let info = UnitInfo {
            type_index,
            team: 1,
            tint: rng.next() as u32,
            scale,
        };
        let placement = UnitPlacement { position, heading };
        scene.units.push(info, placement, previous);
        scene.props.push(info, placement, previous);
    }
    scene
}

fn edge_cases_are_exact(tier: Tier) {
    let mut ctx = gpu_context(Some(tier));
    let mut scene = edge_scene();
    let mut harness = Harness::new(&mut ctx, &scene);
    let globals = exact_globals();
    let count = scene.units.len();
    let gpu = harness.frame(&mut ctx, &globals, count as u32, count as u32);
    let expected = reference_frame(&mut scene, &globals, count, count);
    assert_matches(&scene, &expected, &gpu, &format!("{tier:?} edge cases"));

    // The hand-written expectations, for units (index i) and props alike.
    let cases = edge_cases();
    for (index, &(type_index, position, scale, heading, previous, route)) in
        cases.iter().enumerate()
    {
        let what = format!(
            "case {index}: type {type_index} at {position:?} scale {scale} heading {heading} \
             previous {previous}"
        );
        let want = route.unwrap_or(previous);
        assert_eq!(gpu.unit_routes[index], want, "{what}: unit route");
        assert_eq!(gpu.prop_routes[index], want, "{what}: prop route");
        let listed = |appended: &[Vec<u32>]| {
            appended
                .iter()
                .flatten()
                .filter(|&&e| e & ENTRY_INDEX_MASK == index as u32)
                .inspect(|&&e| assert_eq!(e >> ENTRY_INDEX_BITS, want, "{what}: entry route"))
                .count()
        };
        let drawn = route.is_some() && type_index != BAD_COMMAND_TYPE;
        // Units and props each append it once (to a region of capacity 0
        // for the bad region type).
        assert_eq!(listed(&expected.appended), 2 * usize::from(drawn), "{what}");
    }
    let bad_region = scene.command(BAD_REGION_TYPE, 0);
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
    let mut scene = random_scene(99, 20_000, 5_000, 0, random_route, |n| n / 50);
    let mut harness = Harness::new(&mut ctx, &scene);
    let camera = look([0.0, 700.0, 1.0], [0.0, 0.0, 0.0]);
    let globals = cull_globals(&camera, 1.0, 720.0, 1.0, 1.0, 0.25, 2000.0);
    let (units, props) = (scene.units.len(), scene.props.len());
    let gpu = harness.frame(&mut ctx, &globals, units as u32, props as u32);
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

/// Units of more types than a workgroup's shared table has commands, every
/// workgroup holding all of them: the commands past the table reserve from
/// the global counters directly, and the lists still match the reference.
fn crowded_workgroups_match_the_reference(tier: Tier) {
    let mut ctx = gpu_context(Some(tier));
    let mut rng = Rng(0xc0ded + tier as u64);
    let type_count = CULL_GROUP_COMMANDS + 8;
    let types: Vec<TypeInfo> = (0..type_count)
        .map(|_| TypeInfo {
            lod_count: 1,
            ..random_type(&mut rng, false)
        })
        .collect();
    let per_type = 64;
    let mut units = Instances::default();
    for index in 0..type_count * per_type {
        let info = UnitInfo {
            type_index: index % type_count,
            team: 0,
            tint: 0,
            scale: 1.0,
        };
        let placement = UnitPlacement {
            position: [
                200.0 + rng.range(-10.0, 10.0),
                0.0,
                100.0 + rng.range(-10.0, 10.0),
            ],
            heading: 0.0,
        };
        units.push(info, placement, 0);
    }
    let mut scene = Scene::new(types, &vec![per_type; type_count as usize], &mut rng);
    scene.units = units;
    // One inactive prop: the props' buffers are not empty.
    let inactive = UnitInfo {
        type_index: INACTIVE_TYPE,
        ..UnitInfo::default()
    };
    scene.props.push(inactive, UnitPlacement::default(), 0);
    let mut harness = Harness::new(&mut ctx, &scene);
    let camera = look([0.0, 30.0, 0.0], [200.0, 0.0, 100.0]);
    let globals = cull_globals(&camera, 16.0 / 9.0, 720.0, 1.5, 1.0, 0.25, 300.0);
    let unit_count = scene.units.len();
    let gpu = harness.frame(&mut ctx, &globals, unit_count as u32, 1);
    let expected = reference_frame(&mut scene, &globals, unit_count, 1);
    let visible: u32 = expected.instance_counts.iter().sum();
    assert_eq!(visible as usize, unit_count, "every unit is in view");
    let most =
        most_commands_per_workgroup(&scene, &expected, 0..type_count, ctx.unit_workgroup_size());
    assert!(
        most > CULL_GROUP_COMMANDS as usize,
        "{most} commands per workgroup"
    );
    assert_matches(
        &scene,
        &expected,
        &gpu,
        &format!("{tier:?} crowded workgroups"),
    );
    drop(harness);
    finish(ctx);
}

#[test]
fn crowded_workgroups_match_the_reference_on_desktop() {
    crowded_workgroups_match_the_reference(Tier::Desktop);
}

#[test]
fn crowded_workgroups_match_the_reference_on_mobile() {
    crowded_workgroups_match_the_reference(Tier::Mobile);
}

/// No instances, then only inactive ones: the reset leaves every count 0.
#[test]
fn empty_scenes_leave_every_count_zero() {
    let mut ctx = gpu_context(None);
    let mut scene = random_scene(5, 1_000, 1_000, 3, random_route, |n| n);
    for info in scene.units.infos.iter_mut().chain(&mut scene.props.infos) {
        info.type_index = INACTIVE_TYPE;
    }
    let mut harness = Harness::new(&mut ctx, &scene);
    let globals = exact_globals();
    for count in [0, 1_000] {
        let gpu = harness.frame(&mut ctx, &globals, count, count);
        let counts: Vec<u32> = gpu.commands.iter().map(|c| c.instance_count).collect();
        assert!(
            counts.len() == COMMANDS && counts.iter().all(|&c| c == 0),
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
    let camera = look([1.0, 2.0, 3.0], [1.0, 2.0, -7.0]);
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
    assert!((globals.pixels_per_unit - pixels_per_unit).abs() < 1e-3);
    assert_eq!(globals.lod_threshold_px, 0.5);
    assert_eq!(globals.lod_hysteresis, 0.25);
    assert_eq!(globals.max_draw_distance, 100.0);
    assert_eq!(globals.camera_position, [1.0, 2.0, 3.0]);
    assert_eq!(globals.far_field_px, 0.0, "the far field is off by default");
    assert_eq!(
        globals.impostor_threshold_px, 0.0,
        "impostors are off by default"
    );
    assert_eq!(globals.orthographic, 0, "a camera is a perspective view");
    assert_eq!(globals.min_size_px, 0.0, "every visible mesh is drawn");
    // The occlusion test's view: the camera's near distance and the
    // projection's scales (Vulkan's y points down).
    assert_eq!(globals.near, camera.near);
    assert!(globals.projection_scale[0] > 0.0 && globals.projection_scale[1] < 0.0);
    let centre = glam::Vec4::new(1.0, 2.0, 3.0, 1.0);
    let view = camera.view() * centre;
    for (row, expected) in globals.view_rows.iter().zip(view.to_array()) {
        assert!((glam::Vec4::from(*row).dot(centre) - expected).abs() < 1e-5);
    }
    assert_eq!(globals.viewport, [0, 0], "set with the depth image's size");
    assert_eq!(size_of::<CullGlobals>(), 224);
}

/// How far-field routes changed over one frame, for the visible instances.
#[derive(Debug, Default)]
struct FarFieldMoves {
    /// Visible instances in the far field.
    far: usize,
    entered: usize,
    left: usize,
    /// Kept in the far field only by the hysteresis: without history they
    /// would have taken a mesh LOD.
    held: usize,
}

/// Sorts the visible instances of `instances` (routes as they were before
/// the frame in `before`) by what the far field did with them.
fn far_field_moves(
    scene: &Scene,
    instances: &Instances,
    before: &[u32],
    globals: &CullGlobals,
) -> FarFieldMoves {
    let mut moves = FarFieldMoves::default();
    for (index, info) in instances.infos.iter().enumerate() {
        let Some(type_info) = scene.types.get(info.type_index as usize) else {
            continue;
        };
        let sphere = world_sphere(info, &instances.placements[index], type_info);
        if !in_frustum(&sphere, &globals.planes) {
            continue;
        }
        let (was, is) = (
            before[index] >= ROUTE_FAR_FIELD,
            instances.routes[index] >= ROUTE_FAR_FIELD,
        );
        moves.far += usize::from(is);
        moves.entered += usize::from(is && !was);
        moves.left += usize::from(was && !is);
        if is && was && choose_route(&sphere, type_info, globals, 0) < ROUTE_FAR_FIELD {
            moves.held += 1;
        }
    }
    moves
}

/// The far field: unit types with a far-field route send instances that
/// project within `far_field_px` there, entering only within
/// `far_field_px * (1 - hysteresis)`. A camera flies in, out and across
/// over random scenes; the routes are carried from frame to frame, so the
/// GPU's hysteresis must follow the reference's exactly. Props and unit
/// types without a far route never go there, and turning the far field off
/// sends everyone back to a mesh LOD.
fn far_field_routes_match_the_reference(tier: Tier) {
    let mut ctx = gpu_context(Some(tier));
    // Units spawn on route 0, as the world spawns them.
    let mut scene = random_scene(0xfa12 + tier as u64, 60_000, 20_000, 4, |_| 0, |n| n);
    let mut harness = Harness::new(&mut ctx, &scene);
    // A fly-in from high above, back out, then across the field, in steps
    // small enough that many instances sit between the two far limits.
    let mut cameras = Vec::new();
    for step in 0..6 {
        let height = 420.0 - 40.0 * step as f32;
        cameras.push(look([0.0, height, 200.0], [0.0, 0.0, -50.0]));
    }
    for step in 0..5 {
        let height = 260.0 + 60.0 * step as f32;
        cameras.push(look([0.0, height, 200.0], [0.0, 0.0, -50.0]));
    }
    for step in 0..4 {
        let x = -150.0 + 60.0 * step as f32;
        cameras.push(look([x, 60.0, 380.0], [x + 20.0, 0.0, 0.0]));
    }
    let mut totals = FarFieldMoves::default();
    for (frame, camera) in cameras.iter().enumerate() {
        let mut globals = cull_globals(camera, 16.0 / 9.0, 720.0, 1.5, 1.0, 0.25, 1500.0);
        // The last frame turns the far field off again.
        globals.far_field_px = if frame + 1 == cameras.len() { 0.0 } else { 6.0 };
        let (units, props) = (scene.units.len(), scene.props.len());
        let unit_routes = scene.units.routes.clone();
        let prop_routes = scene.props.routes.clone();
        let gpu = harness.frame(&mut ctx, &globals, units as u32, props as u32);
        let expected = reference_frame(&mut scene, &globals, units, props);
        let what = format!("{tier:?} far field frame {frame}");
        assert_matches(&scene, &expected, &gpu, &what);

        for (index, info) in scene.units.infos.iter().enumerate() {
            let far_type = scene
                .types
                .get(info.type_index as usize)
                .is_some_and(|t| t.routes[ROUTE_FAR_FIELD as usize].capacity > 0);
            if !far_type {
                assert!(
                    scene.units.routes[index] < ROUTE_FAR_FIELD,
                    "{what}: unit {index} went to the far field"
                );
            }
        }
        assert!(
            scene
                .props
                .routes
                .iter()
                .all(|&code| code < ROUTE_FAR_FIELD),
            "{what}: a prop went to the far field"
        );
        let far_entries = far_field_entries(&scene, &expected);
        let moves = far_field_moves(&scene, &scene.units, &unit_routes, &globals);
        assert_eq!(moves.far, far_entries, "{what}");
        let props_moved = far_field_moves(&scene, &scene.props, &prop_routes, &globals);
        assert_eq!(props_moved.far, 0, "{what}");
        if globals.far_field_px == 0.0 {
            assert_eq!(far_entries, 0, "{what}: the far field is off");
            assert!(moves.left > 100, "{what}: {moves:?}");
        } else {
            assert!(far_entries > 500, "{what}: {moves:?}");
        }
        totals.far += moves.far;
        totals.entered += moves.entered;
        totals.left += moves.left;
        totals.held += moves.held;
    }
    assert!(
        totals.entered > 1000 && totals.left > 1000 && totals.held > 100,
        "the camera path barely moves the far field: {totals:?}"
    );
    drop(harness);
    finish(ctx);
}

#[test]
fn far_field_routes_match_the_reference_on_desktop() {
    far_field_routes_match_the_reference(Tier::Desktop);
}

#[test]
fn far_field_routes_match_the_reference_on_mobile() {
    far_field_routes_match_the_reference(Tier::Mobile);
}

/// The sun's shadow cascades cull their casters with this pass
/// (`passes/shadow.rs`): each cascade's orthographic box, sizes in texels
/// whatever the distance, the far field's size in texels. Every cascade's
/// lists and routes equal the reference's, frame after frame (each cascade
/// keeps its own routes, as the shadow pass does).
fn shadow_cascades_match_the_reference(tier: Tier) {
    use horde::shadow::{cascade_cull, fit_cascades, ShadowView};
    let mut ctx = gpu_context(Some(tier));
    let base = random_scene(0x5AD0 + tier as u64, 60_000, 20_000, 4, |_| 0, |n| n);
    let cameras = [
        look([0.0, 30.0, 0.0], [200.0, 0.0, 100.0]),
        look([5.0, 32.0, 2.0], [205.0, 0.0, 102.0]),
        look([0.0, 400.0, 200.0], [0.0, 0.0, -50.0]),
    ];
    let cascade_count = 3;
    let mut scenes: Vec<Scene> = (0..cascade_count).map(|_| base.clone()).collect();
    let mut harnesses: Vec<Harness> = scenes
        .iter()
        .map(|scene| Harness::new(&mut ctx, scene))
        .collect();
    let mut casters = [0u32; 2];
    for (frame, camera) in cameras.iter().enumerate() {
        let cascades = fit_cascades(&ShadowView {
            camera: *camera,
            aspect: 16.0 / 9.0,
            sun_direction: Vec3::new(0.4, 0.8, 0.3),
            ground_bottom: 0.0,
            ground_top: 0.0,
            distance: 400.0,
            cascade_count,
            map_size: 2048,
        });
        for (index, cascade) in cascades.iter().enumerate() {
            let globals = cascade_cull(cascade, 1.0, tier == Tier::Desktop);
            assert_eq!(globals.orthographic, 1);
            let scene = &mut scenes[index];
            let (units, props) = (scene.units.len(), scene.props.len());
            let gpu = harnesses[index].frame(&mut ctx, &globals, units as u32, props as u32);
            let expected = reference_frame(scene, &globals, units, props);
            let far = far_field_entries(scene, &expected) as u32;
            casters[0] += expected.instance_counts.iter().sum::<u32>() - far;
            casters[1] += far;
            assert_matches(
                scene,
                &expected,
                &gpu,
                &format!("{tier:?} frame {frame} cascade {index}"),
            );
            assert_eq!(
                gpu.unit_routes, scene.units.routes,
                "cascade {index} unit routes"
            );
            assert_eq!(
                gpu.prop_routes, scene.props.routes,
                "cascade {index} prop routes"
            );
        }
    }
    // Casters were drawn as meshes, and on the desktop tier by the far
    // field too.
    assert!(casters[0] > 1000, "casters (mesh, far field): {casters:?}");
    assert_eq!(
        casters[1] > 0,
        tier == Tier::Desktop,
        "casters: {casters:?}"
    );
    drop(harnesses);
    finish(ctx);
}

#[test]
fn shadow_cascades_match_the_reference_on_desktop() {
    shadow_cascades_match_the_reference(Tier::Desktop);
}

#[test]
fn shadow_cascades_match_the_reference_on_mobile() {
    shadow_cascades_match_the_reference(Tier::Mobile);
}
