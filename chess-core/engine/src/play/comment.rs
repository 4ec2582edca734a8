//! Short comments on moves, in the manner of Tiny Chess 86, which told its player when it gave
//! check or mate and remarked on some moves.
//!
//! A comment names what a move does (castles, promotes, captures and whether the capture wins
//! material by static exchange) and what it leads to (check, mate, stalemate). The computer adds
//! a word on how it sees the game from its score.

use crate::search::see::{captured_value, see};
use crate::search::value::{is_mate, mate_moves};
use chess_core::castling::CastlingSide;
use chess_core::chess_move::{Move, MoveKind};
use chess_core::piece::PieceKind;
use chess_core::position::Position;

fn article_name(kind: PieceKind) -> &'static str {
    match kind {
        PieceKind::Pawn => "a pawn",
        PieceKind::Knight => "a knight",
        PieceKind::Bishop => "a bishop",
        PieceKind::Rook => "a rook",
        PieceKind::Queen => "the queen",
        PieceKind::King => "the king",
    }
}

/// Remarks on `mv` played in `before` (empty when there is nothing to say).
pub fn describe(before: &Position, mv: Move) -> Vec<String> {
    let mut notes = Vec::new();
    match mv.kind() {
        MoveKind::Castle(CastlingSide::KingSide) => notes.push("castles king-side".to_string()),
        MoveKind::Castle(CastlingSide::QueenSide) => notes.push("castles queen-side".to_string()),
        MoveKind::Promotion(kind) => {
            notes.push(format!(
                "promotes to {}",
                article_name(kind).replace("the ", "a ")
            ));
        }
        _ => {}
    }
    let victim = if mv.is_en_passant() {
        Some(PieceKind::Pawn)
    } else if crate::search::see::is_capture(before, mv) {
        before.kind_on(mv.to())
    } else {
        None
    };
    if let Some(kind) = victim {
        let gain = see(before, mv);
        let value = captured_value(before, mv);
        let name = article_name(kind);
        notes.push(if gain >= value {
            format!("wins {name}")
        } else if gain > 0 {
            format!("takes {name} and wins material")
        } else if gain == 0 {
            format!("takes {name}")
        } else {
            format!("takes {name} but gives up material")
        });
    }
    let after = before.after(mv);
    if after.is_checkmate() {
        notes.push("checkmate".to_string());
    } else if after.is_check() {
        notes.push("check".to_string());
    } else if after.is_stalemate() {
        notes.push("stalemate".to_string());
    }
    notes
}

/// How the computer sees the game after its search (score for its side), or `None` when there
/// is nothing remarkable to say.
pub fn outlook(score: i32) -> Option<String> {
    if is_mate(score) {
        let n = mate_moves(score);
        return Some(if n > 0 {
            format!("I announce mate in {n}")
        } else {
            format!("I will be mated in {}", -n)
        });
    }
    match score {
        s if s >= 300 => Some("I am winning".to_string()),
        s if s >= 120 => Some("I am better".to_string()),
        s if s <= -300 => Some("I am losing".to_string()),
        s if s <= -120 => Some("I am worse".to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::value::MATE;

    fn notes(fen: &str, uci: &str) -> Vec<String> {
        let pos = Position::from_fen(fen).unwrap();
        describe(&pos, pos.parse_uci(uci).unwrap())
    }

    #[test]
    fn hand_checked_comments() {
        // Scholar's mate.
        assert_eq!(
            notes(
                "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
                "h5f7"
            ),
            ["wins a pawn", "checkmate"]
        );
        // A free knight.
        assert_eq!(
            notes("4k3/8/8/4n3/8/8/8/4RK2 w - - 0 1", "e1e5"),
            ["wins a knight", "check"]
        );
        // Knight takes a pawn defended by a pawn.
        assert_eq!(
            notes("4k3/8/3p4/4p3/8/5N2/8/4K3 w - - 0 1", "f3e5"),
            ["takes a pawn but gives up material"]
        );
        assert_eq!(
            notes("r3k3/8/8/8/8/8/8/4K2R w K - 0 1", "e1g1"),
            ["castles king-side"]
        );
        assert_eq!(
            notes("k7/8/1K6/8/8/8/8/2Q5 w - - 0 1", "c1c2"),
            Vec::<String>::new()
        );
        assert_eq!(
            notes("k7/8/1K6/8/8/8/8/2Q5 w - - 0 1", "c1c7"),
            ["stalemate"]
        );
        assert_eq!(outlook(MATE - 3).as_deref(), Some("I announce mate in 2"));
        assert_eq!(outlook(-MATE + 4).as_deref(), Some("I will be mated in 2"));
        assert_eq!(outlook(20), None);
        assert_eq!(outlook(500).as_deref(), Some("I am winning"));
    }
}
