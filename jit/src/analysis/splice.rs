//! Splicing: which calls the lowering replaces by the callee's body, under
//! a budget that keeps the code the JIT makes proportional to the program.
//!
//! A call of a *small* function ([`SMALL_FUNCTION`] instructions and frame
//! slots at most) can be *spliced*: the lowering emits the callee's CVM
//! body in place of the native call, after the call's depth and fuel
//! checks, so the semantics do not change (`lower/calls.rs`). Calls inside
//! a spliced body can be spliced in turn. Without a limit that grows the
//! code exponentially with the nesting of calls: four functions that call
//! the next one three times each made 3^4 copies of the innermost body in
//! each of their callers.
//!
//! This module decides every splice of the program before any code is
//! emitted, and charges each one against two budgets in *lowered
//! instructions* ([`lowered_size`]: a function's CVM instructions, with the
//! bodies of its counted loops counted once more for every fast copy the
//! lowering makes of them):
//!
//! * the program's: at most [`GROWTH`] times the program's CVM
//!   instructions `P` plus [`SLACK`] in all, so the whole program lowers
//!   to at most `(5 + GROWTH) P + SLACK` instructions (each of the `P`
//!   instructions once, at most four more times in fast copies, and the
//!   spliced ones);
//! * each function's: at most [`FUNCTION_BUDGET`], which bounds the size of
//!   one Cranelift function and so the cost of its superlinear passes.
//!
//! The splices are chosen breadth first over the whole program: first the
//! small calls in every function's own body, in code order, then the calls
//! in the bodies spliced at the first level, and so on, [`MAX_NESTING`]
//! levels deep. So a program too large for the budget gets its shallow
//! calls spliced everywhere before any deep chain. A function may appear
//! at most twice on a chain of spliced calls, so recursion unrolls once.

use super::loops::{has_backward_jump, CountedLoop};
use cvm::isa::Opcode;
use cvm::Program;
use std::collections::VecDeque;

/// A function is small when it has at most this many CVM instructions and
/// at most this many frame slots; only calls of small functions are
/// spliced. (The one size threshold of the JIT.)
pub(crate) const SMALL_FUNCTION: usize = 32;

/// Spliced calls nest at most this deep.
pub(crate) const MAX_NESTING: usize = 4;

/// The program may grow by at most this many lowered instructions per CVM
/// instruction through splicing ...
pub(crate) const GROWTH: usize = 1;

/// ... plus this many, so that small programs are spliced completely (every
/// benchmark program needs fewer than 100).
pub(crate) const SLACK: usize = 256;

/// Lowered instructions spliced into one function at most.
pub(crate) const FUNCTION_BUDGET: usize = 512;

/// One body the lowering emits: a function's own, or a callee's spliced
/// into it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Node {
    /// The CVM function whose code the body is.
    pub function: u32,
    /// The calls spliced in this body: the call's code offset and the
    /// node of the spliced body, by offset.
    pub calls: Vec<(u32, usize)>,
}

/// Every splice of a program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Splices {
    /// The bodies: first each function's own, by function index, then the
    /// spliced ones.
    pub nodes: Vec<Node>,
    /// Spliced calls in all.
    pub calls: usize,
    /// Lowered instructions spliced in all (at most the budget).
    pub instructions: usize,
    /// Lowered instructions in all: every function's own body (its loops'
    /// fast copies counted) and everything spliced.
    pub lowered: usize,
    /// The program's budget: `GROWTH * P + SLACK`.
    pub budget: usize,
}

impl Splices {
    /// No splices at all (the baseline code generator's plan).
    pub fn none() -> Splices {
        Splices {
            nodes: Vec::new(),
            calls: 0,
            instructions: 0,
            lowered: 0,
            budget: 0,
        }
    }

    /// The node of the body spliced for the call at `offset` in the body
    /// `node`, or `None` when that call stays a native call.
    pub fn spliced(&self, node: usize, offset: u32) -> Option<usize> {
        let calls = &self.nodes.get(node)?.calls;
        calls
            .binary_search_by_key(&offset, |&(o, _)| o)
            .ok()
            .map(|k| calls[k].1)
    }

    /// Whether the body `node`, with everything spliced into it, runs each
    /// of its instructions at most once per call: it has no backward jump
    /// (so no loop) and its function is not `recursive` (no chain of calls
    /// leads back into it). Calls it makes natively run their own code.
    pub fn straight_line(&self, program: &Program, node: usize, recursive: &[bool]) -> bool {
        let infos = program.function_infos();
        let Some(root) = self.nodes.get(node) else {
            return false;
        };
        if recursive
            .get(root.function as usize)
            .copied()
            .unwrap_or(true)
        {
            return false;
        }
        let mut work = vec![node];
        while let Some(x) = work.pop() {
            let n = &self.nodes[x];
            if has_backward_jump(&infos[n.function as usize]) {
                return false;
            }
            work.extend(n.calls.iter().map(|&(_, child)| child));
        }
        true
    }

    /// The functions the body `node`, with everything spliced into it,
    /// calls natively, sorted.
    pub fn native_callees(&self, program: &Program, node: usize) -> Vec<u32> {
        let mut out = Vec::new();
        let mut work = vec![node];
        while let Some(x) = work.pop() {
            let n = &self.nodes[x];
            for i in &program.function_infos()[n.function as usize].instrs {
                if i.depth.is_some() && i.instr.opcode == Opcode::Call {
                    match self.spliced(x, i.offset) {
                        Some(child) => work.push(child),
                        None => out.push(i.instr.operands[0]),
                    }
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// The instructions the lowering emits for a function's own body: its CVM
/// instructions, and each counted loop's body again for every fast copy.
pub(crate) fn lowered_size(instructions: usize, loops: &[CountedLoop]) -> usize {
    instructions
        + loops
            .iter()
            .map(|lp| lp.fast_copies() * lp.body.len())
            .sum::<usize>()
}

/// Decides every splice of `program`; `loops[f]` are function `f`'s counted
/// loops.
pub(crate) fn plan(program: &Program, loops: &[Vec<CountedLoop>]) -> Splices {
    let module = program.module();
    let infos = program.function_infos();
    let n = infos.len();
    let size: Vec<usize> = infos
        .iter()
        .enumerate()
        .map(|(f, info)| lowered_size(info.instrs.len(), loops.get(f).map_or(&[], |l| l)))
        .collect();
    let small: Vec<bool> = module
        .functions
        .iter()
        .zip(infos)
        .map(|(f, info)| {
            info.instrs.len() <= SMALL_FUNCTION && f.frame_slots() as usize <= SMALL_FUNCTION
        })
        .collect();
    let program_size: usize = infos.iter().map(|i| i.instrs.len()).sum();
    let budget = GROWTH.saturating_mul(program_size).saturating_add(SLACK);
    let mut left = budget;
    let mut nodes: Vec<Node> = (0..n as u32)
        .map(|function| Node {
            function,
            calls: Vec::new(),
        })
        .collect();
    // For each node: its parent, its nesting and the function it is in.
    let mut parent: Vec<Option<usize>> = vec![None; n];
    let mut nesting: Vec<usize> = vec![0; n];
    let mut root: Vec<usize> = (0..n).collect();
    let mut spent = vec![0usize; n];
    let mut calls = 0usize;
    let mut queue: VecDeque<usize> = (0..n).collect();
    while let Some(x) = queue.pop_front() {
        if nesting[x] >= MAX_NESTING {
            continue;
        }
        let f = nodes[x].function as usize;
        for i in &infos[f].instrs {
            if i.depth.is_none() || i.instr.opcode != Opcode::Call {
                continue;
            }
            let c = i.instr.operands[0];
            let cu = c as usize;
            if !small.get(cu).copied().unwrap_or(false) {
                continue;
            }
            // At most once on the chain already: recursion unrolls once.
            let mut on_chain = 0;
            let mut y = Some(x);
            while let Some(z) = y {
                if nodes[z].function == c {
                    on_chain += 1;
                }
                y = parent[z];
            }
            let cost = size[cu];
            let r = root[x];
            if on_chain >= 2 || cost > left || spent[r] + cost > FUNCTION_BUDGET {
                continue;
            }
            left -= cost;
            spent[r] += cost;
            calls += 1;
            let child = nodes.len();
            nodes.push(Node {
                function: c,
                calls: Vec::new(),
            });
            parent.push(Some(x));
            nesting.push(nesting[x] + 1);
            root.push(r);
            nodes[x].calls.push((i.offset, child));
            queue.push_back(child);
        }
    }
    let instructions = budget - left;
    Splices {
        nodes,
        calls,
        instructions,
        lowered: size.iter().sum::<usize>() + instructions,
        budget,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cvm::asm::assemble;

    fn program(src: &str) -> Program {
        Program::new(assemble(src).expect("assembles")).expect("verifies")
    }

    /// `levels` functions, each calling the next `calls` times; the last
    /// one returns its argument plus one.
    fn tree(levels: usize, calls: usize) -> Program {
        let mut src = String::new();
        for l in 0..levels {
            src += &format!(
                ".func f{l} params 1 lists 0 locals 0 stack 3 value\n.slots a\n    ldl a\n"
            );
            if l + 1 < levels {
                for _ in 0..calls {
                    src += &format!("    ldl a\n    call f{}\n    add\n", l + 1);
                }
            }
            src += "    retv\n.end\n";
        }
        program(&src)
    }

    #[test]
    fn a_small_program_is_spliced_completely() {
        let p = tree(3, 2);
        let s = plan(&p, &vec![Vec::new(); 3]);
        // f0 splices f1 twice, each f1 splices f2 twice; f1 its two f2.
        assert_eq!(s.calls, 2 + 4 + 2);
        assert!(s.native_callees(&p, 0).is_empty());
        let (offset, _) = s.nodes[0].calls[0];
        assert_eq!(s.spliced(0, offset).map(|n| s.nodes[n].function), Some(1));
        assert_eq!(s.spliced(0, offset + 1), None);
    }

    #[test]
    fn the_budget_bounds_deep_call_trees() {
        for (levels, calls) in [(4, 3), (5, 4), (8, 2), (10, 2)] {
            let p = tree(levels, calls);
            let instructions: usize = p.function_infos().iter().map(|i| i.instrs.len()).sum();
            let s = plan(&p, &vec![Vec::new(); levels]);
            assert!(s.instructions <= GROWTH * instructions + SLACK);
            assert!(s.instructions <= s.budget);
            let deepest = (0..s.nodes.len())
                .map(|mut x| {
                    let mut d = 0;
                    while let Some(p) = s
                        .nodes
                        .iter()
                        .position(|n| n.calls.iter().any(|&(_, c)| c == x))
                    {
                        x = p;
                        d += 1;
                    }
                    d
                })
                .max();
            assert!(deepest <= Some(MAX_NESTING));
        }
    }

    #[test]
    fn recursion_unrolls_once() {
        let p = program(
            "
.func fib params 1 lists 0 locals 0 stack 2 value
.slots n
    jge.li n 2 L
    ldl n
    retv
L:
    ldl.add.i n -1
    call fib
    ldl.add.i n -2
    call fib
    add
    retv
.end
",
        );
        let s = plan(&p, &[Vec::new()]);
        // fib's two calls spliced, the four calls inside them native.
        assert_eq!(s.calls, 2);
        assert_eq!(s.native_callees(&p, 0), vec![0]);
    }
}
