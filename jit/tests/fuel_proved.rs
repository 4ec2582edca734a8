//! Fuel proved at entry (`docs/jit.md`, "Fuel proved at entry"): hot code
//! (`JitProgram::compile_closure`, the tiered backend's closures) of a
//! straight-line function that only the embedder calls, whose every charge
//! is a constant, checks no fuel inside; its entry compares the fuel with
//! the sum of its charges and a call with less runs on the interpreter.
//! Every fuel from none to more than enough must give what the interpreter
//! gives: the result or the error with its offset, the fuel used, the
//! memory and the output.

mod common;

use common::program;
use cvm::{CollectOutput, Completion, Interpreter, Limits, Program, RuntimeError, Vm};
use cvm_testkit::oracle::ScenarioHost;
use jit::{JitProgram, TierConfig, TieredProgram};

/// A hook in the manner of the engine's `Evaluate()`: intrinsics with
/// constant arguments (compiled inline), `fuel` charges, a branch on a
/// pattern, writes to a global before the later charges, a spliced call
/// and output; `main` is the other entry and calls `f`, which keeps its
/// checks (a call brings the fuel its caller has left, which no entry
/// proved).
const SRC: &str = "
.entry main
.global g 0
.global h 0
.list side 3 = 1 2 -1
.list pawns 9
.list knights 65
.func main params 0 lists 0 locals 0 stack 2 value
    push 5
    call f
    retv
.end
.func f params 1 lists 0 locals 0 stack 3 value
    fuel 4
    ldl 0
    push 2
    mul
    stg g
    fuel 3
    ldg g
    retv
.end
.func hook params 0 lists 0 locals 1 stack 5 value
    push 0
    lref pawns
    intr GetPassed
    stl 0
    ldl 0
    stg g
    fuel 7
    push 513
    lref knights
    intr GetControl
    ldl 0
    add
    stl 0
    push 0
    lref side
    intr KingPos
    jz L_skip
    fuel 11
    ldl 0
    push 10
    add
    stl 0
L_skip:
    ldl 0
    call twice
    stg h
    ldg h
    write
    fuel 2
    ldg h
    retv
.end
.func twice params 1 lists 0 locals 0 stack 2 value
    ldl 0
    push 2
    mul
    retv
.end
";

/// One call's outcome and the state after it.
#[derive(Debug, PartialEq)]
struct Seen {
    result: Result<Completion, RuntimeError>,
    fuel_used: u64,
    memory: cvm::Memory,
    output: Vec<cvm::OutputLine>,
}

/// Calls `func` twice on `vm` with `fuel` for each call.
fn seen(vm: &mut dyn Vm, func: u32, fuel: u64) -> Vec<Seen> {
    seen_n(vm, func, fuel, 2)
}

/// Calls `func` `n` times on `vm` with `fuel` for each call.
fn seen_n(vm: &mut dyn Vm, func: u32, fuel: u64, n: usize) -> Vec<Seen> {
    vm.set_limits(Limits {
        fuel: Some(fuel),
        ..Limits::default()
    });
    let board = cvm_testkit::programs::board(3, 1);
    (0..n)
        .map(|_| {
            let mut out = CollectOutput::default();
            let result = vm.call(func, &[], &mut ScenarioHost { board }, &mut out);
            Seen {
                result,
                fuel_used: vm.fuel_used(),
                memory: vm.memory().clone(),
                output: out.lines,
            }
        })
        .collect()
}

fn function(p: &Program, name: &str) -> u32 {
    p.module()
        .functions
        .iter()
        .position(|f| f.name == name)
        .unwrap_or_else(|| panic!("no function {name}")) as u32
}

/// Checks that the VMs `instance` makes run `func` as the interpreter does (two calls each: the
/// result, the fuel used, memory and output) at every fuel of `fuels`; `what` names the case in a
/// failure.
fn agrees_at_every_fuel<V: Vm>(
    p: &Program,
    func: u32,
    fuels: impl IntoIterator<Item = u64>,
    mut instance: impl FnMut() -> V,
    what: &str,
) {
    for fuel in fuels {
        let want = seen(&mut Interpreter::new(p), func, fuel);
        let got = seen(&mut instance(), func, fuel);
        assert_eq!(got, want, "{what}function {func}, fuel {fuel}");
    }
}

/// What the hook uses with plenty of fuel, on the interpreter.
fn full_cost(p: &Program, func: u32) -> u64 {
    let mut vm = Interpreter::new(p);
    let s = seen(&mut vm, func, 1_000_000);
    assert!(s[0].result.is_ok(), "{:?}", s[0].result);
    s[0].fuel_used
}

#[test]
fn hot_code_of_an_embedder_entry_proves_its_fuel_and_agrees_at_every_fuel() {
    let p = program(SRC);
    let hook = function(&p, "hook");
    let main = function(&p, "main");
    let jit = JitProgram::compile_closure(&p, &[hook, main]).expect("compiles");
    // `hook` and `main` (with `f` spliced into it) are proved; `f` is
    // called, and keeps its checks.
    assert_eq!(jit.stats().spliced_calls, 2, "{:?}", jit.stats());
    assert_eq!(jit.stats().fuel_proved_functions, 2, "{:?}", jit.stats());
    let cost = full_cost(&p, hook);
    assert!(cost > 20, "the hook charges {cost}");
    for func in [hook, main] {
        let fuels = (0..=cost + 3).chain([u64::from(u32::MAX)]);
        agrees_at_every_fuel(&p, func, fuels, || jit.instance(), "");
    }
}

#[test]
fn the_tiered_backend_agrees_at_every_fuel() {
    let p = program(SRC);
    let hook = function(&p, "hook");
    let cost = full_cost(&p, hook);
    // Native code from the first call on.
    let tiered = TieredProgram::new(p.clone(), TierConfig::switch_at(0));
    agrees_at_every_fuel(&p, hook, 0..=cost + 3, || tiered.instance(), "tiered: ");
}

#[test]
fn the_tiered_backends_kept_instances_agree_at_every_fuel() {
    // Baseline code after the second call, Cranelift's after the fourth:
    // the embedder's calls run on the interpreter, then on the instances
    // of native code the tiered instance keeps.
    let p = program(SRC);
    let hook = function(&p, "hook");
    let cost = full_cost(&p, hook);
    for fuel in 0..=cost + 3 {
        let want = seen_n(&mut Interpreter::new(&p), hook, fuel, 6);
        let tiered = TieredProgram::new(p.clone(), TierConfig::by_calls(3, 1));
        let got = seen_n(&mut tiered.instance(), hook, fuel, 6);
        assert_eq!(got, want, "fuel {fuel}");
        assert_eq!(tiered.codegen_of(hook), Some(jit::CodeGen::Cranelift));
    }
}

#[test]
fn eager_code_keeps_its_fuel_checks() {
    // Compiled on the caller's path, a straight-line function is not
    // optimized and keeps a check at each charge.
    let p = program(SRC);
    let jit = JitProgram::compile(&p).expect("compiles");
    assert_eq!(jit.stats().fuel_proved_functions, 0);
}

/// Hooks with a charge known only at run time: `SetSqrs` on a list the
/// program fills (charged by the list's count, or by the shim when no
/// fill waits), and an intrinsic whose argument is read from a global (the
/// shim charges it).
const DYNAMIC: [&str; 2] = [
    "
.entry hook
.list squares 9
.func hook params 0 lists 0 locals 0 stack 4 value
    push 0
    lref squares
    intr GetPassed
    push 513
    push 8
    lref squares
    intr SetSqrs
    retv
.end
",
    "
.entry hook
.global colour 1
.list pawns 9
.func hook params 0 lists 0 locals 0 stack 4 value
    fuel 5
    ldg colour
    lref pawns
    intr GetPassed
    fuel 3
    retv
.end
",
];

#[test]
fn a_hook_with_a_charge_known_only_at_run_time_keeps_its_checks() {
    for src in DYNAMIC {
        let p = program(src);
        let hook = function(&p, "hook");
        let jit = JitProgram::compile_closure(&p, &[hook]).expect("compiles");
        assert_eq!(jit.stats().fuel_proved_functions, 0, "{:?}", jit.stats());
        let cost = full_cost(&p, hook);
        agrees_at_every_fuel(&p, hook, 0..=cost + 2, || jit.instance(), src);
    }
}

#[test]
fn a_function_the_program_calls_keeps_its_checks() {
    // `g` is straight-line with constant charges, but too long to be
    // spliced: `main` calls it natively, bringing whatever fuel it has
    // left, which no entry proved.
    let src = format!(
        "
.entry main
.global r 0
.func main params 0 lists 0 locals 1 stack 2 value
    push 3
    stl 0
L_top:
    call g
    stg r
    ldl 0
    push 1
    sub
    stl 0
    ldl 0
    push 0
    jgt L_top
    ldg r
    retv
.end
.func g params 0 lists 0 locals 0 stack 1 value
{}
    push 7
    retv
.end
",
        "    fuel 2\n".repeat(33)
    );
    let p = program(&src);
    let main = function(&p, "main");
    let g = function(&p, "g");
    let jit = JitProgram::compile_closure(&p, &[main, g]).expect("compiles");
    assert_eq!(jit.stats().spliced_calls, 0, "{:?}", jit.stats());
    assert_eq!(jit.stats().fuel_proved_functions, 0, "{:?}", jit.stats());
    let cost = full_cost(&p, main);
    for func in [main, g] {
        agrees_at_every_fuel(&p, func, 0..=cost + 2, || jit.instance(), "");
    }
}
