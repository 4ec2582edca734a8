//! No input may panic the Che front end, and whatever it accepts must
//! compile to a verified module and convert to Che++ that compiles: random
//! text, token soups of Che words (which get much further into the parser
//! and the checker), and generated programs, for which the stable half of
//! the `che3_frontend` fuzz target also compares the converted program's
//! advice table with the direct compilation's.

use cvm_testkit::che3_programs;
use proptest::prelude::*;

fn front_end(source: &str) {
    if let Err(e) = che3_programs::check_front_end(source) {
        panic!("{e}\n--- source ---\n{source}");
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
