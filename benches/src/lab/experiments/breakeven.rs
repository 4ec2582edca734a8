//! Break-even: after how many runs the JIT has paid for its compilation, per program, against
//! the program's size.
//!
//! For each program (optimized, as the engine loads it): Cranelift's compile time (the whole
//! `Prepared::cranelift_for_entries`, thread CPU time; the hosts' JIT starts on baseline code
//! instead, whose figures are in docs/benchmarks.md, "The baseline code generator"), the interpreter's and the JIT's time per run, and
//! `compile / (interp - jit)`, the number of runs after which compiling has paid (infinite when
//! the JIT is not faster). A run is `main()` for a workload, one root run on the next suite
//! position for an advice program, one `Evaluate()` call for the hook.

use super::cost::distinct;
use crate::lab::error::LabError;
use crate::lab::experiment::{Config, Context, Experiment};
use crate::lab::markdown::{self, num};
use crate::lab::plot::Scatter;
use crate::lab::programs::{cpu_ns, programs, Entry, Runner};
use crate::lab::stats::median;
use crate::lab::table::Table;
use cvm::Backend;
use jit::Prepared;
use std::path::Path;

/// The experiment.
pub struct BreakEven;

fn reps(config: &Config) -> usize {
    if config.quick {
        2
    } else {
        9
    }
}

/// Runs timed per measurement.
fn runs(config: &Config, entry: Entry) -> usize {
    match (entry, config.quick) {
        (Entry::Workload, true) => 1,
        (Entry::Workload, false) => 5,
        (_, true) => 240,
        (_, false) => 4800,
    }
}

/// Times `n` runs after a first one; returns ns per run and the first run's value.
pub(crate) fn time_runs(runner: &mut Runner<'_>, n: usize) -> Result<(f64, i32), LabError> {
    let first = runner.run()?;
    let (ns, r) = cpu_ns(|| (0..n).try_for_each(|_| runner.run().map(|_| ())));
    r?;
    Ok((ns as f64 / n as f64, first))
}

impl Experiment for BreakEven {
    fn name(&self) -> &'static str {
        "breakeven"
    }

    fn title(&self) -> &'static str {
        "Break-even of the JIT"
    }

    fn about(&self) -> &'static str {
        "JIT compile time against interpreter time per run: runs until compiling pays, by size"
    }

    fn columns(&self) -> Vec<&'static str> {
        vec![
            "program",
            "rep",
            "cvm_instructions",
            "code_bytes",
            "compile_ns",
            "runs",
            "interp_ns_per_run",
            "jit_ns_per_run",
            "break_even_runs",
            "value",
        ]
    }

    fn units(&self, config: &Config) -> Vec<String> {
        let mut units = Vec::new();
        for rep in 0..reps(config) {
            for p in programs() {
                units.push(format!("{}#{rep}", p.name));
            }
        }
        units
    }

    fn measure(&self, ctx: &Context<'_>, unit: usize) -> Result<Vec<Vec<String>>, LabError> {
        let all = programs();
        let p = all[unit % all.len()];
        let rep = unit / all.len();
        let program = p.load(true)?;
        let func = p.function(&program)?;
        let positions = crate::oracle_positions();
        let n = runs(ctx.config, p.entry);
        let jit_error = |e: jit::JitError| LabError::Program(format!("{}: {e}", p.name));
        let (compile_ns, prepared) =
            cpu_ns(|| Prepared::cranelift_for_entries(program.clone(), &[func]));
        let prepared = prepared.map_err(jit_error)?;
        let stats = prepared
            .jit()
            .map(|j| j.stats())
            .ok_or_else(|| LabError::Program(format!("{}: not compiled", p.name)))?;
        let interp = Prepared::new(program.clone(), Backend::Interp).map_err(jit_error)?;
        let mut ri = Runner::new(interp.instance(), func, p.entry, &positions);
        let (interp_ns, vi) = time_runs(&mut ri, n)?;
        let mut rj = Runner::new(prepared.instance(), func, p.entry, &positions);
        let (jit_ns, vj) = time_runs(&mut rj, n)?;
        if vi != vj {
            return Err(LabError::Program(format!(
                "{}: the interpreter returned {vi}, the JIT {vj}",
                p.name
            )));
        }
        let gain = interp_ns - jit_ns;
        let break_even = if gain > 0.0 {
            compile_ns as f64 / gain
        } else {
            f64::INFINITY
        };
        Ok(vec![vec![
            p.name.to_string(),
            rep.to_string(),
            stats.instructions.to_string(),
            stats.code_bytes.to_string(),
            compile_ns.to_string(),
            n.to_string(),
            format!("{interp_ns:.1}"),
            format!("{jit_ns:.1}"),
            if break_even.is_finite() {
                format!("{break_even:.1}")
            } else {
                "inf".to_string()
            },
            vi.to_string(),
        ]])
    }

    fn render(&self, table: &Table, plot: &Path, plot_link: &str) -> Result<String, LabError> {
        let mut rows = Vec::new();
        let mut workloads = Vec::new();
        let mut advice = Vec::new();
        for name in distinct(table, "program") {
            let of: Vec<&Vec<String>> = table
                .rows
                .iter()
                .filter(|r| table.get(r, "program") == name)
                .collect();
            let col = |c: &str| -> Vec<f64> { of.iter().map(|r| table.num(r, c)).collect() };
            let size = median(&col("cvm_instructions"));
            let compile = median(&col("compile_ns"));
            let interp = median(&col("interp_ns_per_run"));
            let jit = median(&col("jit_ns_per_run"));
            let be = if interp > jit {
                compile / (interp - jit)
            } else {
                f64::INFINITY
            };
            let workload = of
                .first()
                .is_some_and(|r| table.get(r, "program").contains('/'));
            if workload {
                workloads.push((size, be, String::new()));
            } else {
                advice.push((size, be, name.clone()));
            }
            rows.push(vec![
                name.clone(),
                num(size),
                num(median(&col("code_bytes"))),
                num(compile / 1e3),
                num(interp),
                num(jit),
                num(interp / jit),
                num(be),
                of.len().to_string(),
            ]);
        }
        Scatter {
            title: "Runs until the JIT has paid for its compilation".into(),
            x_label: "program size (CVM instructions, log scale)".into(),
            y_label: "break-even runs (log scale)".into(),
            series: vec![
                ("benchmark workloads (a run: main())".into(), workloads),
                (
                    "advice programs (a run: one call on a position)".into(),
                    advice,
                ),
            ],
            log_x: true,
            log_y: true,
        }
        .draw(plot)?;
        let mut out = String::from(
            "Medians over the runs of each row (thread CPU time). Break-even = compile time / \
             (interpreter time per run - JIT time per run), from the medians.\n\n",
        );
        out.push_str(&markdown::table(
            &[
                "program",
                "CVM instructions",
                "code bytes",
                "compile (us)",
                "interp ns/run",
                "JIT ns/run",
                "JIT speed-up",
                "break-even runs",
                "runs",
            ],
            &[false, true, true, true, true, true, true, true, true],
            &rows,
        ));
        out.push_str(&format!("\n![break-even]({plot_link})\n"));
        Ok(out)
    }
}
