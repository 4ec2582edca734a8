//! Intrinsics: the built-in functions a CVM program calls with `intr N`.
//!
//! [`INTRINSICS`] is the one table of them. Each entry gives the Che++ name,
//! the parameters (with the kind of value the Che++ compiler accepts for
//! each, from which the CVM-level stack signature is derived: list kinds are
//! list references, everything else an int), whether a result is pushed, and
//! the Rust function that implements it. Both backends call the same Rust
//! functions, so an intrinsic behaves identically under the interpreter and
//! the JIT.

use crate::chess::advice::AdviceTable;
use crate::isa::Ty;
use crate::runtime::{Host, Memory, Output, TrapKind};

/// What the Che++ compiler accepts for an intrinsic parameter. At the CVM
/// level every kind is an int except the list kinds, which are list
/// references.
///
/// For the scalar chess kinds the compiler accepts a literal of that kind or
/// any integer expression (a variable holding a square, say), and rejects a
/// literal of another kind. A `CompOp` parameter takes one of the operator
/// tokens `= <> < <= > >=`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// Any integer expression.
    Int,
    /// A colour: `w`, `b` or `?`.
    Colour,
    /// A piece: `wP`, `?N`, `b?`, ...
    Piece,
    /// A compoperator.
    CompOp,
    /// A square, possibly with wildcards.
    Square,
    /// A list whose elements are of the given kind: a list variable, a list
    /// parameter, or (unless `out`) a space-separated sequence of literals
    /// that the compiler turns into a constant list. `out` lists are written
    /// by the intrinsic (the `Get` forms and the list functions) and must be
    /// list variables or list parameters.
    List {
        /// The element kind.
        elem: ElemKind,
        /// Whether the intrinsic writes the list.
        out: bool,
    },
}

impl ParamKind {
    /// The CVM stack type of an argument of this kind.
    pub fn ty(self) -> Ty {
        match self {
            ParamKind::List { .. } => Ty::List,
            _ => Ty::Int,
        }
    }
}

/// The kind of the elements of a list parameter.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ElemKind {
    /// Any values.
    Any,
    /// Squares (with wildcards).
    Square,
    /// Moves (with wildcards).
    Move,
    /// Pieces.
    Piece,
    /// Columns (`aline` .. `hline`, `.line`).
    Column,
    /// Board sides.
    BoardSide,
    /// Square colours.
    SquareColour,
}

/// The state an intrinsic may read and change.
pub struct Ctx<'a> {
    /// Globals and lists of the running instance.
    pub memory: &'a mut Memory,
    /// Where output goes.
    pub output: &'a mut dyn Output,
    /// The embedder.
    pub host: &'a mut dyn Host,
    /// The advice table the advice functions write.
    pub advice: &'a mut AdviceTable,
}

/// The Rust implementation of an intrinsic: gets the arguments (list
/// arguments as list indices, valid by verification) and returns the result
/// (ignored when the intrinsic has none) or an error.
pub type IntrinsicFn = fn(&mut Ctx<'_>, &[i32]) -> Result<i32, TrapKind>;

/// One parameter of an intrinsic.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Param {
    /// The name used in documentation and diagnostics.
    pub name: &'static str,
    /// What it accepts.
    pub kind: ParamKind,
}

/// One intrinsic.
#[derive(Copy, Clone, Debug)]
pub struct IntrinsicInfo {
    /// The Che++ name.
    pub name: &'static str,
    /// The parameters, in order.
    pub params: &'static [Param],
    /// Whether the intrinsic pushes a result.
    pub returns: bool,
    /// The implementation.
    pub func: IntrinsicFn,
    /// One sentence saying what it does.
    pub doc: &'static str,
}

const fn p(name: &'static str, kind: ParamKind) -> Param {
    Param { name, kind }
}

const LIST_ANY: ParamKind = ParamKind::List {
    elem: ElemKind::Any,
    out: false,
};

/// The most parameters any intrinsic takes.
pub const MAX_PARAMS: usize = 8;

/// Every intrinsic; the index in this table is the `intr` operand.
pub const INTRINSICS: &[IntrinsicInfo] = &[IntrinsicInfo {
    name: "ListLen",
    params: &[p("list", LIST_ANY)],
    returns: true,
    func: list_len,
    doc: "Number of elements before the first end marker (-1), bounded by the list's slots.",
}];

/// Looks an intrinsic up by its Che++ name.
pub fn by_name(name: &str) -> Option<(u32, &'static IntrinsicInfo)> {
    INTRINSICS
        .iter()
        .enumerate()
        .find(|(_, i)| i.name == name)
        .map(|(n, i)| (n as u32, i))
}

fn list_len(ctx: &mut Ctx<'_>, args: &[i32]) -> Result<i32, TrapKind> {
    Ok(ctx.memory.list_elements(args[0] as u32).len() as i32)
}
