//! The far field's resolve (`full_screen.vert`, `far_field_resolve.frag`),
//! the draw pass's last extra draw: a full-screen triangle that blends each
//! pixel's far-field samples over what the raster drew (the parent module's
//! doc says how).

use super::FarFieldPass;
use crate::barriers::{uses, Access, BufferUse};
use crate::frame::Frame;
use crate::frames::Descriptor;
use crate::passes::draw::{ExtraDraw, MeshDescriptors};
use crate::passes::sky::draw_full_screen;
use crate::world::World;
use crate::Error;

/// The resolve: the draw pass's last extra draw, after the raster's depth.
impl ExtraDraw for FarFieldPass {
    fn draw_uses(&self, _frame: &Frame, _world: &World) -> Result<Vec<BufferUse>, Error> {
        Ok(self
            .visibility
            .iter()
            .map(|buffer| uses(buffer.raw, Access::FragmentRead))
            .collect())
    }

    /// Records the resolve inside the main render pass.
    fn draw(
        &self,
        frame: &mut Frame,
        _world: &World,
        _mesh: &MeshDescriptors,
    ) -> Result<(), Error> {
        let Some(visibility) = &self.visibility else {
            return Ok(());
        };
        let set = frame.descriptor_set(
            self.resolve.set_layouts[0],
            &[Descriptor::Storage(visibility.raw)],
        )?;
        let push = [self.extent.width, self.extent.height, self.samples_per_axis];
        // The visibility buffer was made for the target the pass covers.
        draw_full_screen(frame, &self.resolve, Some(set), bytemuck::cast_slice(&push));
        Ok(())
    }
}
