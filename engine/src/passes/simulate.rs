//! The simulate pass: moves units over their GPU-owned state (frame step 1).
//!
//! Data (`shaders/simulate.comp`, one thread per unit):
//! - `UnitInfo` (read): despawned units (`INACTIVE_TYPE`) are skipped.
//! - `UnitMotion` (read): the ground velocity (x, z).
//! - `UnitPlacement` (read-write): position and heading.
//!
//! Rule: a unit with a non-zero velocity moves by `velocity × dt` on the
//! ground plane and turns to face its velocity (`heading = atan2(vx, vz)`,
//! the model's +Z forward); a unit at rest keeps its placement. The CPU sets
//! velocities through commands (`World::set_velocities`); the GPU owns the
//! placement from then on. Until some unit has been given a velocity nothing
//! can move, and the pass records nothing. When the scene has a simulation
//! of its own (`simulation.rs`), that runs in this slot instead.

use std::mem::size_of;

use ash::vk;

use crate::barriers::{uses, Access};
use crate::context::Context;
use crate::frame::{ComputePipeline, Frame};
use crate::frames::Descriptor;
use crate::world::World;
use crate::{shaders, Error};

/// Push constants of `simulate.comp`.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Push {
    dt: f32,
    unit_count: u32,
}
const _: () = assert!(size_of::<Push>() == 8);

/// The simulate pipeline.
pub struct SimulatePass {
    pipeline: ComputePipeline,
}

impl SimulatePass {
    pub fn new(ctx: &Context) -> Result<SimulatePass, Error> {
        let storage = vk::DescriptorType::STORAGE_BUFFER;
        let pipeline = ComputePipeline::new(
            ctx,
            "simulate",
            &shaders::SIMULATE_COMP,
            &[storage, storage, storage],
            &[ctx.unit_workgroup_size()],
        )?;
        Ok(SimulatePass { pipeline })
    }

    /// Advances every unit by `dt` seconds.
    pub fn record(&self, frame: &mut Frame, world: &World, dt: f32) -> Result<(), Error> {
        if !(dt.is_finite() && dt >= 0.0) {
            return Err(Error::Config(format!(
                "simulate: time step {dt} s is not a finite number ≥ 0"
            )));
        }
        if !world.units.moving() {
            return Ok(());
        }
        let b = &world.buffers;
        frame.pass("simulate", |frame| {
            frame.uses(&[
                uses(b.unit_infos.buffer.raw, Access::ComputeRead),
                uses(b.unit_motions.buffer.raw, Access::ComputeRead),
                uses(b.unit_placements.buffer.raw, Access::ComputeWrite),
            ]);
            let push = Push {
                dt,
                unit_count: world.unit_count(),
            };
            frame.dispatch(
                &self.pipeline,
                &[
                    Descriptor::Storage(b.unit_infos.buffer.raw),
                    Descriptor::Storage(b.unit_motions.buffer.raw),
                    Descriptor::Storage(b.unit_placements.buffer.raw),
                ],
                bytemuck::bytes_of(&push),
                world.unit_count(),
            )
        })
    }
}
