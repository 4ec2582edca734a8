//! Differential property tests: generated verified programs (loops, calls
//! and recursion, lists, globals, switches, for-in, intrinsics, output,
//! halts) run on the interpreter and on the JIT under the same fuel and
//! depth limits must give the same result or the same error (kind and
//! code offset), the same output lines, the same fuel use and the same
//! memory afterwards; on the JIT both when the whole program is compiled
//! at once and when functions are compiled on demand, and with the
//! baseline code generator.

use cvm::Vm;
use cvm::{CollectOutput, Completion, Interpreter, Limits, NoHost, Program, RuntimeError};
use cvm_testkit::oracle::{check_switch_point, check_switch_points, Scenario};
use cvm_testkit::programs::generate;
use jit::JitProgram;
use proptest::prelude::*;

/// Everything observable about one run.
#[derive(Debug, PartialEq)]
struct Outcome {
    result: Result<Completion, (String, u32)>,
    output: Vec<cvm::OutputLine>,
    fuel_used: u64,
    globals: Vec<i32>,
    heap: Vec<i32>,
}

fn simplify(r: Result<Completion, RuntimeError>) -> Result<Completion, (String, u32)> {
    r.map_err(|e| (e.kind.to_string(), e.offset))
}

fn on_interpreter(program: &Program, limits: Limits, runs: usize) -> Vec<Outcome> {
    let mut vm = Interpreter::new(program);
    vm.set_limits(limits);
    (0..runs)
        .map(|_| {
            let mut out = CollectOutput::default();
            let r = vm.run_entry(&mut NoHost, &mut out);
            Outcome {
                result: simplify(r),
                output: out.lines,
                fuel_used: vm.fuel_used(),
                globals: vm.memory().globals.clone(),
                heap: vm.memory().heap.clone(),
            }
        })
        .collect()
}

fn on_jit(program: &Program, limits: Limits, runs: usize) -> Vec<Outcome> {
    let jit = JitProgram::compile(program).expect("verified programs compile");
    on_compiled(&jit, limits, runs)
}

/// The JIT compiling on demand (`docs/jit.md`, "Compiling on demand"),
/// its one root the module's last function (often not the entry, which is
/// then compiled at its first call with everything it calls).
fn on_jit_on_demand(program: &Program, limits: Limits, runs: usize) -> Vec<Outcome> {
    let last = program.module().functions.len().saturating_sub(1) as u32;
    let jit = JitProgram::compile_on_demand(program, &[last]).expect("verified programs compile");
    on_compiled(&jit, limits, runs)
}

/// The baseline code generator (`jit::CodeGen::Baseline`), where the host
/// has it.
fn on_baseline(program: &Program, limits: Limits, runs: usize) -> Option<Vec<Outcome>> {
    if !jit::baseline::supported() {
        return None;
    }
    let jit = JitProgram::compile_baseline(program).expect("verified programs compile");
    Some(on_compiled(&jit, limits, runs))
}

fn on_compiled(jit: &JitProgram, limits: Limits, runs: usize) -> Vec<Outcome> {
    let mut vm = jit.instance();
    vm.set_limits(limits);
    (0..runs)
        .map(|_| {
            let mut out = CollectOutput::default();
            let r = vm.run_entry(&mut NoHost, &mut out);
            assert!(vm.ran_compiled(), "the JIT fell back to the interpreter");
            Outcome {
                result: simplify(r),
                output: out.lines,
                fuel_used: vm.fuel_used(),
                globals: vm.memory().globals.clone(),
                heap: vm.memory().heap.clone(),
            }
        })
        .collect()
}

fn check(bytes: &[u8], fuel: u64, depth: u32) -> Result<(), TestCaseError> {
    let module = generate(bytes);
    let program = Program::new(module.clone()).expect("generated modules verify");
    let limits = Limits {
        fuel: Some(fuel),
        max_depth: depth,
    };
    // Two runs on one instance: the second starts from the memory the
    // first left behind.
    let want = on_interpreter(&program, limits, 2);
    let got = on_jit(&program, limits, 2);
    prop_assert_eq!(&got, &want, "program:\n{}", cvm::asm::disassemble(&module));
    let got = on_jit_on_demand(&program, limits, 2);
    prop_assert_eq!(
        &got,
        &want,
        "compiled on demand, program:\n{}",
        cvm::asm::disassemble(&module)
    );
    if let Some(got) = on_baseline(&program, limits, 2) {
        prop_assert_eq!(
            &got,
            &want,
            "baseline code generator, program:\n{}",
            cvm::asm::disassemble(&module)
        );
    }
    Ok(())
}

/// The optimizer's side of the agreement: the optimized program on the
/// JIT against the unoptimized program on the interpreter. Error offsets
/// move with the code, so errors compare by kind; fuel follows the code's
/// lengths, which the optimizer changes (`docs/optimizer.md`), so it is not
/// compared. Where neither run ran out of fuel everything else must be
/// identical; a run out of fuel printed a prefix of the other's output,
/// and ends the comparison (the next run starts from other memory).
fn check_optimized(bytes: &[u8], fuel: u64, depth: u32) -> Result<(), TestCaseError> {
    let program = Program::new(generate(bytes)).expect("generated modules verify");
    let (optimized, report) = cvm::opt::optimize(&program);
    prop_assert!(!report.fell_back);
    let limits = Limits {
        fuel: Some(fuel),
        max_depth: depth,
    };
    let kinds = |v: Vec<Outcome>| {
        v.into_iter()
            .map(|o| Outcome {
                result: o.result.map_err(|(k, _)| (k, 0)),
                ..o
            })
            .collect::<Vec<_>>()
    };
    let want = kinds(on_interpreter(&program, limits, 2));
    let got = kinds(on_jit(&optimized, limits, 2));
    if let Some(baseline) = on_baseline(&optimized, limits, 2) {
        // The optimized program on both code generators: everything equal,
        // fuel and error offsets included.
        let jit_exact = on_jit(&optimized, limits, 2);
        prop_assert_eq!(
            &baseline,
            &jit_exact,
            "baseline against Cranelift, optimized program:\n{}",
            cvm::asm::disassemble(optimized.module())
        );
    }
    let listing = || {
        format!(
            "program:\n{}\noptimized:\n{}",
            cvm::asm::disassemble(program.module()),
            cvm::asm::disassemble(optimized.module())
        )
    };
    prop_assert_eq!(want.len(), got.len());
    for (w, g) in want.into_iter().zip(got) {
        let oof = |o: &Outcome| {
            o.result
                .as_ref()
                .err()
                .is_some_and(|(k, _)| k == "out of fuel")
        };
        match (oof(&w), oof(&g)) {
            (false, false) => {
                let (w, g) = (Outcome { fuel_used: 0, ..w }, Outcome { fuel_used: 0, ..g });
                prop_assert_eq!(&g, &w, "{}", listing());
                continue;
            }
            (true, false) => prop_assert!(g.output.starts_with(&w.output), "{}", listing()),
            (false, true) => prop_assert!(w.output.starts_with(&g.output), "{}", listing()),
            (true, true) => prop_assert!(
                w.output.starts_with(&g.output) || g.output.starts_with(&w.output),
                "{}",
                listing()
            ),
        }
        break;
    }
    Ok(())
}

/// The tiered backend with the switch to native code forced at every call
/// (up to 40) against the interpreter, two runs on one instance.
fn check_switches(bytes: &[u8], fuel: u64, depth: u32) -> Result<u64, TestCaseError> {
    let program = Program::new(generate(bytes)).expect("generated modules verify");
    let scenario = Scenario {
        runs: 2,
        ..Scenario::new(Limits {
            fuel: Some(fuel),
            max_depth: depth,
        })
    };
    check_switch_points(&program, &scenario, 40).map_err(|e| {
        TestCaseError::fail(format!(
            "{e}\nprogram:\n{}",
            cvm::asm::disassemble(program.module())
        ))
    })
}

/// One switch point, as the fuzz targets choose it: the `at`-th call or
/// back edge, to either code generator's code.
fn check_one_switch(
    bytes: &[u8],
    fuel: u64,
    at: u64,
    back_edge: bool,
    baseline: bool,
) -> Result<(), TestCaseError> {
    let program = Program::new(generate(bytes)).expect("generated modules verify");
    let scenario = Scenario {
        runs: 2,
        ..Scenario::new(Limits {
            fuel: Some(fuel),
            max_depth: 30,
        })
    };
    let codegen = if baseline {
        jit::CodeGen::Baseline
    } else {
        jit::CodeGen::Cranelift
    };
    check_switch_point(&program, &scenario, at, back_edge, codegen).map_err(|e| {
        TestCaseError::fail(format!(
            "{e}\nprogram:\n{}",
            cvm::asm::disassemble(program.module())
        ))
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn generated_programs_agree_at_every_switch_point(
        bytes in proptest::collection::vec(any::<u8>(), 0..1500),
        fuel in 0u64..5000,
        depth in 1u32..40,
    ) {
        check_switches(&bytes, fuel, depth)?;
    }

    #[test]
    fn generated_programs_agree_at_one_switch_point(
        bytes in proptest::collection::vec(any::<u8>(), 0..1500),
        fuel in 0u64..5000,
        at in 0u64..24,
        back_edge in any::<bool>(),
        baseline in any::<bool>(),
    ) {
        check_one_switch(&bytes, fuel, at, back_edge, baseline)?;
    }

    #[test]
    fn optimized_programs_agree_across_backends(
        bytes in proptest::collection::vec(any::<u8>(), 0..1500),
        fuel in 0u64..5000,
        depth in 1u32..40,
    ) {
        check_optimized(&bytes, fuel, depth)?;
    }

    #[test]
    fn generated_programs_agree(
        bytes in proptest::collection::vec(any::<u8>(), 0..1500),
        fuel in 0u64..5000,
        depth in 1u32..40,
    ) {
        check(&bytes, fuel, depth)?;
    }

    #[test]
    fn generated_programs_agree_with_plenty_of_fuel(
        bytes in proptest::collection::vec(any::<u8>(), 200..3000),
    ) {
        check(&bytes, 200_000, 200)?;
    }
}

/// The fixed sweep's cases: for each length `len` in `lengths`, `len *
/// stride` bytes from an xorshift generator started at `seed`, then the fuel
/// (1..=20,000) and depth limit (1..=50) drawn from its state.
fn sweep(
    mut seed: u64,
    lengths: std::ops::Range<usize>,
    stride: usize,
) -> impl Iterator<Item = (usize, Vec<u8>, u64, u32)> {
    lengths.map(move |len| {
        let bytes: Vec<u8> = (0..len * stride)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                seed as u8
            })
            .collect();
        let fuel = (seed % 20_000) + 1;
        let depth = (seed % 50) as u32 + 1;
        (len, bytes, fuel, depth)
    })
}

#[test]
fn many_seeds_agree() {
    // A fixed sweep in addition to proptest's random cases, so that every
    // run covers the same few hundred programs too.
    for (len, bytes, fuel, depth) in sweep(0x9E37_79B9_7F4A_7C15, 0..300, 5) {
        if let Err(e) = check(&bytes, fuel, depth) {
            panic!("seed length {len}: {e}");
        }
    }
}

#[test]
fn many_seeds_agree_at_every_switch_point() {
    let mut reached = 0;
    for (len, bytes, fuel, depth) in sweep(0x2545_F491_4F6C_DD1D, 0..120, 7) {
        match check_switches(&bytes, fuel, depth) {
            Ok(n) => reached += n,
            Err(e) => panic!("seed length {len}: {e}"),
        }
    }
    // Generated programs call and recurse: most switch points are reached
    // inside a run, not only at the embedder's calls.
    assert!(reached > 500, "only {reached} switch points reached");
}

/// The generator's fill lists (only ever referenced straight into a `Get`
/// intrinsic) make the JIT defer their fills in a good share of the
/// programs, so that the sweeps above and the fuzz targets compare the
/// memory of deferred fills with the interpreter's too.
#[test]
fn generated_programs_defer_list_fills() {
    let mut deferring = 0;
    let mut programs = 0;
    for (_, bytes, _, _) in sweep(0x9E37_79B9_7F4A_7C15, 0..300, 5) {
        let program = Program::new(generate(&bytes)).expect("generated modules verify");
        let jit = JitProgram::compile(&program).expect("compiles");
        programs += 1;
        deferring += usize::from(!jit.deferred_lists().is_empty());
    }
    assert!(
        deferring * 20 >= programs,
        "{deferring} of {programs} programs defer a fill"
    );
    eprintln!("{deferring} of {programs} generated programs defer a fill");
}
