//! Reading the games of a PGN file: their start positions and main-line moves.
//!
//! Enough of PGN for building books from real files: tag pairs (a `FEN` tag sets the start
//! position), move numbers (`12.`, `12...`), moves in SAN with check marks and annotations
//! (`Nf3+`, `e4!?`), comments (`{...}` and `;` to the end of the line), numeric annotation glyphs
//! (`$1`), variations (`(...)`, nested; skipped, only the main line counts) and results (`1-0`,
//! `0-1`, `1/2-1/2`, `*`). Every move is checked against the legal moves; a game with a move that
//! cannot be played is reported with its number, the move and why.

use chess_core::chess_move::Move;
use chess_core::position::Position;

/// A game read from PGN: where it starts and its main line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PgnGame {
    /// The start position (the initial position unless a `FEN` tag says otherwise).
    pub start: Position,
    /// The main-line moves, each legal in turn.
    pub moves: Vec<Move>,
}

/// Why a PGN text could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PgnError {
    /// A move that is not legal (or not SAN) in its position.
    #[error("game {game}, half-move {ply}: `{text}` cannot be played: {reason}")]
    Move {
        /// The game's number in the file, from 1.
        game: usize,
        /// The half-move's number in the game, from 1.
        ply: usize,
        /// The move as written.
        text: String,
        /// Why it was refused.
        reason: String,
    },
    /// A `FEN` tag that is not a valid position.
    #[error("game {game}: invalid FEN tag: {reason}")]
    Fen {
        /// The game's number in the file, from 1.
        game: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// A comment, variation or tag that is never closed.
    #[error("game {game}: unterminated {what}")]
    Unterminated {
        /// The game's number in the file, from 1.
        game: usize,
        /// `comment`, `variation` or `tag`.
        what: &'static str,
    },
}

/// A game being read.
struct Reading {
    number: usize,
    start: Position,
    pos: Position,
    moves: Vec<Move>,
    started: bool,
}

impl Reading {
    fn new(number: usize) -> Reading {
        let start = Position::startpos();
        Reading {
            number,
            start,
            pos: start,
            moves: Vec::new(),
            started: false,
        }
    }

    fn finish(self, games: &mut Vec<PgnGame>) {
        if self.started {
            games.push(PgnGame {
                start: self.start,
                moves: self.moves,
            });
        }
    }
}

fn is_result(word: &str) -> bool {
    matches!(word, "1-0" | "0-1" | "1/2-1/2" | "*")
}

/// Strips a leading move number (`12.`, `12...`) from a word; returns what follows.
fn strip_move_number(word: &str) -> &str {
    let digits = word.chars().take_while(char::is_ascii_digit).count();
    if digits > 0 && word[digits..].starts_with('.') {
        word[digits..].trim_start_matches('.')
    } else {
        word
    }
}

/// Reads every game of `text`.
pub fn read_games(text: &str) -> Result<Vec<PgnGame>, PgnError> {
    let mut games = Vec::new();
    let mut game = Reading::new(1);
    let mut chars = text.char_indices().peekable();
    let mut depth = 0usize; // variation nesting
    while let Some(&(i, c)) = chars.peek() {
        match c {
            '{' => {
                let end = text[i..].find('}').ok_or(PgnError::Unterminated {
                    game: game.number,
                    what: "comment",
                })?;
                while chars.peek().is_some_and(|&(j, _)| j <= i + end) {
                    chars.next();
                }
            }
            ';' => {
                while chars.peek().is_some_and(|&(_, c)| c != '\n') {
                    chars.next();
                }
            }
            '(' => {
                depth += 1;
                chars.next();
            }
            ')' => {
                depth = depth.saturating_sub(1);
                chars.next();
            }
            '[' if depth == 0 => {
                let end = text[i..].find(']').ok_or(PgnError::Unterminated {
                    game: game.number,
                    what: "tag",
                })?;
                let tag = &text[i + 1..i + end];
                if !game.moves.is_empty() {
                    let next = game.number + 1;
                    std::mem::replace(&mut game, Reading::new(next)).finish(&mut games);
                }
                read_tag(&mut game, tag)?;
                while chars.peek().is_some_and(|&(j, _)| j <= i + end) {
                    chars.next();
                }
            }
            c if c.is_whitespace() => {
                chars.next();
            }
            _ => {
                let len = text[i..]
                    .find(|c: char| c.is_whitespace() || "{}();[".contains(c))
                    .unwrap_or(text.len() - i);
                let word = &text[i..i + len];
                while chars.peek().is_some_and(|&(j, _)| j < i + len) {
                    chars.next();
                }
                if depth > 0 {
                    continue;
                }
                if is_result(word) {
                    game.started = true;
                    let next = game.number + 1;
                    std::mem::replace(&mut game, Reading::new(next)).finish(&mut games);
                    continue;
                }
                let word = strip_move_number(word);
                if word.is_empty() || word.starts_with('$') {
                    continue;
                }
                game.started = true;
                let mv = game.pos.parse_san(word).map_err(|e| PgnError::Move {
                    game: game.number,
                    ply: game.moves.len() + 1,
                    text: word.to_string(),
                    reason: e.to_string(),
                })?;
                game.pos.play(mv);
                game.moves.push(mv);
            }
        }
    }
    if depth > 0 {
        return Err(PgnError::Unterminated {
            game: game.number,
            what: "variation",
        });
    }
    game.finish(&mut games);
    Ok(games)
}

fn read_tag(game: &mut Reading, tag: &str) -> Result<(), PgnError> {
    let tag = tag.trim();
    let Some((name, value)) = tag.split_once(char::is_whitespace) else {
        return Ok(());
    };
    if name == "FEN" {
        let fen = value.trim().trim_matches('"');
        let pos = Position::from_fen(fen).map_err(|e| PgnError::Fen {
            game: game.number,
            reason: e.to_string(),
        })?;
        game.start = pos;
        game.pos = pos;
    }
    game.started = true;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn games_comments_variations_and_results() {
        let text = "[Event \"a\"]\n[White \"x\"]\n\n1. e4 {best by test} e5 2. Nf3 (2. f4 exf4) Nc6!? $1 3. Bb5 1-0\n\n\
                    [Event \"b\"]\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\"]\n1. e4 Kd7 ; a comment\n2. Kd2 *\n\
                    1. d4 d5 2. c4";
        let games = read_games(text).expect("valid PGN");
        assert_eq!(games.len(), 3);
        let san = |g: &PgnGame| {
            let mut p = g.start;
            g.moves
                .iter()
                .map(|&m| {
                    let s = p.san(m);
                    p.play(m);
                    s
                })
                .collect::<Vec<_>>()
                .join(" ")
        };
        assert_eq!(san(&games[0]), "e4 e5 Nf3 Nc6 Bb5");
        assert_eq!(games[1].start.to_fen(), "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1");
        assert_eq!(san(&games[1]), "e4 Kd7 Kd2");
        assert_eq!(san(&games[2]), "d4 d5 c4");
    }

    #[test]
    fn errors_name_the_game_and_move() {
        let err = read_games("1. e4 e5 *\n1. e4 e4 *").expect_err("an illegal move");
        assert!(
            matches!(&err, PgnError::Move { game: 2, ply: 2, text, .. } if text == "e4"),
            "{err}"
        );
        assert!(read_games("1. e4 {open").is_err());
        assert!(read_games("1. e4 (1. d4").is_err());
        assert!(read_games("[FEN \"nonsense\"] 1. e4").is_err());
        assert_eq!(read_games("").expect("empty"), Vec::new());
    }
}
