//! Arguments known at a spliced call stay known in the callee's body: a
//! parameter the callee never writes holds its argument for the whole
//! frame, so an intrinsic call on it is charged (and its pattern compiled)
//! as if the constant were written there. Checked against the interpreter
//! under a sweep of fuel limits that stops runs at every charge, with a
//! callee that writes one of its parameters (which must not be taken for
//! the argument afterwards).

mod common;

use common::program;
use cvm::Limits;
use cvm_testkit::oracle::{check_backends, Scenario};
use jit::JitProgram;

/// `good(piece, list)` gives the piece a bonus on the squares and tests
/// them; `shift(piece, list)` writes its piece parameter before using it.
/// `main` calls both with constants (wN = 514, wB = 516 in the intrinsic
/// literal encoding the bundled programs use).
const SOURCE: &str = "\
.list sq 4 = 27 28 35
.list other 3 = 18 21
.entry main
.func main params 0 lists 0 locals 0 stack 4 value
    push 514
    lref sq
    call good
    push 516
    lref other
    call good
    add
    push 514
    lref sq
    call shift
    add
    retv
.end
.func good params 1 lists 1 locals 0 stack 3 value
    ldl 0
    push 20
    ldl 1
    intr SetSqrs
    ldl 0
    ldl 1
    intr PcOnSqrs
    retv
.end
.func shift params 1 lists 1 locals 0 stack 3 value
    ldl 0
    push 2
    add
    stl 0
    ldl 0
    push -5
    ldl 1
    intr SetSqrs
    ldl 0
    ldl 1
    intr PcOnSqrs
    retv
.end
";

#[test]
fn known_arguments_of_spliced_calls_charge_as_the_interpreter() {
    let p = program(SOURCE);
    let jit = JitProgram::compile(&p).expect("compiles");
    assert!(
        jit.stats().spliced_calls >= 3,
        "the calls are spliced: {:?}",
        jit.stats()
    );
    for seed in 0..4 {
        for fuel in 0..80 {
            let s = Scenario {
                limits: Limits {
                    fuel: Some(fuel),
                    ..Limits::default()
                },
                board: cvm_testkit::programs::board(seed, u64::from(seed) * 7),
                runs: 2,
                call: None,
            };
            check_backends(&p, &s, &cvm::Backend::ALL)
                .unwrap_or_else(|e| panic!("seed {seed}, fuel {fuel}: {e}"));
        }
    }
}
