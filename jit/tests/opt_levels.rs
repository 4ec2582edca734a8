//! The two optimization levels (`docs/jit.md`, "Two optimization levels"):
//! a function whose body, with what is spliced into it, has no loop and
//! that is not recursive is compiled without Cranelift's optimizer; every
//! other one with it. Checked by the count in `CompileStats`, and the results of each
//! kind against the interpreter.

mod common;

use common::program;
use cvm::Backend;
use cvm::Limits;
use cvm_testkit::oracle::{check_backends, Scenario};
use jit::JitProgram;

/// Compiles `src`, checks it on every backend against the interpreter and
/// returns how many functions were compiled without the optimizer.
fn unoptimized(src: &str) -> usize {
    let p = program(src);
    let scenario = Scenario {
        runs: 2,
        ..Scenario::new(Limits {
            fuel: Some(100_000),
            max_depth: 64,
        })
    };
    check_backends(&p, &scenario, &Backend::ALL).unwrap_or_else(|e| panic!("{e}"));
    JitProgram::compile(&p)
        .unwrap_or_else(|e| panic!("{e}"))
        .stats()
        .unoptimized_functions
}

#[test]
fn straight_line_code_is_compiled_without_the_optimizer() {
    // One straight-line function: arithmetic, a comparison, a branch
    // forward.
    let n = unoptimized(
        "
.entry main
.func main params 0 lists 0 locals 1 stack 2 value
    push 6
    push 7
    mul
    stl 0
    ldl 0
    push 40
    jle L_small
    ldl 0
    retv
L_small:
    push 0
    retv
.end
",
    );
    assert_eq!(n, 1);
}

/// Code compiled because it is hot (the tiered backend's closures, the
/// hosts' upgrade from baseline code: `compile_closure`) has the optimizer
/// in every function, straight-line ones too: such a function is called
/// again and again.
#[test]
fn hot_code_is_optimized_in_every_function() {
    let p = program(
        "
.entry main
.func main params 0 lists 0 locals 0 stack 2 value
    call f
    push 1
    add
    retv
.end
.func f params 0 lists 0 locals 0 stack 2 value
    push 6
    push 7
    mul
    retv
.end
",
    );
    let eager = JitProgram::compile(&p).expect("compiles");
    assert_eq!(eager.stats().unoptimized_functions, 2);
    let hot = JitProgram::compile_closure(&p, &[0]).expect("compiles");
    assert_eq!(hot.stats().functions, 2);
    assert_eq!(hot.stats().unoptimized_functions, 0);
}

#[test]
fn loops_and_recursion_keep_the_optimizer() {
    // A loop (a backward jump).
    let n = unoptimized(
        "
.entry main
.func main params 0 lists 0 locals 1 stack 2 value
    push 0
    stl 0
L_top:
    ldl 0
    add.i 1
    stl 0
    ldl 0
    push 100
    jlt L_top
    ldl 0
    retv
.end
",
    );
    assert_eq!(n, 0);
    // Recursion (the benchmark's fib, which runs out of the scenario's
    // fuel alike on every backend): fib calls itself and keeps the
    // optimizer; main, which calls fib once per call, does not need it.
    let n = unoptimized(include_str!("../../benches/programs/fib.asm"));
    assert_eq!(n, 1);
}

#[test]
fn a_call_spliced_away_leaves_straight_line_code() {
    // main calls a small leaf, whose body is spliced into main: main is
    // then straight-line; the leaf itself is too.
    let n = unoptimized(
        "
.entry main
.func twice params 1 lists 0 locals 0 stack 2 value
.slots x
    ldl x
    ldl x
    add
    retv
.end

.func main params 0 lists 0 locals 0 stack 1 value
    push 21
    call twice
    retv
.end
",
    );
    assert_eq!(n, 2);
}
