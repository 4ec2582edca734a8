//! Inputs from outside (FEN, EPD, SAN and UCI text) never panic, and the incremental hash always
//! equals the hash computed from scratch.

use chess_core::{perft, Epd, Position};

/// xorshift64, for reproducible random inputs.
fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

/// Random strings over the characters these notations use, plus a few others.
fn random_texts(seed: u64, count: usize) -> Vec<String> {
    const ALPHABET: &[char] = &[
        'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', '1', '2', '3', '4', '5', '6', '7', '8', '9', '0',
        'K', 'Q', 'R', 'B', 'N', 'P', 'k', 'q', 'r', 'n', 'p', 'w', 'x', '-', '=', '+', '#', '/',
        ' ', ';', '"', 'O', 'é', '\u{0}',
    ];
    let mut state = seed;
    (0..count)
        .map(|_| {
            let len = (next(&mut state) % 24) as usize;
            (0..len)
                .map(|_| ALPHABET[(next(&mut state) % ALPHABET.len() as u64) as usize])
                .collect()
        })
        .collect()
}

#[test]
fn random_text_never_panics() {
    let positions = [
        Position::startpos(),
        Position::from_fen("r3k2r/1P6/8/3pP3/8/8/8/R3K2R w KQkq d6 0 1").expect("valid"),
    ];
    for text in random_texts(0x5EED, 20_000) {
        let _ = Position::from_fen(&text);
        let _ = Epd::parse(&text);
        for pos in &positions {
            let _ = pos.parse_san(&text);
            let _ = pos.parse_uci(&text);
        }
    }
    // Mutations of a valid FEN reach deeper into the parser.
    let fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    let mut state = 99u64;
    for replacement in random_texts(7, 5_000) {
        let at = (next(&mut state) % fen.len() as u64) as usize;
        let mutated = format!(
            "{}{}{}",
            &fen[..at],
            replacement,
            &fen[(at + 1).min(fen.len())..]
        );
        if let Ok(pos) = Position::from_fen(&mutated) {
            // Anything accepted must be playable.
            assert_eq!(pos.hash(), pos.compute_hash());
            let _ = perft(&pos, 2);
        }
    }
}

fn walk(pos: &Position, depth: u32, visited: &mut u64) {
    assert_eq!(pos.hash(), pos.compute_hash(), "{}", pos.to_fen());
    *visited += 1;
    if depth == 0 {
        return;
    }
    for &mv in pos.legal_moves().iter() {
        walk(&pos.after(mv), depth - 1, visited);
    }
}

#[test]
fn incremental_hash_matches_scratch_hash() {
    // Kiwipete (castling, en passant) and CPW position 4 (promotions, captured rooks).
    for (fen, depth) in [
        (
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            3,
        ),
        (
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            4,
        ),
    ] {
        let mut visited = 0;
        walk(
            &Position::from_fen(fen).expect("valid"),
            depth,
            &mut visited,
        );
        assert!(visited > 10_000);
    }
}

#[test]
fn transpositions_hash_alike_and_side_matters() {
    let start = Position::startpos();
    let play = |moves: &[&str]| {
        let mut pos = start;
        for m in moves {
            let mv = pos.parse_san(m).expect(m);
            pos.play(mv);
        }
        pos
    };
    let a = play(&["Nf3", "Nf6", "Nc3"]);
    let b = play(&["Nc3", "Nf6", "Nf3"]);
    assert_eq!(a.hash(), b.hash());
    let mut passed = start;
    passed.play_null();
    assert_ne!(passed.hash(), start.hash());
    assert_eq!(passed.hash(), passed.compute_hash());
    // After e4 no black pawn can capture en passant, so no square is recorded (X-FEN rule).
    let e4 = play(&["e4"]);
    assert_eq!(e4.en_passant(), None);
    assert_eq!(
        e4.to_fen(),
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    );
}
