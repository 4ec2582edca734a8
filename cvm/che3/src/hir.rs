//! The checked program: names resolved to definitions, arguments to chess
//! values. The checker ([`crate::check`]) produces it only for programs
//! without errors; code generation and conversion read it.

use crate::functions::Func;
use crate::source::Span;
use cvm_chess::lit::LitKind;

/// A chess literal argument.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Arg {
    /// Its kind.
    pub kind: LitKind,
    /// Its CVM value (the encoding of `cvm_chess::lit`).
    pub value: i32,
    /// Where it stands.
    pub span: Span,
}

/// A call of a Che function with checked arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FnCall {
    /// The function.
    pub func: Func,
    /// The piece, for functions that take one first.
    pub piece: Option<Arg>,
    /// The list (for `wkingside` and friends, the one board side).
    pub list: Vec<Arg>,
    /// From the function name to `)`.
    pub span: Span,
}

impl FnCall {
    /// The values of the list.
    pub fn values(&self) -> Vec<i32> {
        self.list.iter().map(|a| a.value).collect()
    }
}

/// What a pattern entry or guard tests.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CondTest {
    /// A pattern function.
    Call(FnCall),
    /// An earlier pattern (its index in [`Checked::patterns`]).
    Pattern(usize),
}

/// A pattern entry, possibly negated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cond {
    /// Written with `!`.
    pub negated: bool,
    /// What it tests.
    pub test: CondTest,
    /// Where it stands.
    pub span: Span,
}

/// A pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pattern {
    /// Its name.
    pub name: String,
    /// Where the name stands.
    pub span: Span,
    /// Entries that must all hold.
    pub and: Vec<Cond>,
    /// Entries of which one must hold when there are any.
    pub or: Vec<Cond>,
}

/// One step of an advice.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// An advice function.
    Call(FnCall),
    /// An earlier advice (its index in [`Checked::advices`]).
    Advice(usize, Span),
    /// A guard: when the pattern (negated or not) is false, the rest of the
    /// advice is skipped.
    Guard {
        /// Written with `!`.
        negated: bool,
        /// The pattern's index.
        pattern: usize,
        /// From `{` to `}`.
        span: Span,
    },
}

/// An advice.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Advice {
    /// Its name.
    pub name: String,
    /// Where the name stands.
    pub span: Span,
    /// Its steps, in order.
    pub steps: Vec<Step>,
}

/// A rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    /// Its name.
    pub name: String,
    /// Where the name stands.
    pub span: Span,
    /// The patterns that must all hold, with where each is named.
    pub patterns: Vec<(usize, Span)>,
    /// The advices run, in order, when they do.
    pub advices: Vec<(usize, Span)>,
}

/// A definition, in program order.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Def {
    /// [`Checked::patterns`]`[i]`.
    Pattern(usize),
    /// [`Checked::advices`]`[i]`.
    Advice(usize),
    /// [`Checked::rules`]`[i]`.
    Rule(usize),
}

/// A checked program.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Checked {
    /// The patterns, in program order.
    pub patterns: Vec<Pattern>,
    /// The advices, in program order.
    pub advices: Vec<Advice>,
    /// The rules, in program order (the order they run in).
    pub rules: Vec<Rule>,
    /// Every definition in program order, with the index of its statement
    /// in the syntax tree.
    pub order: Vec<(Def, usize)>,
}
