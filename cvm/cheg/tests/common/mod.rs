//! Shared helpers: compile a CHEG program and run it on every backend,
//! with and without the optimizer, insisting that all runs agree.

#![allow(dead_code)]

use chess_core::Position;
use cvm::{Backend, Limits, Program};

/// What a run printed, or the runtime error's text (`file:line:col: error: ...`).
pub type Outcome = Result<Vec<String>, String>;

fn run_one(
    c: &cheg::Compilation,
    program: Program,
    backend: Backend,
    fen: &str,
    depth: u32,
    fuel: Option<u64>,
) -> Outcome {
    let prepared = jit::Prepared::new(program, backend).expect("backend prepares");
    let mut vm = prepared.instance();
    vm.set_limits(Limits {
        fuel,
        ..Limits::default()
    });
    let position = Position::from_fen(fen).expect("test FEN");
    let mut search = cheg::search::FixedDepth { depth };
    match cheg::run(
        &mut *vm,
        cheg::checked(c).expect("program"),
        position,
        &mut search,
    ) {
        Ok(report) => Ok(report.lines()),
        Err(f) => {
            let mut lines = f.report.breaks.clone();
            lines.push(f.error.to_string());
            Err(lines.join("\n"))
        }
    }
}

/// Runs `src` on `fen` on the interpreter and the JIT, each with and
/// without the optimizer; all four must agree. Returns the outcome.
pub fn run_all(src: &str, fen: &str) -> Outcome {
    run_with(src, fen, 2, None)
}

/// As [`run_all`] with a search depth and a fuel bound.
pub fn run_with(src: &str, fen: &str, depth: u32, fuel: Option<u64>) -> Outcome {
    let c = cheg::compile_str("t.cheg", src);
    assert!(c.is_ok(), "compile errors:\n{}", c.render_diagnostics());
    let plain = c.program.clone().expect("verifies");
    let optimized = cvm::opt::optimize(&plain).0;
    let mut outcomes = Vec::new();
    for backend in [Backend::Interp, Backend::Jit] {
        for p in [plain.clone(), optimized.clone()] {
            outcomes.push(run_one(&c, p, backend, fen, depth, fuel));
        }
    }
    for o in &outcomes[1..] {
        assert_eq!(o, &outcomes[0], "backends or optimizer disagree on\n{src}");
    }
    outcomes.swap_remove(0)
}

/// The lines of a run that must succeed.
pub fn lines(src: &str, fen: &str) -> Vec<String> {
    match run_all(src, fen) {
        Ok(l) => l,
        Err(e) => panic!("runtime error: {e}\nprogram:\n{src}"),
    }
}

/// A program: ENTRY for any material given, the body lines indented.
pub fn prog(entry: &str, body: &[&str]) -> String {
    let mut s = format!("ENTRY {entry}\n");
    for l in body {
        if l.contains(":\t") || l.ends_with(':') {
            s.push_str(l);
        } else {
            s.push('\t');
            s.push_str(l);
        }
        s.push('\n');
    }
    s.push_str("END\n");
    s
}

/// The BREAK values of a run: the lines starting with `break `, without it.
pub fn breaks(src: &str, fen: &str) -> Vec<String> {
    lines(src, fen)
        .into_iter()
        .filter_map(|l| l.strip_prefix("break ").map(str::to_string))
        .collect()
}
