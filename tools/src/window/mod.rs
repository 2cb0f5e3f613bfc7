//! Runs the renderer in a winit window: the application side of presenting.
//! The engine makes the surface and swapchain from the window's raw handles
//! (`horde::swapchain`); the window, its event loop, input, camera controls
//! and HUD live here, so the engine does not depend on winit.
//!
//! winit 0.30's `ApplicationHandler`: the window, the Vulkan context, the
//! surface, the renderer, the swapchain and the HUD are created in `resumed`;
//! events arrive in `window_event`; `about_to_wait` requests the next redraw,
//! so the loop renders continuously.
//!
//! - A resize, `OUT_OF_DATE` or `SUBOPTIMAL` marks the swapchain for recreation
//!   before the next frame (after the device is idle).
//! - A 0×0 size (minimized) leaves the swapchain empty; frames are skipped,
//!   not drawn, and the HUD is not run, until the window has a size again.
//! - A lost surface (`VK_ERROR_SURFACE_LOST_KHR` from acquire, present or
//!   swapchain creation) is made again from the window's raw handles, with
//!   its swapchain, before the next frame. Where the window system cannot
//!   (the window is gone: the new surface is lost again before a frame is
//!   presented on it) the run ends with an error saying so.
//! - Focus: losing it releases every held key and button (their releases
//!   happen elsewhere and never arrive).
//! - Input: winit events become `Input`s, and one handler acts on them, so
//!   a [`WindowScript`]'s key presses and drags take the same path as real
//!   ones. egui sees real events first; what it consumes (a click on the
//!   panel) does not move the camera. Keys are physical (US layout
//!   positions):
//!   - camera (`camera_rig.rs`): W/A/S/D or the arrows move, E/PageUp and
//!     Q/PageDown go up and down, Shift is faster; drag with the left button
//!     to orbit, with the right to look around; scroll to zoom; 1, 2, 3 are
//!     the overview, front-line and ground-level presets of
//!     [`WindowOptions::scene_bounds`] at the window's aspect; C toggles
//!     the cinematic sweep along the front line;
//!   - L colours by LOD, B shows bounding spheres, F freezes culling, + and -
//!     change the LOD bias, P pauses, H hides or shows the HUD, Esc quits.
//! - Time: each frame's wall-clock dt (capped at 0.1 s) moves the camera.
//!   The simulation dt, which the [`FrameHook`] and the renderer's animation
//!   get, is that dt × the HUD's simulation speed, or 0 while paused
//!   ([`SimulationClock`]).
//! - The HUD (`hud.rs`) shows frame rate, GPU milliseconds per pass, units
//!   per LOD, tier and encoding, and the hook's [`HudLine`]s. Twice a second
//!   the title shows the frame rate too.
//! - A [`WindowScript`] drives the same code paths from tests: resizes,
//!   minimize/restore, focus changes, key presses and releases, drags,
//!   scrolls, a lost surface and close at given frame numbers. The
//!   [`WindowReport`] says what came of them.
//!
//! `options.rs` holds what the application passes in and gets back,
//! `input.rs` the inputs and debug keys, `running.rs` the presentation state
//! and the recreation of a lost surface, `hud_frame.rs` the HUD's frame,
//! `quality.rs` the quality measurement of presented frames.

use std::collections::HashSet;

use ash::vk;
use horde::camera::Camera;
use horde::context::{Context, InjectedFailure};
use horde::renderer::{Renderer, WindowFrame};
use horde::swapchain::{choose_format, create_surface, surface_extensions, Swapchain};
use horde::Error;
use winit::application::ApplicationHandler;
use winit::dpi::PhysicalSize;
use winit::event::{ElementState, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, EventLoop};
use winit::keyboard::PhysicalKey;
use winit::raw_window_handle::{HasDisplayHandle, HasWindowHandle};
use winit::window::{Window, WindowId};

/// The key and button names scripts use, so callers need not depend on winit.
pub use winit::event::MouseButton;
pub use winit::keyboard::KeyCode;

mod hud_frame;
mod input;
mod options;
mod quality;
mod running;
pub use options::{
    window_verdict, FrameHook, HudLine, WindowAction, WindowOptions, WindowReport, WindowScript,
};

use hud_frame::{show_hud, HudFrame};
use input::{toggle, Input, Pointer};
use running::{note_swapchain, recreate_surface, surface_lost, Running};

use crate::camera_rig::{CameraRig, MotionKeys};
use crate::hud::{Hud, SimulationClock};
use crate::presets::Preset;

struct App {
    options: WindowOptions,
    running: Option<Running>,
    report: WindowReport,
    error: Option<Error>,
    frame: u64,
    rig: CameraRig,
    clock: SimulationClock,
    held: HashSet<KeyCode>,
    pointer: Pointer,
    last_frame: Option<std::time::Instant>,
    /// The camera of the last frame drawn, to count changes.
    last_camera: Camera,
    /// Milliseconds per frame, smoothed over the last few dozen frames.
    frame_ms: f64,
    /// When the title was last updated, and frames presented since.
    title_update: Option<(std::time::Instant, u64)>,
    /// When the quality was last measured, and its HUD line.
    quality: Option<(std::time::Instant, HudLine)>,
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
    let rig = CameraRig::new(options.camera, options.scene_bounds);
    let mut app = App {
        last_camera: options.camera,
        options,
        running: None,
        report: WindowReport::default(),
        error: None,
        frame: 0,
        rig,
        clock: SimulationClock::default(),
        held: HashSet::new(),
        pointer: Pointer::default(),
        last_frame: None,
        frame_ms: 0.0,
        title_update: None,
        quality: None,
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
        let mut renderer = Renderer::new(
            &ctx,
            format.format,
            vk::ImageLayout::PRESENT_SRC_KHR,
            self.options.msaa,
            &self.options.scene,
        )?;
        renderer.settings.budget_ms = self.options.budget_ms;
        self.options.stage.apply(&mut renderer);
        let window_extent = extent_of(window.inner_size());
        self.rig
            .set_image_size(window_extent.width, window_extent.height);
        let swapchain = Swapchain::new(
            &ctx,
            surface,
            format,
            renderer.target_passes(),
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
        note_swapchain(&mut self.report, &swapchain);
        let hud = Hud::new(&window, ctx.limits.max_image_dimension_2d);
        self.running = Some(Running {
            quality_targets: None,
            hud,
            renderer,
            swapchain,
            ctx,
            window,
            window_extent,
            needs_recreate: false,
            surface_lost: false,
            surface_unproven: false,
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
                WindowAction::Focus(focused) => self.focus_changed(focused),
                WindowAction::LoseSurface => {
                    running.ctx.fail_next(InjectedFailure::AcquireSurfaceLost)
                }
                WindowAction::Press(code) | WindowAction::Release(code) => {
                    let pressed = matches!(action, WindowAction::Press(_));
                    let repeat = pressed && self.held.contains(&code);
                    self.handle_input(
                        event_loop,
                        Input::Key {
                            code,
                            pressed,
                            repeat,
                        },
                    );
                }
                WindowAction::Drag { button, dx, dy } => {
                    let extent = running.window_extent;
                    let (x, y) = self.pointer.position.unwrap_or((
                        f64::from(extent.width) / 2.0,
                        f64::from(extent.height) / 2.0,
                    ));
                    self.handle_input(event_loop, Input::CursorMoved(x, y));
                    let press = Input::Button {
                        button,
                        pressed: true,
                    };
                    self.handle_input(event_loop, press);
                    let to = (x + f64::from(dx), y + f64::from(dy));
                    self.handle_input(event_loop, Input::CursorMoved(to.0, to.1));
                    let release = Input::Button {
                        button,
                        pressed: false,
                    };
                    self.handle_input(event_loop, release);
                }
                WindowAction::Scroll(lines) => {
                    self.handle_input(event_loop, Input::Scroll(lines as f32));
                }
            }
        }
    }

    /// The window gained or lost the keyboard focus, really or by script.
    fn focus_changed(&mut self, focused: bool) {
        self.report.focus_changes += 1;
        if !focused {
            // Releases happening elsewhere never arrive: nothing stays held.
            self.held.clear();
            self.pointer.orbiting = false;
            self.pointer.looking = false;
        }
    }

    /// Acts on one input, real or scripted.
    fn handle_input(&mut self, event_loop: &ActiveEventLoop, input: Input) {
        match input {
            Input::Key {
                code,
                pressed: true,
                repeat,
            } => {
                self.held.insert(code);
                if !repeat {
                    self.key_pressed(event_loop, code);
                }
            }
            Input::Key {
                code,
                pressed: false,
                ..
            } => {
                self.held.remove(&code);
            }
            Input::Button { button, pressed } => match button {
                MouseButton::Left => self.pointer.orbiting = pressed,
                MouseButton::Right => self.pointer.looking = pressed,
                _ => {}
            },
            Input::CursorMoved(x, y) => {
                if let Some((last_x, last_y)) = self.pointer.position {
                    let (dx, dy) = ((x - last_x) as f32, (y - last_y) as f32);
                    if self.pointer.orbiting {
                        self.rig.orbit(dx, dy);
                    } else if self.pointer.looking {
                        self.rig.look(dx, dy);
                    }
                }
                self.pointer.position = Some((x, y));
            }
            Input::Scroll(lines) => self.rig.dolly(lines),
        }
    }

    /// A key went down (not a repeat).
    fn key_pressed(&mut self, event_loop: &ActiveEventLoop, code: KeyCode) {
        match code {
            KeyCode::Escape => event_loop.exit(),
            KeyCode::Digit1 | KeyCode::Numpad1 => self.rig.preset(Preset::Overview),
            KeyCode::Digit2 | KeyCode::Numpad2 => self.rig.preset(Preset::FrontLine),
            KeyCode::Digit3 | KeyCode::Numpad3 => self.rig.preset(Preset::GroundLevel),
            KeyCode::KeyC => self.rig.toggle_cinematic(),
            KeyCode::KeyP => self.clock.paused = !self.clock.paused,
            KeyCode::KeyH => {
                if let Some(running) = self.running.as_mut() {
                    running.hud.visible = !running.hud.visible;
                }
            }
            _ => {
                if let Some(running) = self.running.as_mut() {
                    let camera = self.rig.camera();
                    toggle(&mut running.renderer.settings, code, &camera);
                }
            }
        }
    }

    /// The movement keys held now.
    fn motion_keys(&self) -> MotionKeys {
        let held = |codes: &[KeyCode]| codes.iter().any(|code| self.held.contains(code));
        MotionKeys {
            forward: held(&[KeyCode::KeyW, KeyCode::ArrowUp]),
            back: held(&[KeyCode::KeyS, KeyCode::ArrowDown]),
            left: held(&[KeyCode::KeyA, KeyCode::ArrowLeft]),
            right: held(&[KeyCode::KeyD, KeyCode::ArrowRight]),
            up: held(&[KeyCode::KeyE, KeyCode::PageUp]),
            down: held(&[KeyCode::KeyQ, KeyCode::PageDown]),
            fast: held(&[KeyCode::ShiftLeft, KeyCode::ShiftRight]),
        }
    }

    fn redraw(&mut self) -> Result<(), Error> {
        let keys = self.motion_keys();
        let Some(running) = self.running.as_mut() else {
            return Ok(());
        };
        if running.surface_lost {
            recreate_surface(running)?;
            self.report.surfaces_recreated += 1;
            note_swapchain(&mut self.report, &running.swapchain);
        }
        if running.needs_recreate {
            // SAFETY: waiting for idle before the swapchain's images go away.
            unsafe { running.ctx.device.device_wait_idle() }?;
            running.needs_recreate = false;
            match running
                .swapchain
                .recreate(&running.ctx, running.window_extent)
            {
                Ok(()) => note_swapchain(&mut self.report, &running.swapchain),
                // Made again on the next frame.
                Err(Error::SurfaceLost) => return surface_lost(running),
                Err(error) => return Err(error),
            }
        }
        let now = std::time::Instant::now();
        // Long stalls (a drag of the window, a debugger) do not jump animation.
        let wall_dt = self
            .last_frame
            .map_or(0.0, |last| (now - last).as_secs_f32().min(0.1));
        self.last_frame = Some(now);
        self.frame_ms += (f64::from(wall_dt) * 1e3 - self.frame_ms) * 0.05;
        self.rig.update(&keys, wall_dt);
        let camera = self.rig.camera();
        if camera != self.last_camera {
            self.report.camera_changes += 1;
            self.last_camera = camera;
        }
        let simulation_dt = self.clock.simulation_dt(wall_dt);
        let mut lines = match self.options.on_frame.as_mut() {
            Some(hook) => hook(&mut running.renderer, simulation_dt),
            None => Vec::new(),
        };
        lines.extend(self.quality.as_ref().map(|(_, line)| line.clone()));
        let hud_drawn = show_hud(
            running,
            &HudFrame {
                frame_ms: self.frame_ms,
                cinematic: self.rig.is_cinematic(),
                lines: &lines,
                camera: &camera,
            },
            &mut self.clock,
        );
        self.report.hud_frames += u64::from(hud_drawn);
        let outcome = running.renderer.render_window(
            &running.ctx,
            &running.swapchain,
            &camera,
            simulation_dt,
        )?;
        let (since, presented) = *self
            .title_update
            .get_or_insert((now, self.report.frames_presented));
        let elapsed = (now - since).as_secs_f64();
        if elapsed >= 0.5 {
            running.window.set_title(&format!(
                "{} | {:.0} fps",
                self.options.title,
                (self.report.frames_presented - presented) as f64 / elapsed,
            ));
            self.title_update = Some((now, self.report.frames_presented));
        }
        match outcome {
            WindowFrame::Presented => {
                self.report.frames_presented += 1;
                running.surface_unproven = false;
                self.measure_quality(now, &camera);
            }
            WindowFrame::PresentedNeedsRecreate => {
                self.report.frames_presented += 1;
                running.surface_unproven = false;
                running.needs_recreate = true;
            }
            WindowFrame::SurfaceLost => {
                self.report.frames_skipped += 1;
                surface_lost(running)?;
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
            quality_targets,
            hud,
            renderer,
            swapchain,
            ctx,
            window,
            ..
        } = running;
        self.report.hud_visible = hud.visible;
        drop(hud);
        drop(quality_targets);
        self.report.camera = Some(self.rig.camera());
        self.report.cinematic = self.rig.is_cinematic();
        self.report.settings = renderer.settings;
        self.report.clock = self.clock;
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

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.running.is_none() && self.error.is_none() {
            if let Err(err) = self.start(event_loop) {
                self.fail(event_loop, err);
            }
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        // egui sees every event first; input it consumes (a click on the
        // panel, a key for a focused widget) goes no further.
        let consumed = match self.running.as_mut() {
            Some(running) => running.hud.on_window_event(&running.window, &event),
            None => false,
        };
        let hud_wants_pointer = self
            .running
            .as_ref()
            .is_some_and(|running| running.hud.wants_pointer());
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::Resized(size) => {
                self.rig.set_image_size(size.width, size.height);
                if let Some(running) = self.running.as_mut() {
                    running.window_extent = extent_of(size);
                    running.needs_recreate = true;
                }
            }
            WindowEvent::Focused(focused) => self.focus_changed(focused),
            WindowEvent::KeyboardInput { event, .. } => {
                let PhysicalKey::Code(code) = event.physical_key else {
                    return;
                };
                let pressed = event.state == ElementState::Pressed;
                // Releases always count, so no key stays held.
                if consumed && pressed {
                    return;
                }
                let input = Input::Key {
                    code,
                    pressed,
                    repeat: event.repeat,
                };
                self.handle_input(event_loop, input);
            }
            WindowEvent::MouseInput { state, button, .. } => {
                let pressed = state == ElementState::Pressed;
                if pressed && (consumed || hud_wants_pointer) {
                    return;
                }
                self.handle_input(event_loop, Input::Button { button, pressed });
            }
            WindowEvent::CursorMoved { position, .. } => {
                self.handle_input(event_loop, Input::CursorMoved(position.x, position.y));
            }
            WindowEvent::MouseWheel { delta, .. } => {
                if consumed || hud_wants_pointer {
                    return;
                }
                let lines = match delta {
                    MouseScrollDelta::LineDelta(_, y) => y,
                    MouseScrollDelta::PixelDelta(p) => p.y as f32 / 40.0,
                };
                self.handle_input(event_loop, Input::Scroll(lines));
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
