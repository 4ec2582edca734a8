//! The baseline code generator: CVM functions to x86-64 machine code in one
//! pass, without Cranelift.
//!
//! Cranelift makes fast code but costs milliseconds per program
//! (`docs/benchmarks.md`, "Where JIT compile time goes"). This generator
//! emits a template per CVM instruction in one pass, as a first tier does.
//! The frame slots and the operand stack have fixed words in the native
//! frame (the verifier gives the stack depth before every instruction, so
//! stack slot `k` is a fixed frame address), and between jump targets the
//! pass keeps the top of the stack out of those words: a pushed constant
//! or frame slot is only noted, a result stays in one of three registers,
//! and the instruction that consumes them reads them as immediates,
//! frame operands or registers. At jump targets, before jumps, calls and
//! the templates that address the stack, the held values are stored, so
//! every path into an instruction sees the same layout (the one the
//! entries for on-stack replacement load). Runs of `enter` and `fuel`,
//! and a back edge together with such a run at its target, check the
//! deepest depth and the summed fuel at once, and redo the checks one by
//! one out of line when that fails, so errors and fuel stay exact.
//!
//! The code keeps every contract of the Cranelift lowering (`lower/mod.rs`),
//! so the rest of the JIT needs no change and the two kinds of code can
//! call each other:
//!
//! - the signature `(ctx, fuel: i64, depth_left: i32, args: i32...) ->
//!   (value: i32, fuel: i64)` in the System V calling convention (`ctx` in
//!   `rdi`, fuel in `rsi`, `depth_left` in `edx`, the first three
//!   arguments in `ecx`, `r8d`, `r9d`, the others on the stack, one
//!   eight-byte slot each; the value comes back in `eax`, the fuel or a
//!   negative status in `rdx`);
//! - errors record their kind, the CVM code offset, the payload and the
//!   fuel left in the `Context` and return
//!   `STATUS_TRAP`; `halt` returns `STATUS_HALT`; a callee's negative
//!   status is returned on at once;
//! - fuel and depth are checked where the interpreter checks them: depth
//!   then fuel at a call and at `enter`/`enter.f`, fuel at every taken jump
//!   to an instruction at or before the jump, at `fuel`, `write` and text
//!   output; the intrinsic and pattern shims charge their own cost;
//! - list layouts come from the program's initial memory, as in the
//!   Cranelift code, so the same memory check at instance creation covers
//!   both.
//!
//! Inside a function, callee-saved registers hold the run's state: `rbx`
//! the context, `r12` the fuel, `r13d` the depth left, and `r14` the list
//! heap in functions that touch lists; `r11d`, `esi` and `edi` hold
//! operand-stack values. The frame
//! (below the saved registers, 16-byte aligned) holds, from `rsp` up: the
//! outgoing stack arguments of calls, the frame slots, the operand stack.
//!
//! Only x86-64 has this generator; elsewhere [`supported`] is false and the
//! JIT compiles with Cranelift only.

#[cfg(target_arch = "x86_64")]
mod x64;

#[cfg(target_arch = "x86_64")]
pub(crate) use x64::{compile_function, Target};

/// Whether this host has the baseline code generator.
pub const fn supported() -> bool {
    cfg!(target_arch = "x86_64")
}
