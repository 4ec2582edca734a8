//! The loophole optimizer on generated verified programs: the optimized
//! program (default or partial rule sets) on both backends must agree with
//! the original on the interpreter in everything but error offsets (error
//! source positions must agree), and optimizing twice must too.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (knobs, bytes) = che_fuzz::split(data);
    let program = che_fuzz::cvm_program(bytes);
    let scenario = knobs.scenario();
    che_fuzz::report(
        che_fuzz::check_optimizer(&program, &scenario, knobs.options()),
        &program,
        None,
    );
});
