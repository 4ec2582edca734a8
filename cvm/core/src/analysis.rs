//! Whole-program facts about a verified module that more than one consumer
//! needs: which lists are constant.
//!
//! A list whose contents no instruction or intrinsic can change keeps the
//! module's initial values for ever, so a pattern call on it can be folded
//! into bitboard masks ahead of time (by the optimizer's `pat.all` /
//! `pat.any` forms, or by the JIT as native code). A list is constant when
//! nothing stores into it by name (`ste`, `ste.l`) and every reference to
//! it (`lref`) goes straight, within one basic block, into a read-only list
//! parameter of an intrinsic, or is dropped. A store through the reference
//! or a `Get` intrinsic on it makes it variable; so does any other use (a
//! call, a reference that lives across a jump) when the function it goes
//! into, or one that function calls, writes through a list reference of
//! unknown origin, since such a write may then reach it. The one remaining
//! way in is the embedder:
//! passing a list as an argument to a function that may write through list
//! references ([`ListFacts::writes_through_refs`]) or changing memory
//! directly; embedders that rely on the facts check both.

use crate::intrinsics::{ParamKind, INTRINSICS};
use crate::isa::{Effect, Flow, Opcode, OperandKind};
use crate::Program;

/// What the analysis learned about the module's lists.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListFacts {
    /// `constant[l]`: list `l` can only change through the embedder.
    pub constant: Vec<bool>,
    /// Whether some reachable code writes through a list reference it did
    /// not make with `lref` itself (a list parameter): `stx`, `stx.l` or a
    /// `Get` intrinsic on one.
    pub writes_through_refs: bool,
}

/// Finds the constant lists of a verified program.
pub fn list_facts(program: &Program) -> ListFacts {
    let module = program.module();
    let nfuncs = module.functions.len();
    let mut constant = vec![true; module.lists.len()];
    // `writes[f]`: function `f` itself writes through a list reference of
    // unknown origin.
    let mut writes = vec![false; nfuncs];
    // `callers[f]`: the functions that call `f` (with repeats).
    let mut callers: Vec<Vec<u32>> = vec![Vec::new(); nfuncs];
    // (list, function): a reference to the list went where the analysis no
    // longer follows it (into a call of the function, or across a jump in
    // it). Only a write through a reference of unknown origin can then
    // reach the list, in that function or in what it calls; so the list is
    // variable only when one of those has such a write.
    let mut escapes: Vec<(u32, u32)> = Vec::new();
    // The list a stack slot holds when it came from `lref` in this block
    // (one buffer for all functions).
    let mut origin: Vec<Option<u32>> = Vec::new();
    // The jump targets of the function, sorted (one buffer for all).
    let mut leaders: Vec<u32> = Vec::new();
    let escape = |origin: &mut [Option<u32>], escapes: &mut Vec<(u32, u32)>, into: u32| {
        for o in origin.iter_mut() {
            if let Some(l) = o.take() {
                escapes.push((l, into));
            }
        }
    };
    for (index, (f, info)) in module
        .functions
        .iter()
        .zip(program.function_infos())
        .enumerate()
    {
        let me = index as u32;
        let height = info.max_depth.max(f.max_stack) as usize + 1;
        origin.clear();
        origin.resize(height, None);
        leaders.clear();
        leaders.extend(
            info.instrs
                .iter()
                .filter(|i| i.depth.is_some())
                .filter_map(|i| i.instr.target()),
        );
        leaders.sort_unstable();
        leaders.dedup();
        // The instructions come in offset order: the next leader to meet.
        let mut next_leader = 0;
        let mut after_branch = true;
        for i in &info.instrs {
            while leaders.get(next_leader).is_some_and(|&t| t < i.offset) {
                next_leader += 1;
            }
            let Some(d) = i.depth else { continue };
            let d = d as usize;
            if after_branch || leaders.get(next_leader) == Some(&i.offset) {
                escape(&mut origin, &mut escapes, me);
            }
            let instr = i.instr;
            let op = instr.opcode.info();
            after_branch = op.flow != Flow::Next;
            // Stores into lists named by operands, as the table says.
            for (kind, access, v) in instr.operands_with_access() {
                match kind {
                    OperandKind::List if access.writes() => constant[v as usize] = false,
                    OperandKind::ListLocal if access.writes() => writes[index] = true,
                    OperandKind::List
                    | OperandKind::ListLocal
                    | OperandKind::Imm
                    | OperandKind::Local
                    | OperandKind::IntLocal
                    | OperandKind::Global
                    | OperandKind::Text
                    | OperandKind::Func
                    | OperandKind::Target
                    | OperandKind::Intrinsic => {}
                }
            }
            // Stores through a list reference on the stack (the only
            // instruction that writes through a popped reference; a test
            // below keeps it so).
            if instr.opcode == Opcode::Stx {
                match origin[d - 3].take() {
                    Some(l) => constant[l as usize] = false,
                    None => writes[index] = true,
                }
                origin[d - 2] = None;
                origin[d - 1] = None;
                continue;
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
                    let callee = instr.operands[0];
                    let n = module.functions[callee as usize].arity() as usize;
                    escape(&mut origin[d - n..d], &mut escapes, callee);
                    callers[callee as usize].push(me);
                }
                Effect::Intrinsic => {
                    let info = &INTRINSICS[instr.operands[0] as usize];
                    let n = info.params.len();
                    for (k, p) in info.params.iter().enumerate() {
                        let slot = &mut origin[d - n + k];
                        if let ParamKind::List { out: true, .. } = p.kind {
                            match slot.take() {
                                Some(l) => constant[l as usize] = false,
                                None => writes[index] = true,
                            }
                        }
                        *slot = None;
                    }
                }
                Effect::PatternMask => {
                    let info = &INTRINSICS[instr.operands[0] as usize];
                    let n = info.params.len().saturating_sub(1);
                    for o in origin.iter_mut().skip(d - n).take(n) {
                        *o = None;
                    }
                }
                Effect::Case | Effect::ForStep | Effect::ForStepBack => {}
            }
            if matches!(op.flow, Flow::Branch | Flow::Jump) {
                escape(&mut origin, &mut escapes, me);
            }
        }
    }
    let writes_through_refs = writes.contains(&true);
    // `reaches[f]`: `f` or a function it calls, directly or not, writes
    // through a reference of unknown origin (the writers' callers, found
    // backwards from the writers).
    let mut reaches = writes;
    let mut work: Vec<u32> = (0..nfuncs as u32)
        .filter(|&f| reaches[f as usize])
        .collect();
    while let Some(f) = work.pop() {
        for &c in &callers[f as usize] {
            if !reaches[c as usize] {
                reaches[c as usize] = true;
                work.push(c);
            }
        }
    }
    for (l, into) in escapes {
        if reaches[into as usize] {
            constant[l as usize] = false;
        }
    }
    ListFacts {
        constant,
        writes_through_refs,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::asm::assemble;
    use crate::isa::{Ty, OPCODES};

    /// Stores by operand come from the table; a store through a list
    /// reference popped from the stack does not, so `list_facts` handles
    /// `stx` by name. A new instruction popping a list reference must be
    /// handled there (and added here).
    #[test]
    fn only_ldx_and_stx_pop_list_references() {
        for info in OPCODES {
            if let Effect::Fixed(pops, _) = info.effect {
                if pops.contains(&Ty::List) {
                    assert!(
                        matches!(info.opcode, Opcode::Ldx | Opcode::Stx),
                        "list_facts must learn what {} does with the list it pops",
                        info.mnemonic
                    );
                }
            }
        }
    }

    fn program(src: &str) -> Program {
        Program::new(assemble(src).expect("assembles")).expect("verifies")
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
        // `passed` goes into a call, but nothing in the program writes
        // through a list reference it did not make itself.
        assert_eq!(facts.constant, vec![true, false, false, true]);
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

    #[test]
    fn a_list_passed_on_is_variable_only_where_a_writer_can_reach_it() {
        // `read` only reads its list, `outer` hands its list to `write`,
        // which writes through it: `a` (passed to `read`) stays constant,
        // `b` (passed to `outer`) does not.
        let p = program(
            "
.list a 2 = 5
.list b 2 = 6
.func main params 0 lists 0 locals 0 stack 1 proc
    lref a
    call read
    pop
    lref b
    call outer
    ret
.end
.func read params 0 lists 1 locals 0 stack 2 value
    ldl 0
    push 0
    ldx
    retv
.end
.func outer params 0 lists 1 locals 0 stack 1 proc
    ldl 0
    call write
    ret
.end
.func write params 0 lists 1 locals 0 stack 3 proc
    ldl 0
    push 0
    push 9
    stx
    ret
.end
",
        );
        let facts = list_facts(&p);
        assert_eq!(facts.constant, vec![true, false]);
        assert!(facts.writes_through_refs);
    }
}
