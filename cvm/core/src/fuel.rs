//! The fuel charged for straight-line code: the one place both backends
//! take the static charges of calls and backward jumps from, so that they
//! agree by construction (see `docs/cvm.md`, "Fuel").
//!
//! A call charges `1 + ⌊n / K⌋` where `n` is the callee's length in
//! instructions and `K` is [`INSTRUCTIONS_PER_UNIT`]; so does the entry of
//! the function the embedder calls. A taken jump whose target is at or
//! before it charges `1 + ⌊s / K⌋` where `s` counts the instructions from
//! the target to the jump, both included. Every instruction an activation
//! executes is then paid for: its first execution by the charge of the
//! call that started the activation, every later one by the first
//! backward jump over it taken since its previous execution. So a run
//! that spends `F` units executes fewer than `K × F` instructions (each
//! charge `c` pays for fewer than `K × c`), whatever the shape of its code.
//!
//! The charges are static: they depend on the code only, never on values,
//! and are computed once per function when a backend prepares a program
//! (`FunctionInfo::call_fuel`, `FunctionInfo::jump_fuel` and
//! `Program::charge_entry` apply these rules to verified code).
//! This module holds the rules and depends on nothing else in the crate.
//!
//! Output is charged too, so that a runaway loop that prints is bounded in
//! what it prints as well as in time: a `write` charges [`WRITE_FUEL`] and
//! a `textout` [`text_fuel`] of its text's length.

/// `K`: the instructions one unit of fuel pays for at a call or backward
/// jump, a power of two. Chosen by measurement (`benches/src/bin/fuelrate.rs`,
/// `docs/cvm.md`) so that a unit spent on straight-line code takes about
/// as long on the interpreter as a unit spent on the heaviest intrinsic.
pub const INSTRUCTIONS_PER_UNIT: u64 = 8;

/// Fuel a `write` charges before it writes its line (at most 23 bytes).
pub const WRITE_FUEL: u64 = 1;

/// The bytes of text one unit of fuel pays for at a `textout`.
pub const TEXT_BYTES_PER_UNIT: u64 = 32;

/// Fuel a `textout` of a text of `bytes` bytes charges before it writes:
/// `1 + ⌊bytes / 32⌋`, so that output, like time, is bounded by fuel (a
/// run that spends `F` units writes at most `F` lines and about `32 F`
/// bytes of text).
pub fn text_fuel(bytes: usize) -> u64 {
    1 + bytes as u64 / TEXT_BYTES_PER_UNIT
}

/// The largest budget a host service is offered
/// ([`crate::runtime::Host::extension_metered`]): 2^62 units. A run's fuel
/// left is offered as it is below this and as this above it, so that every
/// backend offers the same number (the interpreter counts unbounded fuel
/// from `u64::MAX`, compiled code from `i64::MAX`; no run spends the
/// difference) and a service that reports more than this fails the run
/// with out-of-fuel on every backend alike.
pub const HOST_BUDGET_MAX: u64 = 1 << 62;

/// The budget a `HostCall` offers its service when `left` units of fuel
/// are left after the call's own unit: `left`, capped at
/// [`HOST_BUDGET_MAX`].
pub fn host_budget(left: u64) -> u64 {
    left.min(HOST_BUDGET_MAX)
}

/// Charges what a host service reported (`reported`, `None` when it gave
/// up with out-of-fuel) from `left`, the fuel left after the call's own
/// unit: `Ok` with the fuel then left, or `Err` with the fuel left after
/// out-of-fuel, which spends the service's whole budget
/// ([`host_budget`]). The one place both backends take this rule from.
pub fn charge_host(left: u64, reported: Option<u64>) -> Result<u64, u64> {
    let budget = host_budget(left);
    match reported {
        Some(cost) if cost <= budget => Ok(left - cost),
        _ => Err(left - budget),
    }
}

/// The charge that pays for `instructions` straight-line instructions:
/// `1 + ⌊instructions / K⌋`.
pub fn length_charge(instructions: u64) -> u64 {
    1 + instructions / INSTRUCTIONS_PER_UNIT
}
