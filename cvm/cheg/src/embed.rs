//! What the runtime needs from a checked program, carried inside the CVM
//! module as the text `cheg.program`, so that a `.cmp` (or `.asm`) file
//! compiled from CHEG runs without its source: the number of tags (the
//! dispatch numbers of the ENTRYs follow them), the ENTRY table and the
//! literals.
//!
//! The text is line based: `cheg 1`, `tags N`, one `entry` line per ENTRY
//! (`entry Q R B N P Q R B N P DIFF START`, DIFF being `-`, `=m`, `<m` or
//! `>m`) and one `literal` line per literal in source form. A module text
//! holds at most `cvm::module::MAX_STRING_BYTES` bytes; a longer description
//! (a program with large tables of literals) is cut at line ends into parts,
//! the first named `cheg.program`, the next `cheg.program.1`, `cheg.program.2`
//! and so on, read back joined in that order.

use crate::ast::{Entry, Literal, PawnDiff, Program, SideMaterial, Tag};
use cvm::Module;
use cvm_frontend::source::{FileId, Span};
use std::fmt::Write as _;

/// The name of the module text.
pub const TEXT_NAME: &str = "cheg.program";

/// Why an embedded description could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the module's {TEXT_NAME} text is damaged: {0}")]
pub struct EmbedError(pub String);

/// A literal in source form (without the leading `"`).
pub fn literal_text(lit: &Literal) -> String {
    match lit {
        Literal::Logical(true) => "T".into(),
        Literal::Logical(false) => "F".into(),
        Literal::Int(n) => n.to_string(),
        Literal::Set(items) => {
            let inner: Vec<String> = items.iter().map(literal_text).collect();
            format!("({})", inner.join(","))
        }
    }
}

/// The description of `program`.
pub fn describe(program: &Program) -> String {
    let mut out = String::from("cheg 1\n");
    let _ = writeln!(out, "tags {}", program.tags.len());
    for e in &program.entries {
        let side = |m: &SideMaterial| {
            format!(
                "{} {} {} {} {}",
                m.queens, m.rooks, m.bishops, m.knights, m.pawns
            )
        };
        let diff = match e.diff {
            None => "-".to_string(),
            Some(PawnDiff::Eq(m)) => format!("={m}"),
            Some(PawnDiff::Lt(m)) => format!("<{m}"),
            Some(PawnDiff::Gt(m)) => format!(">{m}"),
        };
        let _ = writeln!(
            out,
            "entry {} {} {diff} {}",
            side(&e.white),
            side(&e.black),
            e.start
        );
    }
    for l in &program.literals {
        let _ = writeln!(out, "literal {}", literal_text(l));
    }
    out
}

/// The module texts that carry `description`: `(name, text)` pairs, each
/// text within `cvm::module::MAX_STRING_BYTES` bytes and cut after a line's
/// end (a single line longer than that is left whole, for the module's own
/// check to refuse).
pub fn parts(description: &str) -> Vec<(String, &str)> {
    let max = cvm::module::MAX_STRING_BYTES;
    let mut out = Vec::new();
    let mut rest = description;
    while !rest.is_empty() || out.is_empty() {
        let cut = if rest.len() <= max {
            rest.len()
        } else {
            // Bytes, not `str` slicing: `max` need not be a character
            // boundary, and a cut just after a newline always is.
            match rest.as_bytes()[..=max].iter().rposition(|&b| b == b'\n') {
                Some(i) => i + 1,
                None => rest.find('\n').map_or(rest.len(), |i| i + 1),
            }
        };
        let name = match out.len() {
            0 => TEXT_NAME.to_string(),
            n => format!("{TEXT_NAME}.{n}"),
        };
        out.push((name, &rest[..cut]));
        rest = &rest[cut..];
    }
    out
}

/// Reads the description back from a module (joining its parts, see
/// [`parts`]); `None` when the module was not compiled from CHEG.
pub fn from_module(module: &Module) -> Option<Result<Program, EmbedError>> {
    let first = module.texts.iter().find(|t| t.name == TEXT_NAME)?;
    let mut text = first.text.clone();
    for n in 1.. {
        let name = format!("{TEXT_NAME}.{n}");
        match module.texts.iter().find(|t| t.name == name) {
            Some(t) => text.push_str(&t.text),
            None => break,
        }
    }
    Some(parse(&text))
}

/// Reads a description (the text of `cheg.program`).
pub fn parse(text: &str) -> Result<Program, EmbedError> {
    let bad = |what: &str| EmbedError(what.to_string());
    let mut lines = text.lines();
    if lines.next() != Some("cheg 1") {
        return Err(bad("unknown version"));
    }
    let mut program = Program::default();
    let span = Span::new(FileId(0), 0, 0);
    for line in lines {
        let (key, rest) = line.split_once(' ').unwrap_or((line, ""));
        match key {
            "tags" => {
                let n: usize = rest.parse().map_err(|_| bad("tag count"))?;
                if n > 1 << 20 {
                    return Err(bad("tag count"));
                }
                program.tags = (0..n)
                    .map(|i| Tag {
                        name: format!("t{i}"),
                        target: None,
                        span: None,
                    })
                    .collect();
            }
            "entry" => {
                let f: Vec<&str> = rest.split(' ').collect();
                if f.len() != 12 {
                    return Err(bad("entry line"));
                }
                let num = |s: &str| s.parse::<u8>().map_err(|_| bad("entry count"));
                let side = |k: usize| -> Result<SideMaterial, EmbedError> {
                    Ok(SideMaterial {
                        queens: num(f[k])?,
                        rooks: num(f[k + 1])?,
                        bishops: num(f[k + 2])?,
                        knights: num(f[k + 3])?,
                        pawns: num(f[k + 4])?,
                    })
                };
                let diff = match f[10] {
                    "-" => None,
                    d => {
                        let op = d.chars().next().ok_or_else(|| bad("pawn difference"))?;
                        let m: i8 = d[op.len_utf8()..]
                            .parse()
                            .map_err(|_| bad("pawn difference"))?;
                        Some(match op {
                            '=' => PawnDiff::Eq(m),
                            '<' => PawnDiff::Lt(m),
                            '>' => PawnDiff::Gt(m),
                            _ => return Err(bad("pawn difference")),
                        })
                    }
                };
                program.entries.push(Entry {
                    white: side(0)?,
                    black: side(5)?,
                    diff,
                    start: f[11].parse().map_err(|_| bad("entry start"))?,
                    span,
                });
            }
            "literal" => {
                let lit = crate::parser::parse_literal(rest).map_err(|e| bad(&e))?;
                program.literals.push(lit);
            }
            _ => return Err(bad("unknown line")),
        }
    }
    Ok(program)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let src = "ENTRY K&P,K,<1\n\tBREAK \"(1,(-2),T),\"F\nL:\tLEAVE\nENTRY QB,R2B&3P\n\tJUMP= \"1,\"1,L\nEND\n";
        let c = crate::compile_str("r.cheg", src);
        let program = crate::checked(&c).expect("compiles").clone();
        let module = c.program.expect("module").into_module();
        let back = from_module(&module).expect("embedded").expect("reads");
        assert_eq!(back.entries.len(), 2);
        assert_eq!(back.literals, program.literals);
        assert_eq!(back.tags.len(), program.tags.len());
        for (a, b) in back.entries.iter().zip(&program.entries) {
            assert_eq!(
                (&a.white, &a.black, a.diff, a.start),
                (&b.white, &b.black, b.diff, b.start)
            );
        }
        assert!(parse("cheg 2\n").is_err());
        assert!(parse("cheg 1\nentry 1 2\n").is_err());
        assert!(parse("cheg 1\nliteral (1,\n").is_err());
        assert!(parse("cheg 1\nentry 0 0 0 0 0 0 0 0 0 0 \u{e9}5 0\n").is_err());
        assert!(parse("cheg 1\nentry 0 0 0 0 0 0 0 0 0 0 =5 0\n").is_ok());
    }

    /// Literals beyond one module text's size: the description is carried in
    /// several texts and read back whole.
    #[test]
    fn long_descriptions_are_split_and_joined() {
        let row: Vec<String> = (0..500).map(|i| (i * 7919 % 1000).to_string()).collect();
        let mut src = String::from("ENTRY Q,K\n");
        for k in 0..60 {
            src.push_str(&format!("L{k}:\tRETURN \"({},{k})\n", row.join(",")));
        }
        src.push_str("END\n");
        let c = crate::compile_str("big.cheg", &src);
        let program = crate::checked(&c).expect("compiles").clone();
        let module = c.program.expect("module").into_module();
        let names: Vec<&str> = module.texts.iter().map(|t| t.name.as_str()).collect();
        assert!(names.contains(&"cheg.program.1"), "{names:?}");
        assert!(module
            .texts
            .iter()
            .all(|t| t.text.len() <= cvm::module::MAX_STRING_BYTES));
        let back = from_module(&module).expect("embedded").expect("reads");
        assert_eq!(back.literals, program.literals);
        assert_eq!(back.literals.len(), 60);
    }
}
