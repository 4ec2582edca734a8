//! The JIT side by side with the interpreter, native Rust (the floor) and
//! LuaJIT with its JIT on, in one run:
//!
//! * `jit/NAME`: the CVM core benchmark set (`programs/NAME.asm`), run
//!   through the loophole optimizer (`cvm::opt::optimize`);
//! * `jit/che-NAME`: the same workloads written in Che++ (`che/NAME.che`),
//!   compiled by the Che++ compiler and optimized, as `che run` does by
//!   default;
//! * `jit/patterns`: a pattern-heavy advice program
//!   (`advice/patterns.che`, forty pattern tests) on 64 positions;
//! * `jit/shanny`: the bundled example advice program
//!   (`cvm/chepp/examples/shanny.che`) on 240 positions (interpreter and JIT
//!   only: there is no native or Lua twin of the advice functions).
//!
//! Both VM columns (interpreter and JIT) run the optimized program (the
//! pattern program too), so the rows measure what `che run` executes. Every
//! implementation's result is checked before it is timed. The Rust columns
//! are timed by the benchmark thread's CPU time (`che_benches::clock`;
//! `BENCH_CLOCK=wall` for wall time), the LuaJIT column by the CPU time
//! `os.clock()` reports inside LuaJIT (`benches/lua/run.lua`), so both
//! sides leave out time spent descheduled.
//!
//! Run: `cargo bench -p che-benches --bench jit`; ratios:
//! `python3 benches/report.py jit native` (see `docs/benchmarks.md`).

use che_benches::clock::Clock;
use che_benches::lab::patterns_twin::patterns_score;
use che_benches::{
    compile_che_file, compile_che_workload, crate_dir, example_program, load_program, lua,
    oracle_positions, WORKLOADS,
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

/// The LuaJIT column (JIT on), when `luajit` is installed and agrees.
fn luajit(g: &mut Group<'_>, file: &str, expected: &str) {
    let Some(l) = lua::LUAS.iter().find(|l| l.label == "luajit") else {
        return;
    };
    match l.run(file, 1) {
        Some((_, result)) => {
            assert_eq!(result, expected, "luajit {file}");
            g.bench_function("luajit", |b| {
                b.iter_custom(|iters| l.run(file, iters).map(|(t, _)| t).unwrap_or_default())
            });
        }
        None => eprintln!("luajit not available: skipping it for {file}"),
    }
}

/// Interpreter and JIT columns for a program whose `main()` returns
/// `expected`.
fn vm_columns(g: &mut Group<'_>, program: &Program, expected: i32) {
    let mut interp = Interpreter::new(program);
    let done = interp
        .run_entry(&mut NoHost, &mut NullOutput)
        .expect("runs");
    assert_eq!(done.value(), Some(expected), "interp");
    g.bench_function("interp", |b| {
        b.iter(|| {
            interp.reset();
            black_box(interp.run_entry(&mut NoHost, &mut NullOutput).ok())
        })
    });
    let compiled = JitProgram::compile(program).expect("compiles");
    let mut vm = compiled.instance();
    let done = vm.run_entry(&mut NoHost, &mut NullOutput).expect("runs");
    assert!(vm.ran_compiled());
    assert_eq!(done.value(), Some(expected), "jit");
    g.bench_function("jit", |b| {
        b.iter(|| {
            vm.reset();
            black_box(vm.run_entry(&mut NoHost, &mut NullOutput).ok())
        })
    });
}

fn core_set(c: &mut Criterion<Clock>) {
    for w in WORKLOADS {
        let mut g = group(c, &format!("jit/{}", w.name));
        assert_eq!((w.native)(), w.expected, "native {}", w.name);
        g.bench_function("native", |b| b.iter(|| black_box((w.native)())));
        let (optimized, _) = cvm::opt::optimize(&load_program(w.name));
        vm_columns(&mut g, &optimized, w.expected);
        luajit(&mut g, w.name, &w.expected.to_string());
        g.finish();
    }
}

fn che_twins(c: &mut Criterion<Clock>) {
    for w in WORKLOADS {
        let Some(program) = compile_che_workload(w.name, true) else {
            eprintln!("che/{}.che missing: skipping che-{}", w.name, w.name);
            continue;
        };
        let mut g = group(c, &format!("jit/che-{}", w.name));
        g.bench_function("native", |b| b.iter(|| black_box((w.native)())));
        vm_columns(&mut g, &program, w.expected);
        luajit(&mut g, w.name, &w.expected.to_string());
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

fn patterns(c: &mut Criterion<Clock>) {
    let boards: Vec<BoardView> = oracle_positions().iter().take(64).map(board_view).collect();
    assert_eq!(boards.len(), 64);
    let (program, _) =
        cvm::opt::optimize(&compile_che_file(&crate_dir().join("advice/patterns.che")));
    // The native twin (the lab's, checked on the oracle positions). The
    // program keeps no state between runs, so the VMs run it without a
    // reset, as the twin needs none.
    let native_total: i32 = boards.iter().map(patterns_score).sum();

    let mut g = group(c, "jit/patterns");
    g.bench_function("native", |b| {
        b.iter(|| black_box(&boards).iter().map(patterns_score).sum::<i32>())
    });
    let mut interp = Interpreter::new(&program);
    let run_interp = |interp: &mut Interpreter<'_>| -> i32 {
        boards
            .iter()
            .map(|board| {
                let done = interp.run_entry(&mut BoardHost(board), &mut NullOutput);
                done.ok().and_then(|d| d.value()).unwrap_or(i32::MIN)
            })
            .sum()
    };
    assert_eq!(run_interp(&mut interp), native_total, "interp");
    g.bench_function("interp", |b| b.iter(|| black_box(run_interp(&mut interp))));
    let code = JitProgram::compile(&program).expect("compiles");
    let mut vm = code.instance();
    let run_jit = |vm: &mut jit::JitInstance<'_>| -> i32 {
        boards
            .iter()
            .map(|board| {
                let done = vm.run_entry(&mut BoardHost(board), &mut NullOutput);
                done.ok().and_then(|d| d.value()).unwrap_or(i32::MIN)
            })
            .sum()
    };
    assert_eq!(run_jit(&mut vm), native_total, "jit");
    assert!(vm.ran_compiled());
    g.bench_function("jit", |b| b.iter(|| black_box(run_jit(&mut vm))));
    luajit(&mut g, "patterns", &native_total.to_string());
    g.finish();
}

fn shanny(c: &mut Criterion<Clock>) {
    let positions = oracle_positions();
    let program = example_program();
    let code = JitProgram::compile(&program).expect("compiles");
    let mut interp = Interpreter::new(&program);
    let mut vm = code.instance();
    let mut host = AdviceHost::new(&positions[0]);
    // Both backends must leave the same advice table on every position.
    for pos in &positions {
        host.set_position(pos);
        interp.reset();
        vm.reset();
        let a = interp.run_entry(&mut host, &mut NullOutput);
        let b = vm.run_entry(&mut host, &mut NullOutput);
        assert_eq!(a, b);
        assert!(interp.advice() == vm.advice(), "advice differs");
    }
    let mut g = group(c, "jit/shanny");
    g.bench_function("interp", |b| {
        b.iter(|| {
            for pos in &positions {
                host.set_position(pos);
                interp.reset();
                black_box(interp.run_entry(&mut host, &mut NullOutput).ok());
            }
        })
    });
    g.bench_function("jit", |b| {
        b.iter(|| {
            for pos in &positions {
                host.set_position(pos);
                vm.reset();
                black_box(vm.run_entry(&mut host, &mut NullOutput).ok());
            }
        })
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().with_measurement(Clock::from_env());
    targets = core_set, che_twins, patterns, shanny
}
criterion_main!(benches);
