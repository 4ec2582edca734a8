//! CHEG endgame programs against search alone: the engine plays seeded samples of won KQK, KRK,
//! KBNK and KPK positions (and drawn KPK positions, defending the bare king) against the
//! tablebase's best play, with the shipped endgame program and without one, at the same limits.
//!
//! One unit is one game: an ending, a configuration (program and backend, or none), a limit
//! (`depth N`, `nodes N` or `movetime MS` per move, or a game clock `clock BASE+INC`) and a
//! position of the sample; under the time limits the program is `<all>`. The sample is drawn by
//! `che_tablebase::playout::sample` from the run's seed, so every configuration of an ending
//! plays the same positions; the games are played by `che_tablebase::playout::play_out`, the
//! referee the engine's own endgame tests use. Recorded per game: the table's distance to mate,
//! how the game ended, the engine's moves, its nodes (the searches behind the program's TRYs
//! included) and its thread CPU time.

use super::cost::distinct;
use super::search::go;
use crate::lab::error::LabError;
use crate::lab::experiment::{Config, Context, Experiment};
use crate::lab::markdown::{self, num};
use crate::lab::plot::{Bar, BarChart};
use crate::lab::programs::cpu_ns;
use crate::lab::stats::mean;
use crate::lab::table::Table;
use che_engine::advisor::Backend;
use che_engine::engine::{Engine, EngineEvent};
use che_engine::options::EngineOptions;
use che_engine::search::SearchControl;
use che_tablebase::playout::{play_out, sample, End, Start, Want};
use che_tablebase::{Material, Tablebase};
use std::path::Path;
use std::sync::OnceLock;

/// The experiment; the tables are loaded (or generated into the cache) on first use.
#[derive(Default)]
pub struct Endgame {
    tables: OnceLock<Result<Tablebase, String>>,
}

/// The endings: material, which positions, the shipped program that plays them.
const CASES: [(Material, Want, &str); 5] = [
    (Material::Kqk, Want::Won, "<kqk>"),
    (Material::Krk, Want::Won, "<krk>"),
    (Material::Kbnk, Want::Won, "<kbnk>"),
    (Material::Kpk, Want::Won, "<kpk>"),
    (Material::Kpk, Want::Drawn, "<kpk>"),
];

/// "None" in the program and backend columns: the engine's search alone.
const NONE: &str = "none";

/// Positions per ending: `--games N` when given (a smaller or larger sample of every row),
/// else 2 in the quick run and 50 in the full one.
fn positions(config: &Config) -> usize {
    match config.games {
        Some(n) => n as usize,
        None if config.quick => 2,
        None => 50,
    }
}

/// Positions per ending at `limit`: `--timed-games N` at the time limits when given (the first
/// N of the same sample), else [`positions`].
fn positions_at(config: &Config, limit: &str) -> usize {
    match config.timed_games {
        Some(n) if timed(limit) => n as usize,
        _ => positions(config),
    }
}

/// The limits per move: a shallow depth the programs are written for, a deeper one, a node
/// budget, two fixed times a move and a game clock (`clock 10+0.1`: 10 s for the game and
/// 0.1 s a move, the engine's time left as it used it). The time limits play every shipped
/// program at once (`<all>`), the others the ending's own program.
fn limits(config: &Config) -> Vec<&'static str> {
    if config.quick {
        vec!["depth 2", "nodes 1000", "movetime 10"]
    } else {
        vec![
            "depth 2",
            "depth 4",
            "nodes 2000",
            "movetime 100",
            "movetime 1000",
            "clock 10+0.1",
        ]
    }
}

/// Whether `limit` is a time limit (a fixed time a move or a game clock).
fn timed(limit: &str) -> bool {
    limit.starts_with("movetime") || limit.starts_with("clock")
}

/// The configurations of one limit: `(program, backend)`. At depth 2, where the depth-2
/// criterion is set, and under the time limits (the clock criterion) the program runs on every
/// backend; at the other limits on the interpreter (the backends play the same games at a
/// fixed depth; the engine's tests check that).
fn configs(limit: &str) -> Vec<(bool, &'static str)> {
    let mut c: Vec<(bool, &'static str)> = if limit == "depth 2" || timed(limit) {
        Backend::ALL.iter().map(|b| (true, b.name())).collect()
    } else {
        vec![(true, Backend::Interp.name())]
    };
    c.push((false, NONE));
    c
}

/// The engine's limits for its next move: a game clock (`clock BASE+INC`, seconds) with `left`
/// the engine's time left, or a fixed `go` ([`go`]).
enum Limit {
    Fixed(che_engine::search::GoParams),
    Clock {
        increment: std::time::Duration,
        left: std::time::Duration,
    },
}

impl Limit {
    fn parse(limit: &str) -> Result<Limit, LabError> {
        let Some(clock) = limit.strip_prefix("clock ") else {
            return go(limit).map(Limit::Fixed);
        };
        let bad = || LabError::Usage(format!("bad limit `{limit}`"));
        let (base, inc) = clock.split_once('+').ok_or_else(bad)?;
        let secs = |t: &str| {
            t.parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && *v >= 0.0)
                .map(std::time::Duration::from_secs_f64)
                .ok_or_else(bad)
        };
        Ok(Limit::Clock {
            left: secs(base)?,
            increment: secs(inc)?,
        })
    }

    fn go(&self) -> che_engine::search::GoParams {
        match self {
            Limit::Fixed(go) => go.clone(),
            Limit::Clock { increment, left } => che_engine::search::GoParams {
                time: [Some(*left); 2],
                increment: [Some(*increment); 2],
                ..che_engine::search::GoParams::default()
            },
        }
    }

    /// Charges a move that took `used`: an error when the clock ran out.
    fn charge(&mut self, used: std::time::Duration) -> Result<(), String> {
        if let Limit::Clock { increment, left } = self {
            if used > *left {
                return Err(format!("lost on time ({used:?} used, {left:?} left)"));
            }
            *left = *left - used + *increment;
        }
        Ok(())
    }
}

/// `KQK won` or `KPK drawn`: the ending column.
fn ending(material: Material, want: Want) -> String {
    format!("{} {}", material.name(), want.name())
}

impl Endgame {
    fn tables(&self) -> Result<&Tablebase, LabError> {
        self.tables
            .get_or_init(|| {
                Tablebase::load_or_generate(&che_tablebase::default_cache_dir())
                    .map_err(|e| e.to_string())
            })
            .as_ref()
            .map_err(|e| LabError::Program(format!("the tablebase: {e}")))
    }

    /// Position `index` of the sample of `(material, want)` drawn from `seed`.
    fn start(
        &self,
        material: Material,
        want: Want,
        index: usize,
        seed: u64,
    ) -> Result<Start, LabError> {
        // A sample of n positions is the first n of any longer one with the same seed.
        sample(self.tables()?, material, want, index + 1, seed)
            .map_err(|e| LabError::Program(e.to_string()))?
            .pop()
            .ok_or_else(|| LabError::Usage(format!("no position {index}")))
    }
}

/// The sentence that gives the positions per ending: one count when every limit played the same
/// sample, else the count of each group of limits (a smaller sample being the first positions
/// of the larger one).
fn sample_sizes(table: &Table, limits: &[String]) -> String {
    // Positions per limit: the most any ending played there.
    let mut groups: Vec<(usize, Vec<&str>)> = Vec::new();
    for limit in limits {
        let n = distinct(table, "ending")
            .iter()
            .map(|ending| {
                let mut seen: Vec<&str> = table
                    .rows
                    .iter()
                    .filter(|r| table.get(r, "limit") == limit && table.get(r, "ending") == ending)
                    .map(|r| table.get(r, "position"))
                    .collect();
                seen.sort_unstable();
                seen.dedup();
                seen.len()
            })
            .max()
            .unwrap_or(0);
        match groups.iter_mut().find(|(count, _)| *count == n) {
            Some((_, ls)) => ls.push(limit),
            None => groups.push((n, vec![limit])),
        }
    }
    if groups.len() <= 1 {
        let n = groups.first().map_or(0, |(n, _)| *n);
        return format!("{n} positions per ending (the same in every row of an ending)");
    }
    groups.sort_by_key(|(n, _)| std::cmp::Reverse(*n));
    let parts: Vec<String> = groups
        .iter()
        .map(|(n, ls)| format!("{n} at {}", ls.join(", ")))
        .collect();
    format!(
        "Positions per ending: {} (a smaller sample is the first positions of the larger one, \
         the same in every row of an ending at those limits)",
        parts.join("; ")
    )
}

/// A fresh engine with `program` (or none) on `backend`, advice off.
fn engine(program: Option<&str>, backend: &str) -> Result<Engine, LabError> {
    let mut e = Engine::new(EngineOptions::default());
    let set = |e: &mut Engine, name: &str, value: &str| {
        e.set_option(name, value)
            .map_err(|err| LabError::Program(format!("{name} {value}: {err}")))
    };
    set(&mut e, "AdviceMode", "off")?;
    if let Some(program) = program {
        set(&mut e, "CheBackend", backend)?;
        set(&mut e, "EndgameProgram", program)?;
        if let Some(err) = e.endgame_error() {
            return Err(LabError::Program(format!("{program}: {err}")));
        }
    }
    Ok(e)
}

impl Experiment for Endgame {
    fn name(&self) -> &'static str {
        "endgame"
    }

    fn title(&self) -> &'static str {
        "CHEG endgame programs against search alone"
    }

    fn about(&self) -> &'static str {
        "the shipped CHEG programs vs the engine alone, playing sampled KQK/KRK/KBNK/KPK positions against the tablebase"
    }

    fn columns(&self) -> Vec<&'static str> {
        vec![
            "ending",
            "limit",
            "program",
            "backend",
            "position",
            "fen",
            "table_moves",
            "result",
            "engine_moves",
            "plies",
            "nodes",
            "cpu_ns",
            "detail",
        ]
    }

    fn units(&self, config: &Config) -> Vec<String> {
        let mut units = Vec::new();
        for (material, want, program) in CASES {
            for limit in limits(config) {
                for (with_program, backend) in configs(limit) {
                    for i in 0..positions_at(config, limit) {
                        let program = match (with_program, timed(limit)) {
                            (false, _) => NONE,
                            (true, true) => "<all>",
                            (true, false) => program,
                        };
                        units.push(format!(
                            "{}|{limit}|{program}|{backend}|{i}",
                            ending(material, want)
                        ));
                    }
                }
            }
        }
        units
    }

    fn prepare(&self, _ctx: &Context<'_>) -> Result<(), LabError> {
        self.tables().map(|_| ())
    }

    fn measure(&self, ctx: &Context<'_>, unit: usize) -> Result<Vec<Vec<String>>, LabError> {
        let name = self
            .units(ctx.config)
            .get(unit)
            .cloned()
            .ok_or_else(|| LabError::Usage(format!("no unit {unit}")))?;
        let f: Vec<&str> = name.split('|').collect();
        let [end_name, limit, program, backend, index] = f[..] else {
            return Err(LabError::Usage(format!("bad unit {name}")));
        };
        let (material, want, _) = CASES
            .into_iter()
            .find(|(m, w, _)| ending(*m, *w) == end_name)
            .ok_or_else(|| LabError::Usage(format!("bad unit {name}")))?;
        let index: usize = index.parse().map_err(|_| LabError::Usage(name.clone()))?;
        let start = self.start(material, want, index, ctx.config.seed)?;
        let mut clock = Limit::parse(limit)?;
        let mut e = engine((program != NONE).then_some(program), backend)?;
        let tb = self.tables()?;
        let mut errors = Vec::new();
        let (cpu, game) = cpu_ns(|| {
            play_out(tb, &start.position, want, |_, moves| {
                e.set_position(start.position, moves)
                    .map_err(|err| err.to_string())?;
                let began = std::time::Instant::now();
                let result = e.think(&clock.go(), &SearchControl::new(), &mut |ev| {
                    if let EngineEvent::Note(n) = ev {
                        if n.starts_with("error") {
                            errors.push(n);
                        }
                    }
                });
                clock.charge(began.elapsed())?;
                let best = result.best.ok_or("the engine gave no move")?;
                Ok((best, result.nodes))
            })
        });
        // A failing program is reported by the engine, which plays on without it; in this
        // experiment that would measure the search alone under the program's name.
        if let Some(err) = errors.first() {
            return Err(LabError::Program(format!("{name}: {err}")));
        }
        let (result, engine_moves, detail) = match &game.end {
            End::Mate { moves } => ("mate", moves.to_string(), String::new()),
            End::Held => ("held", String::new(), String::new()),
            End::Failed { why } => ("failed", String::new(), why.clone()),
        };
        Ok(vec![vec![
            end_name.to_string(),
            limit.to_string(),
            program.to_string(),
            backend.to_string(),
            index.to_string(),
            start.position.to_fen(),
            match want {
                Want::Won => start.plies.div_ceil(2).to_string(),
                Want::Drawn => String::new(),
            },
            result.to_string(),
            engine_moves,
            game.moves.len().to_string(),
            game.nodes.to_string(),
            cpu.to_string(),
            detail,
        ]])
    }

    fn render(&self, table: &Table, plot: &Path, plot_link: &str) -> Result<String, LabError> {
        let endings = distinct(table, "ending");
        // The games of one ending at one limit whose program and backend cells pass `config`.
        let games = |ending: &str, limit: &str, config: &dyn Fn(&str, &str) -> bool| {
            table
                .rows
                .iter()
                .filter(|r| {
                    table.get(r, "ending") == ending
                        && table.get(r, "limit") == limit
                        && config(table.get(r, "program"), table.get(r, "backend"))
                })
                .collect::<Vec<&Vec<String>>>()
        };
        let limits = distinct(table, "limit");
        let mut rows = Vec::new();
        for ending in &endings {
            let won_ending = ending.ends_with(" won");
            // This ending's configurations in the order they were measured.
            let mut configs: Vec<(String, String, String)> = Vec::new();
            for r in table
                .rows
                .iter()
                .filter(|r| table.get(r, "ending") == ending)
            {
                let k = (
                    table.get(r, "limit").to_string(),
                    table.get(r, "program").to_string(),
                    table.get(r, "backend").to_string(),
                );
                if !configs.contains(&k) {
                    configs.push(k);
                }
            }
            for (limit, program, backend) in &configs {
                let rs = games(ending, limit, &|p, b| p == program && b == backend);
                if rs.is_empty() {
                    continue;
                }
                let ok: Vec<&&Vec<String>> = rs
                    .iter()
                    .filter(|r| table.get(r, "result") != "failed")
                    .collect();
                let col_mean =
                    |col: &str| mean(&ok.iter().map(|r| table.num(r, col)).collect::<Vec<_>>());
                let nodes = mean(&rs.iter().map(|r| table.num(r, "nodes")).collect::<Vec<_>>());
                let ms = mean(
                    &rs.iter()
                        .map(|r| table.num(r, "cpu_ns"))
                        .collect::<Vec<_>>(),
                ) / 1e6;
                let (moves, table_moves) = if won_ending && !ok.is_empty() {
                    (num(col_mean("engine_moves")), num(col_mean("table_moves")))
                } else {
                    ("-".to_string(), "-".to_string())
                };
                rows.push(vec![
                    ending.clone(),
                    if program == NONE {
                        NONE.to_string()
                    } else {
                        format!("`{program}`")
                    },
                    backend.clone(),
                    limit.clone(),
                    format!("{}/{}", ok.len(), rs.len()),
                    moves,
                    table_moves,
                    num(nodes),
                    num(ms),
                ]);
            }
        }
        // The plot: the share of games won (or held) per ending, with the program on the
        // interpreter and with search alone, at each limit.
        let mut series = Vec::new();
        let mut bars = Vec::new();
        for limit in &limits {
            for (program, backend) in [(true, Backend::Interp.name()), (false, NONE)] {
                series.push(if program {
                    format!("program, {limit}")
                } else {
                    format!("none, {limit}")
                });
                bars.push(
                    endings
                        .iter()
                        .map(|ending| {
                            let rs = games(ending, limit, &|p, b| {
                                (p != NONE) == program && b == backend
                            });
                            let ok = rs
                                .iter()
                                .filter(|r| table.get(r, "result") != "failed")
                                .count();
                            (!rs.is_empty()).then(|| Bar {
                                value: ok as f64 / rs.len() as f64 * 100.0,
                                interval: None,
                            })
                        })
                        .collect(),
                );
            }
        }
        BarChart {
            title: "Games won (held) against the tablebase's defence".into(),
            y_label: "per cent of the sample".into(),
            categories: endings.clone(),
            series,
            bars,
            log: false,
        }
        .draw(plot)?;
        let header = [
            "ending",
            "program",
            "backend",
            "limit",
            "won / held",
            "moves",
            "table",
            "nodes per game",
            "CPU ms per game",
        ];
        let mut right = vec![true; header.len()];
        right[..4].fill(false);
        let mut out = format!(
            "{}; \"won / held\" counts \
             the games mated (won endings) or held (drawn, defending); \"moves\" is the mean \
             number of the engine's moves to mate over the games it won, \"table\" the \
             tablebase's mean distance to mate in moves from the same positions; nodes and CPU \
             time are means per game, the searches behind the program's TRYs included.\n\n",
            sample_sizes(table, &limits)
        );
        out.push_str(&markdown::table(&header, &right, &rows));
        out.push_str(&format!("\n![endgame programs]({plot_link})\n"));
        Ok(out)
    }
}
