//! The one interface every backend implements, and the choice between
//! backends.
//!
//! A verified [`Program`] runs on an *instance*: the interpreter
//! ([`crate::Interpreter`]) or the JIT's compiled code (`jit::JitInstance`).
//! Both keep their own globals, lists and advice table and run calls under
//! limits, and they are observably identical: the same results, output
//! lines, fuel, memory, advice and errors (kind and code offset). [`Vm`]
//! is that common shape, object-safe, so hosts (the engine, the command
//! line, the test oracles) hold a `Box<dyn Vm>` and never ask which backend
//! they have. What all backends share (finding a function by name, the
//! entry point) is written once here, as provided methods.
//!
//! [`Backend`] names a backend. The core can only build interpreters; the
//! `jit` crate's `Prepared::new(program, backend)` builds an instance for
//! any [`Backend`].

use crate::runtime::{Completion, Host, Limits, Memory, Output, RuntimeError};
use crate::verify::Program;
use cvm_chess::AdviceTable;
use std::fmt;
use std::str::FromStr;

/// A running instance of a verified program, on some backend.
///
/// Memory (globals and lists) and the advice table persist from one call
/// to the next until [`Vm::reset`]; limits apply to every later call.
///
/// ```
/// use cvm::{asm, CollectOutput, Interpreter, NoHost, Program, Vm};
///
/// let program = Program::new(asm::assemble("
/// .entry main
/// .func main params 0 lists 0 locals 0 stack 1 value
///     push 7
///     retv
/// .end
/// ").unwrap()).unwrap();
/// let mut vm: Box<dyn Vm + '_> = Box::new(Interpreter::new(&program));
/// let done = vm.run_entry(&mut NoHost, &mut CollectOutput::default()).unwrap();
/// assert_eq!(done.value(), Some(7));
/// assert_eq!(vm.backend(), cvm::Backend::Interp);
/// ```
pub trait Vm {
    /// Which backend this instance runs on.
    fn backend(&self) -> Backend;

    /// The program being run.
    fn program(&self) -> &Program;

    /// Sets the fuel and call-depth limits for later calls.
    fn set_limits(&mut self, limits: Limits);

    /// The current limits.
    fn limits(&self) -> Limits;

    /// Fuel spent by the last call.
    fn fuel_used(&self) -> u64;

    /// The instance's globals and lists.
    fn memory(&self) -> &Memory;

    /// The instance's globals and lists, mutably (for embedders that preset
    /// data). The layout (the vectors' lengths and the list table) must not
    /// change; a call after it did fails with a `BadCall` error or runs as
    /// if it had not, depending on the backend, never unsafely.
    fn memory_mut(&mut self) -> &mut Memory;

    /// The advice table written by the program's advice functions.
    fn advice(&self) -> &AdviceTable;

    /// The advice table, mutably.
    fn advice_mut(&mut self) -> &mut AdviceTable;

    /// Restores globals and lists to the module's initial values and
    /// empties the advice table.
    fn reset(&mut self);

    /// Calls function `func` with `args`: one int per value parameter, then
    /// one list index per list parameter. Output goes to `output`; the
    /// chess intrinsics read the position and the engine's settings from
    /// `host`.
    fn call(
        &mut self,
        func: u32,
        args: &[i32],
        host: &mut dyn Host,
        output: &mut dyn Output,
    ) -> Result<Completion, RuntimeError>;

    /// Whether the last call ran native code. Always false on the
    /// interpreter; a JIT instance answers false for a call it handed to
    /// the interpreter (the cases are documented with `jit::JitInstance`).
    fn ran_compiled(&self) -> bool {
        false
    }

    /// Calls the function named `name`; see [`Vm::call`]. An unknown name
    /// is a `BadCall` error at offset 0.
    fn call_by_name(
        &mut self,
        name: &str,
        args: &[i32],
        host: &mut dyn Host,
        output: &mut dyn Output,
    ) -> Result<Completion, RuntimeError> {
        let func = self
            .program()
            .module()
            .function_index(name)
            .ok_or_else(|| RuntimeError::bad_call(format!("no function named {name}")))?;
        self.call(func, args, host, output)
    }

    /// Calls the module's entry point (`main`) without arguments. A module
    /// without one is a `BadCall` error at offset 0.
    fn run_entry(
        &mut self,
        host: &mut dyn Host,
        output: &mut dyn Output,
    ) -> Result<Completion, RuntimeError> {
        let entry = self
            .program()
            .module()
            .entry
            .ok_or_else(|| RuntimeError::bad_call("the module has no entry point"))?;
        self.call(entry, &[], host, output)
    }
}

/// Which backend runs a program. The command line's `--backend`, the
/// engine's `CheBackend` option, the tests and the oracles all use this
/// one type.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum Backend {
    /// The interpreter ([`crate::Interpreter`]): no compilation, starts at
    /// once.
    #[default]
    Interp,
    /// The Cranelift JIT (the `jit` crate): compiles the program to native
    /// code first, then runs it faster.
    Jit,
    /// Tiered (the `jit` crate's `TieredProgram`): starts on the
    /// interpreter and compiles the functions that turn out to be hot,
    /// on a background thread, switching to their native code at their next
    /// call.
    Auto,
}

impl Backend {
    /// Every backend, in the order the tools list them.
    pub const ALL: [Backend; 3] = [Backend::Interp, Backend::Jit, Backend::Auto];

    /// The name used on command lines and in UCI options.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Interp => "interp",
            Backend::Jit => "jit",
            Backend::Auto => "auto",
        }
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An unknown backend name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown backend `{0}` (expected interp, jit or auto)")]
pub struct UnknownBackend(pub String);

impl FromStr for Backend {
    type Err = UnknownBackend;

    /// Reads `interp` (or `interpreter`), `jit` and `auto`, in any case.
    fn from_str(s: &str) -> Result<Backend, UnknownBackend> {
        match s.trim().to_ascii_lowercase().as_str() {
            "interp" | "interpreter" => Ok(Backend::Interp),
            "jit" => Ok(Backend::Jit),
            "auto" => Ok(Backend::Auto),
            _ => Err(UnknownBackend(s.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backend_names_round_trip() {
        for b in Backend::ALL {
            assert_eq!(b.name().parse::<Backend>(), Ok(b));
            assert_eq!(b.to_string(), b.name());
        }
        assert_eq!("JIT".parse::<Backend>(), Ok(Backend::Jit));
        assert_eq!("Auto".parse::<Backend>(), Ok(Backend::Auto));
        assert_eq!("Interpreter".parse::<Backend>(), Ok(Backend::Interp));
        assert!("vm".parse::<Backend>().is_err());
    }
}
