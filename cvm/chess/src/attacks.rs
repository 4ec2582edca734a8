//! Attack sets for the chess intrinsics, on chess-core's rules.
//!
//! The workspace has one chess rule set: chess-core's attack tables (leaper
//! tables computed at compile time, magic-bitboard slider lookups generated
//! by its build script). This module adapts them to the intrinsics' terms:
//! squares as numbers 0..63 (a1 = 0, h8 = 63; taken modulo 64), colours as
//! 0 (white) and 1 (black), piece kinds as in [`BoardView::pieces`], and
//! sets as plain `u64` masks.

use super::board::{kind, BoardView};
use chess_core::attacks as rules;
use chess_core::{Bitboard, Colour, Square};

/// The chess-core square of an intrinsic square number (taken modulo 64).
#[inline(always)]
fn square(sq: usize) -> Square {
    // Truncating to u8 keeps the low six bits, which is all the mask keeps.
    Square::from_index_masked(sq as u8)
}

/// The chess-core colour of an intrinsic colour number (taken modulo 2).
#[inline(always)]
fn colour_of(colour: usize) -> Colour {
    if colour & 1 == 0 {
        Colour::White
    } else {
        Colour::Black
    }
}

/// Knight attacks from `sq` (taken modulo 64).
#[inline]
pub fn knight(sq: usize) -> u64 {
    rules::knight_attacks(square(sq)).0
}

/// The squares the knights on the squares of `set` attack, all at once:
/// the union of [`knight`] over the set, by shifts (one file or two files
/// aside, two ranks or one rank up and down), without a loop over the
/// knights.
#[inline]
pub fn knights(set: u64) -> u64 {
    const NOT_FILE_A: u64 = 0xfefe_fefe_fefe_fefe;
    const NOT_FILES_AB: u64 = 0xfcfc_fcfc_fcfc_fcfc;
    const NOT_FILE_H: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const NOT_FILES_GH: u64 = 0x3f3f_3f3f_3f3f_3f3f;
    let one_aside = ((set << 1) & NOT_FILE_A) | ((set >> 1) & NOT_FILE_H);
    let two_aside = ((set << 2) & NOT_FILES_AB) | ((set >> 2) & NOT_FILES_GH);
    (one_aside << 16) | (one_aside >> 16) | (two_aside << 8) | (two_aside >> 8)
}

/// King attacks from `sq` (taken modulo 64).
#[inline]
pub fn king(sq: usize) -> u64 {
    rules::king_attacks(square(sq)).0
}

/// The capture squares of one pawn of `colour` (0 or 1, taken modulo 2) on
/// `sq` (taken modulo 64).
#[inline]
pub fn pawn(colour: usize, sq: usize) -> u64 {
    rules::pawn_attacks(colour_of(colour), square(sq)).0
}

/// Rook attacks from `sq` (taken modulo 64) given the occupied squares.
#[inline]
pub fn rook(sq: usize, occupied: u64) -> u64 {
    rules::rook_attacks(square(sq), Bitboard(occupied)).0
}

/// Bishop attacks from `sq` (taken modulo 64) given the occupied squares.
#[inline]
pub fn bishop(sq: usize, occupied: u64) -> u64 {
    rules::bishop_attacks(square(sq), Bitboard(occupied)).0
}

/// The squares every piece in `set` attacks, for pieces of one kind and
/// colour (kind and colour as in [`BoardView::pieces`]).
pub fn of_set(colour: usize, piece_kind: usize, set: u64, occupied: u64) -> u64 {
    if piece_kind == kind::PAWN {
        return pawns(colour, set);
    }
    let mut acc = 0;
    let mut rest = set;
    while rest != 0 {
        let sq = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        acc |= of_piece(piece_kind, sq, occupied);
    }
    acc
}

/// The squares a non-pawn piece of the given kind on `sq` attacks (empty for
/// pawns and unknown kinds; pawn attacks depend on the colour, see
/// [`pawn`]).
#[inline]
pub fn of_piece(piece_kind: usize, sq: usize, occupied: u64) -> u64 {
    match piece_kind {
        kind::KNIGHT => knight(sq),
        kind::BISHOP => bishop(sq, occupied),
        kind::ROOK => rook(sq, occupied),
        kind::QUEEN => rules::queen_attacks(square(sq), Bitboard(occupied)).0,
        kind::KING => king(sq),
        _ => 0,
    }
}

/// The capture squares of all pawns of `colour` (0 or 1, taken modulo 2) in
/// `set`.
#[inline]
pub fn pawns(colour: usize, set: u64) -> u64 {
    rules::pawn_set_attacks(colour_of(colour), Bitboard(set)).0
}

/// All pieces of either colour that attack `sq` (0..63) when the occupied
/// squares are `occupied`; only pieces inside `occupied` count. This is
/// the attacker set the static exchange evaluation works with.
pub fn attackers_to(board: &BoardView, sq: usize, occupied: u64) -> u64 {
    let p = &board.pieces;
    let rooks = rook(sq, occupied)
        & (p[0][kind::ROOK] | p[0][kind::QUEEN] | p[1][kind::ROOK] | p[1][kind::QUEEN]);
    let bishops = bishop(sq, occupied)
        & (p[0][kind::BISHOP] | p[0][kind::QUEEN] | p[1][kind::BISHOP] | p[1][kind::QUEEN]);
    let knights = knight(sq) & (p[0][kind::KNIGHT] | p[1][kind::KNIGHT]);
    let kings = king(sq) & (p[0][kind::KING] | p[1][kind::KING]);
    // A white pawn attacks `sq` from the squares a black pawn on `sq` would attack.
    let pawns = (pawn(1, sq) & p[0][kind::PAWN]) | (pawn(0, sq) & p[1][kind::PAWN]);
    (rooks | bishops | knights | kings | pawns) & occupied
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(name: &str) -> usize {
        crate::lit::parse_square(name).unwrap() as usize
    }

    fn set(names: &[&str]) -> u64 {
        names.iter().fold(0, |acc, n| acc | 1 << sq(n))
    }

    #[test]
    fn leapers() {
        assert_eq!(knight(sq("a1")), set(&["b3", "c2"]));
        assert_eq!(king(sq("h8")), set(&["g8", "g7", "h7"]));
        assert_eq!(pawn(0, sq("e2")), set(&["d3", "f3"]));
        assert_eq!(pawn(1, sq("a7")), set(&["b6"]));
        assert_eq!(pawns(0, set(&["a2", "h2"])), set(&["b3", "g3"]));
        assert_eq!(pawns(1, set(&["a7", "h7"])), set(&["b6", "g6"]));
        // Pawns on the last rank attack nothing (no wrap-around).
        assert_eq!(pawns(0, set(&["a8", "h8"])), 0);
        assert_eq!(pawns(1, set(&["a1", "h1"])), 0);
    }

    #[test]
    fn knights_of_a_set_are_the_union_of_each_knight() {
        // Every single square, then sets from a simple generator (xorshift),
        // against the union of the per-square table.
        let union = |set: u64| {
            let mut acc = 0;
            let mut rest = set;
            while rest != 0 {
                acc |= knight(rest.trailing_zeros() as usize);
                rest &= rest - 1;
            }
            acc
        };
        for sq in 0..64 {
            assert_eq!(knights(1 << sq), knight(sq), "square {sq}");
        }
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..10_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let set = x & (x >> 3);
            assert_eq!(knights(set), union(set), "set {set:#x}");
        }
        assert_eq!(knights(0), 0);
        assert_eq!(knights(u64::MAX), union(u64::MAX));
    }

    #[test]
    fn squares_are_taken_modulo_64() {
        assert_eq!(knight(sq("a1") + 64), knight(sq("a1")));
        assert_eq!(rook(sq("d4") + 128, 0), rook(sq("d4"), 0));
        assert_eq!(pawn(2, sq("e2")), pawn(0, sq("e2")));
    }

    #[test]
    fn sliders_stop_at_the_first_blocker() {
        let occ = set(&["d6", "f4", "b2"]);
        assert_eq!(
            rook(sq("d4"), occ),
            set(&["d5", "d6", "d3", "d2", "d1", "e4", "f4", "c4", "b4", "a4"])
        );
        assert_eq!(
            bishop(sq("d4"), occ),
            set(&["e5", "f6", "g7", "h8", "c5", "b6", "a7", "e3", "f2", "g1", "c3", "b2"])
        );
        assert_eq!(rook(sq("a1"), 0).count_ones(), 14);
    }
}
