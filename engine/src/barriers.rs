//! The barrier tracker: passes declare how they use each buffer, and the
//! barriers between passes follow from those declarations.
//!
//! For every buffer the tracker remembers the last write (its stages and
//! accesses), which stages and accesses have been made to see it since, and
//! which stages have read it since. A new use then needs:
//! - a read: the last write made visible to it, unless already done;
//! - a write: the earlier reads finished (an execution dependency) and the
//!   last write finished and made available (write after write).
//!
//! All of one declaration's needs are merged into one global memory barrier
//! (`vkCmdPipelineBarrier`). Global barriers are what a fixed, short frame
//! wants: drivers execute buffer barriers as global ones anyway, and one
//! barrier per pass boundary is the fewest possible. The order of passes
//! stays fixed: this is not a scheduling render graph.
//!
//! The state persists across frames: the first use of a buffer in a frame
//! is ordered after the last frame's uses (barriers reach back across
//! submissions on one queue). A buffer the tracker has never seen needs
//! nothing. Images are not tracked: the bone texture and atlas are written
//! once at load, and attachments are ordered by the render pass.
//!
//! While a [`GraphRecorder`] is attached, every declaration is also noted
//! under the pass open at the time, for the frame graph (`frame_graph.rs`).

use ash::vk;

use crate::context::Context;
use crate::frame_graph::GraphRecorder;

/// How a pass uses a buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Compute shaders read it (storage or uniform).
    ComputeRead,
    /// Compute shaders read and write it.
    ComputeWrite,
    /// Indirect draw arguments.
    IndirectRead,
    /// Vertex or index buffer fetch.
    VertexInput,
    /// Vertex shaders read it (storage or uniform).
    VertexRead,
    /// Fragment shaders read it (storage or uniform).
    FragmentRead,
    /// Fragment shaders read and write it (storage atomics).
    FragmentWrite,
    /// A copy reads it.
    TransferRead,
    /// A copy or fill writes it.
    TransferWrite,
    /// The host reads it after the frame completes.
    HostRead,
}

impl Access {
    /// Whether the use writes the buffer.
    pub fn writes(self) -> bool {
        self.scope().2
    }

    /// Stages, access flags, and whether it writes.
    fn scope(self) -> (vk::PipelineStageFlags, vk::AccessFlags, bool) {
        use vk::AccessFlags as A;
        use vk::PipelineStageFlags as S;
        match self {
            Access::ComputeRead => (S::COMPUTE_SHADER, A::SHADER_READ | A::UNIFORM_READ, false),
            Access::ComputeWrite => (S::COMPUTE_SHADER, A::SHADER_READ | A::SHADER_WRITE, true),
            Access::IndirectRead => (S::DRAW_INDIRECT, A::INDIRECT_COMMAND_READ, false),
            Access::VertexInput => (
                S::VERTEX_INPUT,
                A::VERTEX_ATTRIBUTE_READ | A::INDEX_READ,
                false,
            ),
            Access::VertexRead => (S::VERTEX_SHADER, A::SHADER_READ | A::UNIFORM_READ, false),
            Access::FragmentRead => (S::FRAGMENT_SHADER, A::SHADER_READ | A::UNIFORM_READ, false),
            Access::FragmentWrite => (S::FRAGMENT_SHADER, A::SHADER_READ | A::SHADER_WRITE, true),
            Access::TransferRead => (S::TRANSFER, A::TRANSFER_READ, false),
            Access::TransferWrite => (S::TRANSFER, A::TRANSFER_WRITE, true),
            Access::HostRead => (S::HOST, A::HOST_READ, false),
        }
    }
}

/// One declared use: a buffer and how it is used.
#[derive(Clone, Copy, Debug)]
pub struct BufferUse {
    pub buffer: vk::Buffer,
    pub access: Access,
}

/// Shorthand for a [`BufferUse`].
pub fn uses(buffer: vk::Buffer, access: Access) -> BufferUse {
    BufferUse { buffer, access }
}

#[derive(Clone, Copy, Debug, Default)]
struct BufferState {
    /// Stages and accesses of the last write, if any.
    write_stages: vk::PipelineStageFlags,
    write_access: vk::AccessFlags,
    /// Stages and accesses the last write has been made visible to.
    visible_stages: vk::PipelineStageFlags,
    visible_access: vk::AccessFlags,
    /// Stages that read since the last write.
    read_stages: vk::PipelineStageFlags,
}

/// One barrier: what must finish and be made available, and what waits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Barrier {
    pub src_stages: vk::PipelineStageFlags,
    pub src_access: vk::AccessFlags,
    pub dst_stages: vk::PipelineStageFlags,
    pub dst_access: vk::AccessFlags,
}

impl Barrier {
    /// True when nothing needs to wait.
    pub fn is_empty(&self) -> bool {
        self.src_stages.is_empty() || self.dst_stages.is_empty()
    }
}

/// The state of every buffer the frame has used: a few dozen, so a list
/// searched in order beats hashing.
#[derive(Debug, Default)]
pub struct Tracker {
    states: Vec<(vk::Buffer, BufferState)>,
    /// Notes the frame's passes and uses for the frame graph, when asked.
    pub graph: Option<GraphRecorder>,
}

impl Tracker {
    fn state(&mut self, buffer: vk::Buffer) -> &mut BufferState {
        let index = match self.states.iter().position(|(b, _)| *b == buffer) {
            Some(index) => index,
            None => {
                self.states.push((buffer, BufferState::default()));
                self.states.len() - 1
            }
        };
        &mut self.states[index].1
    }

    /// The barrier `declared` needs, and the state after it.
    pub fn declare(&mut self, declared: &[BufferUse]) -> Barrier {
        let mut barrier = Barrier::default();
        for declared_use in declared {
            let (stages, access, writes) = declared_use.access.scope();
            let state = self.state(declared_use.buffer);
            let read_access = access & !WRITE_ACCESS;
            let written = !state.write_stages.is_empty();
            if written && !read_access.is_empty() {
                let seen = state.visible_stages.contains(stages)
                    && state.visible_access.contains(read_access);
                if !seen {
                    barrier.src_stages |= state.write_stages;
                    barrier.src_access |= state.write_access;
                    barrier.dst_stages |= stages;
                    barrier.dst_access |= read_access;
                }
            }
            if writes {
                if !state.read_stages.is_empty() {
                    barrier.src_stages |= state.read_stages;
                    barrier.dst_stages |= stages;
                }
                if written {
                    barrier.src_stages |= state.write_stages;
                    barrier.src_access |= state.write_access;
                    barrier.dst_stages |= stages;
                    barrier.dst_access |= access;
                }
            }
        }
        for declared_use in declared {
            let (stages, access, writes) = declared_use.access.scope();
            let state = self.state(declared_use.buffer);
            if writes {
                *state = BufferState {
                    write_stages: stages,
                    write_access: access & WRITE_ACCESS,
                    ..BufferState::default()
                };
                // A read-write use saw its own write's predecessors, not
                // its own write.
            } else {
                state.read_stages |= stages;
                if !state.write_stages.is_empty() {
                    state.visible_stages |= stages;
                    state.visible_access |= access;
                }
            }
        }
        if let Some(graph) = &mut self.graph {
            let noted: Vec<_> = declared
                .iter()
                .map(|u| (u.buffer, u.access.writes()))
                .collect();
            graph.declare(&noted, !barrier.is_empty());
        }
        barrier
    }

    /// A pass opened, for the frame graph.
    pub fn enter(&mut self, pass: &'static str) {
        if let Some(graph) = &mut self.graph {
            graph.enter(pass);
        }
    }

    /// The innermost pass closed, for the frame graph.
    pub fn leave(&mut self) {
        if let Some(graph) = &mut self.graph {
            graph.leave();
        }
    }

    /// Forgets everything: the next use of every buffer waits for all
    /// earlier work (after an abandoned frame, whose uses are unknown).
    pub fn reset_to_unknown(&mut self) {
        for (_, state) in &mut self.states {
            *state = BufferState {
                write_stages: vk::PipelineStageFlags::ALL_COMMANDS,
                write_access: vk::AccessFlags::MEMORY_WRITE,
                read_stages: vk::PipelineStageFlags::ALL_COMMANDS,
                ..BufferState::default()
            };
        }
    }

    /// Forgets a buffer about to be destroyed.
    pub fn forget(&mut self, buffer: vk::Buffer) {
        self.states.retain(|(b, _)| *b != buffer);
    }
}

/// Every access flag that writes.
const WRITE_ACCESS: vk::AccessFlags = vk::AccessFlags::from_raw(
    vk::AccessFlags::SHADER_WRITE.as_raw()
        | vk::AccessFlags::TRANSFER_WRITE.as_raw()
        | vk::AccessFlags::HOST_WRITE.as_raw()
        | vk::AccessFlags::MEMORY_WRITE.as_raw(),
);

/// Records `barrier` as one global memory barrier; nothing when empty.
pub fn record(ctx: &Context, cmd: vk::CommandBuffer, barrier: &Barrier) {
    if barrier.is_empty() {
        return;
    }
    let memory = vk::MemoryBarrier::default()
        .src_access_mask(barrier.src_access)
        .dst_access_mask(barrier.dst_access);
    // SAFETY: a global barrier on a command buffer in the recording state,
    // outside a render pass (passes declare their uses before beginning one).
    unsafe {
        ctx.device.cmd_pipeline_barrier(
            cmd,
            barrier.src_stages,
            barrier.dst_stages,
            vk::DependencyFlags::empty(),
            &[memory],
            &[],
            &[],
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ash::vk::Handle;

    fn buffer(n: u64) -> vk::Buffer {
        vk::Buffer::from_raw(n)
    }

    #[test]
    fn read_after_write_waits_once() {
        let mut tracker = Tracker::default();
        let a = buffer(1);
        assert!(tracker
            .declare(&[uses(a, Access::TransferWrite)])
            .is_empty());
        let first = tracker.declare(&[uses(a, Access::ComputeRead)]);
        assert_eq!(first.src_stages, vk::PipelineStageFlags::TRANSFER);
        assert_eq!(first.src_access, vk::AccessFlags::TRANSFER_WRITE);
        assert_eq!(first.dst_stages, vk::PipelineStageFlags::COMPUTE_SHADER);
        assert!(tracker.declare(&[uses(a, Access::ComputeRead)]).is_empty());
        let vertex = tracker.declare(&[uses(a, Access::VertexRead)]);
        assert_eq!(vertex.dst_stages, vk::PipelineStageFlags::VERTEX_SHADER);
    }

    #[test]
    fn write_after_read_and_write_after_write_wait() {
        let mut tracker = Tracker::default();
        let a = buffer(1);
        tracker.declare(&[uses(a, Access::ComputeWrite)]);
        let waw = tracker.declare(&[uses(a, Access::ComputeWrite)]);
        assert_eq!(waw.src_access, vk::AccessFlags::SHADER_WRITE);
        assert!(waw.dst_access.contains(vk::AccessFlags::SHADER_WRITE));
        tracker.declare(&[uses(a, Access::IndirectRead)]);
        let war = tracker.declare(&[uses(a, Access::TransferWrite)]);
        assert!(war
            .src_stages
            .contains(vk::PipelineStageFlags::DRAW_INDIRECT));
        assert_eq!(war.dst_stages, vk::PipelineStageFlags::TRANSFER);
    }

    #[test]
    fn unrelated_buffers_need_nothing() {
        let mut tracker = Tracker::default();
        tracker.declare(&[uses(buffer(1), Access::ComputeWrite)]);
        assert!(tracker
            .declare(&[uses(buffer(2), Access::ComputeRead)])
            .is_empty());
    }
}
