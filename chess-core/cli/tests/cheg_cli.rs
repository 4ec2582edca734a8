//! `che run|compile|asm` on CHEG programs through the binary: the output
//! lines of docs/cheg.md (`break ...`, `move ...`, `value ...`, `no entry`),
//! exit statuses, diagnostics on standard error.

use std::path::PathBuf;
use std::process::{Command, Output};

fn che(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_che"))
        .args(args)
        .output()
        .expect("runs che")
}

fn program(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("che-cheg-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write program");
    path
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).to_string()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

const KPK: &str = "8/8/8/4k3/8/8/4P3/4K3 w - - 0 1";

const PLAYER: &str = "\
ENTRY K&P,K
\tBREAK \"1,WP,BK
\tSQ>RNK S,WP,\"2
\tSETMOV M,WP,S
\tBREAK M
\tBREAK
\tVALON \"10,\"0,\"100
\tPLAYB LM,PAWN,DEEP
\tLEAVE
END
";

#[test]
fn run_prints_breaks_move_and_value_on_both_backends() {
    let path = program("player.cheg", PLAYER);
    let p = path.to_str().expect("utf-8 path");
    for backend in ["interp", "jit"] {
        let o = che(&["run", p, "--fen", KPK, "--backend", backend]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(
            stdout(&o),
            "break 1 wP@e2 bK@e5\nbreak e2e4\nbreak\nmove e2e3\nvalue 10 0 100\n"
        );
    }
    // The engine's search behind PLAYB sees the king take a pawn on e4 at every depth (its
    // quiescence search already at depth 1), so the shorter step stays first.
    for depth in ["1", "3", "5"] {
        let o = che(&["run", p, "--fen", KPK, "--depth", depth]);
        assert!(
            stdout(&o).contains("move e2e3\n"),
            "{depth}: {}",
            stdout(&o)
        );
    }
}

#[test]
fn no_entry_exits_zero() {
    let path = program("noentry.cheg", PLAYER);
    let o = che(&[
        "run",
        path.to_str().expect("path"),
        "--fen",
        "8/8/8/4k3/8/8/8/4K3 w - - 0 1",
    ]);
    assert!(o.status.success());
    assert_eq!(stdout(&o), "no entry\n");
}

#[test]
fn runtime_errors_exit_two_with_the_line() {
    let path = program(
        "div.cheg",
        "ENTRY K&P,K\n\tBREAK \"1\n\tDIV A,\"1,\"0\nEND\n",
    );
    let o = che(&[
        "run",
        path.to_str().expect("path"),
        "--fen",
        KPK,
        "--backend",
        "jit",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stdout(&o), "break 1\n");
    let err = stderr(&o);
    assert!(
        err.starts_with(&format!(
            "{}:3:2: error: division by zero\n",
            path.display()
        )),
        "{err}"
    );
    assert!(err.contains("^"), "{err}");
}

#[test]
fn fuel_bounds_a_run() {
    let path = program("loop.cheg", "ENTRY K&P,K\nL:\tJUMP= \"1,\"1,L\nEND\n");
    let o = che(&[
        "run",
        path.to_str().expect("path"),
        "--fen",
        KPK,
        "--fuel",
        "100",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("error: out of fuel"), "{}", stderr(&o));
}

#[test]
fn depth_is_refused_for_programs_that_are_not_cheg() {
    let che_pp = program("main.che", "procedure main()\nbegin\n  write 1;\nend;\n");
    let p = che_pp.to_str().expect("path");
    let o = che(&["run", p, "--depth", "3"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(stdout(&o), "");
    let err = stderr(&o);
    assert!(err.contains("--depth"), "{err}");
    assert!(err.contains("CHEG"), "{err}");
    assert_eq!(che(&["advice", p, "--depth", "3"]).status.code(), Some(1));
    // Without it the program runs; a CHEG program takes it.
    let o = che(&["run", p]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "1 0x00000001\n");
    let cheg = program("depth.cheg", PLAYER);
    let o = che(&[
        "run",
        cheg.to_str().expect("path"),
        "--fen",
        KPK,
        "--depth",
        "3",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
}

/// King and queen against king: 22 legal moves.
const KQK: &str = "8/8/8/4k3/8/8/8/1Q2K3 w - - 0 1";

/// A loop over a set operation whose work grows with the sets: UNION of
/// LM twice over (44 moves) with itself compares each move with those
/// before its first copy. The services charge for it, so a run with
/// little fuel stops after few iterations, on every backend alike.
const UNION_LOOP: &str = "\
ENTRY Q,K
\tAPPEND S,LM,LM
\tSETV N,\"0
L:\tUNION T,S,S
\tADD N,N,\"1
\tBREAK N
\tJUMP= \"1,\"1,L
END
";

#[test]
fn fuel_bounds_a_loop_over_an_expensive_service() {
    let path = program("union.cheg", UNION_LOOP);
    let p = path.to_str().expect("path");
    let mut outputs = Vec::new();
    for backend in ["interp", "jit", "auto"] {
        let o = che(&[
            "run",
            p,
            "--fen",
            KQK,
            "--fuel",
            "20000",
            "--backend",
            backend,
        ]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains("error: out of fuel"), "{}", stderr(&o));
        outputs.push(stdout(&o));
    }
    assert_eq!(outputs[0], outputs[1]);
    assert_eq!(outputs[0], outputs[2]);
    // UNION of the 44-element set with itself: 44 elements copied, and for
    // each of the 44 one step and the comparisons up to its first copy
    // (1 to 22): 44 + 2 x (22 + 253) = 594 steps, 74 units an iteration;
    // 20,000 units pay for fewer than 300 iterations (with a flat charge
    // of 1 a service they paid for about 2,000).
    let iterations = outputs[0].lines().count();
    assert!(iterations > 10, "{iterations}");
    assert!(iterations < 300, "{iterations}");
}

#[test]
fn compile_errors_exit_one() {
    let path = program("bad.cheg", "ENTRY K,K\n\tSQUARE A,LM\n\tNOPE\nEND\n");
    let o = che(&["run", path.to_str().expect("path")]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("bad.cheg:2:11: error: a set where a square"),
        "{err}"
    );
    assert!(
        err.contains("bad.cheg:3:2: error: unknown instruction `NOPE`"),
        "{err}"
    );
    assert!(err.contains("2 errors"), "{err}");
}

#[test]
fn compile_and_asm() {
    let path = program("c.cheg", PLAYER);
    let p = path.to_str().expect("path");
    let out = path.with_extension("cmp");
    let o = che(&["compile", p, "-o", out.to_str().expect("path")]);
    assert!(o.status.success(), "{}", stderr(&o));
    let bytes = std::fs::read(&out).expect("cmp written");
    assert!(cvm::load(&bytes).is_ok());
    let o = che(&["asm", p]);
    assert!(o.status.success());
    let text = stdout(&o);
    assert!(text.contains(".func body params 2"), "{text}");
    assert!(text.contains("intr HostCall"), "{text}");
}

#[test]
fn a_compiled_module_runs_like_the_source() {
    let path = program("mod.cheg", PLAYER);
    let p = path.to_str().expect("path");
    let cmp = path.with_extension("cmp");
    let asm = path.with_extension("asm");
    assert!(che(&["compile", p, "-o", cmp.to_str().expect("path")])
        .status
        .success());
    assert!(che(&["asm", p, "-o", asm.to_str().expect("path")])
        .status
        .success());
    let from_source = stdout(&che(&["run", p, "--fen", KPK]));
    for module in [&cmp, &asm] {
        for backend in ["interp", "jit"] {
            let o = che(&[
                "run",
                module.to_str().expect("path"),
                "--fen",
                KPK,
                "--backend",
                backend,
            ]);
            assert!(o.status.success(), "{}", stderr(&o));
            assert_eq!(stdout(&o), from_source);
        }
    }
    let path = program("moddiv.cheg", "ENTRY K&P,K\n\tDIV A,\"1,\"0\nEND\n");
    let cmp = path.with_extension("cmp");
    assert!(che(&[
        "compile",
        path.to_str().expect("path"),
        "-o",
        cmp.to_str().expect("path")
    ])
    .status
    .success());
    let o = che(&["run", cmp.to_str().expect("path"), "--fen", KPK]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("moddiv.cheg:2:2: error: division by zero"),
        "{}",
        stderr(&o)
    );
}

/// At the nodes of TRY's searches the program values the position by the rank of the side to
/// move's king: a material search would rank every move of this position alike.
const KING_UP: &str = "\
ENTRY Q,K
\tJUMP> DEPTH,\"1,NODE
\tTRY LM,,
\tDONE
NODE:\tRANK R,WK
\tVALRET R,\"0,\"50
END
";

#[test]
fn run_searches_with_the_engine_which_re_enters_the_program_at_its_nodes() {
    let path = program("kingup.cheg", KING_UP);
    let p = path.to_str().expect("utf-8 path");
    let cases = [
        ("4k3/8/8/8/8/8/8/3QK3 w - - 0 1", ["e1d2", "e1e2", "e1f2"]),
        ("3qk3/8/8/8/8/8/8/4K3 b - - 0 1", ["e8d7", "e8e7", "e8f7"]),
    ];
    for (fen, king_up) in cases {
        for backend in ["interp", "jit", "auto"] {
            let o = che(&["run", p, "--fen", fen, "--backend", backend]);
            assert!(o.status.success(), "{}", stderr(&o));
            let out = stdout(&o);
            let chosen = out.trim().strip_prefix("move ").unwrap_or("");
            assert!(king_up.contains(&chosen), "{fen} {backend}: {out}");
        }
    }
}
