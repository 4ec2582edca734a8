//! Drawing a program tree from bytes, keeping track of what is declared
//! where so that the program follows every static rule of the language:
//! names declared before use, the right sort of name in every place
//! (variables to assign, lists to index, routines to call), argument counts
//! and chess kinds from the intrinsic table, constant expressions where the
//! language wants them, `break` only inside loops and switches, labels
//! unique per routine, functions that return a value on every path.

use super::tree::{Arg, Expr, Item, Local, Part, Program, Routine, Sig, Stmt};
use crate::programs::{chess_valid, literal_name, Bytes};
use cvm::intrinsics::{ElemKind, ParamKind, INTRINSICS};
use cvm_chess::lit::LitKind;
use std::collections::HashMap;

/// What a name stands for, as far as the generator needs to know.
#[derive(Clone, Debug)]
enum Sym {
    /// A variable or value parameter.
    Var,
    /// A constant: `Some(Some(kind))` a chess literal's kind, `Some(None)`
    /// a plain number, `None` unknown (a compound of literals).
    Const(Option<Option<LitKind>>),
    /// A module list with its capacity.
    List(u32),
    /// A list parameter.
    ListParam,
    /// A text.
    Text,
    /// A routine.
    Routine(RoutineSig),
}

/// A callable routine.
#[derive(Clone, Debug)]
struct RoutineSig {
    function: bool,
    /// Value parameters (with the chess kind they stand for, if any), then
    /// list parameters (with their element kind).
    values: Vec<Option<LitKind>>,
    lists: Vec<Option<LitKind>>,
}

/// The routines of `stdlib.che` with the kinds their parameters expect.
fn stdlib() -> Vec<(&'static str, RoutineSig)> {
    use LitKind::*;
    let f = |function, values: &[Option<LitKind>], lists: &[Option<LitKind>]| RoutineSig {
        function,
        values: values.to_vec(),
        lists: lists.to_vec(),
    };
    vec![
        ("IsPwnEndGame", f(true, &[], &[])),
        ("IsMidGame", f(true, &[], &[])),
        ("GamePhase", f(true, &[], &[])),
        ("OtherColour", f(true, &[Some(Colour)], &[])),
        ("CopyList", f(false, &[], &[None, None])),
        ("ClearList", f(false, &[], &[None])),
        ("IsEmptyList", f(true, &[], &[None])),
        ("InList", f(true, &[None], &[None])),
        ("AppendList", f(false, &[], &[None, None])),
        ("GoodSqrs", f(false, &[Some(Piece)], &[Some(Square)])),
        ("BadSqrs", f(false, &[Some(Piece)], &[Some(Square)])),
        ("GoodMvs", f(false, &[Some(Colour)], &[Some(Move)])),
        ("BadMvs", f(false, &[Some(Colour)], &[Some(Move)])),
        ("GoodPMvs", f(false, &[Some(Colour)], &[Some(Square)])),
        ("BadPMvs", f(false, &[Some(Colour)], &[Some(Square)])),
        ("KeepPieces", f(false, &[], &[Some(Piece)])),
        ("TradePieces", f(false, &[], &[Some(Piece)])),
        (
            "KeepBishops",
            f(false, &[Some(Colour)], &[Some(SquareColour)]),
        ),
        (
            "TradeBishops",
            f(false, &[Some(Colour)], &[Some(SquareColour)]),
        ),
        ("GoodDiags", f(false, &[Some(Piece)], &[Some(Move)])),
        ("ControlSqrs", f(false, &[Some(Piece)], &[Some(Square)])),
    ]
}

/// Constants of `stdlib.che` (all plain numbers).
const STDLIB_CONSTS: &[&str] = &[
    "CHE_TRUE",
    "CHE_FALSE",
    "CHE_LISTEND",
    "CHE_INVSQR",
    "CHE_SQRBONUS",
    "CHE_MVMALUS",
    "ST_KINGSAFTY",
    "ST_OPPONENT",
    "ST_DEFAULTVALUES",
    "ST_LEARNFLG",
    "OPP_REBEL",
    "MIDGAME",
    "PAWNENDGAME",
];

const BINARY: [&str; 16] = [
    "or", "and", "|", "^", "&", "=", "<>", "<", "<=", ">", ">=", "+", "-", "*", "/", "%",
];

const SCALAR_KINDS: [LitKind; 9] = [
    LitKind::Square,
    LitKind::Move,
    LitKind::Colour,
    LitKind::Piece,
    LitKind::CompOp,
    LitKind::Column,
    LitKind::Row,
    LitKind::BoardSide,
    LitKind::SquareColour,
];

fn elem_kind(e: ElemKind) -> Option<LitKind> {
    match e {
        ElemKind::Any => None,
        ElemKind::Square => Some(LitKind::Square),
        ElemKind::Move => Some(LitKind::Move),
        ElemKind::Piece => Some(LitKind::Piece),
        ElemKind::Column => Some(LitKind::Column),
        ElemKind::BoardSide => Some(LitKind::BoardSide),
        ElemKind::SquareColour => Some(LitKind::SquareColour),
    }
}

fn scalar_kind(k: ParamKind) -> Option<LitKind> {
    match k {
        ParamKind::Colour => Some(LitKind::Colour),
        ParamKind::Piece => Some(LitKind::Piece),
        ParamKind::CompOp => Some(LitKind::CompOp),
        ParamKind::Square => Some(LitKind::Square),
        ParamKind::Int | ParamKind::List { .. } => None,
    }
}

/// The state of one routine being generated.
#[derive(Default)]
struct RoutineCtx {
    /// Parameters and locals (they hide globals of the same name).
    locals: HashMap<String, Sym>,
    /// Local names in declaration order (for deterministic choices).
    local_order: Vec<String>,
    function: bool,
    labels: Vec<String>,
    placed: Vec<bool>,
    /// Enclosing loops and switches.
    breakable: u32,
    /// Statements left to generate.
    budget: i32,
}

/// Builds a program from bytes.
pub(super) struct Builder<'a, 'b> {
    bytes: &'a mut Bytes<'b>,
    /// Global names in declaration order, with what they are.
    globals: Vec<(String, Sym)>,
    index: HashMap<String, usize>,
    names: u32,
    r: RoutineCtx,
}

impl<'a, 'b> Builder<'a, 'b> {
    pub(super) fn new(bytes: &'a mut Bytes<'b>) -> Self {
        Builder {
            bytes,
            globals: Vec::new(),
            index: HashMap::new(),
            names: 0,
            r: RoutineCtx::default(),
        }
    }

    fn fresh(&mut self, prefix: &str) -> String {
        self.names += 1;
        format!("{prefix}{}", self.names)
    }

    fn declare(&mut self, name: &str, sym: Sym) {
        self.index.insert(name.to_string(), self.globals.len());
        self.globals.push((name.to_string(), sym));
    }

    /// What `name` means at this point of the current routine.
    fn lookup(&self, name: &str) -> Option<&Sym> {
        self.r
            .locals
            .get(name)
            .or_else(|| self.index.get(name).map(|&i| &self.globals[i].1))
    }

    /// Every visible name whose symbol satisfies `keep` (locals first, in
    /// declaration order; hidden globals left out).
    fn visible(&self, keep: impl Fn(&Sym) -> bool) -> Vec<String> {
        let mut out: Vec<String> = self
            .r
            .local_order
            .iter()
            .filter(|n| self.r.locals.get(*n).is_some_and(&keep))
            .cloned()
            .collect();
        for (name, sym) in &self.globals {
            if !self.r.locals.contains_key(name) && keep(sym) {
                out.push(name.clone());
            }
        }
        out
    }

    fn pick_name(&mut self, keep: impl Fn(&Sym) -> bool) -> Option<String> {
        let names = self.visible(keep);
        if names.is_empty() {
            None
        } else {
            let i = self.bytes.below(names.len() as u32) as usize;
            Some(names[i].clone())
        }
    }

    // ---- the program --------------------------------------------------

    pub(super) fn program(&mut self) -> Program {
        let mut items = Vec::new();
        if self.bytes.chance(50) {
            items.push(Item::IncludeStdlib);
            for (name, sig) in stdlib() {
                self.declare(name, Sym::Routine(sig));
            }
            for name in STDLIB_CONSTS {
                self.declare(name, Sym::Const(Some(None)));
            }
        }
        if self.bytes.chance(20) {
            items.push(Item::Comment(
                "generated by cvm_testkit::chepp_programs".into(),
            ));
        }
        let decls = 2 + self.bytes.below(6);
        for _ in 0..decls {
            let item = self.global_decl();
            items.push(item);
        }
        // At least one list and one variable, so that every statement form
        // has something to work on.
        if self.visible(|s| matches!(s, Sym::List(_))).is_empty() {
            let item = self.list_decl();
            items.push(item);
        }
        if self.visible(|s| matches!(s, Sym::Var)).is_empty() {
            let name = self.fresh("gv");
            self.declare(&name, Sym::Var);
            items.push(Item::Var(vec![(name, None)]));
        }
        // The routines: their signatures first, so that externs can name
        // routines defined further down.
        let n = self.bytes.below(5);
        let sigs: Vec<Sig> = (0..n).map(|_| self.signature()).collect();
        let mut declared = vec![false; sigs.len()];
        for (i, sig) in sigs.iter().enumerate() {
            if self.bytes.chance(60) {
                items.push(Item::Extern(sig.clone()));
                self.declare_routine(sig);
                declared[i] = true;
            }
        }
        for (i, sig) in sigs.into_iter().enumerate() {
            if self.bytes.chance(30) {
                let item = self.global_decl();
                items.push(item);
            }
            if !declared[i] {
                self.declare_routine(&sig);
            }
            let routine = self.routine(sig);
            items.push(Item::Routine(routine));
        }
        let main = Sig {
            function: self.bytes.chance(40),
            name: "main".into(),
            params: Vec::new(),
        };
        self.declare_routine(&main);
        let routine = self.routine(main);
        items.push(Item::Routine(routine));
        Program { items }
    }

    fn declare_routine(&mut self, sig: &Sig) {
        let values = sig.params.iter().filter(|p| !p.1).map(|_| None).collect();
        let lists = sig.params.iter().filter(|p| p.1).map(|_| None).collect();
        self.declare(
            &sig.name,
            Sym::Routine(RoutineSig {
                function: sig.function,
                values,
                lists,
            }),
        );
    }

    fn signature(&mut self) -> Sig {
        let function = self.bytes.chance(60);
        let name = self.fresh(if function { "fn" } else { "pr" });
        let values = self.bytes.below(4);
        let lists = self.bytes.below(3);
        let mut params: Vec<(String, bool)> = (0..values)
            .map(|_| {
                // Now and then a parameter hides a global variable.
                let hide = if self.bytes.chance(15) {
                    self.pick_global_var()
                } else {
                    None
                };
                (hide.unwrap_or_else(|| self.fresh("pa")), false)
            })
            .collect();
        for _ in 0..lists {
            let name = self.fresh("pl");
            params.push((name, true));
        }
        // Distinct names (a hidden global may come up twice).
        let mut seen = std::collections::HashSet::new();
        for p in &mut params {
            if !seen.insert(p.0.clone()) {
                self.names += 1;
                p.0 = format!("pa{}", self.names);
                seen.insert(p.0.clone());
            }
        }
        Sig {
            function,
            name,
            params,
        }
    }

    fn pick_global_var(&mut self) -> Option<String> {
        let vars: Vec<String> = self
            .globals
            .iter()
            .filter(|(_, s)| matches!(s, Sym::Var))
            .map(|(n, _)| n.clone())
            .collect();
        if vars.is_empty() {
            None
        } else {
            Some(vars[self.bytes.below(vars.len() as u32) as usize].clone())
        }
    }

    fn global_decl(&mut self) -> Item {
        match self.bytes.below(8) {
            0 | 1 => {
                let name = self.fresh("K");
                let (value, kind) = self.const_value();
                self.declare(&name, Sym::Const(kind));
                Item::Const(name, value)
            }
            2..=4 => {
                let n = 1 + self.bytes.below(3);
                let vars = (0..n)
                    .map(|_| {
                        let name = self.fresh("gv");
                        let init = self.bytes.chance(40).then(|| self.const_expr(2));
                        self.declare(&name, Sym::Var);
                        (name, init)
                    })
                    .collect();
                Item::Var(vars)
            }
            5 | 6 => self.list_decl(),
            _ => {
                let name = self.fresh("tx");
                let text = match self.bytes.below(4) {
                    0 => String::new(),
                    1 => "quote \" and backslash \\".to_string(),
                    _ => format!("text {name}"),
                };
                self.declare(&name, Sym::Text);
                Item::Text(name, text)
            }
        }
    }

    /// A list declaration in one of the four forms.
    fn list_decl(&mut self) -> Item {
        let name = self.fresh("gl");
        let kind = self.bytes.pick(&SCALAR_KINDS);
        let (size, init, capacity) = match self.bytes.below(4) {
            0 => {
                // list l := a b c;  (capacity = the number of elements)
                let n = 1 + self.bytes.below(5);
                let init = (0..n).map(|_| self.list_element(Some(kind))).collect();
                (None, Some(init), n)
            }
            1 => {
                let cap = 1 + self.bytes.below(9);
                let n = self.bytes.below(cap + 1);
                let init: Vec<Expr> = (0..n).map(|_| self.list_element(Some(kind))).collect();
                let init = (!init.is_empty()).then_some(init);
                (Some(self.size_expr(cap)), init, cap)
            }
            2 => {
                let cap = 1 + self.bytes.below(9);
                (Some(self.size_expr(cap)), None, cap)
            }
            _ => (None, None, 64),
        };
        self.declare(&name, Sym::List(capacity));
        Item::List { name, size, init }
    }

    /// A constant expression whose value is `n`.
    fn size_expr(&mut self, n: u32) -> Expr {
        let n = n as i32;
        match self.bytes.below(4) {
            0 if n > 1 => Expr::Binary(
                "+",
                Box::new(Expr::Int(n - 1, false)),
                Box::new(Expr::Int(1, false)),
            ),
            1 if n % 2 == 0 => Expr::Binary(
                "*",
                Box::new(Expr::Int(n / 2, false)),
                Box::new(Expr::Int(2, false)),
            ),
            2 => Expr::Int(n, true),
            _ => Expr::Int(n, false),
        }
    }

    /// A literal list element: a chess literal of `kind` (when given),
    /// a constant's name or a number.
    fn list_element(&mut self, kind: Option<LitKind>) -> Expr {
        // A compoperator is an argument, never a list element.
        let kind = kind.filter(|&k| k != LitKind::CompOp);
        match self.bytes.below(8) {
            0 | 1 => self.number(),
            2 => {
                let fits = |s: &Sym| match s {
                    Sym::Const(Some(k)) => k.is_none() || *k == kind,
                    _ => false,
                };
                match self.pick_name(fits) {
                    Some(n) => Expr::Name(n),
                    None => self.number(),
                }
            }
            _ => match kind {
                Some(k) => self.literal(k),
                None => self.number(),
            },
        }
    }

    fn number(&mut self) -> Expr {
        let v = match self.bytes.below(10) {
            0 => self.bytes.imm(),
            1 => -1,
            _ => self.bytes.below(12) as i32 - 2,
        };
        Expr::Int(v, self.bytes.chance(10))
    }

    /// A chess literal of `kind`, as spelled in the source.
    fn literal(&mut self, kind: LitKind) -> Expr {
        let v = chess_valid(self.bytes, kind);
        match literal_name(kind, v) {
            Some(s) => Expr::Lit(s),
            None => Expr::Int(v, false),
        }
    }

    /// A constant's value and what the generator knows of its kind.
    fn const_value(&mut self) -> (Expr, Option<Option<LitKind>>) {
        match self.bytes.below(4) {
            0 => {
                let k = self.bytes.pick(&SCALAR_KINDS);
                if k == LitKind::CompOp {
                    // A compoperator is not a value a constant can hold.
                    (self.number(), Some(None))
                } else {
                    (self.literal(k), Some(Some(k)))
                }
            }
            1 => (self.number(), Some(None)),
            _ => (self.const_expr(3), None),
        }
    }

    /// A constant expression (numbers, chess literals, constants, every
    /// operator; divisors never zero).
    fn const_expr(&mut self, depth: u32) -> Expr {
        if depth == 0 || self.bytes.chance(35) {
            return match self.bytes.below(4) {
                0 => {
                    let k = self.bytes.pick(&SCALAR_KINDS);
                    if k == LitKind::CompOp {
                        self.number()
                    } else {
                        self.literal(k)
                    }
                }
                1 => match self.pick_name(|s| matches!(s, Sym::Const(_))) {
                    Some(n) => Expr::Name(n),
                    None => self.number(),
                },
                _ => self.number(),
            };
        }
        match self.bytes.below(6) {
            0 => {
                let op = self.bytes.pick(&["-", "!", "~"]);
                Expr::Unary(op, Box::new(self.const_expr(depth - 1)))
            }
            1 => {
                let op = self.bytes.pick(&["/", "%"]);
                let d = 1 + self.bytes.below(9) as i32;
                let d = if self.bytes.chance(30) { -d } else { d };
                Expr::Binary(
                    op,
                    Box::new(self.const_expr(depth - 1)),
                    Box::new(Expr::Int(d, false)),
                )
            }
            _ => {
                let op = self.bytes.pick(&BINARY[..14]);
                Expr::Binary(
                    op,
                    Box::new(self.const_expr(depth - 1)),
                    Box::new(self.const_expr(depth - 1)),
                )
            }
        }
    }

    // ---- routines -----------------------------------------------------

    fn routine(&mut self, sig: Sig) -> Routine {
        self.r = RoutineCtx {
            function: sig.function,
            budget: 10 + self.bytes.below(30) as i32,
            ..RoutineCtx::default()
        };
        for (name, list) in &sig.params {
            let sym = if *list { Sym::ListParam } else { Sym::Var };
            self.r.locals.insert(name.clone(), sym);
            self.r.local_order.push(name.clone());
        }
        let mut locals = Vec::new();
        for _ in 0..self.bytes.below(3) {
            if self.bytes.chance(75) {
                let n = 1 + self.bytes.below(3);
                let mut vars = Vec::new();
                for _ in 0..n {
                    let hide = if self.bytes.chance(10) {
                        self.pick_global_var()
                    } else {
                        None
                    };
                    let name = match hide {
                        Some(h) if !self.r.locals.contains_key(&h) => h,
                        _ => self.fresh("lv"),
                    };
                    let init = self.bytes.chance(30).then(|| self.const_expr(2));
                    self.r.locals.insert(name.clone(), Sym::Var);
                    self.r.local_order.push(name.clone());
                    vars.push((name, init));
                }
                locals.push(Local::Var(vars));
            } else {
                let name = self.fresh("lk");
                let (value, kind) = self.const_value();
                self.r.locals.insert(name.clone(), Sym::Const(kind));
                self.r.local_order.push(name.clone());
                locals.push(Local::Const(name, value));
            }
        }
        let nlabels = if self.bytes.chance(30) {
            1 + self.bytes.below(3)
        } else {
            0
        };
        self.r.labels = (0..nlabels).map(|_| self.fresh("lb")).collect();
        self.r.placed = vec![false; self.r.labels.len()];
        let mut body = self.block(0, 6);
        // Every label not placed yet goes here, before the final return,
        // so that every `goto` has its target.
        for i in 0..self.r.labels.len() {
            if !self.r.placed[i] {
                self.r.placed[i] = true;
                body.push(Stmt::Label(self.r.labels[i].clone()));
            }
        }
        if sig.function {
            let e = self.expr(2);
            body.push(Stmt::Return(Some(e)));
        } else if self.bytes.chance(30) {
            body.push(Stmt::Return(None));
        }
        // The routine's scope ends here: what comes next (a global
        // declaration, another routine) must not see its locals.
        self.r = RoutineCtx::default();
        Routine { sig, locals, body }
    }

    fn block(&mut self, nest: u32, max: u32) -> Vec<Stmt> {
        let n = 1 + self.bytes.below(max);
        let mut out = Vec::new();
        for _ in 0..n {
            if self.r.budget <= 0 || self.bytes.exhausted() {
                break;
            }
            self.r.budget -= 1;
            if let Some(s) = self.stmt(nest) {
                out.push(s);
            }
        }
        out
    }

    fn stmt(&mut self, nest: u32) -> Option<Stmt> {
        let choice = if nest >= 4 {
            self.bytes.below(8)
        } else {
            self.bytes.below(20)
        };
        Some(match choice {
            0 | 1 => Stmt::Expr(self.assignment(1)),
            2 => Stmt::Write(self.expr(0)),
            3 | 4 => self.call_stmt(),
            5 => match self.pick_name(|s| matches!(s, Sym::Text)) {
                Some(t) => Stmt::TextOut(t),
                None => Stmt::Empty,
            },
            6 => {
                if self.r.breakable > 0 && self.bytes.chance(50) {
                    Stmt::Break
                } else if !self.r.labels.is_empty() {
                    self.label_or_goto()
                } else {
                    Stmt::Empty
                }
            }
            7 => self.early_return(),
            8 | 9 => {
                let arms = 1 + self.bytes.below(3);
                let arms = (0..arms)
                    .map(|_| (self.condition(), self.block(nest + 1, 3)))
                    .collect();
                let els = self.bytes.chance(50).then(|| self.block(nest + 1, 3));
                Stmt::If(arms, els)
            }
            10 | 11 => self.while_loop(nest),
            12 => {
                self.r.breakable += 1;
                let body = self.block(nest + 1, 3);
                self.r.breakable -= 1;
                Stmt::Repeat(body, self.condition())
            }
            13 | 14 => self.for_loop(nest),
            15 | 16 => self.switch(nest),
            17 => self.label_or_goto(),
            _ => Stmt::Expr(self.assignment(1)),
        })
    }

    fn early_return(&mut self) -> Stmt {
        let value = self.r.function.then(|| self.expr(1));
        let ret = Stmt::Return(value);
        if self.bytes.chance(80) {
            Stmt::If(vec![(self.condition(), vec![ret])], None)
        } else {
            ret
        }
    }

    fn label_or_goto(&mut self) -> Stmt {
        if self.r.labels.is_empty() {
            return Stmt::Empty;
        }
        let i = self.bytes.below(self.r.labels.len() as u32) as usize;
        if !self.r.placed[i] && self.bytes.chance(60) {
            self.r.placed[i] = true;
            Stmt::Label(self.r.labels[i].clone())
        } else {
            // Mostly guarded, so that a backward goto is not always an
            // endless loop.
            let goto = Stmt::Goto(self.r.labels[i].clone());
            if self.bytes.chance(70) {
                Stmt::If(vec![(self.condition(), vec![goto])], None)
            } else {
                goto
            }
        }
    }

    fn while_loop(&mut self, nest: u32) -> Stmt {
        self.r.breakable += 1;
        let stmt = match self.pick_name(|s| matches!(s, Sym::Var)) {
            // A counted loop most of the time: `while v < K do ... v++ end`.
            Some(v) if self.bytes.chance(70) => {
                let limit = Expr::Int(1 + self.bytes.below(5) as i32, false);
                let cond = Expr::Binary("<", Box::new(Expr::Name(v.clone())), Box::new(limit));
                let mut body = self.block(nest + 1, 3);
                body.push(Stmt::Expr(Expr::Step(
                    "++",
                    self.bytes.chance(50),
                    Box::new(Expr::Name(v.clone())),
                )));
                let init = Stmt::Expr(Expr::Assign(
                    Box::new(Expr::Name(v)),
                    Box::new(Expr::Int(0, false)),
                ));
                Stmt::If(
                    vec![(Expr::Int(1, false), vec![init, Stmt::While(cond, body)])],
                    None,
                )
            }
            _ => {
                let cond = self.condition();
                Stmt::While(cond, self.block(nest + 1, 3))
            }
        };
        self.r.breakable -= 1;
        stmt
    }

    fn for_loop(&mut self, nest: u32) -> Stmt {
        let Some(var) = self.pick_name(|s| matches!(s, Sym::Var)) else {
            return Stmt::Empty;
        };
        let list = match self.bytes.below(3) {
            0 => {
                let k = self.bytes.pick(&SCALAR_KINDS);
                let n = 1 + self.bytes.below(4);
                Arg((0..n)
                    .map(|_| {
                        if k == LitKind::CompOp {
                            self.number()
                        } else {
                            self.list_element(Some(k))
                        }
                    })
                    .collect())
            }
            _ => match self.pick_name(|s| matches!(s, Sym::List(_) | Sym::ListParam)) {
                Some(l) => Arg(vec![Expr::Name(l)]),
                None => Arg(vec![self.number()]),
            },
        };
        self.r.breakable += 1;
        let body = self.block(nest + 1, 3);
        self.r.breakable -= 1;
        Stmt::For(var, list, body)
    }

    fn switch(&mut self, nest: u32) -> Stmt {
        let selector = self.expr(1);
        let mut parts = Vec::new();
        let mut used = Vec::new();
        let mut default = false;
        self.r.breakable += 1;
        for _ in 0..1 + self.bytes.below(4) {
            if !default && self.bytes.chance(15) {
                default = true;
                parts.push(Part::Default);
            } else {
                let mut v = self.bytes.below(8) as i32 - 2;
                while used.contains(&v) {
                    v += 1;
                }
                used.push(v);
                parts.push(Part::Case(Expr::Int(v, self.bytes.chance(10))));
            }
            for s in self.block(nest + 1, 3) {
                parts.push(Part::Stmt(s));
            }
            if self.bytes.chance(50) {
                parts.push(Part::Stmt(Stmt::Break));
            }
        }
        self.r.breakable -= 1;
        Stmt::Switch(selector, parts)
    }

    // ---- expressions --------------------------------------------------

    /// An assignable place: a variable or a list element.
    fn place(&mut self, depth: u32) -> Option<Expr> {
        if self.bytes.chance(35) {
            if let Some(l) = self.pick_name(|s| matches!(s, Sym::List(_) | Sym::ListParam)) {
                let i = self.index(&l, depth);
                return Some(Expr::Index(l, Box::new(i)));
            }
        }
        self.pick_name(|s| matches!(s, Sym::Var)).map(Expr::Name)
    }

    /// An index into list `l`: mostly in range.
    fn index(&mut self, l: &str, depth: u32) -> Expr {
        let cap = match self.lookup(l) {
            Some(Sym::List(c)) => *c,
            _ => 4,
        };
        if self.bytes.chance(80) {
            Expr::Int(self.bytes.below(cap + 1) as i32, false)
        } else {
            self.expr(depth + 1)
        }
    }

    /// An assignment or step, as an expression statement or a value.
    fn assignment(&mut self, depth: u32) -> Expr {
        let Some(target) = self.place(depth) else {
            return self.call_value(depth).unwrap_or(Expr::Int(0, false));
        };
        if self.bytes.chance(25) {
            let op = self.bytes.pick(&["++", "--"]);
            Expr::Step(op, self.bytes.chance(50), Box::new(target))
        } else {
            let value = self.expr(depth + 1);
            Expr::Assign(Box::new(target), Box::new(value))
        }
    }

    /// A condition: usually a comparison or a pattern test.
    fn condition(&mut self) -> Expr {
        match self.bytes.below(4) {
            0 => {
                let op = self.bytes.pick(&["<", "<=", ">", ">=", "=", "<>"]);
                Expr::Binary(op, Box::new(self.expr(2)), Box::new(self.expr(2)))
            }
            1 => {
                let op = self.bytes.pick(&["and", "or"]);
                Expr::Binary(op, Box::new(self.expr(2)), Box::new(self.expr(2)))
            }
            _ => self.expr(1),
        }
    }

    /// An expression of any sort.
    fn expr(&mut self, depth: u32) -> Expr {
        if depth >= 5 || self.bytes.chance(30) {
            return self.leaf(depth);
        }
        match self.bytes.below(12) {
            0 | 1 => {
                let op = self.bytes.pick(&BINARY);
                let a = self.expr(depth + 1);
                let b = if (op == "/" || op == "%") && self.bytes.chance(70) {
                    let d = 1 + self.bytes.below(7) as i32;
                    Expr::Int(if self.bytes.chance(20) { -d } else { d }, false)
                } else {
                    let b = self.expr(depth + 1);
                    if (op == "/" || op == "%") && self.is_const(&b) {
                        // The compiler folds a constant operand (in a literal list
                        // argument, say), and a constant division by zero is a
                        // compile error: `| 1` keeps the constant and makes it
                        // nonzero. A divisor with a run-time part may be zero and
                        // traps at run time, which is what the oracle compares.
                        Expr::Binary("|", Box::new(b), Box::new(Expr::Int(1, false)))
                    } else {
                        b
                    }
                };
                Expr::Binary(op, Box::new(a), Box::new(b))
            }
            2 => {
                let op = self.bytes.pick(&["-", "!", "~"]);
                Expr::Unary(op, Box::new(self.expr(depth + 1)))
            }
            3 => self.assignment(depth),
            4 | 5 => self.call_value(depth).unwrap_or_else(|| self.leaf(depth)),
            6 => Expr::Paren(Box::new(self.expr(depth + 1))),
            7 => {
                let kind = self.bytes.pick(&SCALAR_KINDS);
                if kind == LitKind::CompOp {
                    self.number()
                } else {
                    self.literal(kind)
                }
            }
            _ => self.leaf(depth),
        }
    }

    /// Whether the compiler can fold `e` to a constant: numbers, chess
    /// literals and constants under operators, nothing read at run time.
    fn is_const(&self, e: &Expr) -> bool {
        match e {
            Expr::Int(..) | Expr::Lit(_) => true,
            Expr::Name(n) => matches!(self.lookup(n), Some(Sym::Const(_))),
            Expr::Unary(_, a) | Expr::Paren(a) => self.is_const(a),
            Expr::Binary(_, a, b) => self.is_const(a) && self.is_const(b),
            Expr::Index(..) | Expr::Call(..) | Expr::Assign(..) | Expr::Step(..) => false,
        }
    }

    fn leaf(&mut self, depth: u32) -> Expr {
        match self.bytes.below(6) {
            0 => self.number(),
            1 | 2 => match self.pick_name(|s| matches!(s, Sym::Var | Sym::Const(_))) {
                Some(n) => Expr::Name(n),
                None => self.number(),
            },
            3 => match self.pick_name(|s| matches!(s, Sym::List(_) | Sym::ListParam)) {
                Some(l) => {
                    let i = if depth >= 5 {
                        Expr::Int(0, false)
                    } else {
                        self.index(&l, depth)
                    };
                    Expr::Index(l, Box::new(i))
                }
                None => self.number(),
            },
            _ => match self.pick_name(|s| matches!(s, Sym::Var)) {
                Some(n) => Expr::Name(n),
                None => self.number(),
            },
        }
    }

    /// A call of a function (user, `stdlib.che` or intrinsic) as a value.
    fn call_value(&mut self, depth: u32) -> Option<Expr> {
        if depth >= 4 {
            return None;
        }
        if self.bytes.chance(45) {
            let names = self.visible(|s| matches!(s, Sym::Routine(r) if r.function));
            if !names.is_empty() {
                let name = names[self.bytes.below(names.len() as u32) as usize].clone();
                return Some(self.routine_call(name, depth));
            }
        }
        let funcs: Vec<usize> = (0..INTRINSICS.len())
            .filter(|&i| INTRINSICS[i].returns)
            .collect();
        let i = funcs[self.bytes.below(funcs.len() as u32) as usize];
        Some(self.intrinsic_call(i, depth))
    }

    /// A call as a statement: a procedure (user, library or advice
    /// intrinsic) or a function whose value is dropped.
    fn call_stmt(&mut self) -> Stmt {
        if self.bytes.chance(45) {
            let names = self.visible(|s| matches!(s, Sym::Routine(_)));
            if !names.is_empty() {
                let name = names[self.bytes.below(names.len() as u32) as usize].clone();
                return Stmt::Expr(self.routine_call(name, 1));
            }
        }
        let procs: Vec<usize> = (0..INTRINSICS.len())
            .filter(|&i| !INTRINSICS[i].returns || self.bytes.chance(10))
            .collect();
        let i = if procs.is_empty() {
            0
        } else {
            procs[self.bytes.below(procs.len() as u32) as usize]
        };
        Stmt::Expr(self.intrinsic_call(i, 1))
    }

    fn routine_call(&mut self, name: String, depth: u32) -> Expr {
        let Some(Sym::Routine(sig)) = self.lookup(&name).cloned() else {
            return Expr::Int(0, false);
        };
        let mut args = Vec::new();
        for kind in &sig.values {
            let a = self.scalar_arg(*kind, depth);
            args.push(Arg(vec![a]));
        }
        for kind in &sig.lists {
            let a = self.list_arg(*kind, false, depth);
            args.push(a);
        }
        Expr::Call(name, args)
    }

    fn intrinsic_call(&mut self, i: usize, depth: u32) -> Expr {
        let info = &INTRINSICS[i];
        let mut args = Vec::new();
        for p in info.params {
            let a = match p.kind {
                ParamKind::List { elem, out } => self.list_arg(elem_kind(elem), out, depth),
                k => {
                    let e = match scalar_kind(k) {
                        Some(LitKind::CompOp) if self.bytes.chance(85) => {
                            self.literal(LitKind::CompOp)
                        }
                        kind => self.scalar_arg(kind, depth),
                    };
                    Arg(vec![e])
                }
            };
            args.push(a);
        }
        Expr::Call(info.name.to_string(), args)
    }

    /// An argument for a value parameter that expects a chess kind (if
    /// any): a literal of that kind, or an expression that is not a
    /// literal of another kind.
    fn scalar_arg(&mut self, kind: Option<LitKind>, depth: u32) -> Expr {
        if let Some(k) = kind {
            if k != LitKind::CompOp && self.bytes.chance(70) {
                return self.literal(k);
            }
        } else if self.bytes.chance(40) {
            return self.number();
        }
        let e = self.expr(depth + 1);
        if self.has_kind(&e) {
            // `e4 + 0` has no kind: any integer expression is accepted.
            Expr::Binary("+", Box::new(e), Box::new(Expr::Int(0, false)))
        } else {
            e
        }
    }

    /// Whether the compiler sees a chess kind in `e` (a literal, or a
    /// constant that may have been defined as one).
    fn has_kind(&self, e: &Expr) -> bool {
        match e {
            Expr::Lit(_) => true,
            Expr::Paren(inner) => self.has_kind(inner),
            Expr::Name(n) => match self.lookup(n) {
                Some(Sym::Const(k)) => !matches!(k, Some(None)),
                _ => false,
            },
            _ => false,
        }
    }

    /// An argument for a list parameter: a list name, a literal list of
    /// `kind` (not for lists the callee fills) or one computed value.
    fn list_arg(&mut self, kind: Option<LitKind>, out: bool, depth: u32) -> Arg {
        let lists = self.visible(|s| matches!(s, Sym::List(_) | Sym::ListParam));
        if out || lists.is_empty() || self.bytes.chance(35) {
            if let Some(l) = (!lists.is_empty())
                .then(|| lists[self.bytes.below(lists.len() as u32) as usize].clone())
            {
                return Arg(vec![Expr::Name(l)]);
            }
        }
        if self.bytes.chance(20) {
            // One computed value: the compiler stores it into a
            // one-element list of its own.
            let v = match self.pick_name(|s| matches!(s, Sym::Var)) {
                Some(n) if self.bytes.chance(60) => Expr::Name(n),
                _ => self.scalar_arg(kind, depth),
            };
            return Arg(vec![v]);
        }
        let n = 1 + self.bytes.below(4);
        Arg((0..n).map(|_| self.list_element(kind)).collect())
    }
}
