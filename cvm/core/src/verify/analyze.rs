//! The analysis of one function: decode and range-check its instructions,
//! then follow every path with an abstract stack (hash-consed states) and
//! the count of open inlined frames.

use super::{CodeError, FunctionInfo, InstrInfo, StackShape, VerifyError};
use crate::intrinsics::INTRINSICS;
use crate::isa::{instructions, Effect, Flow, Instr, Opcode, OperandKind, Ty};
use crate::module::{Function, Module};
use std::collections::HashMap;

/// Hash-consed stack states: state 0 is the empty stack; every other state
/// is a type on top of a parent state.
struct States {
    nodes: Vec<(u32, Ty, u32)>, // (parent, top type, depth)
    index: HashMap<(u32, Ty), u32>,
}

const EMPTY: u32 = 0;

impl States {
    fn new() -> States {
        States {
            nodes: vec![(EMPTY, Ty::Int, 0)],
            index: HashMap::new(),
        }
    }

    fn depth(&self, s: u32) -> u32 {
        self.nodes[s as usize].2
    }

    fn push(&mut self, s: u32, ty: Ty) -> u32 {
        if let Some(&id) = self.index.get(&(s, ty)) {
            return id;
        }
        let id = self.nodes.len() as u32;
        self.nodes.push((s, ty, self.depth(s) + 1));
        self.index.insert((s, ty), id);
        id
    }

    /// The top type and the state below it.
    fn top(&self, s: u32) -> Option<(Ty, u32)> {
        if s == EMPTY {
            None
        } else {
            let (parent, ty, _) = self.nodes[s as usize];
            Some((ty, parent))
        }
    }

    fn shape(&self, mut s: u32) -> StackShape {
        let mut v = Vec::new();
        while let Some((ty, parent)) = self.top(s) {
            v.push(ty);
            s = parent;
        }
        v.reverse();
        StackShape(v)
    }
}

/// The function's instructions in code order and, per code word of the
/// function, the index of the instruction starting there.
struct Decoded {
    instrs: Vec<InstrInfo>,
    index_at: Vec<u32>,
    start: usize,
}

impl Decoded {
    /// The index of the instruction starting at code offset `target`, if
    /// one does.
    fn index_of(&self, target: u32) -> Option<usize> {
        let rel = (target as usize).checked_sub(self.start)?;
        let i = *self.index_at.get(rel)?;
        (i != u32::MAX).then_some(i as usize)
    }
}

/// Decodes the function linearly, checks every operand's range and that
/// every jump targets an instruction start of the function.
fn decode(module: &Module, f: &Function) -> Result<Decoded, (u32, CodeError)> {
    let start = f.start as usize;
    let end = f.end() as usize;
    let mut decoded = Decoded {
        instrs: Vec::new(),
        index_at: vec![u32::MAX; end - start],
        start,
    };
    for (at, instr) in instructions(&module.code, start, end) {
        let instr = instr.map_err(|e| (at as u32, CodeError::Decode(e)))?;
        check_operands(module, f.frame_slots(), &instr).map_err(|k| (at as u32, k))?;
        decoded.index_at[at - start] = decoded.instrs.len() as u32;
        decoded.instrs.push(InstrInfo {
            offset: at as u32,
            instr,
            depth: None,
            frames: 0,
        });
    }
    for info in &decoded.instrs {
        if let Some(t) = info.instr.target() {
            if decoded.index_of(t).is_none() {
                return Err((info.offset, CodeError::BadTarget(t)));
            }
        }
    }
    Ok(decoded)
}

/// The stack after one instruction: the fall-through state and, when it
/// differs, the state on the jump edge.
struct After {
    stack: u32,
    jump: Option<u32>,
}

/// Pops one value, of type `expected` when given.
fn pop(states: &States, stack: &mut u32, expected: Option<Ty>) -> Result<Ty, CodeError> {
    match states.top(*stack) {
        None => Err(CodeError::Underflow {
            needed: 1,
            depth: 0,
        }),
        Some((ty, parent)) => {
            if let Some(e) = expected {
                if e != ty {
                    return Err(CodeError::Type {
                        expected: e,
                        found: ty,
                    });
                }
            }
            *stack = parent;
            Ok(ty)
        }
    }
}

/// Pops `n` values whose types `tys` gives top first, after checking that
/// the stack holds `n`.
fn pop_all(
    states: &States,
    stack: &mut u32,
    tys: &mut dyn Iterator<Item = Ty>,
    n: usize,
) -> Result<(), CodeError> {
    let depth = states.depth(*stack);
    if (depth as usize) < n {
        return Err(CodeError::Underflow { needed: n, depth });
    }
    for t in tys {
        pop(states, stack, Some(t))?;
    }
    Ok(())
}

/// Applies the stack effect of `instr` (in function `f`) to `state`, and
/// checks the types of the frame slots it names.
fn effect(
    states: &mut States,
    module: &Module,
    f: &Function,
    instr: &Instr,
    state: u32,
) -> Result<After, CodeError> {
    let op = instr.opcode.info();
    let slot_ty = |slot: u32| f.slot_type(slot).unwrap_or(Ty::Int);
    let mut stack = state;
    let mut jump = None;
    match op.effect {
        Effect::Fixed(pops, pushes) => {
            pop_all(
                states,
                &mut stack,
                &mut pops.iter().rev().copied(),
                pops.len(),
            )?;
            for t in pushes {
                stack = states.push(stack, *t);
            }
        }
        Effect::LoadLocal => {
            stack = states.push(stack, slot_ty(instr.operands[0]));
        }
        Effect::PopAny => {
            pop(states, &mut stack, None)?;
        }
        Effect::DupAny => {
            let (ty, _) = states.top(stack).ok_or(CodeError::Underflow {
                needed: 1,
                depth: 0,
            })?;
            stack = states.push(stack, ty);
        }
        Effect::SwapAny => {
            let depth = states.depth(stack);
            if depth < 2 {
                return Err(CodeError::Underflow { needed: 2, depth });
            }
            let a = pop(states, &mut stack, None)?;
            let b = pop(states, &mut stack, None)?;
            stack = states.push(stack, a);
            stack = states.push(stack, b);
        }
        Effect::Call => {
            let callee = &module.functions[instr.operands[0] as usize];
            let tys: Vec<Ty> = (0..callee.value_params)
                .map(|_| Ty::Int)
                .chain((0..callee.list_params).map(|_| Ty::List))
                .collect();
            pop_all(
                states,
                &mut stack,
                &mut tys.iter().rev().copied(),
                tys.len(),
            )?;
            if callee.returns_value {
                stack = states.push(stack, Ty::Int);
            }
        }
        Effect::Intrinsic => {
            let intr = &INTRINSICS[instr.operands[0] as usize];
            pop_all(
                states,
                &mut stack,
                &mut intr.params.iter().rev().map(|p| p.kind.ty()),
                intr.params.len(),
            )?;
            if intr.returns {
                stack = states.push(stack, Ty::Int);
            }
        }
        Effect::Case => {
            let (ty, below) = states.top(stack).ok_or(CodeError::Underflow {
                needed: 1,
                depth: 0,
            })?;
            if ty != Ty::Int {
                return Err(CodeError::Type {
                    expected: Ty::Int,
                    found: ty,
                });
            }
            jump = Some(below);
        }
        Effect::PatternMask => {
            let intr = &INTRINSICS[instr.operands[0] as usize];
            let scalar = match (intr.fold, intr.params.split_last()) {
                // The folded form takes exactly one scalar argument.
                (Some(_), Some((_, rest))) if rest.len() == 1 => rest,
                _ => return Err(CodeError::NotFoldable(intr.name)),
            };
            pop_all(
                states,
                &mut stack,
                &mut scalar.iter().rev().map(|p| p.kind.ty()),
                scalar.len(),
            )?;
            stack = states.push(stack, Ty::Int);
        }
        Effect::ForStepBack => {
            jump = Some(states.push(stack, Ty::Int));
        }
        Effect::ForStep => {
            jump = Some(stack);
            stack = states.push(stack, Ty::Int);
        }
    }
    // Frame-slot operands whose type the table fixes.
    for (kind, &slot) in op.operands.iter().zip(&instr.operands) {
        let expected = match kind {
            OperandKind::IntLocal => Ty::Int,
            OperandKind::ListLocal => Ty::List,
            _ => continue,
        };
        let found = slot_ty(slot);
        if found != expected {
            return Err(CodeError::SlotType {
                slot,
                expected,
                found,
            });
        }
    }
    Ok(After { stack, jump })
}

/// The number of inlined frames open after `instr` when `level` were open
/// before it; a return must close them all.
fn frames_after(instr: &Instr, level: u32) -> Result<u32, CodeError> {
    let level = match instr.opcode {
        Opcode::EnterF => level + 1,
        Opcode::Leave => level.checked_sub(1).ok_or(CodeError::LeaveWithoutEnter)?,
        _ => level,
    };
    if matches!(instr.opcode.info().flow, Flow::Return | Flow::ReturnValue) && level != 0 {
        return Err(CodeError::ReturnInFrame(level));
    }
    Ok(level)
}

/// The instructions control may go to after instruction `i` of function
/// `f`, each with its stack state (at most two: fall through and jump);
/// checks that a return matches the function's kind.
fn successors(
    f: &Function,
    decoded: &Decoded,
    i: usize,
    after: &After,
) -> Result<[(Option<usize>, u32); 2], CodeError> {
    let instr = decoded.instrs[i].instr;
    let jump = (
        instr.target().and_then(|t| decoded.index_of(t)),
        after.jump.unwrap_or(after.stack),
    );
    let mut out: [(Option<usize>, u32); 2] = [(None, 0), (None, 0)];
    match instr.opcode.info().flow {
        Flow::Next => out[0] = (Some(i + 1), after.stack),
        Flow::Jump => out[0] = jump,
        Flow::Branch => {
            out[0] = (Some(i + 1), after.stack);
            out[1] = jump;
        }
        Flow::Return if f.returns_value => return Err(CodeError::NoValueFromFunction),
        Flow::ReturnValue if !f.returns_value => return Err(CodeError::ValueFromProcedure),
        Flow::Return | Flow::ReturnValue | Flow::Halt => {}
    }
    Ok(out)
}

/// Analyses one function. With `check_max` the declared `max_stack` is
/// enforced; without it the function's real maximum is computed (the module
/// builder uses this to fill in `max_stack`). The module's tables must
/// already have passed [`Module::check_tables`].
pub fn analyze(module: &Module, index: u32, check_max: bool) -> Result<FunctionInfo, VerifyError> {
    let f = &module.functions[index as usize];
    let fail = |offset: u32, kind: CodeError| VerifyError::Code {
        function: index,
        name: f.name.clone(),
        offset,
        kind,
    };
    let decoded = decode(module, f).map_err(|(at, k)| fail(at, k))?;
    let n = decoded.instrs.len();

    let mut states = States::new();
    // Per instruction: the stack state and the number of open inlined
    // frames (`enter.f` not yet closed by `leave`) before it.
    let mut state_at: Vec<Option<(u32, u32)>> = vec![None; n];
    let mut work: Vec<usize> = Vec::new();
    let mut max_depth = 0u32;
    if n > 0 {
        state_at[0] = Some((EMPTY, 0));
        work.push(0);
    }

    while let Some(i) = work.pop() {
        let Some((state, level)) = state_at[i] else {
            continue;
        };
        let info = decoded.instrs[i];
        let offset = info.offset;
        let after =
            effect(&mut states, module, f, &info.instr, state).map_err(|k| fail(offset, k))?;
        let depth = states
            .depth(after.stack)
            .max(states.depth(state))
            .max(after.jump.map_or(0, |j| states.depth(j)));
        if check_max && depth > f.max_stack {
            return Err(fail(
                offset,
                CodeError::Overflow {
                    depth,
                    max: f.max_stack,
                },
            ));
        }
        max_depth = max_depth.max(depth);
        let level = frames_after(&info.instr, level).map_err(|k| fail(offset, k))?;
        for (succ, s) in successors(f, &decoded, i, &after).map_err(|k| fail(offset, k))? {
            let Some(j) = succ else { continue };
            if j >= n {
                return Err(fail(offset, CodeError::FallsOffEnd));
            }
            match state_at[j] {
                None => {
                    state_at[j] = Some((s, level));
                    work.push(j);
                }
                Some((existing, _)) if existing != s => {
                    return Err(fail(
                        decoded.instrs[j].offset,
                        CodeError::JoinMismatch {
                            first: states.shape(existing),
                            second: states.shape(s),
                        },
                    ))
                }
                Some((_, l)) if l != level => {
                    return Err(fail(
                        decoded.instrs[j].offset,
                        CodeError::FrameMismatch {
                            first: l,
                            second: level,
                        },
                    ))
                }
                Some(_) => {}
            }
        }
    }

    let mut instrs = decoded.instrs;
    for (info, s) in instrs.iter_mut().zip(&state_at) {
        info.depth = s.map(|(s, _)| states.depth(s));
        info.frames = s.map_or(0, |(_, level)| level);
    }
    Ok(FunctionInfo { instrs, max_depth })
}

fn check_operands(module: &Module, frame_slots: u32, instr: &Instr) -> Result<(), CodeError> {
    for (kind, &value) in instr.opcode.info().operands.iter().zip(&instr.operands) {
        let limit = match kind {
            OperandKind::Imm | OperandKind::Target => continue,
            OperandKind::Local | OperandKind::IntLocal | OperandKind::ListLocal => {
                frame_slots as usize
            }
            OperandKind::Global => module.globals.len(),
            OperandKind::List => module.lists.len(),
            OperandKind::Text => module.texts.len(),
            OperandKind::Func => module.functions.len(),
            OperandKind::Intrinsic => INTRINSICS.len(),
        };
        if value as usize >= limit {
            return Err(CodeError::OperandRange {
                kind: kind.name(),
                value,
                limit: limit as u32,
            });
        }
    }
    Ok(())
}
