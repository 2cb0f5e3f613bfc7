//! Packs every base colour texture of every type into one atlas.
//!
//! Neither the mobile tier nor lavapipe has descriptor indexing, and a
//! multi-draw covers instances of many types, so a per-type texture binding is
//! impossible. Instead every texture is scaled to fit a cell of at most
//! [`MAX_CELL`] texels and shelf-packed (tallest first) into one sRGB image;
//! each material records its rectangle in atlas UV space.

use crate::asset::Texture;

/// Largest side a texture keeps in the atlas.
pub const MAX_CELL: u32 = 1024;
/// Texels of padding around each cell, so linear filtering at a cell's edge
/// does not read its neighbour.
const PADDING: u32 = 2;

/// The packed atlas.
#[derive(Clone, Debug)]
pub struct Atlas {
    pub width: u32,
    pub height: u32,
    pub rgba8: Vec<u8>,
    /// For each input texture: UV offset (x, y) and size (z, w) in the atlas.
    pub rects: Vec<[f32; 4]>,
}

/// Packs `textures` into an atlas no wider or taller than `max_size`.
/// Returns `None` when they do not fit even after scaling.
pub fn pack(textures: &[&Texture], max_size: u32) -> Option<Atlas> {
    if textures.is_empty() {
        return Some(Atlas {
            width: 1,
            height: 1,
            rgba8: vec![255; 4],
            rects: Vec::new(),
        });
    }
    for cell in [MAX_CELL, 512, 256, 128, 64] {
        if let Some(atlas) = try_pack(textures, max_size, cell.min(max_size / 2).max(16)) {
            return Some(atlas);
        }
    }
    None
}

fn scaled_size(texture: &Texture, cell: u32) -> (u32, u32) {
    let largest = texture.width.max(texture.height).max(1);
    if largest <= cell {
        (texture.width.max(1), texture.height.max(1))
    } else {
        let scale = cell as f32 / largest as f32;
        (
            ((texture.width as f32 * scale).round() as u32).max(1),
            ((texture.height as f32 * scale).round() as u32).max(1),
        )
    }
}

fn try_pack(textures: &[&Texture], max_size: u32, cell: u32) -> Option<Atlas> {
    let sizes: Vec<(u32, u32)> = textures.iter().map(|t| scaled_size(t, cell)).collect();
    let mut order: Vec<usize> = (0..textures.len()).collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(sizes[i].1), i));
    let width = max_size.min(
        sizes
            .iter()
            .map(|(w, _)| w + 2 * PADDING)
            .sum::<u32>()
            .next_power_of_two(),
    );
    let mut origins = vec![(0u32, 0u32); textures.len()];
    let (mut x, mut y, mut shelf_height) = (0u32, 0u32, 0u32);
    for &i in &order {
        let (w, h) = (sizes[i].0 + 2 * PADDING, sizes[i].1 + 2 * PADDING);
        if w > width {
            return None;
        }
        if x + w > width {
            x = 0;
            y += shelf_height;
            shelf_height = 0;
        }
        origins[i] = (x + PADDING, y + PADDING);
        x += w;
        shelf_height = shelf_height.max(h);
    }
    let height = (y + shelf_height).next_power_of_two();
    if height > max_size {
        return None;
    }
    let mut rgba8 = vec![255u8; (width * height * 4) as usize];
    let mut rects = Vec::with_capacity(textures.len());
    for (i, texture) in textures.iter().enumerate() {
        let (w, h) = sizes[i];
        let (ox, oy) = origins[i];
        let scaled = resize(texture, w, h);
        // Copy the cell and replicate its edge into the padding.
        let pad = PADDING as i64;
        for cy in -pad..(h as i64 + pad) {
            for cx in -pad..(w as i64 + pad) {
                let sx = cx.clamp(0, w as i64 - 1) as u32;
                let sy = cy.clamp(0, h as i64 - 1) as u32;
                let src = ((sy * w + sx) * 4) as usize;
                let dx = (ox as i64 + cx) as u32;
                let dy = (oy as i64 + cy) as u32;
                let dst = ((dy * width + dx) * 4) as usize;
                rgba8[dst..dst + 4].copy_from_slice(&scaled[src..src + 4]);
            }
        }
        rects.push([
            ox as f32 / width as f32,
            oy as f32 / height as f32,
            w as f32 / width as f32,
            h as f32 / height as f32,
        ]);
    }
    Some(Atlas {
        width,
        height,
        rgba8,
        rects,
    })
}

/// Box-filtered resize (each output texel averages the input texels it
/// covers), which keeps small details from aliasing away.
fn resize(texture: &Texture, width: u32, height: u32) -> Vec<u8> {
    if texture.width == width && texture.height == height {
        return texture.rgba8.clone();
    }
    let mut out = vec![0u8; (width * height * 4) as usize];
    for y in 0..height {
        let y0 = y * texture.height / height;
        let y1 = ((y + 1) * texture.height / height).max(y0 + 1);
        for x in 0..width {
            let x0 = x * texture.width / width;
            let x1 = ((x + 1) * texture.width / width).max(x0 + 1);
            let mut sum = [0u32; 4];
            for sy in y0..y1 {
                for sx in x0..x1 {
                    let src = ((sy * texture.width + sx) * 4) as usize;
                    for (total, &value) in sum.iter_mut().zip(&texture.rgba8[src..src + 4]) {
                        *total += u32::from(value);
                    }
                }
            }
            let count = (y1 - y0) * (x1 - x0);
            let dst = ((y * width + x) * 4) as usize;
            for (out, total) in out[dst..dst + 4].iter_mut().zip(sum) {
                *out = (total / count) as u8;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn solid(width: u32, height: u32, value: u8) -> Texture {
        Texture {
            width,
            height,
            rgba8: vec![value; (width * height * 4) as usize],
        }
    }

    #[test]
    fn packs_without_overlap_and_keeps_colours() {
        let textures = [
            solid(256, 256, 10),
            solid(128, 64, 20),
            solid(2048, 2048, 30),
        ];
        let refs: Vec<&Texture> = textures.iter().collect();
        let atlas = pack(&refs, 4096).expect("fits");
        for (i, rect) in atlas.rects.iter().enumerate() {
            let x = ((rect[0] + rect[2] * 0.5) * atlas.width as f32) as u32;
            let y = ((rect[1] + rect[3] * 0.5) * atlas.height as f32) as u32;
            let texel = atlas.rgba8[((y * atlas.width + x) * 4) as usize];
            assert_eq!(texel, textures[i].rgba8[0], "texture {i}");
            for (j, other) in atlas.rects.iter().enumerate().skip(i + 1) {
                let apart = rect[0] + rect[2] <= other[0]
                    || other[0] + other[2] <= rect[0]
                    || rect[1] + rect[3] <= other[1]
                    || other[1] + other[3] <= rect[1];
                assert!(apart, "rects {i} and {j} overlap");
            }
        }
        assert!(atlas.width <= 4096 && atlas.height <= 4096);
    }
}
