//! The HUD pass: draws an egui frame over the finished scene.
//!
//! The engine has no window and no input: the application runs egui and hands
//! the renderer what egui's `Context::run` and `tessellate` produce, a
//! [`HudDraw`] of clipped triangle meshes and texture changes. This pass draws
//! them; nothing else of egui is needed.
//!
//! - **Pipeline**: `hud.vert`/`hud.frag` over egui's vertex (`epaint::Vertex`:
//!   position in points, UV, sRGB colour with premultiplied alpha), alpha
//!   blended, no depth test that matters (`ALWAYS`, no writes), no culling.
//!   A push constant gives the screen size in points.
//! - **Render pass**: the overlay render pass (`target.rs`), which loads the
//!   colour the main pass drew and keeps its final layout, so the HUD works
//!   on the swapchain and on the offscreen target alike. Its subpass
//!   dependencies order it after the main pass.
//! - **Textures**: egui's textures (the font atlas, mostly) live in
//!   `R8G8B8A8_SRGB` images, one per [`TextureId`]. A texture change is
//!   recorded in the frame's command buffer before the render pass: a staging
//!   buffer, a barrier to `TRANSFER_DST` (after earlier frames' fragment
//!   reads), the copy, a barrier back to `SHADER_READ_ONLY`. A full
//!   replacement makes a new image; the old one, and the staging buffers, go
//!   to the deferred-release queue until the frame has completed. Textures
//!   egui frees are released the same way, after this frame's draws.
//! - **Geometry**: each frame slot owns a host-visible vertex and index
//!   buffer, grown by doubling. All meshes are written into them one after
//!   another, and each is drawn with its clip rectangle (in pixels, clamped
//!   to the target) as the scissor. The slot's fence has signalled before the
//!   host writes them again, and host writes before a submit need no barrier.
//! - Nothing to draw, a target of 0×0 or a texture id egui never sent draws
//!   nothing and fails nothing: the HUD is never a reason for a frame to fail.

use std::collections::HashMap;

use ash::vk;
use egui::epaint::{ClippedPrimitive, ImageDelta, Primitive, Vertex};
use egui::{ImageData, TextureId, TexturesDelta};
use gpu_allocator::MemoryLocation;

use crate::barriers::{uses, Access};
use crate::config::FRAMES_IN_FLIGHT;
use crate::context::Context;
use crate::frame::Frame;
use crate::frames::Descriptor;
use crate::memory::{full_range, Buffer, Image, Released};
use crate::owned::Sampler;
use crate::pipeline::{binding, graphics_pipeline, GraphicsDesc, LayoutDesc, PassTarget, Pipeline};
use crate::sampler::create_sampler;
use crate::{shaders, Error};

/// Format of the HUD's textures: egui's colours are sRGB-encoded.
const TEXTURE_FORMAT: vk::Format = vk::Format::R8G8B8A8_SRGB;
/// Bytes of one `epaint::Vertex`.
const VERTEX_BYTES: u64 = std::mem::size_of::<Vertex>() as u64;

/// One frame of the HUD, as egui produced it.
#[derive(Clone, Debug, Default)]
pub struct HudDraw {
    /// The tessellated shapes, in draw order.
    pub primitives: Vec<ClippedPrimitive>,
    /// Textures to create, update and free.
    pub textures: TexturesDelta,
    /// Physical pixels per egui point.
    pub pixels_per_point: f32,
}

impl HudDraw {
    /// Takes `next` as the frame to draw. Texture changes accumulate: a frame
    /// that was never drawn (the window was minimized) still delivers its
    /// uploads and frees, in order, before the next one's.
    pub fn replace_with(&mut self, next: HudDraw) {
        let HudDraw {
            primitives,
            textures,
            pixels_per_point,
        } = next;
        self.primitives = primitives;
        self.textures.append(textures);
        self.pixels_per_point = pixels_per_point;
    }
}

/// A frame slot's geometry buffers.
struct SlotBuffers {
    vertices: Buffer,
    indices: Buffer,
}

/// The HUD pipeline, its sampler, egui's textures and the per-slot geometry.
pub struct HudPass {
    pipeline: Pipeline,
    sampler: Sampler,
    textures: HashMap<TextureId, Image>,
    slots: Vec<Option<SlotBuffers>>,
}

/// Where the HUD is drawn: a framebuffer of the overlay render pass.
#[derive(Clone, Copy, Debug)]
pub struct HudTarget {
    pub render_pass: vk::RenderPass,
    pub framebuffer: vk::Framebuffer,
    pub extent: vk::Extent2D,
}

impl HudPass {
    /// Creates the pipeline for `overlay_render_pass`.
    pub fn new(ctx: &Context, overlay_render_pass: vk::RenderPass) -> Result<HudPass, Error> {
        let set0 = [binding(
            0,
            vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
            vk::ShaderStageFlags::FRAGMENT,
        )];
        let vertex_bindings = [vk::VertexInputBindingDescription {
            binding: 0,
            stride: VERTEX_BYTES as u32,
            input_rate: vk::VertexInputRate::VERTEX,
        }];
        let attribute = |location, format, offset| vk::VertexInputAttributeDescription {
            location,
            binding: 0,
            format,
            offset,
        };
        let vertex_attributes = [
            attribute(0, vk::Format::R32G32_SFLOAT, 0),
            attribute(1, vk::Format::R32G32_SFLOAT, 8),
            attribute(2, vk::Format::R8G8B8A8_UNORM, 16),
        ];
        let pipeline = graphics_pipeline(
            ctx,
            "hud",
            &shaders::HUD_VERT,
            &shaders::HUD_FRAG,
            &LayoutDesc {
                sets: &[&set0],
                push_constant_size: 8,
            },
            &GraphicsDesc {
                vertex_bindings: &vertex_bindings,
                vertex_attributes: &vertex_attributes,
                target: PassTarget {
                    render_pass: overlay_render_pass,
                    samples: vk::SampleCountFlags::TYPE_1,
                },
                cull_mode: vk::CullModeFlags::NONE,
                depth_compare: vk::CompareOp::ALWAYS,
                depth_write: false,
                alpha_blend: true,
            },
            &[],
        )?;
        let sampler = create_sampler(ctx, vk::Filter::LINEAR, "hud sampler")?;
        Ok(HudPass {
            pipeline,
            sampler,
            textures: HashMap::new(),
            slots: (0..FRAMES_IN_FLIGHT).map(|_| None).collect(),
        })
    }

    /// Records the texture changes, then the overlay render pass with the
    /// HUD's meshes, then releases the textures egui freed.
    pub fn record(
        &mut self,
        frame: &mut Frame,
        target: &HudTarget,
        draw: &HudDraw,
    ) -> Result<(), Error> {
        frame.pass("hud", |frame| {
            for (id, delta) in &draw.textures.set {
                self.update_texture(frame, *id, delta)?;
            }
            let drawn = self.draw(frame, target, draw);
            for id in &draw.textures.free {
                if let Some(image) = self.textures.remove(id) {
                    frame.deferred.push(frame.number, Released::Image(image));
                }
            }
            drawn
        })
    }

    /// Creates or updates the texture `id` from `delta`.
    fn update_texture(
        &mut self,
        frame: &mut Frame,
        id: TextureId,
        delta: &ImageDelta,
    ) -> Result<(), Error> {
        let ImageData::Color(image) = &delta.image;
        let [width, height] = image.size;
        if width == 0 || height == 0 {
            return Ok(());
        }
        let extent = vk::Extent2D {
            width: width as u32,
            height: height as u32,
        };
        let ctx = frame.ctx;
        let (offset, fresh) = match delta.pos {
            None => {
                let created = Image::new(
                    ctx,
                    &format!("hud texture {id:?}"),
                    extent,
                    TEXTURE_FORMAT,
                    vk::ImageUsageFlags::SAMPLED | vk::ImageUsageFlags::TRANSFER_DST,
                )?;
                if let Some(old) = self.textures.insert(id, created) {
                    frame.deferred.push(frame.number, Released::Image(old));
                }
                ([0, 0], true)
            }
            Some(pos) => (pos, false),
        };
        let Some(texture) = self.textures.get(&id) else {
            log::warn!("hud: update of texture {id:?}, which egui never created");
            return Ok(());
        };
        let fits = |start: usize, size: usize, limit: u32| {
            start
                .checked_add(size)
                .is_some_and(|end| end <= limit as usize)
        };
        if !fits(offset[0], width, texture.extent.width)
            || !fits(offset[1], height, texture.extent.height)
        {
            log::warn!("hud: update of texture {id:?} outside its extent");
            return Ok(());
        }
        let pixels: &[u8] = bytemuck::cast_slice(&image.pixels);
        let mut staging = Buffer::new(
            ctx,
            &format!("hud texture {id:?} staging"),
            pixels.len() as u64,
            vk::BufferUsageFlags::TRANSFER_SRC,
            MemoryLocation::CpuToGpu,
        )?;
        staging.write(0, pixels)?;
        let barrier = |old_layout, new_layout, src_access, dst_access| {
            vk::ImageMemoryBarrier::default()
                .src_access_mask(src_access)
                .dst_access_mask(dst_access)
                .old_layout(old_layout)
                .new_layout(new_layout)
                .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .image(texture.raw)
                .subresource_range(full_range(vk::ImageAspectFlags::COLOR))
        };
        // A new image has no contents to keep. An updated one was last read
        // by earlier frames' fragment shaders, or written by an earlier
        // update of this frame.
        let (old_layout, src_stage, src_access) = if fresh {
            (
                vk::ImageLayout::UNDEFINED,
                vk::PipelineStageFlags::TOP_OF_PIPE,
                vk::AccessFlags::empty(),
            )
        } else {
            (
                vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
                vk::PipelineStageFlags::FRAGMENT_SHADER | vk::PipelineStageFlags::TRANSFER,
                vk::AccessFlags::TRANSFER_WRITE,
            )
        };
        let to_transfer = barrier(
            old_layout,
            vk::ImageLayout::TRANSFER_DST_OPTIMAL,
            src_access,
            vk::AccessFlags::TRANSFER_WRITE,
        );
        let to_shader = barrier(
            vk::ImageLayout::TRANSFER_DST_OPTIMAL,
            vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
            vk::AccessFlags::TRANSFER_WRITE,
            vk::AccessFlags::SHADER_READ,
        );
        let region = vk::BufferImageCopy::default()
            .image_subresource(vk::ImageSubresourceLayers {
                aspect_mask: vk::ImageAspectFlags::COLOR,
                mip_level: 0,
                base_array_layer: 0,
                layer_count: 1,
            })
            .image_offset(vk::Offset3D {
                x: offset[0] as i32,
                y: offset[1] as i32,
                z: 0,
            })
            .image_extent(vk::Extent3D {
                width: extent.width,
                height: extent.height,
                depth: 1,
            });
        let device = &ctx.device;
        // SAFETY: the command buffer is recording outside a render pass; the
        // image and the staging buffer live until this frame has completed.
        unsafe {
            device.cmd_pipeline_barrier(
                frame.cmd,
                src_stage,
                vk::PipelineStageFlags::TRANSFER,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &[to_transfer],
            );
            device.cmd_copy_buffer_to_image(
                frame.cmd,
                staging.raw,
                texture.raw,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                &[region],
            );
            device.cmd_pipeline_barrier(
                frame.cmd,
                vk::PipelineStageFlags::TRANSFER,
                vk::PipelineStageFlags::FRAGMENT_SHADER,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &[to_shader],
            );
        }
        frame.deferred.push(frame.number, Released::Buffer(staging));
        Ok(())
    }

    /// Writes every mesh into the slot's buffers and draws them in the
    /// overlay render pass.
    fn draw(&mut self, frame: &mut Frame, target: &HudTarget, draw: &HudDraw) -> Result<(), Error> {
        let extent = target.extent;
        let pixels_per_point = draw.pixels_per_point;
        if extent.width == 0
            || extent.height == 0
            || !pixels_per_point.is_finite()
            || pixels_per_point <= 0.0
        {
            return Ok(());
        }
        let meshes: Vec<(egui::Rect, &egui::epaint::Mesh)> = draw
            .primitives
            .iter()
            .filter_map(|primitive| match &primitive.primitive {
                Primitive::Mesh(mesh) if !mesh.indices.is_empty() => {
                    Some((primitive.clip_rect, mesh))
                }
                Primitive::Mesh(_) => None,
                Primitive::Callback(_) => {
                    log::debug!("hud: paint callbacks are not supported; skipped");
                    None
                }
            })
            .collect();
        if meshes.is_empty() {
            return Ok(());
        }
        let vertex_count: usize = meshes.iter().map(|(_, mesh)| mesh.vertices.len()).sum();
        let index_count: usize = meshes.iter().map(|(_, mesh)| mesh.indices.len()).sum();
        let buffers = self.slot_buffers(frame, vertex_count, index_count)?;
        let (mut vertex_at, mut index_at) = (0u64, 0u64);
        for (_, mesh) in &meshes {
            buffers
                .vertices
                .write(vertex_at * VERTEX_BYTES, &mesh.vertices)?;
            buffers.indices.write(index_at * 4, &mesh.indices)?;
            vertex_at += mesh.vertices.len() as u64;
            index_at += mesh.indices.len() as u64;
        }
        let (vertices, indices) = (buffers.vertices.raw, buffers.indices.raw);
        frame.uses(&[
            uses(vertices, Access::VertexInput),
            uses(indices, Access::VertexInput),
        ]);
        let mut sets: HashMap<TextureId, vk::DescriptorSet> = HashMap::new();
        let device = &frame.ctx.device;
        let cmd = frame.cmd;
        let area = vk::Rect2D {
            offset: vk::Offset2D::default(),
            extent,
        };
        let begin = vk::RenderPassBeginInfo::default()
            .render_pass(target.render_pass)
            .framebuffer(target.framebuffer)
            .render_area(area);
        let viewport = vk::Viewport {
            x: 0.0,
            y: 0.0,
            width: extent.width as f32,
            height: extent.height as f32,
            min_depth: 0.0,
            max_depth: 1.0,
        };
        let screen_points = [
            extent.width as f32 / pixels_per_point,
            extent.height as f32 / pixels_per_point,
        ];
        // SAFETY: recording outside a render pass; the framebuffer belongs to
        // a render pass compatible with the overlay pass; the buffers live
        // as long as the slot.
        unsafe {
            device.cmd_begin_render_pass(cmd, &begin, vk::SubpassContents::INLINE);
            device.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, self.pipeline.raw);
            device.cmd_set_viewport(cmd, 0, &[viewport]);
            device.cmd_bind_vertex_buffers(cmd, 0, &[vertices], &[0]);
            device.cmd_bind_index_buffer(cmd, indices, 0, vk::IndexType::UINT32);
            device.cmd_push_constants(
                cmd,
                self.pipeline.layout,
                vk::ShaderStageFlags::VERTEX | vk::ShaderStageFlags::FRAGMENT,
                0,
                bytemuck::cast_slice(&screen_points),
            );
        }
        let (mut first_vertex, mut first_index) = (0i32, 0u32);
        let mut result = Ok(());
        for (clip, mesh) in &meshes {
            let mesh_first_vertex = first_vertex;
            let mesh_first_index = first_index;
            first_vertex += mesh.vertices.len() as i32;
            first_index += mesh.indices.len() as u32;
            let Some(scissor) = scissor_of(*clip, pixels_per_point, extent) else {
                continue;
            };
            let Some(texture) = self.textures.get(&mesh.texture_id) else {
                continue;
            };
            let set = match sets.get(&mesh.texture_id) {
                Some(set) => *set,
                None => {
                    let descriptors = [Descriptor::Sampled(texture.view, *self.sampler)];
                    match frame.descriptor_set(self.pipeline.set_layouts[0], &descriptors) {
                        Ok(set) => *sets.entry(mesh.texture_id).or_insert(set),
                        Err(err) => {
                            result = Err(err);
                            break;
                        }
                    }
                }
            };
            // SAFETY: inside the render pass begun above, with its pipeline
            // bound; the ranges lie within what was written this frame.
            unsafe {
                device.cmd_set_scissor(cmd, 0, &[scissor]);
                device.cmd_bind_descriptor_sets(
                    cmd,
                    vk::PipelineBindPoint::GRAPHICS,
                    self.pipeline.layout,
                    0,
                    &[set],
                    &[],
                );
                device.cmd_draw_indexed(
                    cmd,
                    mesh.indices.len() as u32,
                    1,
                    mesh_first_index,
                    mesh_first_vertex,
                    0,
                );
            }
        }
        // SAFETY: matches the begin above.
        unsafe { device.cmd_end_render_pass(cmd) };
        result
    }

    /// The current slot's buffers, grown (by doubling) to hold the counts;
    /// replaced buffers are released once this frame has completed.
    fn slot_buffers(
        &mut self,
        frame: &mut Frame,
        vertex_count: usize,
        index_count: usize,
    ) -> Result<&mut SlotBuffers, Error> {
        let vertex_bytes = vertex_count as u64 * VERTEX_BYTES;
        let index_bytes = index_count as u64 * 4;
        let slot = &mut self.slots[frame.slot];
        let fits = slot
            .as_ref()
            .is_some_and(|b| b.vertices.size >= vertex_bytes && b.indices.size >= index_bytes);
        if !fits {
            let (mut vertex_capacity, mut index_capacity) = (64 * 1024, 32 * 1024);
            if let Some(old) = slot.take() {
                vertex_capacity = old.vertices.size;
                index_capacity = old.indices.size;
                frame.forget(old.vertices.raw);
                frame.forget(old.indices.raw);
                frame
                    .deferred
                    .push(frame.number, Released::Buffer(old.vertices));
                frame
                    .deferred
                    .push(frame.number, Released::Buffer(old.indices));
            }
            while vertex_capacity < vertex_bytes {
                vertex_capacity *= 2;
            }
            while index_capacity < index_bytes {
                index_capacity *= 2;
            }
            let name = |what| format!("hud {what} (slot {})", frame.slot);
            *slot = Some(SlotBuffers {
                vertices: Buffer::new(
                    frame.ctx,
                    &name("vertices"),
                    vertex_capacity,
                    vk::BufferUsageFlags::VERTEX_BUFFER,
                    MemoryLocation::CpuToGpu,
                )?,
                indices: Buffer::new(
                    frame.ctx,
                    &name("indices"),
                    index_capacity,
                    vk::BufferUsageFlags::INDEX_BUFFER,
                    MemoryLocation::CpuToGpu,
                )?,
            });
        }
        slot.as_mut()
            .ok_or_else(|| Error::Config("hud: slot buffers missing".to_owned()))
    }
}

/// A clip rectangle in points as a scissor in pixels, clamped to `extent`;
/// `None` when nothing of it is on screen.
fn scissor_of(clip: egui::Rect, pixels_per_point: f32, extent: vk::Extent2D) -> Option<vk::Rect2D> {
    let clamp_x = |v: f32| {
        (v * pixels_per_point)
            .round()
            .clamp(0.0, extent.width as f32) as u32
    };
    let clamp_y = |v: f32| {
        (v * pixels_per_point)
            .round()
            .clamp(0.0, extent.height as f32) as u32
    };
    let (min_x, min_y) = (clamp_x(clip.min.x), clamp_y(clip.min.y));
    let (max_x, max_y) = (clamp_x(clip.max.x), clamp_y(clip.max.y));
    (max_x > min_x && max_y > min_y).then(|| vk::Rect2D {
        offset: vk::Offset2D {
            x: min_x as i32,
            y: min_y as i32,
        },
        extent: vk::Extent2D {
            width: max_x - min_x,
            height: max_y - min_y,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scissor_is_clamped_to_the_target_and_empty_off_screen() {
        let extent = vk::Extent2D {
            width: 100,
            height: 50,
        };
        let rect =
            |x0, y0, x1, y1| egui::Rect::from_min_max(egui::pos2(x0, y0), egui::pos2(x1, y1));
        let inside = scissor_of(rect(10.0, 5.0, 20.0, 15.0), 2.0, extent).unwrap();
        assert_eq!((inside.offset.x, inside.offset.y), (20, 10));
        assert_eq!((inside.extent.width, inside.extent.height), (20, 20));
        let clamped = scissor_of(rect(-5.0, -5.0, 1e9, 1e9), 1.0, extent).unwrap();
        assert_eq!((clamped.extent.width, clamped.extent.height), (100, 50));
        assert!(scissor_of(rect(200.0, 0.0, 300.0, 10.0), 1.0, extent).is_none());
        let odd = scissor_of(rect(f32::NAN, 0.0, 10.0, 10.0), 1.0, extent);
        assert!(odd.is_none_or(|r| r.extent.width <= 100 && r.extent.height <= 50));
    }
}
