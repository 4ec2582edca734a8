//! The shipped endgame programs against the tablebase's best play, from seeded random samples:
//! positions won for the side to move (the engine attacks; it must mate within the fifty-move
//! rule) and, for KPK, drawn positions (the engine defends the bare king; it must never move into
//! a position the table counts as lost). The normal tests check that every program plays whole
//! games on both backends with the same moves and without errors, and that a failing program is
//! reported while the engine plays on. The criterion (every sampled position, depth 2,
//! both backends) is `#[ignore]`d because it takes minutes; run it with
//! `cargo test --release -p che-engine --test endgame_playout -- --ignored --nocapture`
//! (`ENDGAME_SAMPLE=N` sets the sample size; `ENDGAME_SEED=S` another sample's seed, decimal
//! or `0x` hex, for held-out checks; `ENDGAME_BACKENDS=interp,jit` the backends, both by
//! default, each played to the end and reported before the test fails; `ENDGAME_ALL_FAILURES=1`
//! prints every failed game, not only the first three; `ENDGAME_POSITIONS=A..B` plays only
//! positions `A` to `B - 1` of the sample, for a criterion under a clock run in parts). The comparison with the engine alone is the
//! experiment harness's `endgame` experiment (`che-lab endgame`). Samples and games come from
//! `che_tablebase::playout`; the tables from a cache in Cargo's target directory
//! (`target/tmp/tablebase`, or `$CHE_TABLEBASE_DIR`), generated on first use.

use che_engine::engine::{Engine, EngineEvent};
use che_engine::options::EngineOptions;
use che_engine::search::{GoParams, SearchControl};
use che_tablebase::playout::{play_out, sample, End, Start, Want};
use che_tablebase::{Material, Tablebase};
use chess_core::Position;

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

/// The engine's move in the game from `start` after `moves`: `go` searched, any `error` note
/// failing the test.
fn engine_move(
    engine: &mut Engine,
    start: &Position,
    moves: &[chess_core::Move],
    go: &GoParams,
) -> Result<(chess_core::Move, u64), String> {
    engine
        .set_position(*start, moves)
        .map_err(|e| e.to_string())?;
    let mut errors = Vec::new();
    let result = engine.think(go, &SearchControl::new(), &mut |e| {
        if let EngineEvent::Note(n) = e {
            if n.starts_with("error") {
                errors.push(n);
            }
        }
    });
    assert!(errors.is_empty(), "{errors:?}");
    let best = result.best.ok_or("the engine gave no move")?;
    Ok((best, result.nodes))
}

struct Summary {
    positions: usize,
    won: usize,
    moves: u64,
    optimal: u64,
    nodes: u64,
    failures: Vec<String>,
    games: Vec<Vec<chess_core::Move>>,
    /// Per position, the engine's moves to mate when it mated.
    mates: Vec<Option<u32>>,
}

/// The tables, from the cache (generated on first use): `$CHE_TABLEBASE_DIR` when set, else
/// `tablebase` in Cargo's directory for test files (shared by the test binaries of one target
/// directory, whatever the working directory).
fn tablebase() -> Tablebase {
    let dir = std::env::var_os("CHE_TABLEBASE_DIR").map_or_else(
        || std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("tablebase"),
        std::path::PathBuf::from,
    );
    Tablebase::load_or_generate(&dir).expect("the tablebase")
}

/// The sample's seed: `ENDGAME_SEED` when set (decimal, or hexadecimal after `0x`), else the
/// criterion's `0x5EED_0018`.
fn sample_seed() -> u64 {
    std::env::var("ENDGAME_SEED")
        .ok()
        .and_then(|v| match v.strip_prefix("0x") {
            Some(hex) => u64::from_str_radix(&hex.replace('_', ""), 16).ok(),
            None => v.replace('_', "").parse().ok(),
        })
        .unwrap_or(0x5EED_0018)
}

/// The sample size: `ENDGAME_SAMPLE` when set, else `default`.
fn sample_size(default: usize) -> usize {
    std::env::var("ENDGAME_SAMPLE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The positions of the sample to play: `ENDGAME_POSITIONS=A..B` plays positions `A` to `B - 1`
/// of the sample (so that a criterion of hours can run in parts, each reporting its paired
/// games for the whole to be combined), else the whole sample. A range past the sample's end
/// is cut to it.
fn positions_range(count: usize) -> std::ops::Range<usize> {
    let range = std::env::var("ENDGAME_POSITIONS").ok().and_then(|v| {
        let (a, b) = v.split_once("..")?;
        Some((
            a.trim().parse::<usize>().ok()?,
            b.trim().parse::<usize>().ok()?,
        ))
    });
    match range {
        Some((a, b)) => a.min(count)..b.clamp(a.min(count), count),
        None => 0..count,
    }
}

fn run_sample(
    tb: &Tablebase,
    material: Material,
    want: Want,
    program: &str,
    backend: &str,
    count: usize,
    go: &GoParams,
) -> Summary {
    run_sample_with(
        tb,
        material,
        want,
        program,
        backend,
        count,
        &Clock::Go(go.clone()),
    )
}

/// How the engine's moves are limited in a game.
#[derive(Clone, Debug)]
enum Clock {
    /// The same `go` for every move (`depth`, `nodes`, `movetime`).
    Go(GoParams),
    /// A game clock: `base` for the game and `increment` a move, `go wtime .. btime .. winc ..
    /// binc ..` with the engine's time left as it used it (the table's moves take none); a game
    /// whose clock runs out is lost.
    Game {
        base: std::time::Duration,
        increment: std::time::Duration,
    },
    /// `go infinite`, then `stop` after this long.
    InfiniteThenStop(std::time::Duration),
}

impl Clock {
    fn movetime(ms: u64) -> Clock {
        Clock::Go(GoParams {
            move_time: Some(std::time::Duration::from_millis(ms)),
            ..GoParams::default()
        })
    }
}

/// The engine's move under `clock`; `left` is the engine's time left in a game clock.
fn clocked_move(
    engine: &mut Engine,
    start: &Position,
    moves: &[chess_core::Move],
    clock: &Clock,
    left: &mut std::time::Duration,
) -> Result<(chess_core::Move, u64), String> {
    match clock {
        Clock::Go(go) => engine_move(engine, start, moves, go),
        Clock::Game { increment, .. } => {
            let go = GoParams {
                time: [Some(*left); 2],
                increment: [Some(*increment); 2],
                ..GoParams::default()
            };
            let began = std::time::Instant::now();
            let answer = engine_move(engine, start, moves, &go)?;
            let used = began.elapsed();
            if used > *left {
                return Err(format!("lost on time ({used:?} used, {left:?} left)"));
            }
            *left = *left - used + *increment;
            Ok(answer)
        }
        Clock::InfiniteThenStop(after) => {
            engine
                .set_position(*start, moves)
                .map_err(|e| e.to_string())?;
            let go = GoParams {
                infinite: true,
                ..GoParams::default()
            };
            let control = SearchControl::new();
            let mut errors = Vec::new();
            let result = std::thread::scope(|scope| {
                scope.spawn(|| {
                    std::thread::sleep(*after);
                    control.stop();
                });
                engine.think(&go, &control, &mut |e| {
                    if let EngineEvent::Note(n) = e {
                        if n.starts_with("error") {
                            errors.push(n);
                        }
                    }
                })
            });
            assert!(errors.is_empty(), "{errors:?}");
            let best = result.best.ok_or("the engine gave no move")?;
            Ok((best, result.nodes))
        }
    }
}

fn run_sample_with(
    tb: &Tablebase,
    material: Material,
    want: Want,
    program: &str,
    backend: &str,
    count: usize,
    clock: &Clock,
) -> Summary {
    let mut player = Player::new(program, backend);
    for start in sample(tb, material, want, count, sample_seed()).expect("a sample") {
        player.play(tb, &start, want, clock);
    }
    player.report(material, want, clock);
    player.summary
}

/// One engine configuration playing sampled positions one game at a time, so that several
/// configurations can take turns position by position (a change of the machine's load then
/// falls on all of them alike).
struct Player {
    engine: Engine,
    program: String,
    backend: String,
    summary: Summary,
    /// Time spent in this player's games.
    spent: std::time::Duration,
}

impl Player {
    fn new(program: &str, backend: &str) -> Player {
        Player {
            engine: engine(program, backend),
            program: program.to_string(),
            backend: backend.to_string(),
            summary: Summary {
                positions: 0,
                won: 0,
                moves: 0,
                optimal: 0,
                nodes: 0,
                failures: Vec::new(),
                games: Vec::new(),
                mates: Vec::new(),
            },
            spent: std::time::Duration::ZERO,
        }
    }

    /// Plays `start` out against the table under `clock` and adds the game to the summary.
    fn play(&mut self, tb: &Tablebase, start: &Start, want: Want, clock: &Clock) {
        let began = std::time::Instant::now();
        let s = &mut self.summary;
        let e = &mut self.engine;
        s.positions += 1;
        e.new_game();
        let mut left = match clock {
            Clock::Game { base, .. } => *base,
            _ => std::time::Duration::ZERO,
        };
        let game = play_out(tb, &start.position, want, |_, moves| {
            clocked_move(e, &start.position, moves, clock, &mut left)
        });
        s.nodes += game.nodes;
        s.games.push(game.moves);
        s.mates.push(match game.end {
            End::Mate { moves } => Some(moves),
            _ => None,
        });
        match game.end {
            End::Mate { moves } => {
                s.won += 1;
                s.moves += u64::from(moves);
                s.optimal += u64::from(start.plies.div_ceil(2));
            }
            End::Held => s.won += 1,
            End::Failed { why } => s
                .failures
                .push(format!("{}: {why}", start.position.to_fen())),
        }
        self.spent += began.elapsed();
    }

    /// Prints the summary's line (and with `ENDGAME_ALL_FAILURES` every failure).
    fn report(&self, material: Material, want: Want, clock: &Clock) {
        let s = &self.summary;
        eprintln!(
            "{} {want:?} {} {} {clock:?}: {} of {} {}, {} moves (table {}), {} nodes, {:.1} s; first failures: {:?}",
            material.name(),
            self.program,
            self.backend,
            s.won,
            s.positions,
            if want == Want::Won { "won" } else { "held" },
            s.moves,
            s.optimal,
            s.nodes,
            self.spent.as_secs_f64(),
            &s.failures[..s.failures.len().min(3)]
        );
        if std::env::var_os("ENDGAME_ALL_FAILURES").is_some() {
            for f in &s.failures {
                eprintln!("failure: {f}");
            }
        }
    }
}

fn depth(d: u32) -> GoParams {
    GoParams {
        depth: Some(d),
        ..GoParams::default()
    }
}

/// The criterion for one ending: every sampled position won (or held) at depth 2 on
/// both backends. `ENDGAME_SAMPLE` overrides the sample size, `ENDGAME_SEED` the seed and
/// `ENDGAME_BACKENDS` (comma-separated) the backends. Every backend plays its whole sample and
/// is reported before the test fails.
fn must_win_all(material: Material, want: Want, program: &str, count: usize) {
    let tb = tablebase();
    let count = sample_size(count);
    let backends = std::env::var("ENDGAME_BACKENDS").unwrap_or_else(|_| "interp,jit".into());
    let mut failed = Vec::new();
    for backend in backends.split(',').map(str::trim).filter(|b| !b.is_empty()) {
        let s = run_sample(&tb, material, want, program, backend, count, &depth(2));
        if !s.failures.is_empty() || s.won != count {
            failed.push(format!(
                "{} {backend}: {} of {count} won, {} failures, first: {:?}",
                material.name(),
                s.won,
                s.failures.len(),
                s.failures.first()
            ));
        }
    }
    assert!(failed.is_empty(), "{failed:?}");
}

#[test]
#[ignore = "the issue's criterion, minutes in a release build"]
fn kqk_program_mates_every_sampled_position_at_depth_2() {
    must_win_all(Material::Kqk, Want::Won, "<kqk>", 500);
}

#[test]
#[ignore = "the issue's criterion, minutes in a release build"]
fn krk_program_mates_every_sampled_position_at_depth_2() {
    must_win_all(Material::Krk, Want::Won, "<krk>", 500);
}

#[test]
#[ignore = "the issue's criterion, minutes in a release build"]
fn kbnk_program_mates_every_sampled_position_at_depth_2() {
    must_win_all(Material::Kbnk, Want::Won, "<kbnk>", 500);
}

#[test]
#[ignore = "the issue's criterion, minutes in a release build"]
fn kpk_program_wins_every_sampled_won_position_at_depth_2() {
    must_win_all(Material::Kpk, Want::Won, "<kpk>", 500);
}

#[test]
#[ignore = "the issue's criterion, minutes in a release build"]
fn kpk_program_holds_every_sampled_drawn_position_at_depth_2() {
    must_win_all(Material::Kpk, Want::Drawn, "<kpk>", 500);
}

/// Both backends play the same games, move for move, without any error report (`play_out`
/// fails on an `error` note), and the games are real: each ends by mate or a rule, never by the
/// engine failing to move. Every shipped program, attacking (and KPK defending).
#[test]
fn programs_play_the_same_games_on_both_backends() {
    let tb = tablebase();
    for (material, want, program) in CASES {
        let interp = run_sample(&tb, *material, *want, program, "interp", 4, &depth(2));
        let jit = run_sample(&tb, *material, *want, program, "jit", 4, &depth(2));
        assert_eq!(interp.games, jit.games, "{program}");
        assert_eq!(interp.won, jit.won);
        assert!(interp.games.iter().all(|g| !g.is_empty()));
    }
}

/// The bare king's defence is the program's move, never the guarded search's: with Black's
/// king on d6 against the h-pawn, the search at depth 2 centralises with Ke5, which the table
/// counts as lost, and a guard meant for the attacker let it through.
#[test]
fn the_bare_king_defends_by_the_program_not_the_guarded_search() {
    let tb = tablebase();
    let start = Position::from_fen("8/8/3k4/7K/7P/8/8/8 b - - 0 1").expect("a position");
    assert_eq!(tb.probe(&start), Some(che_tablebase::Outcome::Draw));
    for backend in ["interp", "jit"] {
        let mut e = engine("<kpk>", backend);
        let (mv, _) = engine_move(&mut e, &start, &[], &depth(2)).expect("a move");
        let after = start.after(mv);
        assert_eq!(
            tb.probe(&after),
            Some(che_tablebase::Outcome::Draw),
            "{backend}: {mv} gives the draw away"
        );
    }
}

/// A move back to a position the game has had once is not a draw (only a third occurrence is):
/// the knight trapped on h7 (the bare king g6 attacks it, f6 and g5 are covered) has one way
/// out, Nf8, after which Kf7 would bring back the game's first position. The engine scored that
/// as a draw, below the knight's loss, and gave the knight away (Kb4, Kxh7: a dead draw).
#[test]
fn the_way_back_out_of_a_trap_is_taken_though_it_can_repeat() {
    let start = Position::from_fen("5n2/5K2/8/2k5/8/8/8/4b3 b - - 0 1").expect("fen");
    let moves: Vec<chess_core::Move> = ["f8h7", "f7g6"]
        .iter()
        .scan(start, |pos, uci| {
            let mv = pos.parse_uci(uci).expect("a legal move");
            *pos = pos.after(mv);
            Some(mv)
        })
        .collect();
    for backend in ["interp", "jit"] {
        let mut e = engine("<kbnk>", backend);
        let (best, _) = engine_move(&mut e, &start, &moves, &depth(2)).expect("a move");
        assert_eq!(best.to_string(), "h7f8", "{backend}");
    }
}

/// Under a clock the programs run: the searches behind a TRY are charged to the root run's fuel
/// per node, and without a node limit of their own every search the clock let run long used up
/// the root run's share of the move's time (each shipped program failed at the root, reported,
/// and the engine searched without it). `engine_move` fails the test on any error note.
#[test]
fn programs_run_under_a_clock() {
    let cases = [
        ("<kqk>", "8/8/8/3k4/8/8/8/KQ6 w - - 0 1"),
        ("<krk>", "8/8/8/3k4/8/8/8/KR6 w - - 0 1"),
        ("<kbnk>", "8/8/8/3k4/8/8/8/KBN5 w - - 0 1"),
    ];
    for (program, fen) in cases {
        let start = Position::from_fen(fen).expect("fen");
        for millis in [100, 1000] {
            let go = GoParams {
                move_time: Some(std::time::Duration::from_millis(millis)),
                ..GoParams::default()
            };
            let mut e = engine(program, "interp");
            let (best, _) = engine_move(&mut e, &start, &[], &go).expect("a move");
            assert!(start.legal_moves().contains(&best), "{program}");
        }
    }
}

/// The endings, what the sample takes and the program.
const CASES: &[(Material, Want, &str)] = &[
    (Material::Kqk, Want::Won, "<kqk>"),
    (Material::Krk, Want::Won, "<krk>"),
    (Material::Kbnk, Want::Won, "<kbnk>"),
    (Material::Kpk, Want::Won, "<kpk>"),
    (Material::Kpk, Want::Drawn, "<kpk>"),
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

/// The moves to mate the program costs over the engine alone, per game, on paired games:
/// the mean of the differences (with less alone) and its standard error.
struct Excess {
    mean: f64,
    error: f64,
}

impl Excess {
    /// One-sided 1 % point of the normal distribution.
    const Z: f64 = 2.326;

    fn of(paired: &[(u32, u32)]) -> Excess {
        let n = paired.len() as f64;
        if paired.len() < 2 {
            return Excess {
                mean: 0.0,
                error: 0.0,
            };
        }
        let d: Vec<f64> = paired
            .iter()
            .map(|&(p, a)| f64::from(p) - f64::from(a))
            .collect();
        let mean = d.iter().sum::<f64>() / n;
        let var = d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
        Excess {
            mean,
            error: (var / n).sqrt(),
        }
    }

    /// Whether the program needs more moves than the engine alone beyond the clock's noise: the
    /// mean excess above zero by more than [`Excess::Z`] standard errors. Under a clock the
    /// same engine needs a different number of moves from run to run (the KRK sample of 200
    /// positions at 100 ms: 2,147 to 2,189 moves alone in five runs), so equal play is equal
    /// only on average and a plain comparison of the sums would fail half the time.
    fn significant(&self) -> bool {
        self.mean > 0.0 && self.mean > Self::Z * self.error
    }
}

impl std::fmt::Display for Excess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{:+.3} moves a game, standard error {:.3}",
            self.mean, self.error
        )
    }
}

#[test]
fn an_excess_beyond_the_noise_is_significant() {
    // The same moves: nothing to see.
    assert!(!Excess::of(&[(10, 10), (8, 8), (12, 12)]).significant());
    // One move more in every game: significant however small.
    assert!(Excess::of(&[(11, 10), (9, 8), (13, 12), (7, 6)]).significant());
    // Up one game, down another: noise.
    assert!(!Excess::of(&[(11, 10), (8, 9), (12, 12), (6, 6)]).significant());
    // Fewer moves with the program is never a failure.
    assert!(!Excess::of(&[(9, 10), (7, 8), (11, 12)]).significant());
}

/// The criterion for play under a clock, for one ending: with `EndgameProgram <all>` the engine
/// mates every sampled won position under `clock` on every backend, and on the positions the
/// engine alone (no program, the same clock) mates as well it needs on average no more moves
/// (no excess beyond the clock's noise, [`Excess::significant`]). The engine alone and `<all>`
/// on each backend take turns position by position, so that a change of the machine's load
/// during the run falls on every side of the comparison alike.
/// `ENDGAME_SAMPLE`, `ENDGAME_SEED` and `ENDGAME_BACKENDS` as for [`must_win_all`]; every
/// backend plays its whole sample and is reported before the test fails. `ENDGAME_POSITIONS`
/// ([`positions_range`]) plays a part of the sample; every run prints its paired games, so that
/// the parts' games make up the whole sample's comparison.
fn must_mate_under(material: Material, clock: &Clock, count: usize) {
    let tb = tablebase();
    let count = sample_size(count);
    let backends = std::env::var("ENDGAME_BACKENDS").unwrap_or_else(|_| "interp,jit".into());
    let backends: Vec<&str> = backends
        .split(',')
        .map(str::trim)
        .filter(|b| !b.is_empty())
        .collect();
    // The engine alone, then `<all>` on every backend, position by position.
    let mut alone = Player::new("off", "interp");
    let mut players: Vec<Player> = backends.iter().map(|b| Player::new("<all>", b)).collect();
    let starts = sample(&tb, material, Want::Won, count, sample_seed()).expect("a sample");
    let range = positions_range(starts.len());
    let played = range.len();
    if played != starts.len() {
        eprintln!(
            "{}: positions {}..{} of the sample of {}",
            material.name(),
            range.start,
            range.end,
            starts.len()
        );
    }
    for start in &starts[range] {
        alone.play(&tb, start, Want::Won, clock);
        for p in &mut players {
            p.play(&tb, start, Want::Won, clock);
        }
    }
    alone.report(material, Want::Won, clock);
    let alone = alone.summary;
    let mut failed = Vec::new();
    for player in &players {
        player.report(material, Want::Won, clock);
        let backend = &player.backend;
        let s = &player.summary;
        if !s.failures.is_empty() || s.won != played {
            failed.push(format!(
                "{} {backend}: {} of {played} won, {} failures, first: {:?}",
                material.name(),
                s.won,
                s.failures.len(),
                s.failures.first()
            ));
        }
        let paired: Vec<(u32, u32)> = s
            .mates
            .iter()
            .zip(&alone.mates)
            .filter_map(|(p, a)| Some(((*p)?, (*a)?)))
            .collect();
        let with: u32 = paired.iter().map(|(p, _)| p).sum();
        let without: u32 = paired.iter().map(|(_, a)| a).sum();
        let excess = Excess::of(&paired);
        eprintln!(
            "{} {backend} {clock:?}: on the {} positions both mate, {with} moves with <all>, {without} alone ({:.2} against {:.2} a game; {excess})",
            material.name(),
            paired.len(),
            f64::from(with) / paired.len().max(1) as f64,
            f64::from(without) / paired.len().max(1) as f64,
        );
        let games: Vec<String> = paired.iter().map(|(p, a)| format!("{p}/{a}")).collect();
        eprintln!(
            "{} {backend} {clock:?}: paired games (moves with <all>/alone): {}",
            material.name(),
            games.join(" ")
        );
        if excess.significant() {
            failed.push(format!(
                "{} {backend}: {with} moves to mate with <all> against {without} alone on {} positions ({excess})",
                material.name(),
                paired.len()
            ));
        }
    }
    assert!(failed.is_empty(), "{failed:?}");
}

/// The game clock of the criterion: 10 s for the game and 0.1 s a move.
fn game_clock() -> Clock {
    Clock::Game {
        base: std::time::Duration::from_secs(10),
        increment: std::time::Duration::from_millis(100),
    }
}

macro_rules! clock_criteria {
    ($($name:ident: $material:expr, $clock:expr;)*) => {$(
        #[test]
        #[ignore = "the criterion under a clock: hours in a release build"]
        fn $name() {
            must_mate_under($material, &$clock, 200);
        }
    )*};
}

clock_criteria! {
    all_programs_mate_kqk_at_movetime_100: Material::Kqk, Clock::movetime(100);
    all_programs_mate_krk_at_movetime_100: Material::Krk, Clock::movetime(100);
    all_programs_mate_kbnk_at_movetime_100: Material::Kbnk, Clock::movetime(100);
    all_programs_mate_kpk_at_movetime_100: Material::Kpk, Clock::movetime(100);
    all_programs_mate_kqk_at_movetime_1000: Material::Kqk, Clock::movetime(1000);
    all_programs_mate_krk_at_movetime_1000: Material::Krk, Clock::movetime(1000);
    all_programs_mate_kbnk_at_movetime_1000: Material::Kbnk, Clock::movetime(1000);
    all_programs_mate_kpk_at_movetime_1000: Material::Kpk, Clock::movetime(1000);
    all_programs_mate_kqk_at_10s_plus_0_1s: Material::Kqk, game_clock();
    all_programs_mate_krk_at_10s_plus_0_1s: Material::Krk, game_clock();
    all_programs_mate_kbnk_at_10s_plus_0_1s: Material::Kbnk, game_clock();
    all_programs_mate_kpk_at_10s_plus_0_1s: Material::Kpk, game_clock();
}

/// Under every kind of `go` the engine with `<all>` mates a few sampled positions of every
/// ending: depth 3 and 5, a node budget, a short movetime, the criterion's game clock (a
/// shorter one loses KBNK games on time on a loaded machine), and `go infinite`
/// stopped after a while (the full-size runs are the ignored criteria above).
#[test]
fn all_programs_mate_under_every_kind_of_go() {
    let tb = tablebase();
    let ms = std::time::Duration::from_millis;
    let clocks = [
        Clock::Go(depth(3)),
        Clock::Go(depth(5)),
        Clock::Go(GoParams {
            nodes: Some(3_000),
            ..GoParams::default()
        }),
        Clock::movetime(30),
        game_clock(),
        Clock::InfiniteThenStop(ms(30)),
    ];
    for clock in &clocks {
        for material in [Material::Kqk, Material::Krk, Material::Kbnk, Material::Kpk] {
            let s = run_sample_with(&tb, material, Want::Won, "<all>", "interp", 1, clock);
            assert!(
                s.failures.is_empty() && s.won == 1,
                "{clock:?} {}: {:?}",
                material.name(),
                s.failures
            );
        }
    }
}

/// The program whose ENTRY matches the root is the one that plays, and the choice follows the
/// material within one game: KPK, then KQK after the promotion; a KRK left by a capture.
#[test]
fn all_programs_follow_the_material() {
    let cases: &[(&str, &[&str], &str)] = &[
        ("8/8/8/3k4/8/8/8/QK6 w - - 0 1", &[], "<kqk>"),
        ("8/8/8/3k4/8/8/8/RK6 w - - 0 1", &[], "<krk>"),
        ("8/8/8/3k4/8/8/8/BNK5 w - - 0 1", &[], "<kbnk>"),
        ("8/8/8/3k4/8/8/3P4/1K6 w - - 0 1", &[], "<kpk>"),
        ("8/3p4/8/3k4/8/8/3P4/1K6 w - - 0 1", &[], "<kpkp>"),
        // The promotion: KPK becomes KQK.
        (
            "8/4P3/8/8/8/2k5/8/4K3 w - - 0 1",
            &["e7e8q", "c3d3"],
            "<kqk>",
        ),
        // A capture that leaves KRK (KR against KN has no program).
        (
            "8/8/8/3k4/8/8/2n5/1KR5 w - - 0 1",
            &["c1c2", "d5e5"],
            "<krk>",
        ),
    ];
    for backend in ["interp", "jit"] {
        let mut e = engine("<all>", backend);
        for (fen, moves, expected) in cases {
            let start = Position::from_fen(fen).expect("fen");
            let mut pos = start;
            let mut played = Vec::new();
            for uci in *moves {
                let mv = pos.parse_uci(uci).expect("a legal move");
                pos = pos.after(mv);
                played.push(mv);
            }
            e.set_position(start, &played).expect("legal");
            let mut notes = Vec::new();
            e.think(&depth(2), &SearchControl::new(), &mut |ev| {
                if let EngineEvent::Note(n) = ev {
                    notes.push(n);
                }
            });
            assert!(
                notes
                    .iter()
                    .any(|n| n.starts_with(&format!("endgame program {expected} answered"))),
                "{backend} {fen} {moves:?}: {notes:?}"
            );
        }
        // No program matches the middlegame: no endgame note.
        e.set_position(Position::startpos(), &[]).expect("legal");
        let mut notes = Vec::new();
        e.think(&depth(2), &SearchControl::new(), &mut |ev| {
            if let EngineEvent::Note(n) = ev {
                notes.push(n);
            }
        });
        assert!(!notes.iter().any(|n| n.contains("endgame")), "{notes:?}");
    }
}

/// The `info` of a search with the program: the depth the engine's search reached (more than
/// the program's two plies under a clock) and a mate score once the mate is known, of the
/// length the tablebase gives (KQK positions at one to three moves from mate).
#[test]
fn info_reports_the_depth_searched_and_the_mate() {
    let tb = tablebase();
    let fens = [
        "k7/8/2K5/8/8/8/8/1Q6 w - - 0 1",
        "8/8/8/8/8/1Q6/8/k1K5 w - - 0 1",
        "2k5/8/2K5/8/8/8/8/7Q w - - 0 1",
        "7k/8/5K2/8/8/8/8/Q7 w - - 0 1",
    ];
    for backend in ["interp", "jit"] {
        let mut e = engine("<all>", backend);
        for fen in fens {
            let start = Position::from_fen(fen).expect("fen");
            let Some(che_tablebase::Outcome::Win { plies }) = tb.probe(&start) else {
                // A position with the bare king to move: play the table's move first.
                continue;
            };
            e.new_game();
            e.set_position(start, &[]).expect("legal");
            let mut reports = Vec::new();
            let go = GoParams {
                move_time: Some(std::time::Duration::from_millis(300)),
                ..GoParams::default()
            };
            e.think(&go, &SearchControl::new(), &mut |ev| {
                if let EngineEvent::Report(r) = ev {
                    reports.push(r);
                }
            });
            let last = reports.last().expect("an info line");
            assert!(last.depth >= 3, "{backend} {fen}: depth {}", last.depth);
            assert!(
                che_engine::search::value::is_mate(last.score),
                "{backend} {fen}: {last:?}"
            );
            assert_eq!(
                che_engine::search::value::mate_moves(last.score),
                plies.div_ceil(2) as i32,
                "{backend} {fen}"
            );
        }
    }
}

/// The fields of an `info` line that the tests read: the depth, and the score as `("cp", n)`
/// or `("mate", n)`; `None` for any other line.
fn info_fields(line: &str) -> Option<(u32, (String, i32))> {
    let words: Vec<&str> = line.split_whitespace().collect();
    if words.first() != Some(&"info") || words.get(1) == Some(&"string") {
        return None;
    }
    let after = |key: &str| {
        words
            .iter()
            .position(|w| *w == key)
            .and_then(|i| words.get(i + 1))
    };
    let depth = after("depth")?.parse().ok()?;
    let at = words.iter().position(|w| *w == "score")?;
    let kind = words.get(at + 1)?.to_string();
    let value = words.get(at + 2)?.parse().ok()?;
    Some((depth, (kind, value)))
}

/// Through the engine's UCI loop, with `EndgameProgram <all>`: the program that answers follows
/// the material from one `position` to the next (KPK, then KQK after the promotion), the last
/// `info` before `bestmove` reports the depth searched (more than the program's two plies at
/// `go movetime 300`, the depth given at `go depth 4`) and, in a KQK position a few moves from
/// mate, `score mate N` with the tablebase's N; every `bestmove` is legal.
#[test]
fn uci_with_all_programs_follows_the_material_and_reports_depth_and_mate() {
    use che_engine::uci::{Flow, Session};
    use che_engine::worker::Out;
    let tb = tablebase();
    let out = Out::capture();
    let options = EngineOptions {
        hash_mb: 4,
        ..EngineOptions::default()
    };
    let mut session = Session::new(options, out.clone()).expect("engine thread");
    let mut converse = |lines: &[&str]| {
        for line in lines {
            assert_eq!(session.handle(line), Flow::Continue, "{line}");
            session.wait();
        }
        out.take_lines()
    };
    let loaded = converse(&[
        "uci",
        "setoption name AdviceMode value off",
        "setoption name EndgameProgram value <all>",
        "isready",
    ]);
    assert!(
        loaded.iter().any(|l| l.starts_with(
            "info string endgame programs <kqk>, <krk>, <kbnk>, <kpk>, <kpkp> loaded"
        )),
        "{loaded:?}"
    );
    // (position, go, the program that answers, the table's mate in moves when checked)
    let kpk = "8/4P3/8/8/8/2k5/8/4K3 w - - 0 1";
    let cases: &[(String, &str, &str)] = &[
        (format!("position fen {kpk}"), "go depth 4", "<kpk>"),
        (
            format!("position fen {kpk} moves e7e8q c3d3"),
            "go movetime 300",
            "<kqk>",
        ),
        (
            "position fen 8/8/8/3k4/8/8/2n5/1KR5 w - - 0 1 moves c1c2 d5e5".to_string(),
            "go movetime 300",
            "<krk>",
        ),
        (
            "position fen k7/8/2K5/8/8/8/8/1Q6 w - - 0 1".to_string(),
            "go movetime 300",
            "<kqk>",
        ),
    ];
    for (position, go, program) in cases {
        let lines = converse(&["ucinewgame", position, go]);
        let fen = position
            .strip_prefix("position fen ")
            .and_then(|p| p.split(" moves").next())
            .expect("a fen");
        let mut pos = Position::from_fen(fen).expect("fen");
        if let Some(moves) = position.split(" moves ").nth(1) {
            for m in moves.split_whitespace() {
                pos = pos.after(pos.parse_uci(m).expect("legal"));
            }
        }
        // The program answers, or (a following one) follows the engine's deep search.
        let answered = format!("info string endgame program {program} answered");
        let follows = format!("info string endgame program {program} follows");
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with(&answered) || l.starts_with(&follows)),
            "{position} {go}: {lines:?}"
        );
        let best = lines
            .iter()
            .find_map(|l| l.strip_prefix("bestmove "))
            .and_then(|m| m.split_whitespace().next())
            .expect("a bestmove");
        let mv = pos.parse_uci(best).expect("a legal bestmove");
        let (depth, (kind, value)) = lines
            .iter()
            .rev()
            .find_map(|l| info_fields(l))
            .expect("an info line");
        if *go == "go depth 4" {
            assert_eq!(depth, 4, "{position}: {lines:?}");
        } else {
            assert!(depth >= 3, "{position}: depth {depth}: {lines:?}");
        }
        if let Some(che_tablebase::Outcome::Win { plies }) = tb.probe(&pos) {
            if plies <= 5 {
                assert_eq!(kind, "mate", "{position}: {lines:?}");
                assert_eq!(value, plies.div_ceil(2) as i32, "{position}: {lines:?}");
                assert!(
                    matches!(tb.probe(&pos.after(mv)), Some(che_tablebase::Outcome::Loss { plies: p }) if p + 1 == plies),
                    "{position}: {best} does not keep the shortest mate"
                );
            }
        }
    }
    session.quit();
}
