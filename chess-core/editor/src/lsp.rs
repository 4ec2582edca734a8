//! `che lsp`: the Language Server Protocol over standard input and output
//! for Che++, Nimzo 3 Che and CHEG.
//!
//! The server keeps the open documents' texts (full synchronisation) and,
//! after every change, compiles every open document the way `che compile`
//! does, reading open documents from their buffers and everything else from
//! disk. It answers:
//!
//! - `textDocument/publishDiagnostics` after open, change and close: the
//!   command line's messages at its places (an empty list once fixed);
//! - `textDocument/hover`: the intrinsics and standard-library routines
//!   with their signature and their line of reference, chess literals in
//!   words, declared names with their kind, Che functions and CHEG
//!   instructions and conditions;
//! - `textDocument/definition`: across includes and into the standard
//!   library (a copy written to the system's temporary folder, since the
//!   library is bundled with the compiler);
//! - `textDocument/completion`: the words of the language and the names in
//!   scope;
//! - `textDocument/documentSymbol`: the document's declarations, routines
//!   with their parameters and locals.
//!
//! The client may pass `{"includeDirs": ["DIR", ...]}` as initialization
//! options: the folders `che compile -I DIR` would search.

use crate::analysis::{
    self, analyze, builtin_words, Analysis, BuiltinKind, FileKey, Language, Overlay, Symbol,
    SymbolKind,
};
use lsp_server::{Connection, Message, Notification, Request, Response};
use lsp_types::{
    notification::{
        DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, Notification as _,
        PublishDiagnostics,
    },
    request::{Completion, DocumentSymbolRequest, GotoDefinition, HoverRequest, Request as _},
    CompletionItem, CompletionItemKind, CompletionOptions, CompletionResponse, Diagnostic,
    DiagnosticSeverity, DocumentSymbol, DocumentSymbolResponse, Hover, HoverContents,
    HoverProviderCapability, Location, MarkupContent, MarkupKind, OneOf, Position,
    PublishDiagnosticsParams, Range, ServerCapabilities, TextDocumentSyncCapability,
    TextDocumentSyncKind, Uri,
};
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// Why the server stopped abnormally.
#[derive(Debug, thiserror::Error)]
pub enum LspError {
    /// The protocol broke down (bad framing, closed channel, no
    /// initialize).
    #[error("protocol error: {0}")]
    Protocol(String),
}

impl From<lsp_server::ProtocolError> for LspError {
    fn from(e: lsp_server::ProtocolError) -> Self {
        LspError::Protocol(e.to_string())
    }
}

impl<T> From<crossbeam_channel::SendError<T>> for LspError {
    fn from(e: crossbeam_channel::SendError<T>) -> Self {
        LspError::Protocol(e.to_string())
    }
}

/// What the server announces it can do.
pub fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Kind(TextDocumentSyncKind::FULL)),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        completion_provider: Some(CompletionOptions::default()),
        document_symbol_provider: Some(OneOf::Left(true)),
        ..ServerCapabilities::default()
    }
}

/// Serves one client on standard input and output until `exit`.
pub fn run_stdio() -> Result<(), LspError> {
    let (connection, io_threads) = Connection::stdio();
    serve(&connection)?;
    drop(connection);
    io_threads
        .join()
        .map_err(|e| LspError::Protocol(e.to_string()))
}

/// Serves one client on `connection`: the handshake, then every message
/// until `shutdown` and `exit`.
pub fn serve(connection: &Connection) -> Result<(), LspError> {
    let caps =
        serde_json::to_value(capabilities()).map_err(|e| LspError::Protocol(e.to_string()))?;
    let params = connection.initialize(caps)?;
    let include_dirs = params
        .get("initializationOptions")
        .and_then(|o| o.get("includeDirs"))
        .and_then(|d| d.as_array())
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(PathBuf::from))
                .collect()
        })
        .unwrap_or_default();
    let mut server = Server::new(include_dirs);
    for message in &connection.receiver {
        match message {
            Message::Request(req) => {
                if connection.handle_shutdown(&req)? {
                    return Ok(());
                }
                let response = server.request(req);
                connection.sender.send(Message::Response(response))?;
            }
            Message::Notification(n) => {
                for out in server.notification(n) {
                    connection.sender.send(Message::Notification(out))?;
                }
            }
            Message::Response(_) => {}
        }
    }
    Ok(())
}

/// An open document.
struct Document {
    path: PathBuf,
    text: String,
    analysis: Analysis,
}

/// The server's state: the open documents and what was published.
pub struct Server {
    include_dirs: Vec<PathBuf>,
    overlay: Overlay,
    docs: HashMap<String, Document>,
    published: BTreeSet<FileKey>,
}

impl Server {
    /// A server with no document open; `include_dirs` are searched by
    /// `include` as `-I` folders.
    pub fn new(include_dirs: Vec<PathBuf>) -> Server {
        Server {
            include_dirs,
            overlay: Overlay::default(),
            docs: HashMap::new(),
            published: BTreeSet::new(),
        }
    }

    /// Answers a request.
    pub fn request(&mut self, req: Request) -> Response {
        let id = req.id.clone();
        let result = match req.method.as_str() {
            HoverRequest::METHOD => params::<lsp_types::HoverParams>(req)
                .map(|p| to_json(self.hover(&p.text_document_position_params))),
            GotoDefinition::METHOD => params::<lsp_types::GotoDefinitionParams>(req)
                .map(|p| to_json(self.definition(&p.text_document_position_params))),
            Completion::METHOD => params::<lsp_types::CompletionParams>(req)
                .map(|p| to_json(self.completion(&p.text_document_position))),
            DocumentSymbolRequest::METHOD => params::<lsp_types::DocumentSymbolParams>(req)
                .map(|p| to_json(self.symbols(&p.text_document.uri))),
            other => Err((
                lsp_server::ErrorCode::MethodNotFound as i32,
                format!("unknown method {other}"),
            )),
        };
        match result {
            Ok(value) => Response::new_ok(id, value),
            Err((code, message)) => Response::new_err(id, code, message),
        }
    }

    /// Takes a notification; returns the notifications to send.
    pub fn notification(&mut self, n: Notification) -> Vec<Notification> {
        match n.method.as_str() {
            DidOpenTextDocument::METHOD => {
                if let Ok(p) =
                    serde_json::from_value::<lsp_types::DidOpenTextDocumentParams>(n.params)
                {
                    self.open(&p.text_document.uri, p.text_document.text);
                }
            }
            DidChangeTextDocument::METHOD => {
                if let Ok(p) =
                    serde_json::from_value::<lsp_types::DidChangeTextDocumentParams>(n.params)
                {
                    if let Some(change) = p.content_changes.into_iter().last() {
                        self.open(&p.text_document.uri, change.text);
                    }
                }
            }
            DidCloseTextDocument::METHOD => {
                if let Ok(p) =
                    serde_json::from_value::<lsp_types::DidCloseTextDocumentParams>(n.params)
                {
                    if let Some(doc) = self.docs.remove(p.text_document.uri.as_str()) {
                        self.overlay.remove(&doc.path);
                    }
                }
            }
            _ => return Vec::new(),
        }
        self.reanalyze()
    }

    fn open(&mut self, uri: &Uri, text: String) {
        let Some(path) = uri_to_path(uri) else {
            return;
        };
        self.overlay.set(&path, text.clone());
        self.docs.insert(
            uri.as_str().to_string(),
            Document {
                path,
                text,
                analysis: Analysis::default(),
            },
        );
    }

    /// Compiles every open document again (one may include another) and
    /// publishes the diagnostics of every file that has or had some.
    fn reanalyze(&mut self) -> Vec<Notification> {
        let mut by_file: Vec<(FileKey, Vec<Diagnostic>)> = Vec::new();
        let mut texts: HashMap<FileKey, String> = HashMap::new();
        for doc in self.docs.values_mut() {
            doc.analysis = analyze(&doc.path, &self.overlay, &self.include_dirs);
            let key = FileKey::Path(analysis::normalize(&doc.path));
            for (file, diags) in analysis::diagnostics_by_file(&doc.analysis, &key) {
                let text = doc.analysis.files.get(&file).cloned().unwrap_or_default();
                let converted: Vec<Diagnostic> =
                    diags.iter().map(|d| to_lsp_diagnostic(d, &text)).collect();
                texts.insert(file.clone(), text);
                match by_file.iter_mut().find(|(k, _)| *k == file) {
                    Some((_, v)) => {
                        for d in converted {
                            if !v.contains(&d) {
                                v.push(d);
                            }
                        }
                    }
                    None => by_file.push((file, converted)),
                }
            }
        }
        let now: BTreeSet<FileKey> = by_file
            .iter()
            .filter(|(_, d)| !d.is_empty())
            .map(|(k, _)| k.clone())
            .collect();
        for gone in self.published.difference(&now) {
            if !by_file.iter().any(|(k, _)| k == gone) {
                by_file.push((gone.clone(), Vec::new()));
            }
        }
        self.published = now;
        by_file
            .into_iter()
            .filter_map(|(file, diagnostics)| {
                let uri = file_uri(&file)?;
                Some(Notification::new(
                    PublishDiagnostics::METHOD.to_string(),
                    PublishDiagnosticsParams {
                        uri,
                        diagnostics,
                        version: None,
                    },
                ))
            })
            .collect()
    }

    fn doc(&self, uri: &Uri) -> Option<&Document> {
        self.docs.get(uri.as_str())
    }

    /// The document, its file key, the byte offset of `pos`.
    fn at(&self, p: &lsp_types::TextDocumentPositionParams) -> Option<(&Document, FileKey, usize)> {
        let doc = self.doc(&p.text_document.uri)?;
        let at = offset_of(&doc.text, p.position);
        Some((doc, FileKey::Path(analysis::normalize(&doc.path)), at))
    }

    fn hover(&self, p: &lsp_types::TextDocumentPositionParams) -> Option<Hover> {
        let (doc, key, at) = self.at(p)?;
        let language = Language::of_path(&doc.path);
        let (word, range) = word_at(&doc.text, at, language)?;
        let ident = identifier_at(&doc.text, at);
        let symbol = ident
            .as_ref()
            .and_then(|(name, _)| doc.analysis.resolve(&key, at, name))
            .or_else(|| doc.analysis.resolve(&key, at, &word));
        // Keywords without a line of reference have nothing to say
        // beyond themselves.
        let builtin = |name: &str| {
            builtin_words(language)
                .iter()
                .find(|b| b.name == name && (b.kind != BuiltinKind::Keyword || !b.doc.is_empty()))
        };
        let text = if let Some(s) = symbol {
            symbol_markdown(s)
        } else if let Some(b) =
            builtin(&word).or_else(|| ident.as_ref().and_then(|(name, _)| builtin(name)))
        {
            let kind = match b.kind {
                BuiltinKind::Intrinsic => "intrinsic",
                BuiltinKind::StyleConstant => "style constant",
                BuiltinKind::CheFunction => "Che function",
                BuiltinKind::Instruction => "CHEG instruction",
                BuiltinKind::Condition => "CHEG condition",
                BuiltinKind::Predefined => "CHEG predefined variable",
                BuiltinKind::Keyword => "keyword",
            };
            format!(
                "```{}\n{}\n```\n{kind}: {}",
                fence(language),
                b.signature,
                b.doc
            )
        } else if language != Language::Cheg {
            analysis::explain_literal(&word)?
        } else {
            return None;
        };
        Some(Hover {
            contents: HoverContents::Markup(MarkupContent {
                kind: MarkupKind::Markdown,
                value: text,
            }),
            range: Some(Range {
                start: position_of(&doc.text, range.0),
                end: position_of(&doc.text, range.1),
            }),
        })
    }

    fn definition(&self, p: &lsp_types::TextDocumentPositionParams) -> Option<Location> {
        let (doc, key, at) = self.at(p)?;
        let language = Language::of_path(&doc.path);
        let name = match language {
            Language::Cheg => word_at(&doc.text, at, language)?.0,
            _ => identifier_at(&doc.text, at)?.0,
        };
        let symbol = doc.analysis.resolve(&key, at, &name)?;
        let text = match &symbol.place.file {
            FileKey::Stdlib => chepp::STDLIB_SOURCE.to_string(),
            file => doc.analysis.files.get(file).cloned()?,
        };
        Some(Location {
            uri: file_uri(&symbol.place.file)?,
            range: Range {
                start: position_of(&text, symbol.place.lo),
                end: position_of(&text, symbol.place.hi),
            },
        })
    }

    fn completion(&self, p: &lsp_types::TextDocumentPositionParams) -> Option<CompletionResponse> {
        let (doc, key, at) = self.at(p)?;
        let language = Language::of_path(&doc.path);
        let mut items: Vec<CompletionItem> = Vec::new();
        let mut seen = BTreeSet::new();
        for s in doc.analysis.in_scope(&key, at) {
            if seen.insert(s.name.clone()) {
                items.push(symbol_item(s));
            }
        }
        if language == Language::Chepp {
            for s in analysis::stdlib_symbols() {
                if seen.insert(s.name.clone()) {
                    items.push(symbol_item(s));
                }
            }
        }
        for b in builtin_words(language) {
            if seen.insert(b.name.clone()) {
                items.push(CompletionItem {
                    label: b.name.clone(),
                    kind: Some(match b.kind {
                        BuiltinKind::Intrinsic | BuiltinKind::CheFunction => {
                            CompletionItemKind::FUNCTION
                        }
                        BuiltinKind::StyleConstant => CompletionItemKind::CONSTANT,
                        BuiltinKind::Instruction | BuiltinKind::Keyword => {
                            CompletionItemKind::KEYWORD
                        }
                        BuiltinKind::Condition => CompletionItemKind::OPERATOR,
                        BuiltinKind::Predefined => CompletionItemKind::VARIABLE,
                    }),
                    detail: Some(b.signature.clone()),
                    documentation: (!b.doc.is_empty())
                        .then(|| lsp_types::Documentation::String(b.doc.clone())),
                    ..CompletionItem::default()
                });
            }
        }
        Some(CompletionResponse::Array(items))
    }

    #[allow(deprecated)]
    fn symbols(&self, uri: &Uri) -> Option<DocumentSymbolResponse> {
        let doc = self.doc(uri)?;
        let key = FileKey::Path(analysis::normalize(&doc.path));
        let range_of = |s: &Symbol| Range {
            start: position_of(&doc.text, s.place.lo),
            end: position_of(&doc.text, s.place.hi),
        };
        let mut out = Vec::new();
        for s in doc
            .analysis
            .symbols
            .iter()
            .filter(|s| s.place.file == key && s.scope.is_none())
        {
            let children: Vec<DocumentSymbol> = doc
                .analysis
                .symbols
                .iter()
                .filter(|c| {
                    matches!(s.kind, SymbolKind::Function | SymbolKind::Procedure)
                        && c.scope
                            .as_ref()
                            .is_some_and(|sc| sc.contains(&key, s.place.lo))
                })
                .map(|c| DocumentSymbol {
                    name: c.name.clone(),
                    detail: Some(c.detail.clone()),
                    kind: symbol_kind(c.kind),
                    tags: None,
                    deprecated: None,
                    range: range_of(c),
                    selection_range: range_of(c),
                    children: None,
                })
                .collect();
            let range = match children.last() {
                Some(last) => Range {
                    start: range_of(s).start,
                    end: last.range.end,
                },
                None => range_of(s),
            };
            out.push(DocumentSymbol {
                name: s.name.clone(),
                detail: Some(s.detail.clone()),
                kind: symbol_kind(s.kind),
                tags: None,
                deprecated: None,
                range,
                selection_range: range_of(s),
                children: (!children.is_empty()).then_some(children),
            });
        }
        Some(DocumentSymbolResponse::Nested(out))
    }
}

fn params<P: serde::de::DeserializeOwned>(req: Request) -> Result<P, (i32, String)> {
    serde_json::from_value(req.params).map_err(|e| {
        (
            lsp_server::ErrorCode::InvalidParams as i32,
            format!("invalid parameters: {e}"),
        )
    })
}

fn to_json<T: serde::Serialize>(value: T) -> serde_json::Value {
    serde_json::to_value(value).unwrap_or(serde_json::Value::Null)
}

/// The code fence's language name.
fn fence(language: Language) -> &'static str {
    match language {
        Language::Chepp => "che",
        Language::Che3 => "che3",
        Language::Cheg => "cheg",
    }
}

fn symbol_markdown(s: &Symbol) -> String {
    let mut text = format!("```che\n{}\n```\n{}", s.detail, s.kind.describe());
    if s.place.file == FileKey::Stdlib {
        text.push_str(" (standard library)");
    }
    if !s.doc.is_empty() {
        text.push_str(": ");
        text.push_str(&s.doc);
    }
    text
}

fn symbol_kind(kind: SymbolKind) -> lsp_types::SymbolKind {
    use lsp_types::SymbolKind as K;
    match kind {
        SymbolKind::Function | SymbolKind::Procedure => K::FUNCTION,
        SymbolKind::Constant => K::CONSTANT,
        SymbolKind::Variable | SymbolKind::Local | SymbolKind::ChegVariable => K::VARIABLE,
        SymbolKind::List | SymbolKind::ListParameter => K::ARRAY,
        SymbolKind::Text => K::STRING,
        SymbolKind::Parameter => K::VARIABLE,
        SymbolKind::Pattern => K::BOOLEAN,
        SymbolKind::Advice | SymbolKind::Rule => K::EVENT,
        SymbolKind::Tag => K::KEY,
        SymbolKind::Entry => K::NAMESPACE,
    }
}

fn symbol_item(s: &Symbol) -> CompletionItem {
    CompletionItem {
        label: s.name.clone(),
        kind: Some(match s.kind {
            SymbolKind::Function | SymbolKind::Procedure => CompletionItemKind::FUNCTION,
            SymbolKind::Constant => CompletionItemKind::CONSTANT,
            SymbolKind::Tag => CompletionItemKind::REFERENCE,
            _ => CompletionItemKind::VARIABLE,
        }),
        detail: Some(s.detail.clone()),
        documentation: (!s.doc.is_empty()).then(|| lsp_types::Documentation::String(s.doc.clone())),
        ..CompletionItem::default()
    }
}

fn to_lsp_diagnostic(d: &analysis::Diag, text: &str) -> Diagnostic {
    let range = match &d.place {
        Some(p) => Range {
            start: position_of(text, p.lo),
            end: position_of(text, p.hi.max(p.lo)),
        },
        None => Range::default(),
    };
    let mut message = d.message.clone();
    for line in &d.details {
        message.push('\n');
        message.push_str(line);
    }
    Diagnostic {
        range,
        severity: Some(if d.error {
            DiagnosticSeverity::ERROR
        } else {
            DiagnosticSeverity::WARNING
        }),
        source: Some("che".into()),
        message,
        ..Diagnostic::default()
    }
}

/// The protocol position (line, UTF-16 unit) of byte `at` of `text`.
pub fn position_of(text: &str, at: usize) -> Position {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let before = &text[..at];
    let line = before.matches('\n').count() as u32;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    let character = before[start..].encode_utf16().count() as u32;
    Position { line, character }
}

/// The byte offset of a protocol position in `text` (clamped to its line
/// and to the text).
pub fn offset_of(text: &str, pos: Position) -> usize {
    let mut start = 0;
    for _ in 0..pos.line {
        match text[start..].find('\n') {
            Some(i) => start += i + 1,
            None => return text.len(),
        }
    }
    let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    let mut units = 0u32;
    for (i, c) in text[start..end].char_indices() {
        if units >= pos.character {
            return start + i;
        }
        units += c.len_utf16() as u32;
    }
    end
}

/// The word under byte `at` (or just before it): a name or a chess
/// literal, and its byte range.
fn word_at(text: &str, at: usize, language: Language) -> Option<(String, (usize, usize))> {
    let part = |c: char| match language {
        Language::Cheg => !c.is_whitespace() && !matches!(c, ',' | ';' | '"' | ':'),
        _ => c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '?'),
    };
    span_of(text, at, part)
}

/// The identifier under byte `at` (or just before it).
fn identifier_at(text: &str, at: usize) -> Option<(String, (usize, usize))> {
    span_of(text, at, |c| c.is_ascii_alphanumeric() || c == '_')
}

fn span_of(text: &str, at: usize, part: impl Fn(char) -> bool) -> Option<(String, (usize, usize))> {
    let at = at.min(text.len());
    if !text.is_char_boundary(at) {
        return None;
    }
    let lo = text[..at]
        .char_indices()
        .rev()
        .take_while(|&(_, c)| part(c))
        .last()
        .map_or(at, |(i, _)| i);
    let hi = text[at..]
        .char_indices()
        .find(|&(_, c)| !part(c))
        .map_or(text.len(), |(i, _)| at + i);
    let word = &text[lo..hi];
    (!word.is_empty()).then(|| (word.to_string(), (lo, hi)))
}

/// The path a `file:` URI names.
pub fn uri_to_path(uri: &Uri) -> Option<PathBuf> {
    let s = uri.as_str();
    let rest = s.strip_prefix("file://")?;
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    let mut bytes = Vec::with_capacity(rest.len());
    let raw = rest.as_bytes();
    let mut i = 0;
    while i < raw.len() {
        if raw[i] == b'%' && i + 2 < raw.len() {
            let hex = std::str::from_utf8(&raw[i + 1..i + 3]).ok()?;
            bytes.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            bytes.push(raw[i]);
            i += 1;
        }
    }
    Some(PathBuf::from(String::from_utf8(bytes).ok()?))
}

/// The `file:` URI of an absolute path.
pub fn path_to_uri(path: &Path) -> Option<Uri> {
    let mut s = String::from("file://");
    for b in path.to_string_lossy().bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            s.push(b as char);
        } else {
            s.push_str(&format!("%{b:02X}"));
        }
    }
    Uri::from_str(&s).ok()
}

/// The URI of a file key; the standard library is written to a file in
/// the temporary folder first.
fn file_uri(file: &FileKey) -> Option<Uri> {
    match file {
        FileKey::Path(p) => path_to_uri(p),
        FileKey::Stdlib => path_to_uri(&stdlib_file()?),
    }
}

/// A copy of the bundled standard library on disk, for editors to open.
pub fn stdlib_file() -> Option<PathBuf> {
    let dir = std::env::temp_dir().join(format!("che-lsp-{}", env!("CARGO_PKG_VERSION")));
    let path = dir.join(chepp::STDLIB_NAME);
    if std::fs::read_to_string(&path).ok().as_deref() != Some(chepp::STDLIB_SOURCE) {
        std::fs::create_dir_all(&dir).ok()?;
        std::fs::write(&path, chepp::STDLIB_SOURCE).ok()?;
    }
    Some(path)
}
