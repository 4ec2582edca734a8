//! Cranelift backend for the Che Virtual Machine (CVM).
//!
//! This crate lowers verified CVM modules to native code with the
//! interpreter's semantics, observably: the same results, output lines,
//! advice tables, and runtime errors of the same kind at the same CVM code
//! offset. The design is described in `docs/jit.md`.
//!
//! | module | job |
//! |--------|-----|
//! | `analysis` | facts about the CVM program, no Cranelift: constant lists, call-depth bounds, counted loops, which calls are spliced |
//! | [`compile`] | a whole program to native code ([`JitProgram`]): analysis, declaration, definition, linking |
//! | `lower` | one CVM function (with the calls spliced into it) to Cranelift IR |
//! | `patterns` | native patterns: chess pattern intrinsics as native bitboard code |
//! | `context` | the `#[repr(C)]` record compiled code and shims share |
//! | `shims` | the Rust functions compiled code calls |
//! | `stack` | native stack for deep recursion |
//! | [`instance`] | running compiled code ([`JitInstance`]) |
//! | [`tiered`] | the tiered backend: interpret first, compile what is hot ([`TieredProgram`]) |
//! | [`prepared`] | a program ready for the backend of the user's choice ([`Prepared`]) |
//!
//! ```
//! use cvm::{asm, CollectOutput, NoHost, Program, Vm};
//!
//! let program = Program::new(asm::assemble(r#"
//! .entry main
//! .func main params 0 lists 0 locals 0 stack 2 value
//!     push 40
//!     add.i 2
//!     retv
//! .end
//! "#).unwrap()).unwrap();
//! let jit = jit::JitProgram::compile(&program).unwrap();
//! let mut vm = jit.instance();
//! let done = vm.run_entry(&mut NoHost, &mut CollectOutput::default()).unwrap();
//! assert_eq!(done.value(), Some(42));
//! ```

#![deny(missing_docs)]

mod analysis;
pub mod baseline;
pub mod compile;
mod context;
mod deferred;
pub mod define;
mod error;
pub mod instance;
mod lower;
mod patterns;
pub mod prepared;
mod shared;
mod shims;
mod stack;
pub mod tiered;

#[cfg(feature = "measure-unchecked")]
pub use compile::Unchecked;
pub use compile::{bounds, CodeGen, CompileStats, JitProgram};
pub use cvm;
pub use define::set_compile_threads;
pub use error::JitError;
pub use instance::{JitInstance, LoopEntries};
pub use prepared::Prepared;
pub use tiered::{TierConfig, TieredInstance, TieredProgram};
