//! Runs the renderer in a winit window: the application side of presenting.
//! The engine makes the surface and swapchain from the window's raw handles
//! (`horde::swapchain`); the window, its event loop, input and camera
//! controls live here, so the engine does not depend on winit.
//!
//! winit 0.30's `ApplicationHandler`: the window, the Vulkan context, the
//! surface, the renderer and the swapchain are created in `resumed`; events
//! arrive in `window_event`; `about_to_wait` requests the next redraw, so the
//! loop renders continuously.
//!
//! - A resize, `OUT_OF_DATE` or `SUBOPTIMAL` marks the swapchain for recreation
//!   before the next frame (after the device is idle).
//! - A 0×0 size (minimized) leaves the swapchain empty; frames are skipped,
//!   not drawn, until the window has a size again.
//! - Drag with the left mouse button to orbit, scroll to zoom, Esc to quit;
//!   L colours by LOD, B shows bounding spheres, F freezes culling, + and -
//!   change the LOD bias.
//! - Twice a second the title shows frames per second, GPU milliseconds per
//!   pass and the units visible per LOD.
//! - A [`WindowScript`] drives the same code paths from tests: resizes,
//!   minimize/restore and close at given frame numbers.

use ash::vk;
use horde::camera::Camera;
use horde::context::{Context, ContextDesc};
use horde::renderer::{RenderSettings, Renderer, WindowFrame};
use horde::scene::Scene;
use horde::swapchain::{choose_format, create_surface, surface_extensions, Swapchain};
use horde::world::World;
use horde::Error;
use winit::application::ApplicationHandler;
use winit::dpi::PhysicalSize;
use winit::event::{ElementState, MouseButton, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, EventLoop};
use winit::keyboard::{Key, NamedKey};
use winit::raw_window_handle::{HasDisplayHandle, HasWindowHandle};
use winit::window::{Window, WindowId};

/// Something a script does to the window at a given frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WindowAction {
    /// Request a new inner size.
    Resize(u32, u32),
    /// Minimize. Without a window manager (Xvfb) the window system ignores the
    /// request, so the 0×0 size a minimized window reports is also fed to the
    /// resize handler directly.
    Minimize,
    /// Restore from minimized, back to the current inner size.
    Restore,
    /// Close the window and end the loop.
    Close,
}

/// Actions keyed by frame number (counting skipped frames too).
pub type WindowScript = Vec<(u64, WindowAction)>;

/// Called once per frame before recording, with the frame's `dt` in
/// seconds: the place to give units orders.
pub type FrameHook = Box<dyn FnMut(&mut World, f32)>;

/// How to run the window.
pub struct WindowOptions {
    pub title: String,
    pub width: u32,
    pub height: u32,
    pub present_mode: vk::PresentModeKHR,
    pub context: ContextDesc,
    pub scene: Scene,
    pub camera: Camera,
    pub script: WindowScript,
    pub on_frame: Option<FrameHook>,
}

/// What a window run did, for tests and logs.
#[derive(Clone, Debug, Default)]
pub struct WindowReport {
    pub frames_presented: u64,
    pub frames_skipped: u64,
    /// Swapchains created with a non-zero size, the first included.
    pub swapchains_created: u32,
    pub validation_errors: u32,
    pub validation_warnings: u32,
    pub validation_messages: Vec<String>,
    /// gpu-allocator allocations still alive at shutdown (should be none).
    pub leaked_allocations: Vec<String>,
    /// GPU objects still holding the device at shutdown (should be none).
    pub leaked_objects: usize,
    pub device_name: String,
    pub gpu_ms: Vec<(String, f64)>,
}

/// Fails when the window run saw validation errors or leaked GPU memory or
/// objects, so a window run exits non-zero as a headless one does.
pub fn window_verdict(report: &WindowReport) -> anyhow::Result<()> {
    if report.validation_errors > 0 {
        anyhow::bail!(
            "{} validation errors: {:?}",
            report.validation_errors,
            report.validation_messages
        );
    }
    if !report.leaked_allocations.is_empty() || report.leaked_objects > 0 {
        anyhow::bail!(
            "leaked GPU allocations {:?} and {} objects at exit",
            report.leaked_allocations,
            report.leaked_objects
        );
    }
    Ok(())
}

/// Fields drop in declaration order: the renderer (after waiting for the
/// device), the swapchain and its surface, the context, and last the window
/// the surface was made for. `shutdown` drops them in the same order.
struct Running {
    renderer: Renderer,
    swapchain: Swapchain,
    ctx: Context,
    window: Window,
    window_extent: vk::Extent2D,
    needs_recreate: bool,
}

struct App {
    options: WindowOptions,
    running: Option<Running>,
    report: WindowReport,
    error: Option<Error>,
    frame: u64,
    dragging: bool,
    last_cursor: Option<(f64, f64)>,
    last_frame: Option<std::time::Instant>,
    /// When the title was last updated, and frames presented since.
    title_update: Option<(std::time::Instant, u64)>,
}

/// Opens a window and renders until it is closed (or the script closes it).
pub fn run_window(options: WindowOptions) -> Result<WindowReport, Error> {
    let mut builder = EventLoop::builder();
    #[cfg(target_os = "linux")]
    {
        // Tests run the loop off the main thread.
        use winit::platform::x11::EventLoopBuilderExtX11;
        builder.with_any_thread(true);
    }
    let event_loop = builder
        .build()
        .map_err(|err| Error::Window(err.to_string()))?;
    let mut app = App {
        options,
        running: None,
        report: WindowReport::default(),
        error: None,
        frame: 0,
        dragging: false,
        last_cursor: None,
        last_frame: None,
        title_update: None,
    };
    event_loop
        .run_app(&mut app)
        .map_err(|err| Error::Window(err.to_string()))?;
    app.shutdown();
    match app.error.take() {
        Some(err) => Err(err),
        None => Ok(app.report),
    }
}

fn extent_of(size: PhysicalSize<u32>) -> vk::Extent2D {
    vk::Extent2D {
        width: size.width,
        height: size.height,
    }
}

impl App {
    fn start(&mut self, event_loop: &ActiveEventLoop) -> Result<(), Error> {
        let attributes = Window::default_attributes()
            .with_title(self.options.title.clone())
            .with_inner_size(PhysicalSize::new(self.options.width, self.options.height));
        let window = event_loop
            .create_window(attributes)
            .map_err(|err| Error::Window(err.to_string()))?;
        let display = window
            .display_handle()
            .map_err(|err| Error::Window(err.to_string()))?
            .as_raw();
        let window_handle = window
            .window_handle()
            .map_err(|err| Error::Window(err.to_string()))?
            .as_raw();
        let mut desc = self.options.context.clone();
        desc.surface_extensions = surface_extensions(display)?;
        let ctx = Context::new(&desc)?;
        if !ctx.surface_supported {
            return Err(Error::Config(
                "the device cannot present (no VK_KHR_swapchain)".to_owned(),
            ));
        }
        // SAFETY: the window outlives the surface: `Running` drops the
        // swapchain, which owns the surface, before the window.
        let surface = unsafe { create_surface(&ctx, display, window_handle) }?;
        let format = choose_format(&ctx, *surface)?;
        let renderer = Renderer::new(
            &ctx,
            format.format,
            vk::ImageLayout::PRESENT_SRC_KHR,
            &self.options.scene,
        )?;
        let window_extent = extent_of(window.inner_size());
        let swapchain = Swapchain::new(
            &ctx,
            surface,
            format,
            *renderer.render_pass,
            self.options.present_mode,
            window_extent,
        )?;
        log::info!(
            "window: {}x{}, {:?}, {:?}",
            swapchain.extent.width,
            swapchain.extent.height,
            swapchain.format.format,
            swapchain.present_mode
        );
        self.report.device_name = ctx.device_name.clone();
        self.running = Some(Running {
            renderer,
            swapchain,
            ctx,
            window,
            window_extent,
            needs_recreate: false,
        });
        Ok(())
    }

    fn fail(&mut self, event_loop: &ActiveEventLoop, err: Error) {
        log::error!("{err}");
        self.error.get_or_insert(err);
        event_loop.exit();
    }

    fn apply_script(&mut self, event_loop: &ActiveEventLoop) {
        let actions: Vec<WindowAction> = self
            .options
            .script
            .iter()
            .filter(|(frame, _)| *frame == self.frame)
            .map(|(_, action)| *action)
            .collect();
        for action in actions {
            log::info!("frame {}: {action:?}", self.frame);
            let Some(running) = self.running.as_mut() else {
                return;
            };
            match action {
                WindowAction::Resize(width, height) => {
                    let _ = running
                        .window
                        .request_inner_size(PhysicalSize::new(width, height));
                }
                WindowAction::Minimize => {
                    running.window.set_minimized(true);
                    running.window_extent = vk::Extent2D::default();
                    running.needs_recreate = true;
                }
                WindowAction::Restore => {
                    running.window.set_minimized(false);
                    running.window_extent = extent_of(running.window.inner_size());
                    running.needs_recreate = true;
                }
                WindowAction::Close => event_loop.exit(),
            }
        }
    }

    fn redraw(&mut self) -> Result<(), Error> {
        let Some(running) = self.running.as_mut() else {
            return Ok(());
        };
        if running.needs_recreate {
            // SAFETY: waiting for idle before the swapchain's images go away.
            unsafe { running.ctx.device.device_wait_idle() }?;
            running
                .swapchain
                .recreate(&running.ctx, running.window_extent)?;
            running.needs_recreate = false;
        }
        let now = std::time::Instant::now();
        // Long stalls (a drag of the window, a debugger) do not jump animation.
        let dt = self
            .last_frame
            .map_or(0.0, |last| (now - last).as_secs_f32().min(0.1));
        self.last_frame = Some(now);
        if let Some(hook) = self.options.on_frame.as_mut() {
            hook(&mut running.renderer.world, dt);
        }
        let outcome = running.renderer.render_window(
            &running.ctx,
            &running.swapchain,
            &self.options.camera,
            dt,
        )?;
        let (since, presented) = *self
            .title_update
            .get_or_insert((now, self.report.frames_presented));
        let elapsed = (now - since).as_secs_f64();
        if elapsed >= 0.5 {
            let renderer = &running.renderer;
            let passes: Vec<String> = renderer
                .profiler
                .last_frame()
                .iter()
                .map(|(name, ms)| format!("{name} {ms:.2}"))
                .collect();
            running.window.set_title(&format!(
                "{} | {:.0} fps | GPU ms: {} | units per LOD {:?}, props {}",
                self.options.title,
                (self.report.frames_presented - presented) as f64 / elapsed,
                passes.join(", "),
                renderer.stats.units_per_lod,
                renderer.stats.props_visible()
            ));
            self.title_update = Some((now, self.report.frames_presented));
        }
        match outcome {
            WindowFrame::Presented => self.report.frames_presented += 1,
            WindowFrame::PresentedNeedsRecreate => {
                self.report.frames_presented += 1;
                running.needs_recreate = true;
            }
            WindowFrame::Skipped => {
                self.report.frames_skipped += 1;
                // Out of date while visible: rebuild. Minimized: wait, but do
                // not spin the CPU.
                if running.swapchain.is_empty() {
                    std::thread::sleep(std::time::Duration::from_millis(5));
                }
                running.needs_recreate =
                    running.window_extent.width > 0 && running.window_extent.height > 0;
            }
        }
        Ok(())
    }

    fn shutdown(&mut self) {
        let Some(running) = self.running.take() else {
            return;
        };
        let Running {
            renderer,
            swapchain,
            ctx,
            window,
            ..
        } = running;
        self.report.swapchains_created = swapchain.generation;
        self.report.gpu_ms = renderer
            .profiler
            .last_frame()
            .iter()
            .map(|(name, ms)| ((*name).to_owned(), *ms))
            .collect();
        drop(renderer);
        drop(swapchain);
        self.report.leaked_allocations = ctx.live_allocations();
        self.report.leaked_objects = ctx.live_device_objects();
        // Read after the device is destroyed: that is when the validation layer
        // reports leaked Vulkan objects.
        let validation = ctx.validation_counts();
        drop(ctx);
        self.report.validation_errors = validation.errors();
        self.report.validation_warnings = validation.warnings();
        self.report.validation_messages = validation.messages();
        drop(window);
    }
}

/// Debug keys: L colours by LOD, B shows bounding spheres, F freezes culling
/// at the current camera, + and - scale the LOD bias.
fn toggle(settings: &mut RenderSettings, key: &str, camera: &Camera) {
    match key {
        "l" | "L" => settings.color_by_lod = !settings.color_by_lod,
        "b" | "B" => settings.show_bounds = !settings.show_bounds,
        "f" | "F" => {
            settings.cull_camera = match settings.cull_camera {
                Some(_) => None,
                None => Some(*camera),
            }
        }
        "+" | "=" => settings.lod_bias = (settings.lod_bias * 1.25).min(64.0),
        "-" => settings.lod_bias = (settings.lod_bias / 1.25).max(1.0 / 64.0),
        _ => return,
    }
    log::info!(
        "settings: colour by LOD {}, bounds {}, culling frozen {}, LOD bias {:.2}",
        settings.color_by_lod,
        settings.show_bounds,
        settings.cull_camera.is_some(),
        settings.lod_bias
    );
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.running.is_none() && self.error.is_none() {
            if let Err(err) = self.start(event_loop) {
                self.fail(event_loop, err);
            }
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::KeyboardInput { event, .. }
                if event.state == ElementState::Pressed
                    && event.logical_key == Key::Named(NamedKey::Escape) =>
            {
                event_loop.exit()
            }
            WindowEvent::KeyboardInput { event, .. } if event.state == ElementState::Pressed => {
                if let (Some(running), Key::Character(text)) =
                    (self.running.as_mut(), &event.logical_key)
                {
                    toggle(&mut running.renderer.settings, text, &self.options.camera);
                }
            }
            WindowEvent::Resized(size) => {
                if let Some(running) = self.running.as_mut() {
                    running.window_extent = extent_of(size);
                    running.needs_recreate = true;
                }
            }
            WindowEvent::MouseInput {
                state,
                button: MouseButton::Left,
                ..
            } => {
                self.dragging = state == ElementState::Pressed;
            }
            WindowEvent::CursorMoved { position, .. } => {
                if let (true, Some((x, y))) = (self.dragging, self.last_cursor) {
                    let (dx, dy) = ((position.x - x) as f32, (position.y - y) as f32);
                    self.options.camera.orbit(dx * 0.005, dy * 0.005, 1.0);
                }
                self.last_cursor = Some((position.x, position.y));
            }
            WindowEvent::MouseWheel { delta, .. } => {
                let lines = match delta {
                    MouseScrollDelta::LineDelta(_, y) => y,
                    MouseScrollDelta::PixelDelta(p) => p.y as f32 / 40.0,
                };
                self.options.camera.orbit(0.0, 0.0, 0.9f32.powf(lines));
            }
            WindowEvent::RedrawRequested => {
                self.apply_script(event_loop);
                if let Err(err) = self.redraw() {
                    self.fail(event_loop, err);
                }
                self.frame += 1;
            }
            _ => {}
        }
    }

    fn about_to_wait(&mut self, _event_loop: &ActiveEventLoop) {
        if let Some(running) = &self.running {
            running.window.request_redraw();
        }
    }
}
