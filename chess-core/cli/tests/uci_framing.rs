//! The UCI channel under hostile input, through the `che-engine` binary: every line the engine
//! writes for a message is framed (`info string ...`), control characters from a program file
//! never reach the channel raw, and `go` with numbers too large for the engine still answers
//! `bestmove`.

#[path = "common/bounded.rs"]
mod bounded;

use bounded::{folder, run};
use std::time::Duration;

const ENGINE: &str = env!("CARGO_BIN_EXE_che-engine");
const DEADLINE: Duration = Duration::from_secs(60);

/// The lines a GUI reads as commands of the engine (everything but `info` lines and the
/// handshake), in order.
fn protocol_lines(stdout: &str) -> Vec<String> {
    stdout
        .split(['\n', '\r'])
        .filter(|l| !l.is_empty())
        .filter(|l| !l.starts_with("info ") && !l.starts_with("option ") && !l.starts_with("id "))
        .map(str::to_string)
        .collect()
}

#[test]
fn a_carriage_return_in_a_program_file_cannot_fake_a_bestmove() {
    let dir = folder("uci-cr");
    for (name, text) in [
        ("fake.che", "@\rbestmove a1a1\n"),
        ("fake.che3", "@\rbestmove a1a1\n"),
        (
            "fake2.che",
            "procedure main()\nbegin\n  x := 1;\r\nbestmove a1a1\n\u{1b}[2Jreadyok\nend;\n",
        ),
    ] {
        let path = dir.join(name);
        std::fs::write(&path, text).expect("write");
        let input = format!(
            "uci\nsetoption name CheProgram value {}\nisready\nposition startpos\ngo depth 2\nisready\nquit\n",
            path.display()
        );
        let ran = run(ENGINE, &[], &input, DEADLINE);
        assert_eq!(ran.code, Some(0), "{}", ran.stderr);
        // Every line of the channel: a framed message or a protocol line of the engine's own.
        let protocol = protocol_lines(&ran.stdout);
        let bestmoves: Vec<&String> = protocol
            .iter()
            .filter(|l| l.starts_with("bestmove"))
            .collect();
        assert_eq!(bestmoves.len(), 1, "{name}:\n{}", ran.stdout);
        assert!(!bestmoves[0].contains("a1a1"), "{name}:\n{}", ran.stdout);
        assert_eq!(
            protocol.iter().filter(|l| *l == "readyok").count(),
            2,
            "{name}:\n{}",
            ran.stdout
        );
        assert!(
            !ran.stdout.contains('\r') && !ran.stdout.contains('\u{1b}'),
            "{name}: raw control characters:\n{:?}",
            ran.stdout
        );
        // The diagnostics spread over several lines, each framed.
        let errors = ran
            .stdout
            .lines()
            .filter(|l| l.starts_with("info string"))
            .count();
        assert!(errors >= 2, "{name}:\n{}", ran.stdout);
    }
}

#[test]
fn huge_go_numbers_still_answer_bestmove() {
    for go in [
        "go movetime 99999999999999999999",
        "go wtime 99999999999999999999999999 btime 99999999999999999999999999 movestogo 99999999999",
        "go wtime 99999999999999999999 winc 99999999999999999999",
        "go nodes 99999999999999999999999999999999999999999999",
        "go movetime 99999999999999999999 depth 99999999999999999999",
    ] {
        // Each search is either bounded by a limit given with it or runs until `stop`.
        let input = format!("position startpos\n{go}\nisready\nstop\nisready\nquit\n");
        let ran = run(ENGINE, &[], &input, DEADLINE);
        assert_eq!(ran.code, Some(0), "{go}: {}", ran.stderr);
        assert!(!ran.stdout.contains("error"), "{go}:\n{}", ran.stdout);
        let protocol = protocol_lines(&ran.stdout);
        assert_eq!(
            protocol.iter().filter(|l| l.starts_with("bestmove ")).count(),
            1,
            "{go}:\n{}",
            ran.stdout
        );
    }
    let ran = run(ENGINE, &[], "go movetime x\nisready\nquit\n", DEADLINE);
    assert!(
        ran.stdout
            .contains("info string error: go: `movetime` needs a whole number, found `x`"),
        "{}",
        ran.stdout
    );
}
