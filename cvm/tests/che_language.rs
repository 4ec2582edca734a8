//! The complete examples of sections IV and V of the Che++ document
//! (completed with a `main` where they are fragments), compiled and run
//! with their expected output, plus the language rules the document states
//! in prose. Expected values are computed by hand from the document.

use cvm::che::{compile_str, compile_with, CompileOptions, MemLoader};
use cvm::{CollectOutput, Interpreter, NoHost, Program, RuntimeError};
use std::path::Path;

/// Compiles `src` (panicking with the rendered diagnostics on failure) and
/// runs `main`, returning the lines written.
fn run(src: &str) -> Vec<String> {
    try_run(src).unwrap_or_else(|e| panic!("runtime error: {e}"))
}

fn try_run(src: &str) -> Result<Vec<String>, RuntimeError> {
    let c = compile_str("test.che", src, &CompileOptions::default());
    let module = c.module.clone().unwrap_or_else(|| panic!("compile errors:\n{}", c.render_diagnostics()));
    let program = Program::new(module).expect("compiler output verifies");
    let mut out = CollectOutput::default();
    Interpreter::new(&program).run_entry(&mut NoHost, &mut out)?;
    Ok(out.lines.iter().map(|l| l.to_string()).collect())
}

/// The decimal values of the written lines.
fn values(src: &str) -> Vec<i32> {
    run(src)
        .iter()
        .map(|l| l.split(' ').next().unwrap().parse().unwrap())
        .collect()
}

fn errors(src: &str) -> Vec<String> {
    let c = compile_str("test.che", src, &CompileOptions::default());
    assert!(c.module.is_none(), "expected errors, compiled fine");
    c.errors().map(|d| d.message.clone()).collect()
}

#[test]
fn factorial_recursive() {
    let src = "
function fac(n)
begin
  if n <= 1 then
    return n;
  else
    return n*fac(n-1);
  end;
end;
procedure main()
begin
  write fac(1); write fac(5); write fac(10); write fac(12);
end;";
    assert_eq!(values(src), vec![1, 120, 3628800, 479001600]);
}

#[test]
fn write_prints_decimal_and_hex() {
    assert_eq!(
        run("procedure main() begin write 31; write -1; write 0x1F; write 0xFFFFFFFF; end;"),
        vec!["31 0x0000001F", "-1 0xFFFFFFFF", "31 0x0000001F", "-1 0xFFFFFFFF"]
    );
}
