//! Peephole rules: short instruction sequences replaced by shorter or
//! cheaper ones.
//!
//! Rules see a window of consecutive instructions with no label between
//! them (a label is a join point: another path may arrive there with a
//! different history). The driver appends instructions one by one to the
//! output and, after each, tries every rule on the output's tail; a rule that
//! fires replaces the tail and the driver tries again, so rewrites chain
//! (`ldl i; push 10; lt; jz L` becomes `lt`+`jz` = `jge`, then `jge.i`, then
//! `jge.li`).
//!
//! Every rule preserves what a program can observe: results, output, the
//! kind of every runtime error (a trapping division is never folded), and
//! the fuel charged (a rewritten jump is taken exactly when the original
//! was, and labels keep their order, so it stays backward or forward). A
//! fused instruction takes the source position of the last instruction it
//! replaces: the one that does the work that can fail.

use super::ir::{Ins, Item};
use crate::isa::Opcode::{self, *};
use crate::isa::{Compare, Form, OperandKind, Rel};
use crate::runtime::arith;

/// What the rules may know about the function and the module.
#[derive(Clone, Debug, Default)]
pub struct Facts {
    /// `int_slot[s]`: frame slot `s` holds an int (not a list reference).
    pub int_slot: Vec<bool>,
    /// For each module list that is constant (see [`crate::list_facts`]),
    /// its slots (the elements, the end marker and the slots after it);
    /// `None` for lists that may change.
    pub constant_lists: Vec<Option<Vec<i32>>>,
}

/// Which groups of rules run.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Rules {
    /// Constant folding and algebraic simplification.
    pub fold: bool,
    /// Immediate-operand and local-operand forms (`add.i`, `add.l`,
    /// `lde.l`, ...).
    pub operand_forms: bool,
    /// Compare-and-branch fusion (`lt; jz` -> `jge`, and the `.i`/`.li`
    /// forms) and the counted-loop step `inc.jlt.li`.
    pub compare_branch: bool,
    /// Constant square lists of pattern intrinsics folded into masks
    /// (`pat.all`, `pat.any`).
    pub fold_lists: bool,
    /// Loads of int locals fused with what follows them: pairs of loads
    /// into `ldl2`, a load and `add.i` into `ldl.add.i`, a load and `retv`
    /// into `retv.l`. This runs as a last stage, after every other rule
    /// (and inlining) is done, because a fused load would hide the load
    /// from the rules above.
    pub pair_loads: bool,
}

impl Default for Rules {
    fn default() -> Self {
        Rules {
            fold: true,
            operand_forms: true,
            compare_branch: true,
            fold_lists: true,
            pair_loads: true,
        }
    }
}

/// Applies the rules to a body until none fires; returns how many
/// rewrites happened.
pub fn run(items: &mut Vec<Item>, rules: Rules, facts: &Facts) -> usize {
    let mut out: Vec<Item> = Vec::with_capacity(items.len());
    let mut rewrites = 0;
    for item in items.drain(..) {
        out.push(item);
        while let Some((n, repl)) = try_rules(&out, rules, facts) {
            let at = out.len() - n;
            let pos = match out[out.len() - 1] {
                Item::Ins(i) => i.pos,
                Item::Label(_) => None,
            };
            out.truncate(at);
            out.extend(repl.into_iter().map(|mut i| {
                i.pos = pos;
                Item::Ins(i)
            }));
            rewrites += 1;
        }
    }
    *items = out;
    rewrites
}

/// The last up-to-`n` instructions of `out`, stopping at a label.
fn tail(out: &[Item], n: usize) -> Vec<Ins> {
    let mut v = Vec::new();
    for item in out.iter().rev().take(n) {
        match item {
            Item::Ins(i) => v.push(*i),
            Item::Label(_) => break,
        }
    }
    v.reverse();
    v
}

fn ins(op: Opcode, operands: &[u32]) -> Ins {
    Ins {
        instr: crate::isa::Instr::new(op, operands),
        pos: None,
    }
}

/// Evaluates a non-trapping binary operation at compile time (a
/// comparison's relation comes from the instruction table).
pub fn fold_binary(op: Opcode, a: i32, b: i32) -> Option<i32> {
    if let Some(c) = op.compare() {
        return (c.form == Form::Value).then(|| c.rel.holds(a, b) as i32);
    }
    Some(match op {
        Add => a.wrapping_add(b),
        Sub => a.wrapping_sub(b),
        Mul => a.wrapping_mul(b),
        Div => arith::div(a, b)?,
        Mod => arith::rem(a, b)?,
        BitAnd => a & b,
        BitOr => a | b,
        BitXor => a ^ b,
        _ => return None,
    })
}

/// The comparison of `op` when it has the given form.
fn form_of(op: Opcode, form: Form) -> Option<Compare> {
    op.compare().filter(|c| c.form == form)
}

/// The relation of the branch that is a comparison `value` whose 0/1
/// result a [`Form::BranchZero`] test (`jz`, `jnz`) takes: the comparison's
/// own, or its negation when the test jumps on a false result (`lt; jnz`
/// -> `jlt`, `lt; jz` -> `jge`).
fn fused_relation(value: Compare, zero_test: Compare) -> Option<Rel> {
    zero_test.rel.on_truth().map(|on_true| {
        if on_true {
            value.rel
        } else {
            value.rel.negate()
        }
    })
}

/// Instructions that push one value and have no other effect (so they can
/// be moved past a local read and dropped when unused).
fn pure_push(i: &Ins) -> bool {
    matches!(i.op(), Push | Ldl | Ldg)
}

/// Tries every enabled rule on the tail; returns how many instructions to
/// replace and with what.
fn try_rules(out: &[Item], rules: Rules, facts: &Facts) -> Option<(usize, Vec<Ins>)> {
    let t = tail(out, 4);
    let n = t.len();
    let last = *t.last()?;
    let prev = if n >= 2 { Some(t[n - 2]) } else { None };
    let prev2 = if n >= 3 { Some(t[n - 3]) } else { None };
    let prev3 = if n >= 4 { Some(t[n - 4]) } else { None };
    let imm = |i: &Ins| i.arg(0) as i32;

    if rules.fold {
        // push a; push b; binop  ->  push (a op b)
        if let (Some(a), Some(b)) = (prev2, prev) {
            if a.op() == Push && b.op() == Push {
                if let Some(v) = fold_binary(last.op(), imm(&a), imm(&b)) {
                    return Some((3, vec![ins(Push, &[v as u32])]));
                }
                // push a; push b; jcmp L  ->  jmp L or nothing
                if let Some(c) = form_of(last.op(), Form::Branch) {
                    let t = last.arg(0);
                    let taken = c.rel.holds(imm(&a), imm(&b));
                    return Some((3, if taken { vec![ins(Jmp, &[t])] } else { vec![] }));
                }
            }
        }
        if let Some(a) = prev {
            if a.op() == Push {
                let v = imm(&a);
                // push v; jz L / jnz L / jcmp.i k L  ->  jmp L or nothing
                let decided = last
                    .op()
                    .compare()
                    .filter(|c| matches!(c.form, Form::BranchZero | Form::BranchImm));
                let folded = match (decided, last.target()) {
                    (Some(c), Some(t)) => {
                        let k = last.instr.operand(OperandKind::Imm).unwrap_or(0) as i32;
                        Some(if c.rel.holds(v, k) {
                            vec![ins(Jmp, &[t])]
                        } else {
                            vec![]
                        })
                    }
                    _ => match last.op() {
                        Neg => Some(vec![ins(Push, &[v.wrapping_neg() as u32])]),
                        BitNot => Some(vec![ins(Push, &[!v as u32])]),
                        LNot => Some(vec![ins(Push, &[(v == 0) as u32])]),
                        AddI => Some(vec![ins(Push, &[v.wrapping_add(imm(&last)) as u32])]),
                        MulI => Some(vec![ins(Push, &[v.wrapping_mul(imm(&last)) as u32])]),
                        DivI | ModI => {
                            let op = if last.op() == DivI { Div } else { Mod };
                            // A zero divisor stays, to trap at run time.
                            fold_binary(op, v, imm(&last)).map(|r| vec![ins(Push, &[r as u32])])
                        }
                        Pop => Some(vec![]),
                        // Identities: x+0, x-0, x*1, x/1, x|0, x^0, x&-1.
                        Add | Sub | BitOr | BitXor if v == 0 => Some(vec![]),
                        Mul | Div if v == 1 => Some(vec![]),
                        BitAnd if v == -1 => Some(vec![]),
                        // Strength reduction: x*-1 -> -x, x*2 -> x+x, x*0 -> 0.
                        Mul if v == -1 => Some(vec![ins(Neg, &[])]),
                        Mul if v == 2 => Some(vec![ins(Dup, &[]), ins(Add, &[])]),
                        Mul if v == 0 => Some(vec![ins(Pop, &[]), ins(Push, &[0])]),
                        _ => None,
                    },
                };
                if let Some(r) = folded {
                    return Some((2, r));
                }
            }
            // Values computed and dropped.
            if last.op() == Pop && matches!(a.op(), Ldl | Ldg | Dup | Lref) {
                return Some((2, vec![]));
            }
            // Double negations.
            if (a.op(), last.op()) == (Neg, Neg) || (a.op(), last.op()) == (BitNot, BitNot) {
                return Some((2, vec![]));
            }
            // lnot; jz -> jnz (and vice versa); lnot; lnot; jz -> jz. A
            // test that jumps when `lnot x` is true jumps when x = 0.
            let on_truth = form_of(last.op(), Form::BranchZero).and_then(|c| c.rel.on_truth());
            if let (LNot, Some(on_true)) = (a.op(), on_truth) {
                let rel = if on_true { Rel::Eq } else { Rel::Ne };
                if let Some(op) = Opcode::with_compare(rel, Form::BranchZero) {
                    return Some((2, vec![ins(op, &[last.arg(0)])]));
                }
            }
            // stl s; ldl s -> tee s
            if a.op() == Stl && last.op() == Ldl && a.arg(0) == last.arg(0) {
                return Some((2, vec![ins(Tee, &[a.arg(0)])]));
            }
            if a.op() == AddI && last.op() == AddI {
                let k = imm(&a).wrapping_add(imm(&last));
                return Some((
                    2,
                    if k == 0 {
                        vec![]
                    } else {
                        vec![ins(AddI, &[k as u32])]
                    },
                ));
            }
        }
        if last.op() == AddI && imm(&last) == 0 {
            return Some((1, vec![]));
        }
    }

    if rules.compare_branch {
        if let Some(c) = prev {
            // cmp; jnz L -> jcmp L ; cmp; jz L -> j!cmp L
            if let (Some(value), Some(test)) = (
                form_of(c.op(), Form::Value),
                form_of(last.op(), Form::BranchZero),
            ) {
                let fused = fused_relation(value, test)
                    .and_then(|rel| Opcode::with_compare(rel, Form::Branch));
                if let Some(b) = fused {
                    return Some((2, vec![ins(b, &[last.arg(0)])]));
                }
            }
            // push k; jcmp L -> jcmp.i k L
            if c.op() == Push && form_of(last.op(), Form::Branch).is_some() {
                if let Some(f) = last.op().in_form(Form::BranchImm) {
                    return Some((2, vec![ins(f, &[c.arg(0), last.arg(0)])]));
                }
            }
            // incl s; jlt.li s k L -> inc.jlt.li s k L (a counted loop's step)
            if c.op() == Incl
                && form_of(last.op(), Form::BranchLocalImm).is_some()
                && c.arg(0) == last.arg(0)
            {
                if let Some(f) = last.op().in_form(Form::IncBranchLocalImm) {
                    return Some((2, vec![ins(f, &[last.arg(0), last.arg(1), last.arg(2)])]));
                }
            }
            // ldl s; jcmp.i k L -> jcmp.li s k L
            if c.op() == Ldl && form_of(last.op(), Form::BranchImm).is_some() {
                if let Some(f) = last.op().in_form(Form::BranchLocalImm) {
                    return Some((2, vec![ins(f, &[c.arg(0), last.arg(0), last.arg(1)])]));
                }
            }
        }
    }

    if rules.operand_forms {
        if let Some(a) = prev {
            // push k; add/sub -> add.i
            if a.op() == Push && last.op() == Add {
                return Some((2, vec![ins(AddI, &[a.arg(0)])]));
            }
            if a.op() == Push && last.op() == Sub {
                return Some((2, vec![ins(AddI, &[imm(&a).wrapping_neg() as u32])]));
            }
            if a.op() == Push {
                let f = match last.op() {
                    Mul => Some(MulI),
                    Div => Some(DivI),
                    Mod => Some(ModI),
                    _ => None,
                };
                if let Some(f) = f {
                    return Some((2, vec![ins(f, &[a.arg(0)])]));
                }
            }
            // ldl s; add/sub/mul -> add.l/sub.l/mul.l s (only int slots
            // reach arithmetic, by verification).
            if a.op() == Ldl {
                let f = match last.op() {
                    Add => Some(AddL),
                    Sub => Some(SubL),
                    Mul => Some(MulL),
                    _ => None,
                };
                if let Some(f) = f {
                    return Some((2, vec![ins(f, &[a.arg(0)])]));
                }
                // ldl i; lde l -> lde.l l i
                if last.op() == Lde {
                    return Some((2, vec![ins(LdeL, &[last.arg(0), a.arg(0)])]));
                }
            }
        }
        // ldl p; ldl i; ldx -> ldx.l p i
        if let (Some(p), Some(i)) = (prev2, prev) {
            if p.op() == Ldl && i.op() == Ldl && last.op() == Ldx {
                return Some((3, vec![ins(LdxL, &[p.arg(0), i.arg(0)])]));
            }
            // ldl i; X; ste l -> X; ste.l l i   (X pushes one value and
            // writes nothing, so moving the index read past it is safe)
            if p.op() == Ldl && pure_push(&i) && last.op() == Ste {
                return Some((3, vec![i, ins(SteL, &[last.arg(0), p.arg(0)])]));
            }
        }
        // ldl p; ldl i; X; stx -> X; stx.l p i
        if let (Some(p), Some(i), Some(x)) = (prev3, prev2, prev) {
            if p.op() == Ldl && i.op() == Ldl && pure_push(&x) && last.op() == Stx {
                return Some((4, vec![x, ins(StxL, &[p.arg(0), i.arg(0)])]));
            }
        }
    }

    if rules.fold_lists {
        if let Some(r) = prev {
            if r.op() == Lref && last.op() == Intr {
                if let Some(folded) = fold_pattern(last.arg(0), r.arg(0), facts) {
                    return Some((2, vec![folded]));
                }
            }
        }
    }

    if rules.pair_loads {
        if let Some(a) = prev {
            let int = |s: u32| facts.int_slot.get(s as usize).copied().unwrap_or(false);
            if a.op() == Ldl && last.op() == Ldl && int(a.arg(0)) && int(last.arg(0)) {
                return Some((2, vec![ins(Ldl2, &[a.arg(0), last.arg(0)])]));
            }
            // ldl s; add.i k -> ldl.add.i s k (an argument like n-1)
            if a.op() == Ldl && last.op() == AddI && int(a.arg(0)) {
                return Some((2, vec![ins(LdlAddI, &[a.arg(0), last.arg(0)])]));
            }
            // ldl s; retv -> retv.l s
            if a.op() == Ldl && last.op() == RetV && int(a.arg(0)) {
                return Some((2, vec![ins(RetVL, &[a.arg(0)])]));
            }
        }
    }
    None
}

/// `lref L; intr X` as one `pat.all`/`pat.any`, when X has a folded form
/// and the constant list L folds into a single mask with the same meaning:
/// for an or form the union of its squares; for an and form either only
/// concrete squares (every one must hold) or a single wildcard element
/// (some square of it must hold). Both forms must charge the same fuel:
/// the folded form charges the list form's cost less the scan of the list
/// ([`crate::intrinsics::cost_folded`]), so only lists short enough for
/// their scan to be free are folded.
fn fold_pattern(intrinsic: u32, list: u32, facts: &Facts) -> Option<Ins> {
    use cvm_chess::pattern::Mode;
    let slots = facts.constant_lists.get(list as usize)?.as_ref()?;
    let (mask, mode) = crate::intrinsics::fold_mask(intrinsic, slots)?;
    let op = match mode {
        Mode::All => PatAll,
        Mode::Any => PatAny,
    };
    Some(ins(op, &[intrinsic, mask as u32, (mask >> 32) as u32]))
}
