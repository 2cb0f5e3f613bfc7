//! Fuzzes the `.horde` reader: any byte string must give `Ok` or `Err`, never
//! a panic, an out-of-bounds read or an allocation beyond the input's size.
//! The body is `horde_bake::fuzzing::read_asset`, which the corpus replay
//! test runs too.
//!
//! Run: see `tools/bake/fuzz/README.md`.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| horde_bake::fuzzing::read_asset(data));
