//! Style parameter ids (`ST_*`) and opponent values (`OPP_*`) of
//! `GetStyle`/`SetStyle` (section IV.6).
//!
//! The numbers are the CVM's, shared by three parties that must agree:
//! `stdlib.che` defines the Che++ constants with these values, the
//! intrinsics check ids against them, and the engine maps the advice
//! table's style overrides (indexed by id) to its own parameters.

/// Middlegame mobility weight.
pub const ST_MIDGAMEMOB: i32 = 0;
/// Endgame mobility weight.
pub const ST_ENDGAMEMOB: i32 = 1;
/// King-safety weight.
pub const ST_KINGSAFTY: i32 = 2;
/// Pawn-structure evaluation weight.
pub const ST_PAWNEVAL: i32 = 3;
/// Material value of a pawn.
pub const ST_PAWNMAT: i32 = 4;
/// Material value of a knight.
pub const ST_KNIGHTMAT: i32 = 5;
/// Material value of a bishop.
pub const ST_BISHOPMAT: i32 = 6;
/// Material value of a rook.
pub const ST_ROOKMAT: i32 = 7;
/// Material value of a queen.
pub const ST_QUEENMAT: i32 = 8;
/// Flag: recognise piece threats and extend the search.
pub const ST_PIECETHREAT: i32 = 9;
/// Flag: extend the search when there is only one legal move.
pub const ST_FEWMVSTHREAT: i32 = 10;
/// Flag: futility cut-offs one ply before the horizon.
pub const ST_FUTIL1CUTOFF: i32 = 11;
/// Flag: futility cut-offs two plies before the horizon.
pub const ST_FUTIL2CUTOFF: i32 = 12;
/// Flag: hash-table learning (readable, never settable by a program).
pub const ST_LEARNFLG: i32 = 13;
/// The opponent the engine tunes its play for (an `OPP_*` value).
pub const ST_OPPONENT: i32 = 14;
/// `SetStyle` only: use the engine's standard parameters (the value is not
/// used).
pub const ST_DEFAULTVALUES: i32 = 15;

/// Number of style parameters: ids `0..STYLE_COUNT` ([`ST_DEFAULTVALUES`]
/// is a command, not a parameter).
pub const STYLE_COUNT: usize = 15;

/// Opponent Fritz.
pub const OPP_FRITZ: i32 = 0;
/// Opponent Junior.
pub const OPP_JUNIOR: i32 = 1;
/// Opponent Rebel.
pub const OPP_REBEL: i32 = 2;
/// Any other opponent.
pub const OPP_OTHER: i32 = 3;

/// One style parameter: its Che++ name, whether it is an on/off flag, and
/// the value a host without its own settings reports.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct StyleParam {
    /// The `stdlib.che` constant name.
    pub name: &'static str,
    /// Whether the value is a flag (1 on, 0 off).
    pub flag: bool,
    /// The default value.
    pub default: i32,
}

const fn sp(name: &'static str, flag: bool, default: i32) -> StyleParam {
    StyleParam {
        name,
        flag,
        default,
    }
}

/// The style parameters, indexed by id. Weights are percentages (100 =
/// the engine's normal weighting); material values are in centipawns.
pub const STYLE_PARAMS: [StyleParam; STYLE_COUNT] = [
    sp("ST_MIDGAMEMOB", false, 100),
    sp("ST_ENDGAMEMOB", false, 100),
    sp("ST_KINGSAFTY", false, 100),
    sp("ST_PAWNEVAL", false, 100),
    sp("ST_PAWNMAT", false, 100),
    sp("ST_KNIGHTMAT", false, 300),
    sp("ST_BISHOPMAT", false, 325),
    sp("ST_ROOKMAT", false, 500),
    sp("ST_QUEENMAT", false, 900),
    sp("ST_PIECETHREAT", true, 1),
    sp("ST_FEWMVSTHREAT", true, 1),
    sp("ST_FUTIL1CUTOFF", true, 1),
    sp("ST_FUTIL2CUTOFF", true, 1),
    sp("ST_LEARNFLG", true, 0),
    sp("ST_OPPONENT", false, OPP_OTHER),
];

/// The parameter with id `id`, if there is one.
pub fn param(id: i32) -> Option<&'static StyleParam> {
    usize::try_from(id).ok().and_then(|i| STYLE_PARAMS.get(i))
}

/// The default value of a style parameter (what the VM host's `style_default`
/// reports unless the host overrides it); 0 for an unknown id.
pub fn default_value(id: i32) -> i32 {
    param(id).map_or(0, |p| p.default)
}

/// Every `stdlib.che` constant for styles and opponents with its value, in
/// id order: the list the Che++ standard library defines.
pub const CONSTANTS: [(&str, i32); 20] = [
    ("ST_MIDGAMEMOB", ST_MIDGAMEMOB),
    ("ST_ENDGAMEMOB", ST_ENDGAMEMOB),
    ("ST_KINGSAFTY", ST_KINGSAFTY),
    ("ST_PAWNEVAL", ST_PAWNEVAL),
    ("ST_PAWNMAT", ST_PAWNMAT),
    ("ST_KNIGHTMAT", ST_KNIGHTMAT),
    ("ST_BISHOPMAT", ST_BISHOPMAT),
    ("ST_ROOKMAT", ST_ROOKMAT),
    ("ST_QUEENMAT", ST_QUEENMAT),
    ("ST_PIECETHREAT", ST_PIECETHREAT),
    ("ST_FEWMVSTHREAT", ST_FEWMVSTHREAT),
    ("ST_FUTIL1CUTOFF", ST_FUTIL1CUTOFF),
    ("ST_FUTIL2CUTOFF", ST_FUTIL2CUTOFF),
    ("ST_LEARNFLG", ST_LEARNFLG),
    ("ST_OPPONENT", ST_OPPONENT),
    ("ST_DEFAULTVALUES", ST_DEFAULTVALUES),
    ("OPP_FRITZ", OPP_FRITZ),
    ("OPP_JUNIOR", OPP_JUNIOR),
    ("OPP_REBEL", OPP_REBEL),
    ("OPP_OTHER", OPP_OTHER),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_matches_constants() {
        for (id, p) in STYLE_PARAMS.iter().enumerate() {
            assert_eq!(CONSTANTS[id], (p.name, id as i32));
        }
        assert_eq!(default_value(ST_OPPONENT), OPP_OTHER);
        assert_eq!(default_value(ST_DEFAULTVALUES), 0);
        assert_eq!(default_value(-1), 0);
    }
}
