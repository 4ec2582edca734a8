//! Edges of the front end that real sources reach: files in Latin-1 (as the
//! original Nimzo files were written) or UTF-8 with a byte-order mark,
//! operator chains of any length, nesting beyond the limit (a clear error,
//! never a stack overflow), and errors that must not drag follow-on errors
//! behind them.

use chepp::{compile_file, compile_str, Compilation, CompileOptions};
use cvm::{CollectOutput, Interpreter, NoHost, Vm};
use std::path::PathBuf;

/// A fresh folder for files of one test.
fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("chepp-edges-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp folder");
    dir
}

/// Runs a compiled program's `main` and returns the lines written.
fn run(c: &Compilation) -> Vec<String> {
    let program = c
        .program
        .clone()
        .unwrap_or_else(|| panic!("compile errors:\n{}", c.render_diagnostics()));
    let mut out = CollectOutput::default();
    Interpreter::new(&program)
        .run_entry(&mut NoHost, &mut out)
        .expect("runs");
    out.lines.iter().map(|l| l.to_string()).collect()
}

/// The decimal values of the lines written by `src`'s `main`.
fn values(src: &str) -> Vec<i32> {
    let c = compile_str("test.che", src, &CompileOptions::default());
    run(&c)
        .iter()
        .map(|l| l.split(' ').next().unwrap().parse().unwrap())
        .collect()
}

/// The error messages (and where they point) of a program that must fail.
fn errors(src: &str) -> Vec<String> {
    let c = compile_str("test.che", src, &CompileOptions::default());
    assert!(c.program.is_none(), "expected errors, compiled fine");
    c.errors()
        .map(|d| match d.span {
            Some(span) => {
                let (line, col) = c.sources.line_col(span);
                format!("{line}:{col}: {}", d.message)
            }
            None => d.message.clone(),
        })
        .collect()
}

// ---- encodings ----------------------------------------------------------

/// `# Läufer, Springer, Turm: große Figuren` etc. in Latin-1 bytes: a
/// comment, a text and an included file with Latin-1 comments.
#[test]
fn latin1_sources_compile_and_run() {
    let dir = folder("latin1");
    let main = b"# L\xE4ufer und Springer, gro\xDFe Figuren\n\
include figuren.che\n\
text gruss \"Gr\xFC\xDFe aus \xD6sterreich\";\n\
procedure main()\n\
begin\n\
  TextOut(gruss); # \xE4\xF6\xFC\xDF\n\
  write Wert;\n\
end;\n";
    std::fs::write(dir.join("main.che"), main).unwrap();
    std::fs::write(
        dir.join("figuren.che"),
        b"# Z\xE4hler f\xFCr Figuren\nconst Wert := 3;\n",
    )
    .unwrap();
    let c = compile_file(&dir.join("main.che"), &CompileOptions::default());
    assert_eq!(run(&c), ["Grüße aus Österreich", "3 0x00000003"]);
}

/// A diagnostic in a Latin-1 file points at the right line and column:
/// columns count characters, and `ä` is one (in UTF-8 it takes two bytes).
#[test]
fn latin1_diagnostics_point_at_the_right_column() {
    let dir = folder("latin1-diag");
    let src = b"# \xC4rger\ntext t \"\xE4\xF6\xFC\" x;\nprocedure main() begin end;\n";
    std::fs::write(dir.join("bad.che"), src).unwrap();
    let c = compile_file(&dir.join("bad.che"), &CompileOptions::default());
    assert!(c.program.is_none());
    let first = c.errors().next().expect("an error");
    // `;` belongs right after the closing quote: 12 characters precede it.
    let (line, col) = c.sources.line_col(first.span.expect("a place"));
    assert_eq!((line, col), (2, 13), "{}", c.render_diagnostics());
    let rendered = c.render_diagnostics();
    let path = dir.join("bad.che");
    assert!(
        rendered.starts_with(&format!("{}:2:13: error: expected `;`", path.display())),
        "{rendered}"
    );
    assert!(rendered.contains("text t \"äöü\" x;"), "{rendered}");
}

/// UTF-8 with a byte-order mark (as some Windows editors write it), in the
/// main file and in an include; columns on the first line are unchanged.
#[test]
fn utf8_with_bom_compiles_and_columns_ignore_the_mark() {
    let dir = folder("bom");
    std::fs::write(
        dir.join("main.che"),
        "\u{feff}include inc.che\nprocedure main()\nbegin\n  write K; # Läufer\nend;\n",
    )
    .unwrap();
    std::fs::write(dir.join("inc.che"), "\u{feff}const K := 7;\n").unwrap();
    let c = compile_file(&dir.join("main.che"), &CompileOptions::default());
    assert_eq!(run(&c), ["7 0x00000007"]);

    std::fs::write(
        dir.join("bad.che"),
        "\u{feff}x procedure main() begin end;\n",
    )
    .unwrap();
    let c = compile_file(&dir.join("bad.che"), &CompileOptions::default());
    let first = c.errors().next().expect("an error");
    assert_eq!(c.sources.line_col(first.span.unwrap()), (1, 1));
    // Text given directly may carry the mark too.
    let c = compile_str(
        "direct.che",
        "\u{feff}procedure main() begin write 1; end;",
        &CompileOptions::default(),
    );
    assert_eq!(run(&c), ["1 0x00000001"]);
}

// ---- long chains ----------------------------------------------------------

fn chain(first: &str, op_term: &str, n: usize) -> String {
    format!("{first}{}", op_term.repeat(n))
}

#[test]
fn chains_of_any_length_compile_and_compute() {
    for n in [160, 161, 1000, 10_000] {
        let src = format!(
            "procedure main() begin write {}; end;",
            chain("1", "+1", n - 1)
        );
        assert_eq!(values(&src), [n as i32], "{n} terms");
    }
    // Subtraction is left-associative: 100 - 1 - 1 - ... (10,000 times).
    let src = format!(
        "procedure main() begin write {}; end;",
        chain("100", "-1", 10_000)
    );
    assert_eq!(values(&src), [100 - 10_000]);
    // Mixed precedence in a long chain: 1 + 2*3 + 2*3 + ... .
    let src = format!(
        "procedure main() begin write {}; end;",
        chain("1", "+2*3", 5_000)
    );
    assert_eq!(values(&src), [1 + 6 * 5_000]);
    // Division by zero at the end of a long chain is a runtime error at the
    // `/` (the chain is evaluated at run time, as written).
    let src = format!(
        "var z; procedure main() begin write {}/z; end;",
        chain("1", "+1", 5_000)
    );
    let c = compile_str("div.che", &src, &CompileOptions::default());
    let program = c.program.clone().expect("compiles");
    let err = Interpreter::new(&program)
        .run_entry(&mut NoHost, &mut CollectOutput::default())
        .expect_err("division by zero");
    let rendered = c.render_runtime_error(&err);
    assert!(rendered.contains("div.che:1:"), "{rendered}");
}

#[test]
fn long_conditions_and_constants() {
    // `and` / `or` chains in conditions and as values.
    let ands = chain("x >= 0", " and x < 10", 5_000);
    let ors = chain("x = 100", " or x = 3", 5_000);
    let src = format!(
        "var x := 3;
procedure main()
begin
  if {ands} then write 1; else write 0; end;
  while {ors} do write 2; x := x + 1; end;
  write {ands};
  write ({ors}) + 0;
end;"
    );
    assert_eq!(values(&src), [1, 2, 1, 0]);
    // Constants, list sizes and case labels are folded at compile time.
    let sum = chain("1", "+1", 9_999);
    let src = format!(
        "const N := {sum};
list l[{sum}];
procedure main()
begin
  write N;
  l[{sum} - 1] := 5;
  write l[9999];
  switch 10000 case {sum}: write 7; end;
end;"
    );
    assert_eq!(values(&src), [10_000, 5, 7]);
}

#[test]
fn long_chain_through_the_optimizer() {
    let src = format!(
        "var x := 2; procedure main() begin write {}; end;",
        chain("x", "+x*3-1", 10_000)
    );
    let c = compile_str("opt.che", &src, &CompileOptions::default());
    let program = c.program.clone().expect("compiles");
    let (optimized, _) = cvm::opt::optimize(&program);
    let mut out = CollectOutput::default();
    Interpreter::new(&optimized)
        .run_entry(&mut NoHost, &mut out)
        .expect("runs");
    assert_eq!(out.lines[0].to_string().split(' ').next(), Some("50002"));
}

#[test]
fn nesting_beyond_the_limit_is_a_clear_error() {
    for depth in [161, 1000, 100_000] {
        let src = format!(
            "procedure main() begin write {}1{}; end;",
            "(".repeat(depth),
            ")".repeat(depth)
        );
        let errs = errors(&src);
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert!(errs[0].contains("nesting too deep"), "{errs:?}");
    }
    // 150 levels are fine.
    let src = format!(
        "procedure main() begin write {}1{}; end;",
        "(".repeat(150),
        ")".repeat(150)
    );
    assert_eq!(values(&src), [1]);
    // Long postfix chains are nesting too (and not valid anyway).
    let src = format!(
        "var x; procedure main() begin x{}; end;",
        "++".repeat(100_000)
    );
    let errs = errors(&src);
    assert!(errs.iter().any(|e| e.contains("too complex")), "{errs:?}");
}

// ---- no follow-on errors ---------------------------------------------------

#[test]
fn a_miscased_begin_reports_only_itself() {
    let errs = errors("procedure main()\nBEGIN\n  write 1;\nend;\n");
    assert_eq!(errs, ["2:1: expected `begin`, found name `BEGIN`"]);
}

#[test]
fn a_miscased_or_misspelled_keyword_brings_no_follow_on_errors() {
    let errs = errors("procedure main()\nbegin\n  write 1;\nEND;\n");
    assert_eq!(errs, ["4:1: `END` is not a keyword"]);
    let errs = errors("procedur main()\nvar i;\nbegin\n  if 1 then i := 2; end;\nend;\nvar g;\nprocedure P() begin g := 1; end;\n");
    assert_eq!(errs, ["1:1: expected a declaration, found name `procedur`"]);
    let errs =
        errors("function F(x y) begin return x; end;\nprocedure main() begin write F(1); end;\n");
    assert_eq!(errs, ["1:14: expected `)`, found name `y`"]);
    // Nesting too deep: the rest of the file is skipped, nothing else is
    // reported about it.
    let src = format!(
        "procedure main()\nbegin\n  write {}1{};\nend;\nprocedure Q() begin write undeclared; end;\n",
        "(".repeat(200),
        ")".repeat(200)
    );
    let errs = errors(&src);
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(
        errs[0].starts_with("3:") && errs[0].ends_with("nesting too deep"),
        "{errs:?}"
    );
}

#[test]
fn names_spelled_like_keywords_keep_their_meaning_when_declared() {
    // `End`, `Write` and `AND` are ordinary names once declared.
    let src = "var End, AND;
procedure Write(x) begin End := End + x; end;
procedure main()
begin
  Write(2);
  AND := End;
  End;
  write AND;
end;";
    assert_eq!(values(src), [2]);
}
