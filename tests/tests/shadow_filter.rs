//! The receivers' shadow filter (`shadow_tent` in `shaders/shadow.glsl`)
//! on the GPU, through its kernel `shadow_tent_test.comp`: the 3x3-texel
//! tent read as 9 texels with separable weights gives what it is defined
//! as, the mean of four bilinear comparisons half a texel apart (16 reads),
//! over two cascades of crafted depths, at the maps' edges (clamped) and
//! between them.
//!
//! Validation is on throughout and must stay silent (`finish`).

use glam::Vec4;
use horde::shaders;
use horde_tests::{finish, gpu_context, run_storage_kernel};

/// Texels along a side of each of the two cascades.
const SIZE: u32 = 16;

/// A xorshift stream in [0, 1).
fn stream(mut seed: u32) -> impl FnMut() -> f32 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        (seed % 100_000) as f32 / 100_000.0
    }
}

#[test]
fn the_tent_is_the_mean_of_four_bilinear_comparisons() {
    let mut ctx = gpu_context(None);
    let mut next = stream(0x7e47);
    // Depth bits as the casters leave them: 0 where nothing casts, else a
    // reverse-Z depth.
    let depths: Vec<u32> = (0..2 * SIZE * SIZE)
        .map(|_| {
            let depth = next();
            if depth < 0.3 {
                0
            } else {
                depth.to_bits()
            }
        })
        .collect();
    // Lookups across both maps, past their edges (the filter clamps), on
    // texel centres and corners, with references below, between and above
    // the depths.
    let mut lookups = Vec::new();
    for cascade in 0..2 {
        for _ in 0..2000 {
            let uv = (next() * 1.2 - 0.1, next() * 1.2 - 0.1);
            lookups.push(Vec4::new(uv.0, uv.1, next(), cascade as f32));
        }
        for y in 0..=SIZE {
            for x in 0..=SIZE {
                let corner = (x as f32 / SIZE as f32, y as f32 / SIZE as f32);
                let centre = (corner.0 + 0.5 / SIZE as f32, corner.1 + 0.5 / SIZE as f32);
                for (u, v) in [corner, centre] {
                    lookups.push(Vec4::new(u, v, next(), cascade as f32));
                }
            }
        }
    }
    let push = [lookups.len() as u32, SIZE];
    let bytes = run_storage_kernel(
        &mut ctx,
        "shadow tent test",
        &shaders::SHADOW_TENT_TEST_COMP,
        &[
            bytemuck::cast_slice(&depths),
            bytemuck::cast_slice(&lookups),
        ],
        8 * lookups.len() as u64,
        bytemuck::cast_slice(&push),
        lookups.len() as u32,
    );
    let results: Vec<[f32; 2]> = bytemuck::pod_collect_to_vec(&bytes);
    let mut partly_lit = 0;
    for (lookup, [tent, mean]) in lookups.iter().zip(&results) {
        assert!(
            (tent - mean).abs() <= 1e-5,
            "at {lookup}: the tent gives {tent}, the four lookups' mean {mean}"
        );
        if *mean > 0.01 && *mean < 0.99 {
            partly_lit += 1;
        }
    }
    // The crafted depths give soft edges, not only texels fully lit or
    // fully shadowed: the weights are exercised.
    assert!(
        partly_lit > lookups.len() / 4,
        "{partly_lit} lookups partly lit"
    );
    finish(ctx);
}
