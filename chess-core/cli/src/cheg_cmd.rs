//! `che compile|asm|run` for CHEG programs (`.cheg`): compile with the
//! `cheg` front end (and the loophole optimizer unless `--no-opt`), run
//! on a position with the chosen backend and print what the run did:
//! one `break ...` line per executed BREAK, then `move UCI` or
//! `move none`, then `value W L C` when the program gave a value; or
//! `no entry` when no ENTRY matches the position.

use chess_core::Position;
use cvm::{Backend, Limits, Module, Program};
use jit::Prepared;
use std::path::Path;

/// Why a CHEG command failed; the text is ready for standard error.
#[derive(Debug, thiserror::Error)]
pub enum ChegError {
    /// Compile errors (rendered diagnostics) or bad input: exit status 1.
    #[error("{0}")]
    Compile(String),
    /// A runtime error, rendered with its source line: exit status 2.
    /// `lines` are what the run printed before it.
    #[error("{message}")]
    Runtime {
        /// Lines printed before the error (BREAK output).
        lines: Vec<String>,
        /// The rendered error.
        message: String,
    },
}

/// A compiled CHEG program: the front end's result and the module to run.
pub struct Compiled {
    /// The front end's result (program, diagnostics, sources).
    pub compilation: cheg::Compilation,
    /// The module, optimized unless asked otherwise.
    pub module: Module,
    /// Warnings, rendered.
    pub warnings: String,
}

/// Whether `path` names a CHEG program.
pub fn is_cheg(path: &Path) -> bool {
    path.extension().and_then(|e| e.to_str()) == Some("cheg")
}

/// Compiles a `.cheg` file.
pub fn compile(path: &Path, no_opt: bool) -> Result<Compiled, ChegError> {
    let compilation = cheg::compile_file(path);
    let rendered = compilation.render_diagnostics();
    let Some(module) = compilation.module.clone() else {
        let n = compilation.errors().count();
        return Err(ChegError::Compile(format!(
            "{rendered}che: {n} error{} in {}\n",
            if n == 1 { "" } else { "s" },
            path.display()
        )));
    };
    let module = if no_opt {
        module
    } else {
        let program = Program::new(module)
            .map_err(|e| ChegError::Compile(format!("che: invalid module: {e}\n")))?;
        cvm::opt::optimize(&program).0.into_module()
    };
    Ok(Compiled {
        compilation,
        module,
        warnings: rendered,
    })
}

/// How to run a CHEG program.
pub struct RunOptions<'a> {
    /// The position, as FEN.
    pub fen: &'a str,
    /// The backend.
    pub backend: Backend,
    /// The fuel bound, if any.
    pub fuel: Option<u64>,
    /// Plies of the fixed-depth search behind TRY, PLAYB and PLAN.
    pub depth: u32,
    /// Skip the optimizer.
    pub no_opt: bool,
}

/// Compiles and runs a `.cheg` file; returns the lines to print and the
/// warnings to show.
pub fn run(path: &Path, options: &RunOptions<'_>) -> Result<(Vec<String>, String), ChegError> {
    let position = Position::from_fen(options.fen)
        .map_err(|e| ChegError::Compile(format!("che: invalid --fen: {e}\n")))?;
    let compiled = compile(path, options.no_opt)?;
    let program = Program::new(compiled.module)
        .map_err(|e| ChegError::Compile(format!("che: invalid module: {e}\n")))?;
    let prepared = Prepared::new(program, options.backend)
        .map_err(|e| ChegError::Compile(format!("che: JIT compilation failed: {e}\n")))?;
    let mut vm = prepared.instance();
    vm.set_limits(Limits {
        fuel: options.fuel,
        ..Limits::default()
    });
    let Some(source_program) = compiled.compilation.program.as_ref() else {
        return Err(ChegError::Compile(
            "che: the program did not compile\n".into(),
        ));
    };
    let mut search = cheg::search::FixedDepth {
        depth: options.depth,
    };
    match cheg::run(&mut *vm, source_program, position, &mut search) {
        Ok(report) => Ok((report.lines(), compiled.warnings)),
        Err(failure) => Err(ChegError::Runtime {
            lines: failure.report.breaks.clone(),
            message: compiled.compilation.render_runtime_error(&failure.error),
        }),
    }
}
