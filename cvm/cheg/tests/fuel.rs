//! Fuel for the runtime's work: the services report what their work costs
//! (`Host::extension_metered`, docs/cheg.md "Fuel"), both backends and the
//! tiered one charge it identically, and a loop over an expensive service
//! runs out of fuel in proportion to that work.
//!
//! `cargo test -p cheg --test fuel -- --ignored --nocapture` prints the
//! time of loops over expensive services with a fuel limit, with the
//! services charging for their work and charging one unit a call as
//! before (the numbers in docs/cheg.md).

use chess_core::Position;
use cvm::{Backend, CollectOutput, Host, Limits, Program, TrapKind};
use std::time::{Duration, Instant};

/// King and queen against king: 22 legal moves.
const KQK: &str = "8/8/8/4k3/8/8/8/1Q2K3 w - - 0 1";

/// How a run ended: the BREAK lines, the error (kind and code offset) if
/// any, and the fuel used.
#[derive(Debug, PartialEq, Eq)]
struct Ran {
    breaks: Vec<String>,
    error: Option<(TrapKind, u32)>,
    fuel_used: u64,
}

/// A host that charges one unit a service, as every `HostCall` did before
/// services could report their work: it answers through
/// `Host::extension`, whose default metered form reports nothing.
struct Flat<'a>(cheg::ChegHost<'a>);

impl Host for Flat<'_> {
    fn extension(&mut self, service: i32, args: [i32; 3]) -> Result<i32, TrapKind> {
        self.0.extension(service, args)
    }
}

fn compile(src: &str) -> (cheg::ast::Program, Program) {
    let c = cheg::compile_str("t.cheg", src);
    assert!(c.is_ok(), "compile errors:\n{}", c.render_diagnostics());
    let checked = cheg::checked(&c).expect("program").clone();
    (checked, c.program.expect("verifies"))
}

/// Runs `src` on `fen` with `fuel` on `backend`; `flat` charges one unit
/// a service.
fn run(src: &str, fen: &str, fuel: u64, backend: Backend, flat: bool) -> (Ran, Duration) {
    let (ast, program) = compile(src);
    let prepared = jit::Prepared::new(program, backend).expect("backend prepares");
    let mut vm = prepared.instance();
    vm.set_limits(Limits {
        fuel: Some(fuel),
        ..Limits::default()
    });
    let position = Position::from_fen(fen).expect("test FEN");
    let mut search = cheg::search::FixedDepth { depth: 2 };
    let mut host = cheg::ChegHost::new(&ast, position, &mut search);
    let mut out = CollectOutput::default();
    vm.reset();
    let start = Instant::now();
    let result = if flat {
        let mut flat = Flat(host);
        let r = vm.run_entry(&mut flat, &mut out);
        host = flat.0;
        r
    } else {
        vm.run_entry(&mut host, &mut out)
    };
    let time = start.elapsed();
    let ran = Ran {
        breaks: host.report().breaks.clone(),
        error: result.err().map(|e| (e.kind, e.offset)),
        fuel_used: vm.fuel_used(),
    };
    (ran, time)
}

/// Runs on the interpreter, the JIT and the tiered backend, which must
/// agree on everything, fuel included.
fn run_everywhere(src: &str, fen: &str, fuel: u64) -> Ran {
    let (interp, _) = run(src, fen, fuel, Backend::Interp, false);
    for backend in [Backend::Jit, Backend::Auto] {
        let (other, _) = run(src, fen, fuel, backend, false);
        assert_eq!(other, interp, "{backend} differs from the interpreter");
    }
    interp
}

/// The fuel a straight-line program uses, run to its end.
fn fuel_of(src: &str) -> u64 {
    let ran = run_everywhere(src, KQK, 1 << 40);
    assert_eq!(ran.error, None, "{src}");
    ran.fuel_used
}

/// A program that sets A to LM twice over (44 moves), B to (1,2,3) and N
/// to 1, then runs `instr`, whose arguments are variables: the code is
/// the same length whatever the instruction.
fn one(instr: &str) -> String {
    format!(
        "ENTRY Q,K\n\tSETV A,LM\n\tAPPEND A,A,A\n\tSETV B,\"(1,2,3)\n\tSETV N,\"1\n\t{instr}\n\tLEAVE\nEND\n"
    )
}

#[test]
fn services_charge_for_their_work_by_the_table() {
    // The same code with a constant-time service (ADD) in place of the set
    // operation: the difference is what the set operation reports.
    let base = fuel_of(&one("ADD C,N,N"));
    // Every service counts 8 steps besides its work (ADD no more: 2
    // units); four steps make a unit.
    let units = |work: u64| (8 + work) / 4 - 2;
    // A = LM twice over: 44 moves. UNION A,A: 44 copied, and for each of
    // the 44 one step plus the comparisons up to its first copy (1 to 22,
    // twice): 44 + 44 + 2 x 253 = 594 steps.
    assert_eq!(fuel_of(&one("UNION C,A,A")) - base, units(594));
    // INTERS A,B: the 44 moves against three integers, never equal: 44 x
    // (1 + 3) = 176 steps.
    assert_eq!(fuel_of(&one("INTERS C,A,B")) - base, units(176));
    // APPEND A,A: 88 copied.
    assert_eq!(fuel_of(&one("APPEND C,A,A")) - base, units(88));
    // MEMBER of N in B: found at the first comparison, within the 2 units of ADD.
    assert_eq!(fuel_of(&one("MEMBER C,N,B")), base);
    // MEMBER of N in A: 44 comparisons.
    assert_eq!(fuel_of(&one("MEMBER C,N,A")) - base, units(44));
}

/// A loop over INTERS of a 352-element set of moves with a 300-element
/// set of integers: 352 x 301 steps, 26,490 units an iteration.
const INTERS_LOOP: &str = "\
ENTRY Q,K
\tSETV R,\"()
\tSETV N,\"0
B:\tADD N,N,\"1
\tPAIR P,N,N
\tAPPEND R,R,P
\tJUMP< N,\"150,B
\tAPPEND S,LM,LM
\tAPPEND S,S,S
\tAPPEND S,S,S
\tAPPEND S,S,S
\tSETV I,\"0
L:\tINTERS T,S,R
\tADD I,I,\"1
\tBREAK I
\tJUMP= \"1,\"1,L
END
";

#[test]
fn running_out_at_a_host_charge_is_the_same_everywhere() {
    // Every fuel from a few units to several iterations: the run stops at
    // the same instruction with the same fuel used and the same BREAK
    // lines on every backend.
    for fuel in [5, 60, 400, 2_000, 26_000, 28_000, 60_000, 200_000] {
        let ran = run_everywhere(INTERS_LOOP, KQK, fuel);
        let (kind, _) = ran.error.clone().expect("the loop runs out");
        assert_eq!(kind, TrapKind::OutOfFuel);
        // Each iteration costs at least the INTERS's 26,490 units.
        assert!(
            ran.breaks.len() as u64 <= fuel / 26_490,
            "{fuel}: {}",
            ran.breaks.len()
        );
    }
}

#[test]
fn a_try_loop_charges_for_the_search() {
    let src =
        "ENTRY Q,K\n\tSETV I,\"0\nL:\tTRY LM\n\tADD I,I,\"1\n\tBREAK I\n\tJUMP= \"1,\"1,L\nEND\n";
    let ran = run_everywhere(src, KQK, 100_000);
    assert_eq!(ran.error.map(|(k, _)| k), Some(TrapKind::OutOfFuel));
    // 22 moves, each a search of depth 2 (the position after the move and
    // Black's replies, at least 3 positions): at least 22 x (32 + 3 x 32)
    // steps, 704 units, an iteration.
    assert!(
        !ran.breaks.is_empty() && ran.breaks.len() <= 100_000 / 704,
        "{}",
        ran.breaks.len()
    );
}

/// Times loops over expensive services with 1,000,000 units of fuel,
/// charging for the work and charging a unit a service (as before).
#[test]
#[ignore = "a measurement: run with --ignored --nocapture"]
fn measure_loops_over_expensive_services() {
    let try_loop =
        "ENTRY Q,K\n\tSETV I,\"0\nL:\tTRY LM\n\tADD I,I,\"1\n\tBREAK I\n\tJUMP= \"1,\"1,L\nEND\n";
    let member_loop = "ENTRY Q,K\n\tAPPEND S,LM,LM\n\tAPPEND S,S,S\n\tAPPEND S,S,S\n\tAPPEND S,S,S\n\tSETV I,\"0\nL:\tMEMBER T,\"5,S\n\tADD I,I,\"1\n\tBREAK I\n\tJUMP= \"1,\"1,L\nEND\n";
    let plain_loop =
        "ENTRY Q,K\n\tSETV I,\"0\nL:\tADD I,I,\"1\n\tBREAK I\n\tJUMP= \"1,\"1,L\nEND\n";
    let fuel = 1_000_000;
    println!("| loop | backend | charging | iterations | fuel used | time | ns per unit |");
    println!("|---|---|---|---:|---:|---:|---:|");
    for (name, src) in [
        ("INTERS of 352 moves with 300 integers", INTERS_LOOP),
        ("TRY LM (22 moves, depth 2)", try_loop),
        ("MEMBER of an integer in 352 moves", member_loop),
        ("ADD and BREAK only", plain_loop),
    ] {
        for backend in [Backend::Interp, Backend::Jit] {
            for flat in [true, false] {
                let mut best: Option<(Ran, Duration)> = None;
                for _ in 0..3 {
                    let (ran, time) = run(src, KQK, fuel, backend, flat);
                    if best.as_ref().is_none_or(|(_, t)| time < *t) {
                        best = Some((ran, time));
                    }
                }
                let Some((ran, time)) = best else { continue };
                println!(
                    "| {name} | {backend} | {} | {} | {} | {:.3} s | {:.1} |",
                    if flat {
                        "1 a service (before)"
                    } else {
                        "reported (after)"
                    },
                    ran.breaks.len(),
                    ran.fuel_used,
                    time.as_secs_f64(),
                    time.as_nanos() as f64 / ran.fuel_used.max(1) as f64
                );
            }
        }
    }
}
