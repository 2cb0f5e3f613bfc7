//! The baked-asset cache: hit and miss, what the key covers, corrupt entries,
//! `--no-cache`, `.horde` inputs and concurrent bakes of one entry.

mod support;

use horde_asset::{AssetKind, BoneEncoding};
use horde_bake::cache::{load_prop, load_unit, CacheOptions, CacheOutcome};
use horde_bake::BakeOptions;
use std::path::{Path, PathBuf};
use support::{skinned_strip, temp_dir};

fn cache_in(dir: &Path) -> CacheOptions {
    CacheOptions {
        enabled: true,
        dir: Some(dir.join("cache")),
    }
}

fn entries(cache: &CacheOptions) -> Vec<PathBuf> {
    let Some(dir) = &cache.dir else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|read| read.map(|entry| entry.expect("entry").path()).collect())
        .unwrap_or_default();
    files.sort();
    files
}

#[test]
fn first_load_bakes_and_writes_the_entry_second_reads_it() {
    let dir = temp_dir("cache-hit");
    let input = skinned_strip(1.0).write_glb(&dir, "strip");
    let cache = cache_in(&dir);
    let options = BakeOptions::default();
    let first = load_unit(&input, &[], &options, &cache).expect("first load");
    assert_eq!(first.outcome, CacheOutcome::Baked);
    let entry = first.entry.clone().expect("entry path");
    assert_eq!(entries(&cache), vec![entry.clone()]);
    let second = load_unit(&input, &[], &options, &cache).expect("second load");
    assert_eq!(second.outcome, CacheOutcome::Cached);
    assert_eq!(second.entry, Some(entry));
    assert_eq!(second.asset, first.asset);
}

#[test]
fn changed_input_content_is_rebaked_into_a_new_entry() {
    let dir = temp_dir("cache-content");
    let cache = cache_in(&dir);
    let options = BakeOptions::default();
    let input = skinned_strip(1.0).write_glb(&dir, "strip");
    let first = load_unit(&input, &[], &options, &cache).expect("first");
    skinned_strip(1.5).write_glb(&dir, "strip");
    let second = load_unit(&input, &[], &options, &cache).expect("second");
    assert_eq!(second.outcome, CacheOutcome::Baked);
    assert_ne!(second.entry, first.entry);
    assert_ne!(second.asset.animation, first.asset.animation);
}

#[test]
fn external_buffer_content_is_part_of_the_key() {
    let dir = temp_dir("cache-bin");
    let cache = cache_in(&dir);
    let options = BakeOptions::default();
    let input = skinned_strip(1.0).write_gltf(&dir, "strip", None);
    let first = load_unit(&input, &[], &options, &cache).expect("first");
    // Same JSON, other keyframe bytes in strip.bin.
    let mut bent = skinned_strip(1.0);
    bent.bin = skinned_strip(0.5).bin;
    std::fs::write(dir.join("strip.bin"), &bent.bin).expect("rewrite bin");
    let second = load_unit(&input, &[], &options, &cache).expect("second");
    assert_eq!(second.outcome, CacheOutcome::Baked);
    assert_ne!(second.entry, first.entry);
}

#[test]
fn changed_options_use_a_different_entry() {
    let dir = temp_dir("cache-options");
    let cache = cache_in(&dir);
    let input = skinned_strip(1.0).write_glb(&dir, "strip");
    let mat = load_unit(&input, &[], &BakeOptions::default(), &cache).expect("mat3x4");
    let quat_options = BakeOptions {
        encoding: BoneEncoding::QuatF16,
        ..BakeOptions::default()
    };
    let quat = load_unit(&input, &[], &quat_options, &cache).expect("quat16");
    assert_eq!(quat.outcome, CacheOutcome::Baked);
    assert_ne!(quat.entry, mat.entry);
    assert_eq!(entries(&cache).len(), 2);
    let again = load_unit(&input, &[], &BakeOptions::default(), &cache).expect("mat3x4 again");
    assert_eq!(again.outcome, CacheOutcome::Cached);
}

#[test]
fn corrupt_entry_is_rebaked_with_a_reason_and_replaced() {
    let dir = temp_dir("cache-corrupt");
    let cache = cache_in(&dir);
    let input = skinned_strip(1.0).write_glb(&dir, "strip");
    let first = load_unit(&input, &[], &BakeOptions::default(), &cache).expect("first");
    let entry = first.entry.expect("entry");
    let mut bytes = std::fs::read(&entry).expect("read entry");
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0xff;
    std::fs::write(&entry, &bytes).expect("corrupt entry");
    let second = load_unit(&input, &[], &BakeOptions::default(), &cache).expect("second");
    match &second.outcome {
        CacheOutcome::Rebaked(reason) => assert!(reason.contains("checksum"), "{reason}"),
        other => panic!("expected a rebake, got {other:?}"),
    }
    let repaired = horde_asset::read_file(&entry).expect("entry replaced by a valid file");
    assert_eq!(repaired, second.asset);
    let third = load_unit(&input, &[], &BakeOptions::default(), &cache).expect("third");
    assert_eq!(third.outcome, CacheOutcome::Cached);
}

#[test]
fn disabled_cache_bakes_and_writes_nothing() {
    let dir = temp_dir("cache-off");
    let input = skinned_strip(1.0).write_glb(&dir, "strip");
    let cache = CacheOptions {
        enabled: false,
        dir: Some(dir.join("cache")),
    };
    for _ in 0..2 {
        let loaded = load_unit(&input, &[], &BakeOptions::default(), &cache).expect("load");
        assert_eq!(loaded.outcome, CacheOutcome::Baked);
        assert_eq!(loaded.entry, None);
    }
    assert!(!dir.join("cache").exists());
}

#[test]
fn horde_files_are_read_as_they_are() {
    let dir = temp_dir("cache-horde");
    let input = skinned_strip(1.0).write_glb(&dir, "strip");
    let cache = cache_in(&dir);
    let baked = load_unit(&input, &[], &BakeOptions::default(), &cache).expect("bake");
    let file = dir.join("strip.horde");
    let bytes = horde_asset::write(&baked.asset).expect("encode");
    let output = horde_bake::output::OutputPath::check(&file).expect("check");
    output.write(&bytes).expect("write");
    let read = load_unit(&file, &[], &BakeOptions::default(), &cache).expect("read");
    assert_eq!(read.outcome, CacheOutcome::Read);
    assert_eq!(read.asset, baked.asset);
    assert_eq!(entries(&cache).len(), 1);
    let as_prop = load_prop(&file, &BakeOptions::default(), &cache);
    assert!(as_prop.is_err(), "a unit file loaded as a prop");
}

#[test]
fn props_are_cached_as_props() {
    let dir = temp_dir("cache-prop");
    let input = skinned_strip(1.0).write_glb(&dir, "strip");
    let cache = cache_in(&dir);
    let first = load_prop(&input, &BakeOptions::default(), &cache).expect("first");
    assert_eq!(first.asset.kind, AssetKind::Prop);
    let unit = load_unit(&input, &[], &BakeOptions::default(), &cache).expect("unit");
    assert_ne!(unit.entry, first.entry, "a prop and a unit share an entry");
    let second = load_prop(&input, &BakeOptions::default(), &cache).expect("second");
    assert_eq!(second.outcome, CacheOutcome::Cached);
}

#[test]
fn concurrent_bakes_of_one_entry_both_succeed_and_leave_one_valid_entry() {
    let dir = temp_dir("cache-race");
    let input = skinned_strip(1.0).write_glb(&dir, "strip");
    let cache = cache_in(&dir);
    let results: Vec<_> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..2)
            .map(|_| scope.spawn(|| load_unit(&input, &[], &BakeOptions::default(), &cache)))
            .collect();
        workers
            .into_iter()
            .map(|worker| worker.join().expect("no panic"))
            .collect()
    });
    let loaded: Vec<_> = results
        .into_iter()
        .map(|result| result.expect("both loads succeed"))
        .collect();
    assert_eq!(loaded[0].asset, loaded[1].asset);
    let files = entries(&cache);
    assert_eq!(
        files.len(),
        1,
        "one entry and no temporary files: {files:?}"
    );
    let entry = horde_asset::read_file(&files[0]).expect("valid entry");
    assert_eq!(entry, loaded[0].asset);
}
