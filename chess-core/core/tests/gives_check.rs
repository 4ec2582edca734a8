//! `Position::gives_check` against playing the move: for every legal move three plies deep from
//! the 127 positions of `perft.epd` and the standard-chess positions of `tricky.perft`, the answer is
//! `after(mv).is_check()`; castling, en passant, promotions, discovered and double checks occur.

mod common;

use chess_core::Position;
use common::{suite_cases, tricky_cases};

/// What the walk met: moves checked, checks among them, and checks of each special kind
/// (castling, en passant, promotion, discovered: the moved piece does not attack the king;
/// double: two pieces give check).
#[derive(Default)]
struct Seen {
    moves: u64,
    checks: u64,
    castle: u64,
    en_passant: u64,
    promotion: u64,
    discovered: u64,
    double: u64,
}

fn walk(pos: &Position, depth: u32, seen: &mut Seen) {
    for mv in pos.legal_moves().iter().copied() {
        let child = pos.after(mv);
        let check = child.is_check();
        assert_eq!(pos.gives_check(mv), check, "{} {mv}", pos.to_fen());
        seen.moves += 1;
        if check {
            seen.checks += 1;
            seen.castle += u64::from(mv.is_castle());
            seen.en_passant += u64::from(mv.is_en_passant());
            seen.promotion += u64::from(mv.promotion_kind().is_some());
            let checkers = child.checkers();
            seen.discovered += u64::from(!mv.is_castle() && !checkers.contains(mv.to()));
            seen.double += u64::from(checkers.count() >= 2);
        }
        if depth > 0 {
            walk(&child, depth - 1, seen);
        }
    }
}

fn fens() -> Vec<String> {
    let suite = suite_cases().into_iter().map(|(fen, _)| fen);
    let tricky = tricky_cases().into_iter().map(|(_, fen, _)| fen);
    // Checks by castling, by en passant (direct, and discovered along the rank both pawns
    // leave) and by promotion, one move away.
    let made = [
        "5k2/8/8/8/8/8/8/4K2R w K - 0 1",
        "8/4k3/8/3pP3/8/8/8/4K3 w - d6 0 1",
        "8/8/8/R2pP2k/8/8/8/4K3 w - d6 0 1",
        "k7/2P5/8/8/8/8/8/4K3 w - - 0 1",
    ];
    suite.chain(tricky).chain(made.map(str::to_owned)).collect()
}

#[test]
fn gives_check_is_the_check_after_the_move() {
    let mut seen = Seen::default();
    for fen in fens() {
        let pos = Position::from_fen(&fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
        walk(&pos, 2, &mut seen);
    }
    assert!(seen.moves > 500_000, "{} moves", seen.moves);
    assert!(seen.checks > 10_000, "{} checks", seen.checks);
    for (what, n) in [
        ("castling", seen.castle),
        ("en passant", seen.en_passant),
        ("promotion", seen.promotion),
        ("discovered", seen.discovered),
        ("double", seen.double),
    ] {
        assert!(n > 0, "no {what} check met");
    }
}
