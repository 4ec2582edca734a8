//! The parser: the token stream to a syntax tree.
//!
//! Che's grammar is three statements (`include` is gone by now):
//!
//! ```text
//! program   = { statement } ;
//! statement = "pattern" NAME "{" { entry } "}" "{" { entry } "}" ";"
//!           | "advice" NAME { advice-entry } ";"
//!           | "rule" NAME "{" { NAME } "}" { NAME } ";" ;
//! entry        = [ "!" ] ( FUNCTION "(" { ARG } ")" | NAME ) ;
//! advice-entry = FUNCTION "(" { ARG } ")" | NAME | "{" [ "!" ] NAME "}" ;
//! ```
//!
//! The statement keywords are reserved words, so a keyword always starts a
//! statement: a missing `;` or `}` is noticed at the next keyword and
//! reported there, and reading goes on with that statement. A statement
//! that cannot be read further is skipped up to its `;`. Keywords written
//! in another letter case (`Pattern`) are reported and read as keywords,
//! so the one mistake costs one message.

use crate::ast::*;
use crate::diag::{Diagnostic, Diagnostics};
use crate::functions;
use crate::lexer::{Token, TokenKind};
use crate::literal;
use crate::source::Span;

/// The statement keywords.
pub const KEYWORDS: [&str; 3] = ["pattern", "advice", "rule"];

/// Whether `w` is a keyword (`include` counts: the lexer consumes it).
pub fn is_keyword(w: &str) -> bool {
    KEYWORDS.contains(&w) || w == "include"
}

/// Parses the whole token stream (which ends with [`TokenKind::Eof`]).
pub fn parse(tokens: &[Token], diags: &mut Diagnostics) -> Program {
    let mut p = Parser {
        tokens,
        pos: 0,
        diags,
    };
    let mut stmts = Vec::new();
    while let Some(stmt) = p.statement() {
        stmts.push(stmt);
    }
    Program {
        stmts,
        comments: Vec::new(),
    }
}

struct Parser<'a> {
    tokens: &'a [Token],
    pos: usize,
    diags: &'a mut Diagnostics,
}

/// A keyword the parser recognised, and whether it was spelled exactly.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Keyword {
    Pattern,
    Advice,
    Rule,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> &'a TokenKind {
        self.peek_at(0)
    }

    fn peek_at(&self, n: usize) -> &'a TokenKind {
        const EOF: TokenKind = TokenKind::Eof;
        self.tokens.get(self.pos + n).map_or(&EOF, |t| &t.kind)
    }

    fn span(&self) -> Span {
        self.tokens
            .get(self.pos)
            .or(self.tokens.last())
            .map_or_else(Span::default, |t| t.span)
    }

    /// The span just after the previous token (where a missing token goes).
    fn after_previous(&self) -> Span {
        match self.pos.checked_sub(1).and_then(|i| self.tokens.get(i)) {
            Some(t) => Span {
                file: t.span.file,
                lo: t.span.hi,
                hi: t.span.hi,
            },
            None => self.span(),
        }
    }

    fn bump(&mut self) -> Option<&'a Token> {
        let t = self.tokens.get(self.pos);
        if t.is_some_and(|t| t.kind != TokenKind::Eof) {
            self.pos += 1;
        }
        t
    }

    fn error(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    /// The keyword at the cursor, if a statement starts here.
    fn keyword(&self) -> Option<Keyword> {
        match self.peek() {
            TokenKind::Word(w) => match w.as_str() {
                "pattern" => Some(Keyword::Pattern),
                "advice" => Some(Keyword::Advice),
                "rule" => Some(Keyword::Rule),
                _ => None,
            },
            _ => None,
        }
    }

    /// True at a statement keyword or the end: where an unfinished
    /// statement stops.
    fn at_boundary(&self) -> bool {
        self.keyword().is_some() || *self.peek() == TokenKind::Eof
    }

    /// True at a keyword written in another letter case (`Advice`): after
    /// an error, probably the next statement.
    fn at_miscased_keyword(&self) -> bool {
        matches!(self.peek(), TokenKind::Word(w)
            if KEYWORDS.contains(&w.to_ascii_lowercase().as_str()) && !KEYWORDS.contains(&w.as_str()))
    }

    /// Skips to just after the next `;`, or to the next keyword (in any
    /// letter case).
    fn recover(&mut self) {
        while !self.at_boundary() && !self.at_miscased_keyword() {
            if self.bump().is_some_and(|t| t.kind == TokenKind::Semi) {
                return;
            }
        }
    }

    fn statement(&mut self) -> Option<Stmt> {
        loop {
            let start = self.pos;
            let keyword = match self.peek() {
                TokenKind::Eof => return None,
                TokenKind::Word(w) => match self.keyword() {
                    Some(k) => k,
                    None => {
                        let lower = w.to_ascii_lowercase();
                        let span = self.span();
                        let mut d = Diagnostic::error(
                            span,
                            format!("expected `pattern`, `advice` or `rule`, found `{w}`"),
                        )
                        .label("a statement starts here");
                        let k = match lower.as_str() {
                            "pattern" => Some(Keyword::Pattern),
                            "advice" => Some(Keyword::Advice),
                            "rule" => Some(Keyword::Rule),
                            _ => None,
                        };
                        if k.is_some() || lower == "include" {
                            d = d.note(format!(
                                "Che is case sensitive: the keyword is written `{lower}`"
                            ));
                        } else if functions::by_name(w).is_some() {
                            d = d.note(format!(
                                "`{w}` is a function; functions stand inside patterns and advices"
                            ));
                        }
                        self.error(d);
                        match k {
                            Some(k) => k,
                            None => {
                                self.bump();
                                self.recover();
                                continue;
                            }
                        }
                    }
                },
                other => {
                    let span = self.span();
                    let d = Diagnostic::error(
                        span,
                        format!(
                            "expected `pattern`, `advice` or `rule`, found {}",
                            other.describe()
                        ),
                    )
                    .label("a statement starts here");
                    self.error(d);
                    self.bump();
                    self.recover();
                    continue;
                }
            };
            let keyword_span = self.span();
            self.bump();
            let kind = match keyword {
                Keyword::Pattern => StmtKind::Pattern(self.pattern()),
                Keyword::Advice => StmtKind::Advice(self.advice()),
                Keyword::Rule => StmtKind::Rule(self.rule()),
            };
            return Some(Stmt {
                kind,
                keyword: keyword_span,
                tokens: start..self.pos,
                last: self.previous_span(),
            });
        }
    }

    /// The name after a keyword.
    fn name(&mut self, what: &str) -> Option<Word> {
        match self.peek() {
            TokenKind::Word(w) if self.keyword().is_none() => {
                let word = Word {
                    text: w.clone(),
                    span: self.span(),
                };
                self.bump();
                Some(word)
            }
            other => {
                let span = self.span();
                let d = Diagnostic::error(
                    span,
                    format!(
                        "expected the name of the {what}, found {}",
                        other.describe()
                    ),
                )
                .label("the name is missing");
                self.error(d);
                None
            }
        }
    }

    /// Expects `;` at the end of a statement.
    fn semicolon(&mut self, what: &str) {
        if *self.peek() == TokenKind::Semi {
            self.bump();
            return;
        }
        let at = self.after_previous();
        let found = self.peek().describe();
        let d = Diagnostic::error(at, format!("`;` missing at the end of the {what}"))
            .label(format!("expected `;` here, found {found}"));
        self.error(d);
        if !self.at_boundary() && !self.at_miscased_keyword() {
            self.recover();
        }
    }

    fn pattern(&mut self) -> PatternStmt {
        let name = self.name("pattern");
        let mut stmt = PatternStmt {
            name,
            and: Vec::new(),
            or: Vec::new(),
        };
        for which in ["AND", "OR"] {
            if *self.peek() != TokenKind::LBrace {
                let at = self.span();
                let found = self.peek().describe();
                let d = Diagnostic::error(at, format!("expected `{{` opening the {which}-list, found {found}"))
                    .label("`{` expected")
                    .note("a pattern has two lists in braces, both required: `pattern NAME { AND-list } { OR-list };`");
                self.error(d);
                if !self.at_boundary() {
                    self.recover();
                }
                return stmt;
            }
            let open = self.span();
            self.bump();
            let (items, closed) = self.pattern_items(open);
            if which == "AND" {
                stmt.and = items;
            } else {
                stmt.or = items;
            }
            if !closed {
                // Reported; the statement ends at its `;` if there is one.
                if *self.peek() == TokenKind::Semi {
                    self.bump();
                }
                return stmt;
            }
        }
        self.semicolon("pattern");
        stmt
    }

    /// The entries of one pattern list, after its `{`; consumes the `}`.
    /// The flag says whether the list was closed.
    fn pattern_items(&mut self, open: Span) -> (Vec<PatternItem>, bool) {
        let mut items = Vec::new();
        loop {
            let start = self.span();
            let negated = *self.peek() == TokenKind::Bang;
            if negated {
                self.bump();
            }
            match self.peek() {
                TokenKind::RBrace if !negated => {
                    self.bump();
                    return (items, true);
                }
                TokenKind::Word(_) if self.keyword().is_none() => {
                    let test = self.test();
                    let span = start.to(self.previous_span());
                    items.push(PatternItem {
                        negated,
                        test,
                        span,
                    });
                }
                other => {
                    let at = self.span();
                    let found = other.describe();
                    if self.at_boundary() || matches!(other, TokenKind::Semi) {
                        let d = Diagnostic::error(at, format!("`}}` missing, found {found}"))
                            .label("the list is not closed")
                            .secondary(open, "the list opens here");
                        self.error(d);
                        return (items, false);
                    }
                    let what = if negated {
                        "a function or pattern name after `!`"
                    } else {
                        "a function, a pattern name or `}`"
                    };
                    let d = Diagnostic::error(at, format!("expected {what}, found {found}"))
                        .label("not a pattern entry");
                    self.error(d);
                    if *other != TokenKind::RBrace {
                        self.bump();
                    }
                }
            }
        }
    }

    fn previous_span(&self) -> Span {
        self.pos
            .checked_sub(1)
            .and_then(|i| self.tokens.get(i))
            .map_or_else(|| self.span(), |t| t.span)
    }

    /// A word at the cursor: a call when `(` follows (or when the word is a
    /// function name), else a name.
    fn test(&mut self) -> Test {
        match self.call_or_name() {
            Ok(call) => Test::Call(call),
            Err(word) => Test::Name(word),
        }
    }

    fn call_or_name(&mut self) -> Result<Call, Word> {
        let TokenKind::Word(text) = self.peek() else {
            return Err(Word {
                text: String::new(),
                span: self.span(),
            });
        };
        let name = Word {
            text: text.clone(),
            span: self.span(),
        };
        self.bump();
        if *self.peek() == TokenKind::LParen {
            self.bump();
            return Ok(self.arguments(name));
        }
        if functions::by_name(&name.text).is_none() {
            return Err(name);
        }
        // A function without parentheses: take the literals that follow as
        // its arguments, so that they bring no errors of their own.
        let mut args = Vec::new();
        while let TokenKind::Word(w) = self.peek() {
            if literal::classify(w).is_err() {
                break;
            }
            args.push(Word {
                text: w.clone(),
                span: self.span(),
            });
            self.bump();
        }
        let span = args.last().map_or(name.span, |a| name.span.to(a.span));
        let d = Diagnostic::error(
            name.span,
            format!("`{}` needs its arguments in parentheses", name.text),
        )
        .label("`(` expected after the function name")
        .help(format!(
            "write `{}({})`",
            name.text,
            args.iter()
                .map(|a| a.text.as_str())
                .collect::<Vec<_>>()
                .join(" ")
        ));
        self.error(d);
        Ok(Call { name, args, span })
    }

    /// The arguments after `(`; consumes the `)`.
    fn arguments(&mut self, name: Word) -> Call {
        let open = self.previous_span();
        let mut args = Vec::new();
        loop {
            match self.peek() {
                TokenKind::RParen => {
                    let span = name.span.to(self.span());
                    self.bump();
                    return Call { name, args, span };
                }
                TokenKind::Word(w) if self.keyword().is_none() => {
                    args.push(Word {
                        text: w.clone(),
                        span: self.span(),
                    });
                    self.bump();
                }
                other => {
                    let at = self.span();
                    let found = other.describe();
                    let closing = matches!(
                        other,
                        TokenKind::Semi | TokenKind::RBrace | TokenKind::LBrace | TokenKind::Eof
                    ) || self.keyword().is_some();
                    if closing {
                        let d = Diagnostic::error(at, format!("`)` missing, found {found}"))
                            .label("the argument list is not closed")
                            .secondary(open, "it opens here");
                        self.error(d);
                        let span = name.span.to(self.previous_span());
                        return Call { name, args, span };
                    }
                    let d = Diagnostic::error(
                        at,
                        format!("expected an argument or `)`, found {found}"),
                    )
                    .label("not an argument");
                    self.error(d);
                    self.bump();
                }
            }
        }
    }

    fn advice(&mut self) -> AdviceStmt {
        let name = self.name("advice");
        let mut items = Vec::new();
        loop {
            match self.peek() {
                TokenKind::Semi => {
                    self.bump();
                    break;
                }
                _ if self.at_boundary() => {
                    self.semicolon("advice");
                    break;
                }
                TokenKind::Word(_) => match self.call_or_name() {
                    Ok(call) => items.push(AdviceItem::Call(call)),
                    Err(word) => items.push(AdviceItem::Name(word)),
                },
                TokenKind::LBrace => {
                    if let Some(guard) = self.guard() {
                        items.push(guard);
                    }
                }
                TokenKind::Bang => {
                    let at = self.span();
                    let d = Diagnostic::error(at, "`!` outside a guard")
                        .label("advices cannot be negated")
                        .help("a negated pattern guards the rest of an advice when written in braces: `{ !NAME }`");
                    self.error(d);
                    self.bump();
                }
                other => {
                    let at = self.span();
                    let found = other.describe();
                    let d = Diagnostic::error(
                        at,
                        format!("expected an advice function, an advice name, a guard `{{ NAME }}` or `;`, found {found}"),
                    )
                    .label("not an advice entry");
                    self.error(d);
                    self.bump();
                }
            }
        }
        AdviceStmt { name, items }
    }

    /// `{ [!] NAME }` in an advice.
    fn guard(&mut self) -> Option<AdviceItem> {
        let open = self.span();
        self.bump();
        let negated = *self.peek() == TokenKind::Bang;
        if negated {
            self.bump();
        }
        let mut name: Option<Word> = None;
        let mut extra = false;
        loop {
            match self.peek() {
                TokenKind::RBrace => {
                    let span = open.to(self.span());
                    self.bump();
                    return match name {
                        Some(name) => Some(AdviceItem::Guard {
                            negated,
                            name,
                            span,
                        }),
                        None => {
                            if !extra {
                                let d = Diagnostic::error(span, "a guard needs a pattern name")
                                    .label("empty guard")
                                    .help("write the pattern that must hold: `{ NAME }` or `{ !NAME }`");
                                self.error(d);
                            }
                            None
                        }
                    };
                }
                TokenKind::Word(w) if self.keyword().is_none() => {
                    let word_span = self.span();
                    let is_call =
                        *self.peek_at(1) == TokenKind::LParen || functions::by_name(w).is_some();
                    if is_call {
                        let call = self.call_or_name();
                        let text = match &call {
                            Ok(c) => format!("{}(...)", c.name.text),
                            Err(w) => w.text.clone(),
                        };
                        let d = Diagnostic::error(word_span, "a guard names a pattern, not a function")
                            .label("a function in a guard")
                            .help(format!(
                                "define a pattern for it, `pattern NAME {{ {text} }} {{ }};`, and write `{{ NAME }}`"
                            ));
                        self.error(d);
                        extra = true;
                        continue;
                    }
                    if name.is_some() {
                        let d = Diagnostic::error(word_span, "a guard holds one pattern name")
                            .label("a second name")
                            .help("to need several patterns, write one guard after the other: `{ A } { B }`");
                        self.error(d);
                        extra = true;
                    } else {
                        name = Some(Word {
                            text: w.clone(),
                            span: word_span,
                        });
                    }
                    self.bump();
                }
                other => {
                    let at = self.span();
                    let found = other.describe();
                    if self.at_boundary() || matches!(other, TokenKind::Semi | TokenKind::LBrace) {
                        let d = Diagnostic::error(at, format!("`}}` missing, found {found}"))
                            .label("the guard is not closed")
                            .secondary(open, "the guard opens here");
                        self.error(d);
                        return None;
                    }
                    let d = Diagnostic::error(
                        at,
                        format!("expected a pattern name or `}}`, found {found}"),
                    )
                    .label("not allowed in a guard");
                    self.error(d);
                    extra = true;
                    self.bump();
                }
            }
        }
    }

    fn rule(&mut self) -> RuleStmt {
        let name = self.name("rule");
        let mut stmt = RuleStmt {
            name,
            patterns: Vec::new(),
            advices: Vec::new(),
        };
        if *self.peek() != TokenKind::LBrace {
            let at = self.span();
            let found = self.peek().describe();
            let d = Diagnostic::error(at, format!("expected `{{` opening the rule's pattern list, found {found}"))
                .label("`{` expected")
                .note("a rule lists its patterns in braces, then its advices: `rule NAME { PATTERNS } ADVICES;` (the braces may be empty)");
            self.error(d);
            if !self.at_boundary() {
                self.recover();
            }
            return stmt;
        }
        let open = self.span();
        self.bump();
        loop {
            match self.peek() {
                TokenKind::RBrace => {
                    self.bump();
                    break;
                }
                TokenKind::Word(w) if self.keyword().is_none() => {
                    let word = Word {
                        text: w.clone(),
                        span: self.span(),
                    };
                    if let Some(d) = self.rule_call(&word, "pattern") {
                        self.error(d);
                    } else {
                        self.bump();
                        stmt.patterns.push(word);
                    }
                }
                TokenKind::Bang => {
                    let at = self.span();
                    let d = Diagnostic::error(at, "a rule cannot negate a pattern")
                        .label("`!` in a rule")
                        .help("define a pattern with the negation, `pattern notP { !P } { };`, and name it in the rule");
                    self.error(d);
                    self.bump();
                }
                other => {
                    let at = self.span();
                    let found = other.describe();
                    if self.at_boundary() || matches!(other, TokenKind::Semi) {
                        let d = Diagnostic::error(at, format!("`}}` missing, found {found}"))
                            .label("the pattern list is not closed")
                            .secondary(open, "it opens here");
                        self.error(d);
                        if *self.peek() == TokenKind::Semi {
                            self.bump();
                        }
                        return stmt;
                    }
                    let d = Diagnostic::error(
                        at,
                        format!("expected a pattern name or `}}`, found {found}"),
                    )
                    .label("not a pattern name");
                    self.error(d);
                    self.bump();
                }
            }
        }
        loop {
            match self.peek() {
                TokenKind::Semi => {
                    self.bump();
                    break;
                }
                _ if self.at_boundary() => {
                    self.semicolon("rule");
                    break;
                }
                TokenKind::Word(w) => {
                    let word = Word {
                        text: w.clone(),
                        span: self.span(),
                    };
                    if let Some(d) = self.rule_call(&word, "advice") {
                        self.error(d);
                    } else {
                        self.bump();
                        stmt.advices.push(word);
                    }
                }
                other => {
                    let at = self.span();
                    let found = other.describe();
                    let d = Diagnostic::error(
                        at,
                        format!("expected an advice name or `;`, found {found}"),
                    )
                    .label("a rule lists advice names after its patterns");
                    self.error(d);
                    self.bump();
                }
            }
        }
        stmt
    }

    /// When the word at the cursor is a function (called or not), reads the
    /// call and returns the error: rules list names only.
    fn rule_call(&mut self, word: &Word, what: &str) -> Option<Diagnostic> {
        let called = *self.peek_at(1) == TokenKind::LParen;
        if !called && functions::by_name(&word.text).is_none() {
            return None;
        }
        let call = if called {
            self.bump();
            self.bump();
            self.arguments(word.clone())
        } else {
            self.bump();
            Call {
                name: word.clone(),
                args: Vec::new(),
                span: word.span,
            }
        };
        let text = self_text(&call);
        Some(
            Diagnostic::error(
                call.span,
                format!("a rule lists {what} names, not functions"),
            )
            .label("a function in a rule")
            .help(format!(
                "define {} {what} for it, `{what} NAME {};`, and name it in the rule",
                if what == "advice" { "an" } else { "a" },
                if what == "advice" {
                    text
                } else {
                    format!("{{ {text} }} {{ }}")
                }
            )),
        )
    }
}

fn self_text(call: &Call) -> String {
    let args: Vec<&str> = call.args.iter().map(|a| a.text.as_str()).collect();
    format!("{}({})", call.name.text, args.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lexer::lex;
    use crate::source::FileId;

    fn parse_text(text: &str) -> (Program, Vec<Diagnostic>) {
        let mut diags = Diagnostics::default();
        let mut tokens = lex(FileId(0), text, &mut diags).tokens;
        tokens.push(Token {
            kind: TokenKind::Eof,
            span: Span::new(FileId(0), text.len(), text.len()),
        });
        let program = parse(&tokens, &mut diags);
        (program, diags.into_vec())
    }

    #[test]
    fn the_three_statements() {
        let (p, d) = parse_text(
            "pattern wCstld { piecesqrs(wK g1 c1) !wpwns(e4) } { };\n\
             advice wFrench.03 wFrench.01 { wCstld } wpwnmvs(d4c5) goodsqrs(wN d4);\n\
             rule r1 { wCstld } wFrench.03;",
        );
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(p.stmts.len(), 3);
        let StmtKind::Pattern(pat) = &p.stmts[0].kind else {
            panic!()
        };
        assert_eq!(pat.and.len(), 2);
        assert!(pat.and[1].negated);
        assert!(pat.or.is_empty());
        let StmtKind::Advice(adv) = &p.stmts[1].kind else {
            panic!()
        };
        assert_eq!(adv.items.len(), 4);
        assert!(
            matches!(&adv.items[1], AdviceItem::Guard { negated: false, name, .. } if name.text == "wCstld")
        );
        let StmtKind::Rule(rule) = &p.stmts[2].kind else {
            panic!()
        };
        assert_eq!(rule.patterns.len(), 1);
        assert_eq!(rule.advices[0].text, "wFrench.03");
    }

    #[test]
    fn a_missing_semicolon_is_found_at_the_next_keyword() {
        let (p, d) = parse_text("advice a goodsqrs(wN d4)\nrule r { } a;");
        assert_eq!(p.stmts.len(), 2);
        assert_eq!(d.len(), 1);
        assert!(d[0].message.contains("`;` missing"));
    }

    #[test]
    fn keyword_case() {
        let (p, d) = parse_text("Pattern p { } { };");
        assert_eq!(p.stmts.len(), 1);
        assert_eq!(d.len(), 1);
        assert!(d[0].notes[0].contains("`pattern`"));
    }
}
