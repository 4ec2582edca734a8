//! Every instruction on both backends (with and without the optimizer),
//! against values worked out by hand from the manual and the conventions
//! of docs/cheg.md.

mod common;
use common::*;

/// Kings only, White to move.
const KK: &str = "8/8/8/4k3/8/8/8/4K3 w - - 0 1";
/// White: Ke1, Pe2; Black: Ke5; White to move.
const KPK: &str = "8/8/8/4k3/8/8/4P3/4K3 w - - 0 1";
/// Black: Ke8, Pe7; White: Ke1; Black to move.
const KPK_BLACK: &str = "4k3/4p3/8/8/8/8/8/4K3 b - - 0 1";

fn kk(body: &[&str]) -> Vec<String> {
    breaks(&prog("K,K", body), KK)
}

#[test]
fn arithmetic() {
    let b = kk(&[
        "ADD A,\"7,\"-3",
        "SUB B,\"7,\"-3",
        "MUL C,\"-3,\"4",
        "DIV D,\"-7,\"2",
        "MOD E,\"-7,\"2",
        "MOD F,\"7,\"-2",
        "BREAK A,B,C",
        "BREAK D,E,F",
        "DIF A,\"3,\"10",
        "MIN B,\"3,\"-10",
        "MAX C,\"3,\"-10",
        "BREAK A,B,C",
        "ABS A,\"-5",
        "ABS B,\"5",
        "BREAK A,B",
    ]);
    assert_eq!(b, ["4 10 -12", "-3 -1 1", "7 -10 3", "5 5"]);
}

#[test]
fn logic() {
    let b = kk(&[
        "NOR A,\"F,\"F",
        "NOR B,\"T,\"F",
        "OR C,\"F,\"T",
        "BREAK A,B,C",
        "OR A,\"F,\"F",
        "AND B,\"T,\"T",
        "AND C,\"T,\"F",
        "BREAK A,B,C",
    ]);
    assert_eq!(b, ["T F T", "F T F"]);
}

#[test]
fn division_by_zero_is_a_runtime_error_with_the_line() {
    let src = prog("K,K", &["BREAK \"1", "DIV A,\"1,\"0", "BREAK \"2"]);
    let err = run_all(&src, KK).expect_err("division by zero");
    assert_eq!(err, "break 1\nt.cheg:3:2: error: division by zero");
    let src = prog("K,K", &["MOD A,\"1,\"0"]);
    assert_eq!(
        run_all(&src, KK).expect_err("mod 0"),
        "t.cheg:2:2: error: division by zero"
    );
}

#[test]
fn type_errors_at_run_time() {
    let src = prog("K,K", &["SETV A,\"(1)", "ADD B,A,\"1"]);
    let err = run_all(&src, KK).expect_err("set + 1");
    assert!(
        err.starts_with("t.cheg:3:2: error: ADD: a set where an integer is needed"),
        "{err}"
    );
}

#[test]
fn set_building() {
    let b = kk(&[
        "PAIR A,\"1,\"(2)",
        "BREAK A",
        "MEMBER B,\"(3),\"(1,(3))",
        "MEMBER C,\"3,\"(1,(3))",
        "BREAK B,C",
        "MEMNUM B,\"(3),\"(1,(3))",
        "MEMNUM C,\"9,\"(1,(3))",
        "BREAK B,C",
        "INTERS A,\"(3,1,5,1),\"(1,3)",
        "UNION B,\"(3,1),\"(1,2,3,4)",
        "DIFFER C,\"(3,1,5),\"(1)",
        "BREAK A,B,C",
        "APPEND A,\"(1,2),\"(2,())",
        "CARD B,\"()",
        "CARD C,A",
        "BREAK A,B,C",
        "UNION A,\"((1),2),\"((1),(2))",
        "BREAK A",
    ]);
    assert_eq!(
        b,
        [
            "(1,(2))",
            "T F",
            "2 0",
            "(3,1,1) (3,1,2,4) (3,5)",
            "(1,2,2,()) 0 4",
            "((1),2,(2))"
        ]
    );
}

#[test]
fn element_access() {
    let b = kk(&[
        "GETEL A,\"(7,8,9),\"1",
        "GETEL B,\"(7,8,9),\"-1",
        "GETEL C,\"(7,8,9),\"-3",
        "BREAK A,B,C",
        "GETEL A,\"(7,8,9),\"0",
        "GETEL B,\"(7,8,9),\"4",
        "GETEL C,\"(7,8,9),\"-4",
        "BREAK A,B,C",
        "GETEL A,\"(),\"1",
        "BREAK A",
    ]);
    assert_eq!(b, ["7 9 7", "U U U", "U"]);
}

#[test]
fn element_updates_have_value_semantics() {
    let b = kk(&[
        "SETV S,\"(1,2)",
        "SETV KEEP,S",
        "SETEL \"5,S,\"-1",
        "BREAK S,KEEP",
        "SETEL \"7,S,\"4",
        "BREAK S",
        "SETV S,\"(1,2)",
        "INSERT \"0,S,\"1",
        "BREAK S",
        "INSERT \"9,S,\"-1",
        "BREAK S",
        "UNSERT E,S,\"2",
        "BREAK E,S",
        "UNSERT E,S,\"7",
        "BREAK E,S",
        "SETV V,\"9",
        "SETV S,\"(1,2)",
        "EXCHWE V,S,\"1",
        "BREAK V,S",
        "EXCHEL S,\"1,\"2",
        "BREAK S",
        "EXCHEL S,\"-1,\"3",
        "BREAK S",
    ]);
    assert_eq!(
        b,
        [
            "(1,5) (1,2)",
            "(1,5,U,7)",
            "(0,1,2)",
            "(0,1,9,2)",
            "1 (0,9,2)",
            "U (0,9,2)",
            "1 (9,2)",
            "(2,9)",
            "(2,U,9)"
        ]
    );
}

#[test]
fn jumps() {
    let b = kk(&[
        "JUMP< \"1,\"2,A",
        "BREAK \"0",
        "A:\tJUMP> \"1,\"2,NOTB",
        "BREAK \"1",
        "NOTB:\tJUMP= \"(1,(2)),\"(1,(2)),C",
        "BREAK \"0",
        "C:\tJUMP#= \"1,\"1,NOTD",
        "BREAK \"2",
        "NOTD:\tJUMP#< \"1,\"2,NOTE",
        "BREAK \"3",
        "NOTE:\tJUMP#> \"1,\"2,F",
        "BREAK \"0",
        "F:\tJUMP= \"1,\"T,NOTG",
        "BREAK \"4",
        "NOTG:\tLEAVE",
    ]);
    assert_eq!(b, ["1", "2", "3", "4"]);
}

#[test]
fn a_loop_counts() {
    let b = kk(&[
        "SETV I,\"0",
        "SETV SUM,\"0",
        "LOOP:\tADD I,I,\"1",
        "ADD SUM,SUM,I",
        "JUMP< I,\"10,LOOP",
        "BREAK I,SUM",
    ]);
    assert_eq!(b, ["10 55"]);
}

#[test]
fn subroutines_and_x() {
    let b = kk(&[
        "BREAK X,DEPTH",
        "SET A,DOUBLE,\"21",
        "BREAK A,X",
        "SET B,QUAD,\"3",
        "BREAK B",
        "LEAVE",
        "DOUBLE:\tADD R,X,X",
        "RETURN R",
        "QUAD:\tSET R,DOUBLE,X",
        "BREAK X",
        "SET R,DOUBLE,R",
        "RETURN R",
    ]);
    assert_eq!(b, ["U 1", "42 U", "3", "12"]);
}

#[test]
fn conditional_calls() {
    let b = kk(&[
        "SETV X2,\"4",
        "COND >0,FIVE,A",
        "BREAK \"0",
        "A:\tCOND #>0,FIVE,NOTB",
        "BREAK \"1",
        "NOTB:\tCONDV ODD,\"-3,C",
        "BREAK \"0",
        "C:\tCONDV #DEFD,UNSET,D",
        "BREAK \"0",
        "D:\tCONDT ISODD,\"3,E",
        "BREAK \"0",
        "E:\tCONDT ISODD,\"4,NOTF",
        "BREAK \"2",
        "NOTF:\tCONDF ISODD,\"4,G",
        "BREAK \"0",
        "G:\tCONDF ISODD,\"5,NOTH",
        "BREAK \"3",
        "NOTH:\tCONDV ,\"0,I",
        "BREAK \"0",
        "I:\tCONDV EMPTY,\"(),J",
        "BREAK \"0",
        "J:\tCONDV T,\"T,K",
        "BREAK \"0",
        "K:\tCONDV =0,\"0,L",
        "BREAK \"0",
        "L:\tCONDV <0,\"-1,M",
        "BREAK \"0",
        "M:\tLEAVE",
        "FIVE:\tRETURN \"5",
        "ISODD:\tCONDV ODD,X,YES",
        "RETURN \"F",
        "YES:\tRETURN \"T",
    ]);
    assert_eq!(b, ["1", "2", "3"]);
}

#[test]
fn select_needs_a_set() {
    let src = prog("K,K", &["SETV A,\"1", "SELECT B,S,A", "S:\tRETURN \"T"]);
    let err = run_all(&src, KK).expect_err("not a set");
    assert!(
        err.starts_with("t.cheg:3:2: error: SELECT: an integer where a set is needed"),
        "{err}"
    );
}

#[test]
fn condt_needs_a_logical() {
    let src = prog(
        "K,K",
        &["CONDT FIVE,\"1,A", "A:\tLEAVE", "FIVE:\tRETURN \"5"],
    );
    let err = run_all(&src, KK).expect_err("not logical");
    assert!(err.starts_with("t.cheg:2:2: error: CONDT/CONDF:"), "{err}");
}

#[test]
fn select_selecc_and_map() {
    let b = kk(&[
        "SELECT A,ISODD,\"(1,2,3,4,5)",
        "MAP B,DOUBLE,\"(1,2,(3))",
        "SELECC C,#ODD,\"(1,2,3,4)",
        "BREAK A,B,C",
        "SELECT A,ISODD,\"()",
        "BREAK A,X",
        "LEAVE",
        "ISODD:\tCONDV ODD,X,YES",
        "RETURN \"F",
        "YES:\tRETURN \"T",
        "DOUBLE:\tCONDV DEFD,X,D2",
        "D2:\tPAIR R,X,X",
        "RETURN R",
    ]);
    assert_eq!(b, ["(1,3,5) ((1,1),(2,2),((3),(3))) (2,4)", "() U"]);
}

#[test]
fn exch_and_order() {
    let src = prog(
        "K&P,K",
        &[
            "SETV A,\"1",
            "SETV B,\"(2)",
            "EXCH A,B",
            "BREAK A,B",
            "SETMOV M1,WP,E3",
            "SETSQ E3,\"3,\"5",
            "SETSQ E4,\"4,\"5",
            "SETMOV M1,WP,E3",
            "SETMOV M2,WP,E4",
            "ORDER M1,M2,DEEP",
            "BREAK M1,M2",
            "ORDER M1,M2,DEEP",
            "BREAK M1,M2",
            "ORDER M1,M2,#DEEP",
            "BREAK M1,M2",
            "ORDER M1,M2",
            "BREAK M1,M2",
        ],
    );
    // The first SETMOV reads E3 before it is set: the square of an
    // undefined value is an error, so the program sets E3 first.
    let src = src.replacen("\tSETMOV M1,WP,E3\n", "", 1);
    assert_eq!(
        breaks(&src, KPK),
        ["(2) 1", "e2e4 e2e3", "e2e4 e2e3", "e2e3 e2e4", "e2e3 e2e4"]
    );
}

#[test]
fn board_geometry_white_to_move() {
    let src = prog(
        "K&P,K",
        &[
            "BREAK WK,WP,BK",
            "RANK A,WP",
            "FILE B,WP",
            "SIDE C,WP",
            "BREAK A,B,C",
            "SCOLOR A,WP",
            "SCOLOR B,WK",
            "PCOLOR C,BK",
            "BREAK A,B,C",
            "MVDIST A,WK,BK",
            "OPP B,WK,BK",
            "OPP C,WP,BK",
            "BREAK A,B,C",
            "SETSQ S,\"1,\"4",
            "SIDE A,S",
            "SQ>RNK B,WP,\"2",
            "SETMOV M,WP,B",
            "BREAK S,A,B",
            "PIECE P,M",
            "SQUARE Q,M",
            "BREAK M,P,Q",
            "SQUARE Q,WK",
            "PIECE P,Q",
            "BREAK Q,P,WQ",
        ],
    );
    assert_eq!(
        breaks(&src, KPK),
        [
            "wK@e1 wP@e2 bK@e5",
            "2 5 0",
            "0 1 1",
            "4 T F",
            "d1 1 e4",
            "e2e4 wP@e2 e4",
            "e1 wK@e1 U"
        ]
    );
}

#[test]
fn board_geometry_black_to_move() {
    // Ranks count from Black's back rank and files from Black's left (h = 1):
    // the board is seen from the side to move.
    let src = prog(
        "K&P,K",
        &[
            "BREAK WK,WP,BK",
            "RANK A,WP",
            "FILE B,WP",
            "SIDE C,WP",
            "BREAK A,B,C",
            "PCOLOR A,WP",
            "PCOLOR B,BK",
            "SETSQ S,\"1,\"1",
            "SQ>RNK T,WP,\"3",
            "BREAK A,B",
            "BREAK S,T",
            "RANK A,BK",
            "BREAK A",
        ],
    );
    assert_eq!(
        breaks(&src, KPK_BLACK),
        ["bK@e8 bP@e7 wK@e1", "2 4 1", "0 1", "h8 e4", "8"]
    );
}

#[test]
fn board_errors() {
    let src = prog("K&P,K", &["SQ>RNK S,WP,\"7"]);
    let err = run_all(&src, KPK).expect_err("off the board");
    assert!(err.contains("SQ>RNK"), "{err}");
    let src = prog("K,K", &["SETSQ S,\"9,\"1"]);
    assert!(run_all(&src, KK).is_err());
    let src = prog("K,K", &["SETSQ S,\"4,\"4", "PIECE P,S"]);
    let err = run_all(&src, KK).expect_err("empty square");
    assert!(err.contains("there is no piece on d4"), "{err}");
    let src = prog("K,K", &["INSQ A,WK,BK"]);
    assert!(run_all(&src, KK).expect_err("not a pawn").contains("INSQ"));
}

#[test]
fn in_square() {
    // Pawn a5 against a king on e8: inside with Black to move (Kd7-c7-b7
    // catches it), outside with White to move (a6, a7, a8).
    let src = prog("K&P,K", &["INSQ A,BK,WP", "BREAK A"]);
    assert_eq!(breaks(&src, "4k3/8/8/P7/8/8/8/4K3 w - - 0 1"), ["F"]);
    let src = prog("K,K&P", &["INSQ A,WK,BP", "BREAK A"]);
    assert_eq!(breaks(&src, "4k3/8/8/P7/8/8/8/4K3 b - - 0 1"), ["T"]);
    // King h8 is four files away: outside either way.
    let src = prog("K&P,K", &["INSQ A,BK,WP", "BREAK A"]);
    assert_eq!(breaks(&src, "7k/8/8/P7/8/8/8/4K3 w - - 0 1"), ["F"]);
    // A pawn on its second rank counts as on its third (the double step).
    let src = prog("K&P,K", &["INSQ A,BK,WP", "BREAK A"]);
    // From a2 the pawn needs five moves, as from a3: a king on f7 is five
    // files away (inside), on g7 six (outside).
    assert_eq!(breaks(&src, "8/5k2/8/8/8/8/P7/4K3 w - - 0 1"), ["T"]);
    assert_eq!(breaks(&src, "8/6k1/8/8/8/8/P7/4K3 w - - 0 1"), ["F"]);
}

#[test]
fn piece_variables() {
    let src = prog("2R,K", &["BREAK WR,WR2,WQ", "BREAK BK,BR,WN2"]);
    assert_eq!(
        breaks(&src, "8/8/8/4k3/8/8/8/R3K2R w - - 0 1"),
        ["wR@a1 wR@h1 U", "bK@e5 U U"]
    );
}

#[test]
fn predefined_sets() {
    let src = prog("K&P,K", &["BREAK LM,PG,DEPTH"]);
    assert_eq!(
        breaks(&src, KPK),
        ["(e1d1,e1f1,e1d2,e1f2,e2e3,e2e4) ((wP@e2)) 1"]
    );
    // Stalemate: Black has no moves.
    let src = prog("K,Q", &["BREAK LM", "CARD N,LM", "BREAK N"]);
    assert_eq!(breaks(&src, "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"), ["()", "0"]);
}

#[test]
fn break_formats() {
    let src = prog(
        "K&P,K",
        &[
            "BREAK",
            "BREAK \"1",
            "BREAK \"T,\"-4",
            "BREAK ,\"1",
            "BREAK \"(),\"((),(1)),UNSET",
        ],
    );
    assert_eq!(
        lines(&src, KPK),
        [
            "break",
            "break 1",
            "break T -4",
            "break 1",
            "break () ((),(1)) U",
            "move none"
        ]
    );
}

#[test]
fn chess_conditions_on_moves() {
    let src = prog(
        "K&P,K",
        &[
            "SELECC A,RWK=,LM",
            "BREAK A",
            "SELECC A,OPP,LM",
            "BREAK A",
            "SELECC A,SAFE,LM",
            "BREAK A",
            "SELECC A,CAPT,LM",
            "SELECC B,#CAPT,LM",
            "BREAK A,B",
            "SELECC A,KING,LM",
            "SELECC B,PAWN,LM",
            "BREAK A,B",
        ],
    );
    assert_eq!(
        breaks(&src, KPK),
        [
            "(e1d1,e1f1,e2e3,e2e4)",
            "(e2e3,e2e4)",
            "(e1d1,e1f1,e1d2,e1f2,e2e3)",
            "() (e1d1,e1f1,e1d2,e1f2,e2e3,e2e4)",
            "(e1d1,e1f1,e1d2,e1f2) (e2e3,e2e4)"
        ]
    );
}

#[test]
fn captures_including_en_passant() {
    let src = prog("K&P,K&P", &["SELECC A,CAPT,LM", "BREAK A"]);
    assert_eq!(breaks(&src, "8/8/8/3pk3/4P3/8/8/4K3 w - - 0 1"), ["(e4d5)"]);
    assert_eq!(breaks(&src, "8/8/8/3pP3/8/8/8/4K2k w - d6 0 1"), ["(e5d6)"]);
}

#[test]
fn chess_conditions_on_pieces_and_squares() {
    let src = prog(
        "K&P,K",
        &[
            "SETV P,\"(1)",
            "PAIR P,WK,WP",
            "APPEND P,P,\"()",
            "SELECC A,KING,P",
            "SELECC B,PAWN,P",
            "SELECC C,WPC,P",
            "BREAK A,B,C",
            "SELECC A,WSQ,P",
            "SELECC B,PASSD,\"()",
            "BREAK A",
            "CONDV PASSD,WP,Y1",
            "BREAK \"0",
            "Y1:\tCONDV PDP,WP,N1",
            "BREAK \"1",
            "N1:\tCONDV WPC,BK,N2",
            "BREAK \"2",
            "N2:\tCONDV QUEEN,WK,N3",
            "CONDV ROOK,WK,N3",
            "CONDV BISH,WK,N3",
            "CONDV NIGHT,WK,N3",
            "BREAK \"3",
            "N3:\tCONDV RF,WK,N4",
            "CONDV NF,WK,N4",
            "BREAK \"4",
            "N4:\tSETSQ S,\"1,\"2",
            "CONDV NF,S,Y5",
            "BREAK \"0",
            "Y5:\tSETSQ S,\"1,\"8",
            "CONDV RF,S,Y6",
            "BREAK \"0",
            "Y6:\tLEAVE",
        ],
    );
    assert_eq!(
        breaks(&src, KPK),
        [
            "(wK@e1) (wP@e2) (wK@e1,wP@e2)",
            "(wP@e2)",
            "1",
            "2",
            "3",
            "4"
        ]
    );
}

#[test]
fn side_conditions_use_the_side_variable() {
    let src = prog(
        "K&P,K",
        &[
            "SETV SIDE,\"1",
            "CONDV FAR,WP,Y1",
            "BREAK \"0",
            "Y1:\tSETV SIDE,\"0",
            "CONDV FAR,WP,N2",
            "BREAK \"1",
            "N2:\tSETSQ S,\"1,\"7",
            "CONDV NNF,S,Y3",
            "BREAK \"0",
            "Y3:\tSETV SIDE,\"1",
            "CONDV NNF,S,N4",
            "BREAK \"2",
            "N4:\tLEAVE",
        ],
    );
    assert_eq!(breaks(&src, KPK), ["1", "2"]);
    // With Black to move the e-pawn stands on Black's fourth file (from
    // h): SIDE 1, and FAR against SIDE 0.
    let src = prog(
        "K&P,K",
        &[
            "SIDE A,WP",
            "SETV SIDE,\"0",
            "SELECC F,FAR,\"()",
            "PAIR P,WP,BK",
            "SELECC F,FAR,P",
            "SETSQ S,\"1,\"2",
            "SELECC N,NNF,P",
            "BREAK A,F,S",
        ],
    );
    assert_eq!(breaks(&src, KPK_BLACK), ["1 (bP@e7,wK@e1) g8"]);
    let src = prog("K&P,K", &["CONDV FAR,WP,L", "L:\tLEAVE"]);
    let err = run_all(&src, KPK).expect_err("SIDE undefined");
    assert!(err.contains("FAR: SIDE is undefined"), "{err}");
}

#[test]
fn play_and_orderings() {
    let play = |body: &[&str], fen: &str| lines(&prog("K&P,K", body), fen);
    assert_eq!(play(&["PLAY LM,,DEEP"], KPK), ["move e2e4"]);
    assert_eq!(play(&["PLAY LM,,#DEEP"], KPK), ["move e1d1"]);
    assert_eq!(play(&["PLAY LM"], KPK), ["move e1d1"]);
    assert_eq!(play(&["PLAY LM,PAWN"], KPK), ["move e2e3"]);
    assert_eq!(
        play(&["PLAY LM,CAPT", "BREAK \"1"], KPK),
        ["break 1", "move none"]
    );
    assert_eq!(play(&["PLAY LM,,DEEP"], KPK_BLACK), ["move e7e5"]);
    assert_eq!(
        play(&["VALON \"3,\"1,\"50", "PLAY LM,PAWN,DEEP"], KPK),
        ["move e2e4", "value 3 1 50"]
    );
}

#[test]
fn play_refuses_an_illegal_move() {
    let src = prog(
        "K&P,K",
        &["SETSQ S,\"5,\"5", "SETMOV M,WP,S", "PAIR P,M,M", "PLAY P"],
    );
    let err = run_all(&src, KPK).expect_err("illegal");
    assert!(err.contains("PLAY: e2e5 is not a legal move"), "{err}");
}

#[test]
fn searching_instructions() {
    let run = |body: &[&str]| lines(&prog("K&P,K", body), KPK);
    // Depth 2: after e2e4 the black king takes the pawn; e2e3 keeps it.
    assert_eq!(run(&["PLAYB LM,PAWN,DEEP"]), ["move e2e3"]);
    assert_eq!(run(&["TRY LM,PAWN", "DONE"]), ["move e2e3"]);
    assert_eq!(run(&["DONE"]), ["move none"]);
    assert_eq!(
        run(&["TRY LM,PAWN", "RETBET \"50,\"0,\"0", "BREAK \"1"]),
        ["move e2e3"]
    );
    assert_eq!(
        run(&["TRY LM,PAWN", "RETBET \"200,\"0,\"0", "BREAK \"1", "LEAVE"]),
        ["break 1", "move none"]
    );
    assert_eq!(
        run(&["TRY \"()", "PLAYB \"()", "BREAK \"1"]),
        ["break 1", "move none"]
    );
    // PLAN tries every legal move: the king moves keep the pawn too, and
    // the first of the equally good moves stays the best.
    assert_eq!(
        run(&["PLAN SUB,LM,\"5", "UNPLAN", "DONE", "SUB:\tLEAVE"]),
        ["move e1d1"]
    );
}

#[test]
fn values_and_leaving() {
    let run = |body: &[&str]| lines(&prog("K,K", body), KK);
    assert_eq!(
        run(&["VALRET \"1,\"2,\"3", "BREAK \"9"]),
        ["move none", "value 1 2 3"]
    );
    assert_eq!(
        run(&["VALRUT \"1,\"2,\"3", "BREAK \"9"]),
        ["break 9", "move none", "value 1 2 3"]
    );
    assert_eq!(
        run(&["VALON \"1,\"2,\"3", "VALON \"4,\"5,\"6", "BREAK \"9"]),
        ["break 9", "move none", "value 4 5 6"]
    );
    assert_eq!(run(&["LEAVE", "BREAK \"9"]), ["move none"]);
    assert_eq!(run(&["BREAK \"8"]), ["break 8", "move none"]);
    assert_eq!(run(&["RETURN \"1", "BREAK \"9"]), ["move none"]);
    assert_eq!(
        run(&["SET A,S,\"1", "BREAK \"9", "S:\tLEAVE"]),
        ["move none"]
    );
    let src = prog("K,K", &["SETV W,\"T", "VALRET W,\"2,\"3"]);
    assert!(run_all(&src, KK)
        .expect_err("not an integer")
        .contains("VALRET"));
}

#[test]
fn entries() {
    let src = "ENTRY Q,K\n\tBREAK \"1\nENTRY K&P,K,<1\n\tBREAK \"2\nENTRY K&P,K,1\n\tBREAK \"3\nENTRY K&P,K\n\tBREAK \"4\nEND\n";
    // The third ENTRY matches first; control then runs on into the next.
    assert_eq!(lines(src, KPK), ["break 3", "break 4", "move none"]);
    assert_eq!(lines(src, KK), ["no entry"]);
    let src = "ENTRY K,K&P,=-1\n\tBREAK \"1\nEND\n";
    assert_eq!(
        lines(src, "8/8/8/4k3/8/8/4P3/4K3 b - - 0 1"),
        ["break 1", "move none"]
    );
    let src = "ENTRY K,K&P,>-1\n\tBREAK \"1\nEND\n";
    assert_eq!(lines(src, "8/8/8/4k3/8/8/4P3/4K3 b - - 0 1"), ["no entry"]);
    let src = "ENTRY RBN&2P,Q&0P\n\tBREAK \"1\nEND\n";
    assert_eq!(
        lines(src, "3qk3/8/8/8/8/8/PP6/RBNK4 w - - 0 1"),
        ["break 1", "move none"]
    );
}

#[test]
fn fuel_and_depth_limits() {
    let src = prog("K,K", &["L:\tJUMP= \"1,\"1,L"]);
    let err = run_with(&src, KK, 2, Some(1000)).expect_err("fuel");
    assert_eq!(err, "t.cheg:2:4: error: out of fuel");
    let src = prog("K,K", &["S:\tSET A,S,X"]);
    let err = run_with(&src, KK, 2, None).expect_err("depth");
    assert!(err.contains("call depth limit"), "{err}");
}

#[test]
fn a_run_under_a_plan_starts_at_its_tag_with_x() {
    // What a searcher does at deeper plies: DEPTH 3, the plan
    // of tag P with plan variable 5.
    let src = prog("K,K", &["BREAK \"1", "LEAVE", "P:\tBREAK X,DEPTH", "LEAVE"]);
    let c = cheg::compile_str("t.cheg", &src);
    let program = cheg::checked(&c).expect("compiles").clone();
    let tag = program
        .tags
        .iter()
        .position(|t| t.name == "P")
        .expect("tag P") as i32;
    let verified = c.program.clone().expect("verifies");
    for backend in cvm::Backend::ALL {
        let prepared = jit::Prepared::new(verified.clone(), backend).expect("prepares");
        let mut vm = prepared.instance();
        let position = chess_core::Position::from_fen(KK).expect("fen");
        let mut search = cheg::search::FixedDepth::default();
        let plan = cheg::search::Plan {
            target: tag,
            variable: cheg::value::Value::Int(5),
        };
        let report =
            cheg::run_at(&mut *vm, &program, position, &mut search, 3, Some(plan)).expect("runs");
        assert_eq!(report.breaks, ["break 5 3"]);
    }
}
