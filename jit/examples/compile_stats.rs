//! Prints the JIT's compile-time figures for Che++ and assembler programs
//! given on the command line: functions, CVM instructions, inlined
//! intrinsic calls, code bytes and microseconds per CVM instruction (the
//! median of several compilations).
//!
//! `cargo run --release -p jit --example compile_stats -- FILE...`

use cvm::che::{compile_file, CompileOptions};
use cvm::{asm, Program};
use jit::JitProgram;
use std::path::Path;

fn load(path: &Path) -> Result<Program, String> {
    let module = if path.extension().is_some_and(|e| e == "asm") {
        let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
        asm::assemble(&text).map_err(|e| e.to_string())?
    } else {
        let c = compile_file(path, &CompileOptions::default());
        c.module.clone().ok_or_else(|| c.render_diagnostics())?
    };
    Program::new(module).map_err(|e| e.to_string())
}

fn main() {
    println!("| program | functions | CVM instructions | inlined calls | code bytes | compile time | us / instruction |");
    println!("|---|---|---|---|---|---|---|");
    for arg in std::env::args().skip(1) {
        let path = Path::new(&arg);
        let program = match load(path) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("{arg}: {e}");
                continue;
            }
        };
        let mut runs = Vec::new();
        for _ in 0..9 {
            match JitProgram::compile(&program) {
                Ok(jit) => runs.push(jit.stats()),
                Err(e) => {
                    eprintln!("{arg}: {e}");
                    break;
                }
            }
        }
        runs.sort_by_key(|s| s.duration);
        if let Some(s) = runs.get(runs.len() / 2) {
            let name = path
                .file_name()
                .map_or(arg.clone(), |n| n.to_string_lossy().into_owned());
            println!(
                "| {name} | {} | {} | {} | {} | {:.0} us | {:.1} |",
                s.functions,
                s.instructions,
                s.inlined,
                s.code_bytes,
                s.duration.as_secs_f64() * 1e6,
                s.micros_per_instruction()
            );
        }
    }
}
