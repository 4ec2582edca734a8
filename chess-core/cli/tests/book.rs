//! The opening book against an independent reference: python-chess's Polyglot code computes the
//! keys of random positions, reads the book `che-engine book` builds, and writes a book by hand
//! that the engine's reader must understand (`tests/python/polyglot.py`). The engine plays from
//! the book under UCI (`OwnBook`, `BookFile`) and in the terminal game (`book on`).
//!
//! The python tests need `python3` with the `chess` package: when it is missing they install
//! it (`python3 -m pip install chess`), and fail, saying why, when that is not possible.

use che_engine::book::Book;
use che_engine::options::EngineOptions;
use che_engine::uci::{Flow, Session};
use che_engine::worker::Out;
use chess_core::{polyglot_key, Position};
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

const LINES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../engine/book/lines.pgn");
const SHIPPED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../engine/book/che.bin");
const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/polyglot.py");

/// Makes sure python-chess is there (installing it when it is not); fails the test otherwise.
fn ensure_python_chess() {
    let ok = || {
        Command::new("python3")
            .args(["-c", "import chess, chess.polyglot, chess.pgn"])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if !ok() {
        let _ = Command::new("python3")
            .args(["-m", "pip", "install", "--quiet", "chess"])
            .output();
    }
    assert!(
        ok(),
        "python3 with the `chess` package is needed (python-chess is this test's reference) \
         and `python3 -m pip install chess` did not provide it"
    );
}

fn python(args: &[&str]) -> String {
    let out = Command::new("python3")
        .arg(SCRIPT)
        .args(args)
        .output()
        .expect("run python3");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "polyglot.py {args:?} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("che-book-{}-{name}", std::process::id()))
}

fn build(pgn: &str, out: &PathBuf, extra: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_che-engine"))
        .args(["book", pgn, "-o"])
        .arg(out)
        .args(extra)
        .output()
        .expect("run che-engine book")
}

#[test]
fn the_shipped_book_is_built_from_the_shipped_lines() {
    let out = temp("shipped.bin");
    let run = build(LINES, &out, &[]);
    assert!(run.status.success(), "{run:?}");
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(stdout.contains("498 positions from 49 games"), "{stdout}");
    let built = std::fs::read(&out).expect("the built book");
    let shipped = std::fs::read(SHIPPED).expect("the shipped book");
    assert_eq!(built, shipped, "rebuild che.bin from lines.pgn");
    let _ = std::fs::remove_file(out);
}

#[test]
fn keys_match_python_chess() {
    ensure_python_chess();
    let text = python(&["keys", "3000", "22"]);
    let mut checked = 0;
    for line in text.lines() {
        let (fen, key) = line.split_once(';').expect("FEN;KEY");
        let pos = Position::from_fen(fen).expect("python-chess's FEN");
        let key = u64::from_str_radix(key, 16).expect("hex key");
        assert_eq!(polyglot_key(&pos), key, "{fen}");
        checked += 1;
    }
    assert_eq!(checked, 3000);
}

#[test]
fn python_chess_reads_the_books_we_build() {
    ensure_python_chess();
    let out = temp("read.bin");
    let run = build(LINES, &out, &["--plies", "16"]);
    assert!(run.status.success(), "{run:?}");
    let path = out.to_string_lossy().into_owned();
    let text = python(&["read", &path, LINES, "16"]);
    assert!(text.ends_with("OK\n"), "{text}");
    let _ = std::fs::remove_file(out);
}

#[test]
fn we_read_a_book_python_chess_wrote() {
    ensure_python_chess();
    let out = temp("written.bin");
    let path = out.to_string_lossy().into_owned();
    let text = python(&["write", &path, "400", "5"]);
    let book = Book::load(&path).expect("the python-written book");
    let mut positions = 0;
    for line in text.lines() {
        let (fen, moves) = line.split_once(';').expect("FEN;moves");
        let pos = Position::from_fen(fen).expect("FEN");
        let mut expected: Vec<(String, u16)> = moves
            .split(',')
            .map(|mw| {
                let (m, w) = mw.split_once(':').expect("uci:weight");
                (m.to_string(), w.parse().expect("weight"))
            })
            .collect();
        let mut found: Vec<(String, u16)> = book
            .moves(&pos)
            .into_iter()
            .map(|(m, w)| (m.to_string(), w))
            .collect();
        expected.sort();
        found.sort();
        assert_eq!(found, expected, "{fen}");
        positions += 1;
    }
    assert!(positions > 300, "{positions}");
    let _ = std::fs::remove_file(out);
}

#[test]
fn bad_pgn_is_refused_with_the_place() {
    let pgn = temp("bad.pgn");
    std::fs::write(&pgn, "1. e4 e5 2. Nf3 Nc6 *\n\n1. d4 d5 2. Ke3 *\n").expect("write");
    let out = temp("bad.bin");
    let run = build(&pgn.to_string_lossy(), &out, &[]);
    assert_eq!(run.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains("game 2, half-move 3: `Ke3` cannot be played"),
        "{stderr}"
    );
    assert!(!out.exists());
    let _ = std::fs::remove_file(pgn);
}

fn session() -> (Session, Out) {
    let out = Out::capture();
    let options = EngineOptions {
        hash_mb: 4,
        ..EngineOptions::default()
    };
    (
        Session::new(options, out.clone()).expect("engine thread"),
        out,
    )
}

fn converse(session: &mut Session, out: &Out, lines: &[&str]) -> Vec<String> {
    for line in lines {
        assert_eq!(session.handle(line), Flow::Continue, "{line}");
        session.wait();
    }
    out.take_lines()
}

/// The moves the shipped lines play after `moves` (UCI), read from the PGN text by the SAN reader.
fn line_moves_after(moves: &[&str]) -> Vec<String> {
    let games =
        che_engine::book::pgn::read_games(&std::fs::read_to_string(LINES).expect("lines.pgn"))
            .expect("valid PGN");
    let mut next = Vec::new();
    for g in games {
        let played: Vec<String> = g.moves.iter().map(|m| m.to_string()).collect();
        if played.len() > moves.len() && played[..moves.len()] == *moves {
            next.push(played[moves.len()].clone());
        }
    }
    next
}

#[test]
fn uci_plays_from_the_book_when_asked() {
    let (mut s, out) = session();
    let lines = converse(
        &mut s,
        &out,
        &[
            "setoption name OwnBook value true",
            "position startpos moves e2e4",
            "go depth 8",
        ],
    );
    let note = lines
        .iter()
        .find(|l| l.starts_with("info string book move "))
        .unwrap_or_else(|| panic!("{lines:?}"));
    let best = lines
        .iter()
        .find_map(|l| l.strip_prefix("bestmove "))
        .and_then(|l| l.split(' ').next())
        .expect("bestmove");
    assert!(note.contains(best), "{lines:?}");
    assert!(
        line_moves_after(&["e2e4"]).iter().any(|m| m == best),
        "{best}"
    );
    // Out of the book it searches; off, it never uses the book.
    let lines = converse(
        &mut s,
        &out,
        &["position fen 4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", "go depth 3"],
    );
    assert!(!lines.iter().any(|l| l.contains("book move")), "{lines:?}");
    let lines = converse(
        &mut s,
        &out,
        &[
            "setoption name OwnBook value false",
            "position startpos",
            "go depth 2",
        ],
    );
    assert!(!lines.iter().any(|l| l.contains("book move")), "{lines:?}");
    // A missing book file is reported; the engine goes on.
    let lines = converse(
        &mut s,
        &out,
        &["setoption name BookFile value /nonexistent/book.bin"],
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string error: opening book: cannot read the book")),
        "{lines:?}"
    );
    s.quit();
}

#[test]
fn uci_book_choice_follows_the_weights() {
    // After 1. e4 e5 2. Nf3 Nc6 the lines continue with Bb5 (five lines), Bc4 (two), d4 (two) and
    // Nc3 (one): over many searches with different seeds Bb5 is chosen about half the time.
    let expected = line_moves_after(&["e2e4", "e7e5", "g1f3", "b8c6"]);
    assert_eq!(
        expected.iter().filter(|m| *m == "f1b5").count(),
        5,
        "{expected:?}"
    );
    let (mut s, out) = session();
    let mut counts = std::collections::BTreeMap::new();
    for seed in 0..60 {
        let lines = converse(
            &mut s,
            &out,
            &[
                "setoption name OwnBook value true",
                &format!("setoption name RandomSeed value {seed}"),
                "position startpos moves e2e4 e7e5 g1f3 b8c6",
                "go depth 1",
            ],
        );
        let best = lines
            .iter()
            .find_map(|l| l.strip_prefix("bestmove "))
            .and_then(|l| l.split(' ').next())
            .expect("bestmove")
            .to_string();
        *counts.entry(best).or_insert(0) += 1;
    }
    s.quit();
    let bb5 = counts.get("f1b5").copied().unwrap_or(0);
    assert_eq!(counts.values().sum::<i32>(), 60);
    assert!(counts.keys().all(|m| expected.contains(m)), "{counts:?}");
    assert!(counts.len() >= 3, "{counts:?}");
    // Expected 30 of 60 (p = 0.5, standard deviation 3.9); the bound is three of them.
    assert!((18..=42).contains(&bb5), "{counts:?}");
}

#[test]
fn the_terminal_game_plays_from_the_book() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_che-engine"))
        .arg("play")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start che-engine play");
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(b"book on\nd4\nbook off\n")
            .expect("write script");
    }
    let out = child.wait_with_output().expect("play output");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("The computer plays from its opening book while the position is in it."),
        "{text}"
    );
    let reply = text
        .lines()
        .find_map(|l| l.strip_prefix("Black plays 1... "))
        .expect("a reply");
    let pos = Position::startpos();
    let after_d4 = pos.after(pos.parse_san("d4").expect("d4"));
    let reply = after_d4
        .parse_san(reply)
        .expect("a legal reply")
        .to_string();
    assert!(line_moves_after(&["d2d4"]).contains(&reply), "{text}");
    assert!(text.contains("(book move "), "{text}");
}
