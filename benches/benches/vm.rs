//! The CVM core benchmark set on the interpreter, side by side with native
//! Rust (the floor), Lua 5.4 and LuaJIT with its JIT off (`-joff`), in one
//! run. Each workload's result is checked on every implementation before
//! it is timed.
//!
//! Run: `cargo bench -p che-benches --bench vm`. Ratios: `docs/benchmarks.md`
//! (made by `python3 benches/report.py vm`). Lua implementations that are
//! not installed are skipped with a message.

use che_benches::{load_program, lua, WORKLOADS};
use criterion::{criterion_group, criterion_main, Criterion};
use cvm::{Interpreter, NoHost, NullOutput};
use std::hint::black_box;
use std::time::Duration;

fn vm(c: &mut Criterion) {
    for w in WORKLOADS {
        let mut group = c.benchmark_group(format!("vm/{}", w.name));
        group.sample_size(10);
        group.warm_up_time(Duration::from_millis(500));
        group.measurement_time(Duration::from_secs(3));

        assert_eq!((w.native)(), w.expected, "native {}", w.name);
        group.bench_function("native", |b| b.iter(|| black_box((w.native)())));

        let program = load_program(w.name);
        let mut interp = Interpreter::new(&program);
        let check = interp
            .run_entry(&mut NoHost, &mut NullOutput)
            .expect("runs");
        assert_eq!(check.value(), Some(w.expected), "interp {}", w.name);
        group.bench_function("interp", |b| {
            b.iter(|| {
                interp.reset();
                black_box(interp.run_entry(&mut NoHost, &mut NullOutput).ok())
            })
        });

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

criterion_group!(benches, vm);
criterion_main!(benches);
