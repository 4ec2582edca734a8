//! The `che-engine` command line, run as a separate process.

use std::process::Command;

fn che_engine(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_che-engine"))
        .args(args)
        .output()
        .expect("run che-engine");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn perft_prints_the_count_on_the_last_line() {
    let (code, stdout, _) = che_engine(&["perft", "4"]);
    assert_eq!(code, 0);
    assert_eq!(stdout.lines().last(), Some("197281"));
    // CPW position 3 at depth 3.
    let (code, stdout, _) = che_engine(&[
        "perft",
        "3",
        "--fen",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    ]);
    assert_eq!(code, 0);
    assert_eq!(stdout.lines().last(), Some("2812"));
}

#[test]
fn divide_lists_each_root_move() {
    let (code, stdout, _) = che_engine(&["divide", "2"]);
    assert_eq!(code, 0);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.last(), Some(&"400"));
    assert!(lines.contains(&"e2e4: 20"));
    assert_eq!(lines.iter().filter(|l| l.contains(": ")).count(), 20);
}

#[test]
fn bad_fen_is_reported() {
    let (code, stdout, stderr) = che_engine(&["perft", "1", "--fen", "not a fen"]);
    assert_eq!(code, 1);
    assert!(stdout.is_empty());
    assert!(stderr.contains("FEN has 3 fields"), "{stderr}");
}

#[test]
fn no_subcommand_speaks_uci() {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_che-engine"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("run che-engine");
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(b"uci\nquit\n").expect("write");
    }
    let out = child.wait_with_output().expect("wait");
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.lines().any(|l| l == "uciok"), "{stdout}");
}
