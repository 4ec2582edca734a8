//! The chess intrinsics end to end through the `che` binary: `--fen` reaches
//! the board view of `che run` and `che advice`, and `che advice` prints
//! the whole table as JSON.

use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output};

fn che(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_che"))
        .args(args)
        .output()
        .expect("runs che")
}

fn program(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("che-intrinsics-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write program");
    path
}

const PROGRAM: &str = "include stdlib.che
list pwns;
procedure main()
begin
  write GetPassed(w,pwns);
  write PcOnSqrs(wP,e3);
  SetVerbose(1);
  SetPMvs(w,20,e4);
  SetVerbose(0);
  if Passed(w,e3) then
    SetSqrs(wK,5,e2);
  end;
  SetStyle(ST_KINGSAFTY,130);
end;
";

/// A white pawn on e3 and the kings: the pawn is passed.
const FEN: &str = "4k3/8/8/8/8/4P3/8/4K3 w - - 0 1";

#[test]
fn run_reads_the_position_from_fen() {
    let p = program("run.che", PROGRAM);
    let path = p.to_str().expect("path");
    let o = che(&["run", path, "--fen", FEN]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "1 0x00000001\n1 0x00000001\nmove w e3e4 +20\n"
    );
    // The start position has no passed pawn and no pawn on e3; e2e4 is advised.
    let o = che(&["run", path]);
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "0 0x00000000\n0 0x00000000\nmove w e2e4 +20\n"
    );
}

#[test]
fn advice_prints_the_whole_table_for_the_position() {
    let p = program("advice.che", PROGRAM);
    let o = che(&["advice", p.to_str().expect("path"), "--fen", FEN]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let j: Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(j["move_bonus"]["w"], serde_json::json!({"e3e4": 20}));
    assert_eq!(j["move_bonus"]["b"], serde_json::json!({}));
    assert_eq!(j["square_bonus"]["wK"], serde_json::json!({"e2": 5}));
    assert_eq!(j["square_bonus"].as_object().map(|m| m.len()), Some(12));
    assert_eq!(j["control_bonus"]["bQ"], serde_json::json!({}));
    assert_eq!(j["piece_value"]["wQ"], 0);
    assert_eq!(j["style"]["ST_KINGSAFTY"], 130);
    assert_eq!(j["style"]["ST_PAWNMAT"], Value::Null);
    assert_eq!(j["style_defaults"], false);
    assert_eq!(j["verbose"], false);
    assert_eq!(
        j["output"],
        serde_json::json!(["1 0x00000001", "1 0x00000001", "move w e3e4 +20"])
    );
}

#[test]
fn a_short_get_list_fails_the_run_with_its_location() {
    let p = program(
        "short.che",
        "include stdlib.che\nlist pwns[1];\nprocedure main()\nbegin\n  GetPassed(w,pwns);\nend;\n",
    );
    let o = che(&[
        "advice",
        p.to_str().expect("path"),
        "--fen",
        "4k3/8/8/8/8/8/P6P/4K3 w - - 0 1",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("short.che:5:3: error: list too short"),
        "{err}"
    );
    assert!(o.stdout.is_empty());
}
