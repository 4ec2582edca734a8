//! The checked program: the syntax tree after name resolution and type
//! checking, in the terms the code generator needs.
//!
//! Names are gone: variables are frame slots or global indices, lists are
//! module lists or list parameters, calls name a routine or an intrinsic by
//! index, constants are folded to numbers, labels are numbered. Anything
//! that reaches this form has passed every static check, so code
//! generation cannot fail on it except for the one property only the
//! finished control flow shows (a function that may end without a value).

use super::ast::{BinOp, UnOp};
use super::source::Span;

/// A checked program.
#[derive(Clone, Debug, Default)]
pub struct Program {
    /// Module globals in index order.
    pub globals: Vec<Global>,
    /// Module lists in index order (declared lists and the anonymous ones
    /// made for literal arguments).
    pub lists: Vec<List>,
    /// Module texts in index order.
    pub texts: Vec<Text>,
    /// Routines in index order (the module's function order).
    pub routines: Vec<Routine>,
    /// The index of `main`.
    pub main: Option<u32>,
}

/// A global variable.
#[derive(Clone, Debug)]
pub struct Global {
    /// Its name.
    pub name: String,
    /// Initial value.
    pub init: i32,
}

/// A module list.
#[derive(Clone, Debug)]
pub struct List {
    /// Its name (`lit.N` / `tmp.N` for anonymous lists).
    pub name: String,
    /// Declared number of elements.
    pub capacity: u32,
    /// Initial values.
    pub init: Vec<i32>,
}

/// A module text.
#[derive(Clone, Debug)]
pub struct Text {
    /// Its name.
    pub name: String,
    /// The text.
    pub text: String,
}

/// A routine.
#[derive(Clone, Debug)]
pub struct Routine {
    /// Its name.
    pub name: String,
    /// Function (true) or procedure.
    pub returns_value: bool,
    /// Number of value parameters (slots `0..value_params`).
    pub value_params: u32,
    /// Number of list parameters (the slots after the value parameters).
    pub list_params: u32,
    /// Names of the parameters and named locals, in slot order.
    pub slot_names: Vec<String>,
    /// The body.
    pub body: Vec<Stmt>,
    /// Number of distinct labels used by `Label`/`Goto`.
    pub labels: u32,
    /// The closing `end`, where a missing `return` is reported.
    pub end: Span,
}

/// A statement with its source place.
#[derive(Clone, Debug)]
pub struct Stmt {
    /// What it does.
    pub kind: StmtKind,
    /// Where it came from.
    pub span: Span,
}

/// The statements.
#[derive(Clone, Debug)]
pub enum StmtKind {
    /// Evaluate for the effect; a result, if any, is discarded.
    Expr(Expr),
    /// Conditions with branches, then the else branch.
    If(Vec<(Expr, Vec<Stmt>)>, Vec<Stmt>),
    /// A switch.
    Switch {
        /// The selector.
        selector: Expr,
        /// The arms in source order; control falls from one into the next.
        arms: Vec<Arm>,
    },
    /// Leave the innermost loop or switch.
    Break,
    /// Jump to a label.
    Goto(u32),
    /// A label.
    Label(u32),
    /// Return, with a value in functions.
    Return(Option<Expr>),
    /// `while`.
    While(Expr, Vec<Stmt>),
    /// `repeat ... until`.
    Repeat(Vec<Stmt>, Expr),
    /// `for var in list do ... end`.
    For {
        /// The loop variable.
        var: Place,
        /// The list.
        list: ListRef,
        /// The body.
        body: Vec<Stmt>,
    },
    /// `write`.
    Write(Expr),
    /// `TextOut(t)`.
    TextOut(u32),
}

/// One arm of a switch: its case values (and whether it is the default)
/// and the statements that follow them.
#[derive(Clone, Debug)]
pub struct Arm {
    /// The case values leading here.
    pub values: Vec<i32>,
    /// Whether `default:` leads here.
    pub default: bool,
    /// The statements.
    pub body: Vec<Stmt>,
}

/// A list operand.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ListRef {
    /// A module list.
    Global(u32),
    /// A list parameter in this frame slot.
    Param(u32),
}

/// Something that can be assigned.
#[derive(Clone, Debug)]
pub enum Place {
    /// A value parameter or local.
    Local(u32),
    /// A global variable.
    Global(u32),
    /// A list element.
    Elem(ListRef, Box<Expr>),
}

/// An expression; every expression yields one int.
///
/// Binary chains are as deep as they are long (see
/// [`ast::Expr`](super::ast::Expr)): passes walk their left operands in a
/// loop, and dropping one unlinks it node by node.
#[derive(Clone, Debug)]
pub struct Expr {
    /// What it computes.
    pub kind: ExprKind,
    /// Where it came from.
    pub span: Span,
}

impl Drop for Expr {
    /// Unlinks a binary chain node by node, so that dropping a chain of
    /// any length does not recurse once per operator.
    fn drop(&mut self) {
        let mut next = take_binary_left(&mut self.kind);
        while let Some(mut node) = next {
            next = take_binary_left(&mut node.kind);
        }
    }
}

/// Moves the left operand out of a binary node when it is itself a binary
/// node (leaving a constant in its place).
fn take_binary_left(kind: &mut ExprKind) -> Option<Expr> {
    match kind {
        ExprKind::Binary(_, a, _) if matches!(a.kind, ExprKind::Binary(..)) => {
            let leaf = Expr {
                kind: ExprKind::Const(0),
                span: a.span,
            };
            Some(std::mem::replace(&mut **a, leaf))
        }
        _ => None,
    }
}

/// The expressions.
#[derive(Clone, Debug)]
pub enum ExprKind {
    /// A constant.
    Const(i32),
    /// Read a frame slot.
    Local(u32),
    /// Read a global.
    Global(u32),
    /// Read a list element.
    Elem(ListRef, Box<Expr>),
    /// Call a routine. `returns` tells whether it leaves a value.
    Call {
        /// Function index.
        func: u32,
        /// Arguments in parameter order.
        args: Vec<Arg>,
        /// Whether a value is returned.
        returns: bool,
    },
    /// Call an intrinsic.
    Intrinsic {
        /// Intrinsic number.
        id: u32,
        /// Arguments in parameter order.
        args: Vec<Arg>,
        /// Whether a value is returned.
        returns: bool,
    },
    /// A unary operator.
    Unary(UnOp, Box<Expr>),
    /// A binary operator (`and`/`or` short-circuit).
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// Assignment; yields the assigned value.
    Assign(Place, Box<Expr>),
    /// `++`/`--`, prefix (yields the new value) or postfix (the old one).
    IncDec {
        /// The variable or element.
        place: Place,
        /// Increment rather than decrement.
        inc: bool,
        /// Prefix form.
        prefix: bool,
    },
}

/// A call argument.
#[derive(Clone, Debug)]
pub enum Arg {
    /// An int.
    Value(Expr),
    /// A list reference.
    List(ListRef),
    /// A one-element list built at the call from a computed value: the
    /// value is stored into module list `list` element 0, then the list is
    /// passed.
    Temp {
        /// The module list holding the element.
        list: u32,
        /// The value.
        value: Expr,
    },
}
