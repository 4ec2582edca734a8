//! The optimizer's CVM-level inlining on both backends: programs built to
//! exercise every case of `cvm::opt::inline` (chains of callees without
//! calls, callees that call, recursion inlined into itself, parameters
//! written by the callee, callee locals, procedures, early returns, errors
//! inside inlined bodies) are run inlined and not, under sweeps of the
//! depth limit and the fuel, and must agree exactly with the original:
//! result or error kind and source position, output, memory, fuel used.

mod common;

use common::program;
use cvm::isa::Opcode;
use cvm::Backend;
use cvm::{Limits, Program};
use cvm_testkit::oracle::{check_backends, check_optimizer, Scenario};

fn options(recursive: bool) -> cvm::opt::Options {
    let mut o = cvm::opt::Options::default();
    o.inline_limits.recursive = recursive;
    o
}

/// Checks the program under every depth limit in `depths` and every fuel
/// in `fuels`, with plain and recursive inlining, on both backends.
fn sweep(p: &Program, depths: std::ops::Range<u32>, fuels: &[u64]) {
    for depth in depths {
        for &fuel in fuels {
            let s = Scenario {
                limits: Limits {
                    fuel: Some(fuel),
                    max_depth: depth,
                },
                board: cvm_testkit::programs::board(0, 0),
                runs: 2,
                call: None,
            };
            let backends = Backend::ALL;
            check_backends(p, &s, &backends)
                .unwrap_or_else(|e| panic!("depth {depth}, fuel {fuel}: {e}"));
            for recursive in [false, true] {
                check_optimizer(p, &s, options(recursive), &backends).unwrap_or_else(|e| {
                    let (o, _) = cvm::opt::optimize_with(p, options(recursive));
                    panic!(
                        "depth {depth}, fuel {fuel}, recursive {recursive}: {e}\n{}",
                        cvm::asm::disassemble(o.module())
                    )
                });
            }
        }
    }
}

fn count(p: &Program, func: &str, op: Opcode) -> usize {
    let m = p.module();
    let i = m
        .functions
        .iter()
        .position(|f| f.name == func)
        .expect("function exists");
    p.function_info(i as u32)
        .instrs
        .iter()
        .filter(|x| x.instr.opcode == op)
        .count()
}

const FUELS: &[u64] = &[0, 1, 2, 3, 5, 8, 13, 21, 40, 100, 1000, 100_000];

/// mix <- step <- main: the whole chain flattens into main's loop, with
/// `enter 1` and `enter 2` for the two depths.
const CHAIN: &str = r#"
.entry main
.func mix params 2 lists 0 locals 0 stack 2 value
.slots a b
    ldl a
    ldl b
    bxor
    add.i 1
    retv
.end
.func step params 2 lists 0 locals 0 stack 2 value
.slots acc i
    ldl acc
    ldl i
    call mix
    push 1023
    band
    retv
.end
.func main params 0 lists 0 locals 2 stack 2 value
.slots i acc
L:
    ldl acc
    ldl i
    call step
    stl acc
    incl i
    ldl i
    push 30
    jlt L
    ldl acc
    retv
.end
"#;

#[test]
fn a_chain_of_leaf_callees_flattens_and_agrees() {
    let p = program(CHAIN);
    let (o, report) = cvm::opt::optimize(&p);
    assert!(!report.fell_back);
    assert!(report.inlined >= 2, "{report:?}");
    assert_eq!(count(&o, "main", Opcode::Call), 0);
    assert_eq!(count(&o, "main", Opcode::Enter), 2);
    assert_eq!(count(&o, "main", Opcode::EnterF), 0);
    sweep(&p, 1..5, FUELS);
}

/// A callee that calls is inlined with `enter.f` ... `leave`, so the call
/// inside it sees the depth it would have seen; a division by zero inside
/// the inlined body keeps its position.
const NESTED: &str = r#"
.entry main
.func leafy params 1 lists 0 locals 0 stack 2 value
.slots x
    push 100
    ldl x
    div
    retv
.end
.func outer params 1 lists 0 locals 1 stack 2 value
.slots x t
    ldl x
    call leafy
    stl t
    ldl t
    ldl x
    call deep
    add
    retv
.end
.func deep params 1 lists 0 locals 0 stack 2 value
.slots n
    ldl n
    push 1
    lt
    jz R
    push 0
    retv
R:
    ldl n
    push 1
    sub
    call deep
    push 1
    add
    retv
.end
.func main params 0 lists 0 locals 1 stack 2 value
.slots k
L:
    ldl k
    push 3
    sub
    call outer
    write
    incl k
    ldl k
    push 5
    jlt L
    push 7
    retv
.end
"#;

#[test]
fn callees_that_call_count_their_frame_and_agree() {
    let p = program(NESTED);
    let (o, report) = cvm::opt::optimize(&p);
    assert!(!report.fell_back);
    assert!(count(&o, "main", Opcode::EnterF) >= 1, "{report:?}");
    assert_eq!(
        count(&o, "main", Opcode::EnterF),
        count(&o, "main", Opcode::Leave)
    );
    sweep(&p, 1..9, FUELS);
}

/// Recursion: with `recursive` set, fib is inlined into itself once.
const FIB: &str = r#"
.entry main
.func fib params 1 lists 0 locals 0 stack 3 value
.slots n
    ldl n
    push 2
    lt
    jz R
    ldl n
    retv
R:
    ldl n
    push 1
    sub
    call fib
    ldl n
    push 2
    sub
    call fib
    add
    retv
.end
.func main params 0 lists 0 locals 0 stack 1 value
    push 9
    call fib
    retv
.end
"#;

#[test]
fn recursion_inlined_into_itself_agrees() {
    let p = program(FIB);
    let (o, _) = cvm::opt::optimize_with(&p, options(true));
    assert_eq!(count(&o, "fib", Opcode::EnterF), 2);
    assert_eq!(count(&o, "fib", Opcode::Call), 4);
    let (plain, _) = cvm::opt::optimize(&p);
    assert_eq!(count(&plain, "fib", Opcode::EnterF), 0);
    sweep(&p, 1..12, &[0, 1, 7, 30, 54, 55, 56, 200, 100_000]);
}

/// A callee that writes its parameter gets a copy (the caller's slot must
/// not change); callee locals start at zero on every inlined call; a
/// procedure with an early return; output inside the inlined body.
const SLOTS: &str = r#"
.entry main
.func bump params 1 lists 0 locals 1 stack 2 value
.slots p t
    incl p
    ldl t
    ldl p
    add
    stl t
    ldl t
    retv
.end
.func say params 1 lists 0 locals 0 stack 2 proc
.slots v
    ldl v
    push 2
    jge Q
    ret
Q:
    ldl v
    write
    ret
.end
.func main params 0 lists 0 locals 2 stack 3 value
.slots a s
L:
    ldl a
    call bump
    ldl s
    add
    stl s
    ldl a
    call say
    incl a
    ldl a
    push 4
    jlt L
    ldl a
    ldl s
    mul
    retv
.end
"#;

#[test]
fn parameters_locals_and_procedures_agree() {
    let p = program(SLOTS);
    let (o, report) = cvm::opt::optimize(&p);
    assert!(!report.fell_back);
    assert_eq!(count(&o, "main", Opcode::Call), 0, "{report:?}");
    sweep(&p, 1..4, FUELS);
}
