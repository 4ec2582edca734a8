//! The `.cmp` loader and the verifier on arbitrary bytes: typed errors,
//! never a panic. A module that loads must write back to the same bytes,
//! survive the `.asm` round trip, run deterministically on the
//! interpreter, and run identically on the JIT.
#![no_main]

use cvm::Limits;
use cvm_testkit::oracle::Scenario;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(program) = cvm::load(data) else {
        return;
    };
    let written = cvm::binary::write(program.module());
    assert!(
        written == data,
        "a loaded module writes back to different bytes"
    );
    let scenario = Scenario {
        limits: Limits {
            fuel: Some(10_000),
            max_depth: 64,
        },
        board: cvm_testkit::programs::board(0, 0),
        runs: 2,
        // Modules without an entry point: call some function anyway.
        call: program
            .module()
            .entry
            .is_none()
            .then_some(data.len() as u64),
    };
    che_fuzz::report(
        cvm_testkit::oracle::check_interpreter(&program, &scenario),
        &program,
        None,
    );
    che_fuzz::report(
        che_fuzz::check_backends(
            &program,
            &scenario,
            che_fuzz::SwitchPoint::from_byte(data.last().copied().unwrap_or(0)),
        ),
        &program,
        None,
    );
});
