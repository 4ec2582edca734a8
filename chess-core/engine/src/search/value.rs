//! Search scores: centipawns, with mates encoded near the ends of the range.
//!
//! A mate found `n` plies from the root scores `MATE - n` (being mated, `-MATE + n`), so shorter
//! mates score higher and the distance can be read back for UCI's `score mate N`. The transposition
//! table stores mate scores relative to the node instead of the root, because the same position can
//! be reached at different plies; [`to_tt`] and [`from_tt`] convert.

/// The deepest ply the search reaches (extensions included).
pub const MAX_PLY: usize = 128;
/// The score of delivering mate at the root.
pub const MATE: i32 = 32_000;
/// Scores at or beyond this magnitude are mates.
pub const MATE_BOUND: i32 = MATE - MAX_PLY as i32;
/// Beyond every score.
pub const INFINITE: i32 = MATE + 1;
/// A draw.
pub const DRAW: i32 = 0;

/// The score of being mated at `ply`.
#[inline(always)]
pub const fn mated_in(ply: usize) -> i32 {
    -MATE + ply as i32
}

/// True for mate scores (either side).
#[inline(always)]
pub const fn is_mate(score: i32) -> bool {
    score >= MATE_BOUND || score <= -MATE_BOUND
}

/// Converts a root-relative score at `ply` for the transposition table.
#[inline(always)]
pub const fn to_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score + ply as i32
    } else if score <= -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

/// Converts a stored score back to a root-relative score at `ply`.
#[inline(always)]
pub const fn from_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score - ply as i32
    } else if score <= -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}

/// Moves to mate (positive: we mate; negative: we are mated), for a mate score.
pub const fn mate_moves(score: i32) -> i32 {
    if score > 0 {
        (MATE - score + 1) / 2
    } else {
        -(MATE + score) / 2
    }
}

/// Adds an advice bonus to a score without disturbing mate scores (which keep their exact
/// distance) and without letting a bonus turn an ordinary score into a mate.
#[inline(always)]
pub fn with_bonus(score: i32, bonus: i32) -> i32 {
    if bonus == 0 || is_mate(score) || score.abs() >= INFINITE {
        score
    } else {
        score
            .saturating_add(bonus)
            .clamp(-MATE_BOUND + 1, MATE_BOUND - 1)
    }
}

/// The bound a child must be searched against so that the parent, adding `bonus` to its score,
/// compares it with `bound`: the inverse of [`with_bonus`] away from the mate ranges.
#[inline(always)]
pub fn without_bonus(bound: i32, bonus: i32) -> i32 {
    if bonus == 0 || is_mate(bound) || bound.abs() >= INFINITE {
        bound
    } else {
        bound.saturating_sub(bonus)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mate_bookkeeping() {
        assert_eq!(mate_moves(MATE - 1), 1);
        assert_eq!(mate_moves(MATE - 3), 2);
        assert_eq!(mate_moves(mated_in(2)), -1);
        assert_eq!(mate_moves(mated_in(4)), -2);
        assert_eq!(from_tt(to_tt(MATE - 7, 3), 3), MATE - 7);
        assert_eq!(from_tt(to_tt(mated_in(9), 5), 5), mated_in(9));
        assert_eq!(to_tt(42, 10), 42);
        assert_eq!(with_bonus(MATE - 3, 50), MATE - 3);
        assert_eq!(with_bonus(100, 20), 120);
        assert_eq!(with_bonus(MATE_BOUND - 5, 100), MATE_BOUND - 1);
        assert_eq!(without_bonus(100, 20), 80);
        // Extreme advice bonuses saturate instead of overflowing.
        assert_eq!(with_bonus(100, i32::MAX), MATE_BOUND - 1);
        assert_eq!(with_bonus(-100, i32::MIN), -MATE_BOUND + 1);
        assert_eq!(without_bonus(-100, i32::MAX), i32::MIN);
    }
}
