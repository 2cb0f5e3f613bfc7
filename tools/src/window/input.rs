//! Input: what winit events and script actions become ([`Input`]), the
//! pointer's state, and the debug keys that edit the render settings.

use horde::camera::Camera;
use horde::renderer::RenderSettings;

use super::{KeyCode, MouseButton};
use crate::hud::LOD_BIASES;

/// One input, from winit or from a script.
#[derive(Clone, Copy, Debug)]
pub(super) enum Input {
    Key {
        code: KeyCode,
        pressed: bool,
        repeat: bool,
    },
    Button {
        button: MouseButton,
        pressed: bool,
    },
    CursorMoved(f64, f64),
    /// Scroll lines; positive zooms in.
    Scroll(f32),
}

/// The mouse buttons held and where the cursor was last.
#[derive(Default)]
pub(super) struct Pointer {
    pub(super) orbiting: bool,
    pub(super) looking: bool,
    pub(super) position: Option<(f64, f64)>,
}

/// Debug keys: L colours by LOD, M by the simulation's marks (the battle:
/// regiment state), B shows bounding spheres, F freezes culling at the
/// current camera, O turns the sun's shadows on and off, V occlusion
/// culling (units hidden behind others not drawn; H is the HUD's), + and -
/// scale the LOD bias. Other keys do nothing.
pub(super) fn toggle(settings: &mut RenderSettings, key: KeyCode, camera: &Camera) {
    match key {
        KeyCode::KeyL => settings.color_by_lod = !settings.color_by_lod,
        KeyCode::KeyM => settings.color_by_mark = !settings.color_by_mark,
        KeyCode::KeyB => settings.show_bounds = !settings.show_bounds,
        KeyCode::KeyO => settings.shadows = !settings.shadows,
        KeyCode::KeyV => settings.occlusion = !settings.occlusion,
        KeyCode::KeyF => {
            settings.cull_camera = match settings.cull_camera {
                Some(_) => None,
                None => Some(*camera),
            }
        }
        KeyCode::Equal | KeyCode::NumpadAdd => {
            settings.lod_bias = (settings.lod_bias * 1.25).min(*LOD_BIASES.end())
        }
        KeyCode::Minus | KeyCode::NumpadSubtract => {
            settings.lod_bias = (settings.lod_bias / 1.25).max(*LOD_BIASES.start())
        }
        _ => return,
    }
    log::info!(
        "settings: colour by LOD {}, by mark {}, bounds {}, shadows {}, occlusion culling {}, \
         culling frozen {}, LOD bias {:.2}",
        settings.color_by_lod,
        settings.color_by_mark,
        settings.show_bounds,
        settings.shadows,
        settings.occlusion,
        settings.cull_camera.is_some(),
        settings.lod_bias
    );
}
