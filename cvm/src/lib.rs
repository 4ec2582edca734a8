//! The Che Virtual Machine.
