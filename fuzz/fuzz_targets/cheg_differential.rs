//! Interpreter against JIT (each with and without the optimizer) on
//! generated CHEG programs (`cheg::generate::program`), for each side to
//! move: on one program the backends' reports (BREAK lines, move, value)
//! or runtime errors (kind, code offset, source position) must agree
//! exactly; optimized and plain code must agree but for error offsets.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = cheg::generate::program(data);
    let c = cheg::compile_str("gen.cheg", &text);
    let (Some(module), Some(program)) = (c.module.clone(), c.program.as_ref()) else {
        return;
    };
    let plain = match cvm::Program::new(module) {
        Ok(p) => p,
        Err(e) => panic!("CHEG compiler output does not verify: {e}\n{text}"),
    };
    let optimized = cvm::opt::optimize(&plain).0;
    for fen in [
        "8/8/8/4k3/8/8/4P3/4K3 w - - 0 1",
        "4k3/4p3/8/8/8/8/8/4K3 b - - 0 1",
    ] {
        let mut results = Vec::new();
        for backend in cvm::Backend::ALL {
            for p in [&plain, &optimized] {
                let prepared = match jit::Prepared::new(p.clone(), backend) {
                    Ok(prepared) => prepared,
                    Err(e) => panic!("{backend:?} refuses CHEG output: {e}\n{text}"),
                };
                let mut vm = prepared.instance();
                vm.set_limits(cvm::Limits {
                    fuel: Some(5_000),
                    max_depth: 64,
                });
                let Ok(position) = chess_core::Position::from_fen(fen) else {
                    return;
                };
                let mut search = cheg::search::FixedDepth { depth: 1 };
                results.push(cheg::run(&mut *vm, program, position, &mut search));
            }
        }
        // results: [interp plain, interp optimized, jit plain, jit optimized].
        // The same program on the two backends: identical, code offsets
        // included.
        assert_eq!(results[0], results[2], "backends disagree on\n{text}");
        assert_eq!(results[1], results[3], "backends disagree (optimized) on\n{text}");
        // Optimized against plain: the same outcome; the optimizer moves
        // code, so an error's offset may differ, not its kind or line.
        let without_offset = |r: &Result<cheg::Report, cheg::RunFailure>| match r {
            Ok(report) => Ok(report.clone()),
            Err(f) => Err((f.error.kind.clone(), f.error.pos.clone(), f.report.clone())),
        };
        assert_eq!(
            without_offset(&results[0]),
            without_offset(&results[1]),
            "the optimizer changed the outcome of\n{text}"
        );
    }
});
