//! Safety: what the JIT's inline fuel and bounds checks cost. Every program, optimized as the
//! engine runs it, compiled four ways: with every check (what the JIT always emits), without
//! the fuel checks, without the list bounds checks, and without either, through the
//! measurement-only `jit::JitProgram::compile_unchecked` (feature `measure-unchecked`). The
//! checked compilation runs first and its value must match every unchecked one, which is what
//! makes running the unchecked code sound here (see that function's safety contract).

use super::breakeven::time_runs;
use super::cost::{distinct, same_value};
use super::optimizer::{reps, runs};
use crate::lab::error::LabError;
use crate::lab::experiment::{Config, Context, Experiment};
use crate::lab::markdown::{self, num};
use crate::lab::plot::{Bar, BarChart};
use crate::lab::programs::{programs, Entry, Runner};
use crate::lab::stats::median;
use crate::lab::table::Table;
use jit::{JitProgram, Unchecked};
use std::path::Path;

/// The experiment.
pub struct Safety;

/// The compilations compared: name in the CSV, checks left out.
const VARIANTS: [(&str, Unchecked); 4] = [
    (
        "checked",
        Unchecked {
            fuel: false,
            bounds: false,
        },
    ),
    (
        "no-fuel",
        Unchecked {
            fuel: true,
            bounds: false,
        },
    ),
    (
        "no-bounds",
        Unchecked {
            fuel: false,
            bounds: true,
        },
    ),
    (
        "unchecked",
        Unchecked {
            fuel: true,
            bounds: true,
        },
    ),
];

/// Compiles `program` without the checks `drop` names.
fn compile(program: &cvm::Program, drop: Unchecked) -> Result<JitProgram, jit::JitError> {
    if drop == Unchecked::default() {
        return JitProgram::compile(program);
    }
    // SAFETY: `measure` runs the checked compilation of the same program on the same inputs
    // to completion first (an out-of-range index or fuel exhaustion there is an error that
    // ends the unit before this compilation runs), and the runs are deterministic in the
    // program and the positions, so the unchecked code keeps its indices in range and ends.
    unsafe { JitProgram::compile_unchecked(program, drop) }
}

/// `(ns per run, value)` of `n` runs of `program` compiled without `drop`, after one run that
/// gives the value.
fn time(
    program: &cvm::Program,
    drop: Unchecked,
    func: u32,
    entry: Entry,
    n: usize,
    name: &str,
) -> Result<(f64, i32), LabError> {
    let positions = crate::oracle_positions();
    let compiled = compile(program, drop).map_err(|e| LabError::Program(format!("{name}: {e}")))?;
    let mut runner = Runner::new(Box::new(compiled.instance()), func, entry, &positions);
    time_runs(&mut runner, n)
}

impl Experiment for Safety {
    fn name(&self) -> &'static str {
        "safety"
    }

    fn title(&self) -> &'static str {
        "Cost of the fuel and bounds checks"
    }

    fn about(&self) -> &'static str {
        "JIT time per run with and without its inline fuel and list bounds checks (measurement-only build)"
    }

    fn columns(&self) -> Vec<&'static str> {
        vec!["program", "checks", "rep", "runs", "ns_per_run", "value"]
    }

    fn units(&self, config: &Config) -> Vec<String> {
        let mut units = Vec::new();
        for rep in 0..reps(config) {
            for p in programs() {
                for (v, _) in VARIANTS {
                    units.push(format!("{}|{v}|{rep}", p.name));
                }
            }
        }
        units
    }

    fn measure(&self, ctx: &Context<'_>, unit: usize) -> Result<Vec<Vec<String>>, LabError> {
        let all = programs();
        let p = all[(unit / VARIANTS.len()) % all.len()];
        let rep = unit / (VARIANTS.len() * all.len());
        let (variant, drop) = VARIANTS[unit % VARIANTS.len()];
        let program = p.load(true)?;
        let func = p.function(&program)?;
        let n = runs(ctx.config, p.entry);
        // The checked code first: it must run to completion, and it gives the value every
        // unchecked compilation has to match.
        let (_, checked_value) = time(&program, Unchecked::default(), func, p.entry, 1, p.name)?;
        let (ns, value) = time(&program, drop, func, p.entry, n, p.name)?;
        if value != checked_value {
            return Err(LabError::Program(format!(
                "{}: {variant} code gave {value}, the checked code {checked_value}",
                p.name
            )));
        }
        Ok(vec![vec![
            p.name.to_string(),
            variant.to_string(),
            rep.to_string(),
            n.to_string(),
            format!("{ns:.1}"),
            value.to_string(),
        ]])
    }

    fn render(&self, table: &Table, plot: &Path, plot_link: &str) -> Result<String, LabError> {
        let names = distinct(table, "program");
        let time = |p: &str, v: &str| {
            median(
                &table
                    .rows
                    .iter()
                    .filter(|r| table.get(r, "program") == p && table.get(r, "checks") == v)
                    .map(|r| table.num(r, "ns_per_run"))
                    .collect::<Vec<_>>(),
            )
        };
        let cost = |with: f64, without: f64| {
            if without > 0.0 {
                format!("{:+.1}%", (with / without - 1.0) * 100.0)
            } else {
                "-".to_string()
            }
        };
        let series = ["fuel checks", "bounds checks", "both"];
        let mut bars = vec![Vec::new(); series.len()];
        let mut rows = Vec::new();
        for p in &names {
            let t: Vec<f64> = VARIANTS.iter().map(|(v, _)| time(p, v)).collect();
            let mut row = vec![p.clone()];
            row.extend(t.iter().map(|&x| num(x)));
            // The cost of a check: time with it over time without it (the other kept).
            let pairs = [(t[0], t[1]), (t[0], t[2]), (t[0], t[3])];
            for (j, &(with, without)) in pairs.iter().enumerate() {
                row.push(cost(with, without));
                bars[j].push((without > 0.0).then(|| Bar {
                    value: with / without,
                    interval: None,
                }));
            }
            row.push(same_value(table, p).to_string());
            rows.push(row);
        }
        let header = [
            "program",
            "checked ns/run",
            "no fuel ns/run",
            "no bounds ns/run",
            "neither ns/run",
            "fuel checks cost",
            "bounds checks cost",
            "both cost",
            "same value",
        ];
        let mut right = vec![true; header.len()];
        right[0] = false;
        BarChart {
            title: "JIT time with the checks over time without them".into(),
            y_label: "time ratio".into(),
            categories: names
                .iter()
                .map(|n| n.split(' ').next().unwrap_or("").to_string())
                .collect(),
            series: series.iter().map(|s| s.to_string()).collect(),
            bars,
            log: false,
        }
        .draw(plot)?;
        let mut out = String::from(
            "Medians over the repetitions (thread CPU time); a run as in the break-even experiment; \
             a cost is the time with the check over the time without it, minus one.\n\n",
        );
        out.push_str(&markdown::table(&header, &right, &rows));
        out.push_str(&format!("\n![cost of the checks]({plot_link})\n"));
        Ok(out)
    }
}
