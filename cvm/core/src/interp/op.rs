//! The interpreter's private instruction form (the *register form*).
//!
//! Every operand names a register relative to the frame base: the
//! function's frame slots first, then one register per operand-stack depth.
//! Jump targets are indices into the translated code. An op is 8 bytes;
//! operands that do not fit live in the [`Aux`] side table, and the target
//! of a compare-and-branch op in the [`Op::Word`] that follows it.
//!
//! Besides one op per CVM instruction, the translation emits fused ops
//! (the `K` forms, the `LdEJ*`/`LdXJ*` branches) for pairs the operand
//! profiles of the benchmark and advice programs show to be frequent; they
//! are this interpreter's own and are not CVM opcodes.

/// A register number, relative to the frame base.
pub(super) type Reg = u16;

/// One instruction of the register form.
#[derive(Copy, Clone, Debug)]
pub(super) enum Op {
    Halt,
    Const {
        dst: Reg,
        k: i32,
    },
    Mov {
        dst: Reg,
        src: Reg,
    },
    Swap {
        a: Reg,
        b: Reg,
    },
    LdG {
        dst: Reg,
        g: u32,
    },
    StG {
        src: Reg,
        g: u32,
    },
    IncL {
        r: Reg,
    },
    DecL {
        r: Reg,
    },
    IncG {
        g: u32,
    },
    DecG {
        g: u32,
    },
    LRef {
        dst: Reg,
        list: u32,
    },
    LdE {
        dst: Reg,
        idx: Reg,
        list: u16,
    },
    StE {
        idx: Reg,
        val: Reg,
        list: u16,
    },
    /// `StE` of a constant value.
    StEK {
        idx: Reg,
        list: u16,
        k: i16,
    },
    /// `LdE` for list numbers above `u16::MAX`: `aux` holds list and index.
    LdEW {
        dst: Reg,
        aux: u32,
    },
    /// `LdE` of an element whose index the op computes: `p` packs the list
    /// and the index ([`Ix::pack`]). Every fused index op keeps its
    /// operands in the shape of the other ops (16 bits at byte 2, 32 at
    /// byte 4), so that the dispatch decodes no field for them alone.
    LdE2 {
        dst: Reg,
        p: u32,
    },
    /// `StE` at a computed index.
    StE2 {
        val: Reg,
        p: u32,
    },
    /// `StEK` at a computed index.
    StEK2 {
        k: i16,
        p: u32,
    },
    /// `LdEJEqK` / `LdEJNeK` of a computed index.
    LdEJEqK2 {
        k: i16,
        p: u32,
    },
    LdEJNeK2 {
        k: i16,
        p: u32,
    },
    /// `LdX` of a computed index of the list referenced by the packed
    /// register.
    LdX2 {
        dst: Reg,
        p: u32,
    },
    /// `StX` at a computed index.
    StX2 {
        val: Reg,
        p: u32,
    },
    /// `StXK` at a computed index.
    StXK2 {
        k: i16,
        p: u32,
    },
    /// `LdXJEqK` / `LdXJNeK` of a computed index.
    LdXJEqK2 {
        k: i16,
        p: u32,
    },
    LdXJNeK2 {
        k: i16,
        p: u32,
    },
    /// `LdXJEqK` / `LdXJNeK` of an index of three registers ([`Ix3`]):
    /// `q` packs the constant and the index's offset ([`Ix3::pack_k`]).
    LdXJEqK3 {
        q: u16,
        p: u32,
    },
    LdXJNeK3 {
        q: u16,
        p: u32,
    },
    /// `StXK` at an index of three registers, packed as for `LdXJNeK3`.
    StXK3 {
        q: u16,
        p: u32,
    },
    /// `StE` for list numbers above `u16::MAX`: `aux` holds list, index and
    /// value register.
    StEW {
        aux: u32,
    },
    LdX {
        dst: Reg,
        lst: Reg,
        idx: Reg,
    },
    StX {
        lst: Reg,
        idx: Reg,
        val: Reg,
    },
    /// `StX` of a constant value.
    StXK {
        lst: Reg,
        idx: Reg,
        k: i16,
    },
    /// Load a module list's element and jump (to the next `Word`'s target)
    /// if it equals / differs from `k`.
    LdEJEqK {
        idx: Reg,
        list: u16,
        k: i16,
    },
    LdEJNeK {
        idx: Reg,
        list: u16,
        k: i16,
    },
    /// Load an element of a referenced list and jump if it equals / differs
    /// from `k`.
    LdXJEqK {
        lst: Reg,
        idx: Reg,
        k: i16,
    },
    LdXJNeK {
        lst: Reg,
        idx: Reg,
        k: i16,
    },
    /// For-in step over a module list; the list, cursor and exit target are
    /// in `aux[aux]` (keeps this enum at 8 bytes).
    ForL {
        dst: Reg,
        aux: u32,
    },
    /// For-in step over a list parameter; `aux` as for `ForL`, whose `list`
    /// field then names the frame slot holding the list reference.
    ForX {
        dst: Reg,
        aux: u32,
    },
    Add {
        dst: Reg,
        a: Reg,
        b: Reg,
    },
    Sub {
        dst: Reg,
        a: Reg,
        b: Reg,
    },
    Mul {
        dst: Reg,
        a: Reg,
        b: Reg,
    },
    Div {
        dst: Reg,
        a: Reg,
        b: Reg,
    },
    Mod {
        dst: Reg,
        a: Reg,
        b: Reg,
    },
    Neg {
        dst: Reg,
        a: Reg,
    },
    And {
        dst: Reg,
        a: Reg,
        b: Reg,
    },
    Or {
        dst: Reg,
        a: Reg,
        b: Reg,
    },
    Xor {
        dst: Reg,
        a: Reg,
        b: Reg,
    },
    Not {
        dst: Reg,
        a: Reg,
    },
    /// `dst <- (a - b) * k` for a constant `k`, which is in the [`Op::Imm`]
    /// that follows: a weighted difference (`4 * (x - y)`), the usual term
    /// of evaluation code.
    SubMulK {
        dst: Reg,
        a: Reg,
        b: Reg,
    },
    /// `dst <- a * k`, `a & k`, `a | k`, `a ^ k` for a constant operand
    /// `k`, which is in the [`Op::Imm`] that follows.
    MulK {
        dst: Reg,
        a: Reg,
    },
    AndK {
        dst: Reg,
        a: Reg,
    },
    OrK {
        dst: Reg,
        a: Reg,
    },
    XorK {
        dst: Reg,
        a: Reg,
    },
    /// The 32-bit constant operand of the op before it; never executed.
    Imm {
        k: i32,
    },
    Eq {
        dst: Reg,
        a: Reg,
        b: Reg,
    },
    Ne {
        dst: Reg,
        a: Reg,
        b: Reg,
    },
    Lt {
        dst: Reg,
        a: Reg,
        b: Reg,
    },
    Le {
        dst: Reg,
        a: Reg,
        b: Reg,
    },
    Gt {
        dst: Reg,
        a: Reg,
        b: Reg,
    },
    Ge {
        dst: Reg,
        a: Reg,
        b: Reg,
    },
    LNot {
        dst: Reg,
        a: Reg,
    },
    /// Inverted for-in steps (`forl.b`, `forx.b`): jump when an element
    /// was found; `aux` as for `ForL`/`ForX`. First adds 1 to register
    /// `aux.inc` (the `incl` before the step, or a register that is dead
    /// there).
    ForLB {
        dst: Reg,
        aux: u32,
    },
    ForXB {
        dst: Reg,
        aux: u32,
    },
    /// A one-store loop body fused with its inverted for-in step (the
    /// CopyList idiom `to[j] := e; j++`): the `StX` in `aux.store`, then
    /// the step of `ForLB` / `ForXB`, which jumps back to this op. The
    /// [`Op::Imm`] that follows carries the step's code offset for a fuel
    /// trap and is stepped over when the loop ends.
    StXForLB {
        dst: Reg,
        aux: u32,
    },
    StXForXB {
        dst: Reg,
        aux: u32,
    },
    MulI {
        r: Reg,
        k: i32,
    },
    DivI {
        r: Reg,
        k: i32,
    },
    ModI {
        r: Reg,
        k: i32,
    },
    /// `n` moves, in order: `dst+i <- src+i` for `i` in `0..n` (a run of
    /// `Mov`s between neighbouring registers, as the arguments of a call).
    MovN {
        dst: Reg,
        src: Reg,
        n: u16,
    },
    /// Two moves: `dst <- a`, `dst+1 <- b`.
    Mov2 {
        dst: Reg,
        a: Reg,
        b: Reg,
    },
    /// `r += 1`, then jump to the following `Word`'s target if `r < k`.
    IncJLtI {
        r: Reg,
        k: i32,
    },
    /// `r += 1`, then jump to the following `Word`'s target if `r < b`.
    IncJLt {
        r: Reg,
        b: Reg,
    },
    /// `r += r[b]`, then the compare-and-branch `r < k` (its `Word`
    /// after it): the step of a loop counting up by a register's value.
    AddJLtK {
        r: Reg,
        b: Reg,
        k: i16,
    },
    /// An `IncJLt` / `IncJLtI` (its `Word` after it) whose jump goes back
    /// to a test of element `r` of a list against a constant that jumps
    /// forward to this op when the element is to be skipped: the scan
    /// `while r < bound and skipped(list[r]) do r++`. The op increments,
    /// tests the bound and, at the header, the element in one loop until
    /// an element is not skipped (on to the op after the test's `Word`)
    /// or the bound is reached (on after this op's `Word`). The test and
    /// bound are in `aux[aux]` ([`Scan`]).
    IncScan {
        r: Reg,
        aux: u32,
    },
    /// Returns `a + b` (`add; retv`).
    RetAdd {
        a: Reg,
        b: Reg,
    },
    /// Charges `k` units of fuel.
    Fuel {
        k: u32,
    },
    /// An inlined call of a callee that makes no calls, `k` frames deep:
    /// the depth check such a call would make, then one unit of fuel.
    Enter {
        k: u32,
    },
    /// An inlined call of a callee that calls: the depth check and the
    /// fuel of a call, and one frame counted until the next `Leave`.
    EnterF,
    /// Ends the frame counted by an `EnterF`.
    Leave,
    /// A folded pattern: intrinsic, mode and mask are in `aux[aux]` (`a`,
    /// `b` = mask low and high words, `target` = intrinsic | mode << 31);
    /// the scalar argument is in `base`.
    Pat {
        base: Reg,
        aux: u32,
    },
    AddI {
        r: Reg,
        k: i32,
    },
    /// `dst <- src + k` for an immediate that fits 16 bits.
    AddIM {
        dst: Reg,
        src: Reg,
        k: i16,
    },
    // Compare-and-branch ops: the target is in the `Word` that follows.
    JEq {
        a: Reg,
        b: Reg,
    },
    JNe {
        a: Reg,
        b: Reg,
    },
    JLt {
        a: Reg,
        b: Reg,
    },
    JLe {
        a: Reg,
        b: Reg,
    },
    JGt {
        a: Reg,
        b: Reg,
    },
    JGe {
        a: Reg,
        b: Reg,
    },
    JEqI {
        a: Reg,
        k: i32,
    },
    JNeI {
        a: Reg,
        k: i32,
    },
    JLtI {
        a: Reg,
        k: i32,
    },
    JLeI {
        a: Reg,
        k: i32,
    },
    JGtI {
        a: Reg,
        k: i32,
    },
    JGeI {
        a: Reg,
        k: i32,
    },
    /// The operand word of the compare-and-branch op before it; never
    /// executed. `w` is the jump target, `f` the fuel the jump charges when
    /// taken (0 for a forward jump; a backward jump whose charge does not
    /// fit 16 bits goes through a `Jmp` placed after the function, which
    /// charges it).
    Word {
        f: u16,
        w: u32,
    },
    Jmp {
        target: u32,
    },
    Jz {
        r: Reg,
        target: u32,
    },
    Jnz {
        r: Reg,
        target: u32,
    },
    /// `aux[aux]` holds the case value and the target.
    Case {
        r: Reg,
        aux: u32,
    },
    Call {
        func: u32,
        base: Reg,
    },
    /// A call whose arguments end with one computed as register plus
    /// constant: the [`Op::ArgI`] that follows does it first (`f(n - 1)`).
    CallI {
        func: u32,
        base: Reg,
    },
    /// The argument of the [`Op::CallI`] before it: `dst := src + k`.
    ArgI {
        dst: Reg,
        src: Reg,
        k: i16,
    },
    Ret,
    RetV {
        src: Reg,
    },
    /// An intrinsic call: `aux[aux]` holds its form ([`Known`], in `inc`),
    /// the form's operands and the charge the translation worked out
    /// (`fuel`); the arguments lie side by side from `base`, and the result
    /// goes to `base`.
    Intr {
        base: Reg,
        aux: u32,
    },
    /// A [`Known::GET`] form of [`Op::Intr`], in an op of its own (the
    /// hottest form of an advice hook skips the dispatch on the form): the
    /// squares of one set written into a list, their number into `base`.
    Get {
        base: Reg,
        aux: u32,
    },
    /// A one-mask test (a [`Known::KING`] or [`Known::PAT`] form of
    /// [`Op::Intr`], the form in its [`Aux`]) fused with the `jz` or `jnz`
    /// that reads its result: writes no result and jumps, as a
    /// compare-and-branch, when the test's result is [`Aux::when`].
    TestJ {
        aux: u32,
    },
    Write {
        r: Reg,
    },
    TextOut {
        text: u32,
    },
}

// The dispatch loop copies ops out of the code; keep them one word wide.
const _: () = assert!(std::mem::size_of::<Op>() == 8);

/// A list index computed inside a list op: `r[a] + r[b] + off` (wrapping),
/// the `add` (and `addi`) that computed it into a stack register fused
/// into the op that used it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) struct Ix {
    pub a: u8,
    pub b: u8,
    pub off: i8,
}

impl Ix {
    /// Packs a list (module list number or list-reference register) below
    /// 256 with the index: list, `a`, `b`, `off`, one byte each.
    pub fn pack(self, list: u8) -> u32 {
        u32::from(list)
            | u32::from(self.a) << 8
            | u32::from(self.b) << 16
            | u32::from(self.off as u8) << 24
    }

    /// The list and index [`Ix::pack`] packed.
    #[inline(always)]
    pub fn unpack(p: u32) -> (u8, Ix) {
        (
            p as u8,
            Ix {
                a: (p >> 8) as u8,
                b: (p >> 16) as u8,
                off: (p >> 24) as u8 as i8,
            },
        )
    }
}

/// An element index of the shape `a - s + b + off` (registers `a`, `s`
/// and `b` below 256, a small offset), as a diagonal `row - col + n - 1`
/// computes it: what the `*3` ops compute in place of the `Sub` and the
/// `Add` that the stack code runs before the list access.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) struct Ix3 {
    pub a: u8,
    pub s: u8,
    pub b: u8,
    pub off: i8,
}

impl Ix3 {
    /// Packs the list-reference register with the three registers, one
    /// byte each.
    pub fn pack(self, list: u8) -> u32 {
        u32::from(list) | u32::from(self.a) << 8 | u32::from(self.s) << 16 | u32::from(self.b) << 24
    }

    /// Packs a constant operand below 128 in magnitude with the offset.
    pub fn pack_k(self, k: i8) -> u16 {
        u16::from(k as u8) | u16::from(self.off as u8) << 8
    }

    /// The list and the index [`Ix3::pack`] and [`Ix3::pack_k`] packed, and
    /// the constant.
    #[inline(always)]
    pub fn unpack(p: u32, q: u16) -> (u8, Ix3, i32) {
        (
            p as u8,
            Ix3 {
                a: (p >> 8) as u8,
                s: (p >> 16) as u8,
                b: (p >> 24) as u8,
                off: (q >> 8) as u8 as i8,
            },
            i32::from(q as u8 as i8),
        )
    }
}

/// Operands that do not fit an 8-byte [`Op`].
#[derive(Copy, Clone, Debug)]
pub(super) struct Aux {
    /// The list (ForL), the list-reference slot (ForX) or the case value.
    pub a: u32,
    /// The cursor slot (ForL, ForX).
    pub b: u32,
    /// The jump target.
    pub target: u32,
    /// The register an inverted for-in step increments first.
    pub inc: u32,
    /// The fuel an inverted for-in step charges when it jumps.
    pub fuel: u32,
    /// The store an [`Op::StXForLB`] / [`Op::StXForXB`] makes before its
    /// step: list-reference register, index register, value register.
    pub store: [Reg; 3],
    /// A [`Known::PAT`]'s intrinsic, its top bit set for [`Mode::Any`]
    /// (`cvm_chess::pattern::Mode`).
    pub pattern: u32,
    /// The result on which an [`Op::TestJ`] jumps: false for `jz`, true
    /// for `jnz`.
    pub when: bool,
}

// Thirty-two bytes, as before the flag (which sits in the padding).
const _: () = assert!(std::mem::size_of::<Aux>() == 32);

/// How an [`Op::IncScan`] uses its [`Aux`] entry: `a` is the list (a
/// module list number, or the list-reference register with
/// [`Scan::LIST_REF`]), `b` the bound's register (the bound itself with
/// [`Scan::BOUND_K`]), `target` the op index of the header's element test,
/// `inc` the test's constant and `fuel` these flags.
pub(super) struct Scan;

impl Scan {
    /// `a` is a register holding a list reference.
    pub const LIST_REF: u32 = 1;
    /// The header skips an element equal to the constant (else one that
    /// differs from it).
    pub const SKIP_EQ: u32 = 2;
    /// `b` is the bound itself, not its register.
    pub const BOUND_K: u32 = 4;
}

/// Per-function facts the dispatch loop needs at calls.
#[derive(Copy, Clone, Debug)]
pub(super) struct FuncMeta {
    pub entry: u32,
    /// The fuel a call of the function charges
    /// ([`crate::verify::FunctionInfo::call_fuel`], which is far below
    /// `u32::MAX` for any module the loader accepts; saturated).
    pub fuel: u32,
    pub arity: u16,
    pub slots: u16,
    pub frame: u32,
}

// Sixteen bytes: a call indexes the table with a shift.
const _: () = assert!(std::mem::size_of::<FuncMeta>() == 16);

/// A caller's state saved across a call.
#[derive(Copy, Clone, Debug)]
pub(super) struct Frame {
    /// The op index the call returns to.
    pub ret_pc: u32,
    /// How far above the caller's frame base the callee's frame starts (in
    /// registers): the caller's `fp` is the callee's less this.
    pub base: u32,
}

/// The forms of an [`Op::Intr`], in its [`Aux::inc`] (a [`Known::GET`] runs as an
/// [`Op::Get`], a [`Known::KING`] or [`Known::PAT`] test fused with its branch as an
/// [`Op::TestJ`]).
pub(super) struct Known;

impl Known {
    /// The intrinsic `a`, its charge worked out from the arguments as the
    /// call runs.
    pub const COST: u32 = 3;
    /// The intrinsic `a`, called with the arguments in the registers,
    /// charging the translation's charge.
    pub const CALL: u32 = 0;
    /// A `Get` form of one square set: intrinsic `target`'s
    /// ([`crate::intrinsics::IntrinsicInfo::squares`]) or one the op
    /// computes itself for a constant argument (`GET_KNIGHTS`,
    /// `GET_PASSED` of the dispatch loop), scalar argument `a`, list `b`;
    /// the call writes the squares itself.
    pub const GET: u32 = 1;
    /// `KingPos` of colour `a` as one mask test, the mask's low and high
    /// words in `b` and `target`.
    pub const KING: u32 = 2;
    /// A pattern intrinsic on a constant list folded into one mask
    /// (`crate::intrinsics::fold_mask`): the folded form of intrinsic
    /// [`Aux::pattern`] with scalar argument `a` and the mask's low and
    /// high words in `b` and `target`.
    pub const PAT: u32 = 4;
}

/// The word naming a folded pattern's intrinsic `id` and its mode, as an
/// [`Op::Pat`]'s `target` and a [`Known::PAT`]'s [`Aux::pattern`] hold it:
/// the top bit set for an or test (`pat.any`, `Mode::Any`).
pub(super) fn pattern_word(id: u32, any: bool) -> u32 {
    id | u32::from(any) << 31
}

/// The intrinsic and the mode a [`pattern_word`] names.
#[inline(always)]
pub(super) fn pattern_of(word: u32) -> (usize, cvm_chess::pattern::Mode) {
    let mode = if word >> 31 == 0 {
        cvm_chess::pattern::Mode::All
    } else {
        cvm_chess::pattern::Mode::Any
    };
    ((word & 0x7FFF_FFFF) as usize, mode)
}
