//! The move type: a 16-bit word holding origin, destination and what kind of move it is.
//!
//! Moves are produced by the generator and consumed by [`crate::Position::play`]; keeping them to 16
//! bits keeps move lists small on the stack. A move carries enough to be played without guessing
//! (castling, en passant and promotions are flagged) but not the moving piece, which the position
//! knows. Castling is written as the king's two-square step (`e1g1`), as UCI does.

use crate::castling::CastlingSide;
use crate::piece::PieceKind;
use crate::square::{File, Square};
use std::fmt;

/// What kind of move a [`Move`] is.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum MoveKind {
    /// Any move that is not one of the others (including captures and double pawn pushes).
    Normal,
    /// Castling; the move's squares are the king's.
    Castle(CastlingSide),
    /// A pawn capturing en passant; the destination is the empty square behind the captured pawn.
    EnPassant,
    /// A pawn reaching the last rank and becoming the given piece.
    Promotion(PieceKind),
}

/// A chess move packed in 16 bits: origin (bits 0-5), destination (bits 6-11), flag (bits 12-15).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move(u16);

const FLAG_NORMAL: u16 = 0;
const FLAG_CASTLE: u16 = 1;
const FLAG_EN_PASSANT: u16 = 2;
/// Promotion flags are `FLAG_PROMOTION_BASE + kind index` for knight (1) to queen (4): 4 ..= 7.
const FLAG_PROMOTION_BASE: u16 = 3;

impl Move {
    #[inline(always)]
    const fn pack(from: Square, to: Square, flag: u16) -> Move {
        Move(from.index() as u16 | (to.index() as u16) << 6 | flag << 12)
    }

    /// A normal move (not castling, en passant or promotion).
    #[inline(always)]
    pub const fn normal(from: Square, to: Square) -> Move {
        Move::pack(from, to, FLAG_NORMAL)
    }

    /// A castling move, given by the king's origin and destination.
    #[inline(always)]
    pub const fn castle(king_from: Square, king_to: Square) -> Move {
        Move::pack(king_from, king_to, FLAG_CASTLE)
    }

    /// An en-passant capture landing on `to`.
    #[inline(always)]
    pub const fn en_passant(from: Square, to: Square) -> Move {
        Move::pack(from, to, FLAG_EN_PASSANT)
    }

    /// A promotion to `kind`. Kinds other than knight, bishop, rook and queen make a queen
    /// promotion.
    #[inline(always)]
    pub const fn promotion(from: Square, to: Square, kind: PieceKind) -> Move {
        let k = match kind {
            PieceKind::Knight | PieceKind::Bishop | PieceKind::Rook => kind as u16,
            _ => PieceKind::Queen as u16,
        };
        Move::pack(from, to, FLAG_PROMOTION_BASE + k)
    }

    /// Where the moving piece (the king, for castling) starts.
    #[inline(always)]
    pub const fn from(self) -> Square {
        Square::from_index_masked((self.0 & 63) as u8)
    }

    /// Where the moving piece (the king, for castling) ends.
    #[inline(always)]
    pub const fn to(self) -> Square {
        Square::from_index_masked((self.0 >> 6 & 63) as u8)
    }

    /// The kind of move.
    #[inline(always)]
    pub const fn kind(self) -> MoveKind {
        match self.0 >> 12 {
            FLAG_CASTLE => {
                if (self.0 >> 6 & 7) > (self.0 & 7) {
                    MoveKind::Castle(CastlingSide::KingSide)
                } else {
                    MoveKind::Castle(CastlingSide::QueenSide)
                }
            }
            FLAG_EN_PASSANT => MoveKind::EnPassant,
            4..=7 => {
                match PieceKind::from_index((self.0 >> 12) as u8 - FLAG_PROMOTION_BASE as u8) {
                    Some(kind) => MoveKind::Promotion(kind),
                    None => MoveKind::Normal,
                }
            }
            _ => MoveKind::Normal,
        }
    }

    /// The piece a promotion creates, if this is a promotion.
    #[inline(always)]
    pub const fn promotion_kind(self) -> Option<PieceKind> {
        match self.kind() {
            MoveKind::Promotion(kind) => Some(kind),
            _ => None,
        }
    }

    /// True for castling moves.
    #[inline(always)]
    pub const fn is_castle(self) -> bool {
        self.0 >> 12 == FLAG_CASTLE
    }

    /// True for en-passant captures.
    #[inline(always)]
    pub const fn is_en_passant(self) -> bool {
        self.0 >> 12 == FLAG_EN_PASSANT
    }

    /// The raw 16-bit encoding (stable within a build; useful as a hash-table payload).
    #[inline(always)]
    pub const fn bits(self) -> u16 {
        self.0
    }
}

/// Prints the move in UCI long algebraic notation: `e2e4`, `e7e8q`, `e1g1`.
impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.from(), self.to())?;
        if let Some(kind) = self.promotion_kind() {
            write!(f, "{}", kind.to_lower_char())?;
        }
        Ok(())
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Move({self}, {:?})", self.kind())
    }
}

impl CastlingSide {
    /// The side a king move from `from` to `to` castles to, judged by direction.
    pub const fn of_king_move(from: Square, to: Square) -> CastlingSide {
        if to.file() as u8 > from.file() as u8 {
            CastlingSide::KingSide
        } else {
            CastlingSide::QueenSide
        }
    }

    /// The file the king lands on.
    pub const fn king_file(self) -> File {
        match self {
            CastlingSide::KingSide => File::G,
            CastlingSide::QueenSide => File::C,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_of_fields() {
        let m = Move::promotion(Square::B7, Square::A8, PieceKind::Knight);
        assert_eq!(m.from(), Square::B7);
        assert_eq!(m.to(), Square::A8);
        assert_eq!(m.kind(), MoveKind::Promotion(PieceKind::Knight));
        assert_eq!(m.to_string(), "b7a8n");
        for kind in PieceKind::PROMOTIONS {
            assert_eq!(
                Move::promotion(Square::E7, Square::E8, kind).promotion_kind(),
                Some(kind)
            );
        }
        let c = Move::castle(Square::E8, Square::C8);
        assert_eq!(c.kind(), MoveKind::Castle(CastlingSide::QueenSide));
        assert_eq!(c.to_string(), "e8c8");
        assert_eq!(
            Move::en_passant(Square::E5, Square::D6).kind(),
            MoveKind::EnPassant
        );
        assert_eq!(
            Move::normal(Square::G1, Square::F3).kind(),
            MoveKind::Normal
        );
    }
}
