//! The bodies of the fuzz targets, shared by `cargo fuzz` (`tools/bake/fuzz`)
//! and the corpus replay test (`tools/bake/tests/fuzz_corpus.rs`), so CI runs
//! every committed corpus input through exactly what the fuzzer ran.
//!
//! Each function takes arbitrary bytes and must return; a panic is the bug
//! the fuzzer reports. Running the fuzzers is described in
//! `tools/bake/fuzz/README.md`.

use crate::{BakeOptions, TwoBoneMethod};
use horde_asset as asset;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

/// Inputs larger than this are imported but not baked, so one input costs
/// milliseconds and the fuzzer explores instead of waiting.
pub const BAKE_LIMIT_BYTES: usize = 64 * 1024;

/// The `.horde` reader: any bytes give `Ok` or `Err`. Inputs that pass the
/// checksum are rare by chance, so the input is also read sealed with a
/// correct length and checksum, which reaches the section parsers; a file
/// the reader accepts must survive a write/read round trip.
pub fn read_asset(data: &[u8]) {
    let _ = asset::read(data);
    if data.len() < asset::HEADER_SIZE {
        return;
    }
    let mut sealed = data.to_vec();
    let length = sealed.len() as u64;
    sealed[16..24].copy_from_slice(&length.to_le_bytes());
    let checksum = asset::fnv1a32(&sealed[asset::HEADER_SIZE..]);
    sealed[24..28].copy_from_slice(&checksum.to_le_bytes());
    if let Ok(parsed) = asset::read(&sealed) {
        let written = asset::write(&parsed).expect("an accepted asset serializes");
        assert_eq!(asset::read(&written).ok(), Some(parsed));
    }
}

/// The glTF importer and the bake: any bytes, as a `.glb` or a `.gltf`
/// file, give `Ok` or `Err`. The bytes go through a real file in a folder of
/// their own, so the whole path is exercised: the regular-file and size
/// checks, GLB framing, JSON validation, URI confinement and the gltf crate.
/// Small inputs are then baked as a unit and as a prop, with cheap options;
/// the bake turns a panic into an "internal error", which is re-raised here
/// so the fuzzer sees it.
pub fn import_gltf(data: &[u8]) {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let dir = std::env::temp_dir().join(format!(
        "horde-fuzz-gltf-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    if std::fs::create_dir_all(&dir).is_err() {
        return;
    }
    let name = if data.starts_with(b"glTF") {
        "input.glb"
    } else {
        "input.gltf"
    };
    let path: PathBuf = dir.join(name);
    if std::fs::write(&path, data).is_ok() {
        let character = crate::import::import_character(&path);
        let prop = crate::import::import_prop(&path);
        if data.len() <= BAKE_LIMIT_BYTES {
            let options = BakeOptions {
                sample_rate: 10.0,
                max_sample_rate: 10.0,
                max_interp_error: 1.0,
                lod_ratios: vec![1.0, 0.5],
                two_bone: TwoBoneMethod::Naive,
                ..BakeOptions::default()
            };
            let quiet = |_: &str| {};
            if character.is_ok() {
                reraise_panic(crate::bake_unit(&path, &[], &options, &quiet).err());
            }
            if prop.is_ok() {
                reraise_panic(crate::bake_prop(&path, &options, &quiet).err());
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Panics if `error` is the bake's report of a caught panic.
fn reraise_panic(error: Option<crate::BakeError>) {
    if let Some(error) = error {
        let message = error.to_string();
        assert!(!message.contains(crate::INTERNAL_ERROR), "{message}");
    }
}
