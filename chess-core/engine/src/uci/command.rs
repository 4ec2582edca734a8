//! Reading UCI commands into typed values.
//!
//! Parsing is separate from acting so that every malformed line becomes a typed [`UciError`] (which
//! the session reports as `info string error: ...`) and nothing a GUI sends can make the engine
//! panic or stop listening. Besides the protocol proper, the commands Stockfish added for people at
//! a terminal are accepted: `d` (show the position), `eval`, `bench [depth]`, `go perft N`.

use crate::search::GoParams;
use chess_core::chess_move::Move;
use chess_core::fen::FenError;
use chess_core::position::Position;
use chess_core::uci_move::UciMoveError;
use std::time::Duration;

/// One UCI command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `uci`: identify and list the options.
    Uci,
    /// `isready`.
    IsReady,
    /// `ucinewgame`.
    NewGame,
    /// `position startpos|fen FEN [moves ...]`: the start position, the legal prefix of the moves,
    /// and the first illegal move if any (index, text and reason).
    Position {
        /// The start position.
        start: Position,
        /// The legal moves, in order.
        moves: Vec<Move>,
        /// The first move that could not be played.
        bad_move: Option<(usize, String, UciMoveError)>,
    },
    /// `go ...` with its limits.
    Go(GoParams),
    /// `go perft N`.
    Perft(u32),
    /// `stop`.
    Stop,
    /// `ponderhit` (accepted; the engine does not ponder).
    PonderHit,
    /// `quit`.
    Quit,
    /// `setoption name N [value V]`.
    SetOption {
        /// The option's name.
        name: String,
        /// Its value (empty for buttons).
        value: String,
    },
    /// `debug on|off`, `register ...`: accepted and ignored.
    Ignored,
    /// `d`: show the board, FEN, hash and checkers.
    Display,
    /// `eval`: the static evaluation and its parts.
    Eval,
    /// `bench [depth]`.
    Bench(Option<u32>),
    /// A blank line.
    Empty,
}

/// Why a line is not a command the engine can carry out.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UciError {
    /// The first word is no command.
    #[error("unknown command `{0}` (try uci, isready, position, go, stop, setoption, d, eval, bench, quit)")]
    Unknown(String),
    /// `position` without `startpos` or `fen`.
    #[error("position: expected `startpos` or `fen <FEN>`, found `{0}`")]
    PositionSyntax(String),
    /// The FEN of `position fen` was rejected.
    #[error("position: {0}")]
    Fen(#[from] FenError),
    /// A `go` parameter is missing its value or the value is not a whole number.
    #[error("go: `{keyword}` needs a whole number, found `{found}`")]
    GoValue {
        /// The parameter.
        keyword: String,
        /// What followed it.
        found: String,
    },
    /// An unknown `go` parameter.
    #[error("go: unknown parameter `{0}`")]
    GoKeyword(String),
    /// `setoption` without `name`.
    #[error("setoption: expected `setoption name <name> [value <value>]`")]
    SetOptionSyntax,
    /// A number where none could be read.
    #[error("{command}: `{found}` is not a valid number")]
    Number {
        /// The command.
        command: &'static str,
        /// The text.
        found: String,
    },
}

/// Reads one line of input.
pub fn parse(line: &str) -> Result<Command, UciError> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let Some((&first, rest)) = words.split_first() else {
        return Ok(Command::Empty);
    };
    match first {
        "uci" => Ok(Command::Uci),
        "isready" => Ok(Command::IsReady),
        "ucinewgame" => Ok(Command::NewGame),
        "position" => parse_position(rest),
        "go" => parse_go(rest),
        "stop" => Ok(Command::Stop),
        "ponderhit" => Ok(Command::PonderHit),
        "quit" => Ok(Command::Quit),
        "setoption" => parse_setoption(rest),
        "debug" | "register" => Ok(Command::Ignored),
        "d" => Ok(Command::Display),
        "eval" => Ok(Command::Eval),
        "bench" => match rest.first() {
            None => Ok(Command::Bench(None)),
            Some(d) => d
                .parse()
                .map(|d| Command::Bench(Some(d)))
                .map_err(|_| UciError::Number {
                    command: "bench",
                    found: d.to_string(),
                }),
        },
        other => Err(UciError::Unknown(other.to_string())),
    }
}

fn parse_position(words: &[&str]) -> Result<Command, UciError> {
    let moves_at = words.iter().position(|&w| w == "moves");
    let (setup, moves) = match moves_at {
        Some(i) => (&words[..i], &words[i + 1..]),
        None => (words, &[][..]),
    };
    let start = match setup.split_first() {
        Some((&"startpos", [])) => Position::startpos(),
        Some((&"fen", fen)) if !fen.is_empty() => Position::from_fen(&fen.join(" "))?,
        _ => return Err(UciError::PositionSyntax(setup.join(" "))),
    };
    let mut pos = start;
    let mut list = Vec::with_capacity(moves.len());
    let mut bad_move = None;
    for (i, text) in moves.iter().enumerate() {
        match pos.parse_uci(text) {
            Ok(mv) => {
                pos.play(mv);
                list.push(mv);
            }
            Err(e) => {
                bad_move = Some((i, text.to_string(), e));
                break;
            }
        }
    }
    Ok(Command::Position {
        start,
        moves: list,
        bad_move,
    })
}

/// Reads a whole number (an optional sign and decimal digits) of any size; one beyond `i128`
/// reads as `i128::MAX` or `i128::MIN`.
fn whole(keyword: &str, value: Option<&&str>) -> Result<i128, UciError> {
    let found = value.copied().unwrap_or("");
    let (negative, digits) = match found.as_bytes().first() {
        Some(b'-') => (true, &found[1..]),
        Some(b'+') => (false, &found[1..]),
        _ => (false, found),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(UciError::GoValue {
            keyword: keyword.to_string(),
            found: found.to_string(),
        });
    }
    let magnitude = digits.parse::<i128>().unwrap_or(i128::MAX);
    Ok(if negative { -magnitude } else { magnitude })
}

/// Reads a count (`depth`, `nodes`, `mate`, `movestogo`, `perft`): a whole number, clamped to
/// `0..=T::MAX` (`depth -1` is 0, a depth beyond `u32::MAX` is `u32::MAX`).
fn number<T: TryFrom<i128> + Into<i128> + Copy>(
    keyword: &str,
    value: Option<&&str>,
    max: T,
) -> Result<T, UciError> {
    let n = whole(keyword, value)?.clamp(0, max.into());
    Ok(T::try_from(n).unwrap_or(max))
}

/// Reads a time in milliseconds, clamped to `0..=u64::MAX` ms: GUIs may send negative clock
/// values when a player has overstepped, which count as no time left, and a time too long to
/// hold is the longest one (the search then runs until `stop`).
fn millis(keyword: &str, value: Option<&&str>) -> Result<Duration, UciError> {
    Ok(Duration::from_millis(number(keyword, value, u64::MAX)?))
}

fn parse_go(words: &[&str]) -> Result<Command, UciError> {
    let mut go = GoParams::default();
    let mut i = 0;
    while i < words.len() {
        let key = words[i];
        let value = words.get(i + 1);
        i += 2;
        match key {
            "perft" => return Ok(Command::Perft(number(key, value, u32::MAX)?)),
            "wtime" => go.time[0] = Some(millis(key, value)?),
            "btime" => go.time[1] = Some(millis(key, value)?),
            "winc" => go.increment[0] = Some(millis(key, value)?),
            "binc" => go.increment[1] = Some(millis(key, value)?),
            "movestogo" => go.moves_to_go = Some(number(key, value, u32::MAX)?),
            "movetime" => go.move_time = Some(millis(key, value)?),
            "depth" => go.depth = Some(number(key, value, u32::MAX)?),
            "nodes" => go.nodes = Some(number(key, value, u64::MAX)?),
            "mate" => go.mate = Some(number(key, value, u32::MAX)?),
            "infinite" => {
                go.infinite = true;
                i -= 1;
            }
            "ponder" => {
                // Pondering is not offered (no Ponder option); treat as an ordinary search.
                i -= 1;
            }
            "searchmoves" => {
                // Every following word that is not a keyword is a move.
                i -= 1;
                while i < words.len() && !is_go_keyword(words[i]) {
                    go.search_moves.push(words[i].to_string());
                    i += 1;
                }
            }
            other => return Err(UciError::GoKeyword(other.to_string())),
        }
    }
    Ok(Command::Go(go))
}

fn is_go_keyword(w: &str) -> bool {
    matches!(
        w,
        "wtime"
            | "btime"
            | "winc"
            | "binc"
            | "movestogo"
            | "movetime"
            | "depth"
            | "nodes"
            | "mate"
            | "infinite"
            | "ponder"
            | "perft"
            | "searchmoves"
    )
}

fn parse_setoption(words: &[&str]) -> Result<Command, UciError> {
    if words.first() != Some(&"name") {
        return Err(UciError::SetOptionSyntax);
    }
    let rest = &words[1..];
    let value_at = rest.iter().position(|&w| w == "value");
    let (name, value) = match value_at {
        Some(i) => (rest[..i].join(" "), rest[i + 1..].join(" ")),
        None => (rest.join(" "), String::new()),
    };
    if name.is_empty() {
        return Err(UciError::SetOptionSyntax);
    }
    Ok(Command::SetOption { name, value })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions() {
        let Ok(Command::Position {
            start,
            moves,
            bad_move,
        }) = parse("position startpos moves e2e4 e7e5 g1f3")
        else {
            panic!("not a position");
        };
        assert_eq!(start, Position::startpos());
        assert_eq!(moves.len(), 3);
        assert!(bad_move.is_none());
        let Ok(Command::Position {
            moves, bad_move, ..
        }) = parse("position startpos moves e2e4 e2e4")
        else {
            panic!("not a position");
        };
        assert_eq!(moves.len(), 1);
        assert_eq!(bad_move.map(|b| b.0), Some(1));
        assert!(matches!(
            parse("position fen 8/8/8 w - - 0 1"),
            Err(UciError::Fen(_))
        ));
        assert!(matches!(
            parse("position"),
            Err(UciError::PositionSyntax(_))
        ));
        assert!(matches!(
            parse("position fen 4k3/8/8/8/8/8/8/4K3 w - - 0 1"),
            Ok(Command::Position { .. })
        ));
    }

    #[test]
    fn go_parameters() {
        let Ok(Command::Go(go)) = parse(
            "go wtime 1000 btime -5 winc 10 binc 10 movestogo 5 searchmoves e2e4 d2d4 depth 3",
        ) else {
            panic!("not go");
        };
        assert_eq!(
            go.time,
            [Some(Duration::from_millis(1000)), Some(Duration::ZERO)]
        );
        assert_eq!(go.moves_to_go, Some(5));
        assert_eq!(go.search_moves, ["e2e4", "d2d4"]);
        assert_eq!(go.depth, Some(3));
        assert_eq!(parse("go perft 3"), Ok(Command::Perft(3)));
        assert!(matches!(parse("go depth x"), Err(UciError::GoValue { .. })));
        assert!(matches!(
            parse("go depth 1e3"),
            Err(UciError::GoValue { .. })
        ));
        assert!(matches!(parse("go depth -"), Err(UciError::GoValue { .. })));
        assert!(matches!(parse("go depth"), Err(UciError::GoValue { .. })));
        assert!(matches!(
            parse("go sideways 3"),
            Err(UciError::GoKeyword(_))
        ));
        let Ok(Command::Go(go)) = parse("go infinite") else {
            panic!("not go");
        };
        assert!(go.infinite);
    }

    #[test]
    fn go_numbers_out_of_range_are_clamped() {
        let Ok(Command::Go(go)) = parse(
            "go movetime 99999999999999999999 depth -1 nodes 1000000000000000000000000000000000000000000 mate 4294967296",
        ) else {
            panic!("not go");
        };
        assert_eq!(go.move_time, Some(Duration::from_millis(u64::MAX)));
        assert_eq!(go.depth, Some(0));
        assert_eq!(go.nodes, Some(u64::MAX));
        assert_eq!(go.mate, Some(u32::MAX));
        let Ok(Command::Go(go)) = parse("go wtime -99999999999999999999999 btime +7") else {
            panic!("not go");
        };
        assert_eq!(
            go.time,
            [Some(Duration::ZERO), Some(Duration::from_millis(7))]
        );
        assert_eq!(
            parse("go depth x").map_err(|e| e.to_string()),
            Err("go: `depth` needs a whole number, found `x`".to_string())
        );
    }

    #[test]
    fn other_commands() {
        assert_eq!(
            parse("setoption name Clear Hash"),
            Ok(Command::SetOption {
                name: "Clear Hash".into(),
                value: String::new()
            })
        );
        assert_eq!(
            parse("setoption name CheProgram value /tmp/my file.che"),
            Ok(Command::SetOption {
                name: "CheProgram".into(),
                value: "/tmp/my file.che".into()
            })
        );
        assert!(parse("setoption value 3").is_err());
        assert_eq!(parse("   "), Ok(Command::Empty));
        assert_eq!(parse("bench 4"), Ok(Command::Bench(Some(4))));
        assert!(matches!(parse("xyzzy"), Err(UciError::Unknown(_))));
    }
}
