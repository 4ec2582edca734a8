//! LM, CAPT, CHECK, PASSD, PDP, PG, OPP and INSQ against python-chess, on positions
//! with White and with Black to move, on every backend.
//!
//! The expectations come from `tests/python/reference.py` (python-chess
//! 1.11). Without `python3` and its `chess` package the test fails: the
//! reference is what the test is for.

mod common;
use common::*;
use std::io::Write;
use std::process::{Command, Stdio};

/// Positions, with the ENTRY that matches each.
const POSITIONS: &[(&str, &str)] = &[
    ("K&P,K", "8/8/8/4k3/8/8/4P3/4K3 w - - 0 1"),
    ("K&P,K", "4k3/4p3/8/8/8/8/8/4K3 b - - 0 1"),
    ("K&P,K&P", "8/8/8/3pP3/8/8/8/4K2k w - d6 0 1"),
    ("K&3P,K&3P", "4k3/pp6/8/2p5/5P2/8/6PP/4K3 w - - 0 1"),
    ("K&3P,K&3P", "4k3/pp6/8/2p5/5P2/8/6PP/4K3 b - - 0 1"),
    ("2R&2P,K&P", "1k6/5P2/8/8/2p5/8/1P6/R3K2R w KQ - 0 1"),
    ("K&P,2R&2P", "1k6/5P2/8/8/2p5/8/1P6/R3K2R b KQ - 0 1"),
    ("RB&P,QN", "kn6/5P2/1q6/8/8/8/8/1R2KB2 w - - 0 1"),
    ("QN,RB&P", "kn6/5P2/1q6/8/8/8/8/1R2KB2 b - - 0 1"),
    ("K&4P,K&4P", "4k3/2p2p2/1p1p4/8/3P4/2P3P1/5P2/4K3 w - - 0 1"),
    ("Q,K", "7k/8/5KQ1/8/8/8/8/8 w - - 0 1"),
    ("BN,K", "7k/8/5K2/8/8/8/8/6BN w - - 0 1"),
];

const PROGRAM: &[&str] = &[
    "BREAK LM",
    "SELECC C,CAPT,LM",
    "BREAK C",
    "SELECC C,CHECK,LM",
    "BREAK C",
    "SETV ALL,\"()",
    "SETV I,\"0",
    "CARD N,PG",
    "LOOP:\tJUMP#< I,N,OUT",
    "ADD I,I,\"1",
    "GETEL G,PG,I",
    "APPEND ALL,ALL,G",
    "JUMP= \"T,\"T,LOOP",
    "OUT:\tBREAK ALL",
    "SELECC P,PASSD,ALL",
    "BREAK P",
    "SELECC P,PDP,ALL",
    "BREAK P",
    "BREAK PG",
    "OPP O,WK,BK",
    "BREAK O",
    "MAP Q,INSQUARE,ALL",
    "BREAK Q",
    "LEAVE",
    "INSQUARE:\tPCOLOR C,X",
    "CONDV =0,C,OURS",
    "INSQ R,WK,X",
    "RETURN R",
    "OURS:\tINSQ R,BK,X",
    "RETURN R",
];

/// Installs python-chess when `python3` lacks it (the test fails below,
/// saying why, when that is not possible).
fn ensure_python_chess() {
    let ok = || {
        Command::new("python3")
            .args(["-c", "import chess"])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if !ok() {
        let _ = Command::new("python3")
            .args(["-m", "pip", "install", "--quiet", "chess"])
            .output();
    }
}

fn python_reference() -> Vec<Vec<String>> {
    ensure_python_chess();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/reference.py");
    let mut child = Command::new("python3")
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3 runs (python-chess is the reference of this test)");
    let input: String = POSITIONS
        .iter()
        .map(|(_, fen)| format!("{fen}\n"))
        .collect();
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("write FENs");
    let out = child.wait_with_output().expect("python3 finishes");
    assert!(
        out.status.success(),
        "reference.py failed (is python-chess installed?):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    text.split("--\n")
        .filter(|b| !b.trim().is_empty())
        .map(|b| b.lines().map(str::to_string).collect())
        .collect()
}

#[test]
fn chess_facts_match_python_chess() {
    let expected = python_reference();
    assert_eq!(expected.len(), POSITIONS.len());
    for ((entry, fen), want) in POSITIONS.iter().zip(&expected) {
        let got = breaks(&prog(entry, PROGRAM), fen);
        assert_eq!(&got, want, "position {fen}");
    }
}
