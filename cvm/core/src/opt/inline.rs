//! Inlining: small callees copied into their callers at the CVM level.
//!
//! A CVM call is the most expensive thing the interpreter does for a small
//! function: a depth check, a unit of fuel, a frame pushed and popped, the
//! arguments and the result moved. This pass replaces a `call` of a small
//! function by the function's body, so that only what a program can observe
//! of the call remains:
//!
//! * `enter k` (a callee that makes no calls) or `enter.f` ... `leave` (a
//!   callee that calls) in place of the call: the same depth error and the
//!   same unit of fuel, at the call's source position. `enter.f` keeps one
//!   frame counted against the depth limit until its `leave`, so calls made
//!   inside the inlined body fail the depth check exactly where they did
//!   before; `enter k` checks for `k` frames at once, which is all a chain
//!   of inlined callees without calls needs (an inner `enter k` becomes
//!   `enter k+1` when its function is inlined into another);
//! * the callee's frame slots become fresh int locals of the caller, its
//!   parameters filled from the stack (`stl`) and its locals zeroed, as a
//!   call would; a parameter the callee never writes whose argument is a
//!   plain `ldl s` of the caller is not copied at all: the body reads `s`;
//! * `ret` and `retv` become jumps to the instruction after the inlined body
//!   (forward, so they charge no fuel, as a return charges none), with the
//!   result, if any, left on the stack where the call would have put it.
//!
//! Backward jumps of the callee stay backward and keep their charges; its
//! errors keep their source positions. Functions are visited callees first
//! (a post-order of the call graph), so chains of small functions flatten.
//! With [`Limits::recursive`] a recursive function is also inlined into
//! itself once, from its body before that step; that halves the calls of a
//! recursion like `fib` but, measured, does not pay on the interpreter, so
//! it is off by default.
//!
//! What is not inlined: callees with list parameters (the caller cannot
//! declare list locals), callees larger than [`Limits::max_callee`]
//! instructions, callees whose `ret`/`retv` leave extra values on their
//! stack, and any call that would take the caller beyond
//! [`Limits::max_caller`] instructions or [`Limits::max_slots`] frame slots,
//! or the whole program beyond its growth budget ([`Limits::budget`]): at
//! most [`Limits::growth`] times its own size plus [`Limits::growth_floor`]
//! instructions may be added, so the optimized program is at most
//! `(1 + growth) * n + growth_floor` instructions for an input of `n`, however
//! its calls nest.

use super::ir::{target_index, Body, Ins, Item, Label};
use crate::intrinsics::INTRINSICS;
use crate::isa::{Effect, Flow, Opcode, OperandKind};
use crate::module::{is_valid_name, Function};
use std::collections::{HashMap, HashSet};

/// Size limits of inlining.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Largest callee, in instructions.
    pub max_callee: usize,
    /// Largest caller after inlining, in instructions.
    pub max_caller: usize,
    /// Most frame slots a caller may reach.
    pub max_slots: u32,
    /// Whether a function's calls of itself are inlined (once). Off by
    /// default: on `fib` the interpreter runs 317M machine instructions
    /// with it and 309M without (the inlined copy trades a call and a
    /// return for more, cheaper dispatches).
    pub recursive: bool,
    /// Instructions inlining may add to the whole program, per instruction
    /// of the program before inlining.
    pub growth: usize,
    /// Instructions inlining may add to any program, however small.
    pub growth_floor: usize,
}

impl Limits {
    /// The instructions inlining may add to a program of `size`
    /// instructions: `growth * size + growth_floor`.
    pub fn budget(&self, size: usize) -> usize {
        self.growth
            .saturating_mul(size)
            .saturating_add(self.growth_floor)
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_callee: 24,
            max_caller: 1000,
            max_slots: 256,
            recursive: false,
            growth: 1,
            growth_floor: 256,
        }
    }
}

/// The order in which functions are inlined into: every function after the
/// functions it calls, except along cycles (recursion), where the function
/// reached first comes last.
pub fn callees_first(bodies: &[Body]) -> Vec<usize> {
    let n = bodies.len();
    let callees: Vec<Vec<usize>> = bodies
        .iter()
        .map(|b| {
            let mut c: Vec<usize> = b
                .instrs()
                .filter(|i| i.op() == Opcode::Call)
                .map(|i| i.arg(0) as usize)
                .filter(|&c| c < n)
                .collect();
            c.sort_unstable();
            c.dedup();
            c
        })
        .collect();
    // Iterative depth-first search: 0 unvisited, 1 on the path, 2 done.
    let mut state = vec![0u8; n];
    let mut order = Vec::with_capacity(n);
    for root in 0..n {
        if state[root] != 0 {
            continue;
        }
        let mut stack: Vec<(usize, usize)> = vec![(root, 0)];
        state[root] = 1;
        while let Some(&mut (f, ref mut next)) = stack.last_mut() {
            if let Some(&c) = callees[f].get(*next) {
                *next += 1;
                if state[c] == 0 {
                    state[c] = 1;
                    stack.push((c, 0));
                }
            } else {
                state[f] = 2;
                order.push(f);
                stack.pop();
            }
        }
    }
    order
}

/// Inlines the eligible calls of one function (body `body`, table entry
/// `func`, which gains the new locals). `bodies` and `functions` hold the
/// current bodies and table entries of all functions; a recursive call
/// inlines the function's entry in `bodies`, which the driver keeps at its
/// state before this step. `budget` is what the program may still grow by
/// (in instructions); the instructions added are taken from it. Returns
/// the number of calls inlined.
pub fn inline_calls(
    caller: usize,
    body: &mut Body,
    func: &mut Function,
    bodies: &[Body],
    functions: &[Function],
    limits: Limits,
    budget: &mut usize,
) -> usize {
    // A line table cannot say "no position" after a position, so bodies
    // with and without positions (the code before a module's first line
    // entry has none) are never mixed.
    let Some(positioned) = positioned(body) else {
        return 0;
    };
    let mut candidates: HashMap<u32, Option<Callee>> = HashMap::new();
    let mut names: HashSet<String> = func.slot_names.iter().cloned().collect();
    let mut size = body.instrs().count();
    let mut out: Vec<Item> = Vec::with_capacity(body.items.len());
    let mut inlined = 0;
    let items = std::mem::take(&mut body.items);
    for item in items {
        let Item::Ins(call) = item else {
            out.push(item);
            continue;
        };
        if call.op() != Opcode::Call {
            out.push(item);
            continue;
        }
        let index = call.arg(0);
        if index as usize == caller && !limits.recursive {
            out.push(item);
            continue;
        }
        let callee = candidates
            .entry(index)
            .or_insert_with(|| Callee::new(index as usize, bodies, functions, limits))
            .as_ref();
        let Some(callee) = callee.filter(|c| c.positioned == positioned) else {
            out.push(item);
            continue;
        };
        let fresh = callee.func.frame_slots();
        // The most an expansion adds: the body, a store and a zeroing per
        // fresh slot, the entry and exit.
        let most = callee.size + fresh as usize * 2 + 2;
        if size + most > limits.max_caller
            || func.frame_slots() + fresh > limits.max_slots
            || most > *budget
        {
            out.push(item);
            continue;
        }
        let added = callee.expand(call, &mut out, body, func, &mut names);
        size += added;
        *budget -= added.min(*budget);
        inlined += 1;
    }
    body.items = out;
    inlined
}

/// A function found fit for inlining, with what expanding it needs.
struct Callee<'a> {
    func: &'a Function,
    body: &'a Body,
    /// Instructions in the body.
    size: usize,
    /// Whether the body calls (or holds an inlined call that calls).
    calls: bool,
    /// `readonly[p]`: the body only ever reads parameter `p`.
    readonly: Vec<bool>,
    /// Whether the body's instructions have source positions.
    positioned: bool,
}

impl<'a> Callee<'a> {
    fn new(
        index: usize,
        bodies: &'a [Body],
        functions: &'a [Function],
        limits: Limits,
    ) -> Option<Callee<'a>> {
        let func = functions.get(index)?;
        let body = bodies.get(index)?;
        if func.list_params != 0 {
            return None;
        }
        let size = body.instrs().count();
        if size > limits.max_callee {
            return None;
        }
        if !returns_balanced(body, functions) {
            return None;
        }
        let positioned = positioned(body)?;
        let calls = body
            .instrs()
            .any(|i| matches!(i.op(), Opcode::Call | Opcode::EnterF));
        let mut readonly = vec![true; func.value_params as usize];
        for ins in body.instrs() {
            for s in ins.instr.slots_written() {
                if let Some(r) = readonly.get_mut(s as usize) {
                    *r = false;
                }
            }
        }
        Some(Callee {
            func,
            body,
            size,
            calls,
            readonly,
            positioned,
        })
    }

    /// Appends the inlined body in place of `call` (whose arguments are the
    /// last values pushed in `out`); returns the instructions added.
    fn expand(
        &self,
        call: Ins,
        out: &mut Vec<Item>,
        caller: &mut Body,
        func: &mut Function,
        names: &mut HashSet<String>,
    ) -> usize {
        let arity = self.func.value_params as usize;
        let at = |op: Opcode, operands: &[u32]| Item::Ins(call.with(op, operands));
        // Parameters whose argument is a plain load of a caller slot, from
        // the top of the stack down, read that slot directly.
        let mut map: Vec<Option<u32>> = vec![None; self.func.frame_slots() as usize];
        let mut bound = arity;
        while bound > 0 && self.readonly[bound - 1] {
            match out.last() {
                Some(Item::Ins(load)) if load.op() == Opcode::Ldl => {
                    map[bound - 1] = Some(load.arg(0));
                    out.pop();
                    bound -= 1;
                }
                _ => break,
            }
        }
        let mut added = 0;
        if self.calls {
            out.push(at(Opcode::EnterF, &[]));
        } else {
            out.push(at(Opcode::Enter, &[1]));
        }
        added += 1;
        for slot in map.iter_mut().filter(|m| m.is_none()) {
            *slot = Some(new_local(func, names, &self.func.name));
        }
        // The remaining arguments, top of the stack first.
        for p in (0..bound).rev() {
            out.push(at(Opcode::Stl, &[map[p].unwrap_or(0)]));
            added += 1;
        }
        for slot in &map[arity..] {
            out.push(at(Opcode::Push, &[0]));
            out.push(at(Opcode::Stl, &[slot.unwrap_or(0)]));
            added += 2;
        }
        let base: Label = caller.labels;
        caller.labels += self.body.labels;
        let cont = caller.new_label();
        for item in &self.body.items {
            match *item {
                Item::Label(l) => out.push(Item::Label(base + l)),
                Item::Ins(ins) => {
                    if let Some(Returned::Slot(s)) = returned(&ins) {
                        // The local's value is the result left on the stack.
                        let s = map.get(s as usize).copied().flatten();
                        out.push(Item::Ins(ins.with(Opcode::Ldl, &[s.unwrap_or(0)])));
                        added += 1;
                    }
                    added += 1;
                    out.push(Item::Ins(self.remap(ins, &map, base, cont)));
                }
            }
        }
        out.push(Item::Label(cont));
        if self.calls {
            out.push(at(Opcode::Leave, &[]));
            added += 1;
        }
        added
    }

    /// One callee instruction as it runs inside the caller.
    fn remap(&self, ins: Ins, map: &[Option<u32>], base: Label, cont: Label) -> Ins {
        if matches!(ins.op().info().flow, Flow::Return | Flow::ReturnValue) {
            return ins.with(Opcode::Jmp, &[cont]);
        }
        if ins.op() == Opcode::Enter && !self.calls {
            return ins.with(Opcode::Enter, &[ins.arg(0).saturating_add(1)]);
        }
        let mut out = ins;
        let kinds = ins.op().info().operands;
        for (k, kind) in kinds.iter().enumerate() {
            if kind.is_slot() {
                let s = ins.instr.operands[k] as usize;
                out.instr.operands[k] = map.get(s).copied().flatten().unwrap_or(0);
            }
        }
        if let Some(k) = target_index(ins.op()) {
            out.instr.operands[k] += base;
        }
        out
    }
}

/// Adds an int local to `func` (named after the callee when the caller's
/// slots have names) and returns its slot.
fn new_local(func: &mut Function, names: &mut HashSet<String>, callee: &str) -> u32 {
    let slot = func.frame_slots();
    func.locals += 1;
    if !func.slot_names.is_empty() {
        let mut n = slot;
        let name = loop {
            let mut candidate = format!("{callee}.{n}");
            if !is_valid_name(&candidate) {
                candidate = format!("$inl.{n}");
            }
            if !names.contains(&candidate) {
                break candidate;
            }
            n += 1;
        };
        names.insert(name.clone());
        func.slot_names.push(name);
    }
    slot
}

/// Whether all instructions of a body have source positions (`Some(true)`),
/// none has (`Some(false)`), or some have (`None`).
fn positioned(body: &Body) -> Option<bool> {
    let mut instrs = body.instrs();
    let first = instrs.next().is_none_or(|i| i.pos.is_some());
    instrs.all(|i| i.pos.is_some() == first).then_some(first)
}

/// Where a returning instruction leaves its result, as its table row says.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Returned {
    /// Not a return.
    NotReturn,
    /// On the operand stack, where a call leaves it: the values the
    /// instruction pops (none for a procedure's `ret`, the result for
    /// `retv`).
    Stack(usize),
    /// In this frame slot, the instruction's only operand (`retv.l`).
    Slot(u32),
}

/// How `ins` returns, or `None` for a return whose row fits neither shape
/// (a function holding one is not inlined: see [`returns_balanced`]).
fn returned(ins: &Ins) -> Option<Returned> {
    let info = ins.op().info();
    match (info.flow, info.effect) {
        (Flow::Return | Flow::ReturnValue, Effect::Fixed(pops, _)) => {
            match (info.flow, pops.len(), info.operands) {
                (Flow::ReturnValue, 0, [OperandKind::IntLocal]) => Some(Returned::Slot(ins.arg(0))),
                (_, n, []) if n == usize::from(info.flow == Flow::ReturnValue) => {
                    Some(Returned::Stack(n))
                }
                _ => None,
            }
        }
        (Flow::Return | Flow::ReturnValue, _) => None,
        (Flow::Next | Flow::Jump | Flow::Branch | Flow::Halt, _) => Some(Returned::NotReturn),
    }
}

/// Whether every `ret` of the body leaves its stack empty and every `retv`
/// leaves exactly the result: then a return is a jump to after the inlined
/// body with the caller's stack as the call would leave it. Also false when
/// the body's stack cannot be followed (it always can in verified code).
fn returns_balanced(body: &Body, functions: &[Function]) -> bool {
    let Some(depths) = stack_depths(body, functions) else {
        return false;
    };
    body.items
        .iter()
        .zip(&depths)
        .all(|(item, d)| match (item, d) {
            (Item::Ins(i), Some(d)) => match returned(i) {
                Some(Returned::Stack(n)) => *d as usize == n,
                Some(Returned::Slot(_)) => *d == 0,
                Some(Returned::NotReturn) => true,
                None => false,
            },
            _ => true,
        })
}

/// The operand-stack depth before each item of a body (`None` where no
/// path arrives), or `None` when the stack underflows or two paths meet
/// with different depths.
fn stack_depths(body: &Body, functions: &[Function]) -> Option<Vec<Option<u32>>> {
    let labels: HashMap<Label, usize> = body
        .items
        .iter()
        .enumerate()
        .filter_map(|(i, it)| match it {
            Item::Label(l) => Some((*l, i)),
            Item::Ins(_) => None,
        })
        .collect();
    let mut depth: Vec<Option<u32>> = vec![None; body.items.len()];
    let mut work = vec![(0usize, 0u32)];
    while let Some((i, d)) = work.pop() {
        let Some(item) = body.items.get(i) else {
            // Running off the end: not verified code.
            return None;
        };
        match depth[i] {
            Some(e) if e == d => continue,
            Some(_) => return None,
            None => depth[i] = Some(d),
        }
        let ins = match item {
            Item::Label(_) => {
                work.push((i + 1, d));
                continue;
            }
            Item::Ins(ins) => ins,
        };
        let info = ins.op().info();
        let (fall, jump): (i64, i64) = match info.effect {
            Effect::Fixed(pops, pushes) => {
                let e = pushes.len() as i64 - pops.len() as i64;
                if (d as usize) < pops.len() {
                    return None;
                }
                (e, e)
            }
            Effect::LoadLocal | Effect::DupAny => (1, 1),
            Effect::PopAny => (-1, -1),
            Effect::SwapAny => (0, 0),
            Effect::Call => {
                let f = functions.get(ins.arg(0) as usize)?;
                let e = i64::from(f.returns_value) - i64::from(f.arity());
                (e, e)
            }
            Effect::Intrinsic => {
                let x = INTRINSICS.get(ins.arg(0) as usize)?;
                let e = i64::from(x.returns) - x.params.len() as i64;
                (e, e)
            }
            Effect::Case => (0, -1),
            Effect::ForStep => (1, 0),
            Effect::ForStepBack => (0, 1),
            Effect::PatternMask => {
                let x = INTRINSICS.get(ins.arg(0) as usize)?;
                let e = 2 - x.params.len() as i64;
                (e, e)
            }
        };
        let after = |e: i64| u32::try_from(i64::from(d) + e).ok();
        let target = || ins.target().and_then(|l| labels.get(&l).copied());
        match info.flow {
            Flow::Next => work.push((i + 1, after(fall)?)),
            Flow::Jump => work.push((target()?, after(jump)?)),
            Flow::Branch => {
                work.push((i + 1, after(fall)?));
                work.push((target()?, after(jump)?));
            }
            Flow::Return | Flow::ReturnValue | Flow::Halt => {}
        }
    }
    Some(depth)
}
