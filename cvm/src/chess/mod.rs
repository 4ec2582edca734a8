//! Chess inside the CVM: the encoding of Che++ chess literals as integers.
//! (The board view, the advice table and the chess intrinsics build on it.)

pub mod advice;
pub mod lit;
