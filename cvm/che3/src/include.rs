//! The include stage: the whole program as one token stream.
//!
//! Che's `include` works like C's `#include`: the named file's text takes
//! the place of the `include` line. This stage lexes the main file and
//! replaces every [`TokenKind::Include`] by the tokens of the file it names,
//! recursively, so the parser sees one stream whose tokens still carry the
//! file they came from.
//!
//! The file is looked for next to the including file, then in each folder
//! of [`crate::CompileOptions::include_dirs`] (the command line's `-I`).
//! Each file is read once per compilation: a second `include` of a file,
//! and files that include each other, add nothing.

use crate::diag::{Diagnostic, Diagnostics};
use crate::lexer::{self, Comment, Token, TokenKind};
use crate::source::{folder_of, FileId, Loader, SourceMap};
use std::collections::HashSet;
use std::path::PathBuf;

/// How deep includes may nest.
pub const MAX_INCLUDE_DEPTH: usize = 64;

/// The program's tokens (ending with [`TokenKind::Eof`]) and comments.
#[derive(Clone, Debug, Default)]
pub struct Expanded {
    /// Every token of every file, in reading order.
    pub tokens: Vec<Token>,
    /// Every comment, in reading order.
    pub comments: Vec<Comment>,
}

/// The state of one expansion.
pub struct Includer<'a> {
    sources: &'a mut SourceMap,
    loader: &'a dyn Loader,
    include_dirs: &'a [PathBuf],
    diags: &'a mut Diagnostics,
    seen: HashSet<PathBuf>,
    out: Expanded,
}

impl<'a> Includer<'a> {
    /// A new expansion over `sources` (which holds the main file).
    pub fn new(
        sources: &'a mut SourceMap,
        loader: &'a dyn Loader,
        include_dirs: &'a [PathBuf],
        diags: &'a mut Diagnostics,
    ) -> Includer<'a> {
        Includer {
            sources,
            loader,
            include_dirs,
            diags,
            seen: HashSet::new(),
            out: Expanded::default(),
        }
    }

    /// Marks a file as read already (the main file, by its identity).
    pub fn mark_read(&mut self, identity: PathBuf) {
        self.seen.insert(identity);
    }

    /// Expands the main file `root`.
    pub fn expand(mut self, root: FileId) -> Expanded {
        self.file(root, 0);
        let end = self.sources.get(root).map_or(0, |f| f.text.len());
        self.out.tokens.push(Token {
            kind: TokenKind::Eof,
            span: crate::source::Span::new(root, end, end),
        });
        self.out
    }

    fn file(&mut self, id: FileId, depth: usize) {
        let Some(text) = self.sources.get(id).map(|f| f.text.clone()) else {
            return;
        };
        let lexed = lexer::lex(id, &text, self.diags);
        let mut comments = lexed.comments.into_iter().peekable();
        for (n, token) in lexed.tokens.into_iter().enumerate() {
            while let Some(c) = comments.next_if(|c| c.before_token <= n) {
                self.comment(c);
            }
            match token.kind {
                TokenKind::Include { file, file_span } => {
                    self.include(id, &file, file_span, token.span, depth)
                }
                _ => self.out.tokens.push(token),
            }
        }
        for c in comments {
            self.comment(c);
        }
    }

    fn comment(&mut self, mut c: Comment) {
        c.before_token = self.out.tokens.len();
        self.out.comments.push(c);
    }

    fn include(
        &mut self,
        from: FileId,
        name: &str,
        name_span: crate::source::Span,
        span: crate::source::Span,
        depth: usize,
    ) {
        if depth >= MAX_INCLUDE_DEPTH {
            self.diags.push(
                Diagnostic::error(span, "includes nested too deeply")
                    .label(format!("more than {MAX_INCLUDE_DEPTH} files deep")),
            );
            return;
        }
        let mut dirs = Vec::new();
        if let Some(path) = self.sources.get(from).and_then(|f| f.path.as_ref()) {
            dirs.push(folder_of(path));
        }
        dirs.extend(self.include_dirs.iter().cloned());
        for dir in &dirs {
            let path = dir.join(name);
            match self.loader.load(&path) {
                Ok(text) => {
                    if !self.seen.insert(self.loader.identity(&path)) {
                        return;
                    }
                    let shown = path.to_string_lossy().into_owned();
                    let id = self.sources.add(&shown, Some(path), text);
                    self.file(id, depth + 1);
                    return;
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => {
                    self.diags.push(
                        Diagnostic::error(name_span, format!("cannot read include file `{name}`"))
                            .label(e.to_string()),
                    );
                    return;
                }
            }
        }
        let searched: Vec<String> = dirs
            .iter()
            .map(|d| {
                if d.as_os_str().is_empty() {
                    ".".to_string()
                } else {
                    d.display().to_string()
                }
            })
            .collect();
        let mut d = Diagnostic::error(name_span, format!("cannot find include file `{name}`"))
            .label("no such file");
        if !searched.is_empty() {
            d = d.note(format!("searched: {}", searched.join(", ")));
        }
        self.diags.push(d);
    }
}
