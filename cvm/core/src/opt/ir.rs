//! The optimizer's view of one function: a list of instructions and labels.
//!
//! CVM code addresses jump targets by absolute word offset, which makes any
//! edit that changes instruction sizes awkward. The optimizer therefore
//! lifts each function into a list of [`Item`]s in which targets name labels,
//! rewrites that list, and lowers it back to words, recomputing every target
//! and the line table. Lifting starts from the verifier's analysis, so code
//! that no path reaches is already gone.

use crate::isa::{Instr, Opcode, OperandKind};
use crate::module::{LineEntry, Module, SourcePos};
use crate::verify::FunctionInfo;
use std::collections::HashMap;

/// A label: an index into the function's label space.
pub type Label = u32;

/// A source position as stored in the line table: (file, line, column).
pub type Pos = (u32, u32, u32);

/// One element of a function body.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Item {
    /// A jump target.
    Label(Label),
    /// An instruction. Its `Target` operand, if any, holds a [`Label`].
    Ins(Ins),
}

/// An instruction with its source position.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Ins {
    /// The instruction; the target operand is a label number.
    pub instr: Instr,
    /// Where it came from, if the module has line information.
    pub pos: Option<Pos>,
}

impl Ins {
    /// The opcode.
    pub fn op(&self) -> Opcode {
        self.instr.opcode
    }

    /// Operand `i`.
    pub fn arg(&self, i: usize) -> u32 {
        self.instr.operands[i]
    }

    /// The label this instruction jumps to, if it jumps.
    pub fn target(&self) -> Option<Label> {
        self.instr.target()
    }

    /// A new instruction at the same source position.
    pub fn with(&self, opcode: Opcode, operands: &[u32]) -> Ins {
        Ins {
            instr: Instr::new(opcode, operands),
            pos: self.pos,
        }
    }
}

/// A lifted function body.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Body {
    /// Items in code order.
    pub items: Vec<Item>,
    /// Number of labels allocated (labels are `0..labels`).
    pub labels: u32,
}

impl Body {
    /// Allocates a fresh label.
    pub fn new_label(&mut self) -> Label {
        self.labels += 1;
        self.labels - 1
    }

    /// Lifts a verified function. Unreachable instructions are dropped.
    pub fn lift(module: &Module, info: &FunctionInfo) -> Body {
        let mut labels: HashMap<u32, Label> = HashMap::new();
        for i in info.instrs.iter().filter(|i| i.depth.is_some()) {
            if let Some(t) = i.instr.target() {
                let n = labels.len() as u32;
                labels.entry(t).or_insert(n);
            }
        }
        let mut body = Body {
            items: Vec::with_capacity(info.instrs.len() + labels.len()),
            labels: labels.len() as u32,
        };
        for i in &info.instrs {
            if i.depth.is_none() {
                continue;
            }
            if let Some(&l) = labels.get(&i.offset) {
                body.items.push(Item::Label(l));
            }
            let mut instr = i.instr;
            if let Some(k) = target_index(instr.opcode) {
                instr.operands[k] = labels[&instr.operands[k]];
            }
            let pos = module.source_pos(i.offset).map(|p: SourcePos| {
                let file = module
                    .lines
                    .files
                    .iter()
                    .position(|f| *f == p.file)
                    .unwrap_or(0) as u32;
                (file, p.line, p.col)
            });
            body.items.push(Item::Ins(Ins { instr, pos }));
        }
        body
    }

    /// Lowers the body to code words starting at absolute offset `start`,
    /// appending line entries for position changes.
    pub fn lower(&self, start: u32, code: &mut Vec<u32>, lines: &mut Vec<LineEntry>) {
        // First pass: label offsets.
        let mut at = start;
        let mut offsets = vec![0u32; self.labels as usize];
        for item in &self.items {
            match item {
                Item::Label(l) => offsets[*l as usize] = at,
                Item::Ins(i) => at += i.instr.size() as u32,
            }
        }
        let mut last: Option<Pos> = None;
        for item in &self.items {
            let Item::Ins(ins) = item else { continue };
            if let Some(p) = ins.pos {
                if last != Some(p) {
                    lines.push(LineEntry {
                        offset: code.len() as u32,
                        file: p.0,
                        line: p.1,
                        col: p.2,
                    });
                    last = Some(p);
                }
            }
            let mut instr = ins.instr;
            if let Some(k) = target_index(instr.opcode) {
                instr.operands[k] = offsets[instr.operands[k] as usize];
            }
            instr.encode(code);
        }
    }

    /// The instructions only, for tests and statistics.
    pub fn instrs(&self) -> impl Iterator<Item = &Ins> {
        self.items.iter().filter_map(|i| match i {
            Item::Ins(ins) => Some(ins),
            Item::Label(_) => None,
        })
    }
}

/// Index of the target operand of an opcode, if it has one.
pub fn target_index(op: Opcode) -> Option<usize> {
    op.info()
        .operands
        .iter()
        .position(|k| *k == OperandKind::Target)
}
