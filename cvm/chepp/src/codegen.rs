//! Code generation: the checked program to a verified CVM module.
//!
//! The conventions are fixed because the VM, the disassembler and the JIT
//! rely on them:
//! - frame slots: value parameters, list parameters, named locals, then
//!   hidden temporaries (`$cur0`, `$idx`, `$val`), all named for listings;
//! - globals, lists and texts become module tables in declaration order,
//!   literal list arguments become anonymous lists `lit.N`, computed single
//!   values passed for a list become one-element lists `tmp.N`;
//! - `and`/`or` short-circuit and yield 1/0; inside conditions they become
//!   jumps directly;
//! - `switch` evaluates its selector once and tests it with a chain of
//!   `case` instructions; every case body starts with an empty operand
//!   stack, so `break`, `goto` and fall-through are plain jumps;
//! - `for v in list` uses `forl` (module list) or `forx` (list parameter)
//!   with a hidden cursor that is reset to 0 before the loop;
//! - every statement, and every instruction that can fail at run time
//!   (division, list access, calls), records its source place in the line
//!   table, so runtime errors point at `file:line:col`.
//!
//! The module is verified by [`ModuleBuilder::finish`]; a failure there is a
//! compiler bug and is reported as an internal error, never a panic.

use super::ast::{BinOp, UnOp};
use super::buffer::{CodeBuf, Lbl};
use super::diag::{Diagnostic, Diagnostics};
use super::hir::*;
use super::source::{SourceMap, Span};
use cvm::builder::ModuleBuilder;
use cvm::isa::Opcode;
use cvm::module::MAX_FRAME_SLOTS;

/// Generates the module. `None` when an error was reported.
pub fn generate(p: &Program, sources: &SourceMap, diags: &mut Diagnostics) -> Option<cvm::Program> {
    let mut b = ModuleBuilder::new();
    let internal = |e: &dyn std::fmt::Display| {
        Diagnostic::global_error(format!("internal compiler error: {e}"))
    };
    let files: Vec<u32> = sources.files().iter().map(|f| b.file(&f.name)).collect();
    for g in &p.globals {
        if let Err(e) = b.global(&g.name, g.init) {
            diags.push(internal(&e));
            return None;
        }
    }
    for l in &p.lists {
        if let Err(e) = b.list(&l.name, l.capacity, l.init.clone()) {
            diags.push(internal(&e));
            return None;
        }
    }
    for t in &p.texts {
        if let Err(e) = b.text(&t.name, &t.text) {
            diags.push(internal(&e));
            return None;
        }
    }
    for r in &p.routines {
        if let Err(e) = b.declare_function(&r.name, r.value_params, r.list_params, r.returns_value)
        {
            diags.push(internal(&e));
            return None;
        }
    }
    if let Some(main) = p.main {
        b.set_entry(main);
    }
    let mut ok = true;
    for (index, r) in p.routines.iter().enumerate() {
        let mut g = FnGen {
            buf: CodeBuf::new(),
            slots: r.slot_names.clone(),
            breaks: Vec::new(),
            labels: Vec::new(),
            cursors: 0,
            idx_tmp: None,
            val_tmp: None,
        };
        g.labels = (0..r.labels).map(|_| g.buf.label()).collect();
        g.block(&r.body);
        if g.buf.is_live() {
            if g.buf.end_reachable() {
                if r.returns_value {
                    diags.push(
                        Diagnostic::error(
                            r.end,
                            format!("function `{}` may end without returning a value", r.name),
                        )
                        .label("control can reach this `end`")
                        .help("add `return EXPRESSION;` on every path"),
                    );
                    ok = false;
                    continue;
                }
                g.buf.loc(r.end);
                g.buf.op(Opcode::Ret, &[]);
            } else if r.returns_value {
                // Only unreachable code jumps here; give its label an
                // instruction to land on.
                g.buf.op(Opcode::Push, &[0]);
                g.buf.op(Opcode::RetV, &[]);
            } else {
                g.buf.op(Opcode::Ret, &[]);
            }
        }
        let arity = r.value_params + r.list_params;
        if g.slots.len() > MAX_FRAME_SLOTS as usize {
            diags.push(
                Diagnostic::error(
                    r.end,
                    format!("routine `{}` has too many variables", r.name),
                )
                .label(format!(
                    "more than {MAX_FRAME_SLOTS} parameters, locals and temporaries"
                )),
            );
            ok = false;
            continue;
        }
        let mut f = b.body(index as u32);
        for _ in arity as usize..g.slots.len() {
            f.local();
        }
        f.set_slot_names(g.slots);
        let mut place = |span: Span| {
            let (line, col) = sources.line_col(span);
            let file = files.get(span.file.0 as usize).copied().unwrap_or(0);
            (file, line, col)
        };
        g.buf.replay(&mut f, &mut place);
        if let Err(e) = f.finish() {
            diags.push(internal(&e));
            ok = false;
        }
    }
    if !ok {
        return None;
    }
    match b.finish() {
        Ok(m) => Some(m),
        Err(e) => {
            diags.push(internal(&e));
            None
        }
    }
}

struct FnGen {
    buf: CodeBuf,
    slots: Vec<String>,
    breaks: Vec<Lbl>,
    labels: Vec<Lbl>,
    cursors: u32,
    idx_tmp: Option<u32>,
    val_tmp: Option<u32>,
}

/// The leftmost operand of a chain of `op` and the right operands from the
/// top down (walk them in reverse for source order).
fn chain(e: &Expr, op: BinOp) -> (&Expr, Vec<&Expr>) {
    let mut rights = Vec::new();
    let mut first = e;
    while let ExprKind::Binary(o, a, b) = &first.kind {
        if *o != op {
            break;
        }
        rights.push(&**b);
        first = a;
    }
    (first, rights)
}

fn to_u32(v: i32) -> u32 {
    v as u32
}

impl FnGen {
    fn temp(&mut self, name: String) -> u32 {
        self.slots.push(name);
        self.slots.len() as u32 - 1
    }

    fn idx_tmp(&mut self) -> u32 {
        match self.idx_tmp {
            Some(t) => t,
            None => {
                let t = self.temp("$idx".into());
                self.idx_tmp = Some(t);
                t
            }
        }
    }

    fn val_tmp(&mut self) -> u32 {
        match self.val_tmp {
            Some(t) => t,
            None => {
                let t = self.temp("$val".into());
                self.val_tmp = Some(t);
                t
            }
        }
    }

    fn jmp(&mut self, l: Lbl) {
        self.buf.jump(Opcode::Jmp, &[], l);
    }

    // ---- statements ----------------------------------------------------

    fn block(&mut self, stmts: &[Stmt]) {
        for s in stmts {
            self.stmt(s);
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        self.buf.loc(s.span);
        match &s.kind {
            StmtKind::Expr(e) => self.effect(e),
            StmtKind::If(arms, els) => {
                let end = self.buf.label();
                for (cond, body) in arms {
                    let next = self.buf.label();
                    self.cond_false(cond, next);
                    self.block(body);
                    self.jmp(end);
                    self.buf.bind(next);
                }
                self.block(els);
                self.buf.bind(end);
            }
            StmtKind::Switch { selector, arms } => {
                self.expr(selector);
                let end = self.buf.label();
                let targets: Vec<Lbl> = arms.iter().map(|_| self.buf.label()).collect();
                let mut default = end;
                for (arm, &l) in arms.iter().zip(&targets) {
                    for &v in &arm.values {
                        self.buf.jump(Opcode::Case, &[to_u32(v)], l);
                    }
                    if arm.default {
                        default = l;
                    }
                }
                self.buf.op(Opcode::Pop, &[]);
                self.jmp(default);
                self.breaks.push(end);
                for (arm, &l) in arms.iter().zip(&targets) {
                    self.buf.bind(l);
                    self.block(&arm.body);
                }
                self.breaks.pop();
                self.buf.bind(end);
            }
            StmtKind::Break => {
                if let Some(&l) = self.breaks.last() {
                    self.jmp(l);
                }
            }
            StmtKind::Goto(n) => {
                if let Some(&l) = self.labels.get(*n as usize) {
                    self.jmp(l);
                }
            }
            StmtKind::Label(n) => {
                if let Some(&l) = self.labels.get(*n as usize) {
                    self.buf.bind(l);
                }
            }
            StmtKind::Return(value) => match value {
                Some(e) => {
                    self.expr(e);
                    self.buf.op(Opcode::RetV, &[]);
                }
                None => self.buf.op(Opcode::Ret, &[]),
            },
            StmtKind::While(cond, body) => {
                let head = self.buf.label();
                let exit = self.buf.label();
                self.buf.bind(head);
                self.cond_false(cond, exit);
                self.breaks.push(exit);
                self.block(body);
                self.breaks.pop();
                self.buf.loc(s.span);
                self.jmp(head);
                self.buf.bind(exit);
            }
            StmtKind::Repeat(body, cond) => {
                let head = self.buf.label();
                let exit = self.buf.label();
                self.buf.bind(head);
                self.breaks.push(exit);
                self.block(body);
                self.breaks.pop();
                self.buf.loc(cond.span);
                self.cond_false(cond, head);
                self.buf.bind(exit);
            }
            StmtKind::For { var, list, body } => {
                let cursor = self.temp(format!("$cur{}", self.cursors));
                self.cursors += 1;
                self.buf.op(Opcode::Push, &[0]);
                self.buf.op(Opcode::Stl, &[cursor]);
                let head = self.buf.label();
                let exit = self.buf.label();
                self.buf.bind(head);
                match list {
                    ListRef::Global(l) => self.buf.jump(Opcode::Forl, &[*l, cursor], exit),
                    ListRef::Param(p) => self.buf.jump(Opcode::Forx, &[*p, cursor], exit),
                }
                match var {
                    Place::Local(slot) => self.buf.op(Opcode::Stl, &[*slot]),
                    Place::Global(g) => self.buf.op(Opcode::Stg, &[*g]),
                    Place::Elem(..) => self.buf.op(Opcode::Pop, &[]),
                }
                self.breaks.push(exit);
                self.block(body);
                self.breaks.pop();
                self.buf.loc(s.span);
                self.jmp(head);
                self.buf.bind(exit);
            }
            StmtKind::Write(e) => {
                self.expr(e);
                self.buf.op(Opcode::Write, &[]);
            }
            StmtKind::TextOut(t) => self.buf.op(Opcode::TextOut, &[*t]),
        }
    }

    // ---- conditions ----------------------------------------------------

    /// Jumps to `target` when `e` is false (0); falls through otherwise.
    fn cond_false(&mut self, e: &Expr, target: Lbl) {
        match &e.kind {
            ExprKind::Binary(BinOp::And, ..) => {
                // `a and b and ...`: false as soon as one operand is.
                let (first, rights) = chain(e, BinOp::And);
                self.cond_false(first, target);
                for b in rights.iter().rev() {
                    self.cond_false(b, target);
                }
            }
            ExprKind::Binary(BinOp::Or, a, b) => {
                let ok = self.buf.label();
                self.cond_true(a, ok);
                self.cond_false(b, target);
                self.buf.bind(ok);
            }
            ExprKind::Unary(UnOp::Not, x) => self.cond_true(x, target),
            _ => {
                self.expr(e);
                self.buf.jump(Opcode::Jz, &[], target);
            }
        }
    }

    /// Jumps to `target` when `e` is true (non-zero); falls through
    /// otherwise.
    fn cond_true(&mut self, e: &Expr, target: Lbl) {
        match &e.kind {
            ExprKind::Binary(BinOp::Or, ..) => {
                // `a or b or ...`: true as soon as one operand is.
                let (first, rights) = chain(e, BinOp::Or);
                self.cond_true(first, target);
                for b in rights.iter().rev() {
                    self.cond_true(b, target);
                }
            }
            ExprKind::Binary(BinOp::And, a, b) => {
                let skip = self.buf.label();
                self.cond_false(a, skip);
                self.cond_true(b, target);
                self.buf.bind(skip);
            }
            ExprKind::Unary(UnOp::Not, x) => self.cond_false(x, target),
            _ => {
                self.expr(e);
                self.buf.jump(Opcode::Jnz, &[], target);
            }
        }
    }

    // ---- expressions ---------------------------------------------------

    /// Evaluates `e` for its effect only.
    fn effect(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Call {
                func,
                args,
                returns,
            } => {
                self.args(args);
                self.buf.loc(e.span);
                self.buf.op(Opcode::Call, &[*func]);
                if *returns {
                    self.buf.op(Opcode::Pop, &[]);
                }
            }
            ExprKind::Intrinsic { id, args, returns } => {
                self.args(args);
                self.buf.loc(e.span);
                self.buf.op(Opcode::Intr, &[*id]);
                if *returns {
                    self.buf.op(Opcode::Pop, &[]);
                }
            }
            ExprKind::Assign(place, value) => self.assign(place, value, false, e.span),
            ExprKind::IncDec { place, inc, prefix } => {
                self.incdec(place, *inc, *prefix, false, e.span)
            }
            _ => {
                self.expr(e);
                self.buf.op(Opcode::Pop, &[]);
            }
        }
    }

    /// Evaluates `e`, pushing its value.
    fn expr(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Const(v) => self.buf.op(Opcode::Push, &[to_u32(*v)]),
            ExprKind::Local(slot) => self.buf.op(Opcode::Ldl, &[*slot]),
            ExprKind::Global(g) => self.buf.op(Opcode::Ldg, &[*g]),
            ExprKind::Elem(list, index) => match list {
                ListRef::Global(l) => {
                    self.expr(index);
                    self.buf.loc(e.span);
                    self.buf.op(Opcode::Lde, &[*l]);
                }
                ListRef::Param(p) => {
                    self.buf.op(Opcode::Ldl, &[*p]);
                    self.expr(index);
                    self.buf.loc(e.span);
                    self.buf.op(Opcode::Ldx, &[]);
                }
            },
            ExprKind::Call { func, args, .. } => {
                self.args(args);
                self.buf.loc(e.span);
                self.buf.op(Opcode::Call, &[*func]);
            }
            ExprKind::Intrinsic { id, args, .. } => {
                self.args(args);
                self.buf.loc(e.span);
                self.buf.op(Opcode::Intr, &[*id]);
            }
            ExprKind::Unary(op, x) => {
                self.expr(x);
                self.buf.op(
                    match op {
                        UnOp::Neg => Opcode::Neg,
                        UnOp::Not => Opcode::LNot,
                        UnOp::BitNot => Opcode::BitNot,
                    },
                    &[],
                );
            }
            ExprKind::Binary(BinOp::And | BinOp::Or, ..) => {
                let no = self.buf.label();
                let end = self.buf.label();
                self.cond_false(e, no);
                self.buf.op(Opcode::Push, &[1]);
                self.jmp(end);
                self.buf.bind(no);
                self.buf.op(Opcode::Push, &[0]);
                self.buf.bind(end);
            }
            ExprKind::Binary(..) => {
                // A chain of arithmetic operators of any length: the left
                // operands in a loop; recursion only into right operands
                // (and into a left operand that is `and`/`or`).
                let mut nodes = Vec::new();
                let mut first = e;
                while let ExprKind::Binary(op, a, _) = &first.kind {
                    if matches!(op, BinOp::And | BinOp::Or) {
                        break;
                    }
                    nodes.push(first);
                    first = a;
                }
                self.expr(first);
                for node in nodes.iter().rev() {
                    if let ExprKind::Binary(op, _, b) = &node.kind {
                        self.expr(b);
                        self.binop(*op, node.span);
                    }
                }
            }
            ExprKind::Assign(place, value) => self.assign(place, value, true, e.span),
            ExprKind::IncDec { place, inc, prefix } => {
                self.incdec(place, *inc, *prefix, true, e.span)
            }
        }
    }

    /// The instruction of an arithmetic or comparison operator (operands
    /// on the stack); `span` is where a division by zero is reported.
    fn binop(&mut self, op: BinOp, span: Span) {
        let opcode = match op {
            BinOp::BitOr => Opcode::BitOr,
            BinOp::BitXor => Opcode::BitXor,
            BinOp::BitAnd => Opcode::BitAnd,
            BinOp::Eq => Opcode::Eq,
            BinOp::Ne => Opcode::Ne,
            BinOp::Lt => Opcode::Lt,
            BinOp::Le => Opcode::Le,
            BinOp::Gt => Opcode::Gt,
            BinOp::Ge => Opcode::Ge,
            BinOp::Add => Opcode::Add,
            BinOp::Sub => Opcode::Sub,
            BinOp::Mul => Opcode::Mul,
            BinOp::Div => Opcode::Div,
            BinOp::Mod => Opcode::Mod,
            BinOp::And | BinOp::Or => Opcode::Nop,
        };
        if matches!(op, BinOp::Div | BinOp::Mod) {
            self.buf.loc(span);
        }
        self.buf.op(opcode, &[]);
    }

    fn args(&mut self, args: &[Arg]) {
        for a in args {
            match a {
                Arg::Value(e) => self.expr(e),
                Arg::List(ListRef::Global(l)) => self.buf.op(Opcode::Lref, &[*l]),
                Arg::List(ListRef::Param(p)) => self.buf.op(Opcode::Ldl, &[*p]),
                Arg::Temp { list, value } => {
                    self.buf.op(Opcode::Push, &[0]);
                    self.expr(value);
                    self.buf.op(Opcode::Ste, &[*list]);
                    self.buf.op(Opcode::Lref, &[*list]);
                }
            }
        }
    }

    /// `place := value`; with `want` the assigned value stays on the stack.
    fn assign(&mut self, place: &Place, value: &Expr, want: bool, span: Span) {
        match place {
            Place::Local(slot) => {
                self.expr(value);
                if want {
                    self.buf.op(Opcode::Dup, &[]);
                }
                self.buf.op(Opcode::Stl, &[*slot]);
            }
            Place::Global(g) => {
                self.expr(value);
                if want {
                    self.buf.op(Opcode::Dup, &[]);
                }
                self.buf.op(Opcode::Stg, &[*g]);
            }
            Place::Elem(list, index) => {
                if let ListRef::Param(p) = list {
                    self.buf.op(Opcode::Ldl, &[*p]);
                }
                self.expr(index);
                self.expr(value);
                let keep = want.then(|| self.val_tmp());
                if let Some(t) = keep {
                    self.buf.op(Opcode::Dup, &[]);
                    self.buf.op(Opcode::Stl, &[t]);
                }
                self.buf.loc(span);
                match list {
                    ListRef::Global(l) => self.buf.op(Opcode::Ste, &[*l]),
                    ListRef::Param(_) => self.buf.op(Opcode::Stx, &[]),
                }
                if let Some(t) = keep {
                    self.buf.op(Opcode::Ldl, &[t]);
                }
            }
        }
    }

    /// `++`/`--`; with `want` the expression's value (new for prefix, old
    /// for postfix) stays on the stack.
    fn incdec(&mut self, place: &Place, inc: bool, prefix: bool, want: bool, span: Span) {
        match place {
            Place::Local(slot) => {
                let op = if inc { Opcode::Incl } else { Opcode::Decl };
                if want && !prefix {
                    self.buf.op(Opcode::Ldl, &[*slot]);
                }
                self.buf.op(op, &[*slot]);
                if want && prefix {
                    self.buf.op(Opcode::Ldl, &[*slot]);
                }
            }
            Place::Global(g) => {
                let op = if inc { Opcode::Incg } else { Opcode::Decg };
                if want && !prefix {
                    self.buf.op(Opcode::Ldg, &[*g]);
                }
                self.buf.op(op, &[*g]);
                if want && prefix {
                    self.buf.op(Opcode::Ldg, &[*g]);
                }
            }
            Place::Elem(list, index) => {
                let it = self.idx_tmp();
                self.expr(index);
                self.buf.op(Opcode::Stl, &[it]);
                // Stack for the store: [list?] index; then the old value.
                match list {
                    ListRef::Global(l) => {
                        self.buf.op(Opcode::Ldl, &[it]);
                        self.buf.op(Opcode::Ldl, &[it]);
                        self.buf.loc(span);
                        self.buf.op(Opcode::Lde, &[*l]);
                    }
                    ListRef::Param(p) => {
                        self.buf.op(Opcode::Ldl, &[*p]);
                        self.buf.op(Opcode::Ldl, &[it]);
                        self.buf.op(Opcode::Ldl, &[*p]);
                        self.buf.op(Opcode::Ldl, &[it]);
                        self.buf.loc(span);
                        self.buf.op(Opcode::Ldx, &[]);
                    }
                }
                let keep = want.then(|| self.val_tmp());
                if let (Some(t), false) = (keep, prefix) {
                    self.buf.op(Opcode::Dup, &[]);
                    self.buf.op(Opcode::Stl, &[t]);
                }
                self.buf
                    .op(Opcode::AddI, &[to_u32(if inc { 1 } else { -1 })]);
                if let (Some(t), true) = (keep, prefix) {
                    self.buf.op(Opcode::Dup, &[]);
                    self.buf.op(Opcode::Stl, &[t]);
                }
                match list {
                    ListRef::Global(l) => self.buf.op(Opcode::Ste, &[*l]),
                    ListRef::Param(_) => self.buf.op(Opcode::Stx, &[]),
                }
                if let Some(t) = keep {
                    self.buf.op(Opcode::Ldl, &[t]);
                }
            }
        }
    }
}
