//! `che compile|asm|run` for CHEG programs (`.cheg`): compile with the
//! `cheg` front end (and the loophole optimizer unless `--no-opt`), run
//! on a position with the chosen backend and print what the run did:
//! one `break ...` line per executed BREAK, then `move UCI` or
//! `move none`, then `value W L C` when the program gave a value; or
//! `no entry` when no ENTRY matches the position.

use che_engine::endgame::{EndgameProgram, EndgameSource};
use che_engine::engine::{EndgameRunError, Engine};
use che_engine::options::EngineOptions;
use che_pipeline::{Compilation, Input, ModuleFile, ModuleKind, Options};
use chess_core::Position;
use cvm::{Backend, Program};
use cvm_frontend::file::read_program;
use cvm_frontend::FsLoader;
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

/// A compiled CHEG program: the front end's result (the program optimized unless asked
/// otherwise) and its warnings.
pub struct Compiled {
    /// The front end's result (program, diagnostics, sources, the checked program).
    pub compilation: Compilation,
    /// The verified program.
    pub program: Program,
    /// Warnings, rendered.
    pub warnings: String,
}

/// Whether `path` names a CHEG program.
pub fn is_cheg(path: &Path) -> bool {
    che_pipeline::claiming(path).is_some_and(|d| d.name() == cheg::NAME)
}

/// Compiles a `.cheg` file through the one front-end interface.
pub fn compile(path: &Path, no_opt: bool) -> Result<Compiled, ChegError> {
    let options = Options {
        optimize: !no_opt,
        ..Options::default()
    };
    let compilation = che_pipeline::compile(&cheg::CHEG, Input::File(path), &FsLoader, &options);
    let rendered = compilation.render_diagnostics();
    let Some(program) = compilation.program.clone() else {
        let n = compilation.errors().count();
        return Err(ChegError::Compile(format!(
            "{rendered}che: {n} error{} in {}\n",
            if n == 1 { "" } else { "s" },
            path.display()
        )));
    };
    Ok(Compiled {
        compilation,
        program,
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
    /// The depth of the engine's search behind TRY, PLAYB and PLAN, as
    /// `go depth` gives it: the tried move and `depth - 1` plies below it
    /// (at least one).
    pub depth: u32,
    /// Skip the optimizer.
    pub no_opt: bool,
}

/// Whether `path` is a `.cmp` or `.asm` module compiled from CHEG (it
/// carries the `cheg.program` text).
pub fn is_cheg_module(path: &Path) -> bool {
    load_module(path).is_some_and(|m| cheg::embed::from_module(m.module()).is_some())
}

fn load_module(path: &Path) -> Option<ModuleFile> {
    che_pipeline::read_module(path, ModuleKind::of(path)?).ok()
}

/// Renders a runtime error with its source line, reading the file the
/// line table names when no compilation is at hand.
fn render_runtime(error: &cvm::RuntimeError, compilation: Option<&Compilation>) -> String {
    if let Some(c) = compilation {
        return c.render_runtime_error(error);
    }
    let mut sources = chepp::SourceMap::new();
    if let Some(pos) = &error.pos {
        if let Ok(bytes) = read_program(Path::new(&pos.file)) {
            sources.add(&pos.file, None, chepp::source::decode(bytes));
        }
    }
    chepp::render_runtime_error(error, &sources)
}

/// Compiles and runs a `.cheg` file (or runs a `.cmp`/`.asm` module
/// compiled from one); returns the lines to print and the warnings to
/// show.
pub fn run(path: &Path, options: &RunOptions<'_>) -> Result<(Vec<String>, String), ChegError> {
    let position = Position::from_fen(options.fen)
        .map_err(|e| ChegError::Compile(format!("che: invalid --fen: {e}\n")))?;
    let (verified, checked, compilation, warnings) = if is_cheg(path) {
        let compiled = compile(path, options.no_opt)?;
        let Some(checked) = cheg::checked(&compiled.compilation).cloned() else {
            return Err(ChegError::Compile(
                "che: the program did not compile\n".into(),
            ));
        };
        (
            compiled.program,
            checked,
            Some(compiled.compilation),
            compiled.warnings,
        )
    } else {
        let file = load_module(path)
            .ok_or_else(|| ChegError::Compile(format!("che: cannot load {}\n", path.display())))?;
        let checked = match cheg::embed::from_module(file.module()) {
            Some(Ok(p)) => p,
            Some(Err(e)) => {
                return Err(ChegError::Compile(format!(
                    "che: {}: {e}\n",
                    path.display()
                )))
            }
            None => {
                return Err(ChegError::Compile(format!(
                    "che: {} was not compiled from CHEG\n",
                    path.display()
                )))
            }
        };
        let verified = file
            .verify()
            .map_err(|e| ChegError::Compile(format!("che: invalid module: {e}\n")))?;
        (verified, checked, None, String::new())
    };
    let sources = compilation
        .as_ref()
        .map(|c| c.sources.clone())
        .unwrap_or_default();
    // The program is optimized already (unless --no-opt): it is taken as it is.
    let source = EndgameSource::File(path.to_path_buf());
    let endgame = EndgameProgram::from_parts(source, checked, verified, sources);
    let mut engine = Engine::new(EngineOptions::endgame_run(options.backend));
    engine.set_endgame_program(Some(endgame));
    if let Some(e) = engine.endgame_error() {
        return Err(ChegError::Compile(format!("che: {e}\n")));
    }
    match engine.endgame_run(&position, options.depth, options.fuel) {
        Ok(report) => Ok((report.lines(), warnings)),
        Err(EndgameRunError::Failed { breaks, error }) => Err(ChegError::Runtime {
            lines: breaks,
            message: render_runtime(&error, compilation.as_ref()),
        }),
        Err(EndgameRunError::NoProgram(e)) => Err(ChegError::Compile(format!("che: {e}\n"))),
    }
}
