//! `che demo`: the bundled program on both backends.

use che_cli::demo::{self, COLLE_FEN};

#[test]
fn the_demo_recognises_the_colle_and_both_backends_agree() {
    let d = demo::run(COLLE_FEN).expect("runs");
    assert!(d.agree(), "{d}");
    assert!(d.optimized_executed < d.executed, "{d}");
    let text = d.to_string();
    // midgame.che's Colle detector: TextOut and the Colle plans (the
    // bishop's d3-h7 diagonal gets 30 per square, SetDiags(wB,30,d3h7)).
    assert!(text.contains("white Colle Position"), "{text}");
    let advice = demo::describe(&d.runs[0].advice).join("\n");
    assert!(
        advice.contains("square bonuses, wB: d3 +30, e4 +30, f5 +30, g6 +30, h7 +30"),
        "{advice}"
    );
}

#[test]
fn the_start_position_gets_the_opening_advice() {
    let d = demo::run(chess_core::STARTPOS_FEN).expect("runs");
    assert!(d.agree());
    let advice = demo::describe(&d.runs[1].advice).join("\n");
    // midgame.che's OpeningAdvices: SetMvs(w, 20, e2e4 d2d4).
    assert!(
        advice.contains("d2d4 +20") && advice.contains("e2e4 +20"),
        "{advice}"
    );
}

#[test]
fn a_bad_fen_is_an_error() {
    assert!(matches!(
        demo::run("not a fen"),
        Err(demo::DemoError::Fen(_))
    ));
}
