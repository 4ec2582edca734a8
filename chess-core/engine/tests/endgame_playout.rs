//! The shipped endgame programs against the tablebase's best play, from seeded random samples:
//! positions won for the side to move (the engine attacks; it must mate within the fifty-move
//! rule) and, for KPK, drawn positions (the engine defends the bare king; it must never move into
//! a position the table counts as lost). The normal tests check that every program plays whole
//! games on both backends with the same moves and without errors, and that a failing program is
//! reported while the engine plays on. The criterion (every sampled position, depth 2,
//! both backends) and the comparison with the engine alone are `#[ignore]`d because they take
//! minutes; run them with
//! `cargo test --release -p che-engine --test endgame_playout -- --ignored --nocapture`
//! (`ENDGAME_SAMPLE=N` sets the sample size, `ENDGAME_ONLY=KRK` one ending of the comparison).
//! The tables come from the cache in Cargo's target directory (`che_tablebase::default_cache_dir`).

use che_engine::engine::{Engine, EngineEvent};
use che_engine::options::EngineOptions;
use che_engine::search::{GoParams, SearchControl};
use che_tablebase::{Outcome, Tablebase};
use chess_core::Position;

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Which positions a sample takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Want {
    /// Won for the strong side, the strong side to move: the engine attacks.
    Won,
    /// Drawn by the table, either side to move: the engine defends the bare king.
    Drawn,
}

/// `count` distinct random positions of `material` (the strong side White or Black at random)
/// that the table counts as `want`.
fn sample(
    tb: &Tablebase,
    men: &[char],
    want: Want,
    count: usize,
    seed: u64,
) -> Vec<(Position, u32)> {
    let mut rng = Rng(seed | 1);
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut attempts = 0;
    while out.len() < count {
        attempts += 1;
        assert!(attempts < 10_000_000, "too few positions found");
        let mut board = ['.'; 64];
        let strong_white = rng.below(2) == 0;
        let mut pieces = vec![
            if strong_white { 'K' } else { 'k' },
            if strong_white { 'k' } else { 'K' },
        ];
        for &m in men {
            pieces.push(if strong_white {
                m.to_ascii_uppercase()
            } else {
                m.to_ascii_lowercase()
            });
        }
        let mut ok = true;
        for p in pieces {
            let sq = rng.below(64) as usize;
            let rank = sq / 8;
            if board[sq] != '.' || (p.eq_ignore_ascii_case(&'p') && (rank == 0 || rank == 7)) {
                ok = false;
                break;
            }
            board[sq] = p;
        }
        if !ok {
            continue;
        }
        let strong_to_move = match want {
            Want::Won => true,
            Want::Drawn => rng.below(2) == 0,
        };
        let fen = format!(
            "{} {} - - 0 1",
            board_fen(&board),
            if strong_white == strong_to_move {
                "w"
            } else {
                "b"
            }
        );
        let Ok(pos) = Position::from_fen(&fen) else {
            continue;
        };
        let hit = match (want, tb.probe(&pos)) {
            (Want::Won, Some(Outcome::Win { plies })) => Some(u32::from(plies)),
            (Want::Drawn, Some(Outcome::Draw)) if !pos.legal_moves().is_empty() => Some(0),
            _ => None,
        };
        if let Some(plies) = hit {
            if seen.insert(pos.hash()) {
                out.push((pos, plies));
            }
        }
    }
    out
}

/// The piece placement field of a FEN for `board` (a1 first).
fn board_fen(board: &[char; 64]) -> String {
    let mut fen = String::new();
    for rank in (0..8).rev() {
        let mut empty = 0;
        for file in 0..8 {
            let c = board[rank * 8 + file];
            if c == '.' {
                empty += 1;
            } else {
                if empty > 0 {
                    fen.push_str(&empty.to_string());
                    empty = 0;
                }
                fen.push(c);
            }
        }
        if empty > 0 {
            fen.push_str(&empty.to_string());
        }
        if rank > 0 {
            fen.push('/');
        }
    }
    fen
}

/// How one play-out ended.
#[derive(Debug, Clone, PartialEq, Eq)]
enum End {
    /// The engine attacked and mated, after this many of its moves.
    Mate(u32),
    /// The engine defended and the game ended drawn (pawn taken, stalemate, repetition, the
    /// fifty-move rule, or `DEFENCE_PLIES` plies in drawn positions only).
    Held,
    /// The engine failed: as attacker, anything but mate; as defender, a move into a position
    /// the table counts as lost.
    Failed(String),
}

/// Plies a defence is played for before it counts as held.
const DEFENCE_PLIES: usize = 120;

/// `ENDGAME_PROGRAM_DIR=DIR` replaces a shipped program `<name>` by the file `DIR/name.cheg`
/// (for trying out a changed program without rebuilding the engine).
fn program_option(program: &str) -> String {
    if let (Ok(dir), Some(name)) = (
        std::env::var("ENDGAME_PROGRAM_DIR"),
        program.strip_prefix('<').and_then(|p| p.strip_suffix('>')),
    ) {
        return format!("{dir}/{name}.cheg");
    }
    program.to_string()
}

fn engine(program: &str, backend: &str) -> Engine {
    let program = program_option(program);
    let program = program.as_str();
    let mut e = Engine::new(EngineOptions::default());
    e.set_option("AdviceMode", "off").expect("option");
    e.set_option("CheBackend", backend).expect("option");
    let notes = e.set_option("EndgameProgram", program).expect("option");
    assert!(e.endgame_error().is_none(), "{notes:?}");
    e
}

/// Plays `start` out: the engine (searching `go`) for the side `engine_side`, the table's best
/// move for the other. Returns how it ended, the nodes the engine used and the moves.
fn play_out(
    engine: &mut Engine,
    tb: &Tablebase,
    start: Position,
    engine_side: chess_core::colour::Colour,
    want: Want,
    go: &GoParams,
) -> (End, u64, Vec<chess_core::Move>) {
    engine.new_game();
    let mut moves = Vec::new();
    let mut pos = start;
    let mut nodes = 0;
    let mut engine_moves = 0;
    let mut seen: std::collections::HashMap<u64, u32> = std::collections::HashMap::new();
    let fail = |why: String, nodes, moves| (End::Failed(why), nodes, moves);
    loop {
        let repeats = seen.entry(pos.hash()).or_insert(0);
        *repeats += 1;
        let threefold = *repeats >= 3;
        let drawn_by_rule =
            pos.halfmove_clock() >= 100 || pos.is_insufficient_material() || threefold;
        if pos.legal_moves().is_empty() {
            return match want {
                Want::Won if pos.is_check() && pos.side_to_move() != engine_side => {
                    (End::Mate(engine_moves), nodes, moves)
                }
                Want::Drawn if !pos.is_check() => (End::Held, nodes, moves),
                _ => fail(format!("no moves at {}", pos.to_fen()), nodes, moves),
            };
        }
        if drawn_by_rule {
            return match want {
                Want::Won => fail(format!("drawn by rule at {}", pos.to_fen()), nodes, moves),
                Want::Drawn => (End::Held, nodes, moves),
            };
        }
        if want == Want::Drawn && moves.len() >= DEFENCE_PLIES {
            return (End::Held, nodes, moves);
        }
        let mv = if pos.side_to_move() == engine_side {
            engine_moves += 1;
            engine.set_position(start, &moves).expect("legal moves");
            let control = SearchControl::new();
            let mut errors = Vec::new();
            let result = engine.think(go, &control, &mut |e| {
                if let EngineEvent::Note(n) = e {
                    if n.starts_with("error") {
                        errors.push(n);
                    }
                }
            });
            assert!(errors.is_empty(), "{errors:?}");
            nodes += result.nodes;
            result.best.expect("a move")
        } else {
            tb.best_move(&pos).expect("the table has a move")
        };
        moves.push(mv);
        pos = pos.after(mv);
        if want == Want::Drawn && pos.side_to_move() != engine_side {
            if let Some(Outcome::Win { .. }) = tb.probe(&pos) {
                return fail(
                    format!("moved into a lost position {}", pos.to_fen()),
                    nodes,
                    moves,
                );
            }
        }
    }
}

struct Summary {
    positions: usize,
    won: usize,
    moves: u64,
    optimal: u64,
    nodes: u64,
    failures: Vec<String>,
    games: Vec<Vec<chess_core::Move>>,
}

/// The tables, from the cache in Cargo's target directory (generated on first use).
fn tablebase() -> Tablebase {
    Tablebase::load_or_generate(&che_tablebase::default_cache_dir()).expect("the tablebase")
}

/// The sample size: `ENDGAME_SAMPLE` when set, else `default`.
fn sample_size(default: usize) -> usize {
    std::env::var("ENDGAME_SAMPLE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[allow(clippy::too_many_arguments)]
fn run_sample(
    tb: &Tablebase,
    name: &str,
    men: &[char],
    want: Want,
    program: &str,
    backend: &str,
    count: usize,
    go: &GoParams,
) -> Summary {
    let mut e = engine(program, backend);
    let mut s = Summary {
        positions: 0,
        won: 0,
        moves: 0,
        optimal: 0,
        nodes: 0,
        failures: Vec::new(),
        games: Vec::new(),
    };
    let started = std::time::Instant::now();
    for (pos, plies) in sample(tb, men, want, count, 0x5EED_0018) {
        s.positions += 1;
        let engine_side = match want {
            Want::Won => pos.side_to_move(),
            // The bare king's side.
            Want::Drawn => {
                if pos.by_colour(pos.side_to_move()).count() == 1 {
                    pos.side_to_move()
                } else {
                    !pos.side_to_move()
                }
            }
        };
        let (end, nodes, moves) = play_out(&mut e, tb, pos, engine_side, want, go);
        s.nodes += nodes;
        s.games.push(moves);
        match end {
            End::Mate(m) => {
                s.won += 1;
                s.moves += u64::from(m);
                s.optimal += u64::from(plies.div_ceil(2));
            }
            End::Held => s.won += 1,
            End::Failed(why) => s.failures.push(format!("{}: {why}", pos.to_fen())),
        }
    }
    eprintln!(
        "{name} {want:?} {program} {backend} {go:?}: {} of {} {}, {} moves (table {}), {} nodes, {:.1} s; first failures: {:?}",
        s.won,
        s.positions,
        if want == Want::Won { "won" } else { "held" },
        s.moves,
        s.optimal,
        s.nodes,
        started.elapsed().as_secs_f64(),
        &s.failures[..s.failures.len().min(3)]
    );
    s
}

fn depth(d: u32) -> GoParams {
    GoParams {
        depth: Some(d),
        ..GoParams::default()
    }
}

/// The criterion for one ending: every sampled position won (or held) at depth 2 on
/// both backends. `ENDGAME_SAMPLE` overrides the sample size.
fn must_win_all(name: &str, men: &[char], want: Want, program: &str, count: usize) {
    let tb = tablebase();
    let count = sample_size(count);
    for backend in ["interp", "jit"] {
        let s = run_sample(&tb, name, men, want, program, backend, count, &depth(2));
        assert!(
            s.failures.is_empty(),
            "{name} {backend}: {} failures, first: {:?}",
            s.failures.len(),
            s.failures.first()
        );
        assert_eq!(s.won, count);
    }
}

#[test]
#[ignore = "the issue's criterion, minutes in a release build"]
fn kqk_program_mates_every_sampled_position_at_depth_2() {
    must_win_all("KQK", &['q'], Want::Won, "<kqk>", 500);
}

#[test]
#[ignore = "the issue's criterion, minutes in a release build"]
fn krk_program_mates_every_sampled_position_at_depth_2() {
    must_win_all("KRK", &['r'], Want::Won, "<krk>", 500);
}

#[test]
#[ignore = "the issue's criterion, minutes in a release build"]
fn kbnk_program_mates_every_sampled_position_at_depth_2() {
    must_win_all("KBNK", &['b', 'n'], Want::Won, "<kbnk>", 500);
}

#[test]
#[ignore = "the issue's criterion, minutes in a release build"]
fn kpk_program_wins_every_sampled_won_position_at_depth_2() {
    must_win_all("KPK", &['p'], Want::Won, "<kpk>", 500);
}

#[test]
#[ignore = "the issue's criterion, minutes in a release build"]
fn kpk_program_holds_every_sampled_drawn_position_at_depth_2() {
    must_win_all("KPK", &['p'], Want::Drawn, "<kpk>", 500);
}

/// Both backends play the same games, move for move, without any error report (`play_out`
/// fails on an `error` note), and the games are real: each ends by mate or a rule, never by the
/// engine failing to move. Every shipped program, attacking (and KPK defending).
#[test]
fn programs_play_the_same_games_on_both_backends() {
    let tb = tablebase();
    for (name, men, want, program) in CASES {
        let interp = run_sample(&tb, name, men, *want, program, "interp", 4, &depth(2));
        let jit = run_sample(&tb, name, men, *want, program, "jit", 4, &depth(2));
        assert_eq!(interp.games, jit.games, "{program}");
        assert_eq!(interp.won, jit.won);
        assert!(interp.games.iter().all(|g| !g.is_empty()));
    }
}

/// The endings, the men besides the kings, what the sample takes and the program.
const CASES: &[(&str, &[char], Want, &str)] = &[
    ("KQK", &['q'], Want::Won, "<kqk>"),
    ("KRK", &['r'], Want::Won, "<krk>"),
    ("KBNK", &['b', 'n'], Want::Won, "<kbnk>"),
    ("KPK", &['p'], Want::Won, "<kpk>"),
    ("KPK", &['p'], Want::Drawn, "<kpk>"),
];

/// The KPKP program plays a whole game from a few positions on both backends alike, without
/// error reports (there is no table for KPKP; the games are played against itself: the engine
/// with the program moves for both sides until a rule ends the game or 150 plies).
#[test]
fn kpkp_program_plays_both_sides_alike_on_both_backends() {
    let starts = [
        "8/8/4k3/3p4/8/2K5/4P3/8 w - - 0 1",
        "8/5p2/8/8/2k5/8/1P3K2/8 b - - 0 1",
        "8/p7/8/8/8/8/7P/K6k w - - 0 1",
    ];
    for fen in starts {
        let start = Position::from_fen(fen).expect("fen");
        let mut games = Vec::new();
        for backend in ["interp", "jit"] {
            let mut e = engine("<kpkp>", backend);
            let mut moves = Vec::new();
            let mut pos = start;
            while moves.len() < 150
                && !pos.legal_moves().is_empty()
                && pos.halfmove_clock() < 100
                && !pos.is_insufficient_material()
            {
                e.set_position(start, &moves).expect("legal moves");
                let mut errors = Vec::new();
                let result = e.think(&depth(2), &SearchControl::new(), &mut |ev| {
                    if let EngineEvent::Note(n) = ev {
                        if n.starts_with("error") {
                            errors.push(n);
                        }
                    }
                });
                assert!(errors.is_empty(), "{fen} {backend}: {errors:?}");
                let mv = result.best.expect("a move");
                moves.push(mv);
                pos = pos.after(mv);
            }
            assert!(!moves.is_empty());
            games.push(moves);
        }
        assert_eq!(games[0], games[1], "{fen}");
    }
}

/// A program that fails at the nodes (division by zero below the root) is reported and the
/// engine still plays a legal move; one that fails at the root likewise.
#[test]
fn failing_programs_are_reported_and_the_engine_plays_on() {
    let dir = std::env::temp_dir().join(format!("che-endgame-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let cases = [
        ("nodes.cheg", "ENTRY Q,K\n\tJUMP> DEPTH,\"1,L\n\tTRY LM,,\n\tDONE\nL:\tDIV A,\"1,\"0\n\tVALRET A,\"0,\"500\nEND\n", "failed at a node"),
        ("root.cheg", "ENTRY Q,K\n\tDIV A,\"1,\"0\n\tLEAVE\nEND\n", "failed at the root"),
    ];
    for (name, text, expected) in cases {
        let path = dir.join(name);
        std::fs::write(&path, text).expect("write");
        for backend in ["interp", "jit"] {
            let mut e = engine(path.to_str().expect("utf-8 path"), backend);
            let pos = Position::from_fen("8/8/8/3k4/8/8/8/QK6 w - - 0 1").expect("fen");
            e.set_position(pos, &[]).expect("position");
            let mut notes = Vec::new();
            let result = e.think(&depth(2), &SearchControl::new(), &mut |ev| {
                if let EngineEvent::Note(n) = ev {
                    notes.push(n);
                }
            });
            assert!(
                notes
                    .iter()
                    .any(|n| n.contains(expected) && n.contains("division")),
                "{name} {backend}: {notes:?}"
            );
            let mv = result.best.expect("a move");
            assert!(pos.is_legal(mv));
        }
    }
}

/// The comparison table of docs/cheg.md: every ending with its program and without one, at
/// depth 2 and depth 4, on the interpreter, and with the program at depth 2 on the JIT.
/// `ENDGAME_SAMPLE` sets the sample size (100 by default), `ENDGAME_ONLY` picks one ending by
/// name (`KPK` runs both KPK rows).
#[test]
#[ignore = "an experiment, minutes in a release build"]
fn comparison_with_search_alone() {
    let tb = tablebase();
    let count = sample_size(100);
    let only = std::env::var("ENDGAME_ONLY").ok();
    for (name, men, want, program) in CASES {
        if only
            .as_deref()
            .is_some_and(|o| !o.eq_ignore_ascii_case(name))
        {
            continue;
        }
        for (program, backend, d) in [
            (*program, "interp", 2),
            (*program, "jit", 2),
            ("", "interp", 2),
            (*program, "interp", 4),
            ("", "interp", 4),
        ] {
            let s = run_sample(&tb, name, men, *want, program, backend, count, &depth(d));
            println!(
                "| {name} {} | {} | {backend} | depth {d} | {}/{} | {} | {} | {} |",
                if *want == Want::Won {
                    "won"
                } else {
                    "drawn (defending)"
                },
                if program.is_empty() { "none" } else { program },
                s.won,
                s.positions,
                if *want == Want::Won {
                    format!("{:.1}", s.moves as f64 / s.won.max(1) as f64)
                } else {
                    "-".to_string()
                },
                if *want == Want::Won {
                    format!("{:.1}", s.optimal as f64 / s.won.max(1) as f64)
                } else {
                    "-".to_string()
                },
                s.nodes / s.positions.max(1) as u64,
            );
        }
    }
}
