//! No input makes the front end or a run panic: arbitrary text, and
//! token soup built from CHEG's own vocabulary (which gets much further
//! into the parser and often compiles and runs).

use cheg::table::{Cond, Instr, Need, Slot};
use chess_core::Position;
use cvm::{Limits, Program};
use proptest::prelude::*;

fn words() -> Vec<String> {
    let mut w: Vec<String> = Instr::ALL.iter().map(|i| i.name().to_string()).collect();
    w.extend(Cond::ALL.iter().map(|c| c.name().to_string()));
    w.extend(
        [
            "ENTRY",
            "END",
            "K",
            "K&P",
            "2R",
            "QB",
            "=1",
            "<2",
            ">-1",
            "X",
            "LM",
            "PG",
            "DEPTH",
            "WK",
            "BK",
            "WP",
            "BP2",
            "SIDE",
            "A",
            "B",
            "C",
            "L1",
            "L2",
            "L1:",
            "L2:",
            "\"5",
            "\"-4",
            "\"T",
            "\"F",
            "\"()",
            "\"(1,2,(3))",
            "\"(",
            "#",
            "#DEEP",
            "DEEP",
            ",",
            ",,",
            "\t",
            " ",
            "\n",
            "\n\t",
            ";",
            "(",
            ")",
            "\"",
            ":",
            "&",
        ]
        .iter()
        .map(|s| s.to_string()),
    );
    w
}

/// Compiles `text`; when it compiles, runs it on the interpreter and the
/// JIT with a small fuel bound, on a position with pawns for each side to
/// move: nothing may panic, and both backends must report the same lines
/// and the same error (kind, offset, position).
fn differential(text: &str) {
    let c = cheg::compile_str("f.cheg", text);
    let (Some(module), Some(program)) = (c.module.clone(), c.program.as_ref()) else {
        return;
    };
    let verified = Program::new(module).expect("generated code verifies");
    for fen in [
        "8/8/8/4k3/8/8/4P3/4K3 w - - 0 1",
        "4k3/4p3/8/8/8/8/8/4K3 b - - 0 1",
    ] {
        let mut results = Vec::new();
        for backend in cvm::Backend::ALL {
            let prepared = jit::Prepared::new(verified.clone(), backend).expect("prepares");
            let mut vm = prepared.instance();
            vm.set_limits(Limits {
                fuel: Some(2_000),
                max_depth: 64,
            });
            let position = Position::from_fen(fen).expect("fen");
            let mut search = cheg::search::FixedDepth { depth: 1 };
            results.push(cheg::run(&mut *vm, program, position, &mut search));
        }
        assert_eq!(results[0], results[1], "interp and JIT disagree on\n{text}");
    }
}

/// Compiles `text`; when it compiles, runs it briefly on a position with
/// pawns. Nothing may panic; errors are fine.
fn exercise(text: &str) {
    let c = cheg::compile_str("f.cheg", text);
    let _ = c.render_diagnostics();
    let (Some(module), Some(program)) = (c.module.clone(), c.program.as_ref()) else {
        return;
    };
    let verified = Program::new(module).expect("generated code verifies");
    let mut vm = cvm::Interpreter::new(&verified);
    vm.set_limits(Limits {
        fuel: Some(2_000),
        max_depth: 64,
    });
    for fen in [
        "8/8/8/4k3/8/8/4P3/4K3 w - - 0 1",
        "4k3/4p3/8/8/8/8/8/4K3 b - - 0 1",
    ] {
        let position = Position::from_fen(fen).expect("fen");
        let mut search = cheg::search::FixedDepth { depth: 1 };
        if let Err(f) = cheg::run(&mut vm, program, position, &mut search) {
            let _ = c.render_runtime_error(&f.error);
        }
    }
}

/// A program of instruction lines whose arguments suit their positions:
/// most compile, and they run into every service.
fn generated(lines: &[(usize, Vec<usize>)]) -> String {
    let reads = [
        "A",
        "B",
        "C",
        "X",
        "\"1",
        "\"-2",
        "\"3",
        "\"T",
        "\"F",
        "\"()",
        "\"(1,(2))",
        "LM",
        "WK",
        "WP",
        "BK",
        "DEPTH",
        "PG",
    ];
    let writes = ["A", "B", "C", "SIDE"];
    let conds = [
        "", "PAWN", "#CAPT", "ODD", "DEFD", "T", "EMPTY", "KING", "SAFE", "RWK=", "OPP", "FAR",
        "#DEFD", "CHECK",
    ];
    let orders = ["", "DEEP", "#DEEP"];
    let mut text = String::from("ENTRY K&P,K\n");
    for (n, (i, picks)) in lines.iter().enumerate() {
        let instr = Instr::ALL[i % Instr::ALL.len()];
        let tag = if n < 2 {
            format!("L{n}:")
        } else {
            String::new()
        };
        let args: Vec<&str> = instr
            .slots()
            .iter()
            .zip(picks)
            .map(|(slot, &k)| match slot {
                Slot::Optional | Slot::Read(Need::Any) => reads[k % reads.len()],
                Slot::Read(need) => {
                    let pool: &[&str] = match need {
                        Need::Int => &["A", "B", "X", "\"1", "\"-2", "\"3", "DEPTH"],
                        Need::Logical => &["A", "\"T", "\"F"],
                        Need::Set => &["A", "B", "LM", "PG", "\"()", "\"(1,(2))"],
                        Need::Square | Need::Piece => &["A", "WK", "WP", "BK", "X"],
                        _ => &["A", "X"],
                    };
                    pool[k % pool.len()]
                }
                Slot::Write | Slot::Update(_) => writes[k % writes.len()],
                Slot::Tag => {
                    if k % 2 == 0 {
                        "L0"
                    } else {
                        "L1"
                    }
                }
                Slot::Cond => conds[k % conds.len()],
                Slot::Order => orders[k % orders.len()],
            })
            .collect();
        text.push_str(&format!("{tag}\t{} {}\n", instr.name(), args.join(",")));
    }
    text.push_str("END\n");
    text
}

#[test]
fn generated_programs_mostly_compile_and_agree() {
    // A fixed pseudo-random stream, so the share is stable.
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % 1000) as usize
    };
    let mut compiled = 0;
    for _ in 0..200 {
        let n = 1 + next() % 12;
        let lines: Vec<(usize, Vec<usize>)> = (0..n)
            .map(|_| (next(), vec![next(), next(), next()]))
            .collect();
        let text = generated(&lines);
        if cheg::compile_str("g.cheg", &text).is_ok() {
            compiled += 1;
        }
        exercise(&text);
        differential(&text);
    }
    eprintln!("{compiled} of 200 generated programs compile");
    assert!(
        compiled >= 150,
        "only {compiled} of 200 generated programs compile"
    );
}

use cvm::Vm as _;

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text(text in "\\PC{0,200}") {
        exercise(&text);
    }

    #[test]
    fn vocabulary_soup(picks in proptest::collection::vec(0usize..1000, 0..80)) {
        let w = words();
        let mut text = String::from("ENTRY K&P,K\n");
        for p in picks {
            text.push_str(&w[p % w.len()]);
            if p % 3 == 0 {
                text.push(' ');
            }
        }
        exercise(&text);
    }

    #[test]
    fn well_formed_lines(lines in proptest::collection::vec((0usize..1000, proptest::collection::vec(0usize..1000, 3)), 1..20)) {
        let text = generated(&lines);
        exercise(&text);
        differential(&text);
    }
}
