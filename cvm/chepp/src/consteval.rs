//! Constant expressions: `const` values, list sizes, list initialisers,
//! `case` labels and literal list arguments.
//!
//! Folding uses exactly the VM's arithmetic (wrap-around, division
//! truncating toward zero through [`cvm::runtime::arith`]), so a constant
//! computed by the compiler always equals what the program would compute at
//! run time. A value remembers its chess kind when it is a chess literal (or
//! a constant defined as one), so that lists mixing kinds can be reported.

use super::ast::{BinOp, Expr, ExprKind, UnOp};
use super::source::Span;
use cvm::runtime::arith;
use cvm_chess::lit::LitKind;

/// A folded constant: its value and, for chess literals, its kind.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Const {
    /// The value.
    pub value: i32,
    /// The chess kind, if the value is a chess literal.
    pub kind: Option<LitKind>,
}

/// Why an expression is not a usable constant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConstError {
    /// It depends on something only known at run time.
    NotConstant {
        /// The offending part.
        span: Span,
        /// What it is.
        what: String,
    },
    /// Folding failed (division by zero).
    Failed {
        /// The operator.
        span: Span,
        /// What went wrong.
        message: String,
    },
    /// A name is not declared (the caller reports it).
    Unknown {
        /// The name's place.
        span: Span,
        /// The name.
        name: String,
    },
    /// A part was already reported as an error.
    Reported,
}

/// How names are looked up while folding: `Ok(c)` for a constant,
/// `Err(Some(what))` for a name that exists but is not constant, `Err(None)`
/// for an unknown name.
pub type Lookup<'a> = dyn Fn(&str) -> Result<Const, Option<String>> + 'a;

/// Folds `e`.
pub fn eval(e: &Expr, lookup: &Lookup<'_>) -> Result<Const, ConstError> {
    let number = |value| Const { value, kind: None };
    Ok(match &e.kind {
        ExprKind::Int(v) => number(*v),
        ExprKind::Chess(kind, v) => Const {
            value: *v,
            kind: Some(*kind),
        },
        ExprKind::Name(id) => match lookup(&id.name) {
            Ok(c) => c,
            Err(Some(what)) => {
                return Err(ConstError::NotConstant {
                    span: id.span,
                    what,
                })
            }
            Err(None) => {
                return Err(ConstError::Unknown {
                    span: id.span,
                    name: id.name.clone(),
                })
            }
        },
        ExprKind::Unary(op, a) => {
            let a = eval(a, lookup)?.value;
            number(match op {
                UnOp::Neg => a.wrapping_neg(),
                UnOp::Not => i32::from(a == 0),
                UnOp::BitNot => !a,
            })
        }
        ExprKind::Binary(..) => {
            // A chain of any length: the left operands in a loop, left to
            // right; recursion only into right operands.
            let (first, links) = e.chain();
            let mut x = eval(first, lookup)?.value;
            for link in links.iter().rev() {
                let y = eval(link.right, lookup)?.value;
                x = binary(link.op, link.op_span, x, y)?;
            }
            number(x)
        }
        ExprKind::Index(..) => {
            return Err(ConstError::NotConstant {
                span: e.span,
                what: "a list element".into(),
            })
        }
        ExprKind::Call(..) => {
            return Err(ConstError::NotConstant {
                span: e.span,
                what: "a call".into(),
            })
        }
        ExprKind::Assign(..) | ExprKind::IncDec { .. } => {
            return Err(ConstError::NotConstant {
                span: e.span,
                what: "an assignment".into(),
            })
        }
        ExprKind::Error => return Err(ConstError::Reported),
    })
}

/// `x op y` with the VM's arithmetic; `op_span` is where a division by zero
/// is reported.
fn binary(op: BinOp, op_span: Span, x: i32, y: i32) -> Result<i32, ConstError> {
    Ok(match op {
        BinOp::Or => i32::from(x != 0 || y != 0),
        BinOp::And => i32::from(x != 0 && y != 0),
        BinOp::BitOr => x | y,
        BinOp::BitXor => x ^ y,
        BinOp::BitAnd => x & y,
        BinOp::Eq => i32::from(x == y),
        BinOp::Ne => i32::from(x != y),
        BinOp::Lt => i32::from(x < y),
        BinOp::Le => i32::from(x <= y),
        BinOp::Gt => i32::from(x > y),
        BinOp::Ge => i32::from(x >= y),
        BinOp::Add => x.wrapping_add(y),
        BinOp::Sub => x.wrapping_sub(y),
        BinOp::Mul => x.wrapping_mul(y),
        BinOp::Div | BinOp::Mod => {
            let r = if op == BinOp::Div {
                arith::div(x, y)
            } else {
                arith::rem(x, y)
            };
            r.ok_or_else(|| ConstError::Failed {
                span: op_span,
                message: "division by zero in a constant expression".into(),
            })?
        }
    })
}
