//! The `che` command line, tested from outside: output format, exit
//! statuses (0 / 1 compile errors / 2 runtime errors), the .che -> .cmp ->
//! .asm -> .cmp round trip, fuel and positions.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

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

/// A Latin-1 file (German comments and a text, as the Nimzo files were
/// written) and a UTF-8 file with a byte-order mark run like any other.
#[test]
fn latin1_and_bom_sources_run() {
    let d = dir("enc");
    let latin1 = d.join("latin1.che");
    std::fs::write(
        &latin1,
        b"# L\xE4ufer und T\xFCrme: gro\xDFe Figuren\ntext t \"Gr\xFC\xDFe\";\nprocedure main()\nbegin\n  TextOut(t);\n  write 1;\nend;\n",
    )
    .unwrap();
    let f = latin1.to_str().unwrap();
    for backend in ["interp", "jit"] {
        let o = che(&["run", f, "--backend", backend]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert_eq!(stdout(&o), "Grüße\n1 0x00000001\n");
    }
    let bom = write(
        &d,
        "bom.che",
        "\u{feff}procedure main()\nbegin\n  write 2; # Läufer\nend;\n",
    );
    let o = che(&["run", &bom]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "2 0x00000002\n");
    // A compile error in a Latin-1 file has its place, not "not UTF-8".
    let bad = d.join("bad.che");
    std::fs::write(
        &bad,
        b"# \xC4rger\nprocedure main()\nbegin\n  write nix;\nend;\n",
    )
    .unwrap();
    let o = che(&["run", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).starts_with(&format!("{}:4:9: error: cannot find `nix`", bad.display())),
        "{}",
        stderr(&o)
    );
}

/// 160 and 10,000 `+1` terms: no "expression too complex", the right
/// value, through the optimizer and both backends.
#[test]
fn long_expressions_run_on_both_backends() {
    let d = dir("chain");
    for n in [160usize, 10_000] {
        let f = write(
            &d,
            &format!("chain{n}.che"),
            &format!(
                "var x := 1;\nprocedure main()\nbegin\n  write x{};\n  write 0{};\nend;\n",
                "+1".repeat(n - 1),
                "-x*2".repeat(n)
            ),
        );
        let expected = format!(
            "{n} 0x{:08X}\n{} 0x{:08X}\n",
            n,
            -2 * n as i32,
            (-2 * n as i32) as u32
        );
        for args in [
            &["--backend", "interp"][..],
            &["--backend", "jit"],
            &["--backend", "jit", "--no-opt"],
        ] {
            let mut all = vec!["run", &f];
            all.extend_from_slice(args);
            let o = che(&all);
            assert_eq!(o.status.code(), Some(0), "{n} {args:?}: {}", stderr(&o));
            assert_eq!(stdout(&o), expected, "{n} {args:?}");
        }
    }
}

/// `BEGIN` for `begin`: one error, not a follow-on "no `main`".
#[test]
fn a_miscased_begin_is_one_error() {
    let d = dir("begin");
    let f = write(&d, "b.che", "procedure main()\nBEGIN\n  write 1;\nend;\n");
    let o = che(&["run", &f]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert_eq!(err.matches("error").count(), 2, "{err}"); // the error and the summary
    assert!(
        err.starts_with(&format!(
            "{f}:2:1: error: expected `begin`, found name `BEGIN`"
        )),
        "{err}"
    );
    assert!(err.ends_with(&format!("che: 1 error in {f}\n")), "{err}");
    assert!(!err.contains("main"), "{err}");
}

/// The writing end of a pipe whose reading end is already closed: the
/// reading end belonged to a helper process that has exited.
fn closed_pipe() -> Stdio {
    let mut helper = Command::new("true")
        .stdin(Stdio::piped())
        .spawn()
        .expect("runs true");
    let write_end = helper.stdin.take().expect("pipe");
    helper.wait().expect("true exits");
    Stdio::from(write_end)
}

/// Runs che with standard output and/or standard error going to a pipe
/// whose reading end is closed; returns the exit status and the other
/// stream.
fn che_closed(args: &[&str], close_stdout: bool, close_stderr: bool) -> (Option<i32>, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_che"));
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
    let out = command.output().expect("runs che");
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

/// `che run bad.che 2>&1 | head -1` used to panic (exit 101). A closed
/// standard error is ignored and the exit status stays what it was; a
/// closed standard output is a write error (exit 1) unless an error with
/// its own status came first. (A panic would be exit status 101.)
#[test]
fn closed_pipes_never_panic() {
    let d = dir("pipes");
    let bad = write(&d, "bad.che", "procedure main()\nbegin\n  write x;\nend;\n");
    let div = write(
        &d,
        "div.che",
        "var z;\nprocedure main()\nbegin\n  write 1 / z;\nend;\n",
    );
    let slow = write(
        &d,
        "slow.che",
        "procedure main()\nvar i;\nbegin\n  while i < 300000 do i++; end;\n  write i;\nend;\n",
    );
    for (close_stdout, close_stderr) in [(false, true), (true, true), (true, false)] {
        let (code, _) = che_closed(&["run", &bad], close_stdout, close_stderr);
        assert_eq!(code, Some(1), "compile error {close_stdout} {close_stderr}");
        let (code, _) = che_closed(&["run", &div], close_stdout, close_stderr);
        assert_eq!(code, Some(2), "runtime error {close_stdout} {close_stderr}");
        let (code, _) = che_closed(&["compile", &bad], close_stdout, close_stderr);
        assert_eq!(code, Some(1));
        let (code, _) = che_closed(&["nonsense"], close_stdout, close_stderr);
        assert_eq!(code, Some(1));
    }
    let (code, out) = che_closed(&["run", &slow], false, true);
    assert_eq!((code, out.as_str()), (Some(0), "300000 0x000493E0\n"));
    for command in ["run", "advice", "asm"] {
        let (code, err) = che_closed(&[command, &slow], true, false);
        assert_eq!(code, Some(1), "{command}: {err}");
        assert!(
            err.ends_with("che: cannot write the output: Broken pipe (os error 32)\n"),
            "{command}: {err}"
        );
        let (code, _) = che_closed(&[command, &slow], true, true);
        assert_eq!(code, Some(1), "{command}");
    }
    let (code, err) = che_closed(&["demo"], true, false);
    assert_eq!(code, Some(1), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}
