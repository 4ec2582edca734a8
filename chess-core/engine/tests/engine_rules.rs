//! The engine's choices where the game's rules decide: Tiny Chess 86's touches.
//!
//! * It does not repeat a position a third time when it is winning, and does when a draw is the
//!   best it can get (repetitions are judged by `Game`, the rules the rules tests check against
//!   python-chess).
//! * It does not stalemate the opponent when it is winning.
//! * With `Random` on it varies among equally good moves; with it off it does not.

use che_engine::advisor::AdviceMode;
use che_engine::engine::Engine;
use che_engine::options::EngineOptions;
use che_engine::search::{GoParams, SearchControl};
use chess_core::{Game, Move, Position};

fn engine() -> Engine {
    Engine::new(EngineOptions {
        hash_mb: 4,
        advice_mode: AdviceMode::Off,
        ..EngineOptions::default()
    })
}

fn best(engine: &mut Engine, go: &GoParams) -> Move {
    engine
        .think(go, &SearchControl::new(), &mut |_| {})
        .best
        .expect("a move")
}

fn depth(d: u32) -> GoParams {
    GoParams {
        depth: Some(d),
        ..GoParams::default()
    }
}

/// From `p`, the engine's choice `m`, and a reversible reply `k` with a way back: the moves
/// `k, m⁻¹, k⁻¹, m, k, m⁻¹, k⁻¹` from `p.after(m)` reach `p` again with `p.after(m)` seen twice.
fn dance(p: &Position, m: Move) -> Option<Vec<Move>> {
    let q = p.after(m);
    let back = Move::normal(m.to(), m.from());
    for &k in q.legal_moves().iter() {
        let r = q.after(k);
        if !r.is_legal(back) {
            continue;
        }
        let s = r.after(back);
        let k_back = Move::normal(k.to(), k.from());
        if !s.is_legal(k_back) || s.after(k_back).hash() != p.hash() {
            continue;
        }
        return Some(vec![k, back, k_back, m, k, back, k_back]);
    }
    None
}

/// Sets up the dance for the engine's own first choice in `fen`; returns the game, the current
/// position (which is `fen`'s, seen twice) and the repeating move.
fn repetition_setup(engine: &mut Engine, fen: &str) -> (Game, Position, Move) {
    let p = Position::from_fen(fen).expect("fen");
    assert!(engine.set_position(p, &[]).is_ok());
    let m = best(engine, &depth(5));
    let moves = dance(&p, m).expect("a reversible dance");
    let start = p.after(m);
    let mut game = Game::new(start);
    for &mv in &moves {
        assert!(game.play(mv));
    }
    engine.new_game();
    assert!(engine.set_position(start, &moves).is_ok());
    assert_eq!(engine.position().hash(), p.hash());
    // Playing `m` again would be the third occurrence.
    let mut check = game.clone();
    assert!(check.play(m) && check.is_threefold_repetition());
    (game, p, m)
}

#[test]
fn the_winning_side_avoids_a_third_repetition() {
    let mut e = engine();
    // White has queen against king: far better than a draw.
    let (mut game, _, m) = repetition_setup(&mut e, "6k1/8/8/8/8/8/8/Q5K1 w - - 0 1");
    let choice = best(&mut e, &depth(5));
    assert_ne!(choice, m, "the engine repeated its own first choice");
    assert!(game.play(choice));
    assert!(!game.is_threefold_repetition());
}

#[test]
fn the_losing_side_takes_the_repetition() {
    let mut e = engine();
    // Black has a bare king against queen and rook: a draw is the best it can get.
    let (mut game, p, _) = repetition_setup(&mut e, "6k1/8/8/8/8/8/1R6/Q5K1 b - - 0 1");
    assert!(!p.is_check());
    let choice = best(&mut e, &depth(5));
    assert!(game.play(choice));
    assert!(
        game.is_threefold_repetition(),
        "{choice} does not claim the draw"
    );
}

#[test]
fn the_winning_side_does_not_stalemate() {
    // Qxa2 wins the knight but stalemates Black (king h8 boxed in by Kf7 and the h6 pawn, the h7
    // pawn blocked); Qd1 keeps the win.
    let fen = "7k/5K1p/7P/8/8/8/n1Q5/8 w - - 0 1";
    let pos = Position::from_fen(fen).expect("fen");
    let capture = pos.parse_uci("c2a2").expect("legal");
    assert!(pos.after(capture).is_stalemate());
    let mut e = engine();
    for d in 1..=4 {
        e.new_game();
        assert!(e.set_position(pos, &[]).is_ok());
        let go = GoParams {
            depth: Some(d),
            search_moves: vec!["c2a2".into(), "c2d1".into()],
            ..GoParams::default()
        };
        let choice = best(&mut e, &go);
        assert_eq!(choice.to_string(), "c2d1", "depth {d}");
    }
    // Unrestricted, whatever it plays is not stalemate.
    e.new_game();
    assert!(e.set_position(pos, &[]).is_ok());
    let choice = best(&mut e, &depth(4));
    assert!(!pos.after(choice).is_stalemate());
}

#[test]
fn random_choice_among_equally_good_moves() {
    let start = Position::startpos();
    let mut fixed = engine();
    let first = best(&mut fixed, &depth(3));
    let mut chosen = std::collections::BTreeSet::new();
    for seed in 1..=12u64 {
        let mut e = engine();
        assert!(e.set_option("Random", "true").is_ok());
        assert!(e.set_option("RandomMargin", "30").is_ok());
        assert!(e.set_option("RandomSeed", &seed.to_string()).is_ok());
        let mv = best(&mut e, &depth(3));
        assert!(start.is_legal(mv));
        chosen.insert(mv.to_string());
        // Without randomness the choice never changes.
        let mut again = engine();
        assert_eq!(best(&mut again, &depth(3)), first);
    }
    assert!(chosen.len() > 1, "{chosen:?}");
    // The same seed gives the same choice.
    let pick = |seed: &str| {
        let mut e = engine();
        assert!(e.set_option("Random", "true").is_ok());
        assert!(e.set_option("RandomMargin", "30").is_ok());
        assert!(e.set_option("RandomSeed", seed).is_ok());
        best(&mut e, &depth(3))
    };
    assert_eq!(pick("5"), pick("5"));
}
