//! `che-engine`: the chess engine's command line.
//!
//! Without arguments it speaks UCI on standard input and output (for GUIs, match runners and
//! python-chess). `che-engine play` starts the terminal game for people. With another subcommand it
//! runs one job and exits: `perft` prints the leaf count of the legal move tree (the number alone
//! on the last line of standard output, timing on standard error), `divide` first prints that count
//! per root move, and `bench` searches a fixed set of positions to a fixed depth and prints the
//! node count and speed, as Stockfish's `bench` does. `book` builds a Polyglot opening book from
//! PGN files (`che-engine book games.pgn -o book.bin [--plies N]`).
//!
//! `perft` and `divide` count to at most [`chess_core::MAX_PERFT_DEPTH`] (64) plies; a deeper request is refused
//! with a message and exit status 1. A closed standard output (`che-engine divide 5 | head -1`)
//! ends a subcommand with a message on standard error and exit status 1; a closed standard error
//! is ignored. Neither ever panics.

use che_engine::engine::{Engine, BENCH_DEPTH};
use che_engine::options::EngineOptions;
use che_engine::search::SearchControl;
use che_engine::worker::Out;
use chess_core::{perft_until, Position, STARTPOS_FEN};
use clap::{Parser, Subcommand};
use std::io::Write;
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
        /// Plies to search (at most 64).
        depth: u32,
        /// Start from this position instead of the initial one.
        #[arg(long, default_value = STARTPOS_FEN)]
        fen: String,
    },
    /// Like perft, but first print the count below each legal move.
    Divide {
        /// Plies to search (at most 64).
        depth: u32,
        /// Start from this position instead of the initial one.
        #[arg(long, default_value = STARTPOS_FEN)]
        fen: String,
    },
    /// Play chess at the terminal (type `help` once it runs).
    Play,
    /// Build a Polyglot opening book (.bin) from PGN files.
    Book {
        /// The PGN files to read (main lines only; variations are skipped).
        #[arg(required = true)]
        pgn: Vec<std::path::PathBuf>,
        /// The book file to write.
        #[arg(short = 'o', long = "output")]
        output: std::path::PathBuf,
        /// How many half-moves of each game go into the book.
        #[arg(long, default_value_t = che_engine::book::build::DEFAULT_PLIES)]
        plies: usize,
    },
    /// Search the benchmark positions to a fixed depth; print nodes and speed.
    Bench {
        /// Plies per position.
        #[arg(default_value_t = BENCH_DEPTH)]
        depth: u32,
    },
}

/// Writes a line to standard error; a closed standard error is ignored (no one is left to tell).
fn note(text: &str) {
    let _ = writeln!(std::io::stderr(), "{text}");
}

/// A failure: the message goes to standard error, the status is 1.
fn failure(message: impl std::fmt::Display) -> ExitCode {
    note(&format!("che-engine: {message}"));
    ExitCode::from(1)
}

/// Standard output, line by line. The first write error (a closed pipe) is kept and further lines
/// are dropped; [`Printer::finish`] turns it into the exit status.
struct Printer {
    out: std::io::StdoutLock<'static>,
    error: Option<std::io::Error>,
}

impl Printer {
    fn new() -> Printer {
        Printer {
            out: std::io::stdout().lock(),
            error: None,
        }
    }

    fn line(&mut self, text: &str) {
        if self.error.is_none() {
            if let Err(e) = writeln!(self.out, "{text}").and_then(|()| self.out.flush()) {
                self.error = Some(e);
            }
        }
    }

    fn failed(&self) -> bool {
        self.error.is_some()
    }

    fn finish(self) -> Result<(), ExitCode> {
        match self.error {
            Some(e) => Err(failure(format!("cannot write the output: {e}"))),
            None => Ok(()),
        }
    }
}

fn load(fen: &str) -> Result<Position, ExitCode> {
    Position::from_fen(fen).map_err(failure)
}

/// Counts the tree of `fen` to `depth` plies; with `split`, prints each root move's count first.
/// The total is the last line of standard output; the timing goes to standard error.
fn count(depth: u32, fen: &str, split: bool) -> Result<(), ExitCode> {
    let pos = load(fen)?;
    let mut out = Printer::new();
    let start = Instant::now();
    // Once the output is gone, counting on is pointless.
    let gone = std::cell::Cell::new(false);
    let stop = || gone.get();
    let count = perft_until(&pos, depth, &stop, &mut |mv, n| {
        if split {
            out.line(&format!("{mv}: {n}"));
            gone.set(out.failed());
        }
    })
    .map_err(failure)?;
    let nodes = count.nodes;
    if split {
        out.line("");
    }
    let seconds = start.elapsed().as_secs_f64();
    let mnps = if seconds > 0.0 {
        nodes as f64 / seconds / 1e6
    } else {
        0.0
    };
    note(&format!(
        "perft {depth}: {nodes} nodes in {seconds:.3} s ({mnps:.1} Mnps)"
    ));
    out.line(&nodes.to_string());
    out.finish()
}

/// Reads the games of every PGN file, writes the book and says what it holds.
fn build_book(
    files: &[std::path::PathBuf],
    output: &std::path::Path,
    plies: usize,
) -> Result<(), ExitCode> {
    let mut builder = che_engine::book::build::BookBuilder::new();
    let mut games = 0;
    for file in files {
        let bytes = cvm_frontend::file::read_bounded(file, cvm_frontend::file::DATA_LIMIT)
            .map_err(|e| failure(format!("cannot read {}: {e}", file.display())))?;
        let text = String::from_utf8(bytes).map_err(|e| {
            failure(format!(
                "cannot read {}: not UTF-8 text ({e})",
                file.display()
            ))
        })?;
        let read = che_engine::book::pgn::read_games(&text)
            .map_err(|e| failure(format!("{}: {e}", file.display())))?;
        for game in &read {
            builder.add_game(game, plies);
        }
        games += read.len();
    }
    let book = builder.finish();
    if let Some(input) = files
        .iter()
        .find(|f| cvm_frontend::file::same_file(output, f))
    {
        return Err(failure(format!(
            "the output {} is the input {}; choose another output file",
            output.display(),
            input.display()
        )));
    }
    std::fs::write(output, book.to_bytes())
        .map_err(|e| failure(format!("cannot write {}: {e}", output.display())))?;
    let mut out = Printer::new();
    out.line(&format!(
        "{}: {} entries, {} positions from {games} games ({plies} plies each at most)",
        output.display(),
        book.entries().len(),
        builder.positions()
    ));
    out.finish()
}

fn run(command: Command) -> Result<(), ExitCode> {
    match command {
        Command::Perft { depth, fen } => count(depth, &fen, false)?,
        Command::Divide { depth, fen } => count(depth, &fen, true)?,
        Command::Play => {
            let input = std::io::BufReader::new(std::io::stdin());
            che_engine::play::run(input, Out::stdout(), EngineOptions::default())
                .map_err(failure)?;
        }
        Command::Book { pgn, output, plies } => build_book(&pgn, &output, plies)?,
        Command::Bench { depth } => {
            let mut engine = Engine::new(EngineOptions::default());
            let control = SearchControl::new();
            let mut out = Printer::new();
            let summary = engine.bench(depth, &control, &mut |event| {
                if let che_engine::engine::EngineEvent::Note(n) = event {
                    out.line(&n);
                    if out.failed() {
                        // No one reads the result any more.
                        control.stop();
                    }
                }
            });
            out.line("===========================");
            out.line(&format!(
                "Total time (ms) : {}",
                summary.elapsed.as_millis()
            ));
            out.line(&format!("Nodes searched  : {}", summary.nodes));
            out.line(&format!("Nodes/second    : {}", summary.nps()));
            out.finish()?;
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
                Err(e) => failure(e),
            }
        }
    }
}
