//! No input may panic the Che++ front end: arbitrary strings, arbitrary
//! token soups made of Che++ words (which reach much deeper into the parser
//! and the checker than random bytes), and deep nesting.

use chepp::{compile_with, CompileOptions, MemLoader};
use proptest::prelude::*;
use std::path::Path;

fn compile(src: &str) {
    let loader = MemLoader::with(&[
        ("fuzz.che", src),
        ("lib.che", "const L := 1; procedure P(x, list l) begin end;"),
    ]);
    let c = compile_with(&loader, Path::new("fuzz.che"), &CompileOptions::default());
    // Rendering must not panic either, and a module exists exactly when
    // there is no error; any module produced must verify.
    let _ = c.render_diagnostics();
    assert_eq!(c.is_ok(), c.errors().next().is_none());
    // The builder verified it: a program is a verified module.
    assert_eq!(c.is_ok(), c.program.is_some());
}

const WORDS: &[&str] = &[
    "procedure",
    "function",
    "main",
    "(",
    ")",
    "begin",
    "end",
    ";",
    "var",
    "x",
    "y",
    "list",
    "l",
    "[",
    "]",
    ":=",
    "=",
    "<>",
    "<",
    "<=",
    ">",
    ">=",
    "+",
    "-",
    "*",
    "/",
    "%",
    "&",
    "|",
    "^",
    "~",
    "!",
    "++",
    "--",
    "and",
    "or",
    "if",
    "then",
    "elseif",
    "else",
    "while",
    "do",
    "repeat",
    "until",
    "for",
    "in",
    "switch",
    "case",
    "default",
    ":",
    "break",
    "goto",
    "lbl",
    "return",
    "write",
    "const",
    "C",
    "text",
    "t",
    "\"hi\"",
    "extern",
    "include",
    "lib.che",
    "stdlib.che",
    "1",
    "0",
    "-1",
    "0x7FFFFFFF",
    "e4",
    "a.",
    ".4",
    "..",
    "e2e4",
    "wP",
    "?O",
    "w",
    "b",
    "?",
    "aline",
    "row1",
    "kside",
    "lsqr",
    ",",
    "TextOut",
    "ListLen",
    "P",
    "L",
    "#c\n",
    "\n",
    "CopyList",
    "CHE_TRUE",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn arbitrary_strings_never_panic(src in "\\PC{0,200}") {
        compile(&src);
    }

    #[test]
    fn token_soup_never_panics(words in proptest::collection::vec(proptest::sample::select(WORDS), 0..120)) {
        compile(&words.join(" "));
    }

    #[test]
    fn mutated_valid_programs_never_panic(cut in 0usize..400, insert in proptest::sample::select(WORDS)) {
        let base = "include stdlib.che\nlist pwns[8];\nvar n;\nfunction f(a, list p) var i; begin for i in p do n := n + i * a; end; return n; end;\nprocedure main() begin switch f(2, pwns) case 0: write 1; break; default: write 2; end; end;";
        let cut = cut.min(base.len());
        let cut = (0..=cut).rev().find(|&i| base.is_char_boundary(i)).unwrap_or(0);
        let src = format!("{} {} {}", &base[..cut], insert, &base[cut..]);
        compile(&src);
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let parens = format!(
        "procedure main() begin write {}1{}; end;",
        "(".repeat(100_000),
        ")".repeat(100_000)
    );
    compile(&parens);
    let unary = format!(
        "procedure main() begin write {}1; end;",
        "-".repeat(100_000)
    );
    compile(&unary);
    let chain = format!(
        "procedure main() begin write 1{}; end;",
        "+1".repeat(100_000)
    );
    compile(&chain);
    let ifs = format!(
        "procedure main() begin {} end;",
        "if 1 then ".repeat(50_000)
    );
    compile(&ifs);
    let calls = format!(
        "procedure main() begin write {}1{}; end;",
        "ListLen(".repeat(50_000),
        ")".repeat(50_000)
    );
    compile(&calls);
    let assigns = format!(
        "var x; procedure main() begin {}1; end;",
        "x := ".repeat(100_000)
    );
    compile(&assigns);
}

#[test]
fn every_prefix_of_a_real_program_is_handled() {
    let src = "include stdlib.che\ntext t \"x\";\nlist l[4] := 1 2;\nconst K := 2 * 3;\nextern function G(a);\nfunction G(a) begin if a then return a; end; return K; end;\nprocedure main() var i; begin for i in l do write G(i)++; end; TextOut(t); goto e; e: end;";
    for i in 0..=src.len() {
        if src.is_char_boundary(i) {
            compile(&src[..i]);
        }
    }
}
