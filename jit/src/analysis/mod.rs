//! What the JIT learns about a program before it emits any code: facts
//! about the CVM program alone, with no Cranelift type in sight (a test,
//! `jit/tests/layout.rs`, fails on any Cranelift crate named under this
//! folder, and on any use of the lowering). The lowering (`src/lower/`)
//! reads them.
//!
//! | module | facts |
//! |--------|-------|
//! | [`cvm::list_facts`] (re-exported) | which lists are constant (the optimizer needs them too) |
//! | [`constant_elements`] | the distinct elements of each constant list |
//! | [`deferred`] | which lists only `Get` forms fill, so that compiled code may keep their sets as bitboards |
//! | [`depth`] | the deepest call nesting reachable from each function, and which functions are recursive |
//! | [`loops`] | counted loops: bounded trip count, what the guard proves |
//! | [`splice`] | which calls are spliced (lowered as the callee's body), under the code-growth budget |
//!
//! Every analysis takes time linear in the program's size (the loop
//! analysis near-linear: its dominator tree is `O(m log n)`).

pub(crate) mod deferred;
pub(crate) mod depth;
pub(crate) mod loops;
pub(crate) mod splice;

pub(crate) use cvm::{list_facts, ListFacts};
pub(crate) use depth::{call_graph, depth_bounds, recursive};

use cvm::Memory;
use std::collections::HashSet;

/// The distinct elements of each constant list (before its first end
/// marker, in order of first appearance), `None` for lists that can
/// change. A pattern test on a list is the same test for an element named
/// twice, so native patterns look at each distinct element once; computing
/// them once per list keeps the cost of a pattern call independent of its
/// list's length.
pub(crate) fn constant_elements(facts: &ListFacts, initial: &Memory) -> Vec<Option<Vec<i32>>> {
    facts
        .constant
        .iter()
        .enumerate()
        .map(|(l, &constant)| {
            constant.then(|| {
                let mut seen = HashSet::new();
                initial
                    .list_elements(l as u32)
                    .iter()
                    .copied()
                    .filter(|&e| seen.insert(e))
                    .collect()
            })
        })
        .collect()
}
