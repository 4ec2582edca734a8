//! The TextMate grammars in `grammars/` are the ones made from the
//! languages' tables (`CHE_WRITE_GRAMMARS=1` rewrites them), and their
//! patterns colour what they should: every intrinsic, Che function, CHEG
//! instruction and condition by its own table, chess literals, comments.

use che_editor::analysis::Language;
use che_editor::grammar::{file_name, textmate};
use fancy_regex::Regex;
use serde_json::Value;
use std::path::Path;

const LANGUAGES: [Language; 3] = [Language::Chepp, Language::Che3, Language::Cheg];

fn pattern(grammar: &Value, name: &str) -> Regex {
    let text = grammar["repository"][name]["match"]
        .as_str()
        .unwrap_or_else(|| panic!("no pattern {name}"));
    Regex::new(text).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Whether `re` matches exactly `word` somewhere in `line`.
fn finds(re: &Regex, line: &str, word: &str) -> bool {
    re.find_iter(line)
        .filter_map(Result::ok)
        .any(|m| m.as_str() == word)
}

#[test]
fn the_committed_grammars_are_the_generated_ones() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("grammars");
    for language in LANGUAGES {
        let generated = format!(
            "{}\n",
            serde_json::to_string_pretty(&textmate(language)).expect("JSON")
        );
        let path = dir.join(file_name(language));
        if std::env::var_os("CHE_WRITE_GRAMMARS").is_some() {
            std::fs::write(&path, &generated).expect("writes the grammar");
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == generated,
            "{} is not the generated grammar; run the test with CHE_WRITE_GRAMMARS=1",
            path.display()
        );
    }
}

#[test]
fn the_patterns_colour_the_words_of_each_language() {
    let che = textmate(Language::Chepp);
    let intrinsic = pattern(&che, "intrinsic");
    for info in cvm::intrinsics::INTRINSICS {
        let line = format!("  x := {}(w, d4);", info.name);
        assert!(finds(&intrinsic, &line, info.name), "{}", info.name);
    }
    assert!(!finds(&intrinsic, "  PcOnSqrsX(1);", "PcOnSqrs"));
    let literal = pattern(&che, "chess-literal");
    for word in [
        "e2e.", "e4", "..", "wP", "?N", "wO", "aline", "row4", "kside", "lsqr",
    ] {
        assert!(finds(&literal, &format!("  f({word}, 1);"), word), "{word}");
    }
    assert!(!finds(&literal, "  total := e4x;", "e4"));
    assert!(finds(&pattern(&che, "comment"), "x := 1; # note", "# note"));
    assert!(finds(
        &pattern(&che, "stdlib-routine"),
        "GoodSqrs(wN, d4);",
        "GoodSqrs"
    ));
    assert!(finds(
        &pattern(&che, "stdlib-constant"),
        "x := ST_KINGSAFTY;",
        "ST_KINGSAFTY"
    ));

    let che3 = textmate(Language::Che3);
    let function = pattern(&che3, "function");
    for f in che3::functions::FUNCTIONS {
        assert!(finds(
            &function,
            &format!("advice a {}(wN d4);", f.name),
            f.name
        ));
    }

    let cheg = textmate(Language::Cheg);
    let instruction = pattern(&cheg, "instruction");
    for i in cheg::table::Instr::ALL {
        let line = format!("TAG:    {} A,B,C ; comment", i.name());
        assert!(finds(&instruction, &line, i.name()), "{}", i.name());
    }
    let condition = pattern(&cheg, "condition");
    for c in cheg::table::Cond::ALL
        .iter()
        .filter(|c| !c.name().is_empty())
    {
        let line = format!("        CONDV {},V,LATER", c.name());
        assert!(finds(&condition, &line, c.name()), "{}", c.name());
    }
    assert!(finds(&pattern(&cheg, "tag"), "QVAL:   SETV A,WK", "QVAL:"));
    assert!(finds(&pattern(&cheg, "literal"), "  SETV A,\"5", "\"5"));
    assert!(finds(
        &pattern(&cheg, "comment"),
        "  DONE ; and play",
        "; and play"
    ));
}
