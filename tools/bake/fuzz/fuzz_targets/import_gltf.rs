//! Fuzzes the glTF importer and the bake of small inputs: any bytes must give
//! `Ok` or `Err`, never a panic, a hang or an unbounded allocation. The body
//! is `horde_bake::fuzzing::import_gltf`, which the corpus replay test runs too.
//!
//! Run: see `tools/bake/fuzz/README.md`.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| horde_bake::fuzzing::import_gltf(data));
