//! The advice table: what a Che++ program tells the engine.
//!
//! Advice functions (`SetSqrs`, `SetMvs`, `KeepPcs`, `CtrlSqrs`, `SetStyle`,
//! ...; see [`crate::advice`]) write here; the engine reads the table
//! before its search. The layout is `#[repr(C)]` and fixed-size so that JIT
//! code can write it through a pointer and an embedder can read it without
//! conversion. A new interpreter starts with an empty table; advice then
//! accumulates until the embedder resets it (`Interpreter::reset`, which
//! calls [`AdviceTable::clear`]), as an engine does before running the
//! program on the next root position.
//!
//! All entries are in centipawns and accumulate: two advice calls naming the
//! same entry add up. Additions saturate at the `i32` range instead of
//! wrapping, so a runaway bonus stays a very large bonus of the right sign.

pub use super::style::STYLE_COUNT;

/// Advice accumulated by one run of a Che++ program.
///
/// Indices: colour White = 0, Black = 1; kind Pawn = 0, Knight = 1,
/// Bishop = 2, Rook = 3, Queen = 4, King = 5; squares a1 = 0 .. h8 = 63.
#[derive(Clone, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct AdviceTable {
    /// Square bonuses, `[colour][kind][square]`: the piece (and so its side)
    /// gets the bonus when it stands on the square at the end of a line the
    /// engine evaluates (`SetSqrs`, `KeepBs`, `SetDiags`, `ForcePwns`,
    /// `Attack`, `MinAttack`).
    pub square_bonus: [[[i32; 64]; 6]; 2],
    /// Move bonuses, `[colour][from][to]`: the side gets the bonus when it
    /// plays a move from `from` to `to`, whatever piece moves (`SetMvs`,
    /// `SetPMvs`).
    pub move_bonus: [[[i32; 64]; 64]; 2],
    /// Piece value changes, `[colour][kind]` (`KeepPcs`, `ChngPcsVal`).
    pub piece_value: [[i32; 6]; 2],
    /// Control bonuses, `[colour][kind][square]`: extra mobility weight of
    /// the square for the piece (`CtrlSqrs`). The queen's row stays zero: a
    /// queen counts as rook plus bishop, so the engine adds the rook and
    /// bishop entries for a queen.
    pub control_bonus: [[[i32; 64]; 6]; 2],
    /// Style overrides: `style[id]` is meaningful when bit `id` of
    /// `style_set` is set (ids in [`crate::style`]).
    pub style: [i32; STYLE_COUNT],
    /// Bit set of overridden style parameters.
    pub style_set: u32,
    /// 1 when `SetStyle(ST_DEFAULTVALUES, ...)` asked the engine to start
    /// from its standard parameters instead of the user's settings.
    pub style_defaults: i32,
    /// The verbose flag (`SetVerbose`): 1 on, 0 off.
    pub verbose: i32,
}

impl Default for AdviceTable {
    fn default() -> Self {
        AdviceTable {
            square_bonus: [[[0; 64]; 6]; 2],
            move_bonus: [[[0; 64]; 64]; 2],
            piece_value: [[0; 6]; 2],
            control_bonus: [[[0; 64]; 6]; 2],
            style: [0; STYLE_COUNT],
            style_set: 0,
            style_defaults: 0,
            verbose: 0,
        }
    }
}

impl AdviceTable {
    /// Resets every entry to "no advice".
    pub fn clear(&mut self) {
        *self = AdviceTable::default();
    }

    /// True when the table holds no advice at all.
    pub fn is_empty(&self) -> bool {
        *self == AdviceTable::default()
    }

    /// Adds a square bonus (colour 0..1, kind 0..5, square 0..63; anything
    /// else is ignored).
    #[inline]
    pub fn add_square(&mut self, colour: usize, kind: usize, square: usize, bonus: i32) {
        if let Some(v) = self
            .square_bonus
            .get_mut(colour)
            .and_then(|t| t.get_mut(kind))
            .and_then(|t| t.get_mut(square))
        {
            *v = v.saturating_add(bonus);
        }
    }

    /// Adds a move bonus (colour 0..1, squares 0..63; anything else is
    /// ignored).
    #[inline]
    pub fn add_move(&mut self, colour: usize, from: usize, to: usize, bonus: i32) {
        if let Some(v) = self
            .move_bonus
            .get_mut(colour)
            .and_then(|t| t.get_mut(from))
            .and_then(|t| t.get_mut(to))
        {
            *v = v.saturating_add(bonus);
        }
    }

    /// Adds a piece value change (colour 0..1, kind 0..5).
    #[inline]
    pub fn add_piece_value(&mut self, colour: usize, kind: usize, bonus: i32) {
        if let Some(v) = self
            .piece_value
            .get_mut(colour)
            .and_then(|t| t.get_mut(kind))
        {
            *v = v.saturating_add(bonus);
        }
    }

    /// Adds a control bonus (colour 0..1, kind 0..5, square 0..63).
    #[inline]
    pub fn add_control(&mut self, colour: usize, kind: usize, square: usize, bonus: i32) {
        if let Some(v) = self
            .control_bonus
            .get_mut(colour)
            .and_then(|t| t.get_mut(kind))
            .and_then(|t| t.get_mut(square))
        {
            *v = v.saturating_add(bonus);
        }
    }

    /// The override of style parameter `id`, if the program set one.
    pub fn style_override(&self, id: usize) -> Option<i32> {
        (id < STYLE_COUNT && self.style_set & (1 << id) != 0).then(|| self.style[id])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds_saturate_and_ignore_bad_indices() {
        let mut t = AdviceTable::default();
        t.add_square(0, 3, 10, i32::MAX);
        t.add_square(0, 3, 10, 5);
        assert_eq!(t.square_bonus[0][3][10], i32::MAX);
        t.add_square(2, 0, 0, 1);
        t.add_move(0, 64, 0, 1);
        t.add_piece_value(1, 6, 1);
        t.add_control(0, 0, 99, 1);
        t.square_bonus[0][3][10] = 0;
        assert!(t.is_empty());
        t.style[2] = 7;
        t.style_set = 1 << 2;
        assert_eq!(t.style_override(2), Some(7));
        assert_eq!(t.style_override(3), None);
        assert_eq!(t.style_override(99), None);
    }
}
