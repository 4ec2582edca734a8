//! The advice table: what a Che++ program tells the engine.
//!
//! Advice functions (`SetSqrs`, `SetMvs`, `KeepPcs`, `CtrlSqrs`, `SetStyle`,
//! ...) write here; the engine reads the table before its search. The layout
//! is `#[repr(C)]` and fixed-size so that JIT code can write it through a
//! pointer and an embedder can read it without conversion. Every run of a
//! program starts from an empty table ([`AdviceTable::clear`]).

/// Number of style parameters (`ST_*` ids 0 .. `STYLE_COUNT`).
pub const STYLE_COUNT: usize = 16;

/// Advice accumulated by one run of a Che++ program.
#[derive(Clone, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct AdviceTable {
    /// Square bonuses per piece, `[colour][kind][square]`, in centipawns
    /// (kinds P N B R Q K; squares a1 = 0 .. h8 = 63).
    pub square_bonus: [[[i32; 64]; 6]; 2],
    /// Move bonuses per side, `[colour][from][to]`.
    pub move_bonus: [[[i32; 64]; 64]; 2],
    /// Piece value changes, `[colour][kind]`.
    pub piece_value: [[i32; 6]; 2],
    /// Control (mobility) bonuses, `[colour][kind][square]`.
    pub control_bonus: [[[i32; 64]; 6]; 2],
    /// Style overrides: `style[id]` is meaningful when bit `id` of
    /// `style_set` is set.
    pub style: [i32; STYLE_COUNT],
    /// Bit set of overridden style parameters.
    pub style_set: u32,
    /// Non-zero when `SetStyle(ST_DEFAULTVALUES, ...)` asked for the
    /// engine's default parameters.
    pub style_defaults: i32,
    /// The verbose flag (`SetVerbose`).
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
}
