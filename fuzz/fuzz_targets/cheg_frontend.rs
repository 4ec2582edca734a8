//! The CHEG front end on arbitrary text: errors are reported, never a
//! panic; a module exactly when there is no error; whatever compiles
//! verifies, survives the optimizer, and runs (with a fuel bound) on a
//! position for each side to move without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let source = String::from_utf8_lossy(data);
    let c = cheg::compile_str("fuzz.cheg", &source);
    let _ = c.render_diagnostics();
    assert_eq!(
        c.is_ok(),
        c.errors().next().is_none(),
        "a module exactly when there is no error"
    );
    // The builder verified the program.
    let (Some(verified), Some(program)) = (c.program.clone(), cheg::checked(&c)) else {
        return;
    };
    let (optimized, report) = cvm::opt::optimize(&verified);
    assert!(!report.fell_back, "the optimizer fell back on CHEG output");
    for fen in [
        "8/8/8/4k3/8/8/4P3/4K3 w - - 0 1",
        "4k3/4p3/8/8/8/8/8/4K3 b - - 0 1",
    ] {
        let mut vm = cvm::Interpreter::new(&optimized);
        cvm::Vm::set_limits(
            &mut vm,
            cvm::Limits {
                fuel: Some(10_000),
                max_depth: 100,
            },
        );
        let Ok(position) = chess_core::Position::from_fen(fen) else {
            return;
        };
        let mut search = cheg::search::FixedDepth { depth: 1 };
        if let Err(f) = cheg::run(&mut vm, program, position, &mut search) {
            let _ = c.render_runtime_error(&f.error);
        }
    }
});
