//! Every reader of a file a user names refuses special files (a character device such as
//! `/dev/zero`, a FIFO, a directory) and files over the documented limit (4 MiB for programs,
//! 64 MiB for books and PGN files) with a clear message, at once: `che` (every subcommand and
//! `include`), CHEG programs, `che-engine book`, and the engine's `CheProgram`,
//! `EndgameProgram` and `BookFile` options over UCI.
#![cfg(unix)]

#[path = "common/bounded.rs"]
mod bounded;

use bounded::{folder, run, sparse};
use std::path::Path;
use std::time::Duration;

/// Generous: each refusal takes milliseconds; reading `/dev/zero` would never end.
const DEADLINE: Duration = Duration::from_secs(30);

const CHE: &str = env!("CARGO_BIN_EXE_che");
const ENGINE: &str = env!("CARGO_BIN_EXE_che-engine");

/// The largest program file read, as documented.
const SOURCE_LIMIT: u64 = 4 * 1024 * 1024;
/// The largest book or PGN file read, as documented.
const DATA_LIMIT: u64 = 64 * 1024 * 1024;

fn che(args: &[&str]) -> bounded::Ran {
    run(CHE, args, "", DEADLINE)
}

/// Special files under the names each reader is given: a character device, a FIFO, a
/// directory, and a too large (sparse) file, each with the extension the reader wants.
fn hostile(dir: &Path, ext: &str, limit: u64) -> Vec<(String, &'static str)> {
    let zero = dir.join(format!("zero.{ext}"));
    std::os::unix::fs::symlink("/dev/zero", &zero).expect("symlink");
    let fifo = dir.join(format!("fifo.{ext}"));
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let folder = dir.join(format!("folder.{ext}"));
    std::fs::create_dir_all(&folder).expect("folder");
    let big = dir.join(format!("big.{ext}"));
    sparse(&big, limit + 1);
    vec![
        (
            zero.display().to_string(),
            "a character device, not a regular file",
        ),
        (
            fifo.display().to_string(),
            "a named pipe (FIFO), not a regular file",
        ),
        (
            folder.display().to_string(),
            "a directory, not a regular file",
        ),
        (
            big.display().to_string(),
            "larger than the limit of 4194304 bytes (4 MiB)",
        ),
    ]
}

fn expect_refused(ran: &bounded::Ran, what: &str, message: &str) {
    assert_eq!(ran.code, Some(1), "{what}: {}", ran.stderr);
    assert!(ran.stderr.contains(message), "{what}: {}", ran.stderr);
}

#[test]
fn che_subcommands_refuse_special_and_large_files() {
    let dir = folder("che");
    for ext in ["che", "che3", "cheg", "cmp", "asm"] {
        for (path, message) in hostile(&dir, ext, SOURCE_LIMIT) {
            for args in [
                vec!["run", path.as_str()],
                vec!["advice", path.as_str()],
                vec!["asm", path.as_str()],
                vec!["compile", path.as_str(), "-o", "/dev/null"],
            ] {
                if ext == "cheg" && args[0] == "advice" {
                    continue; // refused for being CHEG before anything is read
                }
                expect_refused(&che(&args), &args.join(" "), message);
            }
        }
    }
    for (path, message) in hostile(&dir, "asm2", SOURCE_LIMIT) {
        let ran = che(&["assemble", &path, "-o", "/dev/null"]);
        expect_refused(&ran, "assemble", message);
        let ran = che(&["convert", &path]);
        expect_refused(&ran, "convert", message);
    }
}

#[test]
fn includes_refuse_special_and_large_files() {
    let dir = folder("include");
    for (path, message) in hostile(&dir, "inc", SOURCE_LIMIT) {
        let main = dir.join("main.che");
        std::fs::write(
            &main,
            format!("include \"{path}\"\nprocedure main()\nbegin\nend;\n"),
        )
        .expect("write");
        let ran = che(&["run", main.to_str().expect("utf-8")]);
        expect_refused(&ran, "include", message);
        assert!(
            ran.stderr.contains("cannot read include file"),
            "{}",
            ran.stderr
        );
        let main3 = dir.join("main.che3");
        std::fs::write(&main3, format!("include {path}\n")).expect("write");
        let ran = che(&["run", main3.to_str().expect("utf-8")]);
        expect_refused(&ran, "che3 include", message);
    }
}

#[test]
fn book_building_refuses_special_and_large_pgn_files() {
    let dir = folder("pgn");
    for (path, message) in hostile(&dir, "pgn", DATA_LIMIT) {
        let message = message.replace("4194304 bytes (4 MiB)", "67108864 bytes (64 MiB)");
        let out = dir.join("book.bin");
        let ran = run(
            ENGINE,
            &["book", &path, "-o", out.to_str().expect("utf-8")],
            "",
            DEADLINE,
        );
        assert_eq!(ran.code, Some(1), "{}", ran.stderr);
        assert!(ran.stderr.contains(&message), "{}", ran.stderr);
        assert!(!out.exists(), "no book is written");
    }
}

#[test]
fn engine_options_refuse_special_and_large_files_and_still_answer() {
    let dir = folder("uci");
    let cases = [
        ("CheProgram", "che", SOURCE_LIMIT),
        ("EndgameProgram", "cheg", SOURCE_LIMIT),
        ("EndgameProgram", "cmp", SOURCE_LIMIT),
        ("BookFile", "bin", DATA_LIMIT),
    ];
    for (option, ext, limit) in cases {
        for (path, message) in hostile(&dir, ext, limit) {
            let message = if limit == DATA_LIMIT {
                message.replace("4194304 bytes (4 MiB)", "67108864 bytes (64 MiB)")
            } else {
                message.to_string()
            };
            let input = format!(
                "setoption name {option} value {path}\nsetoption name OwnBook value true\n\
                 isready\nposition fen 8/8/8/4k3/8/8/4P3/4K3 w - - 0 1\ngo depth 3\nisready\nquit\n"
            );
            let ran = run(ENGINE, &[], &input, DEADLINE);
            assert_eq!(ran.code, Some(0), "{option} {path}: {}", ran.stderr);
            let lines: Vec<&str> = ran.stdout.lines().collect();
            assert!(
                lines
                    .iter()
                    .any(|l| l.starts_with("info string") && l.contains(&message)),
                "{option} {path}:\n{}",
                ran.stdout
            );
            assert_eq!(
                lines.iter().filter(|l| l.starts_with("bestmove ")).count(),
                1,
                "{option} {path}:\n{}",
                ran.stdout
            );
        }
    }
}
