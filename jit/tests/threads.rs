//! Compiling on several threads (`docs/jit.md`, "Compiling on several
//! threads"): the functions of a program are lowered and compiled side by
//! side, and the module places their code in function order, so the
//! machine code, the figures and the errors are those of a compilation on
//! one thread. One test in this file: the thread setting is process-wide.

mod common;

use cvm::{CollectOutput, Host, Program, Vm};
use cvm_chess::board::BoardView;
use jit::{set_compile_threads, JitProgram};

struct Board(BoardView);

impl Host for Board {
    fn board(&self) -> Option<&BoardView> {
        Some(&self.0)
    }
}

fn bundled() -> Program {
    cvm::opt::optimize(&common::bundled_program()).0
}

/// Every function's machine code and the compilation's figures, on
/// `threads` threads.
fn compiled(program: &Program, threads: usize) -> (Vec<(String, Vec<u8>)>, jit::CompileStats) {
    set_compile_threads(threads);
    let (jit, listing) = JitProgram::compile_with_listing(program).expect("compiles");
    let code = listing.into_iter().map(|l| (l.name, l.bytes)).collect();
    let mut stats = jit.stats();
    stats.duration = Default::default();
    (code, stats)
}

#[test]
fn several_threads_make_the_code_one_thread_makes() {
    let program = bundled();
    assert!(
        program.module().functions.len() >= 8,
        "the program should have functions enough to share out"
    );
    let (one, one_stats) = compiled(&program, 1);
    for threads in [2, 3, 8] {
        let (many, many_stats) = compiled(&program, threads);
        assert_eq!(one, many, "machine code on {threads} threads");
        assert_eq!(one_stats, many_stats, "figures on {threads} threads");
    }
    // And the code runs: `main()` gives the same result and output.
    let run = |threads| {
        set_compile_threads(threads);
        let jit = JitProgram::compile(&program).expect("compiles");
        let mut vm = jit.instance();
        let mut host = Board(
            BoardView::from_fen(
                "r1bqkb1r/pppp1ppp/2n2n2/4p3/4P3/2NP1N2/PPP2PPP/R1BQKB1R w KQkq - 2 4",
            )
            .expect("a legal position"),
        );
        let mut out = CollectOutput::default();
        let result = vm.run_entry(&mut host, &mut out);
        (format!("{result:?}"), out, vm.fuel_used())
    };
    assert_eq!(run(1), run(4));
    set_compile_threads(0);
}
