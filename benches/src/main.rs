//! Benchmark harness entry point.

fn main() {}
