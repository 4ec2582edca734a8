//! The `che` command line, tested from outside: output format, exit
//! statuses (0 / 1 compile errors / 2 runtime errors), the .che -> .cmp ->
//! .asm -> .cmp round trip, fuel and positions.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn che(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_che"))
        .args(args)
        .output()
        .expect("runs che")
}

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("che-cli-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

const PROGRAM: &str = "include stdlib.che
text hello \"Hello, Che\";
procedure main()
begin
  write 42;
  write -1;
  TextOut(hello);
  write CHE_TRUE;
end;
";

#[test]
fn run_prints_values_and_texts() {
    let d = dir("run");
    let f = write(&d, "p.che", PROGRAM);
    let o = che(&["run", &f]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "42 0x0000002A\n-1 0xFFFFFFFF\nHello, Che\n1 0x00000001\n"
    );
}

#[test]
fn compile_errors_exit_1_with_position_and_caret() {
    let d = dir("err");
    let f = write(
        &d,
        "bad.che",
        "procedure main()\nbegin\n  write nothing;\nend;\n",
    );
    let o = che(&["run", &f]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    let first = err.lines().next().unwrap();
    assert_eq!(
        first,
        format!("{f}:3:9: error: cannot find `nothing` in this scope")
    );
    assert!(
        err.contains("3 |   write nothing;\n  |         ^^^^^^^ not declared"),
        "{err}"
    );
    let o = che(&["compile", &f]);
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn runtime_errors_exit_2_with_position_and_caret() {
    let d = dir("rt");
    let f = write(
        &d,
        "div.che",
        "list l[2];\nprocedure main()\nvar i;\nbegin\n  write 7;\n  write l[i - 1];\nend;\n",
    );
    let o = che(&["run", &f]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stdout(&o), "7 0x00000007\n");
    let err = stderr(&o);
    assert!(
        err.starts_with(&format!("{f}:6:9: error: list index -1 out of bounds")),
        "{err}"
    );
    assert!(
        err.contains("6 |   write l[i - 1];\n  |         ^"),
        "{err}"
    );
}

#[test]
fn fuel_bounds_a_run() {
    let d = dir("fuel");
    let f = write(
        &d,
        "loop.che",
        "procedure main() begin while 1 do end; end;",
    );
    let o = che(&["run", &f, "--fuel", "1000"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("out of fuel"), "{}", stderr(&o));
}

#[test]
fn compile_asm_assemble_round_trip() {
    let d = dir("trip");
    let f = write(&d, "p.che", PROGRAM);
    let cmp = d.join("p.cmp");
    let o = che(&["compile", &f]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(cmp.exists(), "default output is FILE.cmp");
    let asm = d.join("p.asm");
    let o = che(&["asm", cmp.to_str().unwrap(), "-o", asm.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let cmp2 = d.join("p2.cmp");
    let o = che(&[
        "assemble",
        asm.to_str().unwrap(),
        "-o",
        cmp2.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(std::fs::read(&cmp).unwrap(), std::fs::read(&cmp2).unwrap());
    let o = che(&["run", cmp2.to_str().unwrap()]);
    assert_eq!(
        stdout(&o),
        "42 0x0000002A\n-1 0xFFFFFFFF\nHello, Che\n1 0x00000001\n"
    );
    let o = che(&["asm", &f]);
    assert!(
        stdout(&o).contains(".text hello \"Hello, Che\""),
        "{}",
        stdout(&o)
    );
}

#[test]
fn include_dirs_are_searched() {
    let d = dir("inc");
    let lib = dir("inc-lib");
    write(&lib, "mylib.che", "const ANSWER := 42;");
    let f = write(
        &d,
        "main.che",
        "include mylib.che\nprocedure main() begin write ANSWER; end;",
    );
    let o = che(&["run", &f]);
    assert_eq!(o.status.code(), Some(1));
    let o = che(&["run", &f, "-I", lib.to_str().unwrap()]);
    assert_eq!(stdout(&o), "42 0x0000002A\n", "{}", stderr(&o));
}

#[test]
fn the_example_program_runs_on_a_position() {
    let main = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../cvm/chepp/examples/shanny.che"
    );
    let colle = "r1bqkb1r/pp3ppp/2n1pn2/2pp4/3P4/2PBPN2/PP3PPP/RNBQK2R w KQkq - 0 6";
    let o = che(&["run", main, "--fen", colle]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "white Colle Position\n");
    let o = che(&["run", main, "--fen", "not a fen"]);
    assert_eq!(o.status.code(), Some(1));
    let o = che(&["run", main, "--fen", colle, "--backend", "jit"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "white Colle Position\n");
    let o = che(&["run", main, "--backend", "wasm"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("possible values: interp, jit"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn advice_prints_the_table_as_json() {
    let main = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../cvm/chepp/examples/shanny.che"
    );
    let o = che(&["advice", main]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    // The opening advice of midgame.che: SetMvs(w, 20, e2e4 d2d4).
    assert_eq!(json["move_bonus"]["w"]["e2e4"], 20);
    assert_eq!(json["move_bonus"]["w"]["d2d4"], 20);
}
