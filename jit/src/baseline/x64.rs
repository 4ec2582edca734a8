//! The baseline code generator for x86-64 (see the module above): one
//! template per CVM instruction, assembled with `dynasmrt`.

use crate::analysis::deferred::flushes_before;
use crate::context::{offsets, trap, ENTRY, SHIM_TRAP, STATUS_HALT, STATUS_TRAP};
use crate::define::Compiled;
use crate::error::JitError;
use crate::shared::{Checks, ShimIds, FRAME_SETUP};
use cranelift_codegen::binemit::Reloc;
use cranelift_module::{FuncId, ModuleReloc, ModuleRelocTarget};
use cvm::intrinsics::INTRINSICS;
use cvm::isa::{Instr, Opcode, Rel};
use cvm::module::Function;
use cvm::runtime::ListSlice;
use cvm::verify::FunctionInfo;
use cvm::{Memory, Program};
use dynasmrt::x64::X64Relocation;
use dynasmrt::{dynasm, DynamicLabel, DynasmApi, DynasmLabelApi, VecAssembler};

/// What the generator needs from the whole compilation.
pub(crate) struct Target<'a> {
    /// The verified program.
    pub program: &'a Program,
    /// A fresh instance memory: where each list lives in the heap.
    pub initial: &'a Memory,
    /// The module function of each CVM function (`None`: not compiled).
    pub ids: &'a [Option<FuncId>],
    /// The shims' declarations.
    pub shims: &'a ShimIds,
    /// The inline checks to emit.
    pub checks: Checks,
    /// The lists whose fills Cranelift's code defers: a call writing one
    /// goes to the shim that writes the waiting fill first.
    pub deferred: &'a [u32],
}

/// Bytes the prologue pushes below the return address: `rbp`, `rbx`,
/// `r12`, `r13`, `r14`. With the return address that is 48, so `rsp` is
/// 16-byte aligned after the pushes, as calls need.
const PUSHED: u64 = 40;

/// Compiles function `index` of the program to machine code.
pub(crate) fn compile_function(t: &Target<'_>, index: usize) -> Result<Compiled, JitError> {
    let module = t.program.module();
    let f = &module.functions[index];
    let info = &t.program.function_infos()[index];
    let fail = |message: String| JitError::Function {
        function: index as u32,
        name: f.name.clone(),
        message,
    };
    let own = t.ids[index]
        .ok_or_else(|| fail(format!("function {index} is not part of the compilation")))?;
    let mut e = Emit::new(t, f, info, &fail)?;
    e.index = index as u32;
    e.prologue();
    e.body(&fail)?;
    e.osr_entry(&fail)?;
    e.out_of_line();
    let frame = e.frame_bytes;
    let relocs = std::mem::take(&mut e.relocs);
    let bytes = e
        .ops
        .finalize()
        .map_err(|err| fail(format!("assembling failed: {err}")))?;
    Ok(Compiled {
        own,
        alignment: 16,
        bytes,
        relocs,
        frame: u64::from(frame) + PUSHED + FRAME_SETUP,
        native_intrinsics: 0,
        unoptimized: true,
        fuel_bound: 0,
        listing: None,
    })
}

/// A condition of a conditional jump or a `setcc`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Cc {
    E,
    Ne,
    L,
    Le,
    G,
    Ge,
}

impl Cc {
    /// The signed condition of a relation.
    fn of(rel: Rel) -> Cc {
        match rel {
            Rel::Eq => Cc::E,
            Rel::Ne => Cc::Ne,
            Rel::Lt => Cc::L,
            Rel::Le => Cc::Le,
            Rel::Gt => Cc::G,
            Rel::Ge => Cc::Ge,
        }
    }

    /// The condition of a comparison opcode, from its table row.
    fn of_op(op: Opcode, fail: &dyn Fn(String) -> JitError) -> Result<Cc, JitError> {
        op.compare()
            .map(|c| Cc::of(c.rel))
            .ok_or_else(|| fail(format!("{op} has no relation")))
    }
}

/// Where a trap stub finds a payload word.
#[derive(Copy, Clone, Debug)]
enum Word {
    /// A register (its number) at the jump to the stub.
    Reg(u8),
    /// A constant.
    Imm(i32),
}

/// Where an operand the code reads is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Opnd {
    /// A register (its number), the value in its low 32 bits and zero above.
    R(u8),
    /// The frame word at `[rsp + disp]`.
    M(i32),
    /// A constant.
    I(i32),
}

/// An operand-stack slot above [`Emit::base`] whose value is not (yet)
/// in its frame word.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Val {
    /// In its frame word after all (spilled).
    Mem,
    /// A constant.
    Const(i32),
    /// The current value of a frame slot.
    Local(u32),
    /// A register of [`POOL`].
    Reg(u8),
}

/// The registers that hold operand-stack values: no template uses them
/// as scratch, and calls (before which the stack is stored) are the only
/// code that clobbers them.
const POOL: [u8; 3] = [11, 6, 7];

/// The most operand-stack slots the generator keeps out of their frame
/// words at once (deeper ones are stored), so that the work per
/// instruction stays bounded.
const MAX_HELD: usize = 8;

/// `eax`, the scratch register the templates load into.
const EAX: u8 = 0;

/// A run of `enter` and `fuel` instructions with nothing between them:
/// checked at once on the fast path (the deepest `enter`, the sum of the
/// fuel), one by one when that fails.
#[derive(Clone, Debug)]
struct Run {
    /// The run's instructions (code offset, instruction).
    items: Vec<(u32, Instr)>,
    /// The largest `enter` operand, if the run has an `enter`.
    deepest: Option<u32>,
    /// The fuel the run charges.
    fuel: u64,
    /// Where the code after the run's checks starts.
    after: DynamicLabel,
}

/// The exact, one-by-one checks of a [`Run`], emitted out of line: `slow`
/// checks each instruction in turn and goes on at `after`.
struct SlowRun {
    slow: DynamicLabel,
    items: Vec<(u32, Instr)>,
    after: DynamicLabel,
}

/// One check of a chain (`Emit::checks`), with where it goes when it
/// fails.
#[derive(Copy, Clone, Debug)]
enum Check {
    /// The depth left above the operand (`enter`).
    Depth(i32, DynamicLabel),
    /// Takes the units of fuel (the label gives them back).
    Fuel(i32, DynamicLabel),
    /// Counts a back edge down to the next poll.
    Poll(DynamicLabel),
}

/// Out-of-line code that gives back `restore` units of fuel the fast path
/// took and goes on at `then`.
struct Fix {
    label: DynamicLabel,
    restore: i32,
    then: DynamicLabel,
}

/// What a trap stub records before it returns the trap status.
#[derive(Copy, Clone, Debug)]
enum StubKind {
    /// The error kind and the fuel in `r12`.
    Plain(u32),
    /// A bounds error: kind, index and slot count, the fuel in `r12`.
    Bounds(Word, Word),
    /// A shim recorded kind and payload; the fuel is in `r12`.
    Shim,
    /// A shim that charges fuel recorded kind, payload and the fuel left.
    ShimCharged,
}

/// A trap stub, emitted out of line after the body.
struct Stub {
    label: DynamicLabel,
    kind: StubKind,
    offset: u32,
    /// Fuel the code took before it jumped here, given back first.
    restore: i32,
}

/// A back edge that charges fuel, emitted out of line after the body.
struct Edge {
    label: DynamicLabel,
    offset: u32,
    cost: u64,
    target: DynamicLabel,
    /// The target's code offset.
    to: u32,
    /// Charge, poll and go on one by one (the slow path of a merged
    /// edge), never merged with the target's checks.
    exact: bool,
}

/// What an element access does.
#[derive(Copy, Clone, Debug)]
enum Elem {
    /// Loads the element into the register.
    Load(u8),
    /// Stores the value into the element.
    Store(Stored),
}

/// A value to store: a register or a constant.
#[derive(Copy, Clone, Debug)]
enum Stored {
    R(u8),
    I(i32),
}

/// The state of one function's generation.
struct Emit<'a> {
    t: &'a Target<'a>,
    f: &'a Function,
    info: &'a FunctionInfo,
    ops: VecAssembler<X64Relocation>,
    /// One label per instruction, in the order of `info.instrs`.
    labels: Vec<DynamicLabel>,
    epilogue: DynamicLabel,
    stubs: Vec<Stub>,
    edges: Vec<Edge>,
    /// Where a call whose callee stopped the run goes (made on first use).
    propagate: Option<DynamicLabel>,
    relocs: Vec<ModuleReloc>,
    /// Frame offset (from `rsp`) of frame slot 0.
    slots_at: i32,
    /// Frame offset of operand-stack slot 0.
    stack_at: i32,
    /// The frame below the saved registers, in bytes.
    frame_bytes: u32,
    /// The entry for on-stack replacement (emitted out of line) and the
    /// loop headers it serves, when the function has one.
    osr: Option<(DynamicLabel, Vec<u32>)>,
    /// The loop headers of [`Emit::osr`] (the back edges to them poll for
    /// better code).
    heads: Vec<u32>,
    /// The polls at back edges, emitted out of line: the poll's label, the
    /// header's offset and label.
    polls: Vec<(DynamicLabel, u32, DynamicLabel)>,
    /// Whether the entry checks the function's flag in `Context::ready`
    /// (code compiled for on-stack replacement): the poll at the entry is
    /// then the first of [`Emit::polls`], named by [`ENTRY`].
    entry_poll: bool,
    /// The function's index.
    index: u32,
    /// Whether each instruction (in the order of `info.instrs`) is the
    /// target of a jump: the operand stack is in its frame words there.
    targets: Vec<bool>,
    /// The check runs, at the index of their first instruction.
    runs: Vec<Option<Run>>,
    /// The out-of-line halves of the check runs.
    slow_runs: Vec<SlowRun>,
    /// The out-of-line fuel give-backs of the fast checks.
    fixes: Vec<Fix>,
    /// Whether `r14` holds the list heap (functions that touch lists).
    heap_in_r14: bool,
    /// The operand-stack slots from `base` up whose values are elsewhere
    /// than their frame words (bottom first); the slots below `base` are
    /// in their frame words.
    held: Vec<Val>,
    /// See [`Emit::held`].
    base: u32,
    /// False after an instruction that left the whole stack in its frame
    /// words, or that does not fall through: the next one starts afresh
    /// from the verifier's depth.
    modelled: bool,
    /// Whether the instruction being emitted is an intrinsic call that
    /// writes a deferred list
    /// ([`crate::analysis::deferred::flushes_before`]).
    writes_deferred: bool,
}

/// The System V argument registers for CVM arguments 0, 1 and 2 (after
/// `ctx`, fuel and depth in `rdi`, `rsi`, `rdx`).
const REG_ARGS: u32 = 3;

/// Whether an opcode reads or writes list elements (through the heap).
fn touches_lists(op: Opcode) -> bool {
    use Opcode::*;
    matches!(
        op,
        Lde | Ste | LdeL | SteL | Ldx | Stx | LdxL | StxL | Forl | Forx | ForlB | ForxB
    )
}

/// The checks an instruction of a [`Run`] makes: the `enter` operand (if
/// an `enter`) and the fuel.
fn run_checks(instr: Instr, fuel: bool) -> Option<(Option<u32>, u64)> {
    let charge = |n: u64| if fuel { n } else { 0 };
    match instr.opcode {
        Opcode::Enter => Some((Some(instr.operands[0]), charge(1))),
        Opcode::Fuel => Some((None, charge(u64::from(instr.operands[0])))),
        _ => None,
    }
}

/// The check runs of a function: each maximal sequence of reachable
/// `enter` and `fuel` instructions that only its first may be jumped to,
/// indexed by its first instruction. A run whose fuel does not fit an
/// immediate is split in single instructions (checked as they come).
fn check_runs(
    info: &FunctionInfo,
    targets: &[bool],
    fuel: bool,
    ops: &mut VecAssembler<X64Relocation>,
) -> Vec<Option<Run>> {
    let mut runs: Vec<Option<Run>> = vec![None; info.instrs.len()];
    let mut n = 0;
    while n < info.instrs.len() {
        let first = &info.instrs[n];
        if first.depth.is_none() || run_checks(first.instr, fuel).is_none() {
            n += 1;
            continue;
        }
        let mut run = Run {
            items: Vec::new(),
            deepest: None,
            fuel: 0,
            after: ops.new_dynamic_label(),
        };
        let mut m = n;
        while let Some(i) = info.instrs.get(m) {
            if i.depth.is_none() || (m > n && targets[m]) {
                break;
            }
            let Some((deep, cost)) = run_checks(i.instr, fuel) else {
                break;
            };
            let total = run.fuel.saturating_add(cost);
            if m > n && total > i32::MAX as u64 / 2 {
                break;
            }
            run.items.push((i.offset, i.instr));
            run.deepest = run.deepest.max(deep);
            run.fuel = total;
            m += 1;
        }
        runs[n] = Some(run);
        n = m;
    }
    runs
}

impl<'a> Emit<'a> {
    fn new(
        t: &'a Target<'a>,
        f: &'a Function,
        info: &'a FunctionInfo,
        fail: &dyn Fn(String) -> JitError,
    ) -> Result<Emit<'a>, JitError> {
        let module = t.program.module();
        // Outgoing stack arguments: calls with more than three arguments,
        // and the pattern shim's seventh argument.
        let mut out_words = 0u32;
        for i in &info.instrs {
            match i.instr.opcode {
                Opcode::Call => {
                    let callee = module
                        .functions
                        .get(i.instr.operands[0] as usize)
                        .ok_or_else(|| fail("a call to no function".into()))?;
                    out_words = out_words.max(callee.arity().saturating_sub(REG_ARGS));
                }
                Opcode::PatAll | Opcode::PatAny => out_words = out_words.max(1),
                _ => {}
            }
        }
        let out_bytes = u64::from(out_words) * 8;
        let slots_bytes = u64::from(f.frame_slots()) * 4;
        let stack_bytes = (u64::from(info.max_depth) + 1) * 4;
        let frame = (out_bytes + slots_bytes + stack_bytes).next_multiple_of(16);
        if frame > (1 << 30) {
            return Err(fail(format!("a frame of {frame} bytes is too large")));
        }
        let mut ops = VecAssembler::<X64Relocation>::new(0);
        let labels = info
            .instrs
            .iter()
            .map(|_| ops.new_dynamic_label())
            .collect();
        let epilogue = ops.new_dynamic_label();
        let heads = if t.checks.osr {
            crate::shared::osr_heads(f, info)
        } else {
            Vec::new()
        };
        let osr = (!heads.is_empty()).then(|| (ops.new_dynamic_label(), heads.clone()));
        let mut targets = vec![false; info.instrs.len()];
        let mut heap_in_r14 = false;
        for i in info.instrs.iter().filter(|i| i.depth.is_some()) {
            if let Some(t) = i.instr.target() {
                let k = info.instrs.partition_point(|j| j.offset < t);
                if let Some(slot) = targets.get_mut(k) {
                    *slot = true;
                }
            }
            heap_in_r14 |= touches_lists(i.instr.opcode);
        }
        let runs = check_runs(info, &targets, t.checks.fuel, &mut ops);
        Ok(Emit {
            t,
            f,
            info,
            ops,
            labels,
            epilogue,
            stubs: Vec::new(),
            edges: Vec::new(),
            propagate: None,
            relocs: Vec::new(),
            slots_at: out_bytes as i32,
            stack_at: (out_bytes + slots_bytes) as i32,
            frame_bytes: frame as u32,
            osr,
            heads,
            polls: Vec::new(),
            entry_poll: t.checks.osr,
            index: 0,
            targets,
            runs,
            slow_runs: Vec::new(),
            fixes: Vec::new(),
            heap_in_r14,
            held: Vec::new(),
            base: 0,
            modelled: false,
            writes_deferred: false,
        })
    }

    /// The frame address (from `rsp`) of operand-stack slot `k`.
    fn s(&self, k: u32) -> i32 {
        self.stack_at + 4 * k as i32
    }

    /// The frame address of frame slot `i`.
    fn l(&self, i: u32) -> i32 {
        self.slots_at + 4 * i as i32
    }

    /// The label of the instruction at code offset `offset`.
    fn label_at(
        &self,
        offset: u32,
        fail: &dyn Fn(String) -> JitError,
    ) -> Result<DynamicLabel, JitError> {
        let k = self.info.instrs.partition_point(|i| i.offset < offset);
        match self.info.instrs.get(k) {
            Some(i) if i.offset == offset && i.depth.is_some() => Ok(self.labels[k]),
            _ => Err(fail(format!("no reachable instruction at offset {offset}"))),
        }
    }

    fn prologue(&mut self) {
        let frame = self.frame_bytes as i32;
        dynasm!(self.ops
            ; .arch x64
            ; push rbp
            ; mov rbp, rsp
            ; push rbx
            ; push r12
            ; push r13
            ; push r14
        );
        // A frame larger than a page touches each page from the top down
        // first, so it can never skip over a stack guard page (as
        // Cranelift's inline stack probes do).
        let mut probe = 4096;
        while probe < frame {
            dynasm!(self.ops ; .arch x64 ; cmp DWORD [rsp - probe], 0);
            probe += 4096;
        }
        dynasm!(self.ops
            ; .arch x64
            ; sub rsp, frame
            ; mov rbx, rdi
            ; mov r12, rsi
            ; mov r13d, edx
        );
        if self.heap_in_r14 {
            dynasm!(self.ops ; .arch x64 ; mov r14, QWORD [rbx + offsets::HEAP]);
        }
        let arity = self.f.arity();
        for k in 0..arity {
            let at = self.l(k);
            match k {
                0 => dynasm!(self.ops ; .arch x64 ; mov DWORD [rsp + at], ecx),
                1 => dynasm!(self.ops ; .arch x64 ; mov DWORD [rsp + at], r8d),
                2 => dynasm!(self.ops ; .arch x64 ; mov DWORD [rsp + at], r9d),
                _ => {
                    let from = 16 + 8 * (k - REG_ARGS) as i32;
                    dynasm!(self.ops
                        ; .arch x64
                        ; mov eax, DWORD [rbp + from]
                        ; mov DWORD [rsp + at], eax
                    );
                }
            }
        }
        for i in arity..self.f.frame_slots() {
            let at = self.l(i);
            dynasm!(self.ops ; .arch x64 ; mov DWORD [rsp + at], 0);
        }
        if let Some((resume, _)) = &self.osr {
            let resume = *resume;
            dynasm!(self.ops
                ; .arch x64
                ; mov rax, QWORD [rbx + offsets::OSR]
                ; test rax, rax
                ; jnz =>resume
            );
        }
        if self.entry_poll {
            // Better code for this function has arrived: the call runs
            // there (the poll out of line), else here from the start.
            let (poll, start) = (self.ops.new_dynamic_label(), self.ops.new_dynamic_label());
            let index = self.index as i32;
            dynasm!(self.ops
                ; .arch x64
                ; mov rax, QWORD [rbx + offsets::READY]
                ; cmp BYTE [rax + index], 0
                ; jne =>poll
                ; =>start
            );
            self.polls.push((poll, ENTRY, start));
        }
    }

    /// The entry for on-stack replacement (`rax` the state the context
    /// points to): clears the context's pointer, stores the frame slots
    /// and, for the header the state names, the operand stack into the
    /// frame, and goes on at the header.
    fn osr_entry(&mut self, fail: &dyn Fn(String) -> JitError) -> Result<(), JitError> {
        let Some((resume, heads)) = self.osr.take() else {
            return Ok(());
        };
        dynasm!(self.ops
            ; .arch x64
            ; =>resume
            ; mov QWORD [rbx + offsets::OSR], 0
        );
        let nslots = self.f.frame_slots();
        for s in 0..nslots {
            let (from, to) = (4 + 4 * s as i32, self.l(s));
            dynasm!(self.ops
                ; .arch x64
                ; mov ecx, DWORD [rax + from]
                ; mov DWORD [rsp + to], ecx
            );
        }
        dynasm!(self.ops ; .arch x64 ; mov edx, DWORD [rax]);
        for h in heads {
            let depth = crate::shared::stack_depth_at(self.info, h);
            let next = self.ops.new_dynamic_label();
            let header = self.label_at(h, fail)?;
            let h = h as i32;
            dynasm!(self.ops ; .arch x64 ; cmp edx, h ; jne =>next);
            for k in 0..depth {
                let (from, to) = (4 + 4 * (nslots + k) as i32, self.s(k));
                dynasm!(self.ops
                    ; .arch x64
                    ; mov ecx, DWORD [rax + from]
                    ; mov DWORD [rsp + to], ecx
                );
            }
            dynasm!(self.ops ; .arch x64 ; jmp =>header ; =>next);
        }
        // The instances only ask for the headers listed.
        self.ret_status(STATUS_TRAP);
        Ok(())
    }

    fn body(&mut self, fail: &dyn Fn(String) -> JitError) -> Result<(), JitError> {
        let info = self.info;
        let mut skip_to = 0;
        for (n, i) in info.instrs.iter().enumerate() {
            let Some(d) = i.depth else { continue };
            if !self.modelled {
                self.held.clear();
                self.base = d;
                self.modelled = true;
            } else if self.targets[n] {
                self.flush();
            }
            let l = self.labels[n];
            dynasm!(self.ops ; .arch x64 ; =>l);
            if self.base + self.held.len() as u32 != d {
                return Err(fail(format!(
                    "the stack model has depth {} at offset {}, the verifier {d}",
                    self.base + self.held.len() as u32,
                    i.offset
                )));
            }
            if n < skip_to {
                // Checked with its run.
                continue;
            }
            if let Some(run) = self.runs[n].take() {
                skip_to = n + run.items.len();
                self.run(&run);
                self.runs[n] = Some(run);
                continue;
            }
            for slot in i.instr.slots_written() {
                self.unhold_local(slot);
            }
            self.writes_deferred = flushes_before(&info.instrs, n, self.t.deferred);
            self.instr(i.offset, i.instr, d, fail)?;
        }
        // Verified code never falls off the end; stop anyway.
        self.ret_status(STATUS_TRAP);
        Ok(())
    }

    /// Returns `status` with value 0.
    fn ret_status(&mut self, status: i64) {
        let epi = self.epilogue;
        dynasm!(self.ops
            ; .arch x64
            ; xor eax, eax
            ; mov rdx, QWORD status
            ; jmp =>epi
        );
    }

    /// Returns `eax` with the fuel.
    fn ret_value(&mut self) {
        let epi = self.epilogue;
        dynasm!(self.ops
            ; .arch x64
            ; mov rdx, r12
            ; jmp =>epi
        );
    }

    /// A new trap stub; returns its label.
    fn stub(&mut self, kind: StubKind, offset: u32) -> DynamicLabel {
        self.stub_restoring(kind, offset, 0)
    }

    /// A new trap stub that first gives back `restore` units of fuel the
    /// code took; returns its label.
    fn stub_restoring(&mut self, kind: StubKind, offset: u32, restore: i32) -> DynamicLabel {
        let label = self.ops.new_dynamic_label();
        self.stubs.push(Stub {
            label,
            kind,
            offset,
            restore,
        });
        label
    }

    fn jcc(&mut self, cc: Cc, l: DynamicLabel) {
        match cc {
            Cc::E => dynasm!(self.ops ; .arch x64 ; je =>l),
            Cc::Ne => dynasm!(self.ops ; .arch x64 ; jne =>l),
            Cc::L => dynasm!(self.ops ; .arch x64 ; jl =>l),
            Cc::Le => dynasm!(self.ops ; .arch x64 ; jle =>l),
            Cc::G => dynasm!(self.ops ; .arch x64 ; jg =>l),
            Cc::Ge => dynasm!(self.ops ; .arch x64 ; jge =>l),
        }
    }

    /// `dst := cc ? 1 : 0` after a comparison.
    fn setcc(&mut self, cc: Cc, dst: u8) {
        match cc {
            Cc::E => dynasm!(self.ops ; .arch x64 ; sete al),
            Cc::Ne => dynasm!(self.ops ; .arch x64 ; setne al),
            Cc::L => dynasm!(self.ops ; .arch x64 ; setl al),
            Cc::Le => dynasm!(self.ops ; .arch x64 ; setle al),
            Cc::G => dynasm!(self.ops ; .arch x64 ; setg al),
            Cc::Ge => dynasm!(self.ops ; .arch x64 ; setge al),
        }
        dynasm!(self.ops ; .arch x64 ; movzx Rd(dst), al);
    }

    /// The operand of held slot `k`.
    fn held_opnd(&self, k: usize) -> Opnd {
        match self.held[k] {
            Val::Mem => Opnd::M(self.s(self.base + k as u32)),
            Val::Const(c) => Opnd::I(c),
            Val::Local(slot) => Opnd::M(self.l(slot)),
            Val::Reg(r) => Opnd::R(r),
        }
    }

    /// Pops the top of the operand stack; its operand stays valid until
    /// the next push.
    fn pop(&mut self) -> Opnd {
        if self.held.is_empty() {
            self.base = self.base.saturating_sub(1);
            Opnd::M(self.s(self.base))
        } else {
            let o = self.held_opnd(self.held.len() - 1);
            self.held.pop();
            o
        }
    }

    /// The top of the operand stack.
    fn peek(&self) -> Opnd {
        match self.held.len() {
            0 => Opnd::M(self.s(self.base.saturating_sub(1))),
            n => self.held_opnd(n - 1),
        }
    }

    /// Pushes `v`, storing the deepest held slot when too many are held.
    fn push(&mut self, v: Val) {
        self.held.push(v);
        if self.held.len() > MAX_HELD {
            let (o, at) = (self.held_opnd(0), self.s(self.base));
            self.store(at, o);
            self.held.remove(0);
            self.base += 1;
        }
    }

    /// Stores every held slot in its frame word (the layout at jump
    /// targets, calls and the templates that address the stack).
    fn flush(&mut self) {
        for k in 0..self.held.len() {
            if self.held[k] != Val::Mem {
                let (o, at) = (self.held_opnd(k), self.s(self.base + k as u32));
                self.store(at, o);
            }
        }
        self.base += self.held.len() as u32;
        self.held.clear();
    }

    /// Before frame slot `slot` is written: held copies of its value get
    /// a register of their own.
    fn unhold_local(&mut self, slot: u32) {
        for k in 0..self.held.len() {
            if self.held[k] == Val::Local(slot) {
                let r = self.alloc(&[]);
                self.load(r, Opnd::M(self.l(slot)));
                self.held[k] = Val::Reg(r);
            }
        }
    }

    /// A register of [`POOL`] that holds no slot and is none of `avoid`;
    /// when every one holds a slot, the deepest such slot is stored.
    fn alloc(&mut self, avoid: &[Opnd]) -> u8 {
        let busy = |held: &[Val], r: u8| held.contains(&Val::Reg(r)) || avoid.contains(&Opnd::R(r));
        if let Some(&r) = POOL.iter().find(|&&r| !busy(&self.held, r)) {
            return r;
        }
        // Every pool register holds a slot or is avoided; `avoid` names at
        // most two, so some held slot's register is free to take.
        let k = self
            .held
            .iter()
            .position(|v| matches!(v, Val::Reg(r) if !avoid.contains(&Opnd::R(*r))))
            .unwrap_or(0);
        let (o, at) = (self.held_opnd(k), self.s(self.base + k as u32));
        self.store(at, o);
        let r = match self.held[k] {
            Val::Reg(r) => r,
            _ => POOL[0],
        };
        self.held[k] = Val::Mem;
        r
    }

    /// `r := o`.
    fn load(&mut self, r: u8, o: Opnd) {
        match o {
            Opnd::R(x) if x == r => {}
            Opnd::R(x) => dynasm!(self.ops ; .arch x64 ; mov Rd(r), Rd(x)),
            Opnd::I(c) => dynasm!(self.ops ; .arch x64 ; mov Rd(r), c),
            Opnd::M(m) => dynasm!(self.ops ; .arch x64 ; mov Rd(r), DWORD [rsp + m]),
        }
    }

    /// `[rsp + at] := o` (through `eax` from memory).
    fn store(&mut self, at: i32, o: Opnd) {
        match o {
            Opnd::R(r) => dynasm!(self.ops ; .arch x64 ; mov DWORD [rsp + at], Rd(r)),
            Opnd::I(c) => dynasm!(self.ops ; .arch x64 ; mov DWORD [rsp + at], c),
            Opnd::M(m) if m == at => {}
            Opnd::M(m) => dynasm!(self.ops
                ; .arch x64
                ; mov eax, DWORD [rsp + m]
                ; mov DWORD [rsp + at], eax
            ),
        }
    }

    /// `r op= o` for the binary arithmetic opcodes, and `cmp r, o`.
    fn alu(&mut self, op: Opcode, r: u8, o: Opnd) {
        use Opcode::*;
        match (op, o) {
            (Add | AddL | AddI, Opnd::R(x)) => dynasm!(self.ops ; .arch x64 ; add Rd(r), Rd(x)),
            (Add | AddL | AddI, Opnd::I(c)) => dynasm!(self.ops ; .arch x64 ; add Rd(r), c),
            (Add | AddL | AddI, Opnd::M(m)) => {
                dynasm!(self.ops ; .arch x64 ; add Rd(r), DWORD [rsp + m])
            }
            (Sub | SubL, Opnd::R(x)) => dynasm!(self.ops ; .arch x64 ; sub Rd(r), Rd(x)),
            (Sub | SubL, Opnd::I(c)) => dynasm!(self.ops ; .arch x64 ; sub Rd(r), c),
            (Sub | SubL, Opnd::M(m)) => dynasm!(self.ops ; .arch x64 ; sub Rd(r), DWORD [rsp + m]),
            (Mul | MulL | MulI, Opnd::R(x)) => dynasm!(self.ops ; .arch x64 ; imul Rd(r), Rd(x)),
            (Mul | MulL | MulI, Opnd::I(c)) => {
                dynasm!(self.ops ; .arch x64 ; imul Rd(r), Rd(r), c)
            }
            (Mul | MulL | MulI, Opnd::M(m)) => {
                dynasm!(self.ops ; .arch x64 ; imul Rd(r), DWORD [rsp + m])
            }
            (BitAnd, Opnd::R(x)) => dynasm!(self.ops ; .arch x64 ; and Rd(r), Rd(x)),
            (BitAnd, Opnd::I(c)) => dynasm!(self.ops ; .arch x64 ; and Rd(r), c),
            (BitAnd, Opnd::M(m)) => dynasm!(self.ops ; .arch x64 ; and Rd(r), DWORD [rsp + m]),
            (BitOr, Opnd::R(x)) => dynasm!(self.ops ; .arch x64 ; or Rd(r), Rd(x)),
            (BitOr, Opnd::I(c)) => dynasm!(self.ops ; .arch x64 ; or Rd(r), c),
            (BitOr, Opnd::M(m)) => dynasm!(self.ops ; .arch x64 ; or Rd(r), DWORD [rsp + m]),
            (BitXor, Opnd::R(x)) => dynasm!(self.ops ; .arch x64 ; xor Rd(r), Rd(x)),
            (BitXor, Opnd::I(c)) => dynasm!(self.ops ; .arch x64 ; xor Rd(r), c),
            (BitXor, Opnd::M(m)) => dynasm!(self.ops ; .arch x64 ; xor Rd(r), DWORD [rsp + m]),
            (_, Opnd::R(x)) => dynasm!(self.ops ; .arch x64 ; cmp Rd(r), Rd(x)),
            (_, Opnd::I(c)) => dynasm!(self.ops ; .arch x64 ; cmp Rd(r), c),
            (_, Opnd::M(m)) => dynasm!(self.ops ; .arch x64 ; cmp Rd(r), DWORD [rsp + m]),
        }
    }

    /// Sets the flags as `cmp a, b` does.
    fn compare(&mut self, a: Opnd, b: Opnd) {
        match (a, b) {
            (Opnd::R(r), _) => self.alu(Opcode::Eq, r, b),
            (Opnd::M(m), Opnd::R(x)) => dynasm!(self.ops ; .arch x64 ; cmp DWORD [rsp + m], Rd(x)),
            (Opnd::M(m), Opnd::I(c)) => dynasm!(self.ops ; .arch x64 ; cmp DWORD [rsp + m], c),
            _ => {
                self.load(EAX, a);
                self.alu(Opcode::Eq, EAX, b);
            }
        }
    }

    /// Pops two operands, applies the binary arithmetic `op` and pushes
    /// the result (folded when both are constants).
    fn binary(&mut self, op: Opcode, b: Opnd) {
        use Opcode::*;
        let a = self.pop();
        if let (Opnd::I(x), Opnd::I(y)) = (a, b) {
            let v = match op {
                Add | AddL | AddI => x.wrapping_add(y),
                Sub | SubL => x.wrapping_sub(y),
                Mul | MulL | MulI => x.wrapping_mul(y),
                BitAnd => x & y,
                BitOr => x | y,
                _ => x ^ y,
            };
            self.push(Val::Const(v));
            return;
        }
        let commutes = !matches!(op, Sub | SubL);
        let (a, b) = match (a, b) {
            (Opnd::R(_), _) => (a, b),
            (_, Opnd::R(_)) if commutes => (b, a),
            _ => (a, b),
        };
        let r = match a {
            Opnd::R(r) => r,
            _ => self.alloc(&[b]),
        };
        self.load(r, a);
        self.alu(op, r, b);
        self.push(Val::Reg(r));
    }

    /// The checks of a run at its place in the body: one by one for a
    /// single instruction, else at once with the one-by-one checks out of
    /// line.
    fn run(&mut self, run: &Run) {
        if let [(offset, instr)] = run.items[..] {
            self.check_one(offset, instr);
        } else {
            let slow = self.ops.new_dynamic_label();
            self.fast_checks(run.deepest, run.fuel, slow, None, None);
            self.slow_runs.push(SlowRun {
                slow,
                items: run.items.clone(),
                after: run.after,
            });
        }
        let after = run.after;
        dynasm!(self.ops ; .arch x64 ; =>after);
    }

    /// The checks of one `enter` or `fuel` instruction.
    fn check_one(&mut self, offset: u32, instr: Instr) {
        match instr.opcode {
            Opcode::Enter => self.call_checks(instr.operands[0], 1, offset),
            _ => self.charge(u64::from(instr.operands[0]), offset),
        }
    }

    /// The fast path of a run (or of a back edge and the run at its
    /// target): the deepest `enter`, then `fuel` units (at most
    /// `i32::MAX`) at once; on failure to `slow` (with the fuel given
    /// back first). When `poll` is given, then counts the back edge and,
    /// when it is time to poll, gives back `poll.1` units and goes to
    /// `poll.0`. When all pass, goes on at `go` (or falls through).
    fn fast_checks(
        &mut self,
        deepest: Option<u32>,
        fuel: u64,
        slow: DynamicLabel,
        poll: Option<(DynamicLabel, u64)>,
        go: Option<DynamicLabel>,
    ) {
        let mut list = Vec::with_capacity(3);
        if let Some(k) = deepest {
            list.push(Check::Depth(k.min(i32::MAX as u32) as i32, slow));
        }
        if fuel > 0 {
            let fix = self.ops.new_dynamic_label();
            self.fixes.push(Fix {
                label: fix,
                restore: fuel as i32,
                then: slow,
            });
            list.push(Check::Fuel(fuel as i32, fix));
        }
        if let Some((pollpath, back)) = poll {
            let give = self.ops.new_dynamic_label();
            self.fixes.push(Fix {
                label: give,
                restore: back as i32,
                then: pollpath,
            });
            list.push(Check::Poll(give));
        }
        self.checks(&list, go);
    }

    /// The checks in order, each going to its label when it fails; when
    /// all pass, on at `go` (the last check jumps there when it passes
    /// and to its label with a plain jump otherwise), or falling through.
    fn checks(&mut self, list: &[Check], go: Option<DynamicLabel>) {
        for (n, &check) in list.iter().enumerate() {
            let last = if n + 1 == list.len() { go } else { None };
            match (check, last) {
                (Check::Depth(k, fail), None) => {
                    dynasm!(self.ops ; .arch x64 ; cmp r13d, k ; jbe =>fail)
                }
                (Check::Depth(k, fail), Some(go)) => {
                    dynasm!(self.ops ; .arch x64 ; cmp r13d, k ; ja =>go ; jmp =>fail)
                }
                (Check::Fuel(k, fail), None) => {
                    dynasm!(self.ops ; .arch x64 ; sub r12, k ; jb =>fail)
                }
                (Check::Fuel(k, fail), Some(go)) => {
                    dynasm!(self.ops ; .arch x64 ; sub r12, k ; jae =>go ; jmp =>fail)
                }
                (Check::Poll(fail), None) => dynasm!(self.ops
                    ; .arch x64
                    ; sub DWORD [rbx + offsets::POLL], 1
                    ; jz =>fail
                ),
                (Check::Poll(fail), Some(go)) => dynasm!(self.ops
                    ; .arch x64
                    ; sub DWORD [rbx + offsets::POLL], 1
                    ; jnz =>go
                    ; jmp =>fail
                ),
            }
        }
        if let (true, Some(go)) = (list.is_empty(), go) {
            dynasm!(self.ops ; .arch x64 ; jmp =>go);
        }
    }

    /// Charges `n` units of fuel, or stops with out-of-fuel at `offset`.
    fn charge(&mut self, n: u64, offset: u32) {
        if n == 0 || !self.t.checks.fuel {
            return;
        }
        match i32::try_from(n) {
            Ok(k) => {
                // The subtraction borrows exactly when the fuel left is
                // less than the charge; the stub gives the charge back.
                let stop = self.stub_restoring(StubKind::Plain(trap::OUT_OF_FUEL), offset, k);
                dynasm!(self.ops
                    ; .arch x64
                    ; sub r12, k
                    ; jb =>stop
                );
            }
            Err(_) => {
                let stop = self.stub(StubKind::Plain(trap::OUT_OF_FUEL), offset);
                // No run has 2^63 units: a larger cost can never be paid.
                let k = i64::try_from(n).unwrap_or(i64::MAX);
                dynasm!(self.ops
                    ; .arch x64
                    ; mov rax, QWORD k
                    ; cmp r12, rax
                    ; jb =>stop
                    ; sub r12, rax
                );
            }
        }
    }

    /// The label a jump from `offset` to `target` goes to: the target's,
    /// or for a jump backward an out-of-line charge of the jump's fuel
    /// that goes on to the target.
    fn edge(
        &mut self,
        offset: u32,
        target: u32,
        fail: &dyn Fn(String) -> JitError,
    ) -> Result<DynamicLabel, JitError> {
        let dest = self.label_at(target, fail)?;
        let cost = self.info.jump_fuel(offset, target);
        if cost == 0 || !self.t.checks.fuel {
            return Ok(dest);
        }
        let label = self.ops.new_dynamic_label();
        self.edges.push(Edge {
            label,
            offset,
            cost,
            target: dest,
            to: target,
            exact: false,
        });
        Ok(label)
    }

    /// An unconditional jump, charging inline when it goes backward.
    fn jump(
        &mut self,
        offset: u32,
        target: u32,
        fail: &dyn Fn(String) -> JitError,
    ) -> Result<(), JitError> {
        let dest = self.label_at(target, fail)?;
        let cost = self.info.jump_fuel(offset, target);
        self.take_jump(offset, cost, target, dest, false);
        Ok(())
    }

    /// The code of a jump from `offset` to `target` (label `dest`) that
    /// charges `cost`: the charge, at a back edge to a loop header of
    /// [`Emit::heads`] the poll (a countdown that calls the poll shim every
    /// [`crate::context::POLL_EVERY`] back edges), and the jump; unless
    /// `exact`, a back edge to a check run makes all its checks at once
    /// and goes on after the run, with the exact order out of line.
    fn take_jump(&mut self, offset: u32, cost: u64, target: u32, dest: DynamicLabel, exact: bool) {
        let k = self.info.instrs.partition_point(|i| i.offset < target);
        let merged = match self.runs.get(k) {
            Some(Some(run))
                if !exact
                    && cost > 0
                    && target <= offset
                    && cost.saturating_add(run.fuel) <= i32::MAX as u64 =>
            {
                Some((run.deepest, run.fuel, run.after))
            }
            _ => None,
        };
        let Some((deepest, fuel, after)) = merged else {
            let mut list = Vec::with_capacity(2);
            match i32::try_from(cost) {
                Ok(k) if k > 0 && self.t.checks.fuel => {
                    let stop = self.stub_restoring(StubKind::Plain(trap::OUT_OF_FUEL), offset, k);
                    list.push(Check::Fuel(k, stop));
                }
                _ => self.charge(cost, offset),
            }
            if target <= offset && self.heads.binary_search(&target).is_ok() {
                let label = self.ops.new_dynamic_label();
                self.polls.push((label, target, dest));
                list.push(Check::Poll(label));
            }
            self.checks(&list, Some(dest));
            return;
        };
        let slow = self.ops.new_dynamic_label();
        let poll = if self.heads.binary_search(&target).is_ok() {
            // Time to poll: the run's fuel goes back, and the poll's
            // "not switched" goes on at the run, which charges it again.
            let pollpath = self.ops.new_dynamic_label();
            self.polls.push((pollpath, target, dest));
            Some((pollpath, fuel))
        } else {
            None
        };
        self.fast_checks(deepest, cost + fuel, slow, poll, Some(after));
        self.edges.push(Edge {
            label: slow,
            offset,
            cost,
            target: dest,
            to: target,
            exact: true,
        });
    }

    /// A conditional jump to `target` on `cc` (flags set).
    fn branch(
        &mut self,
        cc: Cc,
        offset: u32,
        target: u32,
        fail: &dyn Fn(String) -> JitError,
    ) -> Result<(), JitError> {
        let to = self.edge(offset, target, fail)?;
        self.jcc(cc, to);
        Ok(())
    }

    /// Calls function `id` (`call rel32`; compiled functions lie close
    /// together, as Cranelift's colocated calls assume).
    fn call_function(&mut self, id: FuncId) {
        // `call rel32`, the displacement patched by the module.
        self.ops.extend([0xE8u8, 0, 0, 0, 0]);
        let end = self.ops.offset().0;
        self.relocs.push(ModuleReloc {
            offset: (end - 4) as u32,
            kind: Reloc::X86CallPCRel4,
            name: ModuleRelocTarget::user(0, id.as_u32()),
            addend: -4,
        });
    }

    /// Calls shim `id` through its absolute address (shims may lie
    /// anywhere in the address space).
    fn call_shim(&mut self, id: FuncId) {
        dynasm!(self.ops ; .arch x64 ; mov rax, QWORD 0);
        let end = self.ops.offset().0;
        self.relocs.push(ModuleReloc {
            offset: (end - 8) as u32,
            kind: Reloc::Abs8,
            name: ModuleRelocTarget::user(0, id.as_u32()),
            addend: 0,
        });
        dynasm!(self.ops ; .arch x64 ; call rax);
    }

    /// After a shim returned `rax`: the trap stub of `kind` when it is the
    /// trap sentinel.
    fn check_shim(&mut self, kind: StubKind, offset: u32) {
        let stop = self.stub(kind, offset);
        dynasm!(self.ops
            ; .arch x64
            ; mov rcx, QWORD SHIM_TRAP
            ; cmp rax, rcx
            ; je =>stop
        );
    }

    /// The checks of entering a frame `k` deeper that charges `cost`:
    /// depth first, then fuel.
    fn call_checks(&mut self, k: u32, cost: u64, offset: u32) {
        let deep = self.stub(StubKind::Plain(trap::CALL_DEPTH), offset);
        let k = k.min(i32::MAX as u32) as i32;
        dynasm!(self.ops
            ; .arch x64
            ; cmp r13d, k
            ; jbe =>deep
        );
        self.charge(cost, offset);
    }

    /// Element `idx` of module list `list`: loaded into `dst` or stored,
    /// bounds-checked (a constant index in range needs no check).
    fn module_elem(&mut self, list: u32, idx: Opnd, op: Elem, offset: u32) {
        let ListSlice { base, slots } = self.t.initial.lists[list as usize];
        if let Opnd::I(c) = idx {
            let at = i64::from(base) * 4 + i64::from(c) * 4;
            if let (true, Ok(at)) = ((c as u32) < slots, i32::try_from(at)) {
                match op {
                    Elem::Load(dst) => {
                        dynasm!(self.ops ; .arch x64 ; mov Rd(dst), DWORD [r14 + at])
                    }
                    Elem::Store(Stored::I(k)) => {
                        dynasm!(self.ops ; .arch x64 ; mov DWORD [r14 + at], k)
                    }
                    Elem::Store(Stored::R(v)) => {
                        dynasm!(self.ops ; .arch x64 ; mov DWORD [r14 + at], Rd(v))
                    }
                }
                return;
            }
        }
        let r = match idx {
            Opnd::R(r) => r,
            _ => {
                self.load(EAX, idx);
                EAX
            }
        };
        if self.t.checks.bounds {
            let slots = slots as i32;
            let out = self.stub(StubKind::Bounds(Word::Reg(r), Word::Imm(slots)), offset);
            dynasm!(self.ops
                ; .arch x64
                ; cmp Rd(r), slots
                ; jae =>out
            );
        }
        let disp = (base as i32).wrapping_mul(4);
        self.heap_access(r, disp, op);
    }

    /// `dst := [r14 + r*4 + disp]` or the store of the value.
    fn heap_access(&mut self, r: u8, disp: i32, op: Elem) {
        match op {
            Elem::Load(dst) => {
                dynasm!(self.ops ; .arch x64 ; mov Rd(dst), DWORD [r14 + Rq(r) * 4 + disp])
            }
            Elem::Store(Stored::I(k)) => {
                dynasm!(self.ops ; .arch x64 ; mov DWORD [r14 + Rq(r) * 4 + disp], k)
            }
            Elem::Store(Stored::R(v)) => {
                dynasm!(self.ops ; .arch x64 ; mov DWORD [r14 + Rq(r) * 4 + disp], Rd(v))
            }
        }
    }

    /// The value to store as a register or a constant (from memory
    /// through `r10d`).
    fn value(&mut self, o: Opnd) -> Stored {
        match o {
            Opnd::M(_) => {
                self.load(10, o);
                Stored::R(10)
            }
            Opnd::R(r) => Stored::R(r),
            Opnd::I(c) => Stored::I(c),
        }
    }

    /// Puts the base of the list referenced by `ecx` in `r8d` and its slot
    /// count in `r9d`.
    fn slice_of_ecx(&mut self) {
        dynasm!(self.ops ; .arch x64 ; mov rdx, QWORD [rbx + offsets::LISTS]);
        if offsets::SLICE_SIZE == 8 {
            dynasm!(self.ops
                ; .arch x64
                ; mov r8d, DWORD [rdx + rcx * 8 + offsets::SLICE_BASE]
                ; mov r9d, DWORD [rdx + rcx * 8 + offsets::SLICE_SLOTS]
            );
        } else {
            let size = offsets::SLICE_SIZE as i32;
            dynasm!(self.ops
                ; .arch x64
                ; imul ecx, ecx, size
                ; mov r8d, DWORD [rdx + rcx + offsets::SLICE_BASE]
                ; mov r9d, DWORD [rdx + rcx + offsets::SLICE_SLOTS]
            );
        }
    }

    /// Element `idx` of the list referenced by `list`: loaded into `dst`
    /// or stored, bounds-checked.
    fn ref_elem(&mut self, list: Opnd, idx: Opnd, op: Elem, offset: u32) {
        self.load(1, list);
        self.slice_of_ecx();
        let r = match idx {
            Opnd::R(r) => r,
            _ => {
                self.load(EAX, idx);
                EAX
            }
        };
        if self.t.checks.bounds {
            let out = self.stub(StubKind::Bounds(Word::Reg(r), Word::Reg(9)), offset);
            dynasm!(self.ops
                ; .arch x64
                ; cmp Rd(r), r9d
                ; jae =>out
            );
        }
        // `r` is `eax` or the register of a popped slot: free to change.
        dynasm!(self.ops ; .arch x64 ; add Rd(r), r8d);
        self.heap_access(r, 0, op);
    }

    /// A for-in step's test over the list with base `r8d` and slot count
    /// `r9d`, the cursor in frame slot `cursor`: jumps to `none` when the
    /// cursor is not below the slot count or the element is the end
    /// marker -1; otherwise pushes the element at stack slot `d` and
    /// advances the cursor.
    fn for_elem(&mut self, cursor: u32, d: u32, none: DynamicLabel) {
        let c = self.l(cursor);
        let s = self.s(d);
        dynasm!(self.ops
            ; .arch x64
            ; mov eax, DWORD [rsp + c]
            ; cmp eax, r9d
            ; jae =>none
            ; lea ecx, [rax + r8]
            ; mov ecx, DWORD [r14 + rcx * 4]
            ; cmp ecx, -1
            ; je =>none
            ; mov DWORD [rsp + s], ecx
            ; add DWORD [rsp + c], 1
        );
    }

    /// Loads the list of a for-in step into `r8d` (base) and `r9d`
    /// (slots): a module list's constants, or a list parameter's slice.
    fn for_list(&mut self, instr: Instr) {
        let ops = instr.operands;
        if matches!(instr.opcode, Opcode::Forl | Opcode::ForlB) {
            let ListSlice { base, slots } = self.t.initial.lists[ops[0] as usize];
            let (base, slots) = (base as i32, slots as i32);
            dynasm!(self.ops
                ; .arch x64
                ; mov r8d, base
                ; mov r9d, slots
            );
        } else {
            let r = self.l(ops[0]);
            dynasm!(self.ops ; .arch x64 ; mov ecx, DWORD [rsp + r]);
            self.slice_of_ecx();
        }
    }

    /// `eax := eax / ecx` (or the remainder), `ecx` not zero: in 64 bits,
    /// where `i32::MIN / -1` cannot overflow (it wraps, and the remainder
    /// is 0, as the CVM says); the result is pushed in a register.
    fn divide(&mut self, rem: bool) {
        dynasm!(self.ops
            ; .arch x64
            ; movsxd rax, eax
            ; movsxd rcx, ecx
            ; cqo
            ; idiv rcx
        );
        let r = self.alloc(&[]);
        if rem {
            dynasm!(self.ops ; .arch x64 ; mov Rd(r), edx);
        } else {
            dynasm!(self.ops ; .arch x64 ; mov Rd(r), eax);
        }
        self.push(Val::Reg(r));
    }

    /// Pushes `op` (`neg`, `not`) of the popped operand `a`.
    fn unary_of(&mut self, op: Opcode, a: Opnd) {
        if let Opnd::I(c) = a {
            let v = if op == Opcode::BitNot {
                !c
            } else {
                c.wrapping_neg()
            };
            self.push(Val::Const(v));
            return;
        }
        let r = self.pop_reg_of(a);
        if op == Opcode::BitNot {
            dynasm!(self.ops ; .arch x64 ; not Rd(r));
        } else {
            dynasm!(self.ops ; .arch x64 ; neg Rd(r));
        }
        self.push(Val::Reg(r));
    }

    /// A register holding the popped operand `a`: its own, or a new one.
    fn pop_reg_of(&mut self, a: Opnd) -> u8 {
        let r = match a {
            Opnd::R(r) => r,
            _ => self.alloc(&[]),
        };
        self.load(r, a);
        r
    }

    /// Pushes the truth of `a cc b` as 1 or 0.
    fn set_compare(&mut self, cc: Cc, a: Opnd, b: Opnd) {
        let r = self.alloc(&[a, b]);
        self.compare(a, b);
        self.setcc(cc, r);
        self.push(Val::Reg(r));
    }

    fn instr(
        &mut self,
        offset: u32,
        instr: Instr,
        d: u32,
        fail: &dyn Fn(String) -> JitError,
    ) -> Result<(), JitError> {
        use Opcode::*;
        let ops = instr.operands;
        let imm = ops[0] as i32;
        // Stack slots the templates that work on the stored stack name
        // (only those that exist are used).
        let top = self.s(d.saturating_sub(1));
        match instr.opcode {
            Nop => {}
            Pop => {
                self.pop();
            }
            Push | Lref => self.push(Val::Const(imm)),
            Dup => {
                let o = self.peek();
                let v = match (o, self.held.last()) {
                    (Opnd::I(c), _) => Val::Const(c),
                    (_, Some(&Val::Local(slot))) => Val::Local(slot),
                    _ => {
                        let r = self.alloc(&[o]);
                        self.load(r, o);
                        Val::Reg(r)
                    }
                };
                self.push(v);
            }
            Swap => {
                let b = self.pop();
                let a = self.pop();
                // A value in a frame word moves to a register first (the
                // word is the other slot's, or a frame slot's).
                for o in [b, a] {
                    let v = match o {
                        Opnd::I(c) => Val::Const(c),
                        Opnd::R(r) => Val::Reg(r),
                        Opnd::M(_) => {
                            let r = self.alloc(&[a, b]);
                            self.load(r, o);
                            Val::Reg(r)
                        }
                    };
                    self.push(v);
                }
            }
            Ldl => self.push(Val::Local(ops[0])),
            Stl => {
                let o = self.pop();
                let at = self.l(ops[0]);
                self.store(at, o);
            }
            Tee => {
                let o = self.peek();
                let at = self.l(ops[0]);
                self.store(at, o);
            }
            Ldl2 => {
                self.push(Val::Local(ops[0]));
                self.push(Val::Local(ops[1]));
            }
            Incl => {
                let l = self.l(ops[0]);
                dynasm!(self.ops ; .arch x64 ; add DWORD [rsp + l], 1);
            }
            Decl => {
                let l = self.l(ops[0]);
                dynasm!(self.ops ; .arch x64 ; sub DWORD [rsp + l], 1);
            }
            Add | Sub | Mul | BitAnd | BitOr | BitXor => {
                let b = self.pop();
                self.binary(instr.opcode, b);
            }
            AddL | SubL | MulL => {
                let b = Opnd::M(self.l(ops[0]));
                self.binary(instr.opcode, b);
            }
            AddI | MulI => self.binary(instr.opcode, Opnd::I(imm)),
            LdlAddI => {
                let r = self.alloc(&[]);
                self.load(r, Opnd::M(self.l(ops[0])));
                self.alu(AddI, r, Opnd::I(ops[1] as i32));
                self.push(Val::Reg(r));
            }
            Div | Mod => {
                let b = self.pop();
                let a = self.pop();
                let zero = self.stub(StubKind::Plain(trap::DIV_ZERO), offset);
                self.load(1, b);
                dynasm!(self.ops
                    ; .arch x64
                    ; test ecx, ecx
                    ; jz =>zero
                );
                self.load(EAX, a);
                self.divide(instr.opcode == Mod);
            }
            DivI | ModI => {
                let a = self.pop();
                match (imm, a) {
                    (0, _) => {
                        let zero = self.stub(StubKind::Plain(trap::DIV_ZERO), offset);
                        dynasm!(self.ops ; .arch x64 ; jmp =>zero);
                        self.push(Val::Const(0));
                    }
                    (k, Opnd::I(c)) if instr.opcode == DivI => {
                        self.push(Val::Const(c.wrapping_div(k)))
                    }
                    (k, Opnd::I(c)) => self.push(Val::Const(c.wrapping_rem(k))),
                    (-1, _) if instr.opcode == DivI => self.unary_of(Neg, a),
                    (-1, _) => self.push(Val::Const(0)),
                    (k, _) => {
                        self.load(EAX, a);
                        dynasm!(self.ops ; .arch x64 ; mov ecx, k);
                        self.divide(instr.opcode == ModI);
                    }
                }
            }
            Neg | BitNot => {
                let a = self.pop();
                self.unary_of(instr.opcode, a);
            }
            Eq | Ne | Lt | Le | Gt | Ge => {
                let cc = Cc::of_op(instr.opcode, fail)?;
                let b = self.pop();
                let a = self.pop();
                match (a, b, instr.opcode.compare()) {
                    (Opnd::I(x), Opnd::I(y), Some(c)) => {
                        self.push(Val::Const(i32::from(c.rel.holds(x, y))))
                    }
                    _ => self.set_compare(cc, a, b),
                }
            }
            LNot => match self.pop() {
                Opnd::I(c) => self.push(Val::Const(i32::from(c == 0))),
                a => self.set_compare(Cc::E, a, Opnd::I(0)),
            },
            Ldg => {
                let g = (ops[0] as i32).wrapping_mul(4);
                let r = self.alloc(&[]);
                dynasm!(self.ops
                    ; .arch x64
                    ; mov rdx, QWORD [rbx + offsets::GLOBALS]
                    ; mov Rd(r), DWORD [rdx + g]
                );
                self.push(Val::Reg(r));
            }
            Stg => {
                let g = (ops[0] as i32).wrapping_mul(4);
                let v = self.pop();
                let v = self.value(v);
                dynasm!(self.ops ; .arch x64 ; mov rdx, QWORD [rbx + offsets::GLOBALS]);
                match v {
                    Stored::I(k) => dynasm!(self.ops ; .arch x64 ; mov DWORD [rdx + g], k),
                    Stored::R(r) => dynasm!(self.ops ; .arch x64 ; mov DWORD [rdx + g], Rd(r)),
                }
            }
            Incg | Decg => {
                let g = (ops[0] as i32).wrapping_mul(4);
                dynasm!(self.ops ; .arch x64 ; mov rdx, QWORD [rbx + offsets::GLOBALS]);
                if instr.opcode == Incg {
                    dynasm!(self.ops ; .arch x64 ; add DWORD [rdx + g], 1);
                } else {
                    dynasm!(self.ops ; .arch x64 ; sub DWORD [rdx + g], 1);
                }
            }
            Lde => {
                let idx = self.pop();
                let r = match idx {
                    Opnd::R(r) => r,
                    _ => self.alloc(&[]),
                };
                self.module_elem(ops[0], idx, Elem::Load(r), offset);
                self.push(Val::Reg(r));
            }
            Ste => {
                let v = self.pop();
                let idx = self.pop();
                let v = self.value(v);
                self.module_elem(ops[0], idx, Elem::Store(v), offset);
            }
            LdeL => {
                let idx = Opnd::M(self.l(ops[1]));
                let r = self.alloc(&[]);
                self.module_elem(ops[0], idx, Elem::Load(r), offset);
                self.push(Val::Reg(r));
            }
            SteL => {
                let v = self.pop();
                let v = self.value(v);
                let idx = Opnd::M(self.l(ops[1]));
                self.module_elem(ops[0], idx, Elem::Store(v), offset);
            }
            Ldx => {
                let idx = self.pop();
                let list = self.pop();
                let r = match idx {
                    Opnd::R(r) => r,
                    _ => self.alloc(&[list]),
                };
                self.ref_elem(list, idx, Elem::Load(r), offset);
                self.push(Val::Reg(r));
            }
            Stx => {
                let v = self.pop();
                let idx = self.pop();
                let list = self.pop();
                let v = self.value(v);
                self.ref_elem(list, idx, Elem::Store(v), offset);
            }
            LdxL => {
                let (list, idx) = (Opnd::M(self.l(ops[0])), Opnd::M(self.l(ops[1])));
                let r = self.alloc(&[]);
                self.ref_elem(list, idx, Elem::Load(r), offset);
                self.push(Val::Reg(r));
            }
            StxL => {
                let v = self.pop();
                let v = self.value(v);
                let (list, idx) = (Opnd::M(self.l(ops[0])), Opnd::M(self.l(ops[1])));
                self.ref_elem(list, idx, Elem::Store(v), offset);
            }
            Forl | Forx => {
                self.flush();
                self.for_list(instr);
                let exit = self.edge(offset, ops[2], fail)?;
                self.for_elem(ops[1], d, exit);
                self.modelled = false;
            }
            ForlB | ForxB => {
                self.flush();
                self.for_list(instr);
                let none = self.ops.new_dynamic_label();
                self.for_elem(ops[1], d, none);
                self.jump(offset, ops[2], fail)?;
                dynasm!(self.ops ; .arch x64 ; =>none);
                self.modelled = false;
            }
            Halt => {
                dynasm!(self.ops ; .arch x64 ; mov QWORD [rbx + offsets::FUEL_LEFT], r12);
                self.ret_status(STATUS_HALT);
                self.modelled = false;
            }
            Enter | Fuel => self.check_one(offset, instr),
            Jmp => {
                self.flush();
                self.jump(offset, ops[0], fail)?;
                self.modelled = false;
            }
            Jz | Jnz => {
                let a = self.pop();
                self.flush();
                self.compare(a, Opnd::I(0));
                let cc = if instr.opcode == Jz { Cc::E } else { Cc::Ne };
                self.branch(cc, offset, ops[0], fail)?;
            }
            Case => {
                self.flush();
                dynasm!(self.ops ; .arch x64 ; cmp DWORD [rsp + top], imm);
                self.branch(Cc::E, offset, ops[1], fail)?;
                self.modelled = false;
            }
            JEq | JNe | JLt | JLe | JGt | JGe => {
                let cc = Cc::of_op(instr.opcode, fail)?;
                let b = self.pop();
                let a = self.pop();
                self.flush();
                self.compare(a, b);
                self.branch(cc, offset, ops[0], fail)?;
            }
            JEqI | JNeI | JLtI | JLeI | JGtI | JGeI => {
                let cc = Cc::of_op(instr.opcode, fail)?;
                let a = self.pop();
                self.flush();
                self.compare(a, Opnd::I(imm));
                self.branch(cc, offset, ops[1], fail)?;
            }
            JEqLI | JNeLI | JLtLI | JLeLI | JGtLI | JGeLI => {
                let cc = Cc::of_op(instr.opcode, fail)?;
                let l = self.l(ops[0]);
                let k = ops[1] as i32;
                self.flush();
                dynasm!(self.ops ; .arch x64 ; cmp DWORD [rsp + l], k);
                self.branch(cc, offset, ops[2], fail)?;
            }
            IncJLtLI => {
                let cc = Cc::of_op(instr.opcode, fail)?;
                let l = self.l(ops[0]);
                let k = ops[1] as i32;
                self.flush();
                dynasm!(self.ops
                    ; .arch x64
                    ; add DWORD [rsp + l], 1
                    ; cmp DWORD [rsp + l], k
                );
                self.branch(cc, offset, ops[2], fail)?;
            }
            Call => self.call(ops[0], offset, fail)?,
            Ret => {
                dynasm!(self.ops ; .arch x64 ; xor eax, eax);
                self.ret_value();
                self.modelled = false;
            }
            RetV => {
                let o = self.pop();
                self.load(EAX, o);
                self.ret_value();
                self.modelled = false;
            }
            RetVL => {
                let l = self.l(ops[0]);
                dynasm!(self.ops ; .arch x64 ; mov eax, DWORD [rsp + l]);
                self.ret_value();
                self.modelled = false;
            }
            EnterF => {
                self.call_checks(1, 1, offset);
                dynasm!(self.ops ; .arch x64 ; sub r13d, 1);
            }
            Leave => dynasm!(self.ops ; .arch x64 ; add r13d, 1),
            Intr => {
                self.flush();
                let info = INTRINSICS
                    .get(ops[0] as usize)
                    .ok_or_else(|| fail(format!("no intrinsic {}", ops[0])))?;
                let base = self.s(d - info.params.len() as u32);
                let id = ops[0] as i32;
                // The shim charges the intrinsic's cost, returns the fuel
                // left and stores the result in the first argument word,
                // which is the result's stack slot.
                dynasm!(self.ops
                    ; .arch x64
                    ; mov rdi, rbx
                    ; mov esi, id
                    ; lea rdx, [rsp + base]
                    ; mov rcx, r12
                );
                self.call_shim(if self.writes_deferred {
                    self.t.shims.intrinsic_flush
                } else {
                    self.t.shims.intrinsic
                });
                self.check_shim(StubKind::ShimCharged, offset);
                dynasm!(self.ops ; .arch x64 ; mov r12, rax);
                self.modelled = false;
            }
            PatAll | PatAny => {
                self.flush();
                let id = ops[0] as i32;
                let mask = (u64::from(ops[1]) | u64::from(ops[2]) << 32) as i64;
                let any = i32::from(instr.opcode == PatAny);
                // The shim charges the cost, returns the fuel left and
                // stores the result through its last argument (on the
                // stack), the argument's own slot.
                dynasm!(self.ops
                    ; .arch x64
                    ; lea rax, [rsp + top]
                    ; mov QWORD [rsp], rax
                    ; mov rdi, rbx
                    ; mov esi, id
                    ; mov edx, DWORD [rsp + top]
                    ; mov rcx, QWORD mask
                    ; mov r8d, any
                    ; mov r9, r12
                );
                self.call_shim(self.t.shims.pattern_mask);
                self.check_shim(StubKind::ShimCharged, offset);
                dynasm!(self.ops ; .arch x64 ; mov r12, rax);
                self.modelled = false;
            }
            Write => {
                self.flush();
                self.charge(cvm::fuel::WRITE_FUEL, offset);
                dynasm!(self.ops
                    ; .arch x64
                    ; mov rdi, rbx
                    ; mov esi, DWORD [rsp + top]
                );
                self.call_shim(self.t.shims.write);
                self.check_shim(StubKind::Shim, offset);
                self.modelled = false;
            }
            TextOut => {
                self.flush();
                let text = self
                    .t
                    .program
                    .module()
                    .texts
                    .get(ops[0] as usize)
                    .ok_or_else(|| fail(format!("no text {}", ops[0])))?;
                self.charge(cvm::fuel::text_fuel(text.text.len()), offset);
                dynasm!(self.ops
                    ; .arch x64
                    ; mov rdi, rbx
                    ; mov esi, imm
                );
                self.call_shim(self.t.shims.textout);
                self.check_shim(StubKind::Shim, offset);
                self.modelled = false;
            }
        }
        Ok(())
    }

    /// A call of function `callee`, its arguments the top of the stack.
    fn call(
        &mut self,
        callee: u32,
        offset: u32,
        fail: &dyn Fn(String) -> JitError,
    ) -> Result<(), JitError> {
        let module = self.t.program.module();
        let g = module
            .functions
            .get(callee as usize)
            .ok_or_else(|| fail(format!("a call to no function {callee}")))?;
        let id = self.t.ids[callee as usize]
            .ok_or_else(|| fail(format!("callee {callee} is not part of the compilation")))?;
        let arity = g.arity();
        let cost = self.t.program.function_infos()[callee as usize].call_fuel();
        let mut args: Vec<Opnd> = (0..arity).map(|_| self.pop()).collect();
        args.reverse();
        // The stack below the arguments goes to its frame words: the
        // callee may clobber every pool register.
        self.flush();
        self.call_checks(1, cost, offset);
        for (k, &a) in args.iter().enumerate() {
            match k {
                0 => self.load(1, a),
                1 => self.load(8, a),
                2 => self.load(9, a),
                _ => {
                    let to = 8 * (k as u32 - REG_ARGS) as i32;
                    self.store(to, a);
                }
            }
        }
        dynasm!(self.ops
            ; .arch x64
            ; mov rdi, rbx
            ; mov rsi, r12
            ; lea edx, [r13 - 1]
        );
        self.call_function(id);
        // A negative status: the callee stopped the run; return it on.
        let stopped = match self.propagate {
            Some(l) => l,
            None => {
                let l = self.ops.new_dynamic_label();
                self.propagate = Some(l);
                l
            }
        };
        dynasm!(self.ops
            ; .arch x64
            ; test rdx, rdx
            ; js =>stopped
            ; mov r12, rdx
        );
        if g.returns_value {
            let r = self.alloc(&[]);
            dynasm!(self.ops ; .arch x64 ; mov Rd(r), eax);
            self.push(Val::Reg(r));
        }
        Ok(())
    }

    /// The out-of-line code after the body: back edges that charge fuel,
    /// trap stubs, the status hand-back and the epilogue.
    fn out_of_line(&mut self) {
        // Edges may add exact edges, runs stubs: until none is left.
        while !self.edges.is_empty() || !self.slow_runs.is_empty() {
            for edge in std::mem::take(&mut self.edges) {
                let l = edge.label;
                dynasm!(self.ops ; .arch x64 ; =>l);
                self.take_jump(edge.offset, edge.cost, edge.to, edge.target, edge.exact);
            }
            for run in std::mem::take(&mut self.slow_runs) {
                let (slow, after) = (run.slow, run.after);
                dynasm!(self.ops ; .arch x64 ; =>slow);
                for (offset, instr) in run.items {
                    self.check_one(offset, instr);
                }
                dynasm!(self.ops ; .arch x64 ; jmp =>after);
            }
        }
        for fix in std::mem::take(&mut self.fixes) {
            let (l, k, then) = (fix.label, fix.restore, fix.then);
            dynasm!(self.ops
                ; .arch x64
                ; =>l
                ; add r12, k
                ; jmp =>then
            );
        }
        // The polls: the shim continues the frame on better code (and
        // then its outcome is the function's), or the loop goes on.
        let epi = self.epilogue;
        for (label, target, dest) in std::mem::take(&mut self.polls) {
            let (func, target_i) = (self.index as i32, target as i32);
            let frame = self.slots_at;
            dynasm!(self.ops
                ; .arch x64
                ; =>label
                ; mov rdi, rbx
                ; mov esi, func
                ; mov edx, target_i
                ; lea rcx, [rsp + frame]
                ; mov r8, r12
                ; mov r9d, r13d
            );
            self.call_shim(self.t.shims.osr_poll);
            dynasm!(self.ops
                ; .arch x64
                ; mov rcx, QWORD crate::shims::NOT_SWITCHED
                ; cmp rax, rcx
                ; je =>dest
                ; mov rdx, rax
                ; mov eax, DWORD [rbx + offsets::RESULT]
                ; jmp =>epi
            );
        }
        // Charges above may have made stubs: take them after.
        for stub in std::mem::take(&mut self.stubs) {
            let l = stub.label;
            let off = stub.offset as i32;
            dynasm!(self.ops ; .arch x64 ; =>l);
            if stub.restore != 0 {
                let k = stub.restore;
                dynasm!(self.ops ; .arch x64 ; add r12, k);
            }
            dynasm!(self.ops
                ; .arch x64
                ; mov DWORD [rbx + offsets::TRAP_OFFSET], off
            );
            match stub.kind {
                StubKind::Plain(code) => {
                    let code = code as i32;
                    dynasm!(self.ops
                        ; .arch x64
                        ; mov DWORD [rbx + offsets::TRAP_CODE], code
                        ; mov QWORD [rbx + offsets::FUEL_LEFT], r12
                    );
                }
                StubKind::Bounds(a, b) => {
                    let code = trap::LIST_INDEX as i32;
                    dynasm!(self.ops
                        ; .arch x64
                        ; mov DWORD [rbx + offsets::TRAP_CODE], code
                        ; mov QWORD [rbx + offsets::FUEL_LEFT], r12
                    );
                    for (word, field) in [(a, offsets::TRAP_A), (b, offsets::TRAP_B)] {
                        match word {
                            Word::Reg(r) => {
                                dynasm!(self.ops ; .arch x64 ; mov DWORD [rbx + field], Rd(r))
                            }
                            Word::Imm(k) => {
                                dynasm!(self.ops ; .arch x64 ; mov DWORD [rbx + field], k)
                            }
                        }
                    }
                }
                StubKind::Shim => {
                    dynasm!(self.ops ; .arch x64 ; mov QWORD [rbx + offsets::FUEL_LEFT], r12);
                }
                StubKind::ShimCharged => {}
            }
            self.ret_status(STATUS_TRAP);
        }
        // Stopped callees: return their status (in `rdx`) on.
        let epi = self.epilogue;
        if let Some(l) = self.propagate {
            dynasm!(self.ops
                ; .arch x64
                ; =>l
                ; xor eax, eax
                ; jmp =>epi
            );
        }
        dynasm!(self.ops
            ; .arch x64
            ; =>epi
            ; lea rsp, [rbp - 32]
            ; pop r14
            ; pop r13
            ; pop r12
            ; pop rbx
            ; pop rbp
            ; ret
        );
    }
}

/// The entry trampoline for functions of `arity` parameters, as machine
/// code: `(ctx, callee, fuel, depth_left, args) -> fuel or status` in the
/// System V convention, as the Cranelift-made one in `compile.rs`. It calls
/// `callee` with `(ctx, fuel, depth_left, args[0], ..)` (the first three
/// arguments in `ecx`, `r8d`, `r9d`, the others in eight-byte stack slots),
/// stores the value it returns in the context's result word and returns
/// the fuel or status. Assembling it takes a few hundred host instructions
/// where Cranelift's compilation of the same function takes about 150,000,
/// which a process that runs one short program notices.
pub(crate) fn trampoline(arity: u32) -> Result<Vec<u8>, JitError> {
    let fail = |message: String| JitError::Function {
        function: u32::MAX,
        name: format!("entry trampoline for arity {arity}"),
        message,
    };
    let word = |k: u32| {
        i32::try_from(u64::from(k) * 4).map_err(|_| fail(format!("argument {k} out of reach")))
    };
    let stacked = arity.saturating_sub(REG_ARGS);
    // After `push rbp; push rbx` the stack pointer is 8 bytes off a
    // 16-byte boundary; the stack arguments and the padding restore it.
    let outgoing = u64::from(stacked) * 8 + if stacked % 2 == 0 { 8 } else { 0 };
    let outgoing = i32::try_from(outgoing).map_err(|_| fail("too many arguments".into()))?;
    let mut ops = VecAssembler::<X64Relocation>::new(0);
    dynasm!(ops
        ; .arch x64
        ; push rbp
        ; mov rbp, rsp
        ; push rbx
        ; mov rbx, rdi
        ; mov r11, rsi
        ; mov r10, r8
        ; mov rsi, rdx
        ; mov edx, ecx
        ; sub rsp, outgoing
    );
    for k in REG_ARGS..arity {
        let (from, to) = (word(k)?, 8 * (k - REG_ARGS) as i32);
        dynasm!(ops
            ; .arch x64
            ; mov eax, DWORD [r10 + from]
            ; mov QWORD [rsp + to], rax
        );
    }
    for k in 0..arity.min(REG_ARGS) {
        let from = word(k)?;
        match k {
            0 => dynasm!(ops ; .arch x64 ; mov ecx, DWORD [r10 + from]),
            1 => dynasm!(ops ; .arch x64 ; mov r8d, DWORD [r10 + from]),
            _ => dynasm!(ops ; .arch x64 ; mov r9d, DWORD [r10 + from]),
        }
    }
    dynasm!(ops
        ; .arch x64
        ; call r11
        ; mov DWORD [rbx + offsets::RESULT], eax
        ; mov rax, rdx
        ; lea rsp, [rbp - 8]
        ; pop rbx
        ; pop rbp
        ; ret
    );
    ops.finalize()
        .map_err(|err| fail(format!("assembling failed: {err}")))
}
