//! Execution profiles: how often each opcode, and each pair and triple of
//! adjacent opcodes, executes.
//!
//! Superinstructions pay off where a sequence executes often, not where it
//! is written often, so they are chosen from these counts: run programs
//! under [`cvm::Interpreter::call_profiled`] with an [`OpcodeProfile`] and
//! read the most frequent pairs and triples. A pair is counted when two
//! instructions execute one after the other *and* are adjacent in the code
//! (the second starts where the first ends), which is exactly when a
//! peephole rule could fuse them.

use cvm::interp::Profiler;
use cvm::isa::{instructions, Opcode};
use cvm::module::Module;
use std::collections::HashMap;

/// Counts of executed opcodes, adjacent pairs and adjacent triples.
#[derive(Clone, Debug, Default)]
pub struct OpcodeProfile {
    /// Opcode and size of the instruction at each code offset.
    decoded: HashMap<u32, (Opcode, u32)>,
    /// Offsets of the last two executed instructions.
    last: [Option<u32>; 2],
    /// Instructions executed.
    pub executed: u64,
    /// Executions per opcode.
    pub ops: HashMap<Opcode, u64>,
    /// Executions of adjacent pairs.
    pub pairs: HashMap<(Opcode, Opcode), u64>,
    /// Executions of adjacent triples.
    pub triples: HashMap<(Opcode, Opcode, Opcode), u64>,
}

impl OpcodeProfile {
    /// A profile for runs of `module`.
    pub fn new(module: &Module) -> OpcodeProfile {
        let mut decoded = HashMap::new();
        for (at, instr) in instructions(&module.code, 0, module.code.len()) {
            if let Ok(i) = instr {
                decoded.insert(at as u32, (i.opcode, i.size() as u32));
            }
        }
        OpcodeProfile {
            decoded,
            ..OpcodeProfile::default()
        }
    }

    /// Adds another profile's counts to this one.
    pub fn merge(&mut self, other: &OpcodeProfile) {
        self.executed += other.executed;
        for (k, v) in &other.ops {
            *self.ops.entry(*k).or_default() += v;
        }
        for (k, v) in &other.pairs {
            *self.pairs.entry(*k).or_default() += v;
        }
        for (k, v) in &other.triples {
            *self.triples.entry(*k).or_default() += v;
        }
    }

    /// The `n` most frequent entries of a count table, most frequent first
    /// (ties broken by the key's order for stable reports).
    pub fn top<K: Copy + Ord>(table: &HashMap<K, u64>, n: usize) -> Vec<(K, u64)> {
        let mut v: Vec<(K, u64)> = table.iter().map(|(k, c)| (*k, *c)).collect();
        v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        v.truncate(n);
        v
    }
}

impl Profiler for OpcodeProfile {
    fn step(&mut self, offset: u32) {
        let Some(&(op, _)) = self.decoded.get(&offset) else {
            return;
        };
        self.executed += 1;
        *self.ops.entry(op).or_default() += 1;
        let follows = |prev: Option<u32>, next: u32, decoded: &HashMap<u32, (Opcode, u32)>| {
            prev.and_then(|p| {
                decoded
                    .get(&p)
                    .filter(|(_, size)| p + size == next)
                    .map(|(o, _)| *o)
            })
        };
        if let Some(p1) = follows(self.last[1], offset, &self.decoded) {
            *self.pairs.entry((p1, op)).or_default() += 1;
            if let (Some(prev1), Some(p0)) = (self.last[1], self.last[0]) {
                if let Some(o0) = follows(Some(p0), prev1, &self.decoded) {
                    *self.triples.entry((o0, p1, op)).or_default() += 1;
                }
            }
        }
        self.last = [self.last[1], Some(offset)];
    }
}
