//! Runs `main()` of a CVM program on the JIT a given number of times (one
//! compilation, a reset before every run) and prints the result and the
//! fuel used (and how it entered counted loops). `.asm` files are assembled and `.che` files compiled, and
//! both go through the loophole optimizer (`cvm::opt::optimize`) unless
//! `--noopt` is given, as the JIT benchmark runs them.
//!
//! `cargo run --release -p che-jit --example run_jit -- [--noopt] [--baseline | --quick | --entry] [--timed] FILE RUNS`
//!
//! `--baseline` compiles with the baseline code generator
//! (`JitProgram::compile_baseline`) instead of Cranelift. `--quick`
//! prepares the program as the hosts' JIT does (`JitProgram::compile_quick`
//! on the entry: baseline code now, Cranelift's from a background thread)
//! and `--entry` as it did before it started on baseline code
//! (`JitProgram::compile_on_demand` on the entry); with `--timed`, each run's
//! wall time is printed to standard error, after the preparation's, with
//! whether Cranelift's code had arrived by the end of the run and how many
//! frames moved to it at a loop's back edge and how many calls at their
//! entry (`JitProgram::upgraded`, `back_edge_switches`, `entry_switches`).
//!
//! Its use is counting machine instructions: under callgrind the
//! instructions of `RUNS = 3` less those of `RUNS = 1`, halved, are what
//! one run costs (compiled code, entry and reset), compilation excluded
//! (`benches/callgrind-jit.sh`).

mod common;

use common::load;
use cvm::Vm;
use cvm::{NoHost, NullOutput};
use jit::JitProgram;
use std::path::Path;
use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let optimize = !args.iter().any(|a| a == "--noopt");
    let baseline = args.iter().any(|a| a == "--baseline");
    let quick = args.iter().any(|a| a == "--quick");
    let entry = args.iter().any(|a| a == "--entry");
    let timed = args.iter().any(|a| a == "--timed");
    let rest: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    let (Some(file), Some(runs)) = (
        rest.first(),
        rest.get(1).and_then(|r| r.parse::<u32>().ok()),
    ) else {
        eprintln!("usage: run_jit [--noopt] [--baseline | --quick | --entry] [--timed] FILE RUNS");
        std::process::exit(2);
    };
    let program = match load(Path::new(file.as_str()), optimize) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("{file}: {e}");
            std::process::exit(1);
        }
    };
    let roots: Vec<u32> = program.module().entry.into_iter().collect();
    let started = Instant::now();
    let compiled = if baseline {
        JitProgram::compile_baseline(&program)
    } else if quick {
        JitProgram::compile_quick(&program, &roots)
    } else if entry {
        JitProgram::compile_on_demand(&program, &roots)
    } else {
        JitProgram::compile(&program)
    };
    let prepared = started.elapsed();
    let code = match compiled {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{file}: {e}");
            std::process::exit(1);
        }
    };
    if timed {
        eprintln!("prepared in {:.3} ms", ms(prepared));
    }
    let mut vm = code.instance();
    for _ in 0..runs {
        vm.reset();
        let run_started = Instant::now();
        let ran = vm.run_entry(&mut NoHost, &mut NullOutput);
        if timed {
            eprintln!(
                "run {:.3} ms; Cranelift's code arrived: {}; back-edge switches {}, entry switches {}",
                ms(run_started.elapsed()),
                code.upgraded(),
                code.back_edge_switches(),
                code.entry_switches()
            );
        }
        match ran {
            Ok(done) => println!(
                "{:?} (fuel used {}, counted loops entered {:?})",
                done.value(),
                vm.fuel_used(),
                vm.loop_entries()
            ),
            Err(e) => println!("error: {e}"),
        }
    }
}

/// `d` in milliseconds.
fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
