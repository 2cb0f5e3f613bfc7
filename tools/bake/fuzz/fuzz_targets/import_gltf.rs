//! Fuzzes the glTF importer: any bytes, as a `.glb` or a `.gltf` file, must
//! give `Ok` or `Err`, never a panic, a hang or an unbounded allocation. The
//! bytes go through a real file so the whole path is exercised: the
//! regular-file and size checks, GLB framing, JSON validation, URI
//! confinement (to an empty folder) and the gltf crate behind them. A panic
//! inside is caught by the bake's last guard and would surface as an error,
//! so the importer is called directly, without that guard.
//!
//! Run: `cd tools/bake/fuzz && cargo +nightly fuzz run import_gltf`.

#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::PathBuf;

fuzz_target!(|data: &[u8]| {
    let dir = std::env::temp_dir().join(format!("horde-fuzz-gltf-{}", std::process::id()));
    if std::fs::create_dir_all(&dir).is_err() {
        return;
    }
    let name = if data.starts_with(b"glTF") { "input.glb" } else { "input.gltf" };
    let path: PathBuf = dir.join(name);
    if std::fs::write(&path, data).is_ok() {
        let _ = horde_bake::import::import_character(&path);
        let _ = horde_bake::import::import_prop(&path);
    }
});
