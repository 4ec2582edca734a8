//! A generator of random *valid* CVM modules, driven by a byte string.
//!
//! Fuzz targets and property tests need programs that pass the verifier and
//! then exercise the backends: loops, calls and recursion, lists, globals,
//! switches, for-in, intrinsics, early returns, output and halts. Feeding
//! random words to the verifier almost never produces such programs, so this
//! module builds them structurally, tracking the operand stack as it emits
//! code, and every module it returns verifies.
//!
//! The same bytes always give the same module, so a fuzzer's corpus entry
//! or a proptest seed reproduces a case exactly. When the bytes run out the
//! generator keeps going with zeros, which choose the simplest option
//! everywhere, so generation always terminates.
//!
//! Programs may loop or recurse without bound; run them with a fuel limit
//! and a depth limit.

use crate::builder::{FunctionBuilder, Label, ModuleBuilder};
use crate::intrinsics;
use crate::isa::Opcode;
use crate::module::Module;

/// Reads choices from a byte string.
struct Bytes<'a> {
    data: &'a [u8],
    pos: usize,
}

impl Bytes<'_> {
    fn byte(&mut self) -> u8 {
        let b = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        b
    }

    /// A number below `n` (n > 0).
    fn below(&mut self, n: u32) -> u32 {
        let v = if n <= 256 {
            u32::from(self.byte())
        } else {
            u32::from_le_bytes([self.byte(), self.byte(), self.byte(), self.byte()])
        };
        v % n.max(1)
    }

    fn chance(&mut self, percent: u32) -> bool {
        self.below(100) < percent
    }

    fn imm(&mut self) -> i32 {
        match self.below(8) {
            0 => i32::MIN,
            1 => i32::MAX,
            2 => -1,
            3 => self.below(65536) as i32 - 32768,
            _ => self.below(16) as i32 - 4,
        }
    }

    fn exhausted(&self) -> bool {
        self.pos >= self.data.len()
    }
}

#[derive(Clone, Copy)]
struct Sig {
    value_params: u32,
    list_params: u32,
    returns: bool,
}

struct Ctx<'a, 'b> {
    bytes: &'a mut Bytes<'b>,
    sigs: &'a [Sig],
    me: Sig,
    int_slots: Vec<u32>,
    list_slots: Vec<u32>,
    globals: u32,
    lists: u32,
    texts: u32,
    /// Remaining instruction budget for this function.
    budget: i32,
}

const MAX_FUNCS: u32 = 5;

/// Builds a valid module from `data`. The module's entry point is `main`, a
/// function without parameters.
pub fn generate(data: &[u8]) -> Module {
    let mut bytes = Bytes { data, pos: 0 };
    let mut b = ModuleBuilder::new();
    let globals = 1 + bytes.below(3);
    for g in 0..globals {
        let init = bytes.imm();
        // Names are fresh, so the builder cannot refuse them.
        let _ = b.global(&format!("g{g}"), init);
    }
    let lists = 1 + bytes.below(3);
    for l in 0..lists {
        let capacity = bytes.below(9);
        let n = bytes.below(capacity + 1);
        let init = (0..n).map(|_| bytes.imm()).collect();
        let _ = b.list(&format!("l{l}"), capacity, init);
    }
    let texts = 1 + bytes.below(2);
    for t in 0..texts {
        let _ = b.text(&format!("t{t}"), &format!("text {t}"));
    }
    let nfuncs = 1 + bytes.below(MAX_FUNCS);
    let mut sigs = vec![Sig {
        value_params: 0,
        list_params: 0,
        returns: bytes.chance(50),
    }];
    for _ in 1..nfuncs {
        sigs.push(Sig {
            value_params: bytes.below(4),
            list_params: bytes.below(3),
            returns: bytes.chance(60),
        });
    }
    let mut ids = Vec::new();
    for (i, s) in sigs.iter().enumerate() {
        let name = if i == 0 {
            "main".to_string()
        } else {
            format!("f{i}")
        };
        if let Ok(id) = b.declare_function(&name, s.value_params, s.list_params, s.returns) {
            ids.push(id);
        }
    }
    for (i, &sig) in sigs.iter().enumerate() {
        let locals = bytes.below(4);
        let mut f = b.body(ids[i]);
        let arity = sig.value_params + sig.list_params;
        let mut int_slots: Vec<u32> = (0..sig.value_params).collect();
        let list_slots: Vec<u32> = (sig.value_params..arity).collect();
        for _ in 0..locals {
            int_slots.push(f.local());
        }
        let mut ctx = Ctx {
            bytes: &mut bytes,
            sigs: &sigs,
            me: sig,
            int_slots,
            list_slots,
            globals,
            lists,
            texts,
            budget: 120,
        };
        let stmts = 1 + ctx.bytes.below(8);
        for _ in 0..stmts {
            ctx.stmt(&mut f, 0);
        }
        ctx.ret(&mut f);
        // Labels are always bound before finishing.
        let _ = f.finish();
    }
    b.set_entry(ids[0]);
    match b.finish() {
        Ok(m) => m,
        // Unreachable for generated code; fall back to the smallest valid
        // module rather than panic.
        Err(_) => fallback(),
    }
}

fn fallback() -> Module {
    let mut b = ModuleBuilder::new();
    let main = b.declare_function("main", 0, 0, false).unwrap_or(0);
    let mut f = b.body(main);
    f.emit(Opcode::Ret, &[]);
    let _ = f.finish();
    b.set_entry(main);
    b.finish().unwrap_or_default()
}

impl Ctx<'_, '_> {
    fn spend(&mut self, n: i32) -> bool {
        self.budget -= n;
        self.budget > 0 && !self.bytes.exhausted()
    }

    /// Emits the code of a return appropriate for this function.
    fn ret(&mut self, f: &mut FunctionBuilder<'_>) {
        if self.me.returns {
            self.expr(f, 1);
            f.emit(Opcode::RetV, &[]);
        } else {
            f.emit(Opcode::Ret, &[]);
        }
    }

    /// Pushes a list reference.
    fn list_ref(&mut self, f: &mut FunctionBuilder<'_>) {
        if !self.list_slots.is_empty() && self.bytes.chance(50) {
            let s = self.list_slots[self.bytes.below(self.list_slots.len() as u32) as usize];
            f.emit(Opcode::Ldl, &[s]);
        } else {
            f.emit(Opcode::Lref, &[self.bytes.below(self.lists)]);
        }
    }

    fn int_slot(&mut self) -> Option<u32> {
        if self.int_slots.is_empty() {
            None
        } else {
            Some(self.int_slots[self.bytes.below(self.int_slots.len() as u32) as usize])
        }
    }

    /// An index expression: usually in range, sometimes not.
    fn index(&mut self, f: &mut FunctionBuilder<'_>, depth: u32) {
        if self.bytes.chance(70) {
            f.emit(Opcode::Push, &[self.bytes.below(10)]);
        } else {
            self.expr(f, depth + 1);
        }
    }

    /// Emits code that pushes exactly one int.
    fn expr(&mut self, f: &mut FunctionBuilder<'_>, depth: u32) {
        let leaf = depth > 4 || !self.spend(1);
        let choice = if leaf {
            self.bytes.below(3)
        } else {
            self.bytes.below(16)
        };
        match choice {
            0 => f.emit(Opcode::Push, &[self.bytes.imm() as u32]),
            1 => match self.int_slot() {
                Some(s) => f.emit(Opcode::Ldl, &[s]),
                None => f.emit(Opcode::Push, &[1]),
            },
            2 => f.emit(Opcode::Ldg, &[self.bytes.below(self.globals)]),
            3..=5 => {
                const BIN: [Opcode; 13] = [
                    Opcode::Add,
                    Opcode::Sub,
                    Opcode::Mul,
                    Opcode::Div,
                    Opcode::Mod,
                    Opcode::BitAnd,
                    Opcode::BitOr,
                    Opcode::BitXor,
                    Opcode::Eq,
                    Opcode::Ne,
                    Opcode::Lt,
                    Opcode::Le,
                    Opcode::Gt,
                ];
                self.expr(f, depth + 1);
                self.expr(f, depth + 1);
                if self.bytes.chance(10) {
                    f.emit(Opcode::Swap, &[]);
                }
                let op = if self.bytes.chance(8) {
                    Opcode::Ge
                } else {
                    BIN[self.bytes.below(BIN.len() as u32) as usize]
                };
                f.emit(op, &[]);
            }
            6 => {
                self.expr(f, depth + 1);
                let op = [Opcode::Neg, Opcode::BitNot, Opcode::LNot][self.bytes.below(3) as usize];
                f.emit(op, &[]);
            }
            7 => {
                self.expr(f, depth + 1);
                f.emit(Opcode::AddI, &[self.bytes.imm() as u32]);
            }
            8 => {
                self.index(f, depth);
                f.emit(Opcode::Lde, &[self.bytes.below(self.lists)]);
            }
            9 => {
                self.list_ref(f);
                self.index(f, depth);
                f.emit(Opcode::Ldx, &[]);
            }
            10 | 11 => {
                let callees: Vec<u32> = (0..self.sigs.len() as u32)
                    .filter(|&i| self.sigs[i as usize].returns)
                    .collect();
                if callees.is_empty() {
                    f.emit(Opcode::Push, &[2]);
                } else {
                    let c = callees[self.bytes.below(callees.len() as u32) as usize];
                    self.call_args(f, c, depth);
                    f.emit(Opcode::Call, &[c]);
                }
            }
            12 => {
                let (id, _) =
                    intrinsics::by_name("ListLen").unwrap_or((0, &intrinsics::INTRINSICS[0]));
                self.list_ref(f);
                f.emit(Opcode::Intr, &[id]);
            }
            13 => {
                // Assignment as an expression: dup + store, or tee.
                self.expr(f, depth + 1);
                match self.int_slot() {
                    Some(s) if self.bytes.chance(50) => f.emit(Opcode::Tee, &[s]),
                    Some(s) => {
                        f.emit(Opcode::Dup, &[]);
                        f.emit(Opcode::Stl, &[s]);
                    }
                    None => {
                        f.emit(Opcode::Dup, &[]);
                        f.emit(Opcode::Stg, &[self.bytes.below(self.globals)]);
                    }
                }
            }
            14 => {
                // Short-circuit `and` yielding 0/1.
                let zero = f.new_label();
                let end = f.new_label();
                self.expr(f, depth + 1);
                f.emit_jump(Opcode::Jz, &[], zero);
                self.expr(f, depth + 1);
                f.emit_jump(Opcode::Jz, &[], zero);
                f.emit(Opcode::Push, &[1]);
                f.emit_jump(Opcode::Jmp, &[], end);
                f.bind(zero);
                f.emit(Opcode::Push, &[0]);
                f.bind(end);
            }
            16 => {
                // Fused immediate arithmetic (a zero divisor traps).
                self.expr(f, depth + 1);
                let op = [Opcode::MulI, Opcode::DivI, Opcode::ModI][self.bytes.below(3) as usize];
                let k = if self.bytes.chance(10) {
                    0
                } else {
                    self.bytes.imm()
                };
                f.emit(op, &[k as u32]);
            }
            17 => match (self.int_slot(), self.int_slot()) {
                (Some(a), Some(b)) => {
                    f.emit(Opcode::Ldl2, &[a, b]);
                    let op = [Opcode::Add, Opcode::Sub, Opcode::Lt, Opcode::BitXor]
                        [self.bytes.below(4) as usize];
                    f.emit(op, &[]);
                }
                _ => f.emit(Opcode::Push, &[3]),
            },
            18 => {
                // A folded pattern on a mask (an empty board without a host).
                let foldable: Vec<u32> = intrinsics::INTRINSICS
                    .iter()
                    .enumerate()
                    .filter(|(_, i)| i.fold.is_some())
                    .map(|(n, _)| n as u32)
                    .collect();
                let id = foldable[self.bytes.below(foldable.len() as u32) as usize];
                if self.bytes.chance(50) {
                    f.emit(Opcode::Push, &[0x200 + self.bytes.below(24)]);
                } else {
                    f.emit(Opcode::Push, &[self.bytes.below(3)]);
                }
                let lo = self.bytes.below(u32::MAX);
                let hi = self.bytes.below(u32::MAX);
                let op = if self.bytes.chance(50) {
                    Opcode::PatAll
                } else {
                    Opcode::PatAny
                };
                f.emit(op, &[id, lo, hi]);
            }
            _ => {
                self.expr(f, depth + 1);
                self.expr(f, depth + 1);
                f.emit(Opcode::Pop, &[]);
            }
        }
    }

    fn call_args(&mut self, f: &mut FunctionBuilder<'_>, callee: u32, depth: u32) {
        let sig = self.sigs[callee as usize];
        for _ in 0..sig.value_params {
            self.expr(f, depth + 1);
        }
        for _ in 0..sig.list_params {
            self.list_ref(f);
        }
    }

    /// A conditional jump to `target` consuming operands it pushes itself.
    fn cond_jump(&mut self, f: &mut FunctionBuilder<'_>, target: Label) {
        match self.bytes.below(4) {
            0 => {
                self.expr(f, 2);
                let op = if self.bytes.chance(50) {
                    Opcode::Jz
                } else {
                    Opcode::Jnz
                };
                f.emit_jump(op, &[], target);
            }
            1 => {
                self.expr(f, 2);
                self.expr(f, 2);
                const J: [Opcode; 6] = [
                    Opcode::JEq,
                    Opcode::JNe,
                    Opcode::JLt,
                    Opcode::JLe,
                    Opcode::JGt,
                    Opcode::JGe,
                ];
                f.emit_jump(J[self.bytes.below(6) as usize], &[], target);
            }
            _ => {
                self.expr(f, 2);
                const J: [Opcode; 6] = [
                    Opcode::JEqI,
                    Opcode::JNeI,
                    Opcode::JLtI,
                    Opcode::JLeI,
                    Opcode::JGtI,
                    Opcode::JGeI,
                ];
                let k = self.bytes.imm() as u32;
                f.emit_jump(J[self.bytes.below(6) as usize], &[k], target);
            }
        }
    }

    /// Emits a statement: stack depth 0 before and after.
    fn stmt(&mut self, f: &mut FunctionBuilder<'_>, nest: u32) {
        if !self.spend(2) {
            return;
        }
        let choice = if nest > 2 {
            self.bytes.below(8)
        } else {
            self.bytes.below(16)
        };
        match choice {
            0 | 1 => {
                self.expr(f, 0);
                match self.int_slot() {
                    Some(s) if self.bytes.chance(70) => f.emit(Opcode::Stl, &[s]),
                    _ => f.emit(Opcode::Stg, &[self.bytes.below(self.globals)]),
                }
            }
            2 => {
                self.index(f, 0);
                self.expr(f, 1);
                f.emit(Opcode::Ste, &[self.bytes.below(self.lists)]);
            }
            3 => {
                self.list_ref(f);
                self.index(f, 0);
                self.expr(f, 1);
                f.emit(Opcode::Stx, &[]);
            }
            4 => match self.int_slot() {
                Some(s) => {
                    let op = if self.bytes.chance(50) {
                        Opcode::Incl
                    } else {
                        Opcode::Decl
                    };
                    f.emit(op, &[s]);
                }
                None => {
                    let op = if self.bytes.chance(50) {
                        Opcode::Incg
                    } else {
                        Opcode::Decg
                    };
                    f.emit(op, &[self.bytes.below(self.globals)]);
                }
            },
            5 => {
                self.expr(f, 0);
                f.emit(Opcode::Write, &[]);
            }
            6 => f.emit(Opcode::TextOut, &[self.bytes.below(self.texts)]),
            7 => {
                // Procedure or function call as a statement.
                let c = self.bytes.below(self.sigs.len() as u32);
                self.call_args(f, c, 0);
                f.emit(Opcode::Call, &[c]);
                if self.sigs[c as usize].returns {
                    f.emit(Opcode::Pop, &[]);
                }
            }
            8 | 9 => {
                // if / else
                let else_l = f.new_label();
                let end = f.new_label();
                self.cond_jump(f, else_l);
                self.block(f, nest);
                f.emit_jump(Opcode::Jmp, &[], end);
                f.bind(else_l);
                if self.bytes.chance(50) {
                    self.block(f, nest);
                }
                f.bind(end);
            }
            10 | 11 => {
                // while loop, possibly with a counter that bounds it.
                let top = f.new_label();
                let end = f.new_label();
                let counter = self.int_slot();
                if let Some(c) = counter {
                    f.emit(Opcode::Push, &[0]);
                    f.emit(Opcode::Stl, &[c]);
                }
                f.bind(top);
                match counter {
                    Some(c) if self.bytes.chance(80) => {
                        f.emit(Opcode::Ldl, &[c]);
                        f.emit_jump(Opcode::JGeI, &[1 + self.bytes.below(5)], end);
                        f.emit(Opcode::Incl, &[c]);
                    }
                    _ => self.cond_jump(f, end),
                }
                self.block(f, nest);
                f.emit_jump(Opcode::Jmp, &[], top);
                f.bind(end);
            }
            12 => {
                // repeat-until (conditional backward jump)
                let top = f.new_label();
                f.bind(top);
                self.block(f, nest);
                self.cond_jump(f, top);
            }
            13 => {
                // for-in over a module list or a list parameter, sometimes
                // in the inverted form the optimizer makes.
                let Some(cursor) = self.int_slot() else {
                    return;
                };
                let top = f.new_label();
                let end = f.new_label();
                let inverted = self.bytes.chance(40);
                let (step, back, list) = if !self.list_slots.is_empty() && self.bytes.chance(50) {
                    let l =
                        self.list_slots[self.bytes.below(self.list_slots.len() as u32) as usize];
                    (Opcode::Forx, Opcode::ForxB, l)
                } else {
                    (Opcode::Forl, Opcode::ForlB, self.bytes.below(self.lists))
                };
                f.emit(Opcode::Push, &[0]);
                f.emit(Opcode::Stl, &[cursor]);
                if inverted {
                    f.emit_jump(step, &[list, cursor], end);
                    f.bind(top);
                } else {
                    f.bind(top);
                    f.emit_jump(step, &[list, cursor], end);
                }
                match self.int_slot() {
                    Some(v) if v != cursor && self.bytes.chance(60) => f.emit(Opcode::Stl, &[v]),
                    _ => f.emit(Opcode::Write, &[]),
                }
                self.block(f, nest);
                if inverted {
                    f.emit_jump(back, &[list, cursor], top);
                    f.emit(Opcode::Fuel, &[1]);
                } else {
                    f.emit_jump(Opcode::Jmp, &[], top);
                }
                f.bind(end);
            }
            14 => {
                // switch with fall-through
                let end = f.new_label();
                let n = 1 + self.bytes.below(3);
                let labels: Vec<Label> = (0..n).map(|_| f.new_label()).collect();
                self.expr(f, 1);
                for l in &labels {
                    let k = self.bytes.below(5);
                    f.emit_jump(Opcode::Case, &[k], *l);
                }
                f.emit(Opcode::Pop, &[]);
                f.emit_jump(Opcode::Jmp, &[], end);
                for l in labels {
                    f.bind(l);
                    self.block(f, nest);
                    if self.bytes.chance(50) {
                        f.emit_jump(Opcode::Jmp, &[], end);
                    }
                }
                f.bind(end);
            }
            16 => f.emit(Opcode::Fuel, &[self.bytes.below(3)]),
            17 => {
                // A counted loop closed by inc.jlt.li.
                let Some(c) = self.int_slot() else { return };
                let top = f.new_label();
                f.emit(Opcode::Push, &[0]);
                f.emit(Opcode::Stl, &[c]);
                f.bind(top);
                self.block(f, nest);
                f.emit_jump(Opcode::IncJLtLI, &[c, 1 + self.bytes.below(4)], top);
            }
            _ => {
                // early return or, rarely, halt, inside a conditional
                let skip = f.new_label();
                self.cond_jump(f, skip);
                if self.bytes.chance(10) {
                    f.emit(Opcode::Halt, &[]);
                } else {
                    self.ret(f);
                }
                f.bind(skip);
            }
        }
    }

    fn block(&mut self, f: &mut FunctionBuilder<'_>, nest: u32) {
        let n = 1 + self.bytes.below(3);
        for _ in 0..n {
            self.stmt(f, nest + 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::Program;

    #[test]
    fn generated_modules_verify() {
        let mut seed = 0x1234_5678u64;
        for len in 0..400usize {
            let data: Vec<u8> = (0..len * 3)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    seed as u8
                })
                .collect();
            let m = generate(&data);
            if let Err(e) = Program::new(m.clone()) {
                panic!("seed {len}: {e}\n{}", crate::asm::disassemble(&m));
            }
        }
    }
}
