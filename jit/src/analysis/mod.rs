//! What the JIT learns about a program before it emits any code: facts
//! about the CVM program alone, with no Cranelift type in sight (a test,
//! `jit/tests/layout.rs`, fails on any Cranelift crate named under this
//! folder, and on any use of the lowering). The lowering (`src/lower/`)
//! reads them.
//!
//! | module | facts |
//! |--------|-------|
//! | [`cvm::analysis`] (re-exported) | which lists are constant (the optimizer needs them too) |
//! | [`depth`] | the deepest call nesting reachable from each function |
//! | [`loops`] | counted loops: bounded trip count, what the guard proves |
//!
//! Every analysis takes time linear in the program's size (the loop
//! analysis near-linear: its dominator tree is `O(m log n)`).

pub(crate) mod depth;
pub(crate) mod loops;

pub(crate) use cvm::analysis::{list_facts, ListFacts};
pub(crate) use depth::depth_bounds;
