//! One solved ending: probing, best moves and statistics.

use crate::generate;
use crate::layout;
use crate::material::{Material, Side};
use crate::men::Men;
use crate::outcome::{self, Outcome, DRAW, INVALID};
use chess_core::{CastlingRights, Colour, Move, PieceKind, Position};
use std::cmp::Reverse;

/// The solved table of one ending: the distance to mate of every legal position, either side to
/// move, with the strong side playing either colour.
///
/// A KPK table carries the KQK and KRK tables it needs for the positions after a promotion, so it
/// answers on its own for every move out of a KPK position.
#[derive(Clone, Debug)]
pub struct Table {
    pub(crate) material: Material,
    pub(crate) values: Vec<u8>,
    /// KQK and KRK for a KPK table; empty otherwise.
    pub(crate) promotions: Vec<Table>,
}

/// How many positions of one side to move have each value, counted as symmetry classes (the
/// canonical positions the table stores; see the crate docs for the symmetries).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// `mates[p]` positions are decided with mate in `p` plies: won for the side to move when `p`
    /// is odd, lost when it is even.
    pub mates: Vec<u64>,
    /// Drawn positions.
    pub draws: u64,
}

impl Counts {
    /// Positions won by the side to move.
    pub fn wins(&self) -> u64 {
        self.mates.iter().skip(1).step_by(2).sum()
    }

    /// Positions lost by the side to move.
    pub fn losses(&self) -> u64 {
        self.mates.iter().step_by(2).sum()
    }

    /// All legal positions counted.
    pub fn total(&self) -> u64 {
        self.wins() + self.losses() + self.draws
    }
}

impl Table {
    /// Solves `material` by retrograde analysis (for KPK, KQK and KRK are solved first).
    pub fn generate(material: Material) -> Table {
        let promotions = if material.has_pawn() {
            vec![
                Table::generate(Material::Kqk),
                Table::generate(Material::Krk),
            ]
        } else {
            Vec::new()
        };
        Table::solve(material, promotions)
    }

    /// Solves `material` given the KQK and KRK tables a KPK table needs (ignored otherwise).
    pub(crate) fn solve(material: Material, promotions: Vec<Table>) -> Table {
        let promotions = if material.has_pawn() {
            promotions
        } else {
            Vec::new()
        };
        let values = generate::solve(material, |kind, men| {
            promotion_table(&promotions, kind)
                .and_then(|table| table.value(men))
                .unwrap_or(Outcome::Draw)
        });
        Table {
            material,
            values,
            promotions,
        }
    }

    /// The ending this table solves.
    pub fn material(&self) -> Material {
        self.material
    }

    /// The value of `pos` for its side to move, or `None` if `pos` is not this table's ending
    /// (other material, or castling rights, which these tables do not model). The fifty-move
    /// counter is ignored: the value is the distance to mate with unlimited time.
    pub fn probe(&self, pos: &Position) -> Option<Outcome> {
        if pos.castling_rights() != CastlingRights::NONE {
            return None;
        }
        let (material, strong) = Material::identify(pos)?;
        if material != self.material {
            return None;
        }
        self.value(&Men::from_position(material, pos, strong)?)
    }

    /// The best move in `pos`, or `None` if `pos` is not this table's ending or has no legal
    /// move: the winner's fastest mate, the loser's longest resistance, and for a draw a move that
    /// keeps the draw. Ties go to the first move in `chess-core`'s legal move order, so the answer
    /// is deterministic.
    pub fn best_move(&self, pos: &Position) -> Option<Move> {
        self.probe(pos)?;
        let mut best: Option<(i32, Move)> = None;
        for &mv in pos.legal_moves().as_slice() {
            let Some(after) = self.probe_after(&pos.after(mv)) else {
                continue;
            };
            let score = after.parent().preference();
            if best.is_none_or(|(best_score, _)| score > best_score) {
                best = Some((score, mv));
            }
        }
        best.map(|(_, mv)| mv)
    }

    /// The value of a position one move away from this table's ending: the same ending, a
    /// promotion into a carried table, or a draw by insufficient material after a capture or an
    /// under-promotion.
    pub fn probe_after(&self, pos: &Position) -> Option<Outcome> {
        match Material::identify(pos) {
            Some((material, _)) if material == self.material => self.probe(pos),
            Some((material, _)) => self
                .promotions
                .iter()
                .find(|table| table.material == material)?
                .probe(pos),
            None => pos.is_insufficient_material().then_some(Outcome::Draw),
        }
    }

    /// A position of the longest forced mate with `side` to move (the strong side on White) and
    /// its value; `None` if that side never wins or loses (it cannot be for these endings).
    pub fn deepest(&self, side: Side) -> Option<(Position, Outcome)> {
        let strong_to_move = side == Side::Strong;
        let (index, &byte) = self
            .values
            .iter()
            .enumerate()
            .filter(|&(index, &byte)| {
                byte != INVALID && byte != DRAW && (index % 2 == 0) == strong_to_move
            })
            .max_by_key(|&(index, &byte)| (byte, Reverse(index)))?;
        let men = layout::decode(self.material, index);
        Some((
            men.to_position(self.material, Colour::White)?,
            outcome::decode(byte)?,
        ))
    }

    /// The number of canonical positions with each value when `side` is to move.
    pub fn counts(&self, side: Side) -> Counts {
        let strong_to_move = side == Side::Strong;
        let mut counts = Counts::default();
        for (index, &byte) in self.values.iter().enumerate() {
            if (index % 2 == 0) != strong_to_move {
                continue;
            }
            match outcome::decode(byte) {
                None => {}
                Some(Outcome::Draw) => counts.draws += 1,
                Some(Outcome::Win { plies } | Outcome::Loss { plies }) => {
                    let plies = usize::from(plies);
                    if counts.mates.len() <= plies {
                        counts.mates.resize(plies + 1, 0);
                    }
                    counts.mates[plies] += 1;
                }
            }
        }
        counts
    }

    /// The value of internal men (any orientation; canonicalised here).
    pub(crate) fn value(&self, men: &Men) -> Option<Outcome> {
        let byte = *self.values.get(layout::index_of(self.material, men))?;
        outcome::decode(byte)
    }
}

/// The carried table a promotion to `kind` enters; `None` for bishop and knight (draws).
fn promotion_table(promotions: &[Table], kind: PieceKind) -> Option<&Table> {
    let material = match kind {
        PieceKind::Queen => Material::Kqk,
        PieceKind::Rook => Material::Krk,
        _ => return None,
    };
    promotions.iter().find(|table| table.material == material)
}
