//! The guard of a counted loop: the run-time test, on every entry, that
//! decides between the fast and the checked copy (`docs/jit.md`, "The
//! guard"). All arithmetic is in 64 bits, where none of it can overflow:
//! trip counts are kept below 2^31, steps and values are 32-bit and the
//! fuel per iteration is at most 2^20.

use crate::analysis::loops::{increasing, Bound, CountedLoop, Index, ListRef, Step};
use crate::lower::Lower;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, Value};
use cvm::isa::Rel;

/// The guard's conditions as they are emitted, and the values they share.
struct Guard<'l, 'a, 'b> {
    l: &'l mut Lower<'a, 'b>,
    /// Every condition the fast copy needs (booleans).
    conds: Vec<Value>,
    /// Each induction variable's value at the entry (64 bits).
    start: Vec<Value>,
    /// Each induction variable's step (64 bits).
    step: Vec<Value>,
}

/// Emits, at the builder's position (the guard block, entered from outside
/// the loop), the test that decides between the fast and the checked copy
/// of `lp`, and returns it (non-zero: take the fast copy).
pub(super) fn guard(l: &mut Lower<'_, '_>, lp: &CountedLoop) -> Value {
    let mut g = Guard {
        l,
        conds: Vec::new(),
        start: Vec::with_capacity(lp.ivs.len()),
        step: Vec::with_capacity(lp.ivs.len()),
    };
    g.induction_variables(lp);
    let (k, u0) = g.trip_count(lp);
    g.fuel_and_wrap(lp, k, u0);
    g.accesses(lp, k);
    g.depth(lp);
    g.all()
}

impl Guard<'_, '_, '_> {
    fn wide(&mut self, v: Value) -> Value {
        self.l.b.ins().sextend(types::I64, v)
    }

    /// Reads the induction variables' values at the entry and their steps.
    fn induction_variables(&mut self, lp: &CountedLoop) {
        for iv in &lp.ivs {
            let v = self.l.slot(iv.slot);
            let v = self.wide(v);
            self.start.push(v);
            let s = match iv.step {
                Step::Const(c) => self.l.b.ins().iconst(types::I64, i64::from(c)),
                Step::Slot(s) => {
                    let v = self.l.slot(s);
                    self.wide(v)
                }
            };
            self.step.push(s);
        }
    }

    /// `K`, the number of governing tests that can pass: 0 when the first
    /// fails, else `ceil(distance to the bound / pace)`, required below
    /// 2^31 (and a slot step positive towards the bound). Returns `K` and
    /// the value the first iteration tests.
    fn trip_count(&mut self, lp: &CountedLoop) -> (Value, Value) {
        let t = lp.test;
        let (s0, c) = (self.start[t.iv], self.step[t.iv]);
        let b = &mut self.l.b;
        // The value the first iteration tests.
        let mut u0 = s0;
        if t.post {
            u0 = b.ins().iadd(u0, c);
        }
        if t.off != 0 {
            u0 = b.ins().iadd_imm_s(u0, i64::from(t.off));
        }
        let bound = match t.bound {
            Bound::Imm(k) => self.l.b.ins().iconst(types::I64, i64::from(k)),
            Bound::Slot { slot, off } => {
                let v = self.l.slot(slot);
                let v = self.l.b.ins().iadd_imm_s(v, i64::from(off));
                self.wide(v)
            }
            Bound::Slots(r) => {
                let n = self.l.list_slot_count(r);
                self.l.b.ins().uextend(types::I64, n)
            }
        };
        let b = &mut self.l.b;
        // The distance to the bound and the (positive) pace towards it.
        let (dist, pace) = if increasing(t.cmp) {
            let limit = if t.cmp == Rel::Le {
                b.ins().iadd_imm_s(bound, 1)
            } else {
                bound
            };
            (b.ins().isub(limit, u0), c)
        } else {
            let limit = if t.cmp == Rel::Ge {
                b.ins().iadd_imm_s(bound, -1)
            } else {
                bound
            };
            (b.ins().isub(u0, limit), b.ins().ineg(c))
        };
        let iv = lp.ivs[t.iv];
        if let Step::Slot(_) = iv.step {
            let positive = b.ins().icmp_imm_s(IntCC::SignedGreaterThan, pace, 0);
            self.conds.push(positive);
        }
        let b = &mut self.l.b;
        let zero = b.ins().iconst(types::I64, 0);
        let k = match iv.step {
            Step::Const(1) | Step::Const(-1) => b.ins().smax(dist, zero),
            _ => {
                let positive = b.ins().icmp_imm_s(IntCC::SignedGreaterThan, pace, 0);
                let one = b.ins().iconst(types::I64, 1);
                // Never divide by a pace that is not positive (the
                // condition above then fails anyway).
                let divisor = b.ins().select(positive, pace, one);
                let num = b.ins().iadd(dist, divisor);
                let num = b.ins().iadd_imm_s(num, -1);
                let q = b.ins().sdiv(num, divisor);
                let any = b.ins().icmp_imm_s(IntCC::SignedGreaterThan, dist, 0);
                b.ins().select(any, q, zero)
            }
        };
        let small = b.ins().icmp_imm_s(IntCC::SignedLessThan, k, 1 << 31);
        self.conds.push(small);
        (k, u0)
    }

    /// `v` lies in `i32`.
    fn in_i32(&mut self, v: Value) {
        let b = &mut self.l.b;
        let lo = b
            .ins()
            .icmp_imm_s(IntCC::SignedGreaterThanOrEqual, v, i64::from(i32::MIN));
        let hi = b
            .ins()
            .icmp_imm_s(IntCC::SignedLessThanOrEqual, v, i64::from(i32::MAX));
        self.conds.push(lo);
        self.conds.push(hi);
    }

    /// The fuel left covers `(K + 1)` iterations (at most that many
    /// start), and no induction variable wraps in `K + 1` steps, nor the
    /// tested value (`u0`, when it adds a constant) in `K`.
    fn fuel_and_wrap(&mut self, lp: &CountedLoop, k: Value, u0: Value) {
        let t = lp.test;
        let b = &mut self.l.b;
        let n = b.ins().iadd_imm_s(k, 1);
        let need = b.ins().imul_imm_s(n, lp.fuel_per_iteration as i64);
        let fuel = b.use_var(self.l.fuel);
        let enough = b.ins().icmp(IntCC::SignedGreaterThanOrEqual, fuel, need);
        self.conds.push(enough);
        for (j, iv) in lp.ivs.iter().enumerate() {
            if iv.step != Step::Const(0) {
                let moved = self.l.b.ins().imul(n, self.step[j]);
                let end = self.l.b.ins().iadd(self.start[j], moved);
                self.in_i32(end);
            }
        }
        if t.off != 0 {
            self.in_i32(u0);
            let moved = self.l.b.ins().imul(k, self.step[t.iv]);
            let last = self.l.b.ins().iadd(u0, moved);
            self.in_i32(last);
        }
    }

    /// Every proven access stays inside its list: its index at the first
    /// and at the last iteration that can reach it (`K` for accesses
    /// before the test, `K - 1` after it) lies in `0..slots`.
    fn accesses(&mut self, lp: &CountedLoop, k: Value) {
        let zero = self.l.b.ins().iconst(types::I64, 0);
        let k_full = {
            let less = self.l.b.ins().iadd_imm_s(k, -1);
            self.l.b.ins().smax(less, zero)
        };
        for a in &lp.accesses {
            match a.index {
                Index::Const(x) => {
                    if let ListRef::Param(_) = a.list {
                        let slots = self.l.list_slot_count(a.list);
                        let inside = self.l.b.ins().icmp_imm_s(
                            IntCC::UnsignedGreaterThan,
                            slots,
                            i64::from(x),
                        );
                        self.conds.push(inside);
                    }
                }
                Index::Iv { iv: j, post, off } => {
                    let slots = self.l.list_slot_count(a.list);
                    let b = &mut self.l.b;
                    let slots = b.ins().uextend(types::I64, slots);
                    let (s, c) = (self.start[j], self.step[j]);
                    let kmax = if a.before_test { k } else { k_full };
                    let mut lo = b.ins().iadd_imm_s(s, i64::from(off));
                    if post {
                        lo = b.ins().iadd(lo, c);
                    }
                    let (min, max) = match lp.ivs[j].step {
                        Step::Const(0) => (lo, lo),
                        st => {
                            let moved = b.ins().imul(kmax, c);
                            let hi = b.ins().iadd(lo, moved);
                            match st {
                                Step::Const(x) if x > 0 => (lo, hi),
                                Step::Const(_) => (hi, lo),
                                Step::Slot(_) => (b.ins().smin(lo, hi), b.ins().smax(lo, hi)),
                            }
                        }
                    };
                    let low_ok = b.ins().icmp_imm_s(IntCC::SignedGreaterThanOrEqual, min, 0);
                    let high_ok = b.ins().icmp(IntCC::SignedLessThan, max, slots);
                    self.conds.push(low_ok);
                    self.conds.push(high_ok);
                }
            }
        }
    }

    /// The depth tests of `enter` and `enter.f` all pass: for each at
    /// nesting level `o` testing `k`, `depth_left - o > k`.
    fn depth(&mut self, lp: &CountedLoop) {
        for &(o, k) in &lp.depth {
            let b = &mut self.l.b;
            let left = b.use_var(self.l.depth_left);
            let left = b.ins().iadd_imm_s(left, -i64::from(o));
            let ok = b
                .ins()
                .icmp_imm_s(IntCC::UnsignedGreaterThan, left, i64::from(k));
            self.conds.push(ok);
        }
    }

    /// The conjunction of every condition.
    fn all(self) -> Value {
        let b = &mut self.l.b;
        let mut all = match self.conds.first() {
            Some(&c) => c,
            None => b.ins().iconst(types::I8, 1),
        };
        for &c in self.conds.iter().skip(1) {
            all = b.ins().band(all, c);
        }
        all
    }
}
