//! Piece-square tables: where each kind of piece stands well.
//!
//! The tables are generated from a few plain rules instead of being typed in as 768 numbers, so
//! each value can be explained: knights and bishops want the centre, rooks the seventh rank, the
//! king a corner behind its pawns while queens are about and the centre once they are gone, and
//! pawns gain value as they advance, most of all the centre pawns. Tables are written for White
//! ("relative" squares, a1 = 0); Black reads them through a vertical flip.

use super::score::{s, S};
use chess_core::piece::PieceKind;

/// How central a square is along one axis: 0 on the edge files/ranks ... 3 in the middle.
const fn axis_centrality(x: i32) -> i32 {
    if x < 4 {
        x
    } else {
        7 - x
    }
}

/// The base positional value of a White `kind` on the relative square `sq` (0..64).
pub const fn base(kind: PieceKind, sq: usize) -> S {
    let file = (sq % 8) as i32;
    let rank = (sq / 8) as i32;
    let cf = axis_centrality(file);
    let cr = axis_centrality(rank);
    let centre = cf + cr; // 0 (corner) ..= 6 (d4, e4, d5, e5)
    match kind {
        PieceKind::Pawn => {
            // Advancing is good, in the endgame more so; d- and e-pawns on the fourth and fifth
            // ranks hold the centre; pawns in front of a castled king should stay home.
            let advance = [0, 0, 3, 8, 16, 28, 45, 0][rank as usize];
            let central = if (file == 3 || file == 4) && (rank == 3 || rank == 4) {
                18
            } else if (file == 2 || file == 5) && (rank == 3 || rank == 4) {
                6
            } else {
                0
            };
            let shelter = if (file <= 1 || file >= 6) && rank == 1 {
                6
            } else {
                0
            };
            s(advance + central + shelter, advance * 2)
        }
        PieceKind::Knight => s(centre * 8 - 24, centre * 6 - 18),
        PieceKind::Bishop => {
            let undeveloped = if rank == 0 { -10 } else { 0 };
            s(centre * 4 - 10 + undeveloped, centre * 4 - 12)
        }
        PieceKind::Rook => {
            let seventh = if rank == 6 { 20 } else { 0 };
            let central_file = if file == 3 || file == 4 { 6 } else { 0 };
            s(seventh + central_file, seventh / 2)
        }
        PieceKind::Queen => s(centre * 2 - 6, centre * 5 - 15),
        PieceKind::King => {
            let mg = if rank == 0 {
                match file {
                    0 | 1 | 6 => 25,
                    2 | 7 => 15,
                    _ => 0,
                }
            } else if rank == 1 {
                -10
            } else {
                -25 - 10 * rank
            };
            s(mg, centre * 10 - 30)
        }
    }
}

/// The relative square of `sq` for a piece of the side with index `colour` (0 White, 1 Black).
#[inline(always)]
pub const fn relative(colour: usize, sq: usize) -> usize {
    if colour == 0 {
        sq
    } else {
        sq ^ 56
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_hold() {
        // Knights prefer e4 (28) to a1 (0); the king prefers g1 (6) to e3 (20) in the middlegame
        // and the reverse in the endgame; d4 (27) beats a4 (24) for pawns.
        assert!(base(PieceKind::Knight, 28).mg > base(PieceKind::Knight, 0).mg);
        assert!(base(PieceKind::King, 6).mg > base(PieceKind::King, 20).mg);
        assert!(base(PieceKind::King, 6).eg < base(PieceKind::King, 20).eg);
        assert!(base(PieceKind::Pawn, 27).mg > base(PieceKind::Pawn, 24).mg);
        assert_eq!(relative(1, 0), 56);
        assert_eq!(relative(0, 9), 9);
    }
}
