//! The interpreter on generated verified programs (every opcode, loops,
//! calls, recursion, lists, intrinsics on real and random positions) under
//! fuel and depth limits: a result or a typed error, never a panic; the
//! `.cmp` and `.asm` round trips hold; runs are deterministic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (knobs, bytes) = che_fuzz::split(data);
    let program = che_fuzz::cvm_program(bytes);
    let scenario = knobs.scenario();
    che_fuzz::report(
        cvm_testkit::oracle::check_interpreter(&program, &scenario),
        &program,
        None,
    );
});
