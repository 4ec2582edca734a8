//! `che run --backend jit` and `che advice --backend jit`, tested from
//! outside against hand-computed output and against the interpreter
//! backend: the same lines, the same advice JSON, the same runtime error
//! message and exit status.

use std::path::PathBuf;
use std::process::{Command, Output};

fn che(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_che"))
        .args(args)
        .output()
        .expect("runs che")
}

fn file(name: &str, text: &str) -> String {
    let d: PathBuf = std::env::temp_dir().join(format!("che-jit-cli-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    let p = d.join(name);
    std::fs::write(&p, text).expect("write");
    p.to_string_lossy().into_owned()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

const PROGRAM: &str = "include stdlib.che
text hello \"Hello, Che\";
function fac(n)
begin
  if n <= 1 then return 1; end;
  return n * fac(n - 1);
end;
procedure main()
begin
  write fac(10);
  write -1;
  TextOut(hello);
  write PcOnSqrs(wP, e2 d2);
  write PcOnSqrs(wP, e4);
end;
";

#[test]
fn jit_run_prints_what_the_program_writes() {
    let f = file("run.che", PROGRAM);
    let o = che(&["run", &f, "--backend", "jit"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    // 10! = 3628800; the start position has pawns on e2 and d2, not on e4.
    assert_eq!(
        text(&o.stdout),
        "3628800 0x00375F00\n-1 0xFFFFFFFF\nHello, Che\n1 0x00000001\n0 0x00000000\n"
    );
    let i = che(&["run", &f, "--backend", "interp"]);
    assert_eq!(text(&i.stdout), text(&o.stdout));
}

#[test]
fn jit_advice_matches_the_interpreter() {
    let src = "include stdlib.che
procedure main()
begin
  GoodSqrs(wN, f3 c3);
  SetMvs(w, 20, e2e4 d2d4);
  if PcOnSqrs(bP, e5) then
    SetPMvs(w, 15, d4);
  end;
end;
";
    let f = file("advice.che", src);
    let fen = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2";
    let j = che(&["advice", &f, "--backend", "jit", "--fen", fen]);
    let i = che(&["advice", &f, "--backend", "interp", "--fen", fen]);
    assert_eq!(j.status.code(), Some(0), "{}", text(&j.stderr));
    assert!(!text(&j.stdout).is_empty());
    assert_eq!(text(&j.stdout), text(&i.stdout));
}

#[test]
fn jit_runtime_errors_exit_2_like_the_interpreter() {
    let src = "function main()
var x;
begin
  x := 0;
  return 10 / x;
end;
";
    let f = file("div.che", src);
    let j = che(&["run", &f, "--backend", "jit"]);
    let i = che(&["run", &f, "--backend", "interp"]);
    assert_eq!(j.status.code(), Some(2));
    assert!(
        text(&j.stderr).contains("division by zero"),
        "{}",
        text(&j.stderr)
    );
    assert_eq!(text(&j.stderr), text(&i.stderr));

    let looping = file(
        "loop.che",
        "procedure main()\nbegin\n  while 1 do end;\nend;\n",
    );
    let j = che(&["run", &looping, "--backend", "jit", "--fuel", "1000"]);
    let i = che(&["run", &looping, "--backend", "interp", "--fuel", "1000"]);
    assert_eq!(j.status.code(), Some(2));
    assert!(
        text(&j.stderr).contains("out of fuel"),
        "{}",
        text(&j.stderr)
    );
    assert_eq!(text(&j.stderr), text(&i.stderr));
}
