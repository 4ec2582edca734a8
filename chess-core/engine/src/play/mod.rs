//! Chess at the terminal, for people: `che-engine play`.
//!
//! The model is the small programs of the seeds — Chennai's command loop with its help listing
//! every command, Tiny Chess 86's conveniences — on top of the real engine. A person plays either
//! colour against the computer, or two people play, or the computer plays itself; moves are typed
//! in SAN or UCI and checked, with a clear message for an illegal one; positions can be set up
//! from a FEN or piece by piece ([`setup`]); depth and time can be changed at any moment, even
//! while the computer thinks, and a long think can be interrupted; moves can be taken back; the
//! game can be saved as PGN ([`pgn`]). From Tiny Chess 86 come the comments on moves
//! ([`comment`]), the random choice among equally good moves, resigning a hopeless game, and — by
//! the search scoring repetitions and stalemates as draws — never repeating a position a third
//! time or stalemating the opponent unless a draw is the best it can get.
//!
//! Input is read on a thread of its own and the engine thinks on the worker thread, so the loop
//! here waits on one channel for both. While the computer thinks, `stop`, `depth`, `time`, `post`
//! and `quit` act at once; other lines wait until it has moved (so a script of moves fed through a
//! pipe plays out deterministically). When the input ends, the computer goes on playing its own
//! moves until a person would have to move or the game is over.

pub mod board;
pub mod commands;
pub mod comment;
pub mod pgn;
pub mod setup;

use crate::engine::EngineEvent;
use crate::options::EngineOptions;
use crate::search::value::{is_mate, mate_moves, MATE_BOUND};
use crate::search::{GoParams, SearchResult, TimePlan};
use crate::worker::{EngineHandle, Out, SpawnError};
use chess_core::chess_move::Move;
use chess_core::colour::Colour;
use chess_core::game::{Game, Outcome};
use chess_core::piece::PieceKind;
use chess_core::position::Position;
use chess_core::san::SanError;
use chess_core::square::Square;
use commands::{parse, parse_setup, CommandError, PlayCommand, SetupCommand, Sides};
use setup::Setup;
use std::collections::VecDeque;
use std::io::BufRead;
use std::sync::mpsc::{self, Receiver, Sender};
use std::time::Duration;

/// The computer resigns after this many consecutive searches scoring at or below
/// [`RESIGN_SCORE`] (when resigning is on).
pub const RESIGN_AFTER: u32 = 2;
/// A score this bad (for the computer) counts as hopeless.
pub const RESIGN_SCORE: i32 = -1000;
/// The default search depth of the terminal game.
pub const DEFAULT_DEPTH: u32 = 6;

enum Event {
    Line(String),
    Eof,
    Thought(SearchResult),
}

/// The state of the terminal game.
struct Repl {
    out: Out,
    engine: EngineHandle,
    events: Receiver<Event>,
    events_tx: Sender<Event>,
    start: Position,
    game: Game,
    computer: [bool; 2],
    depth: Option<u32>,
    time: Option<Duration>,
    post: bool,
    comments: bool,
    resign: bool,
    flipped: bool,
    thinking: bool,
    eof: bool,
    pending: VecDeque<String>,
    /// The result, once the game is over: PGN result and the reason.
    over: Option<(String, String)>,
    setup: Option<Setup>,
    /// Consecutive hopeless searches, per side the computer plays.
    hopeless: [u32; 2],
    /// Set by `undo`: the computer does not move until `go`, a `computer` command or a move is
    /// played (otherwise it would replay the move just taken back at once).
    waiting: bool,
    /// Set by `stop` during self-play: once the move being searched is played, the computer
    /// stops playing both sides.
    end_self_play: bool,
}

/// Plays chess on `input`/`out` until `quit` or the end of input.
pub fn run(
    input: impl BufRead + Send + 'static,
    out: Out,
    options: EngineOptions,
) -> Result<(), SpawnError> {
    let engine = EngineHandle::spawn(options)?;
    let (tx, rx) = mpsc::channel();
    let reader_tx = tx.clone();
    std::thread::spawn(move || {
        let mut input = input;
        while let Some(line) = crate::worker::read_line_lossy(&mut input) {
            if reader_tx.send(Event::Line(line)).is_err() {
                return;
            }
        }
        let _ = reader_tx.send(Event::Eof);
    });
    let start = Position::startpos();
    let mut repl = Repl {
        out,
        engine,
        events: rx,
        events_tx: tx,
        start,
        game: Game::new(start),
        computer: [false, true],
        depth: Some(DEFAULT_DEPTH),
        time: None,
        post: false,
        comments: true,
        resign: false,
        flipped: false,
        thinking: false,
        eof: false,
        pending: VecDeque::new(),
        over: None,
        setup: None,
        hopeless: [0; 2],
        waiting: false,
        end_self_play: false,
    };
    repl.run();
    repl.engine.quit();
    Ok(())
}

/// Whether the loop goes on.
#[derive(PartialEq, Eq)]
enum Flow {
    Continue,
    Quit,
}

fn colour_name(c: Colour) -> &'static str {
    match c {
        Colour::White => "White",
        Colour::Black => "Black",
    }
}

/// A score for people: `+0.35` pawns from the side's view, or `mate in 3`.
fn score_words(score: i32) -> String {
    if is_mate(score) {
        let n = mate_moves(score);
        if n > 0 {
            format!("mate in {n}")
        } else {
            format!("mated in {}", -n)
        }
    } else {
        format!("{:+.2}", f64::from(score) / 100.0)
    }
}

/// A line of moves in SAN from `pos`.
fn san_line(pos: &Position, moves: &[Move]) -> String {
    let mut p = *pos;
    let mut words = Vec::with_capacity(moves.len());
    for &m in moves {
        if !p.is_legal(m) {
            break;
        }
        words.push(p.san(m));
        p.play(m);
    }
    words.join(" ")
}

/// The legal moves an ambiguous SAN text could mean: same piece kind, same destination.
fn ambiguous_candidates(pos: &Position, text: &str) -> Vec<String> {
    let t = text.trim_end_matches(['+', '#', '!', '?']);
    let dest: Option<Square> = t
        .get(t.len().saturating_sub(2)..)
        .and_then(|s| s.parse().ok());
    let kind = t
        .chars()
        .next()
        .filter(char::is_ascii_uppercase)
        .and_then(PieceKind::from_char)
        .unwrap_or(PieceKind::Pawn);
    pos.legal_moves()
        .iter()
        .filter(|m| Some(m.to()) == dest && pos.kind_on(m.from()) == Some(kind))
        .map(|&m| pos.san(m))
        .collect()
}

/// The promotions a move typed without its piece could mean (`e7e8`, `e8`, `exd8`), written as
/// the user wrote the move: UCI with the piece letter (`e7e8q`) or SAN (`e8=Q`).
fn promotion_choices(pos: &Position, text: &str) -> Vec<String> {
    const KINDS: [PieceKind; 4] = [
        PieceKind::Queen,
        PieceKind::Rook,
        PieceKind::Bishop,
        PieceKind::Knight,
    ];
    if let Ok((from, to, None)) = chess_core::uci_move::parse_uci_parts(text) {
        return KINDS
            .iter()
            .filter(|&&k| {
                pos.legal_moves()
                    .iter()
                    .any(|m| m.from() == from && m.to() == to && m.promotion_kind() == Some(k))
            })
            .map(|k| format!("{text}{} ({})", k.to_lower_char(), kind_name(*k)))
            .collect();
    }
    let core = text.trim_end_matches(['+', '#', '!', '?']);
    if core.contains('=') {
        return Vec::new();
    }
    KINDS
        .iter()
        .filter_map(|&k| {
            let san = format!("{core}={}", k.to_upper_char());
            pos.parse_san(&san)
                .ok()
                .map(|_| format!("{san} ({})", kind_name(k)))
        })
        .collect()
}

fn kind_name(kind: PieceKind) -> &'static str {
    match kind {
        PieceKind::Pawn => "pawn",
        PieceKind::Knight => "knight",
        PieceKind::Bishop => "bishop",
        PieceKind::Rook => "rook",
        PieceKind::Queen => "queen",
        PieceKind::King => "king",
    }
}

impl Repl {
    fn say(&self, text: &str) {
        self.out.text(text);
    }

    fn position(&self) -> Position {
        *self.game.position()
    }

    fn run(&mut self) {
        self.say(
            "Che chess -- type `help` for the commands. You play White; enter a move such as e4.",
        );
        self.show();
        loop {
            if !self.thinking {
                if let Some(line) = self.pending.pop_front() {
                    if self.handle_line(&line) == Flow::Quit {
                        return;
                    }
                    continue;
                }
                // At the end of the input the computer still plays its own moves, until a person
                // would have to move or the game is over.
                self.maybe_think();
                if !self.thinking && self.eof {
                    return;
                }
            }
            let Ok(event) = self.events.recv() else {
                return;
            };
            match event {
                Event::Line(line) => {
                    if self.thinking {
                        if self.handle_while_thinking(&line) == Flow::Quit {
                            return;
                        }
                    } else if self.handle_line(&line) == Flow::Quit {
                        return;
                    }
                }
                Event::Eof => self.eof = true,
                Event::Thought(result) => {
                    self.thinking = false;
                    self.computer_moves(result);
                }
            }
        }
    }

    /// Starts the computer's search if it is to move.
    fn maybe_think(&mut self) {
        let pos = self.position();
        if self.thinking
            || self.over.is_some()
            || self.setup.is_some()
            || self.waiting
            || !self.computer[pos.side_to_move().index()]
        {
            return;
        }
        self.thinking = true;
        let go = GoParams {
            depth: self.depth,
            move_time: self.time,
            ..GoParams::default()
        };
        let start = self.start;
        let moves = self.game.moves().to_vec();
        let tx = self.events_tx.clone();
        let out = self.out.clone();
        let post = self.post;
        self.say(&format!(
            "{} is thinking...",
            colour_name(pos.side_to_move())
        ));
        self.engine.submit_search(move |engine, control| {
            let _ = engine.set_position(start, &moves);
            let root = *engine.position();
            let result = engine.think(&go, control, &mut |event| match event {
                EngineEvent::Report(r) if post => out.line(&format!(
                    "  depth {:2}  score {:>7}  nodes {:>9}  time {:>6.2}s  {}",
                    r.depth,
                    score_words(r.score),
                    r.nodes,
                    r.elapsed.as_secs_f64(),
                    san_line(&root, &r.pv)
                )),
                EngineEvent::Report(_) => {}
                EngineEvent::Note(n) => out.line(&format!("  ({n})")),
            });
            let _ = tx.send(Event::Thought(result));
        });
    }

    /// Lines typed while the computer thinks: some act at once, the rest wait.
    fn handle_while_thinking(&mut self, line: &str) -> Flow {
        match parse(line) {
            Ok(Some(PlayCommand::Stop)) => {
                self.engine.control().stop();
                self.say("Stopping: the computer plays the best move found so far.");
                if self.computer == [true, true] {
                    self.end_self_play = true;
                }
            }
            Ok(Some(PlayCommand::Quit)) => {
                self.engine.control().stop();
                return Flow::Quit;
            }
            Ok(Some(PlayCommand::Depth(d))) => {
                self.set_depth(d);
                self.engine.control().adjust_depth(self.depth);
            }
            Ok(Some(PlayCommand::Time(t))) => {
                self.set_time(t);
                self.engine.control().adjust_plan(TimePlan {
                    soft: self.time,
                    hard: self.time,
                });
            }
            Ok(Some(PlayCommand::Post(on))) => {
                self.say("The new setting applies from the next move.");
                self.post = on;
            }
            _ => self.pending.push_back(line.to_string()),
        }
        Flow::Continue
    }

    fn set_depth(&mut self, d: u32) {
        self.depth = (d > 0).then_some(d);
        match self.depth {
            Some(d) => self.say(&format!("Depth {d} plies.")),
            None => self.say("No depth limit."),
        }
        if self.depth.is_none() && self.time.is_none() {
            self.say(
                "Warning: with neither depth nor time limited, the computer thinks until `stop`.",
            );
        }
    }

    fn set_time(&mut self, t: f64) {
        self.time = (t > 0.0).then(|| Duration::from_secs_f64(t));
        match self.time {
            Some(t) => self.say(&format!("{:.1} seconds per move.", t.as_secs_f64())),
            None => self.say("No time limit."),
        }
        if self.depth.is_none() && self.time.is_none() {
            self.say(
                "Warning: with neither depth nor time limited, the computer thinks until `stop`.",
            );
        }
    }

    fn show(&self) {
        if let Some(s) = &self.setup {
            self.say(&board::render_with(|sq| s.piece_on(sq), self.flipped, None));
            self.say(&format!(
                "Setting up: {} to move, castling {}, en passant {}",
                colour_name(s.side),
                s.castling,
                s.en_passant.map_or("-".to_string(), |sq| sq.to_string())
            ));
            return;
        }
        let pos = self.position();
        let last = self.game.moves().last().copied();
        self.say(&board::render(&pos, self.flipped, last));
        let mut status = format!(
            "Move {}, {} to move",
            pos.fullmove_number(),
            colour_name(pos.side_to_move())
        );
        if pos.is_check() {
            status.push_str(" (in check)");
        }
        self.say(&status);
    }

    /// Announces and records the end of the game, if it has ended.
    fn check_outcome(&mut self) {
        let Some(outcome) = self.game.outcome() else {
            return;
        };
        let (result, reason) = match outcome {
            Outcome::Checkmate { winner } => (
                if winner == Colour::White {
                    "1-0"
                } else {
                    "0-1"
                },
                format!("{} wins by checkmate", colour_name(winner)),
            ),
            Outcome::Stalemate => ("1/2-1/2", "draw by stalemate".to_string()),
            Outcome::InsufficientMaterial => ("1/2-1/2", "draw: neither side can mate".to_string()),
            Outcome::FiftyMoveRule => ("1/2-1/2", "draw by the fifty-move rule".to_string()),
            Outcome::ThreefoldRepetition => ("1/2-1/2", "draw by threefold repetition".to_string()),
        };
        self.say(&format!("Game over: {reason} ({result})."));
        self.over = Some((result.to_string(), reason));
    }

    /// Plays a move on the board with its comments.
    fn play_move(&mut self, mv: Move, who: &str) {
        self.play_move_with(mv, who, None);
    }

    /// Plays a move on the board with its comments and, when given, the computer's view of the
    /// game on a line between the move and the board.
    fn play_move_with(&mut self, mv: Move, who: &str, outlook: Option<&str>) {
        let before = self.position();
        let san = before.san(mv);
        let number = if before.side_to_move() == Colour::White {
            format!("{}.", before.fullmove_number())
        } else {
            format!("{}...", before.fullmove_number())
        };
        if !self.game.play(mv) {
            self.say(&format!("Internal error: {mv} was refused."));
            return;
        }
        self.waiting = false;
        let notes = if self.comments {
            comment::describe(&before, mv)
        } else {
            Vec::new()
        };
        if notes.is_empty() {
            self.say(&format!("{who} plays {number} {san}"));
        } else {
            self.say(&format!(
                "{who} plays {number} {san} ({})",
                notes.join(", ")
            ));
        }
        if let Some(text) = outlook {
            self.say(&format!("  {text}."));
        }
        self.show();
        self.check_outcome();
    }

    fn computer_moves(&mut self, result: SearchResult) {
        let pos = self.position();
        let me = pos.side_to_move();
        let Some(mv) = result.best else {
            self.check_outcome();
            return;
        };
        if self.resign {
            let count = &mut self.hopeless[me.index()];
            if result.score <= RESIGN_SCORE || result.score <= -MATE_BOUND {
                *count += 1;
            } else {
                *count = 0;
            }
            if *count >= RESIGN_AFTER {
                let result_text = if me == Colour::White { "0-1" } else { "1-0" };
                self.say(&format!(
                    "{} resigns: the position is hopeless ({result_text}).",
                    colour_name(me)
                ));
                self.over = Some((
                    result_text.to_string(),
                    format!("{} resigns", colour_name(me)),
                ));
                return;
            }
        }
        if result.choices > 1 {
            self.say(&format!(
                "  (chosen at random among {} equally good moves)",
                result.choices
            ));
        }
        // The computer's view of the game follows its move and comes before the board and any
        // end of the game; a move that mates needs no announcement.
        let mates = pos.after(mv).is_checkmate();
        let outlook = if self.comments && !mates {
            comment::outlook(result.score)
        } else {
            None
        };
        self.play_move_with(mv, colour_name(me), outlook.as_deref());
        if std::mem::take(&mut self.end_self_play) && self.over.is_none() {
            self.computer = [false, false];
            self.say(
                "Self-play stopped: the computer plays neither side now (`go` or `computer both` to go on).",
            );
        }
    }

    fn human_move(&mut self, text: &str) {
        if self.setup.is_some() {
            return;
        }
        let pos = self.position();
        if let Some((result, _)) = &self.over {
            self.say(&format!(
                "The game is over ({result}); `new`, `undo` or `fen` to go on."
            ));
            return;
        }
        let mv = match pos.parse_san(text) {
            Ok(m) => Ok(m),
            Err(san_error) => match pos.parse_uci(text) {
                Ok(m) => Ok(m),
                Err(_) => Err(san_error),
            },
        };
        match mv {
            Ok(m) => {
                let who = colour_name(pos.side_to_move());
                self.play_move(m, who);
            }
            Err(SanError::Syntax(_)) => self.say(&format!(
                "`{text}` is neither a command nor a move. Type `help` for the commands; moves are written like e4, Nf3, O-O or e2e4."
            )),
            Err(SanError::Ambiguous(_)) => {
                let matching = ambiguous_candidates(&pos, text);
                self.say(&format!(
                    "`{text}` is ambiguous: say which piece, e.g. {}.",
                    matching.join(" or ")
                ));
            }
            Err(SanError::Illegal(_)) if !promotion_choices(&pos, text).is_empty() => {
                let choices = promotion_choices(&pos, text);
                self.say(&format!(
                    "`{text}` promotes a pawn: say to which piece, {}.",
                    choices.join(", ")
                ));
            }
            Err(SanError::Illegal(_)) => {
                let mut message = format!("Illegal move: {text} cannot be played here");
                if pos.is_check() {
                    message.push_str(&format!(
                        " ({} is in check and must answer it)",
                        colour_name(pos.side_to_move())
                    ));
                }
                message.push_str(". Type `moves` for the legal moves.");
                self.say(&message);
            }
        }
    }

    fn handle_line(&mut self, line: &str) -> Flow {
        if self.setup.is_some() {
            return self.handle_setup(line);
        }
        match parse(line) {
            Ok(None) => {}
            Ok(Some(command)) => return self.handle_command(command),
            Err(e) => self.say(&e.to_string()),
        }
        Flow::Continue
    }

    fn set_option(&self, name: &'static str, value: String) {
        let out = self.out.clone();
        self.engine
            .submit(move |engine| match engine.set_option(name, &value) {
                Ok(notes) => {
                    for n in notes {
                        out.line(&format!("({n})"));
                    }
                }
                Err(e) => out.line(&e.to_string()),
            });
        self.engine.wait();
    }

    fn new_game_from(&mut self, start: Position) {
        self.start = start;
        self.waiting = false;
        self.game = Game::new(start);
        self.over = None;
        self.hopeless = [0; 2];
        self.engine.submit(|engine| engine.new_game());
        self.show();
        self.check_outcome();
    }

    fn handle_command(&mut self, command: PlayCommand) -> Flow {
        match command {
            PlayCommand::Help => self.say(&commands::help_text()),
            PlayCommand::Move(text) => self.human_move(&text),
            PlayCommand::New => {
                self.say("New game.");
                self.new_game_from(Position::startpos());
            }
            PlayCommand::Show => self.show(),
            PlayCommand::Flip => {
                self.flipped = !self.flipped;
                self.show();
            }
            PlayCommand::Moves => {
                let pos = self.position();
                let mut moves: Vec<String> =
                    pos.legal_moves().iter().map(|&m| pos.san(m)).collect();
                moves.sort();
                if moves.is_empty() {
                    self.say("No legal moves.");
                } else {
                    self.say(&format!(
                        "Legal moves ({}): {}",
                        moves.len(),
                        moves.join(" ")
                    ));
                }
            }
            PlayCommand::Go => {
                if self.over.is_some() {
                    self.say("The game is over; `new`, `undo` or `fen` to go on.");
                } else {
                    let side = self.position().side_to_move();
                    self.computer[side.index()] = true;
                    self.computer[(!side).index()] = false;
                    self.waiting = false;
                    self.say(&format!("The computer takes {}.", colour_name(side)));
                }
            }
            PlayCommand::Computer(sides) => {
                self.waiting = false;
                self.computer = match sides {
                    Sides::White => [true, false],
                    Sides::Black => [false, true],
                    Sides::Both => [true, true],
                    Sides::None => [false, false],
                };
                self.say(match sides {
                    Sides::White => "The computer plays White.",
                    Sides::Black => "The computer plays Black.",
                    Sides::Both => "The computer plays both sides.",
                    Sides::None => "The computer plays neither side.",
                });
            }
            PlayCommand::Depth(d) => self.set_depth(d),
            PlayCommand::Time(t) => self.set_time(t),
            PlayCommand::Stop => {
                if self.computer == [true, true] {
                    self.computer = [false, false];
                    self.say(
                        "Self-play stopped: the computer plays neither side now (`go` or `computer both` to go on).",
                    );
                } else {
                    self.say("The computer is not thinking.");
                }
            }
            PlayCommand::Undo => match self.game.undo() {
                Some(m) => {
                    self.over = None;
                    self.say(&format!("Took back {m}."));
                    self.show();
                    let side = self.position().side_to_move();
                    if self.computer[side.index()] {
                        self.waiting = true;
                        self.say(&format!(
                            "The computer waits: `go` to let it play {}, or enter the move yourself.",
                            colour_name(side)
                        ));
                    }
                }
                None => self.say("There is no move to take back."),
            },
            PlayCommand::TakeBack => {
                // Back to the last position where a person was to move, at least one move.
                let mut taken = 0;
                while self.game.undo().is_some() {
                    taken += 1;
                    let side = self.position().side_to_move();
                    if !self.computer[side.index()] {
                        break;
                    }
                }
                if taken == 0 {
                    self.say("There is no move to take back.");
                } else {
                    self.over = None;
                    self.say(&format!(
                        "Took back {taken} half-move{}.",
                        if taken == 1 { "" } else { "s" }
                    ));
                    self.show();
                }
            }
            PlayCommand::Fen(None) => self.say(&self.position().to_fen()),
            PlayCommand::Fen(Some(text)) => match Position::from_fen(&text) {
                Ok(pos) => self.new_game_from(pos),
                Err(e) => self.say(&format!("Invalid FEN: {e}")),
            },
            PlayCommand::Setup => {
                self.setup = Some(Setup::from_position(&self.position()));
                self.say("Set-up mode: put, remove, clear, side, castle, ep, show, done, cancel (help lists them).");
                self.show();
            }
            PlayCommand::Save(path) => self.save(&path),
            PlayCommand::Post(on) => {
                self.post = on;
                self.say(if on {
                    "Thinking shown."
                } else {
                    "Thinking hidden."
                });
            }
            PlayCommand::Comments(on) => {
                self.comments = on;
                self.say(if on { "Comments on." } else { "Comments off." });
            }
            PlayCommand::Random(on, seed) => {
                self.set_option("Random", on.to_string());
                if let Some(s) = seed {
                    self.set_option("RandomSeed", s.to_string());
                }
                self.say(if on {
                    "The computer chooses at random among equally good moves."
                } else {
                    "The computer always plays its first best move."
                });
            }
            PlayCommand::Resign(on) => {
                self.resign = on;
                self.hopeless = [0; 2];
                self.say(if on {
                    "The computer resigns hopeless games."
                } else {
                    "The computer plays on to the end."
                });
            }
            PlayCommand::Book(on) => {
                self.set_option("OwnBook", on.to_string());
                self.say(if on {
                    "The computer plays from its opening book while the position is in it."
                } else {
                    "The computer does not use its opening book."
                });
            }
            PlayCommand::Advice(mode) => self.set_option("AdviceMode", mode),
            PlayCommand::Program(source) => self.set_option("CheProgram", source),
            PlayCommand::Backend(name) => self.set_option("CheBackend", name),
            PlayCommand::Endgame(source) => self.set_option("EndgameProgram", source),
            PlayCommand::Eval => {
                let out = self.out.clone();
                let start = self.start;
                let moves = self.game.moves().to_vec();
                self.engine.submit(move |engine| {
                    let _ = engine.set_position(start, &moves);
                    let b = engine.evaluate();
                    out.line(&format!(
                        "Evaluation (White's view, centipawns): material and squares {}, pawns {}, mobility {}, king safety {}, pieces {}; {} for the side to move.",
                        b.material_and_squares, b.pawns, b.mobility, b.king_safety, b.pieces, b.total
                    ));
                });
                self.engine.wait();
            }
            PlayCommand::Quit => return Flow::Quit,
        }
        Flow::Continue
    }

    fn handle_setup(&mut self, line: &str) -> Flow {
        let command = match parse_setup(line) {
            Ok(Some(c)) => c,
            Ok(None) => return Flow::Continue,
            Err(e @ CommandError::NotSetup(_)) | Err(e @ CommandError::Argument { .. }) => {
                self.say(&e.to_string());
                return Flow::Continue;
            }
        };
        let Some(setup) = self.setup.as_mut() else {
            return Flow::Continue;
        };
        match command {
            SetupCommand::Help => {
                let text = commands::help_text();
                self.say(&text);
            }
            SetupCommand::Put(piece, sq) => {
                setup.put(piece, sq);
                self.say(&format!("{piece} on {sq}."));
            }
            SetupCommand::Remove(sq) => match setup.remove(sq) {
                Some(p) => self.say(&format!("Removed {p} from {sq}.")),
                None => self.say(&format!("{sq} is already empty.")),
            },
            SetupCommand::Clear => {
                setup.clear();
                self.say("The board is empty.");
            }
            SetupCommand::Side(c) => {
                setup.side = c;
                self.say(&format!("{} to move.", colour_name(c)));
            }
            SetupCommand::Castle(rights) => {
                let note = if rights == "-" {
                    "No castling rights.".to_string()
                } else {
                    format!(
                        "Castling rights: {rights} (rights whose king or rook is not at home are dropped at `done`)."
                    )
                };
                setup.castling = rights;
                self.say(&note);
            }
            SetupCommand::EnPassant(sq) => {
                setup.en_passant = sq;
                self.say(&match sq {
                    Some(sq) => format!("En-passant square {sq}."),
                    None => "No en-passant square.".to_string(),
                });
            }
            SetupCommand::Show => self.show(),
            SetupCommand::Done => match setup.finish() {
                Ok(pos) => {
                    self.setup = None;
                    self.say("Position set up.");
                    self.new_game_from(pos);
                }
                Err(e) => self.say(&format!("Not a valid position yet: {e}")),
            },
            SetupCommand::Cancel => {
                self.setup = None;
                self.say("Set-up cancelled.");
                self.show();
            }
            SetupCommand::Quit => return Flow::Quit,
        }
        Flow::Continue
    }

    fn save(&mut self, path: &str) {
        let name = |c: Colour| {
            if self.computer[c.index()] {
                "Che".to_string()
            } else {
                "Human".to_string()
            }
        };
        let tags = pgn::Tags {
            white: name(Colour::White),
            black: name(Colour::Black),
            result: self
                .over
                .as_ref()
                .map_or("*".to_string(), |(r, _)| r.clone()),
            ..pgn::Tags::default()
        };
        let text = pgn::write(&tags, &self.start, self.game.moves());
        match std::fs::write(path, text) {
            Ok(()) => self.say(&format!("Game saved to {path}.")),
            Err(e) => self.say(&format!("Cannot save to {path}: {e}")),
        }
    }
}
