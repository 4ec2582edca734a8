//! Lists whose fills may wait: lists only square-set fills and square-set
//! readers ever see.
//!
//! A `Get` form (`GetPassed(w, wpass)`, ...) computes a square set and
//! writes its squares into a list; so do the line walkers (`GetDwnSqrs`,
//! `GetUpSqrs`, `GetLSqrs`, `GetRSqrs`), from the square outward, so that
//! two of them write their squares descending. When nothing in the program
//! reads that list element by element, the squares need to be in memory
//! only when someone outside compiled code looks: the embedder (through
//! the instance's memory), the interpreter, or an intrinsic called through
//! the shim that writes the same list. Cranelift's code then keeps the set
//! as a bitboard (`crate::deferred`) instead of writing its squares. An
//! intrinsic that reads its list only as a set of squares (`SetSqrs`,
//! [`cvm::intrinsics::reads_square_set`]) takes the waiting set from the
//! shim without the squares being written.
//!
//! A list qualifies when every instruction that names it is an `lref`
//! whose very next instruction is a call of one of those intrinsics
//! that no jump targets: the reference is then the intrinsic's list
//! argument (the last one, on top of the stack) and reaches nothing else,
//! and the code generators see which list the call writes or reads
//! (Cranelift's lowering compiles a fill inline or calls the shim that
//! writes the waiting fill first or reads it as a set, baseline code
//! always the latter: [`flushes_before`]). A list reference that can
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

/// How a square-set fill writes its squares.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Order {
    /// From a1 up to h8 (the `Get` forms, `GetUpSqrs`, `GetRSqrs`).
    Ascending,
    /// From h8 down to a1 (`GetDwnSqrs`, `GetLSqrs`: from the square down
    /// its file or left along its rank).
    Descending,
}

/// The order in which intrinsic `id` writes its last argument, a list,
/// when it is one of the fills compiled code may defer: it writes the
/// squares of a set and reads nothing from the list. `None` for every
/// other intrinsic.
pub(crate) fn square_fill(id: u32) -> Option<Order> {
    match INTRINSICS.get(id as usize)?.name {
        "GetPcOnSqrs" | "GetControl" | "GetDblPwns" | "GetPassed" | "GetExchngCtrl"
        | "GetUpSqrs" | "GetRSqrs" => Some(Order::Ascending),
        "GetDwnSqrs" | "GetLSqrs" => Some(Order::Descending),
        _ => None,
    }
}

/// Whether a call of intrinsic `id` may name a deferred list: it fills it
/// with a square set or reads it as one.
fn sees_as_set(id: u32) -> bool {
    square_fill(id).is_some() || cvm::intrinsics::reads_square_set(id)
}

/// The module lists whose fills compiled code may defer, ascending, at
/// most [`MAX_DEFERRED`]: each is filled by at least one square-set fill,
/// and every instruction naming it is an `lref` followed by a square-set
/// fill or a square-set reader.
pub(crate) fn deferred_lists(program: &Program) -> Vec<u32> {
    let module = program.module();
    let mut qualifies = vec![true; module.lists.len()];
    let mut filled = vec![false; module.lists.len()];
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
                let named_as_set = i.instr.opcode == Opcode::Lref
                    && instrs.get(k + 1).is_some_and(|next| {
                        next.offset == i.offset + i.instr.size() as u32
                            && next.instr.opcode == Opcode::Intr
                            && sees_as_set(next.instr.operands[0])
                            && targets.binary_search(&next.offset).is_err()
                    });
                *ok &= named_as_set;
                filled[list as usize] |= named_as_set
                    && instrs
                        .get(k + 1)
                        .is_some_and(|next| square_fill(next.instr.operands[0]).is_some());
            }
        }
    }
    (0..module.lists.len())
        .filter(|&l| qualifies[l] && filled[l])
        .take(MAX_DEFERRED)
        .map(|l| l as u32)
        .collect()
}

/// Whether instruction `k` of a function (`instrs`) is a call that writes
/// or reads one of the `deferred` lists: an `intr` right after `lref` of
/// such a list (the only way a deferred list reaches an intrinsic).
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

/// Whether any fill of list `list` in the functions `infos` writes its
/// squares descending ([`square_fill`]): the record of its waiting fill
/// then keeps the order.
pub(crate) fn fills_descending(infos: &[cvm::verify::FunctionInfo], list: u32) -> bool {
    infos.iter().any(|info| {
        info.instrs.windows(2).any(|w| {
            w[0].instr.opcode == Opcode::Lref
                && w[0].instr.operands[0] == list
                && w[1].instr.opcode == Opcode::Intr
                && square_fill(w[1].instr.operands[0]) == Some(Order::Descending)
        })
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

    #[test]
    fn a_list_line_walkers_fill_and_set_sqrs_reads_is_deferred_with_its_order() {
        let src = r#"
.list walked 10
.list up 10
.list other 10
.list read_only 3 = 4 5
.entry main
.func main params 0 lists 0 locals 0 stack 4 value
    push 12
    lref walked
    intr GetDwnSqrs
    push 12
    lref up
    intr GetUpSqrs
    add
    push 0x206
    push 5
    lref walked
    intr SetSqrs
    push 0x206
    push 5
    lref other
    intr SetMvs
    push 0x206
    push 5
    lref read_only
    intr SetSqrs
    retv
.end
"#;
        let program = Program::new(assemble(src).expect("assembles")).expect("verifies");
        assert_eq!(deferred_lists(&program), vec![0, 1]);
        assert!(fills_descending(program.function_infos(), 0));
        assert!(!fills_descending(program.function_infos(), 1));
    }
}
