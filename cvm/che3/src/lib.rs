//! # The Nimzo 3 Che dialect
//!
//! Che is the advice language Chrilly Donninger and H. Weigel shipped with
//! Nimzo 3 (1996), the ancestor of Che++: a program defines *patterns*
//! (tests on the position), *advices* (what the engine should prefer) and
//! *rules* (when a rule's patterns all hold, its advices run). This crate
//! compiles Che programs to a verified CVM [`cvm::Program`] that writes the same
//! advice table, through the same chess intrinsics, as the Che++ functions
//! Che grew into, and converts Che programs to readable Che++.
//!
//! The pipeline, one module per stage:
//!
//! | stage | module |
//! |-------|--------|
//! | files, spans, loaders | [`source`] |
//! | tokens (and `include` lines) | [`lexer`] |
//! | the program as one token stream | [`include`](mod@include) |
//! | syntax tree | [`ast`], [`parser`] |
//! | chess literals of Che | [`literal`] |
//! | the predefined functions | [`functions`] |
//! | names, kinds, arguments | [`check`] → [`hir`] |
//! | what each function means in Che++ intrinsics | [`lower`] |
//! | CVM code with a line table | [`codegen`] |
//! | Che++ source | [`names`], [`convert`] |
//! | messages with `file:line:col` and a caret | [`diag`] |
//!
//! Every stage reports problems as [`Diagnostic`]s and goes on, so one run
//! reports every independent error; no input makes any stage panic. The
//! dialect's reference is `docs/che3.md`.
//!
//! ```
//! use che3::{compile_str, CompileOptions};
//! use cvm::{CollectOutput, Interpreter, NoHost, Vm};
//!
//! let source = "
//! pattern always { } { };
//! advice centre goodsqrs(wN d5 e5);
//! rule r { always } centre;
//! ";
//! let compiled = compile_str("centre.che3", source, &CompileOptions::default());
//! let program = compiled.program.expect("compiles");
//! let mut vm = Interpreter::new(&program);
//! vm.run_entry(&mut NoHost, &mut CollectOutput::default()).unwrap();
//! // White knights: d5 is square 35, e5 square 36; a good square is +20.
//! assert_eq!(vm.advice().square_bonus[0][1][35], 20);
//! assert_eq!(vm.advice().square_bonus[0][1][36], 20);
//! ```

#![deny(missing_docs)]

pub mod ast;
pub mod check;
pub mod codegen;
pub mod convert;
pub mod functions;
pub mod hir;
pub mod include;
pub mod lexer;
pub mod literal;
pub mod lower;
pub mod names;
pub mod parser;

/// Sources and diagnostics are the ones every front end shares.
pub use cvm_frontend::{diag, source};
pub use diag::{render_runtime_error, Diagnostic, Severity};
pub use source::{FsLoader, Loader, MemLoader, SourceMap};

pub use cvm_frontend::dialect::{Compilation, CompileError};

use cvm_frontend::dialect::{Dialect, Input};
use std::path::{Path, PathBuf};

/// The file extension of Che programs.
pub const EXTENSION: &str = "che3";

/// Options of one compilation.
#[derive(Clone, Debug, Default)]
pub struct CompileOptions {
    /// Folders searched by `include` after the including file's own folder
    /// (the command line's `-I`).
    pub include_dirs: Vec<PathBuf>,
}

/// The Nimzo 3 Che dialect, as the registry of dialects and editors call it.
#[derive(Copy, Clone, Debug, Default)]
pub struct Che3;

/// The Nimzo 3 Che dialect.
pub static CHE3: Che3 = Che3;

/// The dialect's name.
pub const NAME: &str = "che3";

impl Dialect for Che3 {
    fn name(&self) -> &'static str {
        NAME
    }

    fn extensions(&self) -> &'static [&'static str] {
        &[EXTENSION]
    }

    fn compile(
        &self,
        input: Input<'_>,
        loader: &dyn Loader,
        include_dirs: &[PathBuf],
    ) -> Compilation {
        let options = CompileOptions {
            include_dirs: include_dirs.to_vec(),
        };
        let outcome = match input {
            Input::File(path) => from_file(loader, path, &options, Output::Module),
            Input::Text { name, text } => from_text(loader, name, text, &options, Output::Module),
        };
        outcome.compilation()
    }
}

/// The outcome of converting a Che program to Che++.
#[derive(Clone, Debug)]
pub struct Conversion {
    /// The Che++ text, when there was no error.
    pub chepp: Option<String>,
    /// Errors and warnings, in the order found.
    pub diagnostics: Vec<Diagnostic>,
    /// Every file read.
    pub sources: SourceMap,
}

impl Conversion {
    /// True when there was no error.
    pub fn is_ok(&self) -> bool {
        !self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// The errors.
    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics.iter().filter(|d| d.is_error())
    }

    /// The warnings.
    pub fn warnings(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics.iter().filter(|d| !d.is_error())
    }

    /// Every diagnostic with its source snippet.
    pub fn render_diagnostics(&self) -> String {
        diag::render_all(&self.diagnostics, &self.sources)
    }
}

/// What one run of the stages made.
struct Outcome {
    program: Option<cvm::Program>,
    chepp: Option<String>,
    diagnostics: Vec<Diagnostic>,
    sources: SourceMap,
}

impl Outcome {
    fn compilation(self) -> Compilation {
        Compilation::new(NAME, self.program, self.diagnostics, self.sources)
    }

    fn conversion(self) -> Conversion {
        Conversion {
            chepp: self.chepp,
            diagnostics: self.diagnostics,
            sources: self.sources,
        }
    }
}

/// What a run of the front end produces.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Output {
    Module,
    Chepp,
}

/// Compiles the Che program at `path`, reading files from disk.
pub fn compile_file(path: &Path, options: &CompileOptions) -> Compilation {
    compile_with(&FsLoader, path, options)
}

/// Compiles Che source text; `name` is shown in diagnostics and recorded
/// in the line table, and its folder is searched first by `include`.
pub fn compile_str(name: &str, source: &str, options: &CompileOptions) -> Compilation {
    from_text(&FsLoader, name, source, options, Output::Module).compilation()
}

/// Compiles the Che program at `path`, reading every file through `loader`.
pub fn compile_with(loader: &dyn Loader, path: &Path, options: &CompileOptions) -> Compilation {
    from_file(loader, path, options, Output::Module).compilation()
}

/// Converts the Che program at `path` to Che++, reading files from disk;
/// the text is in [`Conversion::chepp`].
pub fn convert_file(path: &Path, options: &CompileOptions) -> Conversion {
    convert_with(&FsLoader, path, options)
}

/// Converts Che source text to Che++.
pub fn convert_str(name: &str, source: &str, options: &CompileOptions) -> Conversion {
    from_text(&FsLoader, name, source, options, Output::Chepp).conversion()
}

/// Converts the Che program at `path` to Che++, reading every file through
/// `loader`.
pub fn convert_with(loader: &dyn Loader, path: &Path, options: &CompileOptions) -> Conversion {
    from_file(loader, path, options, Output::Chepp).conversion()
}

fn from_text(
    loader: &dyn Loader,
    name: &str,
    source: &str,
    options: &CompileOptions,
    output: Output,
) -> Outcome {
    let mut sources = SourceMap::new();
    let root = sources.add(name, Some(PathBuf::from(name)), source.to_string());
    run(loader, sources, root, None, options, output)
}

fn from_file(
    loader: &dyn Loader,
    path: &Path,
    options: &CompileOptions,
    output: Output,
) -> Outcome {
    let mut sources = SourceMap::new();
    match loader.load(path) {
        Ok(text) => {
            let name = path.to_string_lossy().into_owned();
            let root = sources.add(&name, Some(path.to_path_buf()), text);
            run(
                loader,
                sources,
                root,
                Some(loader.identity(path)),
                options,
                output,
            )
        }
        Err(e) => Outcome {
            program: None,
            chepp: None,
            diagnostics: vec![Diagnostic::global_error(format!(
                "cannot read `{}`: {e}",
                path.display()
            ))],
            sources,
        },
    }
}

fn run(
    loader: &dyn Loader,
    mut sources: SourceMap,
    root: source::FileId,
    identity: Option<PathBuf>,
    options: &CompileOptions,
    output: Output,
) -> Outcome {
    let mut diags = diag::Diagnostics::default();
    let expanded = {
        let mut includer =
            include::Includer::new(&mut sources, loader, &options.include_dirs, &mut diags);
        if let Some(id) = identity {
            includer.mark_read(id);
        }
        includer.expand(root)
    };
    let mut program = parser::parse(&expanded.tokens, &mut diags);
    program.comments = expanded.comments;
    let checked = check::check(&program, &sources, &mut diags);
    let (mut program_out, mut chepp) = (None, None);
    if !diags.has_errors() {
        match output {
            Output::Module => program_out = codegen::generate(&checked, &sources, &mut diags),
            Output::Chepp => chepp = Some(convert::convert(&program, &checked, &sources)),
        }
    }
    // In source order: the stages find problems in passes of their own.
    let mut diagnostics = diags.into_vec();
    diagnostics.sort_by_key(|d| d.span.map(|s| (s.file, s.lo)));
    Outcome {
        program: program_out,
        chepp,
        diagnostics,
        sources,
    }
}

/// Whether a file should be read as Che: its extension is `.che3`.
pub fn is_che3_path(path: &Path) -> bool {
    path.extension().and_then(|e| e.to_str()) == Some(EXTENSION)
}
