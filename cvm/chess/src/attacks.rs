//! Attack sets for the chess intrinsics.
//!
//! `cvm` must not depend on chess-core, so it carries its own, small attack
//! code: leaper tables (knight, king, pawn) and ray tables computed at
//! compile time, and sliding attacks by the classical ray method (follow a
//! ray, find the first blocker with one bit scan, cut the ray behind it),
//! branch-free, four bit scans per rook or bishop and 4.5 KiB of tables.
//! chess-core's magic bitboards are faster per lookup, but need most of a MiB of
//! tables generated at build time; the intrinsics look up a few hundred
//! attack sets per program run, so the difference is measured
//! (`docs/benchmarks.md`, "Chess intrinsics") and accepted.

use super::board::{kind, BoardView};

/// The eight ray directions, as (file step, rank step). The first four
/// increase the square number, the last four decrease it.
const DIRECTIONS: [(i32, i32); 8] = [
    (0, 1),
    (1, 1),
    (1, 0),
    (-1, 1),
    (0, -1),
    (-1, -1),
    (-1, 0),
    (1, -1),
];

const fn leaper(sq: i32, steps: &[(i32, i32)]) -> u64 {
    let (f, r) = (sq % 8, sq / 8);
    let mut set = 0u64;
    let mut i = 0;
    while i < steps.len() {
        let (nf, nr) = (f + steps[i].0, r + steps[i].1);
        if nf >= 0 && nf < 8 && nr >= 0 && nr < 8 {
            set |= 1u64 << (nr * 8 + nf);
        }
        i += 1;
    }
    set
}

const fn leaper_table(steps: &[(i32, i32)]) -> [u64; 64] {
    let mut t = [0u64; 64];
    let mut sq = 0;
    while sq < 64 {
        t[sq as usize] = leaper(sq, steps);
        sq += 1;
    }
    t
}

/// Knight attacks from each square.
pub const KNIGHT: [u64; 64] = leaper_table(&[
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
]);

/// King attacks from each square.
pub const KING: [u64; 64] = leaper_table(&[
    (0, 1),
    (1, 1),
    (1, 0),
    (1, -1),
    (0, -1),
    (-1, -1),
    (-1, 0),
    (-1, 1),
]);

/// Pawn capture squares from each square, `[colour][square]`.
pub const PAWN: [[u64; 64]; 2] = [
    leaper_table(&[(-1, 1), (1, 1)]),
    leaper_table(&[(-1, -1), (1, -1)]),
];

const fn ray_table() -> [[u64; 64]; 8] {
    let mut t = [[0u64; 64]; 8];
    let mut d = 0;
    while d < 8 {
        let mut sq = 0;
        while sq < 64 {
            let (mut f, mut r) = (sq % 8 + DIRECTIONS[d].0, sq / 8 + DIRECTIONS[d].1);
            let mut set = 0u64;
            while f >= 0 && f < 8 && r >= 0 && r < 8 {
                set |= 1u64 << (r * 8 + f);
                f += DIRECTIONS[d].0;
                r += DIRECTIONS[d].1;
            }
            t[d][sq as usize] = set;
            sq += 1;
        }
        d += 1;
    }
    t
}

/// Every square on the ray from a square (excluding it), `[direction][square]`.
const RAYS: [[u64; 64]; 8] = ray_table();

/// The squares a slider on `sq` reaches along direction `d` (one of the
/// first four, which increase the square number), up to and including the
/// first occupied square. Branch-free: bit 63 stands in for "no blocker",
/// and no ray of these directions leaves h8.
#[inline(always)]
fn up_ray(d: usize, sq: usize, occupied: u64) -> u64 {
    let ray = RAYS[d][sq];
    let first = ((ray & occupied) | (1 << 63)).trailing_zeros();
    ray ^ RAYS[d][first as usize]
}

/// As [`up_ray`] for the last four directions, which decrease the square
/// number; bit 0 stands in for "no blocker" (no such ray leaves a1).
#[inline(always)]
fn down_ray(d: usize, sq: usize, occupied: u64) -> u64 {
    let ray = RAYS[d][sq];
    let first = 63 - ((ray & occupied) | 1).leading_zeros();
    ray ^ RAYS[d][first as usize]
}

/// Rook attacks from `sq` (taken modulo 64) given the occupied squares.
#[inline]
pub fn rook(sq: usize, occupied: u64) -> u64 {
    let sq = sq & 63;
    up_ray(0, sq, occupied)
        | up_ray(2, sq, occupied)
        | down_ray(4, sq, occupied)
        | down_ray(6, sq, occupied)
}

/// Bishop attacks from `sq` (taken modulo 64) given the occupied squares.
#[inline]
pub fn bishop(sq: usize, occupied: u64) -> u64 {
    let sq = sq & 63;
    up_ray(1, sq, occupied)
        | up_ray(3, sq, occupied)
        | down_ray(5, sq, occupied)
        | down_ray(7, sq, occupied)
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
/// [`PAWN`]).
#[inline]
pub fn of_piece(piece_kind: usize, sq: usize, occupied: u64) -> u64 {
    match piece_kind {
        kind::KNIGHT => KNIGHT[sq & 63],
        kind::BISHOP => bishop(sq, occupied),
        kind::ROOK => rook(sq, occupied),
        kind::QUEEN => rook(sq, occupied) | bishop(sq, occupied),
        kind::KING => KING[sq & 63],
        _ => 0,
    }
}

/// The capture squares of all pawns of `colour` in `set`.
#[inline]
pub fn pawns(colour: usize, set: u64) -> u64 {
    const NOT_A: u64 = !0x0101_0101_0101_0101;
    const NOT_H: u64 = !0x8080_8080_8080_8080;
    if colour == 0 {
        ((set << 7) & NOT_H) | ((set << 9) & NOT_A)
    } else {
        ((set >> 9) & NOT_H) | ((set >> 7) & NOT_A)
    }
}

/// All pieces of either colour that attack `sq` (0..63) when the occupied
/// squares are `occupied`; only pieces inside `occupied` count. This is
/// the attacker set the static exchange evaluation works with.
pub fn attackers_to(board: &BoardView, sq: usize, occupied: u64) -> u64 {
    let sq = sq & 63;
    let p = &board.pieces;
    let rooks = rook(sq, occupied)
        & (p[0][kind::ROOK] | p[0][kind::QUEEN] | p[1][kind::ROOK] | p[1][kind::QUEEN]);
    let bishops = bishop(sq, occupied)
        & (p[0][kind::BISHOP] | p[0][kind::QUEEN] | p[1][kind::BISHOP] | p[1][kind::QUEEN]);
    let knights = KNIGHT[sq] & (p[0][kind::KNIGHT] | p[1][kind::KNIGHT]);
    let kings = KING[sq] & (p[0][kind::KING] | p[1][kind::KING]);
    // A white pawn attacks `sq` from the squares a black pawn on `sq` would attack.
    let pawns = (PAWN[1][sq] & p[0][kind::PAWN]) | (PAWN[0][sq] & p[1][kind::PAWN]);
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
        assert_eq!(KNIGHT[sq("a1")], set(&["b3", "c2"]));
        assert_eq!(KING[sq("h8")], set(&["g8", "g7", "h7"]));
        assert_eq!(PAWN[0][sq("e2")], set(&["d3", "f3"]));
        assert_eq!(PAWN[1][sq("a7")], set(&["b6"]));
        assert_eq!(pawns(0, set(&["a2", "h2"])), set(&["b3", "g3"]));
        assert_eq!(pawns(1, set(&["a7", "h7"])), set(&["b6", "g6"]));
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
