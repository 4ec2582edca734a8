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
//!
//! The table remembers which of its rows the `add_*` methods wrote since it
//! was last cleared ([`Written`]), so that [`AdviceTable::clear_written`]
//! resets a table in proportion to what a run wrote instead of the whole
//! 40 KB: an engine resets the table before every root run, and most runs
//! write a few rows of it.

pub use super::style::STYLE_COUNT;

/// Advice accumulated by one run of a Che++ program.
///
/// Indices: colour White = 0, Black = 1; kind Pawn = 0, Knight = 1,
/// Bishop = 2, Rook = 3, Queen = 4, King = 5; squares a1 = 0 .. h8 = 63.
#[derive(Clone, Debug)]
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
    /// The rows the `add_*` methods wrote since the last clear (not part of
    /// the advice: two tables with the same entries are equal whatever they
    /// wrote to get there).
    pub written: Written,
}

/// The rows of an [`AdviceTable`] written through its `add_*` methods since
/// it was last cleared: what [`AdviceTable::clear_written`] resets. An entry
/// written through a field directly is not recorded; [`Written::ALL`] says
/// that any entry may have been.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct Written {
    /// Bit `from` of `moves[colour]`: row `move_bonus[colour][from]`.
    pub moves: [u64; 2],
    /// Bit `colour * 6 + kind`: row `square_bonus[colour][kind]`.
    pub squares: u32,
    /// Bit `colour * 6 + kind`: row `control_bonus[colour][kind]`.
    pub controls: u32,
}

impl Written {
    /// Every row.
    pub const ALL: Written = Written {
        moves: [u64::MAX; 2],
        squares: (1 << 12) - 1,
        controls: (1 << 12) - 1,
    };
}

impl PartialEq for AdviceTable {
    fn eq(&self, other: &AdviceTable) -> bool {
        self.square_bonus == other.square_bonus
            && self.move_bonus == other.move_bonus
            && self.piece_value == other.piece_value
            && self.control_bonus == other.control_bonus
            && self.style == other.style
            && self.style_set == other.style_set
            && self.style_defaults == other.style_defaults
            && self.verbose == other.verbose
    }
}

impl Eq for AdviceTable {}

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
            written: Written::default(),
        }
    }
}

impl AdviceTable {
    /// Resets every entry to "no advice".
    pub fn clear(&mut self) {
        self.written = Written::ALL;
        self.clear_written();
    }

    /// Resets the table to "no advice" on the assumption that its entries
    /// were written only through the `add_*` methods (and the small fields
    /// directly) since it was last cleared: zeroes the rows [`Written`]
    /// records and the small fields, at a cost in proportion to what was
    /// written. A table whose rows were also written through their fields
    /// needs [`AdviceTable::clear`] (or [`AdviceTable::mark_all_written`]
    /// first).
    pub fn clear_written(&mut self) {
        let w = std::mem::take(&mut self.written);
        for (c, rows) in self.move_bonus.iter_mut().enumerate() {
            let mut bits = w.moves[c];
            while bits != 0 {
                rows[bits.trailing_zeros() as usize] = [0; 64];
                bits &= bits - 1;
            }
        }
        for (bits, table) in [
            (w.squares, &mut self.square_bonus),
            (w.controls, &mut self.control_bonus),
        ] {
            let mut bits = bits;
            while bits != 0 {
                let i = bits.trailing_zeros() as usize;
                table[i / 6][i % 6] = [0; 64];
                bits &= bits - 1;
            }
        }
        self.piece_value = [[0; 6]; 2];
        self.style = [0; STYLE_COUNT];
        self.style_set = 0;
        self.style_defaults = 0;
        self.verbose = 0;
    }

    /// Records that any entry may have been written (through the fields),
    /// so that the next [`AdviceTable::clear_written`] resets everything.
    pub fn mark_all_written(&mut self) {
        self.written = Written::ALL;
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
            self.written.squares |= 1 << (colour * 6 + kind);
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
            self.written.moves[colour] |= 1 << from;
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
            self.written.controls |= 1 << (colour * 6 + kind);
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

    #[test]
    fn clear_written_resets_what_the_adds_wrote() {
        let mut t = AdviceTable::default();
        t.add_square(1, 5, 63, 7);
        t.add_move(0, 12, 28, 20);
        t.add_move(1, 63, 0, -3);
        t.add_control(0, 2, 9, 4);
        t.add_piece_value(1, 4, 50);
        t.style[3] = 1;
        t.style_set = 1 << 3;
        t.verbose = 1;
        assert_eq!(t.written.moves, [1 << 12, 1 << 63]);
        assert_eq!(t.written.squares, 1 << 11);
        assert_eq!(t.written.controls, 1 << 2);
        // Equality ignores what was written to get there.
        let mut u = t.clone();
        u.written = Written::ALL;
        assert_eq!(t, u);
        t.clear_written();
        assert!(t.is_empty());
        assert_eq!(t.written, Written::default());
        // A row written through its field is not seen, unless marked.
        t.move_bonus[0][5][6] = 1;
        t.clear_written();
        assert!(!t.is_empty());
        t.mark_all_written();
        t.clear_written();
        assert!(t.is_empty());
        t.move_bonus[1][2][3] = 1;
        t.clear();
        assert!(t.is_empty());
    }
}
