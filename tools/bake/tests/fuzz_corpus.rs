//! Replays the committed fuzz corpora (`tools/bake/fuzz/corpus/<target>/`)
//! through the fuzz targets' own bodies (`horde_bake::fuzzing`), so every
//! input a fuzzer kept, and every crash it found (`regressions/`), is run by
//! CI on stable Rust, without libFuzzer.

use std::path::{Path, PathBuf};

fn inputs(target: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let mut files: Vec<PathBuf> = ["corpus", "regressions"]
        .iter()
        .map(|kind| root.join(kind).join(target))
        .filter(|dir| dir.is_dir())
        .flat_map(|dir| std::fs::read_dir(dir).expect("list the corpus"))
        .map(|entry| entry.expect("corpus entry").path())
        .collect();
    files.sort();
    files
}

fn replay(target: &str, body: fn(&[u8])) {
    let files = inputs(target);
    assert!(!files.is_empty(), "no corpus for {target}");
    for file in &files {
        let data = std::fs::read(file).expect("read a corpus file");
        let outcome = std::panic::catch_unwind(|| body(&data));
        assert!(outcome.is_ok(), "{target} fails on {}", file.display());
    }
    println!("{target}: {} inputs replayed", files.len());
}

#[test]
fn read_asset_corpus_replays() {
    replay("read_asset", horde_bake::fuzzing::read_asset);
}

#[test]
fn import_gltf_corpus_replays() {
    replay("import_gltf", horde_bake::fuzzing::import_gltf);
}
