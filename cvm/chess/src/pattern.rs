//! The pattern functions of Che++ (section IV.2) as pure functions on the
//! board view.
//!
//! Most patterns are a set of squares where a condition holds (the squares
//! of a piece, of doubled or passed pawns, the squares a piece controls, the
//! squares a side has exchange control over) tested against the squares a
//! list element stands for: an element is satisfied when the condition
//! holds on at least one square of its set (so a concrete square asks about
//! that square and a wildcard `e.` asks "somewhere on the e-file"). The
//! and form needs every element, the or form one, the `Get` form lists the
//! squares of the set.
//!
//! The functions here take raw CVM values (piece, colour and compoperator
//! encodings of [`crate::lit`]) and already-folded square masks, so
//! the intrinsic table, the optimizer and JIT code can all call them: a
//! list of concrete squares folds into one mask tested with [`Mode::All`];
//! each wildcard element of an and-list is one more [`Mode::Any`] test; an
//! or-list of any squares folds into one [`Mode::Any`] mask (see
//! [`ListFold`]). Values out of range give `false` (or the empty set),
//! never a panic.

use super::attacks;
use super::board::{kind, BoardView, BLACK, WHITE};
use super::exchange;
use super::sets::{self, FILE_A};

/// How a folded mask is tested against a pattern's square set.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[repr(i32)]
pub enum Mode {
    /// Every square of the mask must satisfy the condition (true for the
    /// empty mask): an and-list of concrete squares.
    All = 0,
    /// Some square of the mask must satisfy it (false for the empty mask):
    /// an or-list, or one wildcard element.
    Any = 1,
}

/// Tests a pattern's square set against a folded mask.
#[inline]
pub fn test(set: u64, mask: u64, mode: Mode) -> bool {
    match mode {
        Mode::All => set & mask == mask,
        Mode::Any => set & mask != 0,
    }
}

/// A constant square list folded into masks, as the optimizer or the JIT
/// may precompute it: the and form is true iff `set & all == all` and
/// `set & m != 0` for every `m` in `any`; the or form is true iff
/// `set & union != 0`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ListFold {
    /// The concrete squares of the list.
    pub all: u64,
    /// One mask per wildcard element (in list order, duplicates kept).
    pub any: Vec<u64>,
    /// Every square any element stands for.
    pub union: u64,
}

impl ListFold {
    /// Folds the elements of a square list; `None` when an element is not a
    /// square value (the pattern is then false in both forms).
    pub fn squares(elements: &[i32]) -> Option<ListFold> {
        let mut fold = ListFold::default();
        for &e in elements {
            let m = sets::square_set(e)?;
            if sets::concrete_square(e).is_some() {
                fold.all |= m;
            } else {
                fold.any.push(m);
            }
            fold.union |= m;
        }
        Some(fold)
    }

    /// The and form against a pattern's square set.
    pub fn test_all(&self, set: u64) -> bool {
        test(set, self.all, Mode::All) && self.any.iter().all(|&m| test(set, m, Mode::Any))
    }

    /// The or form against a pattern's square set.
    pub fn test_any(&self, set: u64) -> bool {
        test(set, self.union, Mode::Any)
    }
}

// ---------------------------------------------------------------------------
// The square sets of the patterns.

/// `PcOnSqrs`: the squares holding `piece` (wildcards allowed); empty for
/// an invalid piece value.
#[inline]
pub fn piece_set(board: &BoardView, piece: i32) -> u64 {
    match sets::piece(piece) {
        Some((c, k)) => sets::pieces_of(board, c, k),
        None => 0,
    }
}

/// The pawns of one colour (0 or 1) that share their file with another pawn
/// of that colour.
pub fn doubled_pawns_of(board: &BoardView, colour: usize) -> u64 {
    let pawns = board.pieces[colour & 1][kind::PAWN];
    (0..8)
        .map(|f| pawns & (FILE_A << f))
        .filter(|p| p.count_ones() >= 2)
        .fold(0, |acc, p| acc | p)
}

/// `DblPwns`: the squares of doubled pawns of `colour`; `?` is the union of
/// both colours ("a white or a black doubled pawn"). Empty for an invalid
/// colour.
pub fn doubled_pawns(board: &BoardView, colour: i32) -> u64 {
    let cs = sets::colours(colour).unwrap_or(0);
    (0..2)
        .filter(|c| cs & (1 << c) != 0)
        .fold(0, |acc, c| acc | doubled_pawns_of(board, c))
}

const fn passed_table() -> [[u64; 64]; 2] {
    let mut t = [[0u64; 64]; 2];
    let mut sq = 0;
    while sq < 64 {
        let (f, r) = (sq % 8, sq / 8);
        let mut other = 0;
        while other < 64 {
            let (of, or) = (other % 8, other / 8);
            if of + 1 >= f && of <= f + 1 {
                if or > r {
                    t[0][sq] |= 1u64 << other;
                }
                if or < r {
                    t[1][sq] |= 1u64 << other;
                }
            }
            other += 1;
        }
        sq += 1;
    }
    t
}

/// `[colour][square]`: the squares in front of a pawn, on its own and the
/// adjacent files, where an enemy pawn stops it from being passed.
pub const PASSED_SPAN: [[u64; 64]; 2] = passed_table();

/// The passed pawns of one colour (0 or 1): pawns with no enemy pawn in
/// front of them on their own or an adjacent file (a pawn on `sq` is passed
/// when `PASSED_SPAN[colour][sq]` holds no enemy pawn). Computed for all
/// pawns at once: a pawn is stopped exactly when it stands in the rear span
/// of an enemy pawn (the squares behind it, seen from the enemy's side)
/// widened by a file each way.
pub fn passed_pawns_of(board: &BoardView, colour: usize) -> u64 {
    let c = colour & 1;
    let own = board.pieces[c][kind::PAWN];
    let enemy = board.pieces[c ^ 1][kind::PAWN];
    // White pawns are stopped by black pawns ahead, whose rear spans run
    // south; black ones by white pawns, spans running north.
    let span = if c == WHITE {
        let s = enemy >> 8;
        let s = s | (s >> 8);
        let s = s | (s >> 16);
        s | (s >> 32)
    } else {
        let s = enemy << 8;
        let s = s | (s << 8);
        let s = s | (s << 16);
        s | (s << 32)
    };
    let wide = span | ((span >> 1) & !(FILE_A << 7)) | ((span << 1) & !FILE_A);
    own & !wide
}

/// `Passed`: the squares of passed pawns of `colour`; `?` is the union of
/// both colours. Empty for an invalid colour.
pub fn passed_pawns(board: &BoardView, colour: i32) -> u64 {
    let cs = sets::colours(colour).unwrap_or(0);
    (0..2)
        .filter(|c| cs & (1 << c) != 0)
        .fold(0, |acc, c| acc | passed_pawns_of(board, c))
}

/// `Control`: the squares the selected pieces reach with a capture in one
/// pseudo-legal move: pawns their two diagonal squares forward, every other
/// piece its attack set, sliders stopping at the first occupied square.
/// Pins and the side to move are ignored; a square occupied by a friendly
/// piece counts (the piece defends it); a piece never controls its own
/// square, though another piece of the selection may. Empty for an invalid
/// piece value.
pub fn control(board: &BoardView, piece: i32) -> u64 {
    let Some((cs, ks)) = sets::piece(piece) else {
        return 0;
    };
    // Knights, the commonest question, all at once by shifts.
    if ks == 1 << kind::KNIGHT {
        let knights = sets::pieces_of(board, cs, ks);
        return attacks::knights(knights);
    }
    // Only the sliders' attacks depend on the other pieces.
    let sliders = 1 << kind::BISHOP | 1 << kind::ROOK | 1 << kind::QUEEN;
    let occupied = if ks & sliders != 0 {
        board.occupied()
    } else {
        0
    };
    let mut set = 0;
    for c in [WHITE, BLACK] {
        if cs & (1 << c) == 0 {
            continue;
        }
        for k in 0..6 {
            if ks & (1 << k) != 0 {
                set |= attacks::of_set(c, k, board.pieces[c][k], occupied);
            }
        }
    }
    set
}

/// `ExchngCtrl`: the squares over which `colour` has exchange control (see
/// [`exchange::has_control`]); for `?` the squares over which both sides
/// have it. Empty for an invalid colour.
pub fn exchange_control(board: &BoardView, colour: i32) -> u64 {
    exchange_control_within(board, colour, u64::MAX)
}

/// [`exchange_control`] restricted to the squares of `within` (the same
/// answer there, zero elsewhere, less work for small masks).
pub fn exchange_control_within(board: &BoardView, colour: i32, within: u64) -> u64 {
    match sets::colours(colour) {
        Some(1) => exchange::control_set_within(board, WHITE, within),
        Some(2) => exchange::control_set_within(board, BLACK, within),
        Some(_) => {
            let white = exchange::control_set_within(board, WHITE, within);
            white & exchange::control_set_within(board, BLACK, white)
        }
        None => 0,
    }
}

/// The number of pawns of the given colours (bit set, see
/// [`sets::colours`]) on each file.
pub fn pawns_per_file(board: &BoardView, colours: u8) -> [u32; 8] {
    let pawns = sets::pieces_of(board, colours, 1 << kind::PAWN);
    std::array::from_fn(|f| (pawns & (FILE_A << f)).count_ones())
}

/// `POnLine`: the files (bit `f` = file `f`) where the number of pawns of
/// `colour` compares to `n` by `op`; `?` counts the pawns of both colours
/// together. Zero for an invalid colour or compoperator.
pub fn pawn_files(board: &BoardView, colour: i32, op: i32, n: i32) -> u8 {
    let Some(cs) = sets::colours(colour) else {
        return 0;
    };
    let counts = pawns_per_file(board, cs);
    (0..8)
        .filter(|&f| sets::compare(counts[f] as i32, op, n) == Some(true))
        .fold(0, |acc, f| acc | 1 << f)
}

// ---------------------------------------------------------------------------
// Mask forms: one call per folded mask.

/// `PcOnSqrs` on a folded mask.
#[inline]
pub fn pc_on_sqrs_mask(board: &BoardView, piece: i32, mask: u64, mode: Mode) -> bool {
    sets::piece(piece).is_some() && test(piece_set(board, piece), mask, mode)
}

/// `CmpNrPcs` for one list element: the number of pieces `piece` on the
/// squares of `mask` compared to `n` by `op`. An and-list needs every
/// element (there is no or or `Get` form).
#[inline]
pub fn cmp_nr_pcs_mask(board: &BoardView, piece: i32, op: i32, n: i32, mask: u64) -> bool {
    sets::piece(piece).is_some()
        && sets::compare((piece_set(board, piece) & mask).count_ones() as i32, op, n) == Some(true)
}

/// `DblPwns` on a folded mask.
#[inline]
pub fn dbl_pwns_mask(board: &BoardView, colour: i32, mask: u64, mode: Mode) -> bool {
    sets::colours(colour).is_some() && test(doubled_pawns(board, colour), mask, mode)
}

/// `Passed` on a folded mask.
#[inline]
pub fn passed_mask(board: &BoardView, colour: i32, mask: u64, mode: Mode) -> bool {
    sets::colours(colour).is_some() && test(passed_pawns(board, colour), mask, mode)
}

/// `Control` on a folded mask.
#[inline]
pub fn control_mask(board: &BoardView, piece: i32, mask: u64, mode: Mode) -> bool {
    sets::piece(piece).is_some() && test(control(board, piece), mask, mode)
}

/// `ExchngCtrl` on a folded mask.
#[inline]
pub fn exchng_ctrl_mask(board: &BoardView, colour: i32, mask: u64, mode: Mode) -> bool {
    sets::colours(colour).is_some()
        && test(exchange_control_within(board, colour, mask), mask, mode)
}

/// `POnLine` on a folded file mask (bit `f` = file `f`; an and-list of
/// concrete columns folds into one [`Mode::All`] mask, `.line` is a
/// [`Mode::Any`] test of all files).
#[inline]
pub fn p_on_line_mask(
    board: &BoardView,
    colour: i32,
    op: i32,
    n: i32,
    files: u8,
    mode: Mode,
) -> bool {
    sets::colours(colour).is_some()
        && sets::compare(0, op, n).is_some()
        && test(
            u64::from(pawn_files(board, colour, op, n)),
            u64::from(files),
            mode,
        )
}

/// `KingPos` for one board-side element given as a square mask: every king
/// of the colour stands inside `mask` (both kings for `?`, which is why an
/// or-list with `?` cannot be folded into one mask). A colour without a
/// king on the board fails.
#[inline]
pub fn king_pos_mask(board: &BoardView, colour: i32, mask: u64) -> bool {
    let Some(cs) = sets::colours(colour) else {
        return false;
    };
    (0..2).filter(|c| cs & (1 << c) != 0).all(|c| {
        let kings = board.pieces[c][kind::KING];
        kings != 0 && kings & !mask == 0
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lit;

    fn sq(n: &str) -> usize {
        lit::parse_square(n).unwrap() as usize
    }

    /// The set form of `passed_pawns_of` against the per-pawn definition
    /// by `PASSED_SPAN`, on pawn sets drawn from a fixed generator.
    #[test]
    fn passed_pawns_match_the_span_table() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..20_000 {
            let mut board = BoardView::EMPTY;
            // Pawns on ranks 2 to 7, sparse and dense sets alike.
            let ranks = 0x00FF_FFFF_FFFF_FF00u64;
            let (a, b, c) = (next(), next(), next());
            board.pieces[WHITE][kind::PAWN] = a & b & ranks;
            board.pieces[BLACK][kind::PAWN] = a & c & ranks & !(a & b);
            for colour in [WHITE, BLACK] {
                let own = board.pieces[colour][kind::PAWN];
                let enemy = board.pieces[colour ^ 1][kind::PAWN];
                let expect = sets::squares(own)
                    .filter(|&sq| PASSED_SPAN[colour][sq] & enemy == 0)
                    .fold(0, |acc, sq| acc | 1u64 << sq);
                assert_eq!(passed_pawns_of(&board, colour), expect, "{board:?}");
            }
        }
    }

    #[test]
    fn passed_span() {
        let expect = [
            "c5", "d5", "e5", "c6", "d6", "e6", "c7", "d7", "e7", "c8", "d8", "e8",
        ]
        .iter()
        .fold(0u64, |acc, n| acc | 1 << sq(n));
        assert_eq!(PASSED_SPAN[0][sq("d4")], expect);
        assert_eq!(PASSED_SPAN[1][sq("a2")], (1 << sq("a1")) | (1 << sq("b1")));
    }

    #[test]
    fn folds() {
        let e = |n: &str| lit::parse_square(n).unwrap();
        let f = ListFold::squares(&[e("e4"), e("d."), e("d5")]).unwrap();
        assert_eq!(f.all, (1 << sq("e4")) | (1 << sq("d5")));
        assert_eq!(f.any, vec![FILE_A << 3]);
        assert!(ListFold::squares(&[e("e4"), 81]).is_none());
        let empty = ListFold::squares(&[]).unwrap();
        assert!(empty.test_all(0));
        assert!(!empty.test_any(u64::MAX));
    }
}
