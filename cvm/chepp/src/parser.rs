//! The parser: tokens to the syntax tree, with includes spliced in.
//!
//! A hand-written recursive-descent parser with C operator precedence.
//! When it meets something it cannot read it reports one error and skips
//! to a point where reading can sensibly resume (the next `;`, the `end` of
//! the enclosing block, the next top-level declaration), so one run finds
//! every independent syntax error instead of stopping at the first.
//! Nesting depth is bounded, so no input can exhaust the stack of this or
//! any later pass; chains of operators of one precedence are read in a loop
//! and may be of any length (every later pass walks them in a loop too).
//!
//! `include NAME` is resolved here, while parsing, because Che++ includes
//! are textual: the included file's items appear exactly where the
//! `include` stood. Each file is included at most once per compilation, so
//! two files including each other cannot loop.

use super::ast::*;
use super::diag::{Diagnostic, Diagnostics};
use super::lexer::lex;
use super::sema::TEXTOUT;
use super::source::{
    self, FileId, Found, IncludeError, Loader, SourceMap, Span, STDLIB_NAME, STDLIB_SOURCE,
};
use super::token::{Kw, Tok, Token};
use cvm_chess::lit::{self, LitKind};
use std::collections::HashSet;
use std::path::PathBuf;

/// The deepest nesting of expressions (parentheses, unary operators,
/// operands of tighter operators, assignments, calls) and of statements the
/// parser accepts. The length of a chain of operators of one precedence
/// (`1+1+...+1`) is not bounded.
pub const MAX_DEPTH: u32 = 160;

/// Everything the parser needs besides the tokens of the current file.
pub struct ParseCtx<'a> {
    /// The source files; included files are added here.
    pub sources: &'a mut SourceMap,
    /// Reads included files.
    pub loader: &'a dyn Loader,
    /// The `-I` folders.
    pub include_dirs: &'a [PathBuf],
    /// Where errors go.
    pub diags: &'a mut Diagnostics,
    included: HashSet<PathBuf>,
    stdlib_included: bool,
    /// Every name declared so far (globals, routines, parameters, locals):
    /// a name that is not declared and spells a keyword in other letter
    /// case (`BEGIN`) is read as the keyword.
    declared: HashSet<String>,
    /// See [`Program::skipped_routines`].
    skipped_routines: Vec<Option<Ident>>,
    /// See [`Program::truncated`].
    truncated: bool,
}

impl<'a> ParseCtx<'a> {
    /// A context for parsing one program.
    pub fn new(
        sources: &'a mut SourceMap,
        loader: &'a dyn Loader,
        include_dirs: &'a [PathBuf],
        diags: &'a mut Diagnostics,
    ) -> ParseCtx<'a> {
        ParseCtx {
            sources,
            loader,
            include_dirs,
            diags,
            included: HashSet::new(),
            stdlib_included: false,
            declared: HashSet::new(),
            skipped_routines: Vec::new(),
            truncated: false,
        }
    }

    /// Marks a file (by loader identity) as included, so a later
    /// `include` of it is skipped.
    pub fn mark_included(&mut self, identity: PathBuf) {
        self.included.insert(identity);
    }
}

/// Parses the file `root` (already in `ctx.sources`) and everything it
/// includes.
pub fn parse_program(ctx: &mut ParseCtx<'_>, root: FileId) -> Program {
    let mut program = Program::default();
    parse_file(ctx, root, &mut program.items, 0);
    program.skipped_routines = std::mem::take(&mut ctx.skipped_routines);
    program.truncated = ctx.truncated;
    program
}

fn parse_file(ctx: &mut ParseCtx<'_>, file: FileId, out: &mut Vec<Item>, include_depth: u32) {
    let text = ctx
        .sources
        .get(file)
        .map(|f| f.text.clone())
        .unwrap_or_default();
    let tokens = lex(file, &text, ctx.diags);
    let mut p = Parser {
        ctx,
        tokens,
        pos: 0,
        file,
        depth: 0,
        aborted: false,
        include_depth,
    };
    p.items(out);
}

/// Marker for "an error was reported; the caller should resynchronise".
struct Reported;

type PResult<T> = Result<T, Reported>;

struct Parser<'c, 'a> {
    ctx: &'c mut ParseCtx<'a>,
    tokens: Vec<Token>,
    pos: usize,
    file: FileId,
    depth: u32,
    aborted: bool,
    include_depth: u32,
}

fn starts_item(tok: &Tok) -> bool {
    matches!(
        tok,
        Tok::Kw(
            Kw::Const
                | Kw::Var
                | Kw::List
                | Kw::Text
                | Kw::Procedure
                | Kw::Function
                | Kw::Extern
                | Kw::Include
        )
    )
}

/// Keywords that start a statement or end a block (where a keyword in
/// other letter case, such as `END`, is read as one at the start of a
/// statement).
fn stmt_keyword(kw: Kw) -> bool {
    matches!(
        kw,
        Kw::If
            | Kw::While
            | Kw::Repeat
            | Kw::For
            | Kw::Switch
            | Kw::Return
            | Kw::Goto
            | Kw::Write
            | Kw::Break
            | Kw::End
            | Kw::Elseif
            | Kw::Else
            | Kw::Until
            | Kw::Case
            | Kw::Default
    )
}

/// Keywords that start a top-level declaration.
fn item_keyword(kw: Kw) -> bool {
    starts_item(&Tok::Kw(kw))
}

/// Tokens that may start another element of a juxtaposed literal list.
fn starts_list_element(tok: &Tok) -> bool {
    matches!(
        tok,
        Tok::Int(_)
            | Tok::Chess(..)
            | Tok::Ident(_)
            | Tok::Bad
            | Tok::LParen
            | Tok::Bang
            | Tok::Tilde
    )
}

impl Parser<'_, '_> {
    // ---- token access -------------------------------------------------

    fn tok(&self) -> &Tok {
        self.tokens.get(self.pos).map_or(&Tok::Eof, |t| &t.tok)
    }

    fn tok_at(&self, ahead: usize) -> &Tok {
        self.tokens
            .get(self.pos + ahead)
            .map_or(&Tok::Eof, |t| &t.tok)
    }

    fn span(&self) -> Span {
        self.tokens
            .get(self.pos)
            .or_else(|| self.tokens.last())
            .map_or(Span::new(self.file, 0, 0), |t| t.span)
    }

    fn prev_span(&self) -> Span {
        self.pos
            .checked_sub(1)
            .and_then(|i| self.tokens.get(i))
            .map_or_else(|| self.span(), |t| t.span)
    }

    fn bump(&mut self) -> Token {
        let t = self.tokens.get(self.pos).cloned().unwrap_or(Token {
            tok: Tok::Eof,
            span: self.span(),
        });
        if self.pos < self.tokens.len() && t.tok != Tok::Eof {
            self.pos += 1;
        }
        t
    }

    /// The name `ahead` tokens on, if that token is a name.
    fn ident_at(&self, ahead: usize) -> Option<Ident> {
        let t = self.tokens.get(self.pos + ahead)?;
        match &t.tok {
            Tok::Ident(name) => Some(Ident {
                name: name.clone(),
                span: t.span,
            }),
            _ => None,
        }
    }

    fn at(&self, tok: &Tok) -> bool {
        self.tok() == tok
    }

    fn at_kw(&self, kw: Kw) -> bool {
        *self.tok() == Tok::Kw(kw)
    }

    fn eat(&mut self, tok: &Tok) -> bool {
        if self.at(tok) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn eat_kw(&mut self, kw: Kw) -> bool {
        self.eat(&Tok::Kw(kw))
    }

    /// Reports `d`, unless the rest of the file is being skipped after
    /// "nesting too deep" (whatever is missing then is not a new error).
    fn error(&mut self, d: Diagnostic) -> Reported {
        if !self.aborted {
            self.ctx.diags.push(d);
        }
        Reported
    }

    /// Remembers a declared name (see [`ParseCtx`]'s `declared`).
    fn declare(&mut self, id: &Ident) {
        if !self.ctx.declared.contains(&id.name) {
            self.ctx.declared.insert(id.name.clone());
        }
    }

    /// Reads a name that spells a keyword in other letter case (`BEGIN`,
    /// `End`) as that keyword when `fits(keyword)` and the name is not
    /// declared (nor built in), so no valid program changes meaning: the
    /// mistake is reported once, and parsing goes on as the writer meant
    /// instead of piling up errors that follow from it. `expected` says
    /// that the parser was looking for exactly that keyword.
    fn miscased(&mut self, fits: impl Fn(Kw) -> bool, expected: bool) -> bool {
        let Tok::Ident(name) = self.tok() else {
            return false;
        };
        let Some(kw) = Kw::from_word(&name.to_lowercase()) else {
            return false;
        };
        if !fits(kw)
            || self.ctx.declared.contains(name)
            || cvm::intrinsics::by_name(name).is_some()
            || name == TEXTOUT
        {
            return false;
        }
        let word = kw.as_str();
        let message = if expected {
            format!("expected `{word}`, found name `{name}`")
        } else {
            format!("`{name}` is not a keyword")
        };
        let span = self.span();
        self.error(
            Diagnostic::error(span, message)
                .label(format!("read as `{word}`"))
                .note("Che++ is case-sensitive; keywords are written in lower case"),
        );
        if let Some(t) = self.tokens.get_mut(self.pos) {
            t.tok = Tok::Kw(kw);
        }
        true
    }

    fn unexpected(&mut self, what: &str) -> Reported {
        let found = self.tok().clone();
        let span = self.span();
        if found == Tok::Bad {
            // Already reported by the lexer.
            return Reported;
        }
        let mut d = Diagnostic::error(span, format!("expected {what}, found {found}"))
            .label(format!("expected {what}"));
        if let Tok::Ident(name) = &found {
            if let Some((kind, _)) = lit::parse_word(&name.to_lowercase()) {
                if name.chars().any(|c| c.is_ascii_uppercase()) && kind != LitKind::Colour {
                    d = d.note(format!(
                        "Che++ is case-sensitive; the {} is written `{}`",
                        kind.name(),
                        name.to_lowercase()
                    ));
                }
            }
        }
        self.error(d)
    }

    fn expect(&mut self, tok: &Tok, what: &str) -> PResult<Span> {
        if self.at(tok) {
            Ok(self.bump().span)
        } else {
            Err(self.unexpected(what))
        }
    }

    fn expect_kw(&mut self, kw: Kw) -> PResult<Span> {
        self.miscased(|k| k == kw, true);
        self.expect(&Tok::Kw(kw), &format!("`{}`", kw.as_str()))
    }

    fn expect_semi(&mut self) -> PResult<()> {
        if self.eat(&Tok::Semi) {
            return Ok(());
        }
        let found = self.tok().clone();
        if found == Tok::Bad {
            return Err(Reported);
        }
        // Point just after the previous token, where the `;` belongs.
        let prev = self.prev_span();
        let at = Span::new(prev.file, prev.hi as usize, prev.hi as usize);
        let d = Diagnostic::error(at, format!("expected `;`, found {found}"))
            .label("`;` missing here")
            .secondary(self.span(), "the next statement or declaration starts here");
        Err(self.error(d))
    }

    fn ident(&mut self, what: &str) -> PResult<Ident> {
        match self.tok().clone() {
            Tok::Ident(name) => {
                let span = self.bump().span;
                Ok(Ident { name, span })
            }
            Tok::Chess(kind, _) => {
                let span = self.span();
                let text = self.ctx.sources.text(span).to_string();
                Err(self.error(
                    Diagnostic::error(span, format!("expected {what}, found the {} literal `{text}`", kind.name()))
                        .label("chess literals cannot be used as names")
                        .note("words such as `e4`, `w`, `b`, `wP`, `aline`, `row1`, `kside` are chess literals"),
                ))
            }
            _ => Err(self.unexpected(what)),
        }
    }

    /// Skips to just after the next `;` at this level or to a token that
    /// ends a block or starts a declaration; always makes progress unless
    /// it is already at such a token.
    fn sync_stmt(&mut self) {
        loop {
            match self.tok() {
                Tok::Eof => return,
                Tok::Semi => {
                    self.bump();
                    return;
                }
                Tok::Kw(Kw::End | Kw::Elseif | Kw::Else | Kw::Until | Kw::Case | Kw::Default) => {
                    return
                }
                t if starts_item(t)
                    && !matches!(t, Tok::Kw(Kw::Const | Kw::Var | Kw::List | Kw::Text)) =>
                {
                    return
                }
                Tok::Kw(
                    Kw::If
                    | Kw::While
                    | Kw::Repeat
                    | Kw::For
                    | Kw::Switch
                    | Kw::Return
                    | Kw::Goto
                    | Kw::Write
                    | Kw::Break,
                ) => return,
                _ => {
                    self.bump();
                }
            }
        }
    }

    fn sync_item(&mut self) {
        loop {
            let t = self.tok();
            if *t == Tok::Eof || starts_item(t) {
                return;
            }
            self.bump();
        }
    }

    fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            if !self.aborted {
                self.aborted = true;
                self.ctx.truncated = true;
                let span = self.span();
                self.ctx.diags.push(
                    Diagnostic::error(span, "nesting too deep")
                        .label(format!("more than {MAX_DEPTH} levels of nesting"))
                        .note("the rest of this file is skipped"),
                );
            }
            self.pos = self.tokens.len().saturating_sub(1);
            return Err(Reported);
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    // ---- items --------------------------------------------------------

    fn items(&mut self, out: &mut Vec<Item>) {
        while !self.at(&Tok::Eof) && !self.aborted {
            let before = self.pos;
            self.miscased(item_keyword, false);
            if self.item(out).is_err() {
                self.sync_item();
            }
            if self.pos == before && !self.at(&Tok::Eof) {
                self.bump();
            }
        }
    }

    fn item(&mut self, out: &mut Vec<Item>) -> PResult<()> {
        match self.tok().clone() {
            Tok::Semi => {
                self.bump();
            }
            Tok::Kw(Kw::Include) => self.include(out)?,
            // A declaration whose name was read is kept even when the rest
            // of it is wrong, so that uses of the name are not reported.
            Tok::Kw(Kw::Const) => {
                let mut c = None;
                let r = self.const_decl(&mut c);
                out.extend(c.map(Item::Const));
                r?;
            }
            Tok::Kw(Kw::Var) => {
                let mut vars = Vec::new();
                let r = self.var_decl(&mut vars);
                if !vars.is_empty() {
                    out.push(Item::Var(vars));
                }
                r?;
            }
            Tok::Kw(Kw::List) => {
                let mut l = None;
                let r = self.list_decl(&mut l);
                out.extend(l.map(Item::List));
                r?;
            }
            Tok::Kw(Kw::Text) => {
                self.bump();
                let name = self.ident("a text name")?;
                self.declare(&name);
                let text = match self.tok().clone() {
                    Tok::Str(s) => {
                        self.bump();
                        s
                    }
                    _ => {
                        let r = self.unexpected("a quoted text");
                        out.push(Item::Text {
                            name,
                            text: String::new(),
                        });
                        return Err(r);
                    }
                };
                let r = self.expect_semi();
                out.push(Item::Text { name, text });
                r?;
            }
            Tok::Kw(Kw::Extern) => {
                self.bump();
                let name = self.ident_at(1);
                let sig = self.signature().inspect_err(|_| {
                    self.ctx.skipped_routines.push(name);
                })?;
                let r = self.expect_semi();
                out.push(Item::Extern(sig));
                r?;
            }
            Tok::Kw(Kw::Procedure | Kw::Function) => self.routine_item(out),
            // `procedur main()`, `Prozedur main()`: a routine with a
            // misspelled keyword.
            Tok::Ident(word)
                if matches!(self.tok_at(1), Tok::Ident(_)) && *self.tok_at(2) == Tok::LParen =>
            {
                let span = self.span();
                let name = self.ident_at(1);
                self.error(
                    Diagnostic::error(
                        span,
                        format!("expected a declaration, found name `{word}`"),
                    )
                    .label("expected `procedure` or `function`")
                    .note("the routine is skipped up to its `end`"),
                );
                self.bump();
                self.ctx.skipped_routines.push(name);
                self.skip_routine();
            }
            Tok::Kw(Kw::Begin) => {
                let span = self.span();
                return Err(self.error(
                    Diagnostic::error(span, "statements must be inside a procedure or function")
                        .label("`begin` outside a routine")
                        .help("write `procedure main() begin ... end;`"),
                ));
            }
            _ => return Err(self.unexpected("a declaration (`const`, `var`, `list`, `text`, `procedure`, `function`, `extern` or `include`)")),
        }
        Ok(())
    }

    fn include(&mut self, out: &mut Vec<Item>) -> PResult<()> {
        let kw = self.bump().span;
        let (name, span) = match self.tok().clone() {
            Tok::Path(p) if !p.is_empty() => (p, self.bump().span),
            Tok::Path(_) => {
                self.bump();
                return Err(self.error(
                    Diagnostic::error(kw, "`include` needs a file name")
                        .label("no file name follows"),
                ));
            }
            _ => return Err(self.unexpected("a file name")),
        };
        let from_dir = self
            .ctx
            .sources
            .get(self.file)
            .and_then(|f| f.path.as_deref())
            .map(source::folder_of);
        let found = source::find_include(
            self.ctx.loader,
            from_dir.as_deref(),
            self.ctx.include_dirs,
            &name,
        );
        let file = match found {
            Ok(Found::File {
                path,
                identity,
                text,
            }) => {
                if !self.ctx.included.insert(identity) {
                    return Ok(());
                }
                let display = source::display_name(&path);
                self.ctx.sources.add(&display, Some(path), text)
            }
            Ok(Found::Stdlib) => {
                if self.ctx.stdlib_included {
                    return Ok(());
                }
                self.ctx.stdlib_included = true;
                self.ctx
                    .sources
                    .add(STDLIB_NAME, None, STDLIB_SOURCE.to_string())
            }
            Err(IncludeError::NotFound { searched }) => {
                let mut d = Diagnostic::error(span, format!("cannot find include file `{name}`"))
                    .label("not found");
                let dirs: Vec<String> = searched
                    .iter()
                    .map(|d| {
                        if d.as_os_str().is_empty() {
                            ".".to_string()
                        } else {
                            d.display().to_string()
                        }
                    })
                    .collect();
                if !dirs.is_empty() {
                    d = d.note(format!("searched: {}", dirs.join(", ")));
                }
                return Err(self.error(d));
            }
            Err(IncludeError::Unreadable { path, reason }) => {
                return Err(self.error(
                    Diagnostic::error(
                        span,
                        format!("cannot read include file `{}`", path.display()),
                    )
                    .label(reason),
                ));
            }
        };
        if self.include_depth >= 64 {
            return Err(self.error(
                Diagnostic::error(span, "includes nested too deeply").label("more than 64 levels"),
            ));
        }
        parse_file(self.ctx, file, out, self.include_depth + 1);
        Ok(())
    }

    /// `const NAME := EXPR;`; once the name is read, `decl` holds the
    /// declaration (with an error value if the rest is wrong).
    fn const_decl(&mut self, decl: &mut Option<ConstDecl>) -> PResult<()> {
        self.bump();
        let name = self.ident("a constant name")?;
        self.declare(&name);
        let c = decl.insert(ConstDecl {
            value: Expr::error(name.span),
            name,
        });
        if !self.eat(&Tok::Assign) {
            if self.at(&Tok::Eq) {
                let span = self.span();
                return Err(self.error(
                    Diagnostic::error(span, "constants are defined with `:=`")
                        .label("write `:=` here"),
                ));
            }
            return Err(self.unexpected("`:=`"));
        }
        c.value = self.expr()?;
        self.expect_semi()
    }

    /// `var a, b := EXPR, ...;`; every name read is added to `vars` (with
    /// an error value if its initialiser is wrong).
    fn var_decl(&mut self, vars: &mut Vec<VarDecl>) -> PResult<()> {
        self.bump();
        loop {
            let name = match self.ident("a variable name") {
                Ok(name) => name,
                // A chess literal used as a name: reported; skip just it.
                Err(r) if matches!(self.tok(), Tok::Chess(..)) => {
                    self.bump();
                    if self.eat(&Tok::Comma) {
                        continue;
                    }
                    if self.eat(&Tok::Semi) {
                        return Ok(());
                    }
                    return Err(r);
                }
                Err(r) => return Err(r),
            };
            self.declare(&name);
            let init = if self.eat(&Tok::Assign) {
                match self.expr() {
                    Ok(e) => Some(e),
                    Err(r) => {
                        let init = Some(Expr::error(name.span));
                        vars.push(VarDecl { name, init });
                        return Err(r);
                    }
                }
            } else {
                None
            };
            vars.push(VarDecl { name, init });
            if !self.eat(&Tok::Comma) {
                break;
            }
        }
        self.expect_semi()
    }

    /// A list declaration; once the name is read, `decl` holds it (without
    /// size and elements if the rest is wrong).
    fn list_decl(&mut self, decl: &mut Option<ListDecl>) -> PResult<()> {
        let start = self.bump().span;
        let name = self.ident("a list name")?;
        self.declare(&name);
        *decl = Some(ListDecl {
            name: name.clone(),
            size: None,
            init: None,
            span: start.to(name.span),
        });
        let size = if self.eat(&Tok::LBrack) {
            let e = self.expr()?;
            self.expect(&Tok::RBrack, "`]`")?;
            Some(e)
        } else {
            None
        };
        let init = if self.eat(&Tok::Assign) {
            let mut items = Vec::new();
            while starts_list_element(self.tok()) || self.at(&Tok::Minus) {
                items.push(self.binary(0)?);
            }
            if items.is_empty() {
                return Err(self.unexpected("the list's elements"));
            }
            Some(items)
        } else {
            None
        };
        let span = start.to(self.prev_span());
        *decl = Some(ListDecl {
            name,
            size,
            init,
            span,
        });
        self.expect_semi()
    }

    fn signature(&mut self) -> PResult<Signature> {
        let start = self.span();
        let kind = match self.tok() {
            Tok::Kw(Kw::Procedure) => RoutineKind::Procedure,
            Tok::Kw(Kw::Function) => RoutineKind::Function,
            _ => return Err(self.unexpected("`procedure` or `function`")),
        };
        self.bump();
        let name = self.ident("a routine name")?;
        self.declare(&name);
        self.expect(&Tok::LParen, "`(`")?;
        let mut params = Vec::new();
        if !self.at(&Tok::RParen) {
            loop {
                let is_list = self.eat_kw(Kw::List);
                let pname = match self.ident("a parameter name") {
                    Ok(id) => id,
                    // A chess literal as a name: reported; keep the
                    // parameter so the routine's arity stays right.
                    Err(_) if matches!(self.tok(), Tok::Chess(..)) => {
                        let span = self.bump().span;
                        Ident {
                            name: self.ctx.sources.text(span).to_string(),
                            span,
                        }
                    }
                    Err(r) => return Err(r),
                };
                self.declare(&pname);
                params.push(Param {
                    name: pname,
                    is_list,
                });
                if !self.eat(&Tok::Comma) {
                    break;
                }
            }
        }
        self.expect(&Tok::RParen, "`)`")?;
        Ok(Signature {
            kind,
            name,
            params,
            span: start.to(self.prev_span()),
        })
    }

    /// A procedure or function. One whose head (or start) cannot be read
    /// is skipped up to its `end` and its name remembered, so that neither
    /// its body nor its absence causes further errors.
    fn routine_item(&mut self, out: &mut Vec<Item>) {
        let name = self.ident_at(1);
        match self.routine() {
            Ok(r) => out.push(Item::Routine(r)),
            Err(Reported) => {
                self.ctx.skipped_routines.push(name);
                self.skip_routine();
            }
        }
    }

    /// Skips the rest of a routine whose head could not be read: up to the
    /// `end` that closes its `begin` (counting the blocks inside), or to
    /// the next `procedure`, `function`, `extern` or `include`.
    fn skip_routine(&mut self) {
        let mut depth = 0u32;
        loop {
            match self.tok() {
                Tok::Eof | Tok::Kw(Kw::Procedure | Kw::Function | Kw::Extern | Kw::Include) => {
                    return
                }
                Tok::Kw(Kw::Begin | Kw::If | Kw::While | Kw::For | Kw::Switch) => depth += 1,
                Tok::Kw(Kw::End) => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        self.bump();
                        self.eat(&Tok::Semi);
                        return;
                    }
                }
                _ => {}
            }
            self.bump();
        }
    }

    fn routine(&mut self) -> PResult<Routine> {
        let sig = self.signature()?;
        let mut locals = Vec::new();
        loop {
            match self.tok() {
                Tok::Kw(Kw::Var) => {
                    let mut vars = Vec::new();
                    let r = self.var_decl(&mut vars);
                    if !vars.is_empty() {
                        locals.push(LocalDecl::Var(vars));
                    }
                    if r.is_err() {
                        self.sync_stmt();
                    }
                }
                Tok::Kw(Kw::Const) => {
                    let mut c = None;
                    let r = self.const_decl(&mut c);
                    locals.extend(c.map(LocalDecl::Const));
                    if r.is_err() {
                        self.sync_stmt();
                    }
                }
                Tok::Kw(Kw::List | Kw::Text) => {
                    let span = self.span();
                    let what = if self.at_kw(Kw::List) {
                        "lists"
                    } else {
                        "texts"
                    };
                    self.ctx.diags.push(
                        Diagnostic::error(
                            span,
                            format!("{what} can only be declared outside routines"),
                        )
                        .label("local declaration")
                        .help(format!(
                            "declare it before `{}` at the top level",
                            sig.name.name
                        )),
                    );
                    self.bump();
                    self.sync_stmt();
                }
                _ => break,
            }
        }
        self.miscased(|k| k == Kw::Begin, true);
        if !self.eat_kw(Kw::Begin) {
            let r = self.unexpected("`begin`");
            if matches!(
                self.tok(),
                Tok::Eof | Tok::Kw(Kw::Procedure | Kw::Function | Kw::Extern | Kw::Include)
            ) {
                return Err(r);
            }
            // Read the statements as if `begin` stood here.
        }
        let body = self.block(&[Kw::End]);
        if self.aborted {
            return Err(Reported);
        }
        // A missing `end` is reported; the statements read are kept.
        let end = self.expect_kw(Kw::End).unwrap_or_else(|_| self.prev_span());
        self.eat(&Tok::Semi);
        Ok(Routine {
            sig,
            locals,
            body,
            end,
        })
    }

    // ---- statements ---------------------------------------------------

    /// Statements up to (not including) one of `terminators`, a top-level
    /// declaration keyword or the end of the file.
    fn block(&mut self, terminators: &[Kw]) -> Vec<Stmt> {
        let mut out = Vec::new();
        if self.enter().is_err() {
            return out;
        }
        loop {
            if *self.tok_at(1) != Tok::Colon {
                self.miscased(stmt_keyword, false);
            }
            match self.tok() {
                Tok::Eof => break,
                Tok::Kw(k) if terminators.contains(k) => break,
                Tok::Kw(Kw::End | Kw::Elseif | Kw::Else | Kw::Until | Kw::Case | Kw::Default) => {
                    let t = self.tok().clone();
                    let span = self.span();
                    self.ctx.diags.push(
                        Diagnostic::error(span, format!("unexpected {t}"))
                            .label("does not belong here"),
                    );
                    self.bump();
                    continue;
                }
                t if starts_item(t)
                    && !matches!(t, Tok::Kw(Kw::Const | Kw::Var | Kw::List | Kw::Text)) =>
                {
                    break
                }
                _ => {}
            }
            if self.aborted {
                break;
            }
            let before = self.pos;
            match self.stmt() {
                Ok(s) => out.push(s),
                Err(_) => self.sync_stmt(),
            }
            if self.pos == before {
                self.bump();
            }
        }
        self.leave();
        out
    }

    /// The condition of a compound statement that continues with `stop`
    /// (`then`, `do`, `case`). After an error inside it, skips to `stop` so
    /// that the statement's body, and its `end`, are still read in place.
    fn head_expr(&mut self, stop: Kw) -> PResult<Expr> {
        let start = self.span();
        match self.expr() {
            Ok(e) => Ok(e),
            Err(r) => loop {
                match self.tok() {
                    Tok::Kw(k) if *k == stop => return Ok(Expr::error(start)),
                    Tok::Semi | Tok::Eof | Tok::Kw(Kw::End) => return Err(r),
                    _ => {
                        self.bump();
                    }
                }
            },
        }
    }

    fn end_of_block(&mut self) -> PResult<Span> {
        let span = self.expect_kw(Kw::End)?;
        self.eat(&Tok::Semi);
        Ok(span)
    }

    fn stmt(&mut self) -> PResult<Stmt> {
        let start = self.span();
        let kind = match self.tok().clone() {
            Tok::Semi => {
                self.bump();
                StmtKind::Empty
            }
            Tok::Ident(_) if *self.tok_at(1) == Tok::Colon => {
                let name = self.ident("a label")?;
                self.bump();
                StmtKind::Label(name)
            }
            Tok::Kw(Kw::If) => self.if_stmt()?,
            Tok::Kw(Kw::Switch) => self.switch_stmt()?,
            Tok::Kw(Kw::While) => {
                self.bump();
                let cond = self.head_expr(Kw::Do)?;
                self.expect_kw(Kw::Do)?;
                let body = self.block(&[Kw::End]);
                self.end_of_block()?;
                StmtKind::While { cond, body }
            }
            Tok::Kw(Kw::Repeat) => {
                self.bump();
                let body = self.block(&[Kw::Until]);
                self.expect_kw(Kw::Until)?;
                let cond = self.expr()?;
                self.expect_semi()?;
                StmtKind::Repeat { body, cond }
            }
            Tok::Kw(Kw::For) => {
                self.bump();
                let var = self.ident("the loop variable")?;
                self.expect_kw(Kw::In)?;
                let list = match self.arg() {
                    Ok(a) => a,
                    Err(r) => {
                        let e = self.head_expr(Kw::Do).map_err(|_| r)?;
                        Arg {
                            span: e.span,
                            items: vec![e],
                        }
                    }
                };
                self.expect_kw(Kw::Do)?;
                let body = self.block(&[Kw::End]);
                self.end_of_block()?;
                StmtKind::For { var, list, body }
            }
            Tok::Kw(Kw::Break) => {
                self.bump();
                self.expect_semi()?;
                StmtKind::Break
            }
            Tok::Kw(Kw::Goto) => {
                self.bump();
                let label = self.ident("a label")?;
                self.expect_semi()?;
                StmtKind::Goto(label)
            }
            Tok::Kw(Kw::Return) => {
                self.bump();
                let value = if self.at(&Tok::Semi) {
                    None
                } else {
                    Some(self.expr()?)
                };
                self.expect_semi()?;
                StmtKind::Return(value)
            }
            Tok::Kw(Kw::Write) => {
                self.bump();
                let e = self.expr()?;
                self.expect_semi()?;
                StmtKind::Write(e)
            }
            Tok::Kw(Kw::Begin) => {
                let span = self.span();
                return Err(self.error(
                    Diagnostic::error(span, "unexpected `begin`")
                        .label("blocks do not need `begin` here")
                        .note("`then`, `do`, `else` and `repeat` already open a block that ends at `end` (or `until`)"),
                ));
            }
            Tok::Kw(Kw::Var | Kw::Const) => {
                let span = self.span();
                return Err(self.error(
                    Diagnostic::error(span, "declarations must come before `begin`")
                        .label("declaration among statements"),
                ));
            }
            _ => {
                let e = self.expr()?;
                self.expect_semi()?;
                StmtKind::Expr(e)
            }
        };
        Ok(Stmt {
            kind,
            span: start.to(self.prev_span()),
        })
    }

    fn if_stmt(&mut self) -> PResult<StmtKind> {
        self.bump();
        let mut arms = Vec::new();
        let cond = self.head_expr(Kw::Then)?;
        self.expect_kw(Kw::Then)?;
        let body = self.block(&[Kw::Elseif, Kw::Else, Kw::End]);
        arms.push((cond, body));
        let mut els = None;
        loop {
            if self.eat_kw(Kw::Elseif) {
                let cond = self.head_expr(Kw::Then)?;
                self.expect_kw(Kw::Then)?;
                let body = self.block(&[Kw::Elseif, Kw::Else, Kw::End]);
                arms.push((cond, body));
            } else if self.eat_kw(Kw::Else) {
                if self.at_kw(Kw::If) {
                    let span = self.span();
                    self.ctx.diags.push(
                        Diagnostic::warning(
                            span,
                            "`else if` opens a nested `if` that needs its own `end`",
                        )
                        .label("did you mean `elseif`?"),
                    );
                }
                els = Some(self.block(&[Kw::End]));
                break;
            } else {
                break;
            }
        }
        self.end_of_block()?;
        Ok(StmtKind::If { arms, els })
    }

    fn switch_stmt(&mut self) -> PResult<StmtKind> {
        self.bump();
        let selector = self.head_expr(Kw::Case)?;
        let mut body = Vec::new();
        if self.enter().is_err() {
            return Err(Reported);
        }
        loop {
            match self.tok() {
                Tok::Kw(Kw::End) | Tok::Eof => break,
                Tok::Kw(Kw::Case) => {
                    self.bump();
                    let value = match self.expr() {
                        Ok(v) => v,
                        Err(r) => {
                            self.leave();
                            return Err(r);
                        }
                    };
                    if self
                        .expect(&Tok::Colon, "`:` after the case value")
                        .is_err()
                    {
                        self.sync_stmt();
                    }
                    body.push(SwitchPart::Case(value));
                }
                Tok::Kw(Kw::Default) => {
                    let span = self.bump().span;
                    if self.expect(&Tok::Colon, "`:` after `default`").is_err() {
                        self.sync_stmt();
                    }
                    body.push(SwitchPart::Default(span));
                }
                t if starts_item(t)
                    && !matches!(t, Tok::Kw(Kw::Const | Kw::Var | Kw::List | Kw::Text)) =>
                {
                    break
                }
                _ => {
                    if self.aborted {
                        break;
                    }
                    let stmts = self.block(&[Kw::End, Kw::Case, Kw::Default]);
                    body.extend(stmts.into_iter().map(SwitchPart::Stmt));
                }
            }
        }
        self.leave();
        self.end_of_block()?;
        Ok(StmtKind::Switch { selector, body })
    }

    // ---- expressions --------------------------------------------------

    fn expr(&mut self) -> PResult<Expr> {
        self.enter()?;
        let r = self.assign();
        self.leave();
        let e = r?;
        if e.depth > MAX_DEPTH {
            return Err(self.error(
                Diagnostic::error(e.span, "expression too complex")
                    .label(format!("nested more than {MAX_DEPTH} levels deep"))
                    .help("split it into several statements"),
            ));
        }
        Ok(e)
    }

    fn assign(&mut self) -> PResult<Expr> {
        let lhs = self.binary(0)?;
        if self.at(&Tok::Assign) {
            self.bump();
            self.enter()?;
            let rhs = self.assign();
            self.leave();
            let rhs = rhs?;
            let span = lhs.span.to(rhs.span);
            return Ok(Expr::new(
                ExprKind::Assign(Box::new(lhs), Box::new(rhs)),
                span,
            ));
        }
        Ok(lhs)
    }

    fn binop(&self) -> Option<(BinOp, u8)> {
        Some(match self.tok() {
            Tok::Kw(Kw::Or) => (BinOp::Or, 1),
            Tok::Kw(Kw::And) => (BinOp::And, 2),
            Tok::Pipe => (BinOp::BitOr, 3),
            Tok::Caret => (BinOp::BitXor, 4),
            Tok::Amp => (BinOp::BitAnd, 5),
            Tok::Eq => (BinOp::Eq, 6),
            Tok::Ne => (BinOp::Ne, 6),
            Tok::Lt => (BinOp::Lt, 7),
            Tok::Le => (BinOp::Le, 7),
            Tok::Gt => (BinOp::Gt, 7),
            Tok::Ge => (BinOp::Ge, 7),
            Tok::Plus => (BinOp::Add, 8),
            Tok::Minus => (BinOp::Sub, 8),
            Tok::Star => (BinOp::Mul, 9),
            Tok::Slash => (BinOp::Div, 9),
            Tok::Percent => (BinOp::Mod, 9),
            _ => return None,
        })
    }

    /// Precedence climbing: operators binding tighter than `min`. A chain
    /// of operators of one precedence (`1+2-3+...`) is read in the loop, so
    /// it may be of any length; only operands that bind tighter recurse.
    fn binary(&mut self, min: u8) -> PResult<Expr> {
        let mut lhs = self.unary()?;
        loop {
            self.miscased(|k| matches!(k, Kw::And | Kw::Or), false);
            let Some((op, prec)) = self.binop() else {
                break;
            };
            if prec <= min {
                break;
            }
            let op_span = self.bump().span;
            self.enter()?;
            let rhs = self.binary(prec);
            self.leave();
            let rhs = rhs?;
            let span = lhs.span.to(rhs.span);
            lhs = Expr::new(
                ExprKind::Binary(op, op_span, Box::new(lhs), Box::new(rhs)),
                span,
            );
        }
        Ok(lhs)
    }

    fn unary(&mut self) -> PResult<Expr> {
        let start = self.span();
        let op = match self.tok() {
            Tok::Minus => Some(UnOp::Neg),
            Tok::Bang => Some(UnOp::Not),
            Tok::Tilde => Some(UnOp::BitNot),
            Tok::PlusPlus | Tok::MinusMinus => None,
            _ => return self.postfix(),
        };
        let inc = self.at(&Tok::PlusPlus);
        self.bump();
        self.enter()?;
        let operand = self.unary();
        self.leave();
        let operand = operand?;
        let span = start.to(operand.span);
        Ok(match op {
            Some(op) => Expr::new(ExprKind::Unary(op, Box::new(operand)), span),
            None => Expr::new(
                ExprKind::IncDec {
                    target: Box::new(operand),
                    inc,
                    prefix: true,
                },
                span,
            ),
        })
    }

    fn postfix(&mut self) -> PResult<Expr> {
        let mut e = self.primary()?;
        while matches!(self.tok(), Tok::PlusPlus | Tok::MinusMinus) {
            let inc = self.at(&Tok::PlusPlus);
            let span = e.span.to(self.bump().span);
            e = Expr::new(
                ExprKind::IncDec {
                    target: Box::new(e),
                    inc,
                    prefix: false,
                },
                span,
            );
            if e.depth > MAX_DEPTH {
                return Err(self.error(
                    Diagnostic::error(span, "expression too complex")
                        .label(format!("nested more than {MAX_DEPTH} levels deep"))
                        .help("split it into several statements"),
                ));
            }
        }
        Ok(e)
    }

    fn primary(&mut self) -> PResult<Expr> {
        let span = self.span();
        match self.tok().clone() {
            Tok::Int(v) => {
                self.bump();
                Ok(Expr::new(ExprKind::Int(v), span))
            }
            Tok::Chess(kind, v) => {
                self.bump();
                Ok(Expr::new(ExprKind::Chess(kind, v), span))
            }
            Tok::Bad => {
                self.bump();
                Ok(Expr::error(span))
            }
            Tok::Ident(name) => {
                self.bump();
                let id = Ident { name, span };
                if self.at(&Tok::LParen) {
                    self.bump();
                    let args = self.args()?;
                    let end = self.expect(&Tok::RParen, "`,` or `)`")?;
                    Ok(Expr::new(ExprKind::Call(id, args), span.to(end)))
                } else if self.at(&Tok::LBrack) {
                    self.bump();
                    let index = self.expr()?;
                    let end = self.expect(&Tok::RBrack, "`]`")?;
                    Ok(Expr::new(
                        ExprKind::Index(id, Box::new(index)),
                        span.to(end),
                    ))
                } else {
                    Ok(Expr::new(ExprKind::Name(id), span))
                }
            }
            Tok::LParen => {
                self.bump();
                let mut e = self.expr()?;
                let end = self.expect(&Tok::RParen, "`)`")?;
                e.span = span.to(end);
                Ok(e)
            }
            Tok::Kw(Kw::Include) => Err(self.error(
                Diagnostic::error(span, "`include` must stand at the top level")
                    .label("not allowed here"),
            )),
            _ => Err(self.unexpected("an expression")),
        }
    }

    fn args(&mut self) -> PResult<Vec<Arg>> {
        let mut args = Vec::new();
        if self.at(&Tok::RParen) {
            return Ok(args);
        }
        loop {
            args.push(self.arg()?);
            if !self.eat(&Tok::Comma) {
                break;
            }
        }
        Ok(args)
    }

    /// One argument: a compoperator, or one or more juxtaposed expressions.
    fn arg(&mut self) -> PResult<Arg> {
        let start = self.span();
        if let Some(op) = self.tok().compop() {
            if matches!(self.tok_at(1), Tok::Comma | Tok::RParen) {
                self.bump();
                let v = lit::parse_compop(op).unwrap_or(lit::COMPOP_BASE);
                let e = Expr::new(ExprKind::Chess(LitKind::CompOp, v), start);
                return Ok(Arg {
                    items: vec![e],
                    span: start,
                });
            }
        }
        let mut items = vec![self.expr()?];
        while starts_list_element(self.tok()) {
            items.push(self.expr()?);
        }
        let span = start.to(self.prev_span());
        Ok(Arg { items, span })
    }
}
