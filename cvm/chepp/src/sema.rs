//! Semantic analysis: names, kinds and every static rule of Che++.
//!
//! Che++ makes a name visible from its declaration on ("declare before
//! use"), so the checker walks the items in source order with one global
//! scope, and a local scope per routine in which parameters and locals hide
//! globals. It resolves every name, folds every constant, checks calls
//! against user routines and against the intrinsic table
//! ([`cvm::intrinsics::INTRINSICS`]: arity, value or list, the chess kind
//! of literal arguments, and lists the intrinsic writes), and checks the
//! statement rules (`return` in the right kind of routine, `break` inside a
//! loop or switch, labels for every `goto`, unique case values). At the end
//! it performs the "link" checks of the original compiler: a `main` must
//! exist and every `extern` routine must have been defined.
//!
//! Every problem is reported and checking goes on, so one run shows every
//! independent error. The result is the [`hir`](super::hir) form.

use super::ast as a;
use super::consteval::{self, Const, ConstError};
use super::diag::{Diagnostic, Diagnostics};
use super::hir as h;
use super::source::{SourceMap, Span};
use cvm::intrinsics::{self, ElemKind, IntrinsicInfo, ParamKind};
use cvm::module::{MAX_LIST_SLOTS, MAX_STRING_BYTES};
use cvm_chess::lit::{self, LitKind};
use std::collections::{HashMap, HashSet};

/// Size of a list declared without one (`list l;`).
pub const DEFAULT_LIST_SIZE: u32 = 64;

/// The built-in statement-like routine that is not an intrinsic: it
/// compiles to the `textout` instruction.
pub const TEXTOUT: &str = "TextOut";

/// Checks a parsed program. Problems go to `diags`; the returned program is
/// only meaningful when no error was reported.
pub fn check(program: &a::Program, sources: &SourceMap, diags: &mut Diagnostics) -> h::Program {
    let mut all_top = HashMap::new();
    for item in &program.items {
        for id in item_names(item) {
            all_top.entry(id.name.clone()).or_insert(id.span);
        }
    }
    let mut c = Checker {
        diags,
        sources,
        globals: HashMap::new(),
        all_top,
        out: h::Program::default(),
        rinfo: Vec::new(),
        list_slots: 0,
        anon: 0,
        skipped: program
            .skipped_routines
            .iter()
            .flatten()
            .map(|id| id.name.clone())
            .collect(),
        anything_missing: program.truncated || program.skipped_routines.iter().any(Option::is_none),
        truncated: program.truncated,
    };
    for item in &program.items {
        c.item(item);
    }
    c.link();
    c.out
}

fn item_names(item: &a::Item) -> Vec<&a::Ident> {
    match item {
        a::Item::Const(c) => vec![&c.name],
        a::Item::Var(vs) => vs.iter().map(|v| &v.name).collect(),
        a::Item::List(l) => vec![&l.name],
        a::Item::Text { name, .. } => vec![name],
        a::Item::Extern(sig) => vec![&sig.name],
        a::Item::Routine(r) => vec![&r.sig.name],
    }
}

#[derive(Copy, Clone, Debug)]
enum GKind {
    Const(Const),
    Var(u32),
    List(u32),
    Text(u32),
    Routine(u32),
}

impl GKind {
    fn describe(self) -> &'static str {
        match self {
            GKind::Const(_) => "constant",
            GKind::Var(_) => "variable",
            GKind::List(_) => "list",
            GKind::Text(_) => "text",
            GKind::Routine(_) => "routine",
        }
    }
}

#[derive(Copy, Clone, Debug)]
struct GSym {
    kind: GKind,
    span: Span,
}

struct RInfo {
    kind: a::RoutineKind,
    params: Vec<bool>,
    sig_span: Span,
    name_span: Span,
    defined: bool,
    registered: bool,
}

#[derive(Copy, Clone, Debug)]
enum LSym {
    Value(u32),
    ListParam(u32),
    Const(Const),
}

struct Scope {
    routine: String,
    returns: bool,
    locals: HashMap<String, (LSym, Span)>,
    labels: HashMap<String, (u32, Span)>,
    breakable: u32,
}

/// What a name means where it is used.
enum Res {
    Local(LSym),
    Global(GKind),
    Intrinsic(u32, &'static IntrinsicInfo),
    TextOut,
}

struct Checker<'d> {
    diags: &'d mut Diagnostics,
    sources: &'d SourceMap,
    globals: HashMap<String, GSym>,
    all_top: HashMap<String, Span>,
    out: h::Program,
    rinfo: Vec<RInfo>,
    list_slots: u64,
    anon: u32,
    /// Names of routines the parser skipped after an error.
    skipped: HashSet<String>,
    /// Some routine was skipped without a readable name, or the rest of a
    /// file was skipped: `main` or anything else may be missing.
    anything_missing: bool,
    /// The rest of a file was skipped: any name may be missing.
    truncated: bool,
}

fn elem_lit(elem: ElemKind) -> Option<LitKind> {
    Some(match elem {
        ElemKind::Any => return None,
        ElemKind::Square => LitKind::Square,
        ElemKind::Move => LitKind::Move,
        ElemKind::Piece => LitKind::Piece,
        ElemKind::Column => LitKind::Column,
        ElemKind::BoardSide => LitKind::BoardSide,
        ElemKind::SquareColour => LitKind::SquareColour,
    })
}

fn scalar_lit(kind: ParamKind) -> Option<LitKind> {
    Some(match kind {
        ParamKind::Colour => LitKind::Colour,
        ParamKind::Piece => LitKind::Piece,
        ParamKind::CompOp => LitKind::CompOp,
        ParamKind::Square => LitKind::Square,
        _ => return None,
    })
}

fn kind_name(kind: Option<LitKind>) -> &'static str {
    kind.map_or("number", LitKind::name)
}

fn plural(kind: Option<LitKind>) -> String {
    match kind {
        Some(LitKind::SquareColour) => "square colours".into(),
        Some(LitKind::BoardSide) => "board sides".into(),
        k => format!("{}s", kind_name(k)),
    }
}

/// Levenshtein distance, for "did you mean" hints.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

fn count(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

impl Checker<'_> {
    fn err(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    fn pos(&self, span: Span) -> String {
        let (line, col) = self.sources.line_col(span);
        let name = self.sources.get(span.file).map_or("?", |f| f.name.as_str());
        format!("{name}:{line}:{col}")
    }

    fn text(&self, span: Span) -> &str {
        self.sources.text(span)
    }

    // ---- names ----------------------------------------------------------

    fn resolve(&self, name: &str, sc: Option<&Scope>) -> Option<Res> {
        if let Some(sc) = sc {
            if let Some((l, _)) = sc.locals.get(name) {
                return Some(Res::Local(*l));
            }
        }
        if let Some(g) = self.globals.get(name) {
            return Some(Res::Global(g.kind));
        }
        if let Some((id, info)) = intrinsics::by_name(name) {
            return Some(Res::Intrinsic(id, info));
        }
        if name == TEXTOUT {
            return Some(Res::TextOut);
        }
        None
    }

    fn unknown(&mut self, id: &a::Ident, sc: Option<&Scope>) {
        if self.truncated || self.skipped.contains(&id.name) {
            // Its declaration was lost to an error already reported.
            return;
        }
        let mut d = Diagnostic::error(id.span, format!("cannot find `{}` in this scope", id.name))
            .label("not declared");
        if let Some(&later) = self.all_top.get(&id.name) {
            let here = (id.span.file, id.span.lo);
            if (later.file, later.lo) > here || later.file != id.span.file {
                d = d
                    .note(format!("`{}` is declared later, at {}", id.name, self.pos(later)))
                    .help("Che++ needs every name declared before its use; declare routines early with `extern`");
                self.err(d);
                return;
            }
        }
        let lower = id.name.to_lowercase();
        if lower != id.name {
            if let Some((kind, _)) = lit::parse_word(&lower) {
                d = d.note(format!(
                    "Che++ is case-sensitive: the {} literal is written `{lower}`",
                    kind.name()
                ));
                self.err(d);
                return;
            }
        }
        let mut best: Option<(usize, String)> = None;
        let mut consider = |name: &str| {
            let dist = distance(&id.name, name);
            let limit = id.name.chars().count() / 3;
            if dist <= limit && best.as_ref().is_none_or(|(b, _)| dist < *b) {
                best = Some((dist, name.to_string()));
            }
        };
        if let Some(sc) = sc {
            for n in sc.locals.keys() {
                consider(n);
            }
        }
        for n in self.globals.keys() {
            consider(n);
        }
        for i in intrinsics::INTRINSICS {
            consider(i.name);
        }
        consider(TEXTOUT);
        if let Some((_, name)) = best {
            d = d.help(format!("a name with a similar spelling exists: `{name}`"));
        }
        self.err(d);
    }

    fn reserved(&mut self, id: &a::Ident) -> bool {
        if intrinsics::by_name(&id.name).is_some() || id.name == TEXTOUT {
            self.err(
                Diagnostic::error(
                    id.span,
                    format!(
                        "`{}` is a built-in function and cannot be redefined",
                        id.name
                    ),
                )
                .label("built-in name"),
            );
            return true;
        }
        false
    }

    /// Registers a global name; false (reported) when it is taken.
    fn define(&mut self, id: &a::Ident, kind: GKind) -> bool {
        if self.reserved(id) {
            return false;
        }
        if let Some(prev) = self.globals.get(&id.name) {
            let prev = *prev;
            self.err(
                Diagnostic::error(id.span, format!("`{}` is defined twice", id.name))
                    .label("second definition")
                    .secondary(
                        prev.span,
                        format!("first defined here as a {}", prev.kind.describe()),
                    ),
            );
            return false;
        }
        self.globals.insert(
            id.name.clone(),
            GSym {
                kind,
                span: id.span,
            },
        );
        true
    }

    // ---- constants -----------------------------------------------------

    fn try_const(&self, e: &a::Expr, sc: Option<&Scope>) -> Result<Const, ConstError> {
        let lookup = |name: &str| -> Result<Const, Option<String>> {
            match self.resolve(name, sc) {
                Some(Res::Local(LSym::Const(c))) | Some(Res::Global(GKind::Const(c))) => Ok(c),
                Some(Res::Local(LSym::Value(_))) => Err(Some(format!("the variable `{name}`"))),
                Some(Res::Local(LSym::ListParam(_))) => Err(Some(format!("the list `{name}`"))),
                Some(Res::Global(k)) => Err(Some(format!("the {} `{name}`", k.describe()))),
                Some(Res::Intrinsic(..)) | Some(Res::TextOut) => {
                    Err(Some(format!("the built-in function `{name}`")))
                }
                None => Err(None),
            }
        };
        consteval::eval(e, &lookup)
    }

    fn const_expr(&mut self, e: &a::Expr, sc: Option<&Scope>, what: &str) -> Option<Const> {
        match self.try_const(e, sc) {
            Ok(c) => Some(c),
            Err(ConstError::NotConstant { span, what: part }) => {
                self.err(
                    Diagnostic::error(span, format!("{what} must be a constant expression"))
                        .label(format!("{part} is not a constant")),
                );
                None
            }
            Err(ConstError::Failed { span, message }) => {
                self.err(Diagnostic::error(span, message).label("divisor is zero"));
                None
            }
            Err(ConstError::Unknown { span, name }) => {
                self.unknown(&a::Ident { name, span }, sc);
                None
            }
            Err(ConstError::Reported) => None,
        }
    }

    /// Warns when constant list elements have different chess kinds.
    fn check_mixed(&mut self, items: &[(Const, Span)], what: &str) {
        let Some((first, first_span)) = items.first().copied() else {
            return;
        };
        if let Some((other, span)) = items.iter().find(|(c, _)| c.kind != first.kind) {
            self.err(
                Diagnostic::warning(
                    *span,
                    format!(
                        "{what} mixes {} and {}",
                        plural(first.kind),
                        plural(other.kind)
                    ),
                )
                .label(format!("a {}", kind_name(other.kind)))
                .secondary(first_span, format!("a {}", kind_name(first.kind)))
                .note("list elements are usually all of one kind"),
            );
        }
    }

    fn add_list(&mut self, name: String, capacity: u32, init: Vec<i32>, span: Span) -> u32 {
        self.list_slots += u64::from(capacity) + 1;
        if self.list_slots > MAX_LIST_SLOTS {
            self.err(
                Diagnostic::error(span, "the program's lists are too large")
                    .label(format!("all lists together exceed {MAX_LIST_SLOTS} slots")),
            );
            self.list_slots = 0;
        }
        self.out.lists.push(h::List {
            name,
            capacity,
            init,
        });
        self.out.lists.len() as u32 - 1
    }

    fn anon_list(&mut self, prefix: &str, capacity: u32, init: Vec<i32>, span: Span) -> u32 {
        let name = format!("{prefix}.{}", self.anon);
        self.anon += 1;
        self.add_list(name, capacity, init, span)
    }

    // ---- items ---------------------------------------------------------

    fn item(&mut self, item: &a::Item) {
        match item {
            a::Item::Const(c) => {
                if let Some(v) = self.const_expr(&c.value, None, "a `const` value") {
                    self.define(&c.name, GKind::Const(v));
                } else {
                    // Keep the name known so later uses are not reported.
                    self.define(
                        &c.name,
                        GKind::Const(Const {
                            value: 0,
                            kind: None,
                        }),
                    );
                }
            }
            a::Item::Var(vars) => {
                for v in vars {
                    let init = match &v.init {
                        Some(e) => self
                            .const_expr(e, None, "the initial value of a global variable")
                            .map_or(0, |c| c.value),
                        None => 0,
                    };
                    let index = self.out.globals.len() as u32;
                    if self.define(&v.name, GKind::Var(index)) {
                        self.out.globals.push(h::Global {
                            name: v.name.name.clone(),
                            init,
                        });
                    }
                }
            }
            a::Item::List(l) => self.list_decl(l),
            a::Item::Text { name, text } => {
                if text.len() > MAX_STRING_BYTES {
                    self.err(
                        Diagnostic::error(name.span, "text too long")
                            .label(format!("more than {MAX_STRING_BYTES} bytes")),
                    );
                }
                let index = self.out.texts.len() as u32;
                if self.define(name, GKind::Text(index)) {
                    self.out.texts.push(h::Text {
                        name: name.name.clone(),
                        text: text.clone(),
                    });
                }
            }
            a::Item::Extern(sig) => {
                self.declare_routine(sig, false);
            }
            a::Item::Routine(r) => self.routine(r),
        }
    }

    fn list_decl(&mut self, l: &a::ListDecl) {
        let mut size_span = None;
        let size = match &l.size {
            Some(e) => {
                size_span = Some(e.span);
                match self.const_expr(e, None, "a list size") {
                    Some(c)
                        if c.value >= 1
                            && u64::try_from(c.value).is_ok_and(|v| v < MAX_LIST_SLOTS) =>
                    {
                        Some(c.value as u32)
                    }
                    Some(c) => {
                        self.err(
                            Diagnostic::error(e.span, format!("invalid list size {}", c.value))
                                .label(format!(
                                    "a list needs between 1 and {} elements",
                                    MAX_LIST_SLOTS - 1
                                )),
                        );
                        None
                    }
                    None => None,
                }
            }
            None => None,
        };
        let mut init = Vec::new();
        let mut consts = Vec::new();
        if let Some(items) = &l.init {
            for e in items {
                if let Some(c) = self.const_expr(e, None, "a list's initial element") {
                    init.push(c.value);
                    consts.push((c, e.span));
                }
            }
            self.check_mixed(&consts, &format!("list `{}`", l.name.name));
        }
        let capacity = match (size, &l.init) {
            (Some(n), Some(items)) => {
                if items.len() > n as usize {
                    let extra = items[n as usize].span.to(items[items.len() - 1].span);
                    let mut d = Diagnostic::error(
                        extra,
                        format!(
                            "list `{}` has room for {} but {} given",
                            l.name.name,
                            count(n as usize, "element"),
                            count(items.len(), "initial value")
                        ),
                    )
                    .label("does not fit");
                    if let Some(s) = size_span {
                        d = d.secondary(
                            s,
                            format!("declared with {}", count(n as usize, "element")),
                        );
                    }
                    self.err(
                        d.help("make the list longer, or drop the size to size it by its elements"),
                    );
                    init.truncate(n as usize);
                }
                n
            }
            (Some(n), None) => n,
            (None, Some(_)) => (l.init.as_ref().map_or(0, Vec::len) as u32).max(1),
            (None, None) => {
                if l.size.is_some() {
                    1
                } else {
                    DEFAULT_LIST_SIZE
                }
            }
        };
        if init.len() > capacity as usize {
            init.truncate(capacity as usize);
        }
        let index = self.out.lists.len() as u32;
        if self.define(&l.name, GKind::List(index)) {
            self.add_list(l.name.name.clone(), capacity, init, l.span);
        }
    }

    /// Declares (extern) or defines a routine; returns its index.
    fn declare_routine(&mut self, sig: &a::Signature, defining: bool) -> u32 {
        let params: Vec<bool> = sig.params.iter().map(|p| p.is_list).collect();
        if let Some(g) = self.globals.get(&sig.name.name).copied() {
            if let GKind::Routine(i) = g.kind {
                let info = &self.rinfo[i as usize];
                let matches = info.kind == sig.kind && info.params == params;
                if !info.defined {
                    if !matches {
                        let prev = info.sig_span;
                        self.err(
                            Diagnostic::error(
                                sig.span,
                                format!(
                                    "`{}` does not match its `extern` declaration",
                                    sig.name.name
                                ),
                            )
                            .label("this signature")
                            .secondary(prev, "declared differently here"),
                        );
                    }
                    if defining {
                        self.rinfo[i as usize].defined = true;
                        self.rinfo[i as usize].name_span = sig.name.span;
                    }
                    return i;
                }
                if !defining && matches {
                    return i;
                }
            }
        }
        let index = self.out.routines.len() as u32;
        let registered = self.define(&sig.name, GKind::Routine(index));
        self.rinfo.push(RInfo {
            kind: sig.kind,
            params,
            sig_span: sig.span,
            name_span: sig.name.span,
            defined: defining,
            registered,
        });
        self.out.routines.push(h::Routine {
            name: sig.name.name.clone(),
            returns_value: sig.kind == a::RoutineKind::Function,
            value_params: sig.params.iter().filter(|p| !p.is_list).count() as u32,
            list_params: sig.params.iter().filter(|p| p.is_list).count() as u32,
            slot_names: Vec::new(),
            body: Vec::new(),
            labels: 0,
            end: sig.span,
        });
        index
    }

    fn routine(&mut self, r: &a::Routine) {
        let index = self.declare_routine(&r.sig, true);
        let mut sc = Scope {
            routine: r.sig.name.name.clone(),
            returns: r.sig.kind == a::RoutineKind::Function,
            locals: HashMap::new(),
            labels: HashMap::new(),
            breakable: 0,
        };
        let mut names = Vec::new();
        let mut seen_list: Option<&a::Param> = None;
        for p in &r.sig.params {
            if p.is_list {
                seen_list.get_or_insert(p);
            } else if let Some(l) = seen_list {
                self.err(
                    Diagnostic::error(
                        p.name.span,
                        format!("value parameter `{}` follows a list parameter", p.name.name),
                    )
                    .label("value parameter")
                    .secondary(l.name.span, "list parameter")
                    .note("value parameters must come before list parameters"),
                );
            }
        }
        let ordered = r
            .sig
            .params
            .iter()
            .filter(|p| !p.is_list)
            .chain(r.sig.params.iter().filter(|p| p.is_list));
        for p in ordered {
            let slot = names.len() as u32;
            let sym = if p.is_list {
                LSym::ListParam(slot)
            } else {
                LSym::Value(slot)
            };
            if self.declare_local(&mut sc, &p.name, sym) {
                names.push(p.name.name.clone());
            } else {
                names.push(format!("$dup{slot}"));
            }
        }
        let mut prologue = Vec::new();
        for decl in &r.locals {
            match decl {
                a::LocalDecl::Var(vars) => {
                    for v in vars {
                        let slot = names.len() as u32;
                        if self.declare_local(&mut sc, &v.name, LSym::Value(slot)) {
                            names.push(v.name.name.clone());
                        } else {
                            names.push(format!("$dup{slot}"));
                        }
                        if let Some(e) = &v.init {
                            if let Some(c) =
                                self.const_expr(e, Some(&sc), "the initial value of a variable")
                            {
                                prologue.push(h::Stmt {
                                    kind: h::StmtKind::Expr(h::Expr {
                                        kind: h::ExprKind::Assign(
                                            h::Place::Local(slot),
                                            Box::new(h::Expr {
                                                kind: h::ExprKind::Const(c.value),
                                                span: e.span,
                                            }),
                                        ),
                                        span: v.name.span.to(e.span),
                                    }),
                                    span: v.name.span.to(e.span),
                                });
                            }
                        }
                    }
                }
                a::LocalDecl::Const(c) => {
                    let v = self
                        .const_expr(&c.value, Some(&sc), "a `const` value")
                        .unwrap_or(Const {
                            value: 0,
                            kind: None,
                        });
                    self.declare_local(&mut sc, &c.name, LSym::Const(v));
                }
            }
        }
        self.collect_labels(&r.body, &mut sc);
        let mut body = prologue;
        body.extend(self.block(&r.body, &mut sc));
        let routine = &mut self.out.routines[index as usize];
        routine.slot_names = names;
        routine.body = body;
        routine.labels = sc.labels.len() as u32;
        routine.end = r.end;
    }

    fn declare_local(&mut self, sc: &mut Scope, id: &a::Ident, sym: LSym) -> bool {
        if self.reserved(id) {
            return false;
        }
        if let Some((_, prev)) = sc.locals.get(&id.name) {
            let prev = *prev;
            self.err(
                Diagnostic::error(
                    id.span,
                    format!("`{}` is declared twice in `{}`", id.name, sc.routine),
                )
                .label("second declaration")
                .secondary(prev, "first declared here"),
            );
            return false;
        }
        sc.locals.insert(id.name.clone(), (sym, id.span));
        true
    }

    fn collect_labels(&mut self, stmts: &[a::Stmt], sc: &mut Scope) {
        for s in stmts {
            match &s.kind {
                a::StmtKind::Label(id) => {
                    if let Some((_, prev)) = sc.labels.get(&id.name) {
                        let prev = *prev;
                        self.err(
                            Diagnostic::error(
                                id.span,
                                format!("label `{}` is defined twice", id.name),
                            )
                            .label("second definition")
                            .secondary(prev, "first defined here"),
                        );
                    } else {
                        let n = sc.labels.len() as u32;
                        sc.labels.insert(id.name.clone(), (n, id.span));
                    }
                }
                a::StmtKind::If { arms, els } => {
                    for (_, b) in arms {
                        self.collect_labels(b, sc);
                    }
                    if let Some(b) = els {
                        self.collect_labels(b, sc);
                    }
                }
                a::StmtKind::Switch { body, .. } => {
                    for part in body {
                        if let a::SwitchPart::Stmt(s) = part {
                            self.collect_labels(std::slice::from_ref(s), sc);
                        }
                    }
                }
                a::StmtKind::While { body, .. }
                | a::StmtKind::Repeat { body, .. }
                | a::StmtKind::For { body, .. } => self.collect_labels(body, sc),
                _ => {}
            }
        }
    }

    fn link(&mut self) {
        for (i, info) in self.rinfo.iter().enumerate() {
            let name = &self.out.routines[i].name;
            // A definition that failed to parse is not a missing one.
            let lost = self.truncated || self.skipped.contains(name);
            if !info.defined && info.registered && !lost {
                let d = Diagnostic::error(
                    info.name_span,
                    format!("link error: routine `{name}` is declared but never defined"),
                )
                .label("declared `extern` here")
                .help(format!(
                    "define `{} {name}(...) begin ... end;` in one of the program's files",
                    info.kind.word()
                ));
                self.diags.push(d);
            }
        }
        match self.globals.get("main").copied() {
            Some(GSym {
                kind: GKind::Routine(i),
                span,
            }) => {
                let info = &self.rinfo[i as usize];
                if !info.params.is_empty() {
                    self.err(
                        Diagnostic::error(span, "`main` must not take parameters")
                            .label("declared with parameters")
                            .note("the runtime calls `main()` without arguments"),
                    );
                } else {
                    self.out.main = Some(i);
                }
            }
            Some(GSym { kind, span }) => self.err(
                Diagnostic::error(
                    span,
                    format!(
                        "`main` must be a procedure or function, not a {}",
                        kind.describe()
                    ),
                )
                .label("declared here"),
            ),
            None if self.anything_missing || self.skipped.contains("main") => {}
            None => self.err(
                Diagnostic::global_error("link error: the program has no `main` routine")
                    .help("execution starts in `procedure main() begin ... end;`"),
            ),
        }
    }

    // ---- statements ----------------------------------------------------

    fn block(&mut self, stmts: &[a::Stmt], sc: &mut Scope) -> Vec<h::Stmt> {
        stmts.iter().filter_map(|s| self.stmt(s, sc)).collect()
    }

    fn stmt(&mut self, s: &a::Stmt, sc: &mut Scope) -> Option<h::Stmt> {
        let kind = match &s.kind {
            a::StmtKind::Empty => return None,
            a::StmtKind::Expr(e) => self.expr_stmt(e, sc)?,
            a::StmtKind::If { arms, els } => {
                let arms = arms
                    .iter()
                    .map(|(c, b)| (self.expr(c, sc), self.block(b, sc)))
                    .collect();
                let els = els.as_ref().map(|b| self.block(b, sc)).unwrap_or_default();
                h::StmtKind::If(arms, els)
            }
            a::StmtKind::Switch { selector, body } => self.switch(selector, body, sc),
            a::StmtKind::Break => {
                if sc.breakable == 0 {
                    self.err(
                        Diagnostic::error(s.span, "`break` outside a loop or `switch`")
                            .label("nothing to break out of"),
                    );
                }
                h::StmtKind::Break
            }
            a::StmtKind::Goto(id) => match sc.labels.get(&id.name) {
                Some((n, _)) => h::StmtKind::Goto(*n),
                None => {
                    let mut d = Diagnostic::error(
                        id.span,
                        format!("no label `{}` in `{}`", id.name, sc.routine),
                    )
                    .label("unknown label");
                    if let Some(best) = sc.labels.keys().min_by_key(|l| distance(l, &id.name)) {
                        if distance(best, &id.name) <= 2 {
                            d = d.help(format!("a label with a similar spelling exists: `{best}`"));
                        }
                    }
                    self.err(d.note("`goto` can only jump to a label of the same routine"));
                    return None;
                }
            },
            a::StmtKind::Label(id) => h::StmtKind::Label(sc.labels.get(&id.name)?.0),
            a::StmtKind::Return(value) => {
                match (value, sc.returns) {
                    (Some(e), false) => {
                        self.err(
                            Diagnostic::error(
                                e.span,
                                format!("procedure `{}` cannot return a value", sc.routine),
                            )
                            .label("value returned here")
                            .help("declare it as a `function`, or write `return;`"),
                        );
                    }
                    (None, true) => {
                        self.err(
                            Diagnostic::error(
                                s.span,
                                format!("function `{}` must return a value", sc.routine),
                            )
                            .label("`return` without a value")
                            .help("write `return EXPRESSION;`"),
                        );
                    }
                    _ => {}
                }
                h::StmtKind::Return(value.as_ref().map(|e| self.expr(e, sc)))
            }
            a::StmtKind::While { cond, body } => {
                let c = self.expr(cond, sc);
                sc.breakable += 1;
                let b = self.block(body, sc);
                sc.breakable -= 1;
                h::StmtKind::While(c, b)
            }
            a::StmtKind::Repeat { body, cond } => {
                sc.breakable += 1;
                let b = self.block(body, sc);
                sc.breakable -= 1;
                h::StmtKind::Repeat(b, self.expr(cond, sc))
            }
            a::StmtKind::For { var, list, body } => {
                let place = self.loop_var(var, sc);
                let list = self.for_list(list, sc);
                sc.breakable += 1;
                let body = self.block(body, sc);
                sc.breakable -= 1;
                h::StmtKind::For {
                    var: place?,
                    list: list?,
                    body,
                }
            }
            a::StmtKind::Write(e) => h::StmtKind::Write(self.expr(e, sc)),
        };
        Some(h::Stmt { kind, span: s.span })
    }

    fn expr_stmt(&mut self, e: &a::Expr, sc: &mut Scope) -> Option<h::StmtKind> {
        match &e.kind {
            a::ExprKind::Call(id, args)
                if id.name == TEXTOUT && !sc.locals.contains_key(TEXTOUT) =>
            {
                return self.textout(e, args, sc).map(h::StmtKind::TextOut);
            }
            a::ExprKind::Call(id, args) => {
                let call = self.call(id, args, e.span, sc, false);
                return Some(h::StmtKind::Expr(call));
            }
            a::ExprKind::Assign(..) | a::ExprKind::IncDec { .. } | a::ExprKind::Error => {}
            a::ExprKind::Binary(a::BinOp::Eq, op, lhs, _)
                if matches!(lhs.kind, a::ExprKind::Name(_) | a::ExprKind::Index(..)) =>
            {
                self.err(
                    Diagnostic::warning(*op, "comparison result is not used")
                        .label("`=` compares")
                        .help("to assign, write `:=`"),
                );
            }
            _ => {
                self.err(
                    Diagnostic::warning(e.span, "expression result is not used")
                        .label("computed and discarded"),
                );
            }
        }
        Some(h::StmtKind::Expr(self.expr(e, sc)))
    }

    fn textout(&mut self, e: &a::Expr, args: &[a::Arg], sc: &Scope) -> Option<u32> {
        let help = "declare texts with `text NAME \"...\";` and print them with `TextOut(NAME);`";
        if args.len() != 1 {
            self.err(
                Diagnostic::error(
                    e.span,
                    format!(
                        "`TextOut` takes 1 argument, but {} given",
                        count(args.len(), "was").replace("wass", "were")
                    ),
                )
                .label("wrong number of arguments")
                .help(help),
            );
            return None;
        }
        let arg = &args[0];
        if let [a::Expr {
            kind: a::ExprKind::Name(id),
            ..
        }] = arg.items.as_slice()
        {
            match self.resolve(&id.name, Some(sc)) {
                Some(Res::Global(GKind::Text(t))) => return Some(t),
                None => {
                    self.unknown(id, Some(sc));
                    return None;
                }
                _ => {}
            }
        }
        self.err(
            Diagnostic::error(arg.span, "`TextOut` needs a text")
                .label("not a text")
                .help(help),
        );
        None
    }

    fn switch(
        &mut self,
        selector: &a::Expr,
        body: &[a::SwitchPart],
        sc: &mut Scope,
    ) -> h::StmtKind {
        let selector = self.expr(selector, sc);
        let mut arms: Vec<h::Arm> = Vec::new();
        let mut seen: HashMap<i32, Span> = HashMap::new();
        let mut default_seen: Option<Span> = None;
        let mut orphan_reported = false;
        sc.breakable += 1;
        for part in body {
            let new_label = |arms: &mut Vec<h::Arm>| {
                if arms.last().is_none_or(|a| !a.body.is_empty()) {
                    arms.push(h::Arm {
                        values: Vec::new(),
                        default: false,
                        body: Vec::new(),
                    });
                }
            };
            match part {
                a::SwitchPart::Case(e) => {
                    new_label(&mut arms);
                    if let Some(c) = self.const_expr(e, Some(sc), "a `case` value") {
                        if let Some(prev) = seen.get(&c.value) {
                            let prev = *prev;
                            self.err(
                                Diagnostic::error(
                                    e.span,
                                    format!("duplicate case value {}", c.value),
                                )
                                .label("repeated here")
                                .secondary(prev, "first used here"),
                            );
                        } else {
                            seen.insert(c.value, e.span);
                            if let Some(arm) = arms.last_mut() {
                                arm.values.push(c.value);
                            }
                        }
                    }
                }
                a::SwitchPart::Default(span) => {
                    new_label(&mut arms);
                    if let Some(prev) = default_seen {
                        self.err(
                            Diagnostic::error(*span, "`switch` has two `default` labels")
                                .label("second `default`")
                                .secondary(prev, "first `default`"),
                        );
                    } else {
                        default_seen = Some(*span);
                        if let Some(arm) = arms.last_mut() {
                            arm.default = true;
                        }
                    }
                }
                a::SwitchPart::Stmt(s) => {
                    if arms.is_empty() {
                        if !orphan_reported && !matches!(s.kind, a::StmtKind::Empty) {
                            orphan_reported = true;
                            self.err(
                                Diagnostic::error(
                                    s.span,
                                    "statement before the first `case` of a `switch`",
                                )
                                .label("can never run")
                                .help("put it after a `case VALUE:` label"),
                            );
                        }
                        continue;
                    }
                    if let Some(st) = self.stmt(s, sc) {
                        if let Some(arm) = arms.last_mut() {
                            arm.body.push(st);
                        }
                    }
                }
            }
        }
        sc.breakable -= 1;
        h::StmtKind::Switch { selector, arms }
    }

    fn loop_var(&mut self, var: &a::Ident, sc: &Scope) -> Option<h::Place> {
        match self.resolve(&var.name, Some(sc)) {
            Some(Res::Local(LSym::Value(slot))) => Some(h::Place::Local(slot)),
            Some(Res::Global(GKind::Var(g))) => Some(h::Place::Global(g)),
            None => {
                self.unknown(var, Some(sc));
                None
            }
            Some(_) => {
                self.err(
                    Diagnostic::error(
                        var.span,
                        format!("`{}` cannot be a loop variable", var.name),
                    )
                    .label("not a variable")
                    .note(
                        "the loop variable must be declared with `var` (or be a value parameter)",
                    ),
                );
                None
            }
        }
    }

    fn for_list(&mut self, arg: &a::Arg, sc: &Scope) -> Option<h::ListRef> {
        if let [a::Expr {
            kind: a::ExprKind::Name(id),
            ..
        }] = arg.items.as_slice()
        {
            match self.resolve(&id.name, Some(sc)) {
                Some(Res::Global(GKind::List(l))) => return Some(h::ListRef::Global(l)),
                Some(Res::Local(LSym::ListParam(slot))) => return Some(h::ListRef::Param(slot)),
                None => {
                    self.unknown(id, Some(sc));
                    return None;
                }
                _ => {}
            }
        }
        match self.literal_list(arg, ElemKind::Any, sc, "the list of a `for` loop") {
            Some(Ok(l)) => Some(h::ListRef::Global(l)),
            Some(Err(())) => None,
            None => {
                self.err(
                    Diagnostic::error(arg.span, "`for ... in` needs a list")
                        .label("not a list")
                        .help("give a list variable, a list parameter, or literals such as `e2 e3 e4`"),
                );
                None
            }
        }
    }

    /// A literal list argument: `Some(Ok(list))` when every element is a
    /// constant, `Some(Err(()))` when an element was reported, `None` when
    /// some element is not constant.
    fn literal_list(
        &mut self,
        arg: &a::Arg,
        elem: ElemKind,
        sc: &Scope,
        what: &str,
    ) -> Option<Result<u32, ()>> {
        let mut consts = Vec::new();
        for e in &arg.items {
            match self.try_const(e, Some(sc)) {
                Ok(c) => consts.push((c, e.span)),
                Err(ConstError::Reported) => return Some(Err(())),
                Err(ConstError::Failed { span, message }) => {
                    self.err(Diagnostic::error(span, message).label("divisor is zero"));
                    return Some(Err(()));
                }
                Err(ConstError::Unknown { span, name }) => {
                    self.unknown(&a::Ident { name, span }, Some(sc));
                    return Some(Err(()));
                }
                Err(ConstError::NotConstant { .. }) => return None,
            }
        }
        let mut ok = true;
        if let Some(want) = elem_lit(elem) {
            for (c, span) in &consts {
                if let Some(k) = c.kind {
                    if k != want {
                        ok = false;
                        let text = self.text(*span).to_string();
                        self.err(
                            Diagnostic::error(
                                *span,
                                format!(
                                    "{what} must hold {}, found the {} `{text}`",
                                    plural(Some(want)),
                                    k.name()
                                ),
                            )
                            .label(format!(
                                "a {}, not a {}",
                                k.name(),
                                want.name()
                            )),
                        );
                    }
                }
            }
        }
        if ok {
            self.check_mixed(&consts, "this literal list");
        }
        let values: Vec<i32> = consts.iter().map(|(c, _)| c.value).collect();
        let n = values.len() as u32;
        Some(Ok(self.anon_list("lit", n.max(1), values, arg.span)))
    }

    // ---- expressions ---------------------------------------------------

    fn konst(value: i32, span: Span) -> h::Expr {
        h::Expr {
            kind: h::ExprKind::Const(value),
            span,
        }
    }

    fn expr(&mut self, e: &a::Expr, sc: &Scope) -> h::Expr {
        let kind = match &e.kind {
            a::ExprKind::Int(v) | a::ExprKind::Chess(_, v) => h::ExprKind::Const(*v),
            a::ExprKind::Error => h::ExprKind::Const(0),
            a::ExprKind::Name(id) => return self.name_value(id, sc),
            a::ExprKind::Index(id, index) => {
                let index = self.expr(index, sc);
                match self.list_ref(id, sc) {
                    Some(l) => h::ExprKind::Elem(l, Box::new(index)),
                    None => h::ExprKind::Const(0),
                }
            }
            a::ExprKind::Call(id, args) => return self.call(id, args, e.span, sc, true),
            a::ExprKind::Unary(op, x) => h::ExprKind::Unary(*op, Box::new(self.expr(x, sc))),
            a::ExprKind::Binary(..) => {
                // A chain of any length: the left operands in a loop, left
                // to right; recursion only into right operands.
                let (first, links) = e.chain();
                let mut x = self.expr(first, sc);
                for link in links.iter().rev() {
                    let y = self.expr(link.right, sc);
                    // Division keeps the operator's place for runtime errors.
                    let span = if matches!(link.op, a::BinOp::Div | a::BinOp::Mod) {
                        link.op_span
                    } else {
                        link.node.span
                    };
                    x = h::Expr {
                        kind: h::ExprKind::Binary(link.op, Box::new(x), Box::new(y)),
                        span,
                    };
                }
                return x;
            }
            a::ExprKind::Assign(target, value) => {
                let place = self.place(target, sc, "assign to");
                let value = self.expr(value, sc);
                match place {
                    Some(p) => h::ExprKind::Assign(p, Box::new(value)),
                    None => h::ExprKind::Const(0),
                }
            }
            a::ExprKind::IncDec {
                target,
                inc,
                prefix,
            } => {
                let verb = if *inc { "increment" } else { "decrement" };
                match self.place(target, sc, verb) {
                    Some(place) => h::ExprKind::IncDec {
                        place,
                        inc: *inc,
                        prefix: *prefix,
                    },
                    None => h::ExprKind::Const(0),
                }
            }
        };
        h::Expr { kind, span: e.span }
    }

    fn name_value(&mut self, id: &a::Ident, sc: &Scope) -> h::Expr {
        let kind = match self.resolve(&id.name, Some(sc)) {
            Some(Res::Local(LSym::Value(slot))) => h::ExprKind::Local(slot),
            Some(Res::Local(LSym::Const(c))) | Some(Res::Global(GKind::Const(c))) => {
                h::ExprKind::Const(c.value)
            }
            Some(Res::Global(GKind::Var(g))) => h::ExprKind::Global(g),
            Some(Res::Local(LSym::ListParam(_))) | Some(Res::Global(GKind::List(_))) => {
                self.err(
                    Diagnostic::error(id.span, format!("list `{}` used as a value", id.name))
                        .label("a list, not a number")
                        .help(format!(
                            "read an element with `{}[i]`, or pass the list to a routine",
                            id.name
                        )),
                );
                h::ExprKind::Const(0)
            }
            Some(Res::Global(GKind::Text(_))) => {
                self.err(
                    Diagnostic::error(id.span, format!("text `{}` used as a value", id.name))
                        .label("a text, not a number")
                        .help(format!("print it with `TextOut({});`", id.name)),
                );
                h::ExprKind::Const(0)
            }
            Some(Res::Global(GKind::Routine(r))) => {
                let what = self.rinfo[r as usize].kind;
                let mut d = Diagnostic::error(
                    id.span,
                    format!("{} `{}` used as a value", what.word(), id.name),
                )
                .label("not called");
                d = if what == a::RoutineKind::Procedure {
                    d.note("a procedure returns no value; call it as a statement")
                } else {
                    d.help(format!("call it: `{}(...)`", id.name))
                };
                self.err(d);
                h::ExprKind::Const(0)
            }
            Some(Res::Intrinsic(..)) | Some(Res::TextOut) => {
                self.err(
                    Diagnostic::error(
                        id.span,
                        format!("built-in function `{}` used as a value", id.name),
                    )
                    .label("not called")
                    .help(format!("call it: `{}(...)`", id.name)),
                );
                h::ExprKind::Const(0)
            }
            None => {
                self.unknown(id, Some(sc));
                h::ExprKind::Const(0)
            }
        };
        h::Expr {
            kind,
            span: id.span,
        }
    }

    fn list_ref(&mut self, id: &a::Ident, sc: &Scope) -> Option<h::ListRef> {
        match self.resolve(&id.name, Some(sc)) {
            Some(Res::Global(GKind::List(l))) => Some(h::ListRef::Global(l)),
            Some(Res::Local(LSym::ListParam(slot))) => Some(h::ListRef::Param(slot)),
            None => {
                self.unknown(id, Some(sc));
                None
            }
            Some(_) => {
                self.err(
                    Diagnostic::error(id.span, format!("`{}` is not a list", id.name))
                        .label("indexed here")
                        .note("only lists can be indexed with `[...]`"),
                );
                None
            }
        }
    }

    fn place(&mut self, target: &a::Expr, sc: &Scope, verb: &str) -> Option<h::Place> {
        match &target.kind {
            a::ExprKind::Name(id) => match self.resolve(&id.name, Some(sc)) {
                Some(Res::Local(LSym::Value(slot))) => Some(h::Place::Local(slot)),
                Some(Res::Global(GKind::Var(g))) => Some(h::Place::Global(g)),
                None => {
                    self.unknown(id, Some(sc));
                    None
                }
                Some(res) => {
                    let what = match res {
                        Res::Local(LSym::Const(_)) | Res::Global(GKind::Const(_)) => "constant",
                        Res::Local(LSym::ListParam(_)) | Res::Global(GKind::List(_)) => {
                            "whole list"
                        }
                        Res::Global(GKind::Text(_)) => "text",
                        _ => "routine",
                    };
                    let mut d =
                        Diagnostic::error(id.span, format!("cannot {verb} {what} `{}`", id.name))
                            .label(format!("a {what}"));
                    if what == "whole list" {
                        d = d.help(format!(
                            "assign elements, `{}[i] := ...`, or copy with `CopyList`",
                            id.name
                        ));
                    }
                    self.err(d);
                    None
                }
            },
            a::ExprKind::Index(id, index) => {
                let index = self.expr(index, sc);
                self.list_ref(id, sc)
                    .map(|l| h::Place::Elem(l, Box::new(index)))
            }
            a::ExprKind::Error => None,
            _ => {
                self.err(
                    Diagnostic::error(target.span, format!("cannot {verb} this expression"))
                        .label("not a variable or list element"),
                );
                None
            }
        }
    }

    // ---- calls ---------------------------------------------------------

    fn call(
        &mut self,
        id: &a::Ident,
        args: &[a::Arg],
        span: Span,
        sc: &Scope,
        want_value: bool,
    ) -> h::Expr {
        let fail = Self::konst(0, span);
        match self.resolve(&id.name, Some(sc)) {
            None => {
                self.unknown(id, Some(sc));
                fail
            }
            Some(Res::TextOut) => {
                self.err(
                    Diagnostic::error(id.span, "`TextOut` has no value")
                        .label("used inside an expression")
                        .help("call it as a statement: `TextOut(t);`"),
                );
                fail
            }
            Some(Res::Global(GKind::Routine(r))) => {
                let info = &self.rinfo[r as usize];
                let returns = info.kind == a::RoutineKind::Function;
                let params = info.params.clone();
                let sig_span = info.sig_span;
                if want_value && !returns {
                    self.err(
                        Diagnostic::error(
                            id.span,
                            format!("procedure `{}` does not return a value", id.name),
                        )
                        .label("used as a value")
                        .secondary(sig_span, "declared as a procedure here"),
                    );
                    return fail;
                }
                if params.len() != args.len() {
                    self.err(
                        Diagnostic::error(
                            span,
                            format!(
                                "`{}` takes {}, but {} given",
                                id.name,
                                count(params.len(), "argument"),
                                were(args.len())
                            ),
                        )
                        .label("wrong number of arguments")
                        .secondary(sig_span, "declared here"),
                    );
                    return fail;
                }
                let mut hargs = Vec::new();
                for (arg, is_list) in args.iter().zip(params) {
                    hargs.push(if is_list {
                        self.list_arg(arg, ElemKind::Any, false, &id.name, "list parameter", sc)
                    } else {
                        h::Arg::Value(self.value_arg(
                            arg,
                            ParamKind::Int,
                            &id.name,
                            "value parameter",
                            sc,
                        ))
                    });
                }
                h::Expr {
                    kind: h::ExprKind::Call {
                        func: r,
                        args: hargs,
                        returns,
                    },
                    span,
                }
            }
            Some(Res::Intrinsic(n, info)) => {
                if want_value && !info.returns {
                    self.err(
                        Diagnostic::error(
                            id.span,
                            format!("`{}` does not return a value", id.name),
                        )
                        .label("used as a value")
                        .note(format!("`{}` is a built-in procedure", id.name)),
                    );
                    return fail;
                }
                if info.params.len() != args.len() {
                    self.err(
                        Diagnostic::error(
                            span,
                            format!(
                                "`{}` takes {}, but {} given",
                                id.name,
                                count(info.params.len(), "argument"),
                                were(args.len())
                            ),
                        )
                        .label("wrong number of arguments")
                        .note(format!("signature: {}", signature(info))),
                    );
                    return fail;
                }
                let mut hargs = Vec::new();
                for (arg, p) in args.iter().zip(info.params) {
                    hargs.push(match p.kind {
                        ParamKind::List { elem, out } => {
                            self.list_arg(arg, elem, out, &id.name, p.name, sc)
                        }
                        kind => h::Arg::Value(self.value_arg(arg, kind, &id.name, p.name, sc)),
                    });
                }
                h::Expr {
                    kind: h::ExprKind::Intrinsic {
                        id: n,
                        args: hargs,
                        returns: info.returns,
                    },
                    span,
                }
            }
            Some(other) => {
                let what = match other {
                    Res::Local(LSym::Value(_)) | Res::Global(GKind::Var(_)) => "variable",
                    Res::Local(LSym::ListParam(_)) | Res::Global(GKind::List(_)) => "list",
                    Res::Local(LSym::Const(_)) | Res::Global(GKind::Const(_)) => "constant",
                    _ => "text",
                };
                self.err(
                    Diagnostic::error(id.span, format!("`{}` is a {what}, not a routine", id.name))
                        .label("called here"),
                );
                fail
            }
        }
    }

    fn lit_kind(&self, e: &a::Expr, sc: &Scope) -> Option<LitKind> {
        match &e.kind {
            a::ExprKind::Chess(k, _) => Some(*k),
            a::ExprKind::Name(id) => match self.resolve(&id.name, Some(sc)) {
                Some(Res::Local(LSym::Const(c))) | Some(Res::Global(GKind::Const(c))) => c.kind,
                _ => None,
            },
            _ => None,
        }
    }

    fn value_arg(
        &mut self,
        arg: &a::Arg,
        kind: ParamKind,
        callee: &str,
        pname: &str,
        sc: &Scope,
    ) -> h::Expr {
        if arg.items.len() > 1 {
            self.err(
                Diagnostic::error(
                    arg.span,
                    format!(
                        "`{callee}` expects a single value for `{pname}`, found {} values",
                        arg.items.len()
                    ),
                )
                .label("a list of values")
                .help("separate arguments with `,`"),
            );
            return Self::konst(0, arg.span);
        }
        let e = &arg.items[0];
        if let (Some(want), Some(found)) = (scalar_lit(kind), self.lit_kind(e, sc)) {
            if want != found {
                let text = self.text(e.span).to_string();
                self.err(
                    Diagnostic::error(
                        e.span,
                        format!(
                            "`{callee}` expects a {} for `{pname}`, found the {} `{text}`",
                            want.name(),
                            found.name()
                        ),
                    )
                    .label(format!(
                        "a {}, not a {}",
                        found.name(),
                        want.name()
                    )),
                );
            }
        }
        self.expr(e, sc)
    }

    fn list_arg(
        &mut self,
        arg: &a::Arg,
        elem: ElemKind,
        out: bool,
        callee: &str,
        pname: &str,
        sc: &Scope,
    ) -> h::Arg {
        let fail = h::Arg::Value(Self::konst(0, arg.span));
        if let [a::Expr {
            kind: a::ExprKind::Name(id),
            ..
        }] = arg.items.as_slice()
        {
            match self.resolve(&id.name, Some(sc)) {
                Some(Res::Global(GKind::List(l))) => return h::Arg::List(h::ListRef::Global(l)),
                Some(Res::Local(LSym::ListParam(slot))) => {
                    return h::Arg::List(h::ListRef::Param(slot))
                }
                None => {
                    self.unknown(id, Some(sc));
                    return fail;
                }
                _ => {}
            }
        }
        if out {
            self.err(
                Diagnostic::error(
                    arg.span,
                    format!(
                        "`{callee}` fills its argument `{pname}`, which must be a list variable"
                    ),
                )
                .label("not a list variable")
                .help("declare a list, e.g. `list tmplist;`, and pass its name"),
            );
            return fail;
        }
        match self.literal_list(arg, elem, sc, &format!("`{pname}` of `{callee}`")) {
            Some(Ok(l)) => h::Arg::List(h::ListRef::Global(l)),
            Some(Err(())) => fail,
            None if arg.items.len() == 1 => {
                let e = &arg.items[0];
                let value = self.expr(e, sc);
                let list = self.anon_list("tmp", 1, Vec::new(), arg.span);
                h::Arg::Temp { list, value }
            }
            None => {
                let bad = arg
                    .items
                    .iter()
                    .find(|e| self.try_const(e, Some(sc)).is_err())
                    .map_or(arg.span, |e| e.span);
                self.err(
                    Diagnostic::error(bad, "the elements of a literal list must be constants")
                        .label("not a constant")
                        .note("a single computed value may be passed on its own; it becomes a one-element list"),
                );
                fail
            }
        }
    }
}

fn were(n: usize) -> String {
    if n == 1 {
        "1 was".into()
    } else {
        format!("{n} were")
    }
}

/// `Name(param, ...)` for diagnostics.
pub fn signature(info: &IntrinsicInfo) -> String {
    let params: Vec<String> = info
        .params
        .iter()
        .map(|p| match p.kind {
            ParamKind::List { out: true, .. } => format!("list {} (filled)", p.name),
            ParamKind::List { .. } => format!("list {}", p.name),
            _ => p.name.to_string(),
        })
        .collect();
    format!("{}({})", info.name, params.join(", "))
}
