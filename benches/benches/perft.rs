//! Perft speed of chess-core against cozy-chess and shakmaty, measured side by side in one run.
//!
//! All three count the last ply in bulk: chess-core with `perft` (population counts of the legal
//! target sets at depth 1), cozy-chess by summing `PieceMoves::len()` over `generate_moves` at depth
//! 1, shakmaty with `legal_moves().len()` at depth 1. Interior nodes are expanded by copy-make in all
//! three. Before timing, each library's count is checked against the published value.
//!
//! The clock is the benchmark thread's CPU time, not wall time: the project's machines have two
//! cores shared with whatever else is building, and time spent descheduled would otherwise land on
//! whichever library happened to run then. On an idle machine the two agree. Set
//! `BENCH_CLOCK=wall` to measure wall time instead (see `che_benches::clock`).
//!
//! Run: `cargo bench -p che-benches --bench perft`. Results and ratios: `docs/benchmarks.md`.

use che_benches::clock::Clock;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use shakmaty::{fen::Fen, CastlingMode, Chess, Position as _};
use std::hint::black_box;

/// (name, FEN, depth, published node count).
const CASES: [(&str, &str, u32, u64); 3] = [
    (
        "startpos",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        6,
        119_060_324,
    ),
    (
        "kiwipete",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        5,
        193_690_690,
    ),
    (
        "cpw-pos6",
        "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
        5,
        164_075_551,
    ),
];

fn cozy_perft(board: &cozy_chess::Board, depth: u32) -> u64 {
    let mut nodes = 0u64;
    if depth == 1 {
        board.generate_moves(|moves| {
            nodes += moves.len() as u64;
            false
        });
    } else {
        board.generate_moves(|moves| {
            for mv in moves {
                let mut child = board.clone();
                child.play_unchecked(mv);
                nodes += cozy_perft(&child, depth - 1);
            }
            false
        });
    }
    nodes
}

fn shakmaty_perft(pos: &Chess, depth: u32) -> u64 {
    let moves = pos.legal_moves();
    if depth == 1 {
        moves.len() as u64
    } else {
        moves
            .iter()
            .map(|&mv| {
                let mut child = pos.clone();
                child.play_unchecked(mv);
                shakmaty_perft(&child, depth - 1)
            })
            .sum()
    }
}

fn bench_perft(c: &mut Criterion<Clock>) {
    for (name, fen, depth, expected) in CASES {
        let che = chess_core::Position::from_fen(fen).expect("valid FEN");
        let cozy: cozy_chess::Board = fen.parse().expect("valid FEN");
        let shak: Chess = fen
            .parse::<Fen>()
            .expect("valid FEN")
            .into_position(CastlingMode::Standard)
            .expect("legal position");
        assert_eq!(
            chess_core::perft(&che, depth),
            expected,
            "chess-core {name}"
        );
        assert_eq!(cozy_perft(&cozy, depth), expected, "cozy-chess {name}");
        assert_eq!(shakmaty_perft(&shak, depth), expected, "shakmaty {name}");

        let mut group = c.benchmark_group(format!("perft/{name}-d{depth}"));
        group.sample_size(10);
        group.throughput(Throughput::Elements(expected));
        group.bench_function("chess-core", |b| {
            b.iter(|| chess_core::perft(black_box(&che), depth))
        });
        group.bench_function("cozy-chess", |b| {
            b.iter(|| cozy_perft(black_box(&cozy), depth))
        });
        group.bench_function("shakmaty", |b| {
            b.iter(|| shakmaty_perft(black_box(&shak), depth))
        });
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().with_measurement(Clock::from_env());
    targets = bench_perft
}
criterion_main!(benches);
