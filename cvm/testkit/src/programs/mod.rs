//! Generators of random *valid* inputs, driven by a byte string: CVM
//! modules ([`generate`]) and chess positions ([`board`]). The Che++ source
//! generator, which shares the byte reader and the chess values, is
//! [`crate::chepp_programs`].
//!
//! Fuzz targets and property tests need programs that pass the verifier and
//! then exercise the backends: loops, calls and recursion, lists, globals,
//! switches, for-in, every intrinsic with arguments of the right chess
//! kinds, the fused instructions the optimizer makes, early returns, output
//! and halts. Feeding random words to the verifier almost never produces
//! such programs, so this module builds them structurally, tracking the
//! operand stack as it emits code, and every module it returns verifies.
//! Every opcode of [`cvm::isa::OPCODES`] and every intrinsic appears over
//! a sweep of inputs (a test checks it).
//!
//! The same bytes always give the same module, so a fuzzer's corpus entry
//! or a proptest seed reproduces a case exactly. When the bytes run out the
//! generator keeps going with zeros, which choose the simplest option
//! everywhere, so generation always terminates. The generators take plain
//! bytes rather than an `arbitrary::Unstructured` so that this crate needs
//! no fuzzing dependency; a fuzz target hands them the bytes it has left
//! after decoding its own parameters.
//!
//! Programs may loop or recurse without bound; run them with a fuel limit
//! and a depth limit.

mod board;
mod chess;
mod code;

pub use board::{board, POSITIONS};
pub(crate) use chess::{literal_name, valid as chess_valid, value as chess_value};

use code::{Ctx, ListInfo, Sig};
use cvm::builder::ModuleBuilder;
use cvm::isa::Opcode;
use cvm::module::Module;
use cvm_chess::lit::LitKind;

/// Reads choices from a byte string; past its end every choice reads 0.
pub(crate) struct Bytes<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Bytes<'a> {
    /// A reader at the start of `data`.
    pub(crate) fn new(data: &'a [u8]) -> Bytes<'a> {
        Bytes { data, pos: 0 }
    }

    /// The next byte (0 past the end).
    pub(crate) fn byte(&mut self) -> u8 {
        let b = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        b
    }

    /// A number below `n` (0 for `n` = 0).
    pub(crate) fn below(&mut self, n: u32) -> u32 {
        let v = if n <= 256 {
            u32::from(self.byte())
        } else {
            u32::from_le_bytes([self.byte(), self.byte(), self.byte(), self.byte()])
        };
        v % n.max(1)
    }

    /// True with roughly the given probability.
    pub(crate) fn chance(&mut self, percent: u32) -> bool {
        self.below(100) < percent
    }

    /// One of `items` (which must not be empty).
    pub(crate) fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u32) as usize]
    }

    /// An immediate: mostly small, sometimes an extreme value.
    pub(crate) fn imm(&mut self) -> i32 {
        match self.below(8) {
            0 => i32::MIN,
            1 => i32::MAX,
            2 => -1,
            3 => self.below(65536) as i32 - 32768,
            _ => self.below(16) as i32 - 4,
        }
    }

    /// A full 32-bit word.
    pub(crate) fn word(&mut self) -> u32 {
        u32::from_le_bytes([self.byte(), self.byte(), self.byte(), self.byte()])
    }

    /// True once every byte has been read.
    pub(crate) fn exhausted(&self) -> bool {
        self.pos >= self.data.len()
    }
}

const MAX_FUNCS: u32 = 5;

/// The element kinds a pattern list can hold (every list kind of an
/// intrinsic parameter).
const PATTERN_KINDS: [LitKind; 6] = [
    LitKind::Square,
    LitKind::Move,
    LitKind::Column,
    LitKind::BoardSide,
    LitKind::Piece,
    LitKind::SquareColour,
];

/// Builds a valid module from `data`. The module's entry point is `main`, a
/// function without parameters.
///
/// Besides ordinary lists, which the program reads and writes, a module
/// may have *pattern lists* of chess values that the program only reads
/// and passes to read-only intrinsic parameters, so that the optimizer and
/// the JIT can treat them as constants (square masks, inlined patterns).
/// Most modules carry a line table, so that runtime errors have source
/// positions to compare.
pub fn generate(data: &[u8]) -> Module {
    let mut bytes = Bytes::new(data);
    let mut b = ModuleBuilder::new();
    let globals = 1 + bytes.below(3);
    for g in 0..globals {
        let init = bytes.imm();
        // Names are fresh, so the builder cannot refuse them.
        let _ = b.global(&format!("g{g}"), init);
    }
    let mut lists = Vec::new();
    let general = 1 + bytes.below(3);
    for l in 0..general {
        let capacity = bytes.below(9);
        let n = bytes.below(capacity + 1);
        let kind = bytes.pick(&PATTERN_KINDS);
        let init = (0..n)
            .map(|_| {
                if bytes.chance(50) {
                    chess_value(&mut bytes, kind)
                } else {
                    bytes.imm()
                }
            })
            .collect();
        if let Ok(id) = b.list(&format!("l{l}"), capacity, init) {
            lists.push(ListInfo {
                id,
                kind: None,
                general: true,
                fill: false,
            });
        }
    }
    let patterns = bytes.below(4);
    for l in 0..patterns {
        let kind = bytes.pick(&PATTERN_KINDS);
        let capacity = 1 + bytes.below(5);
        let n = bytes.below(capacity + 1);
        let init = (0..n).map(|_| chess_value(&mut bytes, kind)).collect();
        if let Ok(id) = b.list(&format!("p{l}"), capacity, init) {
            lists.push(ListInfo {
                id,
                kind: Some(kind),
                general: false,
                fill: false,
            });
        }
    }
    // Two lists only square-set fills (`Get` intrinsics, line walkers)
    // write and only `SetSqrs` reads (the JIT defers their fills), one
    // short enough for a set to overflow it; made without input bytes, so
    // that a program changes only where such a call now names one of them.
    for (l, capacity) in [(0, 3), (1, 16)] {
        if let Ok(id) = b.list(&format!("f{l}"), capacity, Vec::new()) {
            lists.push(ListInfo {
                id,
                kind: None,
                general: false,
                fill: true,
            });
        }
    }
    let texts = 1 + bytes.below(2);
    for t in 0..texts {
        let _ = b.text(&format!("t{t}"), &format!("text {t}"));
    }
    let file = if bytes.chance(75) {
        Some(b.file("gen.cvm"))
    } else {
        None
    };
    let nfuncs = 1 + bytes.below(MAX_FUNCS);
    let mut sigs = vec![Sig {
        value_params: 0,
        list_params: 0,
        returns: bytes.chance(50),
    }];
    for _ in 1..nfuncs {
        sigs.push(Sig {
            value_params: bytes.below(4),
            list_params: bytes.below(3),
            returns: bytes.chance(60),
        });
    }
    let mut ids = Vec::new();
    for (i, s) in sigs.iter().enumerate() {
        let name = if i == 0 {
            "main".to_string()
        } else {
            format!("f{i}")
        };
        if let Ok(id) = b.declare_function(&name, s.value_params, s.list_params, s.returns) {
            ids.push(id);
        }
    }
    let mut line = 1;
    for (i, &sig) in sigs.iter().enumerate() {
        let locals = bytes.below(4);
        let mut f = b.body(ids[i]);
        let arity = sig.value_params + sig.list_params;
        let mut int_slots: Vec<u32> = (0..sig.value_params).collect();
        let list_slots: Vec<u32> = (sig.value_params..arity).collect();
        for _ in 0..locals {
            int_slots.push(f.local());
        }
        let mut ctx = Ctx {
            bytes: &mut bytes,
            sigs: &sigs,
            me: sig,
            int_slots,
            list_slots,
            globals,
            lists: &lists,
            texts,
            budget: 120,
            file,
            line,
            frames: 0,
        };
        let stmts = 1 + ctx.bytes.below(8);
        for _ in 0..stmts {
            ctx.stmt(&mut f, 0);
        }
        ctx.ret(&mut f);
        line = ctx.line;
        // Labels are always bound before finishing.
        let _ = f.finish();
    }
    b.set_entry(ids[0]);
    match b.finish() {
        Ok(p) => p.into_module(),
        // Unreachable for generated code; fall back to the smallest valid
        // module rather than panic.
        Err(_) => fallback(),
    }
}

fn fallback() -> Module {
    let mut b = ModuleBuilder::new();
    let main = b.declare_function("main", 0, 0, false).unwrap_or(0);
    let mut f = b.body(main);
    f.emit(Opcode::Ret, &[]);
    let _ = f.finish();
    b.set_entry(main);
    b.finish()
        .map(cvm::Program::into_module)
        .unwrap_or_default()
}

/// A deterministic byte stream for seed sweeps in tests and tools
/// (xorshift64; not for cryptography).
pub fn seed_bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut s = seed | 1;
    (0..len)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 24) as u8
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use cvm::intrinsics::INTRINSICS;
    use cvm::isa::{instructions, OPCODES};
    use cvm::verify::Program;
    use std::collections::HashSet;

    #[test]
    fn generated_modules_verify() {
        for len in 0..400usize {
            let data = seed_bytes(0x1234_5678 + len as u64, len * 3);
            let m = generate(&data);
            if let Err(e) = Program::new(m.clone()) {
                panic!("seed {len}: {e}\n{}", cvm::asm::disassemble(&m));
            }
        }
    }

    #[test]
    fn every_opcode_and_intrinsic_is_generated() {
        let mut opcodes = HashSet::new();
        let mut intrinsics = HashSet::new();
        let mut with_lines = 0;
        for seed in 0..600u64 {
            let m = generate(&seed_bytes(seed, 200 + (seed as usize % 7) * 150));
            if !m.lines.entries.is_empty() {
                with_lines += 1;
            }
            for (_, instr) in instructions(&m.code, 0, m.code.len()) {
                let Ok(instr) = instr else { break };
                opcodes.insert(instr.opcode);
                if let Some(i) = instr.operand(cvm::isa::OperandKind::Intrinsic) {
                    intrinsics.insert(i);
                }
            }
        }
        let missing: Vec<&str> = OPCODES
            .iter()
            .filter(|o| !opcodes.contains(&o.opcode))
            .map(|o| o.mnemonic)
            .collect();
        assert!(missing.is_empty(), "never generated: {missing:?}");
        let missing: Vec<&str> = INTRINSICS
            .iter()
            .enumerate()
            .filter(|(i, _)| !intrinsics.contains(&(*i as u32)))
            .map(|(_, i)| i.name)
            .collect();
        assert!(
            missing.is_empty(),
            "intrinsics never generated: {missing:?}"
        );
        assert!(with_lines > 200, "{with_lines} modules with line tables");
    }
}
