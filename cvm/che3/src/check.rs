//! The checker: names, kinds and arguments.
//!
//! Che is strongly typed in a small way: a pattern, an advice and a rule
//! are different things, every name must be defined before it is used
//! (the Nimzo 3 documentation speaks of "previously defined" patterns and
//! advices; this front end applies the same rule to rules), and every
//! argument of a function must be a chess literal of the kind the function
//! takes. Names share one space: a pattern and an advice cannot have the
//! same name.
//!
//! The checker reads the statements in order and reports every problem it
//! finds, each once: a statement with a bad part still defines its name,
//! so later uses of it are not errors too. It also warns about calls that
//! compile but cannot do anything (an empty list, a pawn ram on the eighth
//! row, a `gooddiags` move that is not a line). Its result, [`Checked`], is
//! used only when there is no error.

use crate::ast::{self, AdviceItem, StmtKind, Test, Word};
use crate::diag::{Diagnostic, Diagnostics};
use crate::functions::{self, Func, Role, Shape};
use crate::hir::*;
use crate::literal::{self, NotLiteral};
use crate::lower::{self, WhenEmpty};
use crate::parser;
use crate::source::{SourceMap, Span};
use cvm_chess::lit::{self as clit, LitKind};
use std::collections::HashMap;

/// The longest name (the CVM's names carry a prefix and stop at 255).
pub const MAX_NAME_LEN: usize = 200;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Kind {
    Pattern,
    Advice,
    Rule,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Pattern => "pattern",
            Kind::Advice => "advice",
            Kind::Rule => "rule",
        }
    }

    fn article(self) -> &'static str {
        match self {
            Kind::Advice => "an advice",
            Kind::Pattern => "a pattern",
            Kind::Rule => "a rule",
        }
    }
}

#[derive(Copy, Clone, Debug)]
struct Sym {
    kind: Kind,
    index: usize,
    stmt: usize,
    span: Span,
}

/// Checks a parsed program; errors and warnings go to `diags`.
pub fn check(program: &ast::Program, sources: &SourceMap, diags: &mut Diagnostics) -> Checked {
    let mut c = Checker {
        syms: HashMap::new(),
        diags,
        sources,
    };
    c.declare(program);
    let mut out = Checked::default();
    for (i, stmt) in program.stmts.iter().enumerate() {
        match &stmt.kind {
            StmtKind::Pattern(p) => {
                let pattern = Pattern {
                    name: name_text(&p.name),
                    span: name_span(&p.name, stmt.keyword),
                    and: p.and.iter().filter_map(|item| c.cond(item, i)).collect(),
                    or: p.or.iter().filter_map(|item| c.cond(item, i)).collect(),
                };
                out.order.push((Def::Pattern(out.patterns.len()), i));
                out.patterns.push(pattern);
            }
            StmtKind::Advice(a) => {
                let advice = Advice {
                    name: name_text(&a.name),
                    span: name_span(&a.name, stmt.keyword),
                    steps: a.items.iter().filter_map(|item| c.step(item, i)).collect(),
                };
                out.order.push((Def::Advice(out.advices.len()), i));
                out.advices.push(advice);
            }
            StmtKind::Rule(r) => {
                let rule = Rule {
                    name: name_text(&r.name),
                    span: name_span(&r.name, stmt.keyword),
                    patterns: r
                        .patterns
                        .iter()
                        .filter_map(|w| c.resolve(w, Kind::Pattern, i).map(|p| (p, w.span)))
                        .collect(),
                    advices: r
                        .advices
                        .iter()
                        .filter_map(|w| c.resolve(w, Kind::Advice, i).map(|a| (a, w.span)))
                        .collect(),
                };
                out.order.push((Def::Rule(out.rules.len()), i));
                out.rules.push(rule);
            }
        }
    }
    out
}

fn name_text(name: &Option<Word>) -> String {
    name.as_ref().map_or_else(String::new, |w| w.text.clone())
}

fn name_span(name: &Option<Word>, keyword: Span) -> Span {
    name.as_ref().map_or(keyword, |w| w.span)
}

/// Levenshtein distance, for "a similar name exists".
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The candidate closest to `name`, if it is close enough to be a typo.
fn closest<'a>(name: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (name.chars().count() / 3).max(1);
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        let d = distance(name, c);
        if d <= limit && best.is_none_or(|(b, _)| d < b) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

struct Checker<'a> {
    syms: HashMap<String, Sym>,
    diags: &'a mut Diagnostics,
    sources: &'a SourceMap,
}

impl Checker<'_> {
    fn err(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    /// Registers every name, in order, reporting bad and repeated names.
    fn declare(&mut self, program: &ast::Program) {
        let mut counts = [0usize; 3];
        for (i, stmt) in program.stmts.iter().enumerate() {
            let (kind, name) = match &stmt.kind {
                StmtKind::Pattern(p) => (Kind::Pattern, &p.name),
                StmtKind::Advice(a) => (Kind::Advice, &a.name),
                StmtKind::Rule(r) => (Kind::Rule, &r.name),
            };
            let index = counts[kind as usize];
            counts[kind as usize] += 1;
            let Some(name) = name else { continue };
            self.valid_name(name, kind);
            if let Some(first) = self.syms.get(&name.text).copied() {
                let d = Diagnostic::error(name.span, format!("`{}` is defined twice", name.text))
                    .label(format!("a second definition, as {}", kind.article()))
                    .secondary(
                        first.span,
                        format!("first defined here, as {}", first.kind.article()),
                    )
                    .note("patterns, advices and rules share one set of names");
                self.err(d);
                continue;
            }
            self.syms.insert(
                name.text.clone(),
                Sym {
                    kind,
                    index,
                    stmt: i,
                    span: name.span,
                },
            );
        }
    }

    fn valid_name(&mut self, name: &Word, kind: Kind) {
        let what = kind.name();
        if let Some(bad) = name
            .text
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || *c == '.'))
        {
            let d = Diagnostic::error(
                name.span,
                format!("`{}` is not a valid {what} name", name.text),
            )
            .label(format!("`{bad}` is not allowed in a name"))
            .note("names are made of letters, digits and dots, like `wFrench.01`");
            self.err(d);
        } else if let Some((lit_kind, _)) = literal::che_literal(&name.text) {
            let d = Diagnostic::error(
                name.span,
                format!(
                    "`{}` is a {} and cannot name {}",
                    name.text,
                    lit_kind.name(),
                    kind.article()
                ),
            )
            .label("a chess literal");
            self.err(d);
        } else if functions::by_name(&name.text).is_some() {
            let d = Diagnostic::error(
                name.span,
                format!(
                    "`{}` is a Che function and cannot name {}",
                    name.text,
                    kind.article()
                ),
            )
            .label("a function name");
            self.err(d);
        } else if name.text.len() > MAX_NAME_LEN {
            let d = Diagnostic::error(name.span, format!("the {what} name is too long")).label(
                format!("{} characters; at most {MAX_NAME_LEN}", name.text.len()),
            );
            self.err(d);
        }
    }

    /// The index of the definition `word` names, which must be of kind
    /// `want` and come before statement `at`.
    fn resolve(&mut self, word: &Word, want: Kind, at: usize) -> Option<usize> {
        let found = self.syms.get(&word.text).copied();
        if let (None, Some((lit_kind, _))) = (found, literal::che_literal(&word.text)) {
            let d = Diagnostic::error(
                word.span,
                format!(
                    "expected {} name, found the {} `{}`",
                    want.article(),
                    lit_kind.name(),
                    word.text
                ),
            )
            .label("a chess literal")
            .note("chess literals are arguments of functions, written in parentheses");
            self.err(d);
            return None;
        }
        let Some(sym) = found else {
            let mut d = Diagnostic::error(
                word.span,
                format!("cannot find {} `{}`", want.name(), word.text),
            )
            .label("not defined");
            let same_kind: Vec<&str> = self
                .syms
                .iter()
                .filter(|(_, s)| s.kind == want)
                .map(|(n, _)| n.as_str())
                .collect();
            let mut sorted = same_kind;
            sorted.sort_unstable();
            if let Some(best) = closest(&word.text, sorted.into_iter()) {
                d = d.help(format!(
                    "{} with a similar name exists: `{best}`",
                    want.article()
                ));
            } else if let Some(f) = functions::by_name(&word.text) {
                d = d.help(format!(
                    "`{}` is a function: write it with its arguments",
                    f.name
                ));
            }
            self.err(d);
            return None;
        };
        if sym.kind != want {
            let mut d = Diagnostic::error(
                word.span,
                format!(
                    "`{}` is {}, not {}",
                    word.text,
                    sym.kind.article(),
                    want.article()
                ),
            )
            .label(format!("{} is expected here", want.article()))
            .secondary(sym.span, format!("defined here as {}", sym.kind.article()));
            d = match (want, sym.kind) {
                (Kind::Advice, Kind::Pattern) => d.help(format!(
                    "a pattern in an advice is a guard, written in braces: `{{ {} }}`",
                    word.text
                )),
                (_, Kind::Rule) => d.note("rules run by themselves; no statement can name one"),
                _ => d.note("patterns test the position; advices give the advice"),
            };
            self.err(d);
            return None;
        }
        if sym.stmt == at {
            let d = Diagnostic::error(
                word.span,
                format!("{} `{}` cannot use itself", want.name(), word.text),
            )
            .label("its own name")
            .note(format!(
                "a {} can only use {}s defined before it",
                want.name(),
                want.name()
            ));
            self.err(d);
            return None;
        }
        if sym.stmt > at {
            let (line, _) = self.sources.line_col(sym.span);
            let d = Diagnostic::error(
                word.span,
                format!(
                    "{} `{}` is used before its definition",
                    want.name(),
                    word.text
                ),
            )
            .label("not defined yet")
            .secondary(sym.span, format!("defined here, in line {line}"))
            .note("Che needs every pattern and advice defined before it is used");
            self.err(d);
            return None;
        }
        Some(sym.index)
    }

    fn cond(&mut self, item: &ast::PatternItem, at: usize) -> Option<Cond> {
        let test = match &item.test {
            Test::Call(call) => CondTest::Call(self.call(call, Role::Pattern, at)?),
            Test::Name(word) => CondTest::Pattern(self.resolve(word, Kind::Pattern, at)?),
        };
        Some(Cond {
            negated: item.negated,
            test,
            span: item.span,
        })
    }

    fn step(&mut self, item: &AdviceItem, at: usize) -> Option<Step> {
        match item {
            AdviceItem::Call(call) => Some(Step::Call(self.call(call, Role::Advice, at)?)),
            AdviceItem::Name(word) => Some(Step::Advice(
                self.resolve(word, Kind::Advice, at)?,
                word.span,
            )),
            AdviceItem::Guard {
                negated,
                name,
                span,
            } => Some(Step::Guard {
                negated: *negated,
                pattern: self.resolve(name, Kind::Pattern, at)?,
                span: *span,
            }),
        }
    }

    fn call(&mut self, call: &ast::Call, role: Role, at: usize) -> Option<FnCall> {
        let name = &call.name.text;
        let Some(info) = functions::by_name(name) else {
            let d = match self.syms.get(name).copied() {
                Some(sym) => Diagnostic::error(
                    call.name.span,
                    format!("`{name}` is {}, not a function", sym.kind.article()),
                )
                .label("called with arguments")
                .secondary(sym.span, format!("defined here as {}", sym.kind.article()))
                .help(format!("name {} without parentheses", sym.kind.article())),
                None => {
                    let mut d =
                        Diagnostic::error(call.name.span, format!("unknown function `{name}`"))
                            .label("not a Che function");
                    let candidates = functions::FUNCTIONS
                        .iter()
                        .filter(|f| f.role == role)
                        .map(|f| f.name);
                    let other = functions::OTHER_SPELLINGS.iter().find(|(o, _)| o == name);
                    if let Some((_, real)) = other {
                        d = d.note(format!(
                            "the examples of the Nimzo 3 documentation write `{name}`; the function is `{real}`"
                        ));
                    } else if let Some(best) = closest(name, candidates) {
                        d = d.help(format!("a function with a similar name exists: `{best}`"));
                    }
                    d
                }
            };
            self.err(d);
            let _ = at;
            return None;
        };
        let args = self.arguments(call, info.func, info.shape);
        if info.role != role {
            let d = match role {
                Role::Advice => Diagnostic::error(
                    call.name.span,
                    format!("`{name}` is a pattern function and cannot stand in an advice"),
                )
                .label("a pattern function")
                .help("test it in a pattern and guard the advice with that pattern: `{ NAME }`"),
                Role::Pattern => Diagnostic::error(
                    call.name.span,
                    format!("`{name}` is an advice function and cannot stand in a pattern"),
                )
                .label("an advice function")
                .note("patterns only test the position; rules run the advices"),
            };
            self.err(d);
            return None;
        }
        let call = args?;
        self.warnings(&call);
        Some(call)
    }

    /// Checks the arguments against the function's shape.
    fn arguments(&mut self, call: &ast::Call, func: Func, shape: Shape) -> Option<FnCall> {
        let name = func.name();
        let mut out = FnCall {
            func,
            piece: None,
            list: Vec::new(),
            span: call.span,
        };
        let mut ok = true;
        let args = &call.args;
        match shape {
            Shape::Nothing => {
                if let (Some(first), Some(last)) = (args.first(), args.last()) {
                    let d = Diagnostic::error(
                        first.span.to(last.span),
                        format!("`{name}` takes no arguments"),
                    )
                    .label(count(args.len(), "argument"))
                    .help(format!("write `{name}()`"));
                    self.err(d);
                    ok = false;
                }
            }
            Shape::Side => {
                match args.first() {
                    None => {
                        let d =
                            Diagnostic::error(call.span, format!("`{name}` needs a board side"))
                                .label("no argument")
                                .note(format!(
                                    "the board sides: {}",
                                    literal::spellings(LitKind::BoardSide)
                                ));
                        self.err(d);
                        ok = false;
                    }
                    Some(first) => {
                        match self.arg(name, first, LitKind::BoardSide, "a board side") {
                            Some(a) => out.list.push(a),
                            None => ok = false,
                        }
                    }
                }
                if let (Some(second), Some(last)) = (args.get(1), args.last()) {
                    let d = Diagnostic::error(
                        second.span.to(last.span),
                        format!("`{name}` takes one board side"),
                    )
                    .label(format!("{} too many", count(args.len() - 1, "argument")));
                    self.err(d);
                    ok = false;
                }
            }
            Shape::List(kind) => {
                for a in args {
                    match self.arg(name, a, kind, &literal::plural(kind)) {
                        Some(a) => out.list.push(a),
                        None => ok = false,
                    }
                }
            }
            Shape::PieceList(kind) => {
                let mut rest: &[Word] = args;
                match args.first() {
                    None => {
                        let d = Diagnostic::error(
                            call.span,
                            format!("`{name}` needs a piece, then {}", literal::plural(kind)),
                        )
                        .label("no argument");
                        self.err(d);
                        ok = false;
                    }
                    Some(first) => match literal::classify(&first.text) {
                        Ok((LitKind::Piece, value)) => {
                            out.piece = Some(Arg {
                                kind: LitKind::Piece,
                                value,
                                span: first.span,
                            });
                            rest = &args[1..];
                        }
                        Ok((found, _)) if found == kind => {
                            // The piece written later, or not at all.
                            let later = args.iter().position(|a| {
                                matches!(literal::classify(&a.text), Ok((LitKind::Piece, _)))
                            });
                            let mut order: Vec<&str> =
                                args.iter().map(|a| a.text.as_str()).collect();
                            let (label, help) = match later {
                                Some(at) => {
                                    let piece = order.remove(at);
                                    order.insert(0, piece);
                                    (
                                        "the piece comes later",
                                        format!("write `{name}({})`", order.join(" ")),
                                    )
                                }
                                None => (
                                    "no piece",
                                    format!(
                                        "write the piece first: `{name}(wN {})`",
                                        order.join(" ")
                                    ),
                                ),
                            };
                            let d = Diagnostic::error(
                                first.span,
                                format!(
                                    "`{name}` expects a piece first, found the {} `{}`",
                                    found.name(),
                                    first.text
                                ),
                            )
                            .label(label)
                            .help(help);
                            self.err(d);
                            ok = false;
                            if let Some(at) = later {
                                // The other arguments, without the piece.
                                for (i, a) in args.iter().enumerate() {
                                    if i != at {
                                        let _ = self.arg(name, a, kind, &literal::plural(kind));
                                    }
                                }
                                rest = &[];
                            }
                        }
                        _ => {
                            // Not a piece (`arg` says why); the other
                            // arguments are checked on their own.
                            let _ = self.arg(name, first, LitKind::Piece, "a piece first");
                            ok = false;
                            rest = &args[1..];
                        }
                    },
                }
                for a in rest {
                    match self.arg(name, a, kind, &literal::plural(kind)) {
                        Some(a) => out.list.push(a),
                        None => ok = false,
                    }
                }
            }
        }
        ok.then_some(out)
    }

    /// One argument, which must be a Che literal of kind `want`.
    fn arg(&mut self, func: &str, word: &Word, want: LitKind, what: &str) -> Option<Arg> {
        let text = &word.text;
        let d = match literal::classify(text) {
            Ok((kind, value)) if kind == want => {
                return Some(Arg {
                    kind,
                    value,
                    span: word.span,
                })
            }
            Ok((kind, _)) => Diagnostic::error(
                word.span,
                format!(
                    "`{func}` expects {what}, found the {} `{text}`",
                    kind.name()
                ),
            )
            .label(format!("a {}, not a {}", kind.name(), want.name()))
            .note(format!(
                "Che's {}: {}",
                literal::plural(want),
                literal::spellings(want)
            )),
            Err(NotLiteral::Case { kind, spelling }) => {
                let message = if kind == LitKind::Square {
                    format!("squares are written in lower case: `{text}` is not a square")
                } else {
                    format!("`{text}` is not a {}: Che is case sensitive", kind.name())
                };
                Diagnostic::error(word.span, message)
                    .label("wrong letter case")
                    .help(format!("write `{spelling}`"))
            }
            Err(NotLiteral::ChePlusPlus(kind)) => {
                let wildcard = matches!(kind, LitKind::Square | LitKind::Move | LitKind::Piece);
                let d = Diagnostic::error(
                    word.span,
                    format!(
                        "`{text}` is a Che++ {}{}, which Che does not have",
                        kind.name(),
                        if wildcard { " with a wildcard" } else { "" }
                    ),
                )
                .label(format!("expected {what}"));
                if kind == LitKind::Colour {
                    d.note("Che has no colour words: the piece, or the `w`/`b` at the start of the function's name, gives the side")
                } else {
                    d.note(format!(
                        "Che's {}: {}",
                        literal::plural(want),
                        literal::spellings(want)
                    ))
                }
            }
            Err(NotLiteral::Unknown) => {
                let mut d = Diagnostic::error(
                    word.span,
                    format!("`{func}` expects {what}, found `{text}`"),
                )
                .label(format!("not a {}", want.name()));
                if let Some(sym) = self.syms.get(text) {
                    d = d.note(format!(
                        "`{text}` is {}; the arguments of a function are chess literals",
                        sym.kind.article()
                    ));
                } else {
                    d = d.note(format!(
                        "Che's {}: {}",
                        literal::plural(want),
                        literal::spellings(want)
                    ));
                }
                d
            }
        };
        self.err(d);
        None
    }

    /// Warnings about calls that compile but cannot do anything.
    fn warnings(&mut self, call: &FnCall) {
        let name = call.func.name();
        if call.list.is_empty() {
            let says = match lower::when_empty(call.func) {
                Some(WhenEmpty::Holds) => "always holds",
                Some(WhenEmpty::Fails) => "never holds",
                Some(WhenEmpty::Nothing) => "does nothing",
                None => return,
            };
            let d = Diagnostic::warning(call.span, format!("`{name}` with an empty list {says}"))
                .label("nothing listed");
            self.err(d);
            return;
        }
        match call.func {
            Func::Pwnrams => {
                for a in call.list.iter().filter(|a| a.value >= 56) {
                    let sq = clit::square_name(a.value).unwrap_or_default();
                    let d = Diagnostic::warning(a.span, format!("no pawn ram can stand on `{sq}`"))
                        .label("a white pawn here has no square in front of it")
                        .note("this `pwnrams` never holds");
                    self.err(d);
                }
            }
            Func::Wpwnmvs
            | Func::Bpwnmvs
            | Func::Goodmvs
            | Func::Strongmvs
            | Func::Weakmvs
            | Func::Badmvs
            | Func::Gooddiags => {
                for a in &call.list {
                    let Some((from, to)) = clit::split_move(a.value) else {
                        continue;
                    };
                    let text = self.sources.text(a.span);
                    if from == to {
                        let d = Diagnostic::warning(a.span, format!("`{text}` moves nowhere"))
                            .label("the same square twice")
                            .note("it gives no bonus");
                        self.err(d);
                    } else if call.func == Func::Gooddiags
                        && cvm_chess::sets::line_segment(from, to).is_none()
                    {
                        let d = Diagnostic::warning(a.span, format!("`{text}` is not a line"))
                            .label("the squares are not on one diagonal, row or column")
                            .note("it is ignored at run time and gives no bonus");
                        self.err(d);
                    }
                }
            }
            _ => {}
        }
    }
}

fn count(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

/// Whether `word` could name a pattern, advice or rule (used by the
/// converter's tests and the generator): letters, digits and dots, not a
/// keyword, a function name or a Che literal, at most [`MAX_NAME_LEN`]
/// characters.
pub fn is_valid_name(word: &str) -> bool {
    !word.is_empty()
        && word.len() <= MAX_NAME_LEN
        && word.chars().all(|c| c.is_ascii_alphanumeric() || c == '.')
        && !parser::is_keyword(word)
        && functions::by_name(word).is_none()
        && literal::che_literal(word).is_none()
}
