//! The layout test's table: each shared struct's members and their offsets
//! on the CPU side, by GLSL name ([`crate::layout!`]).

use super::*;
use crate::layout;

/// Each shared struct's name and member offsets ([`layout!`]).
pub type Layouts = Vec<(&'static str, Vec<(&'static str, usize)>)>;

/// Member offsets of each shared struct, by GLSL name, for the layout test.
pub fn layouts() -> Layouts {
    vec![
        layout!(FrameGlobals {
            view_proj,
            camera_position,
            debug_view,
            light_direction,
            ambient,
            light_color,
            fog_density,
            fog_color,
            time,
            viewport_size,
            inverse_viewport_size,
            pixels_per_unit,
            impostor_threshold_px,
            impostor_band,
            shadow_cascade_count,
            shadow_cascade_bias,
            shadow_view_proj,
            shadow_inverse_size,
            shadow_distance,
            ground_texture_scale,
            pad
        }),
        layout!(UnitInfo {
            type_index,
            team,
            tint,
            scale
        }),
        layout!(UnitPlacement { position, heading }),
        layout!(UnitMotion {
            velocity,
            speed,
            anim_commands
        }),
        layout!(AnimState {
            clips,
            time_current,
            time_previous,
            blend
        }),
        layout!(RouteInfo {
            error,
            command,
            list_base,
            capacity
        }),
        layout!(TypeInfo {
            quant_min,
            bone_count,
            quant_extent,
            lod_count,
            sphere_center,
            sphere_radius,
            first_clip,
            clip_count,
            first_material,
            capacity,
            first_controller_state,
            controller_state_count,
            first_any_transition,
            any_transition_count,
            routes
        }),
        layout!(DrawCommand {
            index_count,
            instance_count,
            first_index,
            vertex_offset,
            first_instance
        }),
        layout!(FarFieldMesh {
            first_index,
            index_count,
            first_vertex,
            vertex_count_flags
        }),
        layout!(ClipInfo {
            first_texel,
            frame_count,
            duration,
            looping
        }),
        layout!(MaterialInfo {
            base_color,
            atlas_rect,
            emissive,
            flags,
            emissive_rect
        }),
        layout!(AnimStateDef {
            clip,
            speed,
            flags,
            transitions,
            blend_clip,
            clip_ground_speed,
            blend_clip_ground_speed,
            blend_phase_offset,
            blend_start_speed,
            blend_end_speed
        }),
        layout!(AnimTransitionDef {
            target,
            condition,
            threshold,
            fade
        }),
        layout!(CullGlobals {
            planes,
            camera_position,
            pixels_per_unit,
            lod_threshold_px,
            lod_hysteresis,
            max_draw_distance,
            far_field_px,
            impostor_threshold_px,
            impostor_band,
            orthographic,
            min_size_px,
            view_rows,
            projection_scale,
            near,
            pad,
            viewport,
            pyramid_size
        }),
        layout!(ImpostorBox {
            center,
            first_cell,
            half_extent,
            cell_count
        }),
        layout!(ImpostorClip {
            first_cell,
            frame_count,
            duration,
            looping
        }),
    ]
}
