//! The CHEG differential oracle on programs the fuzz target `cheg_differential` found.

use cvm_testkit::cheg_oracle::{check, optimizer_difference, FENS, FUEL};

/// Found by `cheg_differential` in its first seconds: an endless loop whose backward jump and
/// intrinsic both charge fuel. The optimizer shortens `main` (its entry charge is one unit
/// less), so under the same limit the plain code runs out at the backward jump (line 3) and the
/// optimized code at the intrinsic (line 2): both out of fuel, both with no BREAK line.
const ENDLESS_LOOP: &str = "ENTRY K&P,K
L0:\tUNPLAN
L1:\tJUMP#= \"(1,(2)),A,L0
\tBREAK A,A,A
\tBREAK A,A,A
\tBREAK A,A,A
\tBREAK A,A,A
\tBREAK A,A,A
\tBREAK A,A,A
\tBREAK A,A,A
\tBREAK A,A,A
END
";

/// Runs `text` on the interpreter, plain and optimized, on the first position.
fn plain_and_optimized(
    text: &str,
) -> (
    cvm_testkit::cheg_oracle::Outcome,
    cvm_testkit::cheg_oracle::Outcome,
) {
    let c = cheg::compile_str("gen.cheg", text);
    let program = cheg::checked(&c).expect("compiles").clone();
    let plain = c.program.clone().expect("verifies");
    let optimized = cvm::opt::optimize(&plain).0;
    let position = chess_core::Position::from_fen(FENS[0]).expect("fen");
    let run = |p: &cvm::Program| {
        let prepared = jit::Prepared::new(p.clone(), cvm::Backend::Interp).expect("prepared");
        let mut vm = prepared.instance();
        vm.set_limits(cvm::Limits {
            fuel: Some(FUEL),
            max_depth: 64,
        });
        let mut search = cheg::search::FixedDepth { depth: 1 };
        cheg::run(&mut *vm, &program, position, &mut search)
    };
    (run(&plain), run(&optimized))
}

#[test]
fn an_endless_loop_runs_out_of_fuel_in_both_forms() {
    let (plain, optimized) = plain_and_optimized(ENDLESS_LOOP);
    let line = |o: &cvm_testkit::cheg_oracle::Outcome| match o {
        Err(f) if f.error.kind == cvm::TrapKind::OutOfFuel => f.error.pos.as_ref().map(|p| p.line),
        other => panic!("expected out of fuel, got {other:?}"),
    };
    // Where each stops differs (so equality of the error positions cannot be the relation) ...
    assert_eq!((line(&plain), line(&optimized)), (Some(3), Some(2)));
    // ... but the relation the oracle checks holds, on every backend and position.
    assert_eq!(optimizer_difference(&plain, &optimized), None);
    check(ENDLESS_LOOP).expect("the oracle agrees");
}

fn report(breaks: &[&str]) -> cheg::Report {
    cheg::Report {
        entry: Some(0),
        breaks: breaks.iter().map(|b| b.to_string()).collect(),
        ..cheg::Report::default()
    }
}

fn out_of_fuel(breaks: &[&str], line: u32) -> cvm_testkit::cheg_oracle::Outcome {
    Err(cheg::RunFailure {
        error: cvm::RuntimeError {
            kind: cvm::TrapKind::OutOfFuel,
            offset: 0,
            pos: Some(cvm::module::SourcePos {
                file: "x.cheg".into(),
                line,
                col: 1,
            }),
        },
        report: Box::new(report(breaks)),
    })
}

#[test]
fn the_relation_refuses_what_it_must() {
    // A run out of fuel that wrote a line the other did not write.
    assert!(optimizer_difference(&out_of_fuel(&["a", "x"], 2), &Ok(report(&["a", "b"]))).is_some());
    assert!(optimizer_difference(&out_of_fuel(&["a"], 2), &Ok(report(&["a", "b"]))).is_none());
    assert!(optimizer_difference(&out_of_fuel(&["b"], 2), &out_of_fuel(&["a", "b"], 3)).is_some());
    // Without fuel running out, everything but the offset must agree.
    assert!(optimizer_difference(&Ok(report(&["a"])), &Ok(report(&["b"]))).is_some());
    assert!(optimizer_difference(&Ok(report(&["a"])), &Ok(report(&["a"]))).is_none());
}
