//! `che-lab`, the experiment harness: one command reproduces the advice-overhead study.
//!
//! Each experiment ([`experiments`]) splits its work into numbered units ([`experiment`]),
//! measures the units of its shard ([`shard`]) and writes one CSV row per measured run
//! ([`table`], with the commit, machine, date and seed of [`meta`]). Everything else is derived
//! from the CSV alone: the Markdown section ([`markdown`]) and the SVG plot ([`plot`]), so that
//! `merge` can combine shards and `report` can assemble `docs/experiments.md` ([`report`]) with
//! numbers that come from the CSVs beside it.
//!
//! | module | job |
//! |--------|-----|
//! | [`error`] | the harness's typed errors |
//! | [`meta`] | commit, machine, date and seed of a run |
//! | [`table`] | CSV tables: write, read, concatenate |
//! | [`stats`] | medians, means, Elo from a match score |
//! | [`markdown`] | Markdown tables and number formats |
//! | [`plot`] | SVG bar and scatter charts (plotters) |
//! | [`shard`] | `--shard K/N`: which units a machine measures |
//! | [`experiment`] | the experiment interface, the run configuration and the registry |
//! | [`experiments`] | the experiments themselves |
//! | [`twin`] | the native Rust twin of the bundled advice program |
//! | [`patterns_twin`] | the native Rust twin of the pattern-heavy program `patterns.che` |
//! | [`programs`] | the programs the experiments run, on which backends |
//! | [`runner`] | runs experiments with progress bars, merges shards |
//! | [`report`] | assembles `docs/experiments.md` from a run's CSVs |

pub mod error;
pub mod experiment;
pub mod experiments;
pub mod markdown;
pub mod meta;
pub mod patterns_twin;
pub mod plot;
pub mod programs;
pub mod report;
pub mod runner;
pub mod shard;
pub mod stats;
pub mod table;
pub mod twin;
