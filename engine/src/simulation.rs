//! The simulation slot: where an application's GPU simulation runs in the
//! frame (step 2, after `upload`, before `animate`).
//!
//! The renderer core knows the units' GPU-owned state but no game rules. An
//! application that moves its units by rules of its own on the GPU (the
//! battle demo: the `horde-battle` crate, which depends on this one, never
//! the reverse) implements [`Simulation`] and names how to start it in its
//! scene ([`Scene::simulation`](crate::scene::Scene::simulation)). The
//! renderer starts it once the scene's units have spawned, then records it
//! every frame in this slot instead of the plain `simulate` pass, which
//! moves units by their velocities.
//!
//! What a simulation may write is what [`SimulationUnits`] hands it: the
//! units' placements and motions (the GPU-owned state that `animate`, `cull`
//! and `draw` read next) and their marks (a debug colour per unit), besides
//! buffers of its own. It declares its uses
//! through [`Frame::uses`] like any pass, so the barriers against `upload`
//! before it and `animate` after it follow from the declarations, and its
//! work shows in the frame graph (`frame_graph.rs`) and the profiler under
//! the scopes it opens with [`Frame::pass`].
//!
//! A simulation reads its results back without stalling the way the core's
//! statistics do: it copies them into a host-visible buffer of the frame
//! slot, and [`Simulation::frame_completed`] tells it when that slot's fence
//! has signalled.

use std::any::Any;
use std::sync::Arc;

use ash::vk;

use crate::context::Context;
use crate::frame::Frame;
use crate::Error;

/// The units' GPU-owned state a simulation reads and writes this frame
/// (`World::simulation_units`: the buffers move when the world grows).
#[derive(Clone, Copy, Debug)]
pub struct SimulationUnits {
    /// Unit slots, despawned ones included: the thread count.
    pub count: u32,
    /// `UnitInfo` per unit (read only: the CPU owns it).
    pub infos: vk::Buffer,
    /// `UnitPlacement` per unit: position and heading.
    pub placements: vk::Buffer,
    /// `UnitMotion` per unit: velocity and the animation inputs.
    pub motions: vk::Buffer,
    /// One RGBA8 word per unit (0 when spawned): a colour the simulation
    /// may mark the unit with, which `DEBUG_VIEW_MARKS` draws (the battle:
    /// its regiment's state).
    pub marks: vk::Buffer,
    /// Whether this frame draws the marks: a simulation may leave them
    /// unwritten otherwise, and must write every unit's while they are
    /// (they follow its steps: a paused simulation's marks stand still).
    pub marks_shown: bool,
}

/// A GPU simulation the frame records in its simulation slot.
pub trait Simulation: Any {
    /// Records this frame's work over `units`.
    fn record(&mut self, frame: &mut Frame, units: &SimulationUnits) -> Result<(), Error>;

    /// The fence of frame slot `slot` has signalled: what that slot's frame
    /// copied for the CPU may be read. Called oldest frame first.
    fn frame_completed(&mut self, slot: usize);

    /// For the application to reach its own type again
    /// ([`Renderer::simulation`](crate::renderer::Renderer::simulation)).
    fn as_any(&self) -> &dyn Any;

    /// As [`Simulation::as_any`], mutably.
    fn as_any_mut(&mut self) -> &mut dyn Any;
}

/// Starts a simulation over the units spawned so far.
pub type StartFn =
    dyn Fn(&Context, &SimulationUnits) -> Result<Box<dyn Simulation>, Error> + Send + Sync;

/// How a scene's simulation starts: shared, so a scene can be cloned and a
/// renderer made from it again (a window's surface recreated, a test's
/// second run).
#[derive(Clone)]
pub struct SimulationStart(pub Arc<StartFn>);

impl SimulationStart {
    /// Wraps the function that starts the simulation.
    pub fn new(
        start: impl Fn(&Context, &SimulationUnits) -> Result<Box<dyn Simulation>, Error>
            + Send
            + Sync
            + 'static,
    ) -> SimulationStart {
        SimulationStart(Arc::new(start))
    }

    /// Starts it.
    pub fn start(
        &self,
        ctx: &Context,
        units: &SimulationUnits,
    ) -> Result<Box<dyn Simulation>, Error> {
        (self.0)(ctx, units)
    }
}

impl std::fmt::Debug for SimulationStart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SimulationStart")
    }
}
