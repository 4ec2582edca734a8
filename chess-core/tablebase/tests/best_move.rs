//! Best moves and the one-ply consistency of the tables, checked through chess-core's own legal
//! move generator (which the generator does not use: it has its own moves and un-moves).
//!
//! * Consistency: the value of every position is the best of the values after each legal move
//!   (mate and stalemate as chess-core rules them), over all of KQK, KRK and KPK and a sample of
//!   KBNK.
//! * Best moves: the winner's move shortens the mate by exactly one ply and no move mates faster;
//!   the loser's move also shortens it by exactly one ply (never more than necessary) and no move
//!   resists longer; from the deepest positions and from random won positions, best play by both
//!   sides ends in checkmate after exactly the predicted plies.
//! * Symmetry: every position has the value of its images under the board's symmetries (eight for
//!   pawnless endings, the left-right mirror with a pawn) and of its colour-swapped mirror.

mod common;

use che_tablebase::{Material, Outcome, Side, Tablebase};
use chess_core::{Colour, Move, Position};
use common::{colour_mirror, for_each_position, men_letters, position, tablebase, Rng, SYMMETRIES};

/// The outcome expected after the best move from a position worth `outcome`.
fn after_best(outcome: Outcome) -> Outcome {
    match outcome {
        Outcome::Win { plies } => Outcome::Loss { plies: plies - 1 },
        Outcome::Loss { plies } => Outcome::Win { plies: plies - 1 },
        Outcome::Draw => Outcome::Draw,
    }
}

/// Checks the value of `pos` against its children, and the best move against all moves.
fn check_one_ply(tb: &Tablebase, pos: &Position) {
    let value = tb.probe(pos).expect("a tabled position");
    let moves = pos.legal_moves();
    if moves.is_empty() {
        let expected = if pos.is_checkmate() {
            Outcome::Loss { plies: 0 }
        } else {
            Outcome::Draw
        };
        assert_eq!(value, expected, "{}", pos.to_fen());
        assert_eq!(tb.best_move(pos), None);
        return;
    }
    let child_value = |mv: Move| {
        tb.probe(&pos.after(mv))
            .unwrap_or_else(|| panic!("no value after {mv} in {}", pos.to_fen()))
    };
    let best = moves
        .as_slice()
        .iter()
        .map(|&mv| child_value(mv).parent())
        .max_by_key(|outcome| outcome.preference())
        .expect("at least one move");
    assert_eq!(value, best, "{}", pos.to_fen());
    let chosen = tb.best_move(pos).expect("a best move");
    assert!(pos.is_legal(chosen));
    assert_eq!(
        child_value(chosen),
        after_best(value),
        "{} {chosen}",
        pos.to_fen()
    );
}

#[test]
fn kqk_krk_and_kpk_are_consistent_at_every_position() {
    let tb = tablebase();
    for material in [Material::Kqk, Material::Krk, Material::Kpk] {
        let mut count = 0u64;
        for_each_position(material, |_, pos| {
            check_one_ply(tb, pos);
            count += 1;
        });
        assert!(count > 300_000, "{material}: {count}");
    }
}

#[test]
fn kbnk_is_consistent_at_sampled_positions() {
    let tb = tablebase();
    let mut rng = Rng::new(0x5EED_4B42);
    for _ in 0..100_000 {
        check_one_ply(tb, &rng.position(Material::Kbnk));
    }
}

/// Plays best moves for both sides from `pos`; the distance must fall by one ply per move and
/// the game end in checkmate exactly when predicted.
fn play_out(tb: &Tablebase, start: &Position) {
    let mut pos = *start;
    let mut value = tb.probe(&pos).expect("a tabled position");
    let plies = match value {
        Outcome::Win { plies } | Outcome::Loss { plies } => plies,
        Outcome::Draw => return,
    };
    for _ in 0..plies {
        let mv = tb
            .best_move(&pos)
            .unwrap_or_else(|| panic!("no move in {}", pos.to_fen()));
        assert!(pos.is_legal(mv));
        pos = pos.after(mv);
        let next = tb.probe(&pos).expect("still tabled");
        assert_eq!(
            next,
            after_best(value),
            "from {} after {mv}",
            start.to_fen()
        );
        value = next;
    }
    assert!(pos.is_checkmate(), "{} -> {}", start.to_fen(), pos.to_fen());
    assert_eq!(tb.best_move(&pos), None);
}

#[test]
fn deepest_positions_play_out_to_mate_in_exactly_their_distance() {
    let tb = tablebase();
    for material in Material::ALL {
        for side in Side::BOTH {
            let (pos, _) = tb
                .table(material)
                .deepest(side)
                .expect("a deepest position");
            play_out(tb, &pos);
            play_out(tb, &colour_mirror(&pos));
        }
    }
}

#[test]
fn random_positions_play_out_to_mate_in_exactly_their_distance() {
    let tb = tablebase();
    let mut rng = Rng::new(0xB0A7_5EED);
    for material in Material::ALL {
        for i in 0..400 {
            let pos = rng.position(material);
            let pos = if i % 2 == 0 { pos } else { colour_mirror(&pos) };
            play_out(tb, &pos);
        }
    }
}

#[test]
fn drawn_kpk_positions_stay_drawn_under_best_play() {
    let tb = tablebase();
    let mut rng = Rng::new(0xD2A3);
    let mut drawn = 0;
    while drawn < 200 {
        let mut pos = rng.position(Material::Kpk);
        if tb.probe(&pos) != Some(Outcome::Draw) || pos.legal_moves().is_empty() {
            continue;
        }
        drawn += 1;
        for _ in 0..20 {
            let Some(mv) = tb.best_move(&pos) else {
                break;
            };
            pos = pos.after(mv);
            assert_eq!(tb.probe(&pos), Some(Outcome::Draw), "{}", pos.to_fen());
        }
    }
}

#[test]
fn a_rook_promotion_wins_where_the_queen_stalemates() {
    // The under-promotion must come from the KRK table: promoting to a queen stalemates (as
    // chess-core rules it), promoting to a rook wins, and the best move is the rook promotion.
    let tb = tablebase();
    let mut found = 0;
    for_each_position(Material::Kpk, |_, pos| {
        let Some(mv) = tb.best_move(pos) else {
            return;
        };
        if mv.promotion_kind() != Some(chess_core::PieceKind::Rook) {
            return;
        }
        let queen = Move::promotion(mv.from(), mv.to(), chess_core::PieceKind::Queen);
        if pos.is_legal(queen) && pos.after(queen).is_stalemate() {
            assert!(matches!(tb.probe(pos), Some(Outcome::Win { .. })));
            found += 1;
        }
    });
    assert!(found > 0, "no KPK position needs a rook promotion");
}

#[test]
fn symmetric_images_and_colour_mirrors_have_equal_values() {
    let tb = tablebase();
    let mut rng = Rng::new(0x51_4D);
    for material in Material::ALL {
        let men = men_letters(material).len();
        for _ in 0..2_000 {
            let squares: Vec<u8> = (0..2 + men).map(|_| rng.below(64) as u8).collect();
            let white_to_move = rng.below(2) == 0;
            let Some(pos) = position(material, &squares, white_to_move) else {
                continue;
            };
            let value = tb.probe(&pos);
            assert!(value.is_some());
            assert_eq!(tb.probe(&colour_mirror(&pos)), value, "{}", pos.to_fen());
            let symmetries: &[fn(u8) -> u8] = if material == Material::Kpk {
                &SYMMETRIES[..2]
            } else {
                &SYMMETRIES
            };
            for sym in symmetries {
                let image: Vec<u8> = squares.iter().map(|&s| sym(s)).collect();
                let image = position(material, &image, white_to_move).expect("legal image");
                assert_eq!(
                    tb.probe(&image),
                    value,
                    "{} vs {}",
                    pos.to_fen(),
                    image.to_fen()
                );
            }
        }
    }
}

#[test]
fn probes_outside_the_endings_answer_none_or_draw() {
    let tb = tablebase();
    let fen = |text: &str| Position::from_fen(text).expect("valid FEN");
    assert_eq!(tb.probe(&Position::startpos()), None);
    assert_eq!(tb.best_move(&Position::startpos()), None);
    // Castling rights are not modelled.
    let castling = fen("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1");
    assert_eq!(tb.probe(&castling), None);
    assert!(tb.probe(&fen("4k3/8/8/8/8/8/8/R3K3 w - - 0 1")).is_some());
    // Extra material.
    assert_eq!(tb.probe(&fen("4k3/8/8/8/8/8/P7/R3K3 w - - 0 1")), None);
    // Insufficient material is a draw in the bundle, not a table of its own.
    assert_eq!(
        tb.probe(&fen("4k3/8/8/8/8/8/8/4K3 w - - 0 1")),
        Some(Outcome::Draw)
    );
    assert_eq!(
        tb.probe(&fen("4k3/8/8/8/8/8/8/2B1K3 b - - 0 1")),
        Some(Outcome::Draw)
    );
    // A table answers only for its own ending.
    let kqk = fen("4k3/8/8/8/8/8/8/Q3K3 w - - 0 1");
    assert!(tb.table(Material::Kqk).probe(&kqk).is_some());
    assert_eq!(tb.table(Material::Krk).probe(&kqk), None);
    // Black as the strong side.
    let black_kbnk = fen("4k3/8/8/3bn3/8/8/8/4K3 w - - 0 1");
    assert_eq!(
        Material::identify(&black_kbnk),
        Some((Material::Kbnk, Colour::Black))
    );
    assert!(matches!(tb.probe(&black_kbnk), Some(Outcome::Loss { .. })));
}
