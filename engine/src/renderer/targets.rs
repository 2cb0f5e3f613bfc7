//! The render passes a renderer's targets are made for: the frame's (a
//! window's swapchain or an offscreen image), the same ending ready for a
//! readback, and the single-sampled passes of the quality measurement's
//! reference when the frame is multisampled.

use ash::vk;

use crate::context::Context;
use crate::owned::RenderPass;
use crate::passes::draw::DrawPass;
use crate::pipeline::PassTarget;
use crate::target::{create_overlay_render_pass, MainPasses, Msaa, TargetPasses};
use crate::world::World;
use crate::Error;

use super::Renderer;

impl Renderer {
    /// The render passes its targets must be made for: the swapchain's
    /// of a window renderer, the offscreen targets' otherwise.
    pub fn target_passes(&self) -> TargetPasses {
        TargetPasses {
            main: *self.render_passes.whole,
            early: *self.render_passes.early,
            late: *self.render_passes.late,
            overlay: *self.overlay_render_pass,
            color_format: self.color_format,
            msaa: self.msaa,
        }
    }

    /// The render passes of an [`Offscreen`](crate::target::Offscreen) target of this renderer, whose
    /// image is read back: [`Renderer::target_passes`] ending in
    /// `TRANSFER_SRC_OPTIMAL`.
    pub fn readback_passes(&self) -> TargetPasses {
        match &self.readback_render_passes {
            Some((main, overlay)) => TargetPasses {
                main: *main.whole,
                early: *main.early,
                late: *main.late,
                overlay: **overlay,
                ..self.target_passes()
            },
            None => self.target_passes(),
        }
    }

    /// The render passes of the 2×2 supersampled reference's target: the
    /// readback passes, single-sampled whatever the frame's MSAA, so the
    /// reference is one picture whatever the frame's settings.
    pub fn reference_passes(&self) -> TargetPasses {
        match &self.single_sampled {
            Some(single) => TargetPasses {
                main: *single.main.whole,
                early: *single.main.early,
                late: *single.main.late,
                overlay: *single.overlay,
                color_format: self.color_format,
                msaa: Msaa::Off,
            },
            None => self.readback_passes(),
        }
    }
}

/// The reference of a multisampled renderer: the reference is a
/// 2×2 supersampled picture, single-sampled, whatever the frame's MSAA
/// (else turning MSAA on would smooth the reference too, and a frame would
/// be judged against a different picture). Its passes end ready for a
/// readback; its draw pass holds single-sampled pipelines. A reference
/// draws no extras (no bounds view, far field or impostors), so the draw
/// pass is all it needs.
pub(super) struct SingleSampled {
    main: MainPasses,
    overlay: RenderPass,
    pub(super) draw: DrawPass,
}

impl SingleSampled {
    pub(super) fn new(
        ctx: &Context,
        color_format: vk::Format,
        world: &World,
    ) -> Result<SingleSampled, Error> {
        let readback = vk::ImageLayout::TRANSFER_SRC_OPTIMAL;
        let main = MainPasses::new(ctx, color_format, readback, Msaa::Off)?;
        let overlay = create_overlay_render_pass(ctx, color_format, readback)?;
        let target = PassTarget {
            render_pass: *main.whole,
            samples: Msaa::Off.samples(),
        };
        let draw = DrawPass::new(ctx, target, world.encoding, world.bone_shape)?;
        Ok(SingleSampled {
            main,
            overlay,
            draw,
        })
    }
}
