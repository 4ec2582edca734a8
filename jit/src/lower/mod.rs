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
//! arguments be compiled to native code (`patterns.rs`).

mod advice;
mod calls;
mod counted;
mod instr;
mod memory;

use crate::analysis::loops::CountedLoop;
use crate::analysis::splice::Splices;
use crate::context::{offsets, trap, SHIM_TRAP, STATUS_TRAP};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{
    types, AbiParam, Block, FuncRef, InstBuilder, MemFlagsData, Signature, StackSlot, Type, Value,
};
use cranelift_frontend::{FunctionBuilder, Variable};
use cvm::isa::{Flow, Opcode, Rel};
use cvm::module::Function;
use cvm::verify::{FunctionInfo, InstrInfo};
use cvm::{Memory, Module};
use std::cell::Cell;
use std::collections::HashMap;

use counted::Fast;

/// The pointer type (the JIT runs on 64-bit hosts only; checked when the
/// instruction set is made).
pub(crate) use crate::shared::PTR;

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

/// The Cranelift signature of a compiled CVM function with `arity`
/// parameters, in the module's default calling convention.
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
    pub constant_elements: &'a [Option<Vec<i32>>],
    /// Intrinsic calls compiled to native code so far (`patterns.rs`).
    pub native_intrinsics: Cell<usize>,
    /// The verifier's analysis of every function.
    pub infos: &'a [FunctionInfo],
    /// Function references of the callees, by CVM function index, imported
    /// into the function being built: every function its body, with the
    /// bodies spliced into it, calls natively.
    pub callees: HashMap<u32, FuncRef>,
    /// The intrinsic shim.
    pub intrinsic: FuncRef,
    /// The intrinsic shim for a call writing a deferred list.
    pub intrinsic_flush: FuncRef,
    /// The `write` shim.
    pub write: FuncRef,
    /// The `textout` shim.
    pub textout: FuncRef,
    /// The pattern-set shim.
    pub pattern: FuncRef,
    /// The folded-pattern shim (`pat.all`/`pat.any` with an unknown scalar).
    pub pattern_mask: FuncRef,
    /// The shim that writes one waiting fill (`crate::deferred`).
    pub flush_fill: FuncRef,
    /// The counted loops of every function ([`crate::analysis::loops`]).
    pub loops: &'a [Vec<CountedLoop>],
    /// Which calls are spliced ([`crate::analysis::splice`]).
    pub splices: &'a Splices,
    /// The inline checks to emit (all but in a measurement build).
    pub checks: crate::shared::Checks,
    /// The lists whose fills are deferred, by slot of the waiting-fill
    /// record (`crate::deferred`).
    pub deferred: &'a [u32],
    /// Whether the program calls `HostCall` anywhere (the board pointer
    /// may then change during a run: `Lower::board_word`).
    pub host_calls: bool,
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

/// The three shared exits of a native function's checks: each takes the
/// context fields to record (in this order) and then the fuel left.
#[derive(Copy, Clone, PartialEq, Eq)]
enum TrapExit {
    /// The error kind and code offset.
    Plain = 0,
    /// The error kind, code offset, index and slot count (a bounds error).
    Bounds = 1,
    /// The code offset only: a shim recorded the kind and payload.
    Recorded = 2,
}

impl TrapExit {
    /// The context fields the exit stores its parameters in (all but the
    /// last, the fuel).
    fn stores(self) -> &'static [i32] {
        match self {
            TrapExit::Plain => &[offsets::TRAP_CODE, offsets::TRAP_OFFSET],
            TrapExit::Bounds => &[
                offsets::TRAP_CODE,
                offsets::TRAP_OFFSET,
                offsets::TRAP_A,
                offsets::TRAP_B,
            ],
            TrapExit::Recorded => &[offsets::TRAP_OFFSET],
        }
    }

    /// The exit block's parameter types.
    fn params(self) -> &'static [Type] {
        match self {
            TrapExit::Plain => &[types::I32, types::I32, types::I64],
            TrapExit::Bounds => &[types::I32, types::I32, types::I32, types::I32, types::I64],
            TrapExit::Recorded => &[types::I32, types::I64],
        }
    }
}

/// The compile-time values of the operand-stack slots in the current
/// block. Forgetting them all at a block's start costs only the slots set
/// since the last time, not the stack's height.
struct Known {
    values: Vec<Option<i32>>,
    /// Slots set since the last [`Known::clear`].
    dirty: Vec<u32>,
}

impl Known {
    fn new(height: usize) -> Known {
        Known {
            values: vec![None; height],
            dirty: Vec::new(),
        }
    }

    fn get(&self, k: u32) -> Option<i32> {
        self.values[k as usize]
    }

    fn set(&mut self, k: u32, v: Option<i32>) {
        if v.is_some() {
            self.dirty.push(k);
        }
        self.values[k as usize] = v;
    }

    fn clear(&mut self) {
        for k in self.dirty.drain(..) {
            self.values[k as usize] = None;
        }
    }
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
    known: Known,
    /// Compile-time values of frame slots for the whole frame: in a
    /// spliced callee, the parameters no instruction writes whose
    /// argument was known at the call (empty otherwise).
    slot_consts: Vec<Option<i32>>,
    fuel: Variable,
    /// The context pointer.
    pub ctx: Value,
    /// The depth left for calls (see the module documentation), a variable
    /// because `enter.f` and `leave` (inlined frames) change it.
    depth_left: Variable,
    globals: Value,
    heap: Value,
    lists: Value,
    /// The context's board pointer (`Context::board`), loaded in the
    /// entry block, after `lists`, on first use (`Lower::board_word`).
    board: Option<Value>,
    blocks: HashMap<u32, Block>,
    /// Where `ret`/`retv` go when the function being lowered is spliced
    /// into a caller: the caller's continuation (one `i32` parameter, the
    /// value); `None` in the function itself (a native return).
    ret_to: Option<Block>,
    /// The body being lowered: the function's own or a spliced callee's,
    /// as a node of [`Env::splices`].
    node: usize,
    args_slot: Option<StackSlot>,
    propagate: Option<Block>,
    /// The shared exits of the checks by [`TrapExit`], made on first use.
    trap_exits: [Option<Block>; 3],
    /// Fuel-charging blocks of backward edges still to be filled: the
    /// block, the jump's offset and the jump's target block.
    pending: Vec<(Block, u32, u64, Block)>,
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
    /// The entry for on-stack replacement, when the function has one: the
    /// block the function's entry branches to when the context holds a
    /// frame's state, the state's address and the loop headers.
    osr: Option<(Block, Value, Vec<u32>)>,
    /// The fuel proved at entry ([`Lower::with_fuel_proved`]), when the
    /// function is lowered that way.
    proved: Option<ProvedFuel>,
}

/// The lowering of a function whose every charge is a constant and runs
/// at most once per call (straight-line code that calls no function
/// natively): the entry proves the fuel enough for all of them at once,
/// so each charge only subtracts. `bound` sums the charges lowered;
/// `dynamic` records a charge whose amount is known only at run time (a
/// shim's, a call's, a cost worked out from a count), which no bound
/// covers: the function must then be lowered again with its checks.
#[derive(Clone, Copy, Debug, Default)]
struct ProvedFuel {
    bound: u64,
    dynamic: bool,
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
        let nstack = info.max_depth as usize + 1;
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
        let heads = if env.checks.osr {
            crate::shared::osr_heads(f, info)
        } else {
            Vec::new()
        };
        let osr = if heads.is_empty() {
            None
        } else {
            // A frame's state to continue at a loop header, or an
            // ordinary entry.
            let state = b.ins().load(PTR, trusted(), ctx, offsets::OSR);
            let resume = b.create_block();
            b.set_cold_block(resume);
            let start = b.create_block();
            b.ins().brif(state, resume, &[], start, &[]);
            b.switch_to_block(start);
            Some((resume, state, heads))
        };

        let blocks = leaders(&mut b, info);
        Lower {
            b,
            env,
            info,
            slots,
            stack,
            known: Known::new(nstack),
            slot_consts: Vec::new(),
            fuel,
            ctx,
            depth_left,
            globals,
            heap,
            lists,
            board: None,
            blocks,
            ret_to: None,
            node: index as usize,
            args_slot: None,
            propagate: None,
            trap_exits: [None; 3],
            pending: Vec::new(),
            open: true,
            loops: env.loops.get(index as usize).map_or(&[], |l| l.as_slice()),
            guards: HashMap::new(),
            fast: None,
            osr,
            proved: None,
        }
    }

    /// Lowers the function with every constant charge subtracting only,
    /// no check (see [`ProvedFuel`]); [`Lower::run_proved`] then says
    /// what fuel the entry must find for that to be exact.
    pub fn with_fuel_proved(mut self) -> Self {
        if self.env.checks.fuel {
            self.proved = Some(ProvedFuel::default());
        }
        self
    }

    /// [`Lower::run`] for a lowering [`Lower::with_fuel_proved`]: the
    /// builder, and the fuel the code needs at entry to run without fuel
    /// checks, or `None` when a charge of the function is not a constant
    /// (the code must not be used: lower the function again without).
    pub fn run_proved(mut self) -> (FunctionBuilder<'b>, Option<u64>) {
        self.lower_all();
        let bound = self
            .proved
            .filter(|p| !p.dynamic && self.osr.is_none() && self.pending.is_empty())
            .map(|p| p.bound);
        (self.b, bound)
    }

    /// Records that the fuel changes here by an amount known only at run
    /// time (see [`ProvedFuel`]).
    pub(crate) fn fuel_dynamic(&mut self) {
        if let Some(p) = &mut self.proved {
            p.dynamic = true;
        }
    }

    /// Lowers every reachable instruction and finishes the function.
    pub fn run(mut self) -> FunctionBuilder<'b> {
        self.lower_all();
        self.b
    }

    /// Lowers every reachable instruction, the entries and exits the body
    /// needs, and seals the blocks: [`Lower::run`] and
    /// [`Lower::run_proved`] before they hand the builder back.
    fn lower_all(&mut self) {
        self.body();
        self.osr_entry();
        self.finish_propagate();
        self.finish_trap_exits();
        self.b.seal_all_blocks();
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

    /// Fills the entry for on-stack replacement: clears the context's
    /// pointer (the callees start at their beginning), loads the frame
    /// slots, and for the header the state names the operand stack, then
    /// enters the header as an edge from outside the loop does (a counted
    /// loop's guard decides its copy with the values it finds).
    fn osr_entry(&mut self) {
        let Some((resume, state, heads)) = self.osr.take() else {
            return;
        };
        self.b.switch_to_block(resume);
        let null = self.b.ins().iconst(PTR, 0);
        self.b.ins().store(trusted(), null, self.ctx, offsets::OSR);
        let target = self.b.ins().load(types::I32, trusted(), state, 0);
        let nslots = self.slots.len() as i32;
        for s in 0..self.slots.len() {
            let v = self
                .b
                .ins()
                .load(types::I32, trusted(), state, 4 + 4 * s as i32);
            self.b.def_var(self.slots[s], v);
        }
        for h in heads {
            let depth = crate::shared::stack_depth_at(self.info, h);
            let load = self.b.create_block();
            self.b.set_cold_block(load);
            let next = self.b.create_block();
            self.b.set_cold_block(next);
            let hit = self.b.ins().icmp_imm_s(IntCC::Equal, target, i64::from(h));
            self.b.ins().brif(hit, load, &[], next, &[]);
            self.b.switch_to_block(load);
            for k in 0..depth {
                let at = 4 + 4 * (nslots + k as i32);
                let v = self.b.ins().load(types::I32, trusted(), state, at);
                self.b.def_var(self.stack[k as usize], v);
            }
            let dest = match self.guards.get(&h) {
                Some(&(_, guard)) => guard,
                None => self.block_at(h),
            };
            self.b.ins().jump(dest, &[]);
            self.b.switch_to_block(next);
        }
        // The instances only ask for the headers listed.
        let status = self.b.ins().iconst(types::I64, STATUS_TRAP);
        self.ret_status(status);
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
        self.known.clear();
        self.open = true;
    }

    // ----- operand stack --------------------------------------------------

    /// Reads stack slot `k`.
    pub fn get(&mut self, k: u32) -> Value {
        self.b.use_var(self.stack[k as usize])
    }

    fn set(&mut self, k: u32, v: Value) {
        self.b.def_var(self.stack[k as usize], v);
        self.known.set(k, None);
    }

    fn set_const(&mut self, k: u32, c: i32) {
        let v = self.b.ins().iconst(types::I32, i64::from(c));
        self.b.def_var(self.stack[k as usize], v);
        self.known.set(k, Some(c));
    }

    /// The compile-time value of stack slot `k`, if known.
    pub fn known(&self, k: u32) -> Option<i32> {
        self.known.get(k)
    }

    /// Records the compile-time value of stack slot `k` (after `set`).
    fn set_known(&mut self, k: u32, v: Option<i32>) {
        self.known.set(k, v);
    }

    /// The value frame slot `s` holds for the whole frame, if known.
    fn slot_const(&self, s: u32) -> Option<i32> {
        self.slot_consts.get(s as usize).copied().flatten()
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
    /// and payload) and returns the trap status. A check's own cold block
    /// only passes the error kind, the code offset (and the index and slot
    /// count of a bounds error) and the fuel left to an exit the whole
    /// native function shares ([`TrapExit`]), which stores them and
    /// returns: a few bytes per check instead of a store sequence and a
    /// return each.
    fn emit_trap(&mut self, code: Option<u32>, offset: u32, a: Option<Value>, b: Option<Value>) {
        let fuel = self.b.use_var(self.fuel);
        self.emit_trap_fuel(code, offset, a, b, fuel);
    }

    /// [`Lower::emit_trap`] with the fuel left to record given: a shim
    /// that charges fuel and fails records what it left in the context.
    fn emit_trap_fuel(
        &mut self,
        code: Option<u32>,
        offset: u32,
        a: Option<Value>,
        b: Option<Value>,
        fuel: Value,
    ) {
        let kind = match (code, a.is_some() || b.is_some()) {
            (None, _) => TrapExit::Recorded,
            (Some(_), false) => TrapExit::Plain,
            (Some(_), true) => TrapExit::Bounds,
        };
        let exit = match self.trap_exits[kind as usize] {
            Some(exit) => exit,
            None => {
                let exit = self.b.create_block();
                self.b.set_cold_block(exit);
                for &t in kind.params() {
                    self.b.append_block_param(exit, t);
                }
                self.trap_exits[kind as usize] = Some(exit);
                exit
            }
        };
        let mut args = Vec::with_capacity(5);
        if let Some(code) = code {
            args.push(self.b.ins().iconst(types::I32, i64::from(code)).into());
        }
        args.push(self.b.ins().iconst(types::I32, i64::from(offset)).into());
        if kind == TrapExit::Bounds {
            let zero = self.b.ins().iconst(types::I32, 0);
            args.push(a.unwrap_or(zero).into());
            args.push(b.unwrap_or(zero).into());
        }
        args.push(fuel.into());
        self.b.ins().jump(exit, &args);
        self.open = false;
    }

    /// Fills the shared trap exits made by [`Lower::emit_trap`].
    fn finish_trap_exits(&mut self) {
        let flags = trusted();
        for kind in [TrapExit::Plain, TrapExit::Bounds, TrapExit::Recorded] {
            let Some(exit) = self.trap_exits[kind as usize] else {
                continue;
            };
            self.b.switch_to_block(exit);
            let p = self.b.block_params(exit).to_vec();
            for (&field, &v) in kind.stores().iter().zip(&p) {
                self.b.ins().store(flags, v, self.ctx, field);
            }
            let fuel = p[p.len() - 1];
            self.b
                .ins()
                .store(flags, fuel, self.ctx, offsets::FUEL_LEFT);
            let status = self.b.ins().iconst(types::I64, STATUS_TRAP);
            self.ret_status(status);
        }
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

    /// Charges `n` units of fuel, or stops with out-of-fuel at `offset`
    /// (taking nothing) when fewer are left.
    pub(crate) fn charge_n(&mut self, n: u64, offset: u32) {
        if n == 0 || !self.env.checks.fuel {
            return;
        }
        // No run has 2^63 units: a larger cost can never be paid.
        let n = i64::try_from(n).unwrap_or(i64::MAX);
        let fuel = self.b.use_var(self.fuel);
        if let Some(p) = &mut self.proved {
            // The entry proves the fuel enough for every charge at once.
            p.bound = p.bound.saturating_add(n as u64);
        }
        if self.fast.is_some() || self.proved.is_some() {
            // The loop's guard, or the entry, proved the fuel enough.
            let left = self.b.ins().iadd_imm_s(fuel, -n);
            self.b.def_var(self.fuel, left);
            return;
        }
        let short = self.b.ins().icmp_imm_s(IntCC::UnsignedLessThan, fuel, n);
        self.trap_if(short, Some(trap::OUT_OF_FUEL), offset, None, None);
        let left = self.b.ins().iadd_imm_s(fuel, -n);
        self.b.def_var(self.fuel, left);
    }

    /// After a shim that charges fuel returned `r`, the fuel left: stops
    /// with the error the shim recorded, and the fuel left it recorded,
    /// when `r` is the trap sentinel; else `r` is the fuel from here on.
    pub(crate) fn check_charging_shim(&mut self, r: Value, offset: u32) {
        let failed = self.b.ins().icmp_imm_s(IntCC::Equal, r, SHIM_TRAP);
        let cold = self.b.create_block();
        self.b.set_cold_block(cold);
        let cont = self.b.create_block();
        self.b.ins().brif(failed, cold, &[], cont, &[]);
        self.b.switch_to_block(cold);
        let recorded = self
            .b
            .ins()
            .load(types::I64, trusted(), self.ctx, offsets::FUEL_LEFT);
        self.emit_trap_fuel(None, offset, None, None, recorded);
        self.b.switch_to_block(cont);
        self.open = true;
        self.fuel_dynamic();
        self.b.def_var(self.fuel, r);
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
        let cost = self.info.jump_fuel(offset, target);
        let charge = self.b.create_block();
        self.pending.push((charge, offset, cost, dest));
        charge
    }

    /// Fills the fuel-charging blocks made by [`Lower::edge`]; the builder
    /// must be in a terminated block.
    fn flush(&mut self) {
        while let Some((block, offset, cost, dest)) = self.pending.pop() {
            self.b.switch_to_block(block);
            self.charge_n(cost, offset);
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
        self.fuel_dynamic();
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
}
