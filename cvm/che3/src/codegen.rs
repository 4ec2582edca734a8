//! Code generation: a checked Che program to a verified CVM module.
//!
//! The module has one function per definition, in program order:
//!
//! - `pattern.NAME`, no parameters, returning 1 or 0: the AND-list's
//!   entries in order, each jumping to `return 0` when it fails; then, when
//!   the OR-list is not empty, its entries, each jumping to `return 1` when
//!   it holds;
//! - `advice.NAME`, a procedure: its steps in order; a guard that fails
//!   jumps to the `ret` at the end, skipping the rest of the advice;
//! - `main`, the entry point: every rule in program order, calling its
//!   patterns (the first that fails skips to the next rule) and then its
//!   advices.
//!
//! Each Che function becomes the intrinsic calls [`crate::lower`] plans
//! for it; the constant lists those calls take become module lists
//! `lit.N` (a list used twice is stored once: the intrinsics only read
//! them). `isendgame` counts pieces with `GetPcOnSqrs` into a 64-slot
//! scratch list, `scratch`. Every call and intrinsic records the `.che3`
//! place of the entry it comes from in the line table, so a runtime error
//! (running out of fuel, say) points at the Che source.

use crate::diag::{Diagnostic, Diagnostics};
use crate::hir::*;
use crate::lower::{self, Check, Effect, IArg, Intr};
use crate::source::{SourceMap, Span};
use cvm::builder::ModuleBuilder;
use cvm::isa::Opcode;
use std::collections::HashMap;

/// The prefix of a pattern's function name.
pub const PATTERN_PREFIX: &str = "pattern.";
/// The prefix of an advice's function name.
pub const ADVICE_PREFIX: &str = "advice.";
/// The name of the scratch list `isendgame` counts into.
pub const SCRATCH_LIST: &str = "scratch";

/// One instruction of a body before it goes to the builder.
#[derive(Clone, Debug)]
enum Op {
    Plain(Opcode, Vec<u32>),
    Jump(Opcode, usize),
    Bind(usize),
    Loc(Span),
}

#[derive(Clone, Debug, Default)]
struct Body {
    ops: Vec<Op>,
    labels: usize,
    used: Vec<bool>,
}

impl Body {
    fn label(&mut self) -> usize {
        self.labels += 1;
        self.used.push(false);
        self.labels - 1
    }

    fn op(&mut self, opcode: Opcode, operands: &[u32]) {
        self.ops.push(Op::Plain(opcode, operands.to_vec()));
    }

    fn jump(&mut self, opcode: Opcode, label: usize) {
        if let Some(u) = self.used.get_mut(label) {
            *u = true;
        }
        self.ops.push(Op::Jump(opcode, label));
    }

    fn bind(&mut self, label: usize) {
        self.ops.push(Op::Bind(label));
    }

    fn is_used(&self, label: usize) -> bool {
        self.used.get(label).copied().unwrap_or(false)
    }
}

/// The module-wide state: lists, intrinsic numbers, function numbers.
struct Gen {
    lists: Vec<(String, u32, Vec<i32>)>,
    by_contents: HashMap<Vec<i32>, u32>,
    scratch: Option<u32>,
    intrinsics: HashMap<&'static str, u32>,
    missing: Vec<&'static str>,
    patterns: u32,
}

impl Gen {
    fn list(&mut self, values: &[i32]) -> u32 {
        if let Some(&i) = self.by_contents.get(values) {
            return i;
        }
        let i = self.lists.len() as u32;
        self.lists
            .push((format!("lit.{i}"), values.len() as u32, values.to_vec()));
        self.by_contents.insert(values.to_vec(), i);
        i
    }

    fn scratch(&mut self) -> u32 {
        match self.scratch {
            Some(i) => i,
            None => {
                let i = self.lists.len() as u32;
                self.lists.push((SCRATCH_LIST.to_string(), 64, Vec::new()));
                self.scratch = Some(i);
                i
            }
        }
    }

    fn intrinsic(&mut self, name: &'static str) -> u32 {
        if let Some(&n) = self.intrinsics.get(name) {
            return n;
        }
        match cvm::intrinsics::by_name(name) {
            Some((n, _)) => {
                self.intrinsics.insert(name, n);
                n
            }
            None => {
                self.missing.push(name);
                0
            }
        }
    }

    fn pattern_fn(&self, i: usize) -> u32 {
        i as u32
    }

    fn advice_fn(&self, i: usize) -> u32 {
        self.patterns + i as u32
    }

    fn intr(&mut self, b: &mut Body, call: &Intr) {
        for arg in &call.args {
            match arg {
                IArg::Scalar(s) => b.op(Opcode::Push, &[s.value() as u32]),
                IArg::List(_, values) => {
                    let l = self.list(values);
                    b.op(Opcode::Lref, &[l]);
                }
            }
        }
        let n = self.intrinsic(call.name);
        b.op(Opcode::Intr, &[n]);
    }

    /// Pushes the check's truth value (1 or 0).
    fn value(&mut self, b: &mut Body, check: &Check) {
        match check {
            Check::Intr(call) => self.intr(b, call),
            Check::Const(v) => b.op(Opcode::Push, &[u32::from(*v)]),
            Check::Endgame => {
                let scratch = self.scratch();
                let count = self.intrinsic("GetPcOnSqrs");
                for (i, &(kind, value)) in lower::ENDGAME_VALUES.iter().enumerate() {
                    b.op(Opcode::Push, &[lower::endgame_piece(kind) as u32]);
                    b.op(Opcode::Lref, &[scratch]);
                    b.op(Opcode::Intr, &[count]);
                    b.op(Opcode::MulI, &[value as u32]);
                    if i > 0 {
                        b.op(Opcode::Add, &[]);
                    }
                }
                b.op(Opcode::Push, &[lower::ENDGAME_LIMIT as u32]);
                b.op(Opcode::Le, &[]);
            }
            Check::All(checks) => {
                let fail = b.label();
                let end = b.label();
                for c in checks {
                    self.branch(b, c, false, fail);
                }
                b.op(Opcode::Push, &[1]);
                b.jump(Opcode::Jmp, end);
                b.bind(fail);
                b.op(Opcode::Push, &[0]);
                b.bind(end);
            }
        }
    }

    /// Jumps to `target` when the check's truth is `when`.
    fn branch(&mut self, b: &mut Body, check: &Check, when: bool, target: usize) {
        match check {
            Check::All(checks) if !when => {
                for c in checks {
                    self.branch(b, c, false, target);
                }
            }
            Check::All(checks) => {
                let skip = b.label();
                for c in checks {
                    self.branch(b, c, false, skip);
                }
                b.jump(Opcode::Jmp, target);
                b.bind(skip);
            }
            _ => {
                self.value(b, check);
                b.jump(if when { Opcode::Jnz } else { Opcode::Jz }, target);
            }
        }
    }

    /// Jumps to `target` when the pattern entry's truth is `when`.
    fn cond(&mut self, b: &mut Body, cond: &Cond, when: bool, target: usize) {
        b.ops.push(Op::Loc(cond.span));
        let when = when != cond.negated;
        match &cond.test {
            CondTest::Call(call) => {
                let check = lower::check(call);
                self.branch(b, &check, when, target);
            }
            CondTest::Pattern(p) => {
                b.op(Opcode::Call, &[self.pattern_fn(*p)]);
                b.jump(if when { Opcode::Jnz } else { Opcode::Jz }, target);
            }
        }
    }

    fn effect(&mut self, b: &mut Body, effect: &Effect) {
        match effect {
            Effect::Intr(call) => self.intr(b, call),
            Effect::When(check, effects) => {
                let skip = b.label();
                self.branch(b, check, false, skip);
                for e in effects {
                    self.effect(b, e);
                }
                b.bind(skip);
            }
        }
    }

    fn pattern(&mut self, p: &Pattern) -> Body {
        let mut b = Body::default();
        let fail = b.label();
        for c in &p.and {
            self.cond(&mut b, c, false, fail);
        }
        if let Some((last, others)) = p.or.split_last() {
            let hold = b.label();
            for c in others {
                self.cond(&mut b, c, true, hold);
            }
            self.cond(&mut b, last, false, fail);
            b.bind(hold);
        }
        b.op(Opcode::Push, &[1]);
        b.op(Opcode::RetV, &[]);
        if b.is_used(fail) {
            b.bind(fail);
            b.op(Opcode::Push, &[0]);
            b.op(Opcode::RetV, &[]);
        }
        b
    }

    fn advice(&mut self, a: &Advice) -> Body {
        let mut b = Body::default();
        let end = b.label();
        for step in &a.steps {
            match step {
                Step::Call(call) => {
                    b.ops.push(Op::Loc(call.span));
                    for e in lower::effects(call) {
                        self.effect(&mut b, &e);
                    }
                }
                Step::Advice(i, span) => {
                    b.ops.push(Op::Loc(*span));
                    b.op(Opcode::Call, &[self.advice_fn(*i)]);
                }
                Step::Guard {
                    negated,
                    pattern,
                    span,
                } => {
                    b.ops.push(Op::Loc(*span));
                    b.op(Opcode::Call, &[self.pattern_fn(*pattern)]);
                    b.jump(if *negated { Opcode::Jnz } else { Opcode::Jz }, end);
                }
            }
        }
        if b.is_used(end) {
            b.bind(end);
        }
        b.op(Opcode::Ret, &[]);
        b
    }

    fn main(&mut self, rules: &[Rule]) -> Body {
        let mut b = Body::default();
        for rule in rules {
            let next = b.label();
            for &(p, span) in &rule.patterns {
                b.ops.push(Op::Loc(span));
                b.op(Opcode::Call, &[self.pattern_fn(p)]);
                b.jump(Opcode::Jz, next);
            }
            for &(a, span) in &rule.advices {
                b.ops.push(Op::Loc(span));
                b.op(Opcode::Call, &[self.advice_fn(a)]);
            }
            if b.is_used(next) {
                b.bind(next);
            }
        }
        b.op(Opcode::Ret, &[]);
        b
    }
}

/// Generates the module of a checked program (one without errors). `None`
/// when the builder refuses it, which is a compiler bug reported as an
/// internal error.
pub fn generate(p: &Checked, sources: &SourceMap, diags: &mut Diagnostics) -> Option<cvm::Program> {
    let internal = |e: &dyn std::fmt::Display| {
        Diagnostic::global_error(format!("internal compiler error: {e}"))
    };
    let mut g = Gen {
        lists: Vec::new(),
        by_contents: HashMap::new(),
        scratch: None,
        intrinsics: HashMap::new(),
        missing: Vec::new(),
        patterns: p.patterns.len() as u32,
    };
    let mut bodies = Vec::new();
    for pattern in &p.patterns {
        bodies.push((
            format!("{PATTERN_PREFIX}{}", pattern.name),
            true,
            g.pattern(pattern),
        ));
    }
    for advice in &p.advices {
        bodies.push((
            format!("{ADVICE_PREFIX}{}", advice.name),
            false,
            g.advice(advice),
        ));
    }
    bodies.push(("main".to_string(), false, g.main(&p.rules)));
    if let Some(name) = g.missing.first() {
        diags.push(internal(&format!("the intrinsic {name} is missing")));
        return None;
    }
    let mut b = ModuleBuilder::new();
    let files: Vec<u32> = sources.files().iter().map(|f| b.file(&f.name)).collect();
    for (name, capacity, init) in &g.lists {
        if let Err(e) = b.list(name, *capacity, init.clone()) {
            diags.push(internal(&e));
            return None;
        }
    }
    for (name, returns, _) in &bodies {
        if let Err(e) = b.declare_function(name, 0, 0, *returns) {
            diags.push(internal(&e));
            return None;
        }
    }
    b.set_entry(bodies.len() as u32 - 1);
    for (index, (_, _, body)) in bodies.into_iter().enumerate() {
        let mut f = b.body(index as u32);
        let labels: Vec<_> = (0..body.labels).map(|_| f.new_label()).collect();
        let mut pending = None;
        for op in body.ops {
            match op {
                Op::Loc(span) => pending = Some(span),
                Op::Bind(l) => {
                    if let Some(&label) = labels.get(l) {
                        f.bind(label);
                    }
                }
                Op::Plain(opcode, operands) => {
                    if let Some(span) = pending.take() {
                        let (line, col) = sources.line_col(span);
                        let file = files.get(span.file.0 as usize).copied().unwrap_or(0);
                        f.loc(file, line, col);
                    }
                    f.emit(opcode, &operands);
                }
                Op::Jump(opcode, l) => {
                    if let Some(&label) = labels.get(l) {
                        f.emit_jump(opcode, &[], label);
                    }
                }
            }
        }
        if let Err(e) = f.finish() {
            diags.push(internal(&e));
            return None;
        }
    }
    match b.finish() {
        Ok(m) => Some(m),
        Err(e) => {
            diags.push(internal(&e));
            None
        }
    }
}
