//! Regression tests for what fuzzing found in the JIT (see
//! `docs/fuzzing.md`): each is the smallest program that showed the
//! problem, checked with the oracle that caught it.

use cvm::Backend;
use cvm::{Limits, Program};
use cvm_testkit::oracle::{check_backends, Scenario};

fn program(asm: &str) -> Program {
    Program::new(cvm::asm::assemble(asm).unwrap_or_else(|e| panic!("{e}"))).expect("verifies")
}

/// The interpreter and the JIT agree on `asm` (run once, plenty of fuel).
fn backends_agree(asm: &str) {
    let p = program(asm);
    let backends = Backend::ALL;
    let scenario = Scenario::new(Limits::default());
    if let Err(e) = check_backends(&p, &scenario, &backends) {
        panic!("{e}");
    }
}

/// Inlining a pattern call whose compoperator is a known constant
/// subtracted the compoperator base from it unchecked: a constant near
/// `i32::MIN` overflowed, and the JIT panicked while compiling a verified
/// program (in builds with overflow checks; found by the `differential`
/// target). The interpreter reads such an operator as invalid, and so
/// must the JIT.
#[test]
fn inlined_pattern_with_a_far_out_compoperator_compiles() {
    for op in [i32::MIN, i32::MIN + 1, -1, i32::MAX] {
        backends_agree(&format!(
            "
.entry main
.list rank2 1 = 65
.list aline 1 = 784
.func main params 0 lists 0 locals 0 stack 4 proc
    push 512
    push {op}
    push 8
    lref rank2
    intr CmpNrPcs
    write
    push 2
    push {op}
    push 2
    lref aline
    intr POnLine
    write
    ret
.end
"
        ));
    }
}
