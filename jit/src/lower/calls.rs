//! Calls, frames, intrinsics and output in the lowering: native calls with
//! their depth and fuel checks and status test, spliced calls (the callee's
//! body lowered in place of the call, as `analysis/splice.rs` decides), the `enter`/`enter.f`/`leave` frames of calls the
//! optimizer inlined, returns, intrinsic calls (native patterns or the
//! shim) and `write`/`textout`.

use super::instr::At;
use super::{leaders, Known, Lower, PTR};
use crate::context::{trap, SHIM_TRAP};
use crate::patterns;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, Value};
use cranelift_frontend::Variable;
use cvm::intrinsics::{ParamKind, INTRINSICS};
use cvm::isa::{Instr, Opcode};

impl Lower<'_, '_> {
    /// Calls and returns, the frames of inlined calls, intrinsics, folded
    /// patterns and output.
    pub(super) fn calls_and_intrinsics(&mut self, instr: Instr, at: At) {
        let At { offset, d, .. } = at;
        let ops = instr.operands;
        match instr.opcode {
            Opcode::Call => self.call(ops[0], d, offset),
            Opcode::Ret => {
                let zero = self.b.ins().iconst(types::I32, 0);
                self.ret_value(zero);
            }
            Opcode::RetV => {
                let v = self.get(d - 1);
                self.ret_value(v);
            }
            Opcode::RetVL => {
                let v = self.slot(ops[0]);
                self.ret_value(v);
            }
            Opcode::Enter => {
                self.call_checks(ops[0], 1, offset);
            }
            Opcode::EnterF => {
                let left = self.call_checks(1, 1, offset);
                self.b.def_var(self.depth_left, left);
            }
            Opcode::Leave => {
                let left = self.b.use_var(self.depth_left);
                let up = self.b.ins().iadd_imm_s(left, 1);
                self.b.def_var(self.depth_left, up);
            }
            Opcode::Intr => self.intrinsic(ops[0], d, offset),
            Opcode::PatAll | Opcode::PatAny => {
                let any = instr.opcode == Opcode::PatAny;
                let mask = u64::from(ops[1]) | u64::from(ops[2]) << 32;
                let v = match patterns::try_native_mask(self, ops[0], d - 1, mask, any, offset) {
                    Some(v) => v,
                    None => {
                        // The shim charges the cost (it depends on the
                        // argument), returns the fuel left and stores the
                        // result in the argument slot.
                        let id = self.b.ins().iconst(types::I32, i64::from(ops[0]));
                        let arg = self.get(d - 1);
                        let m = self.b.ins().iconst(types::I64, mask as i64);
                        let mode = self.b.ins().iconst(types::I32, i64::from(any));
                        let fuel = self.b.use_var(self.fuel);
                        let slot = self.args_slot();
                        let out = self.b.ins().stack_addr(PTR, slot, 0);
                        let call = self.b.ins().call(
                            self.env.pattern_mask,
                            &[self.ctx, id, arg, m, mode, fuel, out],
                        );
                        let left = self.b.inst_results(call)[0];
                        self.check_charging_shim(left, offset);
                        self.b.ins().stack_load(PTR, types::I32, slot, 0)
                    }
                };
                self.set(d - 1, v);
            }
            Opcode::Write => {
                self.charge_n(cvm::fuel::WRITE_FUEL, offset);
                let v = self.get(d - 1);
                let call = self.b.ins().call(self.env.write, &[self.ctx, v]);
                let r = self.b.inst_results(call)[0];
                self.check_shim(r, offset);
            }
            Opcode::TextOut => {
                let bytes = self.env.module.texts[ops[0] as usize].text.len();
                self.charge_n(cvm::fuel::text_fuel(bytes), offset);
                let t = self.b.ins().iconst(types::I32, i64::from(ops[0]));
                let call = self.b.ins().call(self.env.textout, &[self.ctx, t]);
                let r = self.b.inst_results(call)[0];
                self.check_shim(r, offset);
            }
            other => unreachable!("{other} is not a call, frame or intrinsic instruction"),
        }
    }

    /// After a shim returned `r`: stops with the shim's error when it is the
    /// trap sentinel.
    pub(crate) fn check_shim(&mut self, r: Value, offset: u32) {
        let failed = self.b.ins().icmp_imm_s(IntCC::Equal, r, SHIM_TRAP);
        self.trap_if(failed, None, offset, None, None);
    }

    /// Returns `v` from the current frame: a native return, or a jump to
    /// the caller's continuation when the frame is spliced.
    pub(super) fn ret_value(&mut self, v: Value) {
        match self.ret_to {
            Some(cont) => {
                self.b.ins().jump(cont, &[v.into()]);
            }
            None => {
                let fuel = self.b.use_var(self.fuel);
                self.b.ins().return_(&[v, fuel]);
            }
        }
        self.open = false;
    }

    pub(super) fn call(&mut self, callee: u32, d: u32, offset: u32) {
        let arity = self.env.module.functions[callee as usize].arity();
        let returns = self.env.module.functions[callee as usize].returns_value;
        // A spliced call charges what the native call would.
        let cost = self.env.infos[callee as usize].call_fuel();
        let depth = self.call_checks(1, cost, offset);
        if self.splice_call(callee, d, depth, offset) {
            return;
        }
        let fuel = self.b.use_var(self.fuel);
        let mut args = vec![self.ctx, fuel, depth];
        for k in d - arity..d {
            args.push(self.get(k));
        }
        let fref = self.env.callees[&callee];
        let call = self.b.ins().call(fref, &args);
        let results = self.b.inst_results(call).to_vec();
        self.check_status(results[1]);
        if returns {
            self.set(d - arity, results[0]);
        }
    }

    /// The checks of a call `k` frames deeper than the current one that
    /// charges `cost`: depth first, then fuel, as the interpreter makes
    /// them. Returns the `depth_left` one frame down.
    pub(super) fn call_checks(&mut self, k: u32, cost: u64, offset: u32) -> Value {
        let left = self.b.use_var(self.depth_left);
        if self.fast.is_some() {
            // The loop's guard proved the depth enough (and `charge_n`
            // charges without a test).
            self.charge_n(cost, offset);
            return self.b.ins().iadd_imm_s(left, -1);
        }
        let too_deep = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedLessThanOrEqual, left, i64::from(k));
        self.trap_if(too_deep, Some(trap::CALL_DEPTH), offset, None, None);
        self.charge_n(cost, offset);
        self.b.ins().iadd_imm_s(left, -1)
    }

    /// Lowers the body of the callee in place of the native call at
    /// `offset`, after the call's depth and fuel checks, when the splice
    /// plan says so: its frame slots become fresh variables, `depth` is its
    /// `depth_left`, its errors and `halt` leave the whole native function
    /// directly, and its returns jump to a continuation. Returns false
    /// (nothing emitted) when the call stays a native call.
    pub(super) fn splice_call(&mut self, callee: u32, d: u32, depth: Value, offset: u32) -> bool {
        let env = self.env;
        let Some(node) = env.splices.spliced(self.node, offset) else {
            return false;
        };
        let info = &env.infos[callee as usize];
        let f = &env.module.functions[callee as usize];
        let arity = f.arity();
        let returns = f.returns_value;
        let nslots = f.frame_slots() as usize;
        let nstack = info.max_depth as usize + 1;
        let args: Vec<Value> = (d - arity..d).map(|k| self.get(k)).collect();
        // A parameter the callee never writes holds its argument for the
        // whole frame: when that was known here (a constant, a module
        // list), it is known in the callee too.
        let mut slot_consts: Vec<Option<i32>> = (d - arity..d).map(|k| self.known(k)).collect();
        if slot_consts.iter().any(Option::is_some) {
            for s in info.instrs.iter().flat_map(|i| i.instr.slots_written()) {
                if let Some(c) = slot_consts.get_mut(s as usize) {
                    *c = None;
                }
            }
        }
        let slots: Vec<Variable> = (0..nslots)
            .map(|_| self.b.declare_var(types::I32))
            .collect();
        let stack: Vec<Variable> = (0..nstack)
            .map(|_| self.b.declare_var(types::I32))
            .collect();
        let zero = self.b.ins().iconst(types::I32, 0);
        for (i, &v) in slots.iter().enumerate() {
            self.b.def_var(v, args.get(i).copied().unwrap_or(zero));
        }
        let cont = self.b.create_block();
        self.b.append_block_param(cont, types::I32);
        let blocks = leaders(&mut self.b, info);
        let depth_var = self.b.declare_var(types::I32);
        self.b.def_var(depth_var, depth);
        let callee_loops = env
            .loops
            .get(callee as usize)
            .map_or(&[][..], |l| l.as_slice());
        let saved_loops = (
            std::mem::replace(&mut self.loops, callee_loops),
            std::mem::take(&mut self.guards),
            self.fast.take(),
        );
        let saved = (
            std::mem::replace(&mut self.info, info),
            std::mem::replace(&mut self.slots, slots),
            std::mem::replace(&mut self.stack, stack),
            std::mem::replace(&mut self.known, Known::new(nstack)),
            std::mem::replace(&mut self.slot_consts, slot_consts),
            std::mem::replace(&mut self.depth_left, depth_var),
            std::mem::replace(&mut self.blocks, blocks),
            self.ret_to.replace(cont),
            std::mem::replace(&mut self.node, node),
        );
        self.body();
        self.info = saved.0;
        self.slots = saved.1;
        self.stack = saved.2;
        self.known = saved.3;
        self.slot_consts = saved.4;
        self.depth_left = saved.5;
        self.blocks = saved.6;
        self.ret_to = saved.7;
        self.node = saved.8;
        self.loops = saved_loops.0;
        self.guards = saved_loops.1;
        self.fast = saved_loops.2;
        self.b.switch_to_block(cont);
        self.open = true;
        if returns {
            let v = self.b.block_params(cont)[0];
            self.set(d - arity, v);
        }
        true
    }

    pub(super) fn intrinsic(&mut self, id: u32, d: u32, offset: u32) {
        let info = &INTRINSICS[id as usize];
        let n = info.params.len() as u32;
        let base = d - n;
        if let Some(v) = patterns::try_native(self, id, base, offset) {
            let env = self.env;
            env.native_intrinsics.set(env.native_intrinsics.get() + 1);
            if info.returns {
                self.set(base, v);
            }
            return;
        }
        if self.set_sqrs_inline(id, base, offset) {
            let env = self.env;
            env.native_intrinsics.set(env.native_intrinsics.get() + 1);
            return;
        }
        self.intrinsic_shim(id, base, offset);
    }

    /// A call of intrinsic `id` through the shim, its arguments the stack
    /// slots from `base` up; its result (if it has one) replaces them.
    pub(super) fn intrinsic_shim(&mut self, id: u32, base: u32, offset: u32) {
        let info = &INTRINSICS[id as usize];
        let n = info.params.len() as u32;
        // A cost known now is charged here, before the call as the
        // interpreter charges it, and the shim is told so; otherwise the
        // shim charges it, computed from the arguments as the interpreter
        // computes it. Either way the shim returns the fuel left and the
        // result comes back in the first argument word.
        let paid = patterns::pay(self, id, base, offset).is_some();
        let slot = self.args_slot();
        for k in 0..n {
            let v = self.get(base + k);
            self.b.ins().stack_store(PTR, v, slot, (k * 4) as i32);
        }
        let addr = self.b.ins().stack_addr(PTR, slot, 0);
        let flag = if paid { crate::shims::PAID } else { 0 };
        let idv = self.b.ins().iconst(types::I32, i64::from(id | flag));
        let fuel = self.b.use_var(self.fuel);
        // A deferred list passed to be written has its waiting fill
        // written first, one passed to be read as a set has its waiting
        // set taken (`crate::deferred`).
        let names_deferred = (0..n).any(|k| {
            matches!(info.params[k as usize].kind, ParamKind::List { .. })
                && self
                    .known(base + k)
                    .is_some_and(|l| self.env.deferred.contains(&(l as u32)))
        });
        let shim = if names_deferred {
            self.env.intrinsic_flush
        } else {
            self.env.intrinsic
        };
        let call = self.b.ins().call(shim, &[self.ctx, idv, addr, fuel]);
        let left = self.b.inst_results(call)[0];
        self.check_charging_shim(left, offset);
        if info.returns {
            let v = self.b.ins().stack_load(PTR, types::I32, slot, 0);
            self.set(base, v);
        }
    }
}
