//! The worst time per unit of fuel.
//!
//! Fuel is what an embedder uses to bound a run's time, so the time one
//! unit can buy must be a small constant. This tool measures it, on both
//! backends, two ways:
//!
//! 1. **Targeted worst cases**: one loop per intrinsic (and per folded
//!    pattern form) calling it with the heaviest arguments there are
//!    (`ExchngCtrl` over `..` with `?`, `Get` forms, long lists, `SetMvs`
//!    with wildcard moves, verbose mode, ...), each on several boards
//!    (the start position, a middlegame, random crowded boards, every
//!    bitboard full), run until the fuel runs out;
//! 2. **Generated programs**: CVM programs from
//!    `cvm_testkit::programs::generate` and Che++ programs from
//!    `cvm_testkit::chepp_programs` (optimized), on a few positions, with a
//!    fuel limit.
//!
//! Each run's time is the thread's CPU time (so time spent descheduled on
//! a busy machine does not count); the worst runs are repeated and their
//! fastest repetition kept. It prints nanoseconds per unit of fuel: the
//! targeted cases sorted, and the distribution and the worst of the
//! generated programs, with a plain counted loop and a loop of calls for
//! scale.
//!
//! Run: `cargo run --release -p che-benches --bin fuelrate [-- --programs N] [--che N] [--quick]`
//! (`--only TEXT` measures the targeted cases whose name contains TEXT;
//! `--dump SEED` prints the generated CVM program of that seed).

use cpu_time::ThreadTime;
use cvm::intrinsics::{ElemKind, ParamKind, INTRINSICS};
use cvm::{asm, Backend, BoardView, CollectOutput, Limits, Program};
use cvm_chess::lit;
use cvm_testkit::oracle::ScenarioHost;
use jit::Prepared;
use std::time::Duration;

/// One measured run.
#[derive(Copy, Clone, Debug)]
struct Sample {
    time: Duration,
    fuel: u64,
}

impl Sample {
    fn ns_per_fuel(&self) -> f64 {
        self.time.as_nanos() as f64 / self.fuel.max(1) as f64
    }
}

/// Runs `main` of a prepared program once under `fuel` on `board`.
fn run_once(prepared: &Prepared, board: &BoardView, fuel: u64) -> Sample {
    let mut vm = prepared.instance();
    vm.set_limits(Limits {
        fuel: Some(fuel),
        max_depth: 200,
    });
    let func = prepared
        .program()
        .module()
        .entry
        .or_else(|| prepared.program().module().function_index("main"))
        .unwrap_or(0);
    let arity = prepared.program().module().functions[func as usize].arity();
    let args = vec![0i32; arity as usize];
    let mut host = ScenarioHost { board: *board };
    let mut out = CollectOutput::default();
    let started = ThreadTime::now();
    let _ = vm.call(func, &args, &mut host, &mut out);
    let time = started.elapsed();
    Sample {
        time,
        fuel: vm.fuel_used(),
    }
}

/// The fastest of `reps` runs (the least disturbed one).
fn best_of(prepared: &Prepared, board: &BoardView, fuel: u64, reps: usize) -> Sample {
    (0..reps)
        .map(|_| run_once(prepared, board, fuel))
        .min_by(|a, b| a.ns_per_fuel().total_cmp(&b.ns_per_fuel()))
        .expect("at least one repetition")
}

/// A run of about `target` CPU time: the fuel limit is scaled from a
/// short trial run.
fn timed(prepared: &Prepared, board: &BoardView, target: Duration, reps: usize) -> Sample {
    let mut fuel = 2_000u64;
    for _ in 0..8 {
        let s = run_once(prepared, board, fuel);
        if s.time >= target / 4 {
            break;
        }
        let scale = (target.as_nanos() as f64 / s.time.as_nanos().max(1) as f64).clamp(2.0, 100.0);
        fuel = ((fuel as f64) * scale).ceil() as u64;
    }
    best_of(prepared, board, fuel, reps)
}

// ---------------------------------------------------------------------------
// Boards.

fn xorshift(seed: u64) -> impl FnMut() -> u64 {
    let mut s = seed | 1;
    move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    }
}

fn boards() -> Vec<(&'static str, BoardView)> {
    let fen = |f: &str| BoardView::from_fen(f).expect("valid FEN");
    let mut crowded = BoardView::EMPTY;
    let mut next = xorshift(0x5EE);
    for c in 0..2 {
        for k in 0..6 {
            crowded.pieces[c][k] = next() & next();
        }
    }
    // Disjoint random placement with many sliders: long exchanges.
    let mut sliders = BoardView::EMPTY;
    let mut next = xorshift(0xE8C4);
    for sq in 0..64 {
        let r = next();
        if r % 10 < 7 {
            let c = ((r >> 8) & 1) as usize;
            let k = [0, 1, 2, 3, 4, 4, 3, 2][((r >> 9) % 8) as usize];
            sliders.pieces[c][k] |= 1 << sq;
        }
    }
    let mut full = BoardView::EMPTY;
    for c in 0..2 {
        for k in 0..6 {
            full.pieces[c][k] = u64::MAX;
        }
    }
    vec![
        (
            "start",
            fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
        ),
        (
            "middlegame",
            fen("r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1BBPPP/R2QK2R w KQ - 0 9"),
        ),
        ("crowded", crowded),
        ("sliders", sliders),
        ("full", full),
    ]
}

// ---------------------------------------------------------------------------
// Targeted cases.

/// An argument of a targeted call.
#[derive(Clone, Debug)]
enum Arg {
    Int(i32),
    /// A list with these elements and this capacity.
    List(Vec<i32>, u32),
    /// An output list of this capacity.
    Out(u32),
}

/// A targeted case: a loop calling intrinsic `name` with `args`, `verbose`
/// turning verbose mode on first.
struct Case {
    name: String,
    text: String,
}

fn sq(s: &str) -> i32 {
    lit::parse_square(s).expect("square")
}
fn piece(s: &str) -> i32 {
    lit::parse_piece(s).expect("piece")
}
fn mv(s: &str) -> i32 {
    lit::parse_move(s).expect("move")
}
fn word(s: &str) -> i32 {
    lit::parse_word(s).expect("literal").1
}
fn op(s: &str) -> i32 {
    lit::parse_compop(s).expect("compoperator")
}

fn list_text(name: &str, els: &[i32], cap: u32) -> String {
    let vals: Vec<String> = els.iter().map(|v| v.to_string()).collect();
    if vals.is_empty() {
        format!(".list {name} {cap}\n")
    } else {
        format!(".list {name} {cap} = {}\n", vals.join(" "))
    }
}

/// The loop `L: args; intr name; pop; jmp L` (after `SetVerbose(1)` when
/// `verbose`), as assembly.
fn intrinsic_case(label: &str, name: &str, args: &[Arg], verbose: bool) -> Case {
    let (id, info) = cvm::intrinsics::by_name(name).expect("intrinsic");
    let _ = id;
    let mut head = String::new();
    let mut body = String::new();
    for (i, a) in args.iter().enumerate() {
        match a {
            Arg::Int(v) => body.push_str(&format!("    push {v}\n")),
            Arg::List(els, cap) => {
                head.push_str(&list_text(&format!("l{i}"), els, *cap));
                body.push_str(&format!("    lref l{i}\n"));
            }
            Arg::Out(cap) => {
                head.push_str(&list_text(&format!("l{i}"), &[], *cap));
                body.push_str(&format!("    lref l{i}\n"));
            }
        }
    }
    body.push_str(&format!("    intr {name}\n"));
    if info.returns {
        body.push_str("    pop\n");
    }
    let pre = if verbose {
        "    push 1\n    intr SetVerbose\n"
    } else {
        ""
    };
    Case {
        name: format!("{name}{label}"),
        text: format!(
            "{head}.entry main\n.func main params 0 lists 0 locals 0 stack 8 proc\n{pre}L_top:\n{body}    jmp L_top\n.end\n"
        ),
    }
}

/// A folded pattern in a loop: `push arg; pat.all|pat.any name lo hi`.
fn pattern_case(name: &str, any: bool, arg: i32, mask: u64) -> Case {
    let m = if any { "pat.any" } else { "pat.all" };
    Case {
        name: format!("{m} {name} {mask:#x}"),
        text: format!(
            ".entry main\n.func main params 0 lists 0 locals 0 stack 2 proc\nL_top:\n    push {arg}\n    {m} {name} {} {}\n    pop\n    jmp L_top\n.end\n",
            mask as u32 as i32,
            (mask >> 32) as u32 as i32
        ),
    }
}

/// Plain loops for scale: an empty counted loop, a loop of calls, and
/// loops calling a function of 1,000 and of 4,000 straight-line
/// instructions (the worst case of straight-line code: a call must pay for
/// every instruction of its callee).
fn reference_cases() -> Vec<Case> {
    let block = "    ldg g\n    add.i 3\n    dup\n    stg g\n    ldg h\n    bxor\n    stg h\n";
    let straight_case = |blocks: usize, label: &str| {
        let straight = block.repeat(blocks);
        Case {
            name: format!("(loop of calls of {label} straight-line instructions)"),
            text: format!(
                ".global g 1\n.global h 2\n.func f params 0 lists 0 locals 0 stack 2 proc\n{straight}    ret\n.end\n.entry main\n.func main params 0 lists 0 locals 0 stack 1 proc\nL_top:\n    call f\n    jmp L_top\n.end\n"
            ),
        }
    };
    vec![
        straight_case(143, "1,000"),
        straight_case(572, "4,000"),
        Case {
            name: "(plain loop iteration)".into(),
            text: ".entry main\n.func main params 0 lists 0 locals 1 stack 2 proc\n.slots i\nL_top:\n    incl i\n    jmp L_top\n.end\n".into(),
        },
        Case {
            name: "(loop of calls)".into(),
            text: ".func f params 0 lists 0 locals 0 stack 1 value\n    push 1\n    retv\n.end\n.entry main\n.func main params 0 lists 0 locals 0 stack 2 proc\nL_top:\n    call f\n    pop\n    jmp L_top\n.end\n".into(),
        },
    ]
}

/// The heaviest arguments for each intrinsic, plus a few lighter ones so
/// that the per-call base cost is measured too.
fn targeted_cases() -> Vec<Case> {
    use Arg::{Int, List, Out};
    let all = sq("..");
    let squares: Vec<i32> = (0..64).collect();
    let n = |v: i32, k: usize| vec![v; k];
    let long = 4096u32;
    let mut cases = Vec::new();
    let mut add = |label: &str, name: &str, args: Vec<Arg>| {
        cases.push(intrinsic_case(label, name, &args, false));
    };
    // Lists: long scans, with and without an end marker.
    add(" 4096 elements", "ListLen", vec![List(n(1, 4096), long)]);
    add(" 1 element", "ListLen", vec![List(n(1, 1), 1)]);
    for name in ["KingPos", "orKingPos"] {
        add(
            " ? 64 sides",
            name,
            vec![Int(2), List(n(word("kside"), 64), 64)],
        );
        add(
            " ? 4096 sides",
            name,
            vec![Int(2), List(n(word("kside"), 4096), long)],
        );
        add(
            " ? 1 side",
            name,
            vec![Int(2), List(n(word("kside"), 1), 1)],
        );
    }
    add(" ?", "GetKingPos", vec![Int(2), Out(8)]);
    for name in ["PcOnSqrs", "orPcOnSqrs", "Control", "orControl"] {
        add(" ?? ..", name, vec![Int(piece("??")), List(vec![all], 1)]);
        add(
            " ?? 64x..",
            name,
            vec![Int(piece("??")), List(n(all, 64), 64)],
        );
        add(
            " ?? 4096x..",
            name,
            vec![Int(piece("??")), List(n(all, 4096), long)],
        );
        add(
            " ?? 64 squares",
            name,
            vec![Int(piece("??")), List(squares.clone(), 64)],
        );
        add(
            " wP e4",
            name,
            vec![Int(piece("wP")), List(vec![sq("e4")], 1)],
        );
    }
    for name in ["GetPcOnSqrs", "GetControl"] {
        add(" ??", name, vec![Int(piece("??")), Out(65)]);
    }
    add(
        " ?? = 3 64x..",
        "CmpNrPcs",
        vec![Int(piece("??")), Int(op("=")), Int(3), List(n(all, 64), 64)],
    );
    add(
        " ?? = 3 4096x..",
        "CmpNrPcs",
        vec![
            Int(piece("??")),
            Int(op("=")),
            Int(3),
            List(n(all, 4096), long),
        ],
    );
    for name in [
        "DblPwns",
        "orDblPwns",
        "Passed",
        "orPassed",
        "ExchngCtrl",
        "orExchngCtrl",
    ] {
        add(" ? ..", name, vec![Int(2), List(vec![all], 1)]);
        add(
            " ? 64 squares",
            name,
            vec![Int(2), List(squares.clone(), 64)],
        );
        add(" ? 4096x..", name, vec![Int(2), List(n(all, 4096), long)]);
        add(" w e4", name, vec![Int(0), List(vec![sq("e4")], 1)]);
    }
    for name in ["GetDblPwns", "GetPassed", "GetExchngCtrl"] {
        add(" ?", name, vec![Int(2), Out(65)]);
        add(" w", name, vec![Int(0), Out(65)]);
    }
    for name in ["POnLine", "orPOnLine"] {
        add(
            " ? >= 0 64x.line",
            name,
            vec![
                Int(2),
                Int(op(">=")),
                Int(0),
                List(n(word(".line"), 64), 64),
            ],
        );
        add(
            " ? >= 0 4096x.line",
            name,
            vec![
                Int(2),
                Int(op(">=")),
                Int(0),
                List(n(word(".line"), 4096), long),
            ],
        );
    }
    add(
        " ? >= 0",
        "GetPOnLine",
        vec![Int(2), Int(op(">=")), Int(0), Out(9)],
    );
    add(" h7", "NxtSqr", vec![Int(sq("h7"))]);
    add(" a2", "PrvSqr", vec![Int(sq("a2"))]);
    for name in ["GetLSqrs", "GetRSqrs", "GetDwnSqrs", "GetUpSqrs"] {
        add(" (longest)", name, vec![Int(sq("h1")), Out(9)]);
        add(" (longest)", name, vec![Int(sq("a8")), Out(9)]);
    }
    add(
        " ? 64x..e4",
        "SetMvs",
        vec![Int(2), Int(1), List(n(mv("..e4"), 64), 64)],
    );
    add(
        " ? 64x..e4 4096",
        "SetMvs",
        vec![Int(2), Int(1), List(n(mv("..e4"), 4096), long)],
    );
    add(
        " ? e2e4",
        "SetMvs",
        vec![Int(2), Int(1), List(vec![mv("e2e4")], 1)],
    );
    add(
        " ? 64x....",
        "SetMvs",
        vec![Int(2), Int(1), List(n(mv("...."), 64), 64)],
    );
    add(
        " ? 64x..",
        "SetPMvs",
        vec![Int(2), Int(1), List(n(all, 64), 64)],
    );
    add(
        " ? e4",
        "SetPMvs",
        vec![Int(2), Int(1), List(vec![sq("e4")], 1)],
    );
    for name in ["SetSqrs", "CtrlSqrs"] {
        add(
            " ?? 64x..",
            name,
            vec![Int(piece("??")), Int(1), List(n(all, 64), 64)],
        );
        add(
            " ?Q 64x..",
            name,
            vec![Int(piece("?Q")), Int(1), List(n(all, 64), 64)],
        );
        add(
            " wP e4",
            name,
            vec![Int(piece("wP")), Int(1), List(vec![sq("e4")], 1)],
        );
        add(
            " ?? 4096 squares",
            name,
            vec![
                Int(piece("??")),
                Int(1),
                List((0..4096).map(|i| i % 64).collect(), long),
            ],
        );
    }
    add(
        " ? 64x?sqr",
        "KeepBs",
        vec![Int(2), Int(1), List(n(word("?sqr"), 64), 64)],
    );
    for name in ["KeepPcs", "ChngPcsVal"] {
        add(" 64x??", name, vec![Int(1), List(n(piece("??"), 64), 64)]);
        add(
            " 4096x??",
            name,
            vec![Int(1), List(n(piece("??"), 4096), long)],
        );
    }
    add(
        " ?? 64xa1h8",
        "SetDiags",
        vec![Int(piece("??")), Int(1), List(n(mv("a1h8"), 64), 64)],
    );
    add(" ?", "MinAttack", vec![Int(2)]);
    add(
        " ? 64x.line",
        "ForcePwns",
        vec![Int(2), List(n(word(".line"), 64), 64)],
    );
    add(
        " ? 4096x.line",
        "ForcePwns",
        vec![Int(2), List(n(word(".line"), 4096), long)],
    );
    add(
        " ? kside qside",
        "Attack",
        vec![Int(2), List(vec![word("kside"), word("qside")], 2)],
    );
    add(
        " ? 4096 sides",
        "Attack",
        vec![Int(2), List(n(word("kside"), 4096), long)],
    );
    add(" 1", "GetStyle", vec![Int(1)]);
    add(" 1", "GetScore", vec![Int(1)]);
    // The core charges a host call one unit; the benchmark's host has no
    // extensions and answers 0 (an embedder's service is its own to bound).
    add(" 0 0 0 0", "HostCall", vec![Int(0), Int(0), Int(0), Int(0)]);
    add(" 1", "SetVerbose", vec![Int(1)]);
    add(" 2 3", "SetStyle", vec![Int(2), Int(3)]);
    // Verbose mode: every entered move or style change is a line of text.
    let mut verbose = |label: &str, name: &str, args: Vec<Arg>| {
        cases.push(intrinsic_case(
            &format!("{label} verbose"),
            name,
            &args,
            true,
        ));
    };
    verbose(
        " ? 64x..e4",
        "SetMvs",
        vec![Int(2), Int(1), List(n(mv("..e4"), 64), 64)],
    );
    verbose(
        " ? 64xe2e4",
        "SetMvs",
        vec![Int(2), Int(1), List(n(mv("e2e4"), 64), 64)],
    );
    verbose(
        " ? 64x..",
        "SetPMvs",
        vec![Int(2), Int(1), List(n(all, 64), 64)],
    );
    verbose(" 2 3", "SetStyle", vec![Int(2), Int(3)]);
    // The folded forms.
    for (name, arg) in [
        ("PcOnSqrs", piece("??")),
        ("Control", piece("??")),
        ("DblPwns", 2),
        ("Passed", 2),
        ("ExchngCtrl", 2),
    ] {
        for any in [false, true] {
            cases.push(pattern_case(name, any, arg, u64::MAX));
        }
        cases.push(pattern_case(name, false, arg, 1 << 28));
    }
    // Every intrinsic must have a case.
    for info in INTRINSICS {
        assert!(
            cases
                .iter()
                .any(|c| c.text.contains(&format!("intr {}\n", info.name))),
            "no case for {}",
            info.name
        );
        // (Parameter kinds are listed to keep this table honest when new
        // intrinsics arrive.)
        let _ = info.params.iter().map(|p| p.kind).filter(|k| {
            matches!(
                k,
                ParamKind::List {
                    elem: ElemKind::Any,
                    ..
                }
            )
        });
    }
    cases
}

// ---------------------------------------------------------------------------
// Generated programs.

struct Generated {
    name: String,
    program: Program,
}

fn generated_programs(cvm_count: u64, che_count: u64) -> Vec<Generated> {
    let mut out = Vec::new();
    for seed in 0..cvm_count {
        let bytes = cvm_testkit::programs::seed_bytes(seed, 100 + (seed as usize % 9) * 120);
        let module = cvm_testkit::programs::generate(&bytes);
        if let Ok(program) = Program::new(module) {
            out.push(Generated {
                name: format!("cvm seed {seed}"),
                program,
            });
        }
    }
    for seed in 0..che_count {
        let bytes =
            cvm_testkit::programs::seed_bytes(seed ^ 0xC4E, 100 + (seed as usize % 9) * 100);
        let source = cvm_testkit::chepp_programs::generate(&bytes);
        if let Ok(program) = cvm_testkit::chepp_programs::compile(&source) {
            let (optimized, _) = cvm::opt::optimize(&program);
            out.push(Generated {
                name: format!("che seed {seed}"),
                program: optimized,
            });
        }
    }
    out
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i]
}

fn arg_value(args: &[String], name: &str, default: u64) -> u64 {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let quick = args.iter().any(|a| a == "--quick");
    let cvm_count = arg_value(&args, "--programs", if quick { 100 } else { 1000 });
    let che_count = arg_value(&args, "--che", if quick { 30 } else { 200 });
    let only: Option<String> = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1).cloned());
    if let Some(seed) = args
        .iter()
        .position(|a| a == "--dump")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse::<u64>().ok())
    {
        // The generated CVM program of that seed, as `fuelrate` makes it.
        let bytes = cvm_testkit::programs::seed_bytes(seed, 100 + (seed as usize % 9) * 120);
        print!(
            "{}",
            asm::disassemble(&cvm_testkit::programs::generate(&bytes))
        );
        return;
    }
    let target = Duration::from_millis(if quick { 4 } else { 20 });
    let reps = if quick { 2 } else { 5 };
    let boards = boards();
    let backends = [Backend::Interp, Backend::Jit];

    // 1. Targeted cases.
    println!("## Targeted worst cases (ns per unit of fuel, the slowest board)\n");
    println!("| case | interp | board | jit | board |");
    println!("|---|---:|---|---:|---|");
    let mut rows: Vec<(String, f64, &str, f64, &str)> = Vec::new();
    let mut cases = reference_cases();
    cases.extend(targeted_cases());
    for case in &cases {
        if only
            .as_ref()
            .is_some_and(|o| !case.name.contains(o.as_str()))
        {
            continue;
        }
        let module = asm::assemble(&case.text)
            .unwrap_or_else(|e| panic!("{}: {e}\n{}", case.name, case.text));
        let program = Program::new(module).unwrap_or_else(|e| panic!("{}: {e}", case.name));
        let mut worst = [(0.0f64, ""); 2];
        for (b, backend) in backends.iter().enumerate() {
            let prepared = Prepared::new(program.clone(), *backend).expect("prepares");
            for (board_name, board) in &boards {
                let s = timed(&prepared, board, target, reps);
                if s.ns_per_fuel() > worst[b].0 {
                    worst[b] = (s.ns_per_fuel(), board_name);
                }
            }
        }
        println!(
            "| {} | {:.1} | {} | {:.1} | {} |",
            case.name, worst[0].0, worst[0].1, worst[1].0, worst[1].1
        );
        rows.push((
            case.name.clone(),
            worst[0].0,
            worst[0].1,
            worst[1].0,
            worst[1].1,
        ));
    }
    rows.sort_by(|a, b| b.1.max(b.3).total_cmp(&a.1.max(a.3)));
    println!("\nSlowest targeted cases:\n");
    for r in rows.iter().take(10) {
        println!(
            "- {}: {:.1} ns/unit interp ({}), {:.1} jit ({})",
            r.0, r.1, r.2, r.3, r.4
        );
    }
    if only.is_some() {
        return;
    }

    // 2. Generated programs.
    let programs = generated_programs(cvm_count, che_count);
    let fuel = 100_000u64;
    let gen_boards: Vec<(String, BoardView)> = [0u8, 2, 7, 200, 201]
        .iter()
        .map(|&s| {
            (
                format!("board {s}"),
                cvm_testkit::programs::board(s, 0x9E37_79B9 ^ u64::from(s)),
            )
        })
        .collect();
    let mut samples: Vec<(f64, usize, usize, Backend, u64)> = Vec::new();
    let min_fuel = 1_000;
    for (p, g) in programs.iter().enumerate() {
        for backend in backends {
            let Ok(prepared) = Prepared::new(g.program.clone(), backend) else {
                continue;
            };
            for (b, (_, board)) in gen_boards.iter().enumerate() {
                let s = run_once(&prepared, board, fuel);
                if s.fuel >= min_fuel {
                    samples.push((s.ns_per_fuel(), p, b, backend, s.fuel));
                }
            }
        }
    }
    // Repeat the worst ones and keep their fastest repetition.
    samples.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mut worst: Vec<(f64, usize, usize, Backend, u64)> = samples
        .iter()
        .take(30)
        .map(|&(_, p, b, backend, _)| {
            let prepared = Prepared::new(programs[p].program.clone(), backend).expect("prepares");
            let s = best_of(&prepared, &gen_boards[b].1, fuel, reps.max(5));
            (s.ns_per_fuel(), p, b, backend, s.fuel)
        })
        .collect();
    worst.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mut all: Vec<f64> = samples.iter().map(|s| s.0).collect();
    all.sort_by(|a, b| a.total_cmp(b));
    println!(
        "\n## Generated programs ({} CVM, {} Che++; {} runs with at least {min_fuel} of {fuel} fuel used)\n",
        cvm_count,
        che_count,
        all.len()
    );
    println!(
        "ns per unit of fuel: median {:.1}, 90% {:.1}, 99% {:.1}, 99.9% {:.1}, max {:.1} (single runs)\n",
        percentile(&all, 0.5),
        percentile(&all, 0.9),
        percentile(&all, 0.99),
        percentile(&all, 0.999),
        all.last().copied().unwrap_or(0.0)
    );
    println!(
        "The slowest, each the fastest of {} repetitions:\n",
        reps.max(5)
    );
    for (ns, p, b, backend, used) in worst.iter().take(10) {
        println!(
            "- {:.1} ns/unit: {} on {}, {backend}, {used} fuel",
            ns, programs[*p].name, gen_boards[*b].0
        );
    }
}
