//! Static exchange evaluation (SEE): what a capture wins once every recapture on its square has
//! been played out.
//!
//! The search uses it to put losing captures behind the quiet moves and to skip them in the
//! quiescence search, where they only waste nodes. The exchange is played on bitboards: each side
//! recaptures with its least valuable attacker, sliders hidden behind a piece that has captured
//! join in (x-rays), and either side may stop when going on would lose. Pins and checks are
//! ignored, as usual for SEE.

use chess_core::attacks::{bishop_attacks, rook_attacks};
use chess_core::bitboard::Bitboard;
use chess_core::chess_move::{Move, MoveKind};
use chess_core::colour::Colour;
use chess_core::piece::PieceKind;
use chess_core::position::Position;
use chess_core::square::Square;

/// Piece values for exchanges (the king's is large enough that losing it outweighs everything).
pub const SEE_VALUE: [i32; 6] = [100, 300, 325, 500, 900, 20_000];

/// The value of what `mv` captures (a pawn for en passant), 0 for a quiet move.
#[inline]
pub fn captured_value(pos: &Position, mv: Move) -> i32 {
    if mv.is_en_passant() {
        return SEE_VALUE[PieceKind::Pawn.index()];
    }
    if mv.is_castle() {
        return 0;
    }
    match pos.kind_on(mv.to()) {
        Some(kind) if pos.by_colour(!pos.side_to_move()).contains(mv.to()) => {
            SEE_VALUE[kind.index()]
        }
        _ => 0,
    }
}

/// True if `mv` captures something (including en passant).
#[inline]
pub fn is_capture(pos: &Position, mv: Move) -> bool {
    mv.is_en_passant() || (!mv.is_castle() && pos.by_colour(!pos.side_to_move()).contains(mv.to()))
}

/// The least valuable piece of `side` among `attackers`, with its kind.
#[inline]
fn least_valuable(
    pos: &Position,
    attackers: Bitboard,
    side: Colour,
) -> Option<(Square, PieceKind)> {
    let mine = attackers & pos.by_colour(side);
    if mine.is_empty() {
        return None;
    }
    for kind in PieceKind::ALL {
        if let Some(sq) = (mine & pos.by_kind(kind)).first() {
            return Some((sq, kind));
        }
    }
    None
}

/// The material the side to move nets by playing `mv` and then exchanging on its destination
/// square as long as it pays, in centipawns. Castling is 0.
pub fn see(pos: &Position, mv: Move) -> i32 {
    if mv.is_castle() {
        return 0;
    }
    let from = mv.from();
    let to = mv.to();
    let Some(mut moving) = pos.kind_on(from) else {
        return 0;
    };
    let mut gain = [0i32; 32];
    gain[0] = captured_value(pos, mv);
    let mut occupied = pos.occupied() ^ Bitboard::from_square(from);
    if mv.is_en_passant() {
        occupied ^= Bitboard::from_square(Square::from_index_masked(to.index() as u8 ^ 8));
    }
    if let MoveKind::Promotion(kind) = mv.kind() {
        gain[0] += SEE_VALUE[kind.index()] - SEE_VALUE[PieceKind::Pawn.index()];
        moving = kind;
    }
    let diagonal = pos.by_kind(PieceKind::Bishop) | pos.by_kind(PieceKind::Queen);
    let orthogonal = pos.by_kind(PieceKind::Rook) | pos.by_kind(PieceKind::Queen);
    let mut attackers = pos.attackers_to(to, occupied) & occupied;
    let mut side = !pos.side_to_move();
    let mut depth = 0;
    // The value standing on `to`, which the next capture wins.
    let mut on_square = SEE_VALUE[moving.index()];
    while depth + 1 < gain.len() {
        let Some((sq, kind)) = least_valuable(pos, attackers, side) else {
            break;
        };
        if kind == PieceKind::King
            && (attackers & pos.by_colour(!side) & !Bitboard::from_square(sq)).any()
        {
            // The king may not capture into a defended square.
            break;
        }
        depth += 1;
        gain[depth] = on_square - gain[depth - 1];
        if (-gain[depth - 1]).max(gain[depth]) < 0 {
            break;
        }
        occupied ^= Bitboard::from_square(sq);
        attackers = (attackers
            | (bishop_attacks(to, occupied) & diagonal)
            | (rook_attacks(to, occupied) & orthogonal))
            & occupied;
        on_square = SEE_VALUE[kind.index()];
        side = !side;
    }
    while depth > 0 {
        gain[depth - 1] = -(-gain[depth - 1]).max(gain[depth]);
        depth -= 1;
    }
    gain[0]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn see_of(fen: &str, uci: &str) -> i32 {
        let pos = Position::from_fen(fen).unwrap();
        let mv = pos.parse_uci(uci).unwrap();
        see(&pos, mv)
    }

    #[test]
    fn hand_worked_exchanges() {
        // Rook takes an undefended pawn.
        assert_eq!(
            see_of("1k1r4/1pp4p/p7/4p3/8/P5P1/1PP4P/2K1R3 w - - 0 1", "e1e5"),
            100
        );
        // Knight takes a pawn defended by a pawn: wins 100, loses 300.
        assert_eq!(see_of("4k3/8/3p4/4p3/8/5N2/8/4K3 w - - 0 1", "f3e5"), -200);
        // Pawn takes a defended knight: +300 - 100.
        assert_eq!(see_of("4k3/8/3p4/4n3/3P4/8/8/4K3 w - - 0 1", "d4e5"), 200);
        // Queen takes a pawn defended by a rook behind which nothing stands: -800.
        assert_eq!(see_of("3rk3/8/8/3p4/8/8/8/3QK3 w - - 0 1", "d1d5"), -800);
        // X-ray: rook takes, the queen behind it backs it up: RxP, RxR, QxR = +100.
        assert_eq!(see_of("3rk3/8/8/3p4/8/8/3R4/3QK3 w - - 0 1", "d2d5"), 100);
        // Quiet moves and castling are zero-gain unless the square is attacked.
        assert_eq!(see_of(chess_core::STARTPOS_FEN, "g1f3"), 0);
    }
}
