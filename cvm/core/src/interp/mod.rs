//! The interpreter.
//!
//! # Design
//! A naive stack interpreter spends most of its time moving a stack pointer
//! and re-decoding operand words. The verifier already knows the stack
//! depth before every instruction, so every operand-stack slot has a fixed
//! place in the frame. [`Interpreter::new`] therefore translates verified CVM
//! code, once, into a private *register form*: each reachable CVM
//! instruction becomes at most one `Op` whose operands are frame-relative
//! register numbers (frame slots first, then the operand-stack slots), jump
//! targets are indices into the translated code, and no stack pointer exists
//! at run time. A call does not copy its arguments: the callee's frame starts
//! where the caller's arguments already lie, and the result is written to the
//! first of those slots (the same trick Lua's register VM uses).
//!
//! The dispatch loop is a `match` over a small `Copy` enum, which compiles to
//! one jump table. Register accesses are unchecked: the translation only
//! produces register numbers below the frame size that the verifier
//! established, and every call makes sure the register file holds the
//! callee's whole frame. Everything that depends on run-time values (list
//! indices, divisors, call depth, fuel) is checked.
//!
//! Runtime errors carry the CVM code offset of the failing instruction,
//! found through a side table, so the translation is invisible to users.

use crate::dispatch::{CallHook, CallSite, Handled};
use crate::intrinsics::{Ctx, INTRINSICS};
use crate::isa::{Opcode, Rel};
use crate::module::Module;
use crate::runtime::{
    arith, Completion, Host, Limits, Memory, Output, RuntimeError, TrapKind, LIST_END,
};
use crate::verify::Program;
use crate::vm::{Backend, Vm};
use cvm_chess::advice_table::AdviceTable;
use cvm_chess::board::BoardView;
use cvm_chess::pattern::Mode;

type Reg = u16;

/// One instruction of the register form. Register operands are relative to
/// the frame base.
#[derive(Copy, Clone, Debug)]
enum Op {
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
    /// `LdE` for list numbers above `u16::MAX`: `aux` holds list and index.
    LdEW {
        dst: Reg,
        aux: u32,
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
    /// was found; `aux` as for `ForL`/`ForX`.
    ForLB {
        dst: Reg,
        aux: u32,
    },
    ForXB {
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
    /// `dst <- src + k` for an immediate that fits 16 bits (`ldl.add.i`).
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
    /// The operand word of the op before it; never executed.
    Word {
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
    Ret,
    RetV {
        src: Reg,
    },
    Intr {
        id: u32,
        base: Reg,
    },
    Write {
        r: Reg,
    },
    TextOut {
        text: u32,
    },
}

/// Operands that do not fit an 8-byte [`Op`].
#[derive(Copy, Clone, Debug)]
struct Aux {
    /// The list (ForL), the list-reference slot (ForX) or the case value.
    a: u32,
    /// The cursor slot (ForL, ForX).
    b: u32,
    /// The jump target.
    target: u32,
}

// The dispatch loop copies ops out of the code; keep them one word wide.
const _: () = assert!(std::mem::size_of::<Op>() == 8);

/// Receives the code offset of every instruction the interpreter executes
/// (see [`Interpreter::call_profiled`]).
pub trait Profiler {
    /// One executed instruction at CVM code offset `offset`.
    fn step(&mut self, offset: u32);
}

/// The dispatch loop's hook: compiled away for ordinary runs.
trait Hook {
    const ENABLED: bool;
    /// Whether `call` instructions are offered to [`Hook::call`].
    const CALLS: bool = false;
    fn step(&mut self, offset: u32);
    fn call(&mut self, _site: CallSite<'_>) -> Option<Handled> {
        None
    }
}

/// The hook of dispatched runs ([`Interpreter::call_dispatched`]).
struct Dispatched<'a>(&'a mut dyn CallHook);

impl Hook for Dispatched<'_> {
    const ENABLED: bool = false;
    const CALLS: bool = true;
    fn step(&mut self, _: u32) {}
    fn call(&mut self, site: CallSite<'_>) -> Option<Handled> {
        self.0.call(site)
    }
}

/// The op index [`Interpreter::execute`] reports for an error a
/// [`CallHook`] returned; its code offset is in `native_offset`.
const HOOK_TRAP: usize = usize::MAX;

/// The hook of ordinary runs: reports nothing.
struct NoProfile;

impl Hook for NoProfile {
    const ENABLED: bool = false;
    fn step(&mut self, _: u32) {}
}

/// The hook of profiled runs.
struct Profiled<'a>(&'a mut dyn Profiler);

impl Hook for Profiled<'_> {
    const ENABLED: bool = true;
    fn step(&mut self, offset: u32) {
        self.0.step(offset)
    }
}

/// Per-function facts the dispatch loop needs at calls.
#[derive(Copy, Clone, Debug)]
struct FuncMeta {
    entry: u32,
    arity: u32,
    slots: u32,
    frame: u32,
    /// The fuel a call of the function charges ([`crate::verify::FunctionInfo::call_fuel`]).
    fuel: u64,
}

/// A caller's state saved across a call.
#[derive(Copy, Clone, Debug)]
struct Frame {
    ret_pc: u32,
    bp: u32,
}

/// Runs verified programs. Create one per program (the translation happens
/// once), then call functions as often as needed; the instance's globals and
/// lists persist between calls until [`Interpreter::reset`].
///
/// ```
/// use cvm::{asm, Interpreter, Program, NoHost, CollectOutput, Vm};
///
/// let module = asm::assemble(r#"
/// .func main params 0 lists 0 locals 0 stack 2 value
///     push 6
///     push 7
///     mul
///     retv
/// .end
/// "#).unwrap();
/// let program = Program::new(module).unwrap();
/// let mut vm = Interpreter::new(&program);
/// let result = vm.call_by_name("main", &[], &mut NoHost, &mut CollectOutput::default()).unwrap();
/// assert_eq!(result.value(), Some(42));
/// ```
pub struct Interpreter<'p> {
    program: &'p Program,
    code: Vec<Op>,
    aux: Vec<Aux>,
    origin: Vec<u32>,
    /// For each op, the fuel it charges when it jumps backward
    /// ([`crate::verify::FunctionInfo::jump_fuel`]; 0 for other ops).
    back_fuel: Vec<u32>,
    funcs: Vec<FuncMeta>,
    memory: Memory,
    advice: Box<AdviceTable>,
    regs: Vec<i32>,
    frames: Vec<Frame>,
    limits: Limits,
    fuel_used: u64,
    /// The code offset of the last error a [`CallHook`] reported.
    hook_offset: u32,
}

impl<'p> Interpreter<'p> {
    /// Translates a verified program and creates its instance memory.
    pub fn new(program: &'p Program) -> Interpreter<'p> {
        let Translation {
            code,
            aux,
            origin,
            back_fuel,
            funcs,
        } = translate(program);
        Interpreter {
            program,
            code,
            aux,
            origin,
            back_fuel,
            funcs,
            memory: Memory::new(program.module()),
            advice: Box::default(),
            regs: vec![0; 256],
            frames: Vec::with_capacity(64),
            limits: Limits::default(),
            fuel_used: 0,
            hook_offset: 0,
        }
    }

    /// The program being run (for as long as the program lives, unlike
    /// [`Vm::program`]).
    pub fn program(&self) -> &'p Program {
        self.program
    }

    /// Like [`Interpreter::call`], reporting the code offset of every
    /// executed instruction to `profiler` (slower; for measurements such as
    /// choosing superinstructions). `nop` and `pop` execute no operation in
    /// the register form and are not reported.
    pub fn call_profiled(
        &mut self,
        func: u32,
        args: &[i32],
        host: &mut dyn Host,
        output: &mut dyn Output,
        profiler: &mut dyn Profiler,
    ) -> Result<Completion, RuntimeError> {
        self.call_with(func, args, host, output, &mut Profiled(profiler))
    }

    /// Like [`Interpreter::call`], offering every `call` instruction it
    /// executes to `hook`, which may run the callee itself
    /// ([`crate::dispatch`]). The embedder's call itself is not offered.
    pub fn call_dispatched(
        &mut self,
        func: u32,
        args: &[i32],
        host: &mut dyn Host,
        output: &mut dyn Output,
        hook: &mut dyn CallHook,
    ) -> Result<Completion, RuntimeError> {
        self.call_with(func, args, host, output, &mut Dispatched(hook))
    }

    /// The memory and the advice table at once, mutably (for a backend that
    /// runs calls on the interpreter's state, [`crate::dispatch`]).
    pub fn memory_and_advice_mut(&mut self) -> (&mut Memory, &mut AdviceTable) {
        (&mut self.memory, &mut self.advice)
    }

    /// A call with `hook` watching every executed instruction: checks the
    /// arguments, sets up the frame and runs.
    fn call_with<P: Hook>(
        &mut self,
        func: u32,
        args: &[i32],
        host: &mut dyn Host,
        output: &mut dyn Output,
        hook: &mut P,
    ) -> Result<Completion, RuntimeError> {
        let module = self.program.module();
        check_call_args(module, func, args)?;
        let meta = self.funcs[func as usize];
        let need = meta.frame as usize;
        if self.regs.len() < need {
            self.regs.resize(need, 0);
        }
        self.regs[..args.len()].copy_from_slice(args);
        self.regs[args.len()..meta.slots as usize].fill(0);
        self.fuel_used = 0;
        let limit = self.limits.fuel.unwrap_or(u64::MAX);
        // The entry charges as a call would (nothing is spent when it
        // cannot be paid).
        let fuel = crate::fuel::charge_entry(self.program, func, limit)?;
        let result = self.execute(meta.entry as usize, fuel, host, output, hook);
        self.fuel_used += limit - fuel;
        result.map_err(|(kind, pc)| {
            let offset = if pc == HOOK_TRAP {
                self.hook_offset
            } else {
                self.origin[pc]
            };
            RuntimeError::new(kind, offset, module)
        })
    }

    /// The dispatch loop. On error returns the kind and the index of the
    /// failing op.
    fn execute<P: Hook>(
        &mut self,
        start_pc: usize,
        fuel_limit: u64,
        host: &mut dyn Host,
        output: &mut dyn Output,
        profiler: &mut P,
    ) -> Result<Completion, (TrapKind, usize)> {
        let code: &[Op] = &self.code;
        let origin: &[u32] = &self.origin;
        let back_fuel: &[u32] = &self.back_fuel;
        let aux: &[Aux] = &self.aux;
        let funcs: &[FuncMeta] = &self.funcs;
        let memory = &mut self.memory;
        let advice = &mut *self.advice;
        let regs = &mut self.regs;
        let frames = &mut self.frames;
        let texts = &self.program.module().texts;
        let max_depth = self.limits.max_depth.max(1) as usize;
        // The depth limit less the inlined frames open (`enter.f` without
        // its `leave`): a call is too deep when `depth + 1 >= room`, exactly
        // when it would be in the program without inlining. The verifier
        // balances `enter.f` and `leave`, so `room` is back at `max_depth`
        // whenever no inlined frame is open.
        let mut room = max_depth;
        let mut fuel = fuel_limit;
        let mut hook_offset = 0;

        let mut pc = start_pc;
        let mut bp: usize = 0;
        let mut regs_len = regs.len();
        let mut regs_base: *mut i32 = regs.as_mut_ptr();
        let mut fp: *mut i32 = regs_base;
        // Number of saved caller frames; `frames` is only ever grown, and
        // its first `depth` entries are live.
        let mut depth: usize = 0;

        let result = 'run: loop {
            macro_rules! r {
                ($i:expr) => {
                    // SAFETY: `$i` is a register of the current function, below
                    // its frame size (translation invariant), and the register
                    // file holds at least `bp + frame` slots (ensured on every
                    // call and on entry), so the access stays inside `regs`.
                    unsafe { *fp.add($i as usize) }
                };
            }
            macro_rules! set {
                ($i:expr, $v:expr) => {{
                    let v = $v;
                    // SAFETY: as for `r!`.
                    unsafe { *fp.add($i as usize) = v }
                }};
            }
            macro_rules! charge {
                ($at:expr, $cost:expr) => {
                    let cost: u64 = $cost;
                    if fuel < cost {
                        break 'run Err((TrapKind::OutOfFuel, $at));
                    }
                    fuel -= cost;
                };
            }
            // A backward jump of the op at `$at` charges its span.
            macro_rules! charge_back {
                ($at:expr) => {
                    let at = $at;
                    charge!(at, u64::from(back_fuel[at]));
                };
            }
            macro_rules! jump {
                ($target:expr) => {{
                    let t = $target as usize;
                    if t < pc {
                        charge_back!(pc - 1);
                    }
                    pc = t;
                }};
            }
            // A compare-and-branch: the target is the next op's word; the
            // failing op (for fuel) is the one before it.
            macro_rules! cmp_jump {
                ($cond:expr) => {{
                    if $cond {
                        // SAFETY: translation always emits the `Word` after
                        // a compare-and-branch op.
                        let Op::Word { w } = (unsafe { *code.get_unchecked(pc) }) else {
                            break 'run Err((
                                TrapKind::BadCall("corrupt translation".into()),
                                pc - 1,
                            ));
                        };
                        let t = w as usize;
                        if t < pc {
                            charge_back!(pc - 1);
                        }
                        pc = t;
                    } else {
                        pc += 1;
                    }
                }};
            }
            macro_rules! bin {
                ($dst:expr, $a:expr, $b:expr, $f:expr) => {{
                    let f: fn(i32, i32) -> i32 = $f;
                    set!($dst, f(r!($a), r!($b)));
                }};
            }
            // Bounds-checked address of a list element.
            macro_rules! list_slot {
                ($list:expr, $idx:expr) => {{
                    // SAFETY: list numbers come from verified operands or from
                    // list references, which verified code cannot forge.
                    let list = $list as usize;
                    let idx = $idx;
                    let s = unsafe { *memory.lists.get_unchecked(list) };
                    if (idx as u32) >= s.slots {
                        break 'run Err((
                            TrapKind::ListIndex {
                                index: idx,
                                slots: s.slots,
                            },
                            pc - 1,
                        ));
                    }
                    (s.base + idx as u32) as usize
                }};
            }
            // Element access at an address returned by `list_slot!` (or a
            // cursor checked against the list's slots).
            macro_rules! heap {
                ($at:expr) => {
                    // SAFETY: `$at` is `base + i` with `i < slots`, and every
                    // list's slots lie inside the heap (Memory::new).
                    *unsafe { memory.heap.get_unchecked_mut($at) }
                };
            }
            debug_assert!(pc < code.len());
            // SAFETY: translation ends every function with a terminator and
            // only produces jump targets inside the code, so `pc` is in range.
            let op = unsafe { code.get_unchecked(pc) };
            if P::ENABLED {
                profiler.step(origin[pc]);
            }
            pc += 1;
            match *op {
                Op::Const { dst, k } => set!(dst, k),
                Op::Mov { dst, src } => set!(dst, r!(src)),
                Op::Swap { a, b } => {
                    let (x, y) = (r!(a), r!(b));
                    set!(a, y);
                    set!(b, x);
                }
                Op::LdG { dst, g } => set!(dst, memory.globals[g as usize]),
                Op::StG { src, g } => memory.globals[g as usize] = r!(src),
                Op::IncL { r } => set!(r, r!(r).wrapping_add(1)),
                Op::DecL { r } => set!(r, r!(r).wrapping_sub(1)),
                Op::IncG { g } => {
                    let v = &mut memory.globals[g as usize];
                    *v = v.wrapping_add(1);
                }
                Op::DecG { g } => {
                    let v = &mut memory.globals[g as usize];
                    *v = v.wrapping_sub(1);
                }
                Op::LRef { dst, list } => set!(dst, list as i32),
                Op::LdE { dst, idx, list } => {
                    let at = list_slot!(list, r!(idx));
                    set!(dst, heap!(at));
                }
                Op::StE { idx, val, list } => {
                    let at = list_slot!(list, r!(idx));
                    heap!(at) = r!(val);
                }
                Op::LdEW { dst, aux: x } => {
                    let Aux {
                        a: list, b: idx, ..
                    } = aux[x as usize];
                    let at = list_slot!(list, r!(idx));
                    set!(dst, heap!(at));
                }
                Op::StEW { aux: x } => {
                    let Aux {
                        a: list,
                        b: idx,
                        target: val,
                    } = aux[x as usize];
                    let at = list_slot!(list, r!(idx));
                    heap!(at) = r!(val);
                }
                Op::LdX { dst, lst, idx } => {
                    let at = list_slot!(r!(lst), r!(idx));
                    set!(dst, heap!(at));
                }
                Op::StX { lst, idx, val } => {
                    let at = list_slot!(r!(lst), r!(idx));
                    heap!(at) = r!(val);
                }
                Op::ForL { dst, aux: x } => {
                    let Aux {
                        a: list,
                        b: cursor,
                        target,
                    } = aux[x as usize];
                    let c = r!(cursor);
                    // SAFETY: verified list operand.
                    let s = unsafe { *memory.lists.get_unchecked(list as usize) };
                    let v = if (c as u32) < s.slots {
                        heap!((s.base + c as u32) as usize)
                    } else {
                        LIST_END
                    };
                    if v == LIST_END {
                        jump!(target);
                    } else {
                        set!(dst, v);
                        set!(cursor, c.wrapping_add(1));
                    }
                }
                Op::ForX { dst, aux: x } => {
                    let Aux {
                        a: lst,
                        b: cursor,
                        target,
                    } = aux[x as usize];
                    let c = r!(cursor);
                    let l = r!(lst) as usize;
                    // SAFETY: list references cannot be forged.
                    let s = unsafe { *memory.lists.get_unchecked(l) };
                    let v = if (c as u32) < s.slots {
                        heap!((s.base + c as u32) as usize)
                    } else {
                        LIST_END
                    };
                    if v == LIST_END {
                        jump!(target);
                    } else {
                        set!(dst, v);
                        set!(cursor, c.wrapping_add(1));
                    }
                }
                Op::Add { dst, a, b } => bin!(dst, a, b, i32::wrapping_add),
                Op::Sub { dst, a, b } => bin!(dst, a, b, i32::wrapping_sub),
                Op::Mul { dst, a, b } => bin!(dst, a, b, i32::wrapping_mul),
                Op::Div { dst, a, b } => match arith::div(r!(a), r!(b)) {
                    Some(v) => set!(dst, v),
                    None => break 'run Err((TrapKind::DivisionByZero, pc - 1)),
                },
                Op::Mod { dst, a, b } => match arith::rem(r!(a), r!(b)) {
                    Some(v) => set!(dst, v),
                    None => break 'run Err((TrapKind::DivisionByZero, pc - 1)),
                },
                Op::Neg { dst, a } => set!(dst, r!(a).wrapping_neg()),
                Op::And { dst, a, b } => bin!(dst, a, b, |x, y| x & y),
                Op::Or { dst, a, b } => bin!(dst, a, b, |x, y| x | y),
                Op::Xor { dst, a, b } => bin!(dst, a, b, |x, y| x ^ y),
                Op::Not { dst, a } => set!(dst, !r!(a)),
                Op::Eq { dst, a, b } => bin!(dst, a, b, |x, y| (x == y) as i32),
                Op::Ne { dst, a, b } => bin!(dst, a, b, |x, y| (x != y) as i32),
                Op::Lt { dst, a, b } => bin!(dst, a, b, |x, y| (x < y) as i32),
                Op::Le { dst, a, b } => bin!(dst, a, b, |x, y| (x <= y) as i32),
                Op::Gt { dst, a, b } => bin!(dst, a, b, |x, y| (x > y) as i32),
                Op::Ge { dst, a, b } => bin!(dst, a, b, |x, y| (x >= y) as i32),
                Op::LNot { dst, a } => set!(dst, (r!(a) == 0) as i32),
                Op::AddI { r, k } => set!(r, r!(r).wrapping_add(k)),
                Op::AddIM { dst, src, k } => set!(dst, r!(src).wrapping_add(i32::from(k))),
                Op::ForLB { dst, aux: x } | Op::ForXB { dst, aux: x } => {
                    let Aux {
                        a,
                        b: cursor,
                        target,
                    } = aux[x as usize];
                    let list = if matches!(op, Op::ForLB { .. }) {
                        a
                    } else {
                        r!(a) as u32
                    };
                    let c = r!(cursor);
                    // SAFETY: verified list operand, or a list reference,
                    // which verified code cannot forge.
                    let s = unsafe { *memory.lists.get_unchecked(list as usize) };
                    let v = if (c as u32) < s.slots {
                        heap!((s.base + c as u32) as usize)
                    } else {
                        LIST_END
                    };
                    if v != LIST_END {
                        set!(dst, v);
                        set!(cursor, c.wrapping_add(1));
                        jump!(target);
                    }
                }
                Op::MulI { r, k } => set!(r, r!(r).wrapping_mul(k)),
                Op::DivI { r, k } => match arith::div(r!(r), k) {
                    Some(v) => set!(r, v),
                    None => break 'run Err((TrapKind::DivisionByZero, pc - 1)),
                },
                Op::ModI { r, k } => match arith::rem(r!(r), k) {
                    Some(v) => set!(r, v),
                    None => break 'run Err((TrapKind::DivisionByZero, pc - 1)),
                },
                Op::Mov2 { dst, a, b } => {
                    let (x, y) = (r!(a), r!(b));
                    set!(dst, x);
                    set!(dst + 1, y);
                }
                Op::IncJLtI { r, k } => {
                    let v = r!(r).wrapping_add(1);
                    set!(r, v);
                    cmp_jump!(v < k);
                }
                Op::Fuel { k } => {
                    if fuel < u64::from(k) {
                        break 'run Err((TrapKind::OutOfFuel, pc - 1));
                    }
                    fuel -= u64::from(k);
                }
                Op::Pat { base, aux: x } => {
                    let Aux {
                        a: lo,
                        b: hi,
                        target,
                    } = aux[x as usize];
                    let id = (target & 0x7FFF_FFFF) as usize;
                    let mode = if target >> 31 == 0 {
                        Mode::All
                    } else {
                        Mode::Any
                    };
                    let mask = u64::from(lo) | u64::from(hi) << 32;
                    let cost = crate::intrinsics::cost_folded(id as u32, r!(base), mask);
                    if fuel < cost {
                        break 'run Err((TrapKind::OutOfFuel, pc - 1));
                    }
                    fuel -= cost;
                    let hit = match INTRINSICS.get(id).and_then(|i| i.fold) {
                        Some(fold) => (fold.func)(
                            host.board().unwrap_or(&BoardView::EMPTY),
                            r!(base),
                            mask,
                            mode,
                        ),
                        None => false,
                    };
                    set!(base, hit as i32);
                }
                Op::JEq { a, b } => cmp_jump!(r!(a) == r!(b)),
                Op::JNe { a, b } => cmp_jump!(r!(a) != r!(b)),
                Op::JLt { a, b } => cmp_jump!(r!(a) < r!(b)),
                Op::JLe { a, b } => cmp_jump!(r!(a) <= r!(b)),
                Op::JGt { a, b } => cmp_jump!(r!(a) > r!(b)),
                Op::JGe { a, b } => cmp_jump!(r!(a) >= r!(b)),
                Op::JEqI { a, k } => cmp_jump!(r!(a) == k),
                Op::JNeI { a, k } => cmp_jump!(r!(a) != k),
                Op::JLtI { a, k } => cmp_jump!(r!(a) < k),
                Op::JLeI { a, k } => cmp_jump!(r!(a) <= k),
                Op::JGtI { a, k } => cmp_jump!(r!(a) > k),
                Op::JGeI { a, k } => cmp_jump!(r!(a) >= k),
                Op::Word { .. } => {
                    debug_assert!(false, "operand word executed");
                }
                Op::Jmp { target } => jump!(target),
                Op::Jz { r, target } => {
                    if r!(r) == 0 {
                        jump!(target);
                    }
                }
                Op::Jnz { r, target } => {
                    if r!(r) != 0 {
                        jump!(target);
                    }
                }
                Op::Case { r, aux: x } => {
                    let Aux { a: k, target, .. } = aux[x as usize];
                    if r!(r) == k as i32 {
                        jump!(target);
                    }
                }
                Op::Enter { k } => {
                    let at = pc - 1;
                    if depth.saturating_add(k as usize) >= room {
                        break 'run Err((TrapKind::CallDepth(max_depth as u32), at));
                    }
                    charge!(at, 1);
                }
                Op::EnterF => {
                    let at = pc - 1;
                    if depth + 1 >= room {
                        break 'run Err((TrapKind::CallDepth(max_depth as u32), at));
                    }
                    charge!(at, 1);
                    room -= 1;
                }
                Op::Leave => room += 1,
                Op::Call { func, base } => {
                    let at = pc - 1;
                    if depth + 1 >= room {
                        break 'run Err((TrapKind::CallDepth(max_depth as u32), at));
                    }
                    // SAFETY (index): `func` was range-checked by the verifier.
                    let meta = unsafe { *funcs.get_unchecked(func as usize) };
                    charge!(at, meta.fuel);
                    let new_bp = bp + base as usize;
                    if P::CALLS {
                        // SAFETY: the arguments are the caller's registers
                        // `base..base + arity` (translation invariant), inside
                        // its frame and so inside `regs`.
                        let args = unsafe {
                            std::slice::from_raw_parts(regs_base.add(new_bp), meta.arity as usize)
                        };
                        let site = CallSite {
                            func,
                            args,
                            fuel,
                            depth_left: (room - depth - 1) as u32,
                            max_depth: max_depth as u32,
                            memory: &mut *memory,
                            advice: &mut *advice,
                            host: &mut *host,
                            output: &mut *output,
                        };
                        match profiler.call(site) {
                            None => {}
                            Some(Handled::Returned { value, fuel_left }) => {
                                fuel = fuel_left.min(fuel);
                                if let Some(v) = value {
                                    set!(base, v);
                                }
                                continue;
                            }
                            Some(Handled::Halted { fuel_left }) => {
                                fuel = fuel_left.min(fuel);
                                break 'run Ok(Completion::Halted);
                            }
                            Some(Handled::Trapped {
                                kind,
                                offset,
                                fuel_left,
                            }) => {
                                fuel = fuel_left.min(fuel);
                                hook_offset = offset;
                                break 'run Err((kind, HOOK_TRAP));
                            }
                        }
                    }
                    let need = new_bp + meta.frame as usize;
                    if need > regs_len {
                        regs.resize(need.max(regs_len * 2), 0);
                        regs_len = regs.len();
                        regs_base = regs.as_mut_ptr();
                    }
                    // SAFETY: `new_bp + frame <= regs_len`.
                    fp = unsafe { regs_base.add(new_bp) };
                    for i in meta.arity..meta.slots {
                        set!(i, 0);
                    }
                    if depth == frames.len() {
                        let grown = (frames.len() * 2).max(64);
                        frames.resize(grown, Frame { ret_pc: 0, bp: 0 });
                    }
                    // SAFETY: `depth < frames.len()`, ensured just above.
                    unsafe {
                        *frames.get_unchecked_mut(depth) = Frame {
                            ret_pc: pc as u32,
                            bp: bp as u32,
                        };
                    }
                    depth += 1;
                    bp = new_bp;
                    pc = meta.entry as usize;
                }
                Op::Ret => {
                    if depth == 0 {
                        break 'run Ok(Completion::Returned(None));
                    }
                    depth -= 1;
                    // SAFETY: frames below `depth` were written by calls.
                    let f = unsafe { *frames.get_unchecked(depth) };
                    pc = f.ret_pc as usize;
                    bp = f.bp as usize;
                    // SAFETY: the caller's frame lies below the callee's.
                    fp = unsafe { regs_base.add(bp) };
                }
                Op::RetV { src } => {
                    let v = r!(src);
                    if depth == 0 {
                        break 'run Ok(Completion::Returned(Some(v)));
                    }
                    // The callee's slot 0 is the caller's result slot.
                    set!(0u16, v);
                    depth -= 1;
                    // SAFETY: frames below `depth` were written by calls.
                    let f = unsafe { *frames.get_unchecked(depth) };
                    pc = f.ret_pc as usize;
                    bp = f.bp as usize;
                    // SAFETY: the caller's frame lies below the callee's.
                    fp = unsafe { regs_base.add(bp) };
                }
                Op::Intr { id, base } => {
                    let info = &INTRINSICS[id as usize];
                    let n = info.params.len();
                    let mut args = [0i32; crate::intrinsics::MAX_PARAMS];
                    for (i, a) in args.iter_mut().enumerate().take(n) {
                        *a = r!(base as usize + i);
                    }
                    // The work the call will do is charged before it
                    // starts, a host service's after it (as the JIT's
                    // shim does, through the same function).
                    let mut ctx = Ctx {
                        memory,
                        output,
                        host,
                        advice,
                    };
                    match crate::intrinsics::invoke(id, &mut ctx, &args[..n], fuel) {
                        Ok((v, left)) => {
                            fuel = left;
                            if info.returns {
                                set!(base, v);
                            }
                        }
                        Err((kind, left)) => {
                            fuel = left;
                            break 'run Err((kind, pc - 1));
                        }
                    }
                }
                Op::Write { r } => {
                    charge!(pc - 1, crate::fuel::WRITE_FUEL);
                    output.write_value(r!(r));
                }
                Op::TextOut { text } => {
                    let text = &texts[text as usize].text;
                    charge!(pc - 1, crate::fuel::text_fuel(text.len()));
                    output.write_text(text);
                }
                Op::Halt => break 'run Ok(Completion::Halted),
            }
        };
        self.fuel_used = fuel_limit - fuel;
        self.hook_offset = hook_offset;
        result
    }
}

impl Vm for Interpreter<'_> {
    fn backend(&self) -> Backend {
        Backend::Interp
    }

    fn program(&self) -> &Program {
        self.program
    }

    fn set_limits(&mut self, limits: Limits) {
        self.limits = limits;
    }

    fn limits(&self) -> Limits {
        self.limits
    }

    fn fuel_used(&self) -> u64 {
        self.fuel_used
    }

    fn memory(&self) -> &Memory {
        &self.memory
    }

    fn memory_mut(&mut self) -> &mut Memory {
        &mut self.memory
    }

    fn advice(&self) -> &AdviceTable {
        &self.advice
    }

    fn advice_mut(&mut self) -> &mut AdviceTable {
        &mut self.advice
    }

    fn reset(&mut self) {
        self.memory.reset(self.program.module());
        self.advice.clear();
    }

    fn call(
        &mut self,
        func: u32,
        args: &[i32],
        host: &mut dyn Host,
        output: &mut dyn Output,
    ) -> Result<Completion, RuntimeError> {
        self.call_with(func, args, host, output, &mut NoProfile)
    }
}

/// Checks the embedder's arguments against the function's parameters (both
/// backends use it, so they refuse bad calls with the same message).
#[inline]
pub fn check_call_args(module: &Module, func: u32, args: &[i32]) -> Result<(), RuntimeError> {
    let bad = |m: String| RuntimeError {
        kind: TrapKind::BadCall(m),
        offset: 0,
        pos: None,
    };
    let f = module
        .functions
        .get(func as usize)
        .ok_or_else(|| bad(format!("no function number {func}")))?;
    if args.len() != f.arity() as usize {
        return Err(bad(format!(
            "{} takes {} arguments, {} given",
            f.name,
            f.arity(),
            args.len()
        )));
    }
    for &l in &args[f.value_params as usize..] {
        if l < 0 || l as usize >= module.lists.len() {
            return Err(bad(format!("{l} is not a list of the module")));
        }
    }
    Ok(())
}

/// The relation of a comparison opcode, from its table row. Only
/// comparison opcodes are translated through it (the table's tests check
/// their rows, and the interpreter's tests run every one).
fn rel(op: Opcode) -> Rel {
    match op.compare() {
        Some(c) => c.rel,
        None => unreachable!("{op} is translated as a comparison but its table row has none"),
    }
}

/// `dst = (a rel b)` as 1 or 0.
fn value_op(rel: Rel, dst: Reg, a: Reg, b: Reg) -> Op {
    match rel {
        Rel::Eq => Op::Eq { dst, a, b },
        Rel::Ne => Op::Ne { dst, a, b },
        Rel::Lt => Op::Lt { dst, a, b },
        Rel::Le => Op::Le { dst, a, b },
        Rel::Gt => Op::Gt { dst, a, b },
        Rel::Ge => Op::Ge { dst, a, b },
    }
}

/// Jump if `a rel b` (the target follows in a `Word`).
fn jump_op(rel: Rel, a: Reg, b: Reg) -> Op {
    match rel {
        Rel::Eq => Op::JEq { a, b },
        Rel::Ne => Op::JNe { a, b },
        Rel::Lt => Op::JLt { a, b },
        Rel::Le => Op::JLe { a, b },
        Rel::Gt => Op::JGt { a, b },
        Rel::Ge => Op::JGe { a, b },
    }
}

/// Jump if `a rel k` (the target follows in a `Word`).
fn jump_imm_op(rel: Rel, a: Reg, k: i32) -> Op {
    match rel {
        Rel::Eq => Op::JEqI { a, k },
        Rel::Ne => Op::JNeI { a, k },
        Rel::Lt => Op::JLtI { a, k },
        Rel::Le => Op::JLeI { a, k },
        Rel::Gt => Op::JGtI { a, k },
        Rel::Ge => Op::JGeI { a, k },
    }
}

/// A load from a module list: the compact op when the list number fits 16
/// bits, the wide one otherwise.
fn lde(list: u32, dst: Reg, idx: Reg, add_aux: &mut dyn FnMut(u32, u32, u32) -> u32) -> Op {
    match u16::try_from(list) {
        Ok(list) => Op::LdE { dst, idx, list },
        Err(_) => Op::LdEW {
            dst,
            aux: add_aux(list, u32::from(idx), 0),
        },
    }
}

/// A store into a module list (see [`lde`]).
fn ste(list: u32, idx: Reg, val: Reg, add_aux: &mut dyn FnMut(u32, u32, u32) -> u32) -> Op {
    match u16::try_from(list) {
        Ok(list) => Op::StE { idx, val, list },
        Err(_) => Op::StEW {
            aux: add_aux(list, u32::from(idx), u32::from(val)),
        },
    }
}

/// The register form of a whole program.
struct Translation {
    code: Vec<Op>,
    aux: Vec<Aux>,
    origin: Vec<u32>,
    back_fuel: Vec<u32>,
    funcs: Vec<FuncMeta>,
}

/// Translates every function of a verified program to the register form.
fn translate(program: &Program) -> Translation {
    let module = program.module();
    let mut code: Vec<Op> = Vec::new();
    let mut aux: Vec<Aux> = Vec::new();
    let mut origin: Vec<u32> = Vec::new();
    let mut back_fuel: Vec<u32> = Vec::new();
    let mut funcs = Vec::with_capacity(module.functions.len());
    for (f, info) in module.functions.iter().zip(program.function_infos()) {
        let s = f.frame_slots();
        let start = code.len();
        funcs.push(FuncMeta {
            entry: start as u32,
            arity: f.arity(),
            slots: f.frame_slots(),
            frame: f.frame_slots() + f.max_stack,
            fuel: info.call_fuel(),
        });
        // Ops are emitted with CVM offsets as jump targets; once the
        // function is done, every target is mapped to its op index.
        let mut pc_of = std::collections::HashMap::new();
        let pc = |t: u32| t;
        let mut add_aux = |a: u32, b: u32, target: u32| {
            aux.push(Aux { a, b, target });
            aux.len() as u32 - 1
        };
        for i in &info.instrs {
            pc_of.insert(i.offset, code.len() as u32);
            let Some(d) = i.depth else { continue };
            let ops = i.instr.operands;
            // Register of the stack slot `k` below the top (k = 1: top).
            let st = |k: u32| (s + d - k) as Reg;
            let push = (s + d) as Reg;
            let mut word = None;
            let mut two = |op: Op, target: u32| {
                word = Some(pc(target));
                op
            };
            let op = match i.instr.opcode {
                Opcode::Nop => continue,
                Opcode::Halt => Op::Halt,
                Opcode::Push => Op::Const {
                    dst: push,
                    k: ops[0] as i32,
                },
                Opcode::Pop => continue,
                Opcode::Dup => Op::Mov {
                    dst: push,
                    src: st(1),
                },
                Opcode::Swap => Op::Swap { a: st(2), b: st(1) },
                Opcode::Ldl => Op::Mov {
                    dst: push,
                    src: ops[0] as Reg,
                },
                Opcode::Stl => Op::Mov {
                    dst: ops[0] as Reg,
                    src: st(1),
                },
                Opcode::Ldg => Op::LdG {
                    dst: push,
                    g: ops[0],
                },
                Opcode::Stg => Op::StG {
                    src: st(1),
                    g: ops[0],
                },
                Opcode::Incl => Op::IncL { r: ops[0] as Reg },
                Opcode::Decl => Op::DecL { r: ops[0] as Reg },
                Opcode::Incg => Op::IncG { g: ops[0] },
                Opcode::Decg => Op::DecG { g: ops[0] },
                Opcode::Lref => Op::LRef {
                    dst: push,
                    list: ops[0],
                },
                Opcode::Lde => lde(ops[0], st(1), st(1), &mut add_aux),
                Opcode::LdeL => lde(ops[0], push, ops[1] as Reg, &mut add_aux),
                Opcode::Ste => ste(ops[0], st(2), st(1), &mut add_aux),
                Opcode::SteL => ste(ops[0], ops[1] as Reg, st(1), &mut add_aux),
                Opcode::LdxL => Op::LdX {
                    dst: push,
                    lst: ops[0] as Reg,
                    idx: ops[1] as Reg,
                },
                Opcode::StxL => Op::StX {
                    lst: ops[0] as Reg,
                    idx: ops[1] as Reg,
                    val: st(1),
                },
                Opcode::AddL => Op::Add {
                    dst: st(1),
                    a: st(1),
                    b: ops[0] as Reg,
                },
                Opcode::SubL => Op::Sub {
                    dst: st(1),
                    a: st(1),
                    b: ops[0] as Reg,
                },
                Opcode::MulL => Op::Mul {
                    dst: st(1),
                    a: st(1),
                    b: ops[0] as Reg,
                },
                Opcode::Tee => Op::Mov {
                    dst: ops[0] as Reg,
                    src: st(1),
                },
                Opcode::ForlB => Op::ForLB {
                    dst: push,
                    aux: add_aux(ops[0], ops[1], ops[2]),
                },
                Opcode::ForxB => Op::ForXB {
                    dst: push,
                    aux: add_aux(ops[0], ops[1], ops[2]),
                },
                Opcode::MulI => Op::MulI {
                    r: st(1),
                    k: ops[0] as i32,
                },
                Opcode::DivI => Op::DivI {
                    r: st(1),
                    k: ops[0] as i32,
                },
                Opcode::ModI => Op::ModI {
                    r: st(1),
                    k: ops[0] as i32,
                },
                Opcode::Ldl2 => Op::Mov2 {
                    dst: push,
                    a: ops[0] as Reg,
                    b: ops[1] as Reg,
                },
                Opcode::IncJLtLI => two(
                    Op::IncJLtI {
                        r: ops[0] as Reg,
                        k: ops[1] as i32,
                    },
                    ops[2],
                ),
                Opcode::Fuel => Op::Fuel { k: ops[0] },
                Opcode::Enter => Op::Enter { k: ops[0] },
                Opcode::EnterF => Op::EnterF,
                Opcode::Leave => Op::Leave,
                Opcode::PatAll | Opcode::PatAny => {
                    let mode_bit = u32::from(i.instr.opcode == Opcode::PatAny) << 31;
                    Op::Pat {
                        base: st(INTRINSICS[ops[0] as usize].params.len() as u32 - 1),
                        aux: add_aux(ops[1], ops[2], ops[0] | mode_bit),
                    }
                }
                Opcode::JEqLI
                | Opcode::JNeLI
                | Opcode::JLtLI
                | Opcode::JLeLI
                | Opcode::JGtLI
                | Opcode::JGeLI => two(
                    jump_imm_op(rel(i.instr.opcode), ops[0] as Reg, ops[1] as i32),
                    ops[2],
                ),
                Opcode::Ldx => Op::LdX {
                    dst: st(2),
                    lst: st(2),
                    idx: st(1),
                },
                Opcode::Stx => Op::StX {
                    lst: st(3),
                    idx: st(2),
                    val: st(1),
                },
                Opcode::Forl => Op::ForL {
                    dst: push,
                    aux: add_aux(ops[0], ops[1], ops[2]),
                },
                Opcode::Forx => Op::ForX {
                    dst: push,
                    aux: add_aux(ops[0], ops[1], ops[2]),
                },
                Opcode::Add => Op::Add {
                    dst: st(2),
                    a: st(2),
                    b: st(1),
                },
                Opcode::Sub => Op::Sub {
                    dst: st(2),
                    a: st(2),
                    b: st(1),
                },
                Opcode::Mul => Op::Mul {
                    dst: st(2),
                    a: st(2),
                    b: st(1),
                },
                Opcode::Div => Op::Div {
                    dst: st(2),
                    a: st(2),
                    b: st(1),
                },
                Opcode::Mod => Op::Mod {
                    dst: st(2),
                    a: st(2),
                    b: st(1),
                },
                Opcode::Neg => Op::Neg {
                    dst: st(1),
                    a: st(1),
                },
                Opcode::BitAnd => Op::And {
                    dst: st(2),
                    a: st(2),
                    b: st(1),
                },
                Opcode::BitOr => Op::Or {
                    dst: st(2),
                    a: st(2),
                    b: st(1),
                },
                Opcode::BitXor => Op::Xor {
                    dst: st(2),
                    a: st(2),
                    b: st(1),
                },
                Opcode::BitNot => Op::Not {
                    dst: st(1),
                    a: st(1),
                },
                Opcode::Eq | Opcode::Ne | Opcode::Lt | Opcode::Le | Opcode::Gt | Opcode::Ge => {
                    value_op(rel(i.instr.opcode), st(2), st(2), st(1))
                }
                Opcode::LNot => Op::LNot {
                    dst: st(1),
                    a: st(1),
                },
                Opcode::AddI => Op::AddI {
                    r: st(1),
                    k: ops[0] as i32,
                },
                Opcode::JEq
                | Opcode::JNe
                | Opcode::JLt
                | Opcode::JLe
                | Opcode::JGt
                | Opcode::JGe => two(jump_op(rel(i.instr.opcode), st(2), st(1)), ops[0]),
                Opcode::JEqI
                | Opcode::JNeI
                | Opcode::JLtI
                | Opcode::JLeI
                | Opcode::JGtI
                | Opcode::JGeI => two(
                    jump_imm_op(rel(i.instr.opcode), st(1), ops[0] as i32),
                    ops[1],
                ),
                Opcode::Jmp => Op::Jmp { target: pc(ops[0]) },
                Opcode::Jz => Op::Jz {
                    r: st(1),
                    target: pc(ops[0]),
                },
                Opcode::Jnz => Op::Jnz {
                    r: st(1),
                    target: pc(ops[0]),
                },
                Opcode::Case => Op::Case {
                    r: st(1),
                    aux: add_aux(ops[0], 0, ops[1]),
                },
                Opcode::Call => {
                    let callee = &module.functions[ops[0] as usize];
                    Op::Call {
                        func: ops[0],
                        base: (s + d - callee.arity()) as Reg,
                    }
                }
                Opcode::Ret => Op::Ret,
                Opcode::RetV => Op::RetV { src: st(1) },
                Opcode::RetVL => Op::RetV { src: ops[0] as Reg },
                Opcode::LdlAddI => match i16::try_from(ops[1] as i32) {
                    Ok(k) => Op::AddIM {
                        dst: push,
                        src: ops[0] as Reg,
                        k,
                    },
                    Err(_) => {
                        // A wide immediate: a move, then the add in place.
                        origin.push(i.offset);
                        back_fuel.push(0);
                        code.push(Op::Mov {
                            dst: push,
                            src: ops[0] as Reg,
                        });
                        Op::AddI {
                            r: push,
                            k: ops[1] as i32,
                        }
                    }
                },
                Opcode::Intr => {
                    let n = INTRINSICS[ops[0] as usize].params.len() as u32;
                    Op::Intr {
                        id: ops[0],
                        base: (s + d - n) as Reg,
                    }
                }
                Opcode::Write => Op::Write { r: st(1) },
                Opcode::TextOut => Op::TextOut { text: ops[0] },
            };
            code.push(op);
            origin.push(i.offset);
            // What the op charges when it jumps backward (a function is far
            // shorter than 2^32 instructions).
            let back = i.instr.target().map_or(0, |t| info.jump_fuel(i.offset, t));
            back_fuel.push(u32::try_from(back).unwrap_or(u32::MAX));
            if let Some(w) = word {
                code.push(Op::Word { w });
                origin.push(i.offset);
                back_fuel.push(0);
            }
        }
        // Verified targets are instruction starts of this function, so the
        // map has them all.
        let map = |t: &mut u32| *t = pc_of.get(t).copied().unwrap_or(0);
        for op in &mut code[start..] {
            match op {
                Op::Jmp { target } | Op::Jz { target, .. } | Op::Jnz { target, .. } => map(target),
                Op::Word { w } => map(w),
                // The aux entries of these hold a jump target (other ops use
                // the field for data).
                Op::ForL { aux: x, .. }
                | Op::ForX { aux: x, .. }
                | Op::ForLB { aux: x, .. }
                | Op::ForXB { aux: x, .. }
                | Op::Case { aux: x, .. } => map(&mut aux[*x as usize].target),
                _ => {}
            }
        }
    }
    Translation {
        code,
        aux,
        origin,
        back_fuel,
        funcs,
    }
}
