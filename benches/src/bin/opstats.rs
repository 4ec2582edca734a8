//! Executed-instruction statistics for the loophole optimizer.
//!
//! Compiles the Che++ benchmark workloads (`benches/che/`) and the bundled
//! example advice program, runs each unoptimized and optimized under the
//! profiling interpreter, and prints Markdown tables: executed CVM
//! instructions before and after optimization, and the most frequent
//! adjacent pairs and triples (the candidates for superinstructions) in
//! unoptimized and in optimized code.
//!
//! Run: `cargo run --release -p che-benches --bin opstats`

use che_benches::crate_dir;
use chess_core::host::AdviceHost;
use chess_core::Position;
use cvm::che::{self, CompileOptions};
use cvm::profile::OpcodeProfile;
use cvm::{Interpreter, NoHost, NullOutput, Program};

/// Positions the example advice program is profiled on.
const POSITIONS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    "rnbqkb1r/ppp2ppp/4pn2/3p4/3P4/3BPN2/PPP2PPP/RNBQK2R b KQkq - 1 4",
    "8/5k2/8/3P4/8/8/5K2/3R4 w - - 0 1",
    "8/8/4k3/8/2P5/8/5K2/8 w - - 0 1",
];

fn profile(program: &Program, host: &mut dyn cvm::Host) -> OpcodeProfile {
    let mut prof = OpcodeProfile::new(program.module());
    let mut vm = Interpreter::new(program);
    let entry = program.module().entry.expect("entry point");
    vm.call_profiled(entry, &[], host, &mut NullOutput, &mut prof)
        .expect("runs");
    prof
}

fn main() {
    let mut rows = Vec::new();
    let mut before = OpcodeProfile::default();
    let mut after = OpcodeProfile::default();
    let mut add = |name: String, plain: OpcodeProfile, opt: OpcodeProfile| {
        rows.push((name, plain.executed, opt.executed));
        before.merge(&plain);
        after.merge(&opt);
    };

    for w in che_benches::WORKLOADS {
        let path = crate_dir().join("che").join(format!("{}.che", w.name));
        let module = che::compile_file(&path, &CompileOptions::default())
            .into_result()
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let plain = Program::new(module).expect("verifies");
        let (opt, _) = cvm::opt::optimize(&plain);
        add(
            format!("{} (Che++)", w.name),
            profile(&plain, &mut NoHost),
            profile(&opt, &mut NoHost),
        );
    }

    let loader = che::examples::loader();
    let module = che::compile_with(
        &loader,
        std::path::Path::new(che::examples::MAIN),
        &CompileOptions::default(),
    )
    .into_result()
    .unwrap_or_else(|e| panic!("example: {e}"));
    let plain = Program::new(module).expect("verifies");
    let (opt, _) = cvm::opt::optimize(&plain);
    let (mut p_sum, mut o_sum) = (OpcodeProfile::default(), OpcodeProfile::default());
    for fen in POSITIONS {
        let pos = Position::from_fen(fen).expect("valid FEN");
        p_sum.merge(&profile(&plain, &mut AdviceHost::new(&pos)));
        o_sum.merge(&profile(&opt, &mut AdviceHost::new(&pos)));
    }
    add(
        format!("example advice program ({} positions)", POSITIONS.len()),
        p_sum,
        o_sum,
    );

    println!("| program | executed, unoptimized | executed, optimized | ratio |");
    println!("|---|---|---|---|");
    for (name, b, a) in &rows {
        println!(
            "| {name} | {b} | {a} | {:.2}x fewer |",
            *b as f64 / (*a).max(1) as f64
        );
    }
    for (label, prof) in [("unoptimized", &before), ("optimized", &after)] {
        println!(
            "\nMost executed adjacent pairs, {label} code ({} instructions):\n",
            prof.executed
        );
        println!("| pair | count | share |");
        println!("|---|---|---|");
        for ((a, b), n) in OpcodeProfile::top(&prof.pairs, 12) {
            println!(
                "| `{a} {b}` | {n} | {:.1}% |",
                100.0 * n as f64 / prof.executed as f64
            );
        }
        println!("\nMost executed adjacent triples, {label} code:\n");
        println!("| triple | count | share |");
        println!("|---|---|---|");
        for ((a, b, c), n) in OpcodeProfile::top(&prof.triples, 12) {
            println!(
                "| `{a} {b} {c}` | {n} | {:.1}% |",
                100.0 * n as f64 / prof.executed as f64
            );
        }
    }
}
