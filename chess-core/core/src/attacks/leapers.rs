//! Attack tables of the pieces whose moves do not depend on occupancy: knight, king and pawn
//! captures. Each is a 64-entry table computed by a `const fn` at compile time.

use crate::bitboard::Bitboard;

/// The table of squares reached from each square by the given (file, rank) steps.
const fn step_table(steps: &[(i8, i8)]) -> [Bitboard; 64] {
    let mut table = [Bitboard::EMPTY; 64];
    let mut sq = 0;
    while sq < 64 {
        let f = (sq % 8) as i8;
        let r = (sq / 8) as i8;
        let mut bits = 0u64;
        let mut i = 0;
        while i < steps.len() {
            let (df, dr) = steps[i];
            let (tf, tr) = (f + df, r + dr);
            if tf >= 0 && tf < 8 && tr >= 0 && tr < 8 {
                bits |= 1 << (tr * 8 + tf);
            }
            i += 1;
        }
        table[sq] = Bitboard(bits);
        sq += 1;
    }
    table
}

/// Knight attacks from each square.
pub(crate) static KNIGHT: [Bitboard; 64] = step_table(&[
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
pub(crate) static KING: [Bitboard; 64] = step_table(&[
    (1, 0),
    (1, 1),
    (0, 1),
    (-1, 1),
    (-1, 0),
    (-1, -1),
    (0, -1),
    (1, -1),
]);

/// Pawn capture squares from each square, White's (up the board) first, then Black's.
pub(crate) static PAWN: [[Bitboard; 64]; 2] = [
    step_table(&[(-1, 1), (1, 1)]),
    step_table(&[(-1, -1), (1, -1)]),
];
