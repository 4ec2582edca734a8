//! Interpreter against JIT (each with and without the optimizer) on
//! generated CHEG programs (`cheg::generate::program`), for each side to
//! move, by `cvm_testkit::cheg_oracle::check`: on one program the backends'
//! reports (BREAK lines, move, value) or runtime errors (kind, code offset,
//! source position) must agree exactly; optimized and plain code must agree
//! but for error offsets, and where fuel runs out, as a prefix.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = cheg::generate::program(data);
    if let Err(e) = cvm_testkit::cheg_oracle::check(&text) {
        panic!("{e}");
    }
});
