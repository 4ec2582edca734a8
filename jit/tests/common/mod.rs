//! Helpers shared by the JIT's integration tests.

#![allow(dead_code)]

use cvm::asm::assemble;
use cvm::Backend;
use cvm::Vm;
use cvm::{Limits, NoHost, NullOutput, Program};
use cvm_testkit::oracle::{check_backends, Scenario};
use jit::{JitProgram, LoopEntries};

/// Assembles and verifies `src`, giving every instruction line a source
/// position of its own (as compiled Che++ has), so that error positions
/// are compared too.
pub fn program(src: &str) -> Program {
    let mut text = String::from(".file \"t.che\"\n");
    let mut line = 0;
    for l in src.lines() {
        let t = l.trim_start();
        if !t.is_empty() && !t.starts_with('.') && !t.ends_with(':') && !t.starts_with(';') {
            line += 1;
            text.push_str(&format!("    .loc 0 {line} 1\n"));
        }
        text.push_str(l);
        text.push('\n');
    }
    Program::new(assemble(&text).unwrap_or_else(|e| panic!("{e}\n{text}")))
        .unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// The scenario of a sweep: the entry point, twice on one instance.
pub fn scenario(depth: u32, fuel: Option<u64>) -> Scenario {
    Scenario {
        limits: Limits {
            fuel,
            max_depth: depth,
        },
        board: cvm_testkit::programs::board(0, 0),
        runs: 2,
        call: None,
    }
}

/// Runs the entry point of `p` on the interpreter and the JIT under every
/// depth limit in `depths` and every fuel in `fuels` (`None`: unbounded)
/// and panics unless they agree exactly: result or error kind, code
/// offset and source position, output, fuel used, memory. Returns how the
/// JIT's runs entered counted loops, summed over the sweep.
pub fn sweep(p: &Program, depths: &[u32], fuels: &[Option<u64>]) -> LoopEntries {
    let jit = JitProgram::compile(p).expect("compiles");
    let mut total = LoopEntries::default();
    for &depth in depths {
        for &fuel in fuels {
            let s = scenario(depth, fuel);
            let backends = Backend::ALL;
            check_backends(p, &s, &backends).unwrap_or_else(|e| {
                panic!(
                    "depth {depth}, fuel {fuel:?}: {e}\n{}",
                    cvm::asm::disassemble(p.module())
                )
            });
            let mut vm = jit.instance();
            vm.set_limits(s.limits);
            for _ in 0..s.runs {
                let _ = vm.run_entry(&mut NoHost, &mut NullOutput);
                let e = vm.loop_entries();
                total.fast += e.fast;
                total.checked += e.checked;
            }
        }
    }
    total
}

/// The bundled example advice program (`chepp::examples::MAIN`), compiled
/// and verified, not optimized.
pub fn bundled_program() -> Program {
    let c = chepp::compile_with(
        &chepp::examples::loader(),
        std::path::Path::new(chepp::examples::MAIN),
        &chepp::CompileOptions::default(),
    );
    c.program
        .clone()
        .unwrap_or_else(|| panic!("{}", c.render_diagnostics()))
}

/// A xorshift generator: the tests' random programs and boards, the same
/// on every run.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number below `n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// One of `items`.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize]
    }
}

/// A random board view: sparse piece sets, sometimes empty, sometimes
/// crowded, pieces of different kinds may share squares.
pub fn random_board(rng: &mut Rng) -> cvm_chess::board::BoardView {
    let mut b = cvm_chess::board::BoardView::EMPTY;
    for c in 0..2 {
        for k in 0..6 {
            b.pieces[c][k] = match rng.below(4) {
                0 => 0,
                1 => rng.next() & rng.next() & rng.next(),
                2 => 1 << rng.below(64),
                _ => rng.next() & rng.next(),
            };
        }
    }
    b.side_to_move = rng.below(2) as u32;
    b
}
