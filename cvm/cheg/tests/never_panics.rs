//! No input makes the front end or a run panic: arbitrary text, and
//! token soup built from CHEG's own vocabulary (which gets much further
//! into the parser and often compiles and runs).

use cheg::table::{Cond, Instr};
use chess_core::Position;
use cvm::Limits;
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
    let (Some(verified), Some(program)) = (c.program.clone(), cheg::checked(&c)) else {
        return;
    };
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
    let (Some(verified), Some(program)) = (c.program.clone(), cheg::checked(&c)) else {
        return;
    };
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
        let bytes: Vec<u8> = (0..64).map(|_| next() as u8).collect();
        let text = cheg::generate::program(&bytes);
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
    fn embedded_descriptions(text in "cheg 1\n(tags [0-9]{1,3}\n|entry [0-9 =<>é-]{0,30}\n|literal \\PC{0,12}\n){0,6}") {
        let _ = cheg::embed::parse(&text);
    }

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
    fn generated_programs(bytes in proptest::collection::vec(any::<u8>(), 0..80)) {
        let text = cheg::generate::program(&bytes);
        exercise(&text);
        differential(&text);
    }
}
