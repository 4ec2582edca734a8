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
//! the lowering (`lower/counted.rs`) emits the loop twice. The ordinary copy
//! has every check. The fast copy charges fuel by plain subtraction (so
//! the fuel left is exact at every point, errors and exits included), skips
//! the depth tests of `enter`/`enter.f`, and skips the bounds checks of the
//! accesses listed in [`CountedLoop::accesses`]. A guard block (emitted by the lowering)
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
//!
//! # Phases
//!
//! The analysis builds the function's control-flow graph and dominator
//! tree once ([`cfg`]), skipping functions without a backward jump (they
//! have no loop), and then analyses each natural loop in six phases, each
//! a function below: [`Body::find`] (the loop and its body),
//! [`frame_and_fuel`] (nesting, depth tests, fuel per iteration),
//! [`Slots::find`] (loop-invariant slots and induction variable
//! candidates), [`scan`] (steps, tests and accesses, by an abstract
//! interpretation of the operand stack, [`values`]), [`governing_test`]
//! and [`proven_accesses`]. Each phase looks at the loop's body only, and
//! bodies have at most [`MAX_BODY`] instructions, so the whole analysis
//! takes time linear in the function's size.

mod cfg;

pub(crate) use cfg::has_backward_jump;
mod values;

use cfg::{Cfg, Dominators};
use cvm::intrinsics::{cost_bound, cost_folded, cost_folded_bound, Arg, INTRINSICS};
use cvm::isa::{Effect, Form, Instr, Opcode, OperandKind, Raises, Rel};
use cvm::module::{Function, TextDef};
use cvm::verify::FunctionInfo;
use cvm::Memory;
use std::collections::{BTreeMap, HashMap};
use values::{compare, transfer, AVal};

/// Loops with more body instructions than this are not copied.
pub(crate) const MAX_BODY: usize = 256;

/// How many copies of a small counted loop's body the fast path chains
/// (each a whole iteration with its own tests, so an exit from any copy is
/// exact): the latches between them fall through, fuel and counter updates
/// fold into one per round, and only the last copy jumps back.
pub(crate) const UNROLL: usize = 4;

/// The most CVM instructions a loop body may have to be unrolled.
pub(crate) const MAX_UNROLLED_BODY: usize = 12;

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
pub(crate) fn increasing(rel: Rel) -> bool {
    matches!(rel, Rel::Lt | Rel::Le)
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
    /// What each edge back to the header charges when they are charged
    /// there ([`CountedLoop::back_edges_charged`]): the back edges then all
    /// charge this same amount ([`FunctionInfo::jump_fuel`]).
    pub back_edge_fuel: u64,
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

    /// How many fast copies of the body the lowering emits: [`UNROLL`]
    /// for a small body whose back edges are charged at the header, else
    /// one.
    pub fn fast_copies(&self) -> usize {
        if self.back_edges_charged && self.body.len() <= MAX_UNROLLED_BODY {
            UNROLL
        } else {
            1
        }
    }
}

/// The module's lists as the loop analysis sees them.
#[derive(Copy, Clone)]
pub(crate) struct Lists<'a> {
    /// The initial memory: every list's slot count, and the contents of
    /// the constant ones.
    pub initial: &'a Memory,
    /// Which lists never change ([`crate::analysis::list_facts`]).
    pub constant: &'a [bool],
}

impl Lists<'_> {
    /// The slot count of module list `l`.
    fn slots(&self, l: u32) -> Option<u32> {
        self.initial.lists.get(l as usize).map(|s| s.slots)
    }

    /// An intrinsic's list argument, module list `l`, as known before run
    /// time: its contents when it never changes, else its slot count.
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

/// The counted loops of one function, in the order of their headers.
pub(crate) fn counted_loops(
    f: &Function,
    info: &FunctionInfo,
    texts: &[TextDef],
    lists: Lists<'_>,
) -> Vec<CountedLoop> {
    if !cfg::has_backward_jump(info) {
        return Vec::new();
    }
    let g = Cfg::new(info);
    let dom = Dominators::new(&g);
    let scope = Scope {
        f,
        info,
        texts,
        lists,
        g: &g,
        dom: &dom,
    };
    natural_loops(&g, &dom)
        .into_iter()
        .filter_map(|(h, latches)| analyze_loop(&scope, h, &latches))
        .collect()
}

/// What every phase of the analysis of one function's loops reads.
struct Scope<'a> {
    f: &'a Function,
    info: &'a FunctionInfo,
    /// The module's texts (a `textout` charges by its text's length).
    texts: &'a [TextDef],
    lists: Lists<'a>,
    g: &'a Cfg,
    dom: &'a Dominators,
}

impl Scope<'_> {
    fn instr(&self, v: usize) -> &Instr {
        &self.info.instrs[v].instr
    }

    fn offset(&self, v: usize) -> u32 {
        self.info.instrs[v].offset
    }
}

/// The back edges of the graph (an edge `u -> h` where `h` dominates
/// `u`), grouped by the header they go to, headers in code order.
fn natural_loops(g: &Cfg, dom: &Dominators) -> Vec<(usize, Vec<usize>)> {
    let mut latches: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (u, succ) in g.succ.iter().enumerate() {
        for &h in succ {
            if dom.dominates(h, u) {
                latches.entry(h).or_default().push(u);
            }
        }
    }
    latches.into_iter().collect()
}

/// The analysis of the natural loop with header `h` and back edges from
/// `latches`, or `None` when it gets no fast copy.
fn analyze_loop(scope: &Scope<'_>, h: usize, latches: &[usize]) -> Option<CountedLoop> {
    let body = Body::find(scope, h, latches)?;
    let (depth, fuel) = frame_and_fuel(scope, &body)?;
    let slots = Slots::find(scope, &body);
    let scanned = scan(scope, &body, &slots)?;
    let fuel_per_iteration = fuel.saturating_add(scanned.intrinsic_fuel);
    if fuel_per_iteration == 0 || fuel_per_iteration > MAX_FUEL_PER_ITERATION {
        return None;
    }
    let (mut ivs, test_at, test) = governing_test(&slots, &scanned)?;
    let accesses = proven_accesses(scope, &body, &slots, &scanned, &mut ivs, test_at);
    let header = scope.offset(h);
    // The back edges can be charged at the header only if they all charge
    // the same (the first one's charge).
    let back_edge_fuel = latches
        .first()
        .map_or(0, |&l| scope.info.jump_fuel(scope.offset(l), header));
    Some(CountedLoop {
        header,
        body: body.nodes.iter().map(|&v| scope.offset(v)).collect(),
        ivs,
        test,
        accesses,
        fuel_per_iteration,
        back_edges_charged: latches.iter().all(|&l| {
            let i = scope.instr(l);
            i.target() == Some(header)
                && scope.offset(l) >= header
                && i.opcode.info().flow == cvm::isa::Flow::Branch
                && !is_for_step(i.opcode)
                && scope.info.jump_fuel(scope.offset(l), header) == back_edge_fuel
        }),
        back_edge_fuel,
        depth,
    })
}

/// A natural loop's body.
struct Body {
    /// The header's position.
    header: usize,
    /// The positions of the instructions with an edge back to the header.
    latches: Vec<usize>,
    /// The positions of the body's instructions (the header included),
    /// sorted: a body instruction's local index is its place here.
    nodes: Vec<usize>,
    /// The body's positions in a topological order of the body graph (the
    /// body's edges other than those back to the header), header first.
    topo: Vec<usize>,
}

impl Body {
    /// Phase 1, the loop: the header and everything that reaches a latch
    /// without passing through the header. Establishes that this is a
    /// natural loop (nothing but the header is entered from outside) of at
    /// most [`MAX_BODY`] instructions without a `call`, whose body graph is
    /// acyclic, so that the loop is innermost and each body instruction
    /// runs at most once an iteration; and a topological order of it.
    fn find(scope: &Scope<'_>, h: usize, latches: &[usize]) -> Option<Body> {
        let g = scope.g;
        let mut seen: std::collections::HashSet<usize> = std::collections::HashSet::new();
        seen.insert(h);
        let mut work: Vec<usize> = latches.to_vec();
        while let Some(v) = work.pop() {
            if !seen.insert(v) {
                continue;
            }
            // Every predecessor of a body instruction other than the
            // header is in the body, so a crowded one makes it too large.
            if seen.len() > MAX_BODY || g.pred[v].len() > MAX_BODY {
                return None;
            }
            work.extend(g.pred[v].iter().copied());
        }
        let mut nodes: Vec<usize> = seen.into_iter().collect();
        nodes.sort_unstable();
        let mut body = Body {
            header: h,
            latches: latches.to_vec(),
            nodes,
            topo: Vec::new(),
        };
        // A natural loop without calls.
        for &v in &body.nodes {
            if v != h && g.pred[v].iter().any(|&p| !body.contains(p)) {
                return None;
            }
            if scope.instr(v).opcode == Opcode::Call {
                return None;
            }
        }
        // Acyclic (so innermost): a topological order from the header.
        let mut indegree = vec![0usize; body.nodes.len()];
        for &v in &body.nodes {
            for w in body.inner(g, v) {
                indegree[body.local(w)?] += 1;
            }
        }
        let mut topo = Vec::with_capacity(body.nodes.len());
        let mut ready = vec![h];
        while let Some(v) = ready.pop() {
            topo.push(v);
            for w in body.inner(g, v) {
                let k = body.local(w)?;
                indegree[k] -= 1;
                if indegree[k] == 0 {
                    ready.push(w);
                }
            }
        }
        if topo.len() != body.nodes.len() {
            return None;
        }
        body.topo = topo;
        Some(body)
    }

    /// The local index of the instruction at position `v`, when it is in
    /// the body.
    fn local(&self, v: usize) -> Option<usize> {
        self.nodes.binary_search(&v).ok()
    }

    fn contains(&self, v: usize) -> bool {
        self.local(v).is_some()
    }

    /// The successors of `v` in the body graph.
    fn inner<'g>(&'g self, g: &'g Cfg, v: usize) -> impl Iterator<Item = usize> + 'g {
        g.succ[v]
            .iter()
            .copied()
            .filter(move |&w| w != self.header && self.contains(w))
    }

    /// Which body instructions (by local index) are reachable from `v`'s
    /// successors within one iteration.
    fn after(&self, g: &Cfg, v: usize) -> Vec<bool> {
        let mut seen = vec![false; self.nodes.len()];
        let mut work: Vec<usize> = self.inner(g, v).collect();
        while let Some(w) = work.pop() {
            if let Some(k) = self.local(w) {
                if !seen[k] {
                    seen[k] = true;
                    work.extend(self.inner(g, w));
                }
            }
        }
        seen
    }

    /// Whether `v` runs on every path to the back edges.
    fn dominates_latches(&self, dom: &Dominators, v: usize) -> bool {
        self.latches.iter().all(|&l| dom.dominates(v, l))
    }
}

/// Phase 2, the frame and the fuel: establishes that the `enter.f` /
/// `leave` nesting is the same on every path through the body and back at
/// the header's level on each back edge. Returns the depth tests the body
/// makes (for each nesting level relative to the header, the largest `k`
/// of an `enter k`, `enter.f` counting as 1) and the most fuel one
/// iteration can charge other than by intrinsic calls (every charge site
/// counted once; [`scan`] adds the intrinsics' charges).
fn frame_and_fuel(scope: &Scope<'_>, body: &Body) -> Option<(Vec<(i32, u32)>, u64)> {
    let g = scope.g;
    let mut open: Vec<Option<i32>> = vec![None; body.nodes.len()];
    open[body.local(body.header)?] = Some(0);
    let mut depth: Vec<(i32, u32)> = Vec::new();
    let mut fuel: u64 = 0;
    for &v in &body.topo {
        let instr = scope.instr(v);
        let o = open[body.local(v)?]?;
        let ops = instr.operands;
        let out = match instr.opcode {
            Opcode::EnterF => o + 1,
            Opcode::Leave => o - 1,
            _ => o,
        };
        let test = match instr.opcode {
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
        fuel = fuel.saturating_add(charge(scope, scope.offset(v), instr));
        for &w in &g.succ[v] {
            if w == body.header {
                if out != 0 {
                    return None;
                }
            } else if let Some(k) = body.local(w) {
                match open[k] {
                    None => open[k] = Some(out),
                    Some(x) if x == out => {}
                    Some(_) => return None,
                }
            }
        }
    }
    Some((depth, fuel))
}

/// Phase 3, the slots: which frame slots the body writes, and which of
/// them are candidate induction variables.
struct Slots {
    /// The writers of each slot the body writes; every other slot is
    /// loop-invariant.
    writers: HashMap<u32, Vec<usize>>,
    /// Candidate induction variables: slots with one writer, which runs on
    /// every path to the back edges, by slot: the writer's position and
    /// the body instructions (local indices) after it in an iteration.
    candidate: HashMap<u32, (usize, Vec<bool>)>,
    /// The list parameters are the slots `value_params..arity`.
    lists: std::ops::Range<u32>,
}

impl Slots {
    /// Establishes the written slots and the candidates. A for-in step
    /// writes its cursor only when it continues, so it is a candidate
    /// writer only when its other edge leaves the loop.
    fn find(scope: &Scope<'_>, body: &Body) -> Slots {
        let g = scope.g;
        let mut writers: HashMap<u32, Vec<usize>> = HashMap::new();
        for &v in &body.nodes {
            for s in scope.instr(v).slots_written() {
                writers.entry(s).or_default().push(v);
            }
        }
        let mut candidate = HashMap::new();
        for (&s, ws) in &writers {
            if let [w] = ws[..] {
                let for_step = is_for_step(scope.instr(w).opcode);
                let leaves =
                    !for_step || g.succ[w].iter().filter(|&&x| body.contains(x)).count() == 1;
                if leaves && body.dominates_latches(scope.dom, w) {
                    candidate.insert(s, (w, body.after(g, w)));
                }
            }
        }
        Slots {
            writers,
            candidate,
            lists: scope.f.value_params..scope.f.arity(),
        }
    }

    /// Whether the body leaves slot `s` alone.
    fn invariant(&self, s: u32) -> bool {
        !self.writers.contains_key(&s)
    }

    /// Whether the body instruction with local index `k` reads slot `s`
    /// after the slot's step in the iteration.
    fn post(&self, s: u32, k: usize) -> bool {
        self.candidate.get(&s).is_some_and(|(_, a)| a[k])
    }

    /// The abstract value of slot `s` read by the body instruction with
    /// local index `k`, plus `off`.
    fn lin(&self, s: u32, off: i32, k: usize) -> AVal {
        if self.lists.contains(&s) {
            AVal::List(ListRef::Param(s))
        } else {
            AVal::Lin {
                slot: s,
                post: self.post(s, k),
                off,
                plus: None,
            }
        }
    }
}

/// What [`scan`] finds in the body.
struct Scanned {
    /// The step of each candidate whose writer adds one to it.
    steps: HashMap<u32, Step>,
    /// Candidate governing tests, in code order: the branch's position,
    /// the slot tested and the test (its `iv` not yet set).
    tests: Vec<(usize, u32, Test)>,
    /// List accesses: position, list, abstract index.
    accesses: Vec<(usize, ListRef, AVal)>,
    /// The most fuel the body's intrinsic calls can charge in one
    /// iteration (each counted once).
    intrinsic_fuel: u64,
}

/// The abstract operand-stack value `k` places below the top.
fn top(stack: &[AVal], k: usize) -> AVal {
    stack
        .len()
        .checked_sub(k + 1)
        .map_or(AVal::Unknown, |x| stack[x])
}

/// Phase 4, the scan: an abstract interpretation of the body, block by
/// block (the stack is unknown at every jump target and after every
/// branch), that establishes the step of each candidate ([`step_of`]), the
/// conditional branches that could govern the loop ([`test_of`]), the
/// index of each list access ([`access_of`]) and the most fuel each
/// intrinsic call can charge ([`intrinsic_charge`]); `None` (no fast copy)
/// when an intrinsic call's charge has no bound.
fn scan(scope: &Scope<'_>, body: &Body, slots: &Slots) -> Option<Scanned> {
    let g = scope.g;
    let mut out = Scanned {
        steps: HashMap::new(),
        tests: Vec::new(),
        accesses: Vec::new(),
        intrinsic_fuel: 0,
    };
    let mut stack: Vec<AVal> = Vec::new();
    let invariant = |s: u32| slots.invariant(s);
    for (k, &v) in body.nodes.iter().enumerate() {
        let i = &scope.info.instrs[v];
        let d = i.depth? as usize;
        if g.leader[v] || v == body.header || v == 0 || !body.contains(v - 1) || stack.len() != d {
            stack = vec![AVal::Unknown; d];
        }
        let instr = &i.instr;
        for s in instr.slots_written() {
            if slots.candidate.get(&s).is_some_and(|(w, _)| *w == v) {
                if let Some(step) = step_of(instr, s, &stack, slots) {
                    out.steps.insert(s, step);
                }
            }
        }
        let in_succ = g.succ[v].iter().filter(|&&w| body.contains(w)).count();
        if g.succ[v].len() == 2 && in_succ == 1 && body.dominates_latches(scope.dom, v) {
            let taken_continues = instr
                .target()
                .and_then(|t| g.at.get(&t))
                .is_some_and(|&t| body.contains(t));
            if let Some((slot, test)) = test_of(instr, k, taken_continues, &stack, slots) {
                out.tests.push((v, slot, test));
            }
        }
        if let Some((list, index)) = access_of(instr, k, &stack, slots) {
            out.accesses.push((v, list, index));
        }
        if matches!(
            instr.opcode.info().effect,
            Effect::Intrinsic | Effect::PatternMask
        ) {
            let n = match instr.opcode {
                Opcode::Intr => INTRINSICS
                    .get(instr.operands[0] as usize)
                    .map_or(0, |i| i.params.len()),
                _ => 1,
            };
            let args: Vec<AVal> = (0..n).rev().map(|a| top(&stack, a)).collect();
            let most = intrinsic_charge(instr, &args, scope.lists)?;
            out.intrinsic_fuel = out.intrinsic_fuel.saturating_add(most);
        }
        transfer(
            &mut stack,
            instr,
            d,
            |s, off| slots.lin(s, off, k),
            &invariant,
        );
    }
    Some(out)
}

/// The step the candidate writer `instr` gives slot `s`, when the value it
/// writes is the slot plus a step. Only the writers recognised here make
/// one; any other writer (a new instruction, say) leaves the slot without a
/// step, so it is no induction variable.
fn step_of(instr: &Instr, s: u32, stack: &[AVal], slots: &Slots) -> Option<Step> {
    let form = instr.opcode.compare().map(|c| c.form);
    if instr.opcode == Opcode::Incl
        || form == Some(Form::IncBranchLocalImm)
        || is_for_step(instr.opcode)
    {
        Some(Step::Const(1))
    } else if instr.opcode == Opcode::Decl {
        Some(Step::Const(-1))
    } else if matches!(instr.opcode, Opcode::Stl | Opcode::Tee) {
        // The value stored is the top of the stack.
        match top(stack, 0) {
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
            } if slot == s && slots.invariant(t) && t != s => Some(Step::Slot(t)),
            _ => None,
        }
    } else {
        None
    }
}

/// The test a conditional branch that leaves the loop on one edge makes,
/// when it compares a slot (plus a constant) with a loop-invariant bound:
/// the slot and the test under which the loop continues (`iv` unset).
/// `k` is the branch's local index; `taken_continues` whether its taken
/// edge stays in the loop.
fn test_of(
    instr: &Instr,
    k: usize,
    taken_continues: bool,
    stack: &[AVal],
    slots: &Slots,
) -> Option<(u32, Test)> {
    let ops = instr.operands;
    let imm = ops[0] as i32;
    let orient = |c: Rel| if taken_continues { c } else { c.negate() };
    let invariant = |s: u32| slots.invariant(s);
    let info = instr.opcode.info();
    let found: Option<(u32, bool, i32, Rel, Bound, bool)> = match info.compare {
        // Compare-and-branch forms, from the instruction table.
        Some(c) => {
            let order = c.rel.is_order();
            match c.form {
                Form::BranchLocalImm => order.then(|| {
                    let bound = Bound::Imm(ops[1] as i32);
                    (
                        ops[0],
                        slots.post(ops[0], k),
                        0,
                        orient(c.rel),
                        bound,
                        false,
                    )
                }),
                // The local is tested after its increment.
                Form::IncBranchLocalImm => order.then(|| {
                    let bound = Bound::Imm(ops[1] as i32);
                    (ops[0], true, 0, orient(c.rel), bound, false)
                }),
                Form::BranchImm => match top(stack, 0) {
                    AVal::Lin {
                        slot,
                        post,
                        off,
                        plus: None,
                    } if order => Some((slot, post, off, orient(c.rel), Bound::Imm(imm), false)),
                    _ => None,
                },
                Form::Branch => {
                    let (a, b) = (top(stack, 1), top(stack, 0));
                    compare(a, b, c.rel, &invariant)
                        .filter(|_| order)
                        .map(|(slot, post, off, r, bd)| (slot, post, off, orient(r), bd, false))
                }
                // A comparison's result tested against zero (the form of
                // unoptimized code).
                Form::BranchZero => match (top(stack, 0), c.rel.on_truth()) {
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
        // A for-in step continues (falls through for forl/forx, jumps for
        // the inverted forms) only while its cursor is below the list's
        // slot count, unsigned; the step is the cursor's writer and tests
        // the value before it.
        None if is_for_step(instr.opcode) => {
            let inverted = info.effect == Effect::ForStepBack;
            let list = match info.operands.first() {
                Some(OperandKind::List) => Some(ListRef::Module(ops[0])),
                Some(OperandKind::ListLocal) => Some(ListRef::Param(ops[0])),
                _ => None,
            };
            let cursor = instr.slots_written().next();
            match (list, cursor) {
                (Some(list), Some(cursor)) => (taken_continues == inverted).then_some((
                    cursor,
                    false,
                    0,
                    Rel::Lt,
                    Bound::Slots(list),
                    true,
                )),
                _ => None,
            }
        }
        None => None,
    };
    found.map(|(slot, post, off, cmp, bound, cursor)| {
        (
            slot,
            Test {
                iv: 0,
                post,
                off,
                cmp,
                bound,
                cursor,
            },
        )
    })
}

/// The list and the abstract index of a list access (`lde`, `ste`, `ldx`,
/// `stx` and the `.l` forms) with local index `k`.
fn access_of(instr: &Instr, k: usize, stack: &[AVal], slots: &Slots) -> Option<(ListRef, AVal)> {
    let ops = instr.operands;
    match instr.opcode {
        Opcode::Lde => Some((ListRef::Module(ops[0]), top(stack, 0))),
        Opcode::Ste => Some((ListRef::Module(ops[0]), top(stack, 1))),
        Opcode::LdeL | Opcode::SteL => Some((ListRef::Module(ops[0]), slots.lin(ops[1], 0, k))),
        Opcode::LdxL | Opcode::StxL => Some((ListRef::Param(ops[0]), slots.lin(ops[1], 0, k))),
        Opcode::Ldx | Opcode::Stx => {
            let (r, x) = if instr.opcode == Opcode::Ldx {
                (top(stack, 1), top(stack, 0))
            } else {
                (top(stack, 2), top(stack, 1))
            };
            match r {
                AVal::List(l) => Some((l, x)),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The index in `ivs` of slot `s` as an induction variable (a
/// loop-invariant slot is one with step 0), added when new; `None` when
/// the slot is written without a step.
fn iv_of(s: u32, slots: &Slots, steps: &HashMap<u32, Step>, ivs: &mut Vec<Iv>) -> Option<usize> {
    let step = if slots.invariant(s) {
        Step::Const(0)
    } else {
        *steps.get(&s)?
    };
    if let Some(k) = ivs.iter().position(|iv| iv.slot == s) {
        return Some(k);
    }
    ivs.push(Iv { slot: s, step });
    Some(ivs.len() - 1)
}

/// Phase 5, the governing test: the first candidate test, in code order,
/// on a written slot with a step that moves towards the bound (a constant
/// of the right sign, or a slot step whose sign the guard checks; a for-in
/// cursor steps by 1). Establishes the induction variables found so far,
/// the test's position and the test.
fn governing_test(slots: &Slots, scanned: &Scanned) -> Option<(Vec<Iv>, usize, Test)> {
    let mut ivs: Vec<Iv> = Vec::new();
    for &(v, slot, t) in &scanned.tests {
        if slots.invariant(slot) {
            continue;
        }
        let Some(step) = scanned.steps.get(&slot).copied() else {
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
        let Some(k) = iv_of(slot, slots, &scanned.steps, &mut ivs) else {
            continue;
        };
        return Some((ivs, v, Test { iv: k, ..t }));
    }
    None
}

/// Phase 6, the accesses: establishes which list accesses the guard can
/// prove, with their index ranges: an index that is a constant (in range,
/// for a module list, checked here; non-negative into a list parameter,
/// whose slot count the guard reads), or an induction variable or
/// loop-invariant slot plus a constant; and whether the access comes
/// before the governing test at `test_at` (so it also runs in the last,
/// partial iteration).
fn proven_accesses(
    scope: &Scope<'_>,
    body: &Body,
    slots: &Slots,
    scanned: &Scanned,
    ivs: &mut Vec<Iv>,
    test_at: usize,
) -> Vec<Access> {
    let after_test = body.after(scope.g, test_at);
    let mut accesses = Vec::new();
    for &(v, list, index) in &scanned.accesses {
        let index = match (index, list) {
            // A constant index into a module list is checked at compile
            // time: only one in range may skip its check.
            (AVal::Const(k), ListRef::Module(l)) => {
                if scope.lists.slots(l).is_some_and(|n| (k as u32) < n) {
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
            ) => match iv_of(slot, slots, &scanned.steps, ivs) {
                Some(k) => Index::Iv { iv: k, post, off },
                None => continue,
            },
            _ => continue,
        };
        let before_test = !body.local(v).is_some_and(|k| after_test[k]);
        accesses.push(Access {
            offset: scope.offset(v),
            list,
            index,
            before_test,
        });
    }
    accesses
}

/// Whether `op` is a for-in step (`forl`, `forx` and their inverted forms):
/// it writes its cursor only on the path that continues.
fn is_for_step(op: Opcode) -> bool {
    matches!(op.info().effect, Effect::ForStep | Effect::ForStepBack)
}

/// The most fuel an intrinsic call (`intr`, `pat.all`, `pat.any`) with
/// these abstract arguments (top of the stack last) can charge: the
/// intrinsic table's cost over every value an unknown argument can have
/// (verbose mode on); `None` when it has no bound (a list known by no more
/// than being a list), which makes the loop ineligible.
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

/// The most fuel the instruction at `offset` can charge, but for intrinsic
/// calls (whose charge depends on their arguments: [`intrinsic_charge`]).
/// An instruction the table says never charges charges nothing; a jump
/// charges its span when its target is at or before it
/// ([`FunctionInfo::jump_fuel`]); the others are named (a
/// test keeps this list in step with the table).
fn charge(scope: &Scope<'_>, offset: u32, instr: &Instr) -> u64 {
    if !instr.opcode.info().raises.contains(&Raises::Fuel) {
        return 0;
    }
    let info = scope.info;
    match instr.opcode {
        Opcode::Enter | Opcode::EnterF => 1,
        Opcode::Write => cvm::fuel::WRITE_FUEL,
        Opcode::TextOut => scope
            .texts
            .get(instr.operands[0] as usize)
            .map_or(u64::MAX, |t| cvm::fuel::text_fuel(t.text.len())),
        // A loop with a call gets no fast copy (`Body::find`); were one
        // analysed, an unknown charge keeps it out.
        Opcode::Call => u64::MAX,
        Opcode::Fuel => u64::from(instr.operands[0]),
        Opcode::Intr | Opcode::PatAll | Opcode::PatAny => 0,
        _ => instr.target().map_or(0, |t| info.jump_fuel(offset, t)),
    }
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
                                | Opcode::Write
                                | Opcode::TextOut
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
