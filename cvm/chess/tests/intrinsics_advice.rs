//! The advice functions of section IV.5: small Che++ programs whose advice
//! tables are checked entry by entry against tables built by hand from the
//! rules in docs/che-reference.md ("Advice functions").

mod intrinsics_common;
use cvm::Vm;
use cvm_chess::advice_table::AdviceTable;
use intrinsics_common::*;

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w";

fn table_of(body: &str, fen: &str) -> Box<AdviceTable> {
    run(&program("", body), fen).advice
}

fn table_with(decls: &str, body: &str, fen: &str) -> Box<AdviceTable> {
    run(&program(decls, body), fen).advice
}

fn empty() -> Box<AdviceTable> {
    Box::default()
}

fn light(s: usize) -> bool {
    (s % 8 + s / 8) % 2 == 1
}

// ---------------------------------------------------------------- IV.5.a

#[test]
fn good_and_bad_moves() {
    let mut e = empty();
    e.move_bonus[W][sq("e2")][sq("e4")] = 20;
    e.move_bonus[W][sq("c2")][sq("c4")] = 20;
    e.move_bonus[B][sq("c5")][sq("c4")] = -20;
    assert_table(
        &table_of("SetMvs(w,20,e2e4 c2c4); SetMvs(b,-20,c5c4);", START),
        &e,
    );
}

#[test]
fn moves_from_a_square_to_anywhere() {
    let mut e = empty();
    for t in (0..64).filter(|&t| t != sq("d1")) {
        e.move_bonus[W][sq("d1")][t] = -20;
    }
    for f in (0..64).filter(|&f| f != sq("e5")) {
        e.move_bonus[B][f][sq("e5")] = 20;
    }
    assert_table(
        &table_of("SetMvs(w,-20,d1..); SetMvs(b,20,..e5);", START),
        &e,
    );
}

#[test]
fn moves_with_file_and_rank_wildcards() {
    let mut e = empty();
    // e.e4: every move from the e-file to e4.
    for f in file_squares(4).filter(|&f| f != sq("e4")) {
        e.move_bonus[W][f][sq("e4")] = 15;
    }
    // e2.7: from e2 to anywhere on the 7th rank.
    for t in 48..56 {
        e.move_bonus[W][sq("e2")][t] += 5;
    }
    assert_table(&table_of("SetMvs(w,15,e.e4); SetMvs(w,5,e2.7);", START), &e);
}

#[test]
fn moves_with_wildcards_on_both_sides_are_ignored() {
    assert_table(
        &table_of(
            "SetMvs(w,20,e...); SetMvs(b,20,...4); SetMvs(w,20,....);",
            START,
        ),
        &empty(),
    );
}

#[test]
fn moves_for_both_colours_and_accumulation() {
    let mut e = empty();
    e.move_bonus[W][sq("g1")][sq("f3")] = 10 + 5;
    e.move_bonus[B][sq("g1")][sq("f3")] = 10;
    assert_table(&table_of("SetMvs(?,10,g1f3); SetMvs(w,5,g1f3);", START), &e);
}

// ---------------------------------------------------------------- IV.5.b

#[test]
fn pawn_moves_start_where_the_pawn_stands() {
    // From the start position, e4 is reached by the double step.
    let mut e = empty();
    e.move_bonus[W][sq("e2")][sq("e4")] = 20;
    assert_table(&table_of("SetPMvs(w,20,e4);", START), &e);
    // With the pawn on e3, it is e3e4.
    let mut e = empty();
    e.move_bonus[W][sq("e3")][sq("e4")] = 20;
    assert_table(
        &table_of("SetPMvs(w,20,e4);", "4k3/8/8/8/8/4P3/8/4K3 w"),
        &e,
    );
    // Pawns on e2 and e3: the front one moves.
    assert_table(
        &table_of("SetPMvs(w,20,e4);", "4k3/8/8/8/8/4P3/4P3/4K3 w"),
        &e,
    );
}

#[test]
fn black_pawn_moves() {
    // Black pawns c5 and e7: c5c4 and e7e5.
    let mut e = empty();
    e.move_bonus[B][sq("c5")][sq("c4")] = -20;
    e.move_bonus[B][sq("e7")][sq("e5")] = -20;
    assert_table(
        &table_of("SetPMvs(b,-20,c4 e5);", "4k3/4p3/8/2p5/8/8/8/4K3 b"),
        &e,
    );
    // With the pawn already on e6: e6e5; c4 gets nothing without a pawn on c5.
    let mut e = empty();
    e.move_bonus[B][sq("e6")][sq("e5")] = -20;
    assert_table(
        &table_of("SetPMvs(b,-20,c4 e5);", "4k3/8/4p3/8/8/8/8/4K3 b"),
        &e,
    );
}

#[test]
fn pawn_moves_need_a_pawn_and_allow_wildcards() {
    // A knight on e3 is no pawn.
    assert_table(
        &table_of("SetPMvs(w,20,e4);", "4k3/8/8/8/8/4N3/8/4K3 w"),
        &empty(),
    );
    // `.4`: every white pawn's advance to the fourth rank.
    let mut e = empty();
    for f in 0..8 {
        e.move_bonus[W][8 + f][24 + f] = 7;
    }
    assert_table(&table_of("SetPMvs(w,7,.4);", START), &e);
    // Without a board nothing is entered.
    let run = run_without_host(&program("", "SetPMvs(w,20,e4);"));
    assert_table(&run.advice, &empty());
}

// ---------------------------------------------------------------- IV.5.c

#[test]
fn good_and_bad_squares() {
    let mut e = empty();
    e.square_bonus[W][BI][sq("e2")] = 20;
    for s in 8..16 {
        e.square_bonus[B][R][s] = 30;
    }
    for s in 0..64 {
        e.square_bonus[W][BI][s] += 20;
        e.square_bonus[B][BI][s] = 20;
    }
    assert_table(
        &table_of(
            "SetSqrs(wB,20,e2); SetSqrs(bR,30,.2); SetSqrs(?B,20,..);",
            START,
        ),
        &e,
    );
}

#[test]
fn square_bonus_for_officers() {
    let mut e = empty();
    for k in [N, BI, R, Q] {
        e.square_bonus[W][k][sq("d5")] = 12;
    }
    assert_table(&table_of("SetSqrs(wO,12,d5);", START), &e);
}

/// Every element of the list adds its bonus on each of its squares, so a
/// square that several elements name (a repeated square, a rank and a file
/// through it) gets the bonus once per element; distinct squares once.
#[test]
fn square_bonus_adds_once_per_element_that_names_the_square() {
    let mut e = empty();
    for s in 0..64 {
        let (file, rank) = (s % 8, s / 8);
        let times =
            2 * usize::from(s == sq("e4")) + usize::from(rank == 3) + usize::from(file == 4);
        e.square_bonus[W][R][s] = 3 * times as i32;
    }
    assert_table(&table_of("SetSqrs(wR,3,e4 e4 .4 e.);", START), &e);
    let mut e = empty();
    for c in [W, B] {
        for s in ["a1", "h8", "d5"] {
            e.square_bonus[c][N][sq(s)] = 7;
        }
    }
    assert_table(&table_of("SetSqrs(?N,7,a1 h8 d5);", START), &e);
    // Overlaps saturate as the additions one by one do.
    let mut e = empty();
    e.square_bonus[B][Q][sq("c3")] = i32::MAX;
    for s in (0..64).filter(|&s| s / 8 == 2 && s != sq("c3")) {
        e.square_bonus[B][Q][s] = 2_000_000_000;
    }
    assert_table(&table_of("SetSqrs(bQ,2000000000,c3 .3);", START), &e);
}

#[test]
fn rooks_behind_passed_pawns() {
    // The procedure of EndGame.che, for White: passed pawns b6 and g4.
    let decls = "list pwns; list tmplist;
procedure RooksBehindPassed(factor)
var sqr;
begin
  GetPassed(w,pwns);
  for sqr in pwns do
    SetSqrs(?R,GetDwnSqrs(sqr,tmplist)*factor,tmplist);
  end;
end;";
    let mut e = empty();
    for c in [W, B] {
        for s in file_squares(1).take(6) {
            e.square_bonus[c][R][s] = 6 * 5;
        }
        for s in file_squares(6).take(4) {
            e.square_bonus[c][R][s] = 4 * 5;
        }
    }
    assert_table(
        &table_with(decls, "RooksBehindPassed(5);", "4k3/8/1P6/8/6P1/8/8/4K3 w"),
        &e,
    );
    // Two passed pawns on one file: the squares behind both add up.
    let mut e = empty();
    for c in [W, B] {
        for s in file_squares(4).take(5) {
            e.square_bonus[c][R][s] = 5 * 2 + if s < sq("e4") { 3 * 2 } else { 0 };
        }
    }
    assert_table(
        &table_with(decls, "RooksBehindPassed(2);", "4k3/8/8/4P3/8/4P3/8/K7 w"),
        &e,
    );
}

// ---------------------------------------------------------------- IV.5.d-f

#[test]
fn keep_or_trade_bishops() {
    let mut e = empty();
    for s in (0..64).filter(|&s| light(s)) {
        e.square_bonus[W][BI][s] = 20;
        e.square_bonus[B][BI][s] = -20;
    }
    assert_table(
        &table_of("KeepBs(w,20,lsqr); KeepBs(b,-20,lsqr);", START),
        &e,
    );
    // KeepBs(?,20,?sqr) is SetSqrs(?B,20,..).
    assert_table(
        &table_of("KeepBs(?,20,?sqr);", START),
        &table_of("SetSqrs(?B,20,..);", START),
    );
    let mut e = empty();
    for s in (0..64).filter(|&s| !light(s)) {
        e.square_bonus[W][BI][s] = 5;
    }
    assert_table(&table_of("KeepBs(w,5,dsqr);", START), &e);
}

#[test]
fn keep_or_trade_pieces() {
    let mut e = empty();
    for k in [N, BI, R, Q] {
        e.piece_value[W][k] = -10;
    }
    e.piece_value[W][BI] += 20;
    e.piece_value[B][BI] = 20;
    assert_table(&table_of("KeepPcs(-10,wO); KeepPcs(20,?B);", START), &e);
    assert_table(
        &table_of("ChngPcsVal(-10,wO); ChngPcsVal(20,?B);", START),
        &e,
    );
}

// ---------------------------------------------------------------- IV.5.g

#[test]
fn good_and_bad_lines() {
    let mut e = empty();
    for s in ["a2", "b3", "c4", "d5"] {
        e.square_bonus[W][BI][sq(s)] = 20;
    }
    for s in ["e1", "e2", "e3"] {
        e.square_bonus[W][R][sq(s)] = 20;
    }
    assert_table(
        &table_of("SetDiags(wB,20,a2d5); SetDiags(wR,20,e1e3);", START),
        &e,
    );
    // A rank works as well: the same as SetSqrs(bR,30,.2).
    assert_table(
        &table_of("SetDiags(bR,30,a2h2);", START),
        &table_of("SetSqrs(bR,30,.2);", START),
    );
}

#[test]
fn lines_that_are_no_lines_and_wildcards_are_ignored() {
    // g7 and b1 are on no common line; e.e4 has a wildcard; d4d4 has no length.
    assert_table(
        &table_of("SetDiags(bB,-20,g7b1 e.e4 d4d4 ..a1);", START),
        &empty(),
    );
    // The document's g7b2 lies on the long diagonal, so it does get the bonus.
    let mut e = empty();
    for s in ["b2", "c3", "d4", "e5", "f6", "g7"] {
        e.square_bonus[B][BI][sq(s)] = -20;
    }
    assert_table(&table_of("SetDiags(bB,-20,g7b2);", START), &e);
}

// ---------------------------------------------------------------- IV.5.h-j

/// The `ForcePwns` entries: 10 per rank beyond the second, on the given files.
fn storm(e: &mut AdviceTable, c: usize, files: &[usize]) {
    for &f in files {
        for rank in 2..7 {
            let r = if c == W { rank } else { 7 - rank };
            e.square_bonus[c][P][r * 8 + f] += 10 * (rank as i32 - 1);
        }
    }
}

#[test]
fn force_pawns() {
    let mut e = empty();
    storm(&mut e, W, &[5, 6, 7]);
    assert_eq!(e.square_bonus[W][P][sq("g4")], 20);
    assert_eq!(e.square_bonus[W][P][sq("h7")], 50);
    assert_table(&table_of("ForcePwns(w,fline gline hline);", START), &e);
    let mut e = empty();
    storm(&mut e, B, &[0, 1, 2, 3, 4, 5, 6, 7]);
    assert_eq!(e.square_bonus[B][P][sq("a5")], 20);
    assert_table(&table_of("ForcePwns(b,.line);", START), &e);
}

#[test]
fn attack_a_side() {
    let mut e = empty();
    storm(&mut e, W, &[5, 6, 7]);
    for f in [5, 6, 7] {
        for s in file_squares(f) {
            e.square_bonus[W][R][s] = 20;
            e.square_bonus[W][Q][s] = 10;
        }
    }
    assert_table(&table_of("Attack(w,kkside);", START), &e);
    // kside and kkside overlap: each file counts once per call.
    assert_table(&table_of("Attack(w,kkside kkside);", START), &e);
}

#[test]
fn minority_attack() {
    let mut e = empty();
    storm(&mut e, W, &[0, 1]);
    for f in [1, 2] {
        for s in file_squares(f) {
            e.square_bonus[W][R][s] = 20;
        }
    }
    assert_table(&table_of("MinAttack(w);", START), &e);
}

// ---------------------------------------------------------------- IV.5.k

#[test]
fn control_squares() {
    let mut e = empty();
    for c in [W, B] {
        for k in [N, BI, R] {
            e.control_bonus[c][k][sq("d4")] = 30;
        }
    }
    assert_table(&table_of("CtrlSqrs(?O,30,d4);", START), &e);
    // The queen is rook plus bishop.
    let mut e = empty();
    for s in file_squares(3) {
        e.control_bonus[W][R][s] = 20;
        e.control_bonus[W][BI][s] = 20;
    }
    assert_table(&table_of("CtrlSqrs(wQ,20,d.);", START), &e);
    // Pawn control is recorded too.
    let mut e = empty();
    e.control_bonus[B][P][sq("e4")] = 9;
    assert_table(&table_of("CtrlSqrs(bP,9,e4);", START), &e);
}

#[test]
fn reset_starts_the_next_run_from_an_empty_table() {
    let src = program("", "SetMvs(w,20,e2e4);");
    let program = compile(&src);
    let mut vm = cvm::Interpreter::new(&program);
    let mut host = TestHost::new(START);
    let mut out = cvm::CollectOutput::default();
    vm.run_entry(&mut host, &mut out).expect("runs");
    vm.run_entry(&mut host, &mut out).expect("runs again");
    // Without a reset, advice accumulates across runs ...
    assert_eq!(vm.advice().move_bonus[W][sq("e2")][sq("e4")], 40);
    // ... and a reset empties the table.
    vm.reset();
    assert!(vm.advice().is_empty());
    vm.run_entry(&mut host, &mut out).expect("runs after reset");
    assert_eq!(vm.advice().move_bonus[W][sq("e2")][sq("e4")], 20);
}
