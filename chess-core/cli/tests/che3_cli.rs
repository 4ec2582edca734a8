//! `che` with Che (Nimzo 3) programs, tested from outside: `.che3` files
//! and `--dialect che3` through run, advice, compile, asm and convert; the
//! converted Che++ gives the same advice table; errors keep the command
//! line's formats and exit statuses.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn che(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_che"))
        .args(args)
        .output()
        .expect("runs che")
}

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("che3-cli-{}-{name}", std::process::id()));
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

const FRENCH: &str = "# The advance variation of the French defence.
pattern wFrench { wpwns(d4 e5) bpwns(d5 e6) } { };
pattern wCstld { piecesqrs(wK g1 c1) } { };
advice wFrench.01 wpwnmvs(c2c3 f2f4) goodsqrs(wN f3) wctrlsqrs(d4 e5);
advice wFrench.03 wFrench.01 { wCstld } wkingattack(kside);
rule french { wFrench } wFrench.03;
";

const ADVANCE: &str = "rnbqkbnr/ppp2ppp/4p3/3pP3/3P4/8/PPP2PPP/RNBQKBNR b KQkq - 0 3";

fn json(o: &Output) -> serde_json::Value {
    assert_eq!(o.status.code(), Some(0), "{}", stderr(o));
    serde_json::from_str(&stdout(o)).expect("JSON")
}

#[test]
fn run_and_advice_read_che3_files() {
    let d = dir("run");
    let f = write(&d, "french.che3", FRENCH);
    let o = che(&["run", &f]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "");
    for backend in ["interp", "jit"] {
        let j = json(&che(&[
            "advice",
            &f,
            "--fen",
            ADVANCE,
            "--backend",
            backend,
        ]));
        assert_eq!(j["move_bonus"]["w"]["c2c3"], 20);
        assert_eq!(j["move_bonus"]["w"]["f2f4"], 20);
        assert_eq!(j["square_bonus"]["wN"]["f3"], 20);
        assert_eq!(j["control_bonus"]["wP"]["e5"], 30);
        // Not castled: the king attack after the guard does not run.
        assert!(j["square_bonus"]["wR"].as_object().unwrap().is_empty());
    }
    // In the start position the rule's pattern fails: no advice at all.
    let j = json(&che(&["advice", &f]));
    assert!(j["move_bonus"]["w"].as_object().unwrap().is_empty());
}

#[test]
fn compile_asm_and_the_dialect_flag() {
    let d = dir("compile");
    let f = write(&d, "french.che3", FRENCH);
    let o = che(&["compile", &f]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let cmp = d.join("french.cmp");
    assert!(cmp.exists());
    let from_cmp = json(&che(&["advice", cmp.to_str().unwrap(), "--fen", ADVANCE]));
    let from_source = json(&che(&["advice", &f, "--fen", ADVANCE]));
    assert_eq!(from_cmp, from_source);
    let o = che(&["asm", &f, "--no-opt"]);
    assert!(
        stdout(&o).contains(".func pattern.wFrench "),
        "{}",
        stdout(&o)
    );
    assert!(
        stdout(&o).contains(".func advice.wFrench.03 "),
        "{}",
        stdout(&o)
    );
    // Any file name, with the flag.
    let t = write(&d, "french.txt", FRENCH);
    let o = che(&["run", &t]);
    assert_eq!(o.status.code(), Some(1), "read as Che++ without the flag");
    let flagged = json(&che(&["advice", &t, "--dialect", "che3", "--fen", ADVANCE]));
    assert_eq!(flagged, from_source);
    let o = che(&[
        "compile",
        &t,
        "--dialect",
        "che3",
        "-o",
        d.join("t.cmp").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = che(&["asm", &t, "--dialect", "che3"]);
    assert!(stdout(&o).contains(".func main "));
    // Che++ source named .che3 reads as Che++ with the flag.
    let cpp = write(
        &d,
        "plain.che3",
        "procedure main()\nbegin\n  write 7;\nend;\n",
    );
    let o = che(&["run", &cpp, "--dialect", "che++"]);
    assert_eq!(stdout(&o), "7 0x00000007\n");
    // The registry's alias of Che++.
    let o = che(&["run", &cpp, "--dialect", "chepp"]);
    assert_eq!(stdout(&o), "7 0x00000007\n");
    // CHEG programs run by their extension, and unknown names are refused;
    // the error names the dialects `--dialect` takes.
    for name in ["cheg", "cobol"] {
        let o = che(&["run", &cpp, "--dialect", name]);
        assert!(!o.status.success(), "--dialect {name} accepted");
        let err = stderr(&o);
        assert!(err.contains("che++") && err.contains("che3"), "{err}");
        assert!(stdout(&o).is_empty());
    }
}

#[test]
fn convert_writes_equivalent_chepp() {
    let d = dir("convert");
    let f = write(&d, "french.che3", FRENCH);
    let out = d.join("french.che");
    let o = che(&["convert", &f, "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stderr(&o), "");
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.contains("include stdlib.che"), "{text}");
    assert!(text.contains("function wFrench()"), "{text}");
    assert!(text.contains("procedure wFrench_03()"), "{text}");
    assert!(
        text.contains("# The advance variation of the French defence."),
        "{text}"
    );
    // The converted program compiles without a word and advises the same.
    for fen in [
        ADVANCE,
        "rnbqkbnr/ppp2ppp/4p3/3pP3/3P4/5N2/PPP2PPP/RNBQ1RK1 b kq - 0 5",
    ] {
        for backend in ["interp", "jit"] {
            let a = che(&[
                "advice",
                out.to_str().unwrap(),
                "--fen",
                fen,
                "--backend",
                backend,
            ]);
            assert_eq!(stderr(&a), "");
            assert_eq!(
                json(&a),
                json(&che(&["advice", &f, "--fen", fen, "--backend", backend]))
            );
        }
    }
    // Standard output without -o.
    let o = che(&["convert", &f]);
    assert_eq!(stdout(&o), text);
    let o = che(&["convert", &f, "--dialect", "che++"]);
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn errors_keep_their_format_and_status() {
    let d = dir("errors");
    let f = write(
        &d,
        "bad.che3",
        "pattern p { wpwns(E4) } { };\nrule r { q } ;\n",
    );
    for cmd in ["run", "compile", "convert"] {
        let o = che(&[cmd, &f]);
        assert_eq!(o.status.code(), Some(1), "{cmd}");
        let err = stderr(&o);
        let first = err.lines().next().unwrap();
        assert_eq!(
            first,
            format!("{f}:1:19: error: squares are written in lower case: `E4` is not a square")
        );
        assert!(
            err.contains(&format!("{f}:2:10: error: cannot find pattern `q`")),
            "{err}"
        );
        assert!(err.ends_with(&format!("che: 2 errors in {f}\n")), "{err}");
    }
    // A runtime error (out of fuel) names the .che3 place: status 2.
    let f = write(&d, "fuel.che3", FRENCH);
    let o = che(&["run", &f, "--fuel", "1", "--fen", ADVANCE]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.starts_with(&format!("{f}:")), "{err}");
    assert!(err.contains("error: out of fuel"), "{err}");
    assert!(err.contains('^'), "{err}");
}

#[test]
fn includes_next_to_the_file_and_from_i_folders() {
    let d = dir("include");
    std::fs::create_dir_all(d.join("lib")).unwrap();
    write(
        &d.join("lib"),
        "common.che3",
        "advice centre goodsqrs(wN d4 e4);\n",
    );
    let f = write(&d, "main.che3", "include common.che3\nrule r { } centre;\n");
    let o = che(&["run", &f]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("cannot find include file `common.che3`"));
    let lib = d.join("lib");
    let j = json(&che(&["advice", &f, "-I", lib.to_str().unwrap()]));
    assert_eq!(j["square_bonus"]["wN"]["d4"], 20);
}
