//! The front end's diagnostics: `file:line:col: error: message`, the line
//! and a caret, every independent error of a file reported at once.

fn headlines(src: &str) -> Vec<String> {
    let c = cheg::compile_str("p.cheg", src);
    c.render_diagnostics()
        .lines()
        .filter(|l| l.starts_with("p.cheg:"))
        .map(str::to_string)
        .collect()
}

#[test]
fn one_error_renders_with_a_caret() {
    let c = cheg::compile_str("p.cheg", "ENTRY K,K\n\tSQUARE A,LM\nEND\n");
    assert!(!c.is_ok());
    assert_eq!(
        c.render_diagnostics(),
        "p.cheg:2:11: error: a set where a square (or a piece or move) is needed\n\
         \x20 --> p.cheg:2:11\n\
         \x20 |\n\
         2 |     SQUARE A,LM\n\
         \x20 |              ^^ wrong kind of value\n\
         \n"
    );
}

#[test]
fn every_independent_error_is_reported() {
    let src = "\
ENTRY K,K
\tFOO X
BAR:\tADD LM,\"T,\"1
\tSQUARE A,LM
\tJUMP< A,B,NOWHERE
L:\tSETV A,\"(1,2
L:\tCONDV ZZ,A,L
\tGETEL A,\"(1),\"T
\tPLAY LM,,SHALLOW
\tADD A,B
\tCARD A,B,C
\tSETV \"1,A
\tSET A,\"5,B
\tEXCH A,X
MAIN\tLEAVE
\tCONDV PASSD,\"3,L
\tSETMOV M,\"(1),WK
ENTRY Z,K&11P,=12
ENTRY K&P
ENTRY K,K,<9
END
\tthis line is after END and ignored
";
    assert_eq!(
        headlines(src),
        [
            "p.cheg:2:2: error: unknown instruction `FOO`",
            "p.cheg:3:10: error: `LM` is a predefined variable and cannot be written",
            "p.cheg:3:13: error: a logical where an integer is needed",
            "p.cheg:4:11: error: a set where a square (or a piece or move) is needed",
            "p.cheg:5:12: error: undefined tag `NOWHERE`",
            "p.cheg:6:11: error: bad literal: `)` is missing",
            "p.cheg:7:1: error: tag `L` is defined twice",
            "p.cheg:7:10: error: unknown condition `ZZ`",
            "p.cheg:8:15: error: a logical where an integer is needed",
            "p.cheg:9:11: error: unknown ordering `SHALLOW`",
            "p.cheg:10:9: error: missing argument 3 of ADD: a variable is needed",
            "p.cheg:11:11: error: too many arguments: CARD takes 2 arguments",
            "p.cheg:12:7: error: a literal cannot be written (argument 1 of SETV)",
            "p.cheg:13:8: error: a literal where a tag is needed",
            "p.cheg:14:9: error: `X` is a predefined variable and cannot be written",
            "p.cheg:15:1: error: `MAIN` starts the line but is not a tag",
            "p.cheg:16:14: error: an integer where a piece (or a square or move) is needed",
            "p.cheg:17:11: error: a set where a piece (or a square or move) is needed",
            "p.cheg:18:7: error: unknown piece group `Z`",
            "p.cheg:18:9: error: bad pawn count `11P`",
            "p.cheg:18:15: error: bad pawn-difference condition `=12`",
            "p.cheg:19:1: error: ENTRY takes two or three fields, not 1",
        ]
    );
}

#[test]
fn a_missing_end_is_a_warning() {
    let c = cheg::compile_str("p.cheg", "ENTRY K,K\n\tLEAVE\n");
    assert!(c.is_ok());
    assert_eq!(
        headlines("ENTRY K,K\n\tLEAVE\n"),
        ["p.cheg:3:1: warning: the program has no END line"]
    );
}

#[test]
fn comments_blank_lines_and_tag_only_lines() {
    let src =
        "; a comment\n\nENTRY K,K ; kings\nT1:\n\tJUMP= \"1,\"1,T2 ; forward\nT2:\tLEAVE\nEND\n";
    let c = cheg::compile_str("p.cheg", src);
    assert!(c.is_ok(), "{}", c.render_diagnostics());
    assert!(c.diagnostics.is_empty());
}

#[test]
fn lower_case_mnemonics_get_a_hint() {
    let c = cheg::compile_str("p.cheg", "ENTRY K,K\n\tleave\nEND\n");
    let text = c.render_diagnostics();
    assert!(
        text.starts_with("p.cheg:2:2: error: unknown instruction `leave`"),
        "{text}"
    );
    assert!(
        text.contains("help: instructions are written in capitals: `LEAVE`"),
        "{text}"
    );
}
