//! # The Che++ front end
//!
//! Compiles Che++, Chrilly Donninger's chess advice language, to a verified
//! CVM [`cvm::Program`] (unoptimized: [`cvm_frontend::dialect::compile`]
//! adds the optimizer). The pipeline reads top to bottom, one module per stage:
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
//! let program = compiled.program.expect("compiles");
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

pub use cvm_frontend::dialect::{Compilation, CompileError};

use cvm_frontend::dialect::{Dialect, Input};
use std::path::{Path, PathBuf};

/// Options of one compilation.
#[derive(Clone, Debug, Default)]
pub struct CompileOptions {
    /// Folders searched by `include` after the including file's own folder
    /// (the command line's `-I`).
    pub include_dirs: Vec<PathBuf>,
}

/// The Che++ dialect, as the registry of dialects and editors call it.
#[derive(Copy, Clone, Debug, Default)]
pub struct Chepp;

/// The Che++ dialect.
pub static CHEPP: Chepp = Chepp;

/// The dialect's name.
pub const NAME: &str = "che++";

impl Dialect for Chepp {
    fn name(&self) -> &'static str {
        NAME
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["che"]
    }

    fn bundled(&self) -> &'static [(&'static str, &'static str)] {
        examples::EXAMPLES
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
        match input {
            Input::File(path) => compile_with(loader, path, &options),
            Input::Text { name, text } => from_text(loader, name, text, &options),
        }
    }
}

/// Compiles the file at `path`, reading it and its includes from disk.
pub fn compile_file(path: &Path, options: &CompileOptions) -> Compilation {
    compile_with(&FsLoader, path, options)
}

/// Compiles source text given directly; `name` is the file name shown in
/// diagnostics and recorded in the line table, and its folder is searched
/// first by `include`.
pub fn compile_str(name: &str, source: &str, options: &CompileOptions) -> Compilation {
    from_text(&FsLoader, name, source, options)
}

fn from_text(
    loader: &dyn Loader,
    name: &str,
    source: &str,
    options: &CompileOptions,
) -> Compilation {
    let mut sources = SourceMap::new();
    let root = sources.add(name, Some(PathBuf::from(name)), source.to_string());
    run(loader, sources, root, None, options)
}

/// Compiles the file at `path`, reading every file through `loader`.
pub fn compile_with(loader: &dyn Loader, path: &Path, options: &CompileOptions) -> Compilation {
    let mut sources = SourceMap::new();
    match loader.load(path) {
        Ok(text) => {
            let root = sources.add(&source::display_name(path), Some(path.to_path_buf()), text);
            run(loader, sources, root, Some(loader.identity(path)), options)
        }
        Err(e) => Compilation::failed(
            NAME,
            Diagnostic::global_error(format!("cannot read `{}`: {e}", path.display())),
        ),
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
    let program = if diags.has_errors() {
        None
    } else {
        codegen::generate(&hir, &sources, &mut diags)
    };
    Compilation::new(NAME, program, diags.into_vec(), sources)
}
