//! Call-depth bounds: when no recursion is reachable from a function, the
//! deepest nesting a call to it can reach is the longest call chain, known
//! at compile time, and the instance then reserves native stack for that
//! many frames instead of for the whole depth limit.

use cvm::isa::Opcode;
use cvm::Program;

/// For each function, the deepest call nesting (in frames, the function's
/// own included) that a call to it can reach, or `None` when recursion is
/// reachable from it.
pub(crate) fn depth_bounds(program: &Program) -> Vec<Option<u32>> {
    let module = program.module();
    let n = module.functions.len();
    let callees: Vec<Vec<u32>> = program
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
        .collect();
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
        assert_eq!(depth_bounds(&p), vec![None, Some(2), Some(1), None]);
    }
}
