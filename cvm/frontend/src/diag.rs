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
//!
//! What one input can make the compiler say is bounded:
//!
//! - at most [`MAX_ERRORS_PER_FILE`] errors (and as many warnings) are kept
//!   and shown per source file; the next one is replaced by a single
//!   `too many errors in this file` error at its place, and the rest are
//!   dropped (the compiler goes on reading, in time linear in the input, but
//!   says nothing more about that file);
//! - a source line longer than [`MAX_SHOWN_LINE`] bytes is not shown whole:
//!   the snippet shows a window of [`WINDOW_CHARS`] characters around the
//!   caret, with `...` where the line was cut;
//! - a message, label or note longer than [`MAX_MESSAGE`] characters (one
//!   that quotes a long name, say) is cut there, with `...`.

use crate::source::{SourceMap, Span};
use codespan_reporting::diagnostic as cs;
use codespan_reporting::term::{self, Chars, Config, DisplayStyle};
use cvm::runtime::RuntimeError;
use std::collections::HashMap;
use std::fmt;

/// The most errors kept and shown for one source file (warnings are
/// counted apart, with the same bound).
pub const MAX_ERRORS_PER_FILE: usize = 100;

/// The longest source line (in bytes) a diagnostic shows whole.
pub const MAX_SHOWN_LINE: usize = 240;

/// The characters of a longer line shown around the caret.
pub const WINDOW_CHARS: usize = 120;

/// The longest message, label or note shown, in characters.
pub const MAX_MESSAGE: usize = 200;

/// `text` cut to at most `max` characters, with `...` where it was cut.
pub fn clip(text: &str, max: usize) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(max) {
        None => std::borrow::Cow::Borrowed(text),
        Some((at, _)) => std::borrow::Cow::Owned(format!("{}...", &text[..at])),
    }
}

/// Of [`WINDOW_CHARS`], how many come before the caret.
const WINDOW_BEFORE: usize = 40;

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

    /// The `file:line:col: severity: message` headline (the message cut to
    /// [`MAX_MESSAGE`] characters).
    pub fn headline(&self, sources: &SourceMap) -> String {
        match self.span {
            Some(span) => {
                let (line, col) = sources.line_col(span);
                let name = sources
                    .get(span.file)
                    .map_or("<unknown>", |f| f.name.as_str());
                let message = clip(&self.message, MAX_MESSAGE);
                format!("{name}:{line}:{col}: {}: {message}", self.severity)
            }
            None => format!("{}: {}", self.severity, clip(&self.message, MAX_MESSAGE)),
        }
    }

    /// The diagnostic with its message, label and notes cut to
    /// [`MAX_MESSAGE`] characters.
    pub fn clipped(&self) -> Diagnostic {
        Diagnostic {
            severity: self.severity,
            message: clip(&self.message, MAX_MESSAGE).into_owned(),
            span: self.span,
            label: clip(&self.label, MAX_MESSAGE).into_owned(),
            secondary: self
                .secondary
                .iter()
                .map(|(s, t)| (*s, clip(t, MAX_MESSAGE).into_owned()))
                .collect(),
            notes: self
                .notes
                .iter()
                .map(|n| clip(n, MAX_MESSAGE).into_owned())
                .collect(),
        }
    }

    /// The full text: headline, source snippet with caret, notes. Ends with
    /// a newline. Long source lines and messages are cut (see the module
    /// documentation).
    pub fn render(&self, sources: &SourceMap) -> String {
        self.clipped().render_clipped(sources)
    }

    fn render_clipped(&self, sources: &SourceMap) -> String {
        let mut out = self.headline(sources);
        out.push('\n');
        if self.span.is_none() {
            for note in &self.notes {
                out.push_str(&format!("  = {note}\n"));
            }
            out.push('\n');
            return out;
        }
        if self.has_long_line(sources) {
            self.render_window(sources, &mut out);
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

impl Diagnostic {
    /// Whether a line the diagnostic points at is longer than
    /// [`MAX_SHOWN_LINE`].
    fn has_long_line(&self, sources: &SourceMap) -> bool {
        self.span
            .into_iter()
            .chain(self.secondary.iter().map(|(s, _)| *s))
            .any(|span| {
                sources
                    .line_text_of(span)
                    .is_some_and(|(_, line)| line.len() > MAX_SHOWN_LINE)
            })
    }

    /// The snippet for a diagnostic on a long line: the primary line cut
    /// to a window around the caret; secondary places become notes.
    fn render_window(&self, sources: &SourceMap, out: &mut String) {
        let Some(span) = self.span else { return };
        let Some((start, line)) = sources.line_text_of(span) else {
            return;
        };
        let (number, col) = sources.line_col(span);
        let name = sources
            .get(span.file)
            .map_or("<unknown>", |f| f.name.as_str());
        let width = number.to_string().len();
        let pad = " ".repeat(width);
        let lo = (span.lo as usize).saturating_sub(start).min(line.len());
        let hi = (span.hi as usize)
            .saturating_sub(start)
            .clamp(lo, line.len());
        // Character positions of the caret's ends.
        let caret = col as usize - 1;
        let caret_len = line
            .get(lo..hi)
            .map_or(0, |s| s.chars().take(WINDOW_CHARS).count())
            .max(1);
        let first = caret.saturating_sub(WINDOW_BEFORE);
        let shown: String = line.chars().skip(first).take(WINDOW_CHARS).collect();
        let cut_before = first > 0;
        let cut_after = line.chars().nth(first + WINDOW_CHARS).is_some();
        let lead = if cut_before { "..." } else { "" };
        out.push_str(&format!("{pad} --> {name}:{number}:{col}\n"));
        out.push_str(&format!("{pad} |\n"));
        out.push_str(&format!(
            "{number} | {lead}{shown}{}\n",
            if cut_after { "..." } else { "" }
        ));
        let offset = lead.len() + caret - first;
        let carets = caret_len.min(WINDOW_CHARS - (caret - first));
        let label = if self.label.is_empty() {
            String::new()
        } else {
            format!(" {}", self.label)
        };
        out.push_str(&format!(
            "{pad} | {}{}{label}\n",
            " ".repeat(offset),
            "^".repeat(carets.max(1))
        ));
        let mut notes: Vec<String> = self
            .secondary
            .iter()
            .map(|(s, text)| {
                let (l, c) = sources.line_col(*s);
                let n = sources.get(s.file).map_or("<unknown>", |f| f.name.as_str());
                format!("note: {n}:{l}:{c}: {text}")
            })
            .collect();
        notes.extend(self.notes.iter().cloned());
        if !notes.is_empty() {
            out.push_str(&format!("{pad} |\n"));
            for note in notes {
                out.push_str(&format!("{pad} = {note}\n"));
            }
        }
        out.push('\n');
    }
}

/// Renders diagnostics one after the other, at most
/// [`MAX_ERRORS_PER_FILE`] errors (and as many warnings) per file; past
/// that, one `too many errors` line per file says how many were left out.
pub fn render_all(diagnostics: &[Diagnostic], sources: &SourceMap) -> String {
    let mut budget = Budget::default();
    let mut out = String::new();
    for d in diagnostics {
        if is_abort(d) || budget.admit(d) {
            out.push_str(&d.render(sources));
        } else {
            budget.drop(d);
        }
    }
    for d in budget.aborts() {
        out.push_str(&d.render(sources));
    }
    out
}

/// The start of the message that says a file had too many errors.
const ABORT: &str = "aborting after ";

/// The error that stands for the `dropped` errors of a file past the
/// first [`MAX_ERRORS_PER_FILE`], at the place of the first one dropped.
fn abort_error(at: Option<Span>, dropped: usize) -> Diagnostic {
    let message =
        format!("{ABORT}{MAX_ERRORS_PER_FILE} errors in this file; {dropped} more not reported");
    match at {
        Some(span) => Diagnostic::error(span, message),
        None => Diagnostic::global_error(message),
    }
}

/// Whether `d` is an [`abort_error`].
fn is_abort(d: &Diagnostic) -> bool {
    d.is_error() && d.message.starts_with(ABORT)
}

/// The file a diagnostic counts against (`None`: no position).
type FileKey = crate::source::FileId;

/// Counts diagnostics per file and severity against [`MAX_ERRORS_PER_FILE`],
/// and the errors dropped past it.
#[derive(Clone, Debug, Default)]
struct Budget {
    counts: HashMap<(Option<FileKey>, bool), usize>,
    /// Per file in order of the first drop: where, and how many errors.
    dropped: Vec<(Option<FileKey>, Option<Span>, usize)>,
}

impl Budget {
    /// Counts `d`; false once its file has had the most of its severity.
    fn admit(&mut self, d: &Diagnostic) -> bool {
        let n = self
            .counts
            .entry((d.span.map(|s| s.file), d.is_error()))
            .or_insert(0);
        if *n < MAX_ERRORS_PER_FILE {
            *n += 1;
            true
        } else {
            false
        }
    }

    /// Records that `d` was not admitted (only errors are counted).
    fn drop(&mut self, d: &Diagnostic) {
        if !d.is_error() {
            return;
        }
        let key = d.span.map(|s| s.file);
        match self.dropped.iter_mut().find(|(k, _, _)| *k == key) {
            Some((_, _, n)) => *n += 1,
            None => self.dropped.push((key, d.span, 1)),
        }
    }

    /// One [`abort_error`] per file that had errors dropped.
    fn aborts(&self) -> impl Iterator<Item = Diagnostic> + '_ {
        self.dropped.iter().map(|&(_, at, n)| abort_error(at, n))
    }
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

/// The diagnostics of one compilation, in the order they were found: at
/// most [`MAX_ERRORS_PER_FILE`] errors and as many warnings per file; the
/// errors after those are counted and dropped, and [`Diagnostics::into_vec`]
/// ends with one `aborting after ...` error per file that had any.
#[derive(Clone, Debug, Default)]
pub struct Diagnostics {
    list: Vec<Diagnostic>,
    budget: Budget,
}

impl Diagnostics {
    /// Records a diagnostic (unless an equal one was recorded, or its
    /// file has had too many).
    pub fn push(&mut self, d: Diagnostic) {
        if self.list.contains(&d) {
            return;
        }
        if self.budget.admit(&d) {
            self.list.push(d);
        } else {
            self.budget.drop(&d);
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

    /// All diagnostics kept, then one `aborting after ...` error per file
    /// that had errors dropped.
    pub fn into_vec(self) -> Vec<Diagnostic> {
        let mut list = self.list;
        list.extend(self.budget.aborts());
        list
    }
}
