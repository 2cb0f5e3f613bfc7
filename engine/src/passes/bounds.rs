//! The bounds view, a debug pass: every visible instance's conservative
//! bounding sphere, as the cull pass tests it, drawn translucent inside the
//! main render pass (`bounds.vert`, `bounds.frag`).
//!
//! Data: the world keeps a second set of draw commands (`bounds_commands`),
//! one per (type, route) like the real ones, drawing the sphere mesh (stored
//! after every type's LODs) over the same instance-list regions. Each frame
//! [`BoundsPass::prepare`] copies this frame's `instance_count`s (the second
//! word of each command) into them; the draw pass then draws them with this
//! pass's pipeline, as an [`ExtraDraw`]. Depth-tested, not depth-written, no
//! back-face culling.

use ash::vk;

use crate::barriers::{uses, Access, BufferUse};
use crate::config::MAX_ROUTES;
use crate::context::Context;
use crate::frame::Frame;
use crate::gpu_types::DrawCommand;
use crate::passes::draw::{
    draw_commands, mesh_pipeline, DrawnCommands, ExtraDraw, MeshDescriptors, MeshState,
};
use crate::pipeline::{PassTarget, Pipeline};
use crate::world::World;
use crate::{shaders, Error};

/// The sphere pipeline.
pub struct BoundsPass {
    pub pipeline: Pipeline,
}

impl BoundsPass {
    pub fn new(ctx: &Context, target: PassTarget) -> Result<BoundsPass, Error> {
        let state = MeshState {
            cull_mode: vk::CullModeFlags::NONE,
            depth_write: false,
            alpha_blend: true,
        };
        let shaders = (&shaders::BOUNDS_VERT, &shaders::BOUNDS_FRAG);
        let pipeline = mesh_pipeline(ctx, "draw bounds", target, shaders, false, state, &[])?;
        Ok(BoundsPass { pipeline })
    }

    /// Copies this frame's instance counts into the bounds commands. Call
    /// after the cull pass and before the draw pass.
    pub fn prepare(&self, frame: &mut Frame, world: &World) -> Result<(), Error> {
        let b = &world.buffers;
        let stride = std::mem::size_of::<DrawCommand>() as u64;
        let instance_count = std::mem::offset_of!(DrawCommand, instance_count) as u64;
        let count =
            (b.bounds_commands.size / stride).min(world.types.len() as u64 * u64::from(MAX_ROUTES));
        let regions: Vec<vk::BufferCopy> = (0..count)
            .map(|command| vk::BufferCopy {
                src_offset: command * stride + instance_count,
                dst_offset: command * stride + instance_count,
                size: 4,
            })
            .collect();
        frame.pass("bounds", |frame| {
            if regions.is_empty() {
                return Ok(());
            }
            frame.uses(&[
                uses(b.draw_lists.buffer.raw, Access::TransferRead),
                uses(b.bounds_commands.raw, Access::TransferWrite),
            ]);
            // SAFETY: both buffers hold `count` commands.
            unsafe {
                frame.ctx.device.cmd_copy_buffer(
                    frame.cmd,
                    b.draw_lists.buffer.raw,
                    b.bounds_commands.raw,
                    &regions,
                )
            };
            Ok(())
        })
    }
}

impl ExtraDraw for BoundsPass {
    fn draw_uses(&self, _frame: &Frame, world: &World) -> Result<Vec<BufferUse>, Error> {
        Ok(vec![uses(
            world.buffers.bounds_commands.raw,
            Access::IndirectRead,
        )])
    }

    /// Draws the spheres of the units', then the props', visible instances.
    fn draw(&self, frame: &mut Frame, world: &World, mesh: &MeshDescriptors) -> Result<(), Error> {
        let b = &world.buffers;
        for (range, descriptors) in [
            (world.unit_commands(), &mesh.units),
            (world.prop_commands(), &mesh.props),
        ] {
            let set = frame.descriptor_set(self.pipeline.set_layouts[0], descriptors)?;
            let spheres = DrawnCommands {
                commands: &b.bounds_commands,
                lists: &b.draw_lists.buffer,
            };
            draw_commands(frame, &self.pipeline, set, world, spheres, range);
        }
        Ok(())
    }
}
