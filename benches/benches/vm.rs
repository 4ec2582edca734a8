//! The CVM core benchmark set on the interpreter, side by side in one run
//! with native Rust (the floor), Lua 5.4 and LuaJIT with its JIT off
//! (`-joff`). Each workload runs as
//!
//! * `interp`: the hand-written CVM assembly of `programs/NAME.asm`, through
//!   the loophole optimizer (`interp-asm-noopt`: exactly as written);
//! * `interp-che-opt` / `interp-che-noopt`: the Che++ twin `che/NAME.che`
//!   compiled by the Che++ compiler, with and without the loophole
//!   optimizer (the optimizer's speed-up on the interpreter);
//! * `native`, `luajit-joff`, `lua5.4`: the same algorithm in Rust and Lua.
//!
//! Every implementation's result is checked before it is timed. The clock
//! is the thread's CPU time (`che_benches::clock`; the Lua columns report
//! the Lua process's own CPU time from inside the loop, excluding start-up).
//! Lua implementations that are not installed are skipped with a message.
//!
//! Run: `cargo bench -p che-benches --bench vm`; ratio tables:
//! `python3 benches/report.py vm` (see `docs/benchmarks.md`).

use che_benches::clock::Clock;
use che_benches::{compile_che_workload, load_program, lua, WORKLOADS};
use criterion::{criterion_group, criterion_main, Criterion};
use cvm::Vm;
use cvm::{Interpreter, NoHost, NullOutput, Program};
use std::hint::black_box;
use std::time::Duration;

fn interp_column(
    group: &mut criterion::BenchmarkGroup<'_, Clock>,
    label: &str,
    program: &Program,
    expected: i32,
) {
    let mut interp = Interpreter::new(program);
    let check = interp
        .run_entry(&mut NoHost, &mut NullOutput)
        .expect("runs");
    assert_eq!(check.value(), Some(expected), "{label}");
    group.bench_function(label, |b| {
        b.iter(|| {
            interp.reset();
            black_box(interp.run_entry(&mut NoHost, &mut NullOutput).ok())
        })
    });
}

fn vm(c: &mut Criterion<Clock>) {
    for w in WORKLOADS {
        let mut group = c.benchmark_group(format!("vm/{}", w.name));
        group.sample_size(10);
        group.warm_up_time(Duration::from_millis(500));
        group.measurement_time(Duration::from_secs(3));

        assert_eq!((w.native)(), w.expected, "native {}", w.name);
        group.bench_function("native", |b| b.iter(|| black_box((w.native)())));

        // The hand-written assembly goes through the loophole optimizer too,
        // as the Che++ compiler's output is by default; `interp-asm-noopt`
        // is the file exactly as written.
        let asm = load_program(w.name);
        let (asm_opt, _) = cvm::opt::optimize(&asm);
        interp_column(&mut group, "interp", &asm_opt, w.expected);
        interp_column(&mut group, "interp-asm-noopt", &asm, w.expected);
        for (label, optimize) in [("interp-che-opt", true), ("interp-che-noopt", false)] {
            match compile_che_workload(w.name, optimize) {
                Some(p) => interp_column(&mut group, label, &p, w.expected),
                None => eprintln!("che/{}.che missing: skipping {label}", w.name),
            }
        }

        for l in lua::LUAS.iter().filter(|l| l.label != "luajit") {
            match l.run(w.name, 1) {
                Some((_, result)) => {
                    assert_eq!(result, w.expected.to_string(), "{} {}", l.label, w.name);
                    group.bench_function(l.label, |b| {
                        b.iter_custom(|iters| {
                            l.run(w.name, iters).map(|(t, _)| t).unwrap_or_default()
                        })
                    });
                }
                None => eprintln!(
                    "{} not available: skipping {} for {}",
                    l.binary, l.label, w.name
                ),
            }
        }
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().with_measurement(Clock::from_env());
    targets = vm
}
criterion_main!(benches);
