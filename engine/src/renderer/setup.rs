//! Creating the renderer: the world loaded from the scene, the scene's
//! simulation started, and every pass and per-slot buffer made; and the
//! check that the frame's strategy can draw the world.

use ash::vk;
use gpu_allocator::MemoryLocation;

use super::replay::RouteSnapshot;
use super::targets::SingleSampled;
use super::{
    Environment, RenderSettings, Renderer, Strategy, DEFAULT_FAR_FIELD_PX,
    SOFTWARE_DEFAULT_FAR_FIELD_PX,
};
use crate::anim::Controller;
use crate::barriers::Tracker;
use crate::baselines::cpu_cull::{refuse_gpu_motion, CpuCullPass};
use crate::baselines::instanced::InstancedPass;
use crate::baselines::naive::NaivePass;
use crate::config::FRAMES_IN_FLIGHT;
use crate::context::Context;
use crate::frames::Frames;
use crate::gpu_types::FrameGlobals;
use crate::memory::{Buffer, DeferredRelease};
use crate::passes::animate::AnimatePass;
use crate::passes::bounds::BoundsPass;
use crate::passes::cull::CullPass;
use crate::passes::depth_pyramid::DepthPyramidPass;
use crate::passes::draw::DrawPass;
use crate::passes::far_field::FarFieldPass;
use crate::passes::hud::HudPass;
use crate::passes::impostor::ImpostorPass;
use crate::passes::shadow::ShadowPass;
use crate::passes::simulate::SimulatePass;
use crate::passes::statistics::{DrawStats, StatisticsPass};
use crate::passes::upload::UploadPass;
use crate::pipeline::PassTarget;
use crate::profiler::Profiler;
use crate::scene::Scene;
use crate::target::{create_overlay_render_pass, MainPasses, Msaa};
use crate::world::{Ground, World};
use crate::Error;

impl Renderer {
    /// Creates the renderer for targets of `color_format` whose colour ends in
    /// `color_final_layout` (`TRANSFER_SRC_OPTIMAL` offscreen, `PRESENT_SRC_KHR`
    /// for a window), drawn with `msaa`, loads the scene's types and places
    /// its units and props.
    pub fn new(
        ctx: &Context,
        color_format: vk::Format,
        color_final_layout: vk::ImageLayout,
        msaa: Msaa,
        scene: &Scene,
    ) -> Result<Renderer, Error> {
        let unit_types: Vec<&crate::asset::Asset> = scene.unit_types.iter().collect();
        let prop_types: Vec<&crate::asset::Asset> = scene.prop_types.iter().collect();
        let controllers: Vec<Controller> = scene
            .unit_types
            .iter()
            .enumerate()
            .map(|(index, asset)| match scene.controllers.get(index) {
                Some(Some(controller)) => controller.clone(),
                _ => Controller::humanoid(asset.animation.as_ref().map_or(&[][..], |a| &a.clips)),
            })
            .collect();
        let ground = Ground {
            prop_types: &scene.ground_prop_types,
            texture: scene.ground_texture.as_ref(),
        };
        let mut world = World::new(ctx, &unit_types, &prop_types, &controllers, &ground)?;
        world.spawn_units(&scene.units)?;
        world.place_props(&scene.props)?;
        let simulation = match &scene.simulation {
            Some(start) => Some(start.start(ctx, &world.simulation_units())?),
            None => None,
        };
        world.simulated = simulation.is_some();
        let render_passes = MainPasses::new(ctx, color_format, color_final_layout, msaa)?;
        let pass_target = PassTarget {
            render_pass: *render_passes.whole,
            samples: msaa.samples(),
        };
        let overlay_render_pass =
            create_overlay_render_pass(ctx, color_format, color_final_layout)?;
        let readback_layout = vk::ImageLayout::TRANSFER_SRC_OPTIMAL;
        let readback_render_passes = if color_final_layout == readback_layout {
            None
        } else {
            Some((
                MainPasses::new(ctx, color_format, readback_layout, msaa)?,
                create_overlay_render_pass(ctx, color_format, readback_layout)?,
            ))
        };
        let single_sampled = match msaa {
            Msaa::Off => None,
            Msaa::X4 => Some(SingleSampled::new(ctx, color_format, &world)?),
        };
        let far_field = if ctx.far_field_supported {
            Some(FarFieldPass::new(ctx, pass_target, &world)?)
        } else {
            None
        };
        let impostor = if world.has_impostors() {
            Some(ImpostorPass::new(ctx, pass_target)?)
        } else {
            None
        };
        // Without the far field (the mobile tier) distant units are
        // impostors; with it, the far field is the faster of the two
        // (benches/results/impostors/).
        let settings = RenderSettings {
            far_field_px: match (&far_field, ctx.software_rasterizer) {
                (None, _) => 0.0,
                (Some(_), false) => DEFAULT_FAR_FIELD_PX,
                (Some(_), true) => SOFTWARE_DEFAULT_FAR_FIELD_PX,
            },
            impostors: far_field.is_none() && impostor.is_some(),
            ..RenderSettings::default()
        };
        let globals = (0..FRAMES_IN_FLIGHT)
            .map(|slot| {
                Buffer::new(
                    ctx,
                    &format!("frame {slot} globals"),
                    std::mem::size_of::<FrameGlobals>() as u64,
                    vk::BufferUsageFlags::UNIFORM_BUFFER,
                    MemoryLocation::CpuToGpu,
                )
            })
            .collect::<Result<Vec<_>, Error>>()?;
        Ok(Renderer {
            upload: UploadPass::new(ctx)?,
            simulation,
            simulate: SimulatePass::new(ctx)?,
            animate: AnimatePass::new(ctx)?,
            cull: CullPass::new(ctx)?,
            statistics: StatisticsPass::new(ctx)?,
            depth_pyramid: DepthPyramidPass::new(ctx, msaa.samples())?,
            bounds: BoundsPass::new(ctx, pass_target)?,
            draw: DrawPass::new(ctx, pass_target, world.encoding, world.bone_shape)?,
            shadow: ShadowPass::new(ctx, &world, &scene.ground_prop_types)?,
            hud: HudPass::new(ctx, *overlay_render_pass)?,
            hud_draw: None,
            instanced: InstancedPass::new(),
            cpu_cull: CpuCullPass::new(),
            naive: NaivePass::new(ctx, pass_target, &unit_types)?,
            far_field,
            impostor,
            frames: Frames::new(ctx)?,
            profiler: Profiler::new(ctx)?,
            tracker: Tracker::default(),
            world,
            render_passes,
            overlay_render_pass,
            readback_render_passes,
            single_sampled,
            color_format,
            msaa,
            globals,
            deferred: DeferredRelease::default(),
            environment: Environment::default(),
            settings,
            stats: DrawStats::default(),
            cpu_ms: 0.0,
            time: 0.0,
            budget: None,
            far_field_outruns_raster: !ctx.software_rasterizer,
            replay_routes: RouteSnapshot::default(),
            gpu: ctx.gpu.clone(),
        })
    }

    /// Fails, before anything is recorded, when the strategy cannot draw
    /// this world: the CPU baselines draw the CPU's unit state and cannot
    /// follow units the GPU moves.
    pub(super) fn check_strategy(&self) -> Result<(), Error> {
        match self.settings.strategy {
            Strategy::Naive | Strategy::CpuCulled => {
                refuse_gpu_motion(&self.world, self.settings.strategy.name())
            }
            Strategy::Instanced | Strategy::GpuDriven => Ok(()),
        }
    }
}
