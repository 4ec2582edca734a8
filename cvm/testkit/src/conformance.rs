//! A backend-neutral conformance harness.
//!
//! Conformance cases are `.asm` files whose leading `;!` comment lines say
//! how to run them and what must happen. The same case files run against the
//! interpreter (in the `cvm` crate's tests) and against the JIT (in the
//! `jit` crate's tests), so the two backends are held to one specification
//! instead of two copies of it. [`Case::check`] takes the backend as a
//! [`Backend`].
//!
//! ```text
//! ;! call fib 10            function and int arguments (default: the entry point or `main`, no arguments)
//! ;! fuel 100               fuel limit (default: unbounded)
//! ;! depth 50               call-depth limit (default: the VM default)
//! ;! result 55              expected return value; `result none` for a procedure, `halt` for halt
//! ;! out 5                  an expected `write` line (in order with `text` lines)
//! ;! text hello world       an expected `textout` line
//! ;! error out-of-fuel at main:L_loop   expected error kind and the label of the failing instruction
//! ;! fuel-used 1905         the fuel the call must have spent (error or not)
//! ;! fen 8/8/8/8/4P3/8/8/8 w the position the chess intrinsics see (default: none, the empty board)
//! ;! list out 12 20 -1      a list's slots after the call, from the first (error or not)
//! ;! advice empty           the advice table after the call: `empty` or `set`
//! ```
//!
//! The host the cases run with answers the `HostCall` services of
//! [`host_service`] (a service that reports its work, one that echoes the
//! budget it was offered, one that gives up, one that fails).
//!
//! Error kinds: `division-by-zero`, `list-index`, `list-overflow`,
//! `call-depth`, `out-of-fuel`, `intrinsic`, `bad-call`. When an error is
//! expected, the output lines listed must be exactly those written before
//! it.

use cvm::asm;
use cvm::module::Module;
use cvm::runtime::{CollectOutput, Completion, Limits, OutputLine, RuntimeError, TrapKind};
use cvm::verify::Program;
use cvm::{Backend, BoardView};
use jit::Prepared;
use std::collections::HashMap;

/// One parsed conformance case.
#[derive(Clone, Debug)]
pub struct Case {
    /// A name for messages (usually the file name).
    pub name: String,
    /// The assembled module.
    pub module: Module,
    /// Label offsets, keyed `function:label`.
    pub labels: HashMap<String, u32>,
    /// The function to call (`None`: the entry point).
    pub func: Option<String>,
    /// Its arguments.
    pub args: Vec<i32>,
    /// Limits for the run.
    pub limits: Limits,
    /// The position the chess intrinsics see (`None`: no board).
    pub board: Option<BoardView>,
    /// What must happen.
    pub expect: Expect,
}

/// The expected outcome of a case.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Expect {
    /// The completion, when the run must succeed.
    pub completion: Option<Completion>,
    /// The output lines, in order.
    pub output: Vec<OutputLine>,
    /// The error kind name and code offset, when the run must fail.
    pub error: Option<(String, u32)>,
    /// The fuel the call spends.
    pub fuel_used: Option<u64>,
    /// Lists (by name) whose first slots must hold these values afterwards.
    pub lists: Vec<(String, Vec<i32>)>,
    /// Whether the advice table must be empty (`Some(true)`) or not
    /// afterwards.
    pub advice_empty: Option<bool>,
}

/// What a run left behind, besides its result and output.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// How the call ended.
    pub result: Result<Completion, RuntimeError>,
    /// The fuel it spent.
    pub fuel_used: u64,
    /// Globals and lists afterwards.
    pub memory: cvm::Memory,
    /// The advice table afterwards.
    pub advice: Box<cvm::AdviceTable>,
}

/// A host with a position, or none, and the `HostCall` services of
/// [`host_service`].
struct CaseHost(Option<BoardView>);

/// The `HostCall` services the conformance host answers, for the cases on
/// fuel a host reports ([`cvm::Host::extension_metered`]); any other
/// service answers 0 and reports no work (the default).
pub mod host_service {
    /// `HostCall(1, a, b, _)`: answers `a`, reporting `b` units of work
    /// (a negative `b` as none).
    pub const COSTING: i32 = 1;
    /// `HostCall(2, _, _, _)`: answers the budget it was offered (at most
    /// `i32::MAX`), reporting no work: the cases check that every backend
    /// offers the same.
    pub const BUDGET: i32 = 2;
    /// `HostCall(3, _, _, _)`: gives up with out-of-fuel whatever the
    /// budget.
    pub const GIVE_UP: i32 = 3;
    /// `HostCall(4, a, _, _)`: fails with an intrinsic error after `a`
    /// units of work (an error other than out-of-fuel charges no work).
    pub const FAIL: i32 = 4;
}

impl cvm::Host for CaseHost {
    fn board(&self) -> Option<&BoardView> {
        self.0.as_ref()
    }

    fn extension_metered(
        &mut self,
        service: i32,
        [a, b, _]: [i32; 3],
        budget: u64,
    ) -> Result<cvm::HostAnswer, TrapKind> {
        Ok(match service {
            host_service::COSTING => cvm::HostAnswer::costing(a, u64::try_from(b).unwrap_or(0)),
            host_service::BUDGET => {
                cvm::HostAnswer::free(i32::try_from(budget).unwrap_or(i32::MAX))
            }
            host_service::GIVE_UP => return Err(TrapKind::OutOfFuel),
            host_service::FAIL => {
                return Err(TrapKind::Intrinsic(format!("failed after {a} units")))
            }
            _ => cvm::HostAnswer::free(0),
        })
    }
}

/// Runs `func` of `program` with `args` under `limits` on `backend`,
/// writing output to `out`. A program the JIT cannot compile is an error
/// of its own (never expected by a case).
pub fn run_on(
    backend: Backend,
    program: &Program,
    func: u32,
    args: &[i32],
    limits: Limits,
    out: &mut CollectOutput,
) -> Result<Result<Completion, RuntimeError>, String> {
    run_with_board(backend, program, func, args, limits, None, out).map(|o| o.result)
}

/// [`run_on`] on a position (`None`: no board), with everything the run
/// left behind.
pub fn run_with_board(
    backend: Backend,
    program: &Program,
    func: u32,
    args: &[i32],
    limits: Limits,
    board: Option<BoardView>,
    out: &mut CollectOutput,
) -> Result<Outcome, String> {
    let prepared = Prepared::new(program.clone(), backend)
        .map_err(|e| format!("{backend} cannot prepare the program: {e}"))?;
    Ok(run_prepared(&prepared, func, args, limits, board, out))
}

/// [`run_with_board`] on a prepared program.
pub fn run_prepared(
    prepared: &Prepared,
    func: u32,
    args: &[i32],
    limits: Limits,
    board: Option<BoardView>,
    out: &mut CollectOutput,
) -> Outcome {
    let mut vm = prepared.instance();
    vm.set_limits(limits);
    let result = vm.call(func, args, &mut CaseHost(board), out);
    Outcome {
        result,
        fuel_used: vm.fuel_used(),
        memory: vm.memory().clone(),
        advice: Box::new(vm.advice().clone()),
    }
}

/// The name of a trap kind used in case files.
pub fn kind_name(kind: &TrapKind) -> &'static str {
    match kind {
        TrapKind::DivisionByZero => "division-by-zero",
        TrapKind::ListIndex { .. } => "list-index",
        TrapKind::ListOverflow { .. } => "list-overflow",
        TrapKind::CallDepth(_) => "call-depth",
        TrapKind::OutOfFuel => "out-of-fuel",
        TrapKind::Intrinsic(_) => "intrinsic",
        TrapKind::BadCall(_) => "bad-call",
    }
}

impl Case {
    /// Parses a case file.
    pub fn parse(name: &str, text: &str) -> Result<Case, String> {
        let (module, labels) =
            asm::assemble_with_labels(text).map_err(|e| format!("{name}: {e}"))?;
        let mut case = Case {
            name: name.to_string(),
            module,
            labels,
            func: None,
            args: Vec::new(),
            limits: Limits::default(),
            board: None,
            expect: Expect::default(),
        };
        for line in text.lines() {
            let Some(rest) = line.trim().strip_prefix(";!") else {
                continue;
            };
            let rest = rest.trim();
            let (key, value) = rest.split_once(' ').unwrap_or((rest, ""));
            let value = value.trim();
            let bad = || format!("{name}: bad directive `{rest}`");
            let int = |s: &str| s.parse::<i64>().ok().and_then(|v| i32::try_from(v).ok());
            match key {
                "call" => {
                    let mut words = value.split_whitespace();
                    case.func = Some(words.next().ok_or_else(bad)?.to_string());
                    for w in words {
                        case.args.push(int(w).ok_or_else(bad)?);
                    }
                }
                "fuel" => case.limits.fuel = Some(value.parse().map_err(|_| bad())?),
                "depth" => case.limits.max_depth = value.parse().map_err(|_| bad())?,
                "result" => {
                    case.expect.completion = Some(Completion::Returned(if value == "none" {
                        None
                    } else {
                        Some(int(value).ok_or_else(bad)?)
                    }))
                }
                "halt" => case.expect.completion = Some(Completion::Halted),
                "fuel-used" => case.expect.fuel_used = Some(value.parse().map_err(|_| bad())?),
                "fen" => {
                    case.board =
                        Some(BoardView::from_fen(value).map_err(|e| format!("{name}: {e}"))?)
                }
                "list" => {
                    let mut words = value.split_whitespace();
                    let list = words.next().ok_or_else(bad)?.to_string();
                    let values = words
                        .map(|w| int(w).ok_or_else(bad))
                        .collect::<Result<Vec<i32>, String>>()?;
                    case.expect.lists.push((list, values));
                }
                "advice" => {
                    case.expect.advice_empty = Some(match value {
                        "empty" => true,
                        "set" => false,
                        _ => return Err(bad()),
                    })
                }
                "out" => case
                    .expect
                    .output
                    .push(OutputLine::Value(int(value).ok_or_else(bad)?)),
                "text" => case.expect.output.push(OutputLine::Text(value.to_string())),
                "error" => {
                    let (kind, at) = value.split_once(" at ").ok_or_else(bad)?;
                    let offset = *case
                        .labels
                        .get(at.trim())
                        .ok_or_else(|| format!("{name}: unknown label {at}"))?;
                    case.expect.error = Some((kind.trim().to_string(), offset));
                }
                _ => return Err(bad()),
            }
        }
        if case.expect.completion.is_none() && case.expect.error.is_none() {
            return Err(format!("{name}: no expected result or error"));
        }
        Ok(case)
    }

    /// Verifies the module and runs the case on `backend`; `Err` says how
    /// the outcome differs from the expectation.
    pub fn check(&self, backend: Backend) -> Result<(), String> {
        let program = Program::new(self.module.clone())
            .map_err(|e| format!("{}: does not verify: {e}", self.name))?;
        let prepared = Prepared::new(program, backend)
            .map_err(|e| format!("{}: {backend} cannot prepare the program: {e}", self.name))?;
        self.check_prepared(&prepared)
    }

    /// Runs the case on the tiered backend once for every call the
    /// interpreter makes, forcing the switch to native code at that call
    /// (`jit::TierConfig::switch_at_with`), and once for every backward
    /// jump it takes, continuing the running frame on native code from
    /// the loop's header (`jit::TierConfig::switch_at_back_edge`); to
    /// Cranelift's code and (where the host has it) to the baseline
    /// generator's: the hand-over from the interpreter to compiled code
    /// must change nothing. Returns how many switch points were tried.
    pub fn check_switch_points(&self) -> Result<usize, String> {
        let program = Program::new(self.module.clone())
            .map_err(|e| format!("{}: does not verify: {e}", self.name))?;
        let mut tried = 0;
        for &codegen in jit::CodeGen::available() {
            for back_edges in [false, true] {
                for at in 0.. {
                    let (config, point) = if back_edges {
                        (
                            jit::TierConfig::switch_at_back_edge(at, codegen),
                            "back edge",
                        )
                    } else {
                        (jit::TierConfig::switch_at_with(at, codegen), "call")
                    };
                    let prepared = Prepared::tiered(program.clone(), config);
                    self.check_prepared(&prepared)
                        .map_err(|e| format!("{e} (switch at {point} {at} to {codegen:?} code)"))?;
                    let reached = prepared
                        .tiered_program()
                        .is_some_and(|t| t.compiled_functions() > 0);
                    if !reached || at >= 256 {
                        tried += at as usize;
                        break;
                    }
                }
            }
        }
        Ok(tried)
    }

    /// Runs the case on a prepared program (see [`Case::check`]), for
    /// backends [`Case::check`] does not name, such as the JIT's baseline
    /// code generator.
    pub fn check_prepared(&self, prepared: &Prepared) -> Result<(), String> {
        let name = &self.name;
        let program = prepared.program();
        let module = program.module();
        let func = match &self.func {
            Some(f) => module
                .function_index(f)
                .ok_or_else(|| format!("{name}: no function {f}"))?,
            None => module
                .entry
                .or_else(|| module.function_index("main"))
                .ok_or_else(|| format!("{name}: no entry point and no main"))?,
        };
        let mut out = CollectOutput::default();
        let outcome = run_prepared(
            prepared,
            func,
            &self.args,
            self.limits,
            self.board,
            &mut out,
        );
        let result = outcome.result;
        if prepared.backend() == Backend::Interp {
            // Every case keeps fuel's bound on the instructions it runs.
            crate::oracle::check_call_fuel_bound(
                program,
                func,
                &self.args,
                self.limits,
                &mut CaseHost(self.board),
            )
            .map_err(|e| format!("{name}: {e}"))?;
        }
        if let Some(want) = self.expect.fuel_used {
            if outcome.fuel_used != want {
                return Err(format!(
                    "{name}: used {} fuel, expected {want}",
                    outcome.fuel_used
                ));
            }
        }
        for (list, want) in &self.expect.lists {
            let id = module
                .lists
                .iter()
                .position(|l| &l.name == list)
                .ok_or_else(|| format!("{name}: no list {list}"))?;
            let got = outcome.memory.list(id as u32);
            if got.get(..want.len()) != Some(&want[..]) {
                return Err(format!(
                    "{name}: list {list} holds {got:?}, expected {want:?}"
                ));
            }
        }
        if let Some(empty) = self.expect.advice_empty {
            if outcome.advice.is_empty() != empty {
                return Err(format!(
                    "{name}: the advice table is {}, expected {}",
                    if empty { "set" } else { "empty" },
                    if empty { "empty" } else { "set" }
                ));
            }
        }
        if out.lines != self.expect.output {
            return Err(format!(
                "{name}: output {:?}, expected {:?}",
                out.lines, self.expect.output
            ));
        }
        match (&result, &self.expect.error) {
            (Ok(c), None) => {
                if Some(*c) != self.expect.completion {
                    return Err(format!(
                        "{name}: completed with {c:?}, expected {:?}",
                        self.expect.completion
                    ));
                }
            }
            (Err(e), Some((kind, offset))) => {
                if kind_name(&e.kind) != kind || e.offset != *offset {
                    return Err(format!(
                        "{name}: error {} at {}, expected {kind} at {offset}",
                        kind_name(&e.kind),
                        e.offset
                    ));
                }
            }
            (Ok(c), Some((kind, offset))) => {
                return Err(format!(
                    "{name}: completed with {c:?}, expected error {kind} at {offset}"
                ))
            }
            (Err(e), None) => {
                return Err(format!(
                    "{name}: failed with {e}, expected {:?}",
                    self.expect.completion
                ))
            }
        }
        Ok(())
    }
}
