//! The run context: the one `#[repr(C)]` record compiled code and the shims
//! share.
//!
//! Every compiled function receives a pointer to a [`Context`] as its first
//! argument. Compiled code reads the memory pointers at the front of it and,
//! when a run stops early, writes the trap record (kind, CVM code offset,
//! payload, remaining fuel). The shims (Rust functions that compiled code
//! calls for intrinsics and output) find the embedder's objects through the
//! raw pointers at the back, which compiled code never touches.
//!
//! Keeping all of this in one record, rather than in globals or thread
//! locals, is what lets several instances run at once and lets an error
//! unwind every compiled frame by plain returns: a callee that stops writes
//! the record and returns a negative status, and each caller returns it on.

use cvm::intrinsics::ListWork;
use cvm::module::TextDef;
use cvm::runtime::ListSlice;
use cvm::{Host, Memory, Output, TrapKind};
use cvm_chess::advice_table::AdviceTable;
use cvm_chess::board::BoardView;
use std::any::Any;
use std::mem::offset_of;
use std::sync::atomic::AtomicU8;

/// Status a compiled function returns (in place of the remaining fuel) when
/// a runtime error stopped the run; the trap record says which.
pub(crate) const STATUS_TRAP: i64 = -1;
/// Status a compiled function returns when the program executed `halt`.
pub(crate) const STATUS_HALT: i64 = -2;

/// What a shim returns instead of a value when it stopped the run (an
/// intrinsic error or a panic in embedder code). Every real result is an
/// `i32` sign-extended to `i64`, so it can never collide with this.
pub(crate) const SHIM_TRAP: i64 = i64::MIN;

/// Trap kinds in [`Context::trap_code`], written by compiled code.
pub(crate) mod trap {
    /// Division or modulo by zero.
    pub const DIV_ZERO: u32 = 1;
    /// List index out of bounds: `trap_a` is the index, `trap_b` the slots.
    pub const LIST_INDEX: u32 = 2;
    /// Call depth limit.
    pub const CALL_DEPTH: u32 = 3;
    /// Out of fuel.
    pub const OUT_OF_FUEL: u32 = 4;
    /// A shim stored the error in [`super::Context::payload`] (or a panic in
    /// [`super::Context::panic`]).
    pub const SHIM: u32 = 5;
    /// A `Get` form's list too short: `trap_a` is the count, `trap_b` the
    /// list's capacity.
    pub const LIST_OVERFLOW: u32 = 6;
}

/// The run context. The fields up to `result` are read or written by
/// compiled code at the offsets in [`offsets`]; the rest belongs to the
/// shims.
#[repr(C)]
pub(crate) struct Context<'a> {
    /// The instance's globals.
    pub globals: *mut i32,
    /// The instance's list heap.
    pub heap: *mut i32,
    /// Where each list lives in the heap.
    pub lists: *const ListSlice,
    /// The position the chess intrinsics see: the host's own board view
    /// (`Host::board`), or [`BoardView::EMPTY`] for a host without one,
    /// read in place by inlined pattern code and the pattern shims. Set by
    /// every run before compiled code starts, and again after a host
    /// service (which may move the host to another position); never
    /// written through.
    pub board: *const BoardView,
    /// Trap kind (see [`trap`]), written by compiled code.
    pub trap_code: u32,
    /// CVM code offset of the failing instruction.
    pub trap_offset: u32,
    /// First payload word (the list index of a bounds error).
    pub trap_a: i32,
    /// Second payload word (the slot count of a bounds error).
    pub trap_b: i32,
    /// Fuel left when the run stopped early (trap or halt).
    pub fuel_left: i64,
    /// The square set the pattern shim computed.
    pub set_out: u64,
    /// The value of the function an embedder's call entered: stored by the
    /// entry trampoline, or by the instance after a direct call.
    pub result: i32,
    /// Entries into counted loops that took the fast copy.
    pub loops_fast: u64,
    /// Entries into counted loops that took the checked copy.
    pub loops_checked: u64,
    /// The state of a frame to continue at a loop header (on-stack
    /// replacement, `crate::shared::osr_heads`), for the function entered
    /// next, which clears it; null for an ordinary entry.
    pub osr: *const i32,
    /// Back edges baseline code compiled for on-stack replacement takes
    /// before it asks for better code (`crate::shims::osr_poll`).
    pub poll: u32,
    /// One flag per function of the program, non-zero once [`Context::better`]
    /// has Cranelift's code for it: the entry of baseline code compiled for
    /// on-stack replacement reads its function's flag and, when it is set,
    /// lets the shim run that code for the call instead (`crate::shims::osr_poll`
    /// with [`ENTRY`]). Null when no such code can run.
    pub ready: *const AtomicU8,
    /// The waiting fills of deferred lists (`crate::deferred`), which
    /// Cranelift's code records instead of writing the squares; null when
    /// the program has no deferred list.
    pub pending: *mut crate::deferred::Pending,
    /// The instance memory, for intrinsic shims.
    pub memory: *mut Memory,
    /// The advice table, for intrinsic shims.
    pub advice: *mut AdviceTable,
    /// The embedder's host.
    pub host: *mut (dyn Host + 'a),
    /// The embedder's output sink.
    pub output: *mut (dyn Output + 'a),
    /// The module's texts, for `textout`.
    pub texts: &'a [TextDef],
    /// The work of the lists the program never writes, for the intrinsic
    /// shim's charge (`JitProgram::measured`).
    pub measured: &'a [Option<ListWork>],
    /// Where baseline code finds better code for a running frame
    /// (`crate::shims::osr_poll`); `None`: nowhere.
    pub better: Option<&'a dyn BetterCode>,
    /// An intrinsic's error, when `trap_code` is [`trap::SHIM`].
    pub payload: Option<TrapKind>,
    /// A panic caught in a shim, resumed once compiled code has returned.
    pub panic: Option<Box<dyn Any + Send>>,
}

/// Back edges between two polls of baseline code for better code
/// ([`Context::poll`]).
pub(crate) const POLL_EVERY: u32 = 1024;

/// The header offset a poll names when it is made at a function's entry
/// rather than at a back edge: the call runs on the better code from its
/// start.
pub(crate) const ENTRY: u32 = u32::MAX;

/// Better code than the running baseline code, for on-stack replacement
/// at a back edge (`crate::shims::osr_poll`): Cranelift's code of the
/// hosts' JIT once it has arrived, or the tiered backend's.
pub(crate) trait BetterCode {
    /// Calls `run` with the compilation and code of `func` when there is
    /// better code for it (and counts the poll towards the function's
    /// hotness, where that means something); `None` when there is none.
    fn with_better(
        &self,
        func: u32,
        run: &mut dyn FnMut(&crate::JitProgram, crate::shared::CompiledFn) -> i64,
    ) -> Option<i64>;

    /// The flags of [`Context::ready`]: one per function of the program.
    fn ready(&self) -> &[AtomicU8];

    /// Counts a switch to better code made by baseline code: a call at its
    /// entry (`at_entry`), or a frame at a loop back edge.
    fn switched(&self, at_entry: bool);
}

/// Byte offsets of the fields compiled code accesses.
pub(crate) mod offsets {
    use super::*;

    /// [`Context::globals`].
    pub const GLOBALS: i32 = offset_of!(Context<'static>, globals) as i32;
    /// [`Context::heap`].
    pub const HEAP: i32 = offset_of!(Context<'static>, heap) as i32;
    /// [`Context::lists`].
    pub const LISTS: i32 = offset_of!(Context<'static>, lists) as i32;
    /// [`Context::board`].
    pub const BOARD: i32 = offset_of!(Context<'static>, board) as i32;
    /// [`Context::trap_code`].
    pub const TRAP_CODE: i32 = offset_of!(Context<'static>, trap_code) as i32;
    /// [`Context::trap_offset`].
    pub const TRAP_OFFSET: i32 = offset_of!(Context<'static>, trap_offset) as i32;
    /// [`Context::trap_a`].
    pub const TRAP_A: i32 = offset_of!(Context<'static>, trap_a) as i32;
    /// [`Context::trap_b`].
    pub const TRAP_B: i32 = offset_of!(Context<'static>, trap_b) as i32;
    /// [`Context::fuel_left`].
    pub const FUEL_LEFT: i32 = offset_of!(Context<'static>, fuel_left) as i32;
    /// [`Context::set_out`].
    pub const SET_OUT: i32 = offset_of!(Context<'static>, set_out) as i32;
    /// [`Context::result`].
    pub const RESULT: i32 = offset_of!(Context<'static>, result) as i32;
    /// [`Context::loops_fast`].
    pub const LOOPS_FAST: i32 = offset_of!(Context<'static>, loops_fast) as i32;
    /// [`Context::loops_checked`].
    pub const LOOPS_CHECKED: i32 = offset_of!(Context<'static>, loops_checked) as i32;
    /// [`Context::osr`].
    pub const OSR: i32 = offset_of!(Context<'static>, osr) as i32;
    /// [`Context::poll`].
    pub const POLL: i32 = offset_of!(Context<'static>, poll) as i32;
    /// [`Context::ready`].
    pub const READY: i32 = offset_of!(Context<'static>, ready) as i32;
    /// [`Context::pending`].
    pub const PENDING: i32 = offset_of!(Context<'static>, pending) as i32;
    /// [`Context::advice`].
    pub const ADVICE: i32 = offset_of!(Context<'static>, advice) as i32;
    /// `pieces[colour][kind]` in the board view [`Context::board`] points to.
    pub fn piece(colour: usize, kind: usize) -> i32 {
        offset_of!(BoardView, pieces) as i32 + ((colour * 6 + kind) * 8) as i32
    }
    /// `ListSlice::base` within a list-table entry.
    pub const SLICE_BASE: i32 = offset_of!(ListSlice, base) as i32;
    /// `ListSlice::slots` within a list-table entry.
    pub const SLICE_SLOTS: i32 = offset_of!(ListSlice, slots) as i32;
    /// Size of a list-table entry.
    pub const SLICE_SIZE: i64 = std::mem::size_of::<ListSlice>() as i64;
}

impl<'a> Context<'a> {
    /// A context for runs of a program whose texts are `texts` and whose
    /// constant lists' work is `measured` (`JitProgram::measured`), with
    /// `better` code for baseline code's polls and the record of waiting
    /// fills `pending` (null: none). No memory, board, host or output yet
    /// (each run sets them: `crate::instance::Run`), no trap recorded, the
    /// counters at zero.
    pub fn idle(
        texts: &'a [TextDef],
        measured: &'a [Option<ListWork>],
        better: Option<&'a dyn BetterCode>,
        pending: *mut crate::deferred::Pending,
    ) -> Context<'a> {
        let host: *mut (dyn Host + 'a) = std::ptr::null_mut::<cvm::NoHost>();
        let output: *mut (dyn Output + 'a) = std::ptr::null_mut::<cvm::NullOutput>();
        Context {
            globals: std::ptr::null_mut(),
            heap: std::ptr::null_mut(),
            lists: std::ptr::null(),
            board: &BoardView::EMPTY,
            trap_code: 0,
            trap_offset: 0,
            trap_a: 0,
            trap_b: 0,
            fuel_left: 0,
            set_out: 0,
            result: 0,
            loops_fast: 0,
            loops_checked: 0,
            osr: std::ptr::null(),
            poll: POLL_EVERY,
            ready: better.map_or(std::ptr::null(), |b| b.ready().as_ptr()),
            pending,
            memory: std::ptr::null_mut(),
            advice: std::ptr::null_mut(),
            host,
            output,
            texts,
            measured,
            better,
            payload: None,
            panic: None,
        }
    }

    /// The runtime error kind recorded by compiled code or a shim, given
    /// the instance's effective depth limit.
    pub fn trap_kind(&mut self, max_depth: u32) -> TrapKind {
        match self.trap_code {
            trap::DIV_ZERO => TrapKind::DivisionByZero,
            trap::LIST_INDEX => TrapKind::ListIndex {
                index: self.trap_a,
                slots: self.trap_b as u32,
            },
            trap::LIST_OVERFLOW => TrapKind::ListOverflow {
                needed: self.trap_a as u32,
                capacity: self.trap_b as u32,
            },
            trap::CALL_DEPTH => TrapKind::CallDepth(max_depth),
            trap::OUT_OF_FUEL => TrapKind::OutOfFuel,
            _ => self
                .payload
                .take()
                .unwrap_or_else(|| TrapKind::BadCall("lost trap record".into())),
        }
    }
}
