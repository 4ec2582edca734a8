//! Diagnostics: what is wrong, where, and how it is shown.
//!
//! Every stage of the front end records problems as [`Diagnostic`]s and goes
//! on, so that one run reports every independent error. A diagnostic renders
//! the way the `che` command line promises for every dialect: a grep-able
//! `file:line:col: error: message` headline, then the source line with a
//! caret (drawn by `codespan-reporting`), then notes and help:
//!
//! ```text
//! french.che3:4:22: error: cannot find pattern `wCstl`
//!   --> french.che3:4:22
//!   |
//! 4 | advice a1 wKsCstl { wCstl } goodsqrs(wN d4);
//!   |                     ^^^^^ not defined
//!   |
//!   = help: a pattern with a similar spelling exists: `wCstld`
//! ```

use crate::source::{SourceMap, Span};
use codespan_reporting::diagnostic as cs;
use codespan_reporting::term::{self, Chars, Config, DisplayStyle};
use cvm::runtime::RuntimeError;
use std::fmt;

/// How serious a diagnostic is.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Severity {
    /// The program is not compiled.
    Error,
    /// The program compiles, but probably does not do what was meant.
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

/// One message of the front end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// The headline.
    pub message: String,
    /// The place, when the problem has one.
    pub span: Option<Span>,
    /// The short text under the caret.
    pub label: String,
    /// Further places with their own short texts.
    pub secondary: Vec<(Span, String)>,
    /// `note: ...` and `help: ...` lines after the snippet.
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

    /// An error without a place (an unreadable main file).
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

    /// The headline, the source snippet with its caret, and the notes; ends
    /// with an empty line.
    pub fn render(&self, sources: &SourceMap) -> String {
        let mut out = self.headline(sources);
        out.push('\n');
        let Some(span) = self.span else {
            for note in &self.notes {
                out.push_str(&format!("  = {note}\n"));
            }
            out.push('\n');
            return out;
        };
        let severity = match self.severity {
            Severity::Error => cs::Severity::Error,
            Severity::Warning => cs::Severity::Warning,
        };
        let mut labels =
            vec![cs::Label::primary(span.file, span.range()).with_message(&self.label)];
        for (s, text) in &self.secondary {
            labels.push(cs::Label::secondary(s.file, s.range()).with_message(text));
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
            // codespan's first line repeats the headline without the place.
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
        out
    }
}

/// Renders diagnostics one after another.
pub fn render_all(diagnostics: &[Diagnostic], sources: &SourceMap) -> String {
    diagnostics.iter().map(|d| d.render(sources)).collect()
}

/// Renders a runtime error of a compiled Che program like a compile error,
/// with the source line and a caret, when the line table and the sources
/// know the place; otherwise the error's own text.
pub fn render_runtime_error(error: &RuntimeError, sources: &SourceMap) -> String {
    if let Some(pos) = &error.pos {
        if let Some(span) = sources
            .find(&pos.file)
            .and_then(|f| sources.span_at(f, pos.line, pos.col))
        {
            let d = Diagnostic::error(span, error.kind.to_string())
                .note(format!("at code offset {}", error.offset));
            let text = d.render(sources);
            if let Some((_, rest)) = text.split_once('\n') {
                return format!("{error}\n{rest}");
            }
        }
    }
    format!("{error}\n")
}

/// The diagnostics of one compilation, in the order found; an exact
/// repetition is kept once.
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

    /// True when an error was recorded.
    pub fn has_errors(&self) -> bool {
        self.list.iter().any(Diagnostic::is_error)
    }

    /// The diagnostics.
    pub fn into_vec(self) -> Vec<Diagnostic> {
        self.list
    }
}
