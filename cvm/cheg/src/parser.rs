//! From source lines to a checked [`Program`]: ENTRY lines, tags,
//! instructions with their arguments resolved against the tables, and
//! every independent error as a diagnostic.
//!
//! Checks made here: unknown instructions, conditions and orderings; the
//! number of arguments; literals that do not parse; a literal or a
//! predefined variable where a variable is written; undefined and doubly
//! defined tags; and the type errors the manual implies where the kind of
//! an argument is known before running (a literal or a predefined
//! variable: `SQUARE A,LM` gives "a set where a square ... is needed").

use crate::ast::{
    Arg, CondRef, Entry, Literal, Operand, OrderRef, PawnDiff, Program, SideMaterial, Statement,
    Tag,
};
use crate::lexer::{self, Line, Piece};
use crate::table::{Cond, Instr, Known, Need, Order, Predefined, Slot, ENTRY_PIECES};
use cvm_frontend::source::{FileId, Span};
use cvm_frontend::Diagnostic;
use std::collections::HashMap;

/// Parses `text` (file `file` of the source map) into a program; problems
/// go to `diags`. The program is complete only when no error was pushed.
pub fn parse(file: FileId, text: &str, diags: &mut Vec<Diagnostic>) -> Program {
    let mut p = Parser {
        file,
        diags,
        program: Program::default(),
        tag_index: HashMap::new(),
        var_index: HashMap::new(),
        lit_index: HashMap::new(),
        tag_uses: Vec::new(),
        pending_tags: Vec::new(),
    };
    let mut ended = false;
    for line in lexer::lines(text) {
        if p.line(&line) {
            ended = true;
            break;
        }
    }
    let end_at = text.len();
    for index in std::mem::take(&mut p.pending_tags) {
        if let Some(tag) = p.program.tags.get_mut(index) {
            tag.target = Some(p.program.statements.len());
        }
    }
    if !ended {
        p.diags.push(
            Diagnostic::warning(
                Span::new(file, end_at, end_at),
                "the program has no END line",
            )
            .label("END expected here")
            .note("the original reader stopped at END; the program is taken to end here"),
        );
    }
    for (index, span) in std::mem::take(&mut p.tag_uses) {
        if let Some(tag) = p.program.tags.get(index) {
            if tag.span.is_none() {
                let name = tag.name.clone();
                p.diags.push(
                    Diagnostic::error(span, format!("undefined tag `{name}`"))
                        .label("no line is tagged with this name"),
                );
            }
        }
    }
    p.program
}

struct Parser<'d> {
    file: FileId,
    diags: &'d mut Vec<Diagnostic>,
    program: Program,
    tag_index: HashMap<String, usize>,
    var_index: HashMap<String, usize>,
    lit_index: HashMap<Literal, usize>,
    tag_uses: Vec<(usize, Span)>,
    /// Tags defined on lines without an instruction: they name the next one.
    pending_tags: Vec<usize>,
}

impl Parser<'_> {
    fn span(&self, piece: &Piece<'_>) -> Span {
        Span::new(self.file, piece.range.start, piece.range.end)
    }

    fn error(&mut self, span: Span, message: impl Into<String>, label: impl Into<String>) {
        self.diags
            .push(Diagnostic::error(span, message).label(label));
    }

    /// Handles one line; true at END.
    fn line(&mut self, line: &Line<'_>) -> bool {
        if let Some(tag) = &line.tag {
            self.define_tag(tag);
        }
        let Some(word) = &line.word else {
            return false;
        };
        match word.text {
            "END" => {
                if line.tag.is_some() {
                    let span = self.span(word);
                    self.error(span, "END cannot be tagged", "the program ends here");
                }
                self.no_rest(line, "END");
                return true;
            }
            "ENTRY" => {
                if line.tag.is_some() {
                    let span = self.span(word);
                    self.error(
                        span,
                        "ENTRY cannot be tagged",
                        "tag the first instruction after it instead",
                    );
                }
                self.entry(line, word);
                return false;
            }
            _ => {}
        }
        if line.unindented {
            let span = self.span(word);
            self.error(
                span,
                format!("`{}` starts the line but is not a tag", word.text),
                "an untagged instruction starts after a tab or spaces; a tag ends with `:`",
            );
            return false;
        }
        let Some(instr) = Instr::by_name(word.text) else {
            let span = self.span(word);
            let mut d = Diagnostic::error(span, format!("unknown instruction `{}`", word.text))
                .label("not an instruction of CHEG");
            let upper = word.text.to_ascii_uppercase();
            if upper != word.text && Instr::by_name(&upper).is_some() {
                d = d.help(format!("instructions are written in capitals: `{upper}`"));
            }
            self.diags.push(d);
            return false;
        };
        self.statement(line, word, instr);
        false
    }

    fn no_rest(&mut self, line: &Line<'_>, what: &str) {
        let rest = line.rest.text.trim();
        if !rest.is_empty() {
            let lead = line.rest.text.len() - line.rest.text.trim_start().len();
            let start = line.rest.range.start + lead;
            let span = Span::new(self.file, start, start + rest.len());
            self.error(
                span,
                format!("{what} takes no arguments"),
                "unexpected text",
            );
        }
    }

    fn define_tag(&mut self, tag: &Piece<'_>) {
        let span = self.span(tag);
        if tag.text.is_empty() {
            self.error(span, "empty tag name", "a tag needs a name before `:`");
            return;
        }
        let index = self.tag(tag.text);
        if let Some(first) = self.program.tags[index].span {
            self.diags.push(
                Diagnostic::error(span, format!("tag `{}` is defined twice", tag.text))
                    .label("second definition")
                    .secondary(first, "first defined here"),
            );
            return;
        }
        self.program.tags[index].span = Some(span);
        self.pending_tags.push(index);
    }

    fn tag(&mut self, name: &str) -> usize {
        if let Some(&i) = self.tag_index.get(name) {
            return i;
        }
        let i = self.program.tags.len();
        self.program.tags.push(Tag {
            name: name.to_string(),
            target: None,
            span: None,
        });
        self.tag_index.insert(name.to_string(), i);
        i
    }

    fn variable(&mut self, name: &str) -> usize {
        if let Some(&i) = self.var_index.get(name) {
            return i;
        }
        let i = self.program.variables.len();
        self.program.variables.push(name.to_string());
        self.var_index.insert(name.to_string(), i);
        i
    }

    fn literal(&mut self, lit: Literal) -> usize {
        if let Some(&i) = self.lit_index.get(&lit) {
            return i;
        }
        let i = self.program.literals.len();
        self.program.literals.push(lit.clone());
        self.lit_index.insert(lit, i);
        i
    }

    fn statement(&mut self, line: &Line<'_>, word: &Piece<'_>, instr: Instr) {
        let fields = lexer::fields(&line.rest);
        let slots = instr.slots();
        let mut args = Vec::with_capacity(slots.len());
        let mut arg_spans = Vec::with_capacity(slots.len());
        let word_span = self.span(word);
        let mut ok = true;
        if fields.len() > slots.len() {
            let extra = &fields[slots.len()];
            let span = self.span(extra);
            self.error(
                span,
                format!(
                    "too many arguments: {} takes {}",
                    instr.name(),
                    plural(slots.len(), "argument")
                ),
                "unexpected argument",
            );
            ok = false;
        }
        for (k, &slot) in slots.iter().enumerate() {
            let field = fields.get(k);
            let span = match field {
                Some(f) => self.span(f),
                None => Span::new(self.file, line.rest.range.end, line.rest.range.end),
            };
            arg_spans.push(span);
            let text = field.map_or("", |f| f.text);
            match self.argument(instr, k, slot, text, span, word_span) {
                Some(a) => args.push(a),
                None => {
                    ok = false;
                    args.push(Arg::Absent);
                }
            }
        }
        if let (Instr::CondV, Some(Arg::Cond(c)), Some(Arg::Value(v))) =
            (instr, args.first(), args.get(1))
        {
            if let Some(known) = self.known(v) {
                if !self.fits(known, c.cond.need(), arg_spans[1]) {
                    ok = false;
                }
            }
        }
        if !ok {
            return;
        }
        for index in std::mem::take(&mut self.pending_tags) {
            self.program.tags[index].target = Some(self.program.statements.len());
        }
        let col = (word.range.start - line.start) as u32 + 1;
        self.program.statements.push(Statement {
            instr,
            args,
            span: word_span,
            arg_spans,
            line: line.number,
            col,
        });
    }

    /// Resolves one argument; `None` after reporting an error.
    fn argument(
        &mut self,
        instr: Instr,
        k: usize,
        slot: Slot,
        text: &str,
        span: Span,
        word_span: Span,
    ) -> Option<Arg> {
        let ordinal = k + 1;
        match slot {
            Slot::Cond => {
                let (negated, name) = match text.strip_prefix('#') {
                    Some(rest) => (true, rest),
                    None => (false, text),
                };
                match Cond::by_name(name) {
                    Some(cond) => Some(Arg::Cond(CondRef { cond, negated })),
                    None => {
                        self.error(
                            span,
                            format!("unknown condition `{name}`"),
                            "not a condition of CHEG",
                        );
                        None
                    }
                }
            }
            Slot::Order => {
                let (reversed, name) = match text.strip_prefix('#') {
                    Some(rest) => (true, rest),
                    None => (false, text),
                };
                match Order::by_name(name) {
                    Some(order) => Some(Arg::Order(OrderRef { order, reversed })),
                    None => {
                        self.error(
                            span,
                            format!("unknown ordering `{name}`"),
                            "the orderings are DEEP and #DEEP (or none)",
                        );
                        None
                    }
                }
            }
            Slot::Tag => {
                if text.is_empty() {
                    self.missing(instr, ordinal, "a tag", span, word_span);
                    return None;
                }
                if text.starts_with('"') {
                    self.error(span, "a literal where a tag is needed", "expected a tag");
                    return None;
                }
                let index = self.tag(text);
                self.tag_uses.push((index, span));
                Some(Arg::Tag(index))
            }
            Slot::Optional if text.is_empty() => Some(Arg::Absent),
            Slot::Read(_) | Slot::Write | Slot::Update(_) | Slot::Optional => {
                if text.is_empty() {
                    self.missing(instr, ordinal, "a variable", span, word_span);
                    return None;
                }
                let written = matches!(slot, Slot::Write | Slot::Update(_));
                let operand = if let Some(lit) = text.strip_prefix('"') {
                    if written {
                        self.error(
                            span,
                            format!(
                                "a literal cannot be written (argument {ordinal} of {})",
                                instr.name()
                            ),
                            "a program variable is needed here",
                        );
                        return None;
                    }
                    match parse_literal(lit) {
                        Ok(l) => {
                            let known = match &l {
                                Literal::Int(_) => Known::Int,
                                Literal::Logical(_) => Known::Logical,
                                Literal::Set(_) => Known::Set,
                            };
                            if let Slot::Read(need) = slot {
                                if !self.fits(known, need, span) {
                                    return None;
                                }
                            }
                            Operand::Lit(self.literal(l))
                        }
                        Err(e) => {
                            self.error(
                                span,
                                format!("bad literal: {e}"),
                                "literals are \"5, \"-4, \"T, \"F, \"(), \"(1,(2))",
                            );
                            return None;
                        }
                    }
                } else if let Some(pre) = Predefined::by_name(text) {
                    if written {
                        self.error(
                            span,
                            format!("`{text}` is a predefined variable and cannot be written"),
                            "read-only",
                        );
                        return None;
                    }
                    if let (Slot::Read(need), Some(known)) = (slot, pre.known()) {
                        if !self.fits(known, need, span) {
                            return None;
                        }
                    }
                    Operand::Pre(pre)
                } else if let Some(bad) = text
                    .chars()
                    .find(|&c| matches!(c, '#' | '(' | ')' | '"' | '&' | ':'))
                {
                    self.error(
                        span,
                        format!("`{text}` is not a variable name"),
                        format!("`{bad}` cannot appear in a name"),
                    );
                    return None;
                } else {
                    Operand::Var(self.variable(text))
                };
                Some(Arg::Value(operand))
            }
        }
    }

    /// The kind of an operand when it is fixed before running.
    fn known(&self, operand: &Operand) -> Option<Known> {
        match operand {
            Operand::Var(_) => None,
            Operand::Pre(p) => p.known(),
            Operand::Lit(k) => self.program.literals.get(*k).map(|l| match l {
                Literal::Int(_) => Known::Int,
                Literal::Logical(_) => Known::Logical,
                Literal::Set(_) => Known::Set,
            }),
        }
    }

    fn fits(&mut self, known: Known, need: Need, span: Span) -> bool {
        if known.fits(need) {
            return true;
        }
        self.error(
            span,
            format!("{} where {} is needed", known.describe(), need.describe()),
            "wrong kind of value",
        );
        false
    }

    fn missing(&mut self, instr: Instr, ordinal: usize, what: &str, span: Span, word_span: Span) {
        self.diags.push(
            Diagnostic::error(
                span,
                format!(
                    "missing argument {ordinal} of {}: {what} is needed",
                    instr.name()
                ),
            )
            .label("argument expected")
            .secondary(
                word_span,
                format!(
                    "{} takes {}",
                    instr.name(),
                    plural(instr.slots().len(), "argument")
                ),
            ),
        );
    }

    fn entry(&mut self, line: &Line<'_>, word: &Piece<'_>) {
        let rest = &line.rest;
        let lead = rest.text.len() - rest.text.trim_start().len();
        let spec = rest.text.trim();
        let start = rest.range.start + lead;
        let whole = Span::new(self.file, word.range.start, start + spec.len());
        if spec.is_empty() {
            self.error(
                whole,
                "ENTRY needs the material of both sides",
                "e.g. `ENTRY K&P,K`",
            );
            return;
        }
        let mut parts = Vec::new();
        let mut offset = 0;
        for part in spec.split(',') {
            parts.push((part, start + offset));
            offset += part.len() + 1;
        }
        if parts.len() < 2 || parts.len() > 3 {
            self.error(
                whole,
                format!("ENTRY takes two or three fields, not {}", parts.len()),
                "ENTRY a&b,c&d,e",
            );
            return;
        }
        let white = self.side(parts[0].0, parts[0].1);
        let black = self.side(parts[1].0, parts[1].1);
        let diff = match parts.get(2) {
            Some(&(text, at)) => match parse_diff(text.trim()) {
                Some(d) => Some(Some(d)),
                None => {
                    let span = Span::new(self.file, at, at + text.len());
                    self.error(
                        span,
                        format!("bad pawn-difference condition `{}`", text.trim()),
                        "expected =m, <m, >m or m with m between -9 and 9",
                    );
                    None
                }
            },
            None => Some(None),
        };
        if let (Some(white), Some(black), Some(diff)) = (white, black, diff) {
            self.program.entries.push(Entry {
                white,
                black,
                diff,
                start: self.program.statements.len(),
                span: whole,
            });
        }
    }

    fn side(&mut self, text: &str, at: usize) -> Option<SideMaterial> {
        let span = Span::new(self.file, at, at + text.len());
        let text = text.trim();
        let (pieces, pawns) = match text.split_once('&') {
            Some((p, k)) => (p, Some(k)),
            None => (text, None),
        };
        let Some(&(_, [q, r, b, n])) = ENTRY_PIECES.iter().find(|(name, _)| *name == pieces) else {
            let names: Vec<&str> = ENTRY_PIECES.iter().map(|(n, _)| *n).collect();
            self.diags.push(
                Diagnostic::error(span, format!("unknown piece group `{pieces}`"))
                    .label("not one of the manual's piece groups")
                    .note(format!("the groups are {}", names.join(", "))),
            );
            return None;
        };
        let pawns = match pawns {
            None => 0,
            Some(k) => match parse_pawns(k) {
                Some(n) => n,
                None => {
                    self.error(
                        span,
                        format!("bad pawn count `{k}`"),
                        "expected kP with k between 0 and 9, or P",
                    );
                    return None;
                }
            },
        };
        Some(SideMaterial {
            queens: q,
            rooks: r,
            bishops: b,
            knights: n,
            pawns,
        })
    }
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// `kP` with k in 0..=9, or `P` for one pawn.
fn parse_pawns(text: &str) -> Option<u8> {
    let count = text.strip_suffix('P')?;
    if count.is_empty() {
        return Some(1);
    }
    let mut chars = count.chars();
    let digit = chars.next()?.to_digit(10)?;
    chars.next().is_none().then_some(digit as u8)
}

/// `=m`, `<m`, `>m` or a bare `m`, m in -9..=9.
fn parse_diff(text: &str) -> Option<PawnDiff> {
    let (make, number): (fn(i8) -> PawnDiff, &str) = match text.chars().next()? {
        '=' => (PawnDiff::Eq, &text[1..]),
        '<' => (PawnDiff::Lt, &text[1..]),
        '>' => (PawnDiff::Gt, &text[1..]),
        _ => (PawnDiff::Eq, text),
    };
    let number = number.trim();
    let m: i8 = number.parse().ok()?;
    (-9..=9).contains(&m).then_some(make(m))
}

/// Parses the text after `"`: `T`, `F`, an integer (possibly negative) or
/// a set `( ... )` of such elements, separated by commas or spaces.
pub fn parse_literal(text: &str) -> Result<Literal, String> {
    let mut chars: Vec<char> = text.chars().collect();
    chars.retain(|c| *c != '\r');
    let mut pos = 0;
    let lit = literal_at(&chars, &mut pos, 0)?;
    if pos != chars.len() {
        let rest: String = chars[pos..].iter().collect();
        return Err(format!("unexpected `{rest}` after the literal"));
    }
    Ok(lit)
}

const MAX_NESTING: usize = 64;

fn literal_at(chars: &[char], pos: &mut usize, depth: usize) -> Result<Literal, String> {
    if depth > MAX_NESTING {
        return Err(format!("sets nested deeper than {MAX_NESTING}"));
    }
    match chars.get(*pos) {
        None => Err("a value is missing".into()),
        Some('(') => {
            *pos += 1;
            let mut elements = Vec::new();
            loop {
                while matches!(chars.get(*pos), Some(' ' | '\t')) {
                    *pos += 1;
                }
                match chars.get(*pos) {
                    None => return Err("`)` is missing".into()),
                    Some(')') => {
                        *pos += 1;
                        return Ok(Literal::Set(elements));
                    }
                    Some(',') if !elements.is_empty() => {
                        *pos += 1;
                        while matches!(chars.get(*pos), Some(' ' | '\t')) {
                            *pos += 1;
                        }
                        if chars.get(*pos) == Some(&')') {
                            return Err("an element is missing before `)`".into());
                        }
                        elements.push(literal_at(chars, pos, depth + 1)?);
                    }
                    Some(',') => return Err("an element is missing before `,`".into()),
                    Some(_) => {
                        if !elements.is_empty()
                            && !matches!(chars.get(pos.saturating_sub(1)), Some(' ' | '\t'))
                        {
                            return Err("elements are separated by commas".into());
                        }
                        elements.push(literal_at(chars, pos, depth + 1)?);
                    }
                }
            }
        }
        Some(_) => {
            let start = *pos;
            while let Some(&c) = chars.get(*pos) {
                if matches!(c, '(' | ')' | ',' | ' ' | '\t') {
                    break;
                }
                *pos += 1;
            }
            let word: String = chars[start..*pos].iter().collect();
            match word.as_str() {
                "T" => Ok(Literal::Logical(true)),
                "F" => Ok(Literal::Logical(false)),
                "" => Err("a value is missing".into()),
                w => {
                    let digits = w.strip_prefix(['-', '+']).unwrap_or(w);
                    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
                        return Err(format!("`{w}` is not T, F, an integer or a set"));
                    }
                    w.parse::<i64>()
                        .ok()
                        .filter(|n| i32::try_from(*n).is_ok())
                        .map(Literal::Int)
                        .ok_or_else(|| format!("`{w}` does not fit in 32 bits"))
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals() {
        assert_eq!(parse_literal("5"), Ok(Literal::Int(5)));
        assert_eq!(parse_literal("-4"), Ok(Literal::Int(-4)));
        assert_eq!(parse_literal("T"), Ok(Literal::Logical(true)));
        assert_eq!(parse_literal("()"), Ok(Literal::Set(vec![])));
        assert_eq!(
            parse_literal("(1,2,(3))"),
            Ok(Literal::Set(vec![
                Literal::Int(1),
                Literal::Int(2),
                Literal::Set(vec![Literal::Int(3)])
            ]))
        );
        assert_eq!(
            parse_literal("(-4, T)"),
            Ok(Literal::Set(vec![Literal::Int(-4), Literal::Logical(true)]))
        );
        assert!(parse_literal("(1,").is_err());
        assert!(parse_literal("(1,)").is_err());
        assert!(parse_literal("X").is_err());
        assert!(parse_literal("").is_err());
        assert!(parse_literal("99999999999").is_err());
        assert!(parse_literal("1)").is_err());
    }

    #[test]
    fn entry_parts() {
        assert_eq!(parse_pawns("P"), Some(1));
        assert_eq!(parse_pawns("3P"), Some(3));
        assert_eq!(parse_pawns("10P"), None);
        assert_eq!(parse_diff("=1"), Some(PawnDiff::Eq(1)));
        assert_eq!(parse_diff("<-2"), Some(PawnDiff::Lt(-2)));
        assert_eq!(parse_diff(">0"), Some(PawnDiff::Gt(0)));
        assert_eq!(parse_diff("3"), Some(PawnDiff::Eq(3)));
        assert_eq!(parse_diff("=10"), None);
        assert_eq!(parse_diff(""), None);
    }
}
