//! Compiled Che++ programs on both backends: the bundled example advice
//! program, and every complete program (one with a `main`) that the Che++
//! test suites of `cvm` and `chess-core` write as a string literal, read
//! from those test files so that the examples are shared, not copied.
//! Each runs on several positions; results, errors, output lines, advice
//! tables and memory must agree.

mod common;

use chepp::{compile_str, examples, CompileOptions};
use cvm::Vm;
use cvm::{CollectOutput, Host, Interpreter, Limits, Program};
use cvm_chess::board::BoardView;
use jit::JitProgram;
use std::path::Path;

const FENS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r1bqkb1r/pppp1ppp/2n2n2/4p3/4P3/2NP1N2/PPP2PPP/R1BQKB1R w KQkq - 2 4",
    "rnbqkb1r/ppp2ppp/4pn2/3p4/3P4/2P1PN2/PP1N1PPP/R1BQKB1R b KQkq - 0 4",
    "8/5pk1/6p1/3P4/1P6/6P1/5K2/8 w - - 0 40",
    "8/8/4k3/3pP3/2pP4/2P5/5K2/8 w - - 0 50",
    "6k1/1R3pp1/7p/8/2Pr4/6P1/5PKP/8 b - - 3 35",
];

struct TestHost(BoardView);

impl Host for TestHost {
    fn board(&self) -> Option<&BoardView> {
        Some(&self.0)
    }
    fn game_score(&self, prev_moves: i32) -> i32 {
        prev_moves * 7 - 3
    }
}

/// Runs `main` of `program` on every position on both backends, and its
/// optimized form on both backends too, and compares everything
/// observable. Runtime errors of the optimized form compare by kind and
/// source position (their code offsets move with the code).
fn agree(name: &str, program: &Program) {
    agree_exactly(name, program);
    let (optimized, report) = cvm::opt::optimize(program);
    assert!(!report.fell_back, "{name}: optimizer fell back");
    for (generator, code) in compiled(name, &optimized) {
        agree_optimized(&format!("{name} ({generator})"), program, &optimized, &code);
    }
}

/// The optimized program on `code` against the optimized and the plain
/// program on the interpreter.
fn agree_optimized(name: &str, program: &Program, optimized: &Program, code: &JitProgram) {
    let limits = Limits {
        fuel: Some(5_000_000),
        ..Limits::default()
    };
    let mut jit = code.instance();
    let mut fast = Interpreter::new(optimized);
    let mut plain = Interpreter::new(program);
    jit.set_limits(limits);
    fast.set_limits(limits);
    plain.set_limits(limits);
    let simple = |r: Result<cvm::Completion, cvm::RuntimeError>| r.map_err(|e| (e.kind, e.pos));
    for fen in FENS {
        let b = BoardView::from_fen(fen).expect("a valid FEN");
        jit.reset();
        fast.reset();
        plain.reset();
        let mut outs = [
            CollectOutput::default(),
            CollectOutput::default(),
            CollectOutput::default(),
        ];
        let want = simple(plain.run_entry(&mut TestHost(b), &mut outs[0]));
        let r1 = simple(fast.run_entry(&mut TestHost(b), &mut outs[1]));
        let r2 = simple(jit.run_entry(&mut TestHost(b), &mut outs[2]));
        assert_eq!(r1, want, "{name} optimized, interp, on {fen}");
        assert_eq!(r2, want, "{name} optimized, jit, on {fen}");
        assert_eq!(outs[1].lines, outs[0].lines, "{name} optimized on {fen}");
        assert_eq!(
            outs[2].lines, outs[0].lines,
            "{name} optimized, jit, on {fen}"
        );
        assert!(
            fast.advice() == plain.advice(),
            "{name} optimized on {fen}: advice"
        );
        assert!(
            jit.advice() == plain.advice(),
            "{name} optimized, jit, on {fen}: advice"
        );
        assert_eq!(fast.memory(), plain.memory(), "{name} optimized on {fen}");
        assert_eq!(
            jit.memory(),
            plain.memory(),
            "{name} optimized, jit, on {fen}"
        );
        // Fuel follows the code's lengths, which the optimizer changes
        // (`docs/optimizer.md`): the optimized program charges the same on
        // both backends.
        assert_eq!(
            jit.fuel_used(),
            fast.fuel_used(),
            "{name} optimized, jit, on {fen}: fuel"
        );
    }
}

/// The program compiled by each code generator the host has.
fn compiled(name: &str, program: &Program) -> Vec<(&'static str, JitProgram)> {
    let mut codes = vec![(
        "cranelift",
        JitProgram::compile(program).unwrap_or_else(|e| panic!("{name}: {e}")),
    )];
    if jit::baseline::supported() {
        codes.push((
            "baseline",
            JitProgram::compile_baseline(program).unwrap_or_else(|e| panic!("{name}: {e}")),
        ));
    }
    codes
}

/// [`agree`] for one program: interpreter against JIT, exactly, with each
/// code generator.
fn agree_exactly(name: &str, program: &Program) {
    for (generator, code) in compiled(name, program) {
        agree_with(&format!("{name} ({generator})"), program, &code);
    }
}

fn agree_with(name: &str, program: &Program, code: &JitProgram) {
    let mut vm = code.instance();
    let mut interp = Interpreter::new(program);
    let limits = Limits {
        fuel: Some(5_000_000),
        ..Limits::default()
    };
    vm.set_limits(limits);
    interp.set_limits(limits);
    for fen in FENS {
        let b = BoardView::from_fen(fen).expect("a valid FEN");
        vm.reset();
        interp.reset();
        let (mut got, mut want) = (CollectOutput::default(), CollectOutput::default());
        let r2 = vm.run_entry(&mut TestHost(b), &mut got);
        let r1 = interp.run_entry(&mut TestHost(b), &mut want);
        assert!(vm.ran_compiled(), "{name}");
        assert_eq!(r2, r1, "{name} on {fen}");
        assert_eq!(got.lines, want.lines, "{name} on {fen}");
        assert!(vm.advice() == interp.advice(), "{name} on {fen}: advice");
        assert_eq!(vm.memory(), interp.memory(), "{name} on {fen}");
        assert_eq!(vm.fuel_used(), interp.fuel_used(), "{name} on {fen}");
    }
}

#[test]
fn the_bundled_example_program_agrees() {
    agree(examples::MAIN, &common::bundled_program());
}

/// The string literals of a Rust source file (plain literals with the
/// usual escapes; raw strings are skipped).
fn string_literals(rust: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = rust.chars().peekable();
    let mut prev = ' ';
    while let Some(c) = chars.next() {
        if c == '/' && chars.peek() == Some(&'/') {
            for d in chars.by_ref() {
                if d == '\n' {
                    break;
                }
            }
            prev = '\n';
            continue;
        }
        if c == '\'' && prev != '\\' {
            // A char literal such as '"': skip it whole.
            let mut lit = String::new();
            while let Some(&d) = chars.peek() {
                if d == '\'' || lit.len() > 3 {
                    break;
                }
                lit.push(d);
                chars.next();
            }
            if chars.peek() == Some(&'\'') {
                chars.next();
            }
            prev = '\'';
            continue;
        }
        if c == '"' && prev != 'r' && prev != '#' {
            let mut s = String::new();
            while let Some(d) = chars.next() {
                match d {
                    '"' => break,
                    '\\' => match chars.next() {
                        Some('n') => s.push('\n'),
                        Some('t') => s.push('\t'),
                        Some('\n') => {
                            while chars.peek().is_some_and(|c| c.is_whitespace()) {
                                chars.next();
                            }
                        }
                        Some(e) => s.push(e),
                        None => {}
                    },
                    _ => s.push(d),
                }
            }
            out.push(s);
            prev = '"';
            continue;
        }
        prev = c;
    }
    out
}

#[test]
fn the_che_test_suites_programs_agree() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let files = [
        "cvm/chepp/tests/che_language.rs",
        "cvm/chepp/tests/che_chess.rs",
        "cvm/chess/tests/intrinsics_style.rs",
        "chess-core/cli/tests/che_cli.rs",
        "chess-core/cli/tests/intrinsics_cli.rs",
    ];
    let mut ran = 0;
    for file in files {
        let Ok(text) = std::fs::read_to_string(root.join(file)) else {
            continue;
        };
        for (i, src) in string_literals(&text).into_iter().enumerate() {
            if !(src.contains("main()") && src.contains("begin")) {
                continue;
            }
            // Programs that are meant not to compile are skipped.
            let c = compile_str("test.che", &src, &CompileOptions::default());
            let Some(program) = c.program else { continue };
            agree(&format!("{file} literal {i}"), &program);
            ran += 1;
        }
    }
    assert!(ran >= 30, "only {ran} programs found");
}
