//! The far field's exact division (`far_divide` in
//! `shaders/far_field_raster.glsl`, which replaces the rasterizer's 64-bit
//! integer division by float steps and an integer correction) on the GPU,
//! through its kernel `far_divide_test.comp`: every quotient equals the
//! CPU's integer division, over the rasterizer's whole range (divisors up
//! to the largest doubled triangle area, quotients up to the largest depth
//! bits) and at the edges of each quotient (remainders 0, 1 and d - 1).
//!
//! Validation is on throughout and must stay silent (`finish`).

use horde::shaders;
use horde_tests::{finish, gpu_context, run_storage_kernel};

/// The largest doubled area of a triangle the compute rasterizer takes:
/// its box is at most 2^13 sub-pixels a side (`far_field_raster.glsl`).
const MAX_DIVISOR: u64 = 1 << 26;
/// The largest quotient: the depth bits of 1.0, reverse-Z's near plane.
const MAX_QUOTIENT: u64 = 0x3f80_0000;

/// A xorshift stream of u64.
fn stream(mut seed: u64) -> impl FnMut() -> u64 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    }
}

#[test]
fn the_far_fields_division_is_exact() {
    let mut ctx = gpu_context(None);
    let mut next = stream(0x5eed_d1ce);
    let mut pairs: Vec<(u64, u64)> = Vec::new();
    // Divisors small and large, quotients small and large, each with the
    // remainders at its edges and one at random.
    let divisors = [
        1,
        2,
        3,
        7,
        255,
        256,
        65_535,
        1 << 20,
        MAX_DIVISOR - 1,
        MAX_DIVISOR,
    ];
    let quotients = [
        0,
        1,
        2,
        1 << 23,
        (1 << 24) + 1,
        0x3e80_0001,
        MAX_QUOTIENT - 1,
        MAX_QUOTIENT,
    ];
    for &d in &divisors {
        for &q in &quotients {
            for r in [0, 1, d - 1, next() % d] {
                pairs.push((q * d + r.min(d - 1), d));
            }
        }
    }
    for _ in 0..100_000 {
        let d = 1 + next() % MAX_DIVISOR;
        let q = next() % (MAX_QUOTIENT + 1);
        pairs.push((q * d + next() % d, d));
    }
    let words: Vec<[u32; 4]> = pairs
        .iter()
        .map(|&(n, d)| [n as u32, (n >> 32) as u32, d as u32, 0])
        .collect();
    let push = [pairs.len() as u32];
    let bytes = run_storage_kernel(
        &mut ctx,
        "far divide test",
        &shaders::FAR_DIVIDE_TEST_COMP,
        &[bytemuck::cast_slice(&words)],
        8 * pairs.len() as u64,
        bytemuck::cast_slice(&push),
        pairs.len() as u32,
    );
    let gpu: Vec<u64> = bytemuck::pod_collect_to_vec(&bytes);
    let wrong: Vec<_> = pairs
        .iter()
        .zip(&gpu)
        .filter(|&(&(n, d), &q)| q != n / d)
        .map(|(&(n, d), &q)| (n, d, q, n / d))
        .collect();
    assert!(
        wrong.is_empty(),
        "{} of {} quotients wrong, the first (n, d, gpu, cpu): {:?}",
        wrong.len(),
        pairs.len(),
        wrong.first()
    );
    finish(ctx);
}
