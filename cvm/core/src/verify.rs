//! The verifier: proves, before anything runs, that a module's code is safe
//! to execute on either backend.
//!
//! For every function it checks that
//! - each instruction decodes, within the function's code range;
//! - every operand index (frame slot, global, list, text, function,
//!   intrinsic) is in range;
//! - every jump target starts an instruction of the same function (never the
//!   inside of an operand, never another function);
//! - along every path the operand stack has the same depth *and the same
//!   types* (int or list reference) at each instruction, never underflows
//!   and never exceeds the declared maximum;
//! - each call passes as many ints and list references, in the right order,
//!   as the callee or intrinsic declares;
//! - no control flow runs off the end of the function, procedures return with
//!   `ret` and functions with `retv`, so every path of a value-returning
//!   function returns a value;
//! - list references are only stored where the stack or a list parameter
//!   holds them, so no code can forge one;
//! - every `enter.f` (an inlined call that itself calls) is matched by one
//!   `leave` on every path: each instruction is reached inside the same
//!   number of open inlined frames along every path, `leave` never closes
//!   a frame that is not open and no function returns with one open. The
//!   backends rely on this to count inlined frames against the depth limit.
//!
//! The abstract interpretation visits each instruction once. Stack states
//! are hash-consed (each state is a node "type on top of parent state"), so
//! comparing two states at a join is one integer comparison and the memory
//! used is linear in the code size whatever the stack depth.
//!
//! The result, [`Program`], carries the stack depth before every reachable
//! instruction; the backends use it to give every operand-stack slot a fixed
//! place.

use crate::intrinsics::INTRINSICS;
use crate::isa::{instructions, DecodeError, Effect, Flow, Instr, Opcode, OperandKind, Ty};
use crate::module::{Module, TableError};
use std::collections::HashMap;
use std::fmt;

/// A verification failure, located at a function and a code offset.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum VerifyError {
    /// The module tables are malformed.
    #[error(transparent)]
    Table(#[from] TableError),
    /// A line-table entry points into the middle of an instruction.
    #[error("line table entry {index}: code offset {offset} is not the start of an instruction")]
    LineEntry {
        /// Entry index.
        index: usize,
        /// Its code offset.
        offset: u32,
    },
    /// A rule about the code of one function is broken.
    #[error("function {function} ({name}), code offset {offset}: {kind}")]
    Code {
        /// Function index.
        function: u32,
        /// Function name.
        name: String,
        /// Code offset of the offending instruction.
        offset: u32,
        /// Which rule.
        kind: CodeError,
    },
}

impl VerifyError {
    /// The code rule broken, if this is a code error.
    pub fn code_error(&self) -> Option<&CodeError> {
        match self {
            VerifyError::Code { kind, .. } => Some(kind),
            VerifyError::Table(_) | VerifyError::LineEntry { .. } => None,
        }
    }
}

/// The rule a function's code breaks.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CodeError {
    /// The instruction does not decode.
    #[error("{0}")]
    Decode(DecodeError),
    /// An operand index is out of range.
    #[error("{kind} operand {value} out of range (limit {limit})")]
    OperandRange {
        /// The operand kind.
        kind: &'static str,
        /// The value.
        value: u32,
        /// One past the largest valid value.
        limit: u32,
    },
    /// A jump target is not an instruction start of the same function.
    #[error("jump target {0} is not the start of an instruction of this function")]
    BadTarget(u32),
    /// An instruction pops more values than the stack holds.
    #[error("stack underflow: needs {needed} values, the stack holds {depth}")]
    Underflow {
        /// Values needed.
        needed: usize,
        /// Stack depth.
        depth: u32,
    },
    /// The stack would exceed the function's declared maximum.
    #[error("stack depth {depth} exceeds the declared maximum {max}")]
    Overflow {
        /// The depth reached.
        depth: u32,
        /// The declared maximum.
        max: u32,
    },
    /// Two paths reach an instruction with different stacks.
    #[error("stack mismatch at a join: {first} on one path, {second} on another")]
    JoinMismatch {
        /// One path's stack, bottom to top.
        first: StackShape,
        /// The other's.
        second: StackShape,
    },
    /// A value has the wrong type.
    #[error("type mismatch: expected {expected}, found {found}")]
    Type {
        /// The type required.
        expected: Ty,
        /// The type found.
        found: Ty,
    },
    /// A frame slot has the wrong type for the instruction.
    #[error("frame slot {slot} holds a {found}, the instruction needs an {expected}")]
    SlotType {
        /// The slot.
        slot: u32,
        /// The type required.
        expected: Ty,
        /// The slot's type.
        found: Ty,
    },
    /// Control can run past the last instruction of the function.
    #[error("control runs off the end of the function")]
    FallsOffEnd,
    /// `pat.all`/`pat.any` name an intrinsic without a folded form.
    #[error("intrinsic {0} has no folded-mask form")]
    NotFoldable(&'static str),
    /// `retv` in a procedure.
    #[error("retv in a procedure (it returns no value)")]
    ValueFromProcedure,
    /// `ret` in a function.
    #[error("ret without a value in a function that returns a value")]
    NoValueFromFunction,
    /// Two paths reach an instruction inside different numbers of inlined
    /// frames (`enter.f` not yet matched by `leave`).
    #[error("inlined-frame mismatch at a join: {first} open on one path, {second} on another")]
    FrameMismatch {
        /// Open inlined frames on one path.
        first: u32,
        /// On the other.
        second: u32,
    },
    /// `leave` with no inlined frame open.
    #[error("leave without a matching enter.f")]
    LeaveWithoutEnter,
    /// A return while an inlined frame is open.
    #[error("return with {0} inlined frame(s) open (enter.f without leave)")]
    ReturnInFrame(u32),
}

/// A stack's types, bottom to top, for error messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StackShape(pub Vec<Ty>);

impl fmt::Display for StackShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        for (i, t) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{t}")?;
        }
        f.write_str("]")
    }
}

/// A verified module, with what the backends need from the analysis.
///
/// The only way to obtain one is [`Program::new`], so holding a `Program`
/// proves the code was verified.
#[derive(Clone, Debug)]
pub struct Program {
    module: Module,
    functions: Vec<FunctionInfo>,
}

/// What the verifier learned about one function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionInfo {
    /// Every instruction of the function, in code order.
    pub instrs: Vec<InstrInfo>,
    /// The largest stack depth reached.
    pub max_depth: u32,
}

/// One instruction and the stack depth before it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct InstrInfo {
    /// Code offset in words.
    pub offset: u32,
    /// The instruction.
    pub instr: Instr,
    /// Operand-stack depth before the instruction; `None` when no path
    /// reaches it.
    pub depth: Option<u32>,
}

impl Program {
    /// Verifies a module.
    ///
    /// ```
    /// use cvm::{asm, Program};
    ///
    /// let fine = asm::assemble(".func main params 0 lists 0 locals 0 stack 1 value\n    push 1\n    retv\n.end\n").unwrap();
    /// assert!(Program::new(fine).is_ok());
    /// // `add` needs two values on the stack; the verifier refuses the module.
    /// let bad = asm::assemble(".func main params 0 lists 0 locals 0 stack 1 value\n    push 1\n    add\n    retv\n.end\n").unwrap();
    /// assert!(Program::new(bad).is_err());
    /// ```
    pub fn new(module: Module) -> Result<Program, VerifyError> {
        module.check_tables()?;
        let mut functions = Vec::with_capacity(module.functions.len());
        for index in 0..module.functions.len() {
            functions.push(analyze(&module, index as u32, true)?);
        }
        Program::with_analysis(module, functions)
    }

    /// Verifies a module whose functions' `max_stack` is not yet known and
    /// sets each to the depth the analysis finds (the builder and the
    /// optimizer produce such modules). One analysis per function, as
    /// [`Program::new`] does.
    pub(crate) fn sized(mut module: Module) -> Result<Program, VerifyError> {
        module.check_tables()?;
        let mut functions = Vec::with_capacity(module.functions.len());
        for index in 0..module.functions.len() {
            let info = analyze(&module, index as u32, false)?;
            module.functions[index].max_stack = info.max_depth;
            functions.push(info);
        }
        Program::with_analysis(module, functions)
    }

    /// The program from a module and the analysis of each of its functions:
    /// checks that every line-table entry starts an instruction.
    fn with_analysis(module: Module, functions: Vec<FunctionInfo>) -> Result<Program, VerifyError> {
        VERIFICATIONS.with(|n| n.set(n.get() + 1));
        for (index, e) in module.lines.entries.iter().enumerate() {
            let starts = module.function_at(e.offset).is_some_and(|f| {
                let info: &FunctionInfo = &functions[f as usize];
                info.instrs
                    .binary_search_by_key(&e.offset, |i| i.offset)
                    .is_ok()
            });
            if !starts {
                return Err(VerifyError::LineEntry {
                    index,
                    offset: e.offset,
                });
            }
        }
        Ok(Program { module, functions })
    }

    /// The verified module.
    pub fn module(&self) -> &Module {
        &self.module
    }

    /// The analysis of function `index`.
    pub fn function_info(&self, index: u32) -> &FunctionInfo {
        &self.functions[index as usize]
    }

    /// The analyses of all functions, by function index.
    pub fn function_infos(&self) -> &[FunctionInfo] {
        &self.functions
    }

    /// Gives the module back.
    pub fn into_module(self) -> Module {
        self.module
    }
}

thread_local! {
    /// Modules verified on this thread (see [`verifications`]).
    static VERIFICATIONS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// How many modules this thread has verified so far: every [`Program`]
/// made ([`Program::new`], [`crate::load`], the builder, the optimizer)
/// counts one. A host or test reads it before and after a step to check
/// that the step verifies each program it makes once.
pub fn verifications() -> u64 {
    VERIFICATIONS.with(std::cell::Cell::get)
}

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
    let start = f.start as usize;
    let end = f.end() as usize;

    // Decode linearly and check operand ranges.
    let mut instrs: Vec<InstrInfo> = Vec::new();
    let mut index_at: Vec<u32> = vec![u32::MAX; end - start];
    for (at, decoded) in instructions(&module.code, start, end) {
        let instr = decoded.map_err(|e| fail(at as u32, CodeError::Decode(e)))?;
        check_operands(module, f.frame_slots(), &instr).map_err(|k| fail(at as u32, k))?;
        index_at[at - start] = instrs.len() as u32;
        instrs.push(InstrInfo {
            offset: at as u32,
            instr,
            depth: None,
        });
    }
    let target_index = |target: u32| -> Option<usize> {
        let rel = (target as usize).checked_sub(start)?;
        let i = *index_at.get(rel)?;
        (i != u32::MAX).then_some(i as usize)
    };
    // Every jump target must be an instruction start of this function.
    for info in &instrs {
        if let Some(t) = info.instr.target() {
            if target_index(t).is_none() {
                return Err(fail(info.offset, CodeError::BadTarget(t)));
            }
        }
    }

    let mut states = States::new();
    // Per instruction: the stack state and the number of open inlined
    // frames (`enter.f` not yet closed by `leave`) before it.
    let mut state_at: Vec<Option<(u32, u32)>> = vec![None; instrs.len()];
    let mut work: Vec<usize> = Vec::new();
    let mut max_depth = 0u32;
    if !instrs.is_empty() {
        state_at[0] = Some((EMPTY, 0));
        work.push(0);
    }

    while let Some(i) = work.pop() {
        let info = instrs[i];
        let offset = info.offset;
        let Some((state, level)) = state_at[i] else {
            continue;
        };
        let instr = info.instr;
        let op = instr.opcode.info();

        let mut stack = state;
        let pop =
            |states: &States, stack: &mut u32, expected: Option<Ty>| -> Result<Ty, CodeError> {
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
            };
        let pop_all = |states: &States,
                       stack: &mut u32,
                       tys: &mut dyn Iterator<Item = Ty>,
                       n: usize|
         -> Result<(), CodeError> {
            let depth = states.depth(*stack);
            if (depth as usize) < n {
                return Err(CodeError::Underflow { needed: n, depth });
            }
            for t in tys {
                pop(states, stack, Some(t))?;
            }
            Ok(())
        };
        // `jump_state` is the state on the jump edge when it differs from the
        // fall-through state.
        let mut jump_state: Option<u32> = None;
        let slot_ty = |slot: u32| f.slot_type(slot).unwrap_or(Ty::Int);
        let step = (|| -> Result<(), CodeError> {
            match op.effect {
                Effect::Fixed(pops, pushes) => {
                    pop_all(
                        &states,
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
                    pop(&states, &mut stack, None)?;
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
                    let a = pop(&states, &mut stack, None)?;
                    let b = pop(&states, &mut stack, None)?;
                    stack = states.push(stack, a);
                    stack = states.push(stack, b);
                }
                Effect::Call => {
                    let callee = &module.functions[instr.operands[0] as usize];
                    let tys = (0..callee.value_params)
                        .map(|_| Ty::Int)
                        .chain((0..callee.list_params).map(|_| Ty::List));
                    let tys: Vec<Ty> = tys.collect();
                    pop_all(
                        &states,
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
                        &states,
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
                    jump_state = Some(below);
                }
                Effect::PatternMask => {
                    let intr = &INTRINSICS[instr.operands[0] as usize];
                    let scalar = match (intr.fold, intr.params.split_last()) {
                        // The folded form takes exactly one scalar argument.
                        (Some(_), Some((_, rest))) if rest.len() == 1 => rest,
                        _ => return Err(CodeError::NotFoldable(intr.name)),
                    };
                    pop_all(
                        &states,
                        &mut stack,
                        &mut scalar.iter().rev().map(|p| p.kind.ty()),
                        scalar.len(),
                    )?;
                    stack = states.push(stack, Ty::Int);
                }
                Effect::ForStepBack => {
                    jump_state = Some(states.push(stack, Ty::Int));
                }
                Effect::ForStep => {
                    jump_state = Some(stack);
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
            Ok(())
        })();
        step.map_err(|k| fail(offset, k))?;

        let depth = states
            .depth(stack)
            .max(states.depth(state))
            .max(jump_state.map_or(0, |j| states.depth(j)));
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

        let level = match instr.opcode {
            Opcode::EnterF => level + 1,
            Opcode::Leave => match level.checked_sub(1) {
                Some(l) => l,
                None => return Err(fail(offset, CodeError::LeaveWithoutEnter)),
            },
            _ => level,
        };
        if matches!(op.flow, Flow::Return | Flow::ReturnValue) && level != 0 {
            return Err(fail(offset, CodeError::ReturnInFrame(level)));
        }
        let mut successors: [(Option<usize>, u32); 2] = [(None, 0), (None, 0)];
        match op.flow {
            Flow::Next => successors[0] = (Some(i + 1), stack),
            Flow::Jump => {
                successors[0] = (
                    instr.target().and_then(target_index),
                    jump_state.unwrap_or(stack),
                )
            }
            Flow::Branch => {
                successors[0] = (Some(i + 1), stack);
                successors[1] = (
                    instr.target().and_then(target_index),
                    jump_state.unwrap_or(stack),
                );
            }
            Flow::Return => {
                if f.returns_value {
                    return Err(fail(offset, CodeError::NoValueFromFunction));
                }
            }
            Flow::ReturnValue => {
                if !f.returns_value {
                    return Err(fail(offset, CodeError::ValueFromProcedure));
                }
            }
            Flow::Halt => {}
        }
        for (succ, s) in successors {
            let Some(j) = succ else { continue };
            if j >= instrs.len() {
                return Err(fail(offset, CodeError::FallsOffEnd));
            }
            match state_at[j] {
                None => {
                    state_at[j] = Some((s, level));
                    work.push(j);
                }
                Some((existing, _)) if existing != s => {
                    return Err(fail(
                        instrs[j].offset,
                        CodeError::JoinMismatch {
                            first: states.shape(existing),
                            second: states.shape(s),
                        },
                    ))
                }
                Some((_, l)) if l != level => {
                    return Err(fail(
                        instrs[j].offset,
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

    for (info, s) in instrs.iter_mut().zip(&state_at) {
        info.depth = s.map(|(s, _)| states.depth(s));
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
