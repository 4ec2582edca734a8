//! The UCI protocol: what GUIs, match runners and python-chess speak to the engine.
//!
//! [`Session`] reads one line at a time on the caller's thread ([`command`] parses it) and hands
//! the work to the engine's worker thread ([`crate::worker`]), so `stop`, `isready` and `quit` are
//! answered while the engine thinks. `isready` during a search is answered at once; otherwise it
//! waits behind the queued jobs, so `readyok` means every earlier command has taken effect. Every
//! malformed line is answered with `info string error: ...` and the session carries on. Every
//! message the engine writes goes out as `info string` lines ([`info_string_lines`]): a message of
//! several lines (a program's diagnostics) gives one framed line each, and control characters from
//! a program file are escaped, never written raw.
//!
//! Numbers in `go` are whole decimal numbers of any length, clamped to what the engine holds:
//! a count (`depth`, `nodes`, `mate`, `movestogo`, `perft`) to `0..=2^32-1` (`nodes` to
//! `0..=2^64-1`), a time (`wtime`, `btime`, `winc`, `binc`, `movetime`) to `0..=2^64-1` ms, so
//! `go movetime 99999999999999999999` searches until `stop` and then answers `bestmove`.
//!
//! `go perft N` runs like a search: it prints each root move's count as it is known, then an empty
//! line and `Nodes searched: TOTAL`. `stop` (or `quit`) ends it early; it then prints
//! `info string perft stopped after TOTAL nodes` before the empty line and the `Nodes searched`
//! line, whose total is what was counted until then. A depth beyond
//! [`chess_core::MAX_PERFT_DEPTH`] is refused with an error line.

pub mod command;

use crate::engine::{nps, Engine, EngineEvent, BENCH_DEPTH};
use crate::options::{Declaration, EngineOptions, OPTIONS};
use crate::search::tt::Bound;
use crate::search::value::{is_mate, mate_moves};
use crate::search::{Report, SearchResult};
use crate::worker::{EngineHandle, Out, SpawnError};
use command::{parse, Command};
use std::io::BufRead;

/// The name the engine gives in `id name`.
pub const ENGINE_NAME: &str = concat!("Che ", env!("CARGO_PKG_VERSION"));
/// The author line of `id author`.
pub const ENGINE_AUTHOR: &str = "the Che project";

/// Whether the session goes on after a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Read the next line.
    Continue,
    /// `quit` was received.
    Quit,
}

/// A UCI conversation.
pub struct Session {
    engine: EngineHandle,
    out: Out,
    /// Whether the last `go` was `go infinite` (which only `stop` ends).
    infinite: bool,
}

/// Formats a score as UCI does: `cp 34` or `mate 3` / `mate -2`.
pub fn score_text(score: i32) -> String {
    if is_mate(score) {
        format!("mate {}", mate_moves(score))
    } else {
        format!("cp {score}")
    }
}

/// The `info` line of a report.
pub fn info_line(r: &Report) -> String {
    let bound = match r.bound {
        Some(Bound::Lower) => " lowerbound",
        Some(Bound::Upper) => " upperbound",
        _ => "",
    };
    let mut line = format!(
        "info depth {} seldepth {} multipv 1 score {}{} nodes {} nps {} hashfull {} time {}",
        r.depth,
        r.seldepth,
        score_text(r.score),
        bound,
        r.nodes,
        nps(r.nodes, r.elapsed),
        r.hashfull,
        r.elapsed.as_millis()
    );
    if !r.pv.is_empty() {
        line.push_str(" pv");
        for m in &r.pv {
            line.push(' ');
            line.push_str(&m.to_string());
        }
    }
    line
}

/// The `bestmove` line of a result.
pub fn bestmove_line(result: &SearchResult) -> String {
    match (result.best, result.ponder) {
        (Some(b), Some(p)) => format!("bestmove {b} ponder {p}"),
        (Some(b), None) => format!("bestmove {b}"),
        (None, _) => "bestmove (none)".to_string(),
    }
}

/// The `info string` lines that carry `text` on the UCI channel: one per line of the text (a
/// `\n` or `\r\n` ends a line), each starting `info string `, and every other control character
/// (a lone `\r`, a tab, an escape) written as its Rust escape (`\r`, `\t`, `\u{1b}`), so that
/// nothing a program file or a message holds can start a line of its own on the channel.
pub fn info_string_lines(text: &str) -> Vec<String> {
    text.split('\n')
        .map(|line| line.strip_suffix('\r').unwrap_or(line))
        .enumerate()
        .filter(|(i, line)| *i == 0 || !line.is_empty())
        .map(|(_, line)| {
            let mut framed = String::with_capacity(line.len() + 12);
            framed.push_str("info string ");
            for c in line.chars() {
                if c.is_control() {
                    framed.extend(c.escape_default());
                } else {
                    framed.push(c);
                }
            }
            framed
        })
        .collect()
}

/// Writes `text` as `info string` lines ([`info_string_lines`]).
fn info_string(out: &Out, text: &str) {
    for line in info_string_lines(text) {
        out.line(&line);
    }
}

/// Writes an engine event as UCI output.
fn emit(out: &Out, event: EngineEvent) {
    match event {
        EngineEvent::Report(r) => out.line(&info_line(&r)),
        EngineEvent::Note(n) => info_string(out, &n),
    }
}

/// The `d` command's text: the board, FEN, hash key and checkers.
pub fn display(engine: &Engine) -> String {
    let pos = engine.position();
    let mut text = crate::play::board::render(pos, false, None);
    text.push_str(&format!(
        "\nFen: {}\nKey: {:016X}\nCheckers:",
        pos.to_fen(),
        pos.hash()
    ));
    for sq in pos.checkers() {
        text.push_str(&format!(" {sq}"));
    }
    text
}

impl Session {
    /// A session writing to `out`, with an engine on its worker thread.
    pub fn new(options: EngineOptions, out: Out) -> Result<Session, SpawnError> {
        Ok(Session {
            engine: EngineHandle::spawn(options)?,
            out,
            infinite: false,
        })
    }

    /// Blocks until every command given so far has been carried out (for tests and scripts).
    pub fn wait(&self) {
        self.engine.wait();
    }

    fn error(&self, message: impl std::fmt::Display) {
        info_string(&self.out, &format!("error: {message}"));
    }

    /// Carries out one line of input.
    pub fn handle(&mut self, line: &str) -> Flow {
        let command = match parse(line) {
            Ok(c) => c,
            Err(e) => {
                self.error(e);
                return Flow::Continue;
            }
        };
        let out = self.out.clone();
        match command {
            Command::Empty | Command::Ignored | Command::PonderHit => {}
            Command::Uci => {
                out.line(&format!("id name {ENGINE_NAME}"));
                out.line(&format!("id author {ENGINE_AUTHOR}"));
                for spec in OPTIONS {
                    out.line(&Declaration(spec).to_string());
                }
                out.line("uciok");
            }
            Command::IsReady => {
                if self.engine.is_busy() {
                    out.line("readyok");
                } else {
                    self.engine.submit(move |_| out.line("readyok"));
                }
            }
            Command::NewGame => self.engine.submit(Engine::new_game),
            Command::Position {
                start,
                moves,
                bad_move,
            } => {
                if let Some((i, text, e)) = bad_move {
                    self.error(format!(
                        "position: move {} `{text}`: {e}; the position stops before it",
                        i + 1
                    ));
                }
                self.engine.submit(move |engine| {
                    // The moves were checked while parsing; a refusal here cannot happen.
                    let _ = engine.set_position(start, &moves);
                });
            }
            Command::Go(go) => {
                self.infinite = go.infinite;
                self.engine.submit_search(move |engine, control| {
                    let result = engine.think(&go, control, &mut |e| emit(&out, e));
                    out.line(&bestmove_line(&result));
                });
            }
            Command::Perft(depth) => {
                if let Err(e) = chess_core::perft::check_depth(depth) {
                    self.error(e);
                    return Flow::Continue;
                }
                self.infinite = false;
                // Like a search: `isready` is answered at once and `stop` ends it.
                self.engine.submit_search(move |engine, control| {
                    let pos = *engine.position();
                    let stop = || control.stop_requested();
                    let count = chess_core::perft_until(&pos, depth, &stop, &mut |mv, n| {
                        out.line(&format!("{mv}: {n}"))
                    });
                    if let Ok(count) = count {
                        if !count.complete {
                            info_string(
                                &out,
                                &format!("perft stopped after {} nodes", count.nodes),
                            );
                        }
                        out.line("");
                        out.line(&format!("Nodes searched: {}", count.nodes));
                    }
                });
            }
            Command::Stop => self.engine.control().stop(),
            Command::Quit => return Flow::Quit,
            Command::SetOption { name, value } => {
                self.engine
                    .submit(move |engine| match engine.set_option(&name, &value) {
                        Ok(notes) => {
                            for n in notes {
                                info_string(&out, &n);
                            }
                        }
                        Err(e) => info_string(&out, &format!("error: setoption: {e}")),
                    });
            }
            Command::Display => self.engine.submit(move |engine| out.text(&display(engine))),
            Command::Eval => self.engine.submit(move |engine| {
                let b = engine.evaluate();
                info_string(&out, &format!(
                    "eval (White's view, centipawns): material+squares {} pawns {} mobility {} king {} pieces {}",
                    b.material_and_squares, b.pawns, b.mobility, b.king_safety, b.pieces
                ));
                info_string(&out, &format!("eval total {} for the side to move", b.total));
            }),
            Command::Bench(depth) => {
                self.engine.submit_search(move |engine, control| {
                    let summary =
                        engine.bench(depth.unwrap_or(BENCH_DEPTH), control, &mut |e| emit(&out, e));
                    out.line("===========================");
                    out.line(&format!("Total time (ms) : {}", summary.elapsed.as_millis()));
                    out.line(&format!("Nodes searched  : {}", summary.nodes));
                    out.line(&format!("Nodes/second    : {}", summary.nps()));
                });
            }
        }
        Flow::Continue
    }

    /// Ends the session: stops any search and waits for the engine thread.
    pub fn quit(self) {
        self.engine.quit();
    }

    /// Ends the session at the end of the input: queued work finishes first (so a piped script's
    /// last `go depth N` still answers), except an infinite search, which is stopped.
    pub fn finish(self) {
        if self.infinite {
            self.engine.control().stop();
        }
        self.engine.wait();
        self.engine.quit();
    }
}

/// Speaks UCI on `input` until `quit` or the end of input.
pub fn run(mut input: impl BufRead, out: Out, options: EngineOptions) -> Result<(), SpawnError> {
    let mut session = Session::new(options, out)?;
    while let Some(line) = crate::worker::read_line_lossy(&mut input) {
        if session.handle(&line) == Flow::Quit {
            session.quit();
            return Ok(());
        }
    }
    session.finish();
    Ok(())
}
