//! Counted loops: a second, check-free copy of an innermost loop whose trip
//! count can be bounded when the loop is entered.
//!
//! Every iteration of a CVM loop pays for checks the semantics require: a
//! fuel test at each charged jump and `enter`, a bounds check at each list
//! access, a depth test at each `enter`. For many loops all of them can be
//! decided once, at the loop's entry: when an induction variable (a slot
//! changed once per iteration by a constant or loop-invariant step) is
//! compared against a loop-invariant bound on every iteration, the number
//! of iterations has an upper bound that is known before the first one,
//! and with it the fuel the whole loop can use, and the range of every
//! list index that is the induction variable plus a constant.
//!
//! [`counted_loops`] finds such loops and what can be proven about them;
//! the lowering ([`crate::lower`]) emits the loop twice. The ordinary copy
//! has every check. The fast copy charges fuel by plain subtraction (so
//! the fuel left is exact at every point, errors and exits included), skips
//! the depth tests of `enter`/`enter.f`, and skips the bounds checks of the
//! accesses listed in [`CountedLoop::accesses`]. A guard block ([`guard`])
//! on the edges into the loop computes the bound and takes the fast copy
//! only when
//!
//! * the fuel left covers the bound on iterations times the most fuel one
//!   iteration can charge (so no charge in the loop can fail),
//! * no induction variable wraps around (so the affine model of its values
//!   is exact),
//! * every proven access stays inside its list for every iteration that can
//!   reach it, and
//! * the depth left covers every `enter` and `enter.f` in the loop,
//!
//! and otherwise the ordinary copy, which raises any error at the same CVM
//! offset with the same fuel used as the interpreter. Everything the guard
//! proves only needs an upper bound on the iterations, so loops that leave
//! early (a `break`, an error) are covered too.
//!
//! # Conditions (checked at compile time)
//!
//! * The loop is a natural loop (one header that dominates its body), its
//!   body without the edges back to the header is acyclic (so it is
//!   innermost and every body instruction runs at most once an iteration),
//!   it has at most [`MAX_BODY`] instructions and makes no `call`.
//! * An induction variable is a slot written by exactly one instruction of
//!   the body, which runs on every path to the back edges: `incl`, `decl`,
//!   `inc.jlt.li`, the cursor of a for-in step, or `stl`/`tee` of the slot
//!   plus a constant or plus a slot the loop does not write.
//! * The governing test is a conditional branch that runs on every path to
//!   the back edges, leaves the loop on one edge, and compares an induction
//!   variable (plus a constant) with `<`, `<=`, `>` or `>=` against a
//!   constant, a slot the loop does not write, or a list's slot count (the
//!   for-in steps), as a fused compare-and-branch or as a comparison tested
//!   by `jz`/`jnz`. The step must move towards the bound: a constant step
//!   of the right sign, or a slot step whose sign the guard checks.
//! * Accesses `lde`, `ste`, `ldx`, `stx` and their `.l` forms are proven
//!   when their index is an induction variable (or a slot the loop does not
//!   write) plus a constant, or a constant into a list parameter, and their
//!   list is a module list or a list parameter.
//! * The `enter`/`enter.f`/`leave` nesting is the same on every path
//!   through the body and back at the header's level on every back edge.

use crate::lower::Lower;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, Value};
use cvm::intrinsics::{cost_bound, cost_folded, cost_folded_bound, Arg, INTRINSICS};
use cvm::isa::{Compare, Effect, Flow, Form, Instr, Opcode, OperandKind, Raises, Rel};
use cvm::module::Function;
use cvm::verify::FunctionInfo;
use cvm::Memory;
use std::collections::HashMap;

/// Loops with more body instructions than this are not copied.
pub(crate) const MAX_BODY: usize = 256;

/// Loops that can charge more fuel than this in one iteration are not
/// copied (it keeps the guard's products far from overflow).
const MAX_FUEL_PER_ITERATION: u64 = 1 << 20;

/// A list an access addresses.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum ListRef {
    /// A module list, by index.
    Module(u32),
    /// The list a list parameter (this frame slot) refers to.
    Param(u32),
}

/// How an induction variable changes once per iteration.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// By a constant (0 for a slot the loop does not write).
    Const(i32),
    /// By the value of a slot the loop does not write.
    Slot(u32),
}

/// An induction variable: a frame slot whose value at the start of
/// iteration `k` is its value at the loop's entry plus `k` steps.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Iv {
    /// The frame slot.
    pub slot: u32,
    /// Its change per iteration.
    pub step: Step,
}

/// Whether a loop continuing while `value rel bound` holds continues while
/// the value is below the bound (`<`, `<=`). Only orderings
/// ([`Rel::is_order`]) govern loops.
fn increasing(rel: Rel) -> bool {
    matches!(rel, Rel::Lt | Rel::Le)
}

/// The comparison of a comparison-family opcode, when its relation is an
/// ordering (`<`, `<=`, `>`, `>=`): from the instruction table.
fn order_of(op: Opcode) -> Option<Compare> {
    op.compare().filter(|c| c.rel.is_order())
}

/// A loop-invariant bound.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Bound {
    /// A constant.
    Imm(i32),
    /// A slot the loop does not write, plus a constant (wrapping).
    Slot {
        /// The slot.
        slot: u32,
        /// The constant.
        off: i32,
    },
    /// The slot count of a list (for-in steps).
    Slots(ListRef),
}

/// The governing test: the loop continues only while
/// `iv + (post ? step : 0) + off  cmp  bound` holds, checked once every
/// iteration.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Test {
    /// Index into [`CountedLoop::ivs`].
    pub iv: usize,
    /// Whether the value tested is the one after this iteration's step.
    pub post: bool,
    /// A constant added to the induction variable.
    pub off: i32,
    /// How the value compares with the bound to continue (an ordering).
    pub cmp: Rel,
    /// The bound.
    pub bound: Bound,
    /// A for-in cursor, stepping by 1. The step continues only while
    /// `0 <= cursor < slots` (it compares unsigned), so the signed
    /// `cursor < slots` is a bound too: a cursor that starts negative ends
    /// the loop at once, within the bound.
    pub cursor: bool,
}

/// The index of a proven access.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Index {
    /// A constant.
    Const(i32),
    /// `iv + (post ? step : 0) + off` in the iteration making the access.
    Iv {
        /// Index into [`CountedLoop::ivs`].
        iv: usize,
        /// Whether the value was read after this iteration's step.
        post: bool,
        /// The constant added (wrapping).
        off: i32,
    },
}

/// A list access whose bounds check the guard proves for the whole loop.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Access {
    /// CVM offset of the access.
    pub offset: u32,
    /// The list.
    pub list: ListRef,
    /// The index.
    pub index: Index,
    /// Whether the access can run in the last, partial iteration (it comes
    /// before the governing test), as well as in the full ones.
    pub before_test: bool,
}

/// An innermost loop with a fast copy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CountedLoop {
    /// CVM offset of the header, the only instruction entered from outside.
    pub header: u32,
    /// CVM offsets of the body's instructions (the header included), sorted.
    pub body: Vec<u32>,
    /// The induction variables the test and the accesses use.
    pub ivs: Vec<Iv>,
    /// The governing test.
    pub test: Test,
    /// The accesses the guard proves.
    pub accesses: Vec<Access>,
    /// The most fuel one iteration can charge.
    pub fuel_per_iteration: u64,
    /// Whether every edge back to the header is the taken edge of a
    /// charged conditional branch (a compare-and-branch whose target is the
    /// header, at or before it), so that the fast copy may charge them at
    /// the top of the header and branch straight back.
    pub back_edges_charged: bool,
    /// For each `enter.f` nesting level `o` (relative to the header) at
    /// which the body makes depth tests, the largest `k` tested there: the
    /// fast copy needs `depth_left - o > k` (unsigned) for each.
    pub depth: Vec<(i32, u32)>,
}

impl CountedLoop {
    /// Whether the instruction at `offset` belongs to the loop.
    pub fn contains(&self, offset: u32) -> bool {
        self.body.binary_search(&offset).is_ok()
    }
}

/// What the analysis knows about an operand-stack value.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum AVal {
    Unknown,
    Const(i32),
    List(ListRef),
    /// The value a slot had (at the start of the iteration, or after its
    /// step when `post`), plus `off` (wrapping), plus the value of the
    /// slot `plus` if any.
    Lin {
        slot: u32,
        post: bool,
        off: i32,
        plus: Option<u32>,
    },
    /// The 0/1 result of comparing an induction variable's value (as in
    /// `Lin`, without `plus`) with a loop-invariant bound (an ordering).
    Cond {
        slot: u32,
        post: bool,
        off: i32,
        cmp: Rel,
        bound: Bound,
    },
}

/// `a cmp b` as a comparison of a variable slot's value (slot, post, off)
/// with a loop-invariant bound, when it is one (either way round).
fn compare(
    a: AVal,
    b: AVal,
    cmp: Rel,
    invariant: &dyn Fn(u32) -> bool,
) -> Option<(u32, bool, i32, Rel, Bound)> {
    let bound = |x: AVal| match x {
        AVal::Const(k) => Some(Bound::Imm(k)),
        AVal::Lin {
            slot,
            off,
            plus: None,
            ..
        } if invariant(slot) => Some(Bound::Slot { slot, off }),
        _ => None,
    };
    let var = |x: AVal| match x {
        AVal::Lin {
            slot,
            post,
            off,
            plus: None,
        } if !invariant(slot) => Some((slot, post, off)),
        _ => None,
    };
    match (var(a), bound(b), var(b), bound(a)) {
        (Some((slot, post, off)), Some(bd), _, _) => Some((slot, post, off, cmp, bd)),
        (_, _, Some((slot, post, off)), Some(bd)) => Some((slot, post, off, cmp.swap(), bd)),
        _ => None,
    }
}

/// The control-flow graph of a function's reachable instructions, by
/// position in [`FunctionInfo::instrs`].
struct Cfg {
    succ: Vec<Vec<usize>>,
    pred: Vec<Vec<usize>>,
    reachable: Vec<bool>,
    /// Position by code offset.
    at: HashMap<u32, usize>,
    /// Jump targets and instructions after a branch or terminator: where
    /// the lowering starts blocks.
    leader: Vec<bool>,
}

fn cfg(info: &FunctionInfo) -> Cfg {
    let n = info.instrs.len();
    let at: HashMap<u32, usize> = info
        .instrs
        .iter()
        .enumerate()
        .map(|(k, i)| (i.offset, k))
        .collect();
    let mut succ = vec![Vec::new(); n];
    let mut pred = vec![Vec::new(); n];
    let reachable: Vec<bool> = info.instrs.iter().map(|i| i.depth.is_some()).collect();
    let mut leader = vec![false; n];
    for (k, i) in info.instrs.iter().enumerate() {
        if !reachable[k] {
            continue;
        }
        let flow = i.instr.opcode.info().flow;
        if flow != Flow::Next && k + 1 < n {
            leader[k + 1] = true;
        }
        let mut to = Vec::new();
        if let Some(&t) = i.instr.target().and_then(|t| at.get(&t)) {
            leader[t] = true;
            to.push(t);
        }
        if matches!(flow, Flow::Next | Flow::Branch) && k + 1 < n {
            to.push(k + 1);
        }
        to.retain(|&t| reachable[t]);
        to.dedup();
        for &t in &to {
            pred[t].push(k);
        }
        succ[k] = to;
    }
    Cfg {
        succ,
        pred,
        reachable,
        at,
        leader,
    }
}

/// Immediate dominators (Cooper, Harvey and Kennedy's iterative scheme) of
/// the graph rooted at instruction 0; `None` for unreachable instructions.
fn dominators(g: &Cfg) -> Vec<Option<usize>> {
    let n = g.succ.len();
    let mut idom = vec![None; n];
    if n == 0 || !g.reachable[0] {
        return idom;
    }
    // Reverse post-order by an iterative depth-first search.
    let mut order = Vec::with_capacity(n);
    let mut seen = vec![false; n];
    let mut stack = vec![(0usize, 0usize)];
    seen[0] = true;
    while let Some(top) = stack.last_mut() {
        let (v, k) = *top;
        if let Some(&w) = g.succ[v].get(k) {
            top.1 += 1;
            if !seen[w] {
                seen[w] = true;
                stack.push((w, 0));
            }
        } else {
            order.push(v);
            stack.pop();
        }
    }
    order.reverse();
    let mut rank = vec![usize::MAX; n];
    for (r, &v) in order.iter().enumerate() {
        rank[v] = r;
    }
    idom[0] = Some(0);
    let mut changed = true;
    while changed {
        changed = false;
        for &v in order.iter().skip(1) {
            let mut new: Option<usize> = None;
            for &p in &g.pred[v] {
                if idom[p].is_none() {
                    continue;
                }
                new = Some(match new {
                    None => p,
                    Some(mut a) => {
                        let mut b = p;
                        while a != b {
                            while rank[a] > rank[b] {
                                a = idom[a].unwrap_or(0);
                            }
                            while rank[b] > rank[a] {
                                b = idom[b].unwrap_or(0);
                            }
                        }
                        a
                    }
                });
            }
            if new.is_some() && idom[v] != new {
                idom[v] = new;
                changed = true;
            }
        }
    }
    idom
}

/// Whether `a` dominates `b`.
fn dominates(idom: &[Option<usize>], a: usize, mut b: usize) -> bool {
    loop {
        if a == b {
            return true;
        }
        match idom[b] {
            Some(p) if p != b => b = p,
            _ => return false,
        }
    }
}

/// The module's lists as the loop analysis sees them.
#[derive(Copy, Clone)]
pub(crate) struct Lists<'a> {
    /// The initial memory: every list's slot count, and the contents of
    /// the constant ones.
    pub initial: &'a Memory,
    /// Which lists never change ([`crate::analysis`]).
    pub constant: &'a [bool],
}

impl Lists<'_> {
    /// An intrinsic's list argument `l` as known before run time.
    fn arg(&self, l: u32) -> Arg<'_> {
        match self.initial.lists.get(l as usize) {
            Some(_) if self.constant.get(l as usize) == Some(&true) => {
                Arg::List(self.initial.list(l))
            }
            Some(s) => Arg::Slots(s.slots),
            None => Arg::Unknown,
        }
    }
}

/// The most fuel an intrinsic call (`intr`, `pat.all`, `pat.any`) with
/// these abstract arguments (top of the stack last) can charge: the
/// intrinsic table's cost, over every value an unknown argument can
/// have; `None` when it has no bound (a list known by no more than being
/// a list parameter), which makes the loop ineligible.
fn intrinsic_charge(instr: &Instr, args: &[AVal], lists: Lists<'_>) -> Option<u64> {
    let ops = instr.operands;
    match instr.opcode {
        Opcode::Intr => {
            let known: Vec<Arg<'_>> = args
                .iter()
                .map(|a| match *a {
                    AVal::Const(k) => Arg::Int(k),
                    AVal::List(ListRef::Module(l)) => lists.arg(l),
                    _ => Arg::Unknown,
                })
                .collect();
            cost_bound(ops[0], &known)
        }
        _ => {
            let mask = u64::from(ops[1]) | u64::from(ops[2]) << 32;
            Some(match args.last() {
                Some(AVal::Const(k)) => cost_folded(ops[0], *k, mask),
                _ => cost_folded_bound(ops[0], mask),
            })
        }
    }
}

/// The counted loops of one function, in the order of their headers.
pub(crate) fn counted_loops(
    f: &Function,
    info: &FunctionInfo,
    lists: Lists<'_>,
) -> Vec<CountedLoop> {
    let g = cfg(info);
    let idom = dominators(&g);
    // Back edges, grouped by header.
    let mut latches: HashMap<usize, Vec<usize>> = HashMap::new();
    for (u, succ) in g.succ.iter().enumerate() {
        for &h in succ {
            if idom[u].is_some() && dominates(&idom, h, u) {
                latches.entry(h).or_default().push(u);
            }
        }
    }
    let mut headers: Vec<usize> = latches.keys().copied().collect();
    headers.sort_unstable();
    headers
        .into_iter()
        .filter_map(|h| analyze_loop(f, info, lists, &g, &idom, h, &latches[&h]))
        .collect()
}

/// The analysis of the natural loop with header `h` and back edges from
/// `latches`, or `None` when it gets no fast copy.
fn analyze_loop(
    f: &Function,
    info: &FunctionInfo,
    lists: Lists<'_>,
    g: &Cfg,
    idom: &[Option<usize>],
    h: usize,
    latches: &[usize],
) -> Option<CountedLoop> {
    let n = info.instrs.len();
    // The body: the header and everything that reaches a latch without
    // passing through the header.
    let mut in_body = vec![false; n];
    in_body[h] = true;
    let mut work: Vec<usize> = latches.to_vec();
    let mut size = 1;
    while let Some(v) = work.pop() {
        if in_body[v] {
            continue;
        }
        in_body[v] = true;
        size += 1;
        if size > MAX_BODY {
            return None;
        }
        work.extend(g.pred[v].iter().copied());
    }
    let body: Vec<usize> = (0..n).filter(|&v| in_body[v]).collect();
    // A natural loop: nothing but the header is entered from outside.
    for &v in &body {
        if v != h && g.pred[v].iter().any(|&p| !in_body[p]) {
            return None;
        }
        let op = info.instrs[v].instr.opcode;
        if op == Opcode::Call {
            return None;
        }
    }
    // The body graph: body edges other than those into the header.
    let inner = |v: usize| g.succ[v].iter().copied().filter(|&w| in_body[w] && w != h);
    // Acyclic (so innermost): a topological order from the header.
    let mut indegree = vec![0usize; n];
    for &v in &body {
        for w in inner(v) {
            indegree[w] += 1;
        }
    }
    let mut topo = Vec::with_capacity(body.len());
    let mut ready = vec![h];
    while let Some(v) = ready.pop() {
        topo.push(v);
        for w in inner(v) {
            indegree[w] -= 1;
            if indegree[w] == 0 {
                ready.push(w);
            }
        }
    }
    if topo.len() != body.len() {
        return None;
    }
    // Nodes reachable from `v`'s successors within one iteration.
    let after = |v: usize| -> Vec<bool> {
        let mut seen = vec![false; n];
        let mut work: Vec<usize> = inner(v).collect();
        while let Some(w) = work.pop() {
            if !seen[w] {
                seen[w] = true;
                work.extend(inner(w));
            }
        }
        seen
    };
    let dominates_latches = |v: usize| latches.iter().all(|&l| dominates(idom, v, l));

    // Enter.f nesting relative to the header, and the depth tests.
    let mut open: Vec<Option<i32>> = vec![None; n];
    open[h] = Some(0);
    let mut depth: Vec<(i32, u32)> = Vec::new();
    let mut fuel: u64 = 0;
    for &v in &topo {
        let i = &info.instrs[v];
        let o = open[v]?;
        let ops = i.instr.operands;
        let out = match i.instr.opcode {
            Opcode::EnterF => o + 1,
            Opcode::Leave => o - 1,
            _ => o,
        };
        let test = match i.instr.opcode {
            Opcode::Enter => Some(ops[0]),
            Opcode::EnterF => Some(1),
            _ => None,
        };
        if let Some(k) = test {
            match depth.iter_mut().find(|(lvl, _)| *lvl == o) {
                Some(e) => e.1 = e.1.max(k),
                None => depth.push((o, k)),
            }
        }
        fuel = fuel.saturating_add(charge(i.offset, &i.instr));
        for &w in &g.succ[v] {
            if w == h {
                if out != 0 {
                    return None;
                }
            } else if in_body[w] {
                match open[w] {
                    None => open[w] = Some(out),
                    Some(x) if x == out => {}
                    Some(_) => return None,
                }
            }
        }
    }
    // Slot writers.
    let mut writers: HashMap<u32, Vec<usize>> = HashMap::new();
    for &v in &body {
        for s in info.instrs[v].instr.slots_written() {
            writers.entry(s).or_default().push(v);
        }
    }
    let invariant = |s: u32| !writers.contains_key(&s);
    // Candidates: one writer that runs on every path to the back edges.
    let mut candidate: HashMap<u32, (usize, Vec<bool>)> = HashMap::new();
    for (&s, ws) in &writers {
        if let [w] = ws[..] {
            let for_step = is_for_step(info.instrs[w].instr.opcode);
            // A for-in step writes its cursor only when it continues: its
            // other edge must leave the loop.
            let leaves = !for_step || g.succ[w].iter().filter(|&&x| in_body[x]).count() == 1;
            if leaves && dominates_latches(w) {
                candidate.insert(s, (w, after(w)));
            }
        }
    }
    let post = |s: u32, v: usize| candidate.get(&s).is_some_and(|(_, a)| a[v]);
    let is_list = |s: u32| s >= f.value_params && s < f.arity();

    // Abstract interpretation, block by block (the stack is unknown at
    // every jump target and after every branch).
    let mut steps: HashMap<u32, Step> = HashMap::new();
    let mut tests: Vec<(usize, u32, Test)> = Vec::new();
    let mut raw_accesses: Vec<(usize, ListRef, AVal)> = Vec::new();
    let mut stack: Vec<AVal> = Vec::new();
    for &v in &body {
        let i = &info.instrs[v];
        let d = i.depth? as usize;
        if g.leader[v] || v == h || v == 0 || !in_body[v - 1] || stack.len() != d {
            stack = vec![AVal::Unknown; d];
        }
        let instr = i.instr;
        let ops = instr.operands;
        let imm = ops[0] as i32;
        let lin = |s: u32, off: i32| {
            if is_list(s) {
                AVal::List(ListRef::Param(s))
            } else {
                AVal::Lin {
                    slot: s,
                    post: post(s, v),
                    off,
                    plus: None,
                }
            }
        };
        let top = |stack: &Vec<AVal>, k: usize| -> AVal {
            stack
                .len()
                .checked_sub(k + 1)
                .map_or(AVal::Unknown, |x| stack[x])
        };
        // Writers of candidate slots: is the value written the slot plus
        // a step? Only the writers recognised here make one; any other
        // writer (a new instruction, say) leaves the slot without a step,
        // so it is no induction variable.
        for s in instr.slots_written() {
            if candidate.get(&s).is_some_and(|(w, _)| *w == v) {
                let form = instr.opcode.compare().map(|c| c.form);
                let step = if instr.opcode == Opcode::Incl
                    || form == Some(Form::IncBranchLocalImm)
                    || is_for_step(instr.opcode)
                {
                    Some(Step::Const(1))
                } else if instr.opcode == Opcode::Decl {
                    Some(Step::Const(-1))
                } else if matches!(instr.opcode, Opcode::Stl | Opcode::Tee) {
                    // The value stored is the top of the stack.
                    match top(&stack, 0) {
                        AVal::Lin {
                            slot,
                            post: false,
                            off,
                            plus: None,
                        } if slot == s => Some(Step::Const(off)),
                        AVal::Lin {
                            slot,
                            post: false,
                            off: 0,
                            plus: Some(t),
                        } if slot == s && invariant(t) && t != s => Some(Step::Slot(t)),
                        _ => None,
                    }
                } else {
                    None
                };
                if let Some(step) = step {
                    steps.insert(s, step);
                }
            }
        }
        // Tests: (slot, value after the step, constant added, comparison
        // under which the loop continues, bound, for-in cursor).
        let in_succ = g.succ[v].iter().filter(|&&w| in_body[w]).count();
        if g.succ[v].len() == 2 && in_succ == 1 && dominates_latches(v) {
            let taken_continues = instr
                .target()
                .and_then(|t| g.at.get(&t))
                .is_some_and(|&t| in_body[t]);
            let orient = |c: Rel| if taken_continues { c } else { c.negate() };
            let info = instr.opcode.info();
            let found: Option<(u32, bool, i32, Rel, Bound, bool)> =
                match info.compare {
                    // Compare-and-branch forms, from the instruction table.
                    Some(c) => {
                        let order = c.rel.is_order();
                        match c.form {
                            Form::BranchLocalImm => order.then(|| {
                                let bound = Bound::Imm(ops[1] as i32);
                                (ops[0], post(ops[0], v), 0, orient(c.rel), bound, false)
                            }),
                            // The local is tested after its increment.
                            Form::IncBranchLocalImm => order.then(|| {
                                let bound = Bound::Imm(ops[1] as i32);
                                (ops[0], true, 0, orient(c.rel), bound, false)
                            }),
                            Form::BranchImm => match top(&stack, 0) {
                                AVal::Lin {
                                    slot,
                                    post,
                                    off,
                                    plus: None,
                                } if order => {
                                    Some((slot, post, off, orient(c.rel), Bound::Imm(imm), false))
                                }
                                _ => None,
                            },
                            Form::Branch => {
                                let (a, b) = (top(&stack, 1), top(&stack, 0));
                                compare(a, b, c.rel, &invariant).filter(|_| order).map(
                                    |(slot, post, off, r, bd)| {
                                        (slot, post, off, orient(r), bd, false)
                                    },
                                )
                            }
                            // A comparison's result tested against zero (the
                            // form of unoptimized code).
                            Form::BranchZero => match (top(&stack, 0), c.rel.on_truth()) {
                                (
                                    AVal::Cond {
                                        slot,
                                        post,
                                        off,
                                        cmp,
                                        bound,
                                    },
                                    Some(on_true),
                                ) => {
                                    let r = if on_true { cmp } else { cmp.negate() };
                                    Some((slot, post, off, orient(r), bound, false))
                                }
                                _ => None,
                            },
                            Form::Value => None,
                        }
                    }
                    // A for-in step continues (falls through for forl/forx,
                    // jumps for the inverted forms) only while its cursor is
                    // below the list's slot count, unsigned; the step is the
                    // cursor's writer and tests the value before it.
                    None if is_for_step(instr.opcode) => {
                        let inverted = info.effect == Effect::ForStepBack;
                        let list = match info.operands.first() {
                            Some(OperandKind::List) => Some(ListRef::Module(ops[0])),
                            Some(OperandKind::ListLocal) => Some(ListRef::Param(ops[0])),
                            _ => None,
                        };
                        let cursor = instr.slots_written().next();
                        match (list, cursor) {
                            (Some(list), Some(cursor)) => (taken_continues == inverted)
                                .then_some((cursor, false, 0, Rel::Lt, Bound::Slots(list), true)),
                            _ => None,
                        }
                    }
                    None => None,
                };
            if let Some((slot, post, off, cmp, bound, cursor)) = found {
                tests.push((
                    v,
                    slot,
                    Test {
                        iv: 0,
                        post,
                        off,
                        cmp,
                        bound,
                        cursor,
                    },
                ));
            }
        }
        // Accesses.
        let access = match instr.opcode {
            Opcode::Lde => Some((ListRef::Module(ops[0]), top(&stack, 0))),
            Opcode::Ste => Some((ListRef::Module(ops[0]), top(&stack, 1))),
            Opcode::LdeL | Opcode::SteL => Some((ListRef::Module(ops[0]), lin(ops[1], 0))),
            Opcode::LdxL | Opcode::StxL => Some((ListRef::Param(ops[0]), lin(ops[1], 0))),
            Opcode::Ldx | Opcode::Stx => {
                let (r, x) = if instr.opcode == Opcode::Ldx {
                    (top(&stack, 1), top(&stack, 0))
                } else {
                    (top(&stack, 2), top(&stack, 1))
                };
                match r {
                    AVal::List(l) => Some((l, x)),
                    _ => None,
                }
            }
            _ => None,
        };
        if let Some((list, index)) = access {
            raw_accesses.push((v, list, index));
        }
        // Intrinsic calls charge what their work costs: the most it can
        // be, from what is known of the arguments here.
        if matches!(
            instr.opcode.info().effect,
            Effect::Intrinsic | Effect::PatternMask
        ) {
            let n = match instr.opcode {
                Opcode::Intr => INTRINSICS
                    .get(ops[0] as usize)
                    .map_or(0, |i| i.params.len()),
                _ => 1,
            };
            let args: Vec<AVal> = (0..n).rev().map(|k| top(&stack, k)).collect();
            fuel = fuel.saturating_add(intrinsic_charge(&instr, &args, lists)?);
        }
        transfer(&mut stack, &instr, d, lin, &invariant);
    }
    if fuel == 0 || fuel > MAX_FUEL_PER_ITERATION {
        return None;
    }

    // Confirmed induction variables: candidates whose writer adds a step.
    let mut ivs: Vec<Iv> = Vec::new();
    let iv_of = |s: u32, ivs: &mut Vec<Iv>| -> Option<usize> {
        let step = if invariant(s) {
            Step::Const(0)
        } else {
            *steps.get(&s)?
        };
        if let Some(k) = ivs.iter().position(|iv| iv.slot == s) {
            return Some(k);
        }
        ivs.push(Iv { slot: s, step });
        Some(ivs.len() - 1)
    };
    // The governing test: the first usable one.
    let mut governing: Option<(usize, Test)> = None;
    for (v, slot, t) in tests {
        if invariant(slot) {
            continue;
        }
        let Some(step) = steps.get(&slot).copied() else {
            continue;
        };
        let right_way = match step {
            Step::Const(c) => {
                if increasing(t.cmp) {
                    c > 0
                } else {
                    c < 0
                }
            }
            Step::Slot(_) => true,
        };
        if !right_way || !t.cmp.is_order() || (t.cursor && step != Step::Const(1)) {
            continue;
        }
        let Some(k) = iv_of(slot, &mut ivs) else {
            continue;
        };
        governing = Some((v, Test { iv: k, ..t }));
        break;
    }
    let (x, test) = governing?;
    let after_test = after(x);
    let mut accesses = Vec::new();
    for (v, list, index) in raw_accesses {
        let index = match (index, list) {
            // A constant index into a module list is checked at compile
            // time: only one in range may skip its check.
            (AVal::Const(k), ListRef::Module(l)) => {
                if lists
                    .initial
                    .lists
                    .get(l as usize)
                    .is_some_and(|s| (k as u32) < s.slots)
                {
                    Index::Const(k)
                } else {
                    continue;
                }
            }
            (AVal::Const(k), ListRef::Param(_)) if k >= 0 => Index::Const(k),
            (
                AVal::Lin {
                    slot,
                    post,
                    off,
                    plus: None,
                },
                _,
            ) => match iv_of(slot, &mut ivs) {
                Some(k) => Index::Iv { iv: k, post, off },
                None => continue,
            },
            _ => continue,
        };
        accesses.push(Access {
            offset: info.instrs[v].offset,
            list,
            index,
            before_test: !after_test[v],
        });
    }
    Some(CountedLoop {
        header: info.instrs[h].offset,
        body: body.iter().map(|&v| info.instrs[v].offset).collect(),
        ivs,
        test,
        accesses,
        fuel_per_iteration: fuel,
        back_edges_charged: latches.iter().all(|&l| {
            let i = &info.instrs[l];
            i.instr.target() == Some(info.instrs[h].offset)
                && i.offset >= info.instrs[h].offset
                && i.instr.opcode.info().flow == Flow::Branch
                && !is_for_step(i.instr.opcode)
        }),
        depth,
    })
}

/// Whether `op` is a for-in step (`forl`, `forx` and their inverted forms):
/// it writes its cursor only on the path that continues.
fn is_for_step(op: Opcode) -> bool {
    matches!(op.info().effect, Effect::ForStep | Effect::ForStepBack)
}

/// The most fuel the instruction at `offset` can charge, but for intrinsic
/// calls (whose charge depends on their arguments: [`intrinsic_charge`]).
/// An instruction the table says never charges charges nothing; a jump
/// charges when its target is at or before it; the others are named (a
/// test keeps this list in step with the table).
fn charge(offset: u32, instr: &Instr) -> u64 {
    if !instr.opcode.info().raises.contains(&Raises::Fuel) {
        return 0;
    }
    let jump_back = instr.target().is_some_and(|t| t <= offset);
    match instr.opcode {
        Opcode::Enter | Opcode::EnterF | Opcode::Call => 1,
        Opcode::Fuel => u64::from(instr.operands[0]),
        Opcode::Intr | Opcode::PatAll | Opcode::PatAny => 0,
        _ => u64::from(jump_back),
    }
}

/// The abstract effect of one instruction on the operand stack (for the
/// fall-through path; the stack is forgotten after branches anyway).
fn transfer(
    stack: &mut Vec<AVal>,
    instr: &Instr,
    d: usize,
    lin: impl Fn(u32, i32) -> AVal,
    invariant: &dyn Fn(u32) -> bool,
) {
    let ops = instr.operands;
    let imm = ops[0] as i32;
    let pop = |stack: &mut Vec<AVal>| stack.pop().unwrap_or(AVal::Unknown);
    // An ordering's 0/1 result (from the instruction table).
    if let Some(c) = order_of(instr.opcode).filter(|c| c.form == Form::Value) {
        let b = pop(stack);
        let a = pop(stack);
        stack.push(match compare(a, b, c.rel, invariant) {
            Some((slot, post, off, cmp, bound)) => AVal::Cond {
                slot,
                post,
                off,
                cmp,
                bound,
            },
            None => AVal::Unknown,
        });
        return;
    }
    match instr.opcode {
        Opcode::Push => stack.push(AVal::Const(imm)),
        Opcode::Lref => stack.push(AVal::List(ListRef::Module(ops[0]))),
        Opcode::Ldl => stack.push(lin(ops[0], 0)),
        Opcode::LdlAddI => stack.push(match lin(ops[0], 0) {
            AVal::Lin {
                slot, post, plus, ..
            } => AVal::Lin {
                slot,
                post,
                off: ops[1] as i32,
                plus,
            },
            _ => AVal::Unknown,
        }),
        Opcode::Ldl2 => {
            stack.push(lin(ops[0], 0));
            stack.push(lin(ops[1], 0));
        }
        Opcode::Dup => {
            let a = stack.last().copied().unwrap_or(AVal::Unknown);
            stack.push(a);
        }
        Opcode::Swap => {
            let n = stack.len();
            if n >= 2 {
                stack.swap(n - 1, n - 2);
            }
        }
        Opcode::AddI => {
            let a = pop(stack);
            stack.push(add_const(a, imm));
        }
        Opcode::Add | Opcode::Sub => {
            let b = pop(stack);
            let a = pop(stack);
            let sub = instr.opcode == Opcode::Sub;
            stack.push(match (a, b) {
                (AVal::Const(x), AVal::Const(y)) => AVal::Const(if sub {
                    x.wrapping_sub(y)
                } else {
                    x.wrapping_add(y)
                }),
                (l @ AVal::Lin { .. }, AVal::Const(y)) => {
                    add_const(l, if sub { y.wrapping_neg() } else { y })
                }
                (AVal::Const(x), l @ AVal::Lin { .. }) if !sub => add_const(l, x),
                (l @ AVal::Lin { .. }, r @ AVal::Lin { .. }) if !sub => plus_slot(l, r, invariant),
                _ => AVal::Unknown,
            });
        }
        Opcode::LNot => {
            let mut a = pop(stack);
            if let AVal::Cond { cmp, .. } = &mut a {
                *cmp = cmp.negate();
            } else {
                a = AVal::Unknown;
            }
            stack.push(a);
        }
        Opcode::AddL => {
            let a = pop(stack);
            stack.push(plus_slot(a, lin(ops[0], 0), invariant));
        }
        Opcode::Tee => {}
        _ => {
            let info = instr.opcode.info();
            let (pops, pushes) = match info.effect {
                Effect::Fixed(p, q) => (p.len(), q.len()),
                Effect::PopAny => (1, 0),
                Effect::Intrinsic => {
                    let i = INTRINSICS.get(ops[0] as usize);
                    (
                        i.map_or(d, |i| i.params.len()),
                        i.map_or(0, |i| usize::from(i.returns)),
                    )
                }
                // Anything else ends its block or is handled above; forget
                // the stack to be safe.
                _ => (d, 0),
            };
            let keep = stack.len().saturating_sub(pops);
            stack.truncate(keep);
            stack.extend(std::iter::repeat_n(AVal::Unknown, pushes));
        }
    }
}

/// `a + b` for two slot values, one of them a slot the loop does not write
/// (a slot plus a loop-invariant step), when that is what they are.
fn plus_slot(a: AVal, b: AVal, invariant: &dyn Fn(u32) -> bool) -> AVal {
    let (var, step) = match (a, b) {
        (AVal::Lin { slot: t, .. }, v) if invariant(t) => (v, a),
        (v, _) => (v, b),
    };
    match (var, step) {
        (
            AVal::Lin {
                slot,
                post,
                off,
                plus: None,
            },
            AVal::Lin {
                slot: t,
                plus: None,
                off: 0,
                ..
            },
        ) if invariant(t) && t != slot => AVal::Lin {
            slot,
            post,
            off,
            plus: Some(t),
        },
        _ => AVal::Unknown,
    }
}

/// `a + k` (wrapping) for a known form of `a`.
fn add_const(a: AVal, k: i32) -> AVal {
    match a {
        AVal::Const(x) => AVal::Const(x.wrapping_add(k)),
        AVal::Lin {
            slot,
            post,
            off,
            plus,
        } => AVal::Lin {
            slot,
            post,
            off: off.wrapping_add(k),
            plus,
        },
        _ => AVal::Unknown,
    }
}

/// Emits, at the builder's position (the guard block, entered from outside
/// the loop), the test that decides between the fast and the checked copy
/// of `lp`, and returns it (non-zero: take the fast copy). All arithmetic is
/// in 64 bits, where none of it can overflow: trip counts are kept below
/// 2^31, steps and values are 32-bit and the fuel per iteration is at most
/// 2^20.
pub(crate) fn guard(l: &mut Lower<'_, '_>, lp: &CountedLoop) -> Value {
    let mut conds: Vec<Value> = Vec::new();
    let wide = |l: &mut Lower<'_, '_>, v: Value| l.b.ins().sextend(types::I64, v);
    // The induction variables at the entry and their steps.
    let mut start = Vec::with_capacity(lp.ivs.len());
    let mut step = Vec::with_capacity(lp.ivs.len());
    for iv in &lp.ivs {
        let v = l.slot_value(iv.slot);
        start.push(wide(l, v));
        step.push(match iv.step {
            Step::Const(c) => l.b.ins().iconst(types::I64, i64::from(c)),
            Step::Slot(s) => {
                let v = l.slot_value(s);
                wide(l, v)
            }
        });
    }
    let t = lp.test;
    let (s0, c) = (start[t.iv], step[t.iv]);
    // The value the first iteration tests.
    let mut u0 = s0;
    if t.post {
        u0 = l.b.ins().iadd(u0, c);
    }
    if t.off != 0 {
        u0 = l.b.ins().iadd_imm_s(u0, i64::from(t.off));
    }
    let bound = match t.bound {
        Bound::Imm(k) => l.b.ins().iconst(types::I64, i64::from(k)),
        Bound::Slot { slot, off } => {
            let v = l.slot_value(slot);
            let v = l.b.ins().iadd_imm_s(v, i64::from(off));
            wide(l, v)
        }
        Bound::Slots(r) => {
            let n = l.list_slot_count(r);
            l.b.ins().uextend(types::I64, n)
        }
    };
    // The distance to the bound and the (positive) pace towards it.
    let (dist, pace) = if increasing(t.cmp) {
        let limit = if t.cmp == Rel::Le {
            l.b.ins().iadd_imm_s(bound, 1)
        } else {
            bound
        };
        (l.b.ins().isub(limit, u0), c)
    } else {
        let limit = if t.cmp == Rel::Ge {
            l.b.ins().iadd_imm_s(bound, -1)
        } else {
            bound
        };
        (l.b.ins().isub(u0, limit), l.b.ins().ineg(c))
    };
    let iv = lp.ivs[t.iv];
    if let Step::Slot(_) = iv.step {
        conds.push(l.b.ins().icmp_imm_s(IntCC::SignedGreaterThan, pace, 0));
    }
    // K, the number of tests that can pass: 0 when the first fails, else
    // ceil(dist / pace).
    let zero = l.b.ins().iconst(types::I64, 0);
    let k = match iv.step {
        Step::Const(1) | Step::Const(-1) => l.b.ins().smax(dist, zero),
        _ => {
            let positive = l.b.ins().icmp_imm_s(IntCC::SignedGreaterThan, pace, 0);
            let one = l.b.ins().iconst(types::I64, 1);
            // Never divide by a pace that is not positive (the condition
            // above then fails anyway).
            let divisor = l.b.ins().select(positive, pace, one);
            let num = l.b.ins().iadd(dist, divisor);
            let num = l.b.ins().iadd_imm_s(num, -1);
            let q = l.b.ins().sdiv(num, divisor);
            let any = l.b.ins().icmp_imm_s(IntCC::SignedGreaterThan, dist, 0);
            l.b.ins().select(any, q, zero)
        }
    };
    conds.push(l.b.ins().icmp_imm_s(IntCC::SignedLessThan, k, 1 << 31));
    // At most K + 1 iterations start.
    let n = l.b.ins().iadd_imm_s(k, 1);
    let need = l.b.ins().imul_imm_s(n, lp.fuel_per_iteration as i64);
    let fuel = l.fuel_value();
    conds.push(l.b.ins().icmp(IntCC::SignedGreaterThanOrEqual, fuel, need));
    let in_i32 = |l: &mut Lower<'_, '_>, v: Value, conds: &mut Vec<Value>| {
        conds.push(
            l.b.ins()
                .icmp_imm_s(IntCC::SignedGreaterThanOrEqual, v, i64::from(i32::MIN)),
        );
        conds.push(
            l.b.ins()
                .icmp_imm_s(IntCC::SignedLessThanOrEqual, v, i64::from(i32::MAX)),
        );
    };
    // No induction variable wraps: each takes at most K + 1 steps.
    for (j, iv) in lp.ivs.iter().enumerate() {
        if iv.step != Step::Const(0) {
            let moved = l.b.ins().imul(n, step[j]);
            let end = l.b.ins().iadd(start[j], moved);
            in_i32(l, end, &mut conds);
        }
    }
    // Nor does the value tested, when it adds a constant.
    if t.off != 0 {
        in_i32(l, u0, &mut conds);
        let moved = l.b.ins().imul(k, c);
        let last = l.b.ins().iadd(u0, moved);
        in_i32(l, last, &mut conds);
    }
    // Every proven access stays inside its list.
    let k_full = {
        let less = l.b.ins().iadd_imm_s(k, -1);
        l.b.ins().smax(less, zero)
    };
    for a in &lp.accesses {
        match a.index {
            Index::Const(x) => {
                if let ListRef::Param(_) = a.list {
                    let slots = l.list_slot_count(a.list);
                    conds.push(l.b.ins().icmp_imm_s(
                        IntCC::UnsignedGreaterThan,
                        slots,
                        i64::from(x),
                    ));
                }
            }
            Index::Iv { iv: j, post, off } => {
                let slots = l.list_slot_count(a.list);
                let slots = l.b.ins().uextend(types::I64, slots);
                let (s, c) = (start[j], step[j]);
                let kmax = if a.before_test { k } else { k_full };
                let mut lo = l.b.ins().iadd_imm_s(s, i64::from(off));
                if post {
                    lo = l.b.ins().iadd(lo, c);
                }
                let (min, max) = match lp.ivs[j].step {
                    Step::Const(0) => (lo, lo),
                    st => {
                        let moved = l.b.ins().imul(kmax, c);
                        let hi = l.b.ins().iadd(lo, moved);
                        match st {
                            Step::Const(x) if x > 0 => (lo, hi),
                            Step::Const(_) => (hi, lo),
                            Step::Slot(_) => (l.b.ins().smin(lo, hi), l.b.ins().smax(lo, hi)),
                        }
                    }
                };
                conds.push(
                    l.b.ins()
                        .icmp_imm_s(IntCC::SignedGreaterThanOrEqual, min, 0),
                );
                conds.push(l.b.ins().icmp(IntCC::SignedLessThan, max, slots));
            }
        }
    }
    // The depth tests of `enter` and `enter.f` all pass.
    for &(o, k) in &lp.depth {
        let left = l.depth_value();
        let left = l.b.ins().iadd_imm_s(left, -i64::from(o));
        conds.push(
            l.b.ins()
                .icmp_imm_s(IntCC::UnsignedGreaterThan, left, i64::from(k)),
        );
    }
    let mut all = match conds.first() {
        Some(&c) => c,
        None => l.b.ins().iconst(types::I8, 1),
    };
    for &c in conds.iter().skip(1) {
        all = l.b.ins().band(all, c);
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;
    use cvm::isa::OPCODES;

    /// [`charge`] names the instructions that charge fuel other than by
    /// jumping backward. Every instruction the table says can run out of
    /// fuel must be a jump or one of them, or the fast copy's fuel bound
    /// could be too low.
    #[test]
    fn every_charging_instruction_is_counted() {
        for info in OPCODES {
            if info.raises.contains(&Raises::Fuel) {
                let jumps = info.operands.contains(&OperandKind::Target);
                assert!(
                    jumps
                        || matches!(
                            info.opcode,
                            Opcode::Enter
                                | Opcode::EnterF
                                | Opcode::Call
                                | Opcode::Fuel
                                | Opcode::Intr
                                | Opcode::PatAll
                                | Opcode::PatAny
                        ),
                    "charge() must learn how much fuel {} charges",
                    info.mnemonic
                );
            }
        }
    }
}
