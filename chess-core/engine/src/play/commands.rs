//! The terminal game's commands: one table for parsing and for `help`.
//!
//! Chennai built its help text from the definitions of its commands, so the list could never
//! miss one; [`COMMANDS`] plays that part here: `help` prints it and the parser accepts exactly
//! its names. Anything that is not a command is taken as a move.

use chess_core::colour::Colour;
use chess_core::piece::Piece;
use chess_core::square::Square;

use super::setup::parse_piece;

/// A command's usage line and what it does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CommandHelp {
    /// How to type it.
    pub usage: &'static str,
    /// What it does.
    pub help: &'static str,
    /// Whether it belongs to the set-up mode.
    pub setup: bool,
}

const fn cmd(usage: &'static str, help: &'static str) -> CommandHelp {
    CommandHelp {
        usage,
        help,
        setup: false,
    }
}

const fn setup_cmd(usage: &'static str, help: &'static str) -> CommandHelp {
    CommandHelp {
        usage,
        help,
        setup: true,
    }
}

/// Every command of the terminal game.
pub const COMMANDS: &[CommandHelp] = &[
    cmd("help, ?", "list every command"),
    cmd(
        "MOVE",
        "play a move, in SAN (e4, Nf3, exd5, O-O, e8=Q) or UCI (e2e4, e7e8q)",
    ),
    cmd(
        "new",
        "a new game from the initial position (you keep your colour)",
    ),
    cmd("show, d", "show the board"),
    cmd("flip", "turn the board around"),
    cmd("moves", "list the legal moves"),
    cmd("go", "the computer moves now, taking over the side to move"),
    cmd(
        "computer white|black|both|none",
        "the side(s) the computer plays; both: it plays itself",
    ),
    cmd(
        "depth N",
        "search depth in plies, 0 for no limit (works while the computer thinks)",
    ),
    cmd(
        "time SECONDS",
        "thinking time per move, 0 for no limit (works while the computer thinks)",
    ),
    cmd(
        "stop",
        "interrupt the computer's thinking: it plays the best move found so far",
    ),
    cmd("undo", "take back the last move"),
    cmd(
        "takeback",
        "take back your last move and the computer's answer",
    ),
    cmd(
        "fen [FEN]",
        "show the position as FEN, or set the position from a FEN",
    ),
    cmd(
        "setup",
        "set up a position piece by piece (see the set-up commands)",
    ),
    cmd("save FILE, pgn FILE", "save the game as PGN"),
    cmd("post on|off", "show the computer's thinking"),
    cmd(
        "comments on|off",
        "comments on moves (check, mate, material won)",
    ),
    cmd(
        "random on|off [SEED]",
        "choose at random among equally good moves",
    ),
    cmd(
        "book on|off",
        "play from the opening book (option BookFile; the bundled book by default)",
    ),
    cmd(
        "resign on|off",
        "let the computer resign when its position is hopeless",
    ),
    cmd(
        "advice off|root|node",
        "when the computer consults its Che++ advice program",
    ),
    cmd(
        "program FILE|<shanny>|<shanny-eval>",
        "load a Che++ advice program (.che, .cmp, .asm)",
    ),
    cmd(
        "backend interp|jit|auto",
        "the VM that runs the advice program and the endgame program",
    ),
    cmd(
        "endgame FILE|<kqk>|<krk>|<kbnk>|<kpk>|<kpkp>|<all>|off",
        "a CHEG endgame program that takes over when its ENTRY matches",
    ),
    cmd(
        "eval",
        "the static evaluation of the position, term by term",
    ),
    cmd("quit, exit", "leave"),
    setup_cmd(
        "put PIECE SQUARE",
        "put a piece on a square: put wQ d4, put k e8 (K white, k black)",
    ),
    setup_cmd("remove SQUARE", "empty a square"),
    setup_cmd("clear", "empty the whole board"),
    setup_cmd("side white|black", "who moves first"),
    setup_cmd("castle KQkq|-", "castling rights"),
    setup_cmd("ep SQUARE|-", "the en-passant square"),
    setup_cmd("show", "show the board being set up"),
    setup_cmd("done", "check the position and play from it"),
    setup_cmd("cancel", "leave set-up mode without changes"),
];

/// Which sides the computer plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sides {
    /// White only.
    White,
    /// Black only.
    Black,
    /// Both: the computer plays itself.
    Both,
    /// Neither: two people, or analysis.
    None,
}

/// A command typed in normal play.
#[derive(Clone, Debug, PartialEq)]
pub enum PlayCommand {
    /// `help`.
    Help,
    /// A move (text to be read as SAN or UCI).
    Move(String),
    /// `new`.
    New,
    /// `show`.
    Show,
    /// `flip`.
    Flip,
    /// `moves`.
    Moves,
    /// `go`.
    Go,
    /// `computer ...`.
    Computer(Sides),
    /// `depth N` (0 = none).
    Depth(u32),
    /// `time S` (0 = none).
    Time(f64),
    /// `stop`.
    Stop,
    /// `undo`.
    Undo,
    /// `takeback`.
    TakeBack,
    /// `fen [FEN]`.
    Fen(Option<String>),
    /// `setup`.
    Setup,
    /// `save FILE`.
    Save(String),
    /// `post on|off`.
    Post(bool),
    /// `comments on|off`.
    Comments(bool),
    /// `random on|off [seed]`.
    Random(bool, Option<u64>),
    /// `resign on|off`.
    Resign(bool),
    /// `book on|off`.
    Book(bool),
    /// `advice MODE`.
    Advice(String),
    /// `program SOURCE`.
    Program(String),
    /// `backend NAME`.
    Backend(String),
    /// `endgame SOURCE` (`off` for none).
    Endgame(String),
    /// `eval`.
    Eval,
    /// `quit`.
    Quit,
}

/// A command typed in set-up mode.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SetupCommand {
    /// `help`.
    Help,
    /// `put PIECE SQUARE`.
    Put(Piece, Square),
    /// `remove SQUARE`.
    Remove(Square),
    /// `clear`.
    Clear,
    /// `side white|black`.
    Side(Colour),
    /// `castle KQkq|-`.
    Castle(String),
    /// `ep SQUARE|-`.
    EnPassant(Option<Square>),
    /// `show`.
    Show,
    /// `done`.
    Done,
    /// `cancel`.
    Cancel,
    /// `quit`.
    Quit,
}

/// Why a typed line is not a valid command.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CommandError {
    /// A command is missing its argument or has a bad one.
    #[error("{command}: {problem} (usage: {usage})")]
    Argument {
        /// The command.
        command: String,
        /// What is wrong.
        problem: String,
        /// How to type it.
        usage: &'static str,
    },
    /// Not a set-up command.
    #[error("`{0}` is not a set-up command; type help for the list, done to finish or cancel")]
    NotSetup(String),
}

fn usage_of(name: &str) -> &'static str {
    COMMANDS
        .iter()
        .find(|c| c.usage.split([' ', ',']).next() == Some(name))
        .map_or("help", |c| c.usage)
}

fn arg_error(command: &str, problem: impl Into<String>) -> CommandError {
    CommandError::Argument {
        command: command.to_string(),
        problem: problem.into(),
        usage: usage_of(command),
    }
}

fn on_off(command: &str, word: Option<&str>) -> Result<bool, CommandError> {
    match word.map(str::to_ascii_lowercase).as_deref() {
        Some("on" | "true" | "yes" | "1") => Ok(true),
        Some("off" | "false" | "no" | "0") => Ok(false),
        _ => Err(arg_error(command, "expected on or off")),
    }
}

fn rest_of(line: &str) -> String {
    line.trim()
        .split_once(char::is_whitespace)
        .map_or(String::new(), |(_, r)| r.trim().to_string())
}

/// Reads a line typed in normal play.
pub fn parse(line: &str) -> Result<Option<PlayCommand>, CommandError> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let Some(&first) = words.first() else {
        return Ok(None);
    };
    let name = first.to_ascii_lowercase();
    let arg = words.get(1).copied();
    let command = match name.as_str() {
        "help" | "?" => PlayCommand::Help,
        "new" => PlayCommand::New,
        "show" | "d" | "board" => PlayCommand::Show,
        "flip" => PlayCommand::Flip,
        "moves" => PlayCommand::Moves,
        "go" => PlayCommand::Go,
        "computer" => PlayCommand::Computer(match arg.map(str::to_ascii_lowercase).as_deref() {
            Some("white" | "w") => Sides::White,
            Some("black" | "b") => Sides::Black,
            Some("both") => Sides::Both,
            Some("none" | "off") => Sides::None,
            _ => return Err(arg_error("computer", "expected white, black, both or none")),
        }),
        "depth" => PlayCommand::Depth(
            arg.and_then(|a| a.parse().ok())
                .ok_or_else(|| arg_error("depth", "expected a number of plies"))?,
        ),
        "time" => PlayCommand::Time(
            arg.and_then(|a| a.parse::<f64>().ok())
                .filter(|t| t.is_finite() && *t >= 0.0 && *t < 1e7)
                .ok_or_else(|| arg_error("time", "expected seconds"))?,
        ),
        "stop" => PlayCommand::Stop,
        "undo" => PlayCommand::Undo,
        "takeback" => PlayCommand::TakeBack,
        "fen" => {
            let rest = rest_of(line);
            PlayCommand::Fen((!rest.is_empty()).then_some(rest))
        }
        "setup" => PlayCommand::Setup,
        "save" | "pgn" => {
            let rest = rest_of(line);
            if rest.is_empty() {
                return Err(arg_error("save", "expected a file name"));
            }
            PlayCommand::Save(rest)
        }
        "post" => PlayCommand::Post(on_off("post", arg)?),
        "comments" => PlayCommand::Comments(on_off("comments", arg)?),
        "random" => {
            let on = on_off("random", arg)?;
            let seed = match words.get(2) {
                None => None,
                Some(s) => Some(
                    s.parse()
                        .map_err(|_| arg_error("random", "the seed must be a number"))?,
                ),
            };
            PlayCommand::Random(on, seed)
        }
        "resign" => PlayCommand::Resign(on_off("resign", arg)?),
        "book" => PlayCommand::Book(on_off("book", arg)?),
        "advice" => PlayCommand::Advice(
            arg.ok_or_else(|| arg_error("advice", "expected off, root or node"))?
                .to_string(),
        ),
        "program" => {
            let rest = rest_of(line);
            if rest.is_empty() {
                return Err(arg_error("program", "expected a file or <shanny>"));
            }
            PlayCommand::Program(rest)
        }
        "endgame" => {
            let rest = rest_of(line);
            if rest.is_empty() {
                return Err(arg_error(
                    "endgame",
                    "expected a .cheg file, <kqk>, <krk>, <kbnk>, <kpk>, <kpkp> or off",
                ));
            }
            PlayCommand::Endgame(rest)
        }
        "backend" => PlayCommand::Backend(
            arg.ok_or_else(|| arg_error("backend", "expected interp or jit"))?
                .to_string(),
        ),
        "eval" => PlayCommand::Eval,
        "quit" | "exit" => PlayCommand::Quit,
        _ => PlayCommand::Move(first.to_string()),
    };
    Ok(Some(command))
}

fn square(command: &str, word: Option<&str>) -> Result<Square, CommandError> {
    word.and_then(|w| w.parse().ok())
        .ok_or_else(|| arg_error(command, "expected a square such as e4"))
}

/// Reads a line typed in set-up mode.
pub fn parse_setup(line: &str) -> Result<Option<SetupCommand>, CommandError> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let Some(&first) = words.first() else {
        return Ok(None);
    };
    let arg = words.get(1).copied();
    let command = match first.to_ascii_lowercase().as_str() {
        "help" | "?" => SetupCommand::Help,
        "put" => {
            // `put wQ d4` or `put Qd4` / `put wQd4`.
            let (piece, sq) = match (arg, words.get(2)) {
                (Some(p), Some(s)) => (parse_piece(p), s.parse().ok()),
                (Some(both), None) if both.len() >= 3 && both.is_char_boundary(both.len() - 2) => {
                    let (p, s) = both.split_at(both.len() - 2);
                    (parse_piece(p), s.parse().ok())
                }
                _ => (None, None),
            };
            match (piece, sq) {
                (Some(p), Some(s)) => SetupCommand::Put(p, s),
                (None, _) => return Err(arg_error("put", "expected a piece such as wQ, Q or q")),
                (_, None) => return Err(arg_error("put", "expected a square such as d4")),
            }
        }
        "remove" => SetupCommand::Remove(square("remove", arg)?),
        "clear" => SetupCommand::Clear,
        "side" => SetupCommand::Side(match arg.map(str::to_ascii_lowercase).as_deref() {
            Some("white" | "w") => Colour::White,
            Some("black" | "b") => Colour::Black,
            _ => return Err(arg_error("side", "expected white or black")),
        }),
        "castle" => {
            let rights = arg.unwrap_or("-");
            if rights != "-" && !rights.chars().all(|c| "KQkq".contains(c)) {
                return Err(arg_error("castle", "expected letters from KQkq, or -"));
            }
            SetupCommand::Castle(rights.to_string())
        }
        "ep" => SetupCommand::EnPassant(match arg {
            Some("-") | None => None,
            w => Some(square("ep", w)?),
        }),
        "show" | "d" | "board" => SetupCommand::Show,
        "done" => SetupCommand::Done,
        "cancel" => SetupCommand::Cancel,
        "quit" | "exit" => SetupCommand::Quit,
        _ => return Err(CommandError::NotSetup(first.to_string())),
    };
    Ok(Some(command))
}

/// The help text: every command with its description.
pub fn help_text() -> String {
    let width = COMMANDS.iter().map(|c| c.usage.len()).max().unwrap_or(0);
    let mut text = String::from("Commands:\n");
    for c in COMMANDS.iter().filter(|c| !c.setup) {
        text.push_str(&format!("  {:width$}  {}\n", c.usage, c.help));
    }
    text.push_str("Set-up mode (after `setup`):\n");
    for c in COMMANDS.iter().filter(|c| c.setup) {
        text.push_str(&format!("  {:width$}  {}\n", c.usage, c.help));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use chess_core::piece::PieceKind;

    #[test]
    fn every_command_in_the_table_parses() {
        let samples = [
            "help",
            "?",
            "e4",
            "new",
            "show",
            "d",
            "flip",
            "moves",
            "go",
            "computer both",
            "depth 5",
            "time 2.5",
            "stop",
            "undo",
            "takeback",
            "fen",
            "setup",
            "save a.pgn",
            "pgn b.pgn",
            "post on",
            "comments off",
            "random on 7",
            "resign on",
            "book off",
            "advice node",
            "program <shanny>",
            "backend jit",
            "endgame <krk>",
            "endgame off",
            "eval",
            "quit",
            "exit",
        ];
        for s in samples {
            assert!(matches!(parse(s), Ok(Some(_))), "{s}");
        }
        // Every usage word of the table is one of the samples.
        for c in COMMANDS.iter().filter(|c| !c.setup) {
            for name in c.usage.split(", ") {
                let word = name.split(' ').next().unwrap_or("");
                if word != "MOVE" {
                    assert!(
                        samples.iter().any(|s| s.split(' ').next() == Some(word)),
                        "{word}"
                    );
                }
            }
        }
        assert_eq!(parse("Nf3"), Ok(Some(PlayCommand::Move("Nf3".into()))));
        assert_eq!(parse("  "), Ok(None));
        assert!(parse("depth deep").is_err());
        assert!(parse("time -1").is_err());
        assert!(parse("computer sometimes").is_err());
        assert!(parse("save").is_err());
        assert_eq!(
            parse("fen 4k3/8/8/8/8/8/8/4K3 w - - 0 1"),
            Ok(Some(PlayCommand::Fen(Some(
                "4k3/8/8/8/8/8/8/4K3 w - - 0 1".into()
            ))))
        );
        assert!(help_text().contains("takeback"));
    }

    #[test]
    fn setup_commands() {
        let wq = Piece::new(Colour::White, PieceKind::Queen);
        assert_eq!(
            parse_setup("put wQ d4"),
            Ok(Some(SetupCommand::Put(wq, Square::D4)))
        );
        assert_eq!(
            parse_setup("put Qd4"),
            Ok(Some(SetupCommand::Put(wq, Square::D4)))
        );
        assert_eq!(
            parse_setup("put wQd4"),
            Ok(Some(SetupCommand::Put(wq, Square::D4)))
        );
        assert!(parse_setup("put Xd4").is_err());
        assert!(parse_setup("put Q").is_err());
        assert!(parse_setup("put Qé4").is_err());
        assert_eq!(parse_setup("ep -"), Ok(Some(SetupCommand::EnPassant(None))));
        assert!(parse_setup("castle XY").is_err());
        assert!(matches!(parse_setup("e4"), Err(CommandError::NotSetup(_))));
    }
}
