//! `che-engine`: the chess engine's command line.
//!
//! With a subcommand it runs one job and exits: `perft` prints the leaf count of the legal move tree
//! (the number alone on the last line of standard output, timing on standard error) and `divide`
//! first prints that count per root move. Without arguments it will speak UCI on standard input and
//! output; until the UCI loop exists it explains the available subcommands and exits with status 2.

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
            eprintln!(
                "che-engine: the UCI mode is not available yet.\n\
                 usage: che-engine perft DEPTH [--fen FEN]\n       \
                 che-engine divide DEPTH [--fen FEN]"
            );
            ExitCode::from(2)
        }
    }
}
