//! What chess literal values stand for, as sets.
//!
//! Every intrinsic first turns its arguments into sets: a square value
//! (`e4`, `e.`, `.4`, `..`) into a 64-bit square mask, a board side or a
//! column into a set of files, a colour or a piece (with `?` and `O`
//! wildcards) into sets of colours and kinds, a square colour into a square
//! mask. Each conversion returns `None` for a value that is not a literal
//! of its kind; the intrinsics turn that into their documented "out of
//! range" answer. Keeping the decoding here, once, is what makes the
//! wildcard rules the same for every function.

use super::lit;

/// The a-file as a square mask.
pub const FILE_A: u64 = 0x0101_0101_0101_0101;
/// The first rank as a square mask.
pub const RANK_1: u64 = 0xFF;
/// The light squares (b1, a2, ...; a1 is dark).
pub const LIGHT_SQUARES: u64 = 0x55AA_55AA_55AA_55AA;
/// The dark squares.
pub const DARK_SQUARES: u64 = !LIGHT_SQUARES;

/// Files of each board side, in the order of the side literals (`kside`
/// e-h, `qside` a-d, `centre` d-e, `kkside` f-h, `qqside` a-c); bit `f` is
/// file `f` (a = 0).
pub const SIDE_FILES: [u8; 5] = [0xF0, 0x0F, 0x18, 0xE0, 0x07];

/// The square mask of a set of files (bit `f` of `files` is file `f`).
#[inline]
pub fn files_mask(files: u8) -> u64 {
    // Every rank holds the files' bits: the byte repeated eight times.
    u64::from(files).wrapping_mul(0x0101_0101_0101_0101)
}

/// The squares a square value stands for: one square, a file (`e.`), a rank
/// (`.4`) or the board (`..`); `None` for other values.
#[inline]
pub fn square_set(value: i32) -> Option<u64> {
    (0..=lit::ALL_SQUARES)
        .contains(&value)
        .then(|| lit::square_mask(value))
}

/// The one square of a concrete square value (`a1`..`h8`), `None` for
/// wildcards and other values.
#[inline]
pub fn concrete_square(value: i32) -> Option<usize> {
    (0..64).contains(&value).then_some(value as usize)
}

/// The files of a column value (`aline`..`hline`, `.line` = all).
#[inline]
pub fn column_files(value: i32) -> Option<u8> {
    match value.wrapping_sub(lit::COLUMN_BASE) {
        f @ 0..=7 => Some(1 << f),
        8 => Some(0xFF),
        _ => None,
    }
}

/// The files of a board-side value.
#[inline]
pub fn side_files(value: i32) -> Option<u8> {
    let i = value.checked_sub(lit::SIDE_BASE)?;
    usize::try_from(i)
        .ok()
        .and_then(|i| SIDE_FILES.get(i).copied())
}

/// The squares of a square-colour value (`lsqr`, `dsqr`, `?sqr`).
#[inline]
pub fn square_colour_set(value: i32) -> Option<u64> {
    match value.wrapping_sub(lit::SQCOLOR_BASE) {
        0 => Some(LIGHT_SQUARES),
        1 => Some(DARK_SQUARES),
        2 => Some(u64::MAX),
        _ => None,
    }
}

/// The colours a colour value stands for: bit 0 White, bit 1 Black (`?`
/// is both).
#[inline]
pub fn colours(value: i32) -> Option<u8> {
    match value {
        lit::WHITE => Some(1),
        lit::BLACK => Some(2),
        lit::ANY_COLOUR => Some(3),
        _ => None,
    }
}

/// The kinds a kind number stands for: bit `k` is kind `k` (P N B R Q K =
/// 0..5); `O` is N B R Q and `?` all six.
#[inline]
pub fn kinds(kind: i32) -> Option<u8> {
    match kind {
        0..=5 => Some(1 << kind),
        lit::OFFICER => Some(0b01_1110),
        lit::ANY_KIND => Some(0b11_1111),
        _ => None,
    }
}

/// The colours and kinds a piece value stands for, as bit sets (see
/// [`colours`] and [`kinds`]).
#[inline]
pub fn piece(value: i32) -> Option<(u8, u8)> {
    let (c, k) = lit::split_piece(value)?;
    Some((colours(c)?, kinds(k)?))
}

/// The squares holding any of the selected pieces.
#[inline]
pub fn pieces_of(board: &super::board::BoardView, colours: u8, kinds: u8) -> u64 {
    let mut set = 0;
    for (c, sets) in board.pieces.iter().enumerate() {
        if colours & (1 << c) != 0 {
            for (k, &b) in sets.iter().enumerate() {
                if kinds & (1 << k) != 0 {
                    set |= b;
                }
            }
        }
    }
    set
}

/// The from- and to-square values of a move value.
#[inline]
pub fn move_squares(value: i32) -> Option<(i32, i32)> {
    lit::split_move(value)
}

/// Applies a compoperator: `count op n`. `None` when `op` is not one.
#[inline]
pub fn compare(count: i32, op: i32, n: i32) -> Option<bool> {
    Some(match op.wrapping_sub(lit::COMPOP_BASE) {
        0 => count == n,
        1 => count != n,
        2 => count < n,
        3 => count <= n,
        4 => count > n,
        5 => count >= n,
        _ => return None,
    })
}

/// The squares from `from` to `to` inclusive when both are concrete and lie
/// on one rank, file or diagonal (a rook or bishop line); `None` otherwise,
/// including `from == to`.
pub fn line_segment(from: i32, to: i32) -> Option<u64> {
    use chess_core::attacks::{between, bishop_rays, rook_rays};
    let a = chess_core::Square::from_index_masked(concrete_square(from)? as u8);
    let b = chess_core::Square::from_index_masked(concrete_square(to)? as u8);
    let ends = chess_core::Bitboard::from_square(a) | chess_core::Bitboard::from_square(b);
    // Distinct squares on one line: each lies on the other's empty-board rays.
    ((rook_rays(a) | bishop_rays(a)) & ends)
        .any()
        .then(|| (between(a, b) | ends).0)
}

/// Iterates over the squares of a mask in ascending order (a1 first).
#[inline]
pub fn squares(mut mask: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let sq = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            sq
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(n: &str) -> i32 {
        lit::parse_square(n).unwrap()
    }

    #[test]
    fn square_colours() {
        assert_eq!(LIGHT_SQUARES & 1 << sq("a1"), 0);
        assert_ne!(LIGHT_SQUARES & 1 << sq("h1"), 0);
        assert_ne!(LIGHT_SQUARES & 1 << sq("a8"), 0);
        assert_ne!(LIGHT_SQUARES & 1 << sq("d1"), 0);
        assert_eq!(LIGHT_SQUARES & 1 << sq("d8"), 0);
    }

    #[test]
    fn sides_follow_the_document() {
        let names = |files: u8| -> String {
            (0..8)
                .filter(|f| files & 1 << f != 0)
                .map(|f| (b'a' + f) as char)
                .collect()
        };
        let got: Vec<String> = SIDE_FILES.iter().map(|&f| names(f)).collect();
        assert_eq!(got, ["efgh", "abcd", "de", "fgh", "abc"]);
        assert_eq!(side_files(lit::SIDE_BASE + 5), None);
        assert_eq!(files_mask(0x81), FILE_A | FILE_A << 7);
        // Every file set: the union of its files' squares.
        for files in 0..=255u8 {
            let union = (0..8)
                .filter(|f| files & 1 << f != 0)
                .fold(0, |acc, f| acc | FILE_A << f);
            assert_eq!(files_mask(files), union, "{files:#04x}");
        }
    }

    #[test]
    fn segments() {
        let seg = |a, b| line_segment(sq(a), sq(b));
        let set = |names: &[&str]| names.iter().fold(0u64, |acc, n| acc | 1 << sq(n));
        assert_eq!(seg("a2", "d5"), Some(set(&["a2", "b3", "c4", "d5"])));
        assert_eq!(seg("e1", "e3"), Some(set(&["e1", "e2", "e3"])));
        assert_eq!(seg("a2", "h2").map(u64::count_ones), Some(8));
        assert_eq!(
            seg("g7", "b2"),
            Some(set(&["g7", "f6", "e5", "d4", "c3", "b2"]))
        );
        assert_eq!(seg("g7", "b1"), None);
        assert_eq!(seg("e4", "e4"), None);
        assert_eq!(line_segment(sq("e."), sq("e4")), None);
    }

    #[test]
    fn compoperators() {
        let op = |s| lit::parse_compop(s).unwrap();
        assert_eq!(compare(2, op(">="), 2), Some(true));
        assert_eq!(compare(2, op(">"), 2), Some(false));
        assert_eq!(compare(0, op("="), 0), Some(true));
        assert_eq!(compare(1, op("<>"), 0), Some(true));
        assert_eq!(compare(1, lit::COMPOP_BASE + 6, 0), None);
    }
}
