//! # Test tooling for the CVM and its front ends
//!
//! What the test suites, the benchmarks and the fuzz targets share, kept out
//! of the VM core so that a user who runs `.cmp` files compiles none of it:
//!
//! | module | job |
//! |--------|-----|
//! | [`programs`] | random *valid* CVM modules and chess positions from a byte string |
//! | [`chepp_programs`] | random Che++ programs that compile, from a byte string |
//! | [`che3_programs`] | random Che (Nimzo 3) programs that compile, and the direct-against-converted check |
//! | [`oracle`] | differential oracles: run a program on several backends and compare everything |
//! | [`cheg_oracle`] | the differential oracle for CHEG programs (backends, optimizer under fuel) |
//! | [`conformance`] | the backend-neutral conformance harness (`.asm` cases with `;!` expectations) |
//! | [`hosts`] | hosts for tests of how a backend reads the host (a position that moves mid-run) |
//! | [`profile`] | opcode, pair and triple execution counts, for choosing superinstructions |
//!
//! The generators take plain bytes (not `arbitrary::Unstructured`), so the
//! crate needs no fuzzing dependency; the nightly fuzz targets and the
//! stable property tests feed them the same way.
//!
//! ```
//! use cvm::Program;
//! use cvm_testkit::programs;
//!
//! // Every module the generator returns verifies.
//! let module = programs::generate(&[7, 1, 2, 3, 200, 9]);
//! assert!(Program::new(module).is_ok());
//! ```

#![deny(missing_docs)]

pub mod che3_programs;
pub mod cheg_oracle;
pub mod chepp_programs;
pub mod conformance;
pub mod hosts;
pub mod oracle;
pub mod profile;
pub mod programs;
