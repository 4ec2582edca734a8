//! UCI long algebraic notation for moves: `e2e4`, `e7e8q`, `e1g1` (castling as the king's step).
//!
//! This is how the engine talks to GUIs, so reading is exact: the text must name a legal move of
//! the position, including the promotion letter when one is due. Writing is [`Move`]'s `Display`.

use crate::chess_move::Move;
use crate::piece::PieceKind;
use crate::position::Position;
use crate::square::Square;
use std::error::Error;
use std::fmt;

/// Why a UCI move string was rejected.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum UciMoveError {
    /// The text is not of the form from-square, to-square, optional promotion letter.
    Syntax(String),
    /// Well formed, but not a legal move in the position.
    Illegal(String),
}

impl fmt::Display for UciMoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UciMoveError::Syntax(text) => write!(
                f,
                "`{text}` is not a UCI move (expected two squares and an optional promotion letter n/b/r/q, such as e2e4 or e7e8q)"
            ),
            UciMoveError::Illegal(text) => {
                write!(f, "`{text}` is not a legal move in this position")
            }
        }
    }
}

impl Error for UciMoveError {}

/// Splits UCI text into origin, destination and promotion kind, without consulting a position.
pub fn parse_uci_parts(text: &str) -> Result<(Square, Square, Option<PieceKind>), UciMoveError> {
    let syntax = || UciMoveError::Syntax(text.to_owned());
    if !text.is_ascii() || !(4..=5).contains(&text.len()) {
        return Err(syntax());
    }
    let from: Square = text[0..2].parse().map_err(|_| syntax())?;
    let to: Square = text[2..4].parse().map_err(|_| syntax())?;
    let promotion = match text[4..].chars().next() {
        None => None,
        Some(c @ ('n' | 'b' | 'r' | 'q')) => PieceKind::from_char(c),
        Some(_) => return Err(syntax()),
    };
    Ok((from, to, promotion))
}

impl Position {
    /// Reads a move in UCI notation and checks that it is legal here.
    pub fn parse_uci(&self, text: &str) -> Result<Move, UciMoveError> {
        let (from, to, promotion) = parse_uci_parts(text)?;
        self.legal_moves()
            .iter()
            .copied()
            .find(|mv| mv.from() == from && mv.to() == to && mv.promotion_kind() == promotion)
            .ok_or_else(|| UciMoveError::Illegal(text.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::castling::CastlingSide;
    use crate::chess_move::MoveKind;

    #[test]
    fn reads_legal_moves_and_rejects_others() {
        let pos = Position::startpos();
        assert_eq!(
            pos.parse_uci("e2e4"),
            Ok(Move::normal(Square::E2, Square::E4))
        );
        assert_eq!(
            pos.parse_uci("g1f3").map(|m| m.to_string()),
            Ok("g1f3".to_owned())
        );
        for bad in ["", "e2", "e2e4x", "e2e4k", "e2-e4", "E2E4", "e2e9", "é2e4"] {
            assert_eq!(
                pos.parse_uci(bad),
                Err(UciMoveError::Syntax(bad.to_owned())),
                "{bad}"
            );
        }
        assert_eq!(
            pos.parse_uci("e2e5"),
            Err(UciMoveError::Illegal("e2e5".to_owned()))
        );
    }

    #[test]
    fn castling_and_promotion() {
        let pos = Position::from_fen("r3k2r/1P6/8/8/8/8/8/R3K2R w KQkq - 0 1").expect("valid");
        let castle = pos.parse_uci("e1c1").expect("legal");
        assert_eq!(castle.kind(), MoveKind::Castle(CastlingSide::QueenSide));
        assert!(
            pos.parse_uci("b7a8").is_err(),
            "promotion letter is required"
        );
        let promo = pos.parse_uci("b7a8n").expect("legal");
        assert_eq!(promo.kind(), MoveKind::Promotion(PieceKind::Knight));
    }
}
