//! Advice inside the search: `AdviceMode` off, root and node, on every VM backend and with the
//! native twin, at a fixed depth and at a fixed time per move, over the twelve positions of
//! `che-engine bench`.
//!
//! Each measured run is one search of one position from a new game (cleared hash table and
//! history) by a fresh engine with the bundled program `<shanny-eval>` (or its native twin set
//! with `Engine::set_native_advice`). Recorded: nodes, depth and selective depth reached, thread
//! CPU time and wall time, the best move and its score. Derived: nodes per second, tree size
//! against off, best-move agreement with off.

use super::cost::{distinct, NATIVE};
use crate::lab::error::LabError;
use crate::lab::experiment::{Config, Context, Experiment};
use crate::lab::markdown::{self, num};
use crate::lab::plot::{Bar, BarChart};
use crate::lab::programs::cpu_ns;
use crate::lab::stats::{mean, median};
use crate::lab::table::Table;
use crate::lab::twin::ShannyTwin;
use che_engine::advisor::{AdviceMode, Backend, ProgramSource};
use che_engine::engine::{Engine, EngineEvent, BENCH_POSITIONS};
use che_engine::options::EngineOptions;
use che_engine::search::{GoParams, SearchControl};
use chess_core::Position;
use std::path::Path;
use std::time::Duration;

/// The experiment.
pub struct Search;

/// The engine configurations: `(mode, backend)`; off runs no program, so it has no backend.
fn configs() -> Vec<(AdviceMode, String)> {
    let mut c = vec![(AdviceMode::Off, "-".to_string())];
    for mode in [AdviceMode::Root, AdviceMode::Node] {
        for b in Backend::ALL {
            c.push((mode, b.name().to_string()));
        }
        c.push((mode, NATIVE.to_string()));
    }
    c
}

/// The two limits: `depth N` and `movetime MS`.
fn limits(config: &Config) -> [String; 2] {
    if config.quick {
        ["depth 5".into(), "movetime 25".into()]
    } else {
        ["depth 9".into(), "movetime 300".into()]
    }
}

fn reps(config: &Config) -> usize {
    if config.quick {
        1
    } else {
        2
    }
}

/// A limit as the experiments write it, `depth N`, `movetime MS` or `nodes N`, as search
/// parameters.
pub(crate) fn go(limit: &str) -> Result<GoParams, LabError> {
    let bad = || LabError::Usage(format!("bad limit `{limit}`"));
    let (kind, n) = limit.split_once(' ').ok_or_else(bad)?;
    let n: u64 = n.parse().map_err(|_| bad())?;
    let mut go = GoParams::default();
    match kind {
        "depth" => go.depth = Some(u32::try_from(n).map_err(|_| bad())?),
        "movetime" => go.move_time = Some(Duration::from_millis(n)),
        "nodes" => go.nodes = Some(n),
        _ => return Err(bad()),
    }
    Ok(go)
}

impl Experiment for Search {
    fn name(&self) -> &'static str {
        "search"
    }

    fn title(&self) -> &'static str {
        "Advice inside the search"
    }

    fn about(&self) -> &'static str {
        "AdviceMode off/root/node x backend x native twin at fixed depth and fixed time"
    }

    fn columns(&self) -> Vec<&'static str> {
        vec![
            "limit", "mode", "backend", "position", "rep", "nodes", "depth", "seldepth", "cpu_ns",
            "wall_ns", "best", "score",
        ]
    }

    fn units(&self, config: &Config) -> Vec<String> {
        let mut units = Vec::new();
        for rep in 0..reps(config) {
            for limit in limits(config) {
                for (mode, backend) in configs() {
                    for i in 0..BENCH_POSITIONS.len() {
                        units.push(format!("{limit}|{mode}|{backend}|{i}|{rep}"));
                    }
                }
            }
        }
        units
    }

    fn measure(&self, ctx: &Context<'_>, unit: usize) -> Result<Vec<Vec<String>>, LabError> {
        let name = self
            .units(ctx.config)
            .get(unit)
            .cloned()
            .ok_or_else(|| LabError::Usage(format!("no unit {unit}")))?;
        let f: Vec<&str> = name.split('|').collect();
        let [limit, mode, backend, index, rep] = f[..] else {
            return Err(LabError::Usage(format!("bad unit {name}")));
        };
        let mode: AdviceMode = mode.parse().map_err(LabError::Usage)?;
        let index: usize = index.parse().map_err(|_| LabError::Usage(name.clone()))?;
        let vm_backend = if backend == NATIVE || backend == "-" {
            Backend::Interp
        } else {
            backend
                .parse::<Backend>()
                .map_err(|e| LabError::Usage(e.to_string()))?
        };
        let mut engine = Engine::new(EngineOptions {
            hash_mb: 16,
            program: ProgramSource::ShannyEval,
            backend: vm_backend,
            advice_mode: mode,
            ..EngineOptions::default()
        });
        if let Some(e) = engine.program_error() {
            return Err(LabError::Program(e.to_string()));
        }
        if backend == NATIVE {
            engine.set_native_advice(Some(Box::new(ShannyTwin::default())));
        }
        let fen = BENCH_POSITIONS
            .get(index)
            .ok_or_else(|| LabError::Usage(name.clone()))?;
        let pos = Position::from_fen(fen).map_err(|e| LabError::Program(e.to_string()))?;
        engine.new_game();
        engine
            .set_position(pos, &[])
            .map_err(|_| LabError::Program(format!("position {index}")))?;
        let go = go(limit)?;
        let control = SearchControl::new();
        let mut seldepth = 0;
        let mut errors = Vec::new();
        let (cpu, result) = cpu_ns(|| {
            engine.think(&go, &control, &mut |e| match e {
                EngineEvent::Report(r) => seldepth = seldepth.max(r.seldepth),
                EngineEvent::Note(n) if n.starts_with("error") => errors.push(n),
                EngineEvent::Note(_) => {}
            })
        });
        if let Some(e) = errors.first() {
            return Err(LabError::Program(format!("{name}: {e}")));
        }
        Ok(vec![vec![
            limit.to_string(),
            mode.to_string(),
            backend.to_string(),
            index.to_string(),
            rep.to_string(),
            result.nodes.to_string(),
            result.depth.to_string(),
            seldepth.to_string(),
            cpu.to_string(),
            result.elapsed.as_nanos().to_string(),
            result.best.map_or("(none)".to_string(), |m| m.to_string()),
            result.score.to_string(),
        ]])
    }

    fn render(&self, table: &Table, plot: &Path, plot_link: &str) -> Result<String, LabError> {
        let limits = distinct(table, "limit");
        let configs: Vec<(String, String)> = {
            let mut seen: Vec<(String, String)> = Vec::new();
            for r in &table.rows {
                let k = (
                    table.get(r, "mode").to_string(),
                    table.get(r, "backend").to_string(),
                );
                if !seen.contains(&k) {
                    seen.push(k);
                }
            }
            seen
        };
        let label = |(m, b): &(String, String)| {
            if b == "-" {
                m.clone()
            } else {
                format!("{m} {b}")
            }
        };
        let mut out = String::new();
        let mut bars = vec![Vec::new(); limits.len()];
        for (li, limit) in limits.iter().enumerate() {
            let of = |c: &(String, String)| -> Vec<&Vec<String>> {
                table
                    .rows
                    .iter()
                    .filter(|r| {
                        table.get(r, "limit") == limit
                            && table.get(r, "mode") == c.0
                            && table.get(r, "backend") == c.1
                    })
                    .collect()
            };
            let off_rows = of(&("off".to_string(), "-".to_string()));
            let off_best = |pos: &str, rep: &str| {
                off_rows
                    .iter()
                    .find(|r| table.get(r, "position") == pos && table.get(r, "rep") == rep)
                    .map(|r| table.get(r, "best").to_string())
            };
            let reps = distinct(table, "rep");
            let total = |rows: &[&Vec<String>], col: &str, rep: &str| -> f64 {
                rows.iter()
                    .filter(|r| table.get(r, "rep") == rep)
                    .map(|r| table.num(r, col))
                    .sum()
            };
            let off_nodes = median(
                &reps
                    .iter()
                    .map(|rep| total(&off_rows, "nodes", rep))
                    .collect::<Vec<_>>(),
            );
            let mut rows = Vec::new();
            let mut off_nps = f64::NAN;
            for c in &configs {
                let rs = of(c);
                if rs.is_empty() {
                    bars[li].push(None);
                    continue;
                }
                let nps: Vec<f64> = reps
                    .iter()
                    .map(|rep| total(&rs, "nodes", rep) / (total(&rs, "cpu_ns", rep) / 1e9))
                    .filter(|x| x.is_finite())
                    .collect();
                let nodes: Vec<f64> = reps.iter().map(|rep| total(&rs, "nodes", rep)).collect();
                let nps = median(&nps);
                if c.0 == "off" {
                    off_nps = nps;
                }
                let agree = rs
                    .iter()
                    .filter(|r| {
                        off_best(table.get(r, "position"), table.get(r, "rep")).as_deref()
                            == Some(table.get(r, "best"))
                    })
                    .count();
                let depths: Vec<f64> = rs.iter().map(|r| table.num(r, "depth")).collect();
                let sel: Vec<f64> = rs.iter().map(|r| table.num(r, "seldepth")).collect();
                bars[li].push(Some(Bar {
                    value: nps / 1e3,
                    interval: None,
                }));
                rows.push(vec![
                    label(c),
                    num(median(&nodes)),
                    num(median(&nodes) / off_nodes),
                    num(nps),
                    num(nps / off_nps),
                    num(mean(&depths)),
                    num(mean(&sel)),
                    format!("{agree}/{}", rs.len()),
                ]);
            }
            out.push_str(&format!(
                "**{limit}** ({} positions, {} repetition(s); totals over the positions, medians \
                 over repetitions; nodes/s from thread CPU time):\n\n",
                distinct(table, "position").len(),
                reps.len()
            ));
            out.push_str(&markdown::table(
                &[
                    "configuration",
                    "nodes",
                    "tree vs off",
                    "nodes/s",
                    "nodes/s vs off",
                    "mean depth",
                    "mean seldepth",
                    "best move = off",
                ],
                &[false, true, true, true, true, true, true, true],
                &rows,
            ));
            out.push('\n');
        }
        BarChart {
            title: "Search speed by advice mode and backend".into(),
            y_label: "thousand nodes per second (CPU time)".into(),
            categories: configs.iter().map(label).collect(),
            series: limits.clone(),
            bars,
            log: false,
        }
        .draw(plot)?;
        out.push_str(&format!("![search speed]({plot_link})\n"));
        Ok(out)
    }
}
