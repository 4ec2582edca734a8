//! Call-depth bounds: when no recursion is reachable from a function, the
//! deepest nesting a call to it can reach is the longest call chain, known
//! at compile time, and the instance then reserves native stack for that
//! many frames instead of for the whole depth limit.

use cvm::isa::Opcode;
use cvm::Program;

/// For each function, the deepest call nesting (in frames, the function's
/// own included) that a call to it can reach, or `None` when recursion is
/// reachable from it.
/// `callees` is the program's [`call_graph`].
pub(crate) fn depth_bounds(callees: &[Vec<u32>]) -> Vec<Option<u32>> {
    let n = callees.len();
    // Iterative depth-first search: 0 = unvisited, 1 = on the path, 2 = done.
    let mut state = vec![0u8; n];
    let mut bound: Vec<Option<u32>> = vec![None; n];
    for root in 0..n {
        if state[root] != 0 {
            continue;
        }
        let mut path: Vec<(usize, usize)> = vec![(root, 0)];
        state[root] = 1;
        while let Some(&mut (f, ref mut next)) = path.last_mut() {
            if let Some(&c) = callees[f].get(*next) {
                *next += 1;
                let c = c as usize;
                if state[c] == 0 {
                    state[c] = 1;
                    path.push((c, 0));
                }
                // A callee on the path is a cycle: `f` stays unbounded,
                // which the final fold below records.
                continue;
            }
            path.pop();
            state[f] = 2;
            let mut deepest = Some(0u32);
            for &c in &callees[f] {
                let c = c as usize;
                let b = if state[c] == 2 { bound[c] } else { None };
                deepest = match (deepest, b) {
                    (Some(x), Some(y)) => Some(x.max(y)),
                    _ => None,
                };
            }
            bound[f] = deepest.and_then(|d| d.checked_add(1));
        }
    }
    bound
}

/// The functions each function calls (reachable `call` instructions),
/// sorted, without repeats: what [`depth_bounds`] and [`recursive`] read.
pub(crate) fn call_graph(program: &Program) -> Vec<Vec<u32>> {
    program
        .function_infos()
        .iter()
        .map(|info| {
            let mut c: Vec<u32> = info
                .instrs
                .iter()
                .filter(|i| i.depth.is_some() && i.instr.opcode == Opcode::Call)
                .map(|i| i.instr.operands[0])
                .collect();
            c.sort_unstable();
            c.dedup();
            c
        })
        .collect()
}

/// For each function, whether it is recursive: a chain of calls leads from
/// it back to itself (it lies on a cycle of the call graph). Tarjan's
/// strongly connected components, iteratively, in time linear in the calls.
/// `callees` is the program's [`call_graph`].
pub(crate) fn recursive(callees: &[Vec<u32>]) -> Vec<bool> {
    let n = callees.len();
    const UNSEEN: usize = usize::MAX;
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0usize; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<usize> = Vec::new();
    let mut out = vec![false; n];
    let mut next_index = 0;
    for root in 0..n {
        if index[root] != UNSEEN {
            continue;
        }
        // (function, next callee to look at)
        let mut path: Vec<(usize, usize)> = vec![(root, 0)];
        index[root] = next_index;
        low[root] = next_index;
        next_index += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (f, ref mut next)) = path.last_mut() {
            if let Some(&c) = callees[f].get(*next) {
                *next += 1;
                let c = c as usize;
                if index[c] == UNSEEN {
                    index[c] = next_index;
                    low[c] = next_index;
                    next_index += 1;
                    stack.push(c);
                    on_stack[c] = true;
                    path.push((c, 0));
                } else if on_stack[c] {
                    low[f] = low[f].min(index[c]);
                }
                continue;
            }
            path.pop();
            if let Some(&(parent, _)) = path.last() {
                low[parent] = low[parent].min(low[f]);
            }
            if low[f] == index[f] {
                // `f` is the root of a component: pop it.
                let mut members = Vec::new();
                while let Some(m) = stack.pop() {
                    on_stack[m] = false;
                    members.push(m);
                    if m == f {
                        break;
                    }
                }
                let cycle = members.len() > 1 || callees[f].binary_search(&(f as u32)).is_ok();
                if cycle {
                    for m in members {
                        out[m] = true;
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use cvm::asm::assemble;

    fn program(src: &str) -> Program {
        Program::new(assemble(src).expect("assembles")).expect("verifies")
    }

    #[test]
    fn bounds_follow_the_call_graph() {
        let p = program(
            "
.func main params 0 lists 0 locals 0 stack 1 proc
    call a
    call r
    ret
.end
.func a params 0 lists 0 locals 0 stack 1 proc
    call b
    ret
.end
.func b params 0 lists 0 locals 0 stack 1 proc
    ret
.end
.func r params 0 lists 0 locals 0 stack 1 proc
    call r
    ret
.end
",
        );
        assert_eq!(
            depth_bounds(&call_graph(&p)),
            vec![None, Some(2), Some(1), None]
        );
        assert_eq!(recursive(&call_graph(&p)), vec![false, false, false, true]);
    }

    #[test]
    fn recursion_is_a_cycle_of_calls() {
        // main -> a -> b -> a (a cycle of two), b -> c (leaves it), main ->
        // s -> s (a self call), d unreachable and alone.
        let p = program(
            "
.func main params 0 lists 0 locals 0 stack 1 proc
    call a
    call s
    ret
.end
.func a params 0 lists 0 locals 0 stack 1 proc
    call b
    ret
.end
.func b params 0 lists 0 locals 0 stack 1 proc
    call a
    call c
    ret
.end
.func c params 0 lists 0 locals 0 stack 1 proc
    ret
.end
.func s params 0 lists 0 locals 0 stack 1 proc
    call s
    ret
.end
.func d params 0 lists 0 locals 0 stack 1 proc
    ret
.end
",
        );
        assert_eq!(
            recursive(&call_graph(&p)),
            vec![false, true, true, false, true, false]
        );
    }
}
