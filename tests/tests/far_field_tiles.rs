//! The far field's resolve tiles (`far_field_tiles.comp`,
//! `passes/far_field/resolve.rs`) on the GPU: the scan lists exactly the
//! tiles holding a covered sample of a crafted visibility buffer (partial
//! tiles at the target's edges, a sample with colour but no depth, a grid
//! larger than the dispatch), and its draw command is the resolve's.
//!
//! Validation is on throughout and must stay silent (`finish`).

use std::collections::BTreeSet;

use ash::vk;
use gpu_allocator::MemoryLocation;
use horde::barriers::{uses, Access};
use horde::config::FAR_FIELD_TILE_PX;
use horde::context::Context;
use horde::frame::ComputePipeline;
use horde::memory::{upload_buffer, Buffer};
use horde::shaders;
use horde_tests::{dispatch_storage, finish, gpu_context, PassHarness};

/// A target of 70x50 pixels: 5x4 tiles of 16, the last column and row
/// partial.
const WIDTH: u32 = 70;
const HEIGHT: u32 = 50;

/// What the scan wrote: its draw command and the tiles it listed.
struct Scan {
    command: [u32; 4],
    tiles: BTreeSet<u32>,
}

/// Runs the scan over `keys` (the visibility buffer: `samples_per_axis`²
/// samples a pixel, row by row over the sample grid) with `groups`
/// workgroups.
fn scan(ctx: &mut Context, keys: &[u64], samples_per_axis: u32, groups: u32) -> Scan {
    let storage = vk::DescriptorType::STORAGE_BUFFER;
    let pipeline = ComputePipeline::new(
        ctx,
        "far field tiles test",
        &shaders::FAR_FIELD_TILES_COMP,
        &[storage; 2],
        &[],
    )
    .expect("tile scan pipeline");
    let visibility = upload_buffer(
        ctx,
        "far field tiles test visibility",
        vk::BufferUsageFlags::STORAGE_BUFFER,
        bytemuck::cast_slice(keys),
    )
    .expect("upload the visibility buffer");
    let grid = WIDTH.div_ceil(FAR_FIELD_TILE_PX) * HEIGHT.div_ceil(FAR_FIELD_TILE_PX);
    let tiles = Buffer::new(
        ctx,
        "far field tiles test list",
        16 + 4 * u64::from(grid),
        vk::BufferUsageFlags::STORAGE_BUFFER
            | vk::BufferUsageFlags::TRANSFER_SRC
            | vk::BufferUsageFlags::TRANSFER_DST,
        MemoryLocation::GpuOnly,
    )
    .expect("tile buffer");
    let mut harness = PassHarness::new(ctx);
    let push = [WIDTH, HEIGHT, samples_per_axis];
    let bytes = harness.run(
        ctx,
        |frame| {
            frame.uses(&[uses(tiles.raw, Access::TransferWrite)]);
            // SAFETY: the buffer lives until the frame has completed.
            unsafe {
                frame.ctx.device.cmd_fill_buffer(
                    frame.cmd,
                    tiles.raw,
                    0,
                    vk::WHOLE_SIZE,
                    0xdead_beef,
                );
            }
            frame.uses(&[uses(tiles.raw, Access::TransferWrite)]);
            // SAFETY: as above.
            unsafe {
                frame.ctx.device.cmd_update_buffer(
                    frame.cmd,
                    tiles.raw,
                    0,
                    bytemuck::cast_slice(&[6u32, 0, 0, 0]),
                );
            }
            dispatch_storage(
                frame,
                &pipeline,
                &[
                    (visibility.raw, Access::ComputeRead),
                    (tiles.raw, Access::ComputeWrite),
                ],
                bytemuck::cast_slice(&push),
                groups * pipeline.workgroup_size,
            );
        },
        &[&tiles],
    );
    let words: Vec<u32> = bytemuck::pod_collect_to_vec(&bytes[0]);
    let command = [words[0], words[1], words[2], words[3]];
    let listed = &words[4..4 + (command[1] as usize).min(words.len() - 4)];
    let tiles_set: BTreeSet<u32> = listed.iter().copied().collect();
    assert_eq!(
        tiles_set.len(),
        listed.len(),
        "a tile listed twice: {listed:?}"
    );
    drop((harness, tiles, visibility, pipeline));
    Scan {
        command,
        tiles: tiles_set,
    }
}

/// A visibility buffer with the given samples covered: (pixel x, pixel y,
/// sample i, sample j, key).
fn keys(samples_per_axis: u32, covered: &[(u32, u32, u32, u32, u64)]) -> Vec<u64> {
    let n = samples_per_axis;
    let mut keys = vec![0u64; (WIDTH * HEIGHT * n * n) as usize];
    for &(x, y, i, j, key) in covered {
        keys[((y * n + j) * WIDTH * n + x * n + i) as usize] = key;
    }
    keys
}

/// The tile of pixel (`x`, `y`), row by row over the tile grid.
fn tile_of(x: u32, y: u32) -> u32 {
    y / FAR_FIELD_TILE_PX * WIDTH.div_ceil(FAR_FIELD_TILE_PX) + x / FAR_FIELD_TILE_PX
}

#[test]
fn the_scan_lists_exactly_the_tiles_with_a_covered_sample() {
    let mut ctx = gpu_context(None);
    let depth = |bits: u32| u64::from(bits) << 32;
    let covered = [
        // The first sample of the first pixel.
        (0, 0, 0, 0, depth(1)),
        // The last sample of the last pixel, in the partial corner tile.
        (WIDTH - 1, HEIGHT - 1, 1, 1, depth(0x3f00_0000) | 0x1234),
        // Either side of a tile boundary.
        (16, 15, 0, 1, depth(7)),
        (33, 40, 1, 0, depth(9)),
        (47, 40, 1, 1, depth(9)),
    ];
    let mut samples = keys(2, &covered);
    // Colour without depth bits covers nothing (as in the resolve).
    samples[(5 * 2 * WIDTH * 2 + 50 * 2) as usize] = 0xffff;
    let expected: BTreeSet<u32> = covered.iter().map(|c| tile_of(c.0, c.1)).collect();
    assert_eq!(expected.len(), 4, "the crafted tiles");
    let grid = WIDTH.div_ceil(FAR_FIELD_TILE_PX) * HEIGHT.div_ceil(FAR_FIELD_TILE_PX);
    // A workgroup per tile, and two workgroups looping over them all.
    for groups in [grid, 2] {
        let found = scan(&mut ctx, &samples, 2, groups);
        assert_eq!(
            found.command,
            [6, expected.len() as u32, 0, 0],
            "draw command ({groups} workgroups)"
        );
        assert_eq!(found.tiles, expected, "{groups} workgroups");
    }
    // One sample a pixel; nothing covered lists nothing.
    let single = scan(&mut ctx, &keys(1, &[(40, 20, 0, 0, depth(3))]), 1, grid);
    assert_eq!(single.tiles, BTreeSet::from([tile_of(40, 20)]));
    let empty = scan(&mut ctx, &keys(2, &[]), 2, grid);
    assert_eq!(empty.command, [6, 0, 0, 0]);
    finish(ctx);
}
