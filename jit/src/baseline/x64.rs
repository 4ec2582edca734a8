//! The baseline code generator for x86-64 (see the module above): one
//! template per CVM instruction, assembled with `dynasmrt`.

use crate::context::{offsets, trap, SHIM_TRAP, STATUS_HALT, STATUS_TRAP};
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
    /// `eax` at the jump to the stub.
    Eax,
    /// `r9d` at the jump to the stub.
    R9,
    /// A constant.
    Imm(i32),
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
}

/// A back edge that charges fuel, emitted out of line after the body.
struct Edge {
    label: DynamicLabel,
    offset: u32,
    cost: u64,
    target: DynamicLabel,
    /// The target's code offset.
    to: u32,
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
    /// The function's index.
    index: u32,
}

/// The System V argument registers for CVM arguments 0, 1 and 2 (after
/// `ctx`, fuel and depth in `rdi`, `rsi`, `rdx`).
const REG_ARGS: u32 = 3;

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
            index: 0,
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
        for (n, i) in info.instrs.iter().enumerate() {
            let Some(d) = i.depth else { continue };
            let l = self.labels[n];
            dynasm!(self.ops ; .arch x64 ; =>l);
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
        let label = self.ops.new_dynamic_label();
        self.stubs.push(Stub {
            label,
            kind,
            offset,
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

    /// `eax := cc ? 1 : 0` after a comparison.
    fn setcc(&mut self, cc: Cc) {
        match cc {
            Cc::E => dynasm!(self.ops ; .arch x64 ; sete al),
            Cc::Ne => dynasm!(self.ops ; .arch x64 ; setne al),
            Cc::L => dynasm!(self.ops ; .arch x64 ; setl al),
            Cc::Le => dynasm!(self.ops ; .arch x64 ; setle al),
            Cc::G => dynasm!(self.ops ; .arch x64 ; setg al),
            Cc::Ge => dynasm!(self.ops ; .arch x64 ; setge al),
        }
        dynasm!(self.ops ; .arch x64 ; movzx eax, al);
    }

    /// Charges `n` units of fuel, or stops with out-of-fuel at `offset`.
    fn charge(&mut self, n: u64, offset: u32) {
        if n == 0 || !self.t.checks.fuel {
            return;
        }
        let stop = self.stub(StubKind::Plain(trap::OUT_OF_FUEL), offset);
        match i32::try_from(n) {
            Ok(k) => dynasm!(self.ops
                ; .arch x64
                ; cmp r12, k
                ; jb =>stop
                ; sub r12, k
            ),
            Err(_) => {
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
        self.charge(cost, offset);
        if target <= offset {
            self.poll(target, dest);
        }
        dynasm!(self.ops ; .arch x64 ; jmp =>dest);
        Ok(())
    }

    /// At a back edge to loop header `target` (label `dest`), in code with
    /// entries for on-stack replacement: counts the back edge and polls for
    /// better code every [`crate::context::POLL_EVERY`] of them.
    fn poll(&mut self, target: u32, dest: DynamicLabel) {
        if self.heads.binary_search(&target).is_err() {
            return;
        }
        let label = self.ops.new_dynamic_label();
        dynasm!(self.ops
            ; .arch x64
            ; sub DWORD [rbx + offsets::POLL], 1
            ; jz =>label
        );
        self.polls.push((label, target, dest));
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

    /// Loads element `eax` of module list `list` into `eax` (`load`) or
    /// stores `r10d` into it, bounds-checked.
    fn module_elem(&mut self, list: u32, load: bool, offset: u32) {
        let ListSlice { base, slots } = self.t.initial.lists[list as usize];
        if self.t.checks.bounds {
            let slots = slots as i32;
            let out = self.stub(StubKind::Bounds(Word::Eax, Word::Imm(slots)), offset);
            dynasm!(self.ops
                ; .arch x64
                ; cmp eax, slots
                ; jae =>out
            );
        }
        let disp = (base as i32).wrapping_mul(4);
        dynasm!(self.ops
            ; .arch x64
            ; mov rdx, QWORD [rbx + offsets::HEAP]
        );
        if load {
            dynasm!(self.ops ; .arch x64 ; mov eax, DWORD [rdx + rax * 4 + disp]);
        } else {
            dynasm!(self.ops ; .arch x64 ; mov DWORD [rdx + rax * 4 + disp], r10d);
        }
    }

    /// Puts the base of the list referenced by `ecx` in `r8d` and its slot
    /// count in `r9d`.
    fn slice_of_ecx(&mut self) {
        let size = offsets::SLICE_SIZE as i32;
        dynasm!(self.ops
            ; .arch x64
            ; mov rdx, QWORD [rbx + offsets::LISTS]
            ; imul ecx, ecx, size
            ; mov r8d, DWORD [rdx + rcx + offsets::SLICE_BASE]
            ; mov r9d, DWORD [rdx + rcx + offsets::SLICE_SLOTS]
        );
    }

    /// Loads element `eax` of the list referenced by `ecx` into `eax`
    /// (`load`) or stores `r10d` into it, bounds-checked.
    fn ref_elem(&mut self, load: bool, offset: u32) {
        self.slice_of_ecx();
        if self.t.checks.bounds {
            let out = self.stub(StubKind::Bounds(Word::Eax, Word::R9), offset);
            dynasm!(self.ops
                ; .arch x64
                ; cmp eax, r9d
                ; jae =>out
            );
        }
        dynasm!(self.ops
            ; .arch x64
            ; add eax, r8d
            ; mov rdx, QWORD [rbx + offsets::HEAP]
        );
        if load {
            dynasm!(self.ops ; .arch x64 ; mov eax, DWORD [rdx + rax * 4]);
        } else {
            dynasm!(self.ops ; .arch x64 ; mov DWORD [rdx + rax * 4], r10d);
        }
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
            ; mov rdx, QWORD [rbx + offsets::HEAP]
            ; mov ecx, DWORD [rdx + rcx * 4]
            ; cmp ecx, -1
            ; je =>none
            ; mov DWORD [rsp + s], ecx
            ; add eax, 1
            ; mov DWORD [rsp + c], eax
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

    /// `eax op= [rsp + b]` for the binary arithmetic opcodes.
    fn arith(&mut self, op: Opcode, b: i32) {
        match op {
            Opcode::Add | Opcode::AddL => dynasm!(self.ops ; .arch x64 ; add eax, DWORD [rsp + b]),
            Opcode::Sub | Opcode::SubL => dynasm!(self.ops ; .arch x64 ; sub eax, DWORD [rsp + b]),
            Opcode::Mul | Opcode::MulL => dynasm!(self.ops ; .arch x64 ; imul eax, DWORD [rsp + b]),
            Opcode::BitAnd => dynasm!(self.ops ; .arch x64 ; and eax, DWORD [rsp + b]),
            Opcode::BitOr => dynasm!(self.ops ; .arch x64 ; or eax, DWORD [rsp + b]),
            _ => dynasm!(self.ops ; .arch x64 ; xor eax, DWORD [rsp + b]),
        }
    }

    /// `eax := [rsp + a] / ecx` (or the remainder), `ecx` not zero: in 64
    /// bits, where `i32::MIN / -1` cannot overflow (it wraps, and the
    /// remainder is 0, as the CVM says).
    fn divide(&mut self, a: i32, rem: bool) {
        dynasm!(self.ops
            ; .arch x64
            ; movsxd rax, DWORD [rsp + a]
            ; movsxd rcx, ecx
            ; cqo
            ; idiv rcx
        );
        if rem {
            dynasm!(self.ops ; .arch x64 ; mov eax, edx);
        }
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
        // Stack slots the templates name (only those that exist are used).
        let top = self.s(d.saturating_sub(1));
        let second = self.s(d.saturating_sub(2));
        let third = self.s(d.saturating_sub(3));
        let push = self.s(d);
        match instr.opcode {
            Nop | Pop => {}
            Push | Lref => dynasm!(self.ops ; .arch x64 ; mov DWORD [rsp + push], imm),
            Dup => dynasm!(self.ops
                ; .arch x64
                ; mov eax, DWORD [rsp + top]
                ; mov DWORD [rsp + push], eax
            ),
            Swap => dynasm!(self.ops
                ; .arch x64
                ; mov eax, DWORD [rsp + second]
                ; mov ecx, DWORD [rsp + top]
                ; mov DWORD [rsp + second], ecx
                ; mov DWORD [rsp + top], eax
            ),
            Ldl => {
                let l = self.l(ops[0]);
                dynasm!(self.ops
                    ; .arch x64
                    ; mov eax, DWORD [rsp + l]
                    ; mov DWORD [rsp + push], eax
                );
            }
            Stl | Tee => {
                let l = self.l(ops[0]);
                dynasm!(self.ops
                    ; .arch x64
                    ; mov eax, DWORD [rsp + top]
                    ; mov DWORD [rsp + l], eax
                );
            }
            Ldl2 => {
                let (a, b) = (self.l(ops[0]), self.l(ops[1]));
                let push2 = self.s(d + 1);
                dynasm!(self.ops
                    ; .arch x64
                    ; mov eax, DWORD [rsp + a]
                    ; mov ecx, DWORD [rsp + b]
                    ; mov DWORD [rsp + push], eax
                    ; mov DWORD [rsp + push2], ecx
                );
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
                dynasm!(self.ops ; .arch x64 ; mov eax, DWORD [rsp + second]);
                self.arith(instr.opcode, top);
                dynasm!(self.ops ; .arch x64 ; mov DWORD [rsp + second], eax);
            }
            AddL | SubL | MulL => {
                let l = self.l(ops[0]);
                dynasm!(self.ops ; .arch x64 ; mov eax, DWORD [rsp + top]);
                self.arith(instr.opcode, l);
                dynasm!(self.ops ; .arch x64 ; mov DWORD [rsp + top], eax);
            }
            Div | Mod => {
                let zero = self.stub(StubKind::Plain(trap::DIV_ZERO), offset);
                dynasm!(self.ops
                    ; .arch x64
                    ; mov ecx, DWORD [rsp + top]
                    ; test ecx, ecx
                    ; jz =>zero
                );
                self.divide(second, instr.opcode == Mod);
                dynasm!(self.ops ; .arch x64 ; mov DWORD [rsp + second], eax);
            }
            DivI | ModI => match imm {
                0 => {
                    let zero = self.stub(StubKind::Plain(trap::DIV_ZERO), offset);
                    dynasm!(self.ops ; .arch x64 ; jmp =>zero);
                }
                -1 if instr.opcode == DivI => dynasm!(self.ops ; .arch x64 ; neg DWORD [rsp + top]),
                -1 => dynasm!(self.ops ; .arch x64 ; mov DWORD [rsp + top], 0),
                k => {
                    dynasm!(self.ops ; .arch x64 ; mov ecx, k);
                    self.divide(top, instr.opcode == ModI);
                    dynasm!(self.ops ; .arch x64 ; mov DWORD [rsp + top], eax);
                }
            },
            Neg => dynasm!(self.ops ; .arch x64 ; neg DWORD [rsp + top]),
            BitNot => dynasm!(self.ops ; .arch x64 ; not DWORD [rsp + top]),
            Eq | Ne | Lt | Le | Gt | Ge => {
                let cc = Cc::of_op(instr.opcode, fail)?;
                dynasm!(self.ops
                    ; .arch x64
                    ; mov ecx, DWORD [rsp + second]
                    ; cmp ecx, DWORD [rsp + top]
                );
                self.setcc(cc);
                dynasm!(self.ops ; .arch x64 ; mov DWORD [rsp + second], eax);
            }
            LNot => {
                dynasm!(self.ops ; .arch x64 ; cmp DWORD [rsp + top], 0);
                self.setcc(Cc::E);
                dynasm!(self.ops ; .arch x64 ; mov DWORD [rsp + top], eax);
            }
            AddI => dynasm!(self.ops ; .arch x64 ; add DWORD [rsp + top], imm),
            LdlAddI => {
                let l = self.l(ops[0]);
                let k = ops[1] as i32;
                dynasm!(self.ops
                    ; .arch x64
                    ; mov eax, DWORD [rsp + l]
                    ; add eax, k
                    ; mov DWORD [rsp + push], eax
                );
            }
            MulI => dynasm!(self.ops
                ; .arch x64
                ; imul eax, DWORD [rsp + top], imm
                ; mov DWORD [rsp + top], eax
            ),
            Ldg | Stg | Incg | Decg => {
                let g = (ops[0] as i32).wrapping_mul(4);
                dynasm!(self.ops ; .arch x64 ; mov rdx, QWORD [rbx + offsets::GLOBALS]);
                match instr.opcode {
                    Ldg => dynasm!(self.ops
                        ; .arch x64
                        ; mov eax, DWORD [rdx + g]
                        ; mov DWORD [rsp + push], eax
                    ),
                    Stg => dynasm!(self.ops
                        ; .arch x64
                        ; mov eax, DWORD [rsp + top]
                        ; mov DWORD [rdx + g], eax
                    ),
                    Incg => dynasm!(self.ops ; .arch x64 ; add DWORD [rdx + g], 1),
                    _ => dynasm!(self.ops ; .arch x64 ; sub DWORD [rdx + g], 1),
                }
            }
            Lde => {
                dynasm!(self.ops ; .arch x64 ; mov eax, DWORD [rsp + top]);
                self.module_elem(ops[0], true, offset);
                dynasm!(self.ops ; .arch x64 ; mov DWORD [rsp + top], eax);
            }
            Ste => {
                dynasm!(self.ops
                    ; .arch x64
                    ; mov eax, DWORD [rsp + second]
                    ; mov r10d, DWORD [rsp + top]
                );
                self.module_elem(ops[0], false, offset);
            }
            LdeL => {
                let i = self.l(ops[1]);
                dynasm!(self.ops ; .arch x64 ; mov eax, DWORD [rsp + i]);
                self.module_elem(ops[0], true, offset);
                dynasm!(self.ops ; .arch x64 ; mov DWORD [rsp + push], eax);
            }
            SteL => {
                let i = self.l(ops[1]);
                dynasm!(self.ops
                    ; .arch x64
                    ; mov eax, DWORD [rsp + i]
                    ; mov r10d, DWORD [rsp + top]
                );
                self.module_elem(ops[0], false, offset);
            }
            Ldx => {
                dynasm!(self.ops
                    ; .arch x64
                    ; mov ecx, DWORD [rsp + second]
                    ; mov eax, DWORD [rsp + top]
                );
                self.ref_elem(true, offset);
                dynasm!(self.ops ; .arch x64 ; mov DWORD [rsp + second], eax);
            }
            Stx => {
                dynasm!(self.ops
                    ; .arch x64
                    ; mov ecx, DWORD [rsp + third]
                    ; mov eax, DWORD [rsp + second]
                    ; mov r10d, DWORD [rsp + top]
                );
                self.ref_elem(false, offset);
            }
            LdxL => {
                let (r, i) = (self.l(ops[0]), self.l(ops[1]));
                dynasm!(self.ops
                    ; .arch x64
                    ; mov ecx, DWORD [rsp + r]
                    ; mov eax, DWORD [rsp + i]
                );
                self.ref_elem(true, offset);
                dynasm!(self.ops ; .arch x64 ; mov DWORD [rsp + push], eax);
            }
            StxL => {
                let (r, i) = (self.l(ops[0]), self.l(ops[1]));
                dynasm!(self.ops
                    ; .arch x64
                    ; mov ecx, DWORD [rsp + r]
                    ; mov eax, DWORD [rsp + i]
                    ; mov r10d, DWORD [rsp + top]
                );
                self.ref_elem(false, offset);
            }
            Forl | Forx => {
                self.for_list(instr);
                let exit = self.edge(offset, ops[2], fail)?;
                self.for_elem(ops[1], d, exit);
            }
            ForlB | ForxB => {
                self.for_list(instr);
                let none = self.ops.new_dynamic_label();
                self.for_elem(ops[1], d, none);
                self.jump(offset, ops[2], fail)?;
                dynasm!(self.ops ; .arch x64 ; =>none);
            }
            Halt => {
                dynasm!(self.ops ; .arch x64 ; mov QWORD [rbx + offsets::FUEL_LEFT], r12);
                self.ret_status(STATUS_HALT);
            }
            Fuel => self.charge(u64::from(ops[0]), offset),
            Jmp => self.jump(offset, ops[0], fail)?,
            Jz | Jnz => {
                dynasm!(self.ops ; .arch x64 ; cmp DWORD [rsp + top], 0);
                let cc = if instr.opcode == Jz { Cc::E } else { Cc::Ne };
                self.branch(cc, offset, ops[0], fail)?;
            }
            Case => {
                dynasm!(self.ops ; .arch x64 ; cmp DWORD [rsp + top], imm);
                self.branch(Cc::E, offset, ops[1], fail)?;
            }
            JEq | JNe | JLt | JLe | JGt | JGe => {
                let cc = Cc::of_op(instr.opcode, fail)?;
                dynasm!(self.ops
                    ; .arch x64
                    ; mov eax, DWORD [rsp + second]
                    ; cmp eax, DWORD [rsp + top]
                );
                self.branch(cc, offset, ops[0], fail)?;
            }
            JEqI | JNeI | JLtI | JLeI | JGtI | JGeI => {
                let cc = Cc::of_op(instr.opcode, fail)?;
                dynasm!(self.ops ; .arch x64 ; cmp DWORD [rsp + top], imm);
                self.branch(cc, offset, ops[1], fail)?;
            }
            JEqLI | JNeLI | JLtLI | JLeLI | JGtLI | JGeLI => {
                let cc = Cc::of_op(instr.opcode, fail)?;
                let l = self.l(ops[0]);
                let k = ops[1] as i32;
                dynasm!(self.ops ; .arch x64 ; cmp DWORD [rsp + l], k);
                self.branch(cc, offset, ops[2], fail)?;
            }
            IncJLtLI => {
                let cc = Cc::of_op(instr.opcode, fail)?;
                let l = self.l(ops[0]);
                let k = ops[1] as i32;
                dynasm!(self.ops
                    ; .arch x64
                    ; mov eax, DWORD [rsp + l]
                    ; add eax, 1
                    ; mov DWORD [rsp + l], eax
                    ; cmp eax, k
                );
                self.branch(cc, offset, ops[2], fail)?;
            }
            Call => self.call(ops[0], d, offset, fail)?,
            Ret => {
                dynasm!(self.ops ; .arch x64 ; xor eax, eax);
                self.ret_value();
            }
            RetV => {
                dynasm!(self.ops ; .arch x64 ; mov eax, DWORD [rsp + top]);
                self.ret_value();
            }
            RetVL => {
                let l = self.l(ops[0]);
                dynasm!(self.ops ; .arch x64 ; mov eax, DWORD [rsp + l]);
                self.ret_value();
            }
            Enter => self.call_checks(ops[0], 1, offset),
            EnterF => {
                self.call_checks(1, 1, offset);
                dynasm!(self.ops ; .arch x64 ; sub r13d, 1);
            }
            Leave => dynasm!(self.ops ; .arch x64 ; add r13d, 1),
            Intr => {
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
                self.call_shim(self.t.shims.intrinsic);
                self.check_shim(StubKind::ShimCharged, offset);
                dynasm!(self.ops ; .arch x64 ; mov r12, rax);
            }
            PatAll | PatAny => {
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
            }
            Write => {
                self.charge(cvm::fuel::WRITE_FUEL, offset);
                dynasm!(self.ops
                    ; .arch x64
                    ; mov rdi, rbx
                    ; mov esi, DWORD [rsp + top]
                );
                self.call_shim(self.t.shims.write);
                self.check_shim(StubKind::Shim, offset);
            }
            TextOut => {
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
            }
        }
        Ok(())
    }

    /// A call of function `callee`, its arguments the top of the stack
    /// (depth `d` before the call).
    fn call(
        &mut self,
        callee: u32,
        d: u32,
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
        self.call_checks(1, cost, offset);
        let first = d - arity;
        for k in 0..arity {
            let at = self.s(first + k);
            match k {
                0 => dynasm!(self.ops ; .arch x64 ; mov ecx, DWORD [rsp + at]),
                1 => dynasm!(self.ops ; .arch x64 ; mov r8d, DWORD [rsp + at]),
                2 => dynasm!(self.ops ; .arch x64 ; mov r9d, DWORD [rsp + at]),
                _ => {
                    let to = 8 * (k - REG_ARGS) as i32;
                    dynasm!(self.ops
                        ; .arch x64
                        ; mov eax, DWORD [rsp + at]
                        ; mov DWORD [rsp + to], eax
                    );
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
            let r = self.s(first);
            dynasm!(self.ops ; .arch x64 ; mov DWORD [rsp + r], eax);
        }
        Ok(())
    }

    /// The out-of-line code after the body: back edges that charge fuel,
    /// trap stubs, the status hand-back and the epilogue.
    fn out_of_line(&mut self) {
        for edge in std::mem::take(&mut self.edges) {
            let l = edge.label;
            dynasm!(self.ops ; .arch x64 ; =>l);
            self.charge(edge.cost, edge.offset);
            let t = edge.target;
            if edge.to <= edge.offset {
                self.poll(edge.to, t);
            }
            dynasm!(self.ops ; .arch x64 ; jmp =>t);
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
            dynasm!(self.ops
                ; .arch x64
                ; =>l
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
                            Word::Eax => {
                                dynasm!(self.ops ; .arch x64 ; mov DWORD [rbx + field], eax)
                            }
                            Word::R9 => {
                                dynasm!(self.ops ; .arch x64 ; mov DWORD [rbx + field], r9d)
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
