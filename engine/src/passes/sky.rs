//! The sky, drawn in the main render pass after the world's draws (the
//! draw pass's module doc says where and why): one triangle over the whole
//! target at the far plane (`full_screen.vert`, `sky.frag`), tested
//! GREATER_OR_EQUAL against the depth cleared to 0 and writing none, so it
//! colours exactly the samples no draw covered. Also the binding of a
//! screen pass's pipeline, which the sky and the far field's resolve share.

use ash::vk;

use crate::context::Context;
use crate::frame::Frame;
use crate::pipeline::{graphics_pipeline, GraphicsDesc, LayoutDesc, PassTarget, Pipeline};
use crate::{shaders, Error};

/// The sky's push constant: its linear colour.
const SKY_PUSH_BYTES: u32 = 16;

/// The sky's pipeline for the main render pass `target`.
pub fn sky_pipeline(ctx: &Context, target: PassTarget) -> Result<Pipeline, Error> {
    graphics_pipeline(
        ctx,
        "sky",
        &shaders::FULL_SCREEN_VERT,
        &shaders::SKY_FRAG,
        &LayoutDesc {
            sets: &[],
            push_constant_size: SKY_PUSH_BYTES,
        },
        &GraphicsDesc {
            vertex_bindings: &[],
            vertex_attributes: &[],
            target,
            cull_mode: vk::CullModeFlags::NONE,
            depth_compare: vk::CompareOp::GREATER_OR_EQUAL,
            depth_write: false,
            alpha_blend: false,
        },
        &[],
    )
}

/// The sky in the colour of `color`, with `pipeline` from [`sky_pipeline`]:
/// one triangle over the whole target (`full_screen.vert`), inside the main
/// render pass, whose viewport and scissor cover the target.
pub fn draw_sky(frame: &Frame, pipeline: &Pipeline, color: [f32; 4]) {
    bind_screen_pipeline(frame, pipeline, None, bytemuck::cast_slice(&color));
    // SAFETY: recorded inside the main render pass, the pipeline bound.
    unsafe { frame.ctx.device.cmd_draw(frame.cmd, 3, 1, 0, 0) };
}

/// Binds `pipeline`, its descriptor set 0 `set` where it has one, and
/// `push` as its push constants (both stages), for a draw over the target
/// inside the main render pass.
pub fn bind_screen_pipeline(
    frame: &Frame,
    pipeline: &Pipeline,
    set: Option<vk::DescriptorSet>,
    push: &[u8],
) {
    let device = &frame.ctx.device;
    // SAFETY: the caller records inside the main render pass; the layout
    // has `push.len()` bytes of push constants for both stages.
    unsafe {
        device.cmd_bind_pipeline(frame.cmd, vk::PipelineBindPoint::GRAPHICS, pipeline.raw);
        if let Some(set) = set {
            device.cmd_bind_descriptor_sets(
                frame.cmd,
                vk::PipelineBindPoint::GRAPHICS,
                pipeline.layout,
                0,
                &[set],
                &[],
            );
        }
        device.cmd_push_constants(
            frame.cmd,
            pipeline.layout,
            vk::ShaderStageFlags::VERTEX | vk::ShaderStageFlags::FRAGMENT,
            0,
            push,
        );
    }
}
