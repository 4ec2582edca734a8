//! Evaluation and search parameters, and how Che++ style settings and advice change them.
//!
//! Nimzo let its advice program adjust the engine through two channels, and both end up here:
//!
//! * **Style parameters** (`SetStyle`, section IV.6): the user's settings ([`StyleSettings`], the
//!   engine's "parameter dialog", exposed as UCI options) are the starting point for every root
//!   position; a program's `SetStyle(ST_DEFAULTVALUES, ..)` swaps them for the standard values and
//!   each `SetStyle(id, v)` overrides one of them for this position and its search only.
//! * **The advice table**: square bonuses and piece value changes are folded into the
//!   piece-square tables (so a leaf pays nothing extra for them), control bonuses become weights
//!   of the mobility count per attacked square. Move bonuses belong to the search
//!   ([`crate::search`]), not to the static evaluation.
//!
//! [`EvalParams::new`] is called once per root position; the search only reads the result.

use super::pst;
use super::score::{s, S};
use chess_core::piece::PieceKind;
use cvm_chess::advice_table::AdviceTable;
use cvm_chess::style::{self, STYLE_COUNT, STYLE_PARAMS};

/// Values of the style parameters, indexed by style id (`cvm_chess::style::ST_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StyleSettings {
    values: [i32; STYLE_COUNT],
}

impl Default for StyleSettings {
    fn default() -> Self {
        StyleSettings::standard()
    }
}

impl StyleSettings {
    /// The engine's standard values (`cvm_chess::style::STYLE_PARAMS`).
    pub fn standard() -> StyleSettings {
        StyleSettings {
            values: std::array::from_fn(|id| STYLE_PARAMS[id].default),
        }
    }

    /// The value of parameter `id`; 0 for an id that is not a parameter.
    pub fn get(&self, id: i32) -> i32 {
        usize::try_from(id)
            .ok()
            .and_then(|i| self.values.get(i))
            .copied()
            .unwrap_or(0)
    }

    /// Sets parameter `id`; flags are stored as 0 or 1. Returns false for an unknown id.
    pub fn set(&mut self, id: i32, value: i32) -> bool {
        let Some(param) = style::param(id) else {
            return false;
        };
        let Some(slot) = usize::try_from(id)
            .ok()
            .and_then(|i| self.values.get_mut(i))
        else {
            return false;
        };
        *slot = if param.flag {
            i32::from(value != 0)
        } else {
            value
        };
        true
    }

    /// The settings that hold for one search: these (or the standard values when the program
    /// asked for them with `ST_DEFAULTVALUES`) with the program's overrides applied.
    pub fn with_advice(&self, table: &AdviceTable) -> StyleSettings {
        let mut out = if table.style_defaults != 0 {
            StyleSettings::standard()
        } else {
            *self
        };
        for id in 0..STYLE_COUNT {
            if let Some(v) = table.style_override(id) {
                out.set(id as i32, v);
            }
        }
        out
    }

    /// All values, indexed by id.
    pub fn values(&self) -> &[i32; STYLE_COUNT] {
        &self.values
    }
}

/// Search features that style flags switch on and off (see `docs/engine.md` for the mapping).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchSwitches {
    /// `ST_FUTIL1CUTOFF`: futility pruning of quiet moves one ply before the horizon.
    pub futility1: bool,
    /// `ST_FUTIL2CUTOFF`: extended futility pruning two plies before the horizon.
    pub futility2: bool,
    /// `ST_PIECETHREAT`: extend one ply when a null-move search reveals a mate threat.
    pub threat_extension: bool,
    /// `ST_FEWMVSTHREAT`: extend one ply when the side to move has a single legal move.
    pub single_reply_extension: bool,
}

/// Middlegame mobility weight per safe square, by kind (pawns and kings have none).
const MOBILITY: [S; 6] = [s(0, 0), s(4, 4), s(5, 5), s(2, 4), s(1, 2), s(0, 0)];

/// Endgame material as a percentage of the middlegame value, by kind: pawns grow in value as the
/// board empties, knights lose a little.
const EG_MATERIAL_PERCENT: [i32; 6] = [120, 95, 100, 105, 100, 0];

/// Control-bonus factor on a directly attacked square at 100 % mobility weight, in 256ths: the
/// effect of `CtrlSqrs(piece, bonus, sq)` is `bonus * factor / 256` per controlling piece.
pub const CONTROL_FACTOR: i32 = 64;
/// Control-bonus factor for an x-ray attack (through one blocker), in 256ths.
pub const XRAY_FACTOR: i32 = 32;

/// Everything the static evaluation reads, rebuilt for each root position.
#[derive(Clone, Debug)]
pub struct EvalParams {
    /// Material, positional table, advice square bonus and advice piece value of a piece of
    /// `[colour][kind]` on the (absolute) square, from that colour's point of view.
    pub psqt: [[[S; 64]; 6]; 2],
    /// Material value of each kind (middlegame, after style overrides), for pruning margins.
    pub material: [i32; 6],
    /// Mobility weight per safe square, by kind, after the style's mobility percentages.
    pub mobility: [S; 6],
    /// Control weights `[colour][kind][square]` (already scaled), or `None` without control
    /// advice. A queen uses the rook row for its orthogonal and the bishop row for its diagonal
    /// attacks, at a quarter of the weight.
    pub control: Option<Box<[[[S; 64]; 6]; 2]>>,
    /// Which `[colour][kind]` rows of `control` hold anything (the queen's entry says whether its
    /// rook or bishop rows do).
    pub control_used: [[bool; 6]; 2],
    /// King-safety weight in percent (`ST_KINGSAFTY`).
    pub king_safety: i32,
    /// Pawn-structure weight in percent (`ST_PAWNEVAL`).
    pub pawn_structure: i32,
    /// Search switches from the style flags.
    pub switches: SearchSwitches,
}

impl Default for EvalParams {
    fn default() -> Self {
        EvalParams::new(&StyleSettings::standard(), None)
    }
}

impl EvalParams {
    /// Parameters for the effective `styles` and, if given, a root's advice table (whose style
    /// fields are *not* read here: apply them first with [`StyleSettings::with_advice`]).
    pub fn new(styles: &StyleSettings, advice: Option<&AdviceTable>) -> EvalParams {
        let material_ids = [
            style::ST_PAWNMAT,
            style::ST_KNIGHTMAT,
            style::ST_BISHOPMAT,
            style::ST_ROOKMAT,
            style::ST_QUEENMAT,
        ];
        let mut material = [0; 6];
        for (k, &id) in material_ids.iter().enumerate() {
            material[k] = styles.get(id).clamp(0, 10_000);
        }
        let mg_mob = styles.get(style::ST_MIDGAMEMOB).clamp(0, 1000);
        let eg_mob = styles.get(style::ST_ENDGAMEMOB).clamp(0, 1000);

        let mut psqt = [[[S::ZERO; 64]; 6]; 2];
        for (c, per_colour) in psqt.iter_mut().enumerate() {
            for (k, per_kind) in per_colour.iter_mut().enumerate() {
                let Some(kind) = PieceKind::from_index(k as u8) else {
                    continue;
                };
                let value = s(material[k], material[k] * EG_MATERIAL_PERCENT[k] / 100);
                let change = advice.map_or(0, |t| t.piece_value[c][k]);
                for (sq, entry) in per_kind.iter_mut().enumerate() {
                    let bonus = advice.map_or(0, |t| t.square_bonus[c][k][sq]);
                    let extra = change.saturating_add(bonus).clamp(-20_000, 20_000);
                    *entry = value + pst::base(kind, pst::relative(c, sq)) + s(extra, extra);
                }
            }
        }

        let mobility = MOBILITY.map(|w| s(w.mg * mg_mob / 100, w.eg * eg_mob / 100));

        let mut control_used = [[false; 6]; 2];
        let control = advice.and_then(|t| {
            let mut any = false;
            let mut table = Box::new([[[S::ZERO; 64]; 6]; 2]);
            for c in 0..2 {
                for k in 0..6 {
                    for sq in 0..64 {
                        let bonus = t.control_bonus[c][k][sq].clamp(-10_000, 10_000);
                        if bonus != 0 {
                            any = true;
                            control_used[c][k] = true;
                            table[c][k][sq] = s(
                                bonus * CONTROL_FACTOR / 256 * mg_mob / 100,
                                bonus * CONTROL_FACTOR / 256 * eg_mob / 100,
                            );
                        }
                    }
                }
                control_used[c][PieceKind::Queen.index()] = control_used[c]
                    [PieceKind::Rook.index()]
                    || control_used[c][PieceKind::Bishop.index()];
            }
            any.then_some(table)
        });

        EvalParams {
            psqt,
            material,
            mobility,
            control,
            control_used,
            king_safety: styles.get(style::ST_KINGSAFTY).clamp(0, 1000),
            pawn_structure: styles.get(style::ST_PAWNEVAL).clamp(0, 1000),
            switches: SearchSwitches {
                futility1: styles.get(style::ST_FUTIL1CUTOFF) != 0,
                futility2: styles.get(style::ST_FUTIL2CUTOFF) != 0,
                threat_extension: styles.get(style::ST_PIECETHREAT) != 0,
                single_reply_extension: styles.get(style::ST_FEWMVSTHREAT) != 0,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cvm_chess::style::*;

    #[test]
    fn overrides_and_defaults() {
        let mut user = StyleSettings::standard();
        user.set(ST_KINGSAFTY, 150);
        assert!(!user.set(ST_DEFAULTVALUES, 1));
        user.set(ST_FUTIL1CUTOFF, 7);
        assert_eq!(user.get(ST_FUTIL1CUTOFF), 1);

        let mut table = AdviceTable::default();
        table.style[ST_QUEENMAT as usize] = 1000;
        table.style_set = 1 << ST_QUEENMAT;
        let eff = user.with_advice(&table);
        assert_eq!(eff.get(ST_QUEENMAT), 1000);
        assert_eq!(eff.get(ST_KINGSAFTY), 150);

        table.style_defaults = 1;
        let eff = user.with_advice(&table);
        assert_eq!(eff.get(ST_KINGSAFTY), 100);
        assert_eq!(eff.get(ST_QUEENMAT), 1000);
    }

    #[test]
    fn advice_folds_into_tables() {
        let plain = EvalParams::default();
        let mut table = AdviceTable::default();
        table.add_square(0, 2, 12, 20); // wB on e2
        table.add_piece_value(1, 1, -10); // black knights
        table.add_control(0, 3, 27, 40); // wR controls d4
        let p = EvalParams::new(&StyleSettings::standard(), Some(&table));
        assert_eq!(p.psqt[0][2][12].mg - plain.psqt[0][2][12].mg, 20);
        assert_eq!(p.psqt[0][2][12].eg - plain.psqt[0][2][12].eg, 20);
        assert_eq!(p.psqt[1][1][40].mg - plain.psqt[1][1][40].mg, -10);
        assert!(p.control_used[0][3] && p.control_used[0][4] && !p.control_used[1][3]);
        let c = p.control.as_ref().map(|t| t[0][3][27]);
        assert_eq!(c, Some(s(10, 10)));
    }
}
