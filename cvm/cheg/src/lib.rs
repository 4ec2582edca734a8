//! CHEG, the endgame language of Greenblatt's MIT chess program, compiled
//! to the CVM.
//!
//! A `.cheg` program is parsed line by line in the original layout
//! ([`lexer`], [`parser`]), with every independent error reported as a
//! diagnostic in the Che++ compiler's format; the checked [`ast::Program`]
//! is compiled to a CVM module ([`codegen`]) whose code calls back into
//! the [`runtime`] through the `HostCall` intrinsic for everything that
//! touches a value. The runtime keeps the values (sets included) in a
//! per-run heap ([`value`]) and asks a [`search::Searcher`] to value the
//! moves TRY, PLAYB and PLAN try. See `docs/cheg.md`.
//!
//! ```
//! use chess_core::Position;
//! let c = cheg::compile_str("t.cheg", "ENTRY K,K\n\tADD A,\"2,\"3\n\tBREAK \"1,A\n\tLEAVE\nEND\n");
//! assert!(c.is_ok(), "{}", c.render_diagnostics());
//! let mut vm = cvm::Interpreter::new(c.program.as_ref().unwrap());
//! let position = Position::from_fen("8/8/8/4k3/8/8/8/4K3 w - - 0 1").unwrap();
//! let mut search = cheg::search::FixedDepth::default();
//! let report = cheg::run(&mut vm, cheg::checked(&c).unwrap(), position, &mut search).unwrap();
//! assert_eq!(report.lines(), ["break 1 5", "move none"]);
//! ```

pub mod ast;
pub mod codegen;
pub mod embed;
pub mod generate;
pub mod lexer;
pub mod parser;
pub mod runtime;
pub mod search;
pub mod service;
pub mod table;
pub mod value;

pub use cvm_frontend::{Diagnostic, Severity, SourceMap};
pub use runtime::{ChegHost, Report};

use chess_core::Position;
use cvm::{CollectOutput, RuntimeError, Vm};
use cvm_frontend::dialect::{Dialect, Input};
use cvm_frontend::Loader;
use std::path::{Path, PathBuf};

pub use cvm_frontend::dialect::{Compilation, CompileError};

/// The CHEG dialect, as the registry of dialects and editors call it. Its
/// compilations carry the checked [`ast::Program`] the runtime needs
/// ([`checked`]).
#[derive(Copy, Clone, Debug, Default)]
pub struct Cheg;

/// The CHEG dialect.
pub static CHEG: Cheg = Cheg;

/// The dialect's name.
pub const NAME: &str = "cheg";

impl Dialect for Cheg {
    fn name(&self) -> &'static str {
        NAME
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["cheg"]
    }

    fn purpose(&self) -> cvm_frontend::dialect::Purpose {
        cvm_frontend::dialect::Purpose::Endgame
    }

    /// CHEG has no `include`: only the input is read.
    fn compile(&self, input: Input<'_>, loader: &dyn Loader, _: &[PathBuf]) -> Compilation {
        match input {
            Input::Text { name, text } => compile_str(name, text),
            Input::File(path) => {
                let name = path.display().to_string();
                match loader.load(path) {
                    Ok(text) => compile_str(&name, &text),
                    Err(e) => Compilation::failed(
                        NAME,
                        Diagnostic::global_error(format!("cannot read {name}: {e}")),
                    ),
                }
            }
        }
    }
}

/// The checked program a CHEG compilation carries, when it compiled.
pub fn checked(compilation: &Compilation) -> Option<&ast::Program> {
    compilation.extra::<ast::Program>()
}

/// Compiles CHEG source held in memory; `name` is the file name used in
/// diagnostics and the line table.
pub fn compile_str(name: &str, text: &str) -> Compilation {
    let mut sources = SourceMap::new();
    let file = sources.add(name, None, text.to_string());
    let mut diagnostics = Vec::new();
    let program = parser::parse(file, text, &mut diagnostics);
    diagnostics.sort_by_key(|d| d.span.map(|s| (s.lo, s.hi)));
    if diagnostics.iter().any(|d| d.is_error()) {
        return Compilation::new(NAME, None, diagnostics, sources);
    }
    match codegen::generate(&program, name) {
        Ok(code) => Compilation::new(NAME, Some(code), diagnostics, sources).with_extra(program),
        Err(e) => {
            diagnostics.push(Diagnostic::global_error(format!(
                "code generation failed: {e}"
            )));
            Compilation::new(NAME, None, diagnostics, sources)
        }
    }
}

/// Compiles a `.cheg` file; an unreadable file is an error diagnostic.
pub fn compile_file(path: &Path) -> Compilation {
    CHEG.compile(Input::File(path), &cvm_frontend::FsLoader, &[])
}

/// A run that stopped with a runtime error, and what it did before.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{error}")]
pub struct RunFailure {
    /// The error, with its source position.
    pub error: RuntimeError,
    /// BREAK lines and anything else collected before the error.
    pub report: Box<Report>,
}

/// Runs a compiled program (`program` and the module `vm` was made from)
/// on `position` with the VM's limits, searching with `searcher`, at the
/// top level (DEPTH 1, no plan).
pub fn run(
    vm: &mut dyn Vm,
    program: &ast::Program,
    position: Position,
    searcher: &mut dyn search::Searcher,
) -> Result<Report, RunFailure> {
    run_at(vm, program, position, searcher, 1, None)
}

/// As [`run`], at search depth `depth` (DEPTH) and, when `plan` is given,
/// starting at the plan's tag, as a
/// searcher does when it re-enters the program at deeper plies.
pub fn run_at(
    vm: &mut dyn Vm,
    program: &ast::Program,
    position: Position,
    searcher: &mut dyn search::Searcher,
    depth: i32,
    plan: Option<search::Plan>,
) -> Result<Report, RunFailure> {
    let mut host = ChegHost::new(program, position, searcher);
    host.set_context(depth, plan);
    let mut out = CollectOutput::default();
    vm.reset();
    match vm.run_entry(&mut host, &mut out) {
        Ok(_) => Ok(host.into_report()),
        Err(error) => Err(RunFailure {
            error,
            report: Box::new(host.into_report()),
        }),
    }
}
