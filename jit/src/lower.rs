//! Lowering one verified CVM function to Cranelift IR.
//!
//! The verifier knows the operand-stack depth before every instruction, so
//! stack slot `k` is simply SSA variable `k`: `push` defines it, `add`
//! reads two and defines one, and Cranelift's SSA construction turns the
//! variables into registers and block parameters. Frame slots (parameters
//! and locals) are variables too. Nothing of the CVM stack exists at run
//! time.
//!
//! Every compiled function has the signature
//! `(ctx, fuel: i64, depth_left: i32, args: i32...) -> (value: i32, fuel: i64)`.
//! Fuel travels in registers: it is a variable inside a function, passed to
//! callees and handed back. A negative returned fuel is a status: the callee
//! stopped the run (a runtime error, recorded in the context, or `halt`),
//! and every caller returns it on at once, so an error unwinds all compiled
//! frames by ordinary returns. `depth_left` is the call-depth limit minus
//! the frames below; a call with `depth_left <= 1` is the depth error.
//! Calls the optimizer inlined at the CVM level keep those checks:
//! `enter k` (a callee that makes no calls, `k` frames deep) fails when
//! `depth_left <= k`; `enter.f` fails as a call does and then lowers
//! `depth_left` by one until its `leave`, so calls inside the inlined body
//! see the depth they would have seen without inlining.
//!
//! Errors never use Cranelift traps: each check branches to a cold block that
//! records the error kind, the CVM code offset and the fuel left in the
//! context, and returns the trap status. Charging fuel and checking depth
//! follow the interpreter exactly: depth then fuel at a `call`, fuel at every
//! taken jump whose target is at or before the jump.
//!
//! A small constant tracker follows which stack slots hold values known at
//! compile time (immediates, list references) within a basic block. It lets
//! divisions by non-zero constants skip their checks, constant list indices
//! be bounds-checked at compile time, and intrinsic calls with constant
//! arguments be inlined ([`crate::inline`]).

use crate::context::{offsets, trap, SHIM_TRAP, STATUS_HALT, STATUS_TRAP};
use crate::inline;
use crate::loops::{self, CountedLoop, ListRef, Step};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{
    types, AbiParam, Block, FuncRef, InstBuilder, InstructionData, MemFlagsData,
    Opcode as ClifOpcode, Signature, StackSlot, StackSlotData, StackSlotKind, Type, Value,
    ValueDef,
};
use cranelift_frontend::{FunctionBuilder, Variable};
use cvm::intrinsics::{INTRINSICS, MAX_PARAMS};
use cvm::isa::{Flow, Opcode, Rel};
use cvm::module::Function;
use cvm::runtime::ListSlice;
use cvm::verify::{FunctionInfo, InstrInfo};
use cvm::{Memory, Module};
use std::cell::Cell;
use std::collections::{HashMap, HashSet};

/// The pointer type (the JIT runs on 64-bit hosts only; checked at
/// compile time).
pub(crate) const PTR: Type = types::I64;

/// Memory flags for accesses the lowering has proved in bounds.
fn trusted() -> MemFlagsData {
    MemFlagsData::trusted()
}

/// Memory flags for the list table and the context's memory pointers,
/// which never change during a run: loads of them may be shared and
/// hoisted out of loops.
fn invariant() -> MemFlagsData {
    MemFlagsData::trusted().with_readonly().with_can_move()
}

/// The Cranelift signature of a compiled CVM function with `arity`
/// parameters, in the module's default calling convention.
/// The Cranelift condition code of a relation (signed, as CVM ints are).
fn int_cc(rel: Rel) -> IntCC {
    match rel {
        Rel::Eq => IntCC::Equal,
        Rel::Ne => IntCC::NotEqual,
        Rel::Lt => IntCC::SignedLessThan,
        Rel::Le => IntCC::SignedLessThanOrEqual,
        Rel::Gt => IntCC::SignedGreaterThan,
        Rel::Ge => IntCC::SignedGreaterThanOrEqual,
    }
}

/// The condition code of a comparison opcode, from the relation its table
/// row gives. Only comparison opcodes are lowered through it (the table's
/// tests check their rows; the JIT's tests compile every one).
fn cond(op: Opcode) -> IntCC {
    match op.compare() {
        Some(c) => int_cc(c.rel),
        None => unreachable!("{op} is lowered as a comparison but its table row has none"),
    }
}

pub(crate) fn cvm_signature(mut sig: Signature, arity: u32) -> Signature {
    sig.params.push(AbiParam::new(PTR));
    sig.params.push(AbiParam::new(types::I64));
    sig.params.push(AbiParam::new(types::I32));
    for _ in 0..arity {
        sig.params.push(AbiParam::new(types::I32));
    }
    sig.returns.push(AbiParam::new(types::I32));
    sig.returns.push(AbiParam::new(types::I64));
    sig
}

/// What the lowering of one function needs from the whole program.
pub(crate) struct Env<'a> {
    /// The verified module.
    pub module: &'a Module,
    /// A fresh instance memory: where each list lives in the heap (the
    /// same in every instance) and the initial list contents.
    pub initial: &'a Memory,
    /// Lists no instruction or intrinsic can write: their contents are the
    /// module's initial values for ever.
    pub constant_lists: &'a [bool],
    /// Intrinsic calls inlined so far.
    pub inlined: Cell<usize>,
    /// The verifier's analysis of every function.
    pub infos: &'a [FunctionInfo],
    /// Function references of the callees, by CVM function index, imported
    /// into the function being built (the direct callees and those of every
    /// function [`inlinable`] into it).
    pub callees: HashMap<u32, FuncRef>,
    /// The intrinsic shim.
    pub intrinsic: FuncRef,
    /// The `write` shim.
    pub write: FuncRef,
    /// The `textout` shim.
    pub textout: FuncRef,
    /// The pattern-set shim.
    pub pattern: FuncRef,
    /// The folded-pattern shim (`pat.all`/`pat.any` with an unknown scalar).
    pub pattern_mask: FuncRef,
    /// The counted loops of every function ([`crate::loops`]).
    pub loops: &'a [Vec<CountedLoop>],
}

/// Callees of at most this many CVM instructions are lowered into their
/// callers' bodies.
pub(crate) const INLINE_SIZE: usize = 32;

/// How many inlined calls may nest inside one another.
const MAX_INLINE_NESTING: usize = 4;

/// CVM instructions inlined into one function at most.
const INLINE_BUDGET: usize = 512;

/// Whether calls of `callee` may be lowered into their callers: a small
/// function (the verifier analysed it, so its code is well formed).
pub(crate) fn inlinable(module: &Module, infos: &[FunctionInfo], callee: u32) -> bool {
    module.functions.get(callee as usize).is_some()
        && infos
            .get(callee as usize)
            .is_some_and(|info| info.instrs.len() <= INLINE_SIZE)
}

/// One block per leader of a function: the first instruction, every jump
/// target and every instruction after a branch or terminator.
fn leaders(b: &mut FunctionBuilder<'_>, info: &FunctionInfo) -> HashMap<u32, Block> {
    let mut blocks = HashMap::new();
    let mut after_branch = true;
    for i in &info.instrs {
        if i.depth.is_none() {
            continue;
        }
        if after_branch {
            blocks.entry(i.offset).or_insert_with(|| b.create_block());
        }
        if let Some(t) = i.instr.target() {
            blocks.entry(t).or_insert_with(|| b.create_block());
        }
        after_branch = i.instr.opcode.info().flow != Flow::Next;
    }
    blocks
}

/// The offset of the first reachable instruction after index `n`.
fn next_reachable(instrs: &[InstrInfo], n: usize) -> Option<u32> {
    instrs[n + 1..]
        .iter()
        .find(|j| j.depth.is_some())
        .map(|j| j.offset)
}

/// The counter of a counted loop whose fast copy can rotate it
/// ([`Rotation`]): the loop's only edge back to the header is an
/// `inc.jlt.li` with a bound above `i32::MIN`, on a slot the guard tracks
/// as an induction variable stepping by one (so it proves the increment
/// never wraps).
fn rotation(info: &FunctionInfo, lp: &CountedLoop) -> Option<Rotation> {
    let mut latches = info
        .instrs
        .iter()
        .filter(|i| i.depth.is_some() && lp.contains(i.offset))
        .filter(|i| i.instr.target() == Some(lp.header));
    let latch = latches.next()?;
    if latches.next().is_some() || latch.instr.opcode != Opcode::IncJLtLI {
        return None;
    }
    let (slot, bound) = (latch.instr.operands[0], latch.instr.operands[1]);
    let counts = lp
        .ivs
        .iter()
        .any(|iv| iv.slot == slot && iv.step == Step::Const(1));
    (counts && bound as i32 != i32::MIN).then_some(Rotation {
        slot,
        latch: latch.offset,
    })
}

/// The lowering state of one function.
pub(crate) struct Lower<'a, 'b> {
    /// The function builder.
    pub b: FunctionBuilder<'b>,
    /// Program-wide facts.
    pub env: &'a Env<'a>,
    info: &'a FunctionInfo,
    slots: Vec<Variable>,
    stack: Vec<Variable>,
    /// Compile-time values of stack slots in the current block.
    known: Vec<Option<i32>>,
    fuel: Variable,
    /// The context pointer.
    pub ctx: Value,
    /// The depth left for calls (see the module documentation), a variable
    /// because `enter.f` and `leave` (inlined frames) change it.
    depth_left: Variable,
    globals: Value,
    heap: Value,
    lists: Value,
    blocks: HashMap<u32, Block>,
    /// Where `ret`/`retv` go when the function being lowered is inlined
    /// into a caller: the caller's continuation (one `i32` parameter, the
    /// value); `None` in the function itself (a native return).
    ret_to: Option<Block>,
    /// The CVM functions being lowered, outermost first (the function
    /// itself, then the inlined calls it is nested in).
    chain: Vec<u32>,
    /// CVM instructions inlined into this function so far.
    inlined_size: usize,
    args_slot: Option<StackSlot>,
    propagate: Option<Block>,
    /// Fuel-charging blocks of backward edges still to be filled: the
    /// block, the jump's offset and the jump's target block.
    pending: Vec<(Block, u32, Block)>,
    /// Whether the builder is positioned in a block that can take more
    /// instructions.
    open: bool,
    /// The counted loops of the frame being lowered.
    loops: &'a [CountedLoop],
    /// The guard block of each counted loop of the frame, by the header's
    /// offset, with the loop's index in `loops`.
    guards: HashMap<u32, (usize, Block)>,
    /// While a counted loop's fast copy is lowered: its blocks and the
    /// accesses its guard proved.
    fast: Option<Fast>,
}

/// The state of a counted loop's fast copy ([`crate::loops`]): fuel is
/// charged without tests, depth tests are left out, and the proven
/// accesses skip their bounds checks.
struct Fast {
    /// The copy's block for each leader of the loop body, by offset.
    blocks: HashMap<u32, Block>,
    /// Offsets of the accesses whose bounds the guard proved.
    proven: HashSet<u32>,
    /// Whether every edge back to the header is a charged jump. The copy
    /// then charges those jumps' unit at the top of the header instead of
    /// on the edge (the guard adds one unit for the entry), so a back edge
    /// is a plain branch.
    charged: bool,
    /// A counter the copy increments at the top of the header instead of
    /// at its latch ([`Rotation`]).
    rotated: Option<Rotation>,
    /// The loop header's offset.
    header: u32,
    /// Where this copy's edges back to the header go: the next copy's
    /// header when the loop is unrolled (the copies form a ring), else its
    /// own.
    back_to: Block,
}

/// How many copies of a small counted loop's body the fast path chains
/// (each a whole iteration with its own tests, so an exit from any copy is
/// exact): the latches between them fall through, fuel and counter updates
/// fold into one per round, and only the last copy jumps back.
const UNROLL: usize = 4;

/// The most CVM instructions a loop body may have to be unrolled.
const MAX_UNROLLED_BODY: usize = 12;

/// A rotated loop counter in a fast copy. The loop's only back edge is an
/// `inc.jlt.li` on a counter the guard proved not to wrap. The copy passes
/// the counter's old value back to the header, which adds the one, and the
/// latch tests `old < bound - 1` (the same as `old + 1 < bound` without
/// wrapping); the loop's exit adds the one itself, and the guard's entry
/// into the copy passes the counter less one. So no value of the counter
/// outlives its successor and the back edge needs no register copy.
#[derive(Copy, Clone, Debug)]
struct Rotation {
    /// The counter's frame slot.
    slot: u32,
    /// Offset of the latch (the `inc.jlt.li`).
    latch: u32,
}

impl Fast {
    /// The header's offset when the copy charges its back edges there.
    fn charged_header(&self) -> Option<u32> {
        self.charged.then_some(self.header)
    }
}

impl<'a, 'b> Lower<'a, 'b> {
    /// Prepares the lowering of CVM function `f` (analysis `info`) into the
    /// builder, whose function already has the signature of
    /// [`cvm_signature`].
    pub fn new(
        mut b: FunctionBuilder<'b>,
        env: &'a Env<'a>,
        index: u32,
        f: &'a Function,
        info: &'a FunctionInfo,
    ) -> Lower<'a, 'b> {
        let nslots = f.frame_slots() as usize;
        let nstack = (info.max_depth.max(f.max_stack) as usize) + 1;
        let slots: Vec<Variable> = (0..nslots).map(|_| b.declare_var(types::I32)).collect();
        let stack: Vec<Variable> = (0..nstack).map(|_| b.declare_var(types::I32)).collect();
        let fuel = b.declare_var(types::I64);

        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let params = b.block_params(entry).to_vec();
        let ctx = params[0];
        let depth_left = b.declare_var(types::I32);
        b.def_var(depth_left, params[2]);
        b.def_var(fuel, params[1]);
        let zero = b.ins().iconst(types::I32, 0);
        for (i, &v) in slots.iter().enumerate() {
            let init = params.get(3 + i).copied().unwrap_or(zero);
            b.def_var(v, init);
        }
        let globals = b.ins().load(PTR, invariant(), ctx, offsets::GLOBALS);
        let heap = b.ins().load(PTR, invariant(), ctx, offsets::HEAP);
        let lists = b.ins().load(PTR, invariant(), ctx, offsets::LISTS);

        let blocks = leaders(&mut b, info);
        Lower {
            b,
            env,
            info,
            slots,
            stack,
            known: vec![None; nstack],
            fuel,
            ctx,
            depth_left,
            globals,
            heap,
            lists,
            blocks,
            ret_to: None,
            chain: vec![index],
            inlined_size: 0,
            args_slot: None,
            propagate: None,
            pending: Vec::new(),
            open: true,
            loops: env.loops.get(index as usize).map_or(&[], |l| l.as_slice()),
            guards: HashMap::new(),
            fast: None,
        }
    }

    /// Lowers every reachable instruction and finishes the function.
    pub fn run(mut self) -> FunctionBuilder<'b> {
        self.body();
        self.finish_propagate();
        self.b.seal_all_blocks();
        self.b
    }

    /// Lowers every reachable instruction of the current frame's function,
    /// then the guards and fast copies of its counted loops.
    fn body(&mut self) {
        let info = self.info;
        let instrs = &info.instrs;
        for (k, lp) in self.loops.iter().enumerate() {
            if self.blocks.contains_key(&lp.header) {
                let guard = self.b.create_block();
                self.guards.insert(lp.header, (k, guard));
            }
        }
        let mut from: Option<u32> = None;
        for (n, i) in instrs.iter().enumerate() {
            let Some(depth) = i.depth else { continue };
            if let Some(&block) = self.blocks.get(&i.offset) {
                if self.open {
                    let to = match from {
                        Some(f) => self.target_block(f, i.offset),
                        None => self.guards.get(&i.offset).map_or(block, |g| g.1),
                    };
                    self.b.ins().jump(to, &[]);
                }
                self.enter(block);
            } else {
                self.reopen();
            }
            let next = next_reachable(instrs, n);
            self.instr(i.offset, i.instr, depth, next);
            from = Some(i.offset);
        }
        if self.open {
            // Verified code never falls off the end; close the block anyway.
            let status = self.b.ins().iconst(types::I64, STATUS_TRAP);
            self.ret_status(status);
        }
        self.counted_copies();
    }

    /// Fills the guard of every counted loop of the current frame and
    /// lowers the loop's fast copy ([`crate::loops`]), unrolled when small.
    fn counted_copies(&mut self) {
        let info = self.info;
        let loops = self.loops;
        for lp in loops {
            let (Some(&(_, guard)), Some(&ordinary)) =
                (self.guards.get(&lp.header), self.blocks.get(&lp.header))
            else {
                continue;
            };
            let charged_header = lp.back_edges_charged.then_some(lp.header);
            let rotated = charged_header.and_then(|_| rotation(info, lp));
            let unroll = if charged_header.is_some() && lp.body.len() <= MAX_UNROLLED_BODY {
                UNROLL
            } else {
                1
            };
            let copies: Vec<HashMap<u32, Block>> = (0..unroll)
                .map(|_| {
                    lp.body
                        .iter()
                        .filter(|o| self.blocks.contains_key(o))
                        .map(|&o| (o, self.b.create_block()))
                        .collect()
                })
                .collect();
            let headers: Vec<Block> = copies
                .iter()
                .filter_map(|c| c.get(&lp.header).copied())
                .collect();
            let Some(&fast_header) = headers.first() else {
                continue;
            };
            self.b.switch_to_block(guard);
            self.known.fill(None);
            let ok = loops::guard(self, lp);
            self.count_entry(ok);
            if charged_header.is_some() {
                let entry = self.b.create_block();
                self.b.ins().brif(ok, entry, &[], ordinary, &[]);
                self.b.switch_to_block(entry);
                // The header charges one unit; the entry is no back edge.
                // (Wrapping: i64::MAX + 1 - 1 is i64::MAX again.)
                let fuel = self.b.use_var(self.fuel);
                let more = self.b.ins().iadd_imm_s(fuel, 1);
                self.b.def_var(self.fuel, more);
                if let Some(r) = rotated {
                    // The header adds the one back (wrapping both ways).
                    let v = self.slot(r.slot);
                    let before = self.b.ins().iadd_imm_s(v, -1);
                    self.set_slot(r.slot, before);
                }
                self.b.ins().jump(fast_header, &[]);
            } else {
                self.b.ins().brif(ok, fast_header, &[], ordinary, &[]);
            }
            for (copy, blocks) in copies.into_iter().enumerate() {
                self.open = false;
                self.fast = Some(Fast {
                    blocks,
                    proven: lp.accesses.iter().map(|a| a.offset).collect(),
                    charged: charged_header.is_some(),
                    rotated,
                    header: lp.header,
                    back_to: headers[(copy + 1) % headers.len()],
                });
                self.fast_copy(lp);
            }
            self.fast = None;
        }
    }

    /// Lowers one copy of a counted loop's body for the fast path (the
    /// state in `self.fast`).
    fn fast_copy(&mut self, lp: &CountedLoop) {
        let info = self.info;
        let instrs = &info.instrs;
        let (charged_header, rotated) = match &self.fast {
            Some(f) => (f.charged_header(), f.rotated),
            None => return,
        };
        for (n, i) in instrs.iter().enumerate() {
            let Some(depth) = i.depth else { continue };
            if !lp.contains(i.offset) {
                continue;
            }
            let leader = self
                .fast
                .as_ref()
                .and_then(|f| f.blocks.get(&i.offset))
                .copied();
            if let Some(block) = leader {
                if self.open {
                    self.b.ins().jump(block, &[]);
                }
                self.enter(block);
                if charged_header == Some(i.offset) {
                    self.charge(i.offset);
                    if let Some(r) = rotated {
                        let v = self.slot(r.slot);
                        let now = self.b.ins().iadd_imm_s(v, 1);
                        self.set_slot(r.slot, now);
                    }
                }
            } else {
                self.reopen();
            }
            let next = next_reachable(instrs, n);
            self.instr(i.offset, i.instr, depth, next);
            // A fall-through out of the loop (a for-in step that found
            // an element, when its exit is the back edge): continue in
            // the ordinary code.
            if self.open && !next.is_some_and(|n| lp.contains(n)) {
                match next {
                    Some(n) => {
                        let to = self.target_block(i.offset, n);
                        self.b.ins().jump(to, &[]);
                        self.open = false;
                    }
                    None => {
                        // Verified code never falls off the end.
                        let status = self.b.ins().iconst(types::I64, STATUS_TRAP);
                        self.ret_status(status);
                    }
                }
            }
        }
        if self.open {
            // Every body instruction's fall-through is handled above.
            let status = self.b.ins().iconst(types::I64, STATUS_TRAP);
            self.ret_status(status);
        }
    }

    /// Counts a counted loop's entry in the context: as fast when `ok`
    /// is set, else as checked.
    fn count_entry(&mut self, ok: Value) {
        let flags = trusted();
        let one = self.b.ins().uextend(types::I64, ok);
        let fast = self
            .b
            .ins()
            .load(types::I64, flags, self.ctx, offsets::LOOPS_FAST);
        let fast = self.b.ins().iadd(fast, one);
        self.b
            .ins()
            .store(flags, fast, self.ctx, offsets::LOOPS_FAST);
        let checked = self
            .b
            .ins()
            .load(types::I64, flags, self.ctx, offsets::LOOPS_CHECKED);
        let checked = self.b.ins().iadd_imm_s(checked, 1);
        let checked = self.b.ins().isub(checked, one);
        self.b
            .ins()
            .store(flags, checked, self.ctx, offsets::LOOPS_CHECKED);
    }

    /// The block a jump (or fall-through) from the instruction at `from`
    /// to `to` enters: in a fast copy the copy's own block for targets in
    /// the loop, the guard of a counted loop entered from outside, else the
    /// target's block.
    fn target_block(&mut self, from: u32, to: u32) -> Block {
        if let Some(f) = &self.fast {
            // Inside a copy, every edge to the header is a back edge.
            if to == f.header {
                return f.back_to;
            }
            if let Some(&b) = f.blocks.get(&to) {
                return b;
            }
        }
        if let Some(&(k, guard)) = self.guards.get(&to) {
            if !self.loops[k].contains(from) {
                return guard;
            }
        }
        self.block_at(to)
    }

    /// Reads frame slot `s` (for the loop guards).
    pub(crate) fn slot_value(&mut self, s: u32) -> Value {
        self.slot(s)
    }

    /// The fuel left (for the loop guards).
    pub(crate) fn fuel_value(&mut self) -> Value {
        self.b.use_var(self.fuel)
    }

    /// The depth left (for the loop guards).
    pub(crate) fn depth_value(&mut self) -> Value {
        self.b.use_var(self.depth_left)
    }

    /// The slot count (an `i32`) of a list (for the loop guards).
    pub(crate) fn list_slot_count(&mut self, r: ListRef) -> Value {
        match r {
            ListRef::Module(l) => {
                let slots = self.env.initial.lists[l as usize].slots;
                self.b.ins().iconst(types::I32, i64::from(slots))
            }
            ListRef::Param(p) => {
                let r = self.slot(p);
                self.slice_of(r).1
            }
        }
    }

    /// Whether the access at `offset` runs in a fast copy whose guard
    /// proved it in bounds.
    fn proven(&self, offset: u32) -> bool {
        self.fast
            .as_ref()
            .is_some_and(|f| f.proven.contains(&offset))
    }

    /// Whether the instruction at `offset` is the latch of a rotated
    /// counter in the fast copy being lowered.
    fn rotated_latch(&self, offset: u32) -> bool {
        self.fast
            .as_ref()
            .and_then(|f| f.rotated)
            .is_some_and(|r| r.latch == offset)
    }

    /// Continues in a fresh block when the last instruction closed the
    /// current one. (Reachable code always starts a block after a
    /// terminator; this keeps the builder consistent regardless.)
    fn reopen(&mut self) {
        if !self.open {
            let block = self.b.create_block();
            self.enter(block);
        }
    }

    fn enter(&mut self, block: Block) {
        self.b.switch_to_block(block);
        self.known.fill(None);
        self.open = true;
    }

    // ----- operand stack --------------------------------------------------

    /// Reads stack slot `k`.
    pub fn get(&mut self, k: u32) -> Value {
        self.b.use_var(self.stack[k as usize])
    }

    fn set(&mut self, k: u32, v: Value) {
        self.b.def_var(self.stack[k as usize], v);
        self.known[k as usize] = None;
    }

    fn set_const(&mut self, k: u32, c: i32) {
        let v = self.b.ins().iconst(types::I32, i64::from(c));
        self.b.def_var(self.stack[k as usize], v);
        self.known[k as usize] = Some(c);
    }

    /// The compile-time value of stack slot `k`, if known.
    pub fn known(&self, k: u32) -> Option<i32> {
        self.known[k as usize]
    }

    fn slot(&mut self, s: u32) -> Value {
        self.b.use_var(self.slots[s as usize])
    }

    fn set_slot(&mut self, s: u32, v: Value) {
        self.b.def_var(self.slots[s as usize], v);
    }

    // ----- exits ------------------------------------------------------------

    fn ret_status(&mut self, status: Value) {
        let zero = self.b.ins().iconst(types::I32, 0);
        self.b.ins().return_(&[zero, status]);
        self.open = false;
    }

    /// Records a trap (`code` is `None` when a shim already stored the kind
    /// and payload) and returns the trap status.
    fn emit_trap(&mut self, code: Option<u32>, offset: u32, a: Option<Value>, b: Option<Value>) {
        self.emit_trap_fuel(code, offset, a, b, true);
    }

    /// [`Lower::emit_trap`]; `store_fuel` false when a shim that charges
    /// fuel already stored the fuel left.
    fn emit_trap_fuel(
        &mut self,
        code: Option<u32>,
        offset: u32,
        a: Option<Value>,
        b: Option<Value>,
        store_fuel: bool,
    ) {
        let flags = trusted();
        if let Some(code) = code {
            let c = self.b.ins().iconst(types::I32, i64::from(code));
            self.b.ins().store(flags, c, self.ctx, offsets::TRAP_CODE);
        }
        let off = self.b.ins().iconst(types::I32, i64::from(offset));
        self.b
            .ins()
            .store(flags, off, self.ctx, offsets::TRAP_OFFSET);
        if let Some(a) = a {
            self.b.ins().store(flags, a, self.ctx, offsets::TRAP_A);
        }
        if let Some(b) = b {
            self.b.ins().store(flags, b, self.ctx, offsets::TRAP_B);
        }
        if store_fuel {
            let fuel = self.b.use_var(self.fuel);
            self.b
                .ins()
                .store(flags, fuel, self.ctx, offsets::FUEL_LEFT);
        }
        let status = self.b.ins().iconst(types::I64, STATUS_TRAP);
        self.ret_status(status);
    }

    /// Branches to a cold trap exit when `cond` is non-zero and continues in
    /// a fresh block otherwise.
    pub fn trap_if(
        &mut self,
        cond: Value,
        code: Option<u32>,
        offset: u32,
        a: Option<Value>,
        b: Option<Value>,
    ) {
        let cold = self.b.create_block();
        self.b.set_cold_block(cold);
        let cont = self.b.create_block();
        self.b.ins().brif(cond, cold, &[], cont, &[]);
        self.b.switch_to_block(cold);
        self.emit_trap(code, offset, a, b);
        self.b.switch_to_block(cont);
        self.open = true;
    }

    /// Charges one unit of fuel, or stops with out-of-fuel at `offset`.
    fn charge(&mut self, offset: u32) {
        self.charge_n(1, offset);
    }

    /// Charges `n` units of fuel, or stops with out-of-fuel at `offset`
    /// (taking nothing) when fewer are left.
    pub(crate) fn charge_n(&mut self, n: u64, offset: u32) {
        if n == 0 {
            return;
        }
        // No run has 2^63 units; a larger cost can never be paid.
        let n = i64::try_from(n).unwrap_or(i64::MAX);
        let fuel = self.b.use_var(self.fuel);
        if self.fast.is_some() {
            // The loop's guard proved the fuel enough for every iteration.
            let left = self.b.ins().iadd_imm_s(fuel, -n);
            self.b.def_var(self.fuel, left);
            return;
        }
        let short = self.b.ins().icmp_imm_s(IntCC::UnsignedLessThan, fuel, n);
        self.trap_if(short, Some(trap::OUT_OF_FUEL), offset, None, None);
        let left = self.b.ins().iadd_imm_s(fuel, -n);
        self.b.def_var(self.fuel, left);
    }

    fn block_at(&mut self, offset: u32) -> Block {
        match self.blocks.get(&offset) {
            Some(&b) => b,
            None => {
                // Every target and fall-through was made a leader in `new`.
                let b = self.b.create_block();
                self.blocks.insert(offset, b);
                b
            }
        }
    }

    /// The block that takes a jump from the instruction at `offset` to
    /// `target`: the target itself, or, when the jump goes backward, a block
    /// that charges fuel first (filled by [`Lower::flush`] once the current
    /// block is terminated).
    fn edge(&mut self, offset: u32, target: u32) -> Block {
        let dest = self.target_block(offset, target);
        if target > offset {
            return dest;
        }
        if self
            .fast
            .as_ref()
            .is_some_and(|f| f.charged_header() == Some(target))
        {
            // The header charges the unit.
            return dest;
        }
        let charge = self.b.create_block();
        self.pending.push((charge, offset, dest));
        charge
    }

    /// Fills the fuel-charging blocks made by [`Lower::edge`]; the builder
    /// must be in a terminated block.
    fn flush(&mut self) {
        while let Some((block, offset, dest)) = self.pending.pop() {
            self.b.switch_to_block(block);
            self.charge(offset);
            self.b.ins().jump(dest, &[]);
        }
        self.open = false;
    }

    /// A conditional jump: to `target` when `cond` is non-zero, else to the
    /// next instruction.
    fn branch(&mut self, cond: Value, offset: u32, target: u32, next: Option<u32>) {
        let taken = self.edge(offset, target);
        let fall = match next {
            Some(n) => self.target_block(offset, n),
            None => self.b.create_block(),
        };
        let plain = self
            .fast
            .as_ref()
            .is_some_and(|f| f.charged_header() == Some(target));
        if target <= offset && !plain {
            // A loop's back edge: name the taken edge second, so Cranelift
            // lays out the fuel charge and the loop right after the branch
            // (one taken jump per iteration) and the loop exit after them.
            let exit = self.b.ins().icmp_imm_u(IntCC::Equal, cond, 0);
            self.b.ins().brif(exit, fall, &[], taken, &[]);
        } else {
            self.b.ins().brif(cond, taken, &[], fall, &[]);
        }
        self.flush();
    }

    fn jump(&mut self, offset: u32, target: u32) {
        let dest = self.edge(offset, target);
        self.b.ins().jump(dest, &[]);
        self.flush();
    }

    /// After a call that returned `status` (fuel or a negative status):
    /// returns it on when negative, else continues with it as the fuel.
    fn check_status(&mut self, status: Value) {
        let propagate = match self.propagate {
            Some(p) => p,
            None => {
                let p = self.b.create_block();
                self.b.set_cold_block(p);
                self.b.append_block_param(p, types::I64);
                self.propagate = Some(p);
                p
            }
        };
        let stopped = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, status, 0);
        let cont = self.b.create_block();
        self.b
            .ins()
            .brif(stopped, propagate, &[status.into()], cont, &[]);
        self.b.switch_to_block(cont);
        self.b.def_var(self.fuel, status);
    }

    /// Finishes the shared propagation block, if any call used it.
    fn finish_propagate(&mut self) {
        if let Some(p) = self.propagate {
            self.b.switch_to_block(p);
            let status = self.b.block_params(p)[0];
            self.ret_status(status);
        }
    }

    // ----- memory -----------------------------------------------------------

    fn global_addr(&mut self, g: u32) -> (Value, i32) {
        (self.globals, (g as i32).wrapping_mul(4))
    }

    /// The address of element `idx` of module list `list`, bounds-checked
    /// (a bounds error at `offset`).
    fn list_elem(&mut self, list: u32, idx: Value, known: Option<i32>, offset: u32) -> Value {
        let ListSlice { base, slots } = self.env.initial.lists[list as usize];
        match known {
            Some(k) if (k as u32) < slots => {
                let _ = idx;
                let at = self
                    .b
                    .ins()
                    .iadd_imm_s(self.heap, i64::from(base + k as u32) * 4);
                at
            }
            _ => {
                if !self.proven(offset) {
                    let out = self.b.ins().icmp_imm_s(
                        IntCC::UnsignedGreaterThanOrEqual,
                        idx,
                        i64::from(slots),
                    );
                    let s = self.b.ins().iconst(types::I32, i64::from(slots));
                    self.trap_if(out, Some(trap::LIST_INDEX), offset, Some(idx), Some(s));
                }
                let wide = self.b.ins().uextend(PTR, idx);
                let bytes = self.b.ins().ishl_imm_u(wide, 2);
                let at = self.b.ins().iadd(self.heap, bytes);
                self.b.ins().iadd_imm_s(at, i64::from(base) * 4)
            }
        }
    }

    /// The address of element `idx` of the list referenced by `r` (a list
    /// index, valid by verification), bounds-checked.
    fn ref_elem(
        &mut self,
        r: Value,
        r_known: Option<i32>,
        idx: Value,
        idx_known: Option<i32>,
        offset: u32,
    ) -> Value {
        if let Some(list) = r_known {
            return self.list_elem(list as u32, idx, idx_known, offset);
        }
        let (base, slots) = self.slice_of(r);
        if !self.proven(offset) {
            let out = self
                .b
                .ins()
                .icmp(IntCC::UnsignedGreaterThanOrEqual, idx, slots);
            self.trap_if(out, Some(trap::LIST_INDEX), offset, Some(idx), Some(slots));
        }
        self.heap_addr(base, idx)
    }

    /// Base and slot count of the list referenced by `r`.
    fn slice_of(&mut self, r: Value) -> (Value, Value) {
        let wide = self.b.ins().uextend(PTR, r);
        let scaled = self.b.ins().imul_imm_s(wide, offsets::SLICE_SIZE);
        let entry = self.b.ins().iadd(self.lists, scaled);
        let base = self
            .b
            .ins()
            .load(types::I32, invariant(), entry, offsets::SLICE_BASE);
        let slots = self
            .b
            .ins()
            .load(types::I32, invariant(), entry, offsets::SLICE_SLOTS);
        (base, slots)
    }

    fn heap_addr(&mut self, base: Value, idx: Value) -> Value {
        let base = self.b.ins().uextend(PTR, base);
        let idx = self.b.ins().uextend(PTR, idx);
        let at = self.b.ins().iadd(base, idx);
        let bytes = self.b.ins().ishl_imm_u(at, 2);
        self.b.ins().iadd(self.heap, bytes)
    }

    /// One for-in step, with the list (`base`, `slots`) and the cursor:
    /// branches to `exit` when the cursor is not below the slot count
    /// (unsigned) or the element there is the end marker -1; otherwise
    /// continues in a fresh block and returns the element.
    fn for_elem(&mut self, base: Value, slots: Value, cursor: Value, exit: Block) -> Value {
        let inside = self.b.ins().icmp(IntCC::UnsignedLessThan, cursor, slots);
        let load = self.b.create_block();
        self.b.ins().brif(inside, load, &[], exit, &[]);
        self.b.switch_to_block(load);
        let addr = self.heap_addr(base, cursor);
        let elem = self.b.ins().load(types::I32, trusted(), addr, 0);
        let end = self.b.ins().icmp_imm_s(IntCC::Equal, elem, -1);
        let cont = self.b.create_block();
        self.b.ins().brif(end, exit, &[], cont, &[]);
        self.flush();
        self.b.switch_to_block(cont);
        self.open = true;
        elem
    }

    /// A for-in step (`forl`, `forx`) over the list (`base`, `slots`) with
    /// the cursor in `cursor_slot`: with an element, push it and advance
    /// the cursor; without, jump to `target`.
    #[allow(clippy::too_many_arguments)]
    fn for_step(
        &mut self,
        base: Value,
        slots: Value,
        cursor_slot: u32,
        d: u32,
        offset: u32,
        target: u32,
    ) {
        let cursor = self.slot(cursor_slot);
        let exit = self.edge(offset, target);
        let elem = self.for_elem(base, slots, cursor, exit);
        self.set(d, elem);
        let next = self.b.ins().iadd_imm_s(cursor, 1);
        self.set_slot(cursor_slot, next);
    }

    /// An inverted for-in step (`forl.b`, `forx.b`): with an element, push
    /// it, advance the cursor and jump to `target`; without, fall through.
    #[allow(clippy::too_many_arguments)]
    fn for_step_back(
        &mut self,
        base: Value,
        slots: Value,
        cursor_slot: u32,
        d: u32,
        offset: u32,
        target: u32,
        next: Option<u32>,
    ) {
        let cursor = self.slot(cursor_slot);
        let fall = match next {
            Some(n) => self.target_block(offset, n),
            None => self.b.create_block(),
        };
        let elem = self.for_elem(base, slots, cursor, fall);
        self.set(d, elem);
        let advanced = self.b.ins().iadd_imm_s(cursor, 1);
        self.set_slot(cursor_slot, advanced);
        self.jump(offset, target);
    }

    /// The stack slot holding intrinsic arguments, created on first use.
    pub fn args_slot(&mut self) -> StackSlot {
        match self.args_slot {
            Some(s) => s,
            None => {
                let s = self.b.create_sized_stack_slot(StackSlotData::new(
                    StackSlotKind::ExplicitSlot,
                    (MAX_PARAMS * 4) as u32,
                    2,
                ));
                self.args_slot = Some(s);
                s
            }
        }
    }

    // ----- arithmetic -------------------------------------------------------

    /// `b` when `v` is `b` zero-extended from an 8-bit truth value, else
    /// `v`: either is non-zero exactly when the other is.
    fn narrow_truth(&self, v: Value) -> Value {
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

    fn bool_to_i32(&mut self, c: Value) -> Value {
        self.b.ins().uextend(types::I32, c)
    }

    /// `a / b` or `a % b` with the CVM's rules: division by zero is an error
    /// at `offset`; `i32::MIN / -1` wraps and `i32::MIN % -1` is 0 (done in
    /// 64 bits, where it cannot overflow).
    fn divide(
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

    fn compare(&mut self, cc: IntCC, a: Value, b: Value) -> Value {
        self.b.ins().icmp(cc, a, b)
    }

    // ----- instructions -----------------------------------------------------

    #[allow(clippy::too_many_lines)]
    fn instr(&mut self, offset: u32, instr: cvm::isa::Instr, d: u32, next: Option<u32>) {
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
        macro_rules! cmp {
            ($cc:expr) => {{
                let a = self.get(d - 2);
                let b = self.get(d - 1);
                let c = self.compare($cc, a, b);
                let r = self.bool_to_i32(c);
                self.set(d - 2, r);
            }};
        }
        macro_rules! cmp_jump {
            ($cc:expr, $a:expr, $b:expr, $target:expr) => {{
                let (a, b) = ($a, $b);
                let c = self.compare($cc, a, b);
                self.branch(c, offset, $target, next);
            }};
        }
        match instr.opcode {
            Opcode::Nop | Opcode::Pop => {}
            Opcode::Halt => {
                let fuel = self.b.use_var(self.fuel);
                self.b
                    .ins()
                    .store(trusted(), fuel, self.ctx, offsets::FUEL_LEFT);
                let status = self.b.ins().iconst(types::I64, STATUS_HALT);
                self.ret_status(status);
            }
            Opcode::Push => self.set_const(d, imm),
            Opcode::Dup => {
                let v = self.get(d - 1);
                let k = self.known(d - 1);
                self.set(d, v);
                self.known[d as usize] = k;
            }
            Opcode::Swap => {
                let a = self.get(d - 2);
                let b = self.get(d - 1);
                let (ka, kb) = (self.known(d - 2), self.known(d - 1));
                self.set(d - 2, b);
                self.set(d - 1, a);
                self.known[(d - 2) as usize] = kb;
                self.known[(d - 1) as usize] = ka;
            }
            Opcode::Ldl => {
                let v = self.slot(ops[0]);
                self.set(d, v);
            }
            Opcode::Stl => {
                let v = self.get(d - 1);
                self.set_slot(ops[0], v);
            }
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
            Opcode::Incl | Opcode::Decl => {
                let v = self.slot(ops[0]);
                let step = if instr.opcode == Opcode::Incl { 1 } else { -1 };
                let r = self.b.ins().iadd_imm_s(v, step);
                self.set_slot(ops[0], r);
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
            Opcode::Tee => {
                let v = self.get(d - 1);
                self.set_slot(ops[0], v);
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
                cmp!(cond(instr.opcode))
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
            Opcode::Ldl2 => {
                let a = self.slot(ops[0]);
                let b = self.slot(ops[1]);
                self.set(d, a);
                self.set(d + 1, b);
            }
            Opcode::IncJLtLI if self.rotated_latch(offset) => {
                // See `Rotation`: the old value goes back to the header.
                let v = self.slot(ops[0]);
                let bound = ops[1] as i32;
                let c = self.b.ins().icmp_imm_s(
                    IntCC::SignedLessThan,
                    v,
                    i64::from(bound.wrapping_sub(1)),
                );
                let header = self.target_block(offset, ops[2]);
                let exit = self.b.create_block();
                // Out of line, so the copies of an unrolled loop follow
                // each other and each latch falls through on continuing.
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
            Opcode::Fuel => self.charge_n(u64::from(ops[0]), offset),
            Opcode::Enter => {
                self.call_checks(ops[0], offset);
            }
            Opcode::EnterF => {
                let left = self.call_checks(1, offset);
                self.b.def_var(self.depth_left, left);
            }
            Opcode::Leave => {
                let left = self.b.use_var(self.depth_left);
                let up = self.b.ins().iadd_imm_s(left, 1);
                self.b.def_var(self.depth_left, up);
            }
            Opcode::PatAll | Opcode::PatAny => {
                let any = instr.opcode == Opcode::PatAny;
                let mask = u64::from(ops[1]) | u64::from(ops[2]) << 32;
                let v = match inline::try_inline_mask(self, ops[0], d - 1, mask, any, offset) {
                    Some(v) => v,
                    None => {
                        // The shim charges the cost (it depends on the
                        // argument) and stores the result in the slot.
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
                        self.b.def_var(self.fuel, left);
                        self.b.ins().stack_load(PTR, types::I32, slot, 0)
                    }
                };
                self.set(d - 1, v);
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
                cmp_jump!(cond(instr.opcode), self.get(d - 2), self.get(d - 1), ops[0])
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
            Opcode::Intr => self.intrinsic(ops[0], d, offset),
            Opcode::Write => {
                let v = self.get(d - 1);
                let call = self.b.ins().call(self.env.write, &[self.ctx, v]);
                let r = self.b.inst_results(call)[0];
                self.check_shim(r, offset);
            }
            Opcode::TextOut => {
                let t = self.b.ins().iconst(types::I32, i64::from(ops[0]));
                let call = self.b.ins().call(self.env.textout, &[self.ctx, t]);
                let r = self.b.inst_results(call)[0];
                self.check_shim(r, offset);
            }
        }
    }

    /// The condition of a compare-with-immediate jump.
    fn compare_imm(&mut self, op: Opcode, a: Value, k: i32) -> Value {
        self.b.ins().icmp_imm_s(cond(op), a, i64::from(k))
    }

    /// After a shim returned `r`: stops with the shim's error when it is the
    /// trap sentinel.
    pub fn check_shim(&mut self, r: Value, offset: u32) {
        let failed = self.b.ins().icmp_imm_s(IntCC::Equal, r, SHIM_TRAP);
        self.trap_if(failed, None, offset, None, None);
    }

    /// After a shim that charges fuel returned `r` (the fuel left): stops
    /// with the shim's error, and the fuel left it recorded, when `r` is
    /// the trap sentinel.
    fn check_charging_shim(&mut self, r: Value, offset: u32) {
        let failed = self.b.ins().icmp_imm_s(IntCC::Equal, r, SHIM_TRAP);
        let cold = self.b.create_block();
        self.b.set_cold_block(cold);
        let cont = self.b.create_block();
        self.b.ins().brif(failed, cold, &[], cont, &[]);
        self.b.switch_to_block(cold);
        self.emit_trap_fuel(None, offset, None, None, false);
        self.b.switch_to_block(cont);
        self.open = true;
    }

    /// Returns `v` from the current frame: a native return, or a jump to
    /// the caller's continuation when the frame is inlined.
    fn ret_value(&mut self, v: Value) {
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

    fn call(&mut self, callee: u32, d: u32, offset: u32) {
        let arity = self.env.module.functions[callee as usize].arity();
        let returns = self.env.module.functions[callee as usize].returns_value;
        let depth = self.call_checks(1, offset);
        if self.inline_call(callee, d, depth) {
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

    /// The checks of a call `k` frames deeper than the current one: depth
    /// first, then fuel, as the interpreter makes them. Returns the
    /// `depth_left` one frame down.
    fn call_checks(&mut self, k: u32, offset: u32) -> Value {
        let left = self.b.use_var(self.depth_left);
        if self.fast.is_some() {
            // The loop's guard proved the depth enough (and `charge`
            // charges without a test).
            self.charge(offset);
            return self.b.ins().iadd_imm_s(left, -1);
        }
        let too_deep = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedLessThanOrEqual, left, i64::from(k));
        self.trap_if(too_deep, Some(trap::CALL_DEPTH), offset, None, None);
        self.charge(offset);
        self.b.ins().iadd_imm_s(left, -1)
    }

    /// Lowers the body of a small callee in place of a native call, after
    /// the call's depth and fuel checks: its frame slots become fresh
    /// variables, `depth` is its `depth_left`, its errors and `halt` leave
    /// the whole native function directly, and its returns jump to a
    /// continuation. Returns false (nothing emitted) when the callee is
    /// not [`inlinable`] here.
    fn inline_call(&mut self, callee: u32, d: u32, depth: Value) -> bool {
        let env = self.env;
        if !inlinable(env.module, env.infos, callee)
            || self.chain.contains(&callee)
            || self.chain.len() > MAX_INLINE_NESTING
        {
            return false;
        }
        let info = &env.infos[callee as usize];
        if self.inlined_size + info.instrs.len() > INLINE_BUDGET {
            return false;
        }
        self.inlined_size += info.instrs.len();
        let f = &env.module.functions[callee as usize];
        let arity = f.arity();
        let returns = f.returns_value;
        let nslots = f.frame_slots() as usize;
        let nstack = (info.max_depth.max(f.max_stack) as usize) + 1;
        let args: Vec<Value> = (d - arity..d).map(|k| self.get(k)).collect();
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
            std::mem::replace(&mut self.known, vec![None; nstack]),
            std::mem::replace(&mut self.depth_left, depth_var),
            std::mem::replace(&mut self.blocks, blocks),
            self.ret_to.replace(cont),
        );
        self.chain.push(callee);
        self.body();
        self.chain.pop();
        self.info = saved.0;
        self.slots = saved.1;
        self.stack = saved.2;
        self.known = saved.3;
        self.depth_left = saved.4;
        self.blocks = saved.5;
        self.ret_to = saved.6;
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

    fn intrinsic(&mut self, id: u32, d: u32, offset: u32) {
        let info = &INTRINSICS[id as usize];
        let n = info.params.len() as u32;
        let base = d - n;
        if let Some(v) = inline::try_inline(self, id, base, offset) {
            self.env.inlined.set(self.env.inlined.get() + 1);
            if info.returns {
                self.set(base, v);
            }
            return;
        }
        let slot = self.args_slot();
        for k in 0..n {
            let v = self.get(base + k);
            self.b.ins().stack_store(PTR, v, slot, (k * 4) as i32);
        }
        let addr = self.b.ins().stack_addr(PTR, slot, 0);
        let idv = self.b.ins().iconst(types::I32, i64::from(id));
        // The shim charges the intrinsic's cost, computed from the
        // arguments as the interpreter computes it, and returns the fuel
        // left; the result comes back in the first argument word.
        let fuel = self.b.use_var(self.fuel);
        let call = self
            .b
            .ins()
            .call(self.env.intrinsic, &[self.ctx, idv, addr, fuel]);
        let left = self.b.inst_results(call)[0];
        self.check_charging_shim(left, offset);
        self.b.def_var(self.fuel, left);
        if info.returns {
            let v = self.b.ins().stack_load(PTR, types::I32, slot, 0);
            self.set(base, v);
        }
    }
}
