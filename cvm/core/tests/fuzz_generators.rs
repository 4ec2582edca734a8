//! The `interp` fuzz target's check on stable Rust: generated CVM programs
//! and generated Che++ programs, on real and random positions, under fuel
//! and depth limits, through `cvm_testkit::oracle::check_interpreter` (the `.cmp`
//! and `.asm` round trips hold, fuel stays within the limit, a run after
//! `reset` repeats the first exactly). The JIT's side of the generators is
//! in `jit/tests/fuzz_generators.rs`.

use cvm::{Limits, Program};
use cvm_testkit::oracle::{check_interpreter, Scenario};
use cvm_testkit::programs::{board, generate, seed_bytes};
use proptest::prelude::*;

fn scenario(fuel: u64, depth: u32, board_sel: u8, board_seed: u64, call: Option<u64>) -> Scenario {
    Scenario {
        limits: Limits {
            fuel: Some(fuel),
            max_depth: depth,
        },
        board: board(board_sel % 12, board_seed),
        runs: 2,
        call,
    }
}

fn check_cvm(bytes: &[u8], scenario: &Scenario) -> Result<(), String> {
    let module = generate(bytes);
    let program = Program::new(module.clone()).map_err(|e| format!("does not verify: {e}"))?;
    check_interpreter(&program, scenario)
        .map_err(|e| format!("{e}\n{}", cvm::asm::disassemble(&module)))
}

fn check_che(bytes: &[u8], scenario: &Scenario) -> Result<(), String> {
    let source = cvm_testkit::chepp_programs::generate(bytes);
    let program =
        cvm_testkit::chepp_programs::compile(&source).map_err(|e| format!("{e}\n{source}"))?;
    check_interpreter(&program, scenario).map_err(|e| format!("{e}\n{source}"))
}

#[test]
fn generated_programs_run_deterministically_on_positions() {
    for seed in 0..200u64 {
        let bytes = seed_bytes(seed ^ 0x1E7, 50 + (seed as usize % 11) * 120);
        let s = scenario(
            seed * 7919 % 100_000,
            1 + (seed % 150) as u32,
            seed as u8,
            seed,
            (seed % 4 == 0).then_some(seed),
        );
        if let Err(e) = check_cvm(&bytes, &s) {
            panic!("seed {seed}: {e}");
        }
        if seed % 4 == 1 {
            if let Err(e) = check_che(&bytes, &s) {
                panic!("seed {seed} (Che++): {e}");
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn generated_programs_run_deterministically(
        bytes in proptest::collection::vec(any::<u8>(), 0..2000),
        fuel in 0u64..100_000,
        depth in 1u32..200,
        board_sel in any::<u8>(),
        board_seed in any::<u64>(),
        call in proptest::option::weighted(0.1, any::<u64>()),
    ) {
        let s = scenario(fuel, depth, board_sel, board_seed, call);
        check_cvm(&bytes, &s).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn generated_che_programs_run_deterministically(
        bytes in proptest::collection::vec(any::<u8>(), 0..1500),
        fuel in 0u64..100_000,
        depth in 1u32..200,
        board_sel in any::<u8>(),
        board_seed in any::<u64>(),
    ) {
        let s = scenario(fuel, depth, board_sel, board_seed, None);
        check_che(&bytes, &s).map_err(TestCaseError::fail)?;
    }
}
