//! The converter: a checked Che program as readable Che++.
//!
//! Che++ 1.1 calls converting Che code "routine work"; this module does it.
//! The output includes `stdlib.che` and has
//!
//! - one `function` per pattern, returning its AND-list joined by `and`
//!   (and the OR-list, in parentheses, joined by `or`);
//! - one `procedure` per advice, a statement per entry: a call of the
//!   standard library's wrapper where one has the bonus (`GoodSqrs`,
//!   `BadMvs`, ...), else of the intrinsic with a named bonus; a guard is
//!   `if !P() then return; end;`;
//! - `main()`, running the rules in order, each an `if` over its patterns;
//! - only the helpers used: the constants `STRONGMVBONUS` and `BADMVMALUS`
//!   for strong and bad moves, and `IsEndgame()` with its list.
//!
//! Every definition is preceded by the comments that stood before it in
//! the Che source and by the Che statement itself, as a comment, so the two
//! programs can be read side by side. What each Che function becomes comes
//! from [`crate::lower`], the plan the code generator follows too, so the
//! converted program writes the same advice table as the direct
//! compilation (the test suite checks it on generated programs).

use crate::ast::{self, AdviceItem, StmtKind, Test};
use crate::hir::*;
use crate::lower::{self, Bonus, Check, Effect, IArg, Intr, Scalar};
use crate::names::Names;
use crate::source::{SourceMap, Span};
use cvm_chess::lit::{self, LitKind};

/// Comment lines longer than this are wrapped between entries.
const WIDTH: usize = 96;

/// The standard library's wrappers: an intrinsic with this bonus is
/// written as the wrapper, without the bonus argument.
const WRAPPERS: &[(&str, Bonus, &str)] = &[
    ("SetSqrs", Bonus::GoodSquare, "GoodSqrs"),
    ("SetSqrs", Bonus::BadSquare, "BadSqrs"),
    ("SetMvs", Bonus::GoodMove, "GoodMvs"),
    ("SetMvs", Bonus::WeakMove, "BadMvs"),
    ("KeepPcs", Bonus::Keep, "KeepPieces"),
    ("KeepPcs", Bonus::Trade, "TradePieces"),
    ("KeepBs", Bonus::Keep, "KeepBishops"),
    ("KeepBs", Bonus::Trade, "TradeBishops"),
    ("SetDiags", Bonus::Line, "GoodDiags"),
    ("CtrlSqrs", Bonus::Control, "ControlSqrs"),
];

/// The Che++ name of a bonus: a `stdlib.che` constant or a helper.
pub fn bonus_name(b: Bonus) -> &'static str {
    match b {
        Bonus::GoodMove => "CHE_MVBONUS",
        Bonus::StrongMove => "STRONGMVBONUS",
        Bonus::WeakMove => "CHE_MVMALUS",
        Bonus::BadMove => "BADMVMALUS",
        Bonus::GoodSquare => "CHE_SQRBONUS",
        Bonus::BadSquare => "CHE_SQRMALUS",
        Bonus::Keep => "CHE_PCBONUS",
        Bonus::Trade => "CHE_PCMALUS",
        Bonus::Line => "CHE_DIAGBONUS",
        Bonus::Control => "CHE_CTRLBONUS",
    }
}

/// The Che++ spelling of a chess value of a kind.
pub fn spell(kind: LitKind, v: i32) -> String {
    let name = |names: &[&str], base: i32| {
        usize::try_from(v - base)
            .ok()
            .and_then(|i| names.get(i).copied())
            .unwrap_or("?")
            .to_string()
    };
    match kind {
        LitKind::Square => lit::square_name(v).unwrap_or_default(),
        LitKind::Move => lit::split_move(v)
            .map(|(f, t)| {
                format!(
                    "{}{}",
                    lit::square_name(f).unwrap_or_default(),
                    lit::square_name(t).unwrap_or_default()
                )
            })
            .unwrap_or_default(),
        LitKind::Colour => name(&["w", "b", "?"], 0),
        LitKind::Piece => lit::split_piece(v)
            .map(|(c, k)| {
                let colour = ['w', 'b', '?'].get(c as usize).copied().unwrap_or('?');
                let kind = lit::KIND_NAMES.get(k as usize).copied().unwrap_or('?');
                format!("{colour}{kind}")
            })
            .unwrap_or_default(),
        LitKind::CompOp => name(&lit::COMPOP_NAMES, lit::COMPOP_BASE),
        LitKind::Column => name(
            &[
                "aline", "bline", "cline", "dline", "eline", "fline", "gline", "hline", ".line",
            ],
            lit::COLUMN_BASE,
        ),
        LitKind::Row => format!("row{}", v - lit::ROW_BASE + 1),
        LitKind::BoardSide => name(&lit::SIDE_NAMES, lit::SIDE_BASE),
        LitKind::SquareColour => name(&lit::SQCOLOR_NAMES, lit::SQCOLOR_BASE),
    }
}

fn scalar(s: Scalar) -> String {
    match s {
        Scalar::Lit(kind, v) => spell(kind, v),
        Scalar::Int(v) => v.to_string(),
        Scalar::Bonus(b) => bonus_name(b).to_string(),
    }
}

fn arg(a: &IArg) -> String {
    match a {
        IArg::Scalar(s) => scalar(*s),
        IArg::List(kind, values) => values
            .iter()
            .map(|&v| spell(*kind, v))
            .collect::<Vec<_>>()
            .join(" "),
    }
}

/// An intrinsic call as Che++; `wrap` uses the standard library's wrapper
/// where one fits.
fn call(c: &Intr, wrap: bool) -> String {
    if wrap {
        let bonus = c
            .args
            .iter()
            .position(|a| matches!(a, IArg::Scalar(Scalar::Bonus(_))));
        if let Some(at) = bonus {
            if let IArg::Scalar(Scalar::Bonus(b)) = c.args[at] {
                if let Some((_, _, wrapper)) =
                    WRAPPERS.iter().find(|(n, wb, _)| *n == c.name && *wb == b)
                {
                    let args: Vec<String> = c
                        .args
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| *i != at)
                        .map(|(_, a)| arg(a))
                        .collect();
                    return format!("{wrapper}({})", args.join(", "));
                }
            }
        }
    }
    let args: Vec<String> = c.args.iter().map(arg).collect();
    format!("{}({})", c.name, args.join(", "))
}

/// An expression and how tightly it binds.
#[derive(Clone, Debug)]
struct Expr {
    text: String,
    prec: u8,
}

const OR: u8 = 1;
const AND: u8 = 2;
const ATOM: u8 = 3;

fn atom(text: String) -> Expr {
    Expr { text, prec: ATOM }
}

fn not(e: Expr) -> Expr {
    if e.prec == ATOM {
        atom(format!("!{}", e.text))
    } else {
        atom(format!("!({})", e.text))
    }
}

/// Joins expressions with `and` or `or`, parenthesising looser ones.
fn join(items: Vec<Expr>, prec: u8) -> Expr {
    if items.len() <= 1 {
        return items
            .into_iter()
            .next()
            .unwrap_or_else(|| atom("CHE_TRUE".into()));
    }
    let word = if prec == AND { " and " } else { " or " };
    let parts: Vec<String> = items
        .into_iter()
        .map(|e| {
            if e.prec < prec {
                format!("({})", e.text)
            } else {
                e.text
            }
        })
        .collect();
    Expr {
        text: parts.join(word),
        prec,
    }
}

fn check_expr(c: &Check) -> Expr {
    match c {
        Check::Intr(i) => atom(call(i, false)),
        Check::Const(true) => atom("CHE_TRUE".into()),
        Check::Const(false) => atom("CHE_FALSE".into()),
        Check::Endgame => atom("IsEndgame()".into()),
        Check::All(cs) => join(cs.iter().map(check_expr).collect(), AND),
    }
}

/// What the converter has written and still needs.
struct Out<'a> {
    text: String,
    names: Names,
    program: &'a ast::Program,
    sources: &'a SourceMap,
    next_comment: usize,
    file: Option<crate::source::FileId>,
}

impl Out<'_> {
    fn line(&mut self, indent: usize, s: &str) {
        for _ in 0..indent {
            self.text.push_str("  ");
        }
        self.text.push_str(s);
        self.text.push('\n');
    }

    /// Writes the source comments that come before token `before`, and
    /// those right after it on the line of `last` (a statement's own
    /// trailing comment).
    fn comments_before(&mut self, before: usize, last: Option<Span>, indent: usize) {
        while let Some(c) = self.program.comments.get(self.next_comment) {
            let trailing = last.is_some_and(|l| {
                c.before_token == before
                    && c.span.file == l.file
                    && self.sources.line_col(c.span).0 == self.sources.line_col(l).0
            });
            if c.before_token >= before && !trailing {
                break;
            }
            let text = format!("#{}", c.text.trim_end());
            self.line(indent, &text);
            self.next_comment += 1;
        }
    }

    fn cond(&self, c: &Cond) -> Expr {
        let e = match &c.test {
            CondTest::Call(fc) => check_expr(&lower::check(fc)),
            CondTest::Pattern(p) => atom(format!("{}()", self.pattern_name(*p))),
        };
        if c.negated {
            not(e)
        } else {
            e
        }
    }

    fn pattern_name(&self, i: usize) -> &str {
        self.names
            .patterns
            .get(i)
            .map_or("CHE_TRUE", String::as_str)
    }

    fn advice_name(&self, i: usize) -> &str {
        self.names.advices.get(i).map_or("main", String::as_str)
    }

    fn effect(&mut self, e: &Effect, indent: usize) {
        match e {
            Effect::Intr(i) => {
                let text = format!("{};", call(i, true));
                self.line(indent, &text);
            }
            Effect::When(check, effects) => {
                let text = format!("if {} then", check_expr(check).text);
                self.line(indent, &text);
                for e in effects {
                    self.effect(e, indent + 1);
                }
                self.line(indent, "end;");
            }
        }
    }

    /// The Che statement as a comment, wrapped between its entries.
    fn che_comment(&mut self, stmt: &ast::Stmt, indent: usize) {
        let words = che_words(stmt);
        let mut line = String::from("# Che:");
        for w in words {
            if line.len() + 1 + w.len() > WIDTH && line.len() > 8 {
                let done = std::mem::replace(&mut line, String::from("#     "));
                self.line(indent, &done);
            }
            line.push(' ');
            line.push_str(&w);
        }
        self.line(indent, &line);
    }

    /// Notes which file a definition comes from when it changes.
    fn file_note(&mut self, stmt: &ast::Stmt, indent: usize) {
        let file = stmt.keyword.file;
        if self.file.is_some_and(|f| f != file) {
            let name = self.sources.get(file).map_or("", |f| f.name.as_str());
            let text = format!("# ---- from {name} ----");
            self.line(indent, &text);
        }
        self.file = Some(file);
    }
}

/// The Che statement in its canonical spelling, as words that may be
/// broken between lines.
fn che_words(stmt: &ast::Stmt) -> Vec<String> {
    fn call_text(c: &ast::Call) -> String {
        let args: Vec<&str> = c.args.iter().map(|a| a.text.as_str()).collect();
        format!("{}({})", c.name.text, args.join(" "))
    }
    fn item(i: &ast::PatternItem) -> String {
        let bang = if i.negated { "!" } else { "" };
        match &i.test {
            Test::Call(c) => format!("{bang}{}", call_text(c)),
            Test::Name(w) => format!("{bang}{}", w.text),
        }
    }
    fn braces(items: Vec<String>) -> Vec<String> {
        let mut out = vec!["{".to_string()];
        out.extend(items);
        out.push("}".to_string());
        out
    }
    let name = |n: &Option<ast::Word>| n.as_ref().map_or(String::new(), |w| w.text.clone());
    let mut words = Vec::new();
    match &stmt.kind {
        StmtKind::Pattern(p) => {
            words.push(format!("pattern {}", name(&p.name)));
            words.extend(braces(p.and.iter().map(item).collect()));
            words.extend(braces(p.or.iter().map(item).collect()));
        }
        StmtKind::Advice(a) => {
            words.push(format!("advice {}", name(&a.name)));
            for i in &a.items {
                words.push(match i {
                    AdviceItem::Call(c) => call_text(c),
                    AdviceItem::Name(w) => w.text.clone(),
                    AdviceItem::Guard { negated, name, .. } => {
                        format!("{{ {}{} }}", if *negated { "!" } else { "" }, name.text)
                    }
                });
            }
        }
        StmtKind::Rule(r) => {
            words.push(format!("rule {}", name(&r.name)));
            words.extend(braces(r.patterns.iter().map(|w| w.text.clone()).collect()));
            words.extend(r.advices.iter().map(|w| w.text.clone()));
        }
    }
    if let Some(last) = words.last_mut() {
        last.push(';');
    }
    words
}

/// Which helpers a program needs.
fn needs(p: &Checked) -> (bool, bool, bool) {
    let (mut strong, mut bad, mut endgame) = (false, false, false);
    fn visit_check(c: &Check, endgame: &mut bool) {
        match c {
            Check::Endgame => *endgame = true,
            Check::All(cs) => cs.iter().for_each(|c| visit_check(c, endgame)),
            _ => {}
        }
    }
    let conds = p.patterns.iter().flat_map(|x| x.and.iter().chain(&x.or));
    for c in conds {
        if let CondTest::Call(fc) = &c.test {
            visit_check(&lower::check(fc), &mut endgame);
        }
    }
    for a in &p.advices {
        for s in &a.steps {
            if let Step::Call(fc) = s {
                for e in lower::effects(fc) {
                    if let Effect::Intr(i) = e {
                        for a in &i.args {
                            match a {
                                IArg::Scalar(Scalar::Bonus(Bonus::StrongMove)) => strong = true,
                                IArg::Scalar(Scalar::Bonus(Bonus::BadMove)) => bad = true,
                                _ => {}
                            }
                        }
                    }
                }
            }
        }
    }
    (strong, bad, endgame)
}

/// Converts a checked program (one without errors) to Che++ source text.
pub fn convert(program: &ast::Program, checked: &Checked, sources: &SourceMap) -> String {
    let main_file = sources.files().first().map_or("", |f| f.name.as_str());
    let mut out = Out {
        text: String::new(),
        names: Names::new(checked),
        program,
        sources,
        next_comment: 0,
        file: None,
    };
    let shown = main_file.rsplit(['/', '\\']).next().unwrap_or(main_file);
    out.line(
        0,
        &format!("# Che++ converted from the Che program {shown} by `che convert`:"),
    );
    out.line(
        0,
        "# each pattern is a function, each advice a procedure, and main() runs",
    );
    out.line(0, "# the rules in program order.");
    out.line(0, "");
    out.line(0, "include stdlib.che");
    let (strong, bad, endgame) = needs(checked);
    if strong || bad {
        out.line(0, "");
        out.line(
            0,
            "# Strong moves are worth twice a good move, bad moves twice a weak one.",
        );
        if strong {
            out.line(0, "const STRONGMVBONUS := 2 * CHE_MVBONUS;");
        }
        if bad {
            out.line(0, "const BADMVMALUS := 2 * CHE_MVMALUS;");
        }
    }
    if endgame {
        out.line(0, "");
        out.line(
            0,
            "# Che's isendgame(): the pieces of both sides, pawns and kings not",
        );
        out.line(
            0,
            "# counted, are worth at most four rooks and two bishops.",
        );
        out.line(0, "list PieceSqrs[64];");
        out.line(0, "");
        out.line(0, "function IsEndgame()");
        out.line(0, "begin");
        let terms: Vec<String> = lower::ENDGAME_VALUES
            .iter()
            .map(|&(kind, value)| {
                format!(
                    "GetPcOnSqrs({}, PieceSqrs) * {value}",
                    spell(LitKind::Piece, lower::endgame_piece(kind))
                )
            })
            .collect();
        out.line(1, &format!("return {}", terms[..2].join(" + ")));
        out.line(
            2,
            &format!("+ {} <= {};", terms[2..].join(" + "), lower::ENDGAME_LIMIT),
        );
        out.line(0, "end;");
    }
    let mut rules = Vec::new();
    for &(def, stmt_index) in &checked.order {
        let Some(stmt) = program.stmts.get(stmt_index) else {
            continue;
        };
        match def {
            Def::Pattern(i) => {
                let Some(p) = checked.patterns.get(i) else {
                    continue;
                };
                out.line(0, "");
                out.file_note(stmt, 0);
                out.comments_before(stmt.tokens.end, Some(stmt.last), 0);
                out.che_comment(stmt, 0);
                let name = out.pattern_name(i).to_string();
                out.line(0, &format!("function {name}()"));
                out.line(0, "begin");
                let mut items: Vec<Expr> = p.and.iter().map(|c| out.cond(c)).collect();
                if !p.or.is_empty() {
                    items.push(join(p.or.iter().map(|c| out.cond(c)).collect(), OR));
                }
                let expr = if items.is_empty() {
                    atom("CHE_TRUE".into())
                } else {
                    join(items, AND)
                };
                out.line(1, &format!("return {};", expr.text));
                out.line(0, "end;");
            }
            Def::Advice(i) => {
                let Some(a) = checked.advices.get(i) else {
                    continue;
                };
                out.line(0, "");
                out.file_note(stmt, 0);
                out.comments_before(stmt.tokens.end, Some(stmt.last), 0);
                out.che_comment(stmt, 0);
                let name = out.advice_name(i).to_string();
                out.line(0, &format!("procedure {name}()"));
                out.line(0, "begin");
                for step in &a.steps {
                    match step {
                        Step::Call(fc) => {
                            for e in lower::effects(fc) {
                                out.effect(&e, 1);
                            }
                        }
                        Step::Advice(j, _) => {
                            let text = format!("{}();", out.advice_name(*j));
                            out.line(1, &text);
                        }
                        Step::Guard {
                            negated, pattern, ..
                        } => {
                            let test = format!(
                                "if {}{}() then",
                                if *negated { "" } else { "!" },
                                out.pattern_name(*pattern)
                            );
                            out.line(1, &test);
                            out.line(2, "return;");
                            out.line(1, "end;");
                        }
                    }
                }
                out.line(0, "end;");
            }
            Def::Rule(i) => rules.push((i, stmt_index)),
        }
    }
    out.line(0, "");
    out.line(0, "# The rules, in program order.");
    out.line(0, "procedure main()");
    out.line(0, "begin");
    for (i, stmt_index) in rules {
        let (Some(rule), Some(stmt)) = (checked.rules.get(i), program.stmts.get(stmt_index)) else {
            continue;
        };
        out.file_note(stmt, 1);
        out.comments_before(stmt.tokens.end, Some(stmt.last), 1);
        out.che_comment(stmt, 1);
        let calls: Vec<String> = rule
            .advices
            .iter()
            .map(|(a, _)| format!("{}();", out.advice_name(*a)))
            .collect();
        if rule.patterns.is_empty() {
            for c in &calls {
                out.line(1, c);
            }
            continue;
        }
        let test: Vec<Expr> = rule
            .patterns
            .iter()
            .map(|(p, _)| atom(format!("{}()", out.pattern_name(*p))))
            .collect();
        out.line(1, &format!("if {} then", join(test, AND).text));
        for c in &calls {
            out.line(2, c);
        }
        out.line(1, "end;");
    }
    out.line(0, "end;");
    if out.next_comment < program.comments.len() {
        out.line(0, "");
        out.comments_before(usize::MAX, None, 0);
    }
    out.text
}
