//! The examples of section IV.2 (pattern functions) and IV.3 (lists and
//! squares) of the Che++ document, as Che++ programs run on hand-set
//! positions. Each expected value is read off the position by hand.

mod intrinsics_common;
use intrinsics_common::*;

/// Runs `body` (with `decls` before `main`) on `fen` and compares the
/// written values.
fn check(decls: &str, body: &str, fen: &str, expected: &[i32]) {
    let src = program(decls, body);
    assert_eq!(values(&src, fen), expected, "{body}\non {fen}");
}

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w";

// ---------------------------------------------------------------- IV.2.b

#[test]
fn king_pos_examples() {
    let body = "write KingPos(?,kkside); write orKingPos(w,centre kkside);";
    // Black king h8, white king g1: both on the f-h files.
    check("", body, "7k/8/8/8/8/8/8/6K1 w", &[1, 1]);
    // White king e1 (centre), black king b8.
    check("", body, "1k6/8/8/8/8/8/8/4K3 w", &[0, 1]);
    // White king b1: neither centre nor king side.
    check("", body, "7k/8/8/8/8/8/8/1K6 w", &[0, 0]);
}

#[test]
fn get_king_pos_lists_the_overlapping_sides() {
    let body = "write GetKingPos(b,ksidelist); write ksidelist[0] = kside; write ksidelist[1] = kkside; \
                write ksidelist[2] = CHE_LISTEND; \
                write GetKingPos(w,ksidelist); write ksidelist[0] = kside; write ksidelist[1] = centre;";
    check(
        "list ksidelist[3];",
        body,
        "7k/8/8/8/8/8/8/4K3 w",
        &[2, 1, 1, 1, 2, 1, 1],
    );
    // A king on b8 is on the queen side and the far queen side.
    check(
        "list l[3];",
        "write GetKingPos(b,l); write l[0] = qside; write l[1] = qqside;",
        "1k6/8/8/8/8/8/8/4K3 w",
        &[2, 1, 1],
    );
}

#[test]
fn get_king_pos_needs_a_list_variable() {
    let src = program("", "GetKingPos(b,kkside);");
    let c = chepp::compile_str("test.che", &src, &chepp::CompileOptions::default());
    assert!(!c.is_ok(), "a literal list cannot receive results");
}

#[test]
fn or_king_pos_with_wildcard_colour_ors_only_the_list() {
    // White king g1 (king side), black king b8 (queen side).
    let body = "write orKingPos(?,kkside); write KingPos(w,kkside) or KingPos(b,kkside);";
    check("", body, "1k6/8/8/8/8/8/8/6K1 w", &[0, 1]);
    // With both kings on the king side, the or form is true.
    check("", body, "6k1/8/8/8/8/8/8/6K1 w", &[1, 1]);
    // `?` needs both kings on one element: g1 and b8 are on no common side of these two.
    check(
        "",
        "write orKingPos(?,kkside qqside);",
        "1k6/8/8/8/8/8/8/6K1 w",
        &[0],
    );
}

#[test]
fn empty_lists_and_out_of_range_values() {
    let decls = "list empty[4];";
    let body = "write KingPos(w,empty); write orKingPos(w,empty); write PcOnSqrs(wP,empty); \
                write orPcOnSqrs(wP,empty); write GetPassed(w,empty); \
                x := 7; write KingPos(x,kside qside centre); write orKingPos(x,kside qside centre); \
                write PcOnSqrs(x,..); write Passed(x,..); write Control(x,..); \
                write ExchngCtrl(x,..); write POnLine(x,>=,0,.line);";
    let src = program_with_locals(decls, "x", body);
    assert_eq!(values(&src, START), [1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
}

#[test]
fn invalid_list_elements_make_both_forms_false() {
    // A list holding a value that is no square (CHE_LISTEND-free garbage).
    let decls = "list l[4];";
    let body = "l[0] := e2; l[1] := 500; write PcOnSqrs(wP,l); write orPcOnSqrs(wP,l); \
                l[1] := e4; write PcOnSqrs(wP,l); write orPcOnSqrs(wP,l);";
    check(decls, body, START, &[0, 0, 0, 1]);
}

// ---------------------------------------------------------------- IV.2.c

#[test]
fn pieces_on_squares_examples() {
    let body = "write PcOnSqrs(wP,e4 d5); write PcOnSqrs(?P,e.); write PcOnSqrs(?O,..); \
                write !PcOnSqrs(??,.7); write IsPwnEndGame();";
    check("", body, START, &[0, 1, 1, 0, 0]);
    check("", body, "4k3/8/8/3P4/4P3/8/8/4K3 w", &[1, 1, 0, 1, 1]);
    check("", body, "4k3/8/8/3P4/8/8/8/2R1K3 w", &[0, 0, 1, 1, 0]);
}

#[test]
fn or_form_equals_or_of_single_calls() {
    let body = "write orPcOnSqrs(wP,e2 e3); write PcOnSqrs(wP,e2) or PcOnSqrs(wP,e3);";
    check("", body, START, &[1, 1]);
    check("", body, "4k3/8/8/8/8/4P3/8/4K3 w", &[1, 1]);
    check("", body, "4k3/8/8/8/4P3/8/8/4K3 w", &[0, 0]);
}

#[test]
fn count_pieces_examples() {
    let body = "write CmpNrPcs(wP,>=,2,c.); write IsMidGame(); write CmpNrPcs(??,<=,4,..);";
    check("", body, START, &[0, 1, 0]);
    check("", body, "4k3/8/8/2P5/8/2P5/8/4K3 w", &[1, 0, 1]);
    // A queen and exactly five officers: Nimzo's middlegame.
    check("", body, "r3k3/8/8/8/8/8/8/RNBQK3 w", &[0, 1, 0]);
    // A queen and four officers: not yet.
    check("", body, "4k3/8/8/8/8/8/8/RNBQK3 w", &[0, 0, 0]);
    check("", body, "4k3/8/8/8/8/8/P7/R3K3 w", &[0, 0, 1]);
}

#[test]
fn count_pieces_per_element_and_the_pc_on_sqrs_identity() {
    let fen = "4k3/8/8/3P4/4P3/8/8/4K3 w";
    let body = "write PcOnSqrs(wP,e4 d5) = CmpNrPcs(wP,>,0,e4 d5); \
                write PcOnSqrs(wP,e4 d6) = CmpNrPcs(wP,>,0,e4 d6); \
                write CmpNrPcs(wP,=,1,d. e.); write CmpNrPcs(wP,=,2,..); write CmpNrPcs(wP,=,1,d. f.);";
    check("", body, fen, &[1, 1, 1, 1, 0]);
}

// ---------------------------------------------------------------- IV.2.d

#[test]
fn doubled_pawns_examples() {
    // White pawns c3 c5 e2 e3, black pawns c6 c7.
    let fen = "4k3/2p5/2p5/2P5/8/2P1P3/4P3/4K3 w";
    let body =
        "write DblPwns(w,c3); write DblPwns(w,c5); write DblPwns(b,c.); write DblPwns(?,..); \
                write orDblPwns(w,c. d.); write DblPwns(w,d.);";
    check("", body, fen, &[1, 1, 1, 1, 1, 0]);
    check("", body, START, &[0, 0, 0, 0, 0, 0]);
    // Only the e-pawns doubled: no doubled pawn on the c- or d-file.
    check(
        "",
        "write orDblPwns(w,c. d.); write DblPwns(w,e.);",
        "4k3/8/8/8/8/2P1P3/4P3/4K3 w",
        &[0, 1],
    );
}

#[test]
fn get_doubled_pawns_lists_every_doubled_pawn() {
    let fen = "4k3/2p5/8/2P5/8/2P1P3/4P3/4K3 w";
    let body = "write GetDblPwns(w,sqrlist); write sqrlist[0] = e2; write sqrlist[1] = c3; \
                write sqrlist[2] = e3; write sqrlist[3] = c5; write GetDblPwns(b,sqrlist);";
    check("list sqrlist;", body, fen, &[4, 1, 1, 1, 1, 0]);
}

// ---------------------------------------------------------------- IV.2.e

#[test]
fn pawns_on_lines_examples() {
    let fen = "4k3/2p5/8/2P5/8/2P1P3/4P3/4K3 w";
    let body = "write POnLine(?,=,0,dline eline); write POnLine(w,>=,2,eline) = DblPwns(w,e.); \
                write POnLine(w,>=,2,eline); write GetPOnLine(w,>=,2,collist); \
                write collist[0] = cline; write collist[1] = eline;";
    check("list collist[8];", body, fen, &[0, 1, 1, 2, 1, 1]);
    // No pawn on the d- and e-files: both open.
    check(
        "list collist[8];",
        body,
        "4k3/p7/8/8/8/8/P4P2/4K3 w",
        &[1, 1, 0, 0, 0, 0],
    );
}

// ---------------------------------------------------------------- IV.2.f

#[test]
fn passed_pawn_examples() {
    let body = "write Passed(w,.7); write Passed(?,..);";
    check("", body, "4k3/1P6/8/8/8/8/8/4K3 w", &[1, 1]);
    check("", body, START, &[0, 0]);
    // b5 is stopped by b6; e5 and h2 are passed; b6 is stopped by b5.
    let fen = "4k3/8/1p6/1P2P3/8/8/7P/4K3 w";
    let body = "write GetPassed(w,sqrlist); write sqrlist[0] = h2; write sqrlist[1] = e5; \
                write GetPassed(b,sqrlist); write Passed(?,..);";
    check("list sqrlist;", body, fen, &[2, 1, 1, 0, 1]);
}

// ---------------------------------------------------------------- IV.2.g

#[test]
fn control_examples() {
    // A pawn on e2 controls d3 and f3, not e3 or e4, and not its own square;
    // the king on e1 defends e2, which counts as control.
    let body = "write Control(wP,d3 f3); write orControl(wP,e3 e4); write Control(wP,e2); write Control(w?,e2);";
    check("", body, "4k3/8/8/8/8/8/4P3/4K3 w", &[1, 0, 0, 1]);
    // Queen b1 reaches h7 along the diagonal, whoever is to move.
    check("", "write Control(w?,h7);", "4k3/8/8/8/8/8/8/1Q2K3 w", &[1]);
    check("", "write Control(w?,h7);", "4k3/8/8/8/8/8/8/1Q2K3 b", &[1]);
    check(
        "",
        "write Control(w?,h7);",
        "4k3/8/8/8/4p3/8/8/1Q2K3 w",
        &[0],
    );
    // Two rooks share the work: a8 covers a1, h8 covers h1.
    check(
        "",
        "write Control(wR,a1 h1); write Control(wR,a1 h1 d4);",
        "R3k2R/8/8/8/8/8/8/4K3 w",
        &[1, 0],
    );
    // Pins are ignored: the knight pinned on e2 still controls d4.
    check(
        "",
        "write Control(wN,d4);",
        "4k3/4r3/8/8/8/8/4N3/4K3 w",
        &[1],
    );
}

#[test]
fn get_control_lists_the_reach() {
    // Rook a8: b8 c8 d8 e8 (the own king, defended) and a7..a1.
    let body = "write GetControl(bR,sqrlist); write InList(e8,sqrlist); write InList(a8,sqrlist); \
                write InList(f8,sqrlist); write InList(a1,sqrlist);";
    check(
        "list sqrlist;",
        body,
        "r3k3/8/8/8/8/8/8/4K3 w",
        &[11, 1, 0, 0, 1],
    );
}

// ---------------------------------------------------------------- IV.2.h

#[test]
fn exchange_control_examples() {
    // The queen alone cannot go to h7: the king takes it.
    check(
        "",
        "write ExchngCtrl(w,h7);",
        "6k1/8/8/8/8/8/8/1Q2K3 w",
        &[0],
    );
    // With the knight g5 the knight goes first, and the king cannot take a defended piece.
    check(
        "",
        "write ExchngCtrl(w,h7);",
        "6k1/8/8/6N1/8/8/8/1Q2K3 w",
        &[1],
    );
    // A balanced centre: both sides hold all four squares, so neither dominates.
    let body = "write ExchngCtrl(?,d4 e4 d5 e5); write ExchngCtrl(w,d4 e4 d5 e5); write ExchngCtrl(b,d4 e4 d5 e5);";
    check("", body, "4k3/8/2p2p2/3pp3/3PP3/2P2P2/8/4K3 w", &[1, 1, 1]);
    // Without c6, White wins the d5 pawn: Black loses control of d5.
    check("", body, "4k3/8/5p2/3pp3/3PP3/2P2P2/8/4K3 w", &[0, 1, 0]);
}

#[test]
fn exchange_control_counts_bishop_for_knight_as_a_loss() {
    // Bxd5 exd5 loses 25; Nxd5 exd5 is even.
    check(
        "",
        "write ExchngCtrl(w,d5);",
        "4k3/8/4p3/3n4/8/1B6/8/4K3 w",
        &[0],
    );
    check(
        "",
        "write ExchngCtrl(w,d5);",
        "4k3/8/4p3/3n4/8/2N5/8/4K3 w",
        &[1],
    );
}

// ---------------------------------------------------------------- IV.3

#[test]
fn list_length_examples() {
    check(
        "list tmplist;",
        "write ListLen(e2 e3); write ListLen(tmplist);",
        START,
        &[2, 0],
    );
}

#[test]
fn next_and_previous_square_examples() {
    let body = "write NxtSqr(h1) = a2; write NxtSqr(a.) = b.; write NxtSqr(.7) = .8; \
                write NxtSqr(..) = CHE_INVSQR; write NxtSqr(h8) = CHE_INVSQR; write NxtSqr(h.) = CHE_INVSQR; \
                write NxtSqr(.8) = CHE_INVSQR; write PrvSqr(a2) = h1; write PrvSqr(a1) = CHE_INVSQR;";
    check("", body, START, &[1; 9]);
}

#[test]
fn square_loops_visit_every_square_once() {
    let decls = "var n, last;";
    let forward =
        "n := 0; sqr := a1; while (sqr := NxtSqr(sqr)) <> CHE_INVSQR do n++; last := sqr; end; \
                   write n; write last = h8;";
    let src = program_with_locals(decls, "sqr", forward);
    assert_eq!(values(&src, START), [63, 1]);
    let backward =
        "n := 0; sqr := h8; while (sqr := PrvSqr(sqr)) <> CHE_INVSQR do n++; last := sqr; end; \
                    write n; write last = a1;";
    let src = program_with_locals(decls, "sqr", backward);
    assert_eq!(values(&src, START), [63, 1]);
}

#[test]
fn squares_along_ranks_and_files_examples() {
    let body = "write GetLSqrs(c4,l); write l[0] = c4; write l[1] = b4; write l[2] = a4; write l[3] = CHE_LISTEND; \
                write GetRSqrs(h1,l); write l[0] = h1; \
                write GetDwnSqrs(e4,l); write l[0] = e4; write l[1] = e3; write l[2] = e2; write l[3] = e1; \
                write GetUpSqrs(e4,l); write l[0] = e4; write l[4] = e8; \
                write GetLSqrs(e.,l); write l[0] = CHE_LISTEND; write GetUpSqrs(..,l);";
    check(
        "list l;",
        body,
        START,
        &[3, 1, 1, 1, 1, 1, 1, 4, 1, 1, 1, 1, 5, 1, 1, 0, 1, 0],
    );
}

#[test]
fn a_get_list_that_is_too_short_is_a_runtime_error_with_location() {
    // Two white passed pawns do not fit a list of one element.
    let src = program(
        "list pwns[1];",
        "write 1;\n  GetPassed(w,pwns);\n  write 2;",
    );
    let err = run_on(&src, &mut TestHost::new("4k3/8/8/8/8/8/P6P/4K3 w")).expect_err("overflow");
    assert!(err.contains("test.che:"), "{err}");
    assert!(err.contains("list too short"), "{err}");
    let line = src
        .lines()
        .position(|l| l.contains("GetPassed"))
        .expect("line")
        + 1;
    assert!(err.contains(&format!("test.che:{line}:")), "{err}");
    // Exactly enough room is fine.
    let src = program("list pwns[2];", "write GetPassed(w,pwns);");
    assert_eq!(values(&src, "4k3/8/8/8/8/8/P6P/4K3 w"), [2]);
}

#[test]
fn without_a_board_the_patterns_see_an_empty_board() {
    let src = program(
        "list l;",
        "write PcOnSqrs(wP,e4); write POnLine(?,=,0,.line); write KingPos(w,kside qside); \
         write GetControl(??,l); write IsPwnEndGame();",
    );
    let lines = run_without_host(&src).lines;
    let got: Vec<&str> = lines
        .iter()
        .map(|l| l.split(' ').next().unwrap_or(""))
        .collect();
    assert_eq!(got, ["0", "1", "0", "0", "1"]);
}
