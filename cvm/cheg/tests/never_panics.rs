//! No input makes the front end or a run panic: arbitrary text, and
//! token soup built from CHEG's own vocabulary (which gets much further
//! into the parser and often compiles and runs).

use cheg::table::{Cond, Instr};
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

use cvm::Vm as _;

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

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
    fn well_formed_lines(lines in proptest::collection::vec((0usize..100, 0usize..100, 0usize..100, 0usize..100), 1..20)) {
        // Instruction lines with plausible arguments: these mostly compile.
        let args = ["A", "B", "LM", "PG", "WK", "WP", "BK", "X", "DEPTH", "\"1", "\"-2", "\"T", "\"(1,(2))", "\"()", "L0", "L1", "PAWN", "#CAPT", "DEEP", ""];
        let mut text = String::from("ENTRY K&P,K\n");
        for (n, (i, a, b, c)) in lines.iter().enumerate() {
            let instr = Instr::ALL[i % Instr::ALL.len()].name();
            let tag = if n < 2 { format!("L{n}:") } else { String::new() };
            text.push_str(&format!("{tag}\t{instr} {},{},{}\n", args[a % args.len()], args[b % args.len()], args[c % args.len()]));
        }
        text.push_str("END\n");
        exercise(&text);
    }
}
