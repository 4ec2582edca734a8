//! The native Rust twin of the pattern-heavy advice program `benches/advice/patterns.che`.
//!
//! The program makes forty pattern tests (pieces on squares, piece counts on square sets, pawns
//! by file, king position) and sums them into a score that `main()` returns; it writes no
//! advice and prints nothing. [`patterns_score`] makes the same tests on the board view's
//! bitboards, the way an engine author would write them in Rust. [`check_patterns_twin`] holds
//! it equal to the program on every VM backend and every position it is given.

use che_engine::advisor::{Advisor, Backend, ProgramSource};
use che_engine::host::{board_view, AdviceHost};
use chess_core::Position;
use cvm_chess::board::BoardView;
use std::path::PathBuf;

use super::twin::TwinError;

/// The program's path: `benches/advice/patterns.che`.
pub fn patterns_path() -> PathBuf {
    crate::crate_dir().join("advice").join("patterns.che")
}

/// The score `main()` of `patterns.che` returns on `b`: the same forty tests on the board's
/// bitboards.
pub fn patterns_score(b: &BoardView) -> i32 {
    const FILE_A: u64 = 0x0101_0101_0101_0101;
    let file = |f: u32| FILE_A << f;
    let rank = |r: u32| 0xFFu64 << (8 * r);
    let sq = |name: &str| {
        let n = name.as_bytes();
        1u64 << ((n[1] - b'1') * 8 + (n[0] - b'a'))
    };
    let sqs = |names: &[&str]| names.iter().fold(0, |m, n| m | sq(n));
    let all = |set: u64, m: u64| set & m == m;
    let any = |set: u64, m: u64| set & m != 0;
    let count = |set: u64, m: u64| (set & m).count_ones();
    let p = &b.pieces;
    let side = |c: usize| p[c].iter().fold(0, |acc, &x| acc | x);
    let officers = |c: usize| p[c][1] | p[c][2] | p[c][3] | p[c][4];
    let king_in = |c: usize, m: u64| p[c][5] != 0 && p[c][5] & !m == 0;
    let (wp, bp, wn, bn) = (p[0][0], p[1][0], p[0][1], p[1][1]);
    let (w, bl) = (side(0), side(1));
    let mut s = 0;
    let mut add = |cond: bool, v: i32| {
        if cond {
            s += v;
        }
    };
    add(all(wp, sqs(&["d4", "e4"])), 10);
    add(all(bp, sqs(&["d5", "e5"])), -10);
    add(any(wp, sqs(&["c4", "d4", "e4", "f4"])), 3);
    add(any(bp, sqs(&["c5", "d5", "e5", "f5"])), -3);
    add(all(wn, sq("f3")), 4);
    add(all(bn, sq("f6")), -4);
    add(all(wn, sq("c3")), 2);
    add(all(bn, sq("c6")), -2);
    add(any(p[0][2], sqs(&["c4", "b5", "d3", "e2"])), 3);
    add(any(p[1][2], sqs(&["c5", "b4", "d6", "e7"])), -3);
    add(all(p[0][5], sq("g1")) && all(p[0][3], sq("f1")), 8);
    add(all(p[1][5], sq("g8")) && all(p[1][3], sq("f8")), -8);
    add(all(wp, sqs(&["f2", "g2", "h2"])), 5);
    add(all(bp, sqs(&["f7", "g7", "h7"])), -5);
    add(any(p[0][4], sqs(&["d1", "d2", "e2", "c2"])), 1);
    add(any(p[1][4], sqs(&["d8", "d7", "e7", "c7"])), -1);
    add(any(p[0][3], rank(6)), 6);
    add(any(p[1][3], rank(1)), -6);
    add(any(w, file(4)) && any(w, file(3)), 1);
    add(any(bl, file(4)) && any(bl, file(3)), -1);
    add((0..3).all(|f| count(wp, file(f)) >= 3), 2);
    add((0..3).all(|f| count(bp, file(f)) >= 3), -2);
    add(count(officers(0), rank(0)) > 2, -2);
    add(count(officers(1), rank(7)) > 2, 2);
    add(count(w, rank(3)) >= 4 && count(w, rank(4)) >= 4, 3);
    add(count(bl, rank(3)) >= 4 && count(bl, rank(4)) >= 4, -3);
    let no_centre = |set: u64| count(set, file(3)) == 0 && count(set, file(4)) == 0;
    add(no_centre(wp), -4);
    add(no_centre(bp), 4);
    add(no_centre(wp), -5);
    add(no_centre(bp), 5);
    add((0..8).any(|f| count(wp, file(f)) >= 2), -7);
    add((0..8).any(|f| count(bp, file(f)) >= 2), 7);
    add(count(wp | bp, file(0)) == 0, 1);
    add(count(wp | bp, file(7)) == 0, 1);
    let kside = file(4) | file(5) | file(6) | file(7);
    let centre = file(3) | file(4);
    add(king_in(0, kside), 2);
    add(king_in(1, kside), -2);
    add(king_in(0, centre), -3);
    add(king_in(1, centre), 3);
    let qq = file(0) | file(1) | file(2);
    let kk = file(5) | file(6) | file(7);
    add(
        (king_in(0, qq) && king_in(1, qq)) || (king_in(0, kk) && king_in(1, kk)),
        1,
    );
    add(
        all(wp, sq("e4")) && all(bp, sq("e5")) && all(wn, sq("f3")) && all(bn, sq("c6")),
        9,
    );
    s
}

/// Runs `patterns.che` (optimized, as the engine loads it) and the twin on every position, on
/// every VM backend, through the engine's advice session: the same value from `main()`, an
/// empty advice table and no printed line. Returns how many positions were compared.
pub fn check_patterns_twin(positions: &[Position]) -> Result<usize, TwinError> {
    let mut advisor = Advisor::load(&ProgramSource::File(patterns_path()))
        .map_err(|e| TwinError::Load(e.to_string()))?;
    for backend in Backend::ALL {
        let mut host = AdviceHost::new(&Position::startpos());
        let mut session = advisor
            .session(backend, &mut host)
            .map_err(|e| TwinError::Load(e.to_string()))?;
        for pos in positions {
            let fen = pos.to_fen();
            let run = session.run_root(pos).map_err(|message| TwinError::Run {
                backend,
                fen: fen.clone(),
                message,
            })?;
            let native = patterns_score(&board_view(pos));
            let differs = |what: String| TwinError::Differs {
                backend,
                fen: fen.clone(),
                what,
            };
            if run.value != Some(native) {
                return Err(differs(format!(
                    "main(): program {:?}, twin {native}",
                    run.value
                )));
            }
            if !run.output.is_empty() || !session.advice().is_empty() {
                return Err(differs("main(): printed lines or advice".into()));
            }
        }
    }
    Ok(positions.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_patterns_twin_matches_the_program_on_the_oracle_positions() {
        let positions = crate::oracle_positions();
        assert_eq!(positions.len(), 240);
        assert_eq!(check_patterns_twin(&positions).unwrap(), 240);
    }

    #[test]
    fn hand_computed_scores() {
        // The start position: every test that holds has its mirror image holding for Black
        // (f, g, h pawns at home, queens on d1/d8, pieces on the d and e files, six officers
        // on the back rank, kings on the king's side and centre files), so 0.
        let start = board_view(&Position::startpos());
        assert_eq!(patterns_score(&start), 0);
        // 1. e4 e5 2. Nf3 Nc6: the mirrored tests cancel as above; Nf3 is +4 and Nc6 -2 (no
        // black knight on f6, no white one on c3), and e4, e5, Nf3, Nc6 together +9.
        let open =
            Position::from_fen("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
                .unwrap();
        assert_eq!(patterns_score(&board_view(&open)), 4 - 2 + 9);
    }
}
