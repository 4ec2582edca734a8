//! The code of generated functions: statements (operand stack empty before
//! and after) and expressions (exactly one int pushed), emitted through the
//! module builder so that jump targets and stack maxima come out right.
//!
//! Statements mirror what compilers emit (assignments, if/else, while,
//! repeat, for-in in both its plain and its inverted form, switch with
//! fall-through, counted loops closed by `inc.jlt.li`, calls, intrinsic
//! calls, output, early returns and halts); expressions mix the basic
//! instructions with every fused form, so that the backends see the
//! optimizer's instructions in contexts the optimizer itself would never
//! produce.

use super::{chess_value, Bytes};
use cvm::builder::{FunctionBuilder, Label};
use cvm::intrinsics::{ElemKind, ParamKind, INTRINSICS};
use cvm::isa::{Access, Effect, Flow, Form, Opcode, OperandKind, Rel, Ty, OPCODES};
use cvm_chess::lit::LitKind;
use std::sync::LazyLock;

/// A generated function's signature.
#[derive(Clone, Copy)]
pub(super) struct Sig {
    pub value_params: u32,
    pub list_params: u32,
    pub returns: bool,
}

/// The intrinsics that fill their last argument, a list, with the squares
/// of a set (the `Get` forms and the line walkers, whose fills the JIT may
/// defer).
const SQUARE_FILLS: [&str; 9] = [
    "GetPcOnSqrs",
    "GetControl",
    "GetDblPwns",
    "GetPassed",
    "GetExchngCtrl",
    "GetDwnSqrs",
    "GetUpSqrs",
    "GetLSqrs",
    "GetRSqrs",
];

/// A module list as the generator uses it.
#[derive(Clone, Copy)]
pub(super) struct ListInfo {
    /// The list index.
    pub id: u32,
    /// The kind of chess value a pattern list holds.
    pub kind: Option<LitKind>,
    /// Ordinary lists are read and written; pattern lists are only read
    /// (mostly by read-only intrinsic parameters).
    pub general: bool,
    /// Fill lists are only written by square-set fills and read by
    /// square-set readers (`SetSqrs`), each reference straight into the
    /// call (the lists whose fills the JIT defers).
    pub fill: bool,
}

/// The state of the function being generated.
pub(super) struct Ctx<'a, 'b> {
    pub bytes: &'a mut Bytes<'b>,
    pub sigs: &'a [Sig],
    pub me: Sig,
    pub int_slots: Vec<u32>,
    pub list_slots: Vec<u32>,
    pub globals: u32,
    pub lists: &'a [ListInfo],
    pub texts: u32,
    /// Remaining instruction budget for this function.
    pub budget: i32,
    /// The line table's file, when the module has one.
    pub file: Option<u32>,
    /// The last line number given out.
    pub line: u32,
    /// Inlined frames open (`enter.f` not yet closed by `leave`).
    pub frames: u32,
}

/// The opcodes whose operand words are `operands` (kind and access) and
/// whose stack effect is `effect`, falling through, in table order: a
/// family the generator emits in one place. A new opcode of an existing
/// shape is generated without further work.
fn of_shape(operands: &[(OperandKind, Access)], effect: Effect) -> Vec<Opcode> {
    OPCODES
        .iter()
        .filter(|i| {
            i.flow == Flow::Next
                && i.effect == effect
                && i.operands.len() == operands.len()
                && i.operands
                    .iter()
                    .zip(i.access)
                    .zip(operands)
                    .all(|((k, a), (want_k, want_a))| k == want_k && a == want_a)
        })
        .map(|i| i.opcode)
        .collect()
}

/// The comparisons of one form, in relation order (`eq`, `ne`, `lt`, ...).
fn comparisons(form: Form) -> Vec<Opcode> {
    Rel::ALL
        .iter()
        .filter_map(|&r| Opcode::with_compare(r, form))
        .collect()
}

/// `a b -> c`: `add` ... `bxor`, `eq` ... `ge`.
static BINARY: LazyLock<Vec<Opcode>> =
    LazyLock::new(|| of_shape(&[], Effect::Fixed(&[Ty::Int, Ty::Int], &[Ty::Int])));

/// `a -> b`: `neg`, `bnot`, `lnot`.
static UNARY: LazyLock<Vec<Opcode>> =
    LazyLock::new(|| of_shape(&[], Effect::Fixed(&[Ty::Int], &[Ty::Int])));

/// `a -> a op local`: `add.l`, `sub.l`, `mul.l`.
static WITH_LOCAL: LazyLock<Vec<Opcode>> = LazyLock::new(|| {
    of_shape(
        &[(OperandKind::IntLocal, Access::Read)],
        Effect::Fixed(&[Ty::Int], &[Ty::Int]),
    )
});

/// `- -> local op imm`: `ldl.add.i`.
static LOCAL_IMM: LazyLock<Vec<Opcode>> = LazyLock::new(|| {
    of_shape(
        &[
            (OperandKind::IntLocal, Access::Read),
            (OperandKind::Imm, Access::None),
        ],
        Effect::Fixed(&[], &[Ty::Int]),
    )
});

/// `jeq` ... `jge`.
static JUMP2: LazyLock<Vec<Opcode>> = LazyLock::new(|| comparisons(Form::Branch));

/// `jeq.i` ... `jge.i`.
static JUMP_I: LazyLock<Vec<Opcode>> = LazyLock::new(|| comparisons(Form::BranchImm));

/// `jeq.li` ... `jge.li`.
static JUMP_LI: LazyLock<Vec<Opcode>> = LazyLock::new(|| comparisons(Form::BranchLocalImm));

/// The chess kind of a list parameter's elements.
fn elem_kind(elem: ElemKind) -> Option<LitKind> {
    match elem {
        ElemKind::Any => None,
        ElemKind::Square => Some(LitKind::Square),
        ElemKind::Move => Some(LitKind::Move),
        ElemKind::Piece => Some(LitKind::Piece),
        ElemKind::Column => Some(LitKind::Column),
        ElemKind::BoardSide => Some(LitKind::BoardSide),
        ElemKind::SquareColour => Some(LitKind::SquareColour),
    }
}

/// The chess kind of a scalar parameter.
fn scalar_kind(kind: ParamKind) -> Option<LitKind> {
    match kind {
        ParamKind::Colour => Some(LitKind::Colour),
        ParamKind::Piece => Some(LitKind::Piece),
        ParamKind::CompOp => Some(LitKind::CompOp),
        ParamKind::Square => Some(LitKind::Square),
        ParamKind::Int | ParamKind::List { .. } => None,
    }
}

impl Ctx<'_, '_> {
    fn spend(&mut self, n: i32) -> bool {
        self.budget -= n;
        self.budget > 0 && !self.bytes.exhausted()
    }

    fn pick_index(&mut self, n: usize) -> usize {
        self.bytes.below(n as u32) as usize
    }

    /// One of a family of opcodes; a family of one draws nothing.
    fn pick_op(&mut self, family: &[Opcode]) -> Opcode {
        match family {
            [only] => *only,
            _ => self.bytes.pick(family),
        }
    }

    /// Emits the code of a return appropriate for this function.
    pub(super) fn ret(&mut self, f: &mut FunctionBuilder<'_>) {
        if self.me.returns && self.bytes.chance(15) {
            if let Some(s) = self.int_slot() {
                f.emit(Opcode::RetVL, &[s]);
                return;
            }
        }
        if self.me.returns {
            self.expr(f, 1);
            f.emit(Opcode::RetV, &[]);
        } else {
            f.emit(Opcode::Ret, &[]);
        }
    }

    fn general_list(&mut self) -> u32 {
        let general: Vec<u32> = self
            .lists
            .iter()
            .filter(|l| l.general)
            .map(|l| l.id)
            .collect();
        if general.is_empty() {
            0
        } else {
            general[self.pick_index(general.len())]
        }
    }

    fn any_list(&mut self) -> u32 {
        let readable: Vec<u32> = self
            .lists
            .iter()
            .filter(|l| !l.fill)
            .map(|l| l.id)
            .collect();
        if readable.is_empty() {
            0
        } else {
            readable[self.pick_index(readable.len())]
        }
    }

    /// Pushes a reference to a list the program may write: a list
    /// parameter or an ordinary list, now and then through `dup` or `swap`
    /// (which the verifier must type as list references).
    fn list_ref(&mut self, f: &mut FunctionBuilder<'_>) {
        self.out_list_ref(f, false);
    }

    /// [`Ctx::list_ref`] for the list a `Get` intrinsic writes (`get`),
    /// which now and then is one of the fill lists, referenced straight
    /// before the call.
    fn out_list_ref(&mut self, f: &mut FunctionBuilder<'_>, get: bool) {
        let fills: Vec<u32> = self.lists.iter().filter(|l| l.fill).map(|l| l.id).collect();
        match self.bytes.below(16) {
            k @ 2..=7 if get && !fills.is_empty() => {
                f.emit(Opcode::Lref, &[fills[k as usize % fills.len()]]);
            }
            0 => {
                self.plain_list_ref(f);
                f.emit(Opcode::Dup, &[]);
                f.emit(Opcode::Pop, &[]);
            }
            1 => {
                self.plain_list_ref(f);
                self.plain_list_ref(f);
                f.emit(Opcode::Swap, &[]);
                f.emit(Opcode::Pop, &[]);
            }
            _ => self.plain_list_ref(f),
        }
    }

    fn plain_list_ref(&mut self, f: &mut FunctionBuilder<'_>) {
        if !self.list_slots.is_empty() && self.bytes.chance(50) {
            let s = self.bytes.pick(&self.list_slots);
            f.emit(Opcode::Ldl, &[s]);
        } else {
            let l = self.general_list();
            f.emit(Opcode::Lref, &[l]);
        }
    }

    /// Pushes a list reference for a read-only intrinsic parameter: mostly
    /// a pattern list of the wanted kind, straight before the call, which
    /// is what lets the optimizer and the JIT treat it as a constant.
    fn pattern_ref(&mut self, f: &mut FunctionBuilder<'_>, kind: Option<LitKind>) {
        let patterns: Vec<u32> = self
            .lists
            .iter()
            .filter(|l| !l.general && !l.fill && (kind.is_none() || l.kind == kind))
            .map(|l| l.id)
            .collect();
        if !patterns.is_empty() && self.bytes.chance(75) {
            let l = patterns[self.pick_index(patterns.len())];
            f.emit(Opcode::Lref, &[l]);
        } else if self.bytes.chance(30) {
            let l = self.any_list();
            f.emit(Opcode::Lref, &[l]);
        } else {
            self.list_ref(f);
        }
    }

    fn int_slot(&mut self) -> Option<u32> {
        if self.int_slots.is_empty() {
            None
        } else {
            Some(self.bytes.pick(&self.int_slots))
        }
    }

    /// An index expression: usually in range, sometimes not.
    fn index(&mut self, f: &mut FunctionBuilder<'_>, depth: u32) {
        if self.bytes.chance(70) {
            f.emit(Opcode::Push, &[self.bytes.below(10)]);
        } else {
            self.expr(f, depth + 1);
        }
    }

    /// Records a source position for what follows, when the module has a
    /// line table.
    fn loc(&mut self, f: &mut FunctionBuilder<'_>) {
        if let Some(file) = self.file {
            if self.bytes.chance(60) {
                self.line += 1 + self.bytes.below(3);
                let col = 1 + self.bytes.below(30);
                f.loc(file, self.line, col);
            }
        }
    }

    /// Emits code that pushes exactly one int.
    pub(super) fn expr(&mut self, f: &mut FunctionBuilder<'_>, depth: u32) {
        let leaf = depth > 4 || !self.spend(1);
        let choice = if leaf {
            self.bytes.below(3)
        } else {
            self.bytes.below(24)
        };
        match choice {
            0 => f.emit(Opcode::Push, &[self.bytes.imm() as u32]),
            1 => match self.int_slot() {
                Some(s) if self.bytes.chance(20) => {
                    let op = self.pick_op(&LOCAL_IMM);
                    f.emit(op, &[s, self.bytes.imm() as u32])
                }
                Some(s) => f.emit(Opcode::Ldl, &[s]),
                None => f.emit(Opcode::Push, &[1]),
            },
            2 => f.emit(Opcode::Ldg, &[self.bytes.below(self.globals)]),
            3..=5 => {
                self.expr(f, depth + 1);
                self.expr(f, depth + 1);
                if self.bytes.chance(10) {
                    f.emit(Opcode::Swap, &[]);
                }
                let op = self.pick_op(&BINARY);
                f.emit(op, &[]);
            }
            6 => {
                self.expr(f, depth + 1);
                let op = self.pick_op(&UNARY);
                f.emit(op, &[]);
            }
            7 => {
                self.expr(f, depth + 1);
                f.emit(Opcode::AddI, &[self.bytes.imm() as u32]);
            }
            8 => {
                self.index(f, depth);
                let l = self.any_list();
                f.emit(Opcode::Lde, &[l]);
            }
            9 => {
                self.list_ref(f);
                self.index(f, depth);
                f.emit(Opcode::Ldx, &[]);
            }
            10 | 11 => {
                let callees: Vec<u32> = (0..self.sigs.len() as u32)
                    .filter(|&i| self.sigs[i as usize].returns)
                    .collect();
                if callees.is_empty() {
                    f.emit(Opcode::Push, &[2]);
                } else {
                    let c = callees[self.pick_index(callees.len())];
                    self.call_args(f, c, depth);
                    f.emit(Opcode::Call, &[c]);
                }
            }
            12 => self.intrinsic(f, depth, true),
            13 => {
                // Assignment as an expression: dup + store, or tee.
                self.expr(f, depth + 1);
                match self.int_slot() {
                    Some(s) if self.bytes.chance(50) => f.emit(Opcode::Tee, &[s]),
                    Some(s) => {
                        f.emit(Opcode::Dup, &[]);
                        f.emit(Opcode::Stl, &[s]);
                    }
                    None => {
                        f.emit(Opcode::Dup, &[]);
                        f.emit(Opcode::Stg, &[self.bytes.below(self.globals)]);
                    }
                }
            }
            14 => {
                // Short-circuit `and` (or `or`) yielding 0/1.
                let (test, early, late) = if self.bytes.chance(50) {
                    (Opcode::Jz, 0, 1)
                } else {
                    (Opcode::Jnz, 1, 0)
                };
                let short = f.new_label();
                let end = f.new_label();
                self.expr(f, depth + 1);
                f.emit_jump(test, &[], short);
                self.expr(f, depth + 1);
                f.emit_jump(test, &[], short);
                f.emit(Opcode::Push, &[late]);
                f.emit_jump(Opcode::Jmp, &[], end);
                f.bind(short);
                f.emit(Opcode::Push, &[early]);
                f.bind(end);
            }
            15 => {
                // Fused immediate arithmetic (a zero divisor traps).
                self.expr(f, depth + 1);
                let op = self.bytes.pick(&[Opcode::MulI, Opcode::DivI, Opcode::ModI]);
                let k = if self.bytes.chance(10) {
                    0
                } else {
                    self.bytes.imm()
                };
                f.emit(op, &[k as u32]);
            }
            16 => match (self.int_slot(), self.int_slot()) {
                (Some(a), Some(b)) => {
                    f.emit(Opcode::Ldl2, &[a, b]);
                    let op = self.pick_op(&BINARY);
                    f.emit(op, &[]);
                }
                _ => f.emit(Opcode::Push, &[3]),
            },
            17 => self.folded_pattern(f, depth),
            18 => {
                self.expr(f, depth + 1);
                match self.int_slot() {
                    Some(s) => {
                        let op = self.pick_op(&WITH_LOCAL);
                        f.emit(op, &[s]);
                    }
                    None => f.emit(Opcode::Neg, &[]),
                }
            }
            19 => match self.int_slot() {
                Some(s) if !self.list_slots.is_empty() && self.bytes.chance(50) => {
                    let l = self.bytes.pick(&self.list_slots);
                    f.emit(Opcode::LdxL, &[l, s]);
                }
                Some(s) => {
                    let l = self.any_list();
                    f.emit(Opcode::LdeL, &[l, s]);
                }
                None => f.emit(Opcode::Push, &[4]),
            },
            20 => {
                self.expr(f, depth + 1);
                self.expr(f, depth + 1);
                f.emit(Opcode::Pop, &[]);
            }
            21 => {
                // A conditional value: c ? a : b.
                let other = f.new_label();
                let end = f.new_label();
                self.cond_jump(f, other);
                self.expr(f, depth + 1);
                f.emit_jump(Opcode::Jmp, &[], end);
                f.bind(other);
                self.expr(f, depth + 1);
                f.bind(end);
            }
            22 => {
                self.expr(f, depth + 1);
                f.emit(Opcode::Dup, &[]);
                let op = self.pick_op(&BINARY);
                f.emit(op, &[]);
            }
            _ => {
                // ListLen of any list reference.
                self.pattern_ref(f, None);
                f.emit(Opcode::Intr, &[0]);
            }
        }
    }

    /// `pat.all` / `pat.any` of a foldable pattern on a square mask.
    fn folded_pattern(&mut self, f: &mut FunctionBuilder<'_>, depth: u32) {
        let foldable: Vec<(u32, ParamKind)> = INTRINSICS
            .iter()
            .enumerate()
            .filter(|(_, i)| i.fold.is_some())
            .map(|(n, i)| (n as u32, i.params[0].kind))
            .collect();
        if foldable.is_empty() {
            f.emit(Opcode::Push, &[5]);
            return;
        }
        let (id, kind) = foldable[self.pick_index(foldable.len())];
        self.scalar_arg(f, kind, depth);
        let (lo, hi) = match self.bytes.below(4) {
            0 => (0, 0),
            1 => (u32::MAX, u32::MAX),
            2 => (1 << self.bytes.below(32), 1 << self.bytes.below(32)),
            _ => (self.bytes.word(), self.bytes.word()),
        };
        let op = if self.bytes.chance(50) {
            Opcode::PatAll
        } else {
            Opcode::PatAny
        };
        f.emit(op, &[id, lo, hi]);
    }

    /// An argument for a scalar intrinsic parameter.
    fn scalar_arg(&mut self, f: &mut FunctionBuilder<'_>, kind: ParamKind, depth: u32) {
        match scalar_kind(kind) {
            Some(k) if self.bytes.chance(75) => {
                let v = chess_value(self.bytes, k);
                f.emit(Opcode::Push, &[v as u32]);
            }
            Some(_) => self.expr(f, depth + 1),
            None => match self.bytes.below(20) {
                0..=9 => f.emit(Opcode::Push, &[(self.bytes.below(40) as i32 - 8) as u32]),
                10..=12 => f.emit(Opcode::Push, &[self.bytes.imm() as u32]),
                _ => self.expr(f, depth + 1),
            },
        }
    }

    /// A call of an intrinsic with arguments of the right kinds; with
    /// `value` only intrinsics that return one, and the result is left on
    /// the stack; otherwise any intrinsic, its result dropped.
    fn intrinsic(&mut self, f: &mut FunctionBuilder<'_>, depth: u32, value: bool) {
        // As a statement, mostly an advice procedure (they are fewer).
        let procedures = !value && self.bytes.chance(60);
        let candidates: Vec<u32> = INTRINSICS
            .iter()
            .enumerate()
            .filter(|(_, i)| {
                if procedures {
                    !i.returns
                } else {
                    i.returns || !value
                }
            })
            .map(|(n, _)| n as u32)
            .collect();
        if candidates.is_empty() {
            if value {
                f.emit(Opcode::Push, &[6]);
            }
            return;
        }
        let id = candidates[self.pick_index(candidates.len())];
        let info = &INTRINSICS[id as usize];
        for p in info.params {
            match p.kind {
                ParamKind::List { elem, out: false } => {
                    // A square-set reader now and then reads a fill list.
                    let fills: Vec<u32> =
                        self.lists.iter().filter(|l| l.fill).map(|l| l.id).collect();
                    if cvm::intrinsics::reads_square_set(id)
                        && !fills.is_empty()
                        && self.bytes.chance(40)
                    {
                        let l = fills[self.pick_index(fills.len())];
                        f.emit(Opcode::Lref, &[l]);
                    } else {
                        self.pattern_ref(f, elem_kind(elem))
                    }
                }
                ParamKind::List { out: true, .. } => {
                    self.out_list_ref(f, SQUARE_FILLS.contains(&info.name))
                }
                kind => self.scalar_arg(f, kind, depth),
            }
        }
        f.emit(Opcode::Intr, &[id]);
        if info.returns && !value {
            f.emit(Opcode::Pop, &[]);
        }
    }

    /// A square-set fill of a fill list and `SetSqrs` on the same list
    /// right after it: what lets the JIT hand the waiting set to the
    /// reader (or write the advice in place).
    fn fill_and_read(&mut self, f: &mut FunctionBuilder<'_>) {
        let fills: Vec<u32> = self.lists.iter().filter(|l| l.fill).map(|l| l.id).collect();
        let (Some(fill), Some((set_sqrs, reader))) =
            (self.pick_of(&fills), cvm::intrinsics::by_name("SetSqrs"))
        else {
            return;
        };
        let name = self.bytes.pick(&SQUARE_FILLS);
        let Some((id, info)) = cvm::intrinsics::by_name(name) else {
            return;
        };
        for p in info.params {
            match p.kind {
                ParamKind::List { .. } => f.emit(Opcode::Lref, &[fill]),
                kind => self.scalar_arg(f, kind, 1),
            }
        }
        f.emit(Opcode::Intr, &[id]);
        if info.returns {
            f.emit(Opcode::Pop, &[]);
        }
        for p in reader.params {
            match p.kind {
                ParamKind::List { .. } => f.emit(Opcode::Lref, &[fill]),
                kind => self.scalar_arg(f, kind, 1),
            }
        }
        f.emit(Opcode::Intr, &[set_sqrs]);
    }

    /// One of `items`, when there are any.
    fn pick_of(&mut self, items: &[u32]) -> Option<u32> {
        (!items.is_empty()).then(|| items[self.pick_index(items.len())])
    }

    fn call_args(&mut self, f: &mut FunctionBuilder<'_>, callee: u32, depth: u32) {
        let sig = self.sigs[callee as usize];
        for _ in 0..sig.value_params {
            self.expr(f, depth + 1);
        }
        for _ in 0..sig.list_params {
            if self.bytes.chance(10) {
                // A pattern list passed on: no longer a constant.
                let l = self.any_list();
                f.emit(Opcode::Lref, &[l]);
            } else {
                self.list_ref(f);
            }
        }
    }

    /// A conditional jump to `target` consuming operands it pushes itself.
    fn cond_jump(&mut self, f: &mut FunctionBuilder<'_>, target: Label) {
        match self.bytes.below(5) {
            0 => {
                self.expr(f, 2);
                let op = if self.bytes.chance(50) {
                    Opcode::Jz
                } else {
                    Opcode::Jnz
                };
                f.emit_jump(op, &[], target);
            }
            1 => {
                self.expr(f, 2);
                self.expr(f, 2);
                let op = self.pick_op(&JUMP2);
                f.emit_jump(op, &[], target);
            }
            2 if !self.int_slots.is_empty() => {
                let s = self.int_slot().unwrap_or(0);
                let k = self.bytes.imm() as u32;
                let op = self.pick_op(&JUMP_LI);
                f.emit_jump(op, &[s, k], target);
            }
            _ => {
                self.expr(f, 2);
                let k = self.bytes.imm() as u32;
                let op = self.pick_op(&JUMP_I);
                f.emit_jump(op, &[k], target);
            }
        }
    }

    /// Emits a statement: stack depth 0 before and after.
    pub(super) fn stmt(&mut self, f: &mut FunctionBuilder<'_>, nest: u32) {
        if !self.spend(2) {
            return;
        }
        self.loc(f);
        const SIMPLE: [u32; 13] = [0, 1, 2, 3, 4, 5, 6, 7, 16, 18, 19, 20, 21];
        let choice = if nest > 2 {
            self.bytes.pick(&SIMPLE)
        } else {
            self.bytes.below(25)
        };
        match choice {
            0 | 1 => {
                self.expr(f, 0);
                match self.int_slot() {
                    Some(s) if self.bytes.chance(70) => f.emit(Opcode::Stl, &[s]),
                    _ => f.emit(Opcode::Stg, &[self.bytes.below(self.globals)]),
                }
            }
            2 => {
                self.index(f, 0);
                self.expr(f, 1);
                let l = self.general_list();
                f.emit(Opcode::Ste, &[l]);
            }
            3 => {
                self.list_ref(f);
                self.index(f, 0);
                self.expr(f, 1);
                f.emit(Opcode::Stx, &[]);
            }
            4 => match self.int_slot() {
                Some(s) => {
                    let op = if self.bytes.chance(50) {
                        Opcode::Incl
                    } else {
                        Opcode::Decl
                    };
                    f.emit(op, &[s]);
                }
                None => {
                    let op = if self.bytes.chance(50) {
                        Opcode::Incg
                    } else {
                        Opcode::Decg
                    };
                    f.emit(op, &[self.bytes.below(self.globals)]);
                }
            },
            5 => {
                self.expr(f, 0);
                f.emit(Opcode::Write, &[]);
            }
            6 => f.emit(Opcode::TextOut, &[self.bytes.below(self.texts)]),
            7 => {
                // Procedure or function call as a statement.
                let c = self.bytes.below(self.sigs.len() as u32);
                self.call_args(f, c, 0);
                f.emit(Opcode::Call, &[c]);
                if self.sigs[c as usize].returns {
                    f.emit(Opcode::Pop, &[]);
                }
            }
            8 | 9 => {
                // if / else
                let else_l = f.new_label();
                let end = f.new_label();
                self.cond_jump(f, else_l);
                self.block(f, nest);
                f.emit_jump(Opcode::Jmp, &[], end);
                f.bind(else_l);
                if self.bytes.chance(50) {
                    self.block(f, nest);
                }
                f.bind(end);
            }
            10 | 11 => self.while_loop(f, nest),
            12 => {
                // repeat-until: a conditional backward jump, or a `case`
                // jumping back.
                let top = f.new_label();
                f.bind(top);
                self.block(f, nest);
                if self.bytes.chance(25) {
                    self.expr(f, 1);
                    f.emit_jump(Opcode::Case, &[self.bytes.below(4)], top);
                    f.emit(Opcode::Pop, &[]);
                } else {
                    self.cond_jump(f, top);
                }
            }
            13 => self.for_in(f, nest),
            14 => self.switch(f, nest),
            16 => f.emit(Opcode::Fuel, &[self.bytes.below(3)]),
            17 => {
                // A counted loop closed by inc.jlt.li.
                let Some(c) = self.int_slot() else { return };
                let top = f.new_label();
                f.emit(Opcode::Push, &[0]);
                f.emit(Opcode::Stl, &[c]);
                f.bind(top);
                self.block(f, nest);
                f.emit_jump(Opcode::IncJLtLI, &[c, 1 + self.bytes.below(4)], top);
            }
            18 if self.bytes.chance(20) => self.fill_and_read(f),
            18 => self.intrinsic(f, 0, false),
            19 => {
                let Some(s) = self.int_slot() else { return };
                self.expr(f, 1);
                if !self.list_slots.is_empty() && self.bytes.chance(50) {
                    let l = self.bytes.pick(&self.list_slots);
                    f.emit(Opcode::StxL, &[l, s]);
                } else {
                    let l = self.general_list();
                    f.emit(Opcode::SteL, &[l, s]);
                }
            }
            20 => f.emit(Opcode::Nop, &[]),
            21 => {
                self.list_ref(f);
                f.emit(Opcode::Pop, &[]);
            }
            22 => {
                self.expr(f, 0);
                match self.int_slot() {
                    Some(s) => f.emit(Opcode::Tee, &[s]),
                    None => f.emit(Opcode::Dup, &[]),
                }
                f.emit(Opcode::Write, &[]);
                f.emit(Opcode::Pop, &[]);
            }
            23 => f.emit(Opcode::Enter, &[1 + self.bytes.below(4)]),
            24 => {
                // The shape of an inlined call that calls: a block inside
                // an inlined frame.
                f.emit(Opcode::EnterF, &[]);
                self.frames += 1;
                self.block(f, nest + 1);
                self.frames -= 1;
                f.emit(Opcode::Leave, &[]);
            }
            _ => {
                // early return or, rarely, halt, inside a conditional
                let skip = f.new_label();
                self.cond_jump(f, skip);
                if self.bytes.chance(10) {
                    f.emit(Opcode::Halt, &[]);
                } else {
                    // A return leaves every inlined frame first.
                    for _ in 0..self.frames {
                        f.emit(Opcode::Leave, &[]);
                    }
                    self.ret(f);
                }
                f.bind(skip);
            }
        }
    }

    /// A while loop, possibly with a counter that bounds it.
    fn while_loop(&mut self, f: &mut FunctionBuilder<'_>, nest: u32) {
        let top = f.new_label();
        let end = f.new_label();
        let counter = self.int_slot();
        if let Some(c) = counter {
            f.emit(Opcode::Push, &[0]);
            f.emit(Opcode::Stl, &[c]);
        }
        f.bind(top);
        match counter {
            Some(c) if self.bytes.chance(80) => {
                f.emit(Opcode::Ldl, &[c]);
                f.emit_jump(Opcode::JGeI, &[1 + self.bytes.below(5)], end);
                f.emit(Opcode::Incl, &[c]);
            }
            _ => self.cond_jump(f, end),
        }
        self.block(f, nest);
        f.emit_jump(Opcode::Jmp, &[], top);
        f.bind(end);
    }

    /// for-in over a module list or a list parameter, sometimes in the
    /// inverted form the optimizer makes.
    fn for_in(&mut self, f: &mut FunctionBuilder<'_>, nest: u32) {
        let Some(cursor) = self.int_slot() else {
            return;
        };
        let top = f.new_label();
        let end = f.new_label();
        let inverted = self.bytes.chance(40);
        let (step, back, list) = if !self.list_slots.is_empty() && self.bytes.chance(50) {
            let l = self.bytes.pick(&self.list_slots);
            (Opcode::Forx, Opcode::ForxB, l)
        } else {
            (Opcode::Forl, Opcode::ForlB, self.any_list())
        };
        f.emit(Opcode::Push, &[0]);
        f.emit(Opcode::Stl, &[cursor]);
        if inverted {
            f.emit_jump(step, &[list, cursor], end);
            f.bind(top);
        } else {
            f.bind(top);
            f.emit_jump(step, &[list, cursor], end);
        }
        match self.int_slot() {
            Some(v) if v != cursor && self.bytes.chance(60) => f.emit(Opcode::Stl, &[v]),
            _ => f.emit(Opcode::Write, &[]),
        }
        self.block(f, nest);
        if inverted {
            f.emit_jump(back, &[list, cursor], top);
            f.emit(Opcode::Fuel, &[1]);
        } else {
            f.emit_jump(Opcode::Jmp, &[], top);
        }
        f.bind(end);
    }

    /// switch with fall-through.
    fn switch(&mut self, f: &mut FunctionBuilder<'_>, nest: u32) {
        let end = f.new_label();
        let n = 1 + self.bytes.below(3);
        let labels: Vec<Label> = (0..n).map(|_| f.new_label()).collect();
        self.expr(f, 1);
        for l in &labels {
            let k = self.bytes.below(5);
            f.emit_jump(Opcode::Case, &[k], *l);
        }
        f.emit(Opcode::Pop, &[]);
        f.emit_jump(Opcode::Jmp, &[], end);
        for l in labels {
            f.bind(l);
            self.block(f, nest);
            if self.bytes.chance(50) {
                f.emit_jump(Opcode::Jmp, &[], end);
            }
        }
        f.bind(end);
    }

    fn block(&mut self, f: &mut FunctionBuilder<'_>, nest: u32) {
        let n = 1 + self.bytes.below(3);
        for _ in 0..n {
            self.stmt(f, nest + 1);
        }
    }
}
