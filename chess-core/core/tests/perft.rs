//! Perft counts against published references: the Chess Programming Wiki table, the 127-position
//! `perft.epd` suite and python-chess's tricky positions (see `data/README.md`).

mod common;

use chess_core::{divide, perft, Position};
use common::{suite_cases, tricky_cases, Case};

const CPW: &str = include_str!("data/cpw_perft_results.txt");

/// (name, FEN, [(depth, nodes)]) from the CPW table.
fn cpw_cases() -> Vec<Case> {
    CPW.lines()
        .filter(|l| !l.starts_with('#') && l.contains('|'))
        .map(|line| {
            let parts: Vec<&str> = line.split('|').map(str::trim).collect();
            let counts = parts[2]
                .split_whitespace()
                .enumerate()
                .map(|(i, n)| (i as u32 + 1, n.parse::<u64>().expect("count")))
                .collect();
            (parts[0].to_owned(), parts[1].to_owned(), counts)
        })
        .collect()
}

fn check(label: &str, fen: &str, depth: u32, expected: u64) {
    let pos = Position::from_fen(fen).unwrap_or_else(|e| panic!("{label}: {e}"));
    assert_eq!(perft(&pos, depth), expected, "{label} depth {depth}: {fen}");
}

#[test]
fn cpw_positions_to_depth_5() {
    let cases = cpw_cases();
    assert_eq!(cases.len(), 7);
    for (name, fen, counts) in cases {
        for (depth, nodes) in counts.into_iter().filter(|&(d, _)| d <= 5) {
            check(&name, &fen, depth, nodes);
        }
    }
}

#[test]
#[ignore = "slow: 119 million nodes"]
fn startpos_depth_6() {
    let (name, fen, counts) = cpw_cases().remove(0);
    check(&name, &fen, 6, counts[5].1);
}

/// Depths with at most this many nodes run in the quick suite.
const QUICK_NODE_LIMIT: u64 = 5_000_000;

#[test]
fn perft_suite_quick_depths() {
    let cases = suite_cases();
    assert_eq!(cases.len(), 127);
    for (i, (fen, counts)) in cases.iter().enumerate() {
        for &(depth, nodes) in counts.iter().filter(|&&(_, n)| n <= QUICK_NODE_LIMIT) {
            check(&format!("perft.epd line {}", i + 1), fen, depth, nodes);
        }
    }
}

#[test]
#[ignore = "slow: about 4.8 billion nodes"]
fn perft_suite_all_depths() {
    for (i, (fen, counts)) in suite_cases().iter().enumerate() {
        for &(depth, nodes) in counts {
            check(&format!("perft.epd line {}", i + 1), fen, depth, nodes);
        }
    }
}

#[test]
fn tricky_positions() {
    let cases = tricky_cases();
    assert_eq!(cases.len(), 13);
    for (id, fen, counts) in cases {
        assert!(!counts.is_empty(), "{id}");
        for (depth, nodes) in counts {
            check(&id, &fen, depth, nodes);
        }
    }
}

#[test]
fn inconsistent_castling_rights_in_standard_chess() {
    // tricky.perft's "asymmetrical-and-king-on-h" under standard rules: the `q` right is void (the
    // black king is not on e8). Counts from python-chess 1.11.2, `chess.Board(fen)` (standard
    // chess), perft by full expansion.
    let fen = "r2r3k/p7/3p4/8/8/P6P/8/R3K2R b KQq -";
    for (depth, nodes) in [(1, 14), (2, 206), (3, 3660), (4, 64409)] {
        check("asymmetrical-and-king-on-h (standard)", fen, depth, nodes);
    }
}

#[test]
fn divide_adds_up_to_perft() {
    // Kiwipete: 48 moves at the root, 2039 positions after two plies (CPW).
    let (_, fen, _) = cpw_cases().remove(1);
    let pos = Position::from_fen(&fen).expect("valid");
    let split = divide(&pos, 2);
    assert_eq!(split.len(), 48);
    assert_eq!(split.iter().map(|(_, n)| n).sum::<u64>(), 2039);
    assert_eq!(perft(&pos, 0), 1);
    assert!(divide(&pos, 0).is_empty());
}
