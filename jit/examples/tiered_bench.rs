//! The three backends side by side in one run: for each program given on
//! the command line (Che++ or assembler, optimized), the wall time to
//! prepare it and call `main()` `N` times on one instance, for several `N`
//! (1: the advice program at the root, once per search; 100 and 10,000:
//! at every node), on interp, jit and auto (default thresholds, background
//! compilation), best of `--rounds` (default 5) interleaved rounds.
//!
//! `cargo run --release -p che-jit --example tiered_bench -- [--rounds R] [--calls 1,100,10000] [--call-threshold N] [--fuel-threshold N] [--baseline-call-threshold N] [--baseline-fuel-threshold N] [--no-baseline] [--eager-jit] FILE...`
//!
//! `--call-threshold`, `--fuel-threshold` and the two baseline thresholds
//! replace the auto backend's default thresholds
//! (`jit::TierConfig::DEFAULT`), for choosing them; `--no-baseline` turns
//! the baseline tier off. The JIT is prepared as the hosts prepare it
//! (`Prepared::for_entries`: baseline code first, Cranelift's from the next
//! call after it arrives); `--eager-jit` compiles everything with Cranelift
//! before the first call instead (`Prepared::new`).

mod common;

use cvm::{Backend, NoHost, NullOutput};
use jit::{Prepared, TierConfig};
use std::path::Path;
use std::time::{Duration, Instant};

/// Prepares `program` for `backend` and calls `main()` `calls` times: the
/// time (dropping the prepared program included, which waits for a
/// background compilation in progress) and how many calls ran native code.
fn measure(
    program: &cvm::Program,
    backend: Backend,
    calls: u32,
    tiers: TierConfig,
    eager_jit: bool,
) -> Result<(Duration, u32), String> {
    let started = Instant::now();
    // As the hosts prepare (`Prepared::for_entries`: the JIT starts on
    // baseline code), or with `--eager-jit` everything by Cranelift first.
    let roots = Prepared::entry_points(program, &[]);
    let prepared = match backend {
        Backend::Auto => Prepared::tiered(program.clone(), tiers),
        Backend::Jit if eager_jit => {
            Prepared::new(program.clone(), backend).map_err(|e| e.to_string())?
        }
        _ => Prepared::for_entries(program.clone(), backend, &roots).map_err(|e| e.to_string())?,
    };
    let mut vm = prepared.instance();
    let mut native = 0;
    for _ in 0..calls {
        vm.run_entry(&mut NoHost, &mut NullOutput)
            .map_err(|e| e.to_string())?;
        native += u32::from(vm.ran_compiled());
    }
    drop(vm);
    drop(prepared);
    Ok((started.elapsed(), native))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let option = |name: &str| -> Option<u32> {
        let i = args.iter().position(|a| a == name)?;
        match args.get(i + 1).map(|v| v.parse()) {
            Some(Ok(n)) => Some(n),
            _ => {
                eprintln!("{name} wants a number");
                std::process::exit(2);
            }
        }
    };
    let rounds = args
        .iter()
        .position(|a| a == "--rounds")
        .and_then(|i| args.get(i + 1))
        .and_then(|r| r.parse().ok())
        .unwrap_or(5u32);
    let counts: Vec<u32> = args
        .iter()
        .position(|a| a == "--calls")
        .and_then(|i| args.get(i + 1))
        .map(|c| c.split(',').filter_map(|n| n.parse().ok()).collect())
        .unwrap_or_else(|| vec![1, 100, 10_000]);
    let mut tiers = TierConfig::DEFAULT;
    if let Some(n) = option("--call-threshold") {
        tiers.call_threshold = n;
    }
    if let Some(n) = option("--fuel-threshold") {
        tiers.fuel_threshold = u64::from(n);
    }
    if let Some(n) = option("--baseline-call-threshold") {
        tiers.baseline_call_threshold = n;
    }
    if let Some(n) = option("--baseline-fuel-threshold") {
        tiers.baseline_fuel_threshold = u64::from(n);
    }
    let eager_jit = args.iter().any(|a| a == "--eager-jit");
    if args.iter().any(|a| a == "--no-baseline") {
        tiers.baseline_call_threshold = u32::MAX;
        tiers.baseline_fuel_threshold = u64::MAX;
    }
    let files: Vec<&String> = args
        .iter()
        .enumerate()
        .filter(|(i, a)| {
            // Every option but the two flags takes a value.
            let flag = |a: &str| a == "--no-baseline" || a == "--eager-jit";
            let value = *i > 0 && args[i - 1].starts_with("--") && !flag(&args[i - 1]);
            !a.starts_with("--") && !value
        })
        .map(|(_, a)| a)
        .collect();
    println!("| program | calls | interp | jit | auto | auto / best | auto calls on native code |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for file in files {
        let path = Path::new(file);
        let program = match common::load(path, true) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("{file}: {e}");
                continue;
            }
        };
        for &calls in &counts {
            let mut best = [Duration::MAX; 3];
            let mut failed = None;
            let mut native = 0;
            for round in 0..rounds {
                // Each round starts with another backend, so that none
                // always runs after the JIT's compilation has filled the
                // caches with its own data.
                for k in 0..Backend::ALL.len() {
                    let slot = (k + round as usize) % Backend::ALL.len();
                    let backend = Backend::ALL[slot];
                    match measure(&program, backend, calls, tiers, eager_jit) {
                        Ok((d, n)) => {
                            best[slot] = best[slot].min(d);
                            if backend == Backend::Auto {
                                native = n;
                            }
                        }
                        Err(e) => failed = Some(format!("{backend}: {e}")),
                    }
                }
            }
            if let Some(e) = failed {
                eprintln!("{file}: {e}");
                break;
            }
            let [interp, jit, auto] = best;
            let ratio = auto.as_secs_f64() / interp.min(jit).as_secs_f64();
            let name = path
                .file_name()
                .map_or(file.clone(), |n| n.to_string_lossy().into_owned());
            println!(
                "| {name} | {calls} | {:.0} us | {:.0} us | {:.0} us | {ratio:.2} | {native} |",
                interp.as_secs_f64() * 1e6,
                jit.as_secs_f64() * 1e6,
                auto.as_secs_f64() * 1e6
            );
        }
    }
}
