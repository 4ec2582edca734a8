//! One measurement of the instruction-count guard, run under callgrind by
//! `benches/icount.py` (which counts only what [`measured`] executes, so
//! start-up, compilation of the source and checks are left out).
//!
//! Usage: `icount MEASUREMENT`, where MEASUREMENT is one of
//! - `interp/NAME`, `baseline/NAME`, `cranelift/NAME`, `auto/NAME`: one
//!   `main()` of the Che++ benchmark program `benches/che/NAME.che`
//!   (optimized, as `che run` loads it) on that backend; the backend is
//!   prepared before the measured part (translation, compilation), except
//!   for `auto`, where the tiering is what is measured (its compilations are
//!   synchronous here so that the count is repeatable);
//! - `compile/shanny`: Cranelift's compilation of the bundled advice program
//!   (every function, on one thread);
//! - `perft/5`: perft 5 from the initial position;
//! - `search/node`: one engine search to depth 5 from the first bench
//!   position with the bundled program's `Evaluate()` at every node, on the
//!   interpreter;
//! - `hook/interp`, `hook/jit`, `hook/native`: the bundled program's leaf
//!   hook `Evaluate()` called as the engine calls it at a node (board view
//!   updated, the call, the sign for the side to move), ten times over each
//!   of the 240 oracle positions, on the interpreter, on the engine's JIT
//!   once Cranelift's code has replaced the baseline code it starts on,
//!   and as the native twin (`che_benches::lab::twin`): what one call of
//!   the advice interface costs against the same knowledge in Rust.
//!
//! `icount --list` prints every measurement, one per line. Every run checks
//! its result (the program's value, the node count) against the expected
//! one and exits with status 1 when it differs.

use che_benches::compile_che_workload;
use cvm::{Backend, NoHost, NullOutput, Program};
use jit::{Prepared, TierConfig};
use std::process::ExitCode;

/// The Che++ benchmark programs and the value `main()` returns.
const PROGRAMS: &[(&str, i32)] = &[
    ("fib", 832_040),
    ("loop", 9018),
    ("sieve", 1028),
    ("listcopy", 8191),
    ("calls", 925_184),
    ("queens", 2680),
];

/// The backends of the per-program rows.
const BACKENDS: &[&str] = &["interp", "baseline", "cranelift", "auto"];

/// Perft 5 from the initial position (published count).
const PERFT_5: u64 = 4_865_609;

/// Every measurement this binary knows, in the guard's order.
fn measurements() -> Vec<String> {
    let mut all = Vec::new();
    for backend in BACKENDS {
        for (name, _) in PROGRAMS {
            all.push(format!("{backend}/{name}"));
        }
    }
    all.push("compile/shanny".into());
    all.push("perft/5".into());
    all.push("search/node".into());
    for backend in HOOK_BACKENDS {
        all.push(format!("hook/{backend}"));
    }
    for backend in ROOT_BACKENDS {
        all.push(format!("root/{backend}"));
    }
    for backend in ROOT_BACKENDS {
        all.push(format!("patterns/{backend}"));
    }
    all
}

/// The backends of the `hook/` rows (`native` is the twin).
const HOOK_BACKENDS: &[&str] = &["interp", "jit", "auto", "native"];

/// The backends of the `root/` rows (not `auto`: `main()` gets hot during
/// the measured runs, when a background compilation arrives, which no
/// count can repeat).
const ROOT_BACKENDS: &[&str] = &["interp", "jit", "native"];

/// Passes over the oracle positions in a `hook/` row.
const HOOK_PASSES: usize = 10;

/// Passes over the oracle positions in a `root/` row.
const ROOT_PASSES: usize = 2;

/// The part callgrind counts (`--toggle-collect` names this function):
/// runs `work` and returns what it returned. Never inlined, so that the
/// symbol exists.
#[inline(never)]
fn measured(work: &mut dyn FnMut() -> Result<i64, String>) -> Result<i64, String> {
    work()
}

/// Loads benchmark program `name`, optimized.
fn program(name: &str) -> Result<Program, String> {
    compile_che_workload(name, true).ok_or_else(|| format!("no program benches/che/{name}.che"))
}

/// Prepares `program` on `backend` (compilation before the measured part).
fn prepare(program: Program, backend: &str) -> Result<Prepared, String> {
    let prepared = match backend {
        "interp" => Prepared::new(program, Backend::Interp),
        "baseline" => Prepared::baseline(program),
        "cranelift" => Prepared::new(program, Backend::Jit),
        "auto" => Ok(Prepared::tiered(
            program,
            TierConfig {
                background: false,
                ..TierConfig::DEFAULT
            },
        )),
        other => return Err(format!("unknown backend `{other}`")),
    };
    prepared.map_err(|e| e.to_string())
}

/// One `main()` of a benchmark program on a backend.
fn run_program(backend: &str, name: &str) -> Result<(), String> {
    let expected = PROGRAMS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|&(_, v)| v)
        .ok_or_else(|| format!("unknown program `{name}`"))?;
    let prepared = prepare(program(name)?, backend)?;
    let mut vm = prepared.instance();
    let got = measured(&mut || {
        let done = vm
            .run_entry(&mut NoHost, &mut NullOutput)
            .map_err(|e| e.to_string())?;
        Ok(i64::from(done.value().unwrap_or(i32::MIN)))
    })?;
    check(got, i64::from(expected))
}

/// Cranelift's compilation of the bundled advice program.
fn compile_shanny() -> Result<(), String> {
    let program = cvm::opt::optimize(&che_benches::example_program()).0;
    let functions = program.module().functions.len() as i64;
    jit::set_compile_threads(1);
    let got = measured(&mut || {
        let prepared = Prepared::new(program.clone(), Backend::Jit).map_err(|e| e.to_string())?;
        Ok(prepared.program().module().functions.len() as i64)
    })?;
    check(got, functions)
}

/// Perft 5 from the initial position.
fn perft() -> Result<(), String> {
    let start = chess_core::Position::startpos();
    let got = measured(&mut || Ok(chess_core::perft::perft(&start, 5) as i64))?;
    check(got, PERFT_5 as i64)
}

/// One engine search with node-level advice on the interpreter.
fn search() -> Result<(), String> {
    use che_engine::advisor::{AdviceMode, ProgramSource};
    use che_engine::engine::{Engine, EngineEvent, BENCH_POSITIONS};
    use che_engine::options::EngineOptions;
    use che_engine::search::{GoParams, SearchControl};

    let mut engine = Engine::new(EngineOptions {
        hash_mb: 16,
        program: ProgramSource::ShannyEval,
        backend: Backend::Interp,
        advice_mode: AdviceMode::Node,
        ..EngineOptions::default()
    });
    if let Some(e) = engine.program_error() {
        return Err(e.to_string());
    }
    let fen = BENCH_POSITIONS.first().ok_or("no bench position")?;
    let pos = chess_core::Position::from_fen(fen).map_err(|e| e.to_string())?;
    engine.new_game();
    engine
        .set_position(pos, &[])
        .map_err(|_| "bench position refused".to_string())?;
    let go = GoParams {
        depth: Some(5),
        ..GoParams::default()
    };
    let control = SearchControl::new();
    let mut errors = Vec::new();
    let nodes = measured(&mut || {
        let result = engine.think(&go, &control, &mut |e| {
            if let EngineEvent::Note(n) = e {
                if n.starts_with("error") {
                    errors.push(n);
                }
            }
        });
        Ok(result.nodes as i64)
    })?;
    if let Some(e) = errors.first() {
        return Err(e.clone());
    }
    // The search is deterministic; its node count is printed so that the
    // guard sees a change of the tree apart from a change of speed.
    println!("nodes {nodes}");
    Ok(())
}

/// The bundled program with its leaf hook prepared for `backend`, on the
/// engine's JIT once Cranelift's code has replaced the baseline code it
/// starts on (what a search runs after its first milliseconds): the rows
/// `hook/` and `root/` time that code.
fn steady_advisor(
    backend: &str,
) -> Result<(che_engine::advisor::Backend, che_engine::advisor::Advisor), String> {
    steady_advisor_of(&che_engine::advisor::ProgramSource::ShannyEval, backend)
}

/// [`steady_advisor`] for the program `source`.
fn steady_advisor_of(
    source: &che_engine::advisor::ProgramSource,
    backend: &str,
) -> Result<(che_engine::advisor::Backend, che_engine::advisor::Advisor), String> {
    use che_engine::advisor::Backend as EngineBackend;
    let backend: EngineBackend = backend.parse().map_err(|e| format!("{e}"))?;
    let advisor = che_benches::lab::experiments::cost::steady_advisor(
        source,
        backend,
        std::time::Duration::from_secs(120),
    )?;
    Ok((backend, advisor))
}

/// Calls `Evaluate()` on an instance of the tiered program over the
/// positions until the function has Cranelift's code (hotness and code
/// belong to the program, so the measured session's instance finds that
/// code at its first call): the `hook/auto` row times the engine's leaf
/// hook on `auto` as a search runs it once the hook is hot.
fn warm_tiered_hook(
    advisor: &mut che_engine::advisor::Advisor,
    host: &mut che_engine::host::AdviceHost,
    positions: &[chess_core::Position],
) -> Result<(), String> {
    let prepared = advisor
        .prepare(che_engine::advisor::Backend::Auto)
        .map_err(|e| e.to_string())?;
    let tiered = prepared.tiered_program().ok_or("not a tiered program")?;
    let evaluate = prepared
        .program()
        .module()
        .function_index("Evaluate")
        .ok_or("the program has no Evaluate()")?;
    let mut vm = prepared.instance();
    let started = std::time::Instant::now();
    while tiered.codegen_of(evaluate) != Some(jit::CodeGen::Cranelift) {
        if started.elapsed() > std::time::Duration::from_secs(120) {
            return Err("Cranelift's code for Evaluate() did not arrive".into());
        }
        for pos in positions {
            host.set_position(pos);
            vm.call(evaluate, &[], host, &mut cvm::NullOutput)
                .map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}

/// `Evaluate()` as the engine calls it at a node, [`HOOK_PASSES`] times
/// over the oracle positions, on `backend` or as the native twin; the sum
/// of its values must be the twin's.
fn hook(backend: &str) -> Result<(), String> {
    use che_benches::lab::twin::ShannyTwin;
    use che_engine::host::AdviceHost;
    use che_engine::native::NativeHook;
    use che_engine::search::LeafHook;
    use chess_core::Position;

    let positions = che_benches::oracle_positions();
    let twin_sum = |measure: bool| -> Result<i64, String> {
        let mut twin = ShannyTwin::default();
        let mut host = AdviceHost::new(&Position::startpos());
        let mut hook = NativeHook {
            advice: &mut twin,
            host: &mut host,
        };
        let mut work = || {
            let mut sum = 0i64;
            for _ in 0..HOOK_PASSES {
                for pos in &positions {
                    sum += i64::from(hook.evaluate(pos).ok_or("the twin gave no value")?);
                }
            }
            Ok(sum)
        };
        if measure {
            measured(&mut work)
        } else {
            work()
        }
    };
    if backend == "native" {
        let got = twin_sum(true)?;
        return check(got, twin_sum(false)?);
    }
    let expected = twin_sum(false)?;
    let (backend, mut advisor) = steady_advisor(backend)?;
    let mut host = AdviceHost::new(&Position::startpos());
    if backend == che_engine::advisor::Backend::Auto {
        warm_tiered_hook(&mut advisor, &mut host, &positions)?;
    }
    let mut session = advisor
        .session(backend, &mut host)
        .map_err(|e| e.to_string())?;
    session.run_root(&Position::startpos())?;
    let got = measured(&mut || {
        let mut sum = 0i64;
        for _ in 0..HOOK_PASSES {
            for pos in &positions {
                let v = session.call_hook(pos).ok_or("the hook gave no value")?;
                sum += i64::from(v);
            }
        }
        Ok(sum)
    })?;
    check(got, expected)
}

/// `main()` as the engine runs it at the root of a search (`Session::run_root`:
/// memory and advice table reset, board view, the run, its printed lines),
/// [`ROOT_PASSES`] times over the oracle positions, on `backend` or as the
/// native twin (the same steps around `ShannyTwin::main`). Every run's
/// advice table is checked against the twin's outside the measured part;
/// the measured part returns the number of printed lines, which must be the
/// twin's.
fn root(backend: &str) -> Result<(), String> {
    use che_benches::lab::experiments::cost::digest;
    use che_benches::lab::twin::ShannyTwin;
    use che_engine::host::AdviceHost;
    use chess_core::Position;
    use cvm_chess::advice_table::AdviceTable;

    let positions = che_benches::oracle_positions();
    // The twin's root steps on `pos`: the number of lines it printed.
    let twin_root =
        |twin: &mut ShannyTwin, host: &mut AdviceHost, table: &mut AdviceTable, pos: &Position| {
            twin.run_root(host, table, pos).len() as i64
        };
    let mut twin = ShannyTwin::default();
    let mut host = AdviceHost::new(&Position::startpos());
    let mut table = Box::<AdviceTable>::default();
    let mut expected = (Vec::new(), 0i64);
    for pos in &positions {
        expected.1 += twin_root(&mut twin, &mut host, &mut table, pos);
        expected.0.push(digest(&table));
    }
    let expected_lines = expected.1 * ROOT_PASSES as i64;
    if backend == "native" {
        let got = measured(&mut || {
            let mut lines = 0i64;
            for _ in 0..ROOT_PASSES {
                for pos in &positions {
                    lines += twin_root(&mut twin, &mut host, &mut table, pos);
                }
            }
            Ok(lines)
        })?;
        return check(got, expected_lines);
    }
    let (backend, mut advisor) = steady_advisor(backend)?;
    let mut host = AdviceHost::new(&Position::startpos());
    let mut session = advisor
        .session(backend, &mut host)
        .map_err(|e| e.to_string())?;
    for (pos, want) in positions.iter().zip(&expected.0) {
        session.run_root(pos)?;
        check(digest(session.advice()), *want)?;
    }
    let got = measured(&mut || {
        let mut lines = 0i64;
        for _ in 0..ROOT_PASSES {
            for pos in &positions {
                lines += session.run_root(pos)?.output.len() as i64;
            }
        }
        Ok(lines)
    })?;
    check(got, expected_lines)
}

/// `benches/advice/patterns.che`'s `main()` as the engine runs it at the
/// root (reset, board view, the program), [`ROOT_PASSES`] times over the
/// oracle positions, on `backend` or as its native twin (the same steps
/// around `patterns_score`). The measured part returns the sum of the
/// values, which must be the twin's.
fn patterns(backend: &str) -> Result<(), String> {
    use che_benches::lab::patterns_twin::{patterns_path, patterns_score};
    use che_engine::advisor::ProgramSource;
    use che_engine::host::AdviceHost;
    use chess_core::Position;
    use cvm_chess::advice_table::AdviceTable;

    let positions = che_benches::oracle_positions();
    let mut host = AdviceHost::new(&Position::startpos());
    let mut table = Box::<AdviceTable>::default();
    // The twin's root steps: the program writes no advice and prints nothing.
    let twin_root = |host: &mut AdviceHost, table: &mut AdviceTable, pos: &Position| {
        host.set_position(pos);
        table.clear_written();
        i64::from(patterns_score(host.board_view()))
    };
    let one_pass: i64 = positions
        .iter()
        .map(|pos| twin_root(&mut host, &mut table, pos))
        .sum();
    let expected = one_pass * ROOT_PASSES as i64;
    if backend == "native" {
        let got = measured(&mut || {
            let mut sum = 0i64;
            for _ in 0..ROOT_PASSES {
                for pos in &positions {
                    sum += twin_root(&mut host, &mut table, pos);
                }
            }
            Ok(sum)
        })?;
        return check(got, expected);
    }
    let (backend, mut advisor) = steady_advisor_of(&ProgramSource::File(patterns_path()), backend)?;
    let mut session = advisor
        .session(backend, &mut host)
        .map_err(|e| e.to_string())?;
    // One pass outside the measured part, each value checked: the first
    // calls' one-time work (the entry worked out, the thread's stack
    // limit looked up) is not what the row measures.
    let mut twin_host = AdviceHost::new(&Position::startpos());
    for pos in &positions {
        let got = i64::from(session.run_root(pos)?.value.unwrap_or(0));
        check(got, twin_root(&mut twin_host, &mut table, pos))?;
    }
    let got = measured(&mut || {
        let mut sum = 0i64;
        for _ in 0..ROOT_PASSES {
            for pos in &positions {
                sum += i64::from(session.run_root(pos)?.value.unwrap_or(0));
            }
        }
        Ok(sum)
    })?;
    check(got, expected)
}

fn check(got: i64, expected: i64) -> Result<(), String> {
    if got == expected {
        Ok(())
    } else {
        Err(format!("result {got}, expected {expected}"))
    }
}

fn main() -> ExitCode {
    let Some(what) = std::env::args().nth(1) else {
        eprintln!("usage: icount MEASUREMENT | --list");
        return ExitCode::from(2);
    };
    if what == "--list" {
        for m in measurements() {
            println!("{m}");
        }
        return ExitCode::SUCCESS;
    }
    let ran = match what.split_once('/') {
        Some(("compile", "shanny")) => compile_shanny(),
        Some(("perft", "5")) => perft(),
        Some(("search", "node")) => search(),
        Some(("hook", backend)) if HOOK_BACKENDS.contains(&backend) => hook(backend),
        Some(("root", backend)) if ROOT_BACKENDS.contains(&backend) => root(backend),
        Some(("patterns", backend)) if ROOT_BACKENDS.contains(&backend) => patterns(backend),
        Some((backend, name)) if BACKENDS.contains(&backend) => run_program(backend, name),
        _ => Err(format!("unknown measurement `{what}` (try --list)")),
    };
    match ran {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("icount {what}: {e}");
            ExitCode::FAILURE
        }
    }
}
