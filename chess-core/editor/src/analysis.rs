//! What the language server knows about a document: the diagnostics the
//! front end reports for it (the command line's messages and places), the
//! names it and its includes declare, and the words of the language (the
//! intrinsics, the standard library, the style constants, the Che
//! functions, CHEG's instructions and conditions), each from the table
//! that defines it.
//!
//! Places are byte ranges in a file's text; [`crate::lsp`] turns them into
//! the protocol's line and UTF-16 character positions.

use cvm_frontend::{Diagnostic, FileId, FsLoader, Loader, Severity, SourceMap, Span};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The three source languages.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Language {
    /// Che++ (`.che` and anything not named otherwise).
    Chepp,
    /// Nimzo 3 Che (`.che3`).
    Che3,
    /// CHEG (`.cheg`).
    Cheg,
}

/// Each language, in the enum's order, with the name of its front end in the registry
/// (`che_pipeline::DIALECTS`) and its name in messages.
const LANGUAGES: [(Language, &str, &str); 3] = [
    (Language::Chepp, chepp::NAME, "Che++"),
    (Language::Che3, che3::NAME, "Che"),
    (Language::Cheg, cheg::NAME, "CHEG"),
];

impl Language {
    /// The language of a front end of the registry, if the editor knows it.
    pub fn of_dialect(dialect: &dyn che_pipeline::Dialect) -> Option<Language> {
        LANGUAGES
            .iter()
            .find(|(_, name, _)| *name == dialect.name())
            .map(|&(language, _, _)| language)
    }

    /// The language a launch or a request names by its dialect's name or
    /// alias (`che_pipeline::by_name`).
    pub fn by_name(name: &str) -> Option<Language> {
        che_pipeline::by_name(name).and_then(Language::of_dialect)
    }

    /// The language's front end in the registry.
    pub fn front_end(self) -> &'static dyn che_pipeline::Dialect {
        let name = self.entry().1;
        che_pipeline::DIALECTS
            .iter()
            .copied()
            .find(|d| d.name() == name)
            .unwrap_or(che_pipeline::DIALECTS[0])
    }

    /// The language a file is read in, by its extension, as `che` does
    /// (`che_pipeline::by_path`).
    pub fn of_path(path: &Path) -> Language {
        Language::of_dialect(che_pipeline::by_path(path)).unwrap_or(Language::Chepp)
    }

    /// The language's name in messages.
    pub fn name(self) -> &'static str {
        self.entry().2
    }

    /// The language's row of [`LANGUAGES`], which lists them in the
    /// enum's order.
    fn entry(self) -> &'static (Language, &'static str, &'static str) {
        &LANGUAGES[self as usize]
    }
}

/// Which file a place is in.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FileKey {
    /// A file on disk (or an editor buffer for one), by absolute path.
    Path(PathBuf),
    /// The standard library bundled with the Che++ compiler.
    Stdlib,
}

/// A byte range in a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    /// The file.
    pub file: FileKey,
    /// First byte.
    pub lo: usize,
    /// One past the last byte.
    pub hi: usize,
}

impl Place {
    /// Whether the place holds byte `at` of `file` (its end included, for
    /// a cursor just after a word).
    pub fn contains(&self, file: &FileKey, at: usize) -> bool {
        &self.file == file && self.lo <= at && at <= self.hi
    }
}

/// One diagnostic, located.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diag {
    /// Where (`None`: the whole program, shown at the document's start).
    pub place: Option<Place>,
    /// Error or warning.
    pub error: bool,
    /// The message, as the command line prints it after `error: `.
    pub message: String,
    /// The label under the caret, the notes and the help, one a line.
    pub details: Vec<String>,
}

/// What a declared name is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SymbolKind {
    /// A Che++ function (returns a value).
    Function,
    /// A Che++ procedure.
    Procedure,
    /// A constant.
    Constant,
    /// A global variable.
    Variable,
    /// A global list.
    List,
    /// A text.
    Text,
    /// A value parameter.
    Parameter,
    /// A list parameter.
    ListParameter,
    /// A local variable.
    Local,
    /// A Che pattern.
    Pattern,
    /// A Che advice.
    Advice,
    /// A Che rule.
    Rule,
    /// A CHEG tag.
    Tag,
    /// A CHEG program variable.
    ChegVariable,
    /// A CHEG ENTRY line.
    Entry,
}

impl SymbolKind {
    /// How the kind reads in a hover.
    pub fn describe(self) -> &'static str {
        match self {
            SymbolKind::Function => "function",
            SymbolKind::Procedure => "procedure",
            SymbolKind::Constant => "constant",
            SymbolKind::Variable => "global variable",
            SymbolKind::List => "list",
            SymbolKind::Text => "text",
            SymbolKind::Parameter => "parameter",
            SymbolKind::ListParameter => "list parameter",
            SymbolKind::Local => "local variable",
            SymbolKind::Pattern => "pattern",
            SymbolKind::Advice => "advice",
            SymbolKind::Rule => "rule",
            SymbolKind::Tag => "tag",
            SymbolKind::ChegVariable => "variable",
            SymbolKind::Entry => "entry",
        }
    }
}

/// A declared name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol {
    /// The name.
    pub name: String,
    /// What it is.
    pub kind: SymbolKind,
    /// Its declaration as source (`function Fac(n)`, `const A := 3`).
    pub detail: String,
    /// The comment that describes it, if any.
    pub doc: String,
    /// Where the name is declared.
    pub place: Place,
    /// For parameters and locals: the routine they belong to.
    pub scope: Option<Place>,
}

/// Everything known about one document.
#[derive(Clone, Debug, Default)]
pub struct Analysis {
    /// The texts of every file read, by key.
    pub files: HashMap<FileKey, String>,
    /// The diagnostics, in the front end's order.
    pub diagnostics: Vec<Diag>,
    /// The names declared by the document and everything it includes.
    pub symbols: Vec<Symbol>,
}

/// Editor buffers that stand in for files on disk, by absolute path.
#[derive(Clone, Debug, Default)]
pub struct Overlay {
    docs: HashMap<PathBuf, String>,
}

impl Overlay {
    /// Sets the text of the buffer for `path`.
    pub fn set(&mut self, path: &Path, text: String) {
        self.docs.insert(normalize(path), text);
    }

    /// Forgets the buffer for `path`.
    pub fn remove(&mut self, path: &Path) {
        self.docs.remove(&normalize(path));
    }

    /// The buffer's text for `path`, if open.
    pub fn get(&self, path: &Path) -> Option<&String> {
        self.docs.get(&normalize(path))
    }
}

/// A path made absolute and canonical where the file exists.
pub fn normalize(path: &Path) -> PathBuf {
    if let Ok(p) = std::fs::canonicalize(path) {
        return p;
    }
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|d| d.join(path))
            .unwrap_or_else(|_| path.to_path_buf())
    }
}

/// Reads files from the editor's buffers first, then from disk.
struct OverlayLoader<'a>(&'a Overlay);

impl Loader for OverlayLoader<'_> {
    fn load(&self, path: &Path) -> std::io::Result<String> {
        match self.0.get(path) {
            Some(text) => Ok(text.clone()),
            None => FsLoader.load(path),
        }
    }

    fn identity(&self, path: &Path) -> PathBuf {
        FsLoader.identity(path)
    }
}

/// The key of a file of a source map.
fn key_of(sources: &SourceMap, file: FileId) -> Option<FileKey> {
    let f = sources.get(file)?;
    match &f.path {
        Some(p) => Some(FileKey::Path(normalize(p))),
        None if f.name == chepp::STDLIB_NAME => Some(FileKey::Stdlib),
        None => Some(FileKey::Path(normalize(Path::new(&f.name)))),
    }
}

fn place_of(sources: &SourceMap, span: Span) -> Option<Place> {
    Some(Place {
        file: key_of(sources, span.file)?,
        lo: span.lo as usize,
        hi: span.hi as usize,
    })
}

/// Records the texts of a source map's files.
fn add_files(files: &mut HashMap<FileKey, String>, sources: &SourceMap) {
    for (i, f) in sources.files().iter().enumerate() {
        if let Some(key) = key_of(sources, FileId(i as u32)) {
            files.entry(key).or_insert_with(|| f.text.clone());
        }
    }
}

fn diag_of(sources: &SourceMap, d: &Diagnostic) -> Diag {
    let mut details = Vec::new();
    if !d.label.is_empty() {
        details.push(d.label.clone());
    }
    details.extend(d.notes.iter().cloned());
    Diag {
        place: d.span.and_then(|s| place_of(sources, s)),
        error: d.severity == Severity::Error,
        message: d.message.clone(),
        details,
    }
}

/// Analyses the document at `path` (its text is the overlay's buffer, or
/// the file): compiles it as `che compile` would (with `include_dirs` as
/// `-I`) and collects its names.
pub fn analyze(path: &Path, overlay: &Overlay, include_dirs: &[PathBuf]) -> Analysis {
    let mut a = Analysis::default();
    let loader = OverlayLoader(overlay);
    if let Some(text) = overlay.get(path) {
        let limit = cvm_frontend::file::SOURCE_LIMIT;
        if text.len() as u64 > limit {
            a.diagnostics.push(Diag {
                place: None,
                error: true,
                message: format!(
                    "the document has {} bytes; programs are read up to {limit} bytes",
                    text.len()
                ),
                details: Vec::new(),
            });
            return a;
        }
    }
    // Diagnostics come from the one front-end interface, as the command
    // line's do (without the optimizer, which reports nothing to an editor).
    let language = Language::of_path(path);
    let options = che_pipeline::Options {
        include_dirs: include_dirs.to_vec(),
        optimize: false,
    };
    let compiled = che_pipeline::compile(
        language.front_end(),
        che_pipeline::Input::File(path),
        &loader,
        &options,
    );
    add_files(&mut a.files, &compiled.sources);
    a.diagnostics = compiled
        .diagnostics
        .iter()
        .map(|d| diag_of(&compiled.sources, d))
        .collect();
    if let Ok(text) = loader.load(path) {
        match language {
            Language::Chepp => chepp_symbols(&loader, path, text, include_dirs, &mut a),
            Language::Che3 => che3_symbols(&loader, path, text, include_dirs, &mut a),
            Language::Cheg => cheg_symbols(&path.display().to_string(), &text, &mut a),
        }
    }
    a
}

/// The comment that documents a declaration starting at `lo`: the `#`
/// comment at the end of its line, else the `#` lines right above it.
fn comment_doc(text: &str, lo: usize) -> String {
    let line_start = text[..lo.min(text.len())].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[lo.min(text.len())..]
        .find('\n')
        .map_or(text.len(), |i| lo + i);
    if let Some(i) = text[lo.min(line_end)..line_end].find('#') {
        let after = text[lo + i + 1..line_end].trim();
        if !after.is_empty() {
            return after.to_string();
        }
    }
    let mut lines = Vec::new();
    for line in text[..line_start].lines().rev() {
        let t = line.trim();
        match t.strip_prefix('#') {
            Some(c) if !c.trim_start().starts_with("---") => lines.push(c.trim().to_string()),
            _ => break,
        }
    }
    lines.reverse();
    lines.join(" ").trim().to_string()
}

/// The declarations of a Che++ program and its includes.
fn chepp_symbols(
    loader: &dyn Loader,
    path: &Path,
    text: String,
    include_dirs: &[PathBuf],
    a: &mut Analysis,
) {
    use chepp::ast::{Item, LocalDecl};
    let mut sources = SourceMap::new();
    let root = sources.add(
        &chepp::source::display_name(path),
        Some(path.to_path_buf()),
        text,
    );
    let mut diags = cvm_frontend::Diagnostics::default();
    let program = {
        let mut ctx = chepp::parser::ParseCtx::new(&mut sources, loader, include_dirs, &mut diags);
        ctx.mark_included(loader.identity(path));
        chepp::parser::parse_program(&mut ctx, root)
    };
    add_files(&mut a.files, &sources);
    a.symbols.extend(items_symbols(&sources, &program.items));
    for item in &program.items {
        let Item::Routine(r) = item else { continue };
        let (Some(scope_lo), Some(scope_hi)) =
            (place_of(&sources, r.sig.span), place_of(&sources, r.end))
        else {
            continue;
        };
        let scope = Place {
            file: scope_lo.file,
            lo: scope_lo.lo,
            hi: scope_hi.hi,
        };
        for p in &r.sig.params {
            let (kind, detail) = if p.is_list {
                (SymbolKind::ListParameter, format!("list {}", p.name.name))
            } else {
                (SymbolKind::Parameter, p.name.name.clone())
            };
            push_symbol(a, &sources, &p.name, kind, detail, Some(scope.clone()));
        }
        for l in &r.locals {
            match l {
                LocalDecl::Var(vars) => {
                    for v in vars {
                        let detail = format!("var {}", v.name.name);
                        push_symbol(
                            a,
                            &sources,
                            &v.name,
                            SymbolKind::Local,
                            detail,
                            Some(scope.clone()),
                        );
                    }
                }
                LocalDecl::Const(c) => {
                    let detail = format!("const {} := {}", c.name.name, sources.text(c.value.span));
                    push_symbol(
                        a,
                        &sources,
                        &c.name,
                        SymbolKind::Constant,
                        detail,
                        Some(scope.clone()),
                    );
                }
            }
        }
    }
}

fn push_symbol(
    a: &mut Analysis,
    sources: &SourceMap,
    name: &chepp::ast::Ident,
    kind: SymbolKind,
    detail: String,
    scope: Option<Place>,
) {
    if let Some(place) = place_of(sources, name.span) {
        a.symbols.push(Symbol {
            name: name.name.clone(),
            kind,
            detail,
            doc: String::new(),
            place,
            scope,
        });
    }
}

/// The global declarations among `items`, documented by their comments.
fn items_symbols(sources: &SourceMap, items: &[chepp::ast::Item]) -> Vec<Symbol> {
    use chepp::ast::{Item, RoutineKind, Signature};
    let mut out = Vec::new();
    let mut add = |ident: &chepp::ast::Ident, kind: SymbolKind, detail: String, at: Span| {
        let Some(place) = place_of(sources, ident.span) else {
            return;
        };
        let doc = sources
            .get(at.file)
            .map(|f| comment_doc(&f.text, at.lo as usize))
            .unwrap_or_default();
        out.push(Symbol {
            name: ident.name.clone(),
            kind,
            detail,
            doc,
            place,
            scope: None,
        });
    };
    let sig_kind = |s: &Signature| match s.kind {
        RoutineKind::Function => SymbolKind::Function,
        RoutineKind::Procedure => SymbolKind::Procedure,
    };
    for item in items {
        match item {
            Item::Const(c) => add(
                &c.name,
                SymbolKind::Constant,
                format!("const {} := {}", c.name.name, sources.text(c.value.span)),
                c.name.span,
            ),
            Item::Var(vars) => {
                for v in vars {
                    add(
                        &v.name,
                        SymbolKind::Variable,
                        format!("var {}", v.name.name),
                        v.name.span,
                    );
                }
            }
            Item::List(l) => add(
                &l.name,
                SymbolKind::List,
                sources.text(l.span).to_string(),
                l.span,
            ),
            Item::Text { name, text } => add(
                name,
                SymbolKind::Text,
                format!("text {} {:?}", name.name, text),
                name.span,
            ),
            Item::Extern(sig) => add(
                &sig.name,
                sig_kind(sig),
                format!("extern {}", sources.text(sig.span)),
                sig.span,
            ),
            Item::Routine(r) => add(
                &r.sig.name,
                sig_kind(&r.sig),
                sources.text(r.sig.span).to_string(),
                r.sig.span,
            ),
        }
    }
    out
}

/// The routines, constants and lists of the bundled standard library.
pub fn stdlib_symbols() -> &'static [Symbol] {
    static STDLIB: OnceLock<Vec<Symbol>> = OnceLock::new();
    STDLIB.get_or_init(|| {
        let mut sources = SourceMap::new();
        let root = sources.add(chepp::STDLIB_NAME, None, chepp::STDLIB_SOURCE.to_string());
        let mut diags = cvm_frontend::Diagnostics::default();
        let loader = chepp::MemLoader::new();
        let program = {
            let mut ctx = chepp::parser::ParseCtx::new(&mut sources, &loader, &[], &mut diags);
            chepp::parser::parse_program(&mut ctx, root)
        };
        items_symbols(&sources, &program.items)
    })
}

/// The patterns, advices and rules of a Che program and its includes.
fn che3_symbols(
    loader: &dyn Loader,
    path: &Path,
    text: String,
    include_dirs: &[PathBuf],
    a: &mut Analysis,
) {
    use che3::ast::StmtKind;
    let mut sources = SourceMap::new();
    let root = sources.add(&path.to_string_lossy(), Some(path.to_path_buf()), text);
    let mut diags = cvm_frontend::Diagnostics::default();
    let expanded = {
        let mut includer =
            che3::include::Includer::new(&mut sources, loader, include_dirs, &mut diags);
        includer.mark_read(loader.identity(path));
        includer.expand(root)
    };
    let program = che3::parser::parse(&expanded.tokens, &mut diags);
    add_files(&mut a.files, &sources);
    for stmt in &program.stmts {
        let (name, kind, word) = match &stmt.kind {
            StmtKind::Pattern(p) => (&p.name, SymbolKind::Pattern, "pattern"),
            StmtKind::Advice(p) => (&p.name, SymbolKind::Advice, "advice"),
            StmtKind::Rule(p) => (&p.name, SymbolKind::Rule, "rule"),
        };
        let Some(name) = name else { continue };
        let Some(place) = place_of(&sources, name.span) else {
            continue;
        };
        let whole = Span {
            file: stmt.keyword.file,
            lo: stmt.keyword.lo,
            hi: stmt.last.hi.max(stmt.keyword.hi),
        };
        let detail = if whole.file == stmt.last.file {
            sources.text(whole).to_string()
        } else {
            format!("{word} {}", name.text)
        };
        let doc = sources
            .get(stmt.keyword.file)
            .map(|f| comment_doc(&f.text, stmt.keyword.lo as usize))
            .unwrap_or_default();
        a.symbols.push(Symbol {
            name: name.text.clone(),
            kind,
            detail,
            doc,
            place,
            scope: None,
        });
    }
}

/// The tags, variables and ENTRY lines of a CHEG program.
fn cheg_symbols(name: &str, text: &str, a: &mut Analysis) {
    let mut sources = SourceMap::new();
    let file = sources.add(name, None, text.to_string());
    let mut diags = Vec::new();
    let program = cheg::parser::parse(file, text, &mut diags);
    for tag in &program.tags {
        let Some(span) = tag.span else { continue };
        let Some(place) = place_of(&sources, span) else {
            continue;
        };
        let detail = match tag.target.and_then(|t| program.statements.get(t)) {
            Some(s) => {
                // The statement's line, without the tag when it is on it.
                let line = line_text(text, s.span.lo as usize);
                let statement = line
                    .strip_prefix(tag.name.as_str())
                    .and_then(|rest| rest.strip_prefix(':'))
                    .unwrap_or(line)
                    .trim();
                format!("{}: {statement}", tag.name)
            }
            None => format!("{}:", tag.name),
        };
        a.symbols.push(Symbol {
            name: tag.name.clone(),
            kind: SymbolKind::Tag,
            detail,
            doc: String::new(),
            place,
            scope: None,
        });
    }
    for (i, var) in program.variables.iter().enumerate() {
        let first = program.statements.iter().find_map(|s| {
            s.args
                .iter()
                .zip(&s.arg_spans)
                .find_map(|(arg, span)| match arg {
                    cheg::ast::Arg::Value(cheg::ast::Operand::Var(v)) if *v == i => Some(*span),
                    _ => None,
                })
        });
        let Some(place) = first.and_then(|s| place_of(&sources, s)) else {
            continue;
        };
        a.symbols.push(Symbol {
            name: var.clone(),
            kind: SymbolKind::ChegVariable,
            detail: format!("variable {var}"),
            doc: String::new(),
            place,
            scope: None,
        });
    }
    for entry in &program.entries {
        if let Some(place) = place_of(&sources, entry.span) {
            a.symbols.push(Symbol {
                name: sources.text(entry.span).trim().to_string(),
                kind: SymbolKind::Entry,
                detail: line_text(text, entry.span.lo as usize).to_string(),
                doc: String::new(),
                place,
                scope: None,
            });
        }
    }
}

/// The line of `text` that holds byte `at`, trimmed.
pub fn line_text(text: &str, at: usize) -> &str {
    let at = at.min(text.len());
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    text.get(start..end).unwrap_or("").trim()
}

impl Analysis {
    /// The declaration `name` refers to at byte `at` of `file`: a
    /// parameter or local of the routine around it, else a global name of
    /// the program, else one of the standard library's.
    pub fn resolve(&self, file: &FileKey, at: usize, name: &str) -> Option<&Symbol> {
        let local = self
            .symbols
            .iter()
            .filter(|s| s.name == name)
            .find(|s| s.scope.as_ref().is_some_and(|sc| sc.contains(file, at)));
        local
            .or_else(|| {
                self.symbols
                    .iter()
                    .find(|s| s.name == name && s.scope.is_none() && s.kind != SymbolKind::Entry)
            })
            .or_else(|| stdlib_symbols().iter().find(|s| s.name == name))
    }

    /// The names visible at byte `at` of `file`: the routine's parameters
    /// and locals, and every global name.
    pub fn in_scope<'a>(
        &'a self,
        file: &'a FileKey,
        at: usize,
    ) -> impl Iterator<Item = &'a Symbol> {
        self.symbols.iter().filter(move |s| match &s.scope {
            Some(sc) => sc.contains(file, at),
            None => s.kind != SymbolKind::Entry,
        })
    }
}

/// The words of `language` that are not declared by programs: (name,
/// signature, one line of reference).
pub fn builtin_words(language: Language) -> &'static [Builtin] {
    static CHEPP: OnceLock<Vec<Builtin>> = OnceLock::new();
    static CHE3: OnceLock<Vec<Builtin>> = OnceLock::new();
    static CHEG: OnceLock<Vec<Builtin>> = OnceLock::new();
    match language {
        Language::Chepp => CHEPP.get_or_init(chepp_builtins),
        Language::Che3 => CHE3.get_or_init(che3_builtins),
        Language::Cheg => CHEG.get_or_init(cheg_builtins),
    }
}

/// What a built-in word is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BuiltinKind {
    /// A CVM intrinsic, callable from Che++.
    Intrinsic,
    /// A style parameter constant (`ST_...`).
    StyleConstant,
    /// A Che pattern or advice function.
    CheFunction,
    /// A CHEG instruction.
    Instruction,
    /// A CHEG condition.
    Condition,
    /// A CHEG predefined variable.
    Predefined,
    /// A keyword.
    Keyword,
}

/// A word the language defines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Builtin {
    /// The word.
    pub name: String,
    /// What it is.
    pub kind: BuiltinKind,
    /// Its signature or shape.
    pub signature: String,
    /// One line of reference.
    pub doc: String,
}

/// The Che++ spelling of an intrinsic's parameter kind.
fn param_kind(kind: cvm::intrinsics::ParamKind) -> String {
    use cvm::intrinsics::{ElemKind, ParamKind};
    match kind {
        ParamKind::Int => "int".into(),
        ParamKind::Colour => "colour".into(),
        ParamKind::Piece => "piece".into(),
        ParamKind::CompOp => "compoperator".into(),
        ParamKind::Square => "square".into(),
        ParamKind::List { elem, out } => {
            let elem = match elem {
                ElemKind::Any => "list",
                ElemKind::Square => "list of squares",
                ElemKind::Move => "list of moves",
                ElemKind::Piece => "list of pieces",
                ElemKind::Column => "list of columns",
                ElemKind::BoardSide => "list of board sides",
                ElemKind::SquareColour => "list of square colours",
            };
            if out {
                format!("{elem}, written")
            } else {
                elem.into()
            }
        }
    }
}

/// An intrinsic's signature: `Name(a: kind, ...): int`.
pub fn intrinsic_signature(info: &cvm::intrinsics::IntrinsicInfo) -> String {
    let params: Vec<String> = info
        .params
        .iter()
        .map(|p| format!("{}: {}", p.name, param_kind(p.kind)))
        .collect();
    format!(
        "{}({}){}",
        info.name,
        params.join(", "),
        if info.returns { ": int" } else { "" }
    )
}

const CHEPP_KEYWORDS: &[&str] = &[
    "const",
    "var",
    "list",
    "text",
    "extern",
    "procedure",
    "function",
    "begin",
    "end",
    "if",
    "then",
    "elsif",
    "else",
    "while",
    "do",
    "repeat",
    "until",
    "for",
    "in",
    "switch",
    "case",
    "default",
    "return",
    "write",
    "include",
    "and",
    "or",
    "not",
];

fn chepp_builtins() -> Vec<Builtin> {
    let mut out: Vec<Builtin> = cvm::intrinsics::INTRINSICS
        .iter()
        .map(|i| Builtin {
            name: i.name.to_string(),
            kind: BuiltinKind::Intrinsic,
            signature: intrinsic_signature(i),
            doc: i.doc.to_string(),
        })
        .collect();
    for p in cvm_chess::style::STYLE_PARAMS.iter() {
        let id = cvm_chess::style::STYLE_PARAMS
            .iter()
            .position(|q| q.name == p.name)
            .unwrap_or(0);
        let doc = stdlib_symbols()
            .iter()
            .find(|s| s.name == p.name)
            .map(|s| s.doc.clone())
            .unwrap_or_default();
        out.push(Builtin {
            name: p.name.to_string(),
            kind: BuiltinKind::StyleConstant,
            signature: format!("const {} := {id}", p.name),
            doc: format!(
                "Style parameter for GetStyle and SetStyle (default {}). {doc}",
                cvm_chess::style::default_value(id as i32)
            )
            .trim()
            .to_string(),
        });
    }
    out.extend(CHEPP_KEYWORDS.iter().map(|k| Builtin {
        name: k.to_string(),
        kind: BuiltinKind::Keyword,
        signature: k.to_string(),
        doc: String::new(),
    }));
    out
}

fn che3_builtins() -> Vec<Builtin> {
    let mut out: Vec<Builtin> = che3::functions::FUNCTIONS
        .iter()
        .map(|f| Builtin {
            name: f.name.to_string(),
            kind: BuiltinKind::CheFunction,
            signature: format!(
                "{} {}({})",
                match f.role {
                    che3::functions::Role::Pattern => "pattern function",
                    che3::functions::Role::Advice => "advice function",
                },
                f.name,
                che3_shape(f.shape)
            ),
            doc: f.doc.to_string(),
        })
        .collect();
    out.extend(
        ["pattern", "advice", "rule", "include"]
            .iter()
            .map(|k| Builtin {
                name: k.to_string(),
                kind: BuiltinKind::Keyword,
                signature: k.to_string(),
                doc: String::new(),
            }),
    );
    out
}

fn che3_shape(shape: che3::functions::Shape) -> String {
    use che3::functions::Shape;
    match shape {
        Shape::Nothing => String::new(),
        Shape::List(k) => format!("{}s", k.name()),
        Shape::PieceList(k) => format!("piece {}s", k.name()),
        Shape::Side => "board side".into(),
    }
}

fn cheg_builtins() -> Vec<Builtin> {
    use cheg::table::{Cond, Instr, Predefined, PIECE_SLOTS};
    let mut out: Vec<Builtin> = Instr::ALL
        .iter()
        .map(|i| Builtin {
            name: i.name().to_string(),
            kind: BuiltinKind::Instruction,
            signature: format!("{} ({} arguments)", i.name(), i.slots().len()),
            doc: i.doc().to_string(),
        })
        .collect();
    out.extend(
        Cond::ALL
            .iter()
            .filter(|c| !c.name().is_empty())
            .map(|c| Builtin {
                name: c.name().to_string(),
                kind: BuiltinKind::Condition,
                signature: format!("condition {}", c.name()),
                doc: c.doc().to_string(),
            }),
    );
    let mut pre = vec![
        ("X", "The subroutine argument."),
        ("DEPTH", "The search depth in plies."),
        ("LM", "The legal moves."),
        ("PG", "The pawn groups."),
    ]
    .into_iter()
    .map(|(n, d)| (n.to_string(), d.to_string()))
    .collect::<Vec<_>>();
    for (side, who) in [("W", "the side to move"), ("B", "the other side")] {
        for slot in PIECE_SLOTS {
            pre.push((
                format!("{side}{slot}"),
                format!("A piece variable of {who}."),
            ));
        }
    }
    out.extend(
        pre.into_iter()
            .filter(|(n, _)| Predefined::by_name(n).is_some())
            .map(|(name, doc)| Builtin {
                signature: format!("predefined {name}"),
                name,
                kind: BuiltinKind::Predefined,
                doc,
            }),
    );
    out.push(Builtin {
        name: "ENTRY".into(),
        kind: BuiltinKind::Keyword,
        signature: "ENTRY a&b,c&d,e".into(),
        doc: "The material (and pawn difference) for which the program takes over.".into(),
    });
    out
}

/// What a chess literal means, in words, if `word` is one.
pub fn explain_literal(word: &str) -> Option<String> {
    use cvm_chess::lit::{self, LitKind};
    let (kind, _) = lit::parse_word(word)?;
    let text = match kind {
        LitKind::Square => format!("square `{word}`: {}", square_words(word)),
        LitKind::Move => {
            let (from, to) = word.split_at(2);
            let mut s = format!(
                "move `{word}`: from {} to {}",
                square_words(from),
                square_words(to)
            );
            if from.contains('.') && to.contains('.') {
                s.push_str(" (wildcards on both sides: the advice functions ignore it)");
            } else if from.contains('.') || to.contains('.') {
                s.push_str(" (the wildcard half stands for every square of its set)");
            }
            s
        }
        LitKind::Colour => format!(
            "colour `{word}`: {}",
            match word {
                "w" => "White",
                "b" => "Black",
                _ => "either colour",
            }
        ),
        LitKind::Piece => {
            let mut chars = word.chars();
            let colour = match chars.next() {
                Some('w') => "white ",
                Some('b') => "black ",
                _ => "",
            };
            let kind = match chars.next() {
                Some('P') => "pawn",
                Some('N') => "knight",
                Some('B') => "bishop",
                Some('R') => "rook",
                Some('Q') => "queen",
                Some('K') => "king",
                Some('O') => "officer (knight, bishop, rook or queen)",
                _ => "piece of any kind",
            };
            let both = if colour.is_empty() {
                ", of either colour"
            } else {
                ""
            };
            format!("piece `{word}`: {colour}{kind}{both}")
        }
        LitKind::Column => match word.strip_suffix("line") {
            Some(".") => format!("column `{word}`: any file"),
            Some(f) => format!("column `{word}`: the {f}-file"),
            None => format!("column `{word}`"),
        },
        LitKind::Row => format!("row `{word}`: rank {}", word.trim_start_matches("row")),
        LitKind::BoardSide => format!(
            "board side `{word}`: {}",
            match word {
                "kside" => "the king side (files e to h)",
                "qside" => "the queen side (files a to d)",
                "centre" => "the centre",
                "kkside" => "the outer king side",
                "qqside" => "the outer queen side",
                _ => "a board side",
            }
        ),
        LitKind::SquareColour => format!(
            "square colour `{word}`: {}",
            match word {
                "lsqr" => "the light squares",
                "dsqr" => "the dark squares",
                _ => "squares of either colour",
            }
        ),
        LitKind::CompOp => format!("compoperator `{word}`"),
    };
    Some(text)
}

/// A square with wildcards, in words.
fn square_words(sq: &str) -> String {
    let b = sq.as_bytes();
    match (b.first(), b.get(1)) {
        (Some(b'.'), Some(b'.')) => "any square".into(),
        (Some(b'.'), Some(&r)) => format!("any square of rank {}", r as char),
        (Some(&f), Some(b'.')) => format!("any square of the {}-file", f as char),
        _ => sq.to_string(),
    }
}

/// The diagnostics by file: every file that has one, the document's own
/// file always (empty when it is clean), `document` taking the ones
/// without a place.
pub fn diagnostics_by_file(a: &Analysis, document: &FileKey) -> Vec<(FileKey, Vec<Diag>)> {
    let mut by: Vec<(FileKey, Vec<Diag>)> = vec![(document.clone(), Vec::new())];
    for d in &a.diagnostics {
        let key = d.place.as_ref().map_or(document, |p| &p.file);
        match by.iter_mut().find(|(k, _)| k == key) {
            Some((_, v)) => v.push(d.clone()),
            None => by.push((key.clone(), vec![d.clone()])),
        }
    }
    by
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn languages_are_listed_in_the_enums_order_and_found_in_the_registry() {
        for (i, &(language, name, _)) in LANGUAGES.iter().enumerate() {
            assert_eq!(language as usize, i);
            assert_eq!(language.front_end().name(), name);
            assert_eq!(Language::by_name(name), Some(language));
        }
        assert_eq!(Language::by_name("chepp"), Some(Language::Chepp));
        assert_eq!(Language::of_path(Path::new("a.cheg")), Language::Cheg);
        assert_eq!(Language::of_path(Path::new("a.che3")), Language::Che3);
        assert_eq!(Language::of_path(Path::new("a.txt")), Language::Chepp);
    }

    #[test]
    fn a_cheg_tag_shows_its_statement_once() {
        let text = "ENTRY Q,K\n        SET B,TWICE,\"2\n        DONE\nTWICE:  ADD V,X,X\n        RETURN V\nLATER:\n        DONE\n        END\n";
        let mut a = Analysis::default();
        cheg_symbols("t.cheg", text, &mut a);
        let detail = |name: &str| {
            a.symbols
                .iter()
                .find(|s| s.name == name && s.kind == SymbolKind::Tag)
                .map(|s| s.detail.clone())
        };
        assert_eq!(detail("TWICE").as_deref(), Some("TWICE: ADD V,X,X"));
        assert_eq!(detail("LATER").as_deref(), Some("LATER: DONE"));
    }
}
