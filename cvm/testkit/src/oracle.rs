//! Differential oracles for fuzzing and property tests.
//!
//! The backends and the optimizer have no specification precise enough to
//! check a random program against, but they have each other: the
//! interpreter and the JIT must agree exactly on every verified program
//! (result, or error kind and code offset; output lines; fuel used;
//! globals and lists; the advice table), and an optimized program must
//! agree with the original in everything but the code offsets of errors
//! (their source positions must agree when the module has a line table)
//! and the fuel spent (see [`Strictness::SameSource`]). Every run must
//! also keep fuel's promise: fewer executed instructions than
//! [`cvm::fuel::INSTRUCTIONS_PER_UNIT`] times the fuel spent
//! ([`check_fuel_bound`]).
//! This module runs a program on any number of backends under one
//! [`Scenario`] (limits, a position, which function to call and how often)
//! and says how the observations differ. Backends are named by
//! [`Backend`] and observed through the one VM interface, [`Vm`].

use cvm::runtime::{CollectOutput, Completion, Host, Limits, Memory, OutputLine, RuntimeError};
use cvm::verify::Program;
use cvm::{Backend, Interpreter, Vm};
use cvm_chess::advice_table::AdviceTable;
use cvm_chess::board::BoardView;
use jit::{CompileStats, Prepared};

/// How a program is run for comparison.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scenario {
    /// Fuel and depth limits of every call.
    pub limits: Limits,
    /// The position the chess intrinsics see.
    pub board: BoardView,
    /// How many calls are made on one instance (memory and advice carry
    /// over from one call to the next); at least 1.
    pub runs: usize,
    /// `None` calls the entry point; `Some(seed)` calls the function and
    /// arguments [`target`] derives from the seed (arguments may be
    /// invalid: both engines must refuse them alike).
    pub call: Option<u64>,
}

impl Scenario {
    /// The entry point once, on the empty board, under `limits`.
    pub fn new(limits: Limits) -> Scenario {
        Scenario {
            limits,
            board: BoardView::EMPTY,
            runs: 1,
            call: None,
        }
    }
}

/// The host of a scenario: its board, a game score that depends on the
/// move asked for, and style defaults that differ from the standard
/// values, so that a backend that bypassed the host would show.
#[derive(Clone, Debug)]
pub struct ScenarioHost {
    /// The position.
    pub board: BoardView,
}

impl Host for ScenarioHost {
    fn board(&self) -> Option<&BoardView> {
        Some(&self.board)
    }
    fn game_score(&self, prev_moves: i32) -> i32 {
        prev_moves.wrapping_mul(7).wrapping_sub(3)
    }
    fn style_default(&self, id: i32) -> i32 {
        cvm_chess::style::default_value(id).wrapping_add(id)
    }
    /// `HostCall(service, a, b, c)`: an answer mixed from the words and,
    /// for an odd service, `b & 63` units of reported work, so that the
    /// generated programs (which call `HostCall` with arbitrary words)
    /// also run out of fuel at host charges, on every backend alike.
    fn extension_metered(
        &mut self,
        service: i32,
        [a, b, c]: [i32; 3],
        _budget: u64,
    ) -> Result<cvm::HostAnswer, cvm::TrapKind> {
        let value = service.wrapping_mul(31).wrapping_add(a) ^ c;
        let fuel = if service & 1 == 1 {
            u64::from((b & 63) as u32)
        } else {
            0
        };
        Ok(cvm::HostAnswer::costing(value, fuel))
    }
}

/// The function and arguments a scenario calls.
pub fn target(program: &Program, scenario: &Scenario) -> Option<(u32, Vec<i32>)> {
    let module = program.module();
    let Some(seed) = scenario.call else {
        return module.entry.map(|e| (e, Vec::new()));
    };
    let n = module.functions.len() as u64;
    if n == 0 {
        return None;
    }
    let func = (seed % n) as u32;
    let f = &module.functions[func as usize];
    let mut s = seed | 1;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let lists = module.lists.len() as u64;
    let mut args: Vec<i32> = (0..f.value_params)
        .map(|_| (next() % 41) as i32 - 20)
        .collect();
    for _ in 0..f.list_params {
        let r = next();
        // Mostly a valid list index; now and then one that is not.
        args.push(if r % 16 == 0 || lists == 0 {
            (r >> 8) as i32 % 5 - 2
        } else {
            ((r >> 8) % lists) as i32
        });
    }
    if next() % 32 == 0 {
        // The wrong number of arguments.
        args.push(1);
    }
    Some((func, args))
}

/// Everything observable about one call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Observation {
    /// How the call ended.
    pub result: Result<Completion, RuntimeError>,
    /// What it wrote.
    pub output: Vec<OutputLine>,
    /// The fuel it spent.
    pub fuel_used: u64,
    /// Globals and lists afterwards.
    pub memory: Memory,
    /// The advice table afterwards.
    pub advice: Box<AdviceTable>,
}

/// Runs a scenario on one instance of a program: `scenario.runs` calls,
/// each with a fresh host over the scenario's board.
pub fn observe(vm: &mut dyn Vm, program: &Program, scenario: &Scenario) -> Vec<Observation> {
    vm.set_limits(scenario.limits);
    let Some((func, args)) = target(program, scenario) else {
        return Vec::new();
    };
    (0..scenario.runs.max(1))
        .map(|_| {
            let mut host = ScenarioHost {
                board: scenario.board,
            };
            let mut out = CollectOutput::default();
            let result = vm.call(func, &args, &mut host, &mut out);
            Observation {
                result,
                output: out.lines,
                fuel_used: vm.fuel_used(),
                memory: vm.memory().clone(),
                advice: Box::new(vm.advice().clone()),
            }
        })
        .collect()
}

/// Runs the scenario on a fresh instance of `program` on `backend`; `Err`
/// when the backend cannot run a verified program at all (always a bug).
///
/// On the JIT, a call that ran on the interpreter instead of compiled code
/// (see `jit::JitInstance`) is such an error too, because it would compare
/// the interpreter with itself, unless the call passed lists (one of them
/// may be a list the compiler folded into constants, which the instance
/// rightly hands to the interpreter).
pub fn run(
    backend: Backend,
    program: &Program,
    scenario: &Scenario,
) -> Result<Vec<Observation>, String> {
    let prepared = Prepared::new(program.clone(), backend)
        .map_err(|e| format!("{backend} cannot prepare the program: {e}"))?;
    if let Some(jit) = prepared.jit() {
        check_compile_cost(program, jit.stats())?;
    }
    let mut vm = prepared.instance();
    let mut tracked = Tracked {
        vm: &mut *vm,
        interpreted: false,
    };
    let seen = observe(&mut tracked, program, scenario);
    if tracked.interpreted {
        return Err(format!("{backend} ran a call on the interpreter"));
    }
    Ok(seen)
}

/// The JIT's cost oracle (`docs/jit.md`, "Bounded cost"): the machine code
/// of `program`, compiled with figures `stats`, is within the documented
/// size bound ([`CompileStats::check_size`]), and the compilation took no
/// longer than the limit ([`CompileStats::time_limit`]: 100 ms plus 1 ms
/// per lowered instruction). A compilation over the time limit is repeated twice
/// and only the fastest of the three counts, so that a busy machine does
/// not make a finding; a program whose compilation grows faster than its
/// size (as splicing without a budget did) is over the limit every time.
pub fn check_compile_cost(program: &Program, stats: CompileStats) -> Result<(), String> {
    stats
        .check_size()
        .map_err(|e| format!("JIT code over the documented bound: {e}"))?;
    let limit = stats.time_limit();
    let mut fastest = stats.duration;
    for _ in 0..2 {
        if fastest <= limit {
            return Ok(());
        }
        let again = jit::JitProgram::compile(program)
            .map_err(|e| format!("the JIT cannot compile the program again: {e}"))?;
        fastest = fastest.min(again.stats().duration);
    }
    if fastest <= limit {
        return Ok(());
    }
    Err(format!(
        "JIT compile time over the limit: {fastest:?} (fastest of three) > {limit:?} for {} CVM and {} lowered instructions ({stats:?})",
        stats.instructions, stats.lowered_instructions
    ))
}

/// An instance that remembers whether a compiling backend ran an accepted
/// call without compiled code.
struct Tracked<'a, 'v> {
    vm: &'a mut (dyn Vm + 'v),
    interpreted: bool,
}

impl Vm for Tracked<'_, '_> {
    fn backend(&self) -> Backend {
        self.vm.backend()
    }
    fn program(&self) -> &Program {
        self.vm.program()
    }
    fn set_limits(&mut self, limits: Limits) {
        self.vm.set_limits(limits);
    }
    fn limits(&self) -> Limits {
        self.vm.limits()
    }
    fn fuel_used(&self) -> u64 {
        self.vm.fuel_used()
    }
    fn memory(&self) -> &Memory {
        self.vm.memory()
    }
    fn memory_mut(&mut self) -> &mut Memory {
        self.vm.memory_mut()
    }
    fn advice(&self) -> &AdviceTable {
        self.vm.advice()
    }
    fn advice_mut(&mut self) -> &mut AdviceTable {
        self.vm.advice_mut()
    }
    fn reset(&mut self) {
        self.vm.reset();
    }
    fn ran_compiled(&self) -> bool {
        self.vm.ran_compiled()
    }
    fn call(
        &mut self,
        func: u32,
        args: &[i32],
        host: &mut dyn Host,
        output: &mut dyn cvm::Output,
    ) -> Result<Completion, RuntimeError> {
        let result = self.vm.call(func, args, host, output);
        if self.vm.backend() == Backend::Jit {
            let refused = matches!(&result, Err(e) if matches!(e.kind, cvm::TrapKind::BadCall(_)));
            let lists_passed = self
                .vm
                .program()
                .module()
                .functions
                .get(func as usize)
                .is_some_and(|f| f.list_params > 0);
            if !refused && !lists_passed && !self.vm.ran_compiled() {
                self.interpreted = true;
            }
        }
        result
    }
}

/// How strictly two runs must agree.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Strictness {
    /// Everything, errors by kind, code offset and source position: the
    /// same program on two backends.
    Exact,
    /// A program against its optimized form (`docs/optimizer.md`, "What it
    /// promises"): errors by kind and source position only (code offsets
    /// move when the optimizer rewrites code), and fuel not compared (the
    /// charges for straight-line code follow the code's lengths, which the
    /// optimizer changes). A run that ran out of fuel is compared by its
    /// output only, which must be a prefix of the other run's (both a
    /// prefix of one another when both ran out), and ends the comparison:
    /// the runs after it start from different memory.
    SameSource,
}

/// Says how `got` differs from `want` (`None` when they agree).
pub fn difference(want: &[Observation], got: &[Observation], strict: Strictness) -> Option<String> {
    if want.len() != got.len() {
        return Some(format!("{} runs, expected {}", got.len(), want.len()));
    }
    let out_of_fuel =
        |o: &Observation| matches!(&o.result, Err(e) if e.kind == cvm::TrapKind::OutOfFuel);
    for (run, (w, g)) in want.iter().zip(got).enumerate() {
        if strict == Strictness::SameSource && (out_of_fuel(w) || out_of_fuel(g)) {
            let prefix = match (out_of_fuel(w), out_of_fuel(g)) {
                (true, false) => g.output.starts_with(&w.output),
                (false, true) => w.output.starts_with(&g.output),
                _ => w.output.starts_with(&g.output) || g.output.starts_with(&w.output),
            };
            if prefix {
                return None;
            }
            return Some(format!(
                "run {}: result {:?} with output {:?}, expected {:?} with output {:?} (the output of a run out of fuel must be a prefix of the other's)",
                run + 1,
                g.result,
                g.output,
                w.result,
                w.output
            ));
        }
        let results_agree = match (&w.result, &g.result) {
            (Err(a), Err(b)) if strict == Strictness::SameSource => {
                a.kind == b.kind && a.pos == b.pos
            }
            (a, b) => a == b,
        };
        let what = if !results_agree {
            format!("result {:?}, expected {:?}", g.result, w.result)
        } else if w.output != g.output {
            format!("output {:?}, expected {:?}", g.output, w.output)
        } else if strict == Strictness::Exact && w.fuel_used != g.fuel_used {
            format!("fuel used {}, expected {}", g.fuel_used, w.fuel_used)
        } else if w.memory != g.memory {
            format!("memory {:?}, expected {:?}", g.memory, w.memory)
        } else if w.advice != g.advice {
            format!(
                "advice tables differ: {}",
                advice_difference(&w.advice, &g.advice)
            )
        } else {
            continue;
        };
        return Some(format!("run {}: {what}", run + 1));
    }
    None
}

/// The first differing entry of two advice tables.
fn advice_difference(want: &AdviceTable, got: &AdviceTable) -> String {
    for c in 0..2 {
        for k in 0..6 {
            for s in 0..64 {
                let (w, g) = (want.square_bonus[c][k][s], got.square_bonus[c][k][s]);
                if w != g {
                    return format!("square_bonus[{c}][{k}][{s}] {g}, expected {w}");
                }
                let (w, g) = (want.control_bonus[c][k][s], got.control_bonus[c][k][s]);
                if w != g {
                    return format!("control_bonus[{c}][{k}][{s}] {g}, expected {w}");
                }
            }
        }
        for from in 0..64 {
            for to in 0..64 {
                let (w, g) = (want.move_bonus[c][from][to], got.move_bonus[c][from][to]);
                if w != g {
                    return format!("move_bonus[{c}][{from}][{to}] {g}, expected {w}");
                }
            }
        }
    }
    let summary = |t: &AdviceTable| {
        format!(
            "piece values {:?}, style {:?} (set {:#x}), defaults {}, verbose {}",
            t.piece_value, t.style, t.style_set, t.style_defaults, t.verbose
        )
    };
    format!("{}, expected {}", summary(got), summary(want))
}

/// Runs `program` on every backend and compares each with the first,
/// exactly.
pub fn check_backends(
    program: &Program,
    scenario: &Scenario,
    backends: &[Backend],
) -> Result<(), String> {
    let Some((&reference, others)) = backends.split_first() else {
        return Ok(());
    };
    let want = run(reference, program, scenario)?;
    for &backend in others {
        let got = run(backend, program, scenario)?;
        if let Some(d) = difference(&want, &got, Strictness::Exact) {
            return Err(format!("{backend} disagrees with {reference}: {d}"));
        }
    }
    Ok(())
}

/// Runs `program` on the tiered backend (`Backend::Auto`) with the switch
/// to native code forced at each call in turn (`jit::TierConfig::switch_at`:
/// call 0 is the embedder's first call, then every interpreted `call`
/// instruction and every later embedder call of the scenario), for the
/// first `max_points` calls, then at each backward jump in turn, the
/// running frame continuing on native code from the loop's header
/// (`jit::TierConfig::switch_at_back_edge`, on-stack replacement), for the
/// first `max_points` of them; compares every run exactly with the
/// interpreter, once with Cranelift's code and, where the host has the
/// baseline code generator, once with its code. Returns how many switch
/// points (calls and back edges) the last of them reached.
pub fn check_switch_points(
    program: &Program,
    scenario: &Scenario,
    max_points: u64,
) -> Result<u64, String> {
    let want = run(Backend::Interp, program, scenario)?;
    let mut reached = 0;
    for &codegen in jit::CodeGen::available() {
        // Each switch point is a sibling of the first, so that a closure
        // is compiled once and its code reused at every later switch into
        // it.
        let config = |at| jit::TierConfig::switch_at_with(at, codegen);
        let first = jit::TieredProgram::new(program.clone(), config(0));
        reached = 0;
        for back_edges in [false, true] {
            let mut points = max_points;
            for at in 0..max_points {
                let (config, point) = if back_edges {
                    (
                        jit::TierConfig::switch_at_back_edge(at, codegen),
                        "back edge",
                    )
                } else {
                    (config(at), "call")
                };
                let tiered = first.sibling(config);
                let mut vm = tiered.instance();
                let got = observe(&mut vm, program, scenario);
                if let Some(d) = difference(&want, &got, Strictness::Exact) {
                    return Err(format!(
                        "auto with the switch at {point} {at} to {codegen:?} code disagrees with interp: {d}"
                    ));
                }
                if tiered.compiled_functions() == 0 {
                    points = at;
                    break;
                }
            }
            reached += points;
        }
    }
    Ok(reached)
}

/// One switch point of [`check_switch_points`]: the switch to native code
/// forced at the `at`-th call (or, with `back_edge`, at the `at`-th
/// backward jump, on-stack replacement), to `codegen`'s code (Cranelift's
/// where the host has no other). Compares the run exactly with the
/// interpreter's. A call point `at` also checks the tiered backend
/// compiling by thresholds, after `at` calls, and running the embedder's
/// calls on the instances of native code it keeps
/// (`check_kept_instances`). The fuzz targets pick one point per input,
/// so that an input costs one tiered run (three for a call point) instead
/// of one per point.
pub fn check_switch_point(
    program: &Program,
    scenario: &Scenario,
    at: u64,
    back_edge: bool,
    codegen: jit::CodeGen,
) -> Result<(), String> {
    let codegen = if jit::CodeGen::available().contains(&codegen) {
        codegen
    } else {
        jit::CodeGen::Cranelift
    };
    let want = run(Backend::Interp, program, scenario)?;
    let (config, point) = if back_edge {
        (
            jit::TierConfig::switch_at_back_edge(at, codegen),
            "back edge",
        )
    } else {
        (jit::TierConfig::switch_at_with(at, codegen), "call")
    };
    let tiered = jit::TieredProgram::new(program.clone(), config);
    let mut vm = tiered.instance();
    let got = observe(&mut vm, program, scenario);
    if let Some(d) = difference(&want, &got, Strictness::Exact) {
        return Err(format!(
            "auto with the switch at {point} {at} to {codegen:?} code disagrees with interp: {d}"
        ));
    }
    if back_edge {
        return Ok(());
    }
    check_kept_instances(program, scenario, &tiered, at, codegen, &want)
}

/// The tiered backend without a forced switch point, `codegen`'s code
/// compiled (synchronously) once a function has more than `calls` calls:
/// the embedder's calls of a function with native code then run on the
/// instance of that code the tiered instance keeps, with the memory and
/// advice table moved into it. A sibling of `first` (its compiled
/// closures are reused); one instance runs the scenario, then a second,
/// which finds the code the first made hot from its first call. Both must
/// match the interpreter's run `want` exactly.
fn check_kept_instances(
    program: &Program,
    scenario: &Scenario,
    first: &jit::TieredProgram,
    calls: u64,
    codegen: jit::CodeGen,
    want: &[Observation],
) -> Result<(), String> {
    let calls = u32::try_from(calls).unwrap_or(u32::MAX);
    let tiered = first.sibling(match codegen {
        jit::CodeGen::Cranelift => jit::TierConfig::by_calls(calls, u32::MAX),
        jit::CodeGen::Baseline => jit::TierConfig::by_calls(u32::MAX, calls),
    });
    for instance in ["first", "second"] {
        let mut vm = tiered.instance();
        let got = observe(&mut vm, program, scenario);
        if let Some(d) = difference(want, &got, Strictness::Exact) {
            return Err(format!(
                "auto compiling {codegen:?} code after {calls} calls, {instance} instance, disagrees with interp: {d}"
            ));
        }
    }
    Ok(())
}

/// Runs `program` on the first backend and `optimized` on every backend,
/// and compares each optimized run with the original one (errors by kind
/// and source position).
pub fn check_optimized(
    program: &Program,
    optimized: &Program,
    scenario: &Scenario,
    backends: &[Backend],
) -> Result<(), String> {
    let Some(&reference) = backends.first() else {
        return Ok(());
    };
    let want = run(reference, program, scenario)?;
    for &backend in backends {
        let got = run(backend, optimized, scenario)?;
        if let Some(d) = difference(&want, &got, Strictness::SameSource) {
            return Err(format!(
                "optimized program on {backend} disagrees with the original: {d}"
            ));
        }
    }
    Ok(())
}

/// Checks one backend on its own: the module survives the `.cmp` and
/// `.asm` round trips, the fuel spent stays within the limit, a run
/// after `reset` (on a fresh instance) repeats the first run exactly, and
/// every call keeps fuel's bound on the instructions it runs
/// ([`check_fuel_bound`]; counted during the run after `reset`, which must
/// repeat the fresh instance's run, so that the bound is checked without a
/// third run).
pub fn check_interpreter(program: &Program, scenario: &Scenario) -> Result<(), String> {
    let module = program.module();
    let bytes = cvm::binary::write(module);
    match cvm::binary::read(&bytes) {
        Ok(m) if &m == module => {}
        Ok(_) => return Err("the .cmp round trip changed the module".into()),
        Err(e) => return Err(format!("the .cmp round trip failed: {e}")),
    }
    match cvm::asm::assemble(&cvm::asm::disassemble(module)) {
        Ok(m) if &m == module => {}
        Ok(_) => return Err("the .asm round trip changed the module".into()),
        Err(e) => return Err(format!("the .asm round trip failed: {e}")),
    }
    let mut vm = Interpreter::new(program);
    let first = observe(&mut vm, program, scenario);
    if let Some(limit) = scenario.limits.fuel {
        if let Some(o) = first.iter().find(|o| o.fuel_used > limit) {
            return Err(format!("spent {} fuel of {limit}", o.fuel_used));
        }
    }
    vm.reset();
    let (again, bound) = observe_counted(&mut vm, program, scenario);
    if let Some(d) = difference(&first, &again, Strictness::Exact) {
        return Err(format!("a run after reset differs: {d}"));
    }
    bound
}

/// [`observe`] on the interpreter, counting the instructions each call
/// executes: the observations, and `Err` for the first call that ran
/// `K × F` instructions or more for the `F` units of fuel it spent
/// ([`check_fuel_bound`]).
fn observe_counted(
    vm: &mut Interpreter<'_>,
    program: &Program,
    scenario: &Scenario,
) -> (Vec<Observation>, Result<(), String>) {
    vm.set_limits(scenario.limits);
    let Some((func, args)) = target(program, scenario) else {
        return (Vec::new(), Ok(()));
    };
    let wide = wide_offsets(program);
    let mut bound = Ok(());
    let seen = (0..scenario.runs.max(1))
        .map(|run| {
            let mut host = ScenarioHost {
                board: scenario.board,
            };
            let mut out = CollectOutput::default();
            let mut count = StepCount {
                steps: 0,
                last: None,
                wide: &wide,
            };
            let result = vm.call_profiled(func, &args, &mut host, &mut out, &mut count);
            if bound.is_ok() {
                bound = within_bound(count.steps, vm.fuel_used())
                    .map_err(|e| format!("run {}: {e}", run + 1));
            }
            Observation {
                result,
                output: out.lines,
                fuel_used: vm.fuel_used(),
                memory: vm.memory().clone(),
                advice: Box::new(vm.advice().clone()),
            }
        })
        .collect();
    (seen, bound)
}

/// Counts executed instructions for [`check_fuel_bound`]: the
/// interpreter reports each op it runs, and a `ldl.add.i` with a wide
/// immediate runs as two ops of one instruction.
struct StepCount<'a> {
    steps: u64,
    last: Option<u32>,
    wide: &'a std::collections::HashSet<u32>,
}

impl cvm::interp::Profiler for StepCount<'_> {
    fn step(&mut self, offset: u32) {
        if !(self.last == Some(offset) && self.wide.contains(&offset)) {
            self.steps += 1;
        }
        self.last = Some(offset);
    }
}

/// The offsets of the `ldl.add.i` instructions with a wide immediate
/// (which the interpreter runs as two ops).
fn wide_offsets(program: &Program) -> std::collections::HashSet<u32> {
    program
        .function_infos()
        .iter()
        .flat_map(|f| &f.instrs)
        .filter(|i| {
            i.instr.opcode == cvm::isa::Opcode::LdlAddI
                && i16::try_from(i.instr.operands[1] as i32).is_err()
        })
        .map(|i| i.offset)
        .collect()
}

/// Runs one call on `vm`, counting the instructions it executes, and
/// checks them against the fuel it spent: fewer than `K × F`.
fn bounded_call(
    vm: &mut Interpreter<'_>,
    func: u32,
    args: &[i32],
    host: &mut dyn Host,
    wide: &std::collections::HashSet<u32>,
) -> Result<(), String> {
    let mut out = CollectOutput::default();
    let mut count = StepCount {
        steps: 0,
        last: None,
        wide,
    };
    let _ = vm.call_profiled(func, args, host, &mut out, &mut count);
    within_bound(count.steps, vm.fuel_used())
}

/// Fuel's bound on one call: `steps` executed instructions for `fuel`
/// units spent must be fewer than `K × fuel`.
fn within_bound(steps: u64, fuel: u64) -> Result<(), String> {
    let bound = fuel.saturating_mul(cvm::fuel::INSTRUCTIONS_PER_UNIT);
    if steps > 0 && steps >= bound {
        return Err(format!(
            "{steps} instructions executed for {fuel} fuel (K = {})",
            cvm::fuel::INSTRUCTIONS_PER_UNIT
        ));
    }
    Ok(())
}

/// Fuel bounds time (`docs/cvm.md`, "Fuel"): runs the scenario on a fresh
/// interpreter, counting the instructions each call executes, and checks
/// that a call that spent `F` units executed fewer than `K × F`
/// instructions, `K` = [`cvm::fuel::INSTRUCTIONS_PER_UNIT`].
pub fn check_fuel_bound(program: &Program, scenario: &Scenario) -> Result<(), String> {
    let Some((func, args)) = target(program, scenario) else {
        return Ok(());
    };
    let wide = wide_offsets(program);
    let mut vm = Interpreter::new(program);
    vm.set_limits(scenario.limits);
    for run in 0..scenario.runs.max(1) {
        let mut host = ScenarioHost {
            board: scenario.board,
        };
        bounded_call(&mut vm, func, &args, &mut host, &wide)
            .map_err(|e| format!("run {}: {e}", run + 1))?;
    }
    Ok(())
}

/// [`check_fuel_bound`] for one call of `func` with `args` under `limits`
/// on a fresh interpreter, with the embedder's `host`.
pub fn check_call_fuel_bound(
    program: &Program,
    func: u32,
    args: &[i32],
    limits: Limits,
    host: &mut dyn Host,
) -> Result<(), String> {
    let mut vm = Interpreter::new(program);
    vm.set_limits(limits);
    bounded_call(&mut vm, func, args, host, &wide_offsets(program))
}

/// Optimizer settings from one byte, as the fuzz targets and the property
/// tests draw them: the defaults while the top bit is clear, otherwise bits
/// 0 to 5 switch constant folding, operand forms, compare-and-branch
/// fusion, list folding, load pairing and loop inversion on, so that rules
/// meet code shaped by the others' absence, and bit 6 inlining. With the
/// top bit clear, bit 6 turns on the inlining of recursive functions into
/// themselves (off by default).
pub fn optimizer_options(bits: u8) -> cvm::opt::Options {
    let mut o = cvm::opt::Options::default();
    if bits & 0x80 == 0 {
        o.inline_limits.recursive = bits & 0x40 != 0;
    } else {
        o.inline = bits & 0x40 != 0;
        o.rules.fold = bits & 1 != 0;
        o.rules.operand_forms = bits & 2 != 0;
        o.rules.compare_branch = bits & 4 != 0;
        o.rules.fold_lists = bits & 8 != 0;
        o.rules.pair_loads = bits & 16 != 0;
        o.invert_loops = bits & 32 != 0;
    }
    o
}

/// The optimizer's oracle: optimizing `program` with `options` must not
/// fall back, the result must agree with the original (run on the first
/// backend) on every backend ([`check_optimized`]), and optimizing the
/// result again with the defaults must not fall back and must agree on the
/// first backend too.
pub fn check_optimizer(
    program: &Program,
    scenario: &Scenario,
    options: cvm::opt::Options,
    backends: &[Backend],
) -> Result<(), String> {
    let (optimized, report) = cvm::opt::optimize_with(program, options);
    if report.fell_back {
        return Err("the optimizer produced a module that does not verify".into());
    }
    check_optimized(program, &optimized, scenario, backends)?;
    let (twice, report) = cvm::opt::optimize(&optimized);
    if report.fell_back {
        return Err("optimizing an optimized module fell back".into());
    }
    let Some(first) = backends.first() else {
        return Ok(());
    };
    check_optimized(program, &twice, scenario, std::slice::from_ref(first))
        .map_err(|e| format!("optimized twice: {e}"))
}
