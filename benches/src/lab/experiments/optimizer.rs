//! Optimizer: every program with and without the loophole optimizer, on every VM backend:
//! time per run and the speed-up the optimizer gives each backend.

use super::cost::{distinct, same_value};
use crate::lab::error::LabError;
use crate::lab::experiment::{Config, Context, Experiment};
use crate::lab::markdown::{self, num, ratio};
use crate::lab::plot::{Bar, BarChart};
use crate::lab::programs::{cpu_ns, programs, Entry, Runner};
use crate::lab::stats::median;
use crate::lab::table::Table;
use cvm::Backend;
use jit::Prepared;
use std::path::Path;

/// The experiment.
pub struct Optimizer;

/// Repetitions of every measurement (the safety experiment uses the same).
pub(crate) fn reps(config: &Config) -> usize {
    if config.quick {
        1
    } else {
        7
    }
}

/// Timed runs per measurement of a program with run `entry`.
pub(crate) fn runs(config: &Config, entry: Entry) -> usize {
    match (entry, config.quick) {
        (Entry::Workload, true) => 1,
        (Entry::Workload, false) => 5,
        (_, true) => 240,
        (_, false) => 4800,
    }
}

impl Experiment for Optimizer {
    fn name(&self) -> &'static str {
        "optimizer"
    }

    fn title(&self) -> &'static str {
        "Optimizer on and off"
    }

    fn about(&self) -> &'static str {
        "time per run with and without the loophole optimizer, per program and backend"
    }

    fn columns(&self) -> Vec<&'static str> {
        vec![
            "program",
            "optimized",
            "backend",
            "rep",
            "runs",
            "ns_per_run",
            "value",
        ]
    }

    fn units(&self, config: &Config) -> Vec<String> {
        let mut units = Vec::new();
        for rep in 0..reps(config) {
            for p in programs() {
                for opt in [false, true] {
                    for b in Backend::ALL {
                        units.push(format!("{}|{opt}|{b}|{rep}", p.name));
                    }
                }
            }
        }
        units
    }

    fn measure(&self, ctx: &Context<'_>, unit: usize) -> Result<Vec<Vec<String>>, LabError> {
        let all = programs();
        let per_program = 2 * Backend::ALL.len();
        let p = all[(unit / per_program) % all.len()];
        let rep = unit / (per_program * all.len());
        let opt = (unit % per_program) / Backend::ALL.len() == 1;
        let backend = Backend::ALL[unit % Backend::ALL.len()];
        let program = p.load(opt)?;
        let func = p.function(&program)?;
        let positions = crate::oracle_positions();
        let prepared = Prepared::new(program, backend)
            .map_err(|e| LabError::Program(format!("{}: {e}", p.name)))?;
        let mut runner = Runner::new(prepared.instance(), func, p.entry, &positions);
        let value = runner.run()?;
        let n = runs(ctx.config, p.entry);
        let (ns, r) = cpu_ns(|| (0..n).try_for_each(|_| runner.run().map(|_| ())));
        r?;
        Ok(vec![vec![
            p.name.to_string(),
            opt.to_string(),
            backend.to_string(),
            rep.to_string(),
            n.to_string(),
            format!("{:.1}", ns as f64 / n as f64),
            value.to_string(),
        ]])
    }

    fn render(&self, table: &Table, plot: &Path, plot_link: &str) -> Result<String, LabError> {
        let backends = distinct(table, "backend");
        let names = distinct(table, "program");
        let time = |p: &str, opt: &str, b: &str| {
            median(
                &table
                    .rows
                    .iter()
                    .filter(|r| {
                        table.get(r, "program") == p
                            && table.get(r, "optimized") == opt
                            && table.get(r, "backend") == b
                    })
                    .map(|r| table.num(r, "ns_per_run"))
                    .collect::<Vec<_>>(),
            )
        };
        let mut rows = Vec::new();
        let mut bars = vec![Vec::new(); backends.len()];
        for p in &names {
            let mut row = vec![p.clone()];
            for (j, b) in backends.iter().enumerate() {
                let (off, on) = (time(p, "false", b), time(p, "true", b));
                row.push(num(off));
                row.push(num(on));
                row.push(ratio(off / on));
                bars[j].push(Some(Bar {
                    value: off / on,
                    interval: None,
                }));
            }
            row.push(same_value(table, p).to_string());
            rows.push(row);
        }
        let mut header = vec!["program".to_string()];
        for b in &backends {
            header.push(format!("{b} off ns/run"));
            header.push(format!("{b} on ns/run"));
            header.push(format!("{b} speed-up"));
        }
        header.push("same value".into());
        let header: Vec<&str> = header.iter().map(String::as_str).collect();
        let mut right = vec![true; header.len()];
        right[0] = false;
        BarChart {
            title: "Speed-up from the loophole optimizer (time off / time on)".into(),
            y_label: "speed-up".into(),
            categories: names
                .iter()
                .map(|n| n.split(' ').next().unwrap_or("").to_string())
                .collect(),
            series: backends.clone(),
            bars,
            log: false,
        }
        .draw(plot)?;
        let mut out = String::from(
            "Medians over the repetitions (thread CPU time); a run as in the break-even experiment.\n\n",
        );
        out.push_str(&markdown::table(&header, &right, &rows));
        out.push_str(&format!("\n![optimizer speed-up]({plot_link})\n"));
        Ok(out)
    }
}
