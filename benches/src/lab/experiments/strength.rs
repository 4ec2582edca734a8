//! Playing strength: matches through UCI, advice on against off, node against root and every
//! endgame program (`EndgameProgram <all>`) against none, under a
//! fixed short time per move, with python-chess's engine module as the match driver
//! (`benches/lab/match.py`, one process per game).
//!
//! The engine is this harness's own `uci` subcommand by default (the engine library of this
//! commit; `--engine CMD` plays another binary, e.g. `target/release/che-engine`). Each game is a
//! unit, so shards split a match game by game. The score is from the first configuration's side;
//! its Elo difference and 95% interval come from the logistic formula ([`crate::lab::stats`]).

use super::cost::distinct;
use crate::lab::error::LabError;
use crate::lab::experiment::{Config, Context, Experiment};
use crate::lab::markdown::{self, num};
use crate::lab::plot::{Bar, BarChart};
use crate::lab::stats::Score;
use crate::lab::table::Table;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The experiment.
pub struct Strength;

/// A match: its name and the two configurations' UCI options (JSON objects).
struct Match {
    name: &'static str,
    a: &'static str,
    b: &'static str,
}

const MATCHES: [Match; 3] = [
    Match {
        name: "root vs off",
        a: r#"{"CheProgram": "<shanny-eval>", "CheBackend": "jit", "AdviceMode": "root"}"#,
        b: r#"{"CheProgram": "<shanny-eval>", "CheBackend": "jit", "AdviceMode": "off"}"#,
    },
    Match {
        name: "node vs root",
        a: r#"{"CheProgram": "<shanny-eval>", "CheBackend": "jit", "AdviceMode": "node"}"#,
        b: r#"{"CheProgram": "<shanny-eval>", "CheBackend": "jit", "AdviceMode": "root"}"#,
    },
    Match {
        name: "endgame all vs off",
        a: r#"{"EndgameProgram": "<all>", "CheBackend": "jit"}"#,
        b: r#"{"EndgameProgram": "off", "CheBackend": "jit"}"#,
    },
];

/// Games per match when `--games` is not given: 2 in quick mode (a smoke test, no result), 100
/// in the full run (a 95% interval of roughly +-70 Elo around an even score).
pub fn default_games(config: &Config) -> u32 {
    if config.quick {
        2
    } else {
        100
    }
}

fn games(config: &Config) -> u32 {
    config.games.unwrap_or_else(|| default_games(config))
}

/// Milliseconds per move and the adjudication limit in half-moves.
fn time_control(config: &Config) -> (u32, u32) {
    if config.quick {
        (20, 24)
    } else {
        (50, 200)
    }
}

/// The match driver script.
pub fn driver() -> PathBuf {
    crate::crate_dir().join("lab").join("match.py")
}

/// Makes sure python-chess is importable: installs it with pip (`--user`) when it is not.
pub fn setup() -> Result<String, LabError> {
    let importable = || {
        Command::new("python3")
            .args(["-c", "import chess.engine; print(chess.__version__)"])
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    if let Some(v) = importable() {
        return Ok(format!("python-chess {v} is installed"));
    }
    let pip = Command::new("python3")
        .args(["-m", "pip", "install", "--quiet", "--user", "chess"])
        .status()
        .map_err(|e| LabError::External(format!("python3 -m pip: {e}")))?;
    if !pip.success() {
        return Err(LabError::External(
            "python3 -m pip install --user chess failed; install python-chess by hand".into(),
        ));
    }
    importable()
        .map(|v| format!("python-chess {v} installed"))
        .ok_or_else(|| LabError::External("python-chess installed but not importable".into()))
}

impl Experiment for Strength {
    fn name(&self) -> &'static str {
        "strength"
    }

    fn title(&self) -> &'static str {
        "Playing strength"
    }

    fn about(&self) -> &'static str {
        "UCI matches (python-chess): advice root vs off, node vs root, endgame programs <all> vs off; score and Elo with 95% interval"
    }

    fn columns(&self) -> Vec<&'static str> {
        vec![
            "match",
            "game",
            "opening",
            "a_white",
            "result",
            "a_points",
            "plies",
            "termination",
            "movetime_ms",
            "max_plies",
        ]
    }

    fn units(&self, config: &Config) -> Vec<String> {
        let mut units = Vec::new();
        for g in 0..games(config) {
            for m in &MATCHES {
                units.push(format!("{}#{g}", m.name));
            }
        }
        units
    }

    fn prepare(&self, _ctx: &Context<'_>) -> Result<(), LabError> {
        setup().map(|_| ())
    }

    fn measure(&self, ctx: &Context<'_>, unit: usize) -> Result<Vec<Vec<String>>, LabError> {
        let m = &MATCHES[unit % MATCHES.len()];
        let game = unit / MATCHES.len();
        let (movetime, max_plies) = time_control(ctx.config);
        if ctx.config.engine.is_empty() {
            return Err(LabError::Usage("no engine command".into()));
        }
        let out = Command::new("python3")
            .arg(driver())
            .arg("--engine")
            .args(&ctx.config.engine)
            .args(["--a", m.a, "--b", m.b])
            .args(["--game", &game.to_string()])
            .args(["--movetime", &movetime.to_string()])
            .args(["--max-plies", &max_plies.to_string()])
            .args(["--seed", &ctx.config.seed.to_string()])
            .output()
            .map_err(|e| LabError::External(format!("python3 {}: {e}", driver().display())))?;
        if !out.status.success() {
            return Err(LabError::External(format!(
                "match driver, {} game {game}: {}",
                m.name,
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        let text = String::from_utf8_lossy(&out.stdout);
        let line = text.lines().last().unwrap_or("");
        let v: serde_json::Value = serde_json::from_str(line)
            .map_err(|e| LabError::External(format!("match driver printed `{line}`: {e}")))?;
        let field = |k: &str| {
            v.get(k)
                .map(|x| x.to_string().trim_matches('"').to_string())
        };
        let get = |k: &str| {
            field(k).ok_or_else(|| LabError::External(format!("match driver: no `{k}` in {line}")))
        };
        Ok(vec![vec![
            m.name.to_string(),
            game.to_string(),
            get("opening")?,
            get("a_white")?,
            get("result")?,
            get("a_points")?,
            get("plies")?,
            get("termination")?,
            movetime.to_string(),
            max_plies.to_string(),
        ]])
    }

    fn render(&self, table: &Table, plot: &Path, plot_link: &str) -> Result<String, LabError> {
        let mut rows = Vec::new();
        let mut bars = Vec::new();
        let names = distinct(table, "match");
        for name in &names {
            let of: Vec<&Vec<String>> = table
                .rows
                .iter()
                .filter(|r| table.get(r, "match") == name)
                .collect();
            let mut s = Score::default();
            for r in &of {
                let p = table.num(r, "a_points");
                if p == 1.0 {
                    s.wins += 1;
                } else if p == 0.0 {
                    s.losses += 1;
                } else {
                    s.draws += 1;
                }
            }
            let e = s.elo();
            let adjudicated = of
                .iter()
                .filter(|r| table.get(r, "termination") == "max-plies")
                .count();
            let clamp = |x: f64| x.clamp(-800.0, 800.0);
            bars.push(Some(Bar {
                value: clamp(e.elo),
                interval: Some((clamp(e.low), clamp(e.high))),
            }));
            let tc = of.first().map_or(String::new(), |r| {
                format!(
                    "{} ms/move, draw after {} plies",
                    table.get(r, "movetime_ms"),
                    table.get(r, "max_plies")
                )
            });
            rows.push(vec![
                name.clone(),
                s.games().to_string(),
                format!("+{} ={} -{}", s.wins, s.draws, s.losses),
                num(e.score),
                num(e.elo),
                format!("[{}, {}]", num(e.low), num(e.high)),
                adjudicated.to_string(),
                tc,
            ]);
        }
        BarChart {
            title: "Elo difference of the first configuration (95% interval)".into(),
            y_label: "Elo (clamped to +-800)".into(),
            categories: names.clone(),
            series: vec!["Elo".into()],
            bars: vec![bars],
            log: false,
        }
        .draw(plot)?;
        let mut out = String::from(
            "Score from the first configuration's side (win 1, draw 1/2); Elo = -400 log10(1/score - 1); \
             the interval is score +- 1.96 standard errors (per-game variance of the results), \
             mapped through the same formula.\n\n",
        );
        out.push_str(&markdown::table(
            &[
                "match",
                "games",
                "+win =draw -loss",
                "score",
                "Elo",
                "95% interval",
                "adjudicated",
                "time control",
            ],
            &[false, true, false, true, true, false, true, false],
            &rows,
        ));
        out.push_str(&format!("\n![playing strength]({plot_link})\n"));
        Ok(out)
    }
}
