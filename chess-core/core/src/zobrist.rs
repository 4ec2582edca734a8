//! Zobrist keys: the random numbers whose XOR identifies a position.
//!
//! A position's hash is the XOR of one key per (colour, kind, square) occupied, one key for the
//! castling-rights combination, one for the en-passant file when an en-passant capture is
//! available, and one if Black is to move. Making a move flips only the keys that change, so the hash
//! is kept up to date in O(1) and repetition detection is a comparison of integers. The keys come
//! from a fixed-seed splitmix64 generator evaluated at compile time.

use crate::castling::CastlingRights;
use crate::colour::Colour;
use crate::piece::PieceKind;
use crate::square::Square;

const fn splitmix64(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (state, z ^ (z >> 31))
}

/// All keys, drawn in one fixed order from one generator.
struct Keys {
    pieces: [[[u64; 64]; 6]; 2],
    castling: [u64; 16],
    en_passant_file: [u64; 8],
    black_to_move: u64,
}

const fn make_keys() -> Keys {
    let mut keys = Keys {
        pieces: [[[0; 64]; 6]; 2],
        castling: [0; 16],
        en_passant_file: [0; 8],
        black_to_move: 0,
    };
    let mut state = 0x0005_EED0_FC4E_5500_u64;
    let mut c = 0;
    while c < 2 {
        let mut k = 0;
        while k < 6 {
            let mut s = 0;
            while s < 64 {
                let (next, key) = splitmix64(state);
                state = next;
                keys.pieces[c][k][s] = key;
                s += 1;
            }
            k += 1;
        }
        c += 1;
    }
    // No rights hashes to zero so that a position without castling rights needs no key.
    let mut i = 1;
    while i < 16 {
        let (next, key) = splitmix64(state);
        state = next;
        keys.castling[i] = key;
        i += 1;
    }
    let mut f = 0;
    while f < 8 {
        let (next, key) = splitmix64(state);
        state = next;
        keys.en_passant_file[f] = key;
        f += 1;
    }
    let (_, key) = splitmix64(state);
    keys.black_to_move = key;
    keys
}

static KEYS: Keys = make_keys();

/// Key of a piece of `colour` and `kind` standing on `sq`.
#[inline(always)]
pub fn piece(colour: Colour, kind: PieceKind, sq: Square) -> u64 {
    KEYS.pieces[colour.index()][kind.index()][sq.index()]
}

/// Key of a combination of castling rights (zero for no rights).
#[inline(always)]
pub fn castling(rights: CastlingRights) -> u64 {
    KEYS.castling[rights.bits() as usize & 15]
}

/// Key of an en-passant capture being available on the file of `sq`.
#[inline(always)]
pub fn en_passant(sq: Square) -> u64 {
    KEYS.en_passant_file[sq.file().index()]
}

/// Key XORed in when Black is to move.
#[inline(always)]
pub fn black_to_move() -> u64 {
    KEYS.black_to_move
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn keys_are_distinct_and_nonzero() {
        let mut seen = HashSet::new();
        for row in KEYS.pieces.iter().flatten() {
            for &k in row {
                assert!(k != 0 && seen.insert(k));
            }
        }
        for &k in KEYS.castling[1..].iter().chain(&KEYS.en_passant_file) {
            assert!(k != 0 && seen.insert(k));
        }
        assert!(seen.insert(KEYS.black_to_move));
        assert_eq!(KEYS.castling[0], 0);
    }
}
