//! A CVM machine that runs verified code one instruction at a time with
//! its whole state in view: the frames (routine, code offset, frame slots,
//! operand stack), the globals and lists, the advice table.
//!
//! The interpreter (`cvm::Interpreter`) translates code into a private
//! register form and runs it in one loop built for speed; a debugger needs
//! the opposite: a stop after any instruction, with every value where the
//! CVM words say it is. This machine reads the CVM words directly, with the
//! semantics the instruction table documents and the helpers the core
//! shares with its backends (intrinsic calls and their fuel, fuel for calls
//! and backward jumps, integer division, the depth limit), so it stays
//! observably identical to the interpreter: the same output, result, error
//! kind and code offset (tested against it in `tests/machine.rs`).

use cvm::intrinsics::{self, Ctx, INTRINSICS};
use cvm::isa::{Form, Instr, Opcode};
use cvm::runtime::arith;
use cvm::runtime::LIST_END;
use cvm::{
    AdviceTable, BoardView, Completion, Host, Limits, Memory, Output, Program, RuntimeError,
    TrapKind,
};

/// One activation of a routine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    /// The routine (index into the module's functions).
    pub func: u32,
    /// The code offset of the next instruction to execute.
    pub pc: u32,
    /// The frame slots: parameters (values, then list references), then
    /// locals.
    pub slots: Vec<i32>,
    /// The operand stack, bottom first.
    pub stack: Vec<i32>,
}

/// How a call of [`Machine::step`] left the run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stepped {
    /// One instruction ran; the run goes on.
    Running,
    /// The run ended: returned, halted or failed.
    Done(Result<Completion, RuntimeError>),
}

/// A stepping CVM machine for one verified program.
pub struct Machine<'p> {
    program: &'p Program,
    memory: Memory,
    advice: Box<AdviceTable>,
    frames: Vec<Frame>,
    limits: Limits,
    fuel: u64,
    fuel_limit: u64,
    /// The depth limit less the inlined frames open (`enter.f` without its
    /// `leave`), as the interpreter counts it.
    room: usize,
    /// Whether the run stopped with a runtime error.
    failed: bool,
}

/// An error of the running instruction (its offset is added by the caller).
type Trap = TrapKind;

impl<'p> Machine<'p> {
    /// A machine with the module's initial memory and no run started.
    pub fn new(program: &'p Program) -> Machine<'p> {
        Machine {
            program,
            memory: Memory::new(program.module()),
            advice: Box::default(),
            frames: Vec::new(),
            limits: Limits::default(),
            fuel: u64::MAX,
            fuel_limit: u64::MAX,
            room: 0,
            failed: false,
        }
    }

    /// The program run.
    pub fn program(&self) -> &'p Program {
        self.program
    }

    /// Sets the fuel and depth limits of the next run.
    pub fn set_limits(&mut self, limits: Limits) {
        self.limits = limits;
    }

    /// The globals and lists.
    pub fn memory(&self) -> &Memory {
        &self.memory
    }

    /// The advice table.
    pub fn advice(&self) -> &AdviceTable {
        &self.advice
    }

    /// The frames, the embedder's call first; empty before a run starts
    /// and after it returned or halted. After a runtime error they stay as
    /// they were at the failing instruction (each frame's `pc` the
    /// instruction it was executing).
    pub fn frames(&self) -> &[Frame] {
        &self.frames
    }

    /// The code offset of the next instruction, while running.
    pub fn offset(&self) -> Option<u32> {
        if self.failed {
            return None;
        }
        self.frames.last().map(|f| f.pc)
    }

    /// Fuel spent since the run started.
    pub fn fuel_used(&self) -> u64 {
        self.fuel_limit.saturating_sub(self.fuel)
    }

    /// Starts a call of `func` with `args` (one int per value parameter,
    /// then one list index per list parameter), charging the entry's fuel.
    pub fn start(&mut self, func: u32, args: &[i32]) -> Result<(), RuntimeError> {
        let module = self.program.module();
        cvm::interp::check_call_args(module, func, args)?;
        self.frames.clear();
        self.failed = false;
        self.fuel_limit = self.limits.fuel.unwrap_or(u64::MAX);
        self.fuel = self.fuel_limit;
        self.fuel = self.program.charge_entry(func, self.fuel_limit)?;
        self.room = self.limits.max_depth.max(1) as usize;
        self.frames.push(self.frame(func, args));
        Ok(())
    }

    /// Starts the module's entry point (`main`) without arguments.
    pub fn start_entry(&mut self) -> Result<(), RuntimeError> {
        let entry = self.program.module().entry.ok_or_else(|| RuntimeError {
            kind: TrapKind::BadCall("the module has no entry point".into()),
            offset: 0,
            pos: None,
        })?;
        self.start(entry, &[])
    }

    /// Runs to the end without stopping.
    pub fn run_to_end(
        &mut self,
        host: &mut dyn Host,
        output: &mut dyn Output,
    ) -> Result<Completion, RuntimeError> {
        loop {
            if let Stepped::Done(r) = self.step(host, output) {
                return r;
            }
        }
    }

    fn frame(&self, func: u32, args: &[i32]) -> Frame {
        let f = &self.program.module().functions[func as usize];
        let mut slots = args.to_vec();
        slots.resize(f.frame_slots() as usize, 0);
        Frame {
            func,
            pc: f.start,
            slots,
            stack: Vec::with_capacity(f.max_stack as usize),
        }
    }

    /// Executes the next instruction. Without a run in progress, the
    /// answer is a `BadCall` error.
    pub fn step(&mut self, host: &mut dyn Host, output: &mut dyn Output) -> Stepped {
        let Some(at) = self.offset() else {
            return Stepped::Done(Err(RuntimeError {
                kind: TrapKind::BadCall("no run in progress".into()),
                offset: 0,
                pos: None,
            }));
        };
        match self.execute(at, host, output) {
            Ok(None) => Stepped::Running,
            Ok(Some(done)) => {
                self.frames.clear();
                Stepped::Done(Ok(done))
            }
            Err(kind) => {
                // The frames stay as they were at the failing instruction
                // (for a debugger to show), and no further step runs.
                self.top().pc = at;
                self.failed = true;
                Stepped::Done(Err(RuntimeError::new(kind, at, self.program.module())))
            }
        }
    }

    fn charge(&mut self, cost: u64) -> Result<(), Trap> {
        if self.fuel < cost {
            return Err(TrapKind::OutOfFuel);
        }
        self.fuel -= cost;
        Ok(())
    }

    fn top(&mut self) -> &mut Frame {
        let n = self.frames.len();
        &mut self.frames[n - 1]
    }

    fn pop(&mut self) -> i32 {
        self.top().stack.pop().unwrap_or(0)
    }

    fn push(&mut self, v: i32) {
        self.top().stack.push(v);
    }

    fn slot(&mut self, i: u32) -> i32 {
        self.top().slots.get(i as usize).copied().unwrap_or(0)
    }

    fn set_slot(&mut self, i: u32, v: i32) {
        if let Some(s) = self.top().slots.get_mut(i as usize) {
            *s = v;
        }
    }

    /// The heap index of element `index` of list `list`, bounds-checked.
    fn element(&self, list: i32, index: i32) -> Result<usize, Trap> {
        let s = self
            .memory
            .lists
            .get(list as usize)
            .copied()
            .ok_or_else(|| TrapKind::BadCall(format!("{list} is not a list of the module")))?;
        if (index as u32) >= s.slots {
            return Err(TrapKind::ListIndex {
                index,
                slots: s.slots,
            });
        }
        Ok((s.base + index as u32) as usize)
    }

    /// A for-in step's element at `cursor`, or the end marker.
    fn cursor_element(&self, list: i32, cursor: i32) -> i32 {
        match self.element(list, cursor) {
            Ok(i) => self.memory.heap[i],
            Err(_) => LIST_END,
        }
    }

    /// Jumps to `target` from the instruction at `at`, charging a backward
    /// jump's fuel.
    fn jump(&mut self, at: u32, target: u32) -> Result<(), Trap> {
        let func = self.top().func;
        let cost = self.program.function_info(func).jump_fuel(at, target);
        self.charge(cost)?;
        self.top().pc = target;
        Ok(())
    }

    /// Returns from the current frame; `Some` ends the run.
    fn ret(&mut self, value: Option<i32>) -> Option<Completion> {
        self.frames.pop();
        match self.frames.last_mut() {
            None => Some(Completion::Returned(value)),
            Some(caller) => {
                if let Some(v) = value {
                    caller.stack.push(v);
                }
                None
            }
        }
    }

    fn too_deep(&self, extra: usize) -> Result<(), Trap> {
        let depth = self.frames.len() - 1;
        if depth.saturating_add(extra) >= self.room {
            return Err(TrapKind::CallDepth(self.limits.max_depth.max(1)));
        }
        Ok(())
    }

    /// Runs the instruction at `at`: `Ok(Some)` when the run ended.
    fn execute(
        &mut self,
        at: u32,
        host: &mut dyn Host,
        output: &mut dyn Output,
    ) -> Result<Option<Completion>, Trap> {
        let module = self.program.module();
        let instr = Instr::decode(&module.code, at as usize)
            .map_err(|e| TrapKind::BadCall(format!("undecodable instruction: {e}")))?;
        let ops = instr.operand_words();
        let op = |i: usize| ops.get(i).copied().unwrap_or(0);
        let imm = |i: usize| op(i) as i32;
        let next = at + instr.size() as u32;
        self.top().pc = next;
        if let Some(c) = instr.opcode.compare() {
            let rel = c.rel;
            let taken = match c.form {
                Form::Value => {
                    let b = self.pop();
                    let a = self.pop();
                    self.push(rel.holds(a, b) as i32);
                    return Ok(None);
                }
                Form::Branch => {
                    let b = self.pop();
                    let a = self.pop();
                    rel.holds(a, b)
                }
                Form::BranchImm => {
                    let a = self.pop();
                    rel.holds(a, imm(0))
                }
                Form::BranchZero => {
                    let a = self.pop();
                    rel.holds(a, 0)
                }
                Form::BranchLocalImm => {
                    let a = self.slot(op(0));
                    rel.holds(a, imm(1))
                }
                Form::IncBranchLocalImm => {
                    let a = self.slot(op(0)).wrapping_add(1);
                    self.set_slot(op(0), a);
                    rel.holds(a, imm(1))
                }
            };
            if taken {
                let target = instr.target().unwrap_or(next);
                self.jump(at, target)?;
            }
            return Ok(None);
        }
        match instr.opcode {
            Opcode::Nop => {}
            Opcode::Leave => self.room += 1,
            Opcode::Halt => return Ok(Some(Completion::Halted)),
            Opcode::Push => self.push(imm(0)),
            Opcode::Pop => {
                self.pop();
            }
            Opcode::Dup => {
                let v = self.pop();
                self.push(v);
                self.push(v);
            }
            Opcode::Swap => {
                let b = self.pop();
                let a = self.pop();
                self.push(b);
                self.push(a);
            }
            Opcode::Ldl => {
                let v = self.slot(op(0));
                self.push(v);
            }
            Opcode::Stl => {
                let v = self.pop();
                self.set_slot(op(0), v);
            }
            Opcode::Tee => {
                let v = self.pop();
                self.set_slot(op(0), v);
                self.push(v);
            }
            Opcode::Ldg => {
                let v = self.memory.globals[op(0) as usize];
                self.push(v);
            }
            Opcode::Stg => {
                let v = self.pop();
                self.memory.globals[op(0) as usize] = v;
            }
            Opcode::Incl | Opcode::Decl => {
                let d = if instr.opcode == Opcode::Incl { 1 } else { -1 };
                let v = self.slot(op(0)).wrapping_add(d);
                self.set_slot(op(0), v);
            }
            Opcode::Incg | Opcode::Decg => {
                let d = if instr.opcode == Opcode::Incg { 1 } else { -1 };
                let g = &mut self.memory.globals[op(0) as usize];
                *g = g.wrapping_add(d);
            }
            Opcode::Lref => self.push(op(0) as i32),
            Opcode::Lde => {
                let index = self.pop();
                let i = self.element(op(0) as i32, index)?;
                let v = self.memory.heap[i];
                self.push(v);
            }
            Opcode::Ste => {
                let v = self.pop();
                let index = self.pop();
                let i = self.element(op(0) as i32, index)?;
                self.memory.heap[i] = v;
            }
            Opcode::Ldx => {
                let index = self.pop();
                let list = self.pop();
                let i = self.element(list, index)?;
                let v = self.memory.heap[i];
                self.push(v);
            }
            Opcode::Stx => {
                let v = self.pop();
                let index = self.pop();
                let list = self.pop();
                let i = self.element(list, index)?;
                self.memory.heap[i] = v;
            }
            Opcode::Forl | Opcode::Forx | Opcode::ForlB | Opcode::ForxB => {
                let list = match instr.opcode {
                    Opcode::Forl | Opcode::ForlB => op(0) as i32,
                    _ => self.slot(op(0)),
                };
                let cursor = self.slot(op(1));
                let v = self.cursor_element(list, cursor);
                let target = op(2);
                let back = matches!(instr.opcode, Opcode::ForlB | Opcode::ForxB);
                if v == LIST_END {
                    if !back {
                        self.jump(at, target)?;
                    }
                } else {
                    self.push(v);
                    self.set_slot(op(1), cursor.wrapping_add(1));
                    if back {
                        self.jump(at, target)?;
                    }
                }
            }
            Opcode::Add | Opcode::Sub | Opcode::Mul | Opcode::Div | Opcode::Mod => {
                let b = self.pop();
                let a = self.pop();
                let v = binary(instr.opcode, a, b)?;
                self.push(v);
            }
            Opcode::BitAnd | Opcode::BitOr | Opcode::BitXor => {
                let b = self.pop();
                let a = self.pop();
                self.push(match instr.opcode {
                    Opcode::BitAnd => a & b,
                    Opcode::BitOr => a | b,
                    _ => a ^ b,
                });
            }
            Opcode::Neg => {
                let a = self.pop();
                self.push(a.wrapping_neg());
            }
            Opcode::BitNot => {
                let a = self.pop();
                self.push(!a);
            }
            Opcode::LNot => {
                let a = self.pop();
                self.push((a == 0) as i32);
            }
            Opcode::AddI | Opcode::MulI | Opcode::DivI | Opcode::ModI => {
                let a = self.pop();
                let base = match instr.opcode {
                    Opcode::AddI => Opcode::Add,
                    Opcode::MulI => Opcode::Mul,
                    Opcode::DivI => Opcode::Div,
                    _ => Opcode::Mod,
                };
                let v = binary(base, a, imm(0))?;
                self.push(v);
            }
            Opcode::AddL | Opcode::SubL | Opcode::MulL => {
                let a = self.pop();
                let b = self.slot(op(0));
                let base = match instr.opcode {
                    Opcode::AddL => Opcode::Add,
                    Opcode::SubL => Opcode::Sub,
                    _ => Opcode::Mul,
                };
                let v = binary(base, a, b)?;
                self.push(v);
            }
            Opcode::Ldl2 => {
                let (a, b) = (self.slot(op(0)), self.slot(op(1)));
                self.push(a);
                self.push(b);
            }
            Opcode::LdlAddI => {
                let v = self.slot(op(0)).wrapping_add(imm(1));
                self.push(v);
            }
            Opcode::LdeL => {
                let index = self.slot(op(1));
                let i = self.element(op(0) as i32, index)?;
                let v = self.memory.heap[i];
                self.push(v);
            }
            Opcode::SteL => {
                let v = self.pop();
                let index = self.slot(op(1));
                let i = self.element(op(0) as i32, index)?;
                self.memory.heap[i] = v;
            }
            Opcode::LdxL => {
                let (list, index) = (self.slot(op(0)), self.slot(op(1)));
                let i = self.element(list, index)?;
                let v = self.memory.heap[i];
                self.push(v);
            }
            Opcode::StxL => {
                let v = self.pop();
                let (list, index) = (self.slot(op(0)), self.slot(op(1)));
                let i = self.element(list, index)?;
                self.memory.heap[i] = v;
            }
            Opcode::Jmp => self.jump(at, op(0))?,
            Opcode::Case => {
                let v = self.pop();
                if v == imm(0) {
                    self.jump(at, op(1))?;
                } else {
                    self.push(v);
                }
            }
            Opcode::Call => {
                let func = op(0);
                self.too_deep(1)?;
                self.charge(self.program.function_info(func).call_fuel())?;
                let arity = module.functions[func as usize].arity() as usize;
                let stack = &mut self.top().stack;
                let args = stack.split_off(stack.len().saturating_sub(arity));
                let frame = self.frame(func, &args);
                self.frames.push(frame);
            }
            Opcode::Ret => return Ok(self.ret(None)),
            Opcode::RetV => {
                let v = self.pop();
                return Ok(self.ret(Some(v)));
            }
            Opcode::RetVL => {
                let v = self.slot(op(0));
                return Ok(self.ret(Some(v)));
            }
            Opcode::Intr => {
                let id = op(0);
                let info = INTRINSICS
                    .get(id as usize)
                    .ok_or_else(|| TrapKind::BadCall(format!("no intrinsic {id}")))?;
                let stack = &mut self.top().stack;
                let args = stack.split_off(stack.len().saturating_sub(info.params.len()));
                let mut ctx = Ctx {
                    memory: &mut self.memory,
                    output,
                    host,
                    advice: &mut self.advice,
                };
                match intrinsics::invoke(id, &mut ctx, &args, self.fuel) {
                    Ok((v, left)) => {
                        self.fuel = left;
                        if info.returns {
                            self.push(v);
                        }
                    }
                    Err((kind, left)) => {
                        self.fuel = left;
                        return Err(kind);
                    }
                }
            }
            Opcode::PatAll | Opcode::PatAny => {
                let id = op(0);
                let arg = self.pop();
                let mask = u64::from(op(1)) | u64::from(op(2)) << 32;
                self.charge(intrinsics::cost_folded(id, arg, mask))?;
                let mode = if instr.opcode == Opcode::PatAny {
                    cvm_chess::pattern::Mode::Any
                } else {
                    cvm_chess::pattern::Mode::All
                };
                let hit = match INTRINSICS.get(id as usize).and_then(|i| i.fold) {
                    Some(fold) => {
                        (fold.func)(host.board().unwrap_or(&BoardView::EMPTY), arg, mask, mode)
                    }
                    None => false,
                };
                self.push(hit as i32);
            }
            Opcode::Fuel => self.charge(u64::from(op(0)))?,
            Opcode::Enter => {
                self.too_deep(op(0) as usize)?;
                self.charge(1)?;
            }
            Opcode::EnterF => {
                self.too_deep(1)?;
                self.charge(1)?;
                self.room -= 1;
            }
            Opcode::Write => {
                self.charge(cvm::fuel::WRITE_FUEL)?;
                let v = self.pop();
                output.write_value(v);
            }
            Opcode::TextOut => {
                let text = &module.texts[op(0) as usize].text;
                self.charge(cvm::fuel::text_fuel(text.len()))?;
                output.write_text(text);
            }
            other => {
                return Err(TrapKind::BadCall(format!(
                    "`{}` reached the wrong handler",
                    other.mnemonic()
                )))
            }
        }
        Ok(None)
    }
}

/// The arithmetic of the two-operand instructions.
fn binary(op: Opcode, a: i32, b: i32) -> Result<i32, Trap> {
    Ok(match op {
        Opcode::Add => a.wrapping_add(b),
        Opcode::Sub => a.wrapping_sub(b),
        Opcode::Mul => a.wrapping_mul(b),
        Opcode::Div => arith::div(a, b).ok_or(TrapKind::DivisionByZero)?,
        _ => arith::rem(a, b).ok_or(TrapKind::DivisionByZero)?,
    })
}
