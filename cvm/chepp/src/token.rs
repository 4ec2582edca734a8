//! The tokens of Che++.
//!
//! Che++ words cover more than names: a "word" may be a keyword, an
//! identifier or one of the chess literals (`e4`, `a.`, `..e4`, `wP`, `??`,
//! `?`, `.line`, `row3`, `kkside`, `lsqr`, ...). The lexer reads the whole
//! word first and then classifies it, so `e2e4` is one move and not a square
//! followed by a name.

use super::source::Span;
use cvm_chess::lit::LitKind;
use std::fmt;

/// The keywords. Che++ takes most of them from Pascal.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Kw {
    /// `and` (short-circuit).
    And,
    /// `or` (short-circuit).
    Or,
    /// `const`.
    Const,
    /// `var`.
    Var,
    /// `list`.
    List,
    /// `text`.
    Text,
    /// `procedure`.
    Procedure,
    /// `function`.
    Function,
    /// `extern`.
    Extern,
    /// `begin`.
    Begin,
    /// `end`.
    End,
    /// `if`.
    If,
    /// `then`.
    Then,
    /// `elseif`.
    Elseif,
    /// `else`.
    Else,
    /// `switch`.
    Switch,
    /// `case`.
    Case,
    /// `default`.
    Default,
    /// `break`.
    Break,
    /// `goto`.
    Goto,
    /// `return`.
    Return,
    /// `while`.
    While,
    /// `do`.
    Do,
    /// `repeat`.
    Repeat,
    /// `until`.
    Until,
    /// `for`.
    For,
    /// `in`.
    In,
    /// `write`.
    Write,
    /// `include`.
    Include,
}

/// Every keyword with its spelling.
pub const KEYWORDS: &[(&str, Kw)] = &[
    ("and", Kw::And),
    ("or", Kw::Or),
    ("const", Kw::Const),
    ("var", Kw::Var),
    ("list", Kw::List),
    ("text", Kw::Text),
    ("procedure", Kw::Procedure),
    ("function", Kw::Function),
    ("extern", Kw::Extern),
    ("begin", Kw::Begin),
    ("end", Kw::End),
    ("if", Kw::If),
    ("then", Kw::Then),
    ("elseif", Kw::Elseif),
    ("else", Kw::Else),
    ("switch", Kw::Switch),
    ("case", Kw::Case),
    ("default", Kw::Default),
    ("break", Kw::Break),
    ("goto", Kw::Goto),
    ("return", Kw::Return),
    ("while", Kw::While),
    ("do", Kw::Do),
    ("repeat", Kw::Repeat),
    ("until", Kw::Until),
    ("for", Kw::For),
    ("in", Kw::In),
    ("write", Kw::Write),
    ("include", Kw::Include),
];

impl Kw {
    /// The keyword spelled `s`, if any.
    pub fn from_word(s: &str) -> Option<Kw> {
        KEYWORDS.iter().find(|(w, _)| *w == s).map(|(_, k)| *k)
    }

    /// The spelling.
    pub fn as_str(self) -> &'static str {
        KEYWORDS
            .iter()
            .find(|(_, k)| *k == self)
            .map_or("?", |(w, _)| w)
    }
}

/// What a token is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tok {
    /// A name.
    Ident(String),
    /// An integer literal (already range-checked and wrapped to i32).
    Int(i32),
    /// A quoted string (escapes resolved).
    Str(String),
    /// A chess literal: its kind and encoded value.
    Chess(LitKind, i32),
    /// A keyword.
    Kw(Kw),
    /// The file name after `include` (the rest of the word).
    Path(String),
    /// A malformed word or number, already reported.
    Bad,
    /// `:=`
    Assign,
    /// `:`
    Colon,
    /// `;`
    Semi,
    /// `,`
    Comma,
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// `[`
    LBrack,
    /// `]`
    RBrack,
    /// `+`
    Plus,
    /// `-`
    Minus,
    /// `*`
    Star,
    /// `/`
    Slash,
    /// `%`
    Percent,
    /// `&`
    Amp,
    /// `|`
    Pipe,
    /// `^`
    Caret,
    /// `~`
    Tilde,
    /// `!`
    Bang,
    /// `++`
    PlusPlus,
    /// `--`
    MinusMinus,
    /// `=`
    Eq,
    /// `<>`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// End of the file.
    Eof,
}

impl Tok {
    /// The compoperator spelling of a comparison token.
    pub fn compop(&self) -> Option<&'static str> {
        Some(match self {
            Tok::Eq => "=",
            Tok::Ne => "<>",
            Tok::Lt => "<",
            Tok::Le => "<=",
            Tok::Gt => ">",
            Tok::Ge => ">=",
            _ => return None,
        })
    }
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self {
            Tok::Ident(n) => return write!(f, "name `{n}`"),
            Tok::Int(v) => return write!(f, "number `{v}`"),
            Tok::Str(_) => "a string",
            Tok::Chess(k, _) => return write!(f, "{} literal", k.name()),
            Tok::Kw(k) => return write!(f, "keyword `{}`", k.as_str()),
            Tok::Path(p) => return write!(f, "file name `{p}`"),
            Tok::Bad => "a malformed word",
            Tok::Assign => "`:=`",
            Tok::Colon => "`:`",
            Tok::Semi => "`;`",
            Tok::Comma => "`,`",
            Tok::LParen => "`(`",
            Tok::RParen => "`)`",
            Tok::LBrack => "`[`",
            Tok::RBrack => "`]`",
            Tok::Plus => "`+`",
            Tok::Minus => "`-`",
            Tok::Star => "`*`",
            Tok::Slash => "`/`",
            Tok::Percent => "`%`",
            Tok::Amp => "`&`",
            Tok::Pipe => "`|`",
            Tok::Caret => "`^`",
            Tok::Tilde => "`~`",
            Tok::Bang => "`!`",
            Tok::PlusPlus => "`++`",
            Tok::MinusMinus => "`--`",
            Tok::Eq => "`=`",
            Tok::Ne => "`<>`",
            Tok::Lt => "`<`",
            Tok::Le => "`<=`",
            Tok::Gt => "`>`",
            Tok::Ge => "`>=`",
            Tok::Eof => "end of file",
        };
        f.write_str(s)
    }
}

/// A token and where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    /// What it is.
    pub tok: Tok,
    /// Where it is.
    pub span: Span,
}
