//! The syntax tree of a Che program, as the parser reads it.
//!
//! Names and arguments are kept as written (with their spans); the checker
//! ([`crate::check`]) resolves names and classifies arguments. A statement
//! with a syntax error is kept with what could be read of it, so that its
//! name stays defined and later uses of it bring no follow-on errors.

use crate::lexer::Comment;
use crate::source::Span;
use std::ops::Range;

/// A word as written: a name, a function name or an argument.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Word {
    /// The text.
    pub text: String,
    /// Where it stands.
    pub span: Span,
}

/// A function call: `NAME(ARG ARG ...)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Call {
    /// The function name.
    pub name: Word,
    /// The arguments, separated by blanks in the source.
    pub args: Vec<Word>,
    /// From the name to the closing parenthesis.
    pub span: Span,
}

/// One entry of a pattern's AND- or OR-list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PatternItem {
    /// Written with `!`.
    pub negated: bool,
    /// What is tested.
    pub test: Test,
    /// The whole entry, `!` included.
    pub span: Span,
}

/// What a pattern entry tests.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Test {
    /// A pattern function.
    Call(Call),
    /// An earlier pattern, by name.
    Name(Word),
}

/// One entry of an advice.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AdviceItem {
    /// An advice function.
    Call(Call),
    /// An earlier advice, by name.
    Name(Word),
    /// `{ [!] pattern }`: when false, the rest of the advice is skipped.
    Guard {
        /// Written with `!`.
        negated: bool,
        /// The pattern's name.
        name: Word,
        /// From `{` to `}`.
        span: Span,
    },
}

/// `pattern NAME { AND-list } { OR-list };`
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PatternStmt {
    /// The name, if one could be read.
    pub name: Option<Word>,
    /// Entries that must all hold.
    pub and: Vec<PatternItem>,
    /// Entries of which one must hold, when there are any.
    pub or: Vec<PatternItem>,
}

/// `advice NAME entries;`
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AdviceStmt {
    /// The name, if one could be read.
    pub name: Option<Word>,
    /// The entries, in order.
    pub items: Vec<AdviceItem>,
}

/// `rule NAME { pattern names } advice names;`
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleStmt {
    /// The name, if one could be read.
    pub name: Option<Word>,
    /// Patterns that must all hold.
    pub patterns: Vec<Word>,
    /// Advices run, in order, when they do.
    pub advices: Vec<Word>,
}

/// What a statement is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StmtKind {
    /// A pattern.
    Pattern(PatternStmt),
    /// An advice.
    Advice(AdviceStmt),
    /// A rule.
    Rule(RuleStmt),
}

/// A statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stmt {
    /// What it is.
    pub kind: StmtKind,
    /// Its keyword.
    pub keyword: Span,
    /// The indices of its tokens in the program's token stream.
    pub tokens: Range<usize>,
    /// Its last token (a comment on the same line belongs to it).
    pub last: Span,
}

/// A whole program.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Program {
    /// The statements in source order (includes spliced in).
    pub stmts: Vec<Stmt>,
    /// Every comment, with its place in the token stream.
    pub comments: Vec<Comment>,
}
