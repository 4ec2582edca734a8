//! Every advice function's effect on the advice table, against entries
//! computed by hand from the definitions in `docs/che3.md` (which give each
//! function's bonus and squares), on both backends with and without the
//! optimizer; the run-time conditions (the pawn on the from-square, the
//! enemy king on the attacked side) against python-chess positions.

mod common;

use common::{advice_of, entries, sq, START};
use serde_json::Value;

type Entry = (&'static str, usize, usize, usize, i32);

const P: usize = 0;
const N: usize = 1;
const B: usize = 2;
const R: usize = 3;
const Q: usize = 4;
const K: usize = 5;

/// The entries `main()` leaves when one rule runs the advice `steps`.
fn run(steps: &str, fen: &str) -> Vec<Entry> {
    let source = format!("advice a {steps};\nrule r {{ }} a;\n");
    let mut e = entries(&advice_of(&source, fen));
    e.sort();
    e
}

fn sorted(mut e: Vec<Entry>) -> Vec<Entry> {
    e.sort();
    e
}

fn squares_of(files: &str, ranks: std::ops::RangeInclusive<usize>) -> Vec<usize> {
    let mut out = Vec::new();
    for f in files.chars() {
        for r in ranks.clone() {
            out.push(sq(&format!("{f}{r}")));
        }
    }
    out
}

#[test]
fn square_advice() {
    assert_eq!(
        run("goodsqrs(wN d4 e5)", START),
        sorted(vec![
            ("square", 0, N, sq("d4"), 20),
            ("square", 0, N, sq("e5"), 20)
        ])
    );
    // Elements accumulate: a square named twice gets the malus twice.
    assert_eq!(
        run("badsqrs(bB c5 c5)", START),
        vec![("square", 1, B, sq("c5"), -40)]
    );
    assert_eq!(
        run("goodcols(wR eline)", START),
        sorted(
            squares_of("e", 1..=8)
                .into_iter()
                .map(|s| ("square", 0, R, s, 20))
                .collect()
        )
    );
    let rows: Vec<Entry> = (0..8)
        .flat_map(|f| [8 + f, 48 + f])
        .map(|s| ("square", 1, R, s, 20))
        .collect();
    assert_eq!(run("goodrows(bR row2 row7)", START), sorted(rows));
    // f1-a6 and c1-h6 are lines; f1a8 is none and is ignored.
    let diag: Vec<Entry> = [
        "f1", "e2", "d3", "c4", "b5", "a6", "c1", "d2", "e3", "f4", "g5", "h6",
    ]
    .iter()
    .map(|s| ("square", 0, B, sq(s), 20))
    .collect();
    assert_eq!(run("gooddiags(wB f1a6 c1h6 f1a8)", START), sorted(diag));
    // A file is a line too, as for SetDiags.
    assert_eq!(
        run("gooddiags(wR a1a8)", START),
        sorted(
            squares_of("a", 1..=8)
                .into_iter()
                .map(|s| ("square", 0, R, s, 20))
                .collect()
        )
    );
    assert_eq!(run("goodsqrs(wN)", START), vec![]);
}

#[test]
fn move_advice() {
    assert_eq!(
        run("goodmvs(wN g1f3 b1c3)", START),
        sorted(vec![
            ("move", 0, sq("g1"), sq("f3"), 20),
            ("move", 0, sq("b1"), sq("c3"), 20)
        ])
    );
    assert_eq!(
        run("strongmvs(bN g8f6)", START),
        vec![("move", 1, sq("g8"), sq("f6"), 40)]
    );
    assert_eq!(
        run("weakmvs(wK e1c1)", START),
        vec![("move", 0, sq("e1"), sq("c1"), -20)]
    );
    assert_eq!(
        run("badmvs(bQ d8h4)", START),
        vec![("move", 1, sq("d8"), sq("h4"), -40)]
    );
    let to_d5: Vec<Entry> = (0..64)
        .filter(|&f| f != sq("d5"))
        .map(|f| ("move", 0, f, sq("d5"), 20))
        .collect();
    assert_eq!(run("mvtosqrs(wN d5)", START), sorted(to_d5));
    let to_g8: Vec<Entry> = (0..64)
        .filter(|&f| f != sq("g8"))
        .map(|f| ("move", 1, f, sq("g8"), -20))
        .collect();
    assert_eq!(run("mvnotsqrs(bK g8)", START), sorted(to_g8));
}

#[test]
fn pawn_moves_need_the_pawn_on_the_from_square() {
    assert_eq!(
        run("wpwnmvs(e2e4 d4d5 e3e4 a2a3)", START),
        sorted(vec![
            ("move", 0, sq("e2"), sq("e4"), 20),
            ("move", 0, sq("a2"), sq("a3"), 20)
        ])
    );
    // Not the side's own pawn: a black pawn on d4 does not count for White.
    assert_eq!(
        run(
            "wpwnmvs(d4c3) bpwnmvs(d4c3 e7e5 e6e5)",
            "4k3/4p3/8/8/3p4/8/8/4K3 b - - 0 1"
        ),
        sorted(vec![
            ("move", 1, sq("d4"), sq("c3"), 20),
            ("move", 1, sq("e7"), sq("e5"), 20)
        ])
    );
}

#[test]
fn pawn_moves_on_python_chess_positions() {
    // One step forward from every square of ranks 2 to 7, for both sides.
    let white: Vec<String> = (8..56)
        .map(|s| format!("{}{}", name(s), name(s + 8)))
        .collect();
    let black: Vec<String> = (8..56)
        .map(|s| format!("{}{}", name(s), name(s - 8)))
        .collect();
    let source = format!(
        "advice a wpwnmvs({}) bpwnmvs({});\nrule r {{ }} a;\n",
        white.join(" "),
        black.join(" ")
    );
    let program = common::compile(&source);
    let data = include_str!("data/patterns.jsonl");
    let mut positions = 0;
    for line in data.lines().skip(1).step_by(5) {
        let j: Value = serde_json::from_str(line).expect("json");
        let fen = j["fen"].as_str().expect("fen");
        let pawns = [
            j["pieces"][0][0].as_u64().expect("mask"),
            j["pieces"][1][0].as_u64().expect("mask"),
        ];
        let t = common::advice(&program, &cvm_chess::BoardView::from_fen(fen).expect("fen"));
        for s in 8..56 {
            let w = if pawns[0] & (1 << s) != 0 { 20 } else { 0 };
            let b = if pawns[1] & (1 << s) != 0 { 20 } else { 0 };
            assert_eq!(
                t.move_bonus[0][s][s + 8],
                w,
                "{fen}: white from {}",
                name(s)
            );
            assert_eq!(
                t.move_bonus[1][s][s - 8],
                b,
                "{fen}: black from {}",
                name(s)
            );
        }
        assert_eq!(
            entries(&t).len(),
            (pawns[0] & 0x00FF_FFFF_FFFF_FF00).count_ones() as usize
                + (pawns[1] & 0x00FF_FFFF_FFFF_FF00).count_ones() as usize
        );
        positions += 1;
    }
    assert_eq!(positions, 60);
}

fn name(s: usize) -> String {
    cvm_chess::lit::square_name(s as i32).expect("square")
}

#[test]
fn control_advice() {
    // Every kind of the side, the queen counted as rook and bishop (its
    // own row stays empty).
    let centre: Vec<Entry> = [P, N, B, R, K]
        .iter()
        .flat_map(|&k| ["d4", "e4", "d5", "e5"].map(|s| ("control", 0, k, sq(s), 30)))
        .collect();
    assert_eq!(run("wctrlsqrs(d4 e4 d5 e5)", START), sorted(centre));
    let c6: Vec<Entry> = [P, N, B, R, K]
        .iter()
        .map(|&k| ("control", 1, k, sq("c6"), 30))
        .collect();
    assert_eq!(run("bctrlsqrs(c6)", START), sorted(c6));
}

/// What Attack writes for a side on some files: pawns 10 per rank beyond
/// their second, rooks 20 and queens 10 on every square.
fn attack(colour: usize, files: &str) -> Vec<Entry> {
    let mut out = Vec::new();
    for s in squares_of(files, 1..=8) {
        let rank = s / 8;
        let advanced = if colour == 0 { rank } else { 7 - rank };
        if (2..=6).contains(&advanced) {
            out.push(("square", colour, P, s, 10 * (advanced as i32 - 1)));
        }
        out.push(("square", colour, R, s, 20));
        out.push(("square", colour, Q, s, 10));
    }
    sorted(out)
}

#[test]
fn attacks() {
    // Minority attack: a- and b-pawns forward, rooks on the b- and c-files.
    let mut min = Vec::new();
    for f in ["a", "b"] {
        for (rank, bonus) in [(3, 10), (4, 20), (5, 30), (6, 40), (7, 50)] {
            min.push(("square", 0, P, sq(&format!("{f}{rank}")), bonus));
        }
    }
    min.extend(
        squares_of("bc", 1..=8)
            .into_iter()
            .map(|s| ("square", 0, R, s, 20)),
    );
    assert_eq!(run("wminattack()", START), sorted(min));
    let bmin = run("bminattack()", START);
    assert_eq!(bmin.len(), 26);
    assert!(bmin.contains(&("square", 1, P, sq("a6"), 10)));
    assert!(bmin.contains(&("square", 1, P, sq("b2"), 50)));
    assert_eq!(run("wqsattack()", START), attack(0, "abcd"));
    assert_eq!(run("bqsattack()", START), attack(1, "abcd"));
    assert_eq!(attack(0, "abcd").len(), 84);
    // The king attack needs the enemy king on that side.
    assert_eq!(run("wkingattack(kside)", START), attack(0, "efgh"));
    assert_eq!(run("wkingattack(qside) bkingattack(qside)", START), vec![]);
    let long_castled = "2kr4/8/8/8/8/8/8/2KR4 w - - 0 1";
    assert_eq!(
        run("bkingattack(qside) bkingattack(kside)", long_castled),
        attack(1, "abcd")
    );
    assert_eq!(
        run("wkingattack(qside) wkingattack(kside)", long_castled),
        attack(0, "abcd")
    );
    // No king, no attack.
    assert_eq!(
        run(
            "wkingattack(kside) wkingattack(qside)",
            "8/8/8/8/8/8/8/4K3 w - - 0 1"
        ),
        vec![]
    );
}

#[test]
fn bishops_and_pieces() {
    // Light squares: file + rank odd (h1, a2, ...); dark: even (a1, h8).
    let light: Vec<usize> = (0..64).filter(|s| (s % 8 + s / 8) % 2 == 1).collect();
    let dark: Vec<usize> = (0..64).filter(|s| (s % 8 + s / 8) % 2 == 0).collect();
    assert!(light.contains(&sq("h1")) && dark.contains(&sq("a1")));
    assert_eq!(
        run("wexchgBs(lsqr)", START),
        sorted(light.iter().map(|&s| ("square", 0, B, s, -20)).collect())
    );
    assert_eq!(
        run("wkeepBs(dsqr)", START),
        sorted(dark.iter().map(|&s| ("square", 0, B, s, 20)).collect())
    );
    assert_eq!(
        run("bexchgBs(lsqr dsqr)", START),
        sorted((0..64).map(|s| ("square", 1, B, s, -20)).collect())
    );
    assert_eq!(
        run("bkeepBs(dsqr)", START),
        sorted(dark.iter().map(|&s| ("square", 1, B, s, 20)).collect())
    );
    assert_eq!(
        run("exchgpieces(wQ wR)", START),
        sorted(vec![("piece", 0, Q, 0, -20), ("piece", 0, R, 0, -20)])
    );
    assert_eq!(
        run("keeppieces(bQ wN)", START),
        sorted(vec![("piece", 1, Q, 0, 20), ("piece", 0, N, 0, 20)])
    );
}

#[test]
fn advices_accumulate_in_program_order() {
    let source = "
pattern never { wpwns(e5) } { };
pattern always { !never } { };
advice adv1 goodsqrs(wN d4);
advice adv2 adv1 adv1 { never } goodsqrs(wN e4);
advice adv3 adv2 { !never } goodsqrs(wN f4);
rule r1 { } adv3;
rule r2 { never } adv1;
rule r3 { always } adv1;
";
    let t = advice_of(source, START);
    assert_eq!(t.square_bonus[0][N][sq("d4")], 60);
    assert_eq!(t.square_bonus[0][N][sq("e4")], 0);
    assert_eq!(t.square_bonus[0][N][sq("f4")], 20);
    assert_eq!(entries(&t).len(), 2);
}
