//! The CVM instruction set, defined once.
//!
//! Every opcode appears exactly once, in the `isa_table!` invocation at the
//! bottom of this file: its name, its opcode word, the kinds of its operand
//! words and what it does with the storage each names ([`Access`]), its
//! effect on the operand stack, how control leaves it, the runtime errors it
//! can raise, its place in the comparison family ([`Compare`]) and a
//! one-line description. Every row states every column; a row that leaves
//! one out does not compile, and a row whose columns contradict each other
//! (a written `imm`, a comparison with the wrong operands, a relation and
//! form given twice) fails the compile-time check below the table.
//!
//! The [`Opcode`] enum, the encoder and decoder ([`Instr`]), the verifier's
//! stack rules, the assembler's mnemonics, the disassembler's listing, the
//! opcode reference in `docs/cvm.md`, which frame slots an instruction reads
//! and writes ([`Instr::slots_written`]), which module lists it stores into,
//! and the comparison family's negations, operand forms and fused branch
//! forms ([`Opcode::negated_branch`], [`Opcode::in_form`]) are all derived
//! from that table. The optimizer, the JIT's loop analysis and condition
//! codes and the random program generator read these facts instead of
//! listing opcodes; `docs/cvm.md` ("Adding an opcode") says what a new
//! instruction still needs by hand.
//!
//! # Encoding
//! Code is a sequence of 32-bit little-endian words. An instruction is one
//! opcode word followed by a fixed number of operand words (zero to three,
//! given by the table). A plain operation is therefore 4 bytes and a jump
//! (opcode + absolute target) 8 bytes, exactly as in the original CVM. Jump
//! targets are absolute word offsets into the module's code. There are no
//! variable-length encodings.

use std::collections::HashMap;
use std::fmt;
use std::sync::OnceLock;

/// What an operand word means.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum OperandKind {
    /// A signed 32-bit immediate value.
    Imm,
    /// A frame slot of the current function, of either type: parameters
    /// first (value parameters, then list parameters), then the locals.
    Local,
    /// A frame slot that must hold an int (a value parameter or a local).
    IntLocal,
    /// A frame slot that must hold a list reference (a list parameter).
    ListLocal,
    /// An index into the module's global variables.
    Global,
    /// An index into the module's lists (data segment).
    List,
    /// An index into the module's texts (data segment).
    Text,
    /// An index into the module's function table.
    Func,
    /// An absolute code offset, in words, that must start an instruction of
    /// the same function.
    Target,
    /// The number of an intrinsic in [`crate::intrinsics::INTRINSICS`].
    Intrinsic,
}

impl OperandKind {
    /// True for the frame-slot kinds.
    pub fn is_slot(self) -> bool {
        matches!(
            self,
            OperandKind::Local | OperandKind::IntLocal | OperandKind::ListLocal
        )
    }

    /// The name used for this kind in listings and documentation.
    pub fn name(self) -> &'static str {
        match self {
            OperandKind::Imm => "imm",
            OperandKind::Local => "local",
            OperandKind::IntLocal => "int local",
            OperandKind::ListLocal => "list local",
            OperandKind::Global => "global",
            OperandKind::List => "list",
            OperandKind::Text => "text",
            OperandKind::Func => "func",
            OperandKind::Target => "target",
            OperandKind::Intrinsic => "intrinsic",
        }
    }
}

/// The static type of an operand-stack slot or a frame slot, as tracked by
/// the verifier.
///
/// List references can only be created by `lref` or read from a list
/// parameter, and no instruction computes with them, so a verified program
/// can never forge one: every list reference a running program holds is
/// valid.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    /// A 32-bit signed integer.
    Int,
    /// A reference to one of the module's lists.
    List,
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Ty::Int => "int",
            Ty::List => "list",
        })
    }
}

/// How an instruction changes the operand stack.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Effect {
    /// Pops values of the first types (the last entry is the top of the
    /// stack) and pushes values of the second types.
    Fixed(&'static [Ty], &'static [Ty]),
    /// Pushes the value of the named frame slot, with that slot's type.
    LoadLocal,
    /// Pops one value of any type.
    PopAny,
    /// Pushes a copy of the top value, of any type.
    DupAny,
    /// Exchanges the two top values, of any types.
    SwapAny,
    /// Pops the callee's arguments (value parameters, then list references)
    /// and pushes its result if it returns a value.
    Call,
    /// Pops the intrinsic's arguments and pushes its result if it has one.
    Intrinsic,
    /// Compares the top (an int) with the immediate: when equal, pops it and
    /// jumps; otherwise leaves it and falls through.
    Case,
    /// A for-in step: on the fall-through path pushes the next element (an
    /// int); on the jump path (list exhausted) pushes nothing.
    ForStep,
    /// An inverted for-in step: on the jump path (an element was found)
    /// pushes it; on the fall-through path (list exhausted) pushes nothing.
    ForStepBack,
    /// A pattern intrinsic on a folded square mask: pops the intrinsic's
    /// parameters except its last (the square list, replaced by the mask
    /// operands) and pushes the result.
    PatternMask,
}

/// How control leaves an instruction.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Falls through to the next instruction.
    Next,
    /// Always jumps to its target operand.
    Jump,
    /// Either jumps to its target operand or falls through.
    Branch,
    /// Returns from a procedure (no value).
    Return,
    /// Returns the popped value from a function.
    ReturnValue,
    /// Stops the whole program.
    Halt,
}

impl Flow {
    /// True when control never reaches the next instruction in code order.
    pub fn is_terminator(self) -> bool {
        matches!(
            self,
            Flow::Jump | Flow::Return | Flow::ReturnValue | Flow::Halt
        )
    }
}

/// What an instruction does with the storage an operand word names. Written
/// in the table as `_` (none), `R`, `W` or `RW`.
///
/// * `local` and `int local` operands: the frame slot itself is read and/or
///   written. Only `int local` slots may be written (a list parameter's
///   reference can never change, so references cannot be forged).
/// * `list local` operands: the slot is always only read (it holds a list
///   reference); the access says what happens to the elements of the list
///   it refers to.
/// * `global` operands: the global.
/// * `list` operands: the elements of the module list (`_` for `lref`,
///   which only makes a reference; where that reference goes is the stack
///   effect's business).
/// * Every other kind (`imm`, `target`, `func`, `text`, `intrinsic`) names
///   no storage and is always `_`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Access {
    /// Not accessed (`_`).
    None,
    /// Only read (`R`).
    Read,
    /// Only written (`W`).
    Write,
    /// Read, then written (`RW`).
    ReadWrite,
}

impl Access {
    /// True for `R` and `RW`.
    pub const fn reads(self) -> bool {
        matches!(self, Access::Read | Access::ReadWrite)
    }

    /// True for `W` and `RW`.
    pub const fn writes(self) -> bool {
        matches!(self, Access::Write | Access::ReadWrite)
    }

    /// The short name used in the table and the opcode reference.
    pub fn name(self) -> &'static str {
        match self {
            Access::None => "_",
            Access::Read => "R",
            Access::Write => "W",
            Access::ReadWrite => "RW",
        }
    }
}

/// A comparison relation between two ints `a` and `b` (signed).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Rel {
    /// `a = b`
    Eq,
    /// `a <> b`
    Ne,
    /// `a < b`
    Lt,
    /// `a <= b`
    Le,
    /// `a > b`
    Gt,
    /// `a >= b`
    Ge,
}

impl Rel {
    /// Every relation, in the order of the opcodes (`eq`, `ne`, `lt`, ...).
    pub const ALL: [Rel; 6] = [Rel::Eq, Rel::Ne, Rel::Lt, Rel::Le, Rel::Gt, Rel::Ge];

    /// The relation that holds exactly when this one does not.
    pub const fn negate(self) -> Rel {
        match self {
            Rel::Eq => Rel::Ne,
            Rel::Ne => Rel::Eq,
            Rel::Lt => Rel::Ge,
            Rel::Ge => Rel::Lt,
            Rel::Le => Rel::Gt,
            Rel::Gt => Rel::Le,
        }
    }

    /// The relation with its operands exchanged: `a r b` is `b r.swap() a`.
    pub const fn swap(self) -> Rel {
        match self {
            Rel::Eq => Rel::Eq,
            Rel::Ne => Rel::Ne,
            Rel::Lt => Rel::Gt,
            Rel::Gt => Rel::Lt,
            Rel::Le => Rel::Ge,
            Rel::Ge => Rel::Le,
        }
    }

    /// Whether `a` and `b` are in the relation.
    pub const fn holds(self, a: i32, b: i32) -> bool {
        match self {
            Rel::Eq => a == b,
            Rel::Ne => a != b,
            Rel::Lt => a < b,
            Rel::Le => a <= b,
            Rel::Gt => a > b,
            Rel::Ge => a >= b,
        }
    }

    /// For the test `x rel 0` of a truth value `x` (1 or 0, as the
    /// comparisons produce): `Some(true)` when it holds exactly when `x` is
    /// 1 (`jnz`), `Some(false)` when exactly when `x` is 0 (`jz`), `None`
    /// when it does not tell them apart.
    pub const fn on_truth(self) -> Option<bool> {
        match (self.holds(1, 0), self.holds(0, 0)) {
            (true, false) => Some(true),
            (false, true) => Some(false),
            _ => None,
        }
    }

    /// True for the orderings `<`, `<=`, `>`, `>=`.
    pub const fn is_order(self) -> bool {
        matches!(self, Rel::Lt | Rel::Le | Rel::Gt | Rel::Ge)
    }

    /// The relation's name as it appears in mnemonics (`lt`).
    pub fn name(self) -> &'static str {
        match self {
            Rel::Eq => "eq",
            Rel::Ne => "ne",
            Rel::Lt => "lt",
            Rel::Le => "le",
            Rel::Gt => "gt",
            Rel::Ge => "ge",
        }
    }
}

/// Where a comparison's operands come from and what it does with the
/// result. Each form fixes the operand words and the stack effect (checked
/// against every row, [`Form::operands`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Form {
    /// `a b -> (a rel b)` as 1 or 0: `eq`, `lt`, ...
    Value,
    /// Pops `b` and `a` and jumps if `a rel b`: `jeq`, `jlt`, ...
    Branch,
    /// Pops `a` and jumps if `a rel imm`: `jeq.i`, ...
    BranchImm,
    /// Jumps if `local rel imm`: `jeq.li`, ...
    BranchLocalImm,
    /// Pops `a` and jumps if `a rel 0`: `jz` (eq) and `jnz` (ne).
    BranchZero,
    /// Adds 1 to the int local (wrapping), then jumps if `local rel imm`:
    /// `inc.jlt.li`.
    IncBranchLocalImm,
}

impl Form {
    /// Number of forms.
    pub const COUNT: usize = Form::ALL.len();

    /// Every form, in declaration order (checked at compile time).
    pub const ALL: [Form; 6] = [
        Form::Value,
        Form::Branch,
        Form::BranchImm,
        Form::BranchLocalImm,
        Form::BranchZero,
        Form::IncBranchLocalImm,
    ];

    /// The operand words every opcode of this form takes.
    pub const fn operands(self) -> &'static [OperandKind] {
        use OperandKind::{Imm, IntLocal, Target};
        match self {
            Form::Value => &[],
            Form::Branch | Form::BranchZero => &[Target],
            Form::BranchImm => &[Imm, Target],
            Form::BranchLocalImm | Form::IncBranchLocalImm => &[IntLocal, Imm, Target],
        }
    }

    /// How many ints every opcode of this form pops, and pushes.
    pub const fn stack(self) -> (usize, usize) {
        match self {
            Form::Value => (2, 1),
            Form::Branch => (2, 0),
            Form::BranchImm | Form::BranchZero => (1, 0),
            Form::BranchLocalImm | Form::IncBranchLocalImm => (0, 0),
        }
    }

    /// What the form does with its int local, if it has one.
    pub const fn local_access(self) -> Access {
        match self {
            Form::Value | Form::Branch | Form::BranchImm | Form::BranchZero => Access::None,
            Form::BranchLocalImm => Access::Read,
            Form::IncBranchLocalImm => Access::ReadWrite,
        }
    }

    /// True for the forms that jump (all but [`Form::Value`]).
    pub const fn is_branch(self) -> bool {
        match self {
            Form::Value => false,
            Form::Branch
            | Form::BranchImm
            | Form::BranchLocalImm
            | Form::BranchZero
            | Form::IncBranchLocalImm => true,
        }
    }
}

/// An opcode's place in the comparison family: its relation and form.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Compare {
    /// The relation tested.
    pub rel: Rel,
    /// Where the operands come from and what happens with the result.
    pub form: Form,
}

/// A runtime error that an instruction may raise, for documentation.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Raises {
    /// Division or modulo by zero.
    DivByZero,
    /// A list index below zero or past the list's last slot.
    ListBounds,
    /// The call-depth limit was reached.
    Depth,
    /// The fuel ran out (charged at calls, taken backward jumps, output and
    /// intrinsic calls).
    Fuel,
    /// The intrinsic reported an error (see its documentation).
    IntrinsicError,
}

impl Raises {
    /// A short description for the opcode reference.
    pub fn describe(self) -> &'static str {
        match self {
            Raises::DivByZero => "division by zero",
            Raises::ListBounds => "list index out of bounds",
            Raises::Depth => "call depth limit",
            Raises::Fuel => "out of fuel",
            Raises::IntrinsicError => "errors of the intrinsic",
        }
    }
}

/// Everything the table says about one opcode.
#[derive(Copy, Clone, Debug)]
pub struct OpInfo {
    /// The opcode.
    pub opcode: Opcode,
    /// The assembler mnemonic.
    pub mnemonic: &'static str,
    /// The kinds of the operand words that follow the opcode word.
    pub operands: &'static [OperandKind],
    /// What the instruction does with the storage each operand word names
    /// (one entry per operand word; see [`Access`]).
    pub access: &'static [Access],
    /// The effect on the operand stack.
    pub effect: Effect,
    /// How control leaves the instruction.
    pub flow: Flow,
    /// Runtime errors the instruction can raise.
    pub raises: &'static [Raises],
    /// The instruction's relation and form, when it is a comparison.
    pub compare: Option<Compare>,
    /// One sentence saying what the instruction does.
    pub doc: &'static str,
}

impl OpInfo {
    /// Size of the instruction in words (opcode word plus operand words).
    pub fn size(&self) -> usize {
        1 + self.operands.len()
    }

    /// What the instruction does with the frame slot operand `i` names:
    /// [`Access::None`] when operand `i` is not a frame slot, and
    /// [`Access::Read`] for a list local (whose access column speaks of the
    /// list's elements, see [`Access`]).
    pub fn slot_access(&self, i: usize) -> Access {
        match (self.operands.get(i), self.access.get(i)) {
            (Some(OperandKind::Local | OperandKind::IntLocal), Some(&a)) => a,
            (Some(OperandKind::ListLocal), _) => Access::Read,
            _ => Access::None,
        }
    }
}

macro_rules! access {
    (_) => {
        Access::None
    };
    (R) => {
        Access::Read
    };
    (W) => {
        Access::Write
    };
    (RW) => {
        Access::ReadWrite
    };
}

macro_rules! compare {
    (_) => {
        None
    };
    (($rel:ident, $form:ident)) => {
        Some(Compare {
            rel: Rel::$rel,
            form: Form::$form,
        })
    };
}

/// The instruction table. One row per opcode, every column stated:
///
/// ```text
/// Variant = opcode word, "mnemonic", [operand kind and access, ...], stack effect, flow,
///     [runtime errors], comparison (`_` or `(Rel, Form)`),
///     "description";
/// ```
///
/// An operand is its [`OperandKind`] followed by its [`Access`]: `_`, `R`,
/// `W` or `RW` (`[List R, IntLocal RW, Target _]`).
macro_rules! isa_table {
    ($(
        $variant:ident = $code:literal, $mnem:literal, [$($opnd:ident $acc:tt),*], $effect:expr, $flow:ident,
        [$($raise:ident),*], $cmp:tt, $doc:literal;
    )*) => {
        /// A CVM opcode. The discriminant is the opcode word.
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u32)]
        pub enum Opcode {
            $(
                #[doc = $doc]
                $variant = $code,
            )*
        }

        /// The instruction table, one entry per opcode, in opcode order.
        pub const OPCODES: &[OpInfo] = &[
            $(
                OpInfo {
                    opcode: Opcode::$variant,
                    mnemonic: $mnem,
                    operands: &[$(OperandKind::$opnd),*],
                    access: &[$(access!($acc)),*],
                    effect: $effect,
                    flow: Flow::$flow,
                    raises: &[$(Raises::$raise),*],
                    compare: compare!($cmp),
                    doc: $doc,
                },
            )*
        ];

        impl Opcode {
            /// Decodes an opcode word.
            pub fn from_word(word: u32) -> Option<Opcode> {
                match word {
                    $( $code => Some(Opcode::$variant), )*
                    _ => None,
                }
            }

            /// The table entry of this opcode.
            pub fn info(self) -> &'static OpInfo {
                match self {
                    $( Opcode::$variant => &OPCODES[Opcode::$variant.table_index()], )*
                }
            }

            /// Position of this opcode in [`OPCODES`].
            const fn table_index(self) -> usize {
                let mut i = 0;
                $(
                    if (self as u32) == $code { return i; }
                    i += 1;
                )*
                let _ = i;
                0
            }
        }
    };
}

use Ty::{Int as I, List as L};

isa_table! {
    Nop = 0x00, "nop", [], Effect::Fixed(&[], &[]), Next, [], _,
        "Does nothing.";
    Halt = 0x01, "halt", [], Effect::Fixed(&[], &[]), Halt, [], _,
        "Stops the whole program; the embedder's call completes without a value.";
    Push = 0x02, "push", [Imm _], Effect::Fixed(&[], &[I]), Next, [], _,
        "Pushes the immediate.";
    Pop = 0x03, "pop", [], Effect::PopAny, Next, [], _,
        "Discards the top value.";
    Dup = 0x04, "dup", [], Effect::DupAny, Next, [], _,
        "Pushes a copy of the top value.";
    Swap = 0x05, "swap", [], Effect::SwapAny, Next, [], _,
        "Exchanges the two top values.";
    Ldl = 0x10, "ldl", [Local R], Effect::LoadLocal, Next, [], _,
        "Pushes the value of a frame slot (a list parameter pushes its list reference).";
    Stl = 0x11, "stl", [IntLocal W], Effect::Fixed(&[I], &[]), Next, [], _,
        "Pops an int into an int frame slot.";
    Ldg = 0x12, "ldg", [Global R], Effect::Fixed(&[], &[I]), Next, [], _,
        "Pushes the value of a global.";
    Stg = 0x13, "stg", [Global W], Effect::Fixed(&[I], &[]), Next, [], _,
        "Pops an int into a global.";
    Incl = 0x14, "incl", [IntLocal RW], Effect::Fixed(&[], &[]), Next, [], _,
        "Adds 1 to an int frame slot (wrapping).";
    Decl = 0x15, "decl", [IntLocal RW], Effect::Fixed(&[], &[]), Next, [], _,
        "Subtracts 1 from an int frame slot (wrapping).";
    Incg = 0x16, "incg", [Global RW], Effect::Fixed(&[], &[]), Next, [], _,
        "Adds 1 to a global (wrapping).";
    Decg = 0x17, "decg", [Global RW], Effect::Fixed(&[], &[]), Next, [], _,
        "Subtracts 1 from a global (wrapping).";
    Tee = 0x18, "tee", [IntLocal W], Effect::Fixed(&[I], &[I]), Next, [], _,
        "Stores the top value into an int local and keeps it on the stack (stl s; ldl s).";
    Lref = 0x20, "lref", [List _], Effect::Fixed(&[], &[L]), Next, [], _,
        "Pushes a reference to a module list.";
    Lde = 0x21, "lde", [List R], Effect::Fixed(&[I], &[I]), Next, [ListBounds], _,
        "Pops an index and pushes that element of a module list.";
    Ste = 0x22, "ste", [List W], Effect::Fixed(&[I, I], &[]), Next, [ListBounds], _,
        "Pops a value and an index (value on top) and stores the value into that element of a module list.";
    Ldx = 0x23, "ldx", [], Effect::Fixed(&[L, I], &[I]), Next, [ListBounds], _,
        "Pops an index and a list reference and pushes that element.";
    Stx = 0x24, "stx", [], Effect::Fixed(&[L, I, I], &[]), Next, [ListBounds], _,
        "Pops a value, an index and a list reference and stores the value into that element.";
    Forl = 0x25, "forl", [List R, IntLocal RW, Target _], Effect::ForStep, Branch, [Fuel], _,
        "For-in step over a module list, using an int frame slot as cursor: if the element at the cursor exists and is not -1, pushes it and advances the cursor, otherwise jumps.";
    Forx = 0x26, "forx", [ListLocal R, IntLocal RW, Target _], Effect::ForStep, Branch, [Fuel], _,
        "For-in step over the list referenced by a list parameter (first operand), cursor in an int frame slot (second operand); as forl.";
    ForlB = 0x27, "forl.b", [List R, IntLocal RW, Target _], Effect::ForStepBack, Branch, [Fuel], _,
        "Inverted for-in step over a module list: if the element at the cursor exists and is not -1, pushes it, advances the cursor and jumps; otherwise falls through (the bottom of an inverted for-in loop).";
    ForxB = 0x28, "forx.b", [ListLocal R, IntLocal RW, Target _], Effect::ForStepBack, Branch, [Fuel], _,
        "Inverted for-in step over the list referenced by a list parameter; as forl.b.";
    Add = 0x30, "add", [], Effect::Fixed(&[I, I], &[I]), Next, [], _,
        "a b -> a+b, wrapping.";
    Sub = 0x31, "sub", [], Effect::Fixed(&[I, I], &[I]), Next, [], _,
        "a b -> a-b, wrapping.";
    Mul = 0x32, "mul", [], Effect::Fixed(&[I, I], &[I]), Next, [], _,
        "a b -> a*b, wrapping.";
    Div = 0x33, "div", [], Effect::Fixed(&[I, I], &[I]), Next, [DivByZero], _,
        "a b -> a/b truncated toward zero; i32::MIN / -1 wraps to i32::MIN.";
    Mod = 0x34, "mod", [], Effect::Fixed(&[I, I], &[I]), Next, [DivByZero], _,
        "a b -> a%b with the sign of a; i32::MIN % -1 is 0.";
    Neg = 0x35, "neg", [], Effect::Fixed(&[I], &[I]), Next, [], _,
        "a -> -a, wrapping.";
    BitAnd = 0x36, "band", [], Effect::Fixed(&[I, I], &[I]), Next, [], _,
        "a b -> a & b.";
    BitOr = 0x37, "bor", [], Effect::Fixed(&[I, I], &[I]), Next, [], _,
        "a b -> a | b.";
    BitXor = 0x38, "bxor", [], Effect::Fixed(&[I, I], &[I]), Next, [], _,
        "a b -> a ^ b.";
    BitNot = 0x39, "bnot", [], Effect::Fixed(&[I], &[I]), Next, [], _,
        "a -> ~a.";
    Eq = 0x40, "eq", [], Effect::Fixed(&[I, I], &[I]), Next, [], (Eq, Value),
        "a b -> 1 if a = b else 0.";
    Ne = 0x41, "ne", [], Effect::Fixed(&[I, I], &[I]), Next, [], (Ne, Value),
        "a b -> 1 if a <> b else 0.";
    Lt = 0x42, "lt", [], Effect::Fixed(&[I, I], &[I]), Next, [], (Lt, Value),
        "a b -> 1 if a < b else 0.";
    Le = 0x43, "le", [], Effect::Fixed(&[I, I], &[I]), Next, [], (Le, Value),
        "a b -> 1 if a <= b else 0.";
    Gt = 0x44, "gt", [], Effect::Fixed(&[I, I], &[I]), Next, [], (Gt, Value),
        "a b -> 1 if a > b else 0.";
    Ge = 0x45, "ge", [], Effect::Fixed(&[I, I], &[I]), Next, [], (Ge, Value),
        "a b -> 1 if a >= b else 0.";
    LNot = 0x46, "lnot", [], Effect::Fixed(&[I], &[I]), Next, [], _,
        "a -> 1 if a = 0 else 0.";
    Jmp = 0x50, "jmp", [Target _], Effect::Fixed(&[], &[]), Jump, [Fuel], _,
        "Jumps to the target (charging 1 + floor(s / 8) units of fuel when the target is not after the jump, s the instructions from the target to the jump).";
    Jz = 0x51, "jz", [Target _], Effect::Fixed(&[I], &[]), Branch, [Fuel], (Eq, BranchZero),
        "Pops a value and jumps if it is 0.";
    Jnz = 0x52, "jnz", [Target _], Effect::Fixed(&[I], &[]), Branch, [Fuel], (Ne, BranchZero),
        "Pops a value and jumps if it is not 0.";
    Case = 0x53, "case", [Imm _, Target _], Effect::Case, Branch, [Fuel], _,
        "If the top value equals the immediate, pops it and jumps; otherwise leaves it and falls through.";
    Call = 0x60, "call", [Func _], Effect::Call, Next, [Depth, Fuel], _,
        "Calls a function with the arguments on the stack (charging 1 + floor(n / 8) units of fuel for a callee of n instructions).";
    Ret = 0x61, "ret", [], Effect::Fixed(&[], &[]), Return, [], _,
        "Returns from a procedure, discarding the frame's operand stack.";
    RetV = 0x62, "retv", [], Effect::Fixed(&[I], &[]), ReturnValue, [], _,
        "Pops the result and returns it from a function.";
    Intr = 0x63, "intr", [Intrinsic _], Effect::Intrinsic, Next, [Fuel, IntrinsicError], _,
        "Calls an intrinsic with the arguments on the stack, after charging the fuel its work costs (docs/cvm.md, Fuel).";
    Fuel = 0x64, "fuel", [Imm _], Effect::Fixed(&[], &[]), Next, [Fuel], _,
        "Charges imm units of fuel (the optimizer's way to keep fuel accounting exact when it removes a charged jump).";
    Enter = 0x65, "enter", [Imm _], Effect::Fixed(&[], &[]), Next, [Depth, Fuel], _,
        "The entry of an inlined call of a callee that makes no calls, imm frames deep in the current frame: raises the call-depth error where a call that deep would, then charges one unit of fuel.";
    EnterF = 0x66, "enter.f", [], Effect::Fixed(&[], &[]), Next, [Depth, Fuel], _,
        "The entry of an inlined call of a callee that makes calls: checks depth and charges fuel as a call would, and counts one frame against the depth limit until the matching leave.";
    Leave = 0x67, "leave", [], Effect::Fixed(&[], &[]), Next, [], _,
        "The end of an inlined call entered with enter.f: the frame it counted no longer counts.";
    Write = 0x70, "write", [], Effect::Fixed(&[I], &[]), Next, [Fuel], _,
        "Pops a value and writes it to the output as one line, after charging one unit of fuel.";
    TextOut = 0x71, "textout", [Text _], Effect::Fixed(&[], &[]), Next, [Fuel], _,
        "Writes a module text to the output as one line, after charging 1 + floor(bytes / 32) units of fuel.";
    AddI = 0x80, "add.i", [Imm _], Effect::Fixed(&[I], &[I]), Next, [], _,
        "a -> a+imm, wrapping (push imm; add).";
    AddL = 0x81, "add.l", [IntLocal R], Effect::Fixed(&[I], &[I]), Next, [], _,
        "a -> a+local, wrapping (ldl s; add).";
    SubL = 0x82, "sub.l", [IntLocal R], Effect::Fixed(&[I], &[I]), Next, [], _,
        "a -> a-local, wrapping (ldl s; sub).";
    MulL = 0x83, "mul.l", [IntLocal R], Effect::Fixed(&[I], &[I]), Next, [], _,
        "a -> a*local, wrapping (ldl s; mul).";
    Ldl2 = 0x84, "ldl2", [IntLocal R, IntLocal R], Effect::Fixed(&[], &[I, I]), Next, [], _,
        "Pushes two int locals (ldl a; ldl b).";
    MulI = 0x85, "mul.i", [Imm _], Effect::Fixed(&[I], &[I]), Next, [], _,
        "a -> a*imm, wrapping (push imm; mul).";
    DivI = 0x86, "div.i", [Imm _], Effect::Fixed(&[I], &[I]), Next, [DivByZero], _,
        "a -> a/imm truncated toward zero (push imm; div).";
    ModI = 0x87, "mod.i", [Imm _], Effect::Fixed(&[I], &[I]), Next, [DivByZero], _,
        "a -> a%imm with the sign of a (push imm; mod).";
    LdeL = 0x88, "lde.l", [List R, IntLocal R], Effect::Fixed(&[], &[I]), Next, [ListBounds], _,
        "Pushes the element of a module list at the index held by an int local (ldl s; lde l).";
    SteL = 0x89, "ste.l", [List W, IntLocal R], Effect::Fixed(&[I], &[]), Next, [ListBounds], _,
        "Pops a value into the element of a module list at the index held by an int local.";
    LdxL = 0x8A, "ldx.l", [ListLocal R, IntLocal R], Effect::Fixed(&[], &[I]), Next, [ListBounds], _,
        "Pushes the element of a list parameter at the index held by an int local (ldl p; ldl s; ldx).";
    StxL = 0x8B, "stx.l", [ListLocal W, IntLocal R], Effect::Fixed(&[I], &[]), Next, [ListBounds], _,
        "Pops a value into the element of a list parameter at the index held by an int local.";
    LdlAddI = 0x8C, "ldl.add.i", [IntLocal R, Imm _], Effect::Fixed(&[], &[I]), Next, [], _,
        "Pushes an int local plus imm, wrapping (ldl s; add.i imm): an argument like n-1.";
    RetVL = 0x8D, "retv.l", [IntLocal R], Effect::Fixed(&[], &[]), ReturnValue, [], _,
        "Returns the value of an int local from a function (ldl s; retv).";
    JEq = 0x90, "jeq", [Target _], Effect::Fixed(&[I, I], &[]), Branch, [Fuel], (Eq, Branch),
        "Pops b and a and jumps if a = b (eq; jnz).";
    JNe = 0x91, "jne", [Target _], Effect::Fixed(&[I, I], &[]), Branch, [Fuel], (Ne, Branch),
        "Pops b and a and jumps if a <> b.";
    JLt = 0x92, "jlt", [Target _], Effect::Fixed(&[I, I], &[]), Branch, [Fuel], (Lt, Branch),
        "Pops b and a and jumps if a < b.";
    JLe = 0x93, "jle", [Target _], Effect::Fixed(&[I, I], &[]), Branch, [Fuel], (Le, Branch),
        "Pops b and a and jumps if a <= b.";
    JGt = 0x94, "jgt", [Target _], Effect::Fixed(&[I, I], &[]), Branch, [Fuel], (Gt, Branch),
        "Pops b and a and jumps if a > b.";
    JGe = 0x95, "jge", [Target _], Effect::Fixed(&[I, I], &[]), Branch, [Fuel], (Ge, Branch),
        "Pops b and a and jumps if a >= b.";
    JEqI = 0x98, "jeq.i", [Imm _, Target _], Effect::Fixed(&[I], &[]), Branch, [Fuel], (Eq, BranchImm),
        "Pops a and jumps if a = imm (push imm; eq; jnz).";
    JNeI = 0x99, "jne.i", [Imm _, Target _], Effect::Fixed(&[I], &[]), Branch, [Fuel], (Ne, BranchImm),
        "Pops a and jumps if a <> imm.";
    JLtI = 0x9A, "jlt.i", [Imm _, Target _], Effect::Fixed(&[I], &[]), Branch, [Fuel], (Lt, BranchImm),
        "Pops a and jumps if a < imm.";
    JLeI = 0x9B, "jle.i", [Imm _, Target _], Effect::Fixed(&[I], &[]), Branch, [Fuel], (Le, BranchImm),
        "Pops a and jumps if a <= imm.";
    JGtI = 0x9C, "jgt.i", [Imm _, Target _], Effect::Fixed(&[I], &[]), Branch, [Fuel], (Gt, BranchImm),
        "Pops a and jumps if a > imm.";
    JGeI = 0x9D, "jge.i", [Imm _, Target _], Effect::Fixed(&[I], &[]), Branch, [Fuel], (Ge, BranchImm),
        "Pops a and jumps if a >= imm.";
    JEqLI = 0xA0, "jeq.li", [IntLocal R, Imm _, Target _], Effect::Fixed(&[], &[]), Branch, [Fuel], (Eq, BranchLocalImm),
        "Jumps if the int local = imm (ldl s; push imm; eq; jnz).";
    JNeLI = 0xA1, "jne.li", [IntLocal R, Imm _, Target _], Effect::Fixed(&[], &[]), Branch, [Fuel], (Ne, BranchLocalImm),
        "Jumps if the int local <> imm.";
    JLtLI = 0xA2, "jlt.li", [IntLocal R, Imm _, Target _], Effect::Fixed(&[], &[]), Branch, [Fuel], (Lt, BranchLocalImm),
        "Jumps if the int local < imm.";
    JLeLI = 0xA3, "jle.li", [IntLocal R, Imm _, Target _], Effect::Fixed(&[], &[]), Branch, [Fuel], (Le, BranchLocalImm),
        "Jumps if the int local <= imm.";
    JGtLI = 0xA4, "jgt.li", [IntLocal R, Imm _, Target _], Effect::Fixed(&[], &[]), Branch, [Fuel], (Gt, BranchLocalImm),
        "Jumps if the int local > imm.";
    JGeLI = 0xA5, "jge.li", [IntLocal R, Imm _, Target _], Effect::Fixed(&[], &[]), Branch, [Fuel], (Ge, BranchLocalImm),
        "Jumps if the int local >= imm.";
    IncJLtLI = 0xA8, "inc.jlt.li", [IntLocal RW, Imm _, Target _], Effect::Fixed(&[], &[]), Branch, [Fuel], (Lt, IncBranchLocalImm),
        "Adds 1 to the int local (wrapping) and jumps if it is then < imm: a counted loop's step (incl s; jlt.li s imm L).";
    PatAll = 0xB0, "pat.all", [Intrinsic _, Imm _, Imm _], Effect::PatternMask, Next, [Fuel, IntrinsicError], _,
        "A pattern intrinsic whose constant square list was folded into the 64-bit mask lo, hi: true when the pattern holds on every square of the mask (charging the list form's fuel).";
    PatAny = 0xB1, "pat.any", [Intrinsic _, Imm _, Imm _], Effect::PatternMask, Next, [Fuel, IntrinsicError], _,
        "As pat.all, true when the pattern holds on some square of the mask.";
}

/// `COMPARISONS[rel][form]`: the opcode with that relation and form, if the
/// table has one.
const COMPARISONS: [[Option<Opcode>; Form::COUNT]; Rel::ALL.len()] = {
    let mut t = [[None; Form::COUNT]; Rel::ALL.len()];
    let mut i = 0;
    while i < OPCODES.len() {
        if let Some(c) = OPCODES[i].compare {
            assert!(
                t[c.rel as usize][c.form as usize].is_none(),
                "two opcodes with the same relation and form"
            );
            t[c.rel as usize][c.form as usize] = Some(OPCODES[i].opcode);
        }
        i += 1;
    }
    t
};

/// Whether the access column suits the operand kind (see [`Access`]).
const fn access_fits(kind: OperandKind, access: Access) -> bool {
    match kind {
        OperandKind::Imm
        | OperandKind::Target
        | OperandKind::Func
        | OperandKind::Text
        | OperandKind::Intrinsic => matches!(access, Access::None),
        // A `local` may hold a list reference, which must never change.
        OperandKind::Local => matches!(access, Access::Read),
        OperandKind::IntLocal | OperandKind::ListLocal | OperandKind::Global => {
            !matches!(access, Access::None)
        }
        OperandKind::List => true,
    }
}

/// Whether two operand-kind lists are equal (usable in constants).
const fn same_kinds(a: &[OperandKind], b: &[OperandKind]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] as u8 != b[i] as u8 {
            return false;
        }
        i += 1;
    }
    true
}

/// The compile-time check of the table: columns that contradict each other
/// stop the build (the unit tests below say which row and why).
const _: () = {
    let mut i = 0;
    while i < OPCODES.len() {
        let info = &OPCODES[i];
        assert!(
            info.access.len() == info.operands.len(),
            "an access for every operand"
        );
        let mut k = 0;
        while k < info.operands.len() {
            assert!(
                access_fits(info.operands[k], info.access[k]),
                "operand access does not suit its kind"
            );
            k += 1;
        }
        if let Some(c) = info.compare {
            assert!(
                same_kinds(info.operands, c.form.operands()),
                "comparison operands do not match the form"
            );
            assert!(
                matches!(info.flow, Flow::Branch) == c.form.is_branch(),
                "comparison flow does not match the form"
            );
        }
        i += 1;
    }
    let mut f = 0;
    while f < Form::COUNT {
        assert!(
            Form::ALL[f] as usize == f,
            "Form::ALL lists every form in order"
        );
        f += 1;
    }
    let _ = COMPARISONS;
};

impl Opcode {
    /// The instruction's relation and form, when it is a comparison.
    pub fn compare(self) -> Option<Compare> {
        self.info().compare
    }

    /// The comparison opcode with this relation and form, if there is one.
    pub fn with_compare(rel: Rel, form: Form) -> Option<Opcode> {
        COMPARISONS[rel as usize][form as usize]
    }

    /// The comparison with the same relation in another form (`jlt` in
    /// [`Form::BranchImm`] is `jlt.i`), if there is one.
    pub fn in_form(self, form: Form) -> Option<Opcode> {
        self.compare()
            .and_then(|c| Opcode::with_compare(c.rel, form))
    }

    /// The comparison of the same form and operands whose relation is the
    /// negation of this one's (`lt` -> `ge`, `jz` -> `jnz`), if there is one.
    pub fn negated(self) -> Option<Opcode> {
        self.compare()
            .and_then(|c| Opcode::with_compare(c.rel.negate(), c.form))
    }

    /// The conditional branch, with the same operands, taken exactly when
    /// this one is not; `None` for everything but a comparison branch whose
    /// negation is in the table.
    pub fn negated_branch(self) -> Option<Opcode> {
        if self.compare()?.form.is_branch() {
            self.negated()
        } else {
            None
        }
    }

    /// The assembler mnemonic.
    pub fn mnemonic(self) -> &'static str {
        self.info().mnemonic
    }

    /// Looks an opcode up by its mnemonic.
    ///
    /// A hash lookup in a table built on first use: the assembler looks up
    /// every instruction it reads, and a scan of [`OPCODES`] comparing
    /// strings was a fifth of the `interp` fuzz target's time (its `.asm`
    /// round trip; docs/fuzzing.md, "Throughput").
    pub fn from_mnemonic(name: &str) -> Option<Opcode> {
        static BY_MNEMONIC: OnceLock<HashMap<&'static str, Opcode>> = OnceLock::new();
        BY_MNEMONIC
            .get_or_init(|| {
                OPCODES
                    .iter()
                    .map(|info| (info.mnemonic, info.opcode))
                    .collect()
            })
            .get(name)
            .copied()
    }

    /// Size of the instruction in words.
    pub fn size(self) -> usize {
        self.info().size()
    }
}

impl fmt::Display for Opcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.mnemonic())
    }
}

/// The opcode reference of `docs/cvm.md`, generated from the table: one
/// row per opcode with its encoding, operands (with what the instruction
/// does with the storage they name: `R` read, `W` written, `RW` both), stack
/// effect, runtime errors and description.
pub fn reference_markdown() -> String {
    let mut out = String::from(
        "| opcode | mnemonic | operands | bytes | stack (before -> after) | errors | description |\n\
         |---|---|---|---|---|---|---|\n",
    );
    let tys = |t: &[Ty]| {
        if t.is_empty() {
            "-".to_string()
        } else {
            t.iter()
                .map(|t| t.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        }
    };
    for info in OPCODES {
        let operands = if info.operands.is_empty() {
            "-".to_string()
        } else {
            info.operands
                .iter()
                .zip(info.access)
                .map(|(k, a)| match a {
                    Access::None => k.name().to_string(),
                    a => format!("{} ({})", k.name(), a.name()),
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        let effect = match info.effect {
            Effect::Fixed(pops, pushes) => format!("{} -> {}", tys(pops), tys(pushes)),
            Effect::LoadLocal => "- -> slot's type".to_string(),
            Effect::PopAny => "any -> -".to_string(),
            Effect::DupAny => "a -> a a".to_string(),
            Effect::SwapAny => "a b -> b a".to_string(),
            Effect::Call => "args -> (int if function)".to_string(),
            Effect::Intrinsic => "args -> (int if it returns)".to_string(),
            Effect::Case => "int -> int (fall through) / - (jump)".to_string(),
            Effect::ForStep => "- -> int (fall through) / - (jump)".to_string(),
            Effect::PatternMask => "args but the list -> int".to_string(),
            Effect::ForStepBack => "- -> int (jump) / - (fall through)".to_string(),
        };
        let errors = if info.raises.is_empty() {
            "-".to_string()
        } else {
            info.raises
                .iter()
                .map(|r| r.describe())
                .collect::<Vec<_>>()
                .join("; ")
        };
        out.push_str(&format!(
            "| 0x{:02X} | `{}` | {} | {} | {} | {} | {} |\n",
            info.opcode as u32,
            info.mnemonic,
            operands,
            info.size() * 4,
            effect,
            errors,
            info.doc
        ));
    }
    out
}

/// The largest number of operand words any opcode takes.
pub const MAX_OPERANDS: usize = 3;

/// One decoded instruction.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Instr {
    /// The opcode.
    pub opcode: Opcode,
    /// The operand words; only the first `opcode.info().operands.len()` are
    /// meaningful, the rest are zero.
    pub operands: [u32; MAX_OPERANDS],
}

/// Why a word sequence is not an instruction.
#[derive(Copy, Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// The opcode word is not in the table.
    #[error("unknown opcode 0x{0:08X}")]
    UnknownOpcode(u32),
    /// The operand words run past the end of the code.
    #[error("instruction {0} is cut off by the end of the code")]
    Truncated(Opcode),
}

impl Instr {
    /// An instruction with the given operands (missing ones are zero).
    pub fn new(opcode: Opcode, operands: &[u32]) -> Instr {
        let mut ops = [0u32; MAX_OPERANDS];
        for (slot, value) in ops.iter_mut().zip(operands) {
            *slot = *value;
        }
        Instr {
            opcode,
            operands: ops,
        }
    }

    /// An instruction without operands.
    pub fn op(opcode: Opcode) -> Instr {
        Instr::new(opcode, &[])
    }

    /// Decodes the instruction starting at word `at` of `code`.
    pub fn decode(code: &[u32], at: usize) -> Result<Instr, DecodeError> {
        let word = *code.get(at).ok_or(DecodeError::UnknownOpcode(0))?;
        let opcode = Opcode::from_word(word).ok_or(DecodeError::UnknownOpcode(word))?;
        let n = opcode.info().operands.len();
        let words = code
            .get(at + 1..at + 1 + n)
            .ok_or(DecodeError::Truncated(opcode))?;
        Ok(Instr::new(opcode, words))
    }

    /// Appends the encoded words to `out`.
    pub fn encode(&self, out: &mut Vec<u32>) {
        out.push(self.opcode as u32);
        out.extend_from_slice(self.operand_words());
    }

    /// The meaningful operand words.
    pub fn operand_words(&self) -> &[u32] {
        &self.operands[..self.opcode.info().operands.len()]
    }

    /// Size in words.
    pub fn size(&self) -> usize {
        self.opcode.size()
    }

    /// The jump target of this instruction, if it has one.
    pub fn target(&self) -> Option<u32> {
        let info = self.opcode.info();
        info.operands
            .iter()
            .position(|k| *k == OperandKind::Target)
            .map(|i| self.operands[i])
    }

    /// The operand of the given kind (the first one, if several), if any.
    pub fn operand(&self, kind: OperandKind) -> Option<u32> {
        let info = self.opcode.info();
        info.operands
            .iter()
            .position(|k| *k == kind)
            .map(|i| self.operands[i])
    }

    /// The operand words with their kinds and access columns.
    pub fn operands_with_access(&self) -> impl Iterator<Item = (OperandKind, Access, u32)> + '_ {
        let info = self.opcode.info();
        info.operands
            .iter()
            .zip(info.access)
            .zip(&self.operands)
            .map(|((&k, &a), &v)| (k, a, v))
    }

    /// The frame slots the instruction writes (as the table says).
    pub fn slots_written(&self) -> impl Iterator<Item = u32> + '_ {
        let info = self.opcode.info();
        (0..info.operands.len())
            .filter(move |&i| info.slot_access(i).writes())
            .map(move |i| self.operands[i])
    }

    /// The frame slots the instruction reads (as the table says; a list
    /// local's slot is read).
    pub fn slots_read(&self) -> impl Iterator<Item = u32> + '_ {
        let info = self.opcode.info();
        (0..info.operands.len())
            .filter(move |&i| info.slot_access(i).reads())
            .map(move |i| self.operands[i])
    }
}

/// Iterates over the instructions of a code range, yielding each word offset
/// and the decoded instruction (or the decode error, after which iteration
/// stops).
pub fn instructions(
    code: &[u32],
    start: usize,
    end: usize,
) -> impl Iterator<Item = (usize, Result<Instr, DecodeError>)> + '_ {
    let end = end.min(code.len());
    let mut at = start;
    let mut failed = false;
    std::iter::from_fn(move || {
        if failed || at >= end {
            return None;
        }
        let here = at;
        match Instr::decode(&code[..end], at) {
            Ok(instr) => {
                at += instr.size();
                Some((here, Ok(instr)))
            }
            Err(e) => {
                failed = true;
                Some((here, Err(e)))
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_consistent() {
        let mut seen = std::collections::HashSet::new();
        for (i, info) in OPCODES.iter().enumerate() {
            assert!(seen.insert(info.mnemonic), "duplicate {}", info.mnemonic);
            assert_eq!(Opcode::from_word(info.opcode as u32), Some(info.opcode));
            assert_eq!(info.opcode.info().mnemonic, info.mnemonic);
            assert_eq!(Opcode::from_mnemonic(info.mnemonic), Some(info.opcode));
            assert!(info.operands.len() <= MAX_OPERANDS);
            if i > 0 {
                assert!(OPCODES[i - 1].opcode < info.opcode, "table not sorted");
            }
            let has_target = info.operands.contains(&OperandKind::Target);
            assert_eq!(
                has_target,
                matches!(info.flow, Flow::Jump | Flow::Branch),
                "{}",
                info.mnemonic
            );
        }
    }

    /// Every operand states an access that suits its kind (the compile-time
    /// check does the same, without naming the row).
    #[test]
    fn every_operand_declares_its_access() {
        for info in OPCODES {
            assert_eq!(
                info.access.len(),
                info.operands.len(),
                "{}: one access per operand",
                info.mnemonic
            );
            for (k, a) in info.operands.iter().zip(info.access) {
                assert!(
                    access_fits(*k, *a),
                    "{}: a {} operand cannot be {}",
                    info.mnemonic,
                    k.name(),
                    a.name()
                );
                if k.is_slot() || *k == OperandKind::Global {
                    assert!(
                        a.reads() || a.writes(),
                        "{}: say whether the {} is read or written",
                        info.mnemonic,
                        k.name()
                    );
                }
            }
            // Every jump can be a backward one, which charges fuel.
            if info.operands.contains(&OperandKind::Target) {
                assert!(info.raises.contains(&Raises::Fuel), "{}", info.mnemonic);
            }
        }
    }

    #[test]
    fn slot_writes_come_from_the_table() {
        let written = |op: Opcode, operands: &[u32]| -> Vec<u32> {
            Instr::new(op, operands).slots_written().collect()
        };
        assert_eq!(written(Opcode::Stl, &[3]), vec![3]);
        assert_eq!(written(Opcode::Tee, &[3]), vec![3]);
        assert_eq!(written(Opcode::Incl, &[3]), vec![3]);
        assert_eq!(written(Opcode::Decl, &[3]), vec![3]);
        assert_eq!(written(Opcode::IncJLtLI, &[3, 10, 0]), vec![3]);
        assert_eq!(written(Opcode::Forl, &[1, 3, 0]), vec![3]);
        assert_eq!(written(Opcode::ForxB, &[2, 3, 0]), vec![3]);
        assert_eq!(written(Opcode::Ldl, &[3]), Vec::<u32>::new());
        assert_eq!(written(Opcode::StxL, &[2, 3]), Vec::<u32>::new());
        assert_eq!(written(Opcode::JLtLI, &[3, 10, 0]), Vec::<u32>::new());
        let read: Vec<u32> = Instr::new(Opcode::StxL, &[2, 3]).slots_read().collect();
        assert_eq!(read, vec![2, 3]);
        // Only int locals are ever written.
        for info in OPCODES {
            for (i, k) in info.operands.iter().enumerate() {
                if info.slot_access(i).writes() {
                    assert_eq!(*k, OperandKind::IntLocal, "{}", info.mnemonic);
                }
            }
        }
    }

    /// The mnemonic a comparison of this relation and form must have.
    fn compare_mnemonic(c: Compare) -> String {
        let r = c.rel.name();
        match (c.form, c.rel) {
            (Form::Value, _) => r.to_string(),
            (Form::Branch, _) => format!("j{r}"),
            (Form::BranchImm, _) => format!("j{r}.i"),
            (Form::BranchLocalImm, _) => format!("j{r}.li"),
            (Form::BranchZero, Rel::Eq) => "jz".to_string(),
            (Form::BranchZero, Rel::Ne) => "jnz".to_string(),
            (Form::BranchZero, _) => format!("j{r}.z"),
            (Form::IncBranchLocalImm, _) => format!("inc.j{r}.li"),
        }
    }

    #[test]
    fn comparison_family_is_consistent() {
        let mut members = 0;
        for info in OPCODES {
            let Some(c) = info.compare else {
                continue;
            };
            members += 1;
            let op = info.opcode;
            let m = info.mnemonic;
            assert_eq!(m, compare_mnemonic(c), "relation or form of {m}");
            assert_eq!(Opcode::with_compare(c.rel, c.form), Some(op), "{m}");
            assert_eq!(info.operands, c.form.operands(), "operands of {m}");
            let (pops, pushes) = c.form.stack();
            assert_eq!(
                info.effect,
                Effect::Fixed(&[Ty::Int, Ty::Int][..pops], &[Ty::Int][..pushes]),
                "stack effect of {m}"
            );
            let local = info
                .operands
                .iter()
                .position(|k| *k == OperandKind::IntLocal)
                .map_or(Access::None, |i| info.access[i]);
            assert_eq!(local, c.form.local_access(), "local access of {m}");
            assert_eq!(info.flow == Flow::Branch, c.form.is_branch(), "{m}");
            // Negation keeps form and operands and round-trips.
            if let Some(n) = op.negated() {
                assert_eq!(n.compare().map(|c| c.form), Some(c.form), "{m}");
                assert_eq!(n.compare().map(|c| c.rel), Some(c.rel.negate()), "{m}");
                assert_eq!(n.negated(), Some(op), "{m}");
                assert_eq!(n.info().operands, info.operands, "{m}");
            }
            assert_eq!(
                op.negated_branch().is_some(),
                c.form.is_branch() && op.negated().is_some()
            );
            // The chain of fused forms the optimizer walks exists whole:
            // `lt; jnz` -> `jlt`, `push k; jlt` -> `jlt.i`, `ldl s; jlt.i`
            // -> `jlt.li`; and a two-operand form has its swapped relation.
            let next = match c.form {
                Form::Value => Some(Form::Branch),
                Form::Branch => Some(Form::BranchImm),
                Form::BranchImm => Some(Form::BranchLocalImm),
                Form::BranchLocalImm | Form::BranchZero | Form::IncBranchLocalImm => None,
            };
            if let Some(f) = next {
                let fused = op
                    .in_form(f)
                    .unwrap_or_else(|| panic!("{m} has no {f:?} form"));
                assert_eq!(fused.compare().map(|c| c.rel), Some(c.rel));
            }
            if c.form.stack().0 == 2 {
                assert!(Opcode::with_compare(c.rel.swap(), c.form).is_some(), "{m}");
            }
        }
        // The forms the optimizer rewrites between have every relation, so
        // every member's negation, swap and fused forms exist.
        for form in [
            Form::Value,
            Form::Branch,
            Form::BranchImm,
            Form::BranchLocalImm,
        ] {
            for rel in Rel::ALL {
                assert!(
                    Opcode::with_compare(rel, form).is_some(),
                    "{rel:?} {form:?}"
                );
            }
        }
        // No row named like a comparison leaves the family column unset.
        for rel in Rel::ALL {
            for form in Form::ALL {
                let c = Compare { rel, form };
                if let Some(op) = Opcode::from_mnemonic(&compare_mnemonic(c)) {
                    assert_eq!(op.compare(), Some(c), "comparison column of {op}");
                }
            }
        }
        assert!(Opcode::with_compare(Rel::Eq, Form::BranchZero) == Some(Opcode::Jz));
        assert!(Opcode::Jz.negated_branch() == Some(Opcode::Jnz));
        assert!(Opcode::IncJLtLI.negated_branch().is_none());
        assert!(Opcode::Lt.negated_branch().is_none());
        assert!(Opcode::Case.negated_branch().is_none());
        // Six relations in four forms, `jz`, `jnz` and `inc.jlt.li`.
        assert!(members >= 27, "{members} comparisons");
    }

    #[test]
    fn relations() {
        let values = [i32::MIN, -1, 0, 1, 7, i32::MAX];
        for r in Rel::ALL {
            assert_eq!(r.negate().negate(), r);
            assert_eq!(r.swap().swap(), r);
            for a in values {
                for b in values {
                    assert_eq!(r.negate().holds(a, b), !r.holds(a, b), "{r:?}");
                    assert_eq!(r.swap().holds(b, a), r.holds(a, b), "{r:?}");
                }
            }
        }
        assert_eq!(
            Rel::ALL.map(|r| r.holds(1, 2)),
            [false, true, true, true, false, false]
        );
    }

    #[test]
    fn jumps_are_eight_bytes_and_plain_ops_four() {
        assert_eq!(Opcode::Jmp.size() * 4, 8);
        assert_eq!(Opcode::Add.size() * 4, 4);
    }

    #[test]
    fn encode_decode_round_trip() {
        for info in OPCODES {
            let operands: Vec<u32> = (0..info.operands.len() as u32).map(|i| i * 7 + 1).collect();
            let instr = Instr::new(info.opcode, &operands);
            let mut words = Vec::new();
            instr.encode(&mut words);
            assert_eq!(words.len(), info.size());
            assert_eq!(Instr::decode(&words, 0), Ok(instr));
            if info.size() > 1 {
                assert_eq!(
                    Instr::decode(&words[..words.len() - 1], 0),
                    Err(DecodeError::Truncated(info.opcode))
                );
            }
        }
        assert_eq!(
            Instr::decode(&[0xDEAD], 0),
            Err(DecodeError::UnknownOpcode(0xDEAD))
        );
    }
}
