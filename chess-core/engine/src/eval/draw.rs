//! Material balances the evaluation scores as drawn.
//!
//! With no pawns on the board some balances cannot be won against correct defence, whatever the
//! count of material says. The evaluation scores them 0 so that neither side thinks it is winning
//! or losing (the search still finds a mate the defender walks into):
//!
//! * a lone minor piece against a bare king (KNK, KBK) and bishops all on squares of one colour
//!   (KBK with any number of same-coloured bishops, KB against KB on the same colour): no mate is
//!   possible at all ([`Position::is_insufficient_material`]);
//! * two knights against a bare king (KNNK): mate exists but cannot be forced.

use chess_core::colour::Colour;
use chess_core::piece::PieceKind;
use chess_core::position::Position;

/// True when the material on the board is a known draw: no mate is possible, or the only winning
/// try is two knights against a bare king.
pub fn is_drawn_material(pos: &Position) -> bool {
    pos.is_insufficient_material() || is_two_knights_against_bare_king(pos)
}

/// KNNK: one side has its king and exactly two knights, the other its king alone.
fn is_two_knights_against_bare_king(pos: &Position) -> bool {
    Colour::ALL.into_iter().any(|strong| {
        let ours = pos.by_colour(strong);
        pos.by_colour(!strong).count() == 1
            && ours.count() == 3
            && pos.pieces(strong, PieceKind::Knight).count() == 2
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drawn(fen: &str) -> bool {
        is_drawn_material(&Position::from_fen(fen).expect("fen"))
    }

    #[test]
    fn knows_the_drawn_balances() {
        // KNNK, either colour strong.
        assert!(drawn("4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1"));
        assert!(drawn("1n2kn2/8/8/8/8/8/8/4K3 b - - 0 1"));
        // KNK, KBK.
        assert!(drawn("4k3/8/8/8/8/8/8/1N2K3 w - - 0 1"));
        assert!(drawn("4k3/8/8/8/8/8/8/2B1K3 w - - 0 1"));
        // Bishops on one colour (c1 and f8 are both dark squares).
        assert!(drawn("5b2/4k3/8/8/8/8/8/2B1K3 w - - 0 1"));
        // Not drawn: opposite-coloured bishops (c1 dark, c8 light), two knights against a pawn,
        // knight and bishop, two bishops on both colours, a rook.
        assert!(!drawn("2b1k3/8/8/8/8/8/8/2B1K3 w - - 0 1"));
        assert!(!drawn("4k3/p7/8/8/8/8/8/1N2KN2 w - - 0 1"));
        assert!(!drawn("4k3/8/8/8/8/8/8/1NB1K3 w - - 0 1"));
        assert!(!drawn("4k3/8/8/8/8/8/8/2B1KB2 w - - 0 1"));
        assert!(!drawn("4k3/8/8/8/8/8/8/R3K3 w - - 0 1"));
    }
}
