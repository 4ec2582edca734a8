//! Generated Che++ programs (structured: every declaration, statement,
//! operator, chess literal kind and intrinsic) compiled, then run on the
//! interpreter and the JIT, unoptimized and optimized, on a position:
//! every run must agree with the unoptimized interpreter run.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (knobs, bytes) = che_fuzz::split(data);
    let (source, program) = che_fuzz::che_program(bytes);
    let scenario = knobs.scenario();
    che_fuzz::report(
        che_fuzz::check_backends(&program, &scenario, knobs.switch_point()),
        &program,
        Some(&source),
    );
    che_fuzz::report(
        che_fuzz::check_optimizer(&program, &scenario, knobs.options()),
        &program,
        Some(&source),
    );
});
