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
