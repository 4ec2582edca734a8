//! `Position::gives_check` against playing the move: for every legal move three plies deep from
//! the 127 positions of `perft.epd` and the tricky positions of `tricky.perft`, the answer is
//! `after(mv).is_check()`; castling, en passant, promotions, discovered and double checks occur.

use chess_core::Position;

const SUITE: &str = include_str!("data/perft.epd");
const TRICKY: &str = include_str!("data/tricky.perft");

/// What the walk met: moves checked, checks among them, and checks of each special kind
/// (castling, en passant, promotion, discovered: the moved piece does not attack the king).
#[derive(Default)]
struct Seen {
    moves: u64,
    checks: u64,
    castle: u64,
    en_passant: u64,
    promotion: u64,
    discovered: u64,
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
            let king = child.king_square(child.side_to_move());
            if !(child.attackers_to(king, child.occupied()).contains(mv.to())) {
                seen.discovered += 1;
            }
        }
        if depth > 0 {
            walk(&child, depth - 1, seen);
        }
    }
}

fn fens() -> Vec<String> {
    let suite = SUITE
        .lines()
        .filter_map(|l| l.split(';').next())
        .map(str::trim)
        .filter(|f| !f.is_empty());
    // Standard chess only: the Chess960 cases of `tricky.perft` (as `perft.rs` names them).
    let mut tricky = Vec::new();
    let mut chess960 = false;
    for line in TRICKY.lines() {
        if let Some(id) = line.strip_prefix("id ") {
            chess960 = id.starts_with("xfen") || id == "asymmetrical-and-king-on-h";
        } else if let Some(epd) = line.strip_prefix("epd ") {
            if !chess960 {
                tricky.push(epd.trim());
            }
        }
    }
    // Checks by castling, by en passant (direct, and discovered along the rank both pawns
    // leave) and by promotion, one move away.
    let made = [
        "5k2/8/8/8/8/8/8/4K2R w K - 0 1",
        "8/4k3/8/3pP3/8/8/8/4K3 w - d6 0 1",
        "8/8/8/R2pP2k/8/8/8/4K3 w - d6 0 1",
        "k7/2P5/8/8/8/8/8/4K3 w - - 0 1",
    ];
    suite.chain(tricky).chain(made).map(str::to_owned).collect()
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
    ] {
        assert!(n > 0, "no {what} check met");
    }
}
