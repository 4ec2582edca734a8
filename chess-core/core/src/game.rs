//! A game: a position with the history needed for the rules that look back.
//!
//! Threefold repetition cannot be decided from a position alone, and copy-make positions keep no
//! history, so [`Game`] records every position since the start. Positions count as the same for
//! repetition when placement, side to move, castling rights and the *legally capturable* en-passant
//! square agree (FIDE: "the same possible moves"); clocks are ignored. Only positions since the last
//! capture or pawn move can repeat, which bounds the search by the half-move clock.

use crate::chess_move::Move;
use crate::colour::Colour;
use crate::position::Position;
use crate::zobrist;

/// How a game ended, or why a draw may be claimed.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Outcome {
    /// The side to move is checkmated; `winner` gave the mate.
    Checkmate {
        /// The side that won.
        winner: Colour,
    },
    /// The side to move has no legal move and is not in check.
    Stalemate,
    /// Neither side can mate (see [`Position::is_insufficient_material`]).
    InsufficientMaterial,
    /// A hundred half-moves without capture or pawn move: a draw either player may claim.
    FiftyMoveRule,
    /// The current position has occurred three times: a draw either player may claim.
    ThreefoldRepetition,
}

/// A position plus the moves and positions that led to it.
#[derive(Clone, Debug)]
pub struct Game {
    history: Vec<Position>,
    moves: Vec<Move>,
}

/// The position as repetition sees it: clocks zeroed and an en-passant square kept only if an
/// en-passant capture is legal.
fn repetition_key(pos: &Position) -> Position {
    let mut key = *pos;
    key.halfmove_clock = 0;
    key.fullmove_number = 1;
    if let Some(ep) = key.en_passant {
        if !pos.legal_moves().iter().any(|m| m.is_en_passant()) {
            key.en_passant = None;
            key.hash ^= zobrist::en_passant(ep);
        }
    }
    key
}

impl Game {
    /// A game starting from `start`.
    pub fn new(start: Position) -> Game {
        Game {
            history: vec![start],
            moves: Vec::new(),
        }
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        // `history` is never empty: it starts with the initial position and only grows.
        &self.history[self.history.len() - 1]
    }

    /// The moves played so far.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// Plays `mv` if it is legal; returns whether it was.
    pub fn play(&mut self, mv: Move) -> bool {
        let current = *self.position();
        if !current.is_legal(mv) {
            return false;
        }
        self.history.push(current.after(mv));
        self.moves.push(mv);
        true
    }

    /// Takes back the last move, if any.
    pub fn undo(&mut self) -> Option<Move> {
        let mv = self.moves.pop()?;
        self.history.pop();
        Some(mv)
    }

    /// How many times the current position has occurred in the game, counting now.
    pub fn repetition_count(&self) -> usize {
        let current = self.position();
        let key = repetition_key(current);
        // Positions before the last irreversible move cannot match; the clock says how far back
        // that was (it may exceed the recorded history when the game began from a FEN).
        let window = (current.halfmove_clock() as usize).min(self.history.len() - 1);
        let start = self.history.len() - 1 - window;
        self.history[start..]
            .iter()
            .filter(|p| repetition_key(p) == key)
            .count()
    }

    /// True if the current position has occurred at least three times.
    pub fn is_threefold_repetition(&self) -> bool {
        self.repetition_count() >= 3
    }

    /// The result if the game is over, or a draw can be claimed. Checkmate and stalemate come
    /// first (a mate on the hundredth half-move wins), then insufficient material, then the
    /// fifty-move rule and threefold repetition.
    pub fn outcome(&self) -> Option<Outcome> {
        let pos = self.position();
        if !pos.has_legal_move() {
            return Some(if pos.is_check() {
                Outcome::Checkmate {
                    winner: !pos.side_to_move(),
                }
            } else {
                Outcome::Stalemate
            });
        }
        if pos.is_insufficient_material() {
            return Some(Outcome::InsufficientMaterial);
        }
        if pos.is_fifty_move_draw() {
            return Some(Outcome::FiftyMoveRule);
        }
        if self.is_threefold_repetition() {
            return Some(Outcome::ThreefoldRepetition);
        }
        None
    }
}
