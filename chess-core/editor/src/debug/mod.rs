//! The debugger core: a CVM machine that runs verified code one
//! instruction at a time ([`machine`]), and a session that runs a program
//! of any of the three languages on it under an editor's control
//! ([`session`]), or from its start to its n-th stop for a stateless
//! client such as the playground ([`replay`]).

pub mod machine;
pub mod replay;
pub mod session;

pub use machine::{Frame, Machine, Stepped};
