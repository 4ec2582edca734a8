//! Cranelift backend for the Che Virtual Machine (CVM).
//!
//! This crate lowers verified CVM modules to native code. It depends on the
//! [`cvm`] crate only; the chess host in `chess-core` chooses between this
//! backend and the interpreter at run time.

pub use cvm;
