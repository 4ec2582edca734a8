//! Runs `main()` of a CVM program on the JIT a given number of times (one
//! compilation, a reset before every run) and prints the result and the
//! fuel used (and how it entered counted loops). `.asm` files are assembled and `.che` files compiled, and
//! both go through the loophole optimizer (`cvm::opt::optimize`) unless
//! `--noopt` is given, as the JIT benchmark runs them.
//!
//! `cargo run --release -p che-jit --example run_jit -- [--noopt] [--baseline] FILE RUNS`
//!
//! `--baseline` compiles with the baseline code generator
//! (`JitProgram::compile_baseline`) instead of Cranelift.
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

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let optimize = !args.iter().any(|a| a == "--noopt");
    let baseline = args.iter().any(|a| a == "--baseline");
    let rest: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    let (Some(file), Some(runs)) = (
        rest.first(),
        rest.get(1).and_then(|r| r.parse::<u32>().ok()),
    ) else {
        eprintln!("usage: run_jit [--noopt] [--baseline] FILE RUNS");
        std::process::exit(2);
    };
    let program = match load(Path::new(file.as_str()), optimize) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("{file}: {e}");
            std::process::exit(1);
        }
    };
    let compiled = if baseline {
        JitProgram::compile_baseline(&program)
    } else {
        JitProgram::compile(&program)
    };
    let code = match compiled {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{file}: {e}");
            std::process::exit(1);
        }
    };
    let mut vm = code.instance();
    for _ in 0..runs {
        vm.reset();
        match vm.run_entry(&mut NoHost, &mut NullOutput) {
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
