//! The animate pass: every unit's animation state machine, one frame per
//! dispatch (frame step 2, between simulate and cull).
//!
//! Data layout (set 0; `shaders/animate.comp`):
//! - binding 0 `Infos` (storage, read): [`UnitInfo`]; the pass reads
//!   `type_index` and `scale` (a locomotion state matches the scaled stride).
//! - binding 1 `Motions` (storage, read): [`UnitMotion`]; `speed` (the
//!   ground speed the feet must match) and `anim_commands` (dead and victory
//!   flags, attack and hit command serials, attack variant), written by the
//!   simulation slot (`simulation.rs`) or by CPU orders.
//! - binding 2 `AnimStates` (storage, read-write): one 16-byte [`AnimState`] per
//!   unit, owned by this pass: controller state, current and previous clip,
//!   consumed command serials, both clip times, crossfade progress and fade
//!   duration.
//! - binding 3 `Types` (uniform): [`TypeInfo`] per type: its controller
//!   states and any-state transitions, its clips.
//! - binding 4 `Clips` (uniform): [`ClipInfo`] of every type's clips.
//! - binding 5 `Controllers` (storage, read): `MAX_ANIM_STATES`
//!   [`AnimStateDef`]s (40 bytes: clip, speed, flags, transitions, and a
//!   locomotion state's blend clip, both clips' ground speeds, their phase
//!   offset and the speeds where the blend starts and ends), then every
//!   [`AnimTransitionDef`];
//!   [`pack`](crate::anim::pack) builds them from the controllers.
//! - push constants: `dt` (seconds, f32), unit count (u32).
//!
//! Four storage buffers: the mobile tier's limit. Types and clips are
//! uniform buffers (16 KiB of clips is the mobile uniform-range limit).
//!
//! Algorithm: one thread per unit advances its clip times and crossfade (a
//! locomotion state at the rate that matches its speed, blending walk and
//! run; other states at a per-unit speed factor from a hash of the unit
//! index), then checks the any-state and the state's transitions in order and
//! fires the first whose condition holds; [`crate::anim`] states the rules in
//! full and holds the CPU reference that the tests compare with this pass.
//!
//! Why every unit every frame, rather than a compacted list of units whose
//! state can change: each unit's time advances every frame anyway, so every
//! state is read and written regardless. At 16 bytes each of info, motion and
//! state, a thread per unit is one coalesced read of each and one coalesced
//! write: a pass over 48 bytes per unit, the cost of a bare cull. A
//! work list would add an append pass, an indirect dispatch and scattered
//! accesses to save nothing. The benchmark measures it.
//!
//! Barriers follow from the uses this pass declares (see `frame.rs`).

use std::mem::size_of;

use ash::vk;

use crate::barriers::{uses, Access};
use crate::context::Context;
use crate::frame::{ComputePipeline, Frame};
use crate::frames::Descriptor;
#[cfg(doc)]
use crate::gpu_types::{
    AnimState, AnimStateDef, AnimTransitionDef, ClipInfo, TypeInfo, UnitInfo, UnitMotion,
};
use crate::memory::Buffer;
use crate::world::World;
use crate::{shaders, Error};

/// The push constants of `animate.comp`.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Push {
    dt: f32,
    unit_count: u32,
}
const _: () = assert!(size_of::<Push>() == 8);

/// The buffers one dispatch reads and writes (see the module doc).
#[derive(Clone, Copy)]
pub struct AnimateBuffers<'a> {
    pub infos: &'a Buffer,
    pub motions: &'a Buffer,
    pub anim_states: &'a Buffer,
    pub types: &'a Buffer,
    pub clips: &'a Buffer,
    pub controllers: &'a Buffer,
}

impl<'a> AnimateBuffers<'a> {
    /// The world's buffers.
    pub fn of(world: &'a World) -> AnimateBuffers<'a> {
        let b = &world.buffers;
        AnimateBuffers {
            infos: &b.unit_infos.buffer,
            motions: &b.unit_motions.buffer,
            anim_states: &b.anim_states.buffer,
            types: &b.type_table,
            clips: &b.clip_table,
            controllers: &b.controllers,
        }
    }
}

/// The animate pass's pipeline.
pub struct AnimatePass {
    pipeline: ComputePipeline,
}

impl AnimatePass {
    /// Creates the pipeline with the tier's workgroup size.
    pub fn new(ctx: &Context) -> Result<AnimatePass, Error> {
        let storage = vk::DescriptorType::STORAGE_BUFFER;
        let uniform = vk::DescriptorType::UNIFORM_BUFFER;
        let pipeline = ComputePipeline::new(
            ctx,
            "animate",
            &shaders::ANIMATE_COMP,
            &[storage, storage, storage, uniform, uniform, storage],
            &[ctx.unit_workgroup_size()],
        )?;
        Ok(AnimatePass { pipeline })
    }

    /// Advances the animation of the first `unit_count` units by `dt` seconds.
    pub fn record(
        &self,
        frame: &mut Frame,
        buffers: &AnimateBuffers,
        unit_count: u32,
        dt: f32,
    ) -> Result<(), Error> {
        if !(dt.is_finite() && dt >= 0.0) {
            return Err(Error::Config(format!(
                "animate: frame time {dt} s is not a finite number ≥ 0"
            )));
        }
        for (buffer, stride) in [
            (buffers.infos, 16u64),
            (buffers.motions, 16),
            (buffers.anim_states, 16),
        ] {
            if u64::from(unit_count) * stride > buffer.size {
                return Err(Error::Config(format!(
                    "animate: {unit_count} units overrun '{}' ({} bytes)",
                    buffer.name, buffer.size
                )));
            }
        }
        frame.pass("animate", |frame| {
            frame.uses(&[
                uses(buffers.infos.raw, Access::ComputeRead),
                uses(buffers.motions.raw, Access::ComputeRead),
                uses(buffers.anim_states.raw, Access::ComputeWrite),
                uses(buffers.types.raw, Access::ComputeRead),
                uses(buffers.clips.raw, Access::ComputeRead),
                uses(buffers.controllers.raw, Access::ComputeRead),
            ]);
            let push = Push { dt, unit_count };
            frame.dispatch(
                &self.pipeline,
                &[
                    Descriptor::Storage(buffers.infos.raw),
                    Descriptor::Storage(buffers.motions.raw),
                    Descriptor::Storage(buffers.anim_states.raw),
                    Descriptor::Uniform(buffers.types.raw),
                    Descriptor::Uniform(buffers.clips.raw),
                    Descriptor::Storage(buffers.controllers.raw),
                ],
                bytemuck::bytes_of(&push),
                unit_count,
            )
        })
    }
}
