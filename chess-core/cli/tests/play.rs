//! The terminal game (`che-engine play`), driven through a pipe like a person at a keyboard.
//!
//! Each test feeds a script and reads everything the program printed. Moves the computer chooses
//! are replayed with the SAN reader to check their legality; positions are compared with FENs
//! worked out by hand; the rules (mate, threefold repetition) are those the rules tests check
//! against python-chess.

use che_engine::play::commands::COMMANDS;
use chess_core::Position;
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs `che-engine play` on `script` and returns its standard output; a run that has not ended
/// after a minute is killed and fails the test.
fn play(script: &str) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_che-engine"))
        .arg("play")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start che-engine play");
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(script.as_bytes()).expect("write script");
    }
    let mut stdout = child.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut stdout, &mut text);
        text
    });
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("che-engine play did not finish: {script}");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let text = reader.join().expect("reader");
    assert!(status.success(), "{text}");
    text
}

/// The SAN moves announced as "... plays N. SAN" / "N... SAN", in order.
fn announced_moves(output: &str) -> Vec<String> {
    output
        .lines()
        .filter(|l| l.starts_with("White plays ") || l.starts_with("Black plays "))
        .filter_map(|l| l.split_whitespace().nth(3).map(str::to_string))
        .collect()
}

#[test]
fn help_lists_every_command() {
    let out = play("help\n");
    for c in COMMANDS {
        assert!(out.contains(c.usage), "help misses `{}`", c.usage);
    }
}

#[test]
fn the_computer_answers_a_move() {
    let out = play("depth 2\ne4\n");
    let moves = announced_moves(&out);
    assert_eq!(moves.len(), 2, "{out}");
    assert_eq!(moves[0], "e4");
    let pos = Position::startpos();
    let after_e4 = pos.after(pos.parse_san("e4").expect("e4"));
    assert!(
        after_e4.parse_san(&moves[1]).is_ok(),
        "{} is not legal",
        moves[1]
    );
    assert!(out.contains("Black is thinking..."));
}

#[test]
fn illegal_and_unknown_input_get_clear_messages() {
    let out = play(
        "computer none\ne5\nxyz\nKe2\n\
         fen rnbqkbnr/ppp1pppp/8/3p4/3P4/5N2/PPP1PPPP/RNBQKB1R w KQkq - 0 3\nNd2\ndepth deep\n",
    );
    assert!(
        out.contains("Illegal move: e5 cannot be played here. Type `moves` for the legal moves."),
        "{out}"
    );
    assert!(
        out.contains("`xyz` is neither a command nor a move."),
        "{out}"
    );
    assert!(out.contains("Illegal move: Ke2"), "{out}");
    assert!(
        out.contains("`Nd2` is ambiguous: say which piece, e.g. Nbd2 or Nfd2."),
        "{out}"
    );
    assert!(out.contains("depth: expected a number of plies"), "{out}");
    // In check, the message says so.
    let out = play("computer none\nfen 4k3/8/8/8/8/8/4r3/4K3 w - - 0 1\nKd2\n");
    assert!(
        out.contains("(White is in check and must answer it)"),
        "{out}"
    );
}

#[test]
fn the_computer_takes_over_and_mates() {
    let out = play(
        "computer none\n\
         fen r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4\ngo\n",
    );
    assert!(out.contains("The computer takes White."), "{out}");
    assert!(
        out.contains("White plays 4. Qxf7# (wins a pawn, checkmate)"),
        "{out}"
    );
    assert!(
        out.contains("Game over: White wins by checkmate (1-0)."),
        "{out}"
    );
}

#[test]
fn setting_up_piece_by_piece() {
    let out = play(
        "computer none\nsetup\nclear\ndone\nput K e1\nput k e8\nput wQ d1\nside black\nremove d1\nput Qd2\ndone\nfen\n",
    );
    assert!(
        out.contains("Not a valid position yet: invalid piece placement field"),
        "{out}"
    );
    assert!(out.contains("\n4k3/8/8/8/8/8/3Q4/4K3 b - - 0 1\n"), "{out}");
    assert!(announced_moves(&out).is_empty(), "{out}");
}

#[test]
fn take_back_and_undo() {
    let out = play("depth 1\ne4\ntakeback\nfen\nd4\nundo\nundo\nfen\n");
    assert!(out.contains("Took back 2 half-moves."), "{out}");
    let fens: Vec<&str> = out
        .lines()
        .filter(|l| Position::from_fen(l).is_ok())
        .collect();
    assert_eq!(fens.first(), Some(&chess_core::STARTPOS_FEN), "{out}");
    assert_eq!(fens.last(), Some(&chess_core::STARTPOS_FEN), "{out}");
}

#[test]
fn threefold_repetition_ends_the_game() {
    let out = play("computer none\nNf3\nNf6\nNg1\nNg8\nNf3\nNf6\nNg1\nNg8\n");
    assert!(
        out.contains("Game over: draw by threefold repetition (1/2-1/2)."),
        "{out}"
    );
}

#[test]
fn the_game_is_saved_as_pgn() {
    let path = std::env::temp_dir().join(format!("che-play-{}.pgn", std::process::id()));
    let script = format!(
        "computer none\ne4\ne5\nBc4\nNc6\nQh5\nNf6\nQxf7\nsave {}\n",
        path.display()
    );
    let out = play(&script);
    assert!(out.contains("Game saved to"), "{out}");
    let text = std::fs::read_to_string(&path).expect("the PGN file");
    assert!(
        text.contains("[White \"Human\"]\n[Black \"Human\"]\n[Result \"1-0\"]\n"),
        "{text}"
    );
    assert!(
        text.ends_with("\n1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0\n"),
        "{text}"
    );
    let _ = std::fs::remove_file(path);
}

#[test]
fn depth_and_stop_work_while_the_computer_thinks() {
    // No limits: only the `stop` typed during the search ends it.
    let out = play("depth 0\ne4\nstop\n");
    assert!(
        out.contains("Stopping: the computer plays the best move found so far."),
        "{out}"
    );
    assert_eq!(announced_moves(&out).len(), 2, "{out}");
    // A depth given during the search ends it at that depth.
    let out = play("post on\ndepth 0\ne4\ndepth 3\n");
    assert!(out.contains("Depth 3 plies."), "{out}");
    assert_eq!(announced_moves(&out).len(), 2, "{out}");
}

#[test]
fn the_computer_resigns_a_hopeless_game() {
    let out = play("resign on\ndepth 3\nfen 4k3/8/8/8/8/8/8/R2QK3 b - - 0 1\ncomputer both\n");
    assert!(
        out.contains("Black resigns: the position is hopeless (1-0)."),
        "{out}"
    );
}

#[test]
fn after_undo_the_computer_waits_for_go_or_a_move() {
    // The computer's answer to e4 is taken back: Black (the computer) is to move, and it must not
    // play the same move again at once.
    let out = play("depth 1\ne4\nundo\nfen\n");
    let pos = Position::startpos();
    let after_e4 = pos.after(pos.parse_san("e4").expect("e4"));
    assert_eq!(announced_moves(&out).len(), 2, "{out}");
    assert!(out.contains("The computer waits: `go`"), "{out}");
    let last_fen = out
        .lines()
        .filter_map(|l| Position::from_fen(l).ok())
        .next_back()
        .expect("a FEN line");
    assert_eq!(last_fen, after_e4, "{out}");
    // `go` lets it move again; so does the person entering Black's move.
    let out = play("depth 1\ne4\nundo\ngo\n");
    assert_eq!(announced_moves(&out).len(), 3, "{out}");
    let out = play("depth 1\ne4\nundo\ne5\n");
    let moves = announced_moves(&out);
    assert_eq!(moves.len(), 3, "{out}");
    assert_eq!(moves[2], "e5", "{out}");
}

#[test]
fn a_promotion_without_its_piece_lists_the_pieces() {
    let out = play("computer none\nfen 8/4P3/8/8/8/8/k7/4K3 w - - 0 1\ne7e8\ne8\n");
    assert!(
        out.contains(
            "`e7e8` promotes a pawn: say to which piece, e7e8q (queen), e7e8r (rook), e7e8b (bishop), e7e8n (knight)."
        ),
        "{out}"
    );
    assert!(
        out.contains(
            "`e8` promotes a pawn: say to which piece, e8=Q (queen), e8=R (rook), e8=B (bishop), e8=N (knight)."
        ),
        "{out}"
    );
    // A move that is not a promotion keeps the plain message.
    assert!(
        play("computer none\ne2e5\n").contains("Illegal move: e2e5 cannot be played here."),
        "e2e5"
    );
}

#[test]
fn nothing_is_announced_after_the_game_is_over() {
    let out = play(
        "computer none\n\
         fen r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4\ngo\n",
    );
    let over = out.find("Game over").expect("the game ends");
    assert!(!out[over..].contains("I announce"), "{out}");
}

#[test]
fn set_up_mode_confirms_castling_and_en_passant() {
    let out = play("computer none\nsetup\ncastle Q\nep e3\nep -\ncastle -\ncancel\n");
    assert!(out.contains("Castling rights: Q"), "{out}");
    assert!(out.contains("En-passant square e3."), "{out}");
    assert!(out.contains("No en-passant square."), "{out}");
    assert!(out.contains("No castling rights."), "{out}");
}

#[test]
fn stop_ends_self_play() {
    // Without limits every search runs until `stop`; before the fix self-play went on forever.
    let out = play("depth 0\ncomputer both\nstop\n");
    assert_eq!(announced_moves(&out).len(), 1, "{out}");
    assert!(out.contains("Self-play stopped"), "{out}");
}

#[test]
fn two_knights_against_a_bare_king_is_a_draw_to_the_computer() {
    // The computer has the bare king: it must not think it is losing (KNNK cannot be forced).
    let out = play("depth 4\nfen 4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1\nNc3\nNg3\n");
    assert_eq!(announced_moves(&out).len(), 4, "{out}");
    assert!(!out.contains("I am losing"), "{out}");
    assert!(!out.contains("I am worse"), "{out}");
}
