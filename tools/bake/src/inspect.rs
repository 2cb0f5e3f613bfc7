//! Human-readable summary of a `.horde` file and of an error report.

use horde_asset::{Asset, ErrorReport, ErrorStat, SectionInfo};
use std::fmt::Write as _;

fn stat_line(out: &mut String, label: &str, stat: ErrorStat, height: f32) {
    let percent = |value: f32| {
        if height > 0.0 {
            value / height * 100.0
        } else {
            0.0
        }
    };
    let _ = writeln!(
        out,
        "  {label:<22} max {:>10.6} ({:>7.4}%)   rms {:>10.6} ({:>7.4}%)",
        stat.max,
        percent(stat.max),
        stat.rms,
        percent(stat.rms)
    );
}

/// The error report as a table: model units and percent of model height.
pub fn report_text(report: &ErrorReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "error report (vs exact 4-influence skinning, {} time samples, base {} fps, \
         rest-pose model height {:.4}):",
        report.time_samples, report.sample_rate, report.model_height
    );
    let height = report.model_height;
    stat_line(&mut out, "two-bone naive", report.two_bone_naive, height);
    stat_line(&mut out, "two-bone fitted", report.two_bone_fitted, height);
    stat_line(&mut out, "encoding mat3x4", report.mat3x4, height);
    stat_line(&mut out, "encoding quat32", report.quat32, height);
    stat_line(&mut out, "encoding quat16", report.quat16, height);
    stat_line(&mut out, "dual-quaternion blend", report.dual_quat, height);
    stat_line(&mut out, "frame interpolation", report.frame_rate, height);
    stat_line(&mut out, "total (as stored)", report.total, height);
    for warning in &report.warnings {
        let _ = writeln!(out, "  warning: {warning}");
    }
    out
}

/// Header, sections, bones, clips, LODs, materials, sizes and the report.
pub fn inspect_text(asset: &Asset, sections: &[SectionInfo], file_len: usize) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} ({:?}), format version {}, {file_len} bytes",
        asset.name,
        asset.kind,
        horde_asset::VERSION
    );
    let _ = writeln!(out, "sections:");
    for section in sections {
        let _ = writeln!(
            out,
            "  {} at {:>9}  {:>9} bytes",
            String::from_utf8_lossy(&section.tag),
            section.offset,
            section.len
        );
    }
    let bounds = &asset.bounds;
    let _ = writeln!(
        out,
        "bounds: quantization {:?}..{:?}, sphere centre {:?} radius {:.4}, height {:.4}",
        bounds.quant_min,
        bounds.quant_max,
        bounds.sphere_center,
        bounds.sphere_radius,
        bounds.height
    );
    let _ = writeln!(
        out,
        "bones ({}): {}",
        asset.bone_names.len(),
        asset.bone_names.join(", ")
    );
    if let Some(animation) = &asset.animation {
        let _ = writeln!(
            out,
            "animation: {}, {} bones, texture {}x{} ({} bytes), {} clips:",
            animation.encoding.name(),
            animation.bone_count,
            animation.texture_width,
            animation.texture_height,
            animation.texels.len(),
            animation.clips.len()
        );
        for clip in &animation.clips {
            let _ = writeln!(
                out,
                "  {:<32} {:>4} frames {:>7.3} s {:>6.1} fps {} first texel {} ground speed {:.3}/s foot phase {:.3}",
                clip.name,
                clip.frame_count,
                clip.duration,
                clip_rate(clip),
                if clip.looping { "loop" } else { "once" },
                clip.first_texel,
                clip.ground_speed,
                clip.foot_phase
            );
        }
    }
    // The renderer projects a LOD's error over the bounding sphere's
    // diameter on screen and takes the coarsest LOD within its threshold
    // (1 px by default): 1 / error is the largest sphere, in pixels across,
    // at which a LOD is within a pixel.
    let _ = writeln!(
        out,
        "LODs (px: the widest bounding sphere on screen at which the error, a fraction of the model's size, projects within the renderer's default 1 px):"
    );
    for (level, lod) in asset.lods.iter().enumerate() {
        let reach = if lod.error > 0.0 {
            format!("<= {:>5.0} px", 1.0 / lod.error)
        } else {
            "    any px".to_string()
        };
        let _ = writeln!(
            out,
            "  LOD {level}: {:>7} vertices {:>7} triangles {:>2} submeshes error {:.5} {reach}  ({} bytes){}",
            lod.vertices.len(),
            lod.indices.len() / 3,
            lod.submeshes.len(),
            lod.error,
            lod.vertices.len() * size_of::<horde_asset::PackedVertex>() + lod.indices.len() * 4,
            match (lod.box_proxy, lod.raster_only) {
                (true, true) => "  box proxy, raster only",
                (true, false) => "  box proxy",
                (false, true) => "  raster only",
                (false, false) => "",
            }
        );
    }
    let _ = writeln!(out, "materials:");
    for material in &asset.materials {
        let _ = writeln!(
            out,
            "  {:?} factor {:?} texture {:?} emissive {:?} texture {:?}{}",
            material.name,
            material.base_color_factor,
            material.base_color_texture,
            material.emissive_factor,
            material.emissive_texture,
            if material.double_sided {
                " double-sided"
            } else {
                ""
            }
        );
    }
    for (index, texture) in asset.textures.iter().enumerate() {
        let _ = writeln!(
            out,
            "texture {index}: {}x{} RGBA8",
            texture.width, texture.height
        );
    }
    out.push_str(&report_text(&asset.report));
    out
}

/// Frames per second a clip is stored at: `(frames - 1) / duration`, 0 for a
/// pose.
pub fn clip_rate(clip: &horde_asset::Clip) -> f32 {
    if clip.frame_count > 1 && clip.duration > 0.0 {
        (clip.frame_count - 1) as f32 / clip.duration
    } else {
        0.0
    }
}
