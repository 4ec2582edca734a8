//! Malformed FEN: each entry of the table must be rejected, naming the field at fault and the
//! problem. The expectations are written by hand from the FEN specification.

use chess_core::{Colour, FenError, FenField, FenProblem, Position, Square};

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";

#[test]
fn table_of_bad_fens() {
    use FenField::*;
    use FenProblem::*;
    let table: Vec<(String, FenField, FenProblem)> = vec![
        (format!("{START}/8 w KQkq - 0 1"), Placement, RankCount(9)),
        (
            "rnbqkbnr/pppppppp/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".into(),
            Placement,
            RankCount(7),
        ),
        (
            "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".into(),
            Placement,
            BadPlacementChar('9'),
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNRR w KQkq - 0 1".into(),
            Placement,
            RankLength {
                rank: 1,
                squares: 9,
            },
        ),
        (
            "rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".into(),
            Placement,
            RankLength {
                rank: 7,
                squares: 7,
            },
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN0 w KQkq - 0 1".into(),
            Placement,
            BadPlacementChar('0'),
        ),
        (
            "rnbqkbnr/pppppppp/8/8/4X3/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".into(),
            Placement,
            BadPlacementChar('X'),
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1BNR w kq - 0 1".into(),
            Placement,
            KingCount {
                colour: Colour::White,
                count: 0,
            },
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNK w kq - 0 1".into(),
            Placement,
            KingCount {
                colour: Colour::White,
                count: 2,
            },
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/8/RNBQKBNp w KQkq - 0 1".into(),
            Placement,
            PawnOnBackRank(Square::H1),
        ),
        (
            "4k3/8/8/8/8/8/PPPPPPPP/QQQQKQQQ w - - 0 1".into(),
            Placement,
            TooMuchMaterial(Colour::White),
        ),
        (
            "4k3/8/8/8/8/8/8/4K3/8 w - - 0 1".into(),
            Placement,
            RankCount(9),
        ),
        (format!("{START} x KQkq - 0 1"), SideToMove, NotAColour),
        (format!("{START} W KQkq - 0 1"), SideToMove, NotAColour),
        (
            "4k3/8/8/8/8/8/8/4R1K1 w - - 0 1".into(),
            SideToMove,
            OpponentInCheck(Colour::Black),
        ),
        (
            "4k3/8/8/8/8/8/3p4/4K3 b - - 0 1".into(),
            SideToMove,
            OpponentInCheck(Colour::White),
        ),
        (
            format!("{START} w KQkx - 0 1"),
            Castling,
            BadCastlingChar('x'),
        ),
        (
            format!("{START} w KQKq - 0 1"),
            Castling,
            RepeatedCastlingChar('K'),
        ),
        (
            format!("{START} w HAha - 0 1"),
            Castling,
            BadCastlingChar('H'),
        ),
        (format!("{START} w KQkq e9 0 1"), EnPassant, NotASquare),
        (format!("{START} w KQkq 3e 0 1"), EnPassant, NotASquare),
        (
            format!("{START} w KQkq e3 0 1"),
            EnPassant,
            WrongEnPassantRank {
                side: Colour::White,
                rank: 6,
            },
        ),
        (
            format!("{START} b KQkq e6 0 1"),
            EnPassant,
            WrongEnPassantRank {
                side: Colour::Black,
                rank: 3,
            },
        ),
        (
            format!("{START} w KQkq e6 0 1"),
            EnPassant,
            NoDoublePushedPawn(Colour::Black),
        ),
        (format!("{START} w KQkq - -1 1"), HalfmoveClock, NotANumber),
        (format!("{START} w KQkq - x 1"), HalfmoveClock, NotANumber),
        (
            format!("{START} w KQkq - 99999999999 1"),
            HalfmoveClock,
            NotANumber,
        ),
        (
            format!("{START} w KQkq - 0 1.5"),
            FullmoveNumber,
            NotANumber,
        ),
        (format!("{START} w KQkq - 0 +1"), FullmoveNumber, NotANumber),
    ];
    for (fen, field, problem) in table {
        match Position::from_fen(&fen) {
            Err(FenError::Field {
                field: f,
                problem: p,
                ..
            }) => {
                assert_eq!((f, &p), (field, &problem), "{fen}");
            }
            other => panic!("{fen}: expected {field} error {problem:?}, got {other:?}"),
        }
    }
}

#[test]
fn wrong_number_of_fields() {
    for (fen, found) in [
        ("", 0),
        (START, 1),
        ("8/8/8/8/8/8/8/8 w", 2),
        ("8/8/8/8/8/8/8/8 w KQkq", 3),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 extra",
            7,
        ),
    ] {
        assert_eq!(
            Position::from_fen(fen),
            Err(FenError::FieldCount { found }),
            "{fen:?}"
        );
    }
}

#[test]
fn messages_name_the_field() {
    let err = Position::from_fen(&format!("{START} w KQkq e9 0 1")).expect_err("bad square");
    assert_eq!(err.field(), Some(FenField::EnPassant));
    assert_eq!(
        err.to_string(),
        "invalid en passant field `e9` in FEN: expected `-` or a square such as e3"
    );
    let err = Position::from_fen(&format!("{START} w KQkq - 0 one")).expect_err("bad number");
    assert!(err
        .to_string()
        .starts_with("invalid full-move number field `one`"));
}

#[test]
fn accepted_variants() {
    // Four fields: clocks default to 0 and 1.
    let pos = Position::from_fen("4k3/8/8/8/8/8/8/4K3 w - -").expect("valid");
    assert_eq!((pos.halfmove_clock(), pos.fullmove_number()), (0, 1));
    // Full-move 0 is read as 1 (common in problem collections).
    let pos = Position::from_fen("4k3/8/8/8/8/8/8/4K3 w - - 1 0").expect("valid");
    assert_eq!(pos.fullmove_number(), 1);
    // Castling letters in any order.
    let pos = Position::from_fen(&format!("{START} w qkQK - 0 1")).expect("valid");
    assert_eq!(pos.castling_rights().bits(), 15);
}

#[test]
fn garbage_never_panics() {
    let inputs = [
        "\u{0}",
        "////////",
        "8/8/8/8/8/8/8/8 w - - 0 1",
        "kkkkkkkk/8/8/8/8/8/8/KKKKKKKK w - - 0 1",
        "é/8/8/8/8/8/8/8 w - - 0 1",
        "11111111/8/8/8/8/8/8/8 w - - 0 1",
        "8/8/8/8/8/8/8/44 w - - 0 1",
        "4k3/8/8/8/8/8/8/4K3 w - a 0 1",
        "4k3/8/8/8/8/8/8/4K3 w - a9 0 1",
        "4k3/8/8/8/8/8/8/4K3 w - h6 0 1",
        "4k3/8/8/8/8/8/8/4K3 b - a3 0 1",
    ];
    for fen in inputs {
        assert!(Position::from_fen(fen).is_err(), "{fen:?}");
    }
}
