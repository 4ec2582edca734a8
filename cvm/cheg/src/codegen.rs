//! CVM code for a checked CHEG program.
//!
//! The module has two functions. `main()` asks the host which ENTRY
//! matches (service START), calls `body` there, and ends the run as LEAVE
//! would when the top level returns. `body(target, X)` holds the whole
//! program: it starts with a dispatch on `target` (one `case` per tag and
//! per ENTRY), so a subroutine call to a tag is a CVM `call body(tag, X)`
//! and X, being a parameter, is saved and restored by the call itself.
//! Program variables are CVM globals holding value-heap handles (0, the
//! undefined value, initially). Everything that looks at a value is an
//! `intr HostCall` to the runtime ([`crate::service`]); control flow
//! (jumps, conditional branches, calls, the SELECT and MAP loops) is
//! plain CVM code, so fuel and the call-depth limit apply as for Che++.

use crate::ast::{Arg, Operand, Program, Statement};
use crate::service as svc;
use crate::table::{Cond, Instr, Predefined};
use crate::value::UNDEF;
use cvm::builder::{BuildError, FunctionBuilder, Label, ModuleBuilder};
use cvm::isa::Opcode;

/// The name of the entry function.
pub const MAIN: &str = "main";
/// The name of the function that holds the program.
pub const BODY: &str = "body";

/// Frame slots of `body`.
const TARGET: u32 = 0;
const X: u32 = 1;
const SET: u32 = 2;
const COUNT: u32 = 3;
const INDEX: u32 = 4;
const RESULT: u32 = 5;
const ELEMENT: u32 = 6;
const TEMP: u32 = 7;
const LOCALS: u32 = 6;

/// Where a word for a `HostCall` comes from.
#[derive(Clone, Copy)]
enum Src<'a> {
    Imm(i32),
    Local(u32),
    Arg(&'a Arg),
    Side,
}

/// Compiles `program` (from source file `file`) to a CVM module.
pub fn generate(program: &Program, file: &str) -> Result<cvm::Program, BuildError> {
    let host_call = cvm::intrinsics::by_name("HostCall")
        .map(|(n, _)| n)
        .ok_or_else(|| BuildError::Duplicate {
            what: "intrinsic",
            name: "HostCall is missing from the intrinsic table".into(),
        })?;
    let mut m = ModuleBuilder::new();
    let file_index = m.file(file);
    let mut globals = Vec::with_capacity(program.variables.len());
    for (i, name) in program.variables.iter().enumerate() {
        let candidate = format!("v.{name}");
        let name = if cvm::module::is_valid_name(&candidate) {
            candidate
        } else {
            format!("v.{i}")
        };
        let name = if globals.iter().any(|(n, _): &(String, u32)| *n == name) {
            format!("v.{i}")
        } else {
            name
        };
        let g = m.global(&name, UNDEF)?;
        globals.push((name, g));
    }
    let globals: Vec<u32> = globals.into_iter().map(|(_, g)| g).collect();
    let side = program
        .variables
        .iter()
        .position(|v| v == "SIDE")
        .and_then(|i| globals.get(i).copied());
    for (name, part) in crate::embed::parts(&crate::embed::describe(program)) {
        m.text(&name, part)?;
    }
    let main = m.declare_function(MAIN, 0, 0, false)?;
    let body = m.declare_function(BODY, 2, 0, true)?;
    m.set_entry(main);
    {
        let mut f = m.body(main);
        let t = f.local();
        let none = f.new_label();
        f.set_slot_names(vec!["target".into()]);
        f.loc(file_index, 1, 1);
        emit_hc(
            &mut f,
            host_call,
            svc::START,
            [Src::Imm(0); 3],
            &globals,
            side,
        );
        f.emit(Opcode::Stl, &[t]);
        f.emit(Opcode::Ldl, &[t]);
        f.emit(Opcode::Push, &[0]);
        f.emit_jump(Opcode::JLt, &[], none);
        f.emit(Opcode::Ldl, &[t]);
        emit_hc(
            &mut f,
            host_call,
            svc::PLAN_VARIABLE,
            [Src::Imm(0); 3],
            &globals,
            side,
        );
        f.emit(Opcode::Call, &[body]);
        f.emit(Opcode::Pop, &[]);
        emit_hc(
            &mut f,
            host_call,
            svc::FINISH,
            [Src::Imm(0); 3],
            &globals,
            side,
        );
        f.emit(Opcode::Pop, &[]);
        f.bind(none);
        f.emit(Opcode::Ret, &[]);
        f.finish()?;
    }
    {
        let mut f = m.body(body);
        for _ in 0..LOCALS {
            f.local();
        }
        f.set_slot_names(
            [
                "target", "X", "set", "count", "index", "result", "element", "temp",
            ]
            .iter()
            .map(|s| s.to_string())
            .collect(),
        );
        let mut g = Gen {
            f,
            hc: host_call,
            globals: &globals,
            side,
            body,
            labels: Vec::new(),
            file: file_index,
            program,
        };
        g.generate()?;
        g.f.finish()?;
    }
    m.finish()
}

fn emit_hc(
    f: &mut FunctionBuilder<'_>,
    hc: u32,
    service: i32,
    args: [Src<'_>; 3],
    globals: &[u32],
    side: Option<u32>,
) {
    f.emit(Opcode::Push, &[service as u32]);
    for a in args {
        push_src(f, hc, a, globals, side);
    }
    f.emit(Opcode::Intr, &[hc]);
}

fn push_src(
    f: &mut FunctionBuilder<'_>,
    hc: u32,
    src: Src<'_>,
    globals: &[u32],
    side: Option<u32>,
) {
    match src {
        Src::Imm(v) => f.emit(Opcode::Push, &[v as u32]),
        Src::Local(s) => f.emit(Opcode::Ldl, &[s]),
        Src::Side => match side {
            Some(g) => f.emit(Opcode::Ldg, &[g]),
            None => f.emit(Opcode::Push, &[UNDEF as u32]),
        },
        Src::Arg(Arg::Value(op)) => match op {
            Operand::Var(i) => match globals.get(*i) {
                Some(&g) => f.emit(Opcode::Ldg, &[g]),
                None => f.emit(Opcode::Push, &[UNDEF as u32]),
            },
            Operand::Pre(Predefined::X) => f.emit(Opcode::Ldl, &[X]),
            Operand::Pre(p) => emit_hc(
                f,
                hc,
                svc::PREDEFINED,
                [Src::Imm(p.code()), Src::Imm(0), Src::Imm(0)],
                globals,
                side,
            ),
            Operand::Lit(k) => emit_hc(
                f,
                hc,
                svc::LITERAL,
                [Src::Imm(*k as i32), Src::Imm(0), Src::Imm(0)],
                globals,
                side,
            ),
        },
        Src::Arg(_) => f.emit(Opcode::Push, &[(-1i32) as u32]),
    }
}

struct Gen<'a, 'b> {
    f: FunctionBuilder<'b>,
    hc: u32,
    globals: &'a [u32],
    side: Option<u32>,
    body: u32,
    labels: Vec<Label>,
    file: u32,
    program: &'a Program,
}

impl Gen<'_, '_> {
    fn generate(&mut self) -> Result<(), BuildError> {
        let p = self.program;
        for _ in 0..=p.statements.len() {
            let l = self.f.new_label();
            self.labels.push(l);
        }
        self.f.loc(self.file, 1, 1);
        self.f.emit(Opcode::Ldl, &[TARGET]);
        for (i, tag) in p.tags.iter().enumerate() {
            if let Some(t) = tag.target {
                let l = self.label(t);
                self.f.emit_jump(Opcode::Case, &[i as u32], l);
            }
        }
        for (k, e) in p.entries.iter().enumerate() {
            let l = self.label(e.start);
            self.f
                .emit_jump(Opcode::Case, &[(p.tags.len() + k) as u32], l);
        }
        self.f.emit(Opcode::Pop, &[]);
        self.f.emit(Opcode::Push, &[UNDEF as u32]);
        self.f.emit(Opcode::RetV, &[]);
        for (i, s) in p.statements.iter().enumerate() {
            let l = self.labels[i];
            self.f.bind(l);
            self.f.loc(self.file, s.line, s.col);
            self.statement(s);
        }
        let end = self.labels[p.statements.len()];
        self.f.bind(end);
        self.hc(svc::FINISH, [Src::Imm(0); 3]);
        self.f.emit(Opcode::Pop, &[]);
        self.f.emit(Opcode::Halt, &[]);
        Ok(())
    }

    fn label(&self, statement: usize) -> Label {
        // `labels` holds one label per statement and one for the end.
        self.labels[statement.min(self.labels.len() - 1)]
    }

    fn tag_label(&self, arg: &Arg) -> Label {
        match arg {
            Arg::Tag(t) => self
                .program
                .tags
                .get(*t)
                .and_then(|tag| tag.target)
                .map_or_else(|| self.label(usize::MAX), |s| self.label(s)),
            _ => self.label(usize::MAX),
        }
    }

    fn tag_id(arg: &Arg) -> i32 {
        match arg {
            Arg::Tag(t) => *t as i32,
            _ => -1,
        }
    }

    fn hc(&mut self, service: i32, args: [Src<'_>; 3]) {
        emit_hc(&mut self.f, self.hc, service, args, self.globals, self.side);
    }

    fn push(&mut self, src: Src<'_>) {
        push_src(&mut self.f, self.hc, src, self.globals, self.side);
    }

    fn store(&mut self, arg: &Arg) {
        match arg {
            Arg::Value(Operand::Var(i)) => match self.globals.get(*i) {
                Some(&g) => self.f.emit(Opcode::Stg, &[g]),
                None => self.f.emit(Opcode::Pop, &[]),
            },
            _ => self.f.emit(Opcode::Pop, &[]),
        }
    }

    /// Calls `body(tag, arg)`, leaving the result on the stack.
    fn call(&mut self, tag: &Arg, arg: Src<'_>) {
        self.f.emit(Opcode::Push, &[Self::tag_id(tag) as u32]);
        self.push(arg);
        self.f.emit(Opcode::Call, &[self.body]);
    }

    fn cond_code(arg: &Arg) -> Option<i32> {
        match arg {
            Arg::Cond(c) if c.cond == Cond::Always && !c.negated => None,
            Arg::Cond(c) => Some(svc::cond_code(c.cond, c.negated)),
            _ => None,
        }
    }

    fn cond_word(arg: &Arg) -> i32 {
        match arg {
            Arg::Cond(c) => svc::cond_code(c.cond, c.negated),
            _ => 0,
        }
    }

    fn order_word(arg: &Arg) -> i32 {
        match arg {
            Arg::Order(o) => svc::order_code(o.order, o.reversed),
            _ => 0,
        }
    }

    fn instr_service(i: Instr) -> i32 {
        svc::INSTRUCTION + i.index() as i32
    }

    fn statement(&mut self, s: &Statement) {
        let a = &s.args;
        let arg = |k: usize| a.get(k).unwrap_or(&Arg::Absent);
        let op = Self::instr_service(s.instr);
        match s.instr {
            Instr::Break => {
                self.hc(op, [Src::Arg(arg(0)), Src::Arg(arg(1)), Src::Arg(arg(2))]);
                self.f.emit(Opcode::Pop, &[]);
            }
            Instr::Return => {
                self.push(Src::Arg(arg(0)));
                self.f.emit(Opcode::RetV, &[]);
            }
            Instr::Cond => {
                self.call(arg(1), Src::Local(X));
                let target = self.tag_label(arg(2));
                match Self::cond_code(arg(0)) {
                    None => {
                        self.f.emit(Opcode::Pop, &[]);
                        self.f.emit_jump(Opcode::Jmp, &[], target);
                    }
                    Some(code) => {
                        self.f.emit(Opcode::Stl, &[TEMP]);
                        self.hc(
                            svc::CONDITION,
                            [Src::Imm(code), Src::Local(TEMP), Src::Side],
                        );
                        self.f.emit_jump(Opcode::Jnz, &[], target);
                    }
                }
            }
            Instr::CondV => {
                let target = self.tag_label(arg(2));
                match Self::cond_code(arg(0)) {
                    None => self.f.emit_jump(Opcode::Jmp, &[], target),
                    Some(code) => {
                        self.hc(
                            svc::CONDITION,
                            [Src::Imm(code), Src::Arg(arg(1)), Src::Side],
                        );
                        self.f.emit_jump(Opcode::Jnz, &[], target);
                    }
                }
            }
            Instr::CondT | Instr::CondF => {
                self.call(arg(0), Src::Arg(arg(1)));
                self.f.emit(Opcode::Stl, &[TEMP]);
                self.hc(svc::LOGICAL, [Src::Local(TEMP), Src::Imm(0), Src::Imm(0)]);
                let target = self.tag_label(arg(2));
                let jump = if s.instr == Instr::CondT {
                    Opcode::Jnz
                } else {
                    Opcode::Jz
                };
                self.f.emit_jump(jump, &[], target);
            }
            Instr::JumpLt | Instr::JumpGt | Instr::JumpNotLt | Instr::JumpNotGt => {
                let (x, y) = if matches!(s.instr, Instr::JumpLt | Instr::JumpNotLt) {
                    (arg(0), arg(1))
                } else {
                    (arg(1), arg(0))
                };
                self.hc(svc::LESS, [Src::Arg(x), Src::Arg(y), Src::Imm(0)]);
                let target = self.tag_label(arg(2));
                let jump = if matches!(s.instr, Instr::JumpLt | Instr::JumpGt) {
                    Opcode::Jnz
                } else {
                    Opcode::Jz
                };
                self.f.emit_jump(jump, &[], target);
            }
            Instr::JumpEq | Instr::JumpNotEq => {
                self.hc(
                    svc::EQUAL,
                    [Src::Arg(arg(0)), Src::Arg(arg(1)), Src::Imm(0)],
                );
                let target = self.tag_label(arg(2));
                let jump = if s.instr == Instr::JumpEq {
                    Opcode::Jnz
                } else {
                    Opcode::Jz
                };
                self.f.emit_jump(jump, &[], target);
            }
            Instr::Set => {
                self.call(arg(1), Src::Arg(arg(2)));
                self.store(arg(0));
            }
            Instr::SetV => {
                self.push(Src::Arg(arg(1)));
                self.store(arg(0));
            }
            Instr::Exch => self.exchange(arg(0), arg(1)),
            Instr::Order => {
                let skip = self.f.new_label();
                self.hc(
                    svc::ORDER,
                    [
                        Src::Imm(Self::order_word(arg(2))),
                        Src::Arg(arg(0)),
                        Src::Arg(arg(1)),
                    ],
                );
                self.f.emit_jump(Opcode::Jz, &[], skip);
                self.exchange(arg(0), arg(1));
                self.f.bind(skip);
            }
            Instr::Play | Instr::PlayB | Instr::RetBet | Instr::ValRut => {
                let words = match s.instr {
                    Instr::Play | Instr::PlayB => [
                        Src::Arg(arg(0)),
                        Src::Imm(Self::cond_word(arg(1)) | Self::order_word(arg(2)) << 16),
                        Src::Side,
                    ],
                    _ => [Src::Arg(arg(0)), Src::Arg(arg(1)), Src::Arg(arg(2))],
                };
                self.hc(op, words);
                let go_on = self.f.new_label();
                self.f.emit_jump(Opcode::Jz, &[], go_on);
                self.f.emit(Opcode::Halt, &[]);
                self.f.bind(go_on);
            }
            Instr::Try => {
                self.hc(
                    op,
                    [
                        Src::Arg(arg(0)),
                        Src::Imm(Self::cond_word(arg(1)) | Self::order_word(arg(2)) << 16),
                        Src::Side,
                    ],
                );
                self.f.emit(Opcode::Pop, &[]);
            }
            Instr::Plan => {
                self.hc(
                    op,
                    [
                        Src::Imm(Self::tag_id(arg(0))),
                        Src::Arg(arg(1)),
                        Src::Arg(arg(2)),
                    ],
                );
                self.f.emit(Opcode::Pop, &[]);
            }
            Instr::Unplan | Instr::ValOn => {
                self.hc(op, [Src::Arg(arg(0)), Src::Arg(arg(1)), Src::Arg(arg(2))]);
                self.f.emit(Opcode::Pop, &[]);
            }
            Instr::Done | Instr::Leave | Instr::ValRet => {
                self.hc(op, [Src::Arg(arg(0)), Src::Arg(arg(1)), Src::Arg(arg(2))]);
                self.f.emit(Opcode::Pop, &[]);
                self.f.emit(Opcode::Halt, &[]);
            }
            Instr::Select | Instr::Map => {
                self.select_or_map(s.instr == Instr::Select, arg(0), arg(1), arg(2))
            }
            Instr::SelecC => {
                self.hc(
                    op,
                    [
                        Src::Imm(Self::cond_word(arg(1))),
                        Src::Arg(arg(2)),
                        Src::Side,
                    ],
                );
                self.store(arg(0));
            }
            Instr::SetEl | Instr::Insert => {
                self.hc(op, [Src::Arg(arg(0)), Src::Arg(arg(1)), Src::Arg(arg(2))]);
                self.store(arg(1));
            }
            Instr::Unsert => {
                self.hc(
                    svc::UNSERT_ELEMENT,
                    [Src::Arg(arg(1)), Src::Arg(arg(2)), Src::Imm(0)],
                );
                self.f.emit(Opcode::Stl, &[TEMP]);
                self.hc(op, [Src::Arg(arg(1)), Src::Arg(arg(2)), Src::Imm(0)]);
                self.store(arg(1));
                self.f.emit(Opcode::Ldl, &[TEMP]);
                self.store(arg(0));
            }
            Instr::ExchWE => {
                self.hc(
                    svc::EXCHWE_ELEMENT,
                    [Src::Arg(arg(1)), Src::Arg(arg(2)), Src::Imm(0)],
                );
                self.f.emit(Opcode::Stl, &[TEMP]);
                self.hc(op, [Src::Arg(arg(0)), Src::Arg(arg(1)), Src::Arg(arg(2))]);
                self.store(arg(1));
                self.f.emit(Opcode::Ldl, &[TEMP]);
                self.store(arg(0));
            }
            Instr::ExchEl => {
                self.hc(op, [Src::Arg(arg(0)), Src::Arg(arg(1)), Src::Arg(arg(2))]);
                self.store(arg(0));
            }
            // The rest write their first argument from the others.
            _ => {
                self.hc(op, [Src::Arg(arg(1)), Src::Arg(arg(2)), Src::Imm(-1)]);
                self.store(arg(0));
            }
        }
    }

    fn exchange(&mut self, a: &Arg, b: &Arg) {
        self.push(Src::Arg(a));
        self.push(Src::Arg(b));
        self.store(a);
        self.store(b);
    }

    /// SELECT and MAP: a CVM loop over the set's elements that calls the
    /// subroutine for each.
    fn select_or_map(&mut self, select: bool, dest: &Arg, tag: &Arg, set: &Arg) {
        self.push(Src::Arg(set));
        self.f.emit(Opcode::Stl, &[SET]);
        let instr = if select { Instr::Select } else { Instr::Map };
        self.hc(
            svc::COUNT,
            [Src::Local(SET), Src::Imm(instr.index() as i32), Src::Imm(0)],
        );
        self.f.emit(Opcode::Stl, &[COUNT]);
        self.hc(svc::NEW_SET, [Src::Imm(0); 3]);
        self.f.emit(Opcode::Stl, &[RESULT]);
        self.f.emit(Opcode::Push, &[0]);
        self.f.emit(Opcode::Stl, &[INDEX]);
        let top = self.f.new_label();
        let done = self.f.new_label();
        self.f.bind(top);
        self.f.emit(Opcode::Ldl, &[INDEX]);
        self.f.emit(Opcode::Ldl, &[COUNT]);
        self.f.emit_jump(Opcode::JGe, &[], done);
        self.f.emit(Opcode::Incl, &[INDEX]);
        self.hc(
            svc::ELEMENT,
            [Src::Local(SET), Src::Local(INDEX), Src::Imm(0)],
        );
        self.f.emit(Opcode::Stl, &[ELEMENT]);
        self.call(tag, Src::Local(ELEMENT));
        if select {
            self.f.emit(Opcode::Stl, &[TEMP]);
            self.hc(svc::IS_TRUE, [Src::Local(TEMP), Src::Imm(0), Src::Imm(0)]);
            self.f.emit_jump(Opcode::Jz, &[], top);
            self.hc(
                svc::PUSH,
                [Src::Local(RESULT), Src::Local(ELEMENT), Src::Imm(0)],
            );
        } else {
            self.f.emit(Opcode::Stl, &[TEMP]);
            self.hc(
                svc::PUSH,
                [Src::Local(RESULT), Src::Local(TEMP), Src::Imm(0)],
            );
        }
        self.f.emit(Opcode::Pop, &[]);
        self.f.emit_jump(Opcode::Jmp, &[], top);
        self.f.bind(done);
        self.f.emit(Opcode::Ldl, &[RESULT]);
        self.store(dest);
    }
}
