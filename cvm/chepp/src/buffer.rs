//! A function's code before it goes to the module builder.
//!
//! The code generator emits into a [`CodeBuf`] instead of straight into a
//! [`FunctionBuilder`] for two reasons. First, code after an unconditional
//! jump or return that no label precedes can never run; the buffer drops it
//! at once, which keeps jumps out of dead code that would otherwise point
//! past the end of the function. Second, whether control can reach the end
//! of a routine (a procedure then needs its implicit `ret`; a function has
//! an error) is a property of the finished control-flow graph, with `goto`
//! and `break` in it, so the buffer answers it by a reachability walk over
//! the buffered instructions before anything is written to the module.

use super::source::Span;
use cvm::builder::{FunctionBuilder, Label};
use cvm::isa::{Flow, Opcode, OperandKind};

/// A label inside one buffered function.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Lbl(u32);

#[derive(Clone, Debug)]
enum Item {
    /// An instruction: opcode, its non-target operands, its target label.
    Op(Opcode, Vec<u32>, Option<Lbl>),
    /// A label bound here.
    Bind(Lbl),
    /// The next instruction comes from this source place.
    Loc(Span),
}

/// Buffered code of one function.
#[derive(Clone, Debug, Default)]
pub struct CodeBuf {
    items: Vec<Item>,
    labels: u32,
    dead: bool,
}

impl CodeBuf {
    /// An empty buffer.
    pub fn new() -> CodeBuf {
        CodeBuf::default()
    }

    /// A new unbound label.
    pub fn label(&mut self) -> Lbl {
        self.labels += 1;
        Lbl(self.labels - 1)
    }

    /// Binds `l` here. Code after a label may be reached again.
    pub fn bind(&mut self, l: Lbl) {
        self.items.push(Item::Bind(l));
        self.dead = false;
    }

    /// Records the source place of the following instructions.
    pub fn loc(&mut self, span: Span) {
        if !self.dead {
            self.items.push(Item::Loc(span));
        }
    }

    /// True when code emitted now could run (no terminator since the last
    /// label).
    pub fn is_live(&self) -> bool {
        !self.dead
    }

    /// Emits an instruction without a target.
    pub fn op(&mut self, opcode: Opcode, operands: &[u32]) {
        if !self.dead {
            self.items.push(Item::Op(opcode, operands.to_vec(), None));
            self.dead = opcode.info().flow.is_terminator();
        }
    }

    /// Emits an instruction whose target is `l`; `operands` are the other
    /// operands in order.
    pub fn jump(&mut self, opcode: Opcode, operands: &[u32], l: Lbl) {
        if !self.dead {
            self.items
                .push(Item::Op(opcode, operands.to_vec(), Some(l)));
            self.dead = opcode.info().flow.is_terminator();
        }
    }

    /// Whether some path from the first instruction runs past the last one.
    pub fn end_reachable(&self) -> bool {
        let mut at = vec![usize::MAX; self.labels as usize];
        for (i, item) in self.items.iter().enumerate() {
            if let Item::Bind(l) = item {
                at[l.0 as usize] = i;
            }
        }
        let n = self.items.len();
        let mut seen = vec![false; n + 1];
        let mut work = vec![0usize];
        while let Some(i) = work.pop() {
            if i > n || seen[i] {
                continue;
            }
            seen[i] = true;
            if i == n {
                return true;
            }
            match &self.items[i] {
                Item::Bind(_) | Item::Loc(_) => work.push(i + 1),
                Item::Op(opcode, _, target) => {
                    let flow = opcode.info().flow;
                    if matches!(flow, Flow::Next | Flow::Branch) {
                        work.push(i + 1);
                    }
                    if matches!(flow, Flow::Jump | Flow::Branch) {
                        if let Some(t) = target.and_then(|l| at.get(l.0 as usize).copied()) {
                            work.push(t);
                        }
                    }
                }
            }
        }
        false
    }

    /// Writes the buffered code into `f`; `place` turns a span into a
    /// line-table position (file index, line, column).
    pub fn replay(
        self,
        f: &mut FunctionBuilder<'_>,
        place: &mut dyn FnMut(Span) -> (u32, u32, u32),
    ) {
        let labels: Vec<Label> = (0..self.labels).map(|_| f.new_label()).collect();
        let mut pending: Option<Span> = None;
        for item in self.items {
            match item {
                Item::Loc(span) => pending = Some(span),
                Item::Bind(l) => {
                    if let Some(&label) = labels.get(l.0 as usize) {
                        f.bind(label);
                    }
                }
                Item::Op(opcode, operands, target) => {
                    if let Some(span) = pending.take() {
                        let (file, line, col) = place(span);
                        f.loc(file, line, col);
                    }
                    match target.and_then(|l| labels.get(l.0 as usize).copied()) {
                        Some(label) => f.emit_jump(opcode, &operands, label),
                        None => {
                            debug_assert!(!opcode.info().operands.contains(&OperandKind::Target));
                            f.emit(opcode, &operands)
                        }
                    }
                }
            }
        }
    }
}
