//! # The chess intrinsics of the CVM
//!
//! Everything the Che Virtual Machine knows about chess, and nothing about
//! the VM: how Che++ chess values are encoded as integers, the two
//! `#[repr(C)]` records a host shares with a running program (the
//! [`board::BoardView`] it fills and the [`advice_table::AdviceTable`] the
//! program writes), and the rules behind every chess intrinsic as plain
//! Rust functions over those records.
//!
//! The crate depends on nothing outside std but chess-core, the workspace's
//! one chess rule set (itself std only), whose attack tables and geometry it
//! adapts to the intrinsics' encodings. The VM core (`cvm`) binds these
//! functions to its intrinsic table, the Che++ front end uses the literal
//! encodings, and the JIT inlines the pattern tests as bitboard code; none
//! of them repeats a chess rule.
//!
//! | module | job |
//! |--------|-----|
//! | [`lit`] | integer encodings of squares, moves, pieces, colours, ... |
//! | [`board`] | [`board::BoardView`], the position the embedder fills |
//! | [`sets`] | what a literal value stands for, as a square, file, colour or kind set |
//! | [`attacks`] | attack sets, on chess-core's tables (the one rule set) |
//! | [`exchange`] | static exchange evaluation for `ExchngCtrl` |
//! | [`pattern`] | the pattern functions, with mask forms for the optimizer and the JIT |
//! | [`advice_table`] | [`advice_table::AdviceTable`], the table the advice functions write |
//! | [`advice`] | the advice and style functions |
//! | [`style`] | the `ST_*` and `OPP_*` numbers shared with `stdlib.che` and the engine |
//!
//! ```
//! use cvm_chess::{board::BoardView, lit, pattern};
//!
//! let board = BoardView::from_fen("4k3/8/8/8/4P3/8/8/4K3 w - - 0 1").unwrap();
//! let e4 = lit::parse_square("e4").unwrap();
//! let white_pawn = lit::parse_piece("wP").unwrap();
//! assert!(pattern::pc_on_sqrs_mask(&board, white_pawn, lit::square_mask(e4), pattern::Mode::All));
//! ```

#![deny(missing_docs)]

pub mod advice;
pub mod advice_table;
pub mod attacks;
pub mod board;
pub mod exchange;
pub mod lit;
pub mod pattern;
pub mod sets;
pub mod style;

pub use advice_table::AdviceTable;
pub use board::BoardView;
