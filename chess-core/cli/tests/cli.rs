//! The `che-engine` command line, run as a separate process.

use std::process::{Command, Stdio};

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

#[test]
fn perft_and_divide_refuse_depths_beyond_the_maximum() {
    for command in ["perft", "divide"] {
        for depth in ["99999", "65", "4294967295"] {
            let (code, stdout, stderr) = che_engine(&[command, depth]);
            assert_eq!(code, 1, "{command} {depth}: {stderr}");
            assert!(stdout.is_empty(), "{stdout}");
            assert_eq!(
                stderr,
                format!("che-engine: perft depth {depth} is beyond the supported maximum 64\n")
            );
        }
    }
    // Depth 0 counts the position itself.
    let (code, stdout, _) = che_engine(&["perft", "0"]);
    assert_eq!((code, stdout.as_str()), (0, "1\n"));
    let (code, stdout, _) = che_engine(&["divide", "0"]);
    assert_eq!((code, stdout.as_str()), (0, "\n1\n"));
}

/// The writing end of a pipe whose reading end is already closed: the reading end belonged to a
/// helper process that has exited.
fn closed_pipe() -> Stdio {
    let mut helper = Command::new("true")
        .stdin(Stdio::piped())
        .spawn()
        .expect("runs true");
    let write_end = helper.stdin.take().expect("pipe");
    helper.wait().expect("true exits");
    Stdio::from(write_end)
}

/// Runs che-engine with standard output and/or standard error going to a pipe whose reading end
/// is closed; returns the exit status (a panic would be 101, a stack overflow 134) and the other
/// stream.
fn closed(args: &[&str], close_stdout: bool, close_stderr: bool) -> (Option<i32>, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_che-engine"));
    command.args(args);
    command.stdout(if close_stdout {
        closed_pipe()
    } else {
        Stdio::piped()
    });
    command.stderr(if close_stderr {
        closed_pipe()
    } else {
        Stdio::piped()
    });
    let out = command.output().expect("run che-engine");
    let stream = if close_stderr {
        &out.stdout
    } else {
        &out.stderr
    };
    (
        out.status.code(),
        String::from_utf8_lossy(stream).into_owned(),
    )
}

#[test]
fn closed_output_pipes_end_subcommands_without_a_panic() {
    let (code, stderr) = closed(&["perft", "4"], true, false);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.ends_with("che-engine: cannot write the output: Broken pipe (os error 32)\n"),
        "{stderr}"
    );
    let (code, stderr) = closed(&["divide", "4"], true, false);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let (code, stderr) = closed(&["bench", "2"], true, false);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    // A closed standard error loses the timing line only.
    let (code, stdout) = closed(&["perft", "4"], false, true);
    assert_eq!(code, Some(0));
    assert_eq!(stdout, "197281\n");
    let (code, _) = closed(&["perft", "4"], true, true);
    assert_eq!(code, Some(1));
    let (code, _) = closed(&["perft", "99999"], true, true);
    assert_eq!(code, Some(1));
}
