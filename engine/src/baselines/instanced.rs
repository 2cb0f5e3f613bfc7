//! The `instanced` baseline: bone-texture skinning, instanced, with no
//! culling and LOD 0 for every unit and prop, as GPU Gems 3 chapter 2 (and
//! Unity's Animation Instancing) draw crowds.
//!
//! # Data layout
//! Per frame slot, a host-visible buffer in the layout of the world's draw
//! lists (see `passes/cull.rs`): the draw commands at the head, then the
//! instance lists, each (type, route) region at the `list_base` the world
//! assigned. Only the LOD 0 command of each type has instances: every unit (or prop)
//! of the type, in slot order, so each type is one instanced draw of its
//! full-detail mesh. The draw pass draws from this buffer with the same
//! pipelines and vertex shader as the GPU-driven frame.
//!
//! # Algorithm
//! The lists depend only on which units and props exist, so the CPU writes
//! them when those change (spawns, despawns, growth), once per frame slot
//! (each slot has its copy, so no write races a frame in flight), and never
//! per frame: the technique's whole point is that the CPU does nothing per unit. The
//! animate pass still advances every unit's animation on the GPU.
//!
//! The helpers here also serve the other baselines: [`HostLists`] (a
//! host-visible draw-lists buffer) and [`write_lists`] (commands and lists
//! from per-command entries).

use ash::vk;
use gpu_allocator::MemoryLocation;

use crate::config::{FRAMES_IN_FLIGHT, MAX_ROUTES};
use crate::context::Context;
use crate::frame::Frame;
use crate::gpu_types::{UnitInfo, INACTIVE_TYPE};
use crate::memory::{Buffer, Released};
use crate::world::buffers::DRAW_COMMANDS_BYTES;
use crate::world::regions::command_template;
use crate::world::World;
use crate::Error;

/// What a draw-lists buffer was written for: when it changes, the buffer is
/// rebuilt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ListsKey {
    units: u32,
    live_units: u32,
    props: u32,
    list_entries: u32,
    spawns: u64,
}

impl ListsKey {
    fn of(world: &World) -> ListsKey {
        ListsKey {
            units: world.unit_count(),
            live_units: world.live_units(),
            props: world.prop_count(),
            list_entries: world.needed().list_entries,
            spawns: world.units.cpu_state().anim_generation,
        }
    }
}

/// A host-visible buffer in the world's draw-lists layout, sized for the
/// world's regions; replaced (the old one released after its last frame)
/// when they grow.
#[derive(Default)]
pub struct HostLists {
    pub buffer: Option<Buffer>,
}

impl HostLists {
    /// The buffer, large enough for `world`'s regions, and whether it was
    /// just created (its contents are then undefined).
    pub fn ensure(&mut self, frame: &mut Frame, world: &World, name: &str) -> Result<bool, Error> {
        let bytes = lists_bytes(world);
        if self.buffer.as_ref().is_some_and(|b| b.size >= bytes) {
            return Ok(false);
        }
        if let Some(old) = self.buffer.take() {
            frame.forget(old.raw);
            frame.deferred.push(frame.number, Released::Buffer(old));
        }
        self.buffer = Some(create_lists(frame.ctx, name, bytes)?);
        Ok(true)
    }
}

/// Bytes of the world's draw lists: the command head and every region.
pub fn lists_bytes(world: &World) -> u64 {
    DRAW_COMMANDS_BYTES + u64::from(world.needed().list_entries) * 4
}

/// A host-visible buffer the draw pass can read commands and instances
/// from, and the statistics pass copy.
fn create_lists(ctx: &Context, name: &str, bytes: u64) -> Result<Buffer, Error> {
    Buffer::new(
        ctx,
        name,
        bytes,
        vk::BufferUsageFlags::INDIRECT_BUFFER
            | vk::BufferUsageFlags::VERTEX_BUFFER
            | vk::BufferUsageFlags::TRANSFER_SRC,
        MemoryLocation::CpuToGpu,
    )
}

/// Writes the world's command template into the head of `buffer`, and each
/// command's entries into its region: `entries(command)` gives them as
/// parts, written one after the other; past the region's capacity nothing
/// is written. Each command's instance count is what was written.
pub fn write_lists<'e>(
    ctx: &Context,
    buffer: &mut Buffer,
    world: &World,
    entries: impl Fn(usize) -> Vec<&'e [u32]>,
) -> Result<(), Error> {
    let mut commands = command_template(
        &world.types,
        ctx.limits.draw_indirect_first_instance,
        None,
        world.impostor_quad,
    );
    let name = buffer.name.clone();
    let mapped = buffer
        .allocation
        .mapped_slice_mut()
        .filter(|mapped| mapped.len() >= DRAW_COMMANDS_BYTES as usize)
        .ok_or_else(|| Error::Config(format!("'{name}' is not a host-visible draw list")))?;
    let (head, lists) = mapped.split_at_mut(DRAW_COMMANDS_BYTES as usize);
    let lists: &mut [u32] = bytemuck::try_cast_slice_mut(lists)
        .map_err(|err| Error::Config(format!("'{name}': {err}")))?;
    for (type_index, world_type) in world.types.iter().enumerate() {
        for route in 0..MAX_ROUTES {
            let command = type_index * MAX_ROUTES as usize + route as usize;
            let region = world_type.info.routes[route as usize];
            let start = (region.list_base as usize).min(lists.len());
            let end = start + (region.capacity as usize).min(lists.len() - start);
            let mut at = start;
            for part in entries(command) {
                let count = part.len().min(end - at);
                lists[at..at + count].copy_from_slice(&part[..count]);
                at += count;
            }
            if let Some(slot) = commands.get_mut(command) {
                slot.instance_count = (at - start) as u32;
            }
        }
    }
    let head_bytes: &[u8] = bytemuck::cast_slice(&commands);
    let length = head_bytes.len().min(head.len());
    head[..length].copy_from_slice(&head_bytes[..length]);
    Ok(())
}

/// Per command, the LOD 0 entries of the instances `infos` (units, or
/// props) of the command's type, in slot order.
pub fn lod0_entries(infos: &[UnitInfo], command_count: usize) -> Vec<Vec<u32>> {
    let mut entries = vec![Vec::new(); command_count];
    for (index, info) in infos.iter().enumerate() {
        if info.type_index == INACTIVE_TYPE {
            continue;
        }
        let command = info.type_index as usize * MAX_ROUTES as usize;
        if let Some(list) = entries.get_mut(command) {
            // Route 0 (LOD 0) leaves the entry's route bits zero.
            list.push(index as u32);
        }
    }
    entries
}

/// The instanced baseline's draw lists, one copy per frame slot so that
/// rewriting one never races a frame in flight.
pub struct InstancedPass {
    slots: Vec<(HostLists, Option<ListsKey>)>,
    /// Leave the units out: the `naive` baseline draws only its props here.
    skip_units: bool,
    /// The frame slot last recorded.
    last_slot: usize,
}

impl Default for InstancedPass {
    fn default() -> InstancedPass {
        InstancedPass {
            slots: (0..FRAMES_IN_FLIGHT)
                .map(|_| (HostLists::default(), None))
                .collect(),
            skip_units: false,
            last_slot: 0,
        }
    }
}

impl InstancedPass {
    /// The instanced baseline.
    pub fn new() -> InstancedPass {
        InstancedPass::default()
    }

    /// Lists of the props alone: the `naive` baseline draws its units itself.
    pub fn props_only() -> InstancedPass {
        InstancedPass {
            skip_units: true,
            ..InstancedPass::default()
        }
    }

    /// The draw lists for this frame, rewritten when the world's units or
    /// props changed since this frame slot's were last written.
    pub fn record(&mut self, frame: &mut Frame, world: &World) -> Result<&Buffer, Error> {
        let key = ListsKey::of(world);
        let skip_units = self.skip_units;
        let (lists, written) = self
            .slots
            .get_mut(frame.slot)
            .ok_or_else(|| Error::Config(format!("frame slot {} out of range", frame.slot)))?;
        let name = format!("instanced draw lists {}", frame.slot);
        let created = lists.ensure(frame, world, &name)?;
        if created || *written != Some(key) {
            let command_count = world.types.len() * MAX_ROUTES as usize;
            let (props, _) = world.units.props();
            let mut entries = lod0_entries(props, command_count);
            if !skip_units {
                for (list, units) in entries
                    .iter_mut()
                    .zip(lod0_entries(world.infos(), command_count))
                {
                    list.extend(units);
                }
            }
            let buffer = lists
                .buffer
                .as_mut()
                .ok_or_else(|| Error::Config("instanced draw lists missing".to_owned()))?;
            write_lists(frame.ctx, buffer, world, |command| {
                vec![&entries[command][..]]
            })?;
            *written = Some(key);
        }
        self.last_slot = frame.slot;
        self.lists()
    }

    /// The draw lists of the last [`InstancedPass::record`].
    pub fn lists(&self) -> Result<&Buffer, Error> {
        self.slots
            .get(self.last_slot)
            .and_then(|(lists, _)| lists.buffer.as_ref())
            .ok_or_else(|| Error::Config("instanced draw lists missing".to_owned()))
    }
}
