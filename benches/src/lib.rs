//! Shared helpers for the benchmarks and the experiment harness.
