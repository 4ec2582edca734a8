//! Prints the JIT's compile-time figures for Che++ and assembler programs
//! given on the command line: functions (and how many of them were compiled
//! without Cranelift's optimizer), CVM instructions, intrinsic calls
//! compiled to native code, spliced calls and the lowered instructions they
//! added, code bytes, the first compilation's time (in a fresh process it
//! pays for the per-process set-up) and microseconds per CVM instruction
//! (the median of nine compilations). Che++ programs are compiled and then
//! optimized (`cvm::opt::optimize`), as `che run` does; `.asm` files are
//! taken as written unless `--opt-asm` is given (the JIT bench optimizes
//! them).
//!
//! `cargo run --release -p che-jit --example compile_stats -- [--reachable] [--entry] [--noopt] [--opt-asm] [--cvm] [--listing] [--objdump] [--threads=N] [--baseline] FILE...`
//!
//! `--reachable` compiles only what the entry and `Evaluate()` (the
//! engine's node hook) reach, as the engine does; `--entry` only what the
//! entry reaches, as `che run` and `che demo` do (both
//! `JitProgram::compile_on_demand`), not every function. `--noopt` skips the optimizer; `--cvm` prints the CVM listing the JIT
//! compiles, `--listing` Cranelift's listing of every function after the
//! table, `--objdump` the final machine code disassembled by `objdump`
//! (when installed). `--threads=N` compiles on at most N threads
//! (`jit::set_compile_threads`; the default 0 lets the JIT decide).
//! `--baseline` compiles every function with the baseline code generator
//! (`JitProgram::compile_baseline`) instead of Cranelift.

mod common;

use cvm::asm;

use jit::JitProgram;
use std::path::Path;

/// The x86-64 disassembly of `bytes` by `objdump`, or why there is none.
fn objdump(bytes: &[u8]) -> String {
    let path = std::env::temp_dir().join(format!("compile_stats_{}.bin", std::process::id()));
    if let Err(e) = std::fs::write(&path, bytes) {
        return format!("(cannot write {}: {e})\n", path.display());
    }
    let out = std::process::Command::new("objdump")
        .args([
            "-D",
            "-b",
            "binary",
            "-m",
            "i386:x86-64",
            "--no-show-raw-insn",
        ])
        .arg(&path)
        .output();
    let _ = std::fs::remove_file(&path);
    match out {
        Ok(o) => String::from_utf8_lossy(&o.stdout)
            .lines()
            .skip_while(|l| !l.contains("<.data>:"))
            .skip(1)
            .map(|l| format!("{l}\n"))
            .collect(),
        Err(e) => format!("(objdump: {e})\n"),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let optimize = !args.iter().any(|a| a == "--noopt");
    let opt_asm = args.iter().any(|a| a == "--opt-asm");
    let want_cvm = args.iter().any(|a| a == "--cvm");
    let want_listing = args.iter().any(|a| a == "--listing");
    let want_objdump = args.iter().any(|a| a == "--objdump");
    let reachable = args.iter().any(|a| a == "--reachable");
    let baseline = args.iter().any(|a| a == "--baseline");
    let entry_only = args.iter().any(|a| a == "--entry");
    if let Some(n) = args.iter().find_map(|a| a.strip_prefix("--threads=")) {
        match n.parse() {
            Ok(n) => jit::set_compile_threads(n),
            Err(_) => {
                eprintln!("--threads=N wants a number, not {n:?}");
                std::process::exit(2);
            }
        }
    }
    let mut listings = String::new();
    println!("| program | functions | unoptimized functions | CVM instructions | native intrinsics | spliced calls | spliced instructions | code bytes | first compile | compile time | us / instruction |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for arg in args.iter().filter(|a| !a.starts_with("--")) {
        let path = Path::new(arg);
        let program = match common::load(path, optimize && (opt_asm || !common::is_asm(path))) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("{arg}: {e}");
                continue;
            }
        };
        let mut runs = Vec::new();
        // With `--reachable`: only what the entry and `Evaluate()` (the
        // engine's node hook) reach, as the engine calls them.
        // With `--entry`: only what the entry reaches, as `che run` and
        // `che demo` compile it. Both as the hosts do it: on demand
        // (`JitProgram::compile_on_demand`, the whole program analysed).
        let hooks: &[&str] = if entry_only { &[] } else { &["Evaluate"] };
        let roots = jit::Prepared::entry_points(&program, hooks);
        for _ in 0..9 {
            let compiled = if baseline {
                JitProgram::compile_baseline(&program)
            } else if reachable || entry_only {
                JitProgram::compile_on_demand(&program, &roots)
            } else {
                JitProgram::compile(&program)
            };
            match compiled {
                Ok(jit) => runs.push(jit.stats()),
                Err(e) => {
                    eprintln!("{arg}: {e}");
                    break;
                }
            }
        }
        let first = runs.first().map(|s| s.duration);
        runs.sort_by_key(|s| s.duration);
        if let Some(s) = runs.get(runs.len() / 2) {
            let name = path
                .file_name()
                .map_or(arg.clone(), |n| n.to_string_lossy().into_owned());
            println!(
                "| {name} | {} | {} | {} | {} | {} | {} | {} | {:.0} us | {:.0} us | {:.1} |",
                s.functions,
                s.unoptimized_functions,
                s.instructions,
                s.native_intrinsics,
                s.spliced_calls,
                s.spliced_instructions,
                s.code_bytes,
                first.unwrap_or_default().as_secs_f64() * 1e6,
                s.duration.as_secs_f64() * 1e6,
                s.micros_per_instruction()
            );
        }
        if want_cvm {
            listings.push_str(&format!(
                "\n;; {arg}: CVM\n{}",
                asm::disassemble(program.module())
            ));
        }
        if want_listing || want_objdump {
            match JitProgram::compile_with_listing(&program) {
                Ok((_, functions)) => {
                    for f in functions {
                        listings.push_str(&format!(
                            "\n;; {arg}: {} ({} bytes)\n",
                            f.name,
                            f.bytes.len()
                        ));
                        if want_listing {
                            listings.push_str(&f.vcode);
                        }
                        if want_objdump {
                            listings.push_str(&objdump(&f.bytes));
                        }
                    }
                }
                Err(e) => eprintln!("{arg}: {e}"),
            }
        }
    }
    print!("{listings}");
}
