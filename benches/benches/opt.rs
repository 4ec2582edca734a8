//! What the loophole optimizer buys on each backend: every Che++ program of
//! the benchmark set run unoptimized and optimized, on the interpreter and
//! on the JIT, side by side in one run.
//!
//! * `opt/che-NAME`: the Che++ twins of the CVM core set (`che/NAME.che`);
//! * `opt/patterns`: the pattern-heavy advice program
//!   (`advice/patterns.che`) on 64 positions;
//! * `opt/shanny`: the bundled example advice program on the 240 oracle
//!   positions, with a reset of the advice table per position.
//!
//! Columns: `interp-noopt`, `interp`, `jit-noopt`, `jit` (the plain names
//! are the optimized programs, as `che run` builds them by default). Every
//! column's result is checked against the others before it is timed; for
//! the advice program the advice tables must agree too. The clock is the
//! thread's CPU time (`che_benches::clock`).
//!
//! Run: `cargo bench -p che-benches --bench opt`; ratio tables:
//! `python3 benches/report.py opt interp-noopt` and
//! `python3 benches/report.py opt jit-noopt` (see `docs/benchmarks.md`,
//! section "The loophole optimizer"). Executed-instruction counts come from
//! `cargo run --release -p che-benches --bin opstats`.

use che_benches::clock::Clock;
use che_benches::{
    compile_che_file, compile_che_workload, crate_dir, example_program, oracle_positions, WORKLOADS,
};
use che_engine::host::{board_view, AdviceHost};
use criterion::{criterion_group, criterion_main, BenchmarkGroup, Criterion};
use cvm::Vm;
use cvm::{Host, Interpreter, NoHost, NullOutput, Program};
use cvm_chess::board::BoardView;
use jit::JitProgram;
use std::hint::black_box;
use std::time::Duration;

type Group<'a> = BenchmarkGroup<'a, Clock>;

fn group<'a>(c: &'a mut Criterion<Clock>, name: &str) -> Group<'a> {
    let mut g = c.benchmark_group(name);
    g.sample_size(10);
    g.warm_up_time(Duration::from_millis(500));
    g.measurement_time(Duration::from_secs(3));
    g
}

/// The unoptimized program and its optimized form, labelled as the
/// columns are.
fn both(plain: Program) -> [(&'static str, &'static str, Program); 2] {
    let (optimized, _) = cvm::opt::optimize(&plain);
    [
        ("interp-noopt", "jit-noopt", plain),
        ("interp", "jit", optimized),
    ]
}

/// The Che++ twins of the core set: `main()` returns the workload's result.
fn che_twins(c: &mut Criterion<Clock>) {
    for w in WORKLOADS {
        let Some(plain) = compile_che_workload(w.name, false) else {
            eprintln!("che/{}.che missing: skipping it", w.name);
            continue;
        };
        let mut g = group(c, &format!("opt/che-{}", w.name));
        for (interp_label, jit_label, program) in both(plain) {
            let mut interp = Interpreter::new(&program);
            let done = interp
                .run_entry(&mut NoHost, &mut NullOutput)
                .expect("runs");
            assert_eq!(done.value(), Some(w.expected), "{interp_label} {}", w.name);
            g.bench_function(interp_label, |b| {
                b.iter(|| {
                    interp.reset();
                    black_box(interp.run_entry(&mut NoHost, &mut NullOutput).ok())
                })
            });
            let code = JitProgram::compile(&program).expect("compiles");
            let mut vm = code.instance();
            let done = vm.run_entry(&mut NoHost, &mut NullOutput).expect("runs");
            assert!(vm.ran_compiled());
            assert_eq!(done.value(), Some(w.expected), "{jit_label} {}", w.name);
            g.bench_function(jit_label, |b| {
                b.iter(|| {
                    vm.reset();
                    black_box(vm.run_entry(&mut NoHost, &mut NullOutput).ok())
                })
            });
        }
        g.finish();
    }
}

/// A host with a board and nothing else.
struct BoardHost<'b>(&'b BoardView);

impl Host for BoardHost<'_> {
    fn board(&self) -> Option<&BoardView> {
        Some(self.0)
    }
}

/// The stateless pattern program: the sum of `main()` over 64 boards.
fn patterns(c: &mut Criterion<Clock>) {
    let boards: Vec<BoardView> = oracle_positions().iter().take(64).map(board_view).collect();
    assert_eq!(boards.len(), 64);
    let plain = compile_che_file(&crate_dir().join("advice/patterns.che"));
    let mut g = group(c, "opt/patterns");
    let mut totals = Vec::new();
    for (interp_label, jit_label, program) in both(plain) {
        let mut interp = Interpreter::new(&program);
        let run_interp = |interp: &mut Interpreter<'_>| -> i32 {
            boards
                .iter()
                .map(|board| {
                    let done = interp.run_entry(&mut BoardHost(board), &mut NullOutput);
                    done.ok().and_then(|d| d.value()).unwrap_or(i32::MIN)
                })
                .fold(0i32, i32::wrapping_add)
        };
        totals.push(run_interp(&mut interp));
        g.bench_function(interp_label, |b| {
            b.iter(|| black_box(run_interp(&mut interp)))
        });
        let code = JitProgram::compile(&program).expect("compiles");
        let mut vm = code.instance();
        let run_jit = |vm: &mut jit::JitInstance<'_>| -> i32 {
            boards
                .iter()
                .map(|board| {
                    let done = vm.run_entry(&mut BoardHost(board), &mut NullOutput);
                    done.ok().and_then(|d| d.value()).unwrap_or(i32::MIN)
                })
                .fold(0i32, i32::wrapping_add)
        };
        totals.push(run_jit(&mut vm));
        assert!(vm.ran_compiled());
        g.bench_function(jit_label, |b| b.iter(|| black_box(run_jit(&mut vm))));
    }
    assert!(
        totals.windows(2).all(|t| t[0] == t[1]),
        "patterns: the columns disagree: {totals:?}"
    );
    g.finish();
}

/// The bundled example advice program, reset per position.
fn shanny(c: &mut Criterion<Clock>) {
    let positions = oracle_positions();
    let plain = example_program();
    let [(_, _, plain), (_, _, optimized)] = both(plain);
    let plain_code = JitProgram::compile(&plain).expect("compiles");
    let opt_code = JitProgram::compile(&optimized).expect("compiles");
    let mut interp_plain = Interpreter::new(&plain);
    let mut interp_opt = Interpreter::new(&optimized);
    let mut jit_plain = plain_code.instance();
    let mut jit_opt = opt_code.instance();
    let mut host = AdviceHost::new(&positions[0]);

    // All four must leave the same result and advice table on every position.
    for pos in &positions {
        host.set_position(pos);
        interp_plain.reset();
        let expected = interp_plain.run_entry(&mut host, &mut NullOutput);
        interp_opt.reset();
        assert_eq!(
            interp_opt.run_entry(&mut host, &mut NullOutput),
            expected,
            "interp"
        );
        assert!(
            interp_opt.advice() == interp_plain.advice(),
            "interp: advice differs"
        );
        for (label, vm) in [("jit-noopt", &mut jit_plain), ("jit", &mut jit_opt)] {
            vm.reset();
            assert_eq!(
                vm.run_entry(&mut host, &mut NullOutput),
                expected,
                "{label}"
            );
            assert!(
                vm.advice() == interp_plain.advice(),
                "{label}: advice differs"
            );
        }
    }

    let mut g = group(c, "opt/shanny");
    for (label, vm) in [
        ("interp-noopt", &mut interp_plain),
        ("interp", &mut interp_opt),
    ] {
        g.bench_function(label, |b| {
            b.iter(|| {
                for pos in &positions {
                    host.set_position(pos);
                    vm.reset();
                    black_box(vm.run_entry(&mut host, &mut NullOutput).ok());
                }
            })
        });
    }
    for (label, vm) in [("jit-noopt", &mut jit_plain), ("jit", &mut jit_opt)] {
        g.bench_function(label, |b| {
            b.iter(|| {
                for pos in &positions {
                    host.set_position(pos);
                    vm.reset();
                    black_box(vm.run_entry(&mut host, &mut NullOutput).ok());
                }
            })
        });
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().with_measurement(Clock::from_env());
    targets = che_twins, patterns, shanny
}
criterion_main!(benches);
