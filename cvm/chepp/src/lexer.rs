//! The lexer: source text to [`Token`]s.
//!
//! Che++ is case-sensitive and line-agnostic except in two places: `#`
//! starts a comment that runs to the end of the line, and the file name
//! after `include` is the rest of that word. Everything the lexer cannot
//! read is reported and turned into [`Tok::Bad`], so the parser can go on
//! and find further, independent errors.

use super::diag::{Diagnostic, Diagnostics};
use super::source::{FileId, Span};
use super::token::{Kw, Tok, Token};
use cvm_chess::lit::{self, LitKind};

/// The longest name a module table accepts.
pub const MAX_NAME_LEN: usize = 255;

fn is_word_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c == b'.' || c == b'?'
}

fn is_word_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'.' || c == b'?'
}

/// True for `[A-Za-z_][A-Za-z0-9_]*`.
pub fn is_identifier(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && (b[0].is_ascii_alphabetic() || b[0] == b'_')
        && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_')
}

/// Classifies a word as a chess literal. Besides the spellings of
/// [`lit::parse_word`] it accepts `.sqr`, the document's other spelling of
/// `?sqr` (used in its `KeepBs` example).
pub fn chess_word(word: &str) -> Option<(LitKind, i32)> {
    if word == ".sqr" {
        return lit::parse_word("?sqr");
    }
    lit::parse_word(word)
}

/// Splits `text` (file `file`) into tokens, ending with [`Tok::Eof`].
pub fn lex(file: FileId, text: &str, diags: &mut Diagnostics) -> Vec<Token> {
    Lexer {
        file,
        src: text.as_bytes(),
        text,
        pos: 0,
        out: Vec::new(),
        diags,
    }
    .run()
}

struct Lexer<'a> {
    file: FileId,
    src: &'a [u8],
    text: &'a str,
    pos: usize,
    out: Vec<Token>,
    diags: &'a mut Diagnostics,
}

impl Lexer<'_> {
    fn span(&self, lo: usize) -> Span {
        Span::new(self.file, lo, self.pos)
    }

    fn push(&mut self, tok: Tok, lo: usize) {
        let span = self.span(lo);
        self.out.push(Token { tok, span });
    }

    fn peek(&self, ahead: usize) -> u8 {
        self.src.get(self.pos + ahead).copied().unwrap_or(0)
    }

    fn run(mut self) -> Vec<Token> {
        while self.pos < self.src.len() {
            let c = self.src[self.pos];
            let lo = self.pos;
            match c {
                b' ' | b'\t' | b'\r' | b'\n' | 0x0C => self.pos += 1,
                b'#' => {
                    while self.pos < self.src.len() && self.src[self.pos] != b'\n' {
                        self.pos += 1;
                    }
                }
                b'"' => {
                    let s = self.string();
                    match s {
                        Some(s) => self.push(Tok::Str(s), lo),
                        None => self.push(Tok::Bad, lo),
                    }
                }
                b'0'..=b'9' => {
                    let tok = self.number();
                    self.push(tok, lo);
                }
                c if is_word_start(c) => {
                    while self.pos < self.src.len() && is_word_char(self.src[self.pos]) {
                        self.pos += 1;
                    }
                    let word = &self.text[lo..self.pos];
                    let tok = self.classify(word, lo);
                    let is_include = tok == Tok::Kw(Kw::Include);
                    self.push(tok, lo);
                    if is_include {
                        self.include_path();
                    }
                }
                _ => self.punct(c, lo),
            }
        }
        let end = self.src.len();
        self.out.push(Token {
            tok: Tok::Eof,
            span: Span::new(self.file, end, end),
        });
        self.out
    }

    fn classify(&mut self, word: &str, lo: usize) -> Tok {
        if let Some(kw) = Kw::from_word(word) {
            return Tok::Kw(kw);
        }
        if let Some((kind, value)) = chess_word(word) {
            return Tok::Chess(kind, value);
        }
        if is_identifier(word) {
            if word.len() > MAX_NAME_LEN {
                self.diags.push(
                    Diagnostic::error(
                        self.span(lo),
                        format!("name is longer than {MAX_NAME_LEN} characters"),
                    )
                    .label("too long"),
                );
                return Tok::Bad;
            }
            return Tok::Ident(word.to_string());
        }
        let shown: String = word.chars().take(40).collect();
        self.diags.push(
            Diagnostic::error(self.span(lo), format!("`{shown}` is not a chess literal"))
                .label("not a square, move, piece, colour, column or square colour")
                .help("squares are `e4`, `a.`, `.4`, `..`; moves `e2e4`, `..e4`; pieces `wP`, `?N`, `b?`, `??`"),
        );
        Tok::Bad
    }

    fn include_path(&mut self) {
        while matches!(self.peek(0), b' ' | b'\t') {
            self.pos += 1;
        }
        let lo = self.pos;
        if self.peek(0) == b'"' {
            let tok = match self.string() {
                Some(s) => Tok::Path(s),
                None => Tok::Bad,
            };
            self.push(tok, lo);
            return;
        }
        while self.pos < self.src.len()
            && !matches!(
                self.src[self.pos],
                b' ' | b'\t' | b'\r' | b'\n' | b'#' | b';'
            )
        {
            self.pos += 1;
        }
        let path = self.text.get(lo..self.pos).unwrap_or("").to_string();
        self.push(Tok::Path(path), lo);
    }

    /// Reads a string starting at the opening quote; `None` (reported)
    /// when it is not closed on its line.
    fn string(&mut self) -> Option<String> {
        let lo = self.pos;
        self.pos += 1;
        let mut out = String::new();
        loop {
            let rest = &self.text[self.pos..];
            let Some(c) = rest.chars().next() else {
                break;
            };
            match c {
                '"' => {
                    self.pos += 1;
                    return Some(out);
                }
                '\n' => break,
                '\\' => {
                    let next = rest[1..].chars().next();
                    let (ch, len) = match next {
                        Some('n') => ('\n', 2),
                        Some('t') => ('\t', 2),
                        Some('"') => ('"', 2),
                        Some('\\') => ('\\', 2),
                        _ => ('\\', 1),
                    };
                    out.push(ch);
                    self.pos += len;
                }
                c => {
                    out.push(c);
                    self.pos += c.len_utf8();
                }
            }
        }
        self.diags.push(
            Diagnostic::error(Span::new(self.file, lo, lo + 1), "unterminated string")
                .label("this string is not closed on its line"),
        );
        None
    }

    fn number(&mut self) -> Tok {
        let lo = self.pos;
        while self.pos < self.src.len() && is_word_char(self.src[self.pos]) {
            self.pos += 1;
        }
        let word = &self.text[lo..self.pos];
        let parsed = if let Some(hex) = word.strip_prefix("0x").or_else(|| word.strip_prefix("0X"))
        {
            if hex.is_empty() || !hex.bytes().all(|c| c.is_ascii_hexdigit()) {
                None
            } else {
                match u32::from_str_radix(hex, 16) {
                    Ok(v) => Some(Ok(v as i32)),
                    Err(_) => Some(Err("hexadecimal numbers have at most 8 digits (32 bits)")),
                }
            }
        } else if word.bytes().all(|c| c.is_ascii_digit()) {
            match word.parse::<u64>() {
                Ok(v) if v <= 1 << 31 => Some(Ok(v as u32 as i32)),
                _ => Some(Err(
                    "decimal numbers must lie in -2147483648 ..= 2147483647",
                )),
            }
        } else {
            None
        };
        match parsed {
            Some(Ok(v)) => Tok::Int(v),
            Some(Err(why)) => {
                self.diags.push(
                    Diagnostic::error(self.span(lo), "number out of range")
                        .label("too large")
                        .note(why),
                );
                Tok::Bad
            }
            None => {
                let shown: String = word.chars().take(40).collect();
                self.diags.push(
                    Diagnostic::error(self.span(lo), format!("invalid number `{shown}`"))
                        .label("not a decimal or 0x hexadecimal number"),
                );
                Tok::Bad
            }
        }
    }

    fn punct(&mut self, c: u8, lo: usize) {
        let two = [c, self.peek(1)];
        let (tok, len) = match &two {
            b":=" => (Tok::Assign, 2),
            b"++" => (Tok::PlusPlus, 2),
            b"--" => (Tok::MinusMinus, 2),
            b"<>" => (Tok::Ne, 2),
            b"<=" => (Tok::Le, 2),
            b">=" => (Tok::Ge, 2),
            _ => {
                match c {
                    b':' => (Tok::Colon, 1),
                    b';' => (Tok::Semi, 1),
                    b',' => (Tok::Comma, 1),
                    b'(' => (Tok::LParen, 1),
                    b')' => (Tok::RParen, 1),
                    b'[' => (Tok::LBrack, 1),
                    b']' => (Tok::RBrack, 1),
                    b'+' => (Tok::Plus, 1),
                    b'-' => (Tok::Minus, 1),
                    b'*' => (Tok::Star, 1),
                    b'/' => (Tok::Slash, 1),
                    b'%' => (Tok::Percent, 1),
                    b'&' => (Tok::Amp, 1),
                    b'|' => (Tok::Pipe, 1),
                    b'^' => (Tok::Caret, 1),
                    b'~' => (Tok::Tilde, 1),
                    b'!' => (Tok::Bang, 1),
                    b'=' => (Tok::Eq, 1),
                    b'<' => (Tok::Lt, 1),
                    b'>' => (Tok::Gt, 1),
                    _ => {
                        let ch = self.text[lo..].chars().next().unwrap_or('?');
                        self.pos += ch.len_utf8().max(1);
                        let mut d = Diagnostic::error(
                            self.span(lo),
                            format!("unexpected character `{}`", ch.escape_default()),
                        )
                        .label("not part of Che++");
                        if ch == '{' || ch == '}' {
                            d = d.help("blocks are written `begin ... end` or `then ... end`, not with braces");
                        } else if ch == '\'' {
                            d = d.help("texts are quoted with `\"`");
                        }
                        self.diags.push(d);
                        self.push(Tok::Bad, lo);
                        return;
                    }
                }
            }
        };
        self.pos += len;
        self.push(tok, lo);
    }
}
