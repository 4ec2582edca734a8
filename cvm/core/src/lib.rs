//! # The Che Virtual Machine
//!
//! `cvm` is the stable core of the Che project: the CVM instruction set,
//! the `.cmp` module format, the assembler and disassembler, the builder,
//! the verifier, the interpreter, the loophole optimizer and the one VM
//! interface every backend implements. Front ends (the Che++ compiler is the
//! crate `chepp`), backends (the Cranelift JIT is the crate `jit`) and test
//! tooling (`cvm-testkit`) are crates of their own; the chess rules behind
//! the intrinsics live in `cvm-chess`, below this crate (`docs/cvm.md`,
//! "What the crate holds, and why the chess lives next door", and
//! "Stability"). Chrilly Donninger's Che++ compiled to a virtual
//! machine of uniform 4-byte words with 8-byte jumps; this crate keeps that
//! word format as its interchange form and runs it safely: only code that
//! the verifier accepted can run, and no input (bytes, source or data) can
//! make it panic, hang without fuel or touch memory it does not own.
//!
//! The pipeline, one module per stage:
//!
//! | stage | module |
//! |-------|--------|
//! | instruction set (one table) | [`isa`] |
//! | module in memory | [`module`] |
//! | `.cmp` bytes | [`binary`] |
//! | `.asm` text | [`asm`] |
//! | building modules from Rust | [`builder`] |
//! | verification | [`verify`] |
//! | run-time state, output, host, errors | [`runtime`] |
//! | intrinsic functions (one table) | [`intrinsics`] |
//! | optimization (CVM in, CVM out) | [`opt`] |
//! | the VM interface and the backend choice | [`Vm`], [`Backend`] |
//! | interpretation | [`interp`] |
//! | facts about lists, shared with backends | [`list_facts`] |
//! | the interpreter's call-dispatch hook for a tiered backend | [`dispatch`] |
//! | fuel rules shared by every backend | [`fuel`] |
//!
//! ## Example
//! Load bytes, verify, run a function with arguments, read the result:
//!
//! ```
//! use cvm::{asm, binary, load, CollectOutput, Interpreter, NoHost, Vm};
//!
//! // Any producer will do; here the assembler makes the module.
//! let module = asm::assemble(r#"
//! .func fib params 1 lists 0 locals 0 stack 3 value
//!     ldl 0
//!     push 2
//!     lt
//!     jz L_rec
//!     ldl 0
//!     retv
//! L_rec:
//!     ldl 0
//!     push 1
//!     sub
//!     call fib
//!     ldl 0
//!     push 2
//!     sub
//!     call fib
//!     add
//!     retv
//! .end
//! "#).unwrap();
//! let bytes = binary::write(&module);
//!
//! let program = load(&bytes).expect("a valid module");
//! let mut vm = Interpreter::new(&program);
//! let mut out = CollectOutput::default();
//! let result = vm.call_by_name("fib", &[20], &mut NoHost, &mut out).unwrap();
//! assert_eq!(result.value(), Some(6765));
//! ```

#![deny(missing_docs)]

mod analysis;
pub mod asm;
pub mod binary;
pub mod builder;
pub mod dispatch;
pub mod fuel;
pub mod interp;
pub mod intrinsics;
pub mod isa;
pub mod module;
mod natives;
pub mod opt;
pub mod reset;
pub mod runtime;
pub mod verify;
mod vm;

pub use cvm_chess::{AdviceTable, BoardView};

pub use analysis::{list_facts, ListFacts};
pub use interp::Interpreter;
pub use module::Module;
pub use reset::ResetPlan;
pub use runtime::{
    format_value, CollectOutput, Completion, Host, HostAnswer, Limits, Memory, NoHost, NullOutput,
    Output, OutputLine, RuntimeError, TrapKind, WriterOutput,
};
pub use verify::{Program, VerifyError};
pub use vm::{Backend, UnknownBackend, Vm};

/// Why `.cmp` bytes could not be turned into a runnable program.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LoadError {
    /// The bytes are not a well-formed `.cmp` file.
    #[error("malformed .cmp file: {0}")]
    Format(#[from] binary::FormatError),
    /// The module is well-formed but breaks a verification rule.
    #[error("invalid module: {0}")]
    Verify(#[from] VerifyError),
}

/// Loads `.cmp` bytes: parses them, checks every table and verifies the
/// code. Only a [`Program`] can be run.
pub fn load(bytes: &[u8]) -> Result<Program, LoadError> {
    let module = binary::read(bytes)?;
    Ok(Program::new(module)?)
}
