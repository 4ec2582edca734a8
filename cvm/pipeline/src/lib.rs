//! # One way from a file to a program
//!
//! The registry of the CVM's front ends and the loading of module files.
//! Every host (the `che` command, the engine's advice and endgame
//! programs, the playground, the benchmarks and the experiment harness,
//! editor support) turns a path or text into a verified, optimized
//! [`cvm::Program`] through this crate:
//!
//! - [`compile`]: (path or text, dialect) to a [`Compilation`] (the
//!   program, its diagnostics, its sources), optimized unless
//!   [`Options::optimize`] is off;
//! - [`compile_text`]: a program held in memory, with the dialect's
//!   bundled files to include;
//! - [`DIALECTS`], [`by_name`], [`by_path`]: the dialects, one line each;
//! - [`read_module`]: a `.cmp` (loaded and verified) or `.asm` (assembled)
//!   file.
//!
//! A new dialect is an implementation of [`Dialect`] in its own crate and
//! one line in [`DIALECTS`].
//!
//! ```
//! use che_pipeline::{by_name, compile, FsLoader, Input, Options};
//! use cvm::{CollectOutput, Interpreter, NoHost, Vm};
//!
//! let chepp = by_name("che++").expect("registered");
//! let input = Input::Text { name: "seven.che", text: "procedure main() begin write 3+4; end;" };
//! let compiled = compile(chepp, input, &FsLoader, &Options::default());
//! let program = compiled.program.expect("compiles");
//! let mut out = CollectOutput::default();
//! Interpreter::new(&program).run_entry(&mut NoHost, &mut out).unwrap();
//! assert_eq!(out.lines[0].to_string(), "7 0x00000007");
//! ```

#![deny(missing_docs)]

pub use cvm_frontend::dialect::{
    compile, Compilation, CompileError, Dialect, Input, Options, Purpose,
};
pub use cvm_frontend::{Diagnostic, FsLoader, Loader, MemLoader, SourceMap, Span};

use cvm::{Module, Program, VerifyError};
use cvm_frontend::file::{read_program, ReadError};
use std::path::Path;

/// The shipped dialects; the first is the default for a file whose
/// extension no dialect claims.
pub static DIALECTS: [&dyn Dialect; 3] = [&chepp::CHEPP, &che3::CHE3, &cheg::CHEG];

/// The dialect called `name` (`che++` is also `chepp`).
pub fn by_name(name: &str) -> Option<&'static dyn Dialect> {
    let name = if name == "chepp" { "che++" } else { name };
    DIALECTS.iter().copied().find(|d| d.name() == name)
}

/// The dialect a source file is read in by its extension: the one that
/// claims it, else Che++.
pub fn by_path(path: &Path) -> &'static dyn Dialect {
    claiming(path).unwrap_or(DIALECTS[0])
}

/// The dialect that claims `path`'s extension, if any.
pub fn claiming(path: &Path) -> Option<&'static dyn Dialect> {
    let ext = path.extension().and_then(|e| e.to_str())?;
    DIALECTS
        .iter()
        .copied()
        .find(|d| d.extensions().contains(&ext))
}

/// Compiles the file at `path` from disk in the dialect its extension
/// names ([`by_path`]).
pub fn compile_file(path: &Path, options: &Options) -> Compilation {
    compile(by_path(path), Input::File(path), &FsLoader, options)
}

/// Compiles `text`, a program held in memory, in `dialect`, under the
/// name [`Dialect::text_name`]; its `include`s find the dialect's
/// [`Dialect::bundled`] files and nothing on disk.
pub fn compile_text(dialect: &dyn Dialect, text: &str, options: &Options) -> Compilation {
    let name = dialect.text_name();
    let mut files: Vec<(&str, &str)> = dialect.bundled().to_vec();
    files.push((&name, text));
    compile(
        dialect,
        Input::File(Path::new(&name)),
        &MemLoader::with(&files),
        options,
    )
}

/// The shipped dialects whose programs serve `purpose`, in registry order.
pub fn for_purpose(purpose: Purpose) -> impl Iterator<Item = &'static dyn Dialect> {
    DIALECTS
        .iter()
        .copied()
        .filter(move |d| d.purpose() == purpose)
}

/// The names of the shipped dialects that serve `purpose`, in registry
/// order, for messages (`che++, che3`).
pub fn dialect_names(purpose: Purpose) -> String {
    for_purpose(purpose)
        .map(|d| d.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The kinds of module file.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ModuleKind {
    /// `.cmp`: the binary module format.
    Cmp,
    /// `.asm`: CVM assembler text.
    Asm,
}

impl ModuleKind {
    /// The kind `path`'s extension names, if it names a module file.
    pub fn of(path: &Path) -> Option<ModuleKind> {
        match path.extension().and_then(|e| e.to_str()) {
            Some("cmp") => Some(ModuleKind::Cmp),
            Some("asm") => Some(ModuleKind::Asm),
            _ => None,
        }
    }
}

/// A module file read from disk: a `.cmp` file is verified as it is
/// loaded; an `.asm` file is assembled, and verified when it runs.
#[derive(Clone, Debug)]
pub enum ModuleFile {
    /// A loaded `.cmp` module, verified.
    Loaded(Program),
    /// An assembled `.asm` module, not yet verified.
    Assembled(Module),
}

impl ModuleFile {
    /// The module.
    pub fn module(&self) -> &Module {
        match self {
            ModuleFile::Loaded(p) => p.module(),
            ModuleFile::Assembled(m) => m,
        }
    }

    /// The verified program (verifying an assembled module; a loaded one
    /// already is).
    pub fn verify(self) -> Result<Program, VerifyError> {
        match self {
            ModuleFile::Loaded(p) => Ok(p),
            ModuleFile::Assembled(m) => Program::new(m),
        }
    }
}

/// Why a module file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ModuleError {
    /// The file could not be read (missing, special, too large).
    #[error("{0}")]
    Read(#[from] ReadError),
    /// The `.cmp` bytes are malformed or do not verify.
    #[error("{0}")]
    Cmp(#[from] cvm::LoadError),
    /// The `.asm` text does not assemble.
    #[error("{0}")]
    Asm(#[from] cvm::asm::AsmError),
}

/// Reads the module file at `path` as `kind` (through
/// [`cvm_frontend::file::read_program`]: special files and files over the
/// size limit are refused).
pub fn read_module(path: &Path, kind: ModuleKind) -> Result<ModuleFile, ModuleError> {
    let bytes = read_program(path)?;
    Ok(match kind {
        ModuleKind::Cmp => ModuleFile::Loaded(cvm::load(&bytes)?),
        ModuleKind::Asm => {
            ModuleFile::Assembled(cvm::asm::assemble(&String::from_utf8_lossy(&bytes))?)
        }
    })
}
