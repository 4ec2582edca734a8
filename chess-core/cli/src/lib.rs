//! # The `che` command line, as a library
//!
//! The binary `che` (compile, list, assemble, run and inspect CVM programs)
//! is `src/main.rs`; this library holds the parts worth testing on their
//! own: [`demo`], the project's main job in one call (the bundled Che++
//! advice program on a position, on every backend, side by side), and
//! [`advice_json`], the advice table as JSON for `che advice`;
//! [`advice_svg`], the advice table as a picture for `che advice --svg`;
//! [`cheg_cmd`], the commands for CHEG programs (`.cheg`); and
//! [`serve`], the local web playground of `che serve`.

pub mod advice_json;
pub mod advice_svg;
pub mod cheg_cmd;
pub mod demo;
pub mod serve;
