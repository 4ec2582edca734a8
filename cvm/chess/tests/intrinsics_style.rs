//! Style and output functions (sections IV.6 and V.9): GetStyle, SetStyle,
//! GetScore, TextOut, write and SetVerbose.

mod intrinsics_common;
use cvm_chess::style::*;
use intrinsics_common::*;

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w";

fn host() -> TestHost {
    let mut h = TestHost::new(START);
    h.styles = vec![(ST_KINGSAFTY, 120), (ST_QUEENMAT, 950)];
    h
}

fn lines(body: &str, host: &mut TestHost) -> Vec<String> {
    run_on(&program("", body), host)
        .unwrap_or_else(|e| panic!("{e}"))
        .lines
}

#[test]
fn get_style_reads_the_engine_setting_and_ignores_set_style() {
    let mut h = host();
    let run = run_on(
        &program("", "write GetStyle(ST_KINGSAFTY); SetStyle(ST_KINGSAFTY,150); write GetStyle(ST_KINGSAFTY);"),
        &mut h,
    )
    .expect("runs");
    assert_eq!(run.lines, ["120 0x00000078", "120 0x00000078"]);
    assert_eq!(run.advice.style_override(ST_KINGSAFTY as usize), Some(150));
    assert_eq!(run.advice.style_set, 1 << ST_KINGSAFTY);
}

#[test]
fn get_style_of_unknown_ids_is_zero() {
    let mut h = host();
    assert_eq!(
        lines(
            "write GetStyle(ST_DEFAULTVALUES); write GetStyle(-1); write GetStyle(99);",
            &mut h
        ),
        ["0 0x00000000", "0 0x00000000", "0 0x00000000"]
    );
}

#[test]
fn without_a_host_get_style_reports_the_standard_values() {
    let run = run_without_host(&program(
        "",
        "write GetStyle(ST_QUEENMAT); write GetStyle(ST_OPPONENT);",
    ));
    assert_eq!(run.lines, ["900 0x00000384", "3 0x00000003"]);
}

#[test]
fn set_style_stores_overrides_and_flags_as_zero_or_one() {
    let mut h = host();
    let run = run_on(
        &program(
            "",
            "SetStyle(ST_PAWNMAT,90); SetStyle(ST_PIECETHREAT,5); SetStyle(ST_OPPONENT,OPP_REBEL);",
        ),
        &mut h,
    )
    .expect("runs");
    let a = &run.advice;
    assert_eq!(a.style_override(ST_PAWNMAT as usize), Some(90));
    assert_eq!(a.style_override(ST_PIECETHREAT as usize), Some(1));
    assert_eq!(a.style_override(ST_OPPONENT as usize), Some(OPP_REBEL));
    assert_eq!(a.style_override(ST_ROOKMAT as usize), None);
    assert_eq!(a.style_defaults, 0);
}

#[test]
fn default_values_drop_earlier_overrides() {
    let mut h = host();
    let run = run_on(
        &program(
            "",
            "SetStyle(ST_PAWNMAT,90); SetStyle(ST_DEFAULTVALUES,0); SetStyle(ST_ROOKMAT,480);",
        ),
        &mut h,
    )
    .expect("runs");
    assert_eq!(run.advice.style_defaults, 1);
    assert_eq!(run.advice.style_override(ST_PAWNMAT as usize), None);
    assert_eq!(run.advice.style_override(ST_ROOKMAT as usize), Some(480));
}

#[test]
fn set_style_refuses_the_learning_flag_and_unknown_values() {
    for (body, message) in [
        ("SetStyle(ST_LEARNFLG,1);", "ST_LEARNFLG cannot be changed"),
        ("SetStyle(99,1);", "99 is not a style id"),
        ("SetStyle(ST_OPPONENT,7);", "7 is not an OPP_* value"),
    ] {
        let src = program("", &format!("write 1;\n{body}"));
        let err = run_on(&src, &mut host()).expect_err("refused");
        assert!(err.contains("test.che:6:1: error: SetStyle"), "{err}");
        assert!(err.contains(message), "{err}");
    }
}

#[test]
fn get_score_counts_the_engine_moves_back() {
    let mut h = host();
    h.scores = vec![35, -10, 42];
    assert_eq!(lines("write GetScore(1); write GetScore(2); write GetScore(3); write GetScore(4); write GetScore(0);", &mut h), [
        "42 0x0000002A",
        "-10 0xFFFFFFF6",
        "35 0x00000023",
        "0 0x00000000",
        "0 0x00000000"
    ]);
}

#[test]
fn text_out_and_write() {
    let src = "include stdlib.che
text wColle \"white Colle Position\";
procedure main()
begin
  TextOut(wColle);
  write -1;
end;
";
    assert_eq!(
        run(src, START).lines,
        ["white Colle Position", "-1 0xFFFFFFFF"]
    );
}

#[test]
fn verbose_mode_reports_advised_moves_and_style_changes() {
    let body = "SetMvs(w,20,e2e4); SetVerbose(1); SetMvs(w,20,e2e4 g1..); SetPMvs(b,-5,e5); \
                SetSqrs(wB,20,e2); SetStyle(ST_KINGSAFTY,130); SetStyle(ST_DEFAULTVALUES,0); SetVerbose(0); \
                SetMvs(w,20,d2d4);";
    let run = run_on(&program("", body), &mut host()).expect("runs");
    assert_eq!(
        run.lines,
        [
            "move w e2e4 +20",
            "move w g1.. +20",
            "move b e7e5 -5",
            "style ST_KINGSAFTY 130",
            "style ST_DEFAULTVALUES"
        ]
    );
    assert_eq!(run.advice.verbose, 0);
    let run = run_on(&program("", "SetVerbose(7);"), &mut host()).expect("runs");
    assert_eq!(run.advice.verbose, 1);
}
