//! Shared helpers of the intrinsics tests: positions from FEN placements,
//! a test host, and compiling and running Che++ programs on a position.

#![allow(dead_code)]

use chepp::{compile_str, CompileOptions};
use cvm::Vm;
use cvm::{CollectOutput, Host, Interpreter, Program};
use cvm_chess::advice_table::AdviceTable;
use cvm_chess::board::BoardView;

/// The board view of a FEN (the placement alone will do).
pub fn board(fen: &str) -> BoardView {
    BoardView::from_fen(fen).expect("a valid FEN")
}

/// A host with a board, a score history (latest last) and style settings.
#[derive(Clone, Debug)]
pub struct TestHost {
    pub board: BoardView,
    pub scores: Vec<i32>,
    pub styles: Vec<(i32, i32)>,
}

impl TestHost {
    pub fn new(fen: &str) -> TestHost {
        TestHost {
            board: board(fen),
            scores: Vec::new(),
            styles: Vec::new(),
        }
    }
}

impl Host for TestHost {
    fn game_score(&self, prev_moves: i32) -> i32 {
        let n = self.scores.len() as i32;
        if prev_moves >= 1 && prev_moves <= n {
            self.scores[(n - prev_moves) as usize]
        } else {
            0
        }
    }

    fn board(&self) -> Option<&BoardView> {
        Some(&self.board)
    }

    fn style_default(&self, id: i32) -> i32 {
        self.styles
            .iter()
            .find(|&&(i, _)| i == id)
            .map_or(1000 + id, |&(_, v)| v)
    }
}

/// Compiles a Che++ program (which should `include stdlib.che` itself if it
/// needs it), panicking with the rendered diagnostics on failure.
pub fn compile(source: &str) -> Program {
    let c = compile_str("test.che", source, &CompileOptions::default());
    let rendered = c.render_diagnostics();
    c.program
        .unwrap_or_else(|| panic!("compile error:\n{rendered}"))
}

/// What one run produced.
#[derive(Debug)]
pub struct Run {
    /// The output lines, as `che run` prints them.
    pub lines: Vec<String>,
    /// The advice table.
    pub advice: Box<AdviceTable>,
}

/// Runs `main()` of a program on a host.
pub fn run_on(source: &str, host: &mut TestHost) -> Result<Run, String> {
    let c = compile_str("test.che", source, &CompileOptions::default());
    let rendered = c.render_diagnostics();
    let Some(program) = c.program.clone() else {
        panic!("compile error:\n{rendered}");
    };
    let mut vm = Interpreter::new(&program);
    let mut out = CollectOutput::default();
    match vm.run_entry(host, &mut out) {
        Ok(_) => Ok(Run {
            lines: out.lines.iter().map(|l| l.to_string()).collect(),
            advice: Box::new(vm.advice().clone()),
        }),
        Err(e) => Err(c.render_runtime_error(&e)),
    }
}

/// Runs `main()` of a program on the position given by a FEN.
pub fn run(source: &str, fen: &str) -> Run {
    run_on(source, &mut TestHost::new(fen)).unwrap_or_else(|e| panic!("runtime error:\n{e}"))
}

/// The values the program wrote with `write`, in order.
pub fn values(source: &str, fen: &str) -> Vec<i32> {
    run(source, fen)
        .lines
        .iter()
        .map(|l| {
            l.split(' ')
                .next()
                .and_then(|v| v.parse().ok())
                .expect("a write line")
        })
        .collect()
}

/// Wraps statements into a program with stdlib and a `main` procedure.
pub fn program(decls: &str, body: &str) -> String {
    program_with_locals(decls, "", body)
}

/// Like [`program`], with local variables of `main` (`locals` is the text
/// after `var`, e.g. `"x, y"`).
pub fn program_with_locals(decls: &str, locals: &str, body: &str) -> String {
    let vars = if locals.is_empty() {
        String::new()
    } else {
        format!("var {locals};\n")
    };
    format!("include stdlib.che\n{decls}\nprocedure main()\n{vars}begin\n{body}\nend;\n")
}

/// Square index of a square name.
pub fn sq(name: &str) -> usize {
    cvm_chess::lit::parse_square(name).expect("square") as usize
}

/// Runs `main()` of a program without a host (no board: the empty board).
pub fn run_without_host(source: &str) -> Run {
    let program = compile(source);
    let mut vm = Interpreter::new(&program);
    let mut out = CollectOutput::default();
    vm.run_entry(&mut cvm::NoHost, &mut out).expect("runs");
    Run {
        lines: out.lines.iter().map(|l| l.to_string()).collect(),
        advice: Box::new(vm.advice().clone()),
    }
}

/// Asserts two advice tables are equal, listing the differing entries.
pub fn assert_table(got: &AdviceTable, expected: &AdviceTable) {
    let mut diffs = Vec::new();
    for c in 0..2 {
        for k in 0..6 {
            for s in 0..64 {
                let (g, e) = (got.square_bonus[c][k][s], expected.square_bonus[c][k][s]);
                if g != e {
                    diffs.push(format!("square_bonus[{c}][{k}][{s}] = {g}, expected {e}"));
                }
                let (g, e) = (got.control_bonus[c][k][s], expected.control_bonus[c][k][s]);
                if g != e {
                    diffs.push(format!("control_bonus[{c}][{k}][{s}] = {g}, expected {e}"));
                }
            }
            let (g, e) = (got.piece_value[c][k], expected.piece_value[c][k]);
            if g != e {
                diffs.push(format!("piece_value[{c}][{k}] = {g}, expected {e}"));
            }
        }
        for f in 0..64 {
            for t in 0..64 {
                let (g, e) = (got.move_bonus[c][f][t], expected.move_bonus[c][f][t]);
                if g != e {
                    diffs.push(format!("move_bonus[{c}][{f}][{t}] = {g}, expected {e}"));
                }
            }
        }
    }
    if got.style != expected.style || got.style_set != expected.style_set {
        diffs.push(format!(
            "style {:?} set {:#b}, expected {:?} set {:#b}",
            got.style, got.style_set, expected.style, expected.style_set
        ));
    }
    if got.style_defaults != expected.style_defaults || got.verbose != expected.verbose {
        diffs.push("style_defaults or verbose differ".into());
    }
    assert!(
        diffs.is_empty(),
        "{} differences:\n{}",
        diffs.len(),
        diffs
            .iter()
            .take(12)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// The squares of a file (0 = a) or a rank (0 = first).
pub fn file_squares(f: usize) -> impl Iterator<Item = usize> {
    (0..8).map(move |r| r * 8 + f)
}

/// Colour, kind and square-colour indices for building expected tables.
pub const W: usize = 0;
/// Black.
pub const B: usize = 1;
/// Kinds.
pub const P: usize = 0;
pub const N: usize = 1;
pub const BI: usize = 2;
pub const R: usize = 3;
pub const Q: usize = 4;
pub const K: usize = 5;
