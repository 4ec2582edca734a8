//! The shipped endgame programs against the tablebase's best defence: from a seeded random
//! sample of won positions (strong side to move), the engine with the program at depth 2 must
//! mate within the fifty-move rule, on both backends. The exhaustive-sample runs are `#[ignore]`d
//! (run them with `cargo test --release -p che-engine --test endgame_playout -- --ignored`).

use che_engine::engine::{Engine, EngineEvent};
use che_engine::options::EngineOptions;
use che_engine::search::{GoParams, SearchControl};
use che_tablebase::{Material, Outcome, Table};
use chess_core::{Colour, Position};

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
fn play_out(engine: &mut Engine, table: &Table, start: Position, go: &GoParams) -> (End, u64) {
    let strong = start.side_to_move();
    engine.new_game();
    let mut moves = Vec::new();
    let mut pos = start;
    let mut nodes = 0;
    let mut strong_moves = 0;
    loop {
        if pos.legal_moves().is_empty() {
            return if pos.is_check() && pos.side_to_move() != strong {
                (End::Mate(strong_moves), nodes)
            } else {
                (End::Failed(format!("no moves at {}", pos.to_fen())), nodes)
            };
        }
        if pos.halfmove_clock() >= 100 {
            return (
                End::Failed(format!("fifty moves at {}", pos.to_fen())),
                nodes,
            );
        }
        if pos.is_insufficient_material() {
            return (
                End::Failed(format!("material gone at {}", pos.to_fen())),
                nodes,
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
        let _ = Colour::White;
    }
}

struct Summary {
    positions: usize,
    won: usize,
    moves: u64,
    optimal: u64,
    nodes: u64,
    failures: Vec<String>,
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
    };
    for (pos, plies) in won_positions(&table, men, count, 0x5EED_0018) {
        s.positions += 1;
        let (end, nodes) = play_out(&mut e, &table, pos, go);
        s.nodes += nodes;
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
fn kqk_program_mates_a_sample_at_depth_2() {
    must_win_all(Material::Kqk, &['q'], "<kqk>", 30);
}

#[test]
fn krk_program_mates_a_sample_at_depth_2() {
    must_win_all(Material::Krk, &['r'], "<krk>", 30);
}
