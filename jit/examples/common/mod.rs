//! What the JIT examples share: loading a program from the command line.

use chepp::{compile_file, CompileOptions};
use cvm::{asm, Program};
use std::path::Path;

/// Whether `path` names CVM assembly (`.asm`) rather than Che++.
pub fn is_asm(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "asm")
}

/// Assembles a `.asm` file or compiles a Che++ file, verifies it, and runs
/// it through the loophole optimizer when `optimize`.
pub fn load(path: &Path, optimize: bool) -> Result<Program, String> {
    let program = if is_asm(path) {
        let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
        Program::new(asm::assemble(&text).map_err(|e| e.to_string())?).map_err(|e| e.to_string())?
    } else {
        let c = compile_file(path, &CompileOptions::default());
        c.program.clone().ok_or_else(|| c.render_diagnostics())?
    };
    Ok(if optimize {
        cvm::opt::optimize(&program).0
    } else {
        program
    })
}
