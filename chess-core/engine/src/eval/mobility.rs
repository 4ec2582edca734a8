//! Mobility, square control (`CtrlSqrs`) and attacks on the enemy king, in one pass over the
//! pieces.
//!
//! All three need each piece's attack set, so they are gathered together. Mobility counts the
//! squares a piece attacks that hold no piece of its own and no enemy pawn covers. Control advice
//! weighs individual attacked squares: Nimzo realised `CtrlSqrs` through mobility, a queen counting
//! as rook plus bishop at a quarter of the weight, and attacks through one blocker ("x-rays") at a
//! lower factor; this module does the same (factors in [`super::params`]). King attacks are
//! counted as units for [`super::king`].

use super::params::EvalParams;
use super::score::S;
use chess_core::attacks::{
    bishop_attacks, king_attacks, knight_attacks, pawn_attacks, queen_attacks, rook_attacks,
};
use chess_core::bitboard::Bitboard;
use chess_core::colour::Colour;
use chess_core::piece::PieceKind;
use chess_core::position::Position;
use chess_core::square::Square;

/// King-attack units per attacked square of the enemy king's zone, by attacker kind.
const ATTACK_UNITS: [i32; 6] = [0, 2, 2, 3, 5, 0];

/// What one side's pieces do to the board.
#[derive(Clone, Copy, Debug, Default)]
pub struct Activity {
    /// Mobility and control, from this side's point of view.
    pub score: S,
    /// King-attack units against the enemy king's zone.
    pub king_units: i32,
    /// Number of pieces attacking the enemy king's zone.
    pub king_attackers: i32,
}

/// The squares around a king that an attack on it goes through: its neighbourhood plus the square
/// itself, extended one rank towards the enemy.
pub fn king_zone(colour: Colour, king: Square) -> Bitboard {
    let near = king_attacks(king).with(king);
    let forward = match colour {
        Colour::White => near.north(),
        Colour::Black => near.south(),
    };
    near | forward
}

/// Sum of the control weights `row` over the squares of `set`.
#[inline]
fn control_sum(row: &[S; 64], set: Bitboard) -> S {
    let mut total = S::ZERO;
    for sq in set {
        total += row[sq.index()];
    }
    total
}

/// Mobility, control and king attacks of `colour`'s pieces.
pub fn activity(pos: &Position, params: &EvalParams, colour: Colour) -> Activity {
    let c = colour.index();
    let them = !colour;
    let ours = pos.by_colour(colour);
    let occupied = pos.occupied();
    let their_pawns = pos.pieces(them, PieceKind::Pawn);
    let mut pawn_cover = Bitboard::EMPTY;
    for sq in their_pawns {
        pawn_cover |= pawn_attacks(them, sq);
    }
    let safe = !ours & !pawn_cover;
    let zone = king_zone(them, pos.king_square(them));
    let control = params.control.as_deref();
    let used = &params.control_used[c];

    let mut out = Activity::default();
    let note_king = |kind: PieceKind, attacks: Bitboard, out: &mut Activity| {
        let hits = (attacks & zone).count() as i32;
        if hits > 0 {
            out.king_units += ATTACK_UNITS[kind.index()] * hits;
            out.king_attackers += 1;
        }
    };

    for kind in [
        PieceKind::Knight,
        PieceKind::Bishop,
        PieceKind::Rook,
        PieceKind::Queen,
    ] {
        let k = kind.index();
        for sq in pos.pieces(colour, kind) {
            let attacks = match kind {
                PieceKind::Knight => knight_attacks(sq),
                PieceKind::Bishop => bishop_attacks(sq, occupied),
                PieceKind::Rook => rook_attacks(sq, occupied),
                _ => queen_attacks(sq, occupied),
            };
            out.score += params.mobility[k] * (attacks & safe).count() as i32;
            note_king(kind, attacks, &mut out);
            if let (Some(table), true) = (control, used[k]) {
                out.score += slider_control(table, c, kind, sq, occupied);
            }
        }
    }

    if let Some(table) = control {
        // Pawn and king control (no mobility of their own, as in Nimzo).
        if used[PieceKind::Pawn.index()] {
            for sq in pos.pieces(colour, PieceKind::Pawn) {
                out.score +=
                    control_sum(&table[c][PieceKind::Pawn.index()], pawn_attacks(colour, sq));
            }
        }
        if used[PieceKind::King.index()] {
            let k = pos.king_square(colour);
            out.score += control_sum(&table[c][PieceKind::King.index()], king_attacks(k));
        }
    }
    out
}

/// Control weight earned by one knight, bishop, rook or queen: direct attacks at full weight,
/// x-ray attacks (through the first blocker on each line) at `XRAY_FACTOR / CONTROL_FACTOR`; a
/// queen adds its rook-line squares from the rook row and its diagonal squares from the bishop
/// row, at a quarter of the result.
fn slider_control(
    table: &[[[S; 64]; 6]; 2],
    c: usize,
    kind: PieceKind,
    sq: Square,
    occupied: Bitboard,
) -> S {
    use super::params::{CONTROL_FACTOR, XRAY_FACTOR};
    let line = |row: &[S; 64], f: fn(Square, Bitboard) -> Bitboard| {
        let direct = f(sq, occupied);
        let xray = f(sq, occupied & !direct) & !direct;
        let x = control_sum(row, xray);
        control_sum(row, direct)
            + S {
                mg: x.mg * XRAY_FACTOR / CONTROL_FACTOR,
                eg: x.eg * XRAY_FACTOR / CONTROL_FACTOR,
            }
    };
    let rook_row = &table[c][PieceKind::Rook.index()];
    let bishop_row = &table[c][PieceKind::Bishop.index()];
    match kind {
        PieceKind::Knight => control_sum(&table[c][PieceKind::Knight.index()], knight_attacks(sq)),
        PieceKind::Bishop => line(bishop_row, bishop_attacks),
        PieceKind::Rook => line(rook_row, rook_attacks),
        _ => {
            let q = line(rook_row, rook_attacks) + line(bishop_row, bishop_attacks);
            S {
                mg: q.mg / 4,
                eg: q.eg / 4,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::params::StyleSettings;
    use cvm_chess::advice_table::AdviceTable;

    #[test]
    fn control_advice_rewards_attackers_of_the_square() {
        // A white knight on f3 attacks d4 and e5; a rook on d1 sees d4 through nothing.
        let pos = Position::from_fen("4k3/8/8/8/8/5N2/8/3RK3 w - - 0 1").unwrap();
        let plain = EvalParams::default();
        let mut table = AdviceTable::default();
        table.add_control(0, 1, Square::D4.index(), 40); // wN controls d4
        table.add_control(0, 3, Square::D4.index(), 40); // wR controls d4
        let advised = EvalParams::new(&StyleSettings::standard(), Some(&table));
        let a = activity(&pos, &plain, Colour::White).score;
        let b = activity(&pos, &advised, Colour::White).score;
        // 40 * 64 / 256 = 10 for the knight and 10 for the rook.
        assert_eq!(b.mg - a.mg, 20);
        assert_eq!(
            activity(&pos, &advised, Colour::Black).score,
            activity(&pos, &plain, Colour::Black).score
        );
    }

    #[test]
    fn queen_counts_as_rook_plus_bishop_at_a_quarter() {
        let pos = Position::from_fen("4k3/8/8/8/8/8/8/3QK3 w - - 0 1").unwrap();
        let mut table = AdviceTable::default();
        table.add_control(0, 3, Square::D4.index(), 40); // rook row: d4 (file d)
        table.add_control(0, 2, Square::H5.index(), 40); // bishop row: h5 (diagonal d1-h5)
        let plain = EvalParams::default();
        let advised = EvalParams::new(&StyleSettings::standard(), Some(&table));
        let gain = activity(&pos, &advised, Colour::White).score.mg
            - activity(&pos, &plain, Colour::White).score.mg;
        assert_eq!(gain, (10 + 10) / 4);
    }

    #[test]
    fn king_zone_and_units() {
        let zone = king_zone(Colour::Black, Square::G8);
        assert!(
            zone.contains(Square::G8) && zone.contains(Square::H7) && zone.contains(Square::G6)
        );
        // The white queen on g4 hits g6 and g7 of the zone (up the g-file to the pawn).
        let pos = Position::from_fen("6k1/5pp1/8/8/6Q1/8/8/6K1 w - - 0 1").unwrap();
        let a = activity(&pos, &EvalParams::default(), Colour::White);
        assert_eq!(a.king_attackers, 1);
        assert!(a.king_units >= 10);
    }
}
