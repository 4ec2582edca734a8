//! An output path that names one of a command's inputs is refused before anything is written:
//! exit status 1, a message naming both, the input intact. The same file is recognised under
//! another name (`dir/./x.che`) and through a hard link.

#[path = "common/bounded.rs"]
mod bounded;

use bounded::{folder, run};
use std::path::Path;
use std::time::Duration;

const CHE: &str = env!("CARGO_BIN_EXE_che");
const ENGINE: &str = env!("CARGO_BIN_EXE_che-engine");
const DEADLINE: Duration = Duration::from_secs(60);

const PROGRAM: &str = "procedure main()\nbegin\n  write 1;\nend;\n";
const CHE3: &str = "advice a goodsqrs(wN e4);\n";
const PGN: &str = "[Event \"x\"]\n[Result \"*\"]\n\n1. e4 e5 2. Nf3 *\n";

fn s(p: &Path) -> String {
    p.to_str().expect("utf-8").to_string()
}

/// Runs `program args`, expects the refusal, and checks that `input` still holds `text`.
fn refused(program: &str, args: &[String], input: &Path, text: &[u8]) {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let ran = run(program, &args, "", DEADLINE);
    assert_eq!(ran.code, Some(1), "{args:?}: {}", ran.stderr);
    assert!(
        ran.stderr.contains("is the input") && ran.stderr.contains("choose another output file"),
        "{args:?}: {}",
        ran.stderr
    );
    assert_eq!(std::fs::read(input).expect("input kept"), text, "{args:?}");
}

#[test]
fn outputs_equal_to_inputs_are_refused() {
    let dir = folder("same-output");
    let che = dir.join("x.che");
    std::fs::write(&che, PROGRAM).expect("write");
    let other_name = dir.join(".").join("x.che");
    let link = dir.join("link.che");
    std::fs::hard_link(&che, &link).expect("hard link");
    for out in [&che, &other_name, &link] {
        refused(
            CHE,
            &["compile".into(), s(&che), "-o".into(), s(out)],
            &che,
            PROGRAM.as_bytes(),
        );
        refused(
            CHE,
            &["asm".into(), s(&che), "-o".into(), s(out)],
            &che,
            PROGRAM.as_bytes(),
        );
        refused(
            CHE,
            &["advice".into(), s(&che), "--svg".into(), s(out)],
            &che,
            PROGRAM.as_bytes(),
        );
    }
    // An included file is an input too.
    let lib = dir.join("lib.che");
    std::fs::write(&lib, "const ONE := 1;\n").expect("write");
    let main = dir.join("main.che");
    std::fs::write(&main, format!("include \"{}\"\n{PROGRAM}", s(&lib))).expect("write");
    refused(
        CHE,
        &["compile".into(), s(&main), "-o".into(), s(&lib)],
        &lib,
        b"const ONE := 1;\n",
    );
    // The default output of `compile` on a source named .cmp is the input itself.
    let cmp_named = dir.join("source.cmp");
    std::fs::write(&cmp_named, PROGRAM).expect("write");
    refused(
        CHE,
        &[
            "compile".into(),
            s(&cmp_named),
            "--dialect".into(),
            "che++".into(),
        ],
        &cmp_named,
        PROGRAM.as_bytes(),
    );
    // assemble, convert.
    let asm = dir.join("x.asm");
    let listing = run(CHE, &["asm", &s(&che), "-o", &s(&asm)], "", DEADLINE);
    assert_eq!(listing.code, Some(0), "{}", listing.stderr);
    let asm_text = std::fs::read(&asm).expect("listing");
    refused(
        CHE,
        &["assemble".into(), s(&asm), "-o".into(), s(&asm)],
        &asm,
        &asm_text,
    );
    let che3 = dir.join("y.che3");
    std::fs::write(&che3, CHE3).expect("write");
    refused(
        CHE,
        &["convert".into(), s(&che3), "-o".into(), s(&che3)],
        &che3,
        CHE3.as_bytes(),
    );
    // che-engine book.
    let pgn = dir.join("games.pgn");
    std::fs::write(&pgn, PGN).expect("write");
    refused(
        ENGINE,
        &["book".into(), s(&pgn), "-o".into(), s(&pgn)],
        &pgn,
        PGN.as_bytes(),
    );
    // A different output is written as before.
    let ok = run(
        CHE,
        &["compile", &s(&che), "-o", &s(&dir.join("x.cmp"))],
        "",
        DEADLINE,
    );
    assert_eq!(ok.code, Some(0), "{}", ok.stderr);
}
