//! Advice move bonuses as the search sees them: by side, origin and destination, halved every two
//! plies down the line.
//!
//! Nimzo gave a `SetMvs`/`SetPMvs` bonus not only to the root move but to the same move anywhere
//! in the variation, dividing it by two every two plies (section IV.5.a of the Che++ document).
//! The table is copied out of the advice table once per root position; the search adds the decayed
//! bonus to the score of the line (on the edge from parent to child, so the transposition table
//! keeps subtree values) and to the move's ordering score.

use chess_core::chess_move::Move;
use chess_core::colour::Colour;

/// The root's move bonuses.
pub struct MoveBonuses {
    table: Box<[[[i32; 64]; 64]; 2]>,
    active: bool,
}

impl Default for MoveBonuses {
    fn default() -> Self {
        MoveBonuses::new()
    }
}

impl MoveBonuses {
    /// No bonuses.
    pub fn new() -> MoveBonuses {
        MoveBonuses {
            table: Box::new([[[0; 64]; 64]; 2]),
            active: false,
        }
    }

    /// Replaces the bonuses with `table` (an advice table's `move_bonus`), without allocating.
    pub fn load(&mut self, table: &[[[i32; 64]; 64]; 2]) {
        *self.table = *table;
        self.active = table.iter().flatten().flatten().any(|&v| v != 0);
    }

    /// Removes every bonus.
    pub fn clear(&mut self) {
        if self.active {
            *self.table = [[[0; 64]; 64]; 2];
            self.active = false;
        }
    }

    /// True if any bonus is set.
    #[inline(always)]
    pub fn is_active(&self) -> bool {
        self.active
    }

    /// The undecayed bonus of `colour` playing `mv`.
    #[inline(always)]
    pub fn raw(&self, colour: Colour, mv: Move) -> i32 {
        self.table[colour.index()][mv.from().index()][mv.to().index()]
    }

    /// The bonus of `colour` playing `mv` at `ply` (0 = the root move): halved, rounding towards
    /// zero, once for every two plies.
    #[inline(always)]
    pub fn at(&self, colour: Colour, mv: Move, ply: usize) -> i32 {
        if !self.active {
            return 0;
        }
        decay(self.raw(colour, mv), ply)
    }
}

/// `bonus` halved once per two plies (rounding towards zero, so small bonuses die out).
#[inline(always)]
pub fn decay(bonus: i32, ply: usize) -> i32 {
    let halvings = (ply / 2).min(31) as u32;
    bonus / (1i32 << halvings.min(30)) * i32::from(halvings <= 30)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chess_core::square::Square;

    #[test]
    fn halved_every_two_plies() {
        assert_eq!(decay(20, 0), 20);
        assert_eq!(decay(20, 1), 20);
        assert_eq!(decay(20, 2), 10);
        assert_eq!(decay(20, 3), 10);
        assert_eq!(decay(20, 4), 5);
        assert_eq!(decay(-20, 6), -2);
        assert_eq!(decay(-1, 2), 0);
        assert_eq!(decay(i32::MAX, 200), 0);
        let mut b = MoveBonuses::new();
        assert!(!b.is_active());
        let mut t = Box::new([[[0; 64]; 64]; 2]);
        t[0][Square::E2.index()][Square::E4.index()] = 40;
        b.load(&t);
        let e4 = Move::normal(Square::E2, Square::E4);
        assert_eq!(b.at(Colour::White, e4, 0), 40);
        assert_eq!(b.at(Colour::White, e4, 5), 10);
        assert_eq!(b.at(Colour::Black, e4, 0), 0);
        b.clear();
        assert_eq!(b.at(Colour::White, e4, 0), 0);
    }
}
