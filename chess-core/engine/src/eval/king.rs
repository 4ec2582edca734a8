//! King safety: the pawn shelter in front of a king and the weight of attacks on its zone.
//!
//! Both matter while the enemy has the pieces to attack, so both are middlegame-only terms (the
//! taper removes them as material leaves the board). The attack penalty grows with the square of
//! the attack units, so one piece near the king costs little and several together cost a lot, and
//! it only counts when at least two pieces take part (a lone piece rarely mates). The whole term is
//! weighted by the style's `ST_KINGSAFTY` percentage.

use super::mobility::Activity;
use super::score::{s, S};
use chess_core::colour::Colour;
use chess_core::piece::PieceKind;
use chess_core::position::Position;

const FILE_A: u64 = 0x0101_0101_0101_0101;

/// Shelter value of the pawn in front of the king on one file, by how far it has advanced
/// (index 0 = still on its second rank, 1 = third rank, 2 = missing or further).
const SHELTER: [i32; 3] = [12, 6, -12];
/// Penalty per file next to (or at) the king without a pawn of either side.
const OPEN_FILE_NEAR_KING: i32 = -15;
/// Largest attack penalty.
const MAX_ATTACK_PENALTY: i32 = 500;

/// The shelter of `colour`'s king (middlegame only), from its own point of view.
pub fn shelter(pos: &Position, colour: Colour) -> S {
    let king = pos.king_square(colour);
    let rel_rank = match colour {
        Colour::White => king.index() / 8,
        Colour::Black => 7 - king.index() / 8,
    };
    if rel_rank > 1 {
        // A king that has walked up the board has no shelter to speak of.
        return s(-30, 0);
    }
    let file = king.index() % 8;
    let ours = pos.pieces(colour, PieceKind::Pawn).0;
    let all_pawns = pos.by_kind(PieceKind::Pawn).0;
    let mut total = 0;
    for f in file.saturating_sub(1)..=(file + 1).min(7) {
        let mask = FILE_A << f;
        let pawns = ours & mask;
        // Find this file's pawn closest to the king's side of the board.
        let nearest = match colour {
            Colour::White => (pawns != 0).then(|| pawns.trailing_zeros() as usize / 8),
            Colour::Black => (pawns != 0).then(|| 7 - (63 - pawns.leading_zeros() as usize) / 8),
        };
        total += match nearest {
            Some(1) => SHELTER[0],
            Some(2) => SHELTER[1],
            _ => SHELTER[2],
        };
        if all_pawns & mask == 0 {
            total += OPEN_FILE_NEAR_KING;
        }
    }
    s(total, 0)
}

/// The penalty for the attack `enemy` mounts on a king, from the attacked side's point of view.
pub fn attack_penalty(enemy: &Activity) -> S {
    if enemy.king_attackers < 2 {
        return S::ZERO;
    }
    let u = enemy.king_units;
    s(-(u * u / 4).min(MAX_ATTACK_PENALTY), 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shelter_prefers_pawns_at_home() {
        let intact = Position::from_fen("6k1/5ppp/8/8/8/8/5PPP/6K1 w - - 0 1").unwrap();
        let broken = Position::from_fen("6k1/5ppp/8/8/8/6P1/5P2/6K1 w - - 0 1").unwrap();
        assert!(shelter(&intact, Colour::White).mg > shelter(&broken, Colour::White).mg);
        // Mirror images agree.
        assert_eq!(
            shelter(&intact, Colour::White),
            shelter(&intact, Colour::Black)
        );
    }

    #[test]
    fn attacks_need_two_pieces() {
        let one = Activity {
            score: S::ZERO,
            king_units: 20,
            king_attackers: 1,
        };
        let two = Activity {
            score: S::ZERO,
            king_units: 20,
            king_attackers: 2,
        };
        assert_eq!(attack_penalty(&one), S::ZERO);
        assert_eq!(attack_penalty(&two), s(-100, 0));
    }
}
