//! What the fuzz targets share: how the leading bytes of an input choose
//! the run (limits, position, how many calls, optimizer settings), and the
//! checks each target makes. The generators themselves live in the `cvm`
//! crate (`cvm_testkit::programs`, `cvm_testkit::chepp_programs`) and the oracles in `cvm_testkit::oracle`, so
//! that the stable property tests of the workspace (`cvm/*/tests`,
//! `jit/tests/fuzz_generators.rs`) run the very same code without nightly.
//!
//! A check returns `Err` with a readable description for a divergence;
//! the targets turn it into a panic, which libFuzzer reports as a crash
//! and saves the input for.

use arbitrary::{Arbitrary, Unstructured};
use cvm::Backend;
use cvm::{Limits, Program};
use cvm_testkit::oracle::{self, Scenario};

/// The most fuel a run may spend: enough for real loops (ten thousand
/// iterations), small enough for thousands of executions per second. (It
/// was 100 000, and executions that looped that long dominated the
/// `interp` target's time; docs/fuzzing.md, "Throughput".)
pub const MAX_FUEL: u64 = 10_000;
/// The deepest call nesting a run may reach.
pub const MAX_DEPTH: u32 = 200;

/// How a generated program is run, decoded from the front of the input
/// (the rest of the input drives the generator).
#[derive(Arbitrary, Debug, Clone, Copy)]
pub struct Knobs {
    fuel: u32,
    depth: u8,
    board: u8,
    board_seed: u64,
    twice: bool,
    call: Option<u16>,
    rules: u8,
    switch: u8,
}

impl Knobs {
    /// The scenario: fuel up to [`MAX_FUEL`] (usually plenty, sometimes
    /// very little), depth 1 to [`MAX_DEPTH`], one of the fixed positions,
    /// the empty board or a random one, one or two calls on one instance,
    /// the entry point or (rarely) another function.
    pub fn scenario(&self) -> Scenario {
        let fuel = u64::from(self.fuel) % (MAX_FUEL + 1);
        let fuel = if self.fuel >> 30 == 3 {
            fuel % 64
        } else {
            fuel
        };
        Scenario {
            limits: Limits {
                fuel: Some(fuel),
                max_depth: 1 + u32::from(self.depth) % MAX_DEPTH,
            },
            board: cvm_testkit::programs::board(self.board % 12, self.board_seed),
            runs: 1 + usize::from(self.twice),
            call: self.call.filter(|c| c % 8 == 0).map(u64::from),
        }
    }

    /// Optimizer settings: mostly the defaults, sometimes a subset of the
    /// rules ([`oracle::optimizer_options`]).
    pub fn options(&self) -> cvm::opt::Options {
        oracle::optimizer_options(self.rules)
    }

    /// The one tiered run an input checks ([`SwitchPoint::from_byte`]).
    pub fn switch_point(&self) -> SwitchPoint {
        SwitchPoint::from_byte(self.switch)
    }
}

/// Where the tiered backend is made to switch to native code
/// ([`oracle::check_switch_point`]).
#[derive(Debug, Clone, Copy)]
pub struct SwitchPoint {
    /// The call or back edge, counted from 0.
    pub at: u64,
    /// A back edge (on-stack replacement) rather than a call.
    pub back_edge: bool,
    /// The code switched to.
    pub codegen: jit::CodeGen,
}

impl SwitchPoint {
    /// Decodes a point from one byte: call or back edge number 0 to 63
    /// (bits 2 to 7), at a back edge when bit 0 is set, to baseline code
    /// when bit 1 is set (where the host has it), else to Cranelift's.
    pub fn from_byte(b: u8) -> SwitchPoint {
        SwitchPoint {
            at: u64::from(b >> 2),
            back_edge: b & 1 != 0,
            codegen: if b & 2 != 0 {
                jit::CodeGen::Baseline
            } else {
                jit::CodeGen::Cranelift
            },
        }
    }
}

/// Splits an input into its knobs and the generator's bytes.
pub fn split(data: &[u8]) -> (Knobs, &[u8]) {
    let mut u = Unstructured::new(data);
    let knobs = Knobs::arbitrary(&mut u).unwrap_or(Knobs {
        fuel: 0,
        depth: 0,
        board: 0,
        board_seed: 0,
        twice: false,
        call: None,
        rules: 0,
        switch: 0,
    });
    // `Knobs` takes a fixed number of bytes from the front; the rest is
    // the generator's.
    let used = data.len() - u.len();
    (knobs, &data[used..])
}

/// A generated CVM program; generated programs always verify.
pub fn cvm_program(bytes: &[u8]) -> Program {
    let module = cvm_testkit::programs::generate(bytes);
    match Program::new(module.clone()) {
        Ok(p) => p,
        Err(e) => panic!(
            "a generated module does not verify: {e}\n{}",
            cvm::asm::disassemble(&module)
        ),
    }
}

/// A generated Che++ program, compiled; generated programs always
/// compile.
pub fn che_program(bytes: &[u8]) -> (String, Program) {
    let source = cvm_testkit::chepp_programs::generate(bytes);
    match cvm_testkit::chepp_programs::compile(&source) {
        Ok(p) => (source, p),
        Err(e) => panic!("a generated Che++ program does not compile:\n{source}\n{e}"),
    }
}

/// Every backend against the interpreter, exactly, and the tiered backend
/// with the switch to native code forced at `point`. (One point per input:
/// checking all of them made an input cost 64 tiered runs; libFuzzer's
/// choice of the knob covers them across inputs.)
pub fn check_backends(
    program: &Program,
    scenario: &Scenario,
    point: SwitchPoint,
) -> Result<(), String> {
    let backends = Backend::ALL;
    oracle::check_backends(program, scenario, &backends)?;
    oracle::check_switch_point(program, scenario, point.at, point.back_edge, point.codegen)
}

/// The optimized program on both backends against the original on the
/// interpreter, and optimized twice ([`oracle::check_optimizer`]).
pub fn check_optimizer(
    program: &Program,
    scenario: &Scenario,
    options: cvm::opt::Options,
) -> Result<(), String> {
    let backends = Backend::ALL;
    oracle::check_optimizer(program, scenario, options, &backends)
}

/// Panics with the program's listing when a check failed.
pub fn report(result: Result<(), String>, program: &Program, source: Option<&str>) {
    if let Err(e) = result {
        let listing = cvm::asm::disassemble(program.module());
        match source {
            Some(src) => panic!("{e}\n--- source ---\n{src}\n--- code ---\n{listing}"),
            None => panic!("{e}\n--- code ---\n{listing}"),
        }
    }
}
