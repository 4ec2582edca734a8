//! # The Che++ front end
//!
//! Compiles Che++, Chrilly Donninger's chess advice language, to a verified
//! CVM [`Module`]. The pipeline reads top to bottom, one module per stage:
//!
//! | stage | module |
//! |-------|--------|
//! | source files, spans, include search | [`source`] |
//! | tokens | [`token`], [`lexer`] |
//! | syntax tree (includes spliced in) | [`ast`], [`parser`] |
//! | constant folding | [`consteval`] |
//! | names, kinds, static rules, link checks | [`sema`] → [`hir`] |
//! | CVM code with line table | [`buffer`], [`codegen`] |
//! | messages with `file:line:col`, snippet and caret | [`diag`] |
//!
//! Every stage reports problems as [`Diagnostic`]s and carries on, so one
//! run reports every independent error; no input makes any stage panic.
//!
//! ```
//! use chepp::{compile_str, CompileOptions};
//! use cvm::{CollectOutput, Interpreter, NoHost, Program, Vm};
//!
//! let source = "
//! function fac(n)
//! begin
//!   if n <= 1 then return n; else return n*fac(n-1); end;
//! end;
//! procedure main()
//! begin
//!   write fac(5);
//! end;
//! ";
//! let compiled = compile_str("fac.che", source, &CompileOptions::default());
//! let module = compiled.module.expect("compiles");
//! let program = Program::new(module).unwrap();
//! let mut out = CollectOutput::default();
//! Interpreter::new(&program).run_entry(&mut NoHost, &mut out).unwrap();
//! assert_eq!(out.lines[0].to_string(), "120 0x00000078");
//! ```

pub mod ast;
pub mod buffer;
pub mod codegen;
pub mod consteval;
pub mod diag;
pub mod examples;
pub mod hir;
pub mod lexer;
pub mod parser;
pub mod sema;
pub mod source;
pub mod token;

pub use diag::{render_runtime_error, Diagnostic, Severity};
pub use source::{FsLoader, Loader, MemLoader, SourceMap, STDLIB_NAME, STDLIB_SOURCE};

use cvm::module::Module;
use cvm::runtime::RuntimeError;
use std::path::{Path, PathBuf};

/// Options of one compilation.
#[derive(Clone, Debug, Default)]
pub struct CompileOptions {
    /// Folders searched by `include` after the including file's own folder
    /// (the command line's `-I`).
    pub include_dirs: Vec<PathBuf>,
}

/// The outcome of a compilation: the module when there was no error, every
/// diagnostic, and the sources (to render diagnostics and runtime errors).
#[derive(Clone, Debug)]
pub struct Compilation {
    /// The verified module, when no error was found.
    pub module: Option<Module>,
    /// Errors and warnings in the order found.
    pub diagnostics: Vec<Diagnostic>,
    /// Every file read.
    pub sources: SourceMap,
}

impl Compilation {
    /// True when a module was produced.
    pub fn is_ok(&self) -> bool {
        self.module.is_some()
    }

    /// The errors.
    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics.iter().filter(|d| d.is_error())
    }

    /// The warnings.
    pub fn warnings(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics.iter().filter(|d| !d.is_error())
    }

    /// Every diagnostic rendered with its source snippet.
    pub fn render_diagnostics(&self) -> String {
        diag::render_all(&self.diagnostics, &self.sources)
    }

    /// A runtime error of the compiled program, rendered with its source
    /// line and caret.
    pub fn render_runtime_error(&self, error: &RuntimeError) -> String {
        render_runtime_error(error, &self.sources)
    }

    /// The module, or the rendered diagnostics as an error.
    pub fn into_result(self) -> Result<Module, CompileError> {
        match self.module {
            Some(m) => Ok(m),
            None => Err(CompileError {
                rendered: diag::render_all(&self.diagnostics, &self.sources),
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

/// Compiles the file at `path`, reading it and its includes from disk.
pub fn compile_file(path: &Path, options: &CompileOptions) -> Compilation {
    compile_with(&FsLoader, path, options)
}

/// Compiles source text given directly; `name` is the file name shown in
/// diagnostics and recorded in the line table, and its folder is searched
/// first by `include`.
pub fn compile_str(name: &str, source: &str, options: &CompileOptions) -> Compilation {
    let mut sources = SourceMap::new();
    let root = sources.add(name, Some(PathBuf::from(name)), source.to_string());
    run(&FsLoader, sources, root, None, options)
}

/// Compiles the file at `path`, reading every file through `loader`.
pub fn compile_with(loader: &dyn Loader, path: &Path, options: &CompileOptions) -> Compilation {
    let mut sources = SourceMap::new();
    match loader.load(path) {
        Ok(text) => {
            let root = sources.add(&source::display_name(path), Some(path.to_path_buf()), text);
            run(loader, sources, root, Some(loader.identity(path)), options)
        }
        Err(e) => Compilation {
            module: None,
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
) -> Compilation {
    let mut diags = diag::Diagnostics::default();
    let program = {
        let mut ctx =
            parser::ParseCtx::new(&mut sources, loader, &options.include_dirs, &mut diags);
        if let Some(id) = identity {
            ctx.mark_included(id);
        }
        parser::parse_program(&mut ctx, root)
    };
    let hir = sema::check(&program, &sources, &mut diags);
    let module = if diags.has_errors() {
        None
    } else {
        codegen::generate(&hir, &sources, &mut diags)
    };
    Compilation {
        module,
        diagnostics: diags.into_vec(),
        sources,
    }
}
