//! The interpreter.
//!
//! # Design
//! A naive stack interpreter spends most of its time moving a stack pointer,
//! re-decoding operand words and copying values between the stack and the
//! frame. The verifier already knows the stack depth before every
//! instruction, so every operand-stack slot has a fixed place in the frame.
//! [`Interpreter::new`] therefore translates verified CVM code, once, into a
//! private *register form* (modules `op` and `translate`): ops whose operands are
//! frame-relative register numbers (frame slots first, then the
//! operand-stack slots), jump targets that are indices into the translated
//! code, and no stack pointer at run time. The translation reads operands
//! where they already are: a `ldl s` or `push k` produces no op (its
//! consumer reads `s`, or takes `k` as an immediate), a result stored into
//! a frame slot is computed into that slot, and frequent pairs become fused
//! ops, so that the loop bodies of the benchmark programs run two to four
//! ops per iteration. A call does not copy its arguments: the callee's
//! frame starts where the caller's arguments already lie, and the result is
//! written to the first of those slots (the same trick Lua's register VM
//! uses).
//!
//! The dispatch loop is a `match` over a small `Copy` enum. Register
//! accesses are unchecked: the translation only produces register numbers
//! below the frame size that the verifier established, and every call makes
//! sure the register file holds the callee's whole frame. Everything that
//! depends on run-time values (list indices, divisors, call depth, fuel) is
//! checked, in the ops that need it: fuel at calls and backward jumps, the
//! depth at calls, bounds at list accesses.
//!
//! Runtime errors carry the CVM code offset of the failing instruction,
//! found through a side table, so the translation is invisible to users.
//! Profiled runs ([`Interpreter::call_profiled`]) use a plain translation
//! with one op per executed CVM instruction.

mod op;
mod translate;

use crate::dispatch::{CallHook, CallSite, Handled, LoopSite};
use crate::intrinsics::{Ctx, INTRINSICS};
use crate::module::Module;
use crate::reset::ResetPlan;
use crate::runtime::{
    arith, Completion, Host, Limits, Memory, Output, RuntimeError, TrapKind, LIST_END,
};
use crate::verify::Program;
use crate::vm::{Backend, Vm};
use cvm_chess::advice_table::AdviceTable;
use cvm_chess::board::{kind, BoardView};
use op::{Aux, Frame, FuncMeta, Ix, Ix3, Known, Op, Reg, Scan};
use translate::{translate, Form, Head, Translation};

/// Receives the code offset of every instruction the interpreter executes
/// (see [`Interpreter::call_profiled`]).
pub trait Profiler {
    /// One executed instruction at CVM code offset `offset`.
    fn step(&mut self, offset: u32);
}

/// The dispatch loop's hook: compiled away for ordinary runs.
trait Hook {
    const ENABLED: bool;
    /// Whether `call` instructions are offered to [`Hook::call`].
    const CALLS: bool = false;
    /// Whether back edges are offered to [`Hook::back_edge`] (when
    /// [`Hook::interval`] asks for it).
    const BACK_EDGES: bool = false;
    fn step(&mut self, offset: u32);
    fn call(&mut self, _site: CallSite<'_>) -> Option<Handled> {
        None
    }
    fn interval(&self) -> Option<u64> {
        None
    }
    fn back_edge(&mut self, _site: LoopSite<'_>) -> Option<Handled> {
        None
    }
}

/// The hook of dispatched runs ([`Interpreter::call_dispatched`]).
struct Dispatched<'a>(&'a mut dyn CallHook);

impl Hook for Dispatched<'_> {
    const ENABLED: bool = false;
    const CALLS: bool = true;
    const BACK_EDGES: bool = true;
    fn step(&mut self, _: u32) {}
    fn call(&mut self, site: CallSite<'_>) -> Option<Handled> {
        self.0.call(site)
    }
    fn interval(&self) -> Option<u64> {
        self.0.back_edge_interval()
    }
    fn back_edge(&mut self, site: LoopSite<'_>) -> Option<Handled> {
        self.0.back_edge(site)
    }
}

/// Execution state of [`Interpreter::execute`] that only calls and
/// inlined-call checks use.
struct Cold {
    /// The depth limit less the inlined frames open.
    room: usize,
    /// One past the register file's last register.
    regs_end: *mut i32,
    /// The register file's first register.
    regs_base: *mut i32,
    /// Fuel kept back from the dispatch loop's count, so that it runs
    /// short every [`Cold::every`] units and offers a back edge to the
    /// hook ([`Hook::BACK_EDGES`]); 0 otherwise.
    reserve: u64,
    /// The fuel between two offers (`u64::MAX`: no offers).
    every: u64,
}

impl Cold {
    /// Keeps all but [`Cold::every`] units of `fuel` back; returns the
    /// rest.
    fn split(&mut self, fuel: u64) -> u64 {
        self.reserve = fuel.saturating_sub(self.every);
        fuel - self.reserve
    }
}

/// The board view `host` shows, or the empty board when it has none: what
/// the pattern intrinsics read.
#[inline]
fn board_of(host: &dyn Host) -> *const BoardView {
    host.board().unwrap_or(&BoardView::EMPTY)
}

/// The `target` of a [`Known::GET`] op for `GetControl` of knights alone,
/// beyond the intrinsic numbers: the squares the knights of the colours in
/// mask `a` (bit 0 White, bit 1 Black) control, computed in the op.
pub(super) const GET_KNIGHTS: u32 = INTRINSICS.len() as u32;

/// The `target` of a [`Known::GET`] op for `GetPassed` of one colour: the
/// passed pawns of colour index `a` (0 White, 1 Black), computed in the op.
pub(super) const GET_PASSED: u32 = INTRINSICS.len() as u32 + 1;

/// The test of a [`Known::PAT`] op (or of an [`Op::TestJ`] of one) on `board`: the
/// folded form of the intrinsic its [`Aux::pattern`] names, with its scalar
/// argument and mask.
#[inline(always)]
fn folded_pattern(board: &BoardView, k: &Aux) -> bool {
    let mask = u64::from(k.b) | u64::from(k.target) << 32;
    let (id, mode) = op::pattern_of(k.pattern);
    INTRINSICS
        .get(id)
        .and_then(|i| i.fold)
        .is_some_and(|fold| (fold.func)(board, k.a as i32, mask, mode))
}

/// The fuel ran short of `cost` with `fuel` left in the count: takes the
/// fuel kept back, and returns the count from here on (at least `cost`,
/// at most `cost` plus [`Cold::every`]), or `None` when the run is truly
/// out of fuel.
#[cold]
#[inline(never)]
fn refill(fuel: u64, cold: &mut Cold, cost: u64) -> Option<u64> {
    let total = fuel + cold.reserve;
    if total < cost {
        return None;
    }
    let count = total.min(cost.saturating_add(cold.every));
    cold.reserve = total - count;
    Some(count)
}

/// A back edge arrived at op `here` with the fuel ran short: offers the
/// frame (registers from `fp`, at `depth`) to the hook when `here` is a
/// loop header of [`Translation::heads`]. Returns how the hook ran the rest
/// of the frame, and the inlined frames open at the header.
#[cold]
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn offer_back_edge<P: Hook>(
    hook: &mut P,
    t: &Translation,
    here: usize,
    fp: *mut i32,
    depth_left: usize,
    fuel: u64,
    max_depth: usize,
    memory: &mut Memory,
    advice: &mut AdviceTable,
    host: &mut dyn Host,
    output: &mut dyn Output,
) -> Option<(Handled, usize)> {
    let k = t
        .heads
        .binary_search_by_key(&(here as u32), |h| h.op)
        .ok()?;
    let head: Head = t.heads[k];
    let slots = t.funcs[head.func as usize].slots as usize;
    let depth = head.depth as usize;
    // SAFETY: `fp` is the running frame's base, and the register file
    // holds its whole frame: its slots, then its stack registers, at least
    // as many as the verified depth at any of its instructions.
    let (frame, mut stack) = unsafe {
        (
            std::slice::from_raw_parts(fp, slots),
            std::slice::from_raw_parts(fp.add(slots), depth).to_vec(),
        )
    };
    if let (Some(top), Some(last)) = (head.top, stack.last_mut()) {
        // SAFETY: `top` is a frame slot of the running function.
        *last = unsafe { *fp.add(top as usize) };
    }
    let site = LoopSite {
        func: head.func,
        target: head.offset,
        frame,
        stack: &stack,
        fuel,
        depth_left: depth_left as u32,
        max_depth: max_depth as u32,
        memory,
        advice,
        host,
        output,
    };
    let handled = hook.back_edge(site)?;
    Some((handled, head.frames as usize))
}

/// A call's frame at `fp` needs `frame` registers beyond the register
/// file's end: grows the file (at least doubling it) and returns where
/// that frame now starts. The frames below are found again from their
/// offsets, so nothing else points into the old file.
#[cold]
#[inline(never)]
fn grow_regs(regs: &mut Vec<i32>, cold: &mut Cold, fp: *mut i32, frame: usize) -> *mut i32 {
    // SAFETY: `fp` points into the register file that `cold.regs_base`
    // starts.
    let at = unsafe { fp.offset_from(cold.regs_base) } as usize;
    regs.resize((at + frame).max(regs.len() * 2), 0);
    cold.regs_base = regs.as_mut_ptr();
    cold.regs_end = cold.regs_base.wrapping_add(regs.len());
    // SAFETY: `at + frame <= regs.len()` now.
    unsafe { cold.regs_base.add(at) }
}

/// The op index [`Interpreter::execute`] reports for an error a
/// [`CallHook`] returned; its code offset is in `native_offset`.
const HOOK_TRAP: usize = usize::MAX;

/// The hook of ordinary runs: reports nothing.
struct NoProfile;

impl Hook for NoProfile {
    const ENABLED: bool = false;
    fn step(&mut self, _: u32) {}
}

/// The hook of profiled runs.
struct Profiled<'a>(&'a mut dyn Profiler);

impl Hook for Profiled<'_> {
    const ENABLED: bool = true;
    fn step(&mut self, offset: u32) {
        self.0.step(offset)
    }
}

/// Runs verified programs. Create one per program (the translation happens
/// once), then call functions as often as needed; the instance's globals and
/// lists persist between calls until [`Interpreter::reset`].
///
/// ```
/// use cvm::{asm, Interpreter, Program, NoHost, CollectOutput, Vm};
///
/// let module = asm::assemble(r#"
/// .func main params 0 lists 0 locals 0 stack 2 value
///     push 6
///     push 7
///     mul
///     retv
/// .end
/// "#).unwrap();
/// let program = Program::new(module).unwrap();
/// let mut vm = Interpreter::new(&program);
/// let result = vm.call_by_name("main", &[], &mut NoHost, &mut CollectOutput::default()).unwrap();
/// assert_eq!(result.value(), Some(42));
/// ```
pub struct Interpreter<'p> {
    program: &'p Program,
    /// The register form that runs.
    fast: Translation,
    /// One op per CVM instruction, for profiled runs (made at the first).
    plain: Option<Box<Translation>>,
    memory: Memory,
    /// The memory as the program starts, which `reset` copies back.
    initial: Memory,
    advice: Box<AdviceTable>,
    regs: Vec<i32>,
    frames: Vec<Frame>,
    limits: Limits,
    fuel_used: u64,
    /// The code offset of the last error a [`CallHook`] reported.
    hook_offset: u32,
    /// The embedder had the memory since the last call or reset: the next
    /// call checks its layout (refused when it changed) and the lists the
    /// fast form's charges were worked out from
    /// ([`Translation::reads_lists`]).
    memory_touched: bool,
    /// The fast form, set aside while one of those lists differs from its
    /// initial contents: [`Interpreter::fast`] is then a plain form, which
    /// works every charge out as the call runs.
    parked: Option<Box<Translation>>,
    /// The lists a reset copies back while only the program wrote memory.
    reset_plan: ResetPlan,
    /// Set when something besides the program may have written memory
    /// since the last reset (the embedder, another backend's state, a
    /// call passing lists to a program that writes through list
    /// references): the next reset copies everything back.
    reset_in_full: bool,
    /// How the last run that ended in an error ended: the error's kind
    /// and the index of the failing op (the dispatch loop returns only
    /// whether a run completed, so that a completed run's value comes back
    /// in registers).
    trap: Option<(TrapKind, usize)>,
}

impl<'p> Interpreter<'p> {
    /// Translates a verified program and creates its instance memory.
    pub fn new(program: &'p Program) -> Interpreter<'p> {
        let initial = Memory::new(program.module());
        let facts = crate::analysis::list_facts(program);
        Interpreter {
            program,
            fast: translate(program, Form::Fast, &initial, Some(&facts)),
            reset_plan: ResetPlan::new(&initial, &facts.constant),
            plain: None,
            memory: initial.clone(),
            initial,
            advice: Box::default(),
            regs: vec![0; 256],
            frames: Vec::with_capacity(64),
            limits: Limits::default(),
            fuel_used: 0,
            hook_offset: 0,
            memory_touched: false,
            parked: None,
            reset_in_full: false,
            trap: None,
        }
    }

    /// The program being run (for as long as the program lives, unlike
    /// [`Vm::program`]).
    pub fn program(&self) -> &'p Program {
        self.program
    }

    /// Like [`Interpreter::call`], reporting the code offset of every
    /// executed CVM instruction to `profiler` (slower; for measurements such
    /// as choosing superinstructions). The run uses a plain translation, one
    /// operation per CVM instruction, made at the first profiled call;
    /// `nop` and `pop` execute no operation there and are not reported.
    pub fn call_profiled(
        &mut self,
        func: u32,
        args: &[i32],
        host: &mut dyn Host,
        output: &mut dyn Output,
        profiler: &mut dyn Profiler,
    ) -> Result<Completion, RuntimeError> {
        self.call_with(func, args, host, output, &mut Profiled(profiler))
    }

    /// Like [`Interpreter::call`], offering every `call` instruction it
    /// executes to `hook`, which may run the callee itself
    /// ([`crate::dispatch`]). The embedder's call itself is not offered.
    pub fn call_dispatched(
        &mut self,
        func: u32,
        args: &[i32],
        host: &mut dyn Host,
        output: &mut dyn Output,
        hook: &mut dyn CallHook,
    ) -> Result<Completion, RuntimeError> {
        self.call_with(func, args, host, output, &mut Dispatched(hook))
    }

    /// The memory and the advice table at once, mutably (for a backend that
    /// runs calls on the interpreter's state, [`crate::dispatch`]); the next
    /// call checks the memory as after [`Vm::memory_mut`].
    pub fn memory_and_advice_mut(&mut self) -> (&mut Memory, &mut AdviceTable) {
        self.memory_touched = true;
        self.reset_in_full = true;
        (&mut self.memory, &mut self.advice)
    }

    /// Exchanges the instance's memory and advice table with `memory` and
    /// `advice`, without copying either (for a backend that moves the
    /// state between the interpreter and compiled code); the next call
    /// checks the memory as after [`Vm::memory_mut`].
    pub fn swap_state(&mut self, memory: &mut Memory, advice: &mut Box<AdviceTable>) {
        std::mem::swap(&mut self.memory, memory);
        std::mem::swap(&mut self.advice, advice);
        self.memory_touched = true;
        self.reset_in_full = true;
    }

    /// After the embedder had the memory: runs the fast form while the
    /// lists its charges were worked out from hold their initial contents,
    /// a plain form otherwise.
    #[cold]
    #[inline(never)]
    fn check_lists(&mut self) {
        let fast = self.parked.as_deref().unwrap_or(&self.fast);
        let changed = fast
            .reads_lists
            .iter()
            .any(|&l| self.memory.list(l) != self.initial.list(l));
        if changed {
            self.park();
        } else {
            self.unpark();
        }
    }

    /// Sets the fast form aside and runs a plain form (the profiled runs'
    /// one, made now if there is none yet) until [`Interpreter::unpark`].
    fn park(&mut self) {
        if self.parked.is_none() {
            let plain = match self.plain.take() {
                Some(plain) => *plain,
                None => self.plain_translation(),
            };
            self.parked = Some(Box::new(std::mem::replace(&mut self.fast, plain)));
        }
    }

    /// A new plain form (one op per CVM instruction, every charge worked
    /// out as it runs).
    fn plain_translation(&self) -> Translation {
        translate(self.program, Form::Plain, &self.initial, None)
    }

    /// Brings the fast form back, keeping the plain one for profiled runs.
    fn unpark(&mut self) {
        if let Some(fast) = self.parked.take() {
            let plain = std::mem::replace(&mut self.fast, *fast);
            self.plain = Some(Box::new(plain));
        }
    }

    /// Before a call passing `args` to `func` of a program that writes
    /// through list references: a list passed may be one the program
    /// otherwise never writes, so the next reset copies everything back;
    /// and when it is one the fast form's charges were worked out from,
    /// the call runs a plain form, which works every charge out as it
    /// runs, and the next call looks at the lists again (not for a
    /// profiled run, which runs the plain form anyway).
    #[cold]
    #[inline(never)]
    fn passing_lists_to_writer(&mut self, func: u32, args: &[i32], profiled: bool) {
        let values = self.program.module().functions[func as usize].value_params as usize;
        let lists = args.get(values..).unwrap_or(&[]);
        if !lists.is_empty() {
            self.reset_in_full = true;
        }
        let reads = &self.fast.reads_lists;
        if !profiled && lists.iter().any(|&l| reads.contains(&(l as u32))) {
            self.park();
            self.memory_touched = true;
        }
    }

    /// A call with `hook` watching every executed instruction: checks the
    /// arguments, sets up the frame and runs.
    fn call_with<P: Hook>(
        &mut self,
        func: u32,
        args: &[i32],
        host: &mut dyn Host,
        output: &mut dyn Output,
        hook: &mut P,
    ) -> Result<Completion, RuntimeError> {
        let module = self.program.module();
        // A function without parameters called without arguments needs no
        // further check (the usual call of an advice hook).
        match self.fast.funcs.get(func as usize) {
            Some(meta) if args.is_empty() && meta.arity == 0 => {}
            _ => check_call_args(module, func, args)?,
        }
        if self.memory_touched {
            // The dispatch loop indexes the list table and the heap as the
            // module laid them out.
            if !self.memory.same_layout(&self.initial) {
                return Err(RuntimeError::layout_changed());
            }
            self.memory_touched = false;
            self.check_lists();
        }
        if !args.is_empty() && self.fast.writes_through_refs {
            self.passing_lists_to_writer(func, args, P::ENABLED);
        }
        if P::ENABLED && self.plain.is_none() {
            self.plain = Some(Box::new(self.plain_translation()));
        }
        let meta = self.fast.funcs[func as usize];
        let need = meta.frame as usize;
        if self.regs.len() < need {
            self.regs.resize(need, 0);
        }
        if !args.is_empty() {
            self.regs[..args.len()].copy_from_slice(args);
        }
        // A hook's few locals are zeroed by stores, not a `memset` call.
        match &mut self.regs[args.len()..meta.slots as usize] {
            [] => {}
            [a] => *a = 0,
            [a, b] => (*a, *b) = (0, 0),
            locals => locals.fill(0),
        }
        self.fuel_used = 0;
        let limit = self.limits.fuel.unwrap_or(u64::MAX);
        // The entry charges as a call would (nothing is spent when it
        // cannot be paid), the charge the translation kept unless it did
        // not fit.
        let fuel = match limit.checked_sub(u64::from(meta.fuel)) {
            Some(left) if meta.fuel != u32::MAX => left,
            _ => self.program.charge_entry(func, limit)?,
        };
        let entry = match (P::ENABLED, &self.plain) {
            (true, Some(plain)) => plain.funcs[func as usize].entry,
            _ => meta.entry,
        };
        let done = self.execute(entry as usize, fuel, host, output, hook);
        self.fuel_used += limit - fuel;
        match done {
            Some(done) => Ok(done),
            None => Err(self.trap_error(P::ENABLED)),
        }
    }

    /// The error of the run that just trapped, with the code offset of the
    /// failing op in the form that ran (the plain one for a profiled run).
    #[cold]
    #[inline(never)]
    fn trap_error(&mut self, profiled: bool) -> RuntimeError {
        let (kind, pc) = self
            .trap
            .take()
            .expect("a run that returns no completion records its error");
        let origin = match (profiled, &self.plain) {
            (true, Some(plain)) => &plain.origin,
            _ => &self.fast.origin,
        };
        let offset = if pc == HOOK_TRAP {
            self.hook_offset
        } else {
            origin[pc]
        };
        RuntimeError::new(kind, offset, self.program.module())
    }

    /// The dispatch loop. Returns how the run completed, or `None` with
    /// the error's kind and the index of the failing op in
    /// [`Interpreter::trap`].
    #[inline(never)]
    fn execute<P: Hook>(
        &mut self,
        start_pc: usize,
        fuel_limit: u64,
        host: &mut dyn Host,
        output: &mut dyn Output,
        profiler: &mut P,
    ) -> Option<Completion> {
        let t: &Translation = match (P::ENABLED, &self.plain) {
            (true, Some(plain)) => plain,
            _ => &self.fast,
        };
        let code: &[Op] = &t.code;
        let origin: &[u32] = &t.origin;
        let back_fuel: &[u32] = &t.back_fuel;
        let aux: &[Aux] = &t.aux;
        let funcs: &[FuncMeta] = &t.funcs;
        let memory = &mut self.memory;
        let advice = &mut *self.advice;
        let regs = &mut self.regs;
        let frames = &mut self.frames;
        let texts = &self.program.module().texts;
        let max_depth = self.limits.max_depth.max(1) as usize;
        // The depth limit less the inlined frames open (`enter.f` without
        // its `leave`): a call is too deep when `depth + 1 >= room`, exactly
        // when it would be in the program without inlining. The verifier
        // balances `enter.f` and `leave`, so `room` is back at `max_depth`
        // whenever no inlined frame is open.
        let room = max_depth;
        let mut fuel = fuel_limit;
        let mut hook_offset = 0;

        // The next op, as a pointer into `code` (an index would cost an
        // address computation at every dispatch). `pc!()` is its index.
        let code_ptr: *const Op = code.as_ptr();
        // SAFETY: `start_pc` is a function's entry, inside the code.
        let mut ip: *const Op = unsafe { code_ptr.add(start_pc) };
        // The list table and the heap, as raw pointers: register writes
        // through `fp` could otherwise make the compiler reload them at
        // every list access. Only intrinsics and call hooks get the memory
        // itself (and could reallocate it); the pointers are taken again
        // after each.
        let mut lists: *const crate::runtime::ListSlice = memory.lists.as_ptr();
        let mut heap: *mut i32 = memory.heap.as_mut_ptr();
        let regs_base: *mut i32 = regs.as_mut_ptr();
        let regs_end = regs_base.wrapping_add(regs.len());
        let mut fp: *mut i32 = regs_base;
        // Number of saved caller frames; `frames` is only ever grown, and
        // its first `depth` entries are live.
        let mut depth: usize = 0;
        // The state only calls and inlined-call checks use lives in memory,
        // not in locals: the hot ops then have the registers to
        // themselves, whatever the compiler would have kept in them
        // (`black_box` makes the struct's address escape, so it is not
        // split into locals again).
        let mut cold_state = Cold {
            room,
            regs_end,
            regs_base,
            reserve: 0,
            every: u64::MAX,
        };
        // The host's board view, taken now and again whenever the host was
        // lent out mutably (an intrinsic called through its generic path, a
        // call or back-edge hook), after which a host service may show
        // another one.
        let mut board_ptr: *const BoardView = board_of(host);
        let cold: &mut Cold = std::hint::black_box(&mut cold_state);
        if P::BACK_EDGES {
            if let Some(every) = profiler.interval() {
                cold.every = every;
                fuel = cold.split(fuel);
            }
        }

        let result = 'run: loop {
            // The board view the pattern intrinsics read (see `board_ptr`).
            macro_rules! board {
                () => {{
                    // SAFETY: the pointer came from `host.board()` (or is
                    // the static empty view) and is taken again after every
                    // mutable borrow of the host; shared borrows of the host
                    // in between leave the view where it is.
                    unsafe { &*board_ptr }
                }};
            }
            macro_rules! r {
                ($i:expr) => {
                    // SAFETY: `$i` is a register of the current function, below
                    // its frame size (translation invariant), and the register
                    // file holds at least `bp + frame` slots (ensured on every
                    // call and on entry), so the access stays inside `regs`.
                    unsafe { *fp.add($i as usize) }
                };
            }
            macro_rules! set {
                ($i:expr, $v:expr) => {{
                    let v = $v;
                    // SAFETY: as for `r!`.
                    unsafe { *fp.add($i as usize) = v }
                }};
            }
            // The count ran short of `$cost`: the fuel kept back for the
            // hook's offers, if any is left ([`refill`]).
            macro_rules! short {
                ($cost:expr) => {
                    if P::BACK_EDGES {
                        refill(fuel, cold, $cost)
                    } else {
                        None
                    }
                };
            }
            // All the fuel in the count, for code that spends it outside
            // the loop (a hook, an intrinsic).
            macro_rules! merge {
                () => {
                    if P::BACK_EDGES {
                        fuel += cold.reserve;
                        cold.reserve = 0;
                    }
                };
            }
            // Keeps fuel back again after `merge!`.
            macro_rules! split {
                () => {
                    if P::BACK_EDGES {
                        fuel = cold.split(fuel);
                    }
                };
            }
            macro_rules! charge {
                ($at:expr, $cost:expr) => {
                    let cost: u64 = $cost;
                    if fuel < cost {
                        match short!(cost) {
                            Some(f) => fuel = f,
                            None => break 'run Err((TrapKind::OutOfFuel, $at)),
                        }
                    }
                    fuel -= cost;
                };
            }
            // A back edge to op `$to` (charging `$cost` at op `$at`) found
            // the count short: pays from the fuel kept back, offers the
            // frame to the hook at the header and runs on.
            macro_rules! back_short {
                ($at:expr, $cost:expr, $to:expr) => {{
                    let cost: u64 = $cost;
                    let Some(f) = short!(cost) else {
                        break 'run Err((TrapKind::OutOfFuel, $at));
                    };
                    fuel = f - cost;
                    ip = $to;
                    if P::BACK_EDGES {
                        merge!();
                        let offered = offer_back_edge(
                            profiler,
                            t,
                            pc!(),
                            fp,
                            cold.room - depth,
                            fuel,
                            max_depth,
                            &mut *memory,
                            &mut *advice,
                            &mut *host,
                            &mut *output,
                        );
                        lists = memory.lists.as_ptr();
                        heap = memory.heap.as_mut_ptr();
                        board_ptr = board_of(host);
                        match offered {
                            None => split!(),
                            Some((Handled::Returned { value, fuel_left }, open)) => {
                                fuel = fuel_left.min(fuel);
                                split!();
                                // The frame returned: the inlined frames
                                // open at the header closed before.
                                cold.room += open;
                                if depth == 0 {
                                    break 'run Ok(Completion::Returned(value));
                                }
                                if let Some(v) = value {
                                    set!(0u16, v);
                                }
                                depth -= 1;
                                // SAFETY: frames below `depth` were written
                                // by calls.
                                let f = unsafe { *frames.get_unchecked(depth) };
                                ip = goto!(f.ret_pc);
                                // SAFETY: the caller's frame lies below.
                                fp = unsafe { fp.sub(f.base as usize) };
                            }
                            Some((Handled::Halted { fuel_left }, _)) => {
                                fuel = fuel_left.min(fuel);
                                break 'run Ok(Completion::Halted);
                            }
                            Some((
                                Handled::Trapped {
                                    kind,
                                    offset,
                                    fuel_left,
                                },
                                _,
                            )) => {
                                fuel = fuel_left.min(fuel);
                                hook_offset = offset;
                                break 'run Err((kind, HOOK_TRAP));
                            }
                        }
                    }
                    continue 'run;
                }};
            }
            // The index of the next op (of the `Word` after a
            // compare-and-branch op while it runs).
            macro_rules! pc {
                () => {
                    // SAFETY: `ip` and `code_ptr` point into the same code.
                    (unsafe { ip.offset_from(code_ptr) }) as usize
                };
            }
            // Moves to op index `$t`, a verified jump target inside the code.
            macro_rules! goto {
                ($t:expr) => {{
                    // SAFETY: jump targets, call entries and return points
                    // are op indices inside the code.
                    unsafe { code_ptr.add($t as usize) }
                }};
            }
            macro_rules! jump {
                ($target:expr) => {{
                    let to = goto!($target);
                    if to < ip {
                        let at = pc!() - 1;
                        // SAFETY: `at` indexes an op, and the translation
                        // gives every op a `back_fuel` entry.
                        let cost = u64::from(unsafe { *back_fuel.get_unchecked(at) });
                        if fuel < cost {
                            back_short!(at, cost, to);
                        }
                        fuel -= cost;
                    }
                    ip = to;
                }};
            }
            // A compare-and-branch: the target is the next op's word, which
            // also carries the branch's fuel charge and code offset (a fused
            // op's own offset is its load's).
            macro_rules! cmp_jump {
                ($cond:expr) => {{
                    if $cond {
                        // SAFETY: translation always emits the `Word` after
                        // a compare-and-branch op.
                        let Op::Word { f, w } = (unsafe { *ip }) else {
                            debug_assert!(false, "compare-and-branch without its word");
                            // SAFETY: as above.
                            unsafe { std::hint::unreachable_unchecked() }
                        };
                        let word = ip;
                        ip = goto!(w);
                        let cost = u64::from(f);
                        if fuel < cost {
                            // SAFETY: `word` points into the code.
                            let at = unsafe { word.offset_from(code_ptr) } as usize;
                            back_short!(at, cost, ip);
                        }
                        fuel -= cost;
                    } else {
                        // SAFETY: the `Word` is not the last op of the code.
                        ip = unsafe { ip.add(1) };
                    }
                }};
            }
            macro_rules! bin {
                ($dst:expr, $a:expr, $b:expr, $f:expr) => {{
                    let f: fn(i32, i32) -> i32 = $f;
                    set!($dst, f(r!($a), r!($b)));
                }};
            }
            // The constant in the `Imm` after the op running, which it
            // steps over.
            macro_rules! imm {
                () => {{
                    // SAFETY: translation always emits the `Imm` after an
                    // op that takes one.
                    let Op::Imm { k } = (unsafe { *ip }) else {
                        debug_assert!(false, "op without its constant");
                        // SAFETY: as above.
                        unsafe { std::hint::unreachable_unchecked() }
                    };
                    // SAFETY: the `Imm` is not the last op of the code.
                    ip = unsafe { ip.add(1) };
                    k
                }};
            }
            // The index of a fused index op.
            macro_rules! ix {
                ($ix:expr) => {{
                    let Ix { a, b, off } = $ix;
                    r!(a).wrapping_add(r!(b)).wrapping_add(i32::from(off))
                }};
            }
            // The index of a three-register index op.
            macro_rules! ix3 {
                ($ix:expr) => {{
                    let Ix3 { a, s, b, off } = $ix;
                    r!(a)
                        .wrapping_sub(r!(s))
                        .wrapping_add(r!(b))
                        .wrapping_add(i32::from(off))
                }};
            }
            // Bounds-checked address of a list element; an index out of
            // bounds traps at the op running.
            macro_rules! list_slot {
                ($list:expr, $idx:expr) => {{
                    let list = $list as usize;
                    // SAFETY: list numbers come from verified operands or from
                    // list references, which verified code cannot forge.
                    let s = unsafe { *lists.add(list) };
                    slot_in!(s, $idx, pc!() - 1)
                }};
            }
            // The address of element `$idx` of the list whose slots are
            // `$s`; an index out of bounds traps at op `$at`.
            macro_rules! slot_in {
                ($s:expr, $idx:expr, $at:expr) => {{
                    let s: crate::runtime::ListSlice = $s;
                    let idx = $idx;
                    if (idx as u32) >= s.slots {
                        break 'run Err((
                            TrapKind::ListIndex {
                                index: idx,
                                slots: s.slots,
                            },
                            $at,
                        ));
                    }
                    (s.base + idx as u32) as usize
                }};
            }
            // Returns `$v` from the current function: ends the run at the
            // embedder's call, else writes it to the callee's slot 0 (the
            // caller's result slot) and resumes the caller.
            macro_rules! return_value {
                ($v:expr) => {{
                    let v = $v;
                    if depth == 0 {
                        break 'run Ok(Completion::Returned(Some(v)));
                    }
                    set!(0u16, v);
                    depth -= 1;
                    // SAFETY: frames below `depth` were written by calls.
                    let f = unsafe { *frames.get_unchecked(depth) };
                    ip = goto!(f.ret_pc);
                    // SAFETY: the caller's frame lies below the callee's.
                    fp = unsafe { fp.sub(f.base as usize) };
                }};
            }
            macro_rules! aux {
                ($x:expr) => {
                    // SAFETY: the translation made `$x` from the length of
                    // `aux` just after pushing the entry.
                    unsafe { *aux.get_unchecked($x as usize) }
                };
            }
            // Element access at an address returned by `list_slot!` (or a
            // cursor checked against the list's slots).
            macro_rules! heap {
                ($at:expr) => {
                    // SAFETY: `$at` is `base + i` with `i < slots`, and every
                    // list's slots lie inside the heap (Memory::new).
                    *unsafe { &mut *heap.add($at) }
                };
            }
            // The element at cursor `$c` of list `$list` (a verified list
            // operand or a list reference), or the end marker past its
            // slots: what a for-in step reads.
            macro_rules! element {
                ($list:expr, $c:expr) => {{
                    let list = $list as usize;
                    let c: i32 = $c;
                    // SAFETY: verified list operands and list references,
                    // which verified code cannot forge, name lists of the
                    // module.
                    let s = unsafe { *lists.add(list) };
                    if (c as u32) < s.slots {
                        heap!((s.base + c as u32) as usize)
                    } else {
                        LIST_END
                    }
                }};
            }
            // An inverted for-in step over list `$list` (`$a` its aux
            // entry): the increment it fuses, then the element, and the
            // jump back (charged from the entry, a fuel trap placed at op
            // `$at`) while there is one.
            macro_rules! for_back {
                ($dst:expr, $a:expr, $list:expr, $at:expr) => {{
                    let Aux {
                        b: cursor,
                        target,
                        inc,
                        fuel: cost,
                        ..
                    } = $a;
                    set!(inc, r!(inc).wrapping_add(1));
                    let list = $list;
                    let c = r!(cursor);
                    let v = element!(list, c);
                    if v != LIST_END {
                        set!($dst, v);
                        set!(cursor, c.wrapping_add(1));
                        let cost = u64::from(cost);
                        if fuel < cost {
                            back_short!($at, cost, goto!(target));
                        }
                        fuel -= cost;
                        ip = goto!(target);
                    }
                }};
            }
            // The fused store and inverted for-in step of `StXForLB` /
            // `StXForXB` (`$list` the list it steps over, read again at
            // every element): the op is its own jump target, so the loop
            // runs here, one element after another, without a dispatch
            // between them; every register is written as the ops would
            // write it, and the list is read after each store, which may
            // have changed it. A list-index trap is the store's (the op's
            // own index); a fuel trap and the offer at the back edge are
            // the step's, at the `Imm` after the op, which the loop's end
            // steps over.
            macro_rules! copy_loop {
                ($dst:expr, $a:expr, $list:expr) => {{
                    let Aux {
                        b: cursor,
                        target,
                        inc,
                        fuel: cost,
                        store: [lst, idx, val],
                        ..
                    } = $a;
                    let cost = u64::from(cost);
                    loop {
                        let at = list_slot!(r!(lst), r!(idx));
                        heap!(at) = r!(val);
                        set!(inc, r!(inc).wrapping_add(1));
                        let c = r!(cursor);
                        let v = element!($list, c);
                        if v == LIST_END {
                            // SAFETY: the `Imm` is not the last op of the code.
                            ip = unsafe { ip.add(1) };
                            break;
                        }
                        set!($dst, v);
                        set!(cursor, c.wrapping_add(1));
                        if fuel < cost {
                            back_short!(pc!(), cost, goto!(target));
                        }
                        fuel -= cost;
                    }
                }};
            }
            // A call of function `$func` with its arguments from register
            // `$base` on, made by the op at index `$at`; `ip` is at the
            // return point.
            macro_rules! call {
                ($func:expr, $base:expr, $at:expr) => {{
                    let (func, base, at): (u32, Reg, usize) = ($func, $base, $at);
                    if depth + 1 >= cold.room {
                        break 'run Err((TrapKind::CallDepth(max_depth as u32), at));
                    }
                    // SAFETY (index): `func` was range-checked by the verifier.
                    let meta = unsafe { *funcs.get_unchecked(func as usize) };
                    charge!(at, u64::from(meta.fuel));
                    // SAFETY: `base` is a register of the caller's frame
                    // (translation invariant), inside the register file.
                    let mut new_fp = unsafe { fp.add(base as usize) };
                    if P::CALLS {
                        merge!();
                        // SAFETY: the arguments are the caller's registers
                        // `base..base + arity` (translation invariant), inside
                        // its frame and so inside `regs`.
                        let args =
                            unsafe { std::slice::from_raw_parts(new_fp, meta.arity as usize) };
                        let site = CallSite {
                            func,
                            args,
                            fuel,
                            depth_left: (cold.room - depth - 1) as u32,
                            max_depth: max_depth as u32,
                            memory: &mut *memory,
                            advice: &mut *advice,
                            host: &mut *host,
                            output: &mut *output,
                        };
                        let handled = profiler.call(site);
                        lists = memory.lists.as_ptr();
                        heap = memory.heap.as_mut_ptr();
                        board_ptr = board_of(host);
                        match handled {
                            None => split!(),
                            Some(Handled::Returned { value, fuel_left }) => {
                                fuel = fuel_left.min(fuel);
                                split!();
                                if let Some(v) = value {
                                    set!(base, v);
                                }
                                continue;
                            }
                            Some(Handled::Halted { fuel_left }) => {
                                fuel = fuel_left.min(fuel);
                                break 'run Ok(Completion::Halted);
                            }
                            Some(Handled::Trapped {
                                kind,
                                offset,
                                fuel_left,
                            }) => {
                                fuel = fuel_left.min(fuel);
                                hook_offset = offset;
                                break 'run Err((kind, HOOK_TRAP));
                            }
                        }
                    }
                    if new_fp.wrapping_add(meta.frame as usize) > cold.regs_end {
                        new_fp = grow_regs(regs, cold, new_fp, meta.frame as usize);
                    }
                    // The callee's whole frame is inside the register file.
                    fp = new_fp;
                    for i in meta.arity..meta.slots {
                        set!(i, 0);
                    }
                    if depth == frames.len() {
                        let grown = (frames.len() * 2).max(64);
                        frames.resize(grown, Frame { ret_pc: 0, base: 0 });
                    }
                    // SAFETY: `depth < frames.len()`, ensured just above.
                    let ret_pc = pc!() as u32;
                    unsafe {
                        *frames.get_unchecked_mut(depth) = Frame {
                            ret_pc,
                            base: u32::from(base),
                        };
                    }
                    depth += 1;
                    ip = goto!(meta.entry);
                }};
            }
            debug_assert!(pc!() < code.len());
            // SAFETY: translation ends every function with a terminator and
            // only produces jump targets inside the code, so `ip` stays in it.
            let op = unsafe { *ip };
            if P::ENABLED {
                profiler.step(origin[pc!()]);
            }
            // SAFETY: as above; at most one past the last op.
            ip = unsafe { ip.add(1) };
            match op {
                Op::Const { dst, k } => set!(dst, k),
                Op::Mov { dst, src } => set!(dst, r!(src)),
                Op::Swap { a, b } => {
                    let (x, y) = (r!(a), r!(b));
                    set!(a, y);
                    set!(b, x);
                }
                Op::LdG { dst, g } => set!(dst, memory.globals[g as usize]),
                Op::StG { src, g } => memory.globals[g as usize] = r!(src),
                Op::IncL { r } => set!(r, r!(r).wrapping_add(1)),
                Op::DecL { r } => set!(r, r!(r).wrapping_sub(1)),
                Op::IncG { g } => {
                    let v = &mut memory.globals[g as usize];
                    *v = v.wrapping_add(1);
                }
                Op::DecG { g } => {
                    let v = &mut memory.globals[g as usize];
                    *v = v.wrapping_sub(1);
                }
                Op::LRef { dst, list } => set!(dst, list as i32),
                Op::LdE { dst, idx, list } => {
                    let at = list_slot!(list, r!(idx));
                    set!(dst, heap!(at));
                }
                Op::StE { idx, val, list } => {
                    let at = list_slot!(list, r!(idx));
                    heap!(at) = r!(val);
                }
                Op::StEK { idx, list, k } => {
                    let at = list_slot!(list, r!(idx));
                    heap!(at) = i32::from(k);
                }
                Op::LdEJEqK { idx, list, k } => {
                    let at = list_slot!(list, r!(idx));
                    cmp_jump!(heap!(at) == i32::from(k));
                }
                Op::LdEJNeK { idx, list, k } => {
                    let at = list_slot!(list, r!(idx));
                    cmp_jump!(heap!(at) != i32::from(k));
                }
                Op::LdE2 { dst, p } => {
                    let (list, ix) = Ix::unpack(p);
                    let at = list_slot!(list, ix!(ix));
                    set!(dst, heap!(at));
                }
                Op::StE2 { val, p } => {
                    let (list, ix) = Ix::unpack(p);
                    let at = list_slot!(list, ix!(ix));
                    heap!(at) = r!(val);
                }
                Op::StEK2 { k, p } => {
                    let (list, ix) = Ix::unpack(p);
                    let at = list_slot!(list, ix!(ix));
                    heap!(at) = i32::from(k);
                }
                Op::LdEJEqK2 { k, p } => {
                    let (list, ix) = Ix::unpack(p);
                    let at = list_slot!(list, ix!(ix));
                    cmp_jump!(heap!(at) == i32::from(k));
                }
                Op::LdEJNeK2 { k, p } => {
                    let (list, ix) = Ix::unpack(p);
                    let at = list_slot!(list, ix!(ix));
                    cmp_jump!(heap!(at) != i32::from(k));
                }
                Op::LdX2 { dst, p } => {
                    let (lst, ix) = Ix::unpack(p);
                    let at = list_slot!(r!(lst), ix!(ix));
                    set!(dst, heap!(at));
                }
                Op::StX2 { val, p } => {
                    let (lst, ix) = Ix::unpack(p);
                    let at = list_slot!(r!(lst), ix!(ix));
                    heap!(at) = r!(val);
                }
                Op::StXK2 { k, p } => {
                    let (lst, ix) = Ix::unpack(p);
                    let at = list_slot!(r!(lst), ix!(ix));
                    heap!(at) = i32::from(k);
                }
                Op::LdXJEqK2 { k, p } => {
                    let (lst, ix) = Ix::unpack(p);
                    let at = list_slot!(r!(lst), ix!(ix));
                    cmp_jump!(heap!(at) == i32::from(k));
                }
                Op::LdXJNeK2 { k, p } => {
                    let (lst, ix) = Ix::unpack(p);
                    let at = list_slot!(r!(lst), ix!(ix));
                    cmp_jump!(heap!(at) != i32::from(k));
                }
                Op::LdXJEqK3 { q, p } => {
                    let (lst, ix, k) = Ix3::unpack(p, q);
                    let at = list_slot!(r!(lst), ix3!(ix));
                    cmp_jump!(heap!(at) == k);
                }
                Op::LdXJNeK3 { q, p } => {
                    let (lst, ix, k) = Ix3::unpack(p, q);
                    let at = list_slot!(r!(lst), ix3!(ix));
                    cmp_jump!(heap!(at) != k);
                }
                Op::StXK3 { q, p } => {
                    let (lst, ix, k) = Ix3::unpack(p, q);
                    let at = list_slot!(r!(lst), ix3!(ix));
                    heap!(at) = k;
                }
                Op::LdEW { dst, aux: x } => {
                    let Aux {
                        a: list, b: idx, ..
                    } = aux!(x);
                    let at = list_slot!(list, r!(idx));
                    set!(dst, heap!(at));
                }
                Op::StEW { aux: x } => {
                    let Aux {
                        a: list,
                        b: idx,
                        target: val,
                        ..
                    } = aux!(x);
                    let at = list_slot!(list, r!(idx));
                    heap!(at) = r!(val);
                }
                Op::LdX { dst, lst, idx } => {
                    let at = list_slot!(r!(lst), r!(idx));
                    set!(dst, heap!(at));
                }
                Op::StX { lst, idx, val } => {
                    let at = list_slot!(r!(lst), r!(idx));
                    heap!(at) = r!(val);
                }
                Op::StXK { lst, idx, k } => {
                    let at = list_slot!(r!(lst), r!(idx));
                    heap!(at) = i32::from(k);
                }
                Op::LdXJEqK { lst, idx, k } => {
                    let at = list_slot!(r!(lst), r!(idx));
                    cmp_jump!(heap!(at) == i32::from(k));
                }
                Op::LdXJNeK { lst, idx, k } => {
                    let at = list_slot!(r!(lst), r!(idx));
                    cmp_jump!(heap!(at) != i32::from(k));
                }
                Op::ForL { dst, aux: x } => {
                    let Aux {
                        a: list,
                        b: cursor,
                        target,
                        ..
                    } = aux!(x);
                    let c = r!(cursor);
                    let v = element!(list, c);
                    if v == LIST_END {
                        jump!(target);
                    } else {
                        set!(dst, v);
                        set!(cursor, c.wrapping_add(1));
                    }
                }
                Op::ForX { dst, aux: x } => {
                    let Aux {
                        a: lst,
                        b: cursor,
                        target,
                        ..
                    } = aux!(x);
                    let c = r!(cursor);
                    let v = element!(r!(lst), c);
                    if v == LIST_END {
                        jump!(target);
                    } else {
                        set!(dst, v);
                        set!(cursor, c.wrapping_add(1));
                    }
                }
                Op::Add { dst, a, b } => bin!(dst, a, b, i32::wrapping_add),
                Op::Sub { dst, a, b } => bin!(dst, a, b, i32::wrapping_sub),
                Op::Mul { dst, a, b } => bin!(dst, a, b, i32::wrapping_mul),
                Op::Div { dst, a, b } => match arith::div(r!(a), r!(b)) {
                    Some(v) => set!(dst, v),
                    None => break 'run Err((TrapKind::DivisionByZero, pc!() - 1)),
                },
                Op::Mod { dst, a, b } => match arith::rem(r!(a), r!(b)) {
                    Some(v) => set!(dst, v),
                    None => break 'run Err((TrapKind::DivisionByZero, pc!() - 1)),
                },
                Op::Neg { dst, a } => set!(dst, r!(a).wrapping_neg()),
                Op::And { dst, a, b } => bin!(dst, a, b, |x, y| x & y),
                Op::Or { dst, a, b } => bin!(dst, a, b, |x, y| x | y),
                Op::Xor { dst, a, b } => bin!(dst, a, b, |x, y| x ^ y),
                Op::Not { dst, a } => set!(dst, !r!(a)),
                Op::Eq { dst, a, b } => bin!(dst, a, b, |x, y| (x == y) as i32),
                Op::Ne { dst, a, b } => bin!(dst, a, b, |x, y| (x != y) as i32),
                Op::Lt { dst, a, b } => bin!(dst, a, b, |x, y| (x < y) as i32),
                Op::Le { dst, a, b } => bin!(dst, a, b, |x, y| (x <= y) as i32),
                Op::Gt { dst, a, b } => bin!(dst, a, b, |x, y| (x > y) as i32),
                Op::Ge { dst, a, b } => bin!(dst, a, b, |x, y| (x >= y) as i32),
                Op::LNot { dst, a } => set!(dst, (r!(a) == 0) as i32),
                Op::AddI { r, k } => set!(r, r!(r).wrapping_add(k)),
                Op::AddIM { dst, src, k } => set!(dst, r!(src).wrapping_add(i32::from(k))),
                Op::ForLB { dst, aux: x } => {
                    let a = aux!(x);
                    for_back!(dst, a, a.a, pc!() - 1);
                }
                Op::ForXB { dst, aux: x } => {
                    let a = aux!(x);
                    for_back!(dst, a, r!(a.a) as u32, pc!() - 1);
                }
                Op::StXForLB { dst, aux: x } => {
                    let a = aux!(x);
                    copy_loop!(dst, a, a.a);
                }
                Op::StXForXB { dst, aux: x } => {
                    let a = aux!(x);
                    copy_loop!(dst, a, r!(a.a) as u32);
                }
                Op::MulI { r, k } => set!(r, r!(r).wrapping_mul(k)),
                Op::DivI { r, k } => match arith::div(r!(r), k) {
                    Some(v) => set!(r, v),
                    None => break 'run Err((TrapKind::DivisionByZero, pc!() - 1)),
                },
                Op::ModI { r, k } => match arith::rem(r!(r), k) {
                    Some(v) => set!(r, v),
                    None => break 'run Err((TrapKind::DivisionByZero, pc!() - 1)),
                },
                Op::MovN { dst, src, n } => {
                    // SAFETY: both runs are registers of the frame
                    // (translation invariant, as for `r!`), and the
                    // translation only merges runs that do not overlap.
                    unsafe {
                        std::ptr::copy_nonoverlapping(
                            fp.add(src as usize),
                            fp.add(dst as usize),
                            n as usize,
                        )
                    }
                }
                Op::Mov2 { dst, a, b } => {
                    let (x, y) = (r!(a), r!(b));
                    set!(dst, x);
                    set!(dst + 1, y);
                }
                Op::IncJLt { r, b } => {
                    let v = r!(r).wrapping_add(1);
                    set!(r, v);
                    cmp_jump!(v < r!(b));
                }
                Op::AddJLtK { r, b, k } => {
                    let v = r!(r).wrapping_add(r!(b));
                    set!(r, v);
                    cmp_jump!(v < i32::from(k));
                }
                Op::IncScan { r, aux: x } => {
                    let Aux {
                        a: list,
                        b: bound,
                        target: head,
                        inc: k,
                        fuel: flags,
                        ..
                    } = aux!(x);
                    // SAFETY: translation made this op from a step whose
                    // `Word` follows it.
                    let Op::Word { f, .. } = (unsafe { *ip }) else {
                        debug_assert!(false, "scan without its word");
                        // SAFETY: as above.
                        unsafe { std::hint::unreachable_unchecked() }
                    };
                    let cost = u64::from(f);
                    let k = k as i32;
                    let skip_eq = flags & Scan::SKIP_EQ != 0;
                    // The bound and the list stay put while the loop runs:
                    // translation fuses no scan whose step register is
                    // either, and the loop writes no other register and no
                    // memory. A fuel stop leaves the loop for the dispatch.
                    let limit = if flags & Scan::BOUND_K != 0 {
                        bound as i32
                    } else {
                        r!(bound)
                    };
                    let l = if flags & Scan::LIST_REF != 0 {
                        r!(list) as usize
                    } else {
                        list as usize
                    };
                    // SAFETY: as for `list_slot!`.
                    let s = unsafe { *lists.add(l) };
                    let mut v = r!(r);
                    loop {
                        v = v.wrapping_add(1);
                        set!(r, v);
                        if v >= limit {
                            // SAFETY: the `Word` is not the last op.
                            ip = unsafe { ip.add(1) };
                            break;
                        }
                        // The back edge to the header, as the step's.
                        if fuel < cost {
                            back_short!(pc!(), cost, goto!(head));
                        }
                        fuel -= cost;
                        // The header's test, which reports its own index.
                        let at = slot_in!(s, v, head as usize);
                        if (heap!(at) == k) != skip_eq {
                            // Not skipped: on after the test and its `Word`.
                            ip = goto!(head + 2);
                            break;
                        }
                    }
                }
                Op::IncJLtI { r, k } => {
                    let v = r!(r).wrapping_add(1);
                    set!(r, v);
                    cmp_jump!(v < k);
                }
                Op::Fuel { k } => {
                    charge!(pc!() - 1, u64::from(k));
                }
                Op::Pat { base, aux: x } => {
                    let Aux {
                        a: lo,
                        b: hi,
                        target,
                        ..
                    } = aux!(x);
                    let (id, mode) = op::pattern_of(target);
                    let mask = u64::from(lo) | u64::from(hi) << 32;
                    let cost = crate::intrinsics::cost_folded(id as u32, r!(base), mask);
                    charge!(pc!() - 1, cost);
                    let hit = match INTRINSICS.get(id).and_then(|i| i.fold) {
                        Some(fold) => (fold.func)(board!(), r!(base), mask, mode),
                        None => false,
                    };
                    set!(base, hit as i32);
                }
                Op::JEq { a, b } => cmp_jump!(r!(a) == r!(b)),
                Op::JNe { a, b } => cmp_jump!(r!(a) != r!(b)),
                Op::JLt { a, b } => cmp_jump!(r!(a) < r!(b)),
                Op::JLe { a, b } => cmp_jump!(r!(a) <= r!(b)),
                Op::JGt { a, b } => cmp_jump!(r!(a) > r!(b)),
                Op::JGe { a, b } => cmp_jump!(r!(a) >= r!(b)),
                Op::JEqI { a, k } => cmp_jump!(r!(a) == k),
                Op::JNeI { a, k } => cmp_jump!(r!(a) != k),
                Op::JLtI { a, k } => cmp_jump!(r!(a) < k),
                Op::JLeI { a, k } => cmp_jump!(r!(a) <= k),
                Op::JGtI { a, k } => cmp_jump!(r!(a) > k),
                Op::JGeI { a, k } => cmp_jump!(r!(a) >= k),
                Op::SubMulK { dst, a, b } => {
                    let d = r!(a).wrapping_sub(r!(b));
                    set!(dst, d.wrapping_mul(imm!()));
                }
                Op::MulK { dst, a } => set!(dst, r!(a).wrapping_mul(imm!())),
                Op::AndK { dst, a } => set!(dst, r!(a) & imm!()),
                Op::OrK { dst, a } => set!(dst, r!(a) | imm!()),
                Op::XorK { dst, a } => set!(dst, r!(a) ^ imm!()),
                Op::Imm { .. } => {
                    debug_assert!(false, "operand constant executed");
                }
                Op::Word { .. } => {
                    debug_assert!(false, "operand word executed");
                }
                Op::Jmp { target } => jump!(target),
                Op::Jz { r, target } => {
                    if r!(r) == 0 {
                        jump!(target);
                    }
                }
                Op::Jnz { r, target } => {
                    if r!(r) != 0 {
                        jump!(target);
                    }
                }
                Op::Case { r, aux: x } => {
                    let Aux { a: k, target, .. } = aux!(x);
                    if r!(r) == k as i32 {
                        jump!(target);
                    }
                }
                Op::Enter { k } => {
                    let at = pc!() - 1;
                    if depth.saturating_add(k as usize) >= cold.room {
                        break 'run Err((TrapKind::CallDepth(max_depth as u32), at));
                    }
                    charge!(at, 1);
                }
                Op::EnterF => {
                    let at = pc!() - 1;
                    if depth + 1 >= cold.room {
                        break 'run Err((TrapKind::CallDepth(max_depth as u32), at));
                    }
                    charge!(at, 1);
                    cold.room -= 1;
                }
                Op::Leave => cold.room += 1,
                Op::Call { func, base } => call!(func, base, pc!() - 1),
                Op::CallI { func, base } => {
                    let at = pc!() - 1;
                    // SAFETY: translation always emits the `ArgI` after a
                    // `CallI`, so it is inside the code.
                    let Op::ArgI { dst, src, k } = (unsafe { *ip }) else {
                        debug_assert!(false, "CallI without its ArgI");
                        // SAFETY: as above.
                        unsafe { std::hint::unreachable_unchecked() }
                    };
                    // SAFETY: the `ArgI` is not the last op of the code.
                    ip = unsafe { ip.add(1) };
                    set!(dst, r!(src).wrapping_add(i32::from(k)));
                    call!(func, base, at);
                }
                Op::ArgI { .. } => {
                    debug_assert!(false, "call argument executed");
                }
                Op::Ret => {
                    if depth == 0 {
                        break 'run Ok(Completion::Returned(None));
                    }
                    depth -= 1;
                    // SAFETY: frames below `depth` were written by calls.
                    let f = unsafe { *frames.get_unchecked(depth) };
                    ip = goto!(f.ret_pc);
                    // SAFETY: the caller's frame lies below the callee's.
                    fp = unsafe { fp.sub(f.base as usize) };
                }
                Op::RetAdd { a, b } => return_value!(r!(a).wrapping_add(r!(b))),
                Op::RetV { src } => return_value!(r!(src)),
                Op::Intr { base, aux: x } => {
                    let k = aux!(x);
                    match k.inc {
                        Known::KING => {
                            charge!(pc!() - 1, u64::from(k.fuel));
                            let board = board!();
                            let mask = u64::from(k.b) | u64::from(k.target) << 32;
                            let hit = cvm_chess::pattern::king_pos_mask(board, k.a as i32, mask);
                            set!(base, i32::from(hit));
                        }
                        Known::PAT => {
                            charge!(pc!() - 1, u64::from(k.fuel));
                            let hit = folded_pattern(board!(), &k);
                            set!(base, i32::from(hit));
                        }
                        form => {
                            charge!(pc!() - 1, u64::from(k.fuel));
                            let id = k.a;
                            let info = &INTRINSICS[id as usize];
                            let n = info.params.len();
                            let mut args = [0i32; crate::intrinsics::MAX_PARAMS];
                            for (i, a) in args.iter_mut().enumerate().take(n) {
                                *a = r!(base as usize + i);
                            }
                            // A `Known::COST` call's work is charged before it
                            // starts, a host service's after it (as the JIT's
                            // shim does, through the same function).
                            let mut ctx = Ctx {
                                memory,
                                output,
                                host,
                                advice,
                            };
                            merge!();
                            let done = if form == Known::CALL {
                                crate::intrinsics::invoke_paid(id, &mut ctx, &args[..n], fuel)
                            } else {
                                crate::intrinsics::invoke(id, &mut ctx, &args[..n], fuel)
                            };
                            lists = memory.lists.as_ptr();
                            heap = memory.heap.as_mut_ptr();
                            board_ptr = board_of(host);
                            match done {
                                Ok((v, left)) => {
                                    fuel = left;
                                    split!();
                                    if info.returns {
                                        set!(base, v);
                                    }
                                }
                                Err((kind, left)) => {
                                    fuel = left;
                                    break 'run Err((kind, pc!() - 1));
                                }
                            }
                        }
                    }
                }
                Op::Get { base, aux: x } => {
                    let k = aux!(x);
                    charge!(pc!() - 1, u64::from(k.fuel));
                    let board = board!();
                    let set = match k.target {
                        GET_KNIGHTS => cvm_chess::attacks::knights(cvm_chess::sets::pieces_of(
                            board,
                            k.a as u8,
                            1 << kind::KNIGHT,
                        )),
                        GET_PASSED => cvm_chess::pattern::passed_pawns_of(board, k.a as usize & 1),
                        t => INTRINSICS
                            .get(t as usize)
                            .and_then(|i| i.squares)
                            .map_or(0, |f| f(board, k.a as i32)),
                    };
                    // SAFETY: `k.b` is the verified operand of an `lref`.
                    let s = unsafe { *lists.add(k.b as usize) };
                    // The squares and the end marker must fit, or
                    // nothing is written (as the intrinsic checks).
                    // A list of more than 64 slots holds any set; a
                    // shorter one has its squares counted up to its
                    // slots first.
                    if s.slots <= 64 {
                        let (mut rest, mut n) = (set, 0);
                        while rest != 0 && n < s.slots {
                            rest &= rest - 1;
                            n += 1;
                        }
                        if n >= s.slots {
                            break 'run Err((
                                TrapKind::ListOverflow {
                                    needed: set.count_ones(),
                                    capacity: s.slots.saturating_sub(1),
                                },
                                pc!() - 1,
                            ));
                        }
                    }
                    let first = s.base as usize;
                    let mut at = first;
                    let mut rest = set;
                    while rest != 0 {
                        // SAFETY: `at` < base + n < base + slots,
                        // n the set's squares (below the slots, as
                        // checked or as a set has at most 64).
                        heap!(at) = rest.trailing_zeros() as i32;
                        rest &= rest - 1;
                        at += 1;
                    }
                    // SAFETY: `at` = base + n < base + slots.
                    heap!(at) = LIST_END;
                    set!(base, (at - first) as i32);
                }
                Op::TestJ { aux: x } => {
                    let k = aux!(x);
                    charge!(pc!() - 1, u64::from(k.fuel));
                    let board = board!();
                    let hit = if k.inc == Known::KING {
                        let mask = u64::from(k.b) | u64::from(k.target) << 32;
                        cvm_chess::pattern::king_pos_mask(board, k.a as i32, mask)
                    } else {
                        folded_pattern(board, &k)
                    };
                    cmp_jump!(hit == k.when);
                }
                Op::Write { r } => {
                    charge!(pc!() - 1, crate::fuel::WRITE_FUEL);
                    output.write_value(r!(r));
                }
                Op::TextOut { text } => {
                    let text = &texts[text as usize].text;
                    charge!(pc!() - 1, crate::fuel::text_fuel(text.len()));
                    output.write_text(text);
                }
                Op::Halt => break 'run Ok(Completion::Halted),
            }
        };
        let fuel = if P::BACK_EDGES {
            fuel + cold.reserve
        } else {
            fuel
        };
        self.fuel_used = fuel_limit - fuel;
        self.hook_offset = hook_offset;
        match result {
            Ok(done) => Some(done),
            Err(trap) => {
                self.trap = Some(trap);
                None
            }
        }
    }
}

impl Vm for Interpreter<'_> {
    fn backend(&self) -> Backend {
        Backend::Interp
    }

    fn program(&self) -> &Program {
        self.program
    }

    fn set_limits(&mut self, limits: Limits) {
        self.limits = limits;
    }

    fn limits(&self) -> Limits {
        self.limits
    }

    fn fuel_used(&self) -> u64 {
        self.fuel_used
    }

    fn memory(&self) -> &Memory {
        &self.memory
    }

    fn memory_mut(&mut self) -> &mut Memory {
        self.memory_touched = true;
        self.reset_in_full = true;
        &mut self.memory
    }

    fn advice(&self) -> &AdviceTable {
        &self.advice
    }

    fn advice_mut(&mut self) -> &mut AdviceTable {
        // The embedder may write any entry through the fields.
        self.advice.mark_all_written();
        &mut self.advice
    }

    fn reset(&mut self) {
        if std::mem::take(&mut self.reset_in_full) {
            self.memory.reset_to(&self.initial);
        } else {
            self.memory
                .reset_written_to(&self.initial, &self.reset_plan);
        }
        self.memory_touched = false;
        self.unpark();
        self.advice.clear_written();
    }

    fn call(
        &mut self,
        func: u32,
        args: &[i32],
        host: &mut dyn Host,
        output: &mut dyn Output,
    ) -> Result<Completion, RuntimeError> {
        self.call_with(func, args, host, output, &mut NoProfile)
    }
}

/// Checks the embedder's arguments against the function's parameters (both
/// backends use it, so they refuse bad calls with the same message).
#[inline]
pub fn check_call_args(module: &Module, func: u32, args: &[i32]) -> Result<(), RuntimeError> {
    let bad = |m: String| RuntimeError {
        kind: TrapKind::BadCall(m),
        offset: 0,
        pos: None,
    };
    let f = module
        .functions
        .get(func as usize)
        .ok_or_else(|| bad(format!("no function number {func}")))?;
    if args.len() != f.arity() as usize {
        return Err(bad(format!(
            "{} takes {} arguments, {} given",
            f.name,
            f.arity(),
            args.len()
        )));
    }
    for &l in &args[f.value_params as usize..] {
        if l < 0 || l as usize >= module.lists.len() {
            return Err(bad(format!("{l} is not a list of the module")));
        }
    }
    Ok(())
}
