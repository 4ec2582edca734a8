//! `che-lab`: the experiment harness. One command reproduces the advice-overhead study:
//!
//! ```text
//! che-lab setup                              # python-chess for the match driver
//! che-lab run --all [--quick] --out DIR      # every experiment: DIR/NAME.{csv,svg,md}
//! che-lab cost|breakeven|search|strength|optimizer|safety|endgame [--quick] --out DIR
//! che-lab run --all --shard K/N --out DIR_K  # this machine's share; then:
//! che-lab merge DIR_1 ... DIR_N --out DIR
//! che-lab report [--from DIR] [--to docs/experiments.md]
//! ```
//!
//! See `docs/experiments.md` for the experiments, their method and the latest results.

use che_benches::lab::error::LabError;
use che_benches::lab::experiment::{find, registry, Config, Experiment};
use che_benches::lab::shard::Shard;
use che_benches::lab::{report, runner};
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

/// The experiment harness of the Che project.
#[derive(Parser)]
#[command(name = "che-lab", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// What every measuring subcommand takes.
#[derive(Args, Clone)]
struct RunArgs {
    /// The small version of every experiment (the whole harness in under three minutes).
    #[arg(long)]
    quick: bool,
    /// Where the CSV, SVG and Markdown files go.
    #[arg(long)]
    out: PathBuf,
    /// The seed of everything random (recorded in every row).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// This machine's share: K/N measures every N-th unit of work starting at the K-th.
    #[arg(long, default_value = "1/1")]
    shard: Shard,
    /// Games per match in the playing-strength experiment (default: 2 quick, 100 full) and
    /// positions per ending in the endgame experiment (default: 2 quick, 50 full).
    #[arg(long)]
    games: Option<u32>,
    /// Positions per ending at the endgame experiment's time limits (movetime, game clock): the
    /// first N of the same sample (default: as many as at its other limits).
    #[arg(long)]
    timed_games: Option<u32>,
    /// The UCI engine command for the matches (default: this program's `uci` subcommand).
    #[arg(long, num_args = 1.., allow_hyphen_values = false)]
    engine: Option<Vec<String>>,
}

#[derive(Subcommand)]
enum Command {
    /// Run experiments: those named, or all of them with --all.
    Run {
        /// Every experiment.
        #[arg(long)]
        all: bool,
        /// Experiments to run (cost, breakeven, search, strength, optimizer, safety, endgame).
        names: Vec<String>,
        #[command(flatten)]
        args: RunArgs,
    },
    /// Cost per call: main() and Evaluate() on each backend and as the native twin.
    Cost(RunArgs),
    /// Break-even: JIT compile time against interpreter time per run, by program size.
    Breakeven(RunArgs),
    /// Advice inside the search: AdviceMode x backend x native twin, fixed depth and time.
    Search(RunArgs),
    /// Playing strength: UCI matches through python-chess, Elo with its error bar.
    Strength(RunArgs),
    /// Optimizer on and off, per program and backend.
    Optimizer(RunArgs),
    /// The cost of the JIT's fuel and bounds checks (a measurement-only build without them).
    Safety(RunArgs),
    /// CHEG endgame programs against search alone, playing against the tablebase's defence.
    Endgame(RunArgs),
    /// Combine the CSVs of shard directories into one run directory (with plots and sections).
    Merge {
        /// The shards' output directories.
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        /// The combined directory.
        #[arg(long)]
        out: PathBuf,
    },
    /// Assemble docs/experiments.md (and docs/experiments/) from a run directory.
    Report {
        /// The run directory.
        #[arg(long, default_value = "target/lab")]
        from: PathBuf,
        /// The report.
        #[arg(long, default_value = "docs/experiments.md")]
        to: PathBuf,
    },
    /// Install what the harness needs outside Rust (python-chess, with pip, when missing).
    Setup,
    /// Speak UCI on standard input and output (the engine the match driver plays by default).
    Uci,
}

fn config(args: &RunArgs) -> Result<Config, LabError> {
    let engine = match &args.engine {
        Some(cmd) => cmd.clone(),
        None => {
            let exe = std::env::current_exe()
                .map_err(|e| LabError::Usage(format!("cannot find this program: {e}")))?;
            vec![exe.display().to_string(), "uci".to_string()]
        }
    };
    Ok(Config {
        quick: args.quick,
        seed: args.seed,
        games: args.games,
        timed_games: args.timed_games,
        engine,
        shard: args.shard,
        out: args.out.clone(),
    })
}

fn named(names: &[&str]) -> Result<Vec<Box<dyn Experiment>>, LabError> {
    names
        .iter()
        .map(|n| {
            find(n).ok_or_else(|| {
                let known: Vec<&str> = registry().iter().map(|e| e.name()).collect();
                LabError::Usage(format!(
                    "unknown experiment `{n}` (known: {})",
                    known.join(", ")
                ))
            })
        })
        .collect()
}

fn execute(command: Command) -> Result<(), LabError> {
    let run = |experiments: Vec<Box<dyn Experiment>>, args: &RunArgs| -> Result<(), LabError> {
        let config = config(args)?;
        runner::run(&experiments, &config)?;
        eprintln!(
            "che-lab: wrote {} into {}",
            experiments
                .iter()
                .map(|e| e.name())
                .collect::<Vec<_>>()
                .join(", "),
            config.out.display()
        );
        Ok(())
    };
    match command {
        Command::Run { all, names, args } => {
            let experiments = if all {
                if !names.is_empty() {
                    return Err(LabError::Usage(
                        "give either --all or experiment names".into(),
                    ));
                }
                registry()
            } else if names.is_empty() {
                return Err(LabError::Usage(
                    "name the experiments to run, or give --all".into(),
                ));
            } else {
                let names: Vec<&str> = names.iter().map(String::as_str).collect();
                named(&names)?
            };
            run(experiments, &args)
        }
        Command::Cost(a) => run(named(&["cost"])?, &a),
        Command::Breakeven(a) => run(named(&["breakeven"])?, &a),
        Command::Search(a) => run(named(&["search"])?, &a),
        Command::Strength(a) => run(named(&["strength"])?, &a),
        Command::Optimizer(a) => run(named(&["optimizer"])?, &a),
        Command::Safety(a) => run(named(&["safety"])?, &a),
        Command::Endgame(a) => run(named(&["endgame"])?, &a),
        Command::Merge { inputs, out } => {
            let merged = runner::merge(&registry(), &inputs, &out)?;
            eprintln!(
                "che-lab: merged {} into {}",
                merged.join(", "),
                out.display()
            );
            Ok(())
        }
        Command::Report { from, to } => {
            let included = report::report(&registry(), &from, &to)?;
            eprintln!(
                "che-lab: wrote {} with {}",
                to.display(),
                included.join(", ")
            );
            Ok(())
        }
        Command::Setup => {
            let note = che_benches::lab::experiments::strength::setup()?;
            println!("{note}");
            Ok(())
        }
        Command::Uci => {
            let input = std::io::stdin().lock();
            che_engine::uci::run(
                input,
                che_engine::worker::Out::stdout(),
                che_engine::options::EngineOptions::default(),
            )
            .map_err(|e| LabError::External(e.to_string()))
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // The search needs the engine worker's large stack (JIT code and deep lines run on it).
    let worker = std::thread::Builder::new()
        .stack_size(che_engine::worker::WORKER_STACK)
        .spawn(move || execute(cli.command));
    let result = match worker {
        Ok(handle) => handle
            .join()
            .unwrap_or_else(|_| Err(LabError::External("the harness thread panicked".into()))),
        Err(e) => Err(LabError::External(format!("cannot start a thread: {e}"))),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("che-lab: {e}");
            ExitCode::FAILURE
        }
    }
}
