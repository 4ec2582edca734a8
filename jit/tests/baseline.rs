//! The baseline code generator on the cases its templates treat apart:
//! frames larger than a page (stack probes), calls with arguments on the
//! native stack, deep recursion to the depth limit, and a call into
//! baseline code from Cranelift's entry trampolines with every arity. Each
//! run is compared with the interpreter: value or error (kind and offset),
//! fuel and memory.

mod common;

use common::program;
use cvm::{CollectOutput, Interpreter, Limits, NoHost, Program, Vm};
use jit::JitProgram;

fn agree(p: &Program, func: &str, args: &[i32], limits: Limits) {
    if !jit::baseline::supported() {
        return;
    }
    let code = JitProgram::compile_baseline(p).expect("compiles");
    let mut vm = code.instance();
    let mut interp = Interpreter::new(p);
    vm.set_limits(limits);
    interp.set_limits(limits);
    let got = vm.call_by_name(func, args, &mut NoHost, &mut CollectOutput::default());
    let want = interp.call_by_name(func, args, &mut NoHost, &mut CollectOutput::default());
    assert!(vm.ran_compiled(), "{func} did not run baseline code");
    assert_eq!(got, want, "{func}{args:?}");
    assert_eq!(vm.fuel_used(), interp.fuel_used(), "{func}{args:?}: fuel");
    assert_eq!(vm.memory(), interp.memory(), "{func}{args:?}: memory");
}

const WIDE: &str = "
.func big params 1 lists 0 locals 3000 stack 2 value
    ldl 0
    stl 2999
    ldl 2999
    push 7
    add
    retv
.end
.func many params 6 lists 0 locals 0 stack 6 value
    ldl 0
    ldl 1
    sub
    ldl 2
    mul
    ldl 3
    add
    ldl 4
    sub
    ldl 5
    mul
    retv
.end
.func caller params 0 lists 0 locals 0 stack 7 value
    push 10
    call big
    push 1
    push 2
    push 3
    push 4
    push 5
    push 6
    call many
    add
    retv
.end
.func down params 1 lists 0 locals 1 stack 2 value
    ldl 0
    push 0
    jle L
    ldl 0
    push 1
    sub
    call down
    push 1
    add
    retv
L:
    push 0
    retv
.end
";

#[test]
fn a_frame_of_several_pages_is_probed_and_runs() {
    agree(&program(WIDE), "big", &[5], Limits::default());
}

#[test]
fn arguments_beyond_the_registers_pass_on_the_stack() {
    let p = program(WIDE);
    agree(&p, "many", &[9, 4, 3, 2, 8, 6], Limits::default());
    agree(&p, "caller", &[], Limits::default());
}

#[test]
fn recursion_stops_at_the_depth_limit_and_by_fuel_as_interpreted() {
    let p = program(WIDE);
    agree(&p, "down", &[50], Limits::default());
    for depth in [1, 2, 10, 49, 50, 51] {
        let limits = Limits {
            max_depth: depth,
            ..Limits::default()
        };
        agree(&p, "down", &[50], limits);
    }
    for fuel in [0, 1, 5, 20, 100] {
        let limits = Limits {
            fuel: Some(fuel),
            ..Limits::default()
        };
        agree(&p, "down", &[50], limits);
    }
}

/// A function of `arity` parameters returning the sum of `(k + 1) *
/// arg[k]`, in assembly.
fn weighted_sum(arity: u32) -> String {
    let mut src =
        format!(".func w{arity} params {arity} lists 0 locals 0 stack 3 value\n    push 0\n");
    for k in 0..arity {
        src.push_str(&format!(
            "    ldl {k}\n    push {}\n    mul\n    add\n",
            k + 1
        ));
    }
    src.push_str("    retv\n.end\n");
    src
}

#[test]
fn entry_trampolines_pass_every_argument_of_every_arity() {
    let src: String = (0..=9).map(weighted_sum).collect();
    let p = program(&src);
    let mut codes = vec![JitProgram::compile(&p).expect("compiles")];
    if jit::baseline::supported() {
        codes.push(JitProgram::compile_baseline(&p).expect("compiles"));
    }
    for code in &codes {
        let mut vm = code.instance();
        for arity in 0..=9u32 {
            let args: Vec<i32> = (0..arity as i32)
                .map(|k| 1000 * (k + 1) - 7 * k * k)
                .collect();
            // Computed here, not by any CVM backend.
            let want: i32 = args.iter().zip(1..).map(|(a, w)| a * w).sum();
            let got = vm.call_by_name(
                &format!("w{arity}"),
                &args,
                &mut NoHost,
                &mut CollectOutput::default(),
            );
            assert!(vm.ran_compiled(), "w{arity} did not run compiled code");
            assert_eq!(
                got,
                Ok(cvm::Completion::Returned(Some(want))),
                "w{arity}{args:?}"
            );
        }
    }
}
