//! The abstract operand stack of the loop analysis: what each stack value
//! is known to be in terms of the loop's slots (a constant, a list, a slot
//! plus a constant, a comparison of a slot with a bound), followed through
//! one basic block at a time.

use super::{Bound, ListRef};
use cvm::intrinsics::INTRINSICS;
use cvm::isa::{Compare, Effect, Form, Instr, Opcode, Rel};

/// The comparison of a comparison-family opcode, when its relation is an
/// ordering (`<`, `<=`, `>`, `>=`): from the instruction table.
fn order_of(op: Opcode) -> Option<Compare> {
    op.compare().filter(|c| c.rel.is_order())
}

/// What the analysis knows about an operand-stack value.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum AVal {
    Unknown,
    Const(i32),
    List(ListRef),
    /// The value a slot had (at the start of the iteration, or after its
    /// step when `post`), plus `off` (wrapping), plus the value of the
    /// slot `plus` if any.
    Lin {
        slot: u32,
        post: bool,
        off: i32,
        plus: Option<u32>,
    },
    /// The 0/1 result of comparing an induction variable's value (as in
    /// `Lin`, without `plus`) with a loop-invariant bound (an ordering).
    Cond {
        slot: u32,
        post: bool,
        off: i32,
        cmp: Rel,
        bound: Bound,
    },
}

/// `a cmp b` as a comparison of a variable slot's value (slot, post, off)
/// with a loop-invariant bound, when it is one (either way round).
pub(super) fn compare(
    a: AVal,
    b: AVal,
    cmp: Rel,
    invariant: &dyn Fn(u32) -> bool,
) -> Option<(u32, bool, i32, Rel, Bound)> {
    let bound = |x: AVal| match x {
        AVal::Const(k) => Some(Bound::Imm(k)),
        AVal::Lin {
            slot,
            off,
            plus: None,
            ..
        } if invariant(slot) => Some(Bound::Slot { slot, off }),
        _ => None,
    };
    let var = |x: AVal| match x {
        AVal::Lin {
            slot,
            post,
            off,
            plus: None,
        } if !invariant(slot) => Some((slot, post, off)),
        _ => None,
    };
    match (var(a), bound(b), var(b), bound(a)) {
        (Some((slot, post, off)), Some(bd), _, _) => Some((slot, post, off, cmp, bd)),
        (_, _, Some((slot, post, off)), Some(bd)) => Some((slot, post, off, cmp.swap(), bd)),
        _ => None,
    }
}

/// The abstract effect of one instruction on the operand stack (for the
/// fall-through path; the stack is forgotten after branches anyway).
pub(super) fn transfer(
    stack: &mut Vec<AVal>,
    instr: &Instr,
    d: usize,
    lin: impl Fn(u32, i32) -> AVal,
    invariant: &dyn Fn(u32) -> bool,
) {
    let ops = instr.operands;
    let imm = ops[0] as i32;
    let pop = |stack: &mut Vec<AVal>| stack.pop().unwrap_or(AVal::Unknown);
    // An ordering's 0/1 result (from the instruction table).
    if let Some(c) = order_of(instr.opcode).filter(|c| c.form == Form::Value) {
        let b = pop(stack);
        let a = pop(stack);
        stack.push(match compare(a, b, c.rel, invariant) {
            Some((slot, post, off, cmp, bound)) => AVal::Cond {
                slot,
                post,
                off,
                cmp,
                bound,
            },
            None => AVal::Unknown,
        });
        return;
    }
    match instr.opcode {
        Opcode::Push => stack.push(AVal::Const(imm)),
        Opcode::Lref => stack.push(AVal::List(ListRef::Module(ops[0]))),
        Opcode::Ldl => stack.push(lin(ops[0], 0)),
        Opcode::LdlAddI => stack.push(match lin(ops[0], 0) {
            AVal::Lin {
                slot, post, plus, ..
            } => AVal::Lin {
                slot,
                post,
                off: ops[1] as i32,
                plus,
            },
            _ => AVal::Unknown,
        }),
        Opcode::Ldl2 => {
            stack.push(lin(ops[0], 0));
            stack.push(lin(ops[1], 0));
        }
        Opcode::Dup => {
            let a = stack.last().copied().unwrap_or(AVal::Unknown);
            stack.push(a);
        }
        Opcode::Swap => {
            let n = stack.len();
            if n >= 2 {
                stack.swap(n - 1, n - 2);
            }
        }
        Opcode::AddI => {
            let a = pop(stack);
            stack.push(add_const(a, imm));
        }
        Opcode::Add | Opcode::Sub => {
            let b = pop(stack);
            let a = pop(stack);
            let sub = instr.opcode == Opcode::Sub;
            stack.push(match (a, b) {
                (AVal::Const(x), AVal::Const(y)) => AVal::Const(if sub {
                    x.wrapping_sub(y)
                } else {
                    x.wrapping_add(y)
                }),
                (l @ AVal::Lin { .. }, AVal::Const(y)) => {
                    add_const(l, if sub { y.wrapping_neg() } else { y })
                }
                (AVal::Const(x), l @ AVal::Lin { .. }) if !sub => add_const(l, x),
                (l @ AVal::Lin { .. }, r @ AVal::Lin { .. }) if !sub => plus_slot(l, r, invariant),
                _ => AVal::Unknown,
            });
        }
        Opcode::LNot => {
            let mut a = pop(stack);
            if let AVal::Cond { cmp, .. } = &mut a {
                *cmp = cmp.negate();
            } else {
                a = AVal::Unknown;
            }
            stack.push(a);
        }
        Opcode::AddL => {
            let a = pop(stack);
            stack.push(plus_slot(a, lin(ops[0], 0), invariant));
        }
        Opcode::Tee => {}
        _ => {
            let info = instr.opcode.info();
            let (pops, pushes) = match info.effect {
                Effect::Fixed(p, q) => (p.len(), q.len()),
                Effect::PopAny => (1, 0),
                Effect::Intrinsic => {
                    let i = INTRINSICS.get(ops[0] as usize);
                    (
                        i.map_or(d, |i| i.params.len()),
                        i.map_or(0, |i| usize::from(i.returns)),
                    )
                }
                // Anything else ends its block or is handled above; forget
                // the stack to be safe.
                _ => (d, 0),
            };
            let keep = stack.len().saturating_sub(pops);
            stack.truncate(keep);
            stack.extend(std::iter::repeat_n(AVal::Unknown, pushes));
        }
    }
}

/// `a + b` for two slot values, one of them a slot the loop does not write
/// (a slot plus a loop-invariant step), when that is what they are.
fn plus_slot(a: AVal, b: AVal, invariant: &dyn Fn(u32) -> bool) -> AVal {
    let (var, step) = match (a, b) {
        (AVal::Lin { slot: t, .. }, v) if invariant(t) => (v, a),
        (v, _) => (v, b),
    };
    match (var, step) {
        (
            AVal::Lin {
                slot,
                post,
                off,
                plus: None,
            },
            AVal::Lin {
                slot: t,
                plus: None,
                off: 0,
                ..
            },
        ) if invariant(t) && t != slot => AVal::Lin {
            slot,
            post,
            off,
            plus: Some(t),
        },
        _ => AVal::Unknown,
    }
}

/// `a + k` (wrapping) for a known form of `a`.
fn add_const(a: AVal, k: i32) -> AVal {
    match a {
        AVal::Const(x) => AVal::Const(x.wrapping_add(k)),
        AVal::Lin {
            slot,
            post,
            off,
            plus,
        } => AVal::Lin {
            slot,
            post,
            off: off.wrapping_add(k),
            plus,
        },
        _ => AVal::Unknown,
    }
}
