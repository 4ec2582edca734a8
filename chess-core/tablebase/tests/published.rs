//! The tables against published facts and against the python-chess reference counts.
//!
//! * Longest mates, with the strong side to move: KQK 10 moves, KRK 16 moves, KBNK 33 moves
//!   (Wikipedia, "Checkmate", section "Basic checkmates": the queen mates in at most ten moves,
//!   the rook in at most sixteen; "Bishop and knight checkmate": "with the stronger side to move,
//!   checkmate can be forced in at most thirty-three moves"; the figures go back to the
//!   tablebases of Ströhlein (1970) and Thompson).
//! * KRK, lone king to move, counted as positions up to the board's eight symmetries: the class
//!   distribution of the KRK database of Bain and van Hoff (UCI Machine Learning Repository,
//!   "Chess (King-Rook vs. King)", 1994, 28,056 positions, "the same as Clarke's (1977)
//!   database"), and OEIS A358339 (the same counts by ply, including the strong side to move).
//! * KQK, lone king to move, on the whole board: 23,048 draws (Wikibooks, "Chess/Analysis of KQK
//!   Endgame").
//! * KQK, KRK and KPK on the whole board, both sides to move: the number of positions at every
//!   distance and the draws, against `tests/data/reference_counts.txt` computed by an independent
//!   retrograde analysis in Python on python-chess's move generator (`gen_reference.py`).

mod common;

use che_tablebase::{Material, Outcome, Side};
use chess_core::Position;
use common::{for_each_position, tablebase, SYMMETRIES};
use std::collections::BTreeMap;

fn deepest(material: Material, side: Side) -> (Position, Outcome) {
    tablebase()
        .table(material)
        .deepest(side)
        .expect("every ending has a forced mate")
}

#[test]
fn longest_kqk_mate_is_ten_moves() {
    let (pos, outcome) = deepest(Material::Kqk, Side::Strong);
    assert_eq!(outcome, Outcome::Win { plies: 19 }, "{}", pos.to_fen());
    assert_eq!(outcome.moves(), Some(10));
}

#[test]
fn longest_krk_mate_is_sixteen_moves() {
    let (pos, outcome) = deepest(Material::Krk, Side::Strong);
    assert_eq!(outcome, Outcome::Win { plies: 31 }, "{}", pos.to_fen());
    assert_eq!(outcome.moves(), Some(16));
}

#[test]
fn longest_kbnk_mate_is_thirty_three_moves() {
    let (pos, outcome) = deepest(Material::Kbnk, Side::Strong);
    assert_eq!(outcome, Outcome::Win { plies: 65 }, "{}", pos.to_fen());
    assert_eq!(outcome.moves(), Some(33));
}

#[test]
fn the_lone_king_to_move_is_never_mated_later_than_the_strong_side_to_move_allows() {
    // A position with the lone king to move lost in p plies has a child won in p - 1 plies, so
    // the deepest loss is exactly one ply deeper than some win: KQK 20, KRK 32, KBNK 66.
    for (material, plies) in [
        (Material::Kqk, 20),
        (Material::Krk, 32),
        (Material::Kbnk, 66),
    ] {
        let (pos, outcome) = deepest(material, Side::Weak);
        assert_eq!(
            outcome,
            Outcome::Loss { plies },
            "{material} {}",
            pos.to_fen()
        );
    }
}

/// Counts of KRK positions up to symmetry with `white_to_move`, by value, from the table probed
/// on one representative per symmetry class; the classes are found here, independently of the
/// crate's index, as the positions whose square tuple is the least among its eight images.
fn krk_classes(white_to_move: bool) -> BTreeMap<Option<u8>, u64> {
    let table = tablebase().table(Material::Krk);
    let mut counts = BTreeMap::new();
    for_each_position(Material::Krk, |squares, pos| {
        if (pos.side_to_move() == chess_core::Colour::White) != white_to_move {
            return;
        }
        let least = SYMMETRIES
            .iter()
            .map(|sym| [sym(squares[0]), sym(squares[1]), sym(squares[2])])
            .min()
            .expect("eight images");
        if least[..] != squares[..] {
            return;
        }
        let key = match table.probe(pos).expect("a KRK position") {
            Outcome::Draw => None,
            Outcome::Win { plies } | Outcome::Loss { plies } => Some(plies),
        };
        *counts.entry(key).or_insert(0) += 1;
    });
    counts
}

#[test]
fn krk_black_to_move_distribution_matches_bain_and_van_hoff() {
    // krkopt.info, "Class Distribution": draw 2796, then lost in zero ... sixteen moves.
    let published: [u64; 17] = [
        27, 78, 246, 81, 198, 471, 592, 683, 1433, 1712, 1985, 2854, 3597, 4194, 4553, 2166, 390,
    ];
    let mut expected: BTreeMap<Option<u8>, u64> = BTreeMap::new();
    expected.insert(None, 2796);
    for (moves, &count) in published.iter().enumerate() {
        expected.insert(Some(2 * moves as u8), count);
    }
    assert_eq!(expected.values().sum::<u64>(), 28_056);
    assert_eq!(krk_classes(false), expected);

    // The table's own count of its canonical entries must agree with the independent classes.
    let counts = tablebase().table(Material::Krk).counts(Side::Weak);
    assert_eq!(counts.draws, 2796);
    assert_eq!(counts.total(), 28_056);
    for (moves, &count) in published.iter().enumerate() {
        assert_eq!(counts.mates[2 * moves], count, "lost in {moves} moves");
    }
}

#[test]
fn krk_white_to_move_short_mates_match_oeis_a358339() {
    // A358339, column n = 8 (the 8x8 board), odd k (the rook's side to move): mate in 1 to 5
    // moves = 1, 3, ..., 9 plies. (Its even k for n = 8 are the Bain and van Hoff counts above.
    // The example table we read also gives 1097 for k = 11, where this table and the
    // independent python-chess solver both find 1091 classes; that copy of the entry is not
    // self-consistent either (A(6,0) is 14 in its table and 13 in its data), so only k <= 9 are
    // asserted here.)
    let published = [(1u8, 189u64), (3, 587), (5, 484), (7, 238), (9, 607)];
    let classes = krk_classes(true);
    for (plies, count) in published {
        assert_eq!(
            classes.get(&Some(plies)),
            Some(&count),
            "mate in {plies} plies"
        );
    }
    assert_eq!(
        classes.get(&None),
        None,
        "the rook's side always wins on its move"
    );
}

/// The python-chess counts for `material`: (white to move, value) -> positions.
fn reference_counts(material: Material) -> BTreeMap<(bool, Option<u8>), u64> {
    include_str!("data/reference_counts.txt")
        .lines()
        .filter(|line| !line.starts_with('#'))
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let [name, side, value, count] = fields[..] else {
                panic!("bad line {line}");
            };
            (name == material.name()).then(|| {
                let value = (value != "draw").then(|| value.parse::<u8>().expect("plies"));
                ((side == "w", value), count.parse::<u64>().expect("count"))
            })
        })
        .collect()
}

fn whole_board_counts(material: Material) -> BTreeMap<(bool, Option<u8>), u64> {
    let table = tablebase().table(material);
    let mut counts = BTreeMap::new();
    for_each_position(material, |_, pos| {
        let white = pos.side_to_move() == chess_core::Colour::White;
        let value = match table.probe(pos).expect("a position of the ending") {
            Outcome::Draw => None,
            Outcome::Win { plies } | Outcome::Loss { plies } => Some(plies),
        };
        *counts.entry((white, value)).or_insert(0) += 1;
    });
    counts
}

#[test]
fn kqk_drawn_positions_match_wikibooks() {
    // Wikibooks, "Chess/Analysis of KQK Endgame": "There are a total of 23,048 drawn positions in
    // the KQK endgame" (all positions on the board, the lone king to move: stalemates and
    // positions where it can take the queen).
    let counts = whole_board_counts(Material::Kqk);
    assert_eq!(counts.get(&(false, None)), Some(&23_048));
    assert_eq!(
        counts.get(&(true, None)),
        None,
        "the queen's side always wins on its move"
    );
}

#[test]
fn kqk_counts_match_python_chess() {
    let reference = reference_counts(Material::Kqk);
    assert!(!reference.is_empty());
    assert_eq!(whole_board_counts(Material::Kqk), reference);
}

#[test]
fn krk_counts_match_python_chess() {
    let reference = reference_counts(Material::Krk);
    assert!(!reference.is_empty());
    assert_eq!(whole_board_counts(Material::Krk), reference);
}

#[test]
fn kpk_counts_match_python_chess() {
    let reference = reference_counts(Material::Kpk);
    assert!(!reference.is_empty());
    let counts = whole_board_counts(Material::Kpk);
    assert_eq!(counts, reference);
    // The win/draw/loss totals (the pawn on any file; halve them for files a-d only).
    let total = |white: bool, pick: fn(Option<u8>) -> bool| -> u64 {
        counts
            .iter()
            .filter(|((w, value), _)| *w == white && pick(*value))
            .map(|(_, &n)| n)
            .sum()
    };
    let won = |v: Option<u8>| v.is_some_and(|p| p % 2 == 1);
    let drawn = |v: Option<u8>| v.is_none();
    let lost = |v: Option<u8>| v.is_some_and(|p| p % 2 == 0);
    let summary = [
        total(true, won),
        total(true, drawn),
        total(true, lost),
        total(false, won),
        total(false, drawn),
        total(false, lost),
    ];
    assert_eq!(summary, KPK_WIN_DRAW_LOSS);
}

/// KPK on the whole board with the pawn White's: White to move won / drawn / lost, then Black
/// to move won / drawn / lost (for Black). Equal to the python-chess counts above; see
/// docs/tablebase.md.
const KPK_WIN_DRAW_LOSS: [u64; 6] = [124_960, 38_368, 0, 0, 70_420, 97_604];
