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
//! place, and the fuel charges of calls and backward jumps
//! ([`FunctionInfo::call_fuel`], [`FunctionInfo::jump_fuel`],
//! [`Program::charge_entry`]) are read from it.
//!
//! | part | module |
//! |------|--------|
//! | errors, the verified [`Program`] | this one |
//! | one function's analysis: decoding, stack effects, control flow | `analyze` |
//! | fuel charges of verified code | `charges` |

mod analyze;
mod charges;

pub use analyze::analyze;

use crate::isa::{DecodeError, Instr, Ty};
use crate::module::{Module, TableError};
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
    /// Inlined frames open before the instruction (`enter.f` not yet
    /// closed by its `leave`), the same on every path; 0 when no path
    /// reaches it.
    pub frames: u32,
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
