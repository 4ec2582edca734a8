//! # Editor support for the three languages
//!
//! Che++ (`.che`), Nimzo 3 Che (`.che3`) and CHEG (`.cheg`) in an editor:
//!
//! | part | module |
//! |------|--------|
//! | the Language Server Protocol over standard input/output (`che lsp`) | [`lsp`] |
//! | what the server knows of a document: diagnostics, names, words | [`analysis`] |
//! | the Debug Adapter Protocol over standard input/output (`che dap`) | [`dap`] |
//! | the base protocol's `Content-Length` framing | [`framing`] |
//! | TextMate grammars made from the languages' tables | [`grammar`] |
//! | the debugger core: a CVM machine that steps verified code with its state in view, and a session's rules | [`debug`] |
//!
//! Both servers call the front ends the way the command line does, so an
//! editor shows the same messages at the same places as `che compile`, and
//! a debug session ends with the exit status `che run` gives.

pub mod analysis;
pub mod dap;
pub mod debug;
pub mod framing;
pub mod grammar;
pub mod lsp;
