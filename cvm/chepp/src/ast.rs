//! The syntax tree: what the parser read, before any name is resolved.
//!
//! The tree keeps every construct with its [`Span`] so that the checker can
//! point at the exact place of a problem. Included files are already spliced
//! in: a program is one flat list of items in source order, which is also
//! the order in which Che++ makes names visible (declare before use).

use super::source::Span;
use cvm_chess::lit::LitKind;

/// A name with its place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ident {
    /// The spelling.
    pub name: String,
    /// Where it is.
    pub span: Span,
}

/// A whole program (the main file with its includes spliced in).
#[derive(Clone, Debug, Default)]
pub struct Program {
    /// The top-level items in source order.
    pub items: Vec<Item>,
    /// Routines the parser had to skip (an error was reported for each):
    /// their names where they were read. The checker reports neither uses
    /// of these names nor the link errors their absence causes.
    pub skipped_routines: Vec<Option<Ident>>,
    /// The rest of a file was skipped after nesting went too deep (an
    /// error was reported): names declared there may be missing, so the
    /// checker does not report unknown names or link errors.
    pub truncated: bool,
}

/// A top-level item.
#[derive(Clone, Debug)]
pub enum Item {
    /// `const NAME := EXPR;`
    Const(ConstDecl),
    /// `var a, b;`
    Var(Vec<VarDecl>),
    /// One of the four list forms.
    List(ListDecl),
    /// `text NAME "...";`
    Text {
        /// The name.
        name: Ident,
        /// The text.
        text: String,
    },
    /// `extern procedure|function NAME(params);`
    Extern(Signature),
    /// A procedure or function with its body.
    Routine(Routine),
}

/// `const NAME := EXPR`.
#[derive(Clone, Debug)]
pub struct ConstDecl {
    /// The name.
    pub name: Ident,
    /// The constant expression.
    pub value: Expr,
}

/// One variable of a `var` declaration, with its optional constant initial
/// value.
#[derive(Clone, Debug)]
pub struct VarDecl {
    /// The name.
    pub name: Ident,
    /// `:= EXPR`, if given.
    pub init: Option<Expr>,
}

/// `list NAME [ '[' SIZE ']' ] [ := ITEMS ];`
#[derive(Clone, Debug)]
pub struct ListDecl {
    /// The name.
    pub name: Ident,
    /// The declared size, if given.
    pub size: Option<Expr>,
    /// The initial elements, if given.
    pub init: Option<Vec<Expr>>,
    /// The whole declaration.
    pub span: Span,
}

/// Procedure (no value) or function (returns a value).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RoutineKind {
    /// `procedure`.
    Procedure,
    /// `function`.
    Function,
}

impl RoutineKind {
    /// The keyword.
    pub fn word(self) -> &'static str {
        match self {
            RoutineKind::Procedure => "procedure",
            RoutineKind::Function => "function",
        }
    }
}

/// A routine's head.
#[derive(Clone, Debug)]
pub struct Signature {
    /// Procedure or function.
    pub kind: RoutineKind,
    /// The name.
    pub name: Ident,
    /// The parameters in order.
    pub params: Vec<Param>,
    /// From the keyword to the closing parenthesis.
    pub span: Span,
}

/// One parameter.
#[derive(Clone, Debug)]
pub struct Param {
    /// The name.
    pub name: Ident,
    /// `list NAME` (passed by reference) rather than a value.
    pub is_list: bool,
}

/// A routine with its declarations and body.
#[derive(Clone, Debug)]
pub struct Routine {
    /// The head.
    pub sig: Signature,
    /// `var` and `const` declarations before `begin`.
    pub locals: Vec<LocalDecl>,
    /// The statements between `begin` and `end`.
    pub body: Vec<Stmt>,
    /// The closing `end`.
    pub end: Span,
}

/// A declaration inside a routine head.
#[derive(Clone, Debug)]
pub enum LocalDecl {
    /// `var a, b;`
    Var(Vec<VarDecl>),
    /// `const N := EXPR;`
    Const(ConstDecl),
}

/// A statement with its place.
#[derive(Clone, Debug)]
pub struct Stmt {
    /// What it is.
    pub kind: StmtKind,
    /// Where it is.
    pub span: Span,
}

/// The statements.
#[derive(Clone, Debug)]
pub enum StmtKind {
    /// An expression evaluated for its effect (a call, an assignment, `i++`).
    Expr(Expr),
    /// `if c then ... elseif c then ... else ... end`
    If {
        /// Conditions with their branches.
        arms: Vec<(Expr, Vec<Stmt>)>,
        /// The `else` branch.
        els: Option<Vec<Stmt>>,
    },
    /// `switch e case K: ... end`
    Switch {
        /// The selector.
        selector: Expr,
        /// Case labels and statements in order.
        body: Vec<SwitchPart>,
    },
    /// `break;`
    Break,
    /// `goto L;`
    Goto(Ident),
    /// `L:`
    Label(Ident),
    /// `return;` or `return e;`
    Return(Option<Expr>),
    /// `while c do ... end`
    While {
        /// The condition.
        cond: Expr,
        /// The body.
        body: Vec<Stmt>,
    },
    /// `repeat ... until c;`
    Repeat {
        /// The body.
        body: Vec<Stmt>,
        /// The exit condition.
        cond: Expr,
    },
    /// `for v in list do ... end`
    For {
        /// The loop variable.
        var: Ident,
        /// The list: one name, or literals.
        list: Arg,
        /// The body.
        body: Vec<Stmt>,
    },
    /// `write e;`
    Write(Expr),
    /// A lone `;`, or a statement that failed to parse.
    Empty,
}

/// A piece of a switch body.
#[derive(Clone, Debug)]
pub enum SwitchPart {
    /// `case K:`
    Case(Expr),
    /// `default:`
    Default(Span),
    /// A statement.
    Stmt(Stmt),
}

/// An expression with its place.
///
/// A chain of left-associative operators (`1+2+...+n`, `a and b and ...`)
/// is a tree leaning to the left as deep as the chain is long, and chains
/// have no length limit. Every pass therefore walks the left operands of
/// a [`ExprKind::Binary`] chain in a loop and recurses only into right
/// operands and other children (see [`Expr::depth`]), and dropping a tree
/// unlinks such a chain node by node.
#[derive(Clone, Debug)]
pub struct Expr {
    /// What it is.
    pub kind: ExprKind,
    /// Where it is.
    pub span: Span,
    /// How deep a pass that walks binary chains in a loop recurses into
    /// the tree (1 for a leaf): the height of the tree, except that the
    /// left operand of a binary operator that is itself a binary operator
    /// does not count. It grows with nesting (parentheses, unary operators,
    /// right operands of tighter operators, assignments, calls), never with
    /// the length of a chain; the parser bounds it so that the passes after
    /// it cannot exhaust the stack.
    pub depth: u32,
}

impl Expr {
    /// An expression node; computes its depth from its children.
    pub fn new(kind: ExprKind, span: Span) -> Expr {
        let child = match &kind {
            ExprKind::Index(_, e) | ExprKind::Unary(_, e) => e.depth,
            ExprKind::IncDec { target, .. } => target.depth,
            ExprKind::Binary(_, _, a, b) => {
                // A chain's walker handles a binary left operand in its own
                // loop, without recursing.
                let left = if matches!(a.kind, ExprKind::Binary(..)) {
                    a.depth - 1
                } else {
                    a.depth
                };
                left.max(b.depth)
            }
            ExprKind::Assign(a, b) => a.depth.max(b.depth),
            ExprKind::Call(_, args) => args
                .iter()
                .flat_map(|a| a.items.iter())
                .map(|e| e.depth)
                .max()
                .unwrap_or(0),
            _ => 0,
        };
        Expr {
            kind,
            span,
            depth: child.saturating_add(1),
        }
    }

    /// A node standing for something already reported.
    pub fn error(span: Span) -> Expr {
        Expr::new(ExprKind::Error, span)
    }

    /// The leftmost operand of a binary chain (the expression itself when
    /// it is not a binary operator) and the chain's nodes from the top
    /// down: each with its operator, the operator's place and its right
    /// operand. Walking the nodes in reverse applies them left to right.
    pub fn chain(&self) -> (&Expr, Vec<ChainLink<'_>>) {
        let mut links = Vec::new();
        let mut left = self;
        while let ExprKind::Binary(op, op_span, a, b) = &left.kind {
            links.push(ChainLink {
                node: left,
                op: *op,
                op_span: *op_span,
                right: b,
            });
            left = a;
        }
        (left, links)
    }
}

/// One operator of a binary chain (see [`Expr::chain`]).
#[derive(Copy, Clone, Debug)]
pub struct ChainLink<'a> {
    /// The whole `left op right` node.
    pub node: &'a Expr,
    /// The operator.
    pub op: BinOp,
    /// The operator's place.
    pub op_span: Span,
    /// The right operand.
    pub right: &'a Expr,
}

impl Drop for Expr {
    /// Unlinks a binary chain node by node, so that dropping a chain of
    /// any length does not recurse once per operator.
    fn drop(&mut self) {
        let mut next = take_binary_left(&mut self.kind);
        while let Some(mut node) = next {
            next = take_binary_left(&mut node.kind);
        }
    }
}

/// Moves the left operand out of a binary node when it is itself a binary
/// node (leaving an error leaf in its place).
fn take_binary_left(kind: &mut ExprKind) -> Option<Expr> {
    match kind {
        ExprKind::Binary(_, _, a, _) if matches!(a.kind, ExprKind::Binary(..)) => {
            let leaf = Expr {
                kind: ExprKind::Error,
                span: a.span,
                depth: 1,
            };
            Some(std::mem::replace(&mut **a, leaf))
        }
        _ => None,
    }
}

/// Unary operators.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum UnOp {
    /// `-`
    Neg,
    /// `!`
    Not,
    /// `~`
    BitNot,
}

/// Binary operators (assignment is separate).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `or`
    Or,
    /// `and`
    And,
    /// `|`
    BitOr,
    /// `^`
    BitXor,
    /// `&`
    BitAnd,
    /// `=`
    Eq,
    /// `<>`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Mod,
}

/// The expressions.
#[derive(Clone, Debug)]
pub enum ExprKind {
    /// A number.
    Int(i32),
    /// A chess literal (compoperators included, when written as an
    /// argument).
    Chess(LitKind, i32),
    /// A name.
    Name(Ident),
    /// `name[index]`
    Index(Ident, Box<Expr>),
    /// `name(args)`
    Call(Ident, Vec<Arg>),
    /// A unary operator.
    Unary(UnOp, Box<Expr>),
    /// A binary operator, with the operator's own place.
    Binary(BinOp, Span, Box<Expr>, Box<Expr>),
    /// `target := value`
    Assign(Box<Expr>, Box<Expr>),
    /// `++x`, `x++`, `--x`, `x--`.
    IncDec {
        /// The variable or element.
        target: Box<Expr>,
        /// `++` rather than `--`.
        inc: bool,
        /// Written before the operand.
        prefix: bool,
    },
    /// Something that failed to parse (already reported).
    Error,
}

/// A call argument: one expression, or several juxtaposed ones (a literal
/// list such as `e2 e3 e4`).
#[derive(Clone, Debug)]
pub struct Arg {
    /// The expressions, at least one.
    pub items: Vec<Expr>,
    /// The whole argument.
    pub span: Span,
}
