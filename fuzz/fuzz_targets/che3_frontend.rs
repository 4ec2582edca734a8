//! The Che (Nimzo 3) front end. An input starting with an even byte is
//! text: the front end must report errors, never panic; a module exactly
//! when there is no error; what compiles verifies and converts to Che++
//! that compiles without a diagnostic. An input starting with an odd byte
//! drives the Che program generator: the direct compilation and the
//! converted Che++ must leave the same advice table on the knobs' position,
//! on the backend and optimizer setting the knobs choose (one per input;
//! every backend, with and without the optimizer, across inputs).
#![no_main]

use cvm_testkit::che3_programs;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    if mode % 2 == 0 {
        let source = String::from_utf8_lossy(rest);
        if let Err(e) = che3_programs::check_front_end(&source) {
            panic!("{e}\n--- source ---\n{source}");
        }
    } else {
        let (knobs, bytes) = che_fuzz::split(rest);
        let source = che3_programs::generate(bytes);
        let board = knobs.scenario().board;
        // The mode byte's other bits choose the run: optimized or not (bit
        // 1), the backend (the bits above).
        let backends = cvm::Backend::ALL;
        let backend = backends[usize::from(mode >> 2) % backends.len()];
        let run = [(backend, mode & 2 != 0)];
        if let Err(e) = che3_programs::check_conversion_on(&source, &board, &run) {
            panic!("{e}\n--- source ---\n{source}");
        }
    }
});
