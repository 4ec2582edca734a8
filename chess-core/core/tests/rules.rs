//! Playing whole games against python-chess's record (`data/game_cases.txt`): SAN of each move,
//! the FEN after it (placement, rights, en passant, clocks), the incremental hash, and the rule
//! verdicts — check, checkmate, stalemate, insufficient material, threefold repetition, fifty moves.

use chess_core::{Game, Outcome, Position};

const GAMES: &str = include_str!("data/game_cases.txt");

#[test]
fn random_games_follow_python_chess() {
    let mut game: Option<Game> = None;
    let (mut games, mut plies, mut repetitions, mut fifties) = (0, 0, 0, 0);
    for line in GAMES.lines().filter(|l| !l.starts_with('#')) {
        if let Some(fen) = line.strip_prefix("game ") {
            game = Some(Game::new(Position::from_fen(fen).expect(fen)));
            games += 1;
            continue;
        }
        let rest = line.strip_prefix("ply ").expect("ply line");
        let mut fields = rest.splitn(4, ' ');
        let (uci, san, flags, fen) = (
            fields.next().expect("uci"),
            fields.next().expect("san"),
            fields.next().expect("flags"),
            fields.next().expect("fen"),
        );
        let game = game.as_mut().expect("game first");
        let before = *game.position();
        let mv = before.parse_uci(uci).expect(uci);
        assert_eq!(before.san(mv), san, "{}", before.to_fen());
        assert!(game.play(mv));
        let pos = game.position();
        assert_eq!(pos.to_fen(), fen, "after {uci}");
        assert_eq!(pos.hash(), pos.compute_hash(), "{fen}");
        let f: Vec<bool> = flags.chars().map(|c| c == '1').collect();
        assert_eq!(pos.is_check(), f[0], "check {fen}");
        assert_eq!(pos.is_checkmate(), f[1], "mate {fen}");
        assert_eq!(pos.is_stalemate(), f[2], "stalemate {fen}");
        assert_eq!(pos.is_insufficient_material(), f[3], "material {fen}");
        assert_eq!(game.is_threefold_repetition(), f[4], "threefold {fen}");
        assert_eq!(
            pos.is_fifty_move_draw() && pos.has_legal_move(),
            f[5],
            "fifty {fen}"
        );
        plies += 1;
        repetitions += f[4] as u32;
        fifties += f[5] as u32;
    }
    assert!(games >= 40 && plies > 5000);
    assert!(
        repetitions > 5 && fifties > 5,
        "data exercises the draw rules"
    );
}

fn play_san(game: &mut Game, moves: &str) {
    for san in moves.split_whitespace() {
        let mv = game.position().parse_san(san).expect(san);
        assert!(game.play(mv));
    }
}

#[test]
fn threefold_by_knight_shuffle() {
    // The start position occurs after 0, 4 and 8 plies.
    let mut game = Game::new(Position::startpos());
    play_san(&mut game, "Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1");
    assert_eq!(
        game.repetition_count(),
        2,
        "position after Ng1 (second time)"
    );
    assert_eq!(game.outcome(), None);
    play_san(&mut game, "Ng8");
    assert_eq!(game.repetition_count(), 3);
    assert_eq!(game.outcome(), Some(Outcome::ThreefoldRepetition));
    assert_eq!(game.undo().map(|m| m.to_string()), Some("f6g8".to_owned()));
    assert!(!game.is_threefold_repetition());
}

#[test]
fn lost_castling_rights_make_a_different_position() {
    // Ke2 Ke7 Ke1 Ke8 returns to the same placement, but without castling rights.
    let mut game = Game::new(Position::startpos());
    play_san(&mut game, "e4 e5 Ke2 Ke7 Ke1 Ke8 Ke2 Ke7 Ke1 Ke8");
    assert_eq!(
        game.repetition_count(),
        2,
        "the first e4 e5 position had rights"
    );
    play_san(&mut game, "Ke2 Ke7 Ke1 Ke8");
    assert!(game.is_threefold_repetition());
}

#[test]
fn outcomes() {
    let mate = Game::new(
        Position::from_fen("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3")
            .expect("fool's mate"),
    );
    assert_eq!(
        mate.outcome(),
        Some(Outcome::Checkmate {
            winner: chess_core::Colour::Black
        })
    );
    let stalemate = Game::new(Position::from_fen("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1").expect("valid"));
    assert_eq!(stalemate.outcome(), Some(Outcome::Stalemate));
    let bare = Game::new(Position::from_fen("8/8/4k3/8/8/2B5/4K3/8 w - - 0 1").expect("valid"));
    assert_eq!(bare.outcome(), Some(Outcome::InsufficientMaterial));
    let fifty = Game::new(Position::from_fen("8/8/4k3/8/8/2R5/4K3/8 w - - 100 80").expect("valid"));
    assert_eq!(fifty.outcome(), Some(Outcome::FiftyMoveRule));
    // Mate on the hundredth half-move wins rather than draws.
    let late_mate =
        Game::new(Position::from_fen("7k/6Q1/6K1/8/8/8/8/8 b - - 100 90").expect("valid"));
    assert!(matches!(
        late_mate.outcome(),
        Some(Outcome::Checkmate { .. })
    ));
}

#[test]
fn illegal_moves_are_refused() {
    let mut game = Game::new(Position::startpos());
    let pos = *game.position();
    let e2e5 = chess_core::Move::normal(chess_core::Square::E2, chess_core::Square::E5);
    assert!(!game.play(e2e5));
    assert_eq!(game.position(), &pos);
    assert!(game.moves().is_empty());
}
