//! Running compiled code: the instance API, the same as the interpreter's.
//!
//! A [`JitInstance`] owns what one run of a program changes (globals and
//! lists, the advice table, the limits) and borrows the compiled code. Its
//! methods have the names and meaning of [`cvm::Interpreter`]'s, so an
//! embedder switches backends by changing the constructor.
//!
//! A call builds the run `Context` on the Rust stack, makes sure the
//! native stack can hold the deepest nesting the limits allow
//! (the `stack` module) and enters compiled code through the trampoline for
//! the callee's arity. A few situations that compiled code cannot serve
//! with identical semantics run that call on the interpreter instead (see
//! [`JitInstance::call`]); the result is the same either way.

use crate::compile::JitProgram;
use crate::context::{BetterCode, Context, STATUS_HALT};
use crate::deferred::Pending;
use crate::shared::CompiledFn;
use crate::stack;
use cvm::dispatch::Handled;
use cvm::interp::check_call_args;
use cvm::module::Module;
use cvm::ListFacts;
use cvm::{
    Backend, Completion, Host, Interpreter, Limits, Memory, Output, Program, RuntimeError, Vm,
};
use cvm_chess::advice_table::AdviceTable;
use cvm_chess::board::BoardView;
use std::cell::UnsafeCell;
use std::ffi::c_void;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};

impl JitProgram {
    /// A new instance with the module's initial globals and lists, an empty
    /// advice table and the default limits.
    pub fn instance(&self) -> JitInstance<'_> {
        JitInstance::new(self)
    }
}

/// The entry trampolines' signature: context, callee, fuel, depth limit,
/// arguments; returns the fuel left or a negative status.
pub(crate) type Entry = unsafe extern "C" fn(*mut c_void, *const u8, i64, u32, *const i32) -> i64;

/// Compiled code's own signature for a function without parameters, as
/// the platform's C convention sees it: context, fuel, depth limit; the
/// value and the fuel left (or a negative status) come back in two
/// registers, which C returns a two-word structure in.
#[cfg(all(target_arch = "x86_64", unix))]
type Direct0 = unsafe extern "C" fn(*mut c_void, i64, u32) -> Returned;

/// What compiled code returns: [`Direct0`]'s result.
#[cfg(all(target_arch = "x86_64", unix))]
#[repr(C)]
struct Returned {
    /// The function's value (undefined when it returns none).
    value: i32,
    /// The fuel left, or a negative status.
    status: i64,
}

/// One instance of a compiled program: its globals and lists persist across
/// calls until [`JitInstance::reset`].
pub struct JitInstance<'j> {
    jit: &'j JitProgram,
    /// The instance's memory, except the fills still waiting in
    /// `pending`. Written through a shared borrow only by
    /// [`Vm::memory`], to write those fills (see there).
    memory: UnsafeCell<Memory>,
    /// The run context kept between calls, with the record of the fills
    /// of deferred lists compiled code left waiting (`crate::deferred`).
    kept: Box<Kept<'j>>,
    advice: Box<AdviceTable>,
    limits: Limits,
    fuel_used: u64,
    /// Set when the embedder may have changed memory directly; the next
    /// call then checks the layout and the constant lists.
    memory_touched: bool,
    /// Set when something besides the program may have written memory
    /// since the last reset (the embedder, the interpreter's state moved
    /// in, a call passing lists to a program that writes through list
    /// references): the next reset copies everything back, not only the
    /// lists the program can write.
    reset_in_full: bool,
    /// Whether the last call ran compiled code.
    ran_compiled: bool,
    /// Counted-loop entries of the last call.
    loop_entries: LoopEntries,
    /// What the last call into code that can no longer change worked out
    /// before entering it, reused by the next call of the same function.
    hot: Option<HotEntry<'j>>,
}

/// The run context an instance keeps between calls, so that a call only
/// refreshes what may have changed ([`Run::enter_kept`]), and the record of
/// waiting fills it points to. Boxed: both keep their addresses when the
/// instance moves. Between calls the context's memory, host and output
/// pointers are stale; nothing reads them until the next call has set them.
struct Kept<'j> {
    ctx: Context<'j>,
    /// Written through a shared borrow only by [`Vm::memory`] (see there).
    pending: UnsafeCell<Pending>,
}

impl<'j> Kept<'j> {
    fn new(jit: &'j JitProgram, better: &'j dyn BetterCode) -> Box<Kept<'j>> {
        let mut kept = Box::new(Kept {
            ctx: Context::idle(
                &jit.program.module().texts,
                &jit.measured,
                Some(better),
                std::ptr::null_mut(),
            ),
            pending: UnsafeCell::new(Pending::new(&jit.deferred)),
        });
        if kept.pending.get_mut().is_used() {
            kept.ctx.pending = kept.pending.get();
        }
        kept
    }
}

/// The entry of an embedder's call worked out once: the code, the native
/// stack it needs under the instance's limits and the fuel its entry
/// charges. Kept only for code that stays (no better code is on its way)
/// and forgotten when the limits change.
#[derive(Copy, Clone)]
struct HotEntry<'j> {
    /// The function called.
    func: u32,
    /// Its compilation and code.
    code: (&'j JitProgram, CompiledFn),
    /// Whether it returns a value.
    returns: bool,
    /// Native stack the run needs ([`stack::need`]).
    bytes: usize,
    /// The effective depth limit.
    max_depth: u32,
    /// Fuel the entry charges ([`cvm::verify::FunctionInfo::call_fuel`]).
    entry_fuel: u64,
    /// The function's arity when it has no list parameters (any values
    /// are valid arguments then); `None` when it has list parameters.
    values: Option<usize>,
}

/// How the last call entered counted loops (`docs/jit.md`, "Counted
/// loops"): each entry into an innermost loop whose trip count the JIT
/// bounds runs either the copy without per-iteration checks, when the
/// guard at the entry proved them unnecessary, or the fully checked copy.
/// A diagnostic for tests and measurements; results never depend on it.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct LoopEntries {
    /// Entries that ran the fast copy.
    pub fast: u64,
    /// Entries that ran the checked copy.
    pub checked: u64,
}

impl std::fmt::Debug for JitInstance<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JitInstance")
            .field("limits", &self.limits)
            .field("fuel_used", &self.fuel_used)
            .finish_non_exhaustive()
    }
}

impl<'j> Vm for JitInstance<'j> {
    fn backend(&self) -> Backend {
        Backend::Jit
    }

    fn program(&self) -> &Program {
        &self.jit.program
    }

    fn set_limits(&mut self, limits: Limits) {
        // The worked-out entry depends on the depth limit (the native
        // stack it needs), not on the fuel, which every call reads anew.
        if limits.max_depth != self.limits.max_depth {
            self.hot = None;
        }
        self.limits = limits;
    }

    fn limits(&self) -> Limits {
        self.limits
    }

    fn fuel_used(&self) -> u64 {
        self.fuel_used
    }

    fn ran_compiled(&self) -> bool {
        self.ran_compiled
    }

    fn memory(&self) -> &Memory {
        // SAFETY: a fill can wait only after a call into compiled code,
        // which borrows the instance exclusively and so ends every borrow
        // of its memory. The first look at memory afterwards writes the
        // waiting fills, before it hands out a reference; every later look
        // finds nothing waiting and writes nothing until the next call.
        // So memory is written here only while no reference to it lives,
        // and no other method reaches `memory` or `pending` through a
        // shared borrow.
        unsafe {
            let pending = &mut *self.kept.pending.get();
            if pending.may_wait() {
                pending.flush(&mut *self.memory.get());
            }
            &*self.memory.get()
        }
    }

    fn memory_mut(&mut self) -> &mut Memory {
        self.memory_touched = true;
        self.reset_in_full = true;
        self.flushed_memory()
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
        let pending = self.kept.pending.get_mut();
        pending.forget();
        // Fills that waited and were dropped never reached memory; while
        // nothing wrote a deferred list, it holds its initial values.
        let plan = if pending.take_written() {
            &self.jit.reset_plan
        } else {
            &self.jit.reset_plan_kept
        };
        let memory = self.memory.get_mut();
        if std::mem::take(&mut self.reset_in_full) {
            memory.reset_to(&self.jit.initial);
        } else {
            memory.reset_written_to(&self.jit.initial, plan);
        }
        self.memory_touched = false;
        self.advice.clear_written();
    }

    /// Calls function `func` with `args`: one int per value parameter, then
    /// one list index per list parameter.
    ///
    /// The call runs compiled code, except where compiled code could not
    /// reproduce the interpreter exactly and the interpreter runs it
    /// instead (`docs/jit.md`, "Fallbacks"): the depth limit needs more
    /// native stack than `MAX_SEGMENT` (or the platform cannot provide it);
    /// the embedder changed a list the compiler folded into constants
    /// (through [`JitInstance::memory_mut`]), or passes such a list to a
    /// program that writes through list parameters, or passes a list whose
    /// fills are deferred; or the call brings less fuel than code whose
    /// fuel is proved at its entry needs.
    fn call(
        &mut self,
        func: u32,
        args: &[i32],
        host: &mut dyn Host,
        output: &mut dyn Output,
    ) -> Result<Completion, RuntimeError> {
        // The common call: the function called last, no list parameters
        // (any values fit), memory as compiled code left it, enough native
        // stack here. (Every other call takes the way below, which finds
        // the same entry again when it is the one to use.)
        if let Some(hot) = &self.hot {
            if hot.func == func
                && hot.values == Some(args.len())
                && !self.memory_touched
                && stack::enough_here(hot.bytes)
            {
                // The few fields the entry needs, read where they are (a
                // copy of the whole entry would be written to the stack
                // and read back).
                let (code, max_depth, cost, returns) =
                    (hot.code, hot.max_depth, hot.entry_fuel, hot.returns);
                return self.enter_parts(func, code, max_depth, cost, returns, args, host, output);
            }
        }
        self.ran_compiled = false;
        self.loop_entries = LoopEntries::default();
        let module = self.jit.program.module();
        if !args_fit(module, func, args) {
            check_call_args(module, func, args)?;
        }
        // Memory needs a look only after the embedder or the interpreter
        // had it, or when a program that can write through list parameters
        // is passed lists; the common call skips both checks.
        let passes_lists = args.len() > module.functions[func as usize].value_params as usize;
        // A list passed may be a deferred one, which the callee may read.
        if passes_lists {
            self.flushed_memory();
            // The callee may write a list the program itself never writes.
            self.reset_in_full |= self.jit.facts.writes_through_refs;
            if passes_deferred(&self.jit.deferred, module, (func, args)) {
                return self.call_interpreted(func, args, host, output);
            }
        }
        if (self.memory_touched || (self.jit.facts.writes_through_refs && passes_lists))
            && !self.memory_ready(func, args)?
        {
            return self.call_interpreted(func, args, host, output);
        }
        if let Some(hot) = self.hot.filter(|hot| hot.func == func) {
            if stack::enough_here(hot.bytes) {
                return self.enter(hot, args, host, output);
            }
            return self.call_on_new_stack(hot, args, host, output);
        }
        self.call_first(func, args, host, output)
    }
}

impl<'j> JitInstance<'j> {
    /// A new instance of `jit` with the module's initial memory, an empty
    /// advice table and the default limits.
    pub fn new(jit: &'j JitProgram) -> JitInstance<'j> {
        JitInstance::with_better(jit, jit)
    }

    /// A new instance of `jit` whose baseline code looks for better code
    /// of its functions in `better` (at calls and loop back edges) instead
    /// of in `jit`'s own upgrade: how the tiered backend runs the
    /// embedder's calls of a baseline closure.
    pub(crate) fn with_better(jit: &'j JitProgram, better: &'j dyn BetterCode) -> JitInstance<'j> {
        JitInstance {
            jit,
            memory: UnsafeCell::new(jit.initial.clone()),
            kept: Kept::new(jit, better),
            advice: Box::default(),
            limits: Limits::default(),
            fuel_used: 0,
            memory_touched: false,
            reset_in_full: false,
            ran_compiled: false,
            loop_entries: LoopEntries::default(),
            hot: None,
        }
    }

    /// The program being run (for as long as the compiled program lives,
    /// unlike [`Vm::program`]).
    pub fn program(&self) -> &'j Program {
        &self.jit.program
    }

    /// How the last call entered counted loops (zero when it ran on the
    /// interpreter).
    pub fn loop_entries(&self) -> LoopEntries {
        self.loop_entries
    }

    /// Exchanges the instance's memory (its waiting fills written first)
    /// and advice table with `interp`'s, without copying either: how the
    /// tiered backend moves its live state between its interpreter and an
    /// instance of native code, in either direction. With `touched`,
    /// the memory this instance gets may differ from what compiled code
    /// left (the embedder had it, or a call passed lists to interpreted
    /// code): its next call checks it as after [`Vm::memory_mut`]. The
    /// interpreter always checks what it gets.
    pub(crate) fn swap_with(&mut self, interp: &mut cvm::Interpreter<'_>, touched: bool) {
        self.flushed_memory();
        interp.swap_state(self.memory.get_mut(), &mut self.advice);
        self.memory_touched |= touched;
        // Whatever had the memory before may have written any list.
        self.reset_in_full = true;
    }

    /// The memory with every waiting fill written.
    fn flushed_memory(&mut self) -> &mut Memory {
        let memory = self.memory.get_mut();
        self.kept.pending.get_mut().flush(memory);
        memory
    }

    /// A call whose entry is not worked out yet ([`HotEntry`]): finds the
    /// code and the native stack it needs, keeps them when the code stays,
    /// and runs the call.
    #[inline(never)]
    fn call_first(
        &mut self,
        func: u32,
        args: &[i32],
        host: &mut dyn Host,
        output: &mut dyn Output,
    ) -> Result<Completion, RuntimeError> {
        let jit: &'j JitProgram = self.jit;
        let Some(code) = jit.code_for(func) else {
            return self.call_interpreted(func, args, host, output);
        };
        let max_depth = self.limits.max_depth.max(1);
        let frames = match jit.depth_bounds[func as usize] {
            Some(bound) => bound.min(max_depth),
            None => max_depth,
        };
        let Some(bytes) = stack::need(u64::from(frames), code.0.max_frame) else {
            return self.call_interpreted(func, args, host, output);
        };
        let hot = HotEntry {
            func,
            code,
            bytes,
            max_depth,
            entry_fuel: code.0.program.function_info(func).call_fuel(),
            returns: jit.program.module().functions[func as usize].returns_value,
            values: {
                let f = &jit.program.module().functions[func as usize];
                (f.list_params == 0).then_some(f.value_params as usize)
            },
        };
        if !jit.upgrade_pending() {
            self.hot = Some(hot);
        }
        if stack::enough_here(bytes) {
            return self.enter(hot, args, host, output);
        }
        self.call_on_new_stack(hot, args, host, output)
    }

    /// Runs the call on a fresh native stack segment when the current one
    /// is too short, or on the interpreter when none can be had.
    #[cold]
    #[inline(never)]
    fn call_on_new_stack(
        &mut self,
        hot: HotEntry<'j>,
        args: &[i32],
        host: &mut dyn Host,
        output: &mut dyn Output,
    ) -> Result<Completion, RuntimeError> {
        match stack::with_stack(hot.bytes, || self.enter(hot, args, host, output)) {
            Some(result) => result,
            None => self.call_interpreted(hot.func, args, host, output),
        }
    }

    /// Whether compiled code may run a call with `args` on the current
    /// memory: `Ok(false)` sends the call to the interpreter, an error
    /// means the memory lost the module's layout.
    #[cold]
    #[inline(never)]
    fn memory_ready(&mut self, func: u32, args: &[i32]) -> Result<bool, RuntimeError> {
        if self.memory_touched && !self.memory_layout_ok() {
            return Err(RuntimeError::layout_changed());
        }
        Ok(self.constants_intact(func, args))
    }

    /// Whether memory still has the shape compiled code was made for.
    fn memory_layout_ok(&mut self) -> bool {
        self.memory.get_mut().same_layout(&self.jit.initial)
    }

    /// Whether the lists compiled code treats as constants hold their
    /// initial values and stay that way during a call with `args`.
    fn constants_intact(&mut self, func: u32, args: &[i32]) -> bool {
        constants_intact(
            &self.jit.facts,
            &self.jit.initial,
            self.jit.program.module(),
            self.memory.get_mut(),
            &mut self.memory_touched,
            (func, args),
        )
    }

    /// Runs the call on the interpreter, lending it this instance's memory
    /// and advice table.
    #[cold]
    #[inline(never)]
    fn call_interpreted(
        &mut self,
        func: u32,
        args: &[i32],
        host: &mut dyn Host,
        output: &mut dyn Output,
    ) -> Result<Completion, RuntimeError> {
        let mut vm = Interpreter::new(&self.jit.program);
        vm.set_limits(self.limits);
        std::mem::swap(vm.memory_mut(), self.flushed_memory());
        std::mem::swap(vm.advice_mut(), &mut self.advice);
        let result = catch_unwind(AssertUnwindSafe(|| vm.call(func, args, host, output)));
        std::mem::swap(vm.memory_mut(), self.memory.get_mut());
        std::mem::swap(vm.advice_mut(), &mut self.advice);
        self.fuel_used = vm.fuel_used();
        // The interpreter may have written any list; check them next time.
        self.memory_touched = true;
        self.reset_in_full = true;
        result.unwrap_or_else(|panic| resume_unwind(panic))
    }

    /// Enters compiled code `code` (the compilation holding `func` and its
    /// code); the native stack has been arranged.
    #[inline(always)]
    fn enter(
        &mut self,
        hot: HotEntry<'j>,
        args: &[i32],
        host: &mut dyn Host,
        output: &mut dyn Output,
    ) -> Result<Completion, RuntimeError> {
        let HotEntry {
            func,
            code,
            max_depth,
            entry_fuel,
            returns,
            ..
        } = hot;
        self.enter_parts(
            func, code, max_depth, entry_fuel, returns, args, host, output,
        )
    }

    /// [`JitInstance::enter`] with the entry's fields: function `func`,
    /// its compilation and code `code`, the effective depth limit, the
    /// fuel its entry charges (`cost`) and whether it returns a value.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn enter_parts(
        &mut self,
        func: u32,
        (jit, compiled): (&'j JitProgram, CompiledFn),
        max_depth: u32,
        cost: u64,
        returns: bool,
        args: &[i32],
        host: &mut dyn Host,
        output: &mut dyn Output,
    ) -> Result<Completion, RuntimeError> {
        self.ran_compiled = true;
        let limit = self.limits.fuel.unwrap_or(u64::MAX);
        // The entry charges as a call would (nothing is spent when it
        // cannot be paid), as on the interpreter. Every way out below sets
        // the fuel used and the loop entries.
        let left = match limit.checked_sub(cost) {
            Some(left) => left,
            None => match jit.program.charge_entry(func, limit) {
                Ok(left) => left,
                Err(e) => {
                    self.fuel_used = 0;
                    self.loop_entries = LoopEntries::default();
                    return Err(e);
                }
            },
        };
        let entry_fuel = limit - left;
        let fuel = i64::try_from(left).unwrap_or(i64::MAX);
        if !compiled.runs_with(fuel) {
            // Too little fuel for code that proves it at entry: the
            // interpreter stops where the fuel runs out.
            self.ran_compiled = false;
            return self.call_interpreted(func, args, host, output);
        }
        let run = Run {
            jit,
            compiled,
            args,
            fuel,
            depth_left: max_depth,
            max_depth,
            osr: None,
            // The kept context holds it already (`Kept::new`); `Run`
            // reads it only when it makes a context of its own.
            better: self.kept.ctx.better,
            returns,
        };
        let (handled, loops) = run.enter_with(
            &mut self.kept.ctx,
            self.memory.get_mut(),
            &mut self.advice,
            host,
            output,
            false,
        );
        self.loop_entries = loops;
        let result = match handled {
            Handled::Returned { value, fuel_left } => {
                self.fuel_used = fuel as u64 - fuel_left;
                Ok(Completion::Returned(value))
            }
            other => self.stopped(other, fuel),
        };
        self.fuel_used += entry_fuel;
        result
    }

    /// The outcome of a compiled run that did not return normally: a halt
    /// or a runtime error.
    #[cold]
    #[inline(never)]
    fn stopped(&mut self, handled: Handled, fuel: i64) -> Result<Completion, RuntimeError> {
        let module = self.jit.program.module();
        match handled {
            Handled::Returned { value, fuel_left } => {
                self.fuel_used = fuel as u64 - fuel_left;
                Ok(Completion::Returned(value))
            }
            Handled::Halted { fuel_left } => {
                self.fuel_used = fuel as u64 - fuel_left;
                Ok(Completion::Halted)
            }
            Handled::Trapped {
                kind,
                offset,
                fuel_left,
            } => {
                self.fuel_used = fuel as u64 - fuel_left;
                Err(RuntimeError::new(kind, offset, module))
            }
        }
    }
}

/// One entry into compiled code: the callee, its arguments and the limits
/// it runs under. Used by [`JitInstance`] for the embedder's calls and by
/// the tiered backend for calls the interpreter hands over.
pub(crate) struct Run<'a> {
    /// The compilation holding the callee.
    pub jit: &'a JitProgram,
    /// The callee's code and entry trampoline (from `jit`).
    pub compiled: CompiledFn,
    /// Arguments, checked against the callee's parameters.
    pub args: &'a [i32],
    /// Fuel for the run, non-negative.
    pub fuel: i64,
    /// Frames the run may open, the callee's included (at least 1).
    pub depth_left: u32,
    /// The depth limit a depth error reports.
    pub max_depth: u32,
    /// The state of a frame to continue at a loop header instead of
    /// entering the callee at its start (on-stack replacement: the header's
    /// offset, the frame slots, the operand stack; `args` are then ignored
    /// but must still be one per parameter).
    pub osr: Option<&'a [i32]>,
    /// Where baseline code finds better code for its frames at back edges.
    pub better: Option<&'a dyn crate::context::BetterCode>,
    /// Whether the callee returns a value.
    pub returns: bool,
}

impl Run<'_> {
    /// Runs compiled code on `memory` and `advice`; the native stack must
    /// hold `depth_left` frames (see [`crate::stack`]). Returns how the run
    /// ended (fuel left counted from `self.fuel`) and the counted-loop
    /// entries; a panic in embedder code is resumed here, after compiled
    /// code has returned.
    #[inline(always)]
    pub(crate) fn enter(
        self,
        memory: &mut Memory,
        advice: &mut AdviceTable,
        host: &mut dyn Host,
        output: &mut dyn Output,
    ) -> (Handled, LoopEntries) {
        let module = self.jit.program.module();
        // The fills this run defers are written before it returns: the
        // memory is the caller's, who keeps no record of waiting fills.
        let flush = !self.jit.deferred.is_empty();
        let mut local = flush.then(|| Pending::new(&self.jit.deferred));
        let pending = local
            .as_mut()
            .map_or(std::ptr::null_mut(), |p| p as *mut Pending);
        let mut ctx = Context::idle(&module.texts, &self.jit.measured, self.better, pending);
        ctx.osr = self.osr.map_or(std::ptr::null(), <[i32]>::as_ptr);
        self.enter_with(&mut ctx, memory, advice, host, output, flush)
    }

    /// Runs the callee on `ctx` (ready for this run: memory, board, host,
    /// output, counters zero, no trap recorded); how the run ended and the
    /// counted-loop entries.
    #[inline(always)]
    fn run_on(&self, ctx: &mut Context<'_>, flush: bool) -> (Handled, LoopEntries) {
        // SAFETY: `compiled.entry` is the finalized trampoline for the
        // callee's arity and `compiled.code` the finalized callee, both
        // alive while `self.jit` is borrowed. The arguments were checked
        // against the callee's parameters (`args.len()` is its arity, list
        // arguments are valid list indices, by the embedder's check or the
        // verifier). The context outlives the call, and the native stack
        // can hold `depth_left` frames (the caller's duty).
        let status = unsafe {
            let raw = (ctx as *mut Context<'_>).cast::<c_void>();
            match self.args {
                // On System V x86-64 both code generators' functions take
                // and return what a C function of that signature does
                // (`lower::cvm_signature`; the value in `rax`, the fuel
                // in `rdx`), so a call without arguments skips the
                // trampoline, which would only move the registers.
                #[cfg(all(target_arch = "x86_64", unix))]
                [] => {
                    let direct = std::mem::transmute::<*const u8, Direct0>(self.compiled.code);
                    let Returned { value, status } = direct(raw, self.fuel, self.depth_left);
                    ctx.result = value;
                    status
                }
                _ => {
                    let entry: Entry = std::mem::transmute::<*const u8, Entry>(self.compiled.entry);
                    entry(
                        raw,
                        self.compiled.code,
                        self.fuel,
                        self.depth_left,
                        self.args.as_ptr(),
                    )
                }
            }
        };
        let loops = LoopEntries {
            fast: ctx.loops_fast,
            checked: ctx.loops_checked,
        };
        if flush && !ctx.pending.is_null() {
            // SAFETY: compiled code has returned; the record and the memory
            // pointers were set for this run from exclusive borrows that are
            // still live, and nothing else refers to either now.
            unsafe { (*ctx.pending).flush(&mut *ctx.memory) };
        }
        if status >= 0 && ctx.panic.is_none() {
            let value = self.returns.then_some(ctx.result);
            let fuel_left = status as u64;
            return (Handled::Returned { value, fuel_left }, loops);
        }
        (self.stopped(ctx, status), loops)
    }

    /// Runs the callee in `ctx`, a fresh context ([`Context::idle`]) or
    /// the one an instance keeps between calls ([`Kept`]), setting what
    /// changes from run to run: the memory's pointers (the instance may
    /// have moved, the embedder may have replaced the memory), the board,
    /// the host, the output and the counters. Everything else (texts,
    /// better code, its flags, the record of waiting fills) the context
    /// has from its making, and a stopped run leaves no trap record behind
    /// ([`Run::stopped`]). With `flush`, the fills left waiting in the
    /// context's record are written once compiled code has returned,
    /// before a panic in embedder code is resumed.
    #[inline(always)]
    fn enter_with<'j>(
        &self,
        ctx: &mut Context<'j>,
        memory: &mut Memory,
        advice: &mut AdviceTable,
        host: &mut dyn Host,
        output: &mut dyn Output,
        flush: bool,
    ) -> (Handled, LoopEntries) {
        ctx.globals = memory.globals.as_mut_ptr();
        ctx.heap = memory.heap.as_mut_ptr();
        ctx.lists = memory.lists.as_ptr();
        // The board is read in place, not copied (the host's view is
        // usually written just before the call, and a copy would wait for
        // those stores). While compiled code runs, the host is only read
        // (the intrinsics take its board and position), except by a host
        // service, after which the shim takes the pointer anew.
        ctx.board = host.board().unwrap_or(&BoardView::EMPTY);
        ctx.loops_fast = 0;
        ctx.loops_checked = 0;
        ctx.poll = crate::context::POLL_EVERY;
        ctx.memory = memory;
        ctx.advice = advice;
        let host: *mut (dyn Host + '_) = host;
        let output: *mut (dyn Output + '_) = output;
        // SAFETY: only the lifetime in the pointers' types changes. The
        // shims dereference them only during this run, while `host` and
        // `output` are borrowed; the next call replaces them before
        // compiled code runs again.
        unsafe {
            ctx.host = std::mem::transmute::<*mut (dyn Host + '_), *mut (dyn Host + 'j)>(host);
            ctx.output =
                std::mem::transmute::<*mut (dyn Output + '_), *mut (dyn Output + 'j)>(output);
        }
        self.run_on(ctx, flush)
    }

    /// How a compiled run that did not return normally ended: a halt or a
    /// runtime error; a panic in embedder code is resumed.
    #[cold]
    #[inline(never)]
    fn stopped(&self, ctx: &mut Context<'_>, status: i64) -> Handled {
        if let Some(panic) = ctx.panic.take() {
            resume_unwind(panic);
        }
        let fuel_left = ctx.fuel_left.clamp(0, self.fuel) as u64;
        let handled = if status == STATUS_HALT {
            Handled::Halted { fuel_left }
        } else {
            Handled::Trapped {
                kind: ctx.trap_kind(self.max_depth),
                offset: ctx.trap_offset,
                fuel_left,
            }
        };
        // A context kept for the next run starts it with no trap recorded.
        ctx.trap_code = 0;
        ctx.payload = None;
        handled
    }
}

/// Whether the embedder's arguments fit function `func`'s parameters: the
/// check of [`check_call_args`] without its errors, which that function
/// reports when this one says no.
#[inline]
pub(crate) fn args_fit(module: &Module, func: u32, args: &[i32]) -> bool {
    module.functions.get(func as usize).is_some_and(|f| {
        args.len() == f.arity() as usize
            && args[f.value_params as usize..]
                .iter()
                .all(|&l| l >= 0 && (l as usize) < module.lists.len())
    })
}

/// Whether compiled code may run `call` (a function and its arguments) on
/// `memory`, by the rules of `docs/jit.md`, "Fallbacks": a call that passes
/// a list folded into constants to a program that writes through list
/// parameters may not (and marks the memory `touched`); after the embedder
/// touched the memory, every folded list must still hold its value in
/// `initial` (which clears `touched` again).
#[inline]
pub(crate) fn constants_intact(
    facts: &ListFacts,
    initial: &Memory,
    module: &Module,
    memory: &Memory,
    touched: &mut bool,
    (func, args): (u32, &[i32]),
) -> bool {
    // The common call: memory untouched since the last check, and no list
    // passed (or a program that cannot write through list parameters).
    let value_params = module.functions[func as usize].value_params;
    if !*touched && (!facts.writes_through_refs || args.len() <= value_params as usize) {
        return true;
    }
    constants_checked(facts, initial, memory, touched, value_params, args)
}

/// Whether the embedder's call `(func, args)` passes one of the `deferred`
/// lists (`crate::deferred`) as a list argument. Compiled code may fill
/// that list by its name, keeping the fill waiting, and then read it
/// through the parameter, which the record of waiting fills cannot see:
/// such a call runs on the interpreter (`docs/jit.md`, "Fallbacks").
pub(crate) fn passes_deferred(
    deferred: &[u32],
    module: &Module,
    (func, args): (u32, &[i32]),
) -> bool {
    let value_params = module.functions[func as usize].value_params as usize;
    !deferred.is_empty()
        && args
            .iter()
            .skip(value_params)
            .any(|&a| u32::try_from(a).is_ok_and(|l| deferred.contains(&l)))
}

/// [`constants_intact`] past its common case: the list arguments and, when
/// the memory was touched, every folded list.
#[cold]
#[inline(never)]
fn constants_checked(
    facts: &ListFacts,
    initial: &Memory,
    memory: &Memory,
    touched: &mut bool,
    value_params: u32,
    args: &[i32],
) -> bool {
    if facts.writes_through_refs {
        let passes_constant = args
            .iter()
            .skip(value_params as usize)
            .filter_map(|&a| usize::try_from(a).ok())
            .any(|l| facts.constant.get(l).copied().unwrap_or(false));
        if passes_constant {
            *touched = true;
            return false;
        }
    }
    if !*touched {
        return true;
    }
    let intact = facts
        .constant
        .iter()
        .enumerate()
        .filter(|(_, &c)| c)
        .all(|(l, _)| memory.list(l as u32) == initial.list(l as u32));
    if intact {
        *touched = false;
    }
    intact
}
