//! One CVM instruction to Cranelift IR. [`Lower::instr`] sorts the
//! instructions into four groups, each lowered by one function: the
//! operand stack, frame slots and arithmetic ([`Lower::stack_and_arith`]),
//! globals and lists ([`Lower::memory_and_lists`]), jumps and
//! compare-and-branch forms ([`Lower::control`]), and calls, frames,
//! intrinsics and output ([`Lower::calls_and_intrinsics`], in `calls.rs`).

use super::{cond, trusted, Lower};
use crate::context::{offsets, trap, STATUS_HALT, STATUS_TRAP};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{
    types, InstBuilder, InstructionData, Opcode as ClifOpcode, Value, ValueDef,
};
use cvm::isa::{Instr, Opcode};
use cvm::runtime::ListSlice;

/// Where an instruction is lowered: its code offset, the stack depth
/// before it and the offset of the next reachable instruction.
#[derive(Copy, Clone)]
pub(super) struct At {
    pub offset: u32,
    pub d: u32,
    pub next: Option<u32>,
}

impl Lower<'_, '_> {
    /// Lowers the instruction at `offset`, with stack depth `d` before it
    /// and `next` the offset of the next reachable instruction.
    pub(super) fn instr(&mut self, offset: u32, instr: Instr, d: u32, next: Option<u32>) {
        use Opcode::*;
        let at = At { offset, d, next };
        match instr.opcode {
            Nop | Pop | Push | Dup | Swap | Ldl | Stl | Tee | Ldl2 | Incl | Decl | Add | Sub
            | Mul | BitAnd | BitOr | BitXor | Div | Mod | Neg | BitNot | Eq | Ne | Lt | Le | Gt
            | Ge | LNot | AddI | LdlAddI | MulI | DivI | ModI | AddL | SubL | MulL => {
                self.stack_and_arith(instr, at)
            }
            Ldg | Stg | Incg | Decg | Lref | Lde | Ste | LdeL | SteL | Ldx | Stx | LdxL | StxL
            | Forl | ForlB | Forx | ForxB => self.memory_and_lists(instr, at),
            Halt | Fuel | Jmp | Jz | Jnz | Case | JEq | JNe | JLt | JLe | JGt | JGe | JEqI
            | JNeI | JLtI | JLeI | JGtI | JGeI | JEqLI | JNeLI | JLtLI | JLeLI | JGtLI | JGeLI
            | IncJLtLI => self.control(instr, at),
            Call | Ret | RetV | RetVL | Enter | EnterF | Leave | Intr | PatAll | PatAny | Write
            | TextOut => self.calls_and_intrinsics(instr, at),
        }
    }

    /// The operand stack, frame slots, arithmetic and comparisons to a
    /// value: no control flow except the division-by-zero check.
    pub(super) fn stack_and_arith(&mut self, instr: Instr, at: At) {
        let At { offset, d, .. } = at;
        let ops = instr.operands;
        let imm = ops[0] as i32;
        macro_rules! bin {
            ($f:ident) => {{
                let a = self.get(d - 2);
                let b = self.get(d - 1);
                let r = self.b.ins().$f(a, b);
                self.set(d - 2, r);
            }};
        }
        match instr.opcode {
            Opcode::Nop | Opcode::Pop => {}
            Opcode::Push => self.set_const(d, imm),
            Opcode::Dup => {
                let v = self.get(d - 1);
                let k = self.known(d - 1);
                self.set(d, v);
                self.set_known(d, k);
            }
            Opcode::Swap => {
                let a = self.get(d - 2);
                let b = self.get(d - 1);
                let (ka, kb) = (self.known(d - 2), self.known(d - 1));
                self.set(d - 2, b);
                self.set(d - 1, a);
                self.set_known(d - 2, kb);
                self.set_known(d - 1, ka);
            }
            Opcode::Ldl => match self.slot_const(ops[0]) {
                Some(c) => self.set_const(d, c),
                None => {
                    let v = self.slot(ops[0]);
                    self.set(d, v);
                }
            },
            Opcode::Stl | Opcode::Tee => {
                let v = self.get(d - 1);
                self.set_slot(ops[0], v);
            }
            Opcode::Ldl2 => {
                let a = self.slot(ops[0]);
                let b = self.slot(ops[1]);
                self.set(d, a);
                self.set(d + 1, b);
            }
            Opcode::Incl | Opcode::Decl => {
                let v = self.slot(ops[0]);
                let step = if instr.opcode == Opcode::Incl { 1 } else { -1 };
                let r = self.b.ins().iadd_imm_s(v, step);
                self.set_slot(ops[0], r);
            }
            Opcode::Add => bin!(iadd),
            Opcode::Sub => bin!(isub),
            Opcode::Mul => bin!(imul),
            Opcode::BitAnd => bin!(band),
            Opcode::BitOr => bin!(bor),
            Opcode::BitXor => bin!(bxor),
            Opcode::Div | Opcode::Mod => {
                let a = self.get(d - 2);
                let b = self.get(d - 1);
                let kb = self.known(d - 1);
                let r = self.divide(a, b, kb, instr.opcode == Opcode::Mod, offset);
                self.set(d - 2, r);
            }
            Opcode::Neg => {
                let a = self.get(d - 1);
                let r = self.b.ins().ineg(a);
                self.set(d - 1, r);
            }
            Opcode::BitNot => {
                let a = self.get(d - 1);
                let r = self.b.ins().bnot(a);
                self.set(d - 1, r);
            }
            // The comparisons: condition codes from the table's relations.
            Opcode::Eq | Opcode::Ne | Opcode::Lt | Opcode::Le | Opcode::Gt | Opcode::Ge => {
                let a = self.get(d - 2);
                let b = self.get(d - 1);
                let c = self.b.ins().icmp(cond(instr.opcode), a, b);
                let r = self.bool_to_i32(c);
                self.set(d - 2, r);
            }
            Opcode::LNot => {
                let a = self.get(d - 1);
                let c = self.b.ins().icmp_imm_s(IntCC::Equal, a, 0);
                let r = self.bool_to_i32(c);
                self.set(d - 1, r);
            }
            Opcode::AddI => {
                let a = self.get(d - 1);
                let r = self.b.ins().iadd_imm_s(a, i64::from(imm));
                self.set(d - 1, r);
            }
            Opcode::LdlAddI => {
                let a = self.slot(ops[0]);
                let r = self.b.ins().iadd_imm_s(a, i64::from(ops[1] as i32));
                self.set(d, r);
            }
            Opcode::MulI => {
                let a = self.get(d - 1);
                let r = self.b.ins().imul_imm_s(a, i64::from(imm));
                self.set(d - 1, r);
            }
            Opcode::DivI | Opcode::ModI => {
                let a = self.get(d - 1);
                let b = self.b.ins().iconst(types::I32, i64::from(imm));
                let r = self.divide(a, b, Some(imm), instr.opcode == Opcode::ModI, offset);
                self.set(d - 1, r);
            }
            Opcode::AddL | Opcode::SubL | Opcode::MulL => {
                let a = self.get(d - 1);
                let s = self.slot(ops[0]);
                let r = match instr.opcode {
                    Opcode::AddL => self.b.ins().iadd(a, s),
                    Opcode::SubL => self.b.ins().isub(a, s),
                    _ => self.b.ins().imul(a, s),
                };
                self.set(d - 1, r);
            }
            other => unreachable!("{other} is not a stack or arithmetic instruction"),
        }
    }

    /// Globals and lists: loads, stores, list references and for-in steps.
    pub(super) fn memory_and_lists(&mut self, instr: Instr, at: At) {
        let At { offset, d, next } = at;
        let ops = instr.operands;
        match instr.opcode {
            Opcode::Ldg => {
                let (base, off) = self.global_addr(ops[0]);
                let v = self.b.ins().load(types::I32, trusted(), base, off);
                self.set(d, v);
            }
            Opcode::Stg => {
                let v = self.get(d - 1);
                let (base, off) = self.global_addr(ops[0]);
                self.b.ins().store(trusted(), v, base, off);
            }
            Opcode::Incg | Opcode::Decg => {
                let (base, off) = self.global_addr(ops[0]);
                let v = self.b.ins().load(types::I32, trusted(), base, off);
                let step = if instr.opcode == Opcode::Incg { 1 } else { -1 };
                let r = self.b.ins().iadd_imm_s(v, step);
                self.b.ins().store(trusted(), r, base, off);
            }
            Opcode::Lref => self.set_const(d, ops[0] as i32),
            Opcode::Lde => {
                let idx = self.get(d - 1);
                let k = self.known(d - 1);
                let at = self.list_elem(ops[0], idx, k, offset);
                let v = self.b.ins().load(types::I32, trusted(), at, 0);
                self.set(d - 1, v);
            }
            Opcode::Ste => {
                let idx = self.get(d - 2);
                let v = self.get(d - 1);
                let k = self.known(d - 2);
                let at = self.list_elem(ops[0], idx, k, offset);
                self.b.ins().store(trusted(), v, at, 0);
            }
            Opcode::LdeL => {
                let idx = self.slot(ops[1]);
                let at = self.list_elem(ops[0], idx, None, offset);
                let v = self.b.ins().load(types::I32, trusted(), at, 0);
                self.set(d, v);
            }
            Opcode::SteL => {
                let v = self.get(d - 1);
                let idx = self.slot(ops[1]);
                let at = self.list_elem(ops[0], idx, None, offset);
                self.b.ins().store(trusted(), v, at, 0);
            }
            Opcode::Ldx => {
                let r = self.get(d - 2);
                let idx = self.get(d - 1);
                let (kr, ki) = (self.known(d - 2), self.known(d - 1));
                let at = self.ref_elem(r, kr, idx, ki, offset);
                let v = self.b.ins().load(types::I32, trusted(), at, 0);
                self.set(d - 2, v);
            }
            Opcode::Stx => {
                let r = self.get(d - 3);
                let idx = self.get(d - 2);
                let v = self.get(d - 1);
                let (kr, ki) = (self.known(d - 3), self.known(d - 2));
                let at = self.ref_elem(r, kr, idx, ki, offset);
                self.b.ins().store(trusted(), v, at, 0);
            }
            Opcode::LdxL => {
                let r = self.slot(ops[0]);
                let idx = self.slot(ops[1]);
                let at = self.ref_elem(r, None, idx, None, offset);
                let v = self.b.ins().load(types::I32, trusted(), at, 0);
                self.set(d, v);
            }
            Opcode::StxL => {
                let v = self.get(d - 1);
                let r = self.slot(ops[0]);
                let idx = self.slot(ops[1]);
                let at = self.ref_elem(r, None, idx, None, offset);
                self.b.ins().store(trusted(), v, at, 0);
            }
            Opcode::Forl | Opcode::ForlB => {
                let ListSlice { base, slots } = self.env.initial.lists[ops[0] as usize];
                let base = self.b.ins().iconst(types::I32, i64::from(base));
                let slots = self.b.ins().iconst(types::I32, i64::from(slots));
                if instr.opcode == Opcode::Forl {
                    self.for_step(base, slots, ops[1], d, offset, ops[2]);
                } else {
                    self.for_step_back(base, slots, ops[1], d, offset, ops[2], next);
                }
            }
            Opcode::Forx | Opcode::ForxB => {
                let r = self.slot(ops[0]);
                let (base, slots) = self.slice_of(r);
                if instr.opcode == Opcode::Forx {
                    self.for_step(base, slots, ops[1], d, offset, ops[2]);
                } else {
                    self.for_step_back(base, slots, ops[1], d, offset, ops[2], next);
                }
            }
            other => unreachable!("{other} is not a memory or list instruction"),
        }
    }

    /// Jumps, conditional branches (compare-and-branch forms included),
    /// explicit fuel charges and `halt`.
    pub(super) fn control(&mut self, instr: Instr, at: At) {
        let At { offset, d, next } = at;
        let ops = instr.operands;
        let imm = ops[0] as i32;
        match instr.opcode {
            Opcode::Halt => {
                let fuel = self.b.use_var(self.fuel);
                self.b
                    .ins()
                    .store(trusted(), fuel, self.ctx, offsets::FUEL_LEFT);
                let status = self.b.ins().iconst(types::I64, STATUS_HALT);
                self.ret_status(status);
            }
            Opcode::Fuel => self.charge_n(u64::from(ops[0]), offset),
            Opcode::Jmp => self.jump(offset, ops[0]),
            Opcode::Jz | Opcode::Jnz => {
                let v = self.get(d - 1);
                // A truth value widened from a test (a pattern's result, a
                // comparison) is tested before the widening.
                let v = self.narrow_truth(v);
                let c = self.b.ins().icmp_imm_s(cond(instr.opcode), v, 0);
                self.branch(c, offset, ops[0], next);
            }
            Opcode::Case => {
                let v = self.get(d - 1);
                let c = self.b.ins().icmp_imm_s(IntCC::Equal, v, i64::from(imm));
                self.branch(c, offset, ops[1], next);
            }
            Opcode::JEq | Opcode::JNe | Opcode::JLt | Opcode::JLe | Opcode::JGt | Opcode::JGe => {
                let a = self.get(d - 2);
                let b = self.get(d - 1);
                let c = self.b.ins().icmp(cond(instr.opcode), a, b);
                self.branch(c, offset, ops[0], next);
            }
            Opcode::JEqI
            | Opcode::JNeI
            | Opcode::JLtI
            | Opcode::JLeI
            | Opcode::JGtI
            | Opcode::JGeI => {
                let a = self.get(d - 1);
                let c = self.compare_imm(instr.opcode, a, imm);
                self.branch(c, offset, ops[1], next);
            }
            Opcode::JEqLI
            | Opcode::JNeLI
            | Opcode::JLtLI
            | Opcode::JLeLI
            | Opcode::JGtLI
            | Opcode::JGeLI => {
                let a = self.slot(ops[0]);
                let c = self.compare_imm(instr.opcode, a, ops[1] as i32);
                self.branch(c, offset, ops[2], next);
            }
            Opcode::IncJLtLI if self.rotated_latch(offset) => self.rotated_latch_branch(instr, at),
            Opcode::IncJLtLI => {
                let v = self.slot(ops[0]);
                let r = self.b.ins().iadd_imm_s(v, 1);
                self.set_slot(ops[0], r);
                let c = self
                    .b
                    .ins()
                    .icmp_imm_s(cond(instr.opcode), r, i64::from(ops[1] as i32));
                self.branch(c, offset, ops[2], next);
            }
            other => unreachable!("{other} is not a control instruction"),
        }
    }

    /// The latch of a rotated counter in a fast copy (see `Rotation` in
    /// `counted.rs`): the old value goes back to the header.
    pub(super) fn rotated_latch_branch(&mut self, instr: Instr, at: At) {
        let At { offset, next, .. } = at;
        let ops = instr.operands;
        let v = self.slot(ops[0]);
        let bound = ops[1] as i32;
        let c = self
            .b
            .ins()
            .icmp_imm_s(IntCC::SignedLessThan, v, i64::from(bound.wrapping_sub(1)));
        let header = self.target_block(offset, ops[2]);
        let exit = self.b.create_block();
        // Out of line, so the copies of an unrolled loop follow each other
        // and each latch falls through on continuing.
        self.b.set_cold_block(exit);
        self.b.ins().brif(c, header, &[], exit, &[]);
        self.b.switch_to_block(exit);
        let r = self.b.ins().iadd_imm_s(v, 1);
        self.set_slot(ops[0], r);
        match next {
            Some(n) => {
                let to = self.target_block(offset, n);
                self.b.ins().jump(to, &[]);
            }
            None => {
                // Verified code never falls off the end.
                let status = self.b.ins().iconst(types::I64, STATUS_TRAP);
                self.ret_status(status);
            }
        }
        self.flush();
    }

    /// `b` when `v` is `b` zero-extended from an 8-bit truth value, else
    /// `v`: either is non-zero exactly when the other is.
    pub(super) fn narrow_truth(&self, v: Value) -> Value {
        let dfg = &self.b.func.dfg;
        if let ValueDef::Result(inst, 0) = dfg.value_def(v) {
            if let InstructionData::Unary {
                opcode: ClifOpcode::Uextend,
                arg,
            } = dfg.insts[inst]
            {
                if dfg.value_type(arg) == types::I8 {
                    return arg;
                }
            }
        }
        v
    }

    pub(super) fn bool_to_i32(&mut self, c: Value) -> Value {
        self.b.ins().uextend(types::I32, c)
    }

    /// `a / b` or `a % b` with the CVM's rules: division by zero is an error
    /// at `offset`; `i32::MIN / -1` wraps and `i32::MIN % -1` is 0 (done in
    /// 64 bits, where it cannot overflow).
    pub(super) fn divide(
        &mut self,
        a: Value,
        b: Value,
        b_known: Option<i32>,
        rem: bool,
        offset: u32,
    ) -> Value {
        match b_known {
            Some(0) | None => {
                let zero = self.b.ins().icmp_imm_s(IntCC::Equal, b, 0);
                self.trap_if(zero, Some(trap::DIV_ZERO), offset, None, None);
            }
            Some(-1) => {
                return if rem {
                    self.b.ins().iconst(types::I32, 0)
                } else {
                    self.b.ins().ineg(a)
                };
            }
            Some(_) => {
                return if rem {
                    self.b.ins().srem(a, b)
                } else {
                    self.b.ins().sdiv(a, b)
                };
            }
        }
        let a64 = self.b.ins().sextend(types::I64, a);
        let b64 = self.b.ins().sextend(types::I64, b);
        let r = if rem {
            self.b.ins().srem(a64, b64)
        } else {
            self.b.ins().sdiv(a64, b64)
        };
        self.b.ins().ireduce(types::I32, r)
    }

    /// The condition of a compare-with-immediate jump.
    pub(super) fn compare_imm(&mut self, op: Opcode, a: Value, k: i32) -> Value {
        self.b.ins().icmp_imm_s(cond(op), a, i64::from(k))
    }
}
