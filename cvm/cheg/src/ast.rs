//! The parsed form of a CHEG program: ENTRY lines, tags and instructions,
//! each with the source span the diagnostics and the line table point at.

use crate::table::{Cond, Instr, Order, Predefined};
use cvm_frontend::source::Span;

/// A literal value: what follows a `"` in an argument.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Literal {
    /// `"T` or `"F`.
    Logical(bool),
    /// `"5`, `"-4`.
    Int(i64),
    /// `"()`, `"(1,2,(3))`: elements in order.
    Set(Vec<Literal>),
}

/// The pieces of one side in an ENTRY line, besides the king.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SideMaterial {
    /// Queens, rooks, bishops, knights.
    pub queens: u8,
    /// Rooks.
    pub rooks: u8,
    /// Bishops.
    pub bishops: u8,
    /// Knights.
    pub knights: u8,
    /// Pawns (0 when the `&kP` part is omitted).
    pub pawns: u8,
}

/// The pawn-difference condition of an ENTRY line (white pawns minus
/// black pawns, "white" being the side to move).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PawnDiff {
    /// `=m` (or a bare `m`).
    Eq(i8),
    /// `<m`.
    Lt(i8),
    /// `>m`.
    Gt(i8),
}

impl PawnDiff {
    /// Whether a difference satisfies the condition.
    pub fn holds(self, diff: i32) -> bool {
        match self {
            PawnDiff::Eq(m) => diff == i32::from(m),
            PawnDiff::Lt(m) => diff < i32::from(m),
            PawnDiff::Gt(m) => diff > i32::from(m),
        }
    }
}

/// `ENTRY a&b,c&d,e`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The side to move.
    pub white: SideMaterial,
    /// The other side.
    pub black: SideMaterial,
    /// The optional pawn-difference condition.
    pub diff: Option<PawnDiff>,
    /// Index of the first instruction after the ENTRY line.
    pub start: usize,
    /// Where the ENTRY line is.
    pub span: Span,
}

/// A condition argument: one of the table's conditions, possibly negated.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct CondRef {
    /// Which condition.
    pub cond: Cond,
    /// Preceded by `#`.
    pub negated: bool,
}

/// An ordering argument.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct OrderRef {
    /// Which ordering.
    pub order: Order,
    /// Preceded by `#`.
    pub reversed: bool,
}

/// Where a value comes from (or goes to).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Operand {
    /// A program variable, by its index in [`Program::variables`].
    Var(usize),
    /// A predefined read-only variable.
    Pre(Predefined),
    /// A literal, by its index in [`Program::literals`].
    Lit(usize),
}

/// One argument of an instruction after parsing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Arg {
    /// A variable or literal.
    Value(Operand),
    /// A tag, by its index in [`Program::tags`].
    Tag(usize),
    /// A condition.
    Cond(CondRef),
    /// An ordering.
    Order(OrderRef),
    /// Nothing given (an optional argument left out).
    Absent,
}

/// One instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Statement {
    /// The instruction.
    pub instr: Instr,
    /// Its arguments, as many as the instruction takes.
    pub args: Vec<Arg>,
    /// The instruction's mnemonic in the source.
    pub span: Span,
    /// The argument texts' places (for runtime errors and checks).
    pub arg_spans: Vec<Span>,
    /// The 1-based source line.
    pub line: u32,
    /// The 1-based column of the mnemonic.
    pub col: u32,
}

/// A tag: a name for an instruction index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tag {
    /// The name.
    pub name: String,
    /// The instruction it names (the number of instructions for a tag
    /// after the last one).
    pub target: Option<usize>,
    /// Where it is defined, if it is.
    pub span: Option<Span>,
}

/// A parsed and checked program.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Program {
    /// ENTRY lines in order.
    pub entries: Vec<Entry>,
    /// Instructions in order.
    pub statements: Vec<Statement>,
    /// Tags by index.
    pub tags: Vec<Tag>,
    /// Program variables by index (their names).
    pub variables: Vec<String>,
    /// Literals by index.
    pub literals: Vec<Literal>,
}
