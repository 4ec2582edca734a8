//! The fuzz targets' generators and oracles on stable Rust, so that CI
//! checks them without nightly: generated CVM programs (every opcode and
//! intrinsic, on real and random positions) and generated Che++ programs,
//! each run on the interpreter and the JIT, optimized and not, under the
//! oracles of `cvm_testkit::oracle`. A fixed seed sweep plus proptest cases.

use cvm::Backend;
use cvm::{Limits, Program};
use cvm_testkit::oracle::{check_backends, check_optimizer, optimizer_options, Scenario};
use cvm_testkit::programs::{board, generate, seed_bytes};
use proptest::prelude::*;

fn scenario(
    fuel: u64,
    depth: u32,
    board_sel: u8,
    board_seed: u64,
    runs: usize,
    call: Option<u64>,
) -> Scenario {
    Scenario {
        limits: Limits {
            fuel: Some(fuel),
            max_depth: depth,
        },
        board: board(board_sel, board_seed),
        runs,
        call,
    }
}

/// The `differential` and `optimizer` fuzz targets' checks on the CVM
/// program generated from `bytes`: interpreter against JIT exactly, then
/// the program optimized with `options` on both backends (and optimized
/// twice) against the original.
fn check_cvm(bytes: &[u8], scenario: &Scenario, options: cvm::opt::Options) -> Result<(), String> {
    let module = generate(bytes);
    let program = Program::new(module.clone()).map_err(|e| format!("does not verify: {e}"))?;
    let listing = || cvm::asm::disassemble(&module);
    let backends = Backend::ALL;
    check_backends(&program, scenario, &backends).map_err(|e| format!("{e}\n{}", listing()))?;
    check_optimizer(&program, scenario, options, &backends).map_err(|e| {
        let (optimized, _) = cvm::opt::optimize_with(&program, options);
        format!(
            "{e}\n{}\noptimized ({options:?}):\n{}",
            listing(),
            cvm::asm::disassemble(optimized.module())
        )
    })
}

/// The `che_programs` fuzz target's checks on the Che++ program generated
/// from `bytes`.
fn check_che(bytes: &[u8], scenario: &Scenario, options: cvm::opt::Options) -> Result<(), String> {
    let source = cvm_testkit::chepp_programs::generate(bytes);
    let program =
        cvm_testkit::chepp_programs::compile(&source).map_err(|e| format!("{e}\n{source}"))?;
    let backends = Backend::ALL;
    check_backends(&program, scenario, &backends).map_err(|e| format!("{e}\n{source}"))?;
    check_optimizer(&program, scenario, options, &backends).map_err(|e| {
        let (optimized, _) = cvm::opt::optimize_with(&program, options);
        format!(
            "{e}\n{source}\n{}\noptimized ({options:?}):\n{}",
            cvm::asm::disassemble(program.module()),
            cvm::asm::disassemble(optimized.module())
        )
    })
}

#[test]
fn generated_che_programs_agree_on_positions() {
    for seed in 0..200u64 {
        let bytes = seed_bytes(seed ^ 0xC4E, 100 + (seed as usize % 9) * 100);
        let s = scenario(
            1 + seed * 4999 % 100_000,
            1 + (seed % 120) as u32,
            (seed % 10) as u8,
            seed,
            1 + (seed % 2) as usize,
            None,
        );
        if let Err(e) = check_che(&bytes, &s, optimizer_options(seed as u8)) {
            panic!("seed {seed}: {e}");
        }
    }
}

#[test]
fn generated_programs_agree_on_positions() {
    for seed in 0..300u64 {
        let bytes = seed_bytes(seed, 100 + (seed as usize % 9) * 120);
        let s = scenario(
            1 + seed * 337 % 20_000,
            1 + (seed % 60) as u32,
            (seed % 10) as u8,
            seed,
            1 + (seed % 2) as usize,
            (seed % 5 == 0).then_some(seed),
        );
        if let Err(e) = check_cvm(&bytes, &s, optimizer_options(seed as u8)) {
            panic!("seed {seed}: {e}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn generated_programs_agree(
        bytes in proptest::collection::vec(any::<u8>(), 0..2000),
        fuel in 0u64..100_000,
        depth in 1u32..200,
        board_sel in any::<u8>(),
        board_seed in any::<u64>(),
        runs in 1usize..3,
        call in proptest::option::weighted(0.1, any::<u64>()),
        rules in any::<u8>(),
    ) {
        let s = scenario(fuel, depth, board_sel % 12, board_seed, runs, call);
        if let Err(e) = check_cvm(&bytes, &s, optimizer_options(rules)) {
            return Err(TestCaseError::fail(e));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn generated_che_programs_agree(
        bytes in proptest::collection::vec(any::<u8>(), 0..1500),
        fuel in 0u64..100_000,
        depth in 1u32..200,
        board_sel in any::<u8>(),
        board_seed in any::<u64>(),
        runs in 1usize..3,
        rules in any::<u8>(),
    ) {
        let s = scenario(fuel, depth, board_sel % 12, board_seed, runs, None);
        if let Err(e) = check_che(&bytes, &s, optimizer_options(rules)) {
            return Err(TestCaseError::fail(e));
        }
    }
}
