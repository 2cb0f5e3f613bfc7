//! CPU twin of `shadow_splat.comp`: the texels and depths a shadow
//! cascade's smallest far casters write, operation for operation.

use glam::{Mat4, Vec3};

/// The most texels a splatted line takes, as the shader's `MAX_STEPS`.
pub const MAX_STEPS: u32 = 16;

/// The texel (x, y) and reverse-Z depth of a world point in a map of
/// `size` texels a side.
fn to_texel(view_proj: &Mat4, size: u32, world: Vec3) -> Vec3 {
    let clip = *view_proj * world.extend(1.0);
    let x = (clip.x * 0.5 + 0.5) * size as f32;
    let y = (clip.y * 0.5 + 0.5) * size as f32;
    Vec3::new(x, y, clip.z.max(0.0))
}

/// The texels (x, y) and depth bits a unit standing at `feet`, `top`
/// metres tall, whose sphere spans `span` texels, splats into a map of
/// `size` texels a side, `width_per_span` of its span wide.
pub fn splat(
    view_proj: &Mat4,
    size: u32,
    (feet, top): (Vec3, f32),
    (span, width_per_span): (f32, f32),
) -> Vec<(u32, u32, u32)> {
    let a = to_texel(view_proj, size, feet);
    let b = to_texel(view_proj, size, feet + Vec3::new(0.0, top, 0.0));
    let (dx, dy) = (b.x - a.x, b.y - a.y);
    let length = (dx * dx + dy * dy).sqrt();
    let steps = (length.ceil() as u32).min(MAX_STEPS);
    let width = ((span * width_per_span + 0.5).floor() as i32).max(1);
    // Across the line's major axis.
    let across = if dx.abs() > dy.abs() { (0, 1) } else { (1, 0) };
    let mut texels = Vec::new();
    for k in 0..=steps {
        let t = k as f32 / steps.max(1) as f32;
        let at = a + (b - a) * t;
        for column in 0..width {
            let offset = column - (width - 1) / 2;
            let x = at.x.floor() as i32 + across.0 * offset;
            let y = at.y.floor() as i32 + across.1 * offset;
            if x >= 0 && y >= 0 && x < size as i32 && y < size as i32 {
                texels.push((x as u32, y as u32, at.z.to_bits().max(1)));
            }
        }
    }
    texels
}
