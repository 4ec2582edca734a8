//! Control-flow clean-ups: jump threading, branch-over-jump inversion,
//! jumps to the next instruction, unreachable code and unused labels.
//!
//! Fuel is charged for every taken jump whose target is not after it, so a
//! rewrite that changes which jump runs must not change how many charges a
//! path pays. Threading `A: jmp L1 ... L1: jmp L2` into `A: jmp L2` removes
//! the charge of the second jump and changes the direction of the first, so
//! it is done only when the charges before and after are equal.

use super::ir::{target_index, Body, Item, Label};
use crate::isa::Opcode;
use std::collections::{HashMap, HashSet};

/// How far jump threading follows chains of jumps.
const MAX_HOPS: usize = 8;

/// Runs every clean-up once (loop inversion only with `invert_loops`);
/// returns the number of changes.
pub fn run(body: &mut Body, invert_loops: bool) -> usize {
    let mut changes = 0;
    changes += thread_jumps(body);
    changes += invert_branch_over_jump(body);
    changes += drop_jumps_to_next(body);
    changes += drop_unreachable(body);
    changes += drop_unused_labels(body);
    if invert_loops {
        changes += invert_loops_in(body);
    }
    changes
}

/// Position (item index) of every label.
fn label_positions(body: &Body) -> HashMap<Label, usize> {
    body.items
        .iter()
        .enumerate()
        .filter_map(|(i, it)| match it {
            Item::Label(l) => Some((*l, i)),
            Item::Ins(_) => None,
        })
        .collect()
}

/// The first instruction at or after item `i`, with its index.
fn first_ins(body: &Body, mut i: usize) -> Option<(usize, &super::ir::Ins)> {
    while let Some(item) = body.items.get(i) {
        if let Item::Ins(ins) = item {
            return Some((i, ins));
        }
        i += 1;
    }
    None
}

/// Whether a jump at item `from` to label position `to` charges fuel when
/// taken. Items only keep their relative order, so comparing item indices
/// is comparing code offsets.
fn charges(from: usize, to: usize) -> bool {
    to <= from
}

fn thread_jumps(body: &mut Body) -> usize {
    let pos = label_positions(body);
    let mut changes = 0;
    for i in 0..body.items.len() {
        let Item::Ins(ins) = body.items[i] else {
            continue;
        };
        let Some(k) = target_index(ins.op()) else {
            continue;
        };
        let mut target = ins.arg(k);
        let mut cost = charges(i, pos[&target]) as u32;
        // The jump of the chain that pays the (single) charge, if any.
        let mut charger = (cost == 1).then_some(i);
        let mut via: Vec<(usize, u32, Option<usize>)> = Vec::new();
        let mut seen = HashSet::new();
        for _ in 0..MAX_HOPS {
            let at = pos[&target];
            let Some((j, next)) = first_ins(body, at) else {
                break;
            };
            if next.op() != Opcode::Jmp || !seen.insert(j) {
                break;
            }
            let t2 = next.arg(0);
            if charges(j, pos[&t2]) {
                cost += 1;
                charger.get_or_insert(j);
            }
            target = t2;
            via.push((j, cost, charger));
        }
        // Take the furthest hop whose direct jump costs what the chain did.
        let best = via
            .iter()
            .rev()
            .map(|&(j, c, charger)| {
                let Some(Item::Ins(hop)) = body.items.get(j) else {
                    return None;
                };
                Some((hop.arg(0), c, charger))
            })
            .find_map(|h| h.filter(|&(t, c, _)| charges(i, pos[&t]) as u32 == c));
        if let Some((t, _, charger)) = best {
            if t != ins.arg(k) {
                // The threaded jump now pays the charge a later jump of the
                // chain paid; running out of fuel there must still report
                // that jump's source position (a jump cannot fail otherwise).
                let charged_at = match charger.and_then(|h| body.items.get(h)) {
                    Some(Item::Ins(hop)) => Some(hop.pos),
                    _ => None,
                };
                if let Item::Ins(ins) = &mut body.items[i] {
                    ins.instr.operands[k] = t;
                    if let Some(p) = charged_at {
                        ins.pos = p;
                    }
                    changes += 1;
                }
            }
        }
    }
    changes
}

/// `jcc L1; jmp L2; L1:` -> `j!cc L2; L1:`.
fn invert_branch_over_jump(body: &mut Body) -> usize {
    let mut changes = 0;
    let mut i = 0;
    while i + 2 < body.items.len() {
        let (Item::Ins(a), Item::Ins(b), Item::Label(l1)) =
            (body.items[i], body.items[i + 1], body.items[i + 2])
        else {
            i += 1;
            continue;
        };
        let Some(neg) = a.op().negated_branch() else {
            i += 1;
            continue;
        };
        let k = target_index(a.op()).unwrap_or(0);
        if b.op() == Opcode::Jmp && a.arg(k) == l1 {
            let mut operands = a.instr.operands;
            operands[k] = b.arg(0);
            let mut fused = a;
            fused.instr = crate::isa::Instr::new(neg, &operands[..neg.info().operands.len()]);
            fused.pos = b.pos.or(a.pos);
            body.items.splice(i..i + 2, [Item::Ins(fused)]);
            changes += 1;
        }
        i += 1;
    }
    changes
}

/// `jmp L; L:` -> `L:` (a forward jump, so no fuel is lost).
fn drop_jumps_to_next(body: &mut Body) -> usize {
    let mut changes = 0;
    let mut i = 0;
    while i < body.items.len() {
        if let Item::Ins(ins) = body.items[i] {
            if ins.op() == Opcode::Jmp {
                let target = ins.arg(0);
                let mut j = i + 1;
                let mut hit = false;
                while let Some(Item::Label(l)) = body.items.get(j) {
                    if *l == target {
                        hit = true;
                    }
                    j += 1;
                }
                if hit {
                    body.items.remove(i);
                    changes += 1;
                    continue;
                }
            }
        }
        i += 1;
    }
    changes
}

/// Removes instructions after a terminator up to the next label.
fn drop_unreachable(body: &mut Body) -> usize {
    let mut changes = 0;
    let mut dead = false;
    body.items.retain(|item| match item {
        Item::Label(_) => {
            dead = false;
            true
        }
        Item::Ins(ins) => {
            if dead {
                changes += 1;
                return false;
            }
            dead = ins.op().info().flow.is_terminator();
            true
        }
    });
    changes
}

/// Removes labels nothing jumps to, so that peephole windows can span them.
fn drop_unused_labels(body: &mut Body) -> usize {
    let used: HashSet<Label> = body
        .instrs()
        .filter_map(|i| target_index(i.op()).map(|k| i.arg(k)))
        .collect();
    let before = body.items.len();
    body.items
        .retain(|item| !matches!(item, Item::Label(l) if !used.contains(l)));
    before - body.items.len()
}

/// Longest loop test copied by [`invert_loops_in`].
const MAX_TEST: usize = 4;

/// Loop inversion: `L: T; jcc E; B; jmp L; E:` becomes
/// `T; jcc E; B': B; T; j!cc B'; fuel 1; E:`, the test (a few [`pure`]
/// instructions and the branch) copied to the bottom, so each iteration runs one jump fewer and the end of the body
/// meets the test with no label between them, where the peephole rules can
/// fuse them (`incl i; jlt.li i k B'` is `inc.jlt.li`). Done only when
/// nothing else jumps to `L`.
///
/// Fuel stays exact: the original pays one charge per iteration for the
/// backward `jmp L`, including the last one, whose test then leaves. The
/// inverted loop pays one per taken backward `j!cc B'`, which is one fewer
/// (the last bottom test falls through), so the `fuel 1` on the fall-through
/// path pays the difference; leaving early (a `break` to `E`, or a zero-trip
/// loop through the top test) skips it in both versions.
fn invert_loops_in(body: &mut Body) -> usize {
    let mut uses: HashMap<Label, usize> = HashMap::new();
    for i in body.instrs() {
        if let Some(k) = target_index(i.op()) {
            *uses.entry(i.arg(k)).or_default() += 1;
        }
    }
    let mut changes = 0;
    let mut i = 0;
    while i < body.items.len() {
        if let Some((back, replacement)) = inversion_at(body, i, &uses) {
            body.items.splice(i..=back, replacement);
            changes += 1;
        }
        i += 1;
    }
    changes
}

/// The inversion of the loop whose head label is item `i`, if it is one:
/// the index of its back jump and the items replacing `i..=back`.
fn inversion_at(
    body: &mut Body,
    i: usize,
    uses: &HashMap<Label, usize>,
) -> Option<(usize, Vec<Item>)> {
    let Item::Label(head) = body.items[i] else {
        return None;
    };
    if uses.get(&head) != Some(&1) {
        return None;
    }
    // The test: up to MAX_TEST straight-line instructions ending in a
    // negatable conditional branch.
    let mut t_end = None;
    for j in i + 1..(i + 1 + MAX_TEST).min(body.items.len()) {
        let Item::Ins(ins) = body.items[j] else { break };
        if ins.op().negated_branch().is_some() {
            t_end = Some(j);
            break;
        }
        if !pure(ins.op()) {
            break;
        }
    }
    let Some(t_end) = t_end else {
        return for_inversion_at(body, i, head);
    };
    let Item::Ins(branch) = body.items[t_end] else {
        return None;
    };
    let k = target_index(branch.op())?;
    let exit = branch.arg(k);
    // The back jump: `jmp head` immediately followed by the exit label.
    let back = (t_end + 1..body.items.len().saturating_sub(1)).find(|&j| {
        matches!(body.items[j], Item::Ins(ins) if ins.op() == Opcode::Jmp && ins.arg(0) == head)
            && body.items[j + 1] == Item::Label(exit)
    })?;
    let Item::Ins(jmp) = body.items[back] else {
        return None;
    };
    let negated = branch.op().negated_branch()?;
    let top = body.new_label();
    let mut operands = branch.instr.operands;
    operands[k] = top;
    // The bottom branch charges the fuel the back jump charged, so it
    // takes the back jump's source position (the test cannot fail).
    let bottom = jmp.with(negated, &operands[..negated.info().operands.len()]);
    let test = &body.items[i + 1..t_end];
    let mut out = Vec::with_capacity(back - i + test.len() + 3);
    out.extend_from_slice(test);
    out.push(Item::Ins(branch));
    out.push(Item::Label(top));
    out.extend_from_slice(&body.items[t_end + 1..back]);
    out.extend_from_slice(test);
    out.push(Item::Ins(bottom));
    out.push(Item::Ins(jmp.with(Opcode::Fuel, &[1])));
    Some((back, out))
}

/// Instructions a copied loop test may contain: they cannot fail, charge
/// fuel or change anything a program can observe, so running the test
/// before rather than after the back jump's fuel charge is invisible even
/// when the fuel runs out right there.
fn pure(op: Opcode) -> bool {
    use Opcode::*;
    matches!(
        op,
        Push | Ldl
            | Ldl2
            | Ldg
            | Dup
            | Swap
            | Add
            | Sub
            | Mul
            | Neg
            | BitAnd
            | BitOr
            | BitXor
            | BitNot
            | Eq
            | Ne
            | Lt
            | Le
            | Gt
            | Ge
            | LNot
            | AddI
            | MulI
            | AddL
            | SubL
            | MulL
    )
}

/// For-in inversion: `L: forl l c E; B; jmp L; E:` becomes
/// `forl l c E; B': B; forl.b l c B'; fuel 1; E:` (and the same for
/// `forx`), so each iteration runs one jump fewer. `forl.b` jumps back
/// with the next element when there is one. Fuel stays exact as for
/// [`invert_loops_in`]: one charge per element in both versions.
fn for_inversion_at(body: &mut Body, i: usize, head: Label) -> Option<(usize, Vec<Item>)> {
    let Item::Ins(step) = *body.items.get(i + 1)? else {
        return None;
    };
    let back_op = match step.op() {
        Opcode::Forl => Opcode::ForlB,
        Opcode::Forx => Opcode::ForxB,
        _ => return None,
    };
    let exit = step.arg(2);
    let back = (i + 2..body.items.len().saturating_sub(1)).find(|&j| {
        matches!(body.items[j], Item::Ins(ins) if ins.op() == Opcode::Jmp && ins.arg(0) == head)
            && body.items[j + 1] == Item::Label(exit)
    })?;
    let Item::Ins(jmp) = body.items[back] else {
        return None;
    };
    let top = body.new_label();
    let mut out = Vec::with_capacity(back - i + 3);
    out.push(Item::Ins(step));
    out.push(Item::Label(top));
    out.extend_from_slice(&body.items[i + 2..back]);
    out.push(Item::Ins(
        jmp.with(back_op, &[step.arg(0), step.arg(1), top]),
    ));
    out.push(Item::Ins(jmp.with(Opcode::Fuel, &[1])));
    Some((back, out))
}
