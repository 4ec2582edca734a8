//! Chess inside the CVM: how Che++ chess values are encoded, the board view
//! the intrinsics read, the advice table they write, and the chess
//! intrinsics themselves as plain Rust functions.
//!
//! | module | job |
//! |--------|-----|
//! | [`lit`] | integer encodings of squares, moves, pieces, colours, ... |
//! | [`board`] | [`board::BoardView`], the `#[repr(C)]` position the embedder fills |
//! | [`sets`] | what a literal value stands for, as a square, file, colour or kind set |
//! | [`attacks`] | attack sets (leaper tables, classical sliding rays) |
//! | [`exchange`] | static exchange evaluation for `ExchngCtrl` |
//! | [`pattern`] | the pattern functions (IV.2), with mask forms for the optimizer and the JIT |
//! | [`advice`] | [`advice::AdviceTable`], the `#[repr(C)]` table advice functions write |
//! | [`advise`] | the advice and style functions (IV.5, IV.6) |
//! | [`style`] | the `ST_*` and `OPP_*` numbers shared with `stdlib.che` and the engine |
//!
//! The glue that binds these to the intrinsic table (argument decoding,
//! list access, the and/or/`Get` rules) is private to the crate; the table
//! itself is [`crate::intrinsics::INTRINSICS`].

pub mod advice;
pub mod advise;
pub mod attacks;
pub mod board;
pub(crate) mod calls;
pub mod exchange;
pub mod lit;
pub mod pattern;
pub mod sets;
pub mod style;
