//! The worked example of `docs/che3.md`: the example file and the
//! converter's output are what the document shows, and the advice table is
//! what it describes, on both backends with and without the optimizer, for
//! the direct compilation and the conversion alike.

mod common;

use common::{entries, sq};
use cvm_chess::BoardView;
use std::path::Path;

const DOC: &str = include_str!("../../../docs/che3.md");
const EXAMPLE: &str = include_str!("../examples/french.che3");
const AFTER_C5: &str = "rnbqkbnr/pp3ppp/4p3/2ppP3/3P4/8/PPP2PPP/RNBQKBNR w KQkq c6 0 4";

/// The code blocks of the worked example's section.
fn blocks() -> Vec<String> {
    let section = DOC
        .split("## A worked example")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("the section");
    section
        .split("```\n")
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

fn converted() -> String {
    let loader = che3::MemLoader::with(&[("french.che3", EXAMPLE)]);
    che3::convert_with(
        &loader,
        Path::new("french.che3"),
        &che3::CompileOptions::default(),
    )
    .chepp
    .expect("converts")
}

#[test]
fn the_document_shows_the_file_and_the_conversion() {
    let b = blocks();
    assert_eq!(b.len(), 2);
    assert_eq!(b[0], EXAMPLE);
    let text = converted();
    for paragraph in b[1].split("\n\n") {
        assert!(
            text.contains(paragraph.trim_end()),
            "not in the conversion:\n{paragraph}"
        );
    }
}

#[test]
fn the_table_after_c5_is_the_described_one() {
    let program = common::compile_files(&[("french.che3", EXAMPLE)]);
    let board = BoardView::from_fen(AFTER_C5).unwrap();
    let t = common::advice(&program, &board);
    let mut want = vec![
        ("move", 0, sq("c2"), sq("c3"), 20),
        ("move", 0, sq("g1"), sq("f3"), 20),
        ("move", 0, sq("e1"), sq("g1"), 20),
        ("square", 0, 1, sq("f3"), 20),
        ("move", 1, sq("f7"), sq("f6"), 20),
        ("move", 1, sq("d8"), sq("b6"), 40),
        ("square", 1, 1, sq("c6"), 20),
    ];
    for s in ["b1", "c2", "d3", "e4", "f5", "g6", "h7"] {
        want.push(("square", 0, 2, sq(s), 20));
    }
    for k in [0, 1, 2, 3, 5] {
        want.push(("control", 1, k, sq("d4"), 30));
    }
    for s in 0..64 {
        let light = (s % 8 + s / 8) % 2 == 1;
        want.push(("square", 1, 2, s, if light { -20 } else { 20 }));
    }
    want.sort();
    let mut got = entries(&t);
    got.sort();
    assert_eq!(got, want);
    assert_eq!(got.len(), 83);
}

#[test]
fn the_conversion_gives_the_same_tables() {
    let positions = [
        AFTER_C5,
        "rnbqkbnr/ppp2ppp/4p3/3pP3/3P4/8/PPP2PPP/RNBQKBNR b KQkq - 0 3",
        "r1b2rk1/pp3ppp/1qn1p3/2ppP3/3P4/2PB1N2/PP3PPP/R1BQ1RK1 w - - 4 9",
        "4k3/pp3ppp/4p3/3pP3/3P4/8/PP3PPP/4K3 w - - 0 30",
        common::START,
    ];
    for fen in positions {
        let board = BoardView::from_fen(fen).unwrap();
        let table = cvm_testkit::che3_programs::check_conversion(EXAMPLE, &board)
            .unwrap_or_else(|e| panic!("{fen}: {e}"));
        assert_eq!(table, common::advice(&common::compile(EXAMPLE), &board));
    }
    // Castled with queens on and the black king on the king side: the
    // attack runs; in the pawn ending the king goes to the centre.
    let castled = BoardView::from_fen(positions[2]).unwrap();
    let t = common::advice(&common::compile(EXAMPLE), &castled);
    assert_eq!(t.square_bonus[0][3][sq("h1")], 20);
    let ending = BoardView::from_fen(positions[3]).unwrap();
    let t = common::advice(&common::compile(EXAMPLE), &ending);
    assert_eq!(t.square_bonus[0][5][sq("e3")], 20);
}

#[test]
fn every_function_is_in_the_reference() {
    for f in che3::functions::FUNCTIONS {
        let row = format!("| `{}(", f.name);
        assert!(
            DOC.contains(&row),
            "docs/che3.md has no table row for {}",
            f.name
        );
    }
}
