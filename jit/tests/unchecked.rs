//! The measurement-only compilation without inline checks
//! (`JitProgram::compile_unchecked`, feature `measure-unchecked`, which the
//! experiment harness turns on): it computes what the checked code computes
//! on programs that stay in bounds and end, it really leaves the checks out
//! (no fuel charged by the code; less machine code without bounds checks),
//! and plain compilation still checks.
#![cfg(feature = "measure-unchecked")]

use cvm::{CollectOutput, Limits, NoHost, Program, RuntimeError, TrapKind, Vm};
use jit::{JitProgram, Unchecked};

const PROGRAMS: [(&str, &str); 5] = [
    ("calls", include_str!("../../benches/programs/calls.asm")),
    ("fib", include_str!("../../benches/programs/fib.asm")),
    (
        "listcopy",
        include_str!("../../benches/programs/listcopy.asm"),
    ),
    ("loop", include_str!("../../benches/programs/loop.asm")),
    ("sieve", include_str!("../../benches/programs/sieve.asm")),
];

const VARIANTS: [Unchecked; 3] = [
    Unchecked {
        fuel: true,
        bounds: false,
    },
    Unchecked {
        fuel: false,
        bounds: true,
    },
    Unchecked {
        fuel: true,
        bounds: true,
    },
];

fn assemble(name: &str, src: &str) -> Program {
    Program::new(cvm::asm::assemble(src).unwrap_or_else(|e| panic!("{name}: {e}")))
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn unchecked(p: &Program, drop: Unchecked) -> JitProgram {
    // SAFETY: every program here is run checked first (`run_main` on the
    // checked compilation), keeps its indices in range and ends; the tests
    // below only run unchecked code on those programs with the same inputs.
    unsafe { JitProgram::compile_unchecked(p, drop) }.expect("compiles")
}

fn run_main(
    jit: &JitProgram,
    fuel: Option<u64>,
) -> (Result<Option<i32>, RuntimeError>, Vec<cvm::OutputLine>) {
    let mut vm = jit.instance();
    vm.set_limits(Limits {
        fuel,
        ..Limits::default()
    });
    let mut out = CollectOutput::default();
    let r = vm.run_entry(&mut NoHost, &mut out).map(|d| d.value());
    (r, out.lines)
}

#[test]
fn unchecked_code_computes_what_checked_code_computes() {
    for (name, src) in PROGRAMS {
        let p = assemble(name, src);
        let checked = JitProgram::compile(&p).expect("compiles");
        let expected = run_main(&checked, None);
        assert!(expected.0.is_ok(), "{name}: {:?}", expected.0);
        for drop in VARIANTS {
            let got = run_main(&unchecked(&p, drop), None);
            assert_eq!(got, expected, "{name} {drop:?}");
        }
    }
}

#[test]
fn without_fuel_checks_the_code_charges_no_fuel() {
    let p = assemble("loop", PROGRAMS[3].1);
    // Checked code runs out of a small budget; code without fuel checks
    // charges nothing for its backward jumps and finishes.
    let checked = JitProgram::compile(&p).expect("compiles");
    let (r, _) = run_main(&checked, Some(1_000));
    assert_eq!(r.map_err(|e| e.kind), Err(TrapKind::OutOfFuel));
    let no_fuel = unchecked(&p, VARIANTS[0]);
    let (r, _) = run_main(&no_fuel, Some(1_000));
    assert!(r.is_ok(), "{r:?}");
    // Bounds checks dropped, fuel kept: still runs out.
    let no_bounds = unchecked(&p, VARIANTS[1]);
    let (r, _) = run_main(&no_bounds, Some(1_000));
    assert_eq!(r.map_err(|e| e.kind), Err(TrapKind::OutOfFuel));
}

#[test]
fn without_bounds_checks_the_code_is_smaller() {
    let p = assemble("listcopy", PROGRAMS[2].1);
    let checked = JitProgram::compile(&p)
        .expect("compiles")
        .stats()
        .code_bytes;
    let no_bounds = unchecked(&p, VARIANTS[1]).stats().code_bytes;
    assert!(
        no_bounds < checked,
        "no bounds checks: {no_bounds} bytes, checked: {checked}"
    );
}
