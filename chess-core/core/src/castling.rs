//! Castling rights and the geometry of the four castling moves.
//!
//! Rights are four bits with the project-wide values White king-side = 1, White queen-side = 2,
//! Black king-side = 4, Black queen-side = 8, so the CVM board view copies them unchanged. The
//! squares a castling move needs empty or unattacked are computed here once, so move generation and
//! move making both read the same facts.

use crate::bitboard::Bitboard;
use crate::colour::Colour;
use crate::square::Square;
use std::fmt;

/// Which wing a castling move goes to.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum CastlingSide {
    /// Towards the h-file (O-O).
    KingSide,
    /// Towards the a-file (O-O-O).
    QueenSide,
}

/// The set of castling moves still allowed, as the bits 1 (White O-O), 2 (White O-O-O), 4 (Black O-O)
/// and 8 (Black O-O-O).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct CastlingRights(u8);

impl CastlingRights {
    /// No castling allowed.
    pub const NONE: CastlingRights = CastlingRights(0);
    /// All four castling moves allowed.
    pub const ALL: CastlingRights = CastlingRights(15);
    /// White may castle king-side.
    pub const WHITE_KING_SIDE: u8 = 1;
    /// White may castle queen-side.
    pub const WHITE_QUEEN_SIDE: u8 = 2;
    /// Black may castle king-side.
    pub const BLACK_KING_SIDE: u8 = 4;
    /// Black may castle queen-side.
    pub const BLACK_QUEEN_SIDE: u8 = 8;

    /// Rights from their bit encoding; bits above the lowest four are ignored.
    #[inline(always)]
    pub const fn from_bits(bits: u8) -> CastlingRights {
        CastlingRights(bits & 15)
    }

    /// The bit encoding (1 = White O-O, 2 = White O-O-O, 4 = Black O-O, 8 = Black O-O-O).
    #[inline(always)]
    pub const fn bits(self) -> u8 {
        self.0
    }

    /// The bit standing for one castling move.
    #[inline(always)]
    pub const fn bit(colour: Colour, side: CastlingSide) -> u8 {
        let base = match side {
            CastlingSide::KingSide => 1,
            CastlingSide::QueenSide => 2,
        };
        base << (2 * colour as u8)
    }

    /// True if `colour` may still castle to `side`.
    #[inline(always)]
    pub const fn has(self, colour: Colour, side: CastlingSide) -> bool {
        self.0 & CastlingRights::bit(colour, side) != 0
    }

    /// True if `colour` may castle to either side.
    #[inline(always)]
    pub const fn has_any(self, colour: Colour) -> bool {
        self.0 & (3 << (2 * colour as u8)) != 0
    }

    /// These rights plus one castling move.
    #[inline(always)]
    pub const fn with(self, colour: Colour, side: CastlingSide) -> CastlingRights {
        CastlingRights(self.0 | CastlingRights::bit(colour, side))
    }

    /// These rights without one castling move.
    #[inline(always)]
    pub const fn without(self, colour: Colour, side: CastlingSide) -> CastlingRights {
        CastlingRights(self.0 & !CastlingRights::bit(colour, side))
    }

    /// The rights left after a move touches `sq` (as its origin or its destination): moving a king
    /// or a rook from its home square, or capturing a rook on it, loses the matching rights.
    #[inline(always)]
    pub const fn after_touching(self, sq: Square) -> CastlingRights {
        CastlingRights(self.0 & KEEP_RIGHTS[sq.index()])
    }
}

/// For each square, the rights that survive a move from or to it.
const KEEP_RIGHTS: [u8; 64] = {
    let mut keep = [15u8; 64];
    keep[Square::E1.index()] = 15 & !3;
    keep[Square::H1.index()] = 15 & !1;
    keep[Square::A1.index()] = 15 & !2;
    keep[Square::E8.index()] = 15 & !12;
    keep[Square::H8.index()] = 15 & !4;
    keep[Square::A8.index()] = 15 & !8;
    keep
};

/// Prints the FEN castling field: a subset of `KQkq` in that order, or `-`.
impl fmt::Display for CastlingRights {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 == 0 {
            return f.write_str("-");
        }
        for (bit, c) in [(1, 'K'), (2, 'Q'), (4, 'k'), (8, 'q')] {
            if self.0 & bit != 0 {
                write!(f, "{c}")?;
            }
        }
        Ok(())
    }
}

impl fmt::Debug for CastlingRights {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CastlingRights({self})")
    }
}

/// The fixed squares of one castling move (standard chess, king on the e-file, rooks in the corners).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct CastlingPath {
    /// Where the king starts.
    pub king_from: Square,
    /// Where the king ends (the destination of the move in UCI notation).
    pub king_to: Square,
    /// Where the rook starts.
    pub rook_from: Square,
    /// Where the rook ends.
    pub rook_to: Square,
    /// Squares between king and rook, which must all be empty.
    pub must_be_empty: Bitboard,
    /// Squares the king crosses or lands on, which must not be attacked (its start square is
    /// checked separately: castling out of check is never allowed).
    pub must_be_safe: Bitboard,
}

impl CastlingPath {
    /// The squares of `colour` castling to `side`.
    #[inline(always)]
    pub const fn of(colour: Colour, side: CastlingSide) -> &'static CastlingPath {
        &PATHS[colour as usize][side as usize]
    }
}

const fn path(
    king_from: Square,
    king_to: Square,
    rook_from: Square,
    rook_to: Square,
    empty: &[Square],
    safe: &[Square],
) -> CastlingPath {
    let mut must_be_empty = 0u64;
    let mut i = 0;
    while i < empty.len() {
        must_be_empty |= 1 << empty[i].index();
        i += 1;
    }
    let mut must_be_safe = 0u64;
    let mut i = 0;
    while i < safe.len() {
        must_be_safe |= 1 << safe[i].index();
        i += 1;
    }
    CastlingPath {
        king_from,
        king_to,
        rook_from,
        rook_to,
        must_be_empty: Bitboard(must_be_empty),
        must_be_safe: Bitboard(must_be_safe),
    }
}

const PATHS: [[CastlingPath; 2]; 2] = [
    [
        path(
            Square::E1,
            Square::G1,
            Square::H1,
            Square::F1,
            &[Square::F1, Square::G1],
            &[Square::F1, Square::G1],
        ),
        path(
            Square::E1,
            Square::C1,
            Square::A1,
            Square::D1,
            &[Square::D1, Square::C1, Square::B1],
            &[Square::D1, Square::C1],
        ),
    ],
    [
        path(
            Square::E8,
            Square::G8,
            Square::H8,
            Square::F8,
            &[Square::F8, Square::G8],
            &[Square::F8, Square::G8],
        ),
        path(
            Square::E8,
            Square::C8,
            Square::A8,
            Square::D8,
            &[Square::D8, Square::C8, Square::B8],
            &[Square::D8, Square::C8],
        ),
    ],
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bit_values_are_the_project_encoding() {
        assert_eq!(
            CastlingRights::bit(Colour::White, CastlingSide::KingSide),
            1
        );
        assert_eq!(
            CastlingRights::bit(Colour::White, CastlingSide::QueenSide),
            2
        );
        assert_eq!(
            CastlingRights::bit(Colour::Black, CastlingSide::KingSide),
            4
        );
        assert_eq!(
            CastlingRights::bit(Colour::Black, CastlingSide::QueenSide),
            8
        );
    }

    #[test]
    fn touching_home_squares_loses_rights() {
        let all = CastlingRights::ALL;
        assert_eq!(all.after_touching(Square::E1).bits(), 12);
        assert_eq!(all.after_touching(Square::A8).bits(), 7);
        assert_eq!(all.after_touching(Square::D4).bits(), 15);
        assert_eq!(all.to_string(), "KQkq");
        assert_eq!(CastlingRights::NONE.to_string(), "-");
    }
}
