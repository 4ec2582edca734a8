//! Compiling a whole verified program into one block of native code.
//!
//! [`JitProgram::compile`] declares every CVM function as a Cranelift
//! function (so calls between them are direct calls, recursion included),
//! lowers each one (the `lower` module), links the shims by name and
//! finalizes the code. What is the same for every program is made once per
//! process: the host's instruction set (target detection and settings) and
//! one entry trampoline per arity (the embedder's way in: it unpacks an
//! argument array and calls through a function pointer). The
//! result is immutable and can back any number of instances; dropping it
//! frees the code.

use crate::context::offsets;
use crate::define::{Compiled, Shared};
use crate::error::JitError;
use crate::lower::cvm_signature;
pub use crate::shared::FunctionListing;
#[cfg(feature = "measure-unchecked")]
pub use crate::shared::Unchecked;
use crate::shared::{
    declare_shims, host_isa, link_error, Checks, CompiledFn, Facts, ShimIds, FRAME_SETUP, PTR,
};
use crate::shims;
use cranelift_codegen::ir::{types, AbiParam, InstBuilder, MemFlagsData, UserFuncName};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{default_libcall_names, FuncId, Linkage, Module};
use cvm::intrinsics::ListWork;
use cvm::ListFacts;
use cvm::{Memory, Program, ResetPlan};
use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Figures about one compilation.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct CompileStats {
    /// CVM functions compiled.
    pub functions: usize,
    /// CVM instructions in them (reachable or not).
    pub instructions: usize,
    /// Intrinsic calls compiled to native code (chess patterns on constant
    /// lists, pure functions of constants) instead of shim calls.
    pub native_intrinsics: usize,
    /// Calls spliced: lowered as the callee's body instead of a native
    /// call (`docs/jit.md`, "Spliced calls").
    pub spliced_calls: usize,
    /// Lowered instructions the spliced bodies added (their loops' fast
    /// copies counted), at most `instructions + 256`.
    pub spliced_instructions: usize,
    /// Lowered instructions in all: every function's body, each counted
    /// loop's body once more for each fast copy, and the spliced bodies;
    /// at most `6 * instructions + 256` (`docs/jit.md`, "Bounded cost").
    pub lowered_instructions: usize,
    /// Parameters of all functions together (`A` in the code-size bound).
    pub parameters: usize,
    /// Functions compiled without Cranelift's optimizer: straight-line code
    /// (no loop, also in what is spliced into it, and not recursive), which
    /// runs each instruction at most once per call (`docs/jit.md`, "Two
    /// optimization levels").
    pub unoptimized_functions: usize,
    /// Functions compiled without fuel checks, their fuel proved at entry
    /// instead (`docs/jit.md`, "Fuel proved at entry"): hot straight-line
    /// functions that only the embedder calls and whose every charge (one
    /// at least) is a constant.
    pub fuel_proved_functions: usize,
    /// Bytes of native code produced for the program's functions. (The
    /// entry trampolines, one per arity, are compiled once per process and
    /// shared by every program; they are not counted.)
    pub code_bytes: usize,
    /// Wall-clock time of [`JitProgram::compile`], analysis to finalized
    /// code.
    pub duration: Duration,
}

/// The documented bounds on what the JIT makes of a program of `P` CVM
/// instructions and `A` parameters (`docs/jit.md`, "Bounded cost"):
/// lowered instructions `L <= 6 P + 256`, spliced ones at most `P + 256`,
/// code bytes at most `96 L + 32 A + 1024`.
pub mod bounds {
    use std::time::Duration;

    /// Bytes of machine code per lowered instruction at most ...
    pub const BYTES_PER_LOWERED: usize = 96;
    /// ... plus this many per parameter ...
    pub const BYTES_PER_PARAMETER: usize = 32;
    /// ... plus this many.
    pub const BYTES_CONSTANT: usize = 1024;
    /// Lowered instructions per CVM instruction at most (each once, four
    /// fast copies, one spliced) ...
    pub const LOWERED_PER_INSTRUCTION: usize = 6;
    /// ... plus this many (the splice budget's slack).
    pub const LOWERED_CONSTANT: usize = 256;
    /// The compile-time limit the oracles check, per lowered instruction
    /// (compile time is linear in the lowered instructions, at most
    /// `6 P + 256`, so per CVM instruction it is at most 6 ms plus 356 ms
    /// for the whole program) ... Generous: a release build takes 10 to 60
    /// us per CVM instruction, a fuzz build on a loaded machine about 340
    /// us per lowered one; the runaway splicing of finding 1 took 3.2 s
    /// for 75 CVM instructions.
    pub const TIME_PER_LOWERED: Duration = Duration::from_millis(1);
    /// ... plus this much.
    pub const TIME_CONSTANT: Duration = Duration::from_millis(100);
}

impl CompileStats {
    /// Compile time per CVM instruction, in microseconds.
    pub fn micros_per_instruction(&self) -> f64 {
        self.duration.as_secs_f64() * 1e6 / self.instructions.max(1) as f64
    }

    /// Checks the documented code-size bounds ([`bounds`]): the splice
    /// budget, the lowered instructions and the code bytes; `Err` says
    /// which one failed.
    pub fn check_size(&self) -> Result<(), String> {
        use bounds::*;
        let p = self.instructions;
        if self.spliced_instructions > p + LOWERED_CONSTANT {
            return Err(format!(
                "{} spliced instructions > {p} + {LOWERED_CONSTANT} ({self:?})",
                self.spliced_instructions
            ));
        }
        let lowered = LOWERED_PER_INSTRUCTION * p + LOWERED_CONSTANT;
        if self.lowered_instructions > lowered {
            return Err(format!(
                "{} lowered instructions > {lowered} ({self:?})",
                self.lowered_instructions
            ));
        }
        let bytes = BYTES_PER_LOWERED * self.lowered_instructions
            + BYTES_PER_PARAMETER * self.parameters
            + BYTES_CONSTANT;
        if self.code_bytes > bytes {
            return Err(format!(
                "{} code bytes > {bytes} ({self:?})",
                self.code_bytes
            ));
        }
        Ok(())
    }

    /// The compile-time limit for this program:
    /// [`bounds::TIME_CONSTANT`] plus [`bounds::TIME_PER_LOWERED`] per
    /// lowered instruction.
    pub fn time_limit(&self) -> Duration {
        let per = u32::try_from(self.lowered_instructions).unwrap_or(u32::MAX);
        bounds::TIME_CONSTANT.saturating_add(bounds::TIME_PER_LOWERED.saturating_mul(per))
    }
}

/// A verified program compiled to native code.
///
/// Compile once, then create instances ([`JitProgram::instance`]) to run
/// it; every instance has its own globals, lists and advice table. The code
/// is freed when the `JitProgram` is dropped, which the borrow checker only
/// allows once no instance is left.
///
/// ```
/// use cvm::{asm, Program, NoHost, CollectOutput, Vm};
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
/// let jit = jit::JitProgram::compile(&program).unwrap();
/// let mut vm = jit.instance();
/// let result = vm.call_by_name("main", &[], &mut NoHost, &mut CollectOutput::default()).unwrap();
/// assert_eq!(result.value(), Some(42));
/// ```
pub struct JitProgram {
    pub(crate) program: Program,
    module: Option<JITModule>,
    /// The native code of each CVM function; `None` for the functions a
    /// partial compilation ([`JitProgram::compile_closure`]) left out.
    pub(crate) functions: Vec<Option<CompiledFn>>,
    pub(crate) facts: ListFacts,
    pub(crate) depth_bounds: Vec<Option<u32>>,
    /// The largest native frame of any compiled function, in bytes.
    pub(crate) max_frame: u64,
    /// A fresh instance memory: the template new instances copy and the
    /// layout compiled code was specialised for.
    pub(crate) initial: Memory,
    /// What an instance's reset copies back while only the program wrote
    /// its memory: the globals and the lists the program can write.
    pub(crate) reset_plan: ResetPlan,
    /// [`JitProgram::reset_plan`] without the deferred lists: what a reset
    /// copies back while no deferred list's memory was written
    /// (`crate::deferred::Pending::take_written`).
    pub(crate) reset_plan_kept: ResetPlan,
    /// The lists whose fills Cranelift's code defers
    /// ([`crate::analysis::deferred::deferred_lists`]).
    pub(crate) deferred: Vec<u32>,
    /// The cost terms' work on each list the program never writes, by list
    /// number (`None` for the others): compiled code runs only while those
    /// lists hold their initial contents (`docs/jit.md`, "Fallbacks"), so
    /// the intrinsic shim charges a call on one without reading it.
    pub(crate) measured: Vec<Option<ListWork>>,
    stats: CompileStats,
    /// What compiling the rest on demand needs, after
    /// [`JitProgram::compile_on_demand`]; `None` otherwise.
    on_demand: Option<Box<OnDemand>>,
    /// After [`JitProgram::compile_quick`]: Cranelift's compilation of the
    /// same functions, filled by a background thread; once there, calls
    /// run its code.
    upgrade: Option<Arc<OnceLock<Sendable>>>,
    /// One flag per function, set when [`JitProgram::compile_quick`]'s
    /// Cranelift code for it has arrived (see `Context::ready`).
    ready: Arc<[AtomicU8]>,
    /// Calls that this program's baseline code handed to Cranelift's code
    /// at their entry.
    entry_switches: AtomicU64,
    /// Frames of this program's baseline code that moved to Cranelift's
    /// code at a loop back edge (on-stack replacement).
    back_edge_switches: AtomicU64,
    /// The roots of [`JitProgram::compile_quick`] (empty otherwise).
    quick_roots: Vec<u32>,
    /// Whether the code has entries for on-stack replacement
    /// ([`crate::shared::osr_heads`]).
    pub(crate) osr: bool,
}

/// [`JitProgram::measured`]: the work of each constant list's initial
/// contents.
fn measure_constants(facts: &ListFacts, initial: &Memory) -> Vec<Option<ListWork>> {
    facts
        .constant
        .iter()
        .enumerate()
        .map(|(l, &constant)| constant.then(|| ListWork::of(initial.list(l as u32))))
        .collect()
}

impl crate::context::BetterCode for JitProgram {
    /// Cranelift's code of [`JitProgram::compile_quick`] once it has
    /// arrived.
    fn with_better(
        &self,
        func: u32,
        run: &mut dyn FnMut(&JitProgram, CompiledFn) -> i64,
    ) -> Option<i64> {
        let fast = &self.upgrade.as_deref()?.get()?.0;
        let compiled = fast.functions.get(func as usize).copied().flatten()?;
        Some(run(fast, compiled))
    }

    fn ready(&self) -> &[AtomicU8] {
        &self.ready
    }

    fn switched(&self, at_entry: bool) {
        let count = if at_entry {
            &self.entry_switches
        } else {
            &self.back_edge_switches
        };
        count.fetch_add(1, Ordering::Relaxed);
    }
}

/// A finished compilation that may cross threads.
pub(crate) struct Sendable(pub JitProgram);

// SAFETY: a `JitProgram` is immutable once built: its `JITModule` is not
// touched again until `Drop` frees the code (when the last owner goes, so
// no instance can run it), the function pointers address finalized,
// read-only machine code, and the rest is plain data (the on-demand
// closures are `OnceLock`s). Moving it to another thread or reading it from
// several is therefore sound; the raw pointers and the module's `RefCell`
// are what keep the compiler from seeing that.
unsafe impl Send for Sendable {}
// SAFETY: see `Send`: no method of a finished `JitProgram` mutates through
// a shared reference except by `OnceLock`.
unsafe impl Sync for Sendable {}

/// The functions a [`JitProgram::compile_on_demand`] left out, compiled
/// the first time an instance calls one: the analysis of the whole
/// program (made once, shared by every later compilation) and, per
/// function, the compilation of its closure (`None` inside: it failed, and
/// calls of the function run on the interpreter).
struct OnDemand {
    facts: Facts,
    closures: Box<[OnceLock<Option<Box<JitProgram>>>]>,
    /// The generator of the closures.
    codegen: CodeGen,
    /// The checks they are compiled with.
    checks: Checks,
}

impl std::fmt::Debug for JitProgram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JitProgram")
            .field("functions", &self.functions.len())
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

impl Drop for JitProgram {
    fn drop(&mut self) {
        if let Some(module) = self.module.take() {
            // SAFETY: instances borrow the `JitProgram`, so none is alive
            // any more and no compiled code can run after this point; the
            // function pointers in `self.functions` die with `self`.
            unsafe { module.free_memory() };
        }
    }
}

/// Which code generator turns CVM functions into machine code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum CodeGen {
    /// Lowering to Cranelift IR and Cranelift's compiler: the fast code,
    /// milliseconds per program.
    #[default]
    Cranelift,
    /// The baseline generator (`baseline`): one machine-code template per
    /// CVM instruction, microseconds per program, slower code. x86-64
    /// only.
    Baseline,
}

impl CodeGen {
    /// The generators this host has: Cranelift, and the baseline
    /// generator where [`crate::baseline::supported`].
    pub fn available() -> &'static [CodeGen] {
        if crate::baseline::supported() {
            &[CodeGen::Cranelift, CodeGen::Baseline]
        } else {
            &[CodeGen::Cranelift]
        }
    }
}

/// A Cranelift module for one program, with the shims registered.
fn new_module() -> Result<JITModule, JitError> {
    let mut builder = JITBuilder::with_isa(host_isa()?, default_libcall_names());
    for (name, addr) in shims::symbols() {
        builder.symbol(name, addr);
    }
    Ok(JITModule::new(builder))
}

/// The entry trampolines, one per arity, shared by every program of the
/// process: compiled the first time a program has a function of that
/// arity, into a module that is never freed (its code is a few dozen bytes
/// per arity, and arities are bounded by the module limits).
struct Trampolines {
    module: JITModule,
    /// The finalized trampoline of each arity, as an address.
    entries: HashMap<u32, usize>,
}

/// The entry trampoline of each arity in `arities`, compiled on first use.
fn trampolines(arities: &BTreeSet<u32>) -> Result<HashMap<u32, *const u8>, JitError> {
    static SHARED: Mutex<Option<Trampolines>> = Mutex::new(None);
    let mut guard = SHARED
        .lock()
        .map_err(|_| link_error("a thread panicked while compiling an entry trampoline"))?;
    let shared = match &mut *guard {
        Some(t) => t,
        None => guard.insert(Trampolines {
            module: JITModule::new(JITBuilder::with_isa(host_isa()?, default_libcall_names())),
            entries: HashMap::new(),
        }),
    };
    let missing: Vec<u32> = arities
        .iter()
        .copied()
        .filter(|a| !shared.entries.contains_key(a))
        .collect();
    if !missing.is_empty() {
        let mut ctx = shared.module.make_context();
        let mut fctx = FunctionBuilderContext::new();
        let mut ids = Vec::with_capacity(missing.len());
        for &arity in &missing {
            let id = define_trampoline(&mut shared.module, &mut ctx, &mut fctx, arity)?;
            shared.module.clear_context(&mut ctx);
            ids.push(id);
        }
        shared.module.finalize_definitions().map_err(link_error)?;
        for (&arity, id) in missing.iter().zip(ids) {
            let entry = shared.module.get_finalized_function(id);
            shared.entries.insert(arity, entry as usize);
        }
    }
    Ok(arities
        .iter()
        .filter_map(|a| shared.entries.get(a).map(|&e| (*a, e as *const u8)))
        .collect())
}

impl JitProgram {
    /// Compiles every function of a verified program.
    pub fn compile(program: &Program) -> Result<JitProgram, JitError> {
        JitProgram::build(program, None, None, Checks::ALL, CodeGen::Cranelift)
    }

    /// Compiles every function of a verified program with the baseline
    /// code generator ([`CodeGen::Baseline`]): a template per CVM
    /// instruction, no Cranelift, compiled in a small fraction of the
    /// time, slower code. Same results, output, fuel and errors as every
    /// other backend. On a host without the baseline generator (not
    /// x86-64), [`JitError::UnsupportedHost`].
    pub fn compile_baseline(program: &Program) -> Result<JitProgram, JitError> {
        JitProgram::build(program, None, None, Checks::ALL, CodeGen::Baseline)
    }

    /// Compiles only the functions in `roots` and every function they call,
    /// directly or not (their *closure* in the call graph), so that
    /// compiled code never calls a function that has no native code. The
    /// tiered backend compiles a hot function this way
    /// (`docs/jit.md`, "The tiered backend"). Indices out of range are
    /// ignored. The statistics count the compiled functions only, except
    /// the splice figures, which are the whole program's plan. Code made
    /// for being hot, it has Cranelift's optimizer in every function,
    /// straight-line ones too (`docs/jit.md`, "Two optimization levels").
    pub fn compile_closure(program: &Program, roots: &[u32]) -> Result<JitProgram, JitError> {
        JitProgram::closure_with(program, roots, CodeGen::Cranelift)
    }

    fn closure_with(
        program: &Program,
        roots: &[u32],
        codegen: CodeGen,
    ) -> Result<JitProgram, JitError> {
        let included = call_closure(program, roots);
        JitProgram::build(program, None, Some(&included), Checks::HOT, codegen)
    }

    /// [`JitProgram::compile_closure`] with the baseline code generator
    /// ([`CodeGen::Baseline`]): the tiered backend's first compiled tier.
    pub fn compile_closure_baseline(
        program: &Program,
        roots: &[u32],
    ) -> Result<JitProgram, JitError> {
        JitProgram::closure_with(program, roots, CodeGen::Baseline)
    }

    /// Compiles the closure of `roots` now, like
    /// [`JitProgram::compile_closure`], and every other function the first
    /// time an instance calls it (with the functions it calls, directly or
    /// not, as one more compilation kept with this one). A host that knows
    /// its entry points (the `main()` the command line runs, the engine's
    /// hooks) pays only for what they reach; a function nobody calls is
    /// never compiled (`docs/jit.md`, "Compiling on demand"). The program is
    /// analysed once, here. [`JitProgram::stats`] describes the compilation
    /// made here, [`JitProgram::later_compilations`] the ones made since.
    ///
    /// ```
    /// use cvm::{asm, CollectOutput, NoHost, Program, Vm};
    ///
    /// let program = Program::new(asm::assemble(r#"
    /// .entry main
    /// .func main params 0 lists 0 locals 0 stack 1 value
    ///     push 1
    ///     retv
    /// .end
    /// .func other params 0 lists 0 locals 0 stack 1 value
    ///     push 2
    ///     retv
    /// .end
    /// "#).unwrap()).unwrap();
    /// let jit = jit::JitProgram::compile_on_demand(&program, &[0]).unwrap();
    /// assert!(jit.has_function(0) && !jit.has_function(1));
    /// let mut vm = jit.instance();
    /// let two = vm.call_by_name("other", &[], &mut NoHost, &mut CollectOutput::default()).unwrap();
    /// assert_eq!(two.value(), Some(2));
    /// assert!(vm.ran_compiled());
    /// assert_eq!(jit.later_compilations().len(), 1);
    /// ```
    pub fn compile_on_demand(program: &Program, roots: &[u32]) -> Result<JitProgram, JitError> {
        JitProgram::on_demand_with(program, roots, CodeGen::Cranelift, Checks::ALL)
    }

    fn on_demand_with(
        program: &Program,
        roots: &[u32],
        codegen: CodeGen,
        checks: Checks,
    ) -> Result<JitProgram, JitError> {
        let started = Instant::now();
        let facts = facts_for(program, codegen);
        let included = call_closure(program, roots);
        let mut jit = JitProgram::build_from(
            program,
            &facts,
            None,
            Some(&included),
            checks,
            codegen,
            started,
        )?;
        let closures = (0..included.len()).map(|_| OnceLock::new()).collect();
        jit.on_demand = Some(Box::new(OnDemand {
            facts,
            closures,
            codegen,
            checks,
        }));
        Ok(jit)
    }

    /// The JIT backend's compilation for hosts that know their entry points
    /// ([`crate::Prepared::for_entries`]): the closure of `roots` compiled
    /// now by the baseline code generator (microseconds; other functions
    /// by it too, at their first call, as [`JitProgram::compile_on_demand`]
    /// does), and the same closure compiled by Cranelift on a background
    /// thread started here. From the embedder's first call after
    /// Cranelift's code is ready, calls of the functions it has run its
    /// code; a call already running finishes on the code it started on.
    /// Results, output, fuel and errors are the same on either code.
    /// [`JitProgram::stats`] describes the baseline compilation;
    /// [`JitProgram::upgraded`] says whether Cranelift's code has arrived.
    /// On a host without the baseline generator this is
    /// [`JitProgram::compile_on_demand`].
    pub fn compile_quick(program: &Program, roots: &[u32]) -> Result<JitProgram, JitError> {
        if !crate::baseline::supported() {
            return JitProgram::compile_on_demand(program, roots);
        }
        let mut jit = JitProgram::quick_baseline(program, roots)?;
        let upgrade = jit.upgrade.clone();
        let ready = Arc::clone(&jit.ready);
        let source = program.clone();
        let roots = roots.to_vec();
        let spawned = std::thread::Builder::new()
            .name("cvm-jit-upgrade".into())
            .spawn(move || {
                // The program runs on beside this thread: leave it a core.
                crate::define::leave_a_core();
                if let Some(cell) = upgrade {
                    deliver_upgrade(&source, &roots, &cell, &ready);
                }
            });
        // Without a thread the baseline code is all there is.
        if spawned.is_err() {
            jit.upgrade = None;
        }
        Ok(jit)
    }

    /// [`JitProgram::compile_quick`] without the background thread:
    /// Cranelift's code is compiled when [`JitProgram::upgrade_now`] is
    /// called, so that tests and measurements decide when it arrives
    /// (between two calls, or inside one, from the embedder's `Host` or
    /// `Output`). On a host without the baseline generator this is
    /// [`JitProgram::compile_on_demand`], and `upgrade_now` does nothing.
    pub fn compile_quick_deferred(
        program: &Program,
        roots: &[u32],
    ) -> Result<JitProgram, JitError> {
        if !crate::baseline::supported() {
            return JitProgram::compile_on_demand(program, roots);
        }
        JitProgram::quick_baseline(program, roots)
    }

    /// Compiles, on this thread, the Cranelift code a
    /// [`JitProgram::compile_quick_deferred`] waits for (nothing when it
    /// has arrived already); whether it has arrived now.
    pub fn upgrade_now(&self) -> bool {
        if let Some(cell) = self.upgrade.as_deref() {
            deliver_upgrade(&self.program, &self.quick_roots, cell, &self.ready);
        }
        self.upgraded()
    }

    /// The baseline half of [`JitProgram::compile_quick`]: the closure of
    /// `roots` by the baseline generator, with polls at back edges and
    /// entries at loop headers (on-stack replacement) and an empty cell
    /// for Cranelift's code.
    fn quick_baseline(program: &Program, roots: &[u32]) -> Result<JitProgram, JitError> {
        let mut jit =
            JitProgram::on_demand_with(program, roots, CodeGen::Baseline, Checks::WITH_OSR)?;
        jit.upgrade = Some(Arc::new(OnceLock::new()));
        jit.quick_roots = roots.to_vec();
        Ok(jit)
    }

    /// How many calls this program's baseline code handed to Cranelift's
    /// code of [`JitProgram::compile_quick`] at their entry (a call made
    /// by baseline code after that code arrived); 0 for every other
    /// compilation.
    pub fn entry_switches(&self) -> u64 {
        self.entry_switches.load(Ordering::Relaxed)
    }

    /// How many frames of this program's baseline code moved to
    /// Cranelift's code of [`JitProgram::compile_quick`] at a loop back
    /// edge (on-stack replacement); 0 for every other compilation.
    pub fn back_edge_switches(&self) -> u64 {
        self.back_edge_switches.load(Ordering::Relaxed)
    }

    /// Whether Cranelift's code of a [`JitProgram::compile_quick`] has
    /// arrived (false for every other compilation).
    pub fn upgraded(&self) -> bool {
        self.upgrade.as_ref().is_some_and(|c| c.get().is_some())
    }

    /// Waits until Cranelift's code of a [`JitProgram::compile_quick`] has
    /// arrived or `timeout` has passed; whether it has. For tests and
    /// measurements: calls never wait.
    pub fn wait_for_upgrade(&self, timeout: std::time::Duration) -> bool {
        let start = Instant::now();
        while self.upgrade.is_some() && !self.upgraded() && start.elapsed() < timeout {
            std::thread::sleep(std::time::Duration::from_micros(200));
        }
        self.upgraded()
    }

    /// Whether Cranelift's code is still on its way: until it arrives,
    /// [`JitProgram::code_for`] may answer differently for the same
    /// function.
    pub(crate) fn upgrade_pending(&self) -> bool {
        self.upgrade.as_ref().is_some_and(|c| c.get().is_none())
    }

    /// The compiled code to run function `func` with: this compilation's,
    /// or after [`JitProgram::compile_on_demand`] the compilation of the
    /// function's closure, made now if this is its first call. `None`: the
    /// function has no native code (a partial compilation, or compiling
    /// it failed), and the call runs on the interpreter.
    pub(crate) fn code_for(&self, func: u32) -> Option<(&JitProgram, CompiledFn)> {
        if let Some(fast) = self.upgrade.as_deref().and_then(OnceLock::get) {
            if let Some(&Some(compiled)) = fast.0.functions.get(func as usize) {
                return Some((&fast.0, compiled));
            }
        }
        if let Some(&Some(compiled)) = self.functions.get(func as usize) {
            return Some((self, compiled));
        }
        let on_demand = self.on_demand.as_deref()?;
        let closure = on_demand
            .closures
            .get(func as usize)?
            .get_or_init(|| {
                let included = call_closure(&self.program, &[func]);
                let started = Instant::now();
                JitProgram::build_from(
                    &self.program,
                    &on_demand.facts,
                    None,
                    Some(&included),
                    on_demand.checks,
                    on_demand.codegen,
                    started,
                )
                .ok()
                .map(Box::new)
            })
            .as_deref()?;
        let compiled = closure.functions.get(func as usize).copied().flatten()?;
        Some((closure, compiled))
    }

    /// The figures of the compilations made on demand so far, after
    /// [`JitProgram::compile_on_demand`] (in the order of the functions they
    /// were made for); empty otherwise.
    pub fn later_compilations(&self) -> Vec<CompileStats> {
        self.on_demand
            .as_deref()
            .map(|d| {
                d.closures
                    .iter()
                    .filter_map(|c| c.get().and_then(|j| j.as_deref()).map(JitProgram::stats))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Whether function `func` has native code in this compilation (every
    /// function does after [`JitProgram::compile`]; after
    /// [`JitProgram::compile_on_demand`], the closure of its roots does,
    /// and the other functions are compiled separately when first called).
    pub fn has_function(&self, func: u32) -> bool {
        self.functions
            .get(func as usize)
            .is_some_and(Option::is_some)
    }

    /// Compiles a program like [`JitProgram::compile`] and returns, with
    /// it, every function's machine code and Cranelift's listing of it, for
    /// studying the code the JIT makes. Trampolines are not listed.
    pub fn compile_with_listing(
        program: &Program,
    ) -> Result<(JitProgram, Vec<FunctionListing>), JitError> {
        let mut listing = Vec::new();
        let jit = JitProgram::build(
            program,
            Some(&mut listing),
            None,
            Checks::ALL,
            CodeGen::Cranelift,
        )?;
        Ok((jit, listing))
    }

    /// Compiles `program` like [`JitProgram::compile`] but without the inline
    /// checks `drop` names, **for measurement only**: the experiment harness
    /// measures what the fuel and bounds checks cost by comparing such code
    /// with the checked code (docs/jit.md, "Measuring the checks"). Only
    /// with the crate feature `measure-unchecked`; nothing else in the
    /// project turns it on, and [`JitProgram::compile`] always checks.
    ///
    /// Without fuel checks, backward jumps, calls and the `fuel`, `write`
    /// and text instructions charge nothing (the intrinsics still charge
    /// the fuel of their work in the runtime, and counted loops keep their
    /// guard, one test per loop entry); without bounds checks, list element
    /// accesses read and write the heap without comparing the index with
    /// the list's length. Call-depth checks stay: they keep native code
    /// within its stack.
    ///
    /// # Safety
    ///
    /// With `drop.bounds`, a run that indexes a list out of range reads or
    /// writes memory outside it (undefined behaviour); with `drop.fuel`, a
    /// run that does not end by itself never ends. The caller must know
    /// that every run of the returned program's instances keeps its indices
    /// in range and ends, for example because the same program, checked,
    /// ran to completion on the same inputs (the harness compares the
    /// values of both).
    #[cfg(feature = "measure-unchecked")]
    pub unsafe fn compile_unchecked(
        program: &Program,
        drop: Unchecked,
    ) -> Result<JitProgram, JitError> {
        let checks = Checks {
            fuel: !drop.fuel,
            bounds: !drop.bounds,
            ..Checks::ALL
        };
        JitProgram::build(program, None, None, checks, CodeGen::Cranelift)
    }

    /// Compiles `program` in four phases: the analysis (no Cranelift),
    /// the declaration of every function, the definition (lowering and
    /// compiling) of each, and the trampolines and linking. `included`
    /// limits the compilation to the marked functions (closed under calls).
    fn build(
        program: &Program,
        listing: Option<&mut Vec<FunctionListing>>,
        included: Option<&[bool]>,
        checks: Checks,
        codegen: CodeGen,
    ) -> Result<JitProgram, JitError> {
        let started = Instant::now();
        let facts = facts_for(program, codegen);
        JitProgram::build_from(program, &facts, listing, included, checks, codegen, started)
    }

    /// Phases 2 to 4 of [`JitProgram::build`] on a program analysed
    /// already; the compile time is counted from `started`.
    fn build_from(
        program: &Program,
        facts: &Facts,
        listing: Option<&mut Vec<FunctionListing>>,
        included: Option<&[bool]>,
        checks: Checks,
        codegen: CodeGen,
        started: Instant,
    ) -> Result<JitProgram, JitError> {
        let n = program.module().functions.len();
        let all = vec![true; n];
        let included = included.unwrap_or(&all);
        let mut code = Code::declare(program, included)?;
        code.checks = checks;
        code.codegen = codegen;
        let order: Vec<usize> = (0..n).filter(|&i| included[i]).collect();
        code.define_all(program, facts, &order, listing)?;
        let native_intrinsics = code.native_intrinsics;
        let unoptimized_functions = code.unoptimized_functions;
        let fuel_proved_functions = code.fuel_bounds.iter().filter(|&&b| b > 0).count();
        let max_frame = code.frames.iter().copied().max().unwrap_or(FRAME_SETUP);
        let (module, functions, code_bytes) = code.finalize(program)?;
        let stats = CompileStats {
            functions: included.iter().filter(|&&i| i).count(),
            instructions: program
                .function_infos()
                .iter()
                .zip(included)
                .filter(|(_, &i)| i)
                .map(|(i, _)| i.instrs.len())
                .sum(),
            native_intrinsics,
            unoptimized_functions,
            fuel_proved_functions,
            spliced_calls: facts.splices.calls,
            spliced_instructions: facts.splices.instructions,
            lowered_instructions: facts.splices.lowered,
            parameters: program
                .module()
                .functions
                .iter()
                .zip(included)
                .filter(|(_, &i)| i)
                .map(|(f, _)| f.arity() as usize)
                .sum(),
            code_bytes,
            duration: started.elapsed(),
        };
        Ok(JitProgram {
            program: program.clone(),
            module: Some(module),
            functions,
            facts: facts.lists.clone(),
            depth_bounds: facts.depth_bounds.clone(),
            max_frame,
            initial: facts.initial.clone(),
            reset_plan: ResetPlan::new(&facts.initial, &facts.lists.constant),
            reset_plan_kept: {
                let mut kept = facts.lists.constant.clone();
                for &l in &facts.deferred {
                    if let Some(k) = kept.get_mut(l as usize) {
                        *k = true;
                    }
                }
                ResetPlan::new(&facts.initial, &kept)
            },
            deferred: facts.deferred.clone(),
            measured: measure_constants(&facts.lists, &facts.initial),
            stats,
            on_demand: None,
            upgrade: None,
            ready: (0..program.module().functions.len())
                .map(|_| AtomicU8::new(0))
                .collect(),
            entry_switches: AtomicU64::new(0),
            back_edge_switches: AtomicU64::new(0),
            quick_roots: Vec::new(),
            osr: checks.osr,
        })
    }

    /// The program that was compiled.
    pub fn program(&self) -> &Program {
        &self.program
    }

    /// The module lists whose `Get` fills Cranelift's code keeps as
    /// bitboards until someone may look at them (lists no instruction
    /// reads element by element: `docs/jit.md`, "Deferred list fills"),
    /// ascending.
    pub fn deferred_lists(&self) -> &[u32] {
        &self.deferred
    }

    /// Figures about the compilation.
    pub fn stats(&self) -> CompileStats {
        self.stats
    }
}

/// What `codegen` needs: [`Facts::common`] for the baseline generator,
/// with the loop analysis and the splice plan for Cranelift.
fn facts_for(program: &Program, codegen: CodeGen) -> Facts {
    let mut facts = Facts::common(program);
    if codegen == CodeGen::Cranelift {
        facts.analyse_code(program);
    }
    facts
}

/// The Cranelift module being filled, with what the phases after the
/// analysis share.
struct Code {
    module: JITModule,
    shims: ShimIds,
    /// The Cranelift function of each CVM function (`None`: not compiled).
    ids: Vec<Option<FuncId>>,
    /// Each compiled function's native frame, in bytes.
    frames: Vec<u64>,
    /// The fuel each function's entry must find to run its code
    /// (`CompiledFn::fuel_bound`), by function index.
    fuel_bounds: Vec<u64>,
    code_bytes: usize,
    native_intrinsics: usize,
    /// Functions compiled with [`crate::shared::plain_isa`].
    unoptimized_functions: usize,
    /// The inline checks the lowering emits.
    checks: Checks,
    /// The code generator.
    codegen: CodeGen,
}

impl Code {
    /// Phase 2: a module with the shims and one Cranelift function per CVM
    /// function, so calls between them (recursion included) are direct.
    fn declare(program: &Program, included: &[bool]) -> Result<Code, JitError> {
        let mut module = new_module()?;
        let shims = declare_shims(&mut module)?;
        let mut ids = Vec::with_capacity(program.module().functions.len());
        for ((i, f), &inc) in program.module().functions.iter().enumerate().zip(included) {
            if !inc {
                ids.push(None);
                continue;
            }
            let sig = cvm_signature(module.make_signature(), f.arity());
            let id = module
                .declare_function(&format!("cvm_{i}"), Linkage::Local, &sig)
                .map_err(link_error)?;
            ids.push(Some(id));
        }
        Ok(Code {
            module,
            shims,
            frames: Vec::with_capacity(ids.len()),
            fuel_bounds: vec![0; ids.len()],
            ids,
            code_bytes: 0,
            native_intrinsics: 0,
            unoptimized_functions: 0,
            checks: Checks::ALL,
            codegen: CodeGen::Cranelift,
        })
    }

    /// Phase 3: lowers and compiles the functions `order` names (on
    /// several threads when that pays, see [`crate::define`]) and places
    /// their code in the module, in function order. The first failure, in
    /// that order, is the error.
    fn define_all(
        &mut self,
        program: &Program,
        facts: &Facts,
        order: &[usize],
        listing: Option<&mut Vec<FunctionListing>>,
    ) -> Result<(), JitError> {
        let shared = Shared {
            program,
            facts,
            decls: self.module.declarations(),
            call_conv: self.module.isa().default_call_conv(),
            isa: host_isa()?,
            shims: &self.shims,
            ids: &self.ids,
            checks: self.checks,
            listing: listing.is_some(),
            called: if self.checks.optimize_all {
                crate::define::called_functions(program)
            } else {
                Vec::new()
            },
        };
        let results = match self.codegen {
            CodeGen::Cranelift => shared.compile_all(order),
            CodeGen::Baseline => self.baseline(program, facts, order)?,
        };
        let mut listings = Vec::new();
        for (result, &index) in results.into_iter().zip(order) {
            let compiled = result?;
            let name = &program.module().functions[index].name;
            self.module
                .define_function_bytes(
                    compiled.own,
                    compiled.alignment,
                    &compiled.bytes,
                    &compiled.relocs,
                )
                .map_err(|e| JitError::Function {
                    function: index as u32,
                    name: name.clone(),
                    message: format!("{e:?}"),
                })?;
            self.code_bytes += compiled.bytes.len();
            self.native_intrinsics += compiled.native_intrinsics;
            self.unoptimized_functions += usize::from(compiled.unoptimized);
            self.frames.push(compiled.frame);
            self.fuel_bounds[index] = compiled.fuel_bound;
            listings.extend(compiled.listing);
        }
        if let Some(out) = listing {
            out.extend(listings);
        }
        Ok(())
    }

    /// Phase 3 with the baseline generator: each function in `order`
    /// assembled on the calling thread (there is too little work to share).
    fn baseline(
        &self,
        program: &Program,
        facts: &Facts,
        order: &[usize],
    ) -> Result<Vec<Result<Compiled, JitError>>, JitError> {
        #[cfg(target_arch = "x86_64")]
        {
            let target = crate::baseline::Target {
                program,
                initial: &facts.initial,
                ids: &self.ids,
                shims: &self.shims,
                checks: self.checks,
                deferred: &facts.deferred,
            };
            Ok(order
                .iter()
                .map(|&i| crate::baseline::compile_function(&target, i))
                .collect())
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = (program, facts, order);
            Err(JitError::UnsupportedHost(
                "the baseline code generator needs an x86-64 host".into(),
            ))
        }
    }

    /// Phase 4: the code finalized and the shims linked, each function's
    /// entry trampoline (shared by the process, see [`trampolines`]); the
    /// module, each function's code and entry, and the code bytes in all.
    fn finalize(
        mut self,
        program: &Program,
    ) -> Result<(JITModule, Vec<Option<CompiledFn>>, usize), JitError> {
        let functions = &program.module().functions;
        let arities: BTreeSet<u32> = functions
            .iter()
            .zip(&self.ids)
            .filter(|(_, id)| id.is_some())
            .map(|(f, _)| f.arity())
            .collect();
        let entries = trampolines(&arities)?;
        self.module.finalize_definitions().map_err(link_error)?;
        let compiled = functions
            .iter()
            .zip(&self.ids)
            .zip(&self.fuel_bounds)
            .map(|((f, &id), &fuel_bound)| {
                let Some(id) = id else { return Ok(None) };
                let entry = entries
                    .get(&f.arity())
                    .copied()
                    .ok_or_else(|| link_error(format!("no entry for arity {}", f.arity())))?;
                Ok(Some(CompiledFn {
                    code: self.module.get_finalized_function(id),
                    entry,
                    fuel_bound,
                }))
            })
            .collect::<Result<_, JitError>>()?;
        Ok((self.module, compiled, self.code_bytes))
    }
}

/// Compiles the closure of `roots` with Cranelift (unless `cell` holds
/// that code already) and puts it in `cell`, then sets the flag of every
/// function it has in `ready`, so that running baseline code takes the new
/// code at those functions' next entries. A program Cranelift cannot
/// compile keeps its baseline code.
fn deliver_upgrade(source: &Program, roots: &[u32], cell: &OnceLock<Sendable>, ready: &[AtomicU8]) {
    if cell.get().is_some() {
        return;
    }
    let Ok(fast) = JitProgram::compile_closure(source, roots) else {
        return;
    };
    let has: Vec<bool> = fast.functions.iter().map(Option::is_some).collect();
    if cell.set(Sendable(fast)).is_ok() {
        for (flag, _) in ready.iter().zip(&has).filter(|(_, &h)| h) {
            flag.store(1, Ordering::Release);
        }
    }
}

/// The functions reachable by calls from `roots`, `roots` included: marks
/// indexed by function. Unreachable instructions (no verified stack depth)
/// call nothing.
pub(crate) fn call_closure(program: &Program, roots: &[u32]) -> Vec<bool> {
    let infos = program.function_infos();
    let mut included = vec![false; infos.len()];
    let mut work: Vec<u32> = roots
        .iter()
        .copied()
        .filter(|&r| (r as usize) < infos.len())
        .collect();
    while let Some(f) = work.pop() {
        if std::mem::replace(&mut included[f as usize], true) {
            continue;
        }
        for i in &infos[f as usize].instrs {
            if i.depth.is_some() && i.instr.opcode == cvm::isa::Opcode::Call {
                let callee = i.instr.operands[0];
                if (callee as usize) < infos.len() && !included[callee as usize] {
                    work.push(callee);
                }
            }
        }
    }
    included
}

/// Defines the entry trampoline for functions of `arity` parameters:
/// `(ctx, callee, fuel, depth_left, args) -> fuel or status`, storing the
/// callee's value in the context.
fn define_trampoline(
    module: &mut JITModule,
    ctx: &mut cranelift_codegen::Context,
    fctx: &mut FunctionBuilderContext,
    arity: u32,
) -> Result<FuncId, JitError> {
    let mut sig = module.make_signature();
    for t in [PTR, PTR, types::I64, types::I32, PTR] {
        sig.params.push(AbiParam::new(t));
    }
    sig.returns.push(AbiParam::new(types::I64));
    let id = module
        .declare_function(&format!("cvm_entry_{arity}"), Linkage::Local, &sig)
        .map_err(link_error)?;
    // Where the baseline generator exists it assembles the same function
    // directly, sparing a process that runs one short program a Cranelift
    // compilation.
    if let Some(bytes) = crate::baseline::trampoline(arity) {
        module
            .define_function_bytes(id, 16, &bytes?, &[])
            .map_err(|e| JitError::Function {
                function: u32::MAX,
                name: format!("entry trampoline for arity {arity}"),
                message: format!("{e:?}"),
            })?;
        return Ok(id);
    }
    ctx.func.signature = sig;
    ctx.func.name = UserFuncName::user(1, id.as_u32());
    let callee_sig = cvm_signature(module.make_signature(), arity);
    let mut b = FunctionBuilder::new(&mut ctx.func, fctx);
    let sig_ref = b.import_signature(callee_sig);
    let block = b.create_block();
    b.append_block_params_for_function_params(block);
    b.switch_to_block(block);
    let p = b.block_params(block).to_vec();
    let mut args = vec![p[0], p[2], p[3]];
    for k in 0..arity {
        let offset = i32::try_from(k * 4).map_err(link_error)?;
        args.push(
            b.ins()
                .load(types::I32, MemFlagsData::trusted(), p[4], offset),
        );
    }
    let call = b.ins().call_indirect(sig_ref, p[1], &args);
    let results = b.inst_results(call).to_vec();
    b.ins()
        .store(MemFlagsData::trusted(), results[0], p[0], offsets::RESULT);
    b.ins().return_(&[results[1]]);
    b.seal_all_blocks();
    b.finalize(module.target_config());
    module
        .define_function(id, ctx)
        .map_err(|e| JitError::Function {
            function: u32::MAX,
            name: format!("entry trampoline for arity {arity}"),
            message: format!("{e:?}"),
        })?;
    Ok(id)
}
