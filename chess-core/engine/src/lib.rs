//! # The Che chess engine
//!
//! A bitboard alpha-beta engine that takes advice: before each search it
//! runs a CVM advice program (Che++ compiled to the CVM, on the interpreter
//! or the JIT) on the root position, as Nimzo did, and lets the advice table
//! shape its evaluation and move ordering; in node mode it also asks the
//! program's `Evaluate()` at every leaf. The chess itself (positions, moves,
//! notation) comes from `chess-core`.
//!
//! | module | job |
//! |--------|-----|
//! | [`eval`] | static evaluation, with the advice program's bonuses folded in |
//! | [`search`] | alpha-beta with its helpers (transposition table, ordering, time) |
//! | [`host`] | the CVM host: the board view, score history and style settings a program reads |
//! | [`advisor`] | loads the advice program and runs it on the chosen backend |
//! | [`endgame`] | CHEG endgame programs that take over when their ENTRY matches |
//! | [`book`] | Polyglot opening books: reading, weighted choice, building from PGN |
//! | [`native`] | Rust twins of advice programs standing in for them (measurement) |
//! | [`options`] | the engine's options (UCI and terminal spellings) |
//! | [`engine`] | the game, the options and a search that obeys the advice |
//! | [`worker`] | the engine's thread |
//! | [`uci`], [`play`] | the two front ends: the UCI protocol and the terminal game |
//!
//! ```
//! use che_engine::engine::Engine;
//! use che_engine::options::EngineOptions;
//!
//! let engine = Engine::new(EngineOptions::default());
//! assert_eq!(engine.position().side_to_move(), chess_core::Colour::White);
//! ```

pub mod advisor;
pub mod book;
pub mod endgame;
pub mod engine;
pub mod eval;
pub mod host;
pub mod native;
pub mod options;
pub mod play;
pub mod search;
pub mod uci;
pub mod worker;
