//! Tapered scores: a middlegame and an endgame value carried together.
//!
//! Every evaluation term has a middlegame and an endgame weight (a rook on the seventh rank matters
//! in both, a pawn shelter only while queens are about). Summing pairs and blending once at the end
//! by the game phase costs one multiplication per position instead of one per term.

use chess_core::colour::Colour;
use chess_core::piece::PieceKind;
use chess_core::position::Position;
use std::ops::{Add, AddAssign, Mul, Neg, Sub, SubAssign};

/// A (middlegame, endgame) pair of centipawn values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct S {
    /// The value while much material is on the board.
    pub mg: i32,
    /// The value when little material is left.
    pub eg: i32,
}

/// Shorthand constructor for a tapered pair.
#[inline(always)]
pub const fn s(mg: i32, eg: i32) -> S {
    S { mg, eg }
}

impl S {
    /// Both halves zero.
    pub const ZERO: S = s(0, 0);

    /// Scales both halves by `percent` / 100 (style weights are percentages).
    #[inline(always)]
    pub const fn percent(self, percent: i32) -> S {
        s(self.mg * percent / 100, self.eg * percent / 100)
    }

    /// Blends the two halves for `phase` (0 = bare endgame ... [`MAX_PHASE`] = full middlegame).
    #[inline(always)]
    pub const fn taper(self, phase: i32) -> i32 {
        (self.mg * phase + self.eg * (MAX_PHASE - phase)) / MAX_PHASE
    }
}

impl Add for S {
    type Output = S;
    #[inline(always)]
    fn add(self, o: S) -> S {
        s(self.mg + o.mg, self.eg + o.eg)
    }
}

impl AddAssign for S {
    #[inline(always)]
    fn add_assign(&mut self, o: S) {
        self.mg += o.mg;
        self.eg += o.eg;
    }
}

impl Sub for S {
    type Output = S;
    #[inline(always)]
    fn sub(self, o: S) -> S {
        s(self.mg - o.mg, self.eg - o.eg)
    }
}

impl SubAssign for S {
    #[inline(always)]
    fn sub_assign(&mut self, o: S) {
        self.mg -= o.mg;
        self.eg -= o.eg;
    }
}

impl Neg for S {
    type Output = S;
    #[inline(always)]
    fn neg(self) -> S {
        s(-self.mg, -self.eg)
    }
}

impl Mul<i32> for S {
    type Output = S;
    #[inline(always)]
    fn mul(self, k: i32) -> S {
        s(self.mg * k, self.eg * k)
    }
}

/// The phase of a position with all minor and major pieces still on the board.
pub const MAX_PHASE: i32 = 24;

/// Phase weight of each kind: minor pieces 1, rooks 2, queens 4 (pawns and kings 0).
const PHASE_WEIGHT: [i32; 6] = [0, 1, 1, 2, 4, 0];

/// The game phase from the officers on the board, clamped to [`MAX_PHASE`] (promotions could push
/// it beyond).
pub fn phase(pos: &Position) -> i32 {
    let mut p = 0;
    for kind in [
        PieceKind::Knight,
        PieceKind::Bishop,
        PieceKind::Rook,
        PieceKind::Queen,
    ] {
        p += PHASE_WEIGHT[kind.index()] * pos.by_kind(kind).count() as i32;
    }
    p.min(MAX_PHASE)
}

/// +1 for White, -1 for Black: turns a White-relative score into the given side's.
#[inline(always)]
pub const fn sign(colour: Colour) -> i32 {
    match colour {
        Colour::White => 1,
        Colour::Black => -1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn taper_blends_linearly() {
        let v = s(100, 300);
        assert_eq!(v.taper(MAX_PHASE), 100);
        assert_eq!(v.taper(0), 300);
        assert_eq!(v.taper(MAX_PHASE / 2), 200);
        assert_eq!(phase(&Position::startpos()), MAX_PHASE);
        assert_eq!(v.percent(50), s(50, 150));
    }
}
