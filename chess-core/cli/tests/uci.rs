//! UCI conversations: in-process through [`che_engine::uci::Session`] (each command waits until
//! the engine has carried it out, so the output is deterministic) and once through the
//! `che-engine` binary over pipes. Moves the engine answers are checked for legality with the
//! move generator (itself checked by perft); node counts of `go perft` are the published ones.

use che_engine::options::{EngineOptions, OPTIONS};
use che_engine::uci::{Flow, Session};
use che_engine::worker::Out;
use chess_core::Position;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

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

/// Sends the lines one at a time, each carried out before the next, and returns the output.
fn converse(session: &mut Session, out: &Out, lines: &[&str]) -> Vec<String> {
    for line in lines {
        assert_eq!(session.handle(line), Flow::Continue, "{line}");
        session.wait();
    }
    out.take_lines()
}

fn bestmove(lines: &[String]) -> Option<String> {
    lines.iter().find_map(|l| {
        l.strip_prefix("bestmove ")
            .map(|m| m.split(' ').next().unwrap_or("").to_string())
    })
}

/// The position `position startpos moves ...` describes, built independently with `play`.
fn after(moves: &[&str]) -> Position {
    let mut pos = Position::startpos();
    for m in moves {
        let mv = pos.parse_uci(m).expect("legal");
        pos.play(mv);
    }
    pos
}

#[test]
fn handshake_lists_every_option() {
    let (mut s, out) = session();
    let lines = converse(&mut s, &out, &["uci", "isready"]);
    assert!(lines[0].starts_with("id name Che "));
    assert!(lines[1].starts_with("id author "));
    for spec in OPTIONS {
        let prefix = format!("option name {} type ", spec.name);
        assert!(
            lines.iter().any(|l| l.starts_with(&prefix)),
            "{}",
            spec.name
        );
    }
    assert!(lines
        .iter()
        .any(|l| l == "option name AdviceMode type combo default root var off var root var node"));
    let uciok = lines.iter().position(|l| l == "uciok").expect("uciok");
    assert_eq!(lines[uciok + 1..], ["readyok"]);
    s.quit();
}

#[test]
fn search_answers_with_info_and_a_legal_bestmove() {
    let (mut s, out) = session();
    let lines = converse(
        &mut s,
        &out,
        &[
            "ucinewgame",
            "position startpos moves e2e4 e7e5 g1f3",
            "go depth 4",
        ],
    );
    let infos: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("info depth"))
        .collect();
    assert!(infos.len() >= 4, "{lines:?}");
    for field in [
        " seldepth ",
        " score cp ",
        " nodes ",
        " nps ",
        " hashfull ",
        " time ",
        " pv ",
    ] {
        assert!(
            infos.iter().all(|l| l.contains(field)),
            "{field} missing: {infos:?}"
        );
    }
    assert!(infos.iter().any(|l| l.starts_with("info depth 4 ")));
    let mv = bestmove(&lines).expect("bestmove");
    let pos = after(&["e2e4", "e7e5", "g1f3"]);
    assert!(pos.parse_uci(&mv).is_ok(), "{mv} is not legal");
    // `ponder` names a legal reply.
    let last = lines.last().expect("output");
    if let Some(p) = last.split(" ponder ").nth(1) {
        let reply = pos.after(pos.parse_uci(&mv).expect("legal"));
        assert!(reply.parse_uci(p).is_ok());
    }
    s.quit();
}

#[test]
fn bad_input_is_reported_and_the_engine_keeps_going() {
    let (mut s, out) = session();
    let lines = converse(&mut s, &out, &["flip the board"]);
    assert_eq!(lines.len(), 1);
    assert!(
        lines[0].starts_with("info string error: unknown command `flip`"),
        "{lines:?}"
    );

    // A malformed FEN leaves the position as it was.
    let lines = converse(
        &mut s,
        &out,
        &[
            "position startpos moves e2e4",
            "position fen rnbqkbnr/pppppppp/8 w KQkq - 0 1",
            "d",
        ],
    );
    assert!(
        lines[0].starts_with("info string error: position: "),
        "{lines:?}"
    );
    let fen_line = lines
        .iter()
        .find(|l| l.starts_with("Fen: "))
        .expect("Fen line");
    assert_eq!(
        fen_line,
        "Fen: rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    );

    // An illegal move: the position stops before it.
    let lines = converse(
        &mut s,
        &out,
        &["position startpos moves e2e4 e7e5 e1e3 g8f6", "d"],
    );
    assert!(lines[0].contains("move 3 `e1e3`"), "{lines:?}");
    let fen_line = lines
        .iter()
        .find(|l| l.starts_with("Fen: "))
        .expect("Fen line");
    assert_eq!(
        *fen_line,
        format!("Fen: {}", after(&["e2e4", "e7e5"]).to_fen())
    );

    // Bad go parameters, bad options, bad numbers.
    let lines = converse(
        &mut s,
        &out,
        &[
            "go depth deep",
            "go sideways 3",
            "setoption name NoSuchOption value 1",
            "setoption name Hash value -5",
            "setoption value 3",
            "bench x",
            "position",
        ],
    );
    assert_eq!(lines.len(), 7, "{lines:?}");
    assert!(
        lines.iter().all(|l| l.starts_with("info string error: ")),
        "{lines:?}"
    );

    // Absurd clock values are no reason to fail.
    let lines = converse(
        &mut s,
        &out,
        &[
            "go wtime 9223372036854775807 winc 9223372036854775807 depth 1",
            "go nodes 0",
            "bench 0",
        ],
    );
    assert_eq!(
        lines.iter().filter(|l| l.starts_with("bestmove ")).count(),
        2,
        "{lines:?}"
    );

    // Still alive and searching.
    let lines = converse(&mut s, &out, &["isready", "go depth 2"]);
    assert_eq!(lines[0], "readyok");
    let mv = bestmove(&lines).expect("bestmove");
    assert!(after(&["e2e4", "e7e5"]).parse_uci(&mv).is_ok());
    s.quit();
}

#[test]
fn perft_through_go_perft() {
    let (mut s, out) = session();
    let lines = converse(&mut s, &out, &["position startpos", "go perft 3"]);
    assert_eq!(
        lines.last().map(String::as_str),
        Some("Nodes searched: 8902")
    );
    assert_eq!(lines.iter().filter(|l| l.contains(": ")).count(), 21);
    // Kiwipete, depth 2: 2039 (Chess Programming Wiki).
    let lines = converse(
        &mut s,
        &out,
        &[
            "position fen r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "go perft 2",
        ],
    );
    assert_eq!(
        lines.last().map(String::as_str),
        Some("Nodes searched: 2039")
    );
    s.quit();
}

/// `go perft` runs like a search: `isready` is answered while it counts, `stop` ends it with what
/// it counted and a line saying so; a depth beyond the maximum is an error, not a crash.
#[test]
fn go_perft_runs_like_a_search() {
    let (mut s, out) = session();
    let lines = converse(&mut s, &out, &["position startpos", "go perft 99999"]);
    assert_eq!(
        lines,
        ["info string error: perft depth 99999 is beyond the supported maximum 64"]
    );
    // A count that cannot finish (64 plies): `isready` answers before it does, `stop` ends it.
    assert_eq!(s.handle("go perft 64"), Flow::Continue);
    assert_eq!(s.handle("isready"), Flow::Continue);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while !out.lines().iter().any(|l| l == "readyok") {
        assert!(
            std::time::Instant::now() < deadline,
            "no readyok: {:?}",
            out.lines()
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert_eq!(s.handle("stop"), Flow::Continue);
    s.wait();
    let lines = out.take_lines();
    assert_eq!(lines[0], "readyok", "{lines:?}");
    stopped_report(&lines[1..]);
    // The engine goes on as usual, and a `stop` before a count does not stop the next one.
    let lines = converse(&mut s, &out, &["stop", "go perft 2", "isready"]);
    assert_eq!(lines.last().map(String::as_str), Some("readyok"));
    assert_eq!(
        lines[lines.len() - 2..lines.len() - 1],
        ["Nodes searched: 400"]
    );
    assert!(!lines.iter().any(|l| l.contains("stopped")), "{lines:?}");
    s.quit();
}

/// Checks the report of a stopped `go perft` (no complete root move at 64 plies): the note, an
/// empty line and the count; returns the count.
fn stopped_report(lines: &[String]) -> u64 {
    assert_eq!(lines.len(), 3, "{lines:?}");
    let n: u64 = lines[0]
        .strip_prefix("info string perft stopped after ")
        .and_then(|rest| rest.strip_suffix(" nodes"))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("not a stop note: {lines:?}"));
    assert_eq!(lines[1], "");
    assert_eq!(lines[2], format!("Nodes searched: {n}"));
    n
}

/// The same over pipes with the binary, as `printf 'position startpos\ngo perft 99999\n' |
/// che-engine` did when it crashed.
#[test]
fn go_perft_in_the_binary_answers_isready_and_stop() {
    use std::sync::mpsc;
    use std::time::Duration;
    let mut child = Command::new(env!("CARGO_BIN_EXE_che-engine"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start che-engine");
    let mut stdin = child.stdin.take().expect("stdin");
    let stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let (tx, rx) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        for line in stdout.lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let next = || {
        rx.recv_timeout(Duration::from_secs(5))
            .expect("an answer within 5 s")
    };
    writeln!(stdin, "position startpos\ngo perft 99999\nisready").expect("write");
    assert_eq!(
        next(),
        "info string error: perft depth 99999 is beyond the supported maximum 64"
    );
    assert_eq!(next(), "readyok");
    writeln!(stdin, "go perft 64\nisready").expect("write");
    assert_eq!(next(), "readyok");
    writeln!(stdin, "stop").expect("write");
    let report: Vec<String> = (0..3).map(|_| next()).collect();
    stopped_report(&report);
    writeln!(stdin, "go perft 3").expect("write");
    let mut lines = Vec::new();
    while lines.last().map(String::as_str) != Some("Nodes searched: 8902") {
        lines.push(next());
    }
    assert_eq!(lines.len(), 22, "{lines:?}");
    writeln!(stdin, "quit").expect("write");
    let status = child.wait().expect("exit");
    assert_eq!(status.code(), Some(0));
    reader.join().expect("reader");
}

#[test]
fn mates_are_announced_as_mate_scores() {
    let (mut s, out) = session();
    // Scholar's mate is one move away.
    let lines = converse(
        &mut s,
        &out,
        &[
            "position fen r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
            "go depth 3",
        ],
    );
    assert!(
        lines.iter().any(|l| l.contains(" score mate 1 ")),
        "{lines:?}"
    );
    assert_eq!(bestmove(&lines).as_deref(), Some("h5f7"));
    // The side that is mated: no legal move at all.
    let lines = converse(
        &mut s,
        &out,
        &[
            "position fen r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 0 4",
            "go depth 3",
        ],
    );
    assert_eq!(lines.last().map(String::as_str), Some("bestmove (none)"));
    s.quit();
}

#[test]
fn limits_stop_and_searchmoves() {
    let (mut s, out) = session();
    // A node limit ends the search; the last report stays within it.
    let lines = converse(&mut s, &out, &["position startpos", "go nodes 3000"]);
    let nodes: Vec<u64> = lines
        .iter()
        .filter_map(|l| l.split(" nodes ").nth(1))
        .filter_map(|r| r.split(' ').next()?.parse().ok())
        .collect();
    assert!(nodes.iter().all(|&n| n <= 3000), "{nodes:?}");
    assert!(bestmove(&lines).is_some());

    // searchmoves restricts the root.
    let lines = converse(&mut s, &out, &["go depth 3 searchmoves a2a3 h2h3"]);
    let mv = bestmove(&lines).expect("bestmove");
    assert!(mv == "a2a3" || mv == "h2h3", "{mv}");

    // movetime and the clock both produce a move.
    let lines = converse(&mut s, &out, &["go movetime 30"]);
    assert!(bestmove(&lines).is_some());
    let lines = converse(
        &mut s,
        &out,
        &["go wtime 500 btime 500 winc 10 binc 10 movestogo 10"],
    );
    assert!(bestmove(&lines).is_some());

    // go infinite answers only after stop; stop is handled while the engine thinks.
    assert_eq!(s.handle("go infinite"), Flow::Continue);
    std::thread::sleep(std::time::Duration::from_millis(50));
    assert_eq!(s.handle("isready"), Flow::Continue);
    assert_eq!(s.handle("stop"), Flow::Continue);
    s.wait();
    let lines = out.take_lines();
    assert!(lines.contains(&"readyok".to_string()), "{lines:?}");
    let readyok = lines
        .iter()
        .position(|l| l == "readyok")
        .unwrap_or(usize::MAX);
    let best = lines
        .iter()
        .position(|l| l.starts_with("bestmove"))
        .expect("bestmove");
    assert!(readyok < best, "isready must be answered during the search");
    assert_eq!(s.handle("quit"), Flow::Quit);
    s.quit();
}

#[test]
fn options_take_effect() {
    let (mut s, out) = session();
    let lines = converse(
        &mut s,
        &out,
        &[
            "setoption name CheBackend value jit",
            "setoption name CheVerbose value true",
            "setoption name Clear Hash",
            "setoption name Hash value 2",
            "position startpos",
            "go depth 2",
        ],
    );
    assert!(lines[0].contains("loaded for the jit backend"), "{lines:?}");
    // The bundled program's opening advice: SetMvs(w, 20, e2e4 d2d4).
    assert!(
        lines
            .iter()
            .any(|l| l == "info string che suggests d2d4 +20 e2e4 +20"),
        "{lines:?}"
    );
    let lines = converse(
        &mut s,
        &out,
        &[
            "setoption name CheProgram value /nonexistent/prog.che",
            "go depth 1",
        ],
    );
    assert!(
        lines[0].starts_with("info string error: advice program: cannot read"),
        "{lines:?}"
    );
    assert!(
        lines.iter().any(|l| l.contains("searching without advice")),
        "{lines:?}"
    );
    assert!(bestmove(&lines).is_some());
    s.quit();
}

#[test]
fn display_eval_and_bench() {
    let (mut s, out) = session();
    let lines = converse(
        &mut s,
        &out,
        &["position startpos moves e2e4", "d", "eval", "bench 2"],
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("| r  n  b  q  k  b  n  r  |")),
        "{lines:?}"
    );
    assert!(lines.iter().any(|l| l == "Checkers:"));
    assert!(lines
        .iter()
        .any(|l| l.starts_with("info string eval total ")));
    let nodes = lines
        .iter()
        .find_map(|l| l.strip_prefix("Nodes searched  : "))
        .expect("bench total");
    assert!(nodes.parse::<u64>().is_ok_and(|n| n > 0));
    // Bench leaves the game as it was.
    let lines = converse(&mut s, &out, &["d"]);
    assert!(lines
        .iter()
        .any(|l| l.starts_with("Fen: rnbqkbnr/pppppppp/8/8/4P3/")));
    s.quit();
}

/// The binary over pipes, reading each answer before sending the next command, as a GUI does.
#[test]
fn conversation_with_the_binary() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_che-engine"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start che-engine");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut read_until = |prefix: &str| -> Vec<String> {
        let mut lines = Vec::new();
        loop {
            let mut line = String::new();
            let n = stdout.read_line(&mut line).expect("read");
            assert!(
                n > 0,
                "engine closed its output before `{prefix}`: {lines:?}"
            );
            let line = line.trim_end().to_string();
            let done = line.starts_with(prefix);
            lines.push(line);
            if done {
                return lines;
            }
        }
    };
    writeln!(stdin, "uci").expect("write");
    read_until("uciok");
    writeln!(stdin, "isready").expect("write");
    read_until("readyok");
    writeln!(stdin, "position startpos moves d2d4 d7d5").expect("write");
    writeln!(stdin, "go depth 3").expect("write");
    let lines = read_until("bestmove");
    let mv = bestmove(&lines).expect("bestmove");
    assert!(after(&["d2d4", "d7d5"]).parse_uci(&mv).is_ok());
    // Bytes that are not UTF-8 are an error like any other bad input.
    stdin.write_all(b"\xFF\xFEgo\n").expect("write");
    let lines = read_until("info string error");
    assert!(
        lines.last().is_some_and(|l| l.contains("unknown command")),
        "{lines:?}"
    );
    // `quit` ends the process even while a long perft runs.
    writeln!(stdin, "go perft 9").expect("write");
    writeln!(stdin, "quit").expect("write");
    let started = std::time::Instant::now();
    let status = child.wait().expect("exit");
    assert!(status.success());
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
}

/// A program whose `main()` (or, with `in_hook`, whose `Evaluate()` hook) never ends, spending
/// its time in the heaviest intrinsics: exchange evaluation over every square and the `Get`
/// forms that fill lists.
fn runaway_program(in_hook: bool) -> String {
    let decls = "var n;\n";
    let spin = "
    while 1 do
        n := n + GetExchngCtrl(?, sqrs);
        if ExchngCtrl(w, ..) then n := n + 1; end;
        if orExchngCtrl(b, ..) then n := n + 1; end;
        n := n + GetControl(wQ, sqrs);
    end;";
    if in_hook {
        format!(
            "list sqrs[65];\nprocedure main()\nbegin\n  SetSqrs(wN, 10, e5);\nend;\n\
             function Evaluate()\n{decls}begin\n{spin}\n  return n;\nend;\n"
        )
    } else {
        format!("list sqrs[65];\nprocedure main()\n{decls}begin\n{spin}\nend;\n")
    }
}

/// `go movetime 1000` with a runaway advice program in root or node mode on `backend`: the
/// engine answers with a legal move, long before the generous bound of 5 s (the exact figure is
/// in docs/engine.md), and says with `info string` that the program failed.
fn runaway_program_does_not_stall_the_engine(in_hook: bool, backend: &str) {
    let dir = std::env::temp_dir().join(format!(
        "che-runaway-{}-{in_hook}-{backend}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("runaway.che");
    std::fs::write(&file, runaway_program(in_hook)).expect("write program");
    let mode = if in_hook { "node" } else { "root" };
    let mut child = Command::new(env!("CARGO_BIN_EXE_che-engine"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("engine starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().expect("stdout");
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let setup = format!(
        "uci\nsetoption name CheProgram value {}\nsetoption name CheBackend value {backend}\n\
         setoption name AdviceMode value {mode}\nisready\n",
        file.display()
    );
    stdin.write_all(setup.as_bytes()).expect("send");
    let wait = std::time::Duration::from_secs(60);
    let mut lines = Vec::new();
    loop {
        let line = rx.recv_timeout(wait).expect("readyok");
        let done = line == "readyok";
        lines.push(line);
        if done {
            break;
        }
    }
    assert!(
        lines
            .iter()
            .any(|l| l.contains("advice program") && l.contains("loaded")),
        "{lines:?}"
    );
    let started = std::time::Instant::now();
    stdin
        .write_all(b"position startpos\ngo movetime 1000\n")
        .expect("send");
    let mut lines = Vec::new();
    let best = loop {
        let line = rx
            .recv_timeout(std::time::Duration::from_secs(5))
            .unwrap_or_else(|_| panic!("no bestmove within 5 s ({mode}, {backend}): {lines:?}"));
        if let Some(m) = line.strip_prefix("bestmove ") {
            break m.split(' ').next().unwrap_or("").to_string();
        }
        lines.push(line);
    };
    let took = started.elapsed();
    assert!(took < std::time::Duration::from_secs(5), "{took:?}");
    assert!(
        Position::startpos().parse_uci(&best).is_ok(),
        "illegal bestmove {best}"
    );
    let failure = if in_hook {
        "the Evaluate() hook failed"
    } else {
        "advice program failed at the root"
    };
    assert!(
        lines.iter().any(|l| l.starts_with("info string error:")
            && l.contains(failure)
            && l.contains("fuel")),
        "{mode}, {backend}: no report of the failure in {lines:?}"
    );
    stdin.write_all(b"quit\n").expect("send");
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn runaway_root_program_on_the_interpreter() {
    runaway_program_does_not_stall_the_engine(false, "interp");
}

#[test]
fn runaway_root_program_on_the_jit() {
    runaway_program_does_not_stall_the_engine(false, "jit");
}

#[test]
fn runaway_leaf_hook_on_the_interpreter() {
    runaway_program_does_not_stall_the_engine(true, "interp");
}

#[test]
fn runaway_leaf_hook_on_the_jit() {
    runaway_program_does_not_stall_the_engine(true, "jit");
}
