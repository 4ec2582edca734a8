//! # What the CVM front ends share
//!
//! The project compiles three languages to the CVM: Che++ (`chepp`), the
//! Nimzo 3 Che dialect (`che3`) and Greenblatt's CHEG endgame language
//! (`cheg`). They read sources and report problems the same way, and this
//! crate is that one way:
//!
//! - [`dialect`]: the one interface of a front end ([`Dialect`]: a file or
//!   text to a [`Compilation`], a verified program with its diagnostics and
//!   sources) and [`dialect::compile`], which adds the optimizer;
//! - [`source`]: the source map, spans, loaders (disk and memory) and the
//!   decoding of source bytes (UTF-8, else Latin-1; a byte-order mark is
//!   dropped);
//! - [`file`](mod@file): reading a file a user named: special files refused, a size
//!   limit;
//! - [`diag`]: diagnostics (`file:line:col: error: message`, the line with a
//!   caret, notes), and runtime errors rendered the same way from a
//!   module's line table.
//!
//! ```
//! use cvm_frontend::{Diagnostic, SourceMap, Span};
//!
//! let mut sources = SourceMap::new();
//! let file = sources.add("main.che", None, "x := 1;\nwrite(y);\n".to_string());
//! let at = sources.get(file).map_or(0, |f| f.text.find('y').unwrap_or(0));
//! let d = Diagnostic::error(Span::new(file, at, at + 1), "cannot find `y`").label("not declared");
//! assert!(d.render(&sources).starts_with("main.che:2:7: error: cannot find `y`"));
//! ```

pub mod diag;
pub mod dialect;
pub mod file;
pub mod source;

pub use diag::{render_all, render_runtime_error, Diagnostic, Diagnostics, Severity};
pub use dialect::{Compilation, CompileError, Dialect, Input, Options, Purpose};
pub use source::{decode, FileId, FsLoader, Loader, MemLoader, SourceMap, Span};
