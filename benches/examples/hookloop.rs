//! The time of one call of an advice program's leaf hook `Evaluate()`, as
//! the engine makes it at a node, or of one run of its `main()` as the
//! engine makes it at the root, in a loop over the oracle positions: a
//! quick side-by-side for changes to the VMs' call path (`che-lab cost`
//! measures the same with its other rows and reports).
//!
//! ```text
//! cargo run --release -p che-benches --example hookloop -- [--main] [--one INDEX] BACKEND [PASSES] [PROGRAM]
//! ```
//!
//! `BACKEND` is `interp`, `jit`, `auto`, `baseline` (the JIT's baseline
//! code generator alone: the code the engine's JIT runs until Cranelift's
//! arrives) or `native` (the bundled program's twin); `PASSES` (default
//! 4,000) passes over
//! the 240 positions are timed; `PROGRAM` is a Che++ file with an
//! `Evaluate()` (default: the bundled program). With `--main` the loop
//! runs `main()` (`Session::run_root`: reset, board view, the run, its
//! printed lines) instead. With `--one INDEX` every call is made on oracle
//! position `INDEX` (0..239), 240 times a pass, so that the branches that
//! follow the position are predicted as well as they can be: the time
//! against the 240 positions is what the mispredicted ones cost. On the
//! JIT the loop starts once Cranelift's code has replaced the baseline
//! code; the milliseconds the program took to load (compiled and
//! verified) and, after that, for Cranelift's code to arrive are printed to
//! standard error. Prints the sum of the values (with `--main`:
//! of the printed lines) and the nanoseconds a call.

use che_engine::advisor::{Advisor, Backend, ProgramSource};
use che_engine::host::AdviceHost;
use che_engine::native::NativeHook;
use che_engine::search::LeafHook;
use chess_core::colour::Colour;
use chess_core::Position;
use cvm::{CollectOutput, NullOutput};
use std::time::{Duration, Instant};

fn main() {
    if let Err(e) = run() {
        eprintln!("hookloop: {e}");
        std::process::exit(2);
    }
}

fn run() -> Result<(), String> {
    let mut args = std::env::args().skip(1).peekable();
    let main = args.next_if(|a| a == "--main").is_some();
    let one = match args.next_if(|a| a == "--one") {
        Some(_) => {
            let n = args.next().ok_or("--one needs a position index")?;
            Some(
                n.parse::<usize>()
                    .map_err(|e| format!("--one {n:?}: {e}"))?,
            )
        }
        None => None,
    };
    let backend = args
        .next()
        .ok_or("usage: hookloop [--main] [--one INDEX] BACKEND [PASSES] [PROGRAM]")?;
    let passes: usize = match args.next() {
        Some(n) => n.parse().map_err(|e| format!("passes {n:?}: {e}"))?,
        None => 4000,
    };
    let source = args
        .next()
        .map_or(ProgramSource::ShannyEval, |p| ProgramSource::File(p.into()));
    let mut positions = che_benches::oracle_positions();
    if let Some(i) = one {
        let pos = positions
            .get(i)
            .cloned()
            .ok_or_else(|| format!("--one {i}: there are {} positions", positions.len()))?;
        positions = vec![pos; positions.len()];
    }
    let mut host = AdviceHost::new(&Position::startpos());
    let (sum, elapsed) = if backend == "native" {
        let mut twin = che_benches::lab::twin::ShannyTwin::default();
        if main {
            let mut table = Box::<cvm_chess::advice_table::AdviceTable>::default();
            return report(
                time(passes, &positions, |pos| {
                    i32::try_from(twin.run_root(&mut host, &mut table, pos).len()).ok()
                }),
                passes,
                positions.len(),
            );
        }
        let mut hook = NativeHook {
            advice: &mut twin,
            host: &mut host,
        };
        time(passes, &positions, |pos| hook.evaluate(pos))
    } else if backend == "baseline" {
        let advisor = Advisor::load(&source).map_err(|e| e.to_string())?;
        let prepared =
            jit::Prepared::baseline(advisor.program().clone()).map_err(|e| e.to_string())?;
        let mut vm = prepared.instance();
        host.set_position(&Position::startpos());
        vm.run_entry(&mut host, &mut NullOutput)
            .map_err(|e| e.to_string())?;
        if main {
            let mut out = CollectOutput::default();
            let mut failed = None;
            let timed = time(passes, &positions, |pos| {
                // `Session::run_root`'s steps: reset, board view, the run.
                vm.reset();
                host.set_position(pos);
                out.lines.clear();
                match vm.run_entry(&mut host, &mut out) {
                    Ok(_) => i32::try_from(out.lines.len()).ok(),
                    Err(e) => {
                        failed = Some(e.to_string());
                        None
                    }
                }
            });
            if let Some(e) = failed {
                return Err(e);
            }
            timed
        } else {
            let hook = advisor
                .program()
                .module()
                .function_index("Evaluate")
                .ok_or("the program has no Evaluate()")?;
            // `Session::call_hook`'s steps: board view, the call, the sign.
            time(passes, &positions, |pos| {
                host.set_position(pos);
                let sign = match pos.side_to_move() {
                    Colour::White => 1,
                    Colour::Black => -1,
                };
                let done = vm.call(hook, &[], &mut host, &mut NullOutput).ok()?;
                done.value().map(|v| v.saturating_mul(sign))
            })
        }
    } else {
        let backend: Backend = backend.parse().map_err(|e| format!("{e}"))?;
        let deadline = Duration::from_secs(60);
        let loading = Instant::now();
        let mut advisor = Advisor::load(&source).map_err(|e| e.to_string())?;
        let loaded = loading.elapsed();
        let prepared = advisor.prepare(backend).map_err(|e| e.to_string())?;
        if !che_benches::lab::experiments::cost::wait_for_cranelift(prepared, deadline) {
            return Err("Cranelift's code did not arrive".into());
        }
        if backend == Backend::Jit {
            eprintln!(
                "loaded in {:.2} ms; Cranelift's code arrived {:.2} ms later",
                ms(loaded),
                ms(loading.elapsed() - loaded)
            );
        }
        let mut session = advisor
            .session(backend, &mut host)
            .map_err(|e| e.to_string())?;
        session.run_root(&Position::startpos())?;
        if main {
            let mut failed = None;
            let timed = time(passes, &positions, |pos| match session.run_root(pos) {
                Ok(run) => i32::try_from(run.output.len()).ok(),
                Err(e) => {
                    failed = Some(e);
                    None
                }
            });
            if let Some(e) = failed {
                return Err(e);
            }
            timed
        } else {
            if !session.has_hook() {
                return Err("the program has no Evaluate()".into());
            }
            time(passes, &positions, |pos| session.call_hook(pos))
        }
    };
    report((sum, elapsed), passes, positions.len())
}

/// Prints the sum and the time of one call of `passes` passes over
/// `positions` positions.
fn report(
    (sum, elapsed): (Option<i64>, Duration),
    passes: usize,
    positions: usize,
) -> Result<(), String> {
    let sum = sum.ok_or("a call gave no value")?;
    let calls = (passes * positions).max(1) as f64;
    println!("{sum} {:.2} ns/call", elapsed.as_nanos() as f64 / calls);
    Ok(())
}

/// Calls `hook` on every position `passes` times: the sum of the values
/// (`None` when a call gave none) and the time taken.
fn time(
    passes: usize,
    positions: &[Position],
    mut hook: impl FnMut(&Position) -> Option<i32>,
) -> (Option<i64>, Duration) {
    let start = Instant::now();
    let mut sum = Some(0i64);
    for _ in 0..passes {
        for pos in positions {
            sum = sum.zip(hook(pos)).map(|(s, v)| s + i64::from(v));
        }
    }
    (sum, start.elapsed())
}

/// `d` in milliseconds.
fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
