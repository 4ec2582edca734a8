//! The differential oracle for CHEG programs: one program run by the
//! interpreter and the JIT, each on the compiler's code and on the
//! optimized code, for each side to move.
//!
//! What must hold, as for Che++ (`docs/optimizer.md`, "What it promises"):
//!
//! - the two backends on the same code: identical outcomes (report, or
//!   runtime error with its kind, code offset and source position, and the
//!   report up to it);
//! - plain against optimized code under one fuel limit: where neither runs
//!   out of fuel, the same outcome but for an error's code offset; where one
//!   runs out of fuel, the same entry and its BREAK lines a prefix of the
//!   other run's (each a prefix of the other when both run out). The
//!   optimizer changes the fuel a program charges (the size part of a call's
//!   or a backward jump's charge follows the code's length), so under a
//!   limit the two runs can stop at different charging points, at the
//!   margin, as a Che++ run can.

use cheg::{Report, RunFailure};

/// The outcome of one CHEG run.
pub type Outcome = Result<Report, RunFailure>;

/// The fuel of every run.
pub const FUEL: u64 = 5_000;

/// The positions every program runs on: one for each side to move.
pub const FENS: [&str; 2] = [
    "8/8/8/4k3/8/8/4P3/4K3 w - - 0 1",
    "4k3/4p3/8/8/8/8/8/4K3 b - - 0 1",
];

/// Whether `o` ended by running out of fuel.
fn out_of_fuel(o: &Outcome) -> bool {
    matches!(o, Err(f) if f.error.kind == cvm::TrapKind::OutOfFuel)
}

/// The BREAK lines and the entry of an outcome.
fn breaks(o: &Outcome) -> (Option<usize>, &[String]) {
    match o {
        Ok(r) => (r.entry, &r.breaks),
        Err(f) => (f.report.entry, &f.report.breaks),
    }
}

/// Compares the plain code's outcome with the optimized code's under one
/// fuel limit (see the module documentation); `None` when they agree.
pub fn optimizer_difference(plain: &Outcome, optimized: &Outcome) -> Option<String> {
    if out_of_fuel(plain) || out_of_fuel(optimized) {
        let (entry_p, lines_p) = breaks(plain);
        let (entry_o, lines_o) = breaks(optimized);
        let prefix = match (out_of_fuel(plain), out_of_fuel(optimized)) {
            (true, true) => lines_p.starts_with(lines_o) || lines_o.starts_with(lines_p),
            (true, false) => lines_o.starts_with(lines_p),
            _ => lines_p.starts_with(lines_o),
        };
        return (entry_p != entry_o || !prefix).then(|| {
            format!(
                "out of fuel: plain {plain:?}, optimized {optimized:?} (the BREAK lines of a run out of fuel must be a prefix of the other's)"
            )
        });
    }
    let without_offset = |r: &Outcome| match r {
        Ok(report) => Ok(report.clone()),
        Err(f) => Err((f.error.kind.clone(), f.error.pos.clone(), f.report.clone())),
    };
    (without_offset(plain) != without_offset(optimized))
        .then(|| format!("plain {plain:?}, optimized {optimized:?}"))
}

/// Runs the CHEG program `text` as the fuzz target `cheg_differential`
/// does and checks every relation above; `Ok` also for a program that
/// does not compile (the generator may make one).
pub fn check(text: &str) -> Result<(), String> {
    let c = cheg::compile_str("gen.cheg", text);
    let (Some(plain), Some(program)) = (c.program.clone(), cheg::checked(&c)) else {
        return Ok(());
    };
    let optimized = cvm::opt::optimize(&plain).0;
    for fen in FENS {
        let position = chess_core::Position::from_fen(fen).map_err(|e| e.to_string())?;
        // [interp plain, interp optimized, jit plain, jit optimized]
        let mut results = Vec::new();
        for backend in cvm::Backend::ALL {
            for p in [&plain, &optimized] {
                let prepared = jit::Prepared::new(p.clone(), backend)
                    .map_err(|e| format!("{backend:?} refuses CHEG output: {e}\n{text}"))?;
                let mut vm = prepared.instance();
                vm.set_limits(cvm::Limits {
                    fuel: Some(FUEL),
                    max_depth: 64,
                });
                let mut search = cheg::search::FixedDepth { depth: 1 };
                results.push(cheg::run(&mut *vm, program, position, &mut search));
            }
        }
        for pair in results.chunks(2).skip(1) {
            if pair[0] != results[0] {
                return Err(format!("backends disagree on\n{text}"));
            }
            if pair[1] != results[1] {
                return Err(format!("backends disagree (optimized) on\n{text}"));
            }
        }
        if let Some(d) = optimizer_difference(&results[0], &results[1]) {
            return Err(format!("the optimizer changed the outcome of\n{text}\n{d}"));
        }
    }
    Ok(())
}
