//! # Editor support for the three languages
//!
//! Che++ (`.che`), Nimzo 3 Che (`.che3`) and CHEG (`.cheg`) in an editor:
//!
//! | part | module |
//! |------|--------|
//! | the Language Server Protocol over standard input/output (`che lsp`) | [`lsp`] |
//! | what the server knows of a document: diagnostics, names, words | [`analysis`] |
//! | a CVM machine that steps verified code with its state in view | [`debug`] |
//!
//! The server calls the front ends the way the command line does, so an
//! editor shows the same messages at the same places as `che compile`.

pub mod analysis;
pub mod debug;
pub mod lsp;
