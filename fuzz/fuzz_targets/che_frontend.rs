//! The Che++ front end on arbitrary text: it must report errors, never
//! panic or hang; a module exactly when there is no error; whatever
//! compiles must verify and survive the optimizer (no fallback).
#![no_main]

use chepp::{compile_with, CompileOptions, MemLoader};
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let source = String::from_utf8_lossy(data);
    let loader = MemLoader::with(&[
        ("fuzz.che", &source),
        (
            "lib.che",
            "const L := 1; list LL[3] := e4 d4; procedure P(x, list l) begin write x; end;",
        ),
        // The example program, so that seeds including it get further.
        (
            "shanny.che",
            include_str!("../../cvm/chepp/examples/shanny.che"),
        ),
        (
            "midgame.che",
            include_str!("../../cvm/chepp/examples/midgame.che"),
        ),
        (
            "endgame.che",
            include_str!("../../cvm/chepp/examples/endgame.che"),
        ),
    ]);
    let c = compile_with(&loader, Path::new("fuzz.che"), &CompileOptions::default());
    let _ = c.render_diagnostics();
    assert_eq!(
        c.is_ok(),
        c.errors().next().is_none(),
        "a module exactly when there is no error"
    );
    // The builder verified the program.
    if let Some(program) = c.program {
        let (_, report) = cvm::opt::optimize(&program);
        assert!(
            !report.fell_back,
            "the optimizer fell back on compiler output"
        );
    }
});
