//! The one interface of a front end: a [`Dialect`] turns a file or text in
//! memory into a [`Compilation`] (a verified program, its diagnostics and
//! the sources they point into), and [`compile`] adds the loophole
//! optimizer, so every host gets the same program from the same input.
//!
//! A dialect compiles, and its code generator's builder verifies, once;
//! the optimizer maps that program to a new one, verified once more. The
//! registry of the shipped dialects is the crate `che-pipeline`; an editor
//! or any other host can also call one dialect directly.
//!
//! ```
//! use cvm_frontend::dialect::{Compilation, Dialect, Input};
//! use cvm_frontend::{Diagnostic, Loader};
//! use std::path::PathBuf;
//!
//! /// A dialect that refuses everything.
//! struct Nothing;
//! impl Dialect for Nothing {
//!     fn name(&self) -> &'static str { "nothing" }
//!     fn extensions(&self) -> &'static [&'static str] { &["none"] }
//!     fn compile(&self, input: Input<'_>, _: &dyn Loader, _: &[PathBuf]) -> Compilation {
//!         Compilation::failed(self.name(), Diagnostic::global_error("nothing compiles"))
//!     }
//! }
//! let c = Nothing.compile(Input::Text { name: "a.none", text: "" }, &cvm_frontend::FsLoader, &[]);
//! assert!(!c.is_ok());
//! assert!(c.render_diagnostics().starts_with("error: nothing compiles\n"));
//! ```

use crate::diag::{render_all, render_runtime_error, Diagnostic};
use crate::source::{Loader, SourceMap};
use cvm::opt::Report;
use cvm::{Program, RuntimeError};
use std::any::Any;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What to compile.
#[derive(Copy, Clone, Debug)]
pub enum Input<'a> {
    /// A file, read through the loader (with its includes).
    File(&'a Path),
    /// Text in memory (an editor's buffer, a playground's request); `name`
    /// is shown in diagnostics and recorded in the line table, and its
    /// folder is searched first by `include`.
    Text {
        /// The file name.
        name: &'a str,
        /// The source text.
        text: &'a str,
    },
}

impl Input<'_> {
    /// The name shown for the input: the path or the text's name.
    pub fn name(&self) -> String {
        match self {
            Input::File(path) => path.display().to_string(),
            Input::Text { name, .. } => (*name).to_string(),
        }
    }

    /// The path the input goes by: the file's, or the text's name.
    pub fn path(&self) -> &Path {
        match self {
            Input::File(path) => path,
            Input::Text { name, .. } => Path::new(name),
        }
    }
}

/// How every dialect compiles, whatever the host.
#[derive(Clone, Debug)]
pub struct Options {
    /// Folders searched by `include` after the including file's own folder
    /// (the command line's `-I`).
    pub include_dirs: Vec<PathBuf>,
    /// Run the loophole optimizer over the compiled program (the default).
    pub optimize: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            include_dirs: Vec::new(),
            optimize: true,
        }
    }
}

/// A source language compiled to the CVM.
///
/// An implementation parses, checks and generates code; its module builder
/// verifies the code, so [`Compilation::program`] is a verified program.
/// Optimizing is [`compile`]'s job, the same for every dialect.
/// What a dialect's programs are for, which decides the hosts that run them.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Purpose {
    /// Advice programs: `main()` runs on a position and fills the advice
    /// table (`che run`, the playground, the engine's `CheProgram`).
    Advice,
    /// Endgame programs, with their own runner (`che run` on the file,
    /// the engine's `EndgameProgram`).
    Endgame,
}

pub trait Dialect: Sync {
    /// The dialect's name, as `--dialect` and the playground take it.
    fn name(&self) -> &'static str;

    /// The file extensions (without the dot) of its source files; the
    /// first names a program held in memory ([`Dialect::text_name`]).
    fn extensions(&self) -> &'static [&'static str];

    /// What its programs are for; advice unless the dialect says so.
    fn purpose(&self) -> Purpose {
        Purpose::Advice
    }

    /// The bundled files (name, text) that a program held in memory may
    /// include; none unless the dialect ships some.
    fn bundled(&self) -> &'static [(&'static str, &'static str)] {
        &[]
    }

    /// The file name under which a program held in memory (the
    /// playground's editor, the engine's program text) is compiled:
    /// `playground.` and the dialect's first extension.
    fn text_name(&self) -> String {
        match self.extensions().first() {
            Some(ext) => format!("playground.{ext}"),
            None => "playground".to_string(),
        }
    }

    /// Compiles `input`, reading files (the input file and what it
    /// includes) through `loader` and searching `include_dirs` for
    /// includes. Every independent error is a diagnostic; nothing panics.
    fn compile(
        &self,
        input: Input<'_>,
        loader: &dyn Loader,
        include_dirs: &[PathBuf],
    ) -> Compilation;
}

/// Compiles `input` in `dialect` and, when `options.optimize`, runs the
/// loophole optimizer over the result: the one way a host turns source
/// into a program.
pub fn compile(
    dialect: &dyn Dialect,
    input: Input<'_>,
    loader: &dyn Loader,
    options: &Options,
) -> Compilation {
    let compilation = dialect.compile(input, loader, &options.include_dirs);
    if options.optimize {
        compilation.optimized()
    } else {
        compilation
    }
}

/// What a front end made of its input: the verified program when there
/// was no error, every diagnostic, and the sources they (and the
/// program's line table) point into.
#[derive(Clone)]
pub struct Compilation {
    /// The dialect's name.
    pub dialect: &'static str,
    /// The verified program, when no error was found.
    pub program: Option<Program>,
    /// Errors and warnings, in the order found.
    pub diagnostics: Vec<Diagnostic>,
    /// Every file read.
    pub sources: SourceMap,
    /// What the optimizer did, when it ran.
    pub optimizer: Option<Report>,
    extra: Option<Arc<dyn Any + Send + Sync>>,
}

impl fmt::Debug for Compilation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Compilation")
            .field("dialect", &self.dialect)
            .field("program", &self.program.is_some())
            .field("diagnostics", &self.diagnostics)
            .field("optimizer", &self.optimizer)
            .finish_non_exhaustive()
    }
}

impl Compilation {
    /// A compilation's outcome; the program is given only when there was
    /// no error.
    pub fn new(
        dialect: &'static str,
        program: Option<Program>,
        diagnostics: Vec<Diagnostic>,
        sources: SourceMap,
    ) -> Compilation {
        Compilation {
            dialect,
            program,
            diagnostics,
            sources,
            optimizer: None,
            extra: None,
        }
    }

    /// A compilation that failed before reading any source (an unreadable
    /// file).
    pub fn failed(dialect: &'static str, diagnostic: Diagnostic) -> Compilation {
        Compilation::new(dialect, None, vec![diagnostic], SourceMap::new())
    }

    /// Attaches what the dialect's runtime needs beside the code (CHEG's
    /// checked program); read back with [`Compilation::extra`].
    pub fn with_extra<T: Any + Send + Sync>(mut self, extra: T) -> Compilation {
        self.extra = Some(Arc::new(extra));
        self
    }

    /// What the dialect attached, if it is a `T`.
    pub fn extra<T: Any>(&self) -> Option<&T> {
        self.extra.as_deref()?.downcast_ref()
    }

    /// The compilation with its program run through the loophole
    /// optimizer (one more verification, of the optimizer's output).
    pub fn optimized(mut self) -> Compilation {
        if let Some(program) = &self.program {
            let (optimized, report) = cvm::opt::optimize(program);
            self.program = Some(optimized);
            self.optimizer = Some(report);
        }
        self
    }

    /// True when a program was produced.
    pub fn is_ok(&self) -> bool {
        self.program.is_some()
    }

    /// The errors.
    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics.iter().filter(|d| d.is_error())
    }

    /// The warnings.
    pub fn warnings(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics.iter().filter(|d| !d.is_error())
    }

    /// Every diagnostic rendered with its source snippet
    /// (`file:line:col: error: ...`, the line and a caret).
    pub fn render_diagnostics(&self) -> String {
        render_all(&self.diagnostics, &self.sources)
    }

    /// A runtime error of the compiled program, rendered with its source
    /// line and caret.
    pub fn render_runtime_error(&self, error: &RuntimeError) -> String {
        render_runtime_error(error, &self.sources)
    }

    /// The program, or the rendered diagnostics as an error.
    pub fn into_result(self) -> Result<Program, CompileError> {
        match self.program {
            Some(p) => Ok(p),
            None => Err(CompileError {
                rendered: render_all(&self.diagnostics, &self.sources),
                diagnostics: self.diagnostics,
            }),
        }
    }
}

/// A failed compilation.
#[derive(Clone, Debug, thiserror::Error)]
#[error("{rendered}")]
pub struct CompileError {
    /// The diagnostics.
    pub diagnostics: Vec<Diagnostic>,
    /// Their rendering.
    pub rendered: String,
}
