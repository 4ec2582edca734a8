//! The control-flow graph of one function, instruction by instruction, and
//! its dominator tree.
//!
//! Both are built once per function and in time near-linear in its size:
//! the dominators by Lengauer and Tarjan's algorithm (path compression,
//! `O(m log n)`), and dominance queries in constant time from the
//! dominator tree's pre- and post-order numbers. (An iterative scheme
//! walking dominator chains is quadratic on long straight-line code or on
//! many jumps to one label, which a 10,000-term expression produces.)

use cvm::isa::Flow;
use cvm::verify::FunctionInfo;
use std::collections::HashMap;

/// The control-flow graph of a function's reachable instructions, by
/// position in [`FunctionInfo::instrs`].
pub(crate) struct Cfg {
    pub succ: Vec<Vec<usize>>,
    pub pred: Vec<Vec<usize>>,
    /// Position by code offset.
    pub at: HashMap<u32, usize>,
    /// Jump targets and instructions after a branch or terminator: where
    /// the lowering starts blocks.
    pub leader: Vec<bool>,
}

impl Cfg {
    /// The graph of `info`'s reachable instructions.
    pub fn new(info: &FunctionInfo) -> Cfg {
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
            at,
            leader,
        }
    }
}

/// Whether some reachable jump of `info` goes to an instruction at or
/// before itself. Every cycle of the control flow contains such a jump
/// (falling through only goes forward), so a function without one has no
/// loop, and the loop analysis can skip it without building a graph.
pub(crate) fn has_backward_jump(info: &FunctionInfo) -> bool {
    info.instrs
        .iter()
        .any(|i| i.depth.is_some() && i.instr.target().is_some_and(|t| t <= i.offset))
}

/// Not a node: the end of a chain in the arrays below.
const NONE: usize = usize::MAX;

/// The dominator tree of a [`Cfg`] rooted at instruction 0, with
/// constant-time dominance queries.
pub(crate) struct Dominators {
    /// Position of each instruction in a pre-order walk of the dominator
    /// tree; `NONE` for unreachable instructions.
    pre: Vec<usize>,
    /// The last pre-order position inside each instruction's subtree.
    last: Vec<usize>,
}

impl Dominators {
    /// The dominators of `g` (Lengauer and Tarjan, the simple version with
    /// path compression).
    pub fn new(g: &Cfg) -> Dominators {
        let n = g.succ.len();
        let mut pre = vec![NONE; n];
        let mut last = vec![NONE; n];
        if n == 0 {
            return Dominators { pre, last };
        }
        // Depth-first numbering of the nodes reachable from 0.
        let mut dfnum = vec![NONE; n];
        let mut vertex: Vec<usize> = Vec::new();
        let mut parent: Vec<usize> = Vec::new();
        let mut stack = vec![(0usize, 0usize)];
        dfnum[0] = 0;
        vertex.push(0);
        parent.push(NONE);
        while let Some(top) = stack.last_mut() {
            let (v, k) = *top;
            if let Some(&w) = g.succ[v].get(k) {
                top.1 += 1;
                if dfnum[w] == NONE {
                    dfnum[w] = vertex.len();
                    vertex.push(w);
                    parent.push(dfnum[v]);
                    stack.push((w, 0));
                }
            } else {
                stack.pop();
            }
        }
        // Semidominators and immediate dominators, in depth-first numbers.
        let m = vertex.len();
        let mut semi: Vec<usize> = (0..m).collect();
        let mut label: Vec<usize> = (0..m).collect();
        let mut ancestor = vec![NONE; m];
        let mut idom = vec![0usize; m];
        let mut bucket: Vec<Vec<usize>> = vec![Vec::new(); m];
        let mut path: Vec<usize> = Vec::new();
        // The node with the least semidominator on the compressed path
        // from `v` up to the root of its tree in the forest.
        let mut eval = |v: usize, ancestor: &mut [usize], label: &mut [usize], semi: &[usize]| {
            if ancestor[v] == NONE {
                return v;
            }
            path.clear();
            let mut x = v;
            while ancestor[ancestor[x]] != NONE {
                path.push(x);
                x = ancestor[x];
            }
            for &y in path.iter().rev() {
                let a = ancestor[y];
                if semi[label[a]] < semi[label[y]] {
                    label[y] = label[a];
                }
                ancestor[y] = ancestor[a];
            }
            label[v]
        };
        for w in (1..m).rev() {
            let p = parent[w];
            for &v in &g.pred[vertex[w]] {
                let v = dfnum[v];
                if v == NONE {
                    continue;
                }
                let u = eval(v, &mut ancestor, &mut label, &semi);
                if semi[u] < semi[w] {
                    semi[w] = semi[u];
                }
            }
            bucket[semi[w]].push(w);
            ancestor[w] = p;
            for v in std::mem::take(&mut bucket[p]) {
                let u = eval(v, &mut ancestor, &mut label, &semi);
                idom[v] = if semi[u] < semi[v] { u } else { p };
            }
        }
        for w in 1..m {
            if idom[w] != semi[w] {
                idom[w] = idom[idom[w]];
            }
        }
        // Pre-order numbers of the dominator tree and the extent of each
        // subtree.
        let mut children: Vec<Vec<usize>> = vec![Vec::new(); m];
        for w in 1..m {
            children[idom[w]].push(w);
        }
        let mut counter = 0usize;
        let mut walk = vec![(0usize, 0usize)];
        pre[vertex[0]] = counter;
        while let Some(top) = walk.last_mut() {
            let (v, k) = *top;
            if let Some(&c) = children[v].get(k) {
                top.1 += 1;
                counter += 1;
                pre[vertex[c]] = counter;
                walk.push((c, 0));
            } else {
                last[vertex[v]] = counter;
                walk.pop();
            }
        }
        Dominators { pre, last }
    }

    /// Whether instruction `a` dominates instruction `b` (every path from
    /// the entry to `b` passes `a`; an instruction dominates itself).
    /// False when either is unreachable.
    pub fn dominates(&self, a: usize, b: usize) -> bool {
        let (pa, pb) = (self.pre[a], self.pre[b]);
        pa != NONE && pb != NONE && pa <= pb && pb <= self.last[a]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cvm::asm::assemble;
    use cvm::Program;

    /// Dominators by the definition: `a` dominates `b` when `b` cannot be
    /// reached from the entry with `a` removed.
    fn brute(g: &Cfg, a: usize, b: usize) -> bool {
        let n = g.succ.len();
        let reach = |without: Option<usize>| {
            let mut seen = vec![false; n];
            if without == Some(0) {
                return seen;
            }
            let mut work = vec![0];
            seen[0] = true;
            while let Some(v) = work.pop() {
                for &w in &g.succ[v] {
                    if Some(w) != without && !seen[w] {
                        seen[w] = true;
                        work.push(w);
                    }
                }
            }
            seen
        };
        let all = reach(None);
        if !all[a] || !all[b] {
            return false;
        }
        a == b || !reach(Some(a))[b]
    }

    #[test]
    fn dominators_match_the_definition() {
        let src = "
.func main params 1 lists 0 locals 1 stack 2 value
.slots p x
L0:
    ldl p
    jz L1
    incl x
    jmp L2
L1:
    decl x
L2:
    incl p
    jlt.li p 3 L0
    ldl x
    jz L4
L3:
    incl x
    jlt.li x 10 L3
L4:
    ldl x
    retv
    push 1
    retv
.end
";
        let p = Program::new(assemble(src).expect("assembles")).expect("verifies");
        let info = p.function_info(0);
        let g = Cfg::new(info);
        let d = Dominators::new(&g);
        let n = g.succ.len();
        for a in 0..n {
            for b in 0..n {
                assert_eq!(d.dominates(a, b), brute(&g, a, b), "{a} dom {b}");
            }
        }
        assert!(has_backward_jump(info));
    }
}
