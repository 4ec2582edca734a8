//! The debugger core: a CVM machine that runs verified code one
//! instruction at a time ([`machine`]), and a session that runs a program
//! of any of the three languages on it under an editor's control
//! ([`session`]).

pub mod machine;
pub mod session;

pub use machine::{Frame, Machine, Stepped};
