//! Compiler diagnostics: what went wrong, where, and how to show it.
//!
//! The original Che++ compiler stopped at the first error and its
//! explanations "followed the compiler's inner logic rather than the
//! user's". Every front end of the project (Che++, Nimzo 3 Che, CHEG)
//! instead collects every independent problem of a run as a [`Diagnostic`]
//! with a primary [`Span`], optional secondary spans and notes, and renders
//! each one the same way, as the `che` command line promises:
//!
//! ```text
//! main.che:4:7: error: cannot find `hasi` in this scope
//!   --> main.che:4:7
//!   |
//! 4 | susi:=hasi+1;
//!   |       ^^^^ not declared
//!   |
//!   = help: a name with a similar spelling exists: `hansi`
//! ```
//!
//! The first line is the grep-able `file:line:col: severity: message`; the
//! snippet below it comes from `codespan-reporting`.

use crate::source::{SourceMap, Span};
use codespan_reporting::diagnostic as cs;
use codespan_reporting::term::{self, Chars, Config, DisplayStyle};
use cvm::runtime::RuntimeError;
use std::fmt;

/// How serious a diagnostic is.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Severity {
    /// Compilation fails.
    Error,
    /// Compilation goes on; the program is probably not what was meant.
    Warning,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        })
    }
}

/// One message of the compiler.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// The headline.
    pub message: String,
    /// Where, if the problem has a place in the source.
    pub span: Option<Span>,
    /// A short text under the caret.
    pub label: String,
    /// Further places, each with its own short text.
    pub secondary: Vec<(Span, String)>,
    /// `note: ...` and `help: ...` lines shown after the snippet.
    pub notes: Vec<String>,
}

impl Diagnostic {
    fn new(severity: Severity, span: Option<Span>, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity,
            message: message.into(),
            span,
            label: String::new(),
            secondary: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// An error at `span`.
    pub fn error(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Severity::Error, Some(span), message)
    }

    /// An error without a source position (a missing `main`, say).
    pub fn global_error(message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Severity::Error, None, message)
    }

    /// A warning at `span`.
    pub fn warning(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Severity::Warning, Some(span), message)
    }

    /// Sets the text under the caret.
    pub fn label(mut self, label: impl Into<String>) -> Diagnostic {
        self.label = label.into();
        self
    }

    /// Adds a secondary place.
    pub fn secondary(mut self, span: Span, label: impl Into<String>) -> Diagnostic {
        self.secondary.push((span, label.into()));
        self
    }

    /// Adds a `note:` line.
    pub fn note(mut self, note: impl fmt::Display) -> Diagnostic {
        self.notes.push(format!("note: {note}"));
        self
    }

    /// Adds a `help:` line.
    pub fn help(mut self, help: impl fmt::Display) -> Diagnostic {
        self.notes.push(format!("help: {help}"));
        self
    }

    /// True for errors.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// The `file:line:col: severity: message` headline.
    pub fn headline(&self, sources: &SourceMap) -> String {
        match self.span {
            Some(span) => {
                let (line, col) = sources.line_col(span);
                let name = sources
                    .get(span.file)
                    .map_or("<unknown>", |f| f.name.as_str());
                format!("{name}:{line}:{col}: {}: {}", self.severity, self.message)
            }
            None => format!("{}: {}", self.severity, self.message),
        }
    }

    /// The full text: headline, source snippet with caret, notes. Ends with
    /// a newline.
    pub fn render(&self, sources: &SourceMap) -> String {
        let mut out = self.headline(sources);
        out.push('\n');
        if self.span.is_none() {
            for note in &self.notes {
                out.push_str(&format!("  = {note}\n"));
            }
            out.push('\n');
            return out;
        }
        let severity = match self.severity {
            Severity::Error => cs::Severity::Error,
            Severity::Warning => cs::Severity::Warning,
        };
        let mut labels = Vec::new();
        if let Some(span) = self.span {
            labels.push(cs::Label::primary(span.file, span.range()).with_message(&self.label));
        }
        for (span, text) in &self.secondary {
            labels.push(cs::Label::secondary(span.file, span.range()).with_message(text));
        }
        let diagnostic = cs::Diagnostic::new(severity)
            .with_message(&self.message)
            .with_labels(labels)
            .with_notes(self.notes.clone());
        let config = Config {
            display_style: DisplayStyle::Rich,
            chars: Chars::ascii(),
            ..Config::default()
        };
        let mut buffer = Vec::new();
        if term::emit_to_io_write(&mut buffer, &config, sources, &diagnostic).is_ok() {
            let text = String::from_utf8_lossy(&buffer);
            // The first line repeats the headline without its position.
            let body = text.split_once('\n').map_or("", |(_, rest)| rest);
            for line in body.lines() {
                out.push_str(line.trim_end());
                out.push('\n');
            }
        } else {
            for note in &self.notes {
                out.push_str(&format!("  = {note}\n"));
            }
        }
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out
    }
}

/// Renders diagnostics one after the other.
pub fn render_all(diagnostics: &[Diagnostic], sources: &SourceMap) -> String {
    diagnostics.iter().map(|d| d.render(sources)).collect()
}

/// Renders a runtime error like a compile error: `file:line:col: error:`,
/// the source line and a caret, when the module's line table and the
/// sources know the place; otherwise the error's own text.
pub fn render_runtime_error(error: &RuntimeError, sources: &SourceMap) -> String {
    if let Some(pos) = &error.pos {
        if let Some(span) = sources
            .find(&pos.file)
            .and_then(|f| sources.span_at(f, pos.line, pos.col))
        {
            let mut d = Diagnostic::error(span, error.kind.to_string());
            d.notes
                .push(format!("note: at code offset {}", error.offset));
            let mut text = d.render(sources);
            // Keep the position exactly as the line table has it.
            if let Some((_, rest)) = text.split_once('\n') {
                text = format!("{error}\n{rest}");
            }
            return text;
        }
    }
    format!("{error}\n")
}

/// The diagnostics of one compilation, in the order they were found.
#[derive(Clone, Debug, Default)]
pub struct Diagnostics {
    list: Vec<Diagnostic>,
}

impl Diagnostics {
    /// Records a diagnostic.
    pub fn push(&mut self, d: Diagnostic) {
        if !self.list.contains(&d) {
            self.list.push(d);
        }
    }

    /// True when at least one error was recorded.
    pub fn has_errors(&self) -> bool {
        self.list.iter().any(Diagnostic::is_error)
    }

    /// Number of errors.
    pub fn error_count(&self) -> usize {
        self.list.iter().filter(|d| d.is_error()).count()
    }

    /// All diagnostics.
    pub fn into_vec(self) -> Vec<Diagnostic> {
        self.list
    }
}
