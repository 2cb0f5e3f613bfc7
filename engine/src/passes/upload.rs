//! The upload pass: the world's pending changes, onto the GPU, first in the
//! frame.
//!
//! 1. Growth: buffers whose capacity a spawn exceeded are replaced; the old
//!    contents are copied over on the GPU and the old buffers released once
//!    this frame completes.
//! 2. Tables: when a type's instance capacity grew, the instance-list regions
//!    are laid out again and the type table and command templates uploaded.
//! 3. Record writes (spawns, despawns, orders, teleports): staged in the frame
//!    slot's host-visible buffer. Long runs of whole records go by copy; the
//!    rest by one `scatter.comp` dispatch per destination buffer, whose entries
//!    are `[index, word mask, record words...]`: a command writes only the
//!    words it names, so GPU-written words of the same record survive. A copy
//!    region costs about a microsecond of GPU time, so thousands of scattered
//!    orders by copy would cost milliseconds; by scatter they cost one
//!    dispatch.
//!
//! Nothing is uploaded in full, and the CPU does no work for records that did
//! not change.

use std::mem::size_of;

use ash::vk;
use bytemuck::Pod;
use gpu_allocator::MemoryLocation;

use crate::barriers::{uses, Access, BufferUse};
use crate::context::Context;
use crate::frame::{ComputePipeline, Frame};
use crate::frames::Descriptor;
use crate::gpu_types::{DrawCommand, TypeInfo};
use crate::memory::{Buffer, Released};
use crate::world::regions::{command_template, layout_regions, type_table};
use crate::world::units::{WriteQueue, WHOLE_RECORD};
use crate::world::World;
use crate::{shaders, Error};

/// Runs of whole records at least this long are copied; the rest scattered.
const COPY_RUN: usize = 8;

/// Push constants of `scatter.comp`.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Push {
    count: u32,
    record_words: u32,
    first_word: u32,
    destination_words: u32,
}

/// The scatter pipeline and each frame slot's staging buffer.
pub struct UploadPass {
    scatter: ComputePipeline,
    staging: Vec<Option<Buffer>>,
}

/// Bytes staged so far, and where the copies and scatters go.
struct Staged<'a> {
    buffer: &'a mut Buffer,
    used: u64,
    copies: Vec<(vk::Buffer, vk::BufferCopy)>,
    scatters: Vec<Scatter>,
}

/// One scatter dispatch.
struct Scatter {
    first_word: u32,
    count: u32,
    record_words: u32,
    destination: vk::Buffer,
    destination_bytes: u64,
}

impl Staged<'_> {
    fn copy(&mut self, data: &[u8], destination: vk::Buffer, offset: u64) -> Result<(), Error> {
        self.buffer.write(self.used, data)?;
        self.copies.push((
            destination,
            vk::BufferCopy {
                src_offset: self.used,
                dst_offset: offset,
                size: data.len() as u64,
            },
        ));
        self.used += data.len() as u64;
        Ok(())
    }

    /// Stages `writes` (sorted by index) for `destination`.
    fn records<T: Pod>(
        &mut self,
        writes: &[(u32, u32, T)],
        destination: &Buffer,
    ) -> Result<(), Error> {
        let record_bytes = size_of::<T>() as u64;
        let record_words = (record_bytes / 4) as u32;
        let whole = if record_words >= 4 { WHOLE_RECORD } else { 1 };
        let mut entries: Vec<u32> = Vec::new();
        let mut start = 0;
        while start < writes.len() {
            let mut end = start + 1;
            while end < writes.len()
                && writes[end].0 == writes[end - 1].0 + 1
                && writes[end].1 == whole
                && writes[start].1 == whole
            {
                end += 1;
            }
            let run = &writes[start..end];
            if run.len() >= COPY_RUN {
                let records: Vec<T> = run.iter().map(|(_, _, record)| *record).collect();
                let offset = u64::from(run[0].0) * record_bytes;
                self.copy(bytemuck::cast_slice(&records), destination.raw, offset)?;
            } else {
                for (index, mask, record) in run {
                    entries.extend_from_slice(&[*index, *mask]);
                    entries.extend_from_slice(bytemuck::cast_slice(std::slice::from_ref(record)));
                }
            }
            start = end;
        }
        if !entries.is_empty() {
            self.buffer.write(self.used, &entries)?;
            self.scatters.push(Scatter {
                first_word: (self.used / 4) as u32,
                count: entries.len() as u32 / (record_words + 2),
                record_words,
                destination: destination.raw,
                destination_bytes: destination.size,
            });
            self.used += entries.len() as u64 * 4;
        }
        Ok(())
    }
}

/// Bytes the staged form of `queue` may take at most.
fn staged_bytes<T: Pod>(queue: &WriteQueue<T>) -> u64 {
    queue.len() as u64 * (size_of::<T>() as u64 + 8)
}

impl UploadPass {
    /// Creates the scatter pipeline with the tier's workgroup size.
    pub fn new(ctx: &Context) -> Result<UploadPass, Error> {
        let storage = vk::DescriptorType::STORAGE_BUFFER;
        let scatter = ComputePipeline::new(
            ctx,
            "upload scatter",
            &shaders::SCATTER_COMP,
            &[storage, storage],
            &[ctx.unit_workgroup_size()],
        )?;
        Ok(UploadPass {
            scatter,
            staging: (0..crate::config::FRAMES_IN_FLIGHT).map(|_| None).collect(),
        })
    }

    /// Records the pass (see the module doc).
    pub fn record(&mut self, frame: &mut Frame, world: &mut World) -> Result<(), Error> {
        frame.pass("upload", |frame| {
            if world.tables_dirty {
                layout_regions(&mut world.types);
            }
            let growth = world.buffers.grow(frame.ctx, world.needed())?;
            for copy in growth {
                if copy.bytes > 0 {
                    frame.uses(&[
                        uses(copy.old.raw, Access::TransferRead),
                        uses(copy.new, Access::TransferWrite),
                    ]);
                    let region = vk::BufferCopy::default().size(copy.bytes);
                    // SAFETY: both buffers are alive; the new one is larger.
                    unsafe {
                        frame.ctx.device.cmd_copy_buffer(
                            frame.cmd,
                            copy.old.raw,
                            copy.new,
                            &[region],
                        )
                    };
                }
                frame.forget(copy.old.raw);
                frame
                    .deferred
                    .push(frame.number, Released::Buffer(copy.old));
            }
            self.record_writes(frame, world)
        })
    }

    fn record_writes(&mut self, frame: &mut Frame, world: &mut World) -> Result<(), Error> {
        let writes = &world.units.writes;
        let tables = world.tables_dirty;
        let table_bytes = if tables {
            (world.types.len() as u64 * crate::config::MAX_ROUTES as u64 + 1)
                * size_of::<DrawCommand>() as u64
                * 2
                + (crate::gpu_types::MAX_TYPES * size_of::<TypeInfo>()) as u64
        } else {
            0
        };
        let bytes = table_bytes
            + staged_bytes(&writes.unit_infos)
            + staged_bytes(&writes.unit_placements)
            + staged_bytes(&writes.unit_motions)
            + staged_bytes(&writes.anim_states)
            + staged_bytes(&writes.unit_routes)
            + staged_bytes(&writes.unit_marks)
            + staged_bytes(&writes.prop_infos)
            + staged_bytes(&writes.prop_placements)
            + staged_bytes(&writes.prop_routes);
        if bytes == 0 {
            return Ok(());
        }
        let staging = self.staging_for(frame, bytes)?;
        let mut staged = Staged {
            buffer: staging,
            used: 0,
            copies: Vec::new(),
            scatters: Vec::new(),
        };
        let b = &world.buffers;
        if tables {
            let first_instance = frame.ctx.limits.draw_indirect_first_instance;
            let quad = world.impostor_quad;
            let template = command_template(&world.types, first_instance, None, quad);
            let bounds =
                command_template(&world.types, first_instance, Some(world.bounds_mesh), quad);
            staged.copy(
                bytemuck::cast_slice(&type_table(&world.types)),
                b.type_table.raw,
                0,
            )?;
            staged.copy(bytemuck::cast_slice(&template), b.command_template.raw, 0)?;
            staged.copy(bytemuck::cast_slice(&bounds), b.bounds_commands.raw, 0)?;
            world.tables_dirty = false;
        }
        let writes = &mut world.units.writes;
        staged.records(&writes.unit_infos.drain(), &b.unit_infos.buffer)?;
        staged.records(&writes.unit_placements.drain(), &b.unit_placements.buffer)?;
        staged.records(&writes.unit_motions.drain(), &b.unit_motions.buffer)?;
        staged.records(&writes.anim_states.drain(), &b.anim_states.buffer)?;
        staged.records(&writes.unit_routes.drain(), &b.unit_routes.buffer)?;
        staged.records(&writes.unit_marks.drain(), &b.unit_marks.buffer)?;
        staged.records(&writes.prop_infos.drain(), &b.prop_infos.buffer)?;
        staged.records(&writes.prop_placements.drain(), &b.prop_placements.buffer)?;
        staged.records(&writes.prop_routes.drain(), &b.prop_routes.buffer)?;

        let source = staged.buffer.raw;
        let mut copy_uses: Vec<BufferUse> = staged
            .copies
            .iter()
            .map(|(destination, _)| uses(*destination, Access::TransferWrite))
            .collect();
        copy_uses.dedup_by_key(|u| u.buffer);
        frame.uses(&copy_uses);
        staged
            .copies
            .sort_by_key(|(dst, _)| vk::Handle::as_raw(*dst));
        for group in staged.copies.chunk_by(|a, b| a.0 == b.0) {
            let regions: Vec<vk::BufferCopy> = group.iter().map(|(_, c)| *c).collect();
            // SAFETY: regions lie inside both buffers (capacities grew first).
            unsafe {
                frame
                    .ctx
                    .device
                    .cmd_copy_buffer(frame.cmd, source, group[0].0, &regions)
            };
        }
        // One barrier for every scatter: each writes its own buffer.
        let scattered: Vec<BufferUse> = staged
            .scatters
            .iter()
            .map(|scatter| uses(scatter.destination, Access::ComputeWrite))
            .collect();
        frame.uses(&scattered);
        for scatter in &staged.scatters {
            let push = Push {
                count: scatter.count,
                record_words: scatter.record_words,
                first_word: scatter.first_word,
                destination_words: (scatter.destination_bytes / 4) as u32,
            };
            frame.dispatch(
                &self.scatter,
                &[
                    Descriptor::Storage(source),
                    Descriptor::Storage(scatter.destination),
                ],
                bytemuck::bytes_of(&push),
                scatter.count,
            )?;
        }
        Ok(())
    }

    /// The slot's staging buffer, grown to hold `bytes`.
    fn staging_for(&mut self, frame: &mut Frame, bytes: u64) -> Result<&mut Buffer, Error> {
        let slot = &mut self.staging[frame.slot];
        if slot.as_ref().is_none_or(|b| b.size < bytes) {
            let size = bytes.next_power_of_two().max(64 * 1024);
            let buffer = Buffer::new(
                frame.ctx,
                &format!("frame {} uploads", frame.slot),
                size,
                vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::STORAGE_BUFFER,
                MemoryLocation::CpuToGpu,
            )?;
            if let Some(old) = slot.replace(buffer) {
                // Its last user is this slot's previous frame, already complete.
                frame.retire_replaced(old);
            }
        }
        Ok(slot.as_mut().expect("the staging buffer was just made"))
    }
}
