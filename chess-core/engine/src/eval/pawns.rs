//! Pawn structure: doubled, isolated, connected and passed pawns, with a cache.
//!
//! The pawn skeleton changes far less often than the rest of the position (most moves in a search
//! are piece moves), so its score is computed once per skeleton and kept in a small table indexed
//! by a mix of the two pawn bitboards. Entries store both bitboards, so a hit is always exact.
//! The cached score is unweighted; the style's `ST_PAWNEVAL` percentage is applied by the caller.

use super::score::{s, S};
use chess_core::attacks::pawn_attacks;
use chess_core::bitboard::Bitboard;
use chess_core::colour::Colour;
use chess_core::piece::PieceKind;
use chess_core::position::Position;
use chess_core::square::Square;

/// A doubled pawn (each pawn beyond the first on a file).
const DOUBLED: S = s(-10, -20);
/// A pawn with no pawn of its side on a neighbouring file.
const ISOLATED: S = s(-10, -15);
/// A pawn defended by a pawn or standing beside one.
const CONNECTED: S = s(8, 6);
/// A passed pawn, by relative rank (index 1 = second rank ... 6 = seventh rank).
const PASSED: [S; 8] = [
    s(0, 0),
    s(5, 10),
    s(5, 15),
    s(10, 25),
    s(20, 45),
    s(35, 75),
    s(60, 120),
    s(0, 0),
];

const FILE_A: u64 = 0x0101_0101_0101_0101;

/// The squares of the files next to `file` (0..8).
#[inline(always)]
pub(crate) fn adjacent_files(file: usize) -> u64 {
    let f = FILE_A << file;
    ((f << 1) & !FILE_A) | ((f >> 1) & !(FILE_A << 7))
}

/// Squares in front of `sq` (from `colour`'s point of view) on its own and the adjacent files.
#[inline(always)]
fn front_span(colour: Colour, sq: Square) -> u64 {
    let file = sq.index() % 8;
    let files = (FILE_A << file) | adjacent_files(file);
    let rank = sq.index() / 8;
    let ahead = match colour {
        Colour::White => {
            if rank >= 7 {
                0
            } else {
                !0u64 << (8 * (rank + 1))
            }
        }
        Colour::Black => {
            if rank == 0 {
                0
            } else {
                !0u64 >> (8 * (8 - rank))
            }
        }
    };
    files & ahead
}

/// One skeleton's analysis.
#[derive(Clone, Copy, Debug, Default)]
pub struct PawnInfo {
    white: u64,
    black: u64,
    /// White-relative structure score, before the style weight.
    pub score: S,
    /// Passed pawns of each side.
    pub passed: [Bitboard; 2],
}

/// Analyses the skeleton of one side; returns its score (from that side's view) and passed pawns.
fn side(colour: Colour, ours: u64, theirs: u64) -> (S, u64) {
    let mut score = S::ZERO;
    let mut passed = 0;
    for file in 0..8 {
        let n = (ours & (FILE_A << file)).count_ones() as i32;
        if n > 1 {
            score += DOUBLED * (n - 1);
        }
    }
    for sq in Bitboard(ours) {
        let file = sq.index() % 8;
        if ours & adjacent_files(file) == 0 {
            score += ISOLATED;
        }
        let defenders = pawn_attacks(!colour, sq).0 & ours;
        let rank_mask = 0xFFu64 << (8 * (sq.index() / 8));
        let beside = ours & rank_mask & adjacent_files(file);
        if defenders != 0 || beside != 0 {
            score += CONNECTED;
        }
        // Passed: no enemy pawn ahead on this or an adjacent file, and not behind an own pawn.
        let own_file_ahead = front_span(colour, sq) & (FILE_A << file);
        if front_span(colour, sq) & theirs == 0 && own_file_ahead & ours == 0 {
            passed |= 1u64 << sq.index();
            let rel_rank = match colour {
                Colour::White => sq.index() / 8,
                Colour::Black => 7 - sq.index() / 8,
            };
            score += PASSED[rel_rank];
        }
    }
    (score, passed)
}

/// Analyses a skeleton from scratch.
pub fn analyse(white: u64, black: u64) -> PawnInfo {
    let (ws, wp) = side(Colour::White, white, black);
    let (bs, bp) = side(Colour::Black, black, white);
    PawnInfo {
        white,
        black,
        score: ws - bs,
        passed: [Bitboard(wp), Bitboard(bp)],
    }
}

/// Number of cached skeletons (a power of two).
const CACHE_SIZE: usize = 1 << 14;

/// A direct-mapped cache of pawn skeleton analyses.
pub struct PawnCache {
    entries: Vec<PawnInfo>,
}

impl Default for PawnCache {
    fn default() -> Self {
        PawnCache::new()
    }
}

impl PawnCache {
    /// An empty cache (allocated once; lookups never allocate).
    pub fn new() -> PawnCache {
        // An all-zero entry describes the empty skeleton correctly, so it is a valid "hit".
        PawnCache {
            entries: vec![analyse(0, 0); CACHE_SIZE],
        }
    }

    /// The analysis of `pos`'s pawns.
    #[inline]
    pub fn probe(&mut self, pos: &Position) -> PawnInfo {
        let white = pos.pieces(Colour::White, PieceKind::Pawn).0;
        let black = pos.pieces(Colour::Black, PieceKind::Pawn).0;
        let mixed = (white.wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ black.rotate_left(29).wrapping_mul(0xC2B2_AE3D_27D4_EB4F))
            >> 32;
        let index = mixed as usize & (CACHE_SIZE - 1);
        let Some(entry) = self.entries.get_mut(index) else {
            return analyse(white, black);
        };
        if entry.white != white || entry.black != black {
            *entry = analyse(white, black);
        }
        *entry
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(fen: &str) -> PawnInfo {
        let pos = Position::from_fen(fen).unwrap();
        analyse(
            pos.pieces(Colour::White, PieceKind::Pawn).0,
            pos.pieces(Colour::Black, PieceKind::Pawn).0,
        )
    }

    #[test]
    fn hand_checked_skeletons() {
        // White: a2 (isolated, passed), c4 c5 (doubled, connected? no: same file), e4;
        // Black: e5 blocks e4, d6.
        let i = info("4k3/8/3p4/2P1p3/2P1P3/8/P7/4K3 w - - 0 1");
        assert_eq!(i.passed[0], Bitboard::from_square(Square::A2));
        // c5 is blocked by nothing ahead on b/c/d? d6 is on an adjacent file ahead: not passed.
        assert!(!i.passed[0].contains(Square::C5));
        assert!(i.passed[1].is_empty());
        // Symmetric skeletons score zero.
        assert_eq!(
            info("4k3/pppppppp/8/8/8/8/PPPPPPPP/4K3 w - - 0 1").score,
            S::ZERO
        );
        // A lone passed pawn on the seventh is worth a lot more than on the second.
        let far = info("4k3/P7/8/8/8/8/8/4K3 w - - 0 1").score;
        let near = info("4k3/8/8/8/8/8/P7/4K3 w - - 0 1").score;
        assert!(far.eg > near.eg + 80);
        assert_eq!(adjacent_files(0), FILE_A << 1);
        assert_eq!(adjacent_files(7), FILE_A << 6);
    }

    #[test]
    fn cache_agrees_with_analysis() {
        let mut cache = PawnCache::new();
        let pos = Position::from_fen("4k3/pp3ppp/8/2pP4/8/8/PP3PPP/4K3 w - - 0 1").unwrap();
        let a = cache.probe(&pos);
        let b = cache.probe(&pos);
        let direct = analyse(
            pos.pieces(Colour::White, PieceKind::Pawn).0,
            pos.pieces(Colour::Black, PieceKind::Pawn).0,
        );
        assert_eq!((a.score, a.passed), (direct.score, direct.passed));
        assert_eq!((b.score, b.passed), (direct.score, direct.passed));
        assert!(direct.passed[0].contains(Square::D5));
    }
}
