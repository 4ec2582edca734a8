//! What the advice program costs inside the search: nodes per second with `AdviceMode` off,
//! root and node, on the interpreter, the JIT and the tiered backend (auto), measured side by
//! side in one run.
//!
//! Every configuration searches the same fixed positions (`che_engine::engine::BENCH_POSITIONS`)
//! to the same depth from a cleared hash table, so its node count is deterministic (checked to be
//! equal in every round); the rounds interleave the configurations so that machine noise spreads
//! over all of them alike. The program is `<shanny-eval>`: the bundled example (whose `main()`
//! runs at the root) plus an `Evaluate()` leaf hook (called at every evaluation in node mode).
//! Root and node mode search different trees (the advice changes the evaluation), so the
//! comparison is in nodes per second, not in time.
//!
//! Two more tables isolate the program's own cost on each backend: one run of `main()` at the
//! root (what root mode adds per search) and one `Evaluate()` call with its board view update
//! (what node mode adds per evaluation), over the same positions.
//!
//! The clock is the measuring thread's CPU time (as in `benches/perft.rs`: the machines are
//! shared), and each figure is the best round. (So auto's background compilation, on a thread
//! of its own, is not counted; the warm-up round gives it time to deliver.)
//!
//! Run: `cargo bench -p che-benches --bench engine` (about two minutes). Set `ENGINE_BENCH_DEPTH`
//! (default 8) and `ENGINE_BENCH_ROUNDS` (default 7) to change the work. Results:
//! `docs/benchmarks.md`, section Engine.

use che_engine::advisor::{AdviceMode, Advisor, Backend, ProgramSource};
use che_engine::engine::{Engine, BENCH_POSITIONS};
use che_engine::host::AdviceHost;
use che_engine::options::EngineOptions;
use che_engine::search::{GoParams, SearchControl};
use che_engine::worker::WORKER_STACK;
use chess_core::Position;
use cpu_time::ThreadTime;
use std::hint::black_box;
use std::time::Duration;

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// One configuration of the engine.
struct Config {
    mode: AdviceMode,
    backend: Backend,
    engine: Engine,
    nodes: Option<u64>,
    times: Vec<Duration>,
}

/// Searches every position to `depth` from a cleared table; returns nodes and the CPU time of
/// the searches (clearing the tables between positions is not timed).
fn run(engine: &mut Engine, positions: &[Position], depth: u32) -> (u64, Duration) {
    let go = GoParams {
        depth: Some(depth),
        ..GoParams::default()
    };
    let control = SearchControl::new();
    let mut time = Duration::ZERO;
    let mut nodes = 0;
    for pos in positions {
        engine.new_game();
        let _ = engine.set_position(*pos, &[]);
        let start = ThreadTime::now();
        nodes += engine.think(&go, &control, &mut |_| {}).nodes;
        time += start.elapsed();
    }
    (nodes, time)
}

/// The fastest round: on a shared machine interference only ever adds time, so the minimum of
/// deterministic work is the most repeatable figure.
fn best(times: &[Duration]) -> Duration {
    times.iter().min().copied().unwrap_or_default()
}

fn nps(nodes: u64, t: Duration) -> f64 {
    nodes as f64 / t.as_secs_f64().max(1e-9)
}

fn search_table(positions: &[Position], depth: u32, rounds: usize) {
    let mut configs: Vec<Config> = [
        (AdviceMode::Off, Backend::Interp),
        (AdviceMode::Off, Backend::Jit),
        (AdviceMode::Root, Backend::Interp),
        (AdviceMode::Root, Backend::Jit),
        (AdviceMode::Root, Backend::Auto),
        (AdviceMode::Node, Backend::Interp),
        (AdviceMode::Node, Backend::Jit),
        (AdviceMode::Node, Backend::Auto),
    ]
    .into_iter()
    .map(|(mode, backend)| {
        let engine = Engine::new(EngineOptions {
            hash_mb: 16,
            program: ProgramSource::ShannyEval,
            backend,
            advice_mode: mode,
            ..EngineOptions::default()
        });
        assert_eq!(engine.program_error(), None);
        Config {
            mode,
            backend,
            engine,
            nodes: None,
            times: Vec::new(),
        }
    })
    .collect();

    // Warm-up round (JIT compilation, caches), then the measured rounds, interleaved.
    for round in 0..=rounds {
        for c in configs.iter_mut() {
            let (nodes, t) = run(&mut c.engine, positions, depth);
            match c.nodes {
                None => c.nodes = Some(nodes),
                Some(n) => assert_eq!(n, nodes, "node count changed between rounds"),
            }
            if round > 0 {
                c.times.push(t);
            }
        }
        eprintln!("round {round} of {rounds} done");
    }

    let base = configs
        .first()
        .map(|c| nps(c.nodes.unwrap_or(0), best(&c.times)))
        .unwrap_or(1.0);
    println!(
        "\nSearch: {} positions, depth {depth}, best of {rounds} rounds (thread CPU time)\n",
        positions.len()
    );
    println!("| AdviceMode | backend | nodes | CPU time (s) | nodes/s | vs. off |");
    println!("| --- | --- | ---: | ---: | ---: | ---: |");
    for c in &configs {
        let nodes = c.nodes.unwrap_or(0);
        let t = best(&c.times);
        println!(
            "| {} | {} | {} | {:.3} | {:.0} | {:.2} |",
            c.mode,
            c.backend,
            nodes,
            t.as_secs_f64(),
            nps(nodes, t),
            nps(nodes, t) / base
        );
    }
}

fn root_table(positions: &[Position], rounds: usize) {
    const RUNS: usize = 2_000;
    let mut advisor = Advisor::load(&ProgramSource::ShannyEval).expect("bundled program");
    let mut host = AdviceHost::new(&Position::startpos());
    println!(
        "\nOne run of main() at the root (reset, board view, run), {RUNS} runs per round, best of {rounds} rounds\n"
    );
    println!("| backend | µs per run |");
    println!("| --- | ---: |");
    for backend in Backend::ALL {
        let mut session = advisor.session(backend, &mut host).expect("session");
        let mut times = Vec::new();
        for round in 0..=rounds {
            let start = ThreadTime::now();
            for i in 0..RUNS {
                let pos = &positions[i % positions.len()];
                black_box(session.run_root(pos).is_ok());
            }
            let t = start.elapsed();
            if round > 0 {
                times.push(t);
            }
        }
        let per_run = best(&times).as_secs_f64() * 1e6 / RUNS as f64;
        println!("| {backend} | {per_run:.1} |");
    }
}

fn hook_table(positions: &[Position], rounds: usize) {
    const CALLS: usize = 200_000;
    let mut advisor = Advisor::load(&ProgramSource::ShannyEval).expect("bundled program");
    let mut host = AdviceHost::new(&Position::startpos());
    println!("\nOne Evaluate() call (board view update included), {CALLS} calls per round, best of {rounds} rounds\n");
    println!("| backend | ns per call | sum of results (check) |");
    println!("| --- | ---: | ---: |");
    let mut per_backend = Vec::new();
    for backend in Backend::ALL {
        let mut session = advisor.session(backend, &mut host).expect("session");
        let mut times = Vec::new();
        let mut check = 0i64;
        for round in 0..=rounds {
            let start = ThreadTime::now();
            let mut sum = 0i64;
            for i in 0..CALLS {
                let pos = &positions[i % positions.len()];
                sum += i64::from(black_box(session.call_hook(pos)).unwrap_or(0));
            }
            let t = start.elapsed();
            if round > 0 {
                times.push(t);
            }
            check = sum;
        }
        let per_call = best(&times).as_nanos() as f64 / CALLS as f64;
        per_backend.push(check);
        println!("| {backend} | {per_call:.0} | {check} |");
    }
    assert!(
        per_backend.windows(2).all(|w| w[0] == w[1]),
        "the backends disagree"
    );
}

fn main() {
    let depth = env_number("ENGINE_BENCH_DEPTH", 8) as u32;
    let rounds = env_number("ENGINE_BENCH_ROUNDS", 7).max(1) as usize;
    let positions: Vec<Position> = BENCH_POSITIONS
        .iter()
        .map(|f| Position::from_fen(f).expect("bench position"))
        .collect();
    let worker = std::thread::Builder::new()
        .stack_size(WORKER_STACK)
        .spawn(move || {
            search_table(&positions, depth, rounds);
            root_table(&positions, rounds);
            hook_table(&positions, rounds);
        })
        .expect("thread");
    worker.join().expect("benchmark thread");
}
