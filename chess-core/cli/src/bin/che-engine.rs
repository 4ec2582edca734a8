//! `che-engine`: the chess engine's command line.
//!
//! Without arguments it speaks UCI on standard input and output (for GUIs, match runners and
//! python-chess). `che-engine play` starts the terminal game for people. With another subcommand it
//! runs one job and exits: `perft` prints the leaf count of the legal move tree (the number alone
//! on the last line of standard output, timing on standard error), `divide` first prints that count
//! per root move, and `bench` searches a fixed set of positions to a fixed depth and prints the
//! node count and speed, as Stockfish's `bench` does.

use che_engine::engine::{Engine, BENCH_DEPTH};
use che_engine::options::EngineOptions;
use che_engine::search::SearchControl;
use che_engine::worker::Out;
use chess_core::{divide, perft, Position, STARTPOS_FEN};
use clap::{Parser, Subcommand};
use std::process::ExitCode;
use std::time::Instant;

/// The Che chess engine.
#[derive(Parser)]
#[command(name = "che-engine", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Count the leaf nodes of the legal move tree to DEPTH plies.
    Perft {
        /// Plies to search.
        depth: u32,
        /// Start from this position instead of the initial one.
        #[arg(long, default_value = STARTPOS_FEN)]
        fen: String,
    },
    /// Like perft, but first print the count below each legal move.
    Divide {
        /// Plies to search.
        depth: u32,
        /// Start from this position instead of the initial one.
        #[arg(long, default_value = STARTPOS_FEN)]
        fen: String,
    },
    /// Play chess at the terminal (type `help` once it runs).
    Play,
    /// Search the benchmark positions to a fixed depth; print nodes and speed.
    Bench {
        /// Plies per position.
        #[arg(default_value_t = BENCH_DEPTH)]
        depth: u32,
    },
}

fn load(fen: &str) -> Result<Position, ExitCode> {
    Position::from_fen(fen).map_err(|e| {
        eprintln!("che-engine: {e}");
        ExitCode::from(1)
    })
}

fn report(depth: u32, nodes: u64, start: Instant) {
    let seconds = start.elapsed().as_secs_f64();
    let mnps = if seconds > 0.0 {
        nodes as f64 / seconds / 1e6
    } else {
        0.0
    };
    eprintln!("perft {depth}: {nodes} nodes in {seconds:.3} s ({mnps:.1} Mnps)");
    println!("{nodes}");
}

fn run(command: Command) -> Result<(), ExitCode> {
    match command {
        Command::Perft { depth, fen } => {
            let pos = load(&fen)?;
            let start = Instant::now();
            let nodes = perft(&pos, depth);
            report(depth, nodes, start);
        }
        Command::Divide { depth, fen } => {
            let pos = load(&fen)?;
            let start = Instant::now();
            let split = divide(&pos, depth);
            for (mv, nodes) in &split {
                println!("{mv}: {nodes}");
            }
            println!();
            let total = if depth == 0 {
                1
            } else {
                split.iter().map(|(_, n)| n).sum()
            };
            report(depth, total, start);
        }
        Command::Play => {
            let input = std::io::BufReader::new(std::io::stdin());
            che_engine::play::run(input, Out::stdout(), EngineOptions::default()).map_err(|e| {
                eprintln!("che-engine: {e}");
                ExitCode::from(1)
            })?;
        }
        Command::Bench { depth } => {
            let mut engine = Engine::new(EngineOptions::default());
            let control = SearchControl::new();
            let summary = engine.bench(depth, &control, &mut |event| {
                if let che_engine::engine::EngineEvent::Note(n) = event {
                    println!("{n}");
                }
            });
            println!("===========================");
            println!("Total time (ms) : {}", summary.elapsed.as_millis());
            println!("Nodes searched  : {}", summary.nodes);
            println!("Nodes/second    : {}", summary.nps());
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Some(command) => match run(command) {
            Ok(()) => ExitCode::SUCCESS,
            Err(code) => code,
        },
        None => {
            let input = std::io::stdin().lock();
            match che_engine::uci::run(input, Out::stdout(), EngineOptions::default()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("che-engine: {e}");
                    ExitCode::from(1)
                }
            }
        }
    }
}
