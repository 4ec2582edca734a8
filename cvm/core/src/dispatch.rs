//! The interpreter's call-dispatch hook: how another backend takes over a
//! call the interpreter is about to make.
//!
//! A tiered backend (the `jit` crate's `Backend::Auto`) starts every
//! program on the interpreter and compiles the functions that turn out to
//! be hot. [`Interpreter::call_dispatched`](crate::Interpreter::call_dispatched)
//! runs a call like [`Vm::call`](crate::Vm::call) but offers every `call`
//! instruction it executes to a [`CallHook`], after the instruction's depth
//! check and fuel charge, exactly where the callee's frame would be set up.
//! The hook may run the callee itself (on native code) with the
//! interpreter's memory, advice table, host and output, the fuel left and
//! the depth left, and report how it ended ([`Handled`]); the interpreter
//! then continues after the `call` with the callee's value, or stops with
//! the callee's halt or error, as if it had run the callee itself. A hook
//! that answers `None` leaves the call to the interpreter.
//!
//! The plain interpreter ([`Vm::call`](crate::Vm::call)) has no hook: its
//! dispatch loop is compiled without the check.

use crate::runtime::{Host, Memory, Output, TrapKind};
use cvm_chess::advice_table::AdviceTable;

/// A `call` the interpreter offers to a [`CallHook`]: the depth check and
/// the call's fuel charge are done.
pub struct CallSite<'a> {
    /// The callee.
    pub func: u32,
    /// Its arguments: one int per value parameter, then one list index per
    /// list parameter (the verifier matched them to the callee).
    pub args: &'a [i32],
    /// Fuel left for the callee (and everything after it).
    pub fuel: u64,
    /// Frames the callee may still open, itself excluded: a call inside the
    /// callee fails with the depth error when this is at most 1 (the JIT's
    /// `depth_left` convention, `docs/jit.md`). At least 1.
    pub depth_left: u32,
    /// The instance's depth limit, the figure a depth error reports.
    pub max_depth: u32,
    /// The instance memory.
    pub memory: &'a mut Memory,
    /// The advice table.
    pub advice: &'a mut AdviceTable,
    /// The embedder's host.
    pub host: &'a mut dyn Host,
    /// The embedder's output.
    pub output: &'a mut dyn Output,
}

/// How a call a [`CallHook`] ran ended. Fuel figures are what is left of
/// [`CallSite::fuel`], never more than it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Handled {
    /// The callee returned (`value` when it returns one).
    Returned {
        /// The callee's value.
        value: Option<i32>,
        /// Fuel left.
        fuel_left: u64,
    },
    /// The callee executed `halt`.
    Halted {
        /// Fuel left.
        fuel_left: u64,
    },
    /// The callee stopped with a runtime error at CVM code offset
    /// `offset`.
    Trapped {
        /// The error.
        kind: TrapKind,
        /// The CVM code offset of the failing instruction.
        offset: u32,
        /// Fuel left.
        fuel_left: u64,
    },
}

/// Decides, at each `call` the interpreter executes, whether someone else
/// runs the callee (see the module documentation).
pub trait CallHook {
    /// Runs the call described by `site` and says how it ended, or returns
    /// `None` (having changed nothing) to let the interpreter run it.
    fn call(&mut self, site: CallSite<'_>) -> Option<Handled>;
}
