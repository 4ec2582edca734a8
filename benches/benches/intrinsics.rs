//! The chess intrinsics' bitboard work, measured side by side in one run.
//!
//! * `slider_attacks`: rook plus bishop attacks from every square of 240
//!   positions (the oracle positions of chess-core's intrinsics tests):
//!   through the intrinsics' adapter (`cvm_chess::attacks`, square numbers
//!   and `u64` sets) against chess-core's magic bitboards called directly.
//!   The adapter holds no attack code of its own; this says what it costs.
//! * `patterns`: the square set of each pattern function over the same
//!   positions, i.e. the work one `GetControl`, `GetExchngCtrl`, ... call
//!   does before it writes its list.
//!
//! Run: `cargo bench -p che-benches --bench intrinsics`. Results:
//! `docs/benchmarks.md`, "Chess intrinsics".

use che_benches::oracle_positions;
use che_engine::host::board_view;
use chess_core::{Bitboard, Position, Square};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use cvm_chess::board::BoardView;
use cvm_chess::{attacks, lit, pattern};
use std::hint::black_box;

/// The oracle positions with their board views.
fn positions() -> Vec<(Position, BoardView)> {
    oracle_positions()
        .into_iter()
        .map(|pos| {
            let board = board_view(&pos);
            (pos, board)
        })
        .collect()
}

fn slider_attacks(c: &mut Criterion) {
    let boards = positions();
    assert!(boards.len() >= 200);
    let occupancies: Vec<u64> = boards.iter().map(|(_, b)| b.occupied()).collect();
    let squares: Vec<Square> = (0..64u8).filter_map(Square::from_index).collect();
    // Both paths must agree before anything is timed.
    for &occ in &occupancies {
        for sq in &squares {
            let i = sq.index();
            assert_eq!(
                attacks::rook(i, occ),
                chess_core::attacks::rook_attacks(*sq, Bitboard(occ)).0
            );
            assert_eq!(
                attacks::bishop(i, occ),
                chess_core::attacks::bishop_attacks(*sq, Bitboard(occ)).0
            );
        }
    }
    let mut g = c.benchmark_group("slider_attacks");
    g.throughput(Throughput::Elements((occupancies.len() * 64) as u64));
    g.bench_function("cvm-chess adapter", |b| {
        b.iter(|| {
            let mut acc = 0u64;
            for &occ in &occupancies {
                for i in 0..64 {
                    acc ^= attacks::rook(i, black_box(occ)) ^ attacks::bishop(i, black_box(occ));
                }
            }
            acc
        })
    });
    g.bench_function("chess-core magic", |b| {
        b.iter(|| {
            let mut acc = 0u64;
            for &occ in &occupancies {
                for sq in &squares {
                    let o = Bitboard(black_box(occ));
                    acc ^= chess_core::attacks::rook_attacks(*sq, o).0
                        ^ chess_core::attacks::bishop_attacks(*sq, o).0;
                }
            }
            acc
        })
    });
    g.finish();
}

/// A pattern's square set as a function of the board.
type PatternSet<'a> = dyn Fn(&BoardView) -> u64 + 'a;

fn patterns(c: &mut Criterion) {
    let boards: Vec<BoardView> = positions().into_iter().map(|(_, b)| b).collect();
    let any_piece = lit::parse_piece("??").expect("piece");
    let white_pawn = lit::parse_piece("wP").expect("piece");
    let mut g = c.benchmark_group("patterns");
    g.throughput(Throughput::Elements(boards.len() as u64));
    let cases: [(&str, &PatternSet<'_>); 6] = [
        ("PcOnSqrs wP", &|b| pattern::piece_set(b, white_pawn)),
        ("DblPwns ?", &|b| pattern::doubled_pawns(b, lit::ANY_COLOUR)),
        ("Passed ?", &|b| pattern::passed_pawns(b, lit::ANY_COLOUR)),
        ("POnLine ?", &|b| {
            u64::from(pattern::pawn_files(b, lit::ANY_COLOUR, lit::COMPOP_BASE, 0))
        }),
        ("Control ??", &|b| pattern::control(b, any_piece)),
        ("ExchngCtrl w", &|b| {
            pattern::exchange_control(b, lit::WHITE)
        }),
    ];
    for (name, f) in cases {
        g.bench_function(name, |bench| {
            bench.iter(|| boards.iter().fold(0u64, |acc, b| acc ^ f(black_box(b))))
        });
    }
    g.finish();
}

criterion_group!(benches, slider_attacks, patterns);
criterion_main!(benches);
