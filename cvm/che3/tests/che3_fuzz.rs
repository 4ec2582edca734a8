//! No input may panic the Che front end, and whatever it accepts must
//! compile to a verified module and convert to Che++ that compiles: random
//! text, token soups of Che words (which get much further into the parser
//! and the checker), and generated programs, for which the stable half of
//! the `che3_frontend` fuzz target also compares the converted program's
//! advice table with the direct compilation's.

use cvm_testkit::che3_programs;
use proptest::prelude::*;
use std::path::Path;

fn front_end(source: &str) {
    let loader = che3::MemLoader::with(&[
        ("fuzz.che3", source),
        (
            "lib.che3",
            "pattern lib { wpwns(e4) } { };\nadvice libadv goodsqrs(wN d4);\n",
        ),
    ]);
    let options = che3::CompileOptions::default();
    let c = che3::compile_with(&loader, Path::new("fuzz.che3"), &options);
    let _ = c.render_diagnostics();
    assert_eq!(c.module.is_some(), c.errors().next().is_none());
    if let Some(m) = c.module {
        cvm::Program::new(m).expect("compiler output verifies");
        let converted = che3::convert_with(&loader, Path::new("fuzz.che3"), &options);
        let text = converted.chepp.expect("what compiles converts");
        let loader = chepp::MemLoader::with(&[("fuzz.che", text.as_str())]);
        let cc = chepp::compile_with(
            &loader,
            Path::new("fuzz.che"),
            &chepp::CompileOptions::default(),
        );
        assert!(
            cc.diagnostics.is_empty(),
            "{}\n{text}",
            cc.render_diagnostics()
        );
    }
}

const WORDS: &[&str] = &[
    "pattern",
    "advice",
    "rule",
    "include",
    "Pattern",
    "{",
    "}",
    "(",
    ")",
    ";",
    "!",
    "#c\n",
    "\n",
    "lib.che3",
    "lib",
    "libadv",
    "p",
    "q",
    "a.b",
    "01",
    "..",
    "wpwns",
    "orbpwns",
    "pwnrams",
    "piecesqrs",
    "piececols",
    "piecesonbrd",
    "wkingside",
    "isendgame",
    "goodmvs",
    "wpwnmvs",
    "mvtosqrs",
    "wctrlsqrs",
    "wminattack",
    "wkingattack",
    "wexchgBs",
    "exchgpieces",
    "goodsqrs",
    "goodcols",
    "gooddiags",
    "goodrows",
    "e4",
    "E4",
    "e8",
    "d4c5",
    "f1a8",
    "e.",
    "wP",
    "bK",
    "?N",
    "w",
    "cline",
    "row3",
    "kside",
    "centre",
    "lsqr",
    ",",
    "_",
    "ä",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn any_text(s in "\\PC{0,300}") {
        front_end(&s);
    }

    #[test]
    fn token_soup(words in proptest::collection::vec(0..WORDS.len(), 0..80)) {
        let text: Vec<&str> = words.iter().map(|&i| WORDS[i]).collect();
        front_end(&text.join(" "));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn generated_programs_convert(data in proptest::collection::vec(any::<u8>(), 0..600), board in any::<(u8, u64)>()) {
        let source = che3_programs::generate(&data);
        let board = cvm_testkit::programs::board(board.0 % 12, board.1);
        if let Err(e) = che3_programs::check_conversion(&source, &board) {
            panic!("{e}\n--- Che ---\n{source}");
        }
    }
}
