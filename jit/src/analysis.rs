//! Whole-program facts the compiler and the instance need beyond what the
//! verifier records: which lists are constant, and how deep calls can nest.
//!
//! *Constant lists.* A list whose contents no instruction or intrinsic can
//! change keeps the module's initial values for ever, so a pattern call on
//! it can be folded into bitboard masks at compile time. A list is constant
//! when nothing stores into it by name (`ste`, `ste.l`) and every reference
//! to it (`lref`) goes straight, within one basic block, into a read-only
//! list parameter of an intrinsic, or is dropped. Any other use (a call, a
//! store through the reference, a `Get` intrinsic, a reference that lives
//! across a jump) makes it variable. The one remaining way in is the
//! embedder: passing a list as an argument to a function that may write
//! through list references ([`ListFacts::writes_through_refs`]) or
//! changing memory directly; the instance checks both before a run.
//!
//! *Depth bounds.* When no recursion is reachable from a function, the
//! deepest nesting a call to it can reach is the longest call chain, known
//! at compile time; the instance then reserves native stack for that many
//! frames instead of for the whole depth limit.

use cvm::intrinsics::{ParamKind, INTRINSICS};
use cvm::isa::{Effect, Flow, Opcode};
use cvm::Program;

/// What the analysis learned about the module's lists.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ListFacts {
    /// `constant[l]`: list `l` can only change through the embedder.
    pub constant: Vec<bool>,
    /// Whether some reachable code writes through a list reference it did
    /// not make with `lref` itself (a list parameter): `stx`, `stx.l` or a
    /// `Get` intrinsic on one.
    pub writes_through_refs: bool,
}

/// Finds the constant lists of a verified program.
pub(crate) fn list_facts(program: &Program) -> ListFacts {
    let module = program.module();
    let mut constant = vec![true; module.lists.len()];
    let mut writes_through_refs = false;
    for (f, info) in module.functions.iter().zip(program.function_infos()) {
        let height = info.max_depth.max(f.max_stack) as usize + 1;
        // The list a stack slot holds when it came from `lref` in this block.
        let mut origin: Vec<Option<u32>> = vec![None; height];
        let escape = |origin: &mut [Option<u32>], constant: &mut [bool], below: usize| {
            for o in origin.iter_mut().take(below) {
                if let Some(l) = o.take() {
                    constant[l as usize] = false;
                }
            }
        };
        let mut leaders = std::collections::HashSet::new();
        for i in &info.instrs {
            if i.depth.is_some() {
                if let Some(t) = i.instr.target() {
                    leaders.insert(t);
                }
            }
        }
        let mut after_branch = true;
        for i in &info.instrs {
            let Some(d) = i.depth else { continue };
            let d = d as usize;
            if after_branch || leaders.contains(&i.offset) {
                escape(&mut origin, &mut constant, height);
            }
            let instr = i.instr;
            let op = instr.opcode.info();
            after_branch = op.flow != Flow::Next;
            match instr.opcode {
                Opcode::Ste | Opcode::SteL => constant[instr.operands[0] as usize] = false,
                Opcode::Stx => {
                    match origin[d - 3].take() {
                        Some(l) => constant[l as usize] = false,
                        None => writes_through_refs = true,
                    }
                    origin[d - 2] = None;
                    origin[d - 1] = None;
                    continue;
                }
                Opcode::StxL => writes_through_refs = true,
                _ => {}
            }
            match op.effect {
                Effect::Fixed(pops, pushes) => {
                    // Only `ldx` pops a list among these (and only reads it).
                    for o in origin.iter_mut().skip(d - pops.len()).take(pops.len()) {
                        *o = None;
                    }
                    let base = d - pops.len();
                    for k in 0..pushes.len() {
                        origin[base + k] = None;
                    }
                    if instr.opcode == Opcode::Lref {
                        origin[d] = Some(instr.operands[0]);
                    }
                }
                Effect::LoadLocal => origin[d] = None,
                Effect::PopAny => origin[d - 1] = None,
                Effect::DupAny => origin[d] = origin[d - 1],
                Effect::SwapAny => origin.swap(d - 2, d - 1),
                Effect::Call => {
                    let callee = &module.functions[instr.operands[0] as usize];
                    let n = callee.arity() as usize;
                    escape(&mut origin[d - n..d], &mut constant, n);
                }
                Effect::Intrinsic => {
                    let info = &INTRINSICS[instr.operands[0] as usize];
                    let n = info.params.len();
                    for (k, p) in info.params.iter().enumerate() {
                        let slot = &mut origin[d - n + k];
                        if let ParamKind::List { out: true, .. } = p.kind {
                            match slot.take() {
                                Some(l) => constant[l as usize] = false,
                                None => writes_through_refs = true,
                            }
                        }
                        *slot = None;
                    }
                }
                Effect::Case | Effect::ForStep => {}
            }
            if matches!(op.flow, Flow::Branch | Flow::Jump) {
                escape(&mut origin, &mut constant, height);
            }
        }
    }
    ListFacts {
        constant,
        writes_through_refs,
    }
}

/// For each function, the deepest call nesting (in frames, the function's
/// own included) that a call to it can reach, or `None` when recursion is
/// reachable from it.
pub(crate) fn depth_bounds(program: &Program) -> Vec<Option<u32>> {
    let module = program.module();
    let n = module.functions.len();
    let callees: Vec<Vec<u32>> = program
        .function_infos()
        .iter()
        .map(|info| {
            let mut c: Vec<u32> = info
                .instrs
                .iter()
                .filter(|i| i.depth.is_some() && i.instr.opcode == Opcode::Call)
                .map(|i| i.instr.operands[0])
                .collect();
            c.sort_unstable();
            c.dedup();
            c
        })
        .collect();
    // Iterative depth-first search: 0 = unvisited, 1 = on the path, 2 = done.
    let mut state = vec![0u8; n];
    let mut bound: Vec<Option<u32>> = vec![None; n];
    for root in 0..n {
        if state[root] != 0 {
            continue;
        }
        let mut path: Vec<(usize, usize)> = vec![(root, 0)];
        state[root] = 1;
        while let Some(&mut (f, ref mut next)) = path.last_mut() {
            if let Some(&c) = callees[f].get(*next) {
                *next += 1;
                let c = c as usize;
                if state[c] == 0 {
                    state[c] = 1;
                    path.push((c, 0));
                }
                // A callee on the path is a cycle: `f` stays unbounded,
                // which the final fold below records.
                continue;
            }
            path.pop();
            state[f] = 2;
            let mut deepest = Some(0u32);
            for &c in &callees[f] {
                let c = c as usize;
                let b = if state[c] == 2 { bound[c] } else { None };
                deepest = match (deepest, b) {
                    (Some(x), Some(y)) => Some(x.max(y)),
                    _ => None,
                };
            }
            bound[f] = deepest.and_then(|d| d.checked_add(1));
        }
    }
    bound
}

#[cfg(test)]
mod tests {
    use super::*;
    use cvm::asm::assemble;

    fn program(src: &str) -> Program {
        Program::new(assemble(src).expect("assembles")).expect("verifies")
    }

    #[test]
    fn bounds_follow_the_call_graph() {
        let p = program(
            "
.func main params 0 lists 0 locals 0 stack 1 proc
    call a
    call r
    ret
.end
.func a params 0 lists 0 locals 0 stack 1 proc
    call b
    ret
.end
.func b params 0 lists 0 locals 0 stack 1 proc
    ret
.end
.func r params 0 lists 0 locals 0 stack 1 proc
    call r
    ret
.end
",
        );
        assert_eq!(depth_bounds(&p), vec![None, Some(2), Some(1), None]);
    }

    #[test]
    fn lists_used_only_by_read_only_intrinsics_are_constant() {
        let p = program(
            "
.list pat 4 = 28 27
.list out 4
.list stored 2
.list passed 2
.func main params 0 lists 0 locals 0 stack 3 proc
    push 514
    lref pat
    intr PcOnSqrs
    pop
    push 514
    lref out
    intr GetPcOnSqrs
    pop
    push 0
    push 5
    ste stored
    lref passed
    call f
    ret
.end
.func f params 0 lists 1 locals 0 stack 1 proc
    ret
.end
",
        );
        let facts = list_facts(&p);
        assert_eq!(facts.constant, vec![true, false, false, false]);
        assert!(!facts.writes_through_refs);
    }

    #[test]
    fn stores_through_parameters_are_noticed() {
        let p = program(
            "
.list l 2
.func main params 0 lists 0 locals 0 stack 1 proc
    lref l
    call f
    ret
.end
.func f params 0 lists 1 locals 0 stack 3 proc
    ldl 0
    push 0
    push 1
    stx
    ret
.end
",
        );
        let facts = list_facts(&p);
        assert_eq!(facts.constant, vec![false]);
        assert!(facts.writes_through_refs);
    }
}
