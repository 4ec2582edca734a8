//! Compiler diagnostics: the shared ones of [`cvm_frontend::diag`].
//!
//! Che++ reports problems exactly as the other front ends do; this module
//! re-exports the shared types so that `chepp::diag::Diagnostic` and
//! friends keep their names.

pub use cvm_frontend::diag::*;
