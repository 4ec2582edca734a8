//! Lists whose fills may wait: lists that only `Get` intrinsics ever see.
//!
//! A `Get` form (`GetPassed(w, wpass)`, ...) computes a square set and
//! writes its squares into a list. When nothing in the program reads that
//! list element by element, the squares need to be in memory only when
//! someone outside compiled code looks: the embedder (through the
//! instance's memory), the interpreter, or an intrinsic called through the
//! shim that writes the same list. Cranelift's code then keeps the set as
//! a bitboard (`crate::deferred`) instead of writing its squares.
//!
//! A list qualifies when every instruction that names it is an `lref`
//! whose very next instruction is a call of one of the `Get` intrinsics
//! that no jump targets: the reference is then the intrinsic's list
//! argument (the last one, on top of the stack) and reaches nothing else,
//! and the code generators see which list the call writes (Cranelift's
//! lowering compiles the call inline or calls the shim that writes the
//! waiting fill first, baseline code always the latter:
//! [`flushes_before`]). A list reference that can
//! come from anywhere else (a list parameter, a stored or duplicated
//! reference) comes from the embedder's arguments, and the instance writes
//! every waiting fill before such a call.

use cvm::intrinsics::INTRINSICS;
use cvm::isa::{Opcode, OperandKind};
use cvm::verify::InstrInfo;
use cvm::Program;

/// At most this many lists have their fills deferred (the first ones by
/// index): the record of waiting fills has a fixed size.
pub(crate) const MAX_DEFERRED: usize = 8;

/// Whether intrinsic `id` is one of the `Get` forms whose fill compiled
/// code may defer: it writes its last argument, a list, with the squares
/// of a set and reads nothing from it.
pub(crate) fn is_get_form(id: u32) -> bool {
    matches!(
        INTRINSICS.get(id as usize).map(|info| info.name),
        Some("GetPcOnSqrs" | "GetControl" | "GetDblPwns" | "GetPassed" | "GetExchngCtrl")
    )
}

/// The module lists whose fills compiled code may defer, ascending, at
/// most [`MAX_DEFERRED`]: each is named by at least one instruction, and
/// every instruction naming it is an `lref` followed by a `Get` form.
pub(crate) fn deferred_lists(program: &Program) -> Vec<u32> {
    let module = program.module();
    let mut qualifies = vec![true; module.lists.len()];
    let mut named = vec![false; module.lists.len()];
    let mut targets: Vec<u32> = Vec::new();
    for info in program.function_infos() {
        let instrs = &info.instrs;
        targets.clear();
        targets.extend(instrs.iter().filter_map(|i| i.instr.target()));
        targets.sort_unstable();
        for (k, i) in instrs.iter().enumerate() {
            for (kind, _, list) in i.instr.operands_with_access() {
                if kind != OperandKind::List {
                    continue;
                }
                let Some(ok) = qualifies.get_mut(list as usize) else {
                    continue;
                };
                let feeds_get = i.instr.opcode == Opcode::Lref
                    && instrs.get(k + 1).is_some_and(|next| {
                        next.offset == i.offset + i.instr.size() as u32
                            && next.instr.opcode == Opcode::Intr
                            && is_get_form(next.instr.operands[0])
                            && targets.binary_search(&next.offset).is_err()
                    });
                *ok &= feeds_get;
                named[list as usize] = true;
            }
        }
    }
    (0..module.lists.len())
        .filter(|&l| qualifies[l] && named[l])
        .take(MAX_DEFERRED)
        .map(|l| l as u32)
        .collect()
}

/// Whether instruction `k` of a function (`instrs`) is a call that writes
/// one of the `deferred` lists: an `intr` right after `lref` of such a
/// list (the only way a deferred list reaches an intrinsic).
pub(crate) fn flushes_before(instrs: &[InstrInfo], k: usize, deferred: &[u32]) -> bool {
    k.checked_sub(1)
        .and_then(|j| instrs.get(j))
        .zip(instrs.get(k))
        .is_some_and(|(prev, this)| {
            this.instr.opcode == Opcode::Intr
                && prev.instr.opcode == Opcode::Lref
                && deferred.contains(&prev.instr.operands[0])
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use cvm::asm::assemble;

    fn deferred(src: &str) -> Vec<u32> {
        let program = Program::new(assemble(src).expect("assembles")).expect("verifies");
        deferred_lists(&program)
    }

    #[test]
    fn a_list_only_get_forms_fill_is_deferred_and_one_read_is_not() {
        let src = r#"
.list only 10
.list read 10
.entry main
.func main params 0 lists 0 locals 0 stack 3 value
    push 0
    lref only
    intr GetPassed
    push 1
    lref read
    intr GetPassed
    add
    push 0
    lde read
    add
    retv
.end
"#;
        assert_eq!(deferred(src), vec![0]);
    }

    #[test]
    fn a_list_passed_on_or_counted_is_not_deferred() {
        let src = r#"
.list passed 10
.list counted 10
.entry main
.func main params 0 lists 0 locals 0 stack 3 value
    lref passed
    call f
    pop
    push 0
    lref counted
    intr GetPassed
    pop
    lref counted
    intr ListLen
    retv
.end
.func f params 0 lists 1 locals 0 stack 2 value
    push 0
    retv
.end
"#;
        assert_eq!(deferred(src), Vec::<u32>::new());
    }
}
