//! Cost per call: the bundled advice program's `main()` and `Evaluate()`, and the pattern-heavy
//! program `benches/advice/patterns.che`'s `main()`, on every VM backend and as the hand-written
//! native Rust twins, over the oracle's 240 positions.
//!
//! Each backend runs exactly the engine's path: an [`Advisor`] session's `run_root` (reset,
//! board view, `main()`, printed lines collected) and `call_hook` (board view updated in place,
//! `Evaluate()`, sign for the side to move); the twin runs through the engine's
//! [`NativeHook`] and the same steps. Before any timing, each twin is checked equal to its
//! program on every position on every backend ([`check_twin`], [`check_patterns_twin`]); a run
//! does not start otherwise.

use crate::lab::error::LabError;
use crate::lab::experiment::{Config, Context, Experiment};
use crate::lab::markdown::{self, num, ratio};
use crate::lab::patterns_twin::{check_patterns_twin, patterns_path, patterns_score};
use crate::lab::plot::{Bar, BarChart};
use crate::lab::programs::cpu_ns;
use crate::lab::stats::{median, min};
use crate::lab::table::Table;
use crate::lab::twin::{check_twin, ShannyTwin};
use che_engine::advisor::{Advisor, Backend, ProgramSource};
use che_engine::host::AdviceHost;
use che_engine::native::NativeHook;
use che_engine::search::LeafHook;
use chess_core::Position;
use cvm_chess::advice_table::AdviceTable;
use std::path::Path;

/// The experiment.
pub struct Cost;

/// The measured functions: the bundled program's `main()` and `Evaluate()`, and `main()` of
/// `patterns.che` (named `patterns`).
const FUNCTIONS: [&str; 3] = ["main", "Evaluate", PATTERNS];
/// The function name of `patterns.che`'s `main()` in units and rows.
const PATTERNS: &str = "patterns";

/// How a function is shown in tables.
fn label(function: &str) -> String {
    match function {
        PATTERNS => "`patterns.che` `main()`".to_string(),
        f => format!("`{f}()`"),
    }
}
/// The twin's row name.
pub const NATIVE: &str = "native";

fn backends() -> Vec<String> {
    Backend::ALL
        .iter()
        .map(|b| b.name().to_string())
        .chain([NATIVE.to_string()])
        .collect()
}

fn reps(config: &Config) -> usize {
    if config.quick {
        3
    } else {
        15
    }
}

fn passes(config: &Config) -> usize {
    if config.quick {
        5
    } else {
        100
    }
}

/// A digest of an advice table (sum of every entry, weighted by position).
pub fn digest(t: &AdviceTable) -> i64 {
    let squares = t.square_bonus.iter().flatten().flatten();
    let moves = t.move_bonus.iter().flatten().flatten();
    let rest = t
        .piece_value
        .iter()
        .flatten()
        .chain(t.control_bonus.iter().flatten().flatten());
    squares
        .chain(moves)
        .chain(rest)
        .enumerate()
        .map(|(i, &v)| (i as i64 + 1) * i64::from(v))
        .sum()
}

/// Times `passes` passes over the positions of the function on a VM backend; returns
/// (checksum of an untimed first pass, CPU ns of the timed passes).
fn time_vm(
    backend: Backend,
    function: &str,
    positions: &[Position],
    passes: usize,
) -> Result<(i64, u64), LabError> {
    let source = match function {
        PATTERNS => ProgramSource::File(patterns_path()),
        _ => ProgramSource::ShannyEval,
    };
    let mut advisor = Advisor::load(&source).map_err(|e| LabError::Program(e.to_string()))?;
    steady(&mut advisor, backend)?;
    let mut host = AdviceHost::new(&Position::startpos());
    let mut session = advisor
        .session(backend, &mut host)
        .map_err(|e| LabError::Program(e.to_string()))?;
    let failed = |e: String| LabError::Program(format!("{function} on {backend}: {e}"));
    let mut checksum = 0i64;
    if function == PATTERNS {
        for pos in positions {
            let run = session.run_root(pos).map_err(failed)?;
            checksum += i64::from(run.value.unwrap_or(0));
        }
        let (ns, ok) = cpu_ns(|| {
            for _ in 0..passes {
                for pos in positions {
                    if session.run_root(pos).is_err() {
                        return false;
                    }
                }
            }
            true
        });
        ok.then_some((checksum, ns))
            .ok_or_else(|| failed("runtime error".into()))
    } else if function == "main" {
        for pos in positions {
            session.run_root(pos).map_err(failed)?;
            checksum += digest(session.advice());
        }
        let (ns, ok) = cpu_ns(|| {
            for _ in 0..passes {
                for pos in positions {
                    if session.run_root(pos).is_err() {
                        return false;
                    }
                }
            }
            true
        });
        ok.then_some((checksum, ns))
            .ok_or_else(|| failed("runtime error".into()))
    } else {
        session.run_root(&Position::startpos()).map_err(failed)?;
        for pos in positions {
            checksum += i64::from(
                session
                    .call_hook(pos)
                    .ok_or_else(|| failed("no value".into()))?,
            );
        }
        let (ns, sum) = cpu_ns(|| {
            let mut sum = 0i64;
            for _ in 0..passes {
                for pos in positions {
                    sum += i64::from(session.call_hook(pos).unwrap_or(0));
                }
            }
            sum
        });
        std::hint::black_box(sum);
        Ok((checksum, ns))
    }
}

/// The longest wait for the JIT's optimized code (see [`steady`]).
const UPGRADE_WAIT: std::time::Duration = std::time::Duration::from_secs(60);

/// Prepares the program for `backend` and, on the JIT, waits until Cranelift's code has replaced
/// the baseline code the engine's JIT starts on (`jit::Prepared::for_entries`), so that the JIT
/// rows time the code a search runs on after its first milliseconds. A program Cranelift cannot
/// compile keeps its baseline code; after [`UPGRADE_WAIT`] that is what is timed.
fn steady(advisor: &mut Advisor, backend: Backend) -> Result<(), LabError> {
    let prepared = advisor
        .prepare(backend)
        .map_err(|e| LabError::Program(e.to_string()))?;
    wait_for_cranelift(prepared, UPGRADE_WAIT);
    Ok(())
}

/// Loads `source` and prepares it for `backend`; on the JIT, waits up to
/// `deadline` until Cranelift's code has replaced the baseline code the
/// engine's JIT starts on (what a search runs after its first
/// milliseconds), and fails when it has not arrived by then. For tools that
/// time that code and must not time anything else (the cost experiment
/// times baseline code when Cranelift's does not arrive).
pub fn steady_advisor(
    source: &ProgramSource,
    backend: Backend,
    deadline: std::time::Duration,
) -> Result<Advisor, String> {
    let mut advisor = Advisor::load(source).map_err(|e| e.to_string())?;
    let prepared = advisor.prepare(backend).map_err(|e| e.to_string())?;
    if !wait_for_cranelift(prepared, deadline) {
        return Err("Cranelift's code did not arrive".into());
    }
    Ok(advisor)
}

/// Waits, up to `deadline`, until Cranelift's code has replaced the
/// baseline code a program prepared for the engine's JIT starts on; true
/// when it has (or when `prepared` is not for the JIT).
pub fn wait_for_cranelift(prepared: &jit::Prepared, deadline: std::time::Duration) -> bool {
    let start = std::time::Instant::now();
    while let Some(jit) = prepared.jit() {
        if jit.upgraded() {
            break;
        }
        if start.elapsed() > deadline {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    true
}

/// The same for the native twin.
fn time_native(function: &str, positions: &[Position], passes: usize) -> (i64, u64) {
    let mut twin = ShannyTwin::default();
    let mut host = AdviceHost::new(&Position::startpos());
    let mut checksum = 0i64;
    if function == PATTERNS {
        let mut table = Box::<AdviceTable>::default();
        // The engine's root steps, as for `main()` below; the program writes no advice.
        let mut root = |pos: &Position, table: &mut AdviceTable| {
            host.set_position(pos);
            table.clear_written();
            let lines: Vec<String> = Vec::new();
            let v = patterns_score(host.board_view());
            std::hint::black_box(lines);
            v
        };
        for pos in positions {
            checksum += i64::from(root(pos, &mut table));
        }
        let (ns, ()) = cpu_ns(|| {
            for _ in 0..passes {
                for pos in positions {
                    std::hint::black_box(root(pos, &mut table));
                }
            }
        });
        (checksum, ns)
    } else if function == "main" {
        let mut table = Box::<AdviceTable>::default();
        let mut root = |pos: &Position, table: &mut AdviceTable| {
            std::hint::black_box(twin.run_root(&mut host, table, pos));
        };
        for pos in positions {
            root(pos, &mut table);
            checksum += digest(&table);
        }
        let (ns, ()) = cpu_ns(|| {
            for _ in 0..passes {
                for pos in positions {
                    root(pos, &mut table);
                }
            }
        });
        (checksum, ns)
    } else {
        let mut hook = NativeHook {
            advice: &mut twin,
            host: &mut host,
        };
        for pos in positions {
            checksum += i64::from(hook.evaluate(pos).unwrap_or(0));
        }
        let (ns, sum) = cpu_ns(|| {
            let mut sum = 0i64;
            for _ in 0..passes {
                for pos in positions {
                    sum += i64::from(hook.evaluate(pos).unwrap_or(0));
                }
            }
            sum
        });
        std::hint::black_box(sum);
        (checksum, ns)
    }
}

impl Experiment for Cost {
    fn name(&self) -> &'static str {
        "cost"
    }

    fn title(&self) -> &'static str {
        "Cost per call"
    }

    fn about(&self) -> &'static str {
        "ns per call of the bundled program's main() and Evaluate() on each backend and natively"
    }

    fn columns(&self) -> Vec<&'static str> {
        vec![
            "function",
            "backend",
            "rep",
            "positions",
            "calls",
            "cpu_ns",
            "ns_per_call",
            "checksum",
            "twin_checked_positions",
        ]
    }

    fn units(&self, config: &Config) -> Vec<String> {
        let mut units = Vec::new();
        // Repetitions outermost, so that machine noise spreads over every row alike.
        for rep in 0..reps(config) {
            for f in FUNCTIONS {
                for b in backends() {
                    units.push(format!("{f}/{b}/{rep}"));
                }
            }
        }
        units
    }

    fn prepare(&self, _ctx: &Context<'_>) -> Result<(), LabError> {
        let positions = crate::oracle_positions();
        check_twin(&positions)?;
        check_patterns_twin(&positions)?;
        Ok(())
    }

    fn measure(&self, ctx: &Context<'_>, unit: usize) -> Result<Vec<Vec<String>>, LabError> {
        let name = self
            .units(ctx.config)
            .get(unit)
            .cloned()
            .ok_or_else(|| LabError::Usage(format!("no unit {unit}")))?;
        let mut parts = name.split('/');
        let (f, b, rep) = (
            parts.next().unwrap_or(""),
            parts.next().unwrap_or(""),
            parts.next().unwrap_or(""),
        );
        let positions = crate::oracle_positions();
        let passes = passes(ctx.config);
        let (checksum, ns) = if b == NATIVE {
            time_native(f, &positions, passes)
        } else {
            let backend = b
                .parse::<Backend>()
                .map_err(|e| LabError::Usage(e.to_string()))?;
            time_vm(backend, f, &positions, passes)?
        };
        let calls = positions.len() * passes;
        Ok(vec![vec![
            f.to_string(),
            b.to_string(),
            rep.to_string(),
            positions.len().to_string(),
            calls.to_string(),
            ns.to_string(),
            format!("{:.2}", ns as f64 / calls as f64),
            checksum.to_string(),
            positions.len().to_string(),
        ]])
    }

    fn render(&self, table: &Table, plot: &Path, plot_link: &str) -> Result<String, LabError> {
        let series = distinct(table, "backend");
        let per = |f: &str, b: &str| -> Vec<f64> {
            table
                .rows
                .iter()
                .filter(|r| table.get(r, "function") == f && table.get(r, "backend") == b)
                .map(|r| table.num(r, "ns_per_call"))
                .collect()
        };
        let mut rows = Vec::new();
        let mut bars = vec![Vec::new(); series.len()];
        for f in FUNCTIONS {
            let native = median(&per(f, NATIVE));
            let interp = median(&per(f, "interp"));
            for (j, b) in series.iter().enumerate() {
                let v = per(f, b);
                let sums: Vec<&str> = table
                    .rows
                    .iter()
                    .filter(|r| table.get(r, "function") == f)
                    .map(|r| table.get(r, "checksum"))
                    .collect();
                let agree = sums.windows(2).all(|w| w[0] == w[1]);
                if v.is_empty() {
                    bars[j].push(None);
                    continue;
                }
                let m = median(&v);
                bars[j].push(Some(Bar {
                    value: m,
                    interval: Some((min(&v), v.iter().copied().fold(f64::MIN, f64::max))),
                }));
                rows.push(vec![
                    label(f),
                    b.clone(),
                    v.len().to_string(),
                    num(m),
                    num(min(&v)),
                    ratio(m / native),
                    ratio(interp / m),
                    if agree { "yes" } else { "NO" }.to_string(),
                ]);
            }
        }
        BarChart {
            title: "Cost per call (median over runs; whiskers: min..max)".into(),
            y_label: "ns per call (log scale)".into(),
            categories: FUNCTIONS
                .iter()
                .map(|f| match *f {
                    PATTERNS => "patterns.che main()".to_string(),
                    f => format!("{f}()"),
                })
                .collect(),
            series: series.clone(),
            bars,
            log: true,
        }
        .draw(plot)?;
        let calls = table.rows.first().map_or(0.0, |r| {
            table.num(r, "calls") / table.num(r, "positions").max(1.0)
        });
        let checked = table.rows.first().map_or(String::new(), |r| {
            table.get(r, "twin_checked_positions").to_string()
        });
        let mut out = format!(
            "Runs per row: {}; each run {} passes over the {} positions (thread CPU time). Each native \
             twin was checked equal to its program on all {checked} positions on every VM backend \
             before timing (advice table, printed lines, the value of `Evaluate()` and of \
             `patterns.che`'s `main()`).\n\n",
            per(FUNCTIONS[0], NATIVE).len(),
            num(calls),
            checked,
        );
        out.push_str(&markdown::table(
            &[
                "function",
                "backend",
                "runs",
                "median ns/call",
                "best ns/call",
                "x native",
                "speed-up over interp",
                "same checksum",
            ],
            &[false, false, true, true, true, true, true, false],
            &rows,
        ));
        out.push_str(&format!("\n![cost per call]({plot_link})\n"));
        Ok(out)
    }
}

/// `yes` when every row of `program` has the same `value` cell, else `NO`: the check that
/// every variant of a program computed the same thing.
pub fn same_value(table: &Table, program: &str) -> &'static str {
    let values: Vec<&str> = table
        .rows
        .iter()
        .filter(|r| table.get(r, "program") == program)
        .map(|r| table.get(r, "value"))
        .collect();
    if values.windows(2).all(|w| w[0] == w[1]) {
        "yes"
    } else {
        "NO"
    }
}

/// The distinct values of a column, in order of first appearance.
pub fn distinct(table: &Table, column: &str) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    for r in &table.rows {
        let v = table.get(r, column);
        if !seen.iter().any(|s| s == v) {
            seen.push(v.to_string());
        }
    }
    seen
}
