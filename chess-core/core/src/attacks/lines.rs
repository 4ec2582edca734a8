//! Squares between two aligned squares, used for check evasion (block squares) and pins.
//!
//! A 64x64 table computed at compile time: walking the eight rays from each square gives every
//! aligned pair, and the squares stepped over on the way are the ones strictly between them.

use crate::bitboard::Bitboard;

const DIRECTIONS: [(i8, i8); 8] = [
    (1, 0),
    (-1, 0),
    (0, 1),
    (0, -1),
    (1, 1),
    (1, -1),
    (-1, 1),
    (-1, -1),
];

const fn between_table() -> [[Bitboard; 64]; 64] {
    let mut table = [[Bitboard::EMPTY; 64]; 64];
    let mut from = 0;
    while from < 64 {
        let mut d = 0;
        while d < DIRECTIONS.len() {
            let (df, dr) = DIRECTIONS[d];
            let mut f = (from % 8) as i8 + df;
            let mut r = (from / 8) as i8 + dr;
            let mut passed = 0u64;
            while f >= 0 && f < 8 && r >= 0 && r < 8 {
                let to = (r * 8 + f) as usize;
                table[from][to] = Bitboard(passed);
                passed |= 1 << to;
                f += df;
                r += dr;
            }
            d += 1;
        }
        from += 1;
    }
    table
}

const fn ray_table(first: usize, last: usize) -> [Bitboard; 64] {
    let mut table = [Bitboard::EMPTY; 64];
    let mut from = 0;
    while from < 64 {
        let mut bits = 0u64;
        let mut d = first;
        while d < last {
            let (df, dr) = DIRECTIONS[d];
            let mut f = (from % 8) as i8 + df;
            let mut r = (from / 8) as i8 + dr;
            while f >= 0 && f < 8 && r >= 0 && r < 8 {
                bits |= 1 << (r * 8 + f);
                f += df;
                r += dr;
            }
            d += 1;
        }
        table[from] = Bitboard(bits);
        from += 1;
    }
    table
}

/// Rook attacks from each square on an empty board.
pub(crate) static ORTHOGONAL_RAYS: [Bitboard; 64] = ray_table(0, 4);
/// Bishop attacks from each square on an empty board.
pub(crate) static DIAGONAL_RAYS: [Bitboard; 64] = ray_table(4, 8);

/// `BETWEEN[a][b]`: the squares strictly between `a` and `b` if they share a rank, file or
/// diagonal; empty otherwise.
pub(crate) static BETWEEN: [[Bitboard; 64]; 64] = between_table();
