//! sRGB bytes and linear light, and the 2×2 box filter in linear light that
//! mip levels and supersampled images are made with (an sRGB average
//! darkens).

/// An sRGB byte to linear light in 0..=1.
pub fn srgb_to_linear(byte: u8) -> f32 {
    let c = f32::from(byte) / 255.0;
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// Linear light (clamped to 0..=1) to the nearest sRGB byte.
pub fn linear_to_srgb(linear: f32) -> u8 {
    let c = linear.clamp(0.0, 1.0);
    let encoded = if c <= 0.003_130_8 {
        c * 12.92
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    };
    (encoded * 255.0).round() as u8
}

/// Halves both sides of an sRGB RGBA8 image (`width` × `height`, both even,
/// row by row): each texel the mean of a 2×2 block, colour in linear
/// light, alpha as is.
pub fn halve_rgba8(rgba8: &[u8], width: u32, height: u32) -> Vec<u8> {
    let linear: Vec<f32> = (0..=255u8).map(srgb_to_linear).collect();
    let (width, height) = (width as usize, height as usize);
    let (half_width, half_height) = (width / 2, height / 2);
    let mut out = vec![0u8; half_width * half_height * 4];
    for y in 0..half_height {
        for x in 0..half_width {
            let block = [(0, 0), (1, 0), (0, 1), (1, 1)]
                .map(|(dx, dy)| ((2 * y + dy) * width + 2 * x + dx) * 4);
            let at = (y * half_width + x) * 4;
            for channel in 0..3 {
                let sum: f32 = block
                    .iter()
                    .map(|&b| linear[usize::from(rgba8[b + channel])])
                    .sum();
                out[at + channel] = linear_to_srgb(sum / 4.0);
            }
            let alpha: u32 = block.iter().map(|&b| u32::from(rgba8[b + 3])).sum();
            out[at + 3] = ((alpha + 2) / 4) as u8;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn srgb_bytes_survive_the_round_trip_through_linear_light() {
        for byte in 0..=255u8 {
            assert_eq!(linear_to_srgb(srgb_to_linear(byte)), byte);
        }
    }

    #[test]
    fn halving_averages_colour_in_linear_light_and_alpha_as_is() {
        // Two white and two black texels over alpha 255, 255, 0, 0: half
        // the light is sRGB 188, not 128.
        let rgba8 = [
            255, 255, 255, 255, 0, 0, 0, 255, 0, 0, 0, 0, 255, 255, 255, 0,
        ];
        assert_eq!(halve_rgba8(&rgba8, 2, 2), [188, 188, 188, 128]);
    }
}
