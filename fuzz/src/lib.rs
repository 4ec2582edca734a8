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

use cvm::Backend;
use arbitrary::{Arbitrary, Unstructured};
use cvm_testkit::oracle::{self, Scenario};
use cvm::{Limits, Program};

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

/// Interpreter against JIT, exactly.
pub fn check_backends(program: &Program, scenario: &Scenario) -> Result<(), String> {
    let backends = Backend::ALL;
    oracle::check_backends(program, scenario, &backends)?;
    // The tiered backend with the switch to native code forced at each of
    // the first calls.
    oracle::check_switch_points(program, scenario, 16).map(|_| ())
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
