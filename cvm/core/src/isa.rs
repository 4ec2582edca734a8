//! The CVM instruction set, defined once.
//!
//! Every opcode appears exactly once, in the [`isa_table!`] invocation at the
//! bottom of this file: its name, its opcode word, the kinds of its operand
//! words, its effect on the operand stack, how control leaves it, the runtime
//! errors it can raise and a one-line description. The [`Opcode`] enum, the
//! encoder and decoder ([`Instr`]), the verifier's stack rules, the assembler's
//! mnemonics, the disassembler's listing and the opcode reference in
//! `docs/cvm.md` are all derived from that table, so adding an instruction is
//! one edit.
//!
//! # Encoding
//! Code is a sequence of 32-bit little-endian words. An instruction is one
//! opcode word followed by a fixed number of operand words (zero to three,
//! given by the table). A plain operation is therefore 4 bytes and a jump
//! (opcode + absolute target) 8 bytes, exactly as in the original CVM. Jump
//! targets are absolute word offsets into the module's code. There are no
//! variable-length encodings.

use std::fmt;

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

/// A runtime error that an instruction may raise, for documentation.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Raises {
    /// Division or modulo by zero.
    DivByZero,
    /// A list index below zero or past the list's last slot.
    ListBounds,
    /// The call-depth limit was reached.
    Depth,
    /// The fuel ran out (charged at calls and taken backward jumps).
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
    /// The effect on the operand stack.
    pub effect: Effect,
    /// How control leaves the instruction.
    pub flow: Flow,
    /// Runtime errors the instruction can raise.
    pub raises: &'static [Raises],
    /// One sentence saying what the instruction does.
    pub doc: &'static str,
}

impl OpInfo {
    /// Size of the instruction in words (opcode word plus operand words).
    pub fn size(&self) -> usize {
        1 + self.operands.len()
    }
}

macro_rules! isa_table {
    ($(
        $variant:ident = $code:literal, $mnem:literal, [$($opnd:ident),*], $effect:expr, $flow:ident,
        [$($raise:ident),*], $doc:literal;
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
                    effect: $effect,
                    flow: Flow::$flow,
                    raises: &[$(Raises::$raise),*],
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
    Nop = 0x00, "nop", [], Effect::Fixed(&[], &[]), Next, [],
        "Does nothing.";
    Halt = 0x01, "halt", [], Effect::Fixed(&[], &[]), Halt, [],
        "Stops the whole program; the embedder's call completes without a value.";
    Push = 0x02, "push", [Imm], Effect::Fixed(&[], &[I]), Next, [],
        "Pushes the immediate.";
    Pop = 0x03, "pop", [], Effect::PopAny, Next, [],
        "Discards the top value.";
    Dup = 0x04, "dup", [], Effect::DupAny, Next, [],
        "Pushes a copy of the top value.";
    Swap = 0x05, "swap", [], Effect::SwapAny, Next, [],
        "Exchanges the two top values.";
    Ldl = 0x10, "ldl", [Local], Effect::LoadLocal, Next, [],
        "Pushes the value of a frame slot (a list parameter pushes its list reference).";
    Stl = 0x11, "stl", [IntLocal], Effect::Fixed(&[I], &[]), Next, [],
        "Pops an int into an int frame slot.";
    Ldg = 0x12, "ldg", [Global], Effect::Fixed(&[], &[I]), Next, [],
        "Pushes the value of a global.";
    Stg = 0x13, "stg", [Global], Effect::Fixed(&[I], &[]), Next, [],
        "Pops an int into a global.";
    Incl = 0x14, "incl", [IntLocal], Effect::Fixed(&[], &[]), Next, [],
        "Adds 1 to an int frame slot (wrapping).";
    Decl = 0x15, "decl", [IntLocal], Effect::Fixed(&[], &[]), Next, [],
        "Subtracts 1 from an int frame slot (wrapping).";
    Incg = 0x16, "incg", [Global], Effect::Fixed(&[], &[]), Next, [],
        "Adds 1 to a global (wrapping).";
    Decg = 0x17, "decg", [Global], Effect::Fixed(&[], &[]), Next, [],
        "Subtracts 1 from a global (wrapping).";
    Tee = 0x18, "tee", [IntLocal], Effect::Fixed(&[I], &[I]), Next, [],
        "Stores the top value into an int local and keeps it on the stack (stl s; ldl s).";
    Lref = 0x20, "lref", [List], Effect::Fixed(&[], &[L]), Next, [],
        "Pushes a reference to a module list.";
    Lde = 0x21, "lde", [List], Effect::Fixed(&[I], &[I]), Next, [ListBounds],
        "Pops an index and pushes that element of a module list.";
    Ste = 0x22, "ste", [List], Effect::Fixed(&[I, I], &[]), Next, [ListBounds],
        "Pops a value and an index (value on top) and stores the value into that element of a module list.";
    Ldx = 0x23, "ldx", [], Effect::Fixed(&[L, I], &[I]), Next, [ListBounds],
        "Pops an index and a list reference and pushes that element.";
    Stx = 0x24, "stx", [], Effect::Fixed(&[L, I, I], &[]), Next, [ListBounds],
        "Pops a value, an index and a list reference and stores the value into that element.";
    Forl = 0x25, "forl", [List, IntLocal, Target], Effect::ForStep, Branch, [],
        "For-in step over a module list, using an int frame slot as cursor: if the element at the cursor exists and is not -1, pushes it and advances the cursor, otherwise jumps.";
    Forx = 0x26, "forx", [ListLocal, IntLocal, Target], Effect::ForStep, Branch, [],
        "For-in step over the list referenced by a list parameter (first operand), cursor in an int frame slot (second operand); as forl.";
    ForlB = 0x27, "forl.b", [List, IntLocal, Target], Effect::ForStepBack, Branch, [Fuel],
        "Inverted for-in step over a module list: if the element at the cursor exists and is not -1, pushes it, advances the cursor and jumps; otherwise falls through (the bottom of an inverted for-in loop).";
    ForxB = 0x28, "forx.b", [ListLocal, IntLocal, Target], Effect::ForStepBack, Branch, [Fuel],
        "Inverted for-in step over the list referenced by a list parameter; as forl.b.";
    Add = 0x30, "add", [], Effect::Fixed(&[I, I], &[I]), Next, [],
        "a b -> a+b, wrapping.";
    Sub = 0x31, "sub", [], Effect::Fixed(&[I, I], &[I]), Next, [],
        "a b -> a-b, wrapping.";
    Mul = 0x32, "mul", [], Effect::Fixed(&[I, I], &[I]), Next, [],
        "a b -> a*b, wrapping.";
    Div = 0x33, "div", [], Effect::Fixed(&[I, I], &[I]), Next, [DivByZero],
        "a b -> a/b truncated toward zero; i32::MIN / -1 wraps to i32::MIN.";
    Mod = 0x34, "mod", [], Effect::Fixed(&[I, I], &[I]), Next, [DivByZero],
        "a b -> a%b with the sign of a; i32::MIN % -1 is 0.";
    Neg = 0x35, "neg", [], Effect::Fixed(&[I], &[I]), Next, [],
        "a -> -a, wrapping.";
    BitAnd = 0x36, "band", [], Effect::Fixed(&[I, I], &[I]), Next, [],
        "a b -> a & b.";
    BitOr = 0x37, "bor", [], Effect::Fixed(&[I, I], &[I]), Next, [],
        "a b -> a | b.";
    BitXor = 0x38, "bxor", [], Effect::Fixed(&[I, I], &[I]), Next, [],
        "a b -> a ^ b.";
    BitNot = 0x39, "bnot", [], Effect::Fixed(&[I], &[I]), Next, [],
        "a -> ~a.";
    Eq = 0x40, "eq", [], Effect::Fixed(&[I, I], &[I]), Next, [],
        "a b -> 1 if a = b else 0.";
    Ne = 0x41, "ne", [], Effect::Fixed(&[I, I], &[I]), Next, [],
        "a b -> 1 if a <> b else 0.";
    Lt = 0x42, "lt", [], Effect::Fixed(&[I, I], &[I]), Next, [],
        "a b -> 1 if a < b else 0.";
    Le = 0x43, "le", [], Effect::Fixed(&[I, I], &[I]), Next, [],
        "a b -> 1 if a <= b else 0.";
    Gt = 0x44, "gt", [], Effect::Fixed(&[I, I], &[I]), Next, [],
        "a b -> 1 if a > b else 0.";
    Ge = 0x45, "ge", [], Effect::Fixed(&[I, I], &[I]), Next, [],
        "a b -> 1 if a >= b else 0.";
    LNot = 0x46, "lnot", [], Effect::Fixed(&[I], &[I]), Next, [],
        "a -> 1 if a = 0 else 0.";
    Jmp = 0x50, "jmp", [Target], Effect::Fixed(&[], &[]), Jump, [Fuel],
        "Jumps to the target (charging fuel when the target is not after the jump).";
    Jz = 0x51, "jz", [Target], Effect::Fixed(&[I], &[]), Branch, [Fuel],
        "Pops a value and jumps if it is 0.";
    Jnz = 0x52, "jnz", [Target], Effect::Fixed(&[I], &[]), Branch, [Fuel],
        "Pops a value and jumps if it is not 0.";
    Case = 0x53, "case", [Imm, Target], Effect::Case, Branch, [Fuel],
        "If the top value equals the immediate, pops it and jumps; otherwise leaves it and falls through.";
    Call = 0x60, "call", [Func], Effect::Call, Next, [Depth, Fuel],
        "Calls a function with the arguments on the stack (charges one unit of fuel).";
    Ret = 0x61, "ret", [], Effect::Fixed(&[], &[]), Return, [],
        "Returns from a procedure, discarding the frame's operand stack.";
    RetV = 0x62, "retv", [], Effect::Fixed(&[I], &[]), ReturnValue, [],
        "Pops the result and returns it from a function.";
    Intr = 0x63, "intr", [Intrinsic], Effect::Intrinsic, Next, [IntrinsicError],
        "Calls an intrinsic with the arguments on the stack.";
    Fuel = 0x64, "fuel", [Imm], Effect::Fixed(&[], &[]), Next, [Fuel],
        "Charges imm units of fuel (the optimizer's way to keep fuel accounting exact when it removes a charged jump).";
    Enter = 0x65, "enter", [Imm], Effect::Fixed(&[], &[]), Next, [Depth, Fuel],
        "The entry of an inlined call of a callee that makes no calls, imm frames deep in the current frame: raises the call-depth error where a call that deep would, then charges one unit of fuel.";
    EnterF = 0x66, "enter.f", [], Effect::Fixed(&[], &[]), Next, [Depth, Fuel],
        "The entry of an inlined call of a callee that makes calls: checks depth and charges fuel as a call would, and counts one frame against the depth limit until the matching leave.";
    Leave = 0x67, "leave", [], Effect::Fixed(&[], &[]), Next, [],
        "The end of an inlined call entered with enter.f: the frame it counted no longer counts.";
    Write = 0x70, "write", [], Effect::Fixed(&[I], &[]), Next, [],
        "Pops a value and writes it to the output as one line.";
    TextOut = 0x71, "textout", [Text], Effect::Fixed(&[], &[]), Next, [],
        "Writes a module text to the output as one line.";
    AddI = 0x80, "add.i", [Imm], Effect::Fixed(&[I], &[I]), Next, [],
        "a -> a+imm, wrapping (push imm; add).";
    AddL = 0x81, "add.l", [IntLocal], Effect::Fixed(&[I], &[I]), Next, [],
        "a -> a+local, wrapping (ldl s; add).";
    SubL = 0x82, "sub.l", [IntLocal], Effect::Fixed(&[I], &[I]), Next, [],
        "a -> a-local, wrapping (ldl s; sub).";
    MulL = 0x83, "mul.l", [IntLocal], Effect::Fixed(&[I], &[I]), Next, [],
        "a -> a*local, wrapping (ldl s; mul).";
    Ldl2 = 0x84, "ldl2", [IntLocal, IntLocal], Effect::Fixed(&[], &[I, I]), Next, [],
        "Pushes two int locals (ldl a; ldl b).";
    MulI = 0x85, "mul.i", [Imm], Effect::Fixed(&[I], &[I]), Next, [],
        "a -> a*imm, wrapping (push imm; mul).";
    DivI = 0x86, "div.i", [Imm], Effect::Fixed(&[I], &[I]), Next, [DivByZero],
        "a -> a/imm truncated toward zero (push imm; div).";
    ModI = 0x87, "mod.i", [Imm], Effect::Fixed(&[I], &[I]), Next, [DivByZero],
        "a -> a%imm with the sign of a (push imm; mod).";
    LdeL = 0x88, "lde.l", [List, IntLocal], Effect::Fixed(&[], &[I]), Next, [ListBounds],
        "Pushes the element of a module list at the index held by an int local (ldl s; lde l).";
    SteL = 0x89, "ste.l", [List, IntLocal], Effect::Fixed(&[I], &[]), Next, [ListBounds],
        "Pops a value into the element of a module list at the index held by an int local.";
    LdxL = 0x8A, "ldx.l", [ListLocal, IntLocal], Effect::Fixed(&[], &[I]), Next, [ListBounds],
        "Pushes the element of a list parameter at the index held by an int local (ldl p; ldl s; ldx).";
    StxL = 0x8B, "stx.l", [ListLocal, IntLocal], Effect::Fixed(&[I], &[]), Next, [ListBounds],
        "Pops a value into the element of a list parameter at the index held by an int local.";
    LdlAddI = 0x8C, "ldl.add.i", [IntLocal, Imm], Effect::Fixed(&[], &[I]), Next, [],
        "Pushes an int local plus imm, wrapping (ldl s; add.i imm): an argument like n-1.";
    RetVL = 0x8D, "retv.l", [IntLocal], Effect::Fixed(&[], &[]), ReturnValue, [],
        "Returns the value of an int local from a function (ldl s; retv).";
    JEq = 0x90, "jeq", [Target], Effect::Fixed(&[I, I], &[]), Branch, [Fuel],
        "Pops b and a and jumps if a = b (eq; jnz).";
    JNe = 0x91, "jne", [Target], Effect::Fixed(&[I, I], &[]), Branch, [Fuel],
        "Pops b and a and jumps if a <> b.";
    JLt = 0x92, "jlt", [Target], Effect::Fixed(&[I, I], &[]), Branch, [Fuel],
        "Pops b and a and jumps if a < b.";
    JLe = 0x93, "jle", [Target], Effect::Fixed(&[I, I], &[]), Branch, [Fuel],
        "Pops b and a and jumps if a <= b.";
    JGt = 0x94, "jgt", [Target], Effect::Fixed(&[I, I], &[]), Branch, [Fuel],
        "Pops b and a and jumps if a > b.";
    JGe = 0x95, "jge", [Target], Effect::Fixed(&[I, I], &[]), Branch, [Fuel],
        "Pops b and a and jumps if a >= b.";
    JEqI = 0x98, "jeq.i", [Imm, Target], Effect::Fixed(&[I], &[]), Branch, [Fuel],
        "Pops a and jumps if a = imm (push imm; eq; jnz).";
    JNeI = 0x99, "jne.i", [Imm, Target], Effect::Fixed(&[I], &[]), Branch, [Fuel],
        "Pops a and jumps if a <> imm.";
    JLtI = 0x9A, "jlt.i", [Imm, Target], Effect::Fixed(&[I], &[]), Branch, [Fuel],
        "Pops a and jumps if a < imm.";
    JLeI = 0x9B, "jle.i", [Imm, Target], Effect::Fixed(&[I], &[]), Branch, [Fuel],
        "Pops a and jumps if a <= imm.";
    JGtI = 0x9C, "jgt.i", [Imm, Target], Effect::Fixed(&[I], &[]), Branch, [Fuel],
        "Pops a and jumps if a > imm.";
    JGeI = 0x9D, "jge.i", [Imm, Target], Effect::Fixed(&[I], &[]), Branch, [Fuel],
        "Pops a and jumps if a >= imm.";
    JEqLI = 0xA0, "jeq.li", [IntLocal, Imm, Target], Effect::Fixed(&[], &[]), Branch, [Fuel],
        "Jumps if the int local = imm (ldl s; push imm; eq; jnz).";
    JNeLI = 0xA1, "jne.li", [IntLocal, Imm, Target], Effect::Fixed(&[], &[]), Branch, [Fuel],
        "Jumps if the int local <> imm.";
    JLtLI = 0xA2, "jlt.li", [IntLocal, Imm, Target], Effect::Fixed(&[], &[]), Branch, [Fuel],
        "Jumps if the int local < imm.";
    JLeLI = 0xA3, "jle.li", [IntLocal, Imm, Target], Effect::Fixed(&[], &[]), Branch, [Fuel],
        "Jumps if the int local <= imm.";
    JGtLI = 0xA4, "jgt.li", [IntLocal, Imm, Target], Effect::Fixed(&[], &[]), Branch, [Fuel],
        "Jumps if the int local > imm.";
    JGeLI = 0xA5, "jge.li", [IntLocal, Imm, Target], Effect::Fixed(&[], &[]), Branch, [Fuel],
        "Jumps if the int local >= imm.";
    IncJLtLI = 0xA8, "inc.jlt.li", [IntLocal, Imm, Target], Effect::Fixed(&[], &[]), Branch, [Fuel],
        "Adds 1 to the int local (wrapping) and jumps if it is then < imm: a counted loop's step (incl s; jlt.li s imm L).";
    PatAll = 0xB0, "pat.all", [Intrinsic, Imm, Imm], Effect::PatternMask, Next, [IntrinsicError],
        "A pattern intrinsic whose constant square list was folded into the 64-bit mask lo, hi: true when the pattern holds on every square of the mask.";
    PatAny = 0xB1, "pat.any", [Intrinsic, Imm, Imm], Effect::PatternMask, Next, [IntrinsicError],
        "As pat.all, true when the pattern holds on some square of the mask.";
}

impl Opcode {
    /// The assembler mnemonic.
    pub fn mnemonic(self) -> &'static str {
        self.info().mnemonic
    }

    /// Looks an opcode up by its mnemonic.
    pub fn from_mnemonic(name: &str) -> Option<Opcode> {
        OPCODES
            .iter()
            .find(|info| info.mnemonic == name)
            .map(|info| info.opcode)
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
/// row per opcode with its encoding, operands, stack effect, runtime errors
/// and description.
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
                .map(|k| k.name())
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
