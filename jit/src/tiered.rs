//! The tiered backend (`Backend::Auto`): interpret first, compile what is
//! hot.
//!
//! A [`TieredProgram`] starts every instance on the interpreter. It counts
//! the calls of each function (made by the embedder or by interpreted
//! code) and the fuel the embedder's calls spend; a function that crosses
//! a threshold ([`TierConfig`]) is compiled, with every function it calls
//! directly or not ([`JitProgram::compile_closure`]), so native code never
//! has to call back into the interpreter. Compilation runs on a background
//! thread by default; the code is swapped in at the function's next call:
//! the embedder's call then runs native code from the start, and an
//! interpreted `call` hands the callee to native code through the
//! interpreter's call-dispatch hook ([`cvm::dispatch`]), with the
//! interpreter's memory, advice table, host and output, the fuel left and
//! the depth left, and continues with its value, halt or error. Results,
//! output, fuel, memory, advice and errors are the same as on both other
//! backends at every point of the switch (`docs/jit.md`, "The tiered
//! backend").

use crate::compile::{CodeGen, JitProgram, Sendable};
use crate::instance::{constants_intact, passes_deferred, JitInstance, Run};
use crate::shared::CompiledFn;
use crate::stack;
use cvm::dispatch::{CallHook, CallSite, Handled, LoopSite};
use cvm::interp::check_call_args;
use cvm::{list_facts, ListFacts};
use cvm::{
    AdviceTable, Backend, Completion, Host, Interpreter, Limits, Memory, Output, Program,
    RuntimeError, Vm,
};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicU8, Ordering};
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::JoinHandle;

/// When the tiered backend compiles a function.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TierConfig {
    /// Calls of a function (by the embedder or by interpreted code) after
    /// which it is compiled; 0 compiles at its first call.
    pub call_threshold: u32,
    /// Fuel the embedder's calls of a function may spend in all (its loop
    /// iterations and calls) before it is compiled.
    pub fuel_threshold: u64,
    /// Compile on a background thread (the interpreter runs on meanwhile);
    /// `false` compiles at the call that crosses the threshold, which then
    /// runs native code.
    pub background: bool,
    /// Calls of a function after which it is compiled by the baseline
    /// code generator first (`crate::baseline`: microseconds, code a
    /// little slower than Cranelift's), at once, on the calling thread;
    /// `u32::MAX`: never. The Cranelift code replaces it when a threshold
    /// above is crossed.
    pub baseline_call_threshold: u32,
    /// Fuel the embedder's calls of a function may spend before it is
    /// compiled by the baseline code generator; `u64::MAX`: never.
    pub baseline_fuel_threshold: u64,
    /// For tests: ignore the thresholds and compile, synchronously, the
    /// callee of the call with this index (0 is the first call of the
    /// instance, counting the embedder's calls and interpreted `call`
    /// instructions), which then runs native code.
    pub switch_at: Option<u64>,
    /// For tests: ignore the thresholds and compile, synchronously, the
    /// function running at the instance's back edge with this index (0 is
    /// the first backward jump the interpreter takes, counting every
    /// embedder's call of the instance), which then continues on native
    /// code from the loop's header (on-stack replacement).
    pub switch_at_back_edge: Option<u64>,
    /// The code generator of the forced switch ([`TierConfig::switch_at`],
    /// [`TierConfig::switch_at_back_edge`]).
    pub switch_codegen: CodeGen,
}

impl TierConfig {
    /// The default thresholds (`docs/jit.md`, "The tiered backend"):
    /// Cranelift's code after 1,000 calls or 100,000 units of fuel,
    /// compiled in the background; the baseline code (where the host has
    /// the baseline generator) after 20,000 units of fuel spent before
    /// Cranelift's code was asked for, or by the run that asks for it, and
    /// never by the count of calls.
    pub const DEFAULT: TierConfig = TierConfig {
        call_threshold: 1_000,
        fuel_threshold: 100_000,
        background: true,
        baseline_call_threshold: u32::MAX,
        baseline_fuel_threshold: if crate::baseline::supported() {
            20_000
        } else {
            u64::MAX
        },
        switch_at: None,
        switch_at_back_edge: None,
        switch_codegen: CodeGen::Cranelift,
    };

    /// A forced switch point for tests: the call with index `call`
    /// compiles its callee synchronously and runs it natively.
    pub fn switch_at(call: u64) -> TierConfig {
        TierConfig {
            switch_at: Some(call),
            background: false,
            ..TierConfig::DEFAULT
        }
    }

    /// [`TierConfig::switch_at`] with `codegen` compiling the callee.
    pub fn switch_at_with(call: u64, codegen: CodeGen) -> TierConfig {
        TierConfig {
            switch_codegen: codegen,
            ..TierConfig::switch_at(call)
        }
    }

    /// A forced switch at a back edge for tests: the back edge with index
    /// `edge` compiles the function it runs in with `codegen`,
    /// synchronously, and the frame continues on that code from the
    /// loop's header; nothing else is compiled but by forced switches.
    pub fn switch_at_back_edge(edge: u64, codegen: CodeGen) -> TierConfig {
        TierConfig {
            call_threshold: u32::MAX,
            fuel_threshold: u64::MAX,
            background: false,
            baseline_call_threshold: u32::MAX,
            baseline_fuel_threshold: u64::MAX,
            switch_at: None,
            switch_at_back_edge: Some(edge),
            switch_codegen: codegen,
        }
    }

    /// Thresholds by the count of calls alone, for tests: a function is
    /// compiled by Cranelift after more than `cranelift` calls and by the
    /// baseline generator after more than `baseline` (`u32::MAX`: never),
    /// synchronously; the fuel thresholds are off. Unlike a forced switch
    /// point, the embedder's calls of a compiled function then run on the
    /// instances of native code the tiered instance keeps.
    pub fn by_calls(cranelift: u32, baseline: u32) -> TierConfig {
        TierConfig {
            call_threshold: cranelift,
            fuel_threshold: u64::MAX,
            background: false,
            baseline_call_threshold: baseline,
            baseline_fuel_threshold: u64::MAX,
            ..TierConfig::DEFAULT
        }
    }

    /// Whether a forced switch point is set (the thresholds are then
    /// ignored).
    fn forced(&self) -> bool {
        self.switch_at.is_some() || self.switch_at_back_edge.is_some()
    }
}

impl Default for TierConfig {
    fn default() -> TierConfig {
        TierConfig::DEFAULT
    }
}

/// The compiled closures of [`Common`], by root and generator
/// ([`closure_slot`]): each set once and kept for as long as the program,
/// so that an instance can borrow the code for the program's lifetime
/// ([`Common::closure_program`]); `None` inside when the closure cannot be
/// compiled.
type Closures = Vec<OnceLock<Option<Arc<Sendable>>>>;

/// The index in [`Closures`] of the closure of `root` made by `codegen`.
fn closure_slot(root: u32, codegen: CodeGen) -> usize {
    root as usize * 2 + usize::from(codegen == CodeGen::Cranelift)
}

/// Native code for one function: its compilation and its entry.
#[derive(Clone)]
struct Native {
    jit: Arc<Sendable>,
    /// The root of the closure `jit` compiled ([`Common::closure_program`]).
    root: u32,
    code: CompiledFn,
    /// Which generator made it: baseline code is replaced by Cranelift's.
    codegen: CodeGen,
}

// SAFETY: `code` addresses finalized, read-only machine code owned by
// `jit`, which this value keeps alive; sharing or moving the addresses
// between threads is as sound as sharing `jit` (see `Sendable`).
unsafe impl Send for Native {}
// SAFETY: as for `Send`; nothing in a `Native` is mutable.
unsafe impl Sync for Native {}

/// What the compiler thread and the instances share.
struct Table {
    /// Bumped whenever `slots` gains code.
    generation: AtomicU64,
    /// The native code of each function, once compiled.
    slots: Mutex<Vec<Option<Native>>>,
    /// Whether each function was asked to be compiled by Cranelift.
    requested: Vec<AtomicBool>,
    /// Whether each function was asked to be compiled by the baseline
    /// generator (or has better code).
    requested_baseline: Vec<AtomicBool>,
    /// Calls of each function so far, by all instances (approximate when
    /// instances run on several threads at once: a plain load and store).
    calls: Vec<AtomicU32>,
    /// Fuel spent by the embedder's calls of each function, likewise.
    fuel: Vec<AtomicU64>,
    /// Whether each function has Cranelift's code in `slots` (read by the
    /// entry of running baseline code, see `Context::ready`).
    ready: Vec<AtomicU8>,
    /// Calls that baseline code handed to Cranelift's code at their entry.
    entry_switches: AtomicU64,
}

impl Table {
    /// Makes every function `jit` compiled (by `codegen`) available,
    /// keeping code that is already there unless it is baseline code and
    /// `jit` is Cranelift's.
    fn install(&self, jit: Arc<Sendable>, root: u32, codegen: CodeGen) {
        let Ok(mut slots) = self.slots.lock() else {
            return;
        };
        for (f, slot) in slots.iter_mut().enumerate() {
            let better = match slot {
                None => true,
                Some(n) => n.codegen == CodeGen::Baseline && codegen == CodeGen::Cranelift,
            };
            if !better {
                continue;
            }
            if let Some(code) = jit.0.functions.get(f).copied().flatten() {
                *slot = Some(Native {
                    jit: jit.clone(),
                    root,
                    code,
                    codegen,
                });
                if codegen == CodeGen::Cranelift {
                    if let Some(r) = self.requested.get(f) {
                        r.store(true, Ordering::Relaxed);
                    }
                    if let Some(r) = self.ready.get(f) {
                        r.store(1, Ordering::Release);
                    }
                }
                if let Some(r) = self.requested_baseline.get(f) {
                    r.store(true, Ordering::Relaxed);
                }
            }
        }
        self.generation.fetch_add(1, Ordering::Release);
    }
}

/// What the tiered programs made from one program share (a program and
/// its [`TieredProgram::sibling`]s): the program, the facts native code
/// relies on, and every closure compiled so far.
struct Common {
    program: Program,
    /// What native code relies on ([`Common::native_facts`]), made when
    /// native code first runs: a program that never gets hot does not
    /// pay for it.
    native_facts: OnceLock<(ListFacts, Memory, Vec<u32>)>,
    /// The compilation of each function's closure by each generator
    /// ([`JitProgram::compile_closure`] of that one root), made once and
    /// installed in every table that asks for it; `None` when the closure
    /// cannot be compiled.
    closures: Closures,
    /// How many closures were compiled (by all siblings).
    compilations: AtomicU64,
}

impl Common {
    /// The facts compiled code relies on (which lists it folds), the
    /// module's initial memory, which an instance's memory must match in
    /// layout before native code runs on it, and the lists whose fills
    /// Cranelift's code defers.
    fn native_facts(&self) -> &(ListFacts, Memory, Vec<u32>) {
        self.native_facts.get_or_init(|| {
            (
                list_facts(&self.program),
                Memory::new(self.program.module()),
                crate::analysis::deferred::deferred_lists(&self.program),
            )
        })
    }

    /// The compiled closure of `func`: compiled now, or taken from an
    /// earlier compilation (compilation is a function of the program and
    /// the root alone, so the code is the same either way).
    fn closure(&self, func: u32, codegen: CodeGen) -> Option<Arc<Sendable>> {
        let cell = self.closures.get(closure_slot(func, codegen))?;
        if let Some(done) = cell.get() {
            return done.clone();
        }
        // Compiled before the cell is set, not inside its initialiser, so
        // that siblings on other threads never wait for each other; a race
        // compiles twice and keeps the first.
        let compiled = match codegen {
            CodeGen::Cranelift => JitProgram::compile_closure(&self.program, &[func]),
            CodeGen::Baseline => JitProgram::compile_closure_baseline(&self.program, &[func]),
        };
        let jit = compiled.ok().map(|jit| Arc::new(Sendable(jit)));
        self.compilations.fetch_add(1, Ordering::Relaxed);
        cell.get_or_init(|| jit).clone()
    }

    /// The compiled closure of `root` by `codegen`, when it was compiled:
    /// borrowed for as long as the program (a closure, once made, is never
    /// replaced or freed before the program).
    fn closure_program(&self, root: u32, codegen: CodeGen) -> Option<&JitProgram> {
        let cell = self.closures.get(closure_slot(root, codegen))?;
        cell.get()?.as_deref().map(|s| &s.0)
    }
}

/// Marks function `func` as asked for in `flags`; true the first time
/// only (and false for a function out of range).
fn first_request(flags: &[AtomicBool], func: u32) -> bool {
    let Some(flag) = flags.get(func as usize) else {
        return false;
    };
    // A plain load first: a hot function is asked for at every call after
    // its threshold, and a swap would write each time.
    !(flag.load(Ordering::Relaxed) || flag.swap(true, Ordering::Relaxed))
}

/// Compiles the closure of `func` with `codegen` (or takes a sibling's)
/// and installs it in `table`; a closure that cannot be compiled leaves
/// the function where it runs now.
fn compile_and_install(common: &Common, table: &Table, func: u32, codegen: CodeGen) {
    if let Some(jit) = common.closure(func, codegen) {
        table.install(jit, func, codegen);
    }
}

/// The background compiler: a thread taking function indices.
struct Worker {
    requests: Sender<u32>,
    thread: JoinHandle<()>,
}

/// A program prepared for the tiered backend. Instances
/// ([`TieredProgram::instance`]) share the code compiled for any of them.
///
/// ```
/// use cvm::{asm, CollectOutput, NoHost, Program, Vm};
/// use jit::{TierConfig, TieredProgram};
///
/// let program = Program::new(asm::assemble("
/// .entry main
/// .func main params 0 lists 0 locals 0 stack 1 value
///     push 7
///     retv
/// .end
/// ").unwrap()).unwrap();
/// let tiered = TieredProgram::new(program, TierConfig { call_threshold: 1, background: false, ..TierConfig::DEFAULT });
/// let mut vm = tiered.instance();
/// for _ in 0..3 {
///     let done = vm.run_entry(&mut NoHost, &mut CollectOutput::default()).unwrap();
///     assert_eq!(done.value(), Some(7));
/// }
/// assert!(vm.ran_compiled());
/// ```
pub struct TieredProgram {
    common: Arc<Common>,
    config: TierConfig,
    table: Arc<Table>,
    worker: Mutex<Option<Worker>>,
}

impl std::fmt::Debug for TieredProgram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TieredProgram")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl Drop for TieredProgram {
    fn drop(&mut self) {
        let worker = match self.worker.get_mut() {
            Ok(w) => w.take(),
            Err(poisoned) => poisoned.into_inner().take(),
        };
        if let Some(Worker { requests, thread }) = worker {
            // Closing the channel ends the thread after its current job;
            // it is not waited for (the embedder should not pay for a
            // compilation nobody will use), and what it compiles is freed
            // with the table, which it holds alive until then.
            drop(requests);
            drop(thread);
        }
    }
}

impl TieredProgram {
    /// Prepares `program`; nothing is compiled or analysed yet (the
    /// analysis native code needs is made when a function first gets
    /// hot).
    pub fn new(program: Program, config: TierConfig) -> TieredProgram {
        let slots = program.module().functions.len() * 2;
        let common = Common {
            native_facts: OnceLock::new(),
            program,
            closures: (0..slots).map(|_| OnceLock::new()).collect(),
            compilations: AtomicU64::new(0),
        };
        TieredProgram::with_common(Arc::new(common), config)
    }

    /// A new tiered program of the same program with `config`: its own
    /// call counters and code table, so it starts on the interpreter with
    /// nothing compiled, but a function it compiles whose closure this
    /// program or another sibling compiled before takes that code instead
    /// of compiling it again (and what it compiles, they can take). For
    /// embedders and tests that try many configurations of one program,
    /// such as every forced switch point.
    ///
    /// ```
    /// use cvm::{asm, CollectOutput, NoHost, Program, Vm};
    /// use jit::{TierConfig, TieredProgram};
    ///
    /// let program = Program::new(asm::assemble("
    /// .entry main
    /// .func main params 0 lists 0 locals 0 stack 1 value
    ///     push 7
    ///     retv
    /// .end
    /// ").unwrap()).unwrap();
    /// let first = TieredProgram::new(program, TierConfig::switch_at(0));
    /// let second = first.sibling(TierConfig::switch_at(1));
    /// let mut vm = second.instance();
    /// vm.run_entry(&mut NoHost, &mut CollectOutput::default()).unwrap();
    /// assert!(!vm.ran_compiled());
    /// let done = vm.run_entry(&mut NoHost, &mut CollectOutput::default()).unwrap();
    /// assert_eq!(done.value(), Some(7));
    /// assert!(vm.ran_compiled());
    /// ```
    pub fn sibling(&self, config: TierConfig) -> TieredProgram {
        TieredProgram::with_common(Arc::clone(&self.common), config)
    }

    fn with_common(common: Arc<Common>, config: TierConfig) -> TieredProgram {
        let n = common.program.module().functions.len();
        TieredProgram {
            common,
            config,
            table: Arc::new(Table {
                generation: AtomicU64::new(0),
                slots: Mutex::new(vec![None; n]),
                requested: (0..n).map(|_| AtomicBool::new(false)).collect(),
                requested_baseline: (0..n).map(|_| AtomicBool::new(false)).collect(),
                calls: (0..n).map(|_| AtomicU32::new(0)).collect(),
                fuel: (0..n).map(|_| AtomicU64::new(0)).collect(),
                ready: (0..n).map(|_| AtomicU8::new(0)).collect(),
                entry_switches: AtomicU64::new(0),
            }),
            worker: Mutex::new(None),
        }
    }

    /// The program.
    pub fn program(&self) -> &Program {
        &self.common.program
    }

    /// The thresholds.
    pub fn config(&self) -> TierConfig {
        self.config
    }

    /// How many functions have native code by now.
    pub fn compiled_functions(&self) -> usize {
        self.table
            .slots
            .lock()
            .map(|s| s.iter().filter(|n| n.is_some()).count())
            .unwrap_or(0)
    }

    /// How many functions have native code made by `codegen` by now.
    pub fn functions_on(&self, codegen: CodeGen) -> usize {
        self.table
            .slots
            .lock()
            .map(|s| {
                s.iter()
                    .filter(|n| n.as_ref().is_some_and(|n| n.codegen == codegen))
                    .count()
            })
            .unwrap_or(0)
    }

    /// Whether Cranelift's code for `func` was asked for and has not
    /// arrived yet.
    fn cranelift_on_its_way(&self, func: u32) -> bool {
        let f = func as usize;
        self.table
            .requested
            .get(f)
            .is_some_and(|r| r.load(Ordering::Relaxed))
            && self
                .table
                .ready
                .get(f)
                .is_some_and(|r| r.load(Ordering::Acquire) == 0)
    }

    /// Which generator made the native code function `func` has by now
    /// (`None`: none yet, or no such function).
    pub fn codegen_of(&self, func: u32) -> Option<CodeGen> {
        let slots = self.table.slots.lock().ok()?;
        slots.get(func as usize)?.as_ref().map(|n| n.codegen)
    }

    /// How many calls made by running baseline code were handed to
    /// Cranelift's code at their entry, because that code had arrived.
    pub fn entry_switches(&self) -> u64 {
        self.table.entry_switches.load(Ordering::Relaxed)
    }

    /// How many closures this program and its [`sibling`](Self::sibling)s
    /// have compiled so far (a closure another one compiled before is taken,
    /// not compiled again).
    pub fn compilations(&self) -> u64 {
        self.common.compilations.load(Ordering::Relaxed)
    }

    /// A new instance: the module's initial memory, an empty advice table,
    /// the default limits, running on the interpreter until code arrives.
    pub fn instance(&self) -> TieredInstance<'_> {
        let n = self.common.program.module().functions.len();
        TieredInstance {
            tier: self,
            interp: Interpreter::new(&self.common.program),
            state: State {
                native: vec![None; n],
                generation: 0,
                events: 0,
                back_edges: 0,
                outer: 0,
                weight: 1,
            },
            memory_touched: false,
            ran_compiled: false,
            fuel_used: 0,
            jits: Vec::new(),
            holder: None,
            route: None,
        }
    }

    /// Asks for function `func` (and its callees) to be compiled by
    /// Cranelift: on the background thread, or here when the configuration
    /// says so or no thread can be started. Each function is asked for
    /// once.
    fn request(&self, func: u32, synchronous: bool) {
        if !first_request(&self.table.requested, func) {
            return;
        }
        if !synchronous && self.config.background && self.send(func) {
            return;
        }
        compile_and_install(&self.common, &self.table, func, CodeGen::Cranelift);
    }

    /// Compiles function `func` (and its callees) with the baseline
    /// generator, here and now, unless it was asked for before or has
    /// code already.
    fn request_baseline(&self, func: u32) {
        if first_request(&self.table.requested_baseline, func) {
            compile_and_install(&self.common, &self.table, func, CodeGen::Baseline);
        }
    }

    /// The forced switch of [`TierConfig::switch_at`]: `func` compiled by
    /// the configured generator, synchronously.
    fn force(&self, func: u32) {
        match self.config.switch_codegen {
            CodeGen::Cranelift => self.request(func, true),
            CodeGen::Baseline => self.request_baseline(func),
        }
    }

    /// Hands `func` to the background compiler, starting it if needed;
    /// false when no thread could be started.
    fn send(&self, func: u32) -> bool {
        let Ok(mut worker) = self.worker.lock() else {
            return false;
        };
        if worker.is_none() {
            let (requests, jobs) = mpsc::channel::<u32>();
            let common = Arc::clone(&self.common);
            let table = Arc::clone(&self.table);
            let spawned = std::thread::Builder::new()
                .name("cvm-tier-compiler".into())
                .spawn(move || {
                    // The interpreter keeps running beside this thread:
                    // leave it a core.
                    crate::define::leave_a_core();
                    for func in jobs {
                        compile_and_install(&common, &table, func, CodeGen::Cranelift);
                    }
                });
            match spawned {
                Ok(thread) => *worker = Some(Worker { requests, thread }),
                Err(_) => return false,
            }
        }
        worker
            .as_ref()
            .is_some_and(|w| w.requests.send(func).is_ok())
    }
}

/// An instance's view of the tiers: its copy of the code table. (The
/// hotness counters are the program's, shared by its instances, so that
/// an embedder making a new instance per search still sees its function
/// get hot.)
struct State {
    native: Vec<Option<Native>>,
    generation: u64,
    /// Calls of this instance so far (for [`TierConfig::switch_at`]).
    events: u64,
    /// Back edges offered so far (for [`TierConfig::switch_at_back_edge`]).
    back_edges: u64,
    /// The embedder's calls of this instance so far.
    outer: u64,
    /// What each call the hook sees counts for: [`SAMPLE_EVERY`] in a
    /// sampled run, else 1.
    weight: u32,
}

/// Before any native code exists, one embedder's call in this many runs
/// with the call-dispatch hook, whose calls then count this many times
/// each; the others run on the plain interpreter (the embedder's call
/// itself is always counted). Counting every call costs the interpreter
/// a sixth of the time of a short run such as the bundled program's
/// `main()`; thresholds need no exact count (`docs/jit.md`, "The tiered
/// backend"). The first call is always sampled, so a long first run can
/// still switch in the middle. Not with [`TierConfig::switch_at`] or
/// without background compilation, which count every call.
pub const SAMPLE_EVERY: u32 = 8;

impl State {
    /// Counts a call of `func`, asks for compilation when it is hot (or at
    /// the forced switch point), and picks up code compiled since.
    fn note_call(&mut self, tier: &TieredProgram, func: u32, weight: u32) {
        let event = self.events;
        self.events += 1;
        match tier.config.switch_at {
            Some(at) => {
                if event == at {
                    tier.force(func);
                }
            }
            None if tier.config.forced() => {}
            None => {
                if let Some(c) = tier.table.calls.get(func as usize) {
                    let n = c.load(Ordering::Relaxed).saturating_add(weight);
                    c.store(n, Ordering::Relaxed);
                    if n > tier.config.call_threshold {
                        tier.request(func, false);
                    } else if n > tier.config.baseline_call_threshold {
                        tier.request_baseline(func);
                    }
                }
            }
        }
        self.refresh(tier);
    }

    /// Counts a back edge offered in a loop of `func` (the fuel of
    /// [`LOOP_CHECK`] units spent since the last), asks for compilation
    /// when the function is hot (or at the forced switch point), and picks
    /// up code compiled since.
    fn note_back_edge(&mut self, tier: &TieredProgram, func: u32) {
        let edge = self.back_edges;
        self.back_edges += 1;
        match tier.config.switch_at_back_edge {
            Some(at) => {
                if edge == at {
                    tier.force(func);
                }
            }
            None if tier.config.forced() => {}
            None => self.note_spent(tier, func, LOOP_CHECK),
        }
        self.refresh(tier);
    }

    /// Counts fuel spent by an embedder's call of `func`.
    fn note_fuel(&mut self, tier: &TieredProgram, func: u32, used: u64) {
        if tier.config.forced() {
            return;
        }
        self.note_spent(tier, func, used);
    }

    /// Counts `used` units of fuel spent in `func` (by an embedder's call
    /// of it, or in its loops) and asks for its compilation when that
    /// crosses a threshold.
    fn note_spent(&mut self, tier: &TieredProgram, func: u32, used: u64) {
        tier.spent(func, used);
    }

    /// Copies the shared code table when it changed.
    fn refresh(&mut self, tier: &TieredProgram) {
        let now = tier.table.generation.load(Ordering::Acquire);
        if now == self.generation {
            return;
        }
        if let Ok(slots) = tier.table.slots.lock() {
            self.native.clone_from(&slots);
            self.generation = now;
        }
    }
}

impl TieredProgram {
    /// Counts `used` units of fuel spent in `func` (by an embedder's call
    /// of it, or in its loops) and asks for its compilation when that
    /// crosses a threshold.
    fn spent(&self, func: u32, used: u64) {
        let tier = self;
        if let Some(f) = tier.table.fuel.get(func as usize) {
            let spent = f.load(Ordering::Relaxed).saturating_add(used);
            f.store(spent, Ordering::Relaxed);
            // Baseline code only while Cranelift's is not on its way, or
            // when both thresholds are crossed by the same run (a long
            // run: the next one takes the baseline code while Cranelift
            // compiles).
            let cranelift_asked = tier
                .table
                .requested
                .get(func as usize)
                .is_some_and(|r| r.load(Ordering::Relaxed));
            if spent > tier.config.baseline_fuel_threshold && !cranelift_asked {
                tier.request_baseline(func);
                if tier.config.background {
                    tier.request(func, false);
                }
            }
            if spent > tier.config.fuel_threshold {
                tier.request(func, false);
            }
        }
    }
}

impl crate::context::BetterCode for TieredProgram {
    /// Cranelift's code of `func` in the table; a poll of baseline code
    /// counts as [`LOOP_CHECK`] units spent in `func` (a back edge charges
    /// at least one), which may ask for that code.
    fn with_better(
        &self,
        func: u32,
        run: &mut dyn FnMut(&JitProgram, CompiledFn) -> i64,
    ) -> Option<i64> {
        if !self.config.forced() {
            self.spent(func, LOOP_CHECK);
        }
        let native = self
            .table
            .slots
            .lock()
            .ok()?
            .get(func as usize)?
            .as_ref()
            .filter(|n| n.codegen == CodeGen::Cranelift)?
            .clone();
        Some(run(&native.jit.0, native.code))
    }

    fn ready(&self) -> &[AtomicU8] {
        &self.table.ready
    }

    fn switched(&self, at_entry: bool) {
        if at_entry {
            self.table.entry_switches.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// Between two offers of a back edge, the interpreter of a tiered
/// instance spends this much fuel (`cvm::dispatch`): each offer counts as
/// this much fuel spent in the loop's function towards its thresholds,
/// and continues a frame on native code when its function has some.
pub const LOOP_CHECK: u64 = 4096;

/// Runs `native` for a call with `fuel` and `depth_left`, when the native
/// stack can hold it (else `None`: the caller interprets the call); with
/// `osr`, the frame whose state it holds from a loop header on instead.
#[allow(clippy::too_many_arguments)]
fn run_native(
    native: &Native,
    func: u32,
    args: &[i32],
    osr: Option<&[i32]>,
    better: &dyn crate::context::BetterCode,
    fuel: u64,
    depth_left: u32,
    max_depth: u32,
    memory: &mut Memory,
    advice: &mut AdviceTable,
    host: &mut dyn Host,
    output: &mut dyn Output,
) -> Option<Handled> {
    let jit = &native.jit.0;
    let frames = match jit.depth_bounds.get(func as usize).copied().flatten() {
        Some(bound) => bound.min(depth_left),
        None => depth_left,
    };
    let bytes = stack::need(u64::from(frames), jit.max_frame)?;
    let capped = i64::try_from(fuel).unwrap_or(i64::MAX);
    if !native.code.runs_with(capped) {
        // Code that proves its fuel at entry, with too little of it.
        return None;
    }
    let run = Run {
        jit,
        compiled: native.code,
        args,
        fuel: capped,
        depth_left,
        max_depth,
        osr,
        better: (native.codegen == CodeGen::Baseline).then_some(better),
        returns: jit.program.module().functions[func as usize].returns_value,
    };
    let handled = if stack::enough_here(bytes) {
        run.enter(memory, advice, host, output).0
    } else {
        stack::with_stack(bytes, || run.enter(memory, advice, host, output).0)?
    };
    // Fuel beyond `i64::MAX` was never offered to compiled code: what it
    // left is counted from what it got.
    let rebase = |left: u64| fuel - (capped as u64 - left.min(capped as u64));
    Some(match handled {
        Handled::Returned { value, fuel_left } => Handled::Returned {
            value,
            fuel_left: rebase(fuel_left),
        },
        Handled::Halted { fuel_left } => Handled::Halted {
            fuel_left: rebase(fuel_left),
        },
        Handled::Trapped {
            kind,
            offset,
            fuel_left,
        } => Handled::Trapped {
            kind,
            offset,
            fuel_left: rebase(fuel_left),
        },
    })
}

/// The interpreter's call-dispatch hook of a tiered instance.
struct Dispatch<'a> {
    tier: &'a TieredProgram,
    state: &'a mut State,
    /// The embedder's call this run serves: what decides whether native
    /// code may run in it ([`native_allowed`]).
    outer: (u32, &'a [i32]),
    /// The instance's `memory_touched`.
    touched: &'a mut bool,
    /// Whether native code may run in this run: decided when native code
    /// is first found for a call (`None` until then), so that a run that
    /// finds none never pays for the check or the facts it needs.
    allowed: Option<bool>,
    /// Whether any call went to native code.
    ran_native: bool,
}

impl CallHook for Dispatch<'_> {
    fn call(&mut self, site: CallSite<'_>) -> Option<Handled> {
        self.state
            .note_call(self.tier, site.func, self.state.weight);
        let native = self.state.native.get(site.func as usize)?.as_ref()?;
        // The decision depends on the embedder's call and on memory as the
        // embedder left it, which interpreted code cannot change in a way
        // that matters (it never writes a list compiled code folds, except
        // through a list the embedder passed, which the check looks at): it
        // is the same now as at the start of the run.
        let (tier, touched, outer) = (self.tier, &mut *self.touched, self.outer);
        if !*self
            .allowed
            .get_or_insert_with(|| native_allowed(tier, site.memory, touched, outer))
        {
            return None;
        }
        let handled = run_native(
            native,
            site.func,
            site.args,
            None,
            self.tier,
            site.fuel,
            site.depth_left,
            site.max_depth,
            site.memory,
            site.advice,
            site.host,
            site.output,
        )?;
        self.ran_native = true;
        Some(handled)
    }

    fn back_edge_interval(&self) -> Option<u64> {
        if self.tier.config.switch_at_back_edge.is_some() {
            Some(0)
        } else if self.tier.config.forced() {
            None
        } else {
            Some(LOOP_CHECK)
        }
    }

    fn back_edge(&mut self, site: LoopSite<'_>) -> Option<Handled> {
        self.state.note_back_edge(self.tier, site.func);
        let native = self.state.native.get(site.func as usize)?.as_ref()?;
        let program = &self.tier.common.program;
        let f = &program.module().functions[site.func as usize];
        let info = program.function_info(site.func);
        if !native.jit.0.osr
            || crate::shared::osr_heads(f, info)
                .binary_search(&site.target)
                .is_err()
        {
            return None;
        }
        let (tier, touched, outer) = (self.tier, &mut *self.touched, self.outer);
        if !*self
            .allowed
            .get_or_insert_with(|| native_allowed(tier, site.memory, touched, outer))
        {
            return None;
        }
        let mut state = Vec::with_capacity(1 + site.frame.len() + site.stack.len());
        state.push(site.target as i32);
        state.extend_from_slice(site.frame);
        state.extend_from_slice(site.stack);
        let args = vec![0; f.arity() as usize];
        let handled = run_native(
            native,
            site.func,
            &args,
            Some(&state),
            self.tier,
            site.fuel,
            site.depth_left,
            site.max_depth,
            site.memory,
            site.advice,
            site.host,
            site.output,
        )?;
        self.ran_native = true;
        Some(handled)
    }
}

/// One instance of a [`TieredProgram`]: an interpreter whose hot functions
/// run native code once compiled. Implements [`Vm`] like the other
/// backends.
pub struct TieredInstance<'t> {
    tier: &'t TieredProgram,
    interp: Interpreter<'t>,
    state: State,
    /// Set when the embedder may have changed memory directly (or an
    /// interpreted call could write a folded list); the next call checks
    /// the layout and the constant lists before running native code.
    memory_touched: bool,
    ran_compiled: bool,
    fuel_used: u64,
    /// Instances of native code, one per compiled closure the embedder's
    /// calls reached (by the closure's root and generator): once a function
    /// the embedder calls has native code, its calls run there as on the
    /// JIT backend, with the memory and advice table moved over.
    jits: Vec<((u32, CodeGen), JitInstance<'t>)>,
    /// Which of `jits` holds the live memory and advice table (`None`: the
    /// interpreter, where every other instance keeps a stale one).
    holder: Option<usize>,
    /// The last function whose call went to native code in `jits`, where,
    /// and whose code it was. A function keeps Cranelift's code once it
    /// has it, and baseline code until Cranelift's arrives; once that was
    /// asked for, counting the calls serves nothing: so the next call of
    /// the same function goes there again without a look at the code table
    /// or the counters, unless Cranelift's code for it has arrived since.
    route: Option<(u32, usize, CodeGen)>,
}

impl std::fmt::Debug for TieredInstance<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TieredInstance")
            .field("fuel_used", &self.fuel_used)
            .field("ran_compiled", &self.ran_compiled)
            .finish_non_exhaustive()
    }
}

impl<'t> TieredInstance<'t> {
    /// The instance of native code (in `jits`, made now if need be) that
    /// runs the embedder's calls of `func` once the function has native
    /// code, and which generator made it; `None` before, and always under a
    /// forced switch point, whose counts every call must go through. A
    /// function on baseline code has the call counted first (which may
    /// bring Cranelift's code, compiled here without background
    /// compilation).
    fn native_for(&mut self, func: u32) -> Option<(usize, CodeGen)> {
        let tier: &'t TieredProgram = self.tier;
        if tier.config.forced() {
            return None;
        }
        self.state.refresh(tier);
        let mut native = self.state.native.get(func as usize)?.as_ref()?;
        if native.codegen == CodeGen::Baseline {
            self.state.note_call(tier, func, 1);
            native = self.state.native.get(func as usize)?.as_ref()?;
        }
        let key = (native.root, native.codegen);
        if let Some(i) = self.jits.iter().position(|(k, _)| *k == key) {
            return Some((i, key.1));
        }
        let jit = tier.common.closure_program(key.0, key.1)?;
        let instance = match key.1 {
            CodeGen::Cranelift => jit.instance(),
            // Its frames find Cranelift's code in the tier's table, at
            // calls and back edges, as baseline code run by the tiered
            // path does.
            CodeGen::Baseline => JitInstance::with_better(jit, tier),
        };
        self.jits.push((key, instance));
        Some((self.jits.len() - 1, key.1))
    }

    /// Moves the live memory and advice table to `to` (`None`: the
    /// interpreter), without copying them.
    fn hold_in(&mut self, to: Option<usize>) {
        if self.holder == to {
            return;
        }
        if let Some(from) = self.holder.take() {
            self.jits[from].1.swap_with(&mut self.interp, false);
        }
        if let Some(to) = to {
            self.jits[to]
                .1
                .swap_with(&mut self.interp, self.memory_touched);
            self.holder = Some(to);
        }
    }

    /// The embedder's call of `func` on `jits[i]`, which holds the live
    /// state, as the JIT backend makes it.
    #[inline]
    fn call_on(
        &mut self,
        i: usize,
        func: u32,
        args: &[i32],
        host: &mut dyn Host,
        output: &mut dyn Output,
    ) -> Result<Completion, RuntimeError> {
        let limits = self.interp.limits();
        let jit = &mut self.jits[i].1;
        jit.set_limits(limits);
        let result = jit.call(func, args, host, output);
        self.ran_compiled = jit.ran_compiled();
        self.fuel_used = jit.fuel_used();
        result
    }
}

/// Whether native code may run the embedder's call `(func, args)` on
/// `memory`: the layout is the module's, the lists compiled code folds
/// into constants hold their initial values and stay that way, and no list
/// whose fills compiled code defers is passed (the rules of `JitInstance`,
/// `docs/jit.md`, "Fallbacks").
fn native_allowed(
    tier: &TieredProgram,
    memory: &Memory,
    touched: &mut bool,
    (func, args): (u32, &[i32]),
) -> bool {
    let (facts, init, deferred) = tier.common.native_facts();
    if *touched && !memory.same_layout(init) {
        return false;
    }
    if passes_deferred(deferred, tier.common.program.module(), (func, args)) {
        return false;
    }
    constants_intact(
        facts,
        init,
        tier.common.program.module(),
        memory,
        touched,
        (func, args),
    )
}

impl Vm for TieredInstance<'_> {
    fn backend(&self) -> Backend {
        Backend::Auto
    }

    fn program(&self) -> &Program {
        &self.tier.common.program
    }

    fn set_limits(&mut self, limits: Limits) {
        self.interp.set_limits(limits);
    }

    fn limits(&self) -> Limits {
        self.interp.limits()
    }

    fn fuel_used(&self) -> u64 {
        self.fuel_used
    }

    /// Whether the last call ran any native code (all of it, or calls the
    /// interpreter handed over).
    fn ran_compiled(&self) -> bool {
        self.ran_compiled
    }

    fn memory(&self) -> &Memory {
        match self.holder {
            Some(i) => self.jits[i].1.memory(),
            None => self.interp.memory(),
        }
    }

    fn memory_mut(&mut self) -> &mut Memory {
        self.memory_touched = true;
        match self.holder {
            Some(i) => self.jits[i].1.memory_mut(),
            None => self.interp.memory_mut(),
        }
    }

    fn advice(&self) -> &AdviceTable {
        match self.holder {
            Some(i) => self.jits[i].1.advice(),
            None => self.interp.advice(),
        }
    }

    fn advice_mut(&mut self) -> &mut AdviceTable {
        match self.holder {
            Some(i) => self.jits[i].1.advice_mut(),
            None => self.interp.advice_mut(),
        }
    }

    fn reset(&mut self) {
        match self.holder {
            Some(i) => self.jits[i].1.reset(),
            None => self.interp.reset(),
        }
        self.memory_touched = true;
    }

    fn call(
        &mut self,
        func: u32,
        args: &[i32],
        host: &mut dyn Host,
        output: &mut dyn Output,
    ) -> Result<Completion, RuntimeError> {
        if let Some((f, i, codegen)) = self.route {
            if f == func
                && self.holder == Some(i)
                && (codegen == CodeGen::Cranelift || self.tier.cranelift_on_its_way(func))
            {
                return self.call_on(i, func, args, host, output);
            }
        }
        self.ran_compiled = false;
        let tier = self.tier;
        if let Some((i, codegen)) = self.native_for(func) {
            self.hold_in(Some(i));
            self.route = Some((func, i, codegen));
            if codegen == CodeGen::Cranelift {
                return self.call_on(i, func, args, host, output);
            }
            // Baseline code: the call and its fuel count towards
            // Cranelift's thresholds, as an interpreted call's do.
            let result = self.call_on(i, func, args, host, output);
            self.state.note_fuel(tier, func, self.fuel_used);
            return result;
        }
        self.hold_in(None);
        let module = tier.common.program.module();
        check_call_args(module, func, args)?;
        // As on the interpreter: a call past the argument check that stops
        // at its entry (the entry's fuel cannot be paid) has spent nothing.
        self.fuel_used = 0;
        self.state.note_call(tier, func, 1);
        let sampling =
            self.state.generation == 0 && tier.config.background && !tier.config.forced();
        let sampled = !sampling || self.state.outer % u64::from(SAMPLE_EVERY) == 0;
        self.state.outer += 1;
        self.state.weight = if sampling { SAMPLE_EVERY } else { 1 };
        let has_native = self
            .state
            .native
            .get(func as usize)
            .is_some_and(|n| n.is_some());
        let result = if !sampled {
            // Nothing compiled yet and not a sampled run: the plain
            // interpreter. It may write a folded list through a list the
            // embedder passed.
            if args.len() > module.functions[func as usize].value_params as usize {
                self.memory_touched = true;
            }
            let result = self.interp.call(func, args, host, output);
            self.fuel_used = self.interp.fuel_used();
            result
        } else if !has_native {
            // Interpreted, with the hook: it counts the calls and hands a
            // callee with native code to it, once the check (made then,
            // see `Dispatch::allowed`) allows.
            let mut hook = Dispatch {
                tier,
                state: &mut self.state,
                outer: (func, args),
                touched: &mut self.memory_touched,
                allowed: None,
                ran_native: false,
            };
            let result = self
                .interp
                .call_dispatched(func, args, host, output, &mut hook);
            self.ran_compiled = hook.ran_native;
            let value_params = module.functions[func as usize].value_params as usize;
            if hook.allowed.is_none() && args.len() > value_params {
                // Not checked: the run may have written a folded list
                // through a list the embedder passed, so the next check
                // looks at the lists. (A check that was made marked it
                // already where needed.)
                self.memory_touched = true;
            }
            self.fuel_used = self.interp.fuel_used();
            result
        } else if !native_allowed(
            tier,
            self.interp.memory(),
            &mut self.memory_touched,
            (func, args),
        ) {
            // The interpreter alone: it may write a folded list.
            self.memory_touched = true;
            let result = self.interp.call(func, args, host, output);
            self.fuel_used = self.interp.fuel_used();
            result
        } else {
            let limits = self.interp.limits();
            let limit = limits.fuel.unwrap_or(u64::MAX);
            // The entry charges as a call would, on every backend.
            let fuel = tier.common.program.charge_entry(func, limit)?;
            let max_depth = limits.max_depth.max(1);
            let native = self.state.native[func as usize].as_ref();
            let (memory, advice) = self.interp.memory_and_advice_mut();
            let handled = native.and_then(|n| {
                run_native(
                    n, func, args, None, tier, fuel, max_depth, max_depth, memory, advice, host,
                    output,
                )
            });
            match handled {
                Some(handled) => {
                    self.ran_compiled = true;
                    let (result, left) = match handled {
                        Handled::Returned { value, fuel_left } => {
                            (Ok(Completion::Returned(value)), fuel_left)
                        }
                        Handled::Halted { fuel_left } => (Ok(Completion::Halted), fuel_left),
                        Handled::Trapped {
                            kind,
                            offset,
                            fuel_left,
                        } => (Err(RuntimeError::new(kind, offset, module)), fuel_left),
                    };
                    self.fuel_used = limit - left;
                    result
                }
                None => {
                    // The check was made above and allowed native code.
                    let mut hook = Dispatch {
                        tier,
                        state: &mut self.state,
                        outer: (func, args),
                        touched: &mut self.memory_touched,
                        allowed: Some(true),
                        ran_native: false,
                    };
                    let result = self
                        .interp
                        .call_dispatched(func, args, host, output, &mut hook);
                    self.ran_compiled = hook.ran_native;
                    self.fuel_used = self.interp.fuel_used();
                    result
                }
            }
        };
        self.state.note_fuel(tier, func, self.fuel_used);
        result
    }
}
