//! Interpreter against JIT on generated verified programs: results (or
//! error kind and code offset), output, fuel, memory and advice tables
//! must agree exactly, depth-limit errors included.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (knobs, bytes) = che_fuzz::split(data);
    let program = che_fuzz::cvm_program(bytes);
    let scenario = knobs.scenario();
    che_fuzz::report(
        che_fuzz::check_backends(&program, &scenario, knobs.switch_point()),
        &program,
        None,
    );
});
