//! What the Che test suites share: compiling, running on every backend
//! with and without the optimizer, reading the oracle data.
#![allow(dead_code)]

use cvm::runtime::{Limits, NullOutput};
use cvm::verify::Program;
use cvm::Backend;
use cvm_chess::advice_table::AdviceTable;
use cvm_chess::board::BoardView;
use cvm_testkit::oracle::ScenarioHost;
use jit::Prepared;
use std::path::Path;

/// Every backend, unoptimized and optimized.
pub const CONFIGS: [(Backend, bool); 4] = [
    (Backend::Interp, false),
    (Backend::Interp, true),
    (Backend::Jit, false),
    (Backend::Jit, true),
];

/// Compiles a Che program from memory (other files may be given too);
/// panics with the diagnostics when it does not compile.
pub fn compile_files(files: &[(&str, &str)]) -> Program {
    let loader = che3::MemLoader::with(files);
    let c = che3::compile_with(
        &loader,
        Path::new(files[0].0),
        &che3::CompileOptions::default(),
    );
    match c.program {
        Some(p) => p,
        None => panic!("does not compile:\n{}", c.render_diagnostics()),
    }
}

/// Compiles one Che source text.
pub fn compile(source: &str) -> Program {
    compile_files(&[("test.che3", source)])
}

/// The program prepared for one configuration.
pub fn prepare(program: &Program, backend: Backend, optimize: bool) -> Prepared {
    let program = if optimize {
        cvm::opt::optimize(program).0
    } else {
        program.clone()
    };
    Prepared::new(program, backend).expect("prepares")
}

/// Runs `main()` on `board` in every configuration; they must agree.
pub fn advice(program: &Program, board: &BoardView) -> AdviceTable {
    let mut first: Option<AdviceTable> = None;
    for (backend, optimize) in CONFIGS {
        let prepared = prepare(program, backend, optimize);
        let mut vm = prepared.instance();
        vm.set_limits(Limits {
            fuel: Some(10_000_000),
            ..Limits::default()
        });
        let mut host = ScenarioHost { board: *board };
        vm.run_entry(&mut host, &mut NullOutput)
            .unwrap_or_else(|e| panic!("{backend} optimized {optimize}: {e}"));
        match &first {
            None => first = Some(vm.advice().clone()),
            Some(t) => assert!(
                t == vm.advice(),
                "{backend} optimized {optimize} differs: {:?}",
                cvm_testkit::che3_programs::table_difference(t, vm.advice())
            ),
        }
    }
    first.unwrap_or_default()
}

/// Runs `main()` of a Che source on a FEN in every configuration.
pub fn advice_of(source: &str, fen: &str) -> AdviceTable {
    advice(&compile(source), &BoardView::from_fen(fen).expect("FEN"))
}

/// The start position.
pub const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// The square number of a name (`a1` = 0).
pub fn sq(name: &str) -> usize {
    cvm_chess::lit::parse_square(name).expect("square") as usize
}

/// Every non-zero entry of a table: (table name, colour, kind or from, square).
pub fn entries(t: &AdviceTable) -> Vec<(&'static str, usize, usize, usize, i32)> {
    let mut out = Vec::new();
    for c in 0..2 {
        for k in 0..6 {
            for s in 0..64 {
                if t.square_bonus[c][k][s] != 0 {
                    out.push(("square", c, k, s, t.square_bonus[c][k][s]));
                }
                if t.control_bonus[c][k][s] != 0 {
                    out.push(("control", c, k, s, t.control_bonus[c][k][s]));
                }
            }
            if t.piece_value[c][k] != 0 {
                out.push(("piece", c, k, 0, t.piece_value[c][k]));
            }
        }
        for f in 0..64 {
            for s in 0..64 {
                if t.move_bonus[c][f][s] != 0 {
                    out.push(("move", c, f, s, t.move_bonus[c][f][s]));
                }
            }
        }
    }
    out
}
