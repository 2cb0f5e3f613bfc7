//! How the mesh casters' depths reach the receivers' buffer, by tier: the
//! desktop tier's `shadow seed` before the atomic casters, the mobile
//! tier's `shadow merge` after the depth layers (the parent module's doc
//! has the frame's order).

use ash::vk;

use super::ShadowPass;
use crate::barriers::{uses, Access};
use crate::frame::{ComputePipeline, Frame};
use crate::frames::Descriptor;
use crate::memory::Image;
use crate::owned::{Framebuffer, ImageView, Sampler};
use crate::Error;

/// How the mesh casters' depths reach the receivers' buffer, by tier.
pub(super) enum CasterDepths {
    /// Desktop tier: `shadow seed` writes every texel the far field's
    /// depth (0 without it), then `shadow draw`'s fragments raise theirs
    /// with an atomic max (`shadow_caster.frag`), in a render pass without
    /// attachments. There is no depth image to clear: an H100 clears a
    /// 2048² `D32_SFLOAT` layer in 0.30 ms (the render pipeline writes
    /// about 55 GB/s there, `vkCmdClearDepthStencilImage` no faster), which
    /// was the whole cost of a cascade's draw; the seed writes the three
    /// cascades in less than a tenth of that
    /// (`benches/results/near_field/`, section 10).
    Atomic {
        seed: ComputePipeline,
        /// Attachment-less, a cascade's size.
        framebuffer: Framebuffer,
    },
    /// Mobile tier, whose baseline does not promise fragment atomics and
    /// whose tiled GPUs clear depth in tile memory: a depth layer per
    /// cascade, which `shadow merge` copies into the receivers' buffer.
    Layers {
        /// A layer per cascade (`Image::view` is the array view the merge
        /// reads).
        image: Image,
        /// Per layer: its framebuffer, and the view it draws into.
        layers: Vec<(Framebuffer, ImageView)>,
        sampler: Sampler,
        merge: ComputePipeline,
    },
}

impl ShadowPass {
    /// The `shadow seed` pass (desktop tier): each `drawn` cascade's
    /// far-field depths, or 0 where `far_field` is off, into the receivers'
    /// buffer.
    pub(super) fn seed(
        &self,
        frame: &mut Frame,
        seed: &ComputePipeline,
        drawn: &[usize],
        far_field: bool,
    ) -> Result<(), Error> {
        frame.pass("shadow seed", |frame| {
            let mut declared = vec![uses(self.depths.raw, Access::ComputeWrite)];
            let visibility: Vec<(usize, vk::Buffer)> = drawn
                .iter()
                .map(
                    |&cascade| match (&self.cascades[cascade].visibility, far_field) {
                        (Some(visibility), true) => (cascade, visibility.raw),
                        _ => (cascade, self.no_far_field.raw),
                    },
                )
                .collect();
            declared.extend(
                visibility
                    .iter()
                    .map(|&(_, b)| uses(b, Access::ComputeRead)),
            );
            frame.uses(&declared);
            for &(cascade, visibility) in &visibility {
                let push = [
                    self.map_size,
                    cascade as u32,
                    u32::from(visibility != self.no_far_field.raw),
                ];
                frame.dispatch(
                    seed,
                    &[
                        Descriptor::Storage(visibility),
                        Descriptor::Storage(self.depths.raw),
                    ],
                    bytemuck::cast_slice(&push),
                    self.map_size * self.map_size,
                )?;
            }
            Ok(())
        })
    }

    /// The `shadow merge` pass (mobile tier): each `drawn` cascade's depth
    /// layer into the receivers' buffer.
    pub(super) fn merge(
        &self,
        frame: &mut Frame,
        merge: &ComputePipeline,
        (image, sampler): (&Image, &Sampler),
        drawn: &[usize],
    ) -> Result<(), Error> {
        frame.pass("shadow merge", |frame| {
            frame.uses(&[uses(self.depths.raw, Access::ComputeWrite)]);
            for &cascade in drawn {
                let push = [self.map_size, cascade as u32];
                frame.dispatch(
                    merge,
                    &[
                        Descriptor::Sampled(image.view, **sampler),
                        Descriptor::Storage(self.depths.raw),
                    ],
                    bytemuck::cast_slice(&push),
                    self.map_size * self.map_size,
                )?;
            }
            Ok(())
        })
    }
}
