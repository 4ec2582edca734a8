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
//! The hook is also offered loop back edges ([`CallHook::back_edge`]), so
//! that a long loop can move to native code while it runs (on-stack
//! replacement): when the hook asks for it
//! ([`CallHook::back_edge_interval`]), the interpreter keeps all but that
//! much of its fuel back and, each time the fuel it sees runs short, takes
//! it back and offers the back edge being taken, if it is one, with the
//! whole state of the running frame at the edge's target ([`LoopSite`]).
//! A hook that runs the rest of the frame reports how it ended; the
//! interpreter then returns from the frame with its value (or stops), as
//! if it had run the frame to its end itself. The offers cost nothing on
//! the paths that have fuel: they ride on the out-of-fuel check every
//! backward jump makes anyway.
//!
//! The plain interpreter ([`Vm::call`](crate::Vm::call)) has no hook: its
//! dispatch loop is compiled without the checks.

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

/// A loop back edge the interpreter offers to a [`CallHook`]: the jump is
/// taken and charged, and the frame is about to continue at `target`.
pub struct LoopSite<'a> {
    /// The function whose frame is running.
    pub func: u32,
    /// The CVM code offset of the instruction the back edge jumps to (the
    /// loop's header).
    pub target: u32,
    /// The frame slots: parameters, list parameters, locals.
    pub frame: &'a [i32],
    /// The operand stack before `target`, bottom first (as deep as the
    /// verifier says it is there).
    pub stack: &'a [i32],
    /// Fuel left.
    pub fuel: u64,
    /// Frames this frame may still open, itself included and the inlined
    /// frames open at `target` already counted (the JIT's `depth_left` of
    /// the frame at `target`): a call fails with the depth error when this
    /// is at most 1. At least 1.
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

/// How a call (or the rest of a frame) a [`CallHook`] ran ended. Fuel figures are what is left of
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

    /// How much fuel the interpreter spends between two offers of a back
    /// edge ([`CallHook::back_edge`]): 0 offers every back edge, `None`
    /// (the default) none.
    fn back_edge_interval(&self) -> Option<u64> {
        None
    }

    /// Runs the rest of the frame described by `site` from its target on
    /// and says how it ended (a return of the frame's function, a halt or
    /// an error), or returns `None` (having changed nothing) to let the
    /// interpreter go on. The default declines.
    fn back_edge(&mut self, site: LoopSite<'_>) -> Option<Handled> {
        let _ = site;
        None
    }
}
