//! Executed-instruction statistics for the loophole optimizer.
//!
//! Compiles the Che++ benchmark workloads (`benches/che/`), the bundled
//! example advice program and the pattern advice program
//! (`advice/patterns.che`, both on the 240 oracle positions), runs each
//! unoptimized and optimized under the profiling interpreter, and prints Markdown tables: executed CVM
//! instructions before and after optimization, and the most frequent
//! adjacent pairs and triples (the candidates for superinstructions) in
//! unoptimized and in optimized code.
//!
//! Run: `cargo run --release -p che-benches --bin opstats`

use che_benches::{compile_che_file, crate_dir, example_program, oracle_positions};
use che_engine::host::AdviceHost;
use cvm::{Interpreter, NoHost, NullOutput, Program};
use cvm_testkit::profile::OpcodeProfile;

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
        let plain = compile_che_file(&crate_dir().join("che").join(format!("{}.che", w.name)));
        let (opt, _) = cvm::opt::optimize(&plain);
        add(
            format!("{} (Che++)", w.name),
            profile(&plain, &mut NoHost),
            profile(&opt, &mut NoHost),
        );
    }

    let positions = oracle_positions();
    let path = crate_dir().join("advice/patterns.che");
    for (name, plain) in [
        ("example advice program", example_program()),
        ("pattern advice program", compile_che_file(&path)),
    ] {
        let (opt, _) = cvm::opt::optimize(&plain);
        let (mut p_sum, mut o_sum) = (OpcodeProfile::default(), OpcodeProfile::default());
        for pos in &positions {
            p_sum.merge(&profile(&plain, &mut AdviceHost::new(pos)));
            o_sum.merge(&profile(&opt, &mut AdviceHost::new(pos)));
        }
        add(
            format!("{name} ({} positions)", positions.len()),
            p_sum,
            o_sum,
        );
    }

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
