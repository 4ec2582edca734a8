//! Translation of verified CVM code into the register form ([`super::op`]).
//!
//! The verifier knows the operand-stack depth before every instruction, so
//! every stack slot has a fixed register. The translation goes further than
//! one op per instruction: it keeps a *virtual stack* that records, for
//! each stack slot, whether its value is already in the slot's register, is
//! still the value of a frame slot (`ldl s` copies nothing; the consumer
//! reads `s` itself), or is a constant not yet written (`push k`). A value
//! is written to its slot's register only where something needs it there:
//! before a jump target and before a branch (the code at the target expects
//! every stack value in its register), for the arguments of a call or an
//! intrinsic (which must lie side by side), before the frame slot it
//! mirrors is written, and for ops that have no form reading it elsewhere.
//! A computed value that is stored straight into a frame slot (`add; stl
//! s`) is computed into that slot. Constant stores and list-element tests
//! against constants become fused ops.
//!
//! The plain translation ([`Form::Plain`]) emits one op per executed CVM
//! instruction (what a profile of CVM instructions counts).

use super::op::{pattern_word, Aux, FuncMeta, Ix, Ix3, Known, Op, Reg, Scan};
use crate::intrinsics::{cost_known, Arg, ParamKind, INTRINSICS};
use crate::isa::{Flow, Opcode, Rel};
use crate::runtime::Memory;
use crate::verify::{InstrInfo, Program};
use std::collections::{HashMap, HashSet};

/// Which register form to produce.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Form {
    /// Loads elided, results forwarded, fused ops: the form that runs.
    Fast,
    /// One op per CVM instruction (for profiles of CVM instructions).
    Plain,
}

/// The register form of a whole program.
pub(super) struct Translation {
    pub code: Vec<Op>,
    pub aux: Vec<Aux>,
    /// The CVM code offset each op stands for (runtime errors report it).
    pub origin: Vec<u32>,
    /// For each op, the fuel it charges when it jumps backward
    /// ([`crate::verify::FunctionInfo::jump_fuel`]; 0 for other ops). A
    /// compare-and-branch op's charge is on its `Word`.
    pub back_fuel: Vec<u32>,
    pub funcs: Vec<FuncMeta>,
    /// The loop headers (targets of backward jumps) where the registers
    /// hold the whole CVM state, by op index: where a back edge can hand
    /// its frame to another backend (`crate::dispatch::LoopSite`).
    pub heads: Vec<Head>,
    /// The lists whose initial contents fixed a charge of an
    /// [`Op::Intr`] (constant lists, [`crate::analysis::ListFacts`]):
    /// while the embedder leaves them alone, the charges hold.
    pub reads_lists: Vec<u32>,
    /// Whether the program writes through list references it got as
    /// arguments ([`crate::analysis::ListFacts::writes_through_refs`]; a
    /// fast form's only): a list the embedder passes may then change during
    /// the call.
    pub writes_through_refs: bool,
}

/// A loop header of [`Translation::heads`].
#[derive(Copy, Clone, Debug)]
pub(super) struct Head {
    /// The op index jumps to the header arrive at.
    pub op: u32,
    /// The function.
    pub func: u32,
    /// The header's CVM code offset.
    pub offset: u32,
    /// The operand-stack depth there.
    pub depth: u32,
    /// The inlined frames open there.
    pub frames: u32,
    /// The register holding the top of the stack when it is not the top
    /// slot's own (a for-in step wrote its element into the loop variable).
    pub top: Option<Reg>,
}

/// Where the value of one operand-stack slot is during translation.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Val {
    /// In the stack slot's own register.
    Slot,
    /// Equal to frame slot `r`, which nothing has written since the value
    /// was pushed.
    Local(Reg),
    /// The constant, not written anywhere yet.
    Const(i32),
}

/// The translation of one function in progress.
struct Emit<'t> {
    out: &'t mut Translation,
    /// Frame slots of the function (its first stack register).
    slots: u32,
    /// The virtual operand stack.
    vals: Vec<Val>,
    /// The CVM offset of the instruction being translated.
    offset: u32,
    /// Branches whose backward charge does not fit their `Word`.
    far: Vec<FarBranch>,
    /// The first op of the current straight-line stretch (a jump may
    /// arrive there): ops from here on may be merged.
    barrier: usize,
    /// The CVM offset of the instruction that set [`Emit::barrier`].
    barrier_at: u32,
    /// Fusions allowed ([`Form::Fast`]).
    fast: bool,
    /// Stores of 0 that change nothing ([`zero_stores`]).
    zero_stores: &'t HashSet<u32>,
    /// What calls of intrinsics may take from the module's lists
    /// ([`Form::Fast`] only).
    lists: Option<&'t KnownLists<'t>>,
}

/// The module's lists as the translation of intrinsic calls sees them:
/// which ones only the embedder can change, and their initial contents.
struct KnownLists<'m> {
    facts: &'m crate::analysis::ListFacts,
    initial: &'m Memory,
}

/// A compare-and-branch whose backward-jump charge does not fit the 16
/// bits of its `Word`: the `Word` jumps forward (free) to a `Jmp` placed
/// after the function, which charges the whole span and jumps on.
struct FarBranch {
    /// Index of the `Word`.
    word: usize,
    /// The CVM target.
    target: u32,
    /// The branch's code offset.
    at: u32,
    /// The charge.
    back: u64,
}

impl Emit<'_> {
    /// Removes the op just emitted (its value is taken over by the next).
    fn unemit(&mut self) {
        self.out.code.pop();
        self.out.origin.pop();
        self.out.back_fuel.pop();
    }

    fn op(&mut self, op: Op) {
        if let Op::Mov { dst, src } = op {
            if self.merge_mov(dst, src) {
                return;
            }
        }
        self.out.code.push(op);
        self.out.origin.push(self.offset);
        self.out.back_fuel.push(0);
    }

    /// Extends a `Mov`/`MovN` just emitted, in the same straight-line
    /// stretch, whose registers `dst` and `src` continue, into a `MovN`
    /// (the moves still happen in order).
    fn merge_mov(&mut self, dst: Reg, src: Reg) -> bool {
        let n = self.out.code.len();
        if !self.fast || n == 0 || n - 1 < self.barrier {
            return false;
        }
        let (d, s, k) = match self.out.code[n - 1] {
            Op::Mov { dst: d, src: s } => (d, s, 1),
            Op::MovN {
                dst: d,
                src: s,
                n: k,
            } => (d, s, k),
            _ => return false,
        };
        if d.checked_add(k) != Some(dst) || s.checked_add(k) != Some(src) {
            return false;
        }
        let k = k + 1;
        // The runs must not overlap (the op copies them as one block).
        if u32::from(d) < u32::from(s) + u32::from(k) && u32::from(s) < u32::from(d) + u32::from(k)
        {
            return false;
        }
        let merged = Op::MovN {
            dst: d,
            src: s,
            n: k,
        };
        self.out.code[n - 1] = merged;
        true
    }

    /// The branch `r < k` to `target` (charging `back` when it jumps
    /// backward) just after an `Add` of a register into `r` in the same
    /// straight-line stretch: emits the two as [`Op::AddJLtK`] and its
    /// `Word`, which keeps the branch's offset. `false` (nothing emitted)
    /// for any other shape.
    fn add_step(&mut self, r: Reg, k: i32, target: u32, back: u64) -> bool {
        let Some(last) = self.out.code.len().checked_sub(1) else {
            return false;
        };
        if !self.fast || self.barrier > last {
            return false;
        }
        let Ok(k) = i16::try_from(k) else {
            return false;
        };
        let b = match self.out.code[last] {
            Op::Add { dst, a, b } if dst == r && a == r => b,
            Op::Add { dst, a, b } if dst == r && b == r => a,
            _ => return false,
        };
        let origin = self.out.origin[last];
        self.out.code.truncate(last);
        self.out.origin.truncate(last);
        self.out.back_fuel.truncate(last);
        self.branch(Op::AddJLtK { r, b, k }, target, back);
        self.out.origin[last] = origin;
        true
    }

    /// When the list index in register `idx` was computed by the ops just
    /// emitted, `add` (and an `addi` of a small constant on its result),
    /// into a stack register that nothing reads after the list op: the
    /// position of the `add`, its operands and the constant.
    fn index_add(&self, idx: Reg) -> Option<(usize, Reg, Reg, i8)> {
        if !self.fast || u32::from(idx) < self.slots {
            return None;
        }
        let code = &self.out.code;
        let mut end = code.len();
        let mut off = 0i8;
        if end > self.barrier {
            if let Op::AddI { r, k } = code[end - 1] {
                if r == idx {
                    off = i8::try_from(k).ok()?;
                    end -= 1;
                }
            }
        }
        if end <= self.barrier {
            return None;
        }
        match code[end - 1] {
            Op::Add { dst, a, b } if dst == idx => Some((end - 1, a, b, off)),
            _ => None,
        }
    }

    /// Removes the ops from `keep` on, which compute an index a fused op
    /// takes over.
    fn drop_index_ops(&mut self, keep: usize) {
        self.out.code.truncate(keep);
        self.out.origin.truncate(keep);
        self.out.back_fuel.truncate(keep);
    }

    /// The index of [`Emit::index_add`] for a fused op to compute: removes
    /// the ops that computed it.
    fn take_index(&mut self, idx: Reg) -> Option<Ix> {
        let (at, a, b, off) = self.index_add(idx)?;
        let (Ok(a), Ok(b)) = (u8::try_from(a), u8::try_from(b)) else {
            return None;
        };
        self.drop_index_ops(at);
        Some(Ix { a, b, off })
    }

    /// Like [`Emit::take_index`], when a `sub` into `idx` just before the
    /// `add` computed one of its operands (`x - y + b + off`): removes the
    /// three ops and returns the index for a `*3` op to compute.
    fn take_index3(&mut self, idx: Reg) -> Option<Ix3> {
        let (at, a, b, off) = self.index_add(idx)?;
        let b = match (a == idx, b == idx) {
            (true, false) => b,
            (false, true) => a,
            _ => return None,
        };
        if at <= self.barrier {
            return None;
        }
        let Op::Sub { dst, a: x, b: y } = self.out.code[at - 1] else {
            return None;
        };
        if dst != idx {
            return None;
        }
        let (Ok(a), Ok(s), Ok(b)) = (u8::try_from(x), u8::try_from(y), u8::try_from(b)) else {
            return None;
        };
        self.drop_index_ops(at - 1);
        Some(Ix3 { a, s, b, off })
    }

    /// An op that jumps itself, charging `back` when it jumps backward.
    fn jump_op(&mut self, op: Op, back: u64) {
        self.op(op);
        if let Some(last) = self.out.back_fuel.last_mut() {
            *last = u32::try_from(back).unwrap_or(u32::MAX);
        }
    }

    /// An op followed by the `Word` holding its target; the `Word` carries
    /// the branch's code offset `at` (the op's own, or that of the branch
    /// instruction fused into it) and its backward-jump charge `back`.
    fn branch_at(&mut self, op: Op, at: u32, target: u32, back: u64) {
        self.op(op);
        let f = u16::try_from(back).ok();
        if f.is_none() {
            self.far.push(FarBranch {
                word: self.out.code.len(),
                target,
                at,
                back,
            });
        }
        self.out.code.push(Op::Word {
            f: f.unwrap_or(0),
            w: target,
        });
        self.out.origin.push(at);
        self.out.back_fuel.push(0);
    }

    /// Fuses the conditional branch being translated, which tests register
    /// `r` and jumps to `target` when it is `when` (non-zero), into the op
    /// just emitted when that is a one-mask test ([`Known::KING`],
    /// [`Known::PAT`]) writing `r` in this straight-line stretch: the test
    /// becomes an [`Op::TestJ`], followed by the branch's `Word`. The
    /// test keeps its own code offset (where a fuel shortage of its charge
    /// traps), the `Word` the branch's.
    fn fuse_test(&mut self, r: Reg, when: bool, target: u32, back: u64) -> bool {
        let len = self.out.code.len();
        if len <= self.barrier {
            return false;
        }
        let Some(&Op::Intr { base, aux }) = self.out.code.last() else {
            return false;
        };
        if base != r || !matches!(self.out.aux[aux as usize].inc, Known::KING | Known::PAT) {
            return false;
        }
        let origin = self.out.origin[len - 1];
        self.unemit();
        self.out.aux[aux as usize].when = when;
        let branch = self.offset;
        self.offset = origin;
        self.branch_at(Op::TestJ { aux }, branch, target, back);
        self.offset = branch;
        true
    }

    /// [`Emit::branch_at`] of the instruction being translated.
    fn branch(&mut self, op: Op, target: u32, back: u64) {
        self.branch_at(op, self.offset, target, back);
    }

    fn aux(&mut self, a: u32, b: u32, target: u32) -> u32 {
        self.out.aux.push(Aux {
            a,
            b,
            target,
            inc: 0,
            fuel: 0,
            store: [0; 3],
            pattern: 0,
            when: false,
        });
        self.out.aux.len() as u32 - 1
    }

    /// Records that a charge or test of the fast form was worked out from
    /// the initial contents of list `l`.
    fn reads_list(&mut self, l: u32) {
        if !self.out.reads_lists.contains(&l) {
            self.out.reads_lists.push(l);
        }
    }

    /// The [`Aux`] entry of an [`Op::Intr`] of `form` charging `cost`,
    /// with its operands `a`, `b`, `target`.
    fn known(&mut self, form: u32, cost: u32, [a, b, target]: [u32; 3]) -> u32 {
        let x = self.aux(a, b, target);
        self.out.aux[x as usize].inc = form;
        self.out.aux[x as usize].fuel = cost;
        x
    }

    /// The register of stack slot `i`.
    fn slot(&self, i: usize) -> Reg {
        (self.slots + i as u32) as Reg
    }

    /// The register of the stack slot `k` below the top (1: the top).
    fn st(&self, k: usize) -> Reg {
        self.slot(self.vals.len() - k)
    }

    /// The register the next push writes.
    fn push_reg(&self) -> Reg {
        self.slot(self.vals.len())
    }

    /// Writes stack slot `i`'s value into its register.
    fn materialize(&mut self, i: usize) {
        match self.vals[i] {
            Val::Slot => {}
            Val::Local(r) => self.op(Op::Mov {
                dst: self.slot(i),
                src: r,
            }),
            Val::Const(k) => self.op(Op::Const {
                dst: self.slot(i),
                k,
            }),
        }
        self.vals[i] = Val::Slot;
    }

    /// Writes every stack value into its register.
    fn flush(&mut self) {
        for i in 0..self.vals.len() {
            self.materialize(i);
        }
    }

    /// Before frame slot `r` is written: every stack value still equal to
    /// it is copied into its own register.
    fn spill_local(&mut self, r: Reg) {
        for i in 0..self.vals.len() {
            if self.vals[i] == Val::Local(r) {
                self.materialize(i);
            }
        }
    }

    /// Pops the top value and returns the register holding it (a constant
    /// is written into its slot's register first).
    fn pop(&mut self) -> Reg {
        let i = self.vals.len() - 1;
        let r = match self.vals[i] {
            Val::Local(r) => r,
            Val::Slot | Val::Const(_) => {
                self.materialize(i);
                self.slot(i)
            }
        };
        self.vals.pop();
        r
    }

    /// Pops the top value when it is a constant that fits 16 bits.
    fn pop_small_const(&mut self) -> Option<i16> {
        match self.vals.last() {
            Some(&Val::Const(k)) => {
                let k = i16::try_from(k).ok()?;
                self.vals.pop();
                Some(k)
            }
            _ => None,
        }
    }

    fn push(&mut self, v: Val) {
        self.vals.push(v);
    }

    /// Pushes a value computed into its slot's register.
    fn push_slot(&mut self) {
        self.vals.push(Val::Slot);
    }

    /// Resets the virtual stack to `depth` values in their registers (at a
    /// jump target, where every path has written them).
    fn reset(&mut self, depth: u32) {
        self.vals.clear();
        self.vals.resize(depth as usize, Val::Slot);
    }
}

/// Translates every function of a verified program whose instance memory
/// starts as `initial`.
///
/// The fast form works charges out from the lists `facts` finds constant
/// (none without them); the plain form needs no facts.
pub(super) fn translate(
    program: &Program,
    form: Form,
    initial: &Memory,
    facts: Option<&crate::analysis::ListFacts>,
) -> Translation {
    let module = program.module();
    let mut out = Translation {
        code: Vec::new(),
        aux: Vec::new(),
        origin: Vec::new(),
        back_fuel: Vec::new(),
        funcs: Vec::with_capacity(module.functions.len()),
        heads: Vec::new(),
        reads_lists: Vec::new(),
        writes_through_refs: false,
    };
    let lists = facts
        .filter(|_| form == Form::Fast)
        .map(|facts| KnownLists { facts, initial });
    out.writes_through_refs = lists.as_ref().is_some_and(|l| l.facts.writes_through_refs);
    for (index, (f, info)) in module
        .functions
        .iter()
        .zip(program.function_infos())
        .enumerate()
    {
        let start = out.code.len();
        // Registers are numbered in 16 bits, so the verifier's frame
        // bounds keep arity and slots below 2^16.
        out.funcs.push(FuncMeta {
            entry: start as u32,
            fuel: u32::try_from(info.call_fuel()).unwrap_or(u32::MAX),
            arity: f.arity() as u16,
            slots: f.frame_slots() as u16,
            frame: f.frame_slots() + f.max_stack,
        });
        let labels: HashSet<u32> = info
            .instrs
            .iter()
            .filter_map(|i| i.instr.target())
            .collect();
        let elements = match form {
            Form::Fast => element_slots(&info.instrs),
            Form::Plain => HashMap::new(),
        };
        let zero_stores = match form {
            Form::Fast => zero_stores(f.arity(), f.frame_slots(), &info.instrs),
            Form::Plain => HashSet::new(),
        };
        let mut pc_of: HashMap<u32, u32> = HashMap::new();
        let mut e = Emit {
            out: &mut out,
            slots: f.frame_slots(),
            vals: Vec::new(),
            offset: 0,
            far: Vec::new(),
            barrier: start,
            barrier_at: 0,
            fast: form == Form::Fast,
            zero_stores: &zero_stores,
            lists: lists.as_ref(),
        };
        let instrs = &info.instrs;
        let mut k = 0;
        while k < instrs.len() {
            let i = &instrs[k];
            k += 1;
            let Some(depth) = i.depth else { continue };
            e.offset = i.offset;
            if let Some(&slot) = elements.get(&i.offset) {
                // Every path arrives from a for-in step that wrote its
                // element into `slot` (and the values below it into their
                // registers).
                let n = e.vals.len().saturating_sub(1);
                for j in 0..n {
                    e.materialize(j);
                }
                e.reset(depth);
                if let Some(top) = e.vals.last_mut() {
                    *top = Val::Local(slot);
                }
            } else if labels.contains(&i.offset) {
                // Paths that jump here wrote every value; the path that
                // falls through does so now.
                e.flush();
                e.reset(depth);
            } else if e.vals.len() != depth as usize {
                // Only reached after an unconditional transfer, where the
                // virtual stack is stale.
                e.reset(depth);
            }
            if labels.contains(&i.offset) || elements.contains_key(&i.offset) {
                e.barrier = e.out.code.len();
                e.barrier_at = i.offset;
            }
            pc_of.insert(i.offset, e.out.code.len() as u32);
            let next = Next {
                instrs,
                at: k,
                labels: &labels,
                elements: &elements,
                fast: form == Form::Fast,
            };
            k += instruction(&mut e, program, info, i, next);
            if form == Form::Plain {
                e.flush();
            }
        }
        let far = std::mem::take(&mut e.far);
        out.heads
            .extend(heads(index as u32, instrs, &pc_of, &labels, &elements));
        // Verified targets are instruction starts of this function, so the
        // map has them all.
        let map = |t: &mut u32| *t = pc_of.get(t).copied().unwrap_or(0);
        for op in &mut out.code[start..] {
            match op {
                Op::Jmp { target } | Op::Jz { target, .. } | Op::Jnz { target, .. } => map(target),
                Op::Word { w, .. } => map(w),
                // The aux entries of these hold a jump target (other ops use
                // the field for data).
                Op::ForL { aux: x, .. }
                | Op::ForX { aux: x, .. }
                | Op::ForLB { aux: x, .. }
                | Op::ForXB { aux: x, .. }
                | Op::StXForLB { aux: x, .. }
                | Op::StXForXB { aux: x, .. }
                | Op::Case { aux: x, .. } => map(&mut out.aux[*x as usize].target),
                _ => {}
            }
        }
        for b in far {
            let mut target = b.target;
            map(&mut target);
            let at = out.code.len() as u32;
            out.code.push(Op::Jmp { target });
            out.origin.push(b.at);
            out.back_fuel
                .push(u32::try_from(b.back).unwrap_or(u32::MAX));
            if let Some(Op::Word { w, .. }) = out.code.get_mut(b.word) {
                *w = at;
            }
        }
        if form == Form::Fast {
            fuse_scans(&mut out, start);
        }
    }
    out
}

/// The `stl` and `tee` instructions (by code offset) of a function whose
/// slot is a local that still holds the 0 of the function's entry on every
/// path to them: a store of the constant 0 there changes nothing, and the
/// fast form emits no op for it (`count := 0` at the top of a function).
/// Every call zeroes a function's locals (slots `arity..slots`); a forward
/// analysis over the verified code drops a slot from the set at any
/// instruction that writes it (the instruction table's access columns),
/// and where paths meet keeps the slots zero on all of them. Functions of
/// more than 64 slots are left out.
fn zero_stores(arity: u32, slots: u32, instrs: &[InstrInfo]) -> HashSet<u32> {
    if slots > 64 || arity >= slots || instrs.is_empty() {
        return HashSet::new();
    }
    let bit = |s: u32| if s < 64 { 1u64 << s } else { 0 };
    let entry = (arity..slots).fold(0u64, |set, s| set | bit(s));
    // The slots zero before each instruction; `None`: no path seen yet.
    let mut before: Vec<Option<u64>> = vec![None; instrs.len()];
    before[0] = Some(entry);
    let meet = |into: &mut Option<u64>, from: u64| -> bool {
        let kept = into.map_or(from, |set| set & from);
        let changed = *into != Some(kept);
        *into = Some(kept);
        changed
    };
    // The sets only shrink once set, so the passes end.
    let mut changed = true;
    while changed {
        changed = false;
        for (k, i) in instrs.iter().enumerate() {
            let Some(mut set) = before[k] else {
                continue;
            };
            let instr = &i.instr;
            for slot in instr.slots_written() {
                set &= !bit(slot);
            }
            let flow = instr.opcode.info().flow;
            if matches!(flow, Flow::Jump | Flow::Branch) {
                if let Some(t) = instr.target() {
                    let at = instrs.partition_point(|j| j.offset < t);
                    if instrs.get(at).is_some_and(|j| j.offset == t) {
                        changed |= meet(&mut before[at], set);
                    }
                }
            }
            if matches!(flow, Flow::Next | Flow::Branch) && k + 1 < instrs.len() {
                changed |= meet(&mut before[k + 1], set);
            }
        }
    }
    instrs
        .iter()
        .zip(&before)
        .filter(|(i, set)| {
            matches!(i.instr.opcode, Opcode::Stl | Opcode::Tee)
                && set.is_some_and(|set| set & bit(i.instr.operands[0]) != 0)
        })
        .map(|(i, _)| i.offset)
        .collect()
}

/// Turns every counted loop step of the function whose code starts at op
/// `start` into an [`Op::IncScan`] where its jump goes back to a test of
/// the counted element against a constant that, when the element is
/// skipped, jumps forward (free of charge) straight to the step:
/// `while c < n do if col[c] = 0 then ... end; c++; end`. Runs after the
/// jump targets are op indices; a step whose `Word` leads elsewhere (a far
/// branch's `Jmp`) keeps its form.
fn fuse_scans(out: &mut Translation, start: usize) {
    for p in start..out.code.len() {
        let (r, bound, bound_k) = match out.code[p] {
            Op::IncJLt { r, b } => (r, u32::from(b), 0),
            Op::IncJLtI { r, k } => (r, k as u32, Scan::BOUND_K),
            _ => continue,
        };
        let Some(&Op::Word { w: head, .. }) = out.code.get(p + 1) else {
            continue;
        };
        let h = head as usize;
        let (list, k, flags) = match out.code.get(h) {
            Some(&Op::LdXJNeK { lst, idx, k }) if idx == r => (u32::from(lst), k, Scan::LIST_REF),
            Some(&Op::LdXJEqK { lst, idx, k }) if idx == r => {
                (u32::from(lst), k, Scan::LIST_REF | Scan::SKIP_EQ)
            }
            Some(&Op::LdEJNeK { idx, list, k }) if idx == r => (u32::from(list), k, 0),
            Some(&Op::LdEJEqK { idx, list, k }) if idx == r => (u32::from(list), k, Scan::SKIP_EQ),
            _ => continue,
        };
        // The test skips to the step itself, forward and so free.
        if !matches!(out.code.get(h + 1), Some(&Op::Word { f: 0, w }) if w as usize == p) {
            continue;
        }
        // The loop keeps the bound and the list where it read them first:
        // the step must write neither.
        if (bound_k == 0 && bound == u32::from(r))
            || (flags & Scan::LIST_REF != 0 && list == u32::from(r))
        {
            continue;
        }
        out.aux.push(Aux {
            a: list,
            b: bound,
            target: head,
            inc: i32::from(k) as u32,
            fuel: flags | bound_k,
            store: [0; 3],
            pattern: 0,
            when: false,
        });
        out.code[p] = Op::IncScan {
            r,
            aux: out.aux.len() as u32 - 1,
        };
    }
}

/// The loop headers of one function ([`Translation::heads`]), by op index:
/// the targets of its backward jumps whose first op no other jump target
/// shares (where several meet, the registers hold the state of the last).
fn heads(
    func: u32,
    instrs: &[InstrInfo],
    pc_of: &HashMap<u32, u32>,
    labels: &HashSet<u32>,
    elements: &HashMap<u32, Reg>,
) -> Vec<Head> {
    let mut ops: HashMap<u32, u32> = HashMap::new();
    for t in labels {
        if let Some(&op) = pc_of.get(t) {
            *ops.entry(op).or_default() += 1;
        }
    }
    let mut targets: Vec<u32> = instrs
        .iter()
        .filter(|i| i.depth.is_some())
        .filter_map(|i| i.instr.target().filter(|&t| t <= i.offset))
        .collect();
    targets.sort_unstable();
    targets.dedup();
    let mut heads: Vec<Head> = targets
        .into_iter()
        .filter_map(|t| {
            let op = *pc_of.get(&t)?;
            if ops.get(&op) != Some(&1) {
                return None;
            }
            let i = &instrs[instrs.binary_search_by_key(&t, |i| i.offset).ok()?];
            Some(Head {
                op,
                func,
                offset: t,
                depth: i.depth?,
                frames: i.frames,
                top: elements.get(&t).copied(),
            })
        })
        .collect();
    heads.sort_unstable_by_key(|h| h.op);
    heads
}

/// The instructions after the one being translated, for fusions.
#[derive(Copy, Clone)]
struct Next<'a> {
    instrs: &'a [InstrInfo],
    /// Index of the next instruction.
    at: usize,
    labels: &'a HashSet<u32>,
    /// [`element_slots`] of the function.
    elements: &'a HashMap<u32, Reg>,
    /// Fusions allowed.
    fast: bool,
}

impl<'a> Next<'a> {
    /// The same view `n` instructions further on.
    fn skip(self, n: usize) -> Next<'a> {
        Next {
            at: self.at + n,
            ..self
        }
    }

    /// The instruction `n` places ahead (0: the next one) when control
    /// reaches it only from the one before it: reachable and not a jump
    /// target.
    fn plain(&self, n: usize) -> Option<&'a InstrInfo> {
        if !self.fast {
            return None;
        }
        let i = self.instrs.get(self.at + n)?;
        (i.depth.is_some() && !self.labels.contains(&i.offset)).then_some(i)
    }

    /// A value computed by the current instruction, then changed in place
    /// by up to four immediate ops, then stored by `stl s` or `tee s`:
    /// `(s, number of in-place ops, tee)`.
    fn stored_into(&self) -> Option<(Reg, usize, bool)> {
        for n in 0..=4 {
            let i = self.plain(n)?;
            match i.instr.opcode {
                Opcode::Stl => return Some((i.instr.operands[0] as Reg, n, false)),
                Opcode::Tee => return Some((i.instr.operands[0] as Reg, n, true)),
                Opcode::AddI
                | Opcode::MulI
                | Opcode::DivI
                | Opcode::ModI
                | Opcode::Neg
                | Opcode::BitNot
                | Opcode::LNot => {}
                _ => return None,
            }
        }
        None
    }
}

/// The op of an in-place immediate or unary instruction on register `r`.
fn in_place(opcode: Opcode, k: i32, r: Reg) -> Op {
    match opcode {
        Opcode::AddI => Op::AddI { r, k },
        Opcode::MulI => Op::MulI { r, k },
        Opcode::DivI => Op::DivI { r, k },
        Opcode::ModI => Op::ModI { r, k },
        Opcode::Neg => Op::Neg { dst: r, a: r },
        Opcode::BitNot => Op::Not { dst: r, a: r },
        _ => Op::LNot { dst: r, a: r },
    }
}

/// Where the value an instruction computes goes: into a frame slot when
/// the instructions after it store it there (the in-place ops between are
/// emitted on that slot), else into the result's stack register. Call after
/// the operands were popped.
struct Dest {
    reg: Reg,
    /// `(slot, in-place ops, tee)` when forwarded.
    stored: Option<(Reg, usize, bool)>,
}

impl Dest {
    fn new(e: &mut Emit<'_>, next: Next<'_>) -> Dest {
        match next.stored_into() {
            Some((s, n, tee)) => {
                e.spill_local(s);
                Dest {
                    reg: s,
                    stored: Some((s, n, tee)),
                }
            }
            None => Dest {
                reg: e.push_reg(),
                stored: None,
            },
        }
    }

    /// After the op computing into `self.reg` was emitted: the in-place ops
    /// and the stack effect of the store. Returns the instructions consumed
    /// besides the current one.
    fn finish(self, e: &mut Emit<'_>, next: Next<'_>) -> usize {
        match self.stored {
            None => {
                e.push_slot();
                0
            }
            Some((s, n, tee)) => {
                for j in 0..n {
                    let Some(i) = next.plain(j) else { break };
                    e.offset = i.offset;
                    let k = i.instr.operands.first().copied().unwrap_or(0) as i32;
                    e.op(in_place(i.instr.opcode, k, s));
                }
                if tee {
                    e.push(Val::Local(s));
                }
                n + 1
            }
        }
    }
}

/// Translates one instruction; returns how many of the following
/// instructions it consumed (fused into its ops).
fn instruction(
    e: &mut Emit<'_>,
    program: &Program,
    info: &crate::verify::FunctionInfo,
    i: &InstrInfo,
    next: Next<'_>,
) -> usize {
    let module = program.module();
    let ops = i.instr.operands;
    let back = |target: u32| info.jump_fuel(i.offset, target);
    // A computed result: into its destination, then the stores after it.
    macro_rules! result {
        ($make:expr) => {{
            let d = Dest::new(e, next);
            let make: &dyn Fn(Reg) -> Op = &$make;
            e.op(make(d.reg));
            return d.finish(e, next);
        }};
    }
    match i.instr.opcode {
        Opcode::Nop => {}
        Opcode::Halt => e.op(Op::Halt),
        Opcode::Push => e.push(Val::Const(ops[0] as i32)),
        Opcode::Pop => {
            e.vals.pop();
        }
        Opcode::Dup => match e.vals.last().copied() {
            Some(v @ (Val::Local(_) | Val::Const(_))) => e.push(v),
            _ => {
                let src = e.st(1);
                e.op(Op::Mov {
                    dst: e.push_reg(),
                    src,
                });
                e.push_slot();
            }
        },
        Opcode::Swap => {
            let n = e.vals.len();
            let (a, b) = (e.vals[n - 2], e.vals[n - 1]);
            if a != Val::Slot && b != Val::Slot {
                e.vals.swap(n - 2, n - 1);
            } else {
                e.materialize(n - 2);
                e.materialize(n - 1);
                e.op(Op::Swap {
                    a: e.st(2),
                    b: e.st(1),
                });
            }
        }
        Opcode::Ldl => e.push(Val::Local(ops[0] as Reg)),
        Opcode::Ldl2 if !next.fast => {
            e.op(Op::Mov2 {
                dst: e.push_reg(),
                a: ops[0] as Reg,
                b: ops[1] as Reg,
            });
            e.push_slot();
            e.push_slot();
        }
        Opcode::Ldl2 => {
            e.push(Val::Local(ops[0] as Reg));
            e.push(Val::Local(ops[1] as Reg));
        }
        Opcode::Stl => {
            let s = ops[0] as Reg;
            match e.vals.last().copied() {
                Some(Val::Local(r)) if r == s => {
                    e.vals.pop();
                }
                Some(Val::Const(0)) if e.zero_stores.contains(&e.offset) => {
                    e.vals.pop();
                }
                Some(Val::Const(k)) => {
                    e.vals.pop();
                    e.spill_local(s);
                    e.op(Op::Const { dst: s, k });
                }
                _ => {
                    let src = e.pop();
                    e.spill_local(s);
                    e.op(Op::Mov { dst: s, src });
                }
            }
        }
        Opcode::Tee => {
            let s = ops[0] as Reg;
            match e.vals.last().copied() {
                Some(Val::Local(r)) if r == s => {}
                Some(Val::Const(0)) if e.zero_stores.contains(&e.offset) => {
                    e.vals.pop();
                    e.push(Val::Local(s));
                }
                Some(Val::Const(k)) => {
                    e.vals.pop();
                    e.spill_local(s);
                    e.op(Op::Const { dst: s, k });
                    e.push(Val::Local(s));
                }
                _ => {
                    let src = e.pop();
                    e.spill_local(s);
                    e.op(Op::Mov { dst: s, src });
                    // The value is in `s` now, and still in its stack slot
                    // unless it was a frame slot's (the plain form keeps
                    // every value in its slot).
                    e.push(if next.fast { Val::Local(s) } else { Val::Slot });
                }
            }
        }
        Opcode::Ldg => result!(|dst| Op::LdG { dst, g: ops[0] }),
        Opcode::Stg => {
            let src = e.pop();
            e.op(Op::StG { src, g: ops[0] });
        }
        Opcode::Incl if next.fast => {
            let r = ops[0] as Reg;
            if let Some(step) = next
                .plain(0)
                .filter(|n| matches!(n.instr.opcode, Opcode::ForlB | Opcode::ForxB))
            {
                e.spill_local(r);
                for_step(e, info, step, next.skip(1), Some(r));
                return 1;
            }
            if let Some((b, jlt, used)) = counted_step(next, r) {
                e.spill_local(r);
                e.flush();
                let target = jlt.instr.operands[0];
                let back = info.jump_fuel(jlt.offset, target);
                e.branch_at(Op::IncJLt { r, b }, jlt.offset, target, back);
                return used;
            }
            e.spill_local(r);
            e.op(Op::IncL { r });
        }
        Opcode::Incl | Opcode::Decl => {
            let r = ops[0] as Reg;
            e.spill_local(r);
            e.op(if i.instr.opcode == Opcode::Incl {
                Op::IncL { r }
            } else {
                Op::DecL { r }
            });
        }
        Opcode::Incg => e.op(Op::IncG { g: ops[0] }),
        Opcode::Decg => e.op(Op::DecG { g: ops[0] }),
        Opcode::Lref => result!(|dst| Op::LRef { dst, list: ops[0] }),
        Opcode::Lde | Opcode::LdeL => {
            let idx = if i.instr.opcode == Opcode::Lde {
                e.pop()
            } else {
                ops[1] as Reg
            };
            let list = ops[0];
            if let (Ok(list), Some((k, jeq, j))) = (u16::try_from(list), const_test(next)) {
                e.flush();
                let op = match (
                    u8::try_from(list)
                        .ok()
                        .and_then(|l| e.take_index(idx).map(|ix| (l, ix))),
                    jeq,
                ) {
                    (Some((list, ix)), true) => Op::LdEJEqK2 {
                        k,
                        p: ix.pack(list),
                    },
                    (Some((list, ix)), false) => Op::LdEJNeK2 {
                        k,
                        p: ix.pack(list),
                    },
                    (None, true) => Op::LdEJEqK { idx, list, k },
                    (None, false) => Op::LdEJNeK { idx, list, k },
                };
                return fused_branch(e, info, op, j);
            }
            if let Ok(l) = u8::try_from(list) {
                if let Some(ix) = e.take_index(idx) {
                    result!(|dst| Op::LdE2 { dst, p: ix.pack(l) })
                }
            }
            let wide = match u16::try_from(list) {
                Ok(_) => None,
                Err(_) => Some(e.aux(list, u32::from(idx), 0)),
            };
            result!(|dst| match (u16::try_from(list), wide) {
                (Ok(list), _) => Op::LdE { dst, idx, list },
                (Err(_), aux) => Op::LdEW {
                    dst,
                    aux: aux.unwrap_or(0),
                },
            })
        }
        Opcode::Ste | Opcode::SteL => {
            let list = ops[0];
            let small = u16::try_from(list).ok();
            let k = if small.is_some() {
                e.pop_small_const()
            } else {
                None
            };
            let val = if k.is_none() { Some(e.pop()) } else { None };
            let idx = if i.instr.opcode == Opcode::Ste {
                e.pop()
            } else {
                ops[1] as Reg
            };
            let fused = u8::try_from(list)
                .ok()
                .and_then(|l| e.take_index(idx).map(|ix| (l, ix)));
            match (small, k, val, fused) {
                (_, Some(k), _, Some((list, ix))) => e.op(Op::StEK2 {
                    k,
                    p: ix.pack(list),
                }),
                (_, None, Some(val), Some((list, ix))) => e.op(Op::StE2 {
                    val,
                    p: ix.pack(list),
                }),
                (Some(list), Some(k), _, _) => e.op(Op::StEK { idx, list, k }),
                (Some(list), None, Some(val), _) => e.op(Op::StE { idx, val, list }),
                (_, _, val, _) => {
                    let val = val.unwrap_or(0);
                    let aux = e.aux(list, u32::from(idx), u32::from(val));
                    e.op(Op::StEW { aux });
                }
            }
        }
        Opcode::Ldx | Opcode::LdxL => {
            let (lst, idx) = if i.instr.opcode == Opcode::Ldx {
                let idx = e.pop();
                (e.pop(), idx)
            } else {
                (ops[0] as Reg, ops[1] as Reg)
            };
            let small = u8::try_from(lst).ok();
            if let Some((k, jeq, j)) = const_test(next) {
                e.flush();
                if let (Some(l), Ok(k8)) = (small, i8::try_from(k)) {
                    if let Some(ix) = e.take_index3(idx) {
                        let (q, p) = (ix.pack_k(k8), ix.pack(l));
                        let op = if jeq {
                            Op::LdXJEqK3 { q, p }
                        } else {
                            Op::LdXJNeK3 { q, p }
                        };
                        return fused_branch(e, info, op, j);
                    }
                }
                let fused = small.and_then(|l| e.take_index(idx).map(|ix| (l, ix)));
                let op = match (fused, jeq) {
                    (Some((lst, ix)), true) => Op::LdXJEqK2 { k, p: ix.pack(lst) },
                    (Some((lst, ix)), false) => Op::LdXJNeK2 { k, p: ix.pack(lst) },
                    (None, true) => Op::LdXJEqK { lst, idx, k },
                    (None, false) => Op::LdXJNeK { lst, idx, k },
                };
                return fused_branch(e, info, op, j);
            }
            if let Some(l) = small {
                if let Some(ix) = e.take_index(idx) {
                    result!(|dst| Op::LdX2 { dst, p: ix.pack(l) })
                }
            }
            result!(|dst| Op::LdX { dst, lst, idx })
        }
        Opcode::Stx | Opcode::StxL => {
            let k = e.pop_small_const();
            let val = if k.is_none() { Some(e.pop()) } else { None };
            let (lst, idx) = if i.instr.opcode == Opcode::Stx {
                let idx = e.pop();
                (e.pop(), idx)
            } else {
                (ops[0] as Reg, ops[1] as Reg)
            };
            if let (Ok(l), Some(Ok(k8))) = (u8::try_from(lst), k.map(i8::try_from)) {
                if let Some(ix) = e.take_index3(idx) {
                    e.op(Op::StXK3 {
                        q: ix.pack_k(k8),
                        p: ix.pack(l),
                    });
                    return 0;
                }
            }
            let fused = u8::try_from(lst)
                .ok()
                .and_then(|l| e.take_index(idx).map(|ix| (l, ix)));
            match (k, val, fused) {
                (Some(k), _, Some((lst, ix))) => e.op(Op::StXK2 { k, p: ix.pack(lst) }),
                (None, Some(val), Some((lst, ix))) => e.op(Op::StX2 {
                    val,
                    p: ix.pack(lst),
                }),
                (Some(k), _, None) => e.op(Op::StXK { lst, idx, k }),
                (None, val, _) => e.op(Op::StX {
                    lst,
                    idx,
                    val: val.unwrap_or(0),
                }),
            }
        }
        Opcode::AddL | Opcode::SubL | Opcode::MulL => {
            let a = e.pop();
            let b = ops[0] as Reg;
            let opcode = i.instr.opcode;
            result!(|dst| match opcode {
                Opcode::AddL => Op::Add { dst, a, b },
                Opcode::SubL => Op::Sub { dst, a, b },
                _ => Op::Mul { dst, a, b },
            })
        }
        Opcode::Add
        | Opcode::Sub
        | Opcode::Mul
        | Opcode::Div
        | Opcode::Mod
        | Opcode::BitAnd
        | Opcode::BitOr
        | Opcode::BitXor
        | Opcode::Eq
        | Opcode::Ne
        | Opcode::Lt
        | Opcode::Le
        | Opcode::Gt
        | Opcode::Ge => {
            let opcode = i.instr.opcode;
            // A commutative op with a constant operand, on either side (a
            // constant on the left is the usual `k * (a - b)`): one op with
            // the constant in it.
            if next.fast {
                let n = e.vals.len();
                let (k, left) = match (e.vals[n - 2], e.vals[n - 1]) {
                    (_, Val::Const(k)) => (Some(k), false),
                    (Val::Const(k), _) => (Some(k), true),
                    _ => (None, false),
                };
                let fits = |k: i32| match opcode {
                    Opcode::Add => i16::try_from(k).is_ok(),
                    Opcode::Mul | Opcode::BitAnd | Opcode::BitOr | Opcode::BitXor => true,
                    _ => false,
                };
                if let Some(k) = k.filter(|&k| fits(k)) {
                    // The other operand only this op reads (a stack slot).
                    let temp = e.vals[if left { n - 1 } else { n - 2 }] == Val::Slot;
                    let a = if left {
                        let a = e.pop();
                        e.vals.pop();
                        a
                    } else {
                        e.vals.pop();
                        e.pop()
                    };
                    let emitted = e.out.code.len();
                    let d = Dest::new(e, next);
                    let dst = d.reg;
                    // `k * (x - y)` with the difference just computed into
                    // that slot: one op.
                    let difference = match e.out.code.last() {
                        Some(&Op::Sub { dst: t, a: x, b: y })
                            if opcode == Opcode::Mul
                                && temp
                                && t == a
                                && emitted == e.out.code.len()
                                && emitted > e.barrier =>
                        {
                            Some((x, y))
                        }
                        _ => None,
                    };
                    match (opcode, difference) {
                        (Opcode::Add, _) => e.op(Op::AddIM {
                            dst,
                            src: a,
                            k: k as i16,
                        }),
                        (_, Some((a, b))) => {
                            e.unemit();
                            e.op(Op::SubMulK { dst, a, b });
                            e.op(Op::Imm { k });
                        }
                        _ => {
                            e.op(match opcode {
                                Opcode::Mul => Op::MulK { dst, a },
                                Opcode::BitAnd => Op::AndK { dst, a },
                                Opcode::BitOr => Op::OrK { dst, a },
                                _ => Op::XorK { dst, a },
                            });
                            e.op(Op::Imm { k });
                        }
                    }
                    return d.finish(e, next);
                }
            }
            let b = e.pop();
            let a = e.pop();
            if opcode == Opcode::Add
                && matches!(next.plain(0), Some(n) if n.instr.opcode == Opcode::RetV)
            {
                e.op(Op::RetAdd { a, b });
                return 1;
            }
            result!(|dst| binary(opcode, dst, a, b))
        }
        Opcode::Neg | Opcode::BitNot | Opcode::LNot => {
            let a = e.pop();
            let opcode = i.instr.opcode;
            result!(|dst| match opcode {
                Opcode::Neg => Op::Neg { dst, a },
                Opcode::BitNot => Op::Not { dst, a },
                _ => Op::LNot { dst, a },
            })
        }
        Opcode::AddI | Opcode::MulI | Opcode::DivI | Opcode::ModI => {
            let k = ops[0] as i32;
            let n = e.vals.len();
            match (i.instr.opcode, e.vals[n - 1]) {
                (Opcode::AddI, Val::Local(src)) if i16::try_from(k).is_ok() => {
                    e.vals.pop();
                    let k = k as i16;
                    result!(|dst| Op::AddIM { dst, src, k })
                }
                (opcode, _) => {
                    e.materialize(n - 1);
                    e.op(in_place(opcode, k, e.st(1)));
                }
            }
        }
        Opcode::LdlAddI => {
            let src = ops[0] as Reg;
            let k = ops[1] as i32;
            match i16::try_from(k) {
                Ok(k) => result!(|dst| Op::AddIM { dst, src, k }),
                Err(_) => {
                    // A wide immediate: a move, then the add in place.
                    let dst = e.push_reg();
                    e.op(Op::Mov { dst, src });
                    e.op(Op::AddI { r: dst, k });
                    e.push_slot();
                }
            }
        }
        Opcode::ForlB | Opcode::ForxB | Opcode::Forl | Opcode::Forx => {
            for_step(e, info, i, next, None);
        }
        Opcode::IncJLtLI => {
            let r = ops[0] as Reg;
            e.spill_local(r);
            e.flush();
            e.branch(
                Op::IncJLtI {
                    r,
                    k: ops[1] as i32,
                },
                ops[2],
                back(ops[2]),
            );
        }
        Opcode::Fuel => e.op(Op::Fuel { k: ops[0] }),
        Opcode::Enter => e.op(Op::Enter { k: ops[0] }),
        Opcode::EnterF => e.op(Op::EnterF),
        Opcode::Leave => e.op(Op::Leave),
        Opcode::PatAll | Opcode::PatAny => {
            let params = INTRINSICS[ops[0] as usize].params.len();
            // The list parameter is folded into the mask; the others lie
            // side by side from `base`.
            let n = e.vals.len();
            // A constant scalar argument (the usual piece or colour): its
            // charge worked out here, the op a `Known::PAT`.
            if let (2, Some(Val::Const(arg))) = (params, e.vals.last().copied()) {
                if e.lists.is_some() {
                    let mask = u64::from(ops[1]) | u64::from(ops[2]) << 32;
                    let cost = crate::intrinsics::cost_folded(ops[0], arg, mask);
                    if let Ok(cost) = u32::try_from(cost) {
                        let base = e.slot(n - 1);
                        let any = i.instr.opcode == Opcode::PatAny;
                        let aux = e.known(Known::PAT, cost, [arg as u32, ops[1], ops[2]]);
                        e.out.aux[aux as usize].pattern = pattern_word(ops[0], any);
                        e.op(Op::Intr { base, aux });
                        e.vals.truncate(n - 1);
                        e.push_slot();
                        return 0;
                    }
                }
            }
            for j in n + 1 - params..n {
                e.materialize(j);
            }
            let word = pattern_word(ops[0], i.instr.opcode == Opcode::PatAny);
            let base = e.st(params - 1);
            let aux = e.aux(ops[1], ops[2], word);
            e.op(Op::Pat { base, aux });
            e.vals.truncate(n + 1 - params);
            e.push_slot();
        }
        Opcode::JEqLI
        | Opcode::JNeLI
        | Opcode::JLtLI
        | Opcode::JLeLI
        | Opcode::JGtLI
        | Opcode::JGeLI => {
            e.flush();
            if i.instr.opcode == Opcode::JLtLI
                && e.add_step(ops[0] as Reg, ops[1] as i32, ops[2], back(ops[2]))
            {
                return 0;
            }
            e.branch(
                jump_imm_op(rel(i.instr.opcode), ops[0] as Reg, ops[1] as i32),
                ops[2],
                back(ops[2]),
            );
        }
        Opcode::JEq | Opcode::JNe | Opcode::JLt | Opcode::JLe | Opcode::JGt | Opcode::JGe => {
            let b = e.pop();
            let a = e.pop();
            e.flush();
            e.branch(jump_op(rel(i.instr.opcode), a, b), ops[0], back(ops[0]));
        }
        Opcode::JEqI | Opcode::JNeI | Opcode::JLtI | Opcode::JLeI | Opcode::JGtI | Opcode::JGeI => {
            let a = e.pop();
            e.flush();
            e.branch(
                jump_imm_op(rel(i.instr.opcode), a, ops[0] as i32),
                ops[1],
                back(ops[1]),
            );
        }
        Opcode::Jmp => {
            e.flush();
            e.jump_op(Op::Jmp { target: ops[0] }, back(ops[0]));
        }
        Opcode::Jz | Opcode::Jnz => {
            let r = e.pop();
            let emitted = e.out.code.len();
            e.flush();
            let when = i.instr.opcode == Opcode::Jnz;
            if e.out.code.len() == emitted && e.fuse_test(r, when, ops[0], back(ops[0])) {
                return 0;
            }
            let op = if i.instr.opcode == Opcode::Jz {
                Op::Jz { r, target: ops[0] }
            } else {
                Op::Jnz { r, target: ops[0] }
            };
            e.jump_op(op, back(ops[0]));
        }
        Opcode::Case => {
            // The value stays on the stack when the case does not match; the
            // target expects the values below it in their registers.
            let n = e.vals.len();
            for j in 0..n - 1 {
                e.materialize(j);
            }
            let r = match e.vals[n - 1] {
                Val::Local(r) => r,
                _ => {
                    e.materialize(n - 1);
                    e.st(1)
                }
            };
            let aux = e.aux(ops[0], 0, ops[1]);
            e.jump_op(Op::Case { r, aux }, back(ops[1]));
        }
        Opcode::Call => {
            let callee = &module.functions[ops[0] as usize];
            let arity = callee.arity() as usize;
            let n = e.vals.len();
            for j in n - arity..n {
                e.materialize(j);
            }
            let base = e.slot(n - arity);
            call(e, ops[0], base, arity);
            e.vals.truncate(n - arity);
            if callee.returns_value {
                e.push_slot();
            }
        }
        Opcode::Ret => e.op(Op::Ret),
        Opcode::RetV => {
            let src = e.pop();
            e.op(Op::RetV { src });
        }
        Opcode::RetVL => e.op(Op::RetV { src: ops[0] as Reg }),
        Opcode::Intr if known_intrinsic(e, ops[0]) => {}
        Opcode::Intr => intrinsic_call(e, ops[0], Known::COST, 0),
        Opcode::Write => {
            let r = e.pop();
            e.op(Op::Write { r });
        }
        Opcode::TextOut => e.op(Op::TextOut { text: ops[0] }),
    }
    0
}

/// A call of intrinsic `id` (its arguments the top values) whose charge
/// its constant arguments fix, translated as an [`Op::Intr`] with that
/// charge: a [`Known::GET`] for a `Get` form of one square set with a
/// constant argument and a list `lref` just made (that list's reference is
/// then never written), a [`Known::KING`] for `KingPos` on a constant list
/// of board sides, a [`Known::PAT`] for a pattern on a constant list that
/// folds into one mask, a [`Known::CALL`] otherwise. False, with nothing emitted, when the charge
/// is not known here (the call is a [`Known::COST`]).
fn known_intrinsic(e: &mut Emit<'_>, id: u32) -> bool {
    let (Some(lists), Some(info)) = (e.lists, INTRINSICS.get(id as usize)) else {
        return false;
    };
    let params = info.params.len();
    let n = e.vals.len();
    if n < params {
        return false;
    }
    // The list reference the op just emitted wrote into the top slot, in
    // this straight-line stretch.
    let made = match e.out.code.last() {
        Some(&Op::LRef { dst, list })
            if e.out.code.len() > e.barrier && n > 0 && dst == e.slot(n - 1) =>
        {
            (e.vals[n - 1] == Val::Slot).then_some(list)
        }
        _ => None,
    };
    let mut reads = None;
    let args: Vec<Arg<'_>> = info
        .params
        .iter()
        .enumerate()
        .map(|(j, p)| {
            let at = n - params + j;
            match (p.kind, e.vals[at]) {
                (ParamKind::List { .. }, _) => match made.filter(|_| at == n - 1) {
                    Some(l) if lists.facts.constant.get(l as usize) == Some(&true) => {
                        reads = Some(l);
                        Arg::List(lists.initial.list(l))
                    }
                    Some(l) => lists
                        .initial
                        .lists
                        .get(l as usize)
                        .map_or(Arg::Unknown, |s| Arg::Slots(s.slots)),
                    None => Arg::Unknown,
                },
                (_, Val::Const(v)) => Arg::Int(v),
                _ => Arg::Unknown,
            }
        })
        .collect();
    let Some(cost) = cost_known(id, &args).and_then(|c| u32::try_from(c).ok()) else {
        return false;
    };
    // Whether the charge read the list's contents or only its size.
    if let Some(l) = reads {
        let sized: Vec<Arg<'_>> = args
            .iter()
            .map(|a| match a {
                Arg::List(slots) => Arg::Slots(slots.len() as u32),
                a => *a,
            })
            .collect();
        if cost_known(id, &sized).is_none() {
            e.reads_list(l);
        }
    }
    // `KingPos` on a constant list of board sides: one mask test, which
    // the list's contents decide.
    if let (Some(l), [Arg::Int(colour), Arg::List(slots)]) = (reads, args.as_slice()) {
        let or_form = match info.name {
            "KingPos" => Some(false),
            "orKingPos" => Some(true),
            _ => None,
        };
        if let Some(mask) = or_form.and_then(|or_form| king_mask(or_form, *colour, slots)) {
            e.reads_list(l);
            let operands = [*colour as u32, mask as u32, (mask >> 32) as u32];
            folded_call(e, Known::KING, cost, operands);
            return true;
        }
    }
    // A pattern on a constant list that folds into one mask: the folded
    // form, which the list's contents decide.
    if let (Some(l), [Arg::Int(arg), Arg::List(slots)]) = (reads, args.as_slice()) {
        if let Some((mask, mode)) = crate::intrinsics::fold_mask(id, slots) {
            e.reads_list(l);
            let operands = [*arg as u32, mask as u32, (mask >> 32) as u32];
            let x = folded_call(e, Known::PAT, cost, operands);
            let any = mode == cvm_chess::pattern::Mode::Any;
            e.out.aux[x as usize].pattern = pattern_word(id, any);
            return true;
        }
    }
    if let (Some(_), Some(list), [Arg::Int(arg), _]) = (info.squares, made, args.as_slice()) {
        let (a, squares) = get_form(info.name, *arg).unwrap_or((*arg as u32, id));
        folded_call(e, Known::GET, cost, [a, list, squares]);
        return true;
    }
    intrinsic_call(e, id, Known::CALL, cost);
    true
}

/// A [`Known::GET`] of a `Get` call (named `name`) whose scalar argument
/// is the constant `arg`, when the dispatch loop can compute its set
/// directly: `GetControl` of knights alone and `GetPassed` of one colour.
/// Returns the op's scalar operand and target
/// ([`super::GET_KNIGHTS`], [`super::GET_PASSED`]).
fn get_form(name: &str, arg: i32) -> Option<(u32, u32)> {
    match name {
        "GetControl" => {
            let (colours, kinds) = cvm_chess::sets::piece(arg)?;
            (kinds == 1 << cvm_chess::board::kind::KNIGHT)
                .then_some((u32::from(colours), super::GET_KNIGHTS))
        }
        "GetPassed" => match cvm_chess::sets::colours(arg)? {
            1 => Some((0, super::GET_PASSED)),
            2 => Some((1, super::GET_PASSED)),
            _ => None,
        },
        _ => None,
    }
}

/// An [`Op::Intr`] of `form` (a [`Known::COST`] or [`Known::CALL`])
/// calling intrinsic `id` with the top values as its arguments, charging
/// `cost` (for a `CALL`).
fn intrinsic_call(e: &mut Emit<'_>, id: u32, form: u32, cost: u32) {
    let info = &INTRINSICS[id as usize];
    let params = info.params.len();
    let n = e.vals.len();
    for j in n - params..n {
        e.materialize(j);
    }
    let base = e.slot(n - params);
    let aux = e.known(form, cost, [id, 0, 0]);
    e.op(Op::Intr { base, aux });
    e.vals.truncate(n - params);
    if info.returns {
        e.push_slot();
    }
}

/// An [`Op::Intr`] of `form` (a [`Known::GET`], [`Known::KING`] or
/// [`Known::PAT`]) in place of a two-argument call whose constant scalar and list are folded
/// into `operands`: the `lref` just emitted for the list is removed, and
/// the result takes the first argument's slot.
fn folded_call(e: &mut Emit<'_>, form: u32, cost: u32, operands: [u32; 3]) -> u32 {
    let n = e.vals.len();
    e.unemit();
    let base = e.slot(n - 2);
    let aux = e.known(form, cost, operands);
    e.op(if form == Known::GET {
        Op::Get { base, aux }
    } else {
        Op::Intr { base, aux }
    });
    e.vals.truncate(n - 2);
    e.push_slot();
    aux
}

/// The squares a king of `colour` must stand inside for `KingPos` (and
/// form) or `orKingPos` (`or_form`) on a list with these slots to hold,
/// when that is one mask: a valid colour and a non-empty list of board
/// sides, every one of them for the and form (the king inside each side is
/// the king inside their intersection), one side however often listed for
/// the or form. `None` otherwise.
fn king_mask(or_form: bool, colour: i32, slots: &[i32]) -> Option<u64> {
    use cvm_chess::sets;
    sets::colours(colour)?;
    let n = slots
        .iter()
        .position(|&v| v == crate::runtime::LIST_END)
        .unwrap_or(slots.len());
    let mut masks = slots[..n]
        .iter()
        .map(|&e| sets::side_files(e).map(sets::files_mask));
    let first = masks.next()??;
    masks.try_fold(first, |acc, m| {
        let m = m?;
        match or_form {
            false => Some(acc & m),
            true => (m == acc).then_some(acc),
        }
    })
}

/// A for-in step (`i`, with `next` the instructions after it); `inc`: the
/// frame slot of an `incl` just before an inverted step, fused into it.
fn for_step(
    e: &mut Emit<'_>,
    info: &crate::verify::FunctionInfo,
    i: &InstrInfo,
    next: Next<'_>,
    inc: Option<Reg>,
) {
    e.offset = i.offset;
    let ops = i.instr.operands;
    let cursor = ops[1] as Reg;
    e.spill_local(cursor);
    e.flush();
    let forward = matches!(i.instr.opcode, Opcode::Forl | Opcode::Forx);
    // Where the element arrives: the next instruction for the forward
    // forms, the target for the inverted ones.
    let arrives = if forward {
        next.instrs.get(next.at).map(|n| n.offset)
    } else {
        Some(ops[2])
    };
    let into = arrives.and_then(|at| next.elements.get(&at).copied());
    let dst = into.unwrap_or_else(|| e.push_reg());
    let aux = e.aux(ops[0], ops[1], ops[2]);
    // An inverted step without a fused `incl` increments the register of
    // the stack slot above the values, which holds nothing on the path
    // that falls through (the one it pushes on is the path that jumps).
    e.out.aux[aux as usize].inc = u32::from(inc.unwrap_or_else(|| e.push_reg()));
    let fuel = info.jump_fuel(i.offset, ops[2]);
    e.out.aux[aux as usize].fuel = u32::try_from(fuel).unwrap_or(u32::MAX);
    if inc.is_some() && copy_step(e, aux, dst, i.instr.opcode, ops[2]) {
        return;
    }
    let op = match i.instr.opcode {
        Opcode::ForlB => Op::ForLB { dst, aux },
        Opcode::ForxB => Op::ForXB { dst, aux },
        Opcode::Forl => Op::ForL { dst, aux },
        _ => Op::ForX { dst, aux },
    };
    e.jump_op(op, fuel);
    // The forward forms push on the path that falls through; the inverted
    // ones on the path that jumps.
    if forward {
        e.push(into.map_or(Val::Slot, Val::Local));
    }
}

/// A call of `func` with its `arity` arguments from register `base` on. An
/// argument computed as register plus constant by the op just before, in
/// the same straight-line stretch, moves into the call (`Op::CallI`); so
/// does one computed just before the moves of the other arguments
/// (`f(row + 1, n, list)`), when the moves neither read nor write its
/// registers: the moves then go first.
fn call(e: &mut Emit<'_>, func: u32, base: Reg, arity: usize) {
    let args = u32::from(base)..u32::from(base) + arity as u32;
    let len = e.out.code.len();
    // The ops emitted so far in the current straight-line stretch, which a
    // fusion may rewrite (`barrier` is never past the end).
    let stretch = if e.fast { len - e.barrier.min(len) } else { 0 };
    if stretch >= 1 {
        let last = len - 1;
        if let Op::AddIM { dst, src, k } = e.out.code[last] {
            if args.contains(&u32::from(dst)) {
                e.out.code[last] = Op::CallI { func, base };
                e.out.origin[last] = e.offset;
                e.op(Op::ArgI { dst, src, k });
                return;
            }
        }
    }
    if stretch >= 2 {
        let last = len - 1;
        if let (Op::AddIM { dst, src, k }, moves) = (e.out.code[last - 1], e.out.code[last]) {
            if args.contains(&u32::from(dst)) && moves_apart(moves, dst, src) {
                e.out.code[last - 1] = moves;
                e.out.origin[last - 1] = e.out.origin[last];
                e.out.back_fuel[last - 1] = e.out.back_fuel[last];
                e.out.code[last] = Op::CallI { func, base };
                e.out.origin[last] = e.offset;
                e.out.back_fuel[last] = 0;
                e.op(Op::ArgI { dst, src, k });
                return;
            }
        }
    }
    e.op(Op::Call { func, base });
}

/// Whether `moves` is a `Mov`, `Mov2` or `MovN` that neither reads nor
/// writes register `dst` and does not write register `src`, so that it
/// can run before `dst := src + k` instead of after it.
fn moves_apart(moves: Op, dst: Reg, src: Reg) -> bool {
    let run = |at: Reg, n: u16| u32::from(at)..u32::from(at) + u32::from(n);
    let (reads, writes): (&[std::ops::Range<u32>], std::ops::Range<u32>) = match moves {
        Op::Mov { dst: d, src: s } => (&[run(s, 1)][..], run(d, 1)),
        Op::MovN { dst: d, src: s, n } => (&[run(s, n)][..], run(d, n)),
        Op::Mov2 { dst: d, a, b } => (&[run(a, 1), run(b, 1)][..], run(d, 2)),
        _ => return false,
    };
    let (dst, src) = (u32::from(dst), u32::from(src));
    !writes.contains(&dst) && !writes.contains(&src) && !reads.iter().any(|r| r.contains(&dst))
}

/// An inverted step with a fused `incl` whose loop body, from the step's
/// target on, is one `StX` (the CopyList idiom): turns that `StX` into the
/// fused store-and-step op and emits the `Imm` carrying the step's offset.
/// `false` when the body has another shape.
fn copy_step(e: &mut Emit<'_>, aux: u32, dst: Reg, opcode: Opcode, target: u32) -> bool {
    let at = e.out.code.len().wrapping_sub(1);
    if !e.fast || e.barrier != at || e.barrier_at != target {
        return false;
    }
    let Some(&Op::StX { lst, idx, val }) = e.out.code.last() else {
        return false;
    };
    e.out.aux[aux as usize].store = [lst, idx, val];
    e.out.code[at] = match opcode {
        Opcode::ForlB => Op::StXForLB { dst, aux },
        _ => Op::StXForXB { dst, aux },
    };
    // The op keeps the store's offset (a list-index trap is the store's);
    // the step's own rides in the `Imm`.
    e.op(Op::Imm { k: 0 });
    true
}

/// After `incl r`: the loop test `ldl2 r b; jlt L` (or `ldl r; ldl b; jlt
/// L`) with `b` a frame slot: `(b, the jlt, instructions used)`.
fn counted_step(next: Next<'_>, r: Reg) -> Option<(Reg, &InstrInfo, usize)> {
    let first = next.plain(0)?;
    let (b, at) = match first.instr.opcode {
        Opcode::Ldl2 if first.instr.operands[0] as Reg == r => (first.instr.operands[1], 1),
        Opcode::Ldl if first.instr.operands[0] as Reg == r => {
            let second = next.plain(1)?;
            if second.instr.opcode != Opcode::Ldl {
                return None;
            }
            (second.instr.operands[0], 2)
        }
        _ => return None,
    };
    let jlt = next.plain(at)?;
    (jlt.instr.opcode == Opcode::JLt).then_some((b as Reg, jlt, at + 1))
}

/// The jump targets where a for-in step delivers its element on every path
/// that arrives, and whose instruction stores the element into a frame slot
/// (`tee s` or `stl s`, the loop variable): target -> slot. The steps write
/// the element straight into the slot.
fn element_slots(instrs: &[InstrInfo]) -> HashMap<u32, Reg> {
    // Per target: (paths arriving, paths arriving with an element).
    let mut arrivals: HashMap<u32, (u32, u32)> = HashMap::new();
    let reachable: Vec<&InstrInfo> = instrs.iter().filter(|i| i.depth.is_some()).collect();
    for (n, i) in reachable.iter().enumerate() {
        let opcode = i.instr.opcode;
        if let Some(t) = i.instr.target() {
            let with = u32::from(matches!(opcode, Opcode::ForlB | Opcode::ForxB));
            let a = arrivals.entry(t).or_default();
            a.0 += 1;
            a.1 += with;
        }
        let falls = !matches!(
            opcode,
            Opcode::Jmp | Opcode::Ret | Opcode::RetV | Opcode::RetVL | Opcode::Halt
        );
        if let (true, Some(after)) = (falls, reachable.get(n + 1)) {
            let with = u32::from(matches!(opcode, Opcode::Forl | Opcode::Forx));
            let a = arrivals.entry(after.offset).or_default();
            a.0 += 1;
            a.1 += with;
        }
    }
    reachable
        .iter()
        .filter(
            |i| matches!(arrivals.get(&i.offset), Some(&(all, with)) if all == with && with > 0),
        )
        .filter(|i| matches!(i.instr.opcode, Opcode::Tee | Opcode::Stl))
        .map(|i| (i.offset, i.instr.operands[0] as Reg))
        .collect()
}

/// The instruction after a load, when it tests the loaded value against a
/// constant that fits 16 bits for (in)equality: `(k, equal, the branch)`.
fn const_test<'a>(next: Next<'a>) -> Option<(i16, bool, &'a InstrInfo)> {
    let j = next.plain(0)?;
    let jeq = match j.instr.opcode {
        Opcode::JEqI => true,
        Opcode::JNeI => false,
        _ => return None,
    };
    let k = i16::try_from(j.instr.operands[0] as i32).ok()?;
    Some((k, jeq, j))
}

/// Emits a fused load-and-branch op: the load keeps the current
/// instruction's offset (its bounds error), the `Word` the branch `j`'s (its
/// fuel). Returns the one instruction consumed, the branch.
fn fused_branch(
    e: &mut Emit<'_>,
    info: &crate::verify::FunctionInfo,
    op: Op,
    j: &InstrInfo,
) -> usize {
    let target = j.instr.operands[1];
    e.branch_at(op, j.offset, target, info.jump_fuel(j.offset, target));
    1
}

/// `dst = a op b` for a binary opcode.
fn binary(opcode: Opcode, dst: Reg, a: Reg, b: Reg) -> Op {
    match opcode {
        Opcode::Add => Op::Add { dst, a, b },
        Opcode::Sub => Op::Sub { dst, a, b },
        Opcode::Mul => Op::Mul { dst, a, b },
        Opcode::Div => Op::Div { dst, a, b },
        Opcode::Mod => Op::Mod { dst, a, b },
        Opcode::BitAnd => Op::And { dst, a, b },
        Opcode::BitOr => Op::Or { dst, a, b },
        Opcode::BitXor => Op::Xor { dst, a, b },
        _ => value_op(rel(opcode), dst, a, b),
    }
}

/// The relation of a comparison opcode, from its table row. Only
/// comparison opcodes are translated through it (the table's tests check
/// their rows, and the interpreter's tests run every one).
fn rel(op: Opcode) -> Rel {
    match op.compare() {
        Some(c) => c.rel,
        None => unreachable!("{op} is translated as a comparison but its table row has none"),
    }
}

/// `dst = (a rel b)` as 1 or 0.
fn value_op(rel: Rel, dst: Reg, a: Reg, b: Reg) -> Op {
    match rel {
        Rel::Eq => Op::Eq { dst, a, b },
        Rel::Ne => Op::Ne { dst, a, b },
        Rel::Lt => Op::Lt { dst, a, b },
        Rel::Le => Op::Le { dst, a, b },
        Rel::Gt => Op::Gt { dst, a, b },
        Rel::Ge => Op::Ge { dst, a, b },
    }
}

/// Jump if `a rel b` (the target follows in a `Word`).
fn jump_op(rel: Rel, a: Reg, b: Reg) -> Op {
    match rel {
        Rel::Eq => Op::JEq { a, b },
        Rel::Ne => Op::JNe { a, b },
        Rel::Lt => Op::JLt { a, b },
        Rel::Le => Op::JLe { a, b },
        Rel::Gt => Op::JGt { a, b },
        Rel::Ge => Op::JGe { a, b },
    }
}

/// Jump if `a rel k` (the target follows in a `Word`).
fn jump_imm_op(rel: Rel, a: Reg, k: i32) -> Op {
    match rel {
        Rel::Eq => Op::JEqI { a, k },
        Rel::Ne => Op::JNeI { a, k },
        Rel::Lt => Op::JLtI { a, k },
        Rel::Le => Op::JLeI { a, k },
        Rel::Gt => Op::JGtI { a, k },
        Rel::Ge => Op::JGeI { a, k },
    }
}
