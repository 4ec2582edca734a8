//! The generator's syntax tree and its printer.
//!
//! The tree is smaller than the parser's ([`chepp::ast`]): names are
//! plain strings and there are no spans, because it is only ever printed.
//! The printer puts parentheses only where precedence needs them (plus
//! the ones the tree asks for), so the parser's precedence climbing, not
//! just its parenthesis handling, decides how the text reads back.

use std::fmt::{self, Write};

/// A generated program.
#[derive(Clone, Debug, Default)]
pub struct Program {
    /// Top-level items in order.
    pub items: Vec<Item>,
}

/// A top-level item.
#[derive(Clone, Debug)]
pub enum Item {
    /// `include stdlib.che`
    IncludeStdlib,
    /// `# text`
    Comment(String),
    /// `const NAME := EXPR;`
    Const(String, Expr),
    /// `var a, b := EXPR;`
    Var(Vec<(String, Option<Expr>)>),
    /// `list NAME[SIZE] := ITEMS;` in its four forms.
    List {
        /// The name.
        name: String,
        /// The declared size, if written.
        size: Option<Expr>,
        /// The initial elements, if written.
        init: Option<Vec<Expr>>,
    },
    /// `text NAME "TEXT";`
    Text(String, String),
    /// `extern procedure|function NAME(params);`
    Extern(Sig),
    /// A routine with its body.
    Routine(Routine),
}

/// A routine head.
#[derive(Clone, Debug)]
pub struct Sig {
    /// `function` rather than `procedure`.
    pub function: bool,
    /// The name.
    pub name: String,
    /// Parameters: name, and whether it is a list parameter.
    pub params: Vec<(String, bool)>,
}

/// A routine.
#[derive(Clone, Debug)]
pub struct Routine {
    /// The head.
    pub sig: Sig,
    /// Declarations before `begin`.
    pub locals: Vec<Local>,
    /// The body.
    pub body: Vec<Stmt>,
}

/// A declaration inside a routine.
#[derive(Clone, Debug)]
pub enum Local {
    /// `var a, b := EXPR;`
    Var(Vec<(String, Option<Expr>)>),
    /// `const NAME := EXPR;`
    Const(String, Expr),
}

/// A statement.
#[derive(Clone, Debug)]
pub enum Stmt {
    /// An expression statement.
    Expr(Expr),
    /// `if ... elseif ... else ... end;`
    If(Vec<(Expr, Vec<Stmt>)>, Option<Vec<Stmt>>),
    /// `switch E ... end;`
    Switch(Expr, Vec<Part>),
    /// `break;`
    Break,
    /// `goto L;`
    Goto(String),
    /// `L:`
    Label(String),
    /// `return;` / `return E;`
    Return(Option<Expr>),
    /// `while C do ... end;`
    While(Expr, Vec<Stmt>),
    /// `repeat ... until C;`
    Repeat(Vec<Stmt>, Expr),
    /// `for V in L do ... end;`
    For(String, Arg, Vec<Stmt>),
    /// `write E;`
    Write(Expr),
    /// `TextOut(T);`
    TextOut(String),
    /// `;`
    Empty,
}

/// A piece of a switch body.
#[derive(Clone, Debug)]
pub enum Part {
    /// `case K:`
    Case(Expr),
    /// `default:`
    Default,
    /// A statement.
    Stmt(Stmt),
}

/// An expression.
#[derive(Clone, Debug)]
pub enum Expr {
    /// A number; `true` prints it in hexadecimal.
    Int(i32, bool),
    /// A chess literal or compoperator, as spelled.
    Lit(String),
    /// A name.
    Name(String),
    /// `name[index]`
    Index(String, Box<Expr>),
    /// `name(args)`
    Call(String, Vec<Arg>),
    /// A prefix operator: `-`, `!`, `~`.
    Unary(&'static str, Box<Expr>),
    /// A binary operator.
    Binary(&'static str, Box<Expr>, Box<Expr>),
    /// `target := value`
    Assign(Box<Expr>, Box<Expr>),
    /// `++x`, `x--`, ...: the operator and whether it comes first.
    Step(&'static str, bool, Box<Expr>),
    /// Parentheses the precedence does not need.
    Paren(Box<Expr>),
}

/// A call argument: one expression or several juxtaposed (a literal list).
#[derive(Clone, Debug)]
pub struct Arg(pub Vec<Expr>);

/// Binding strength of a binary operator (higher binds tighter).
fn binary_prec(op: &str) -> u8 {
    match op {
        "or" => 2,
        "and" => 3,
        "|" => 4,
        "^" => 5,
        "&" => 6,
        "=" | "<>" => 7,
        "<" | "<=" | ">" | ">=" => 8,
        "+" | "-" => 9,
        _ => 10,
    }
}

const ASSIGN: u8 = 1;
const PREFIX: u8 = 11;
const POSTFIX: u8 = 12;
const PRIMARY: u8 = 13;

impl Expr {
    fn prec(&self) -> u8 {
        match self {
            // A negative number prints with its sign: a prefix operator.
            Expr::Int(v, false) if *v < 0 => PREFIX,
            Expr::Int(..) | Expr::Lit(_) | Expr::Name(_) | Expr::Index(..) | Expr::Call(..) => {
                PRIMARY
            }
            Expr::Paren(_) => PRIMARY,
            Expr::Unary(..) => PREFIX,
            Expr::Step(_, true, _) => PREFIX,
            Expr::Step(_, false, _) => POSTFIX,
            Expr::Binary(op, ..) => binary_prec(op),
            Expr::Assign(..) => ASSIGN,
        }
    }

    /// Prints the expression, in parentheses if it binds looser than `min`.
    fn print(&self, out: &mut String, min: u8) {
        if self.prec() < min {
            out.push('(');
            self.print(out, 0);
            out.push(')');
            return;
        }
        match self {
            Expr::Int(v, true) => {
                let _ = write!(out, "0x{:X}", *v as u32);
            }
            Expr::Int(v, false) => {
                let _ = write!(out, "{v}");
            }
            Expr::Lit(s) | Expr::Name(s) => out.push_str(s),
            Expr::Index(name, i) => {
                out.push_str(name);
                out.push('[');
                i.print(out, 0);
                out.push(']');
            }
            Expr::Call(name, args) => {
                out.push_str(name);
                out.push('(');
                for (n, a) in args.iter().enumerate() {
                    if n > 0 {
                        out.push_str(", ");
                    }
                    a.print(out);
                }
                out.push(')');
            }
            Expr::Unary(op, e) => {
                out.push_str(op);
                // `- -x` must not print as `--x`, nor `-` before a
                // negative number as `--1`.
                if *op == "-"
                    && matches!(
                        **e,
                        Expr::Unary("-", _)
                            | Expr::Int(i32::MIN..=-1, false)
                            | Expr::Step(_, true, _)
                    )
                {
                    out.push(' ');
                }
                e.print(out, PREFIX);
            }
            Expr::Binary(op, a, b) => {
                let p = binary_prec(op);
                a.print(out, p);
                let _ = write!(out, " {op} ");
                b.print(out, p + 1);
            }
            Expr::Assign(t, v) => {
                t.print(out, POSTFIX);
                out.push_str(" := ");
                v.print(out, ASSIGN);
            }
            Expr::Step(op, true, t) => {
                out.push_str(op);
                t.print(out, POSTFIX);
            }
            Expr::Step(op, false, t) => {
                t.print(out, POSTFIX);
                out.push_str(op);
            }
            Expr::Paren(e) => {
                out.push('(');
                e.print(out, 0);
                out.push(')');
            }
        }
    }
}

impl Arg {
    fn print(&self, out: &mut String) {
        match self.0.as_slice() {
            [single] => single.print(out, 0),
            items => print_items(out, items),
        }
    }
}

/// Juxtaposed list elements. Anything but a primary needs parentheses, or
/// `1 -2` would read as a subtraction; but a parenthesis right after a
/// name would make a call of it (`K (-1)`), so a negative number after a
/// name is written in hexadecimal instead.
fn print_items(out: &mut String, items: &[Expr]) {
    for (n, e) in items.iter().enumerate() {
        if n > 0 {
            out.push(' ');
        }
        match (n.checked_sub(1).map(|p| &items[p]), e) {
            (Some(Expr::Name(_)), Expr::Int(v, false)) if *v < 0 => {
                Expr::Int(*v, true).print(out, PRIMARY)
            }
            _ => e.print(out, PRIMARY),
        }
    }
}

fn indent(out: &mut String, level: usize) {
    for _ in 0..level {
        out.push_str("  ");
    }
}

fn print_vars(out: &mut String, vars: &[(String, Option<Expr>)]) {
    out.push_str("var ");
    for (n, (name, init)) in vars.iter().enumerate() {
        if n > 0 {
            out.push_str(", ");
        }
        out.push_str(name);
        if let Some(e) = init {
            out.push_str(" := ");
            e.print(out, ASSIGN);
        }
    }
    out.push_str(";\n");
}

fn print_block(out: &mut String, stmts: &[Stmt], level: usize) {
    for s in stmts {
        s.print(out, level);
    }
}

impl Stmt {
    fn print(&self, out: &mut String, level: usize) {
        if let Stmt::Label(l) = self {
            // Labels stand out to the left, as in the document.
            indent(out, level.saturating_sub(1));
            let _ = writeln!(out, "{l}:");
            return;
        }
        indent(out, level);
        match self {
            Stmt::Expr(e) => {
                e.print(out, 0);
                out.push_str(";\n");
            }
            Stmt::If(arms, els) => {
                for (n, (c, body)) in arms.iter().enumerate() {
                    if n > 0 {
                        indent(out, level);
                        out.push_str("elseif ");
                    } else {
                        out.push_str("if ");
                    }
                    c.print(out, 0);
                    out.push_str(" then\n");
                    print_block(out, body, level + 1);
                }
                if let Some(body) = els {
                    indent(out, level);
                    out.push_str("else\n");
                    print_block(out, body, level + 1);
                }
                indent(out, level);
                out.push_str("end;\n");
            }
            Stmt::Switch(sel, parts) => {
                out.push_str("switch ");
                sel.print(out, 0);
                out.push('\n');
                for p in parts {
                    match p {
                        Part::Case(k) => {
                            indent(out, level + 1);
                            out.push_str("case ");
                            k.print(out, 0);
                            out.push_str(":\n");
                        }
                        Part::Default => {
                            indent(out, level + 1);
                            out.push_str("default:\n");
                        }
                        Part::Stmt(s) => s.print(out, level + 2),
                    }
                }
                indent(out, level);
                out.push_str("end;\n");
            }
            Stmt::Break => out.push_str("break;\n"),
            Stmt::Goto(l) => {
                let _ = writeln!(out, "goto {l};");
            }
            Stmt::Return(None) => out.push_str("return;\n"),
            Stmt::Return(Some(e)) => {
                out.push_str("return ");
                e.print(out, 0);
                out.push_str(";\n");
            }
            Stmt::While(c, body) => {
                out.push_str("while ");
                c.print(out, 0);
                out.push_str(" do\n");
                print_block(out, body, level + 1);
                indent(out, level);
                out.push_str("end;\n");
            }
            Stmt::Repeat(body, c) => {
                out.push_str("repeat\n");
                print_block(out, body, level + 1);
                indent(out, level);
                out.push_str("until ");
                c.print(out, 0);
                out.push_str(";\n");
            }
            Stmt::For(v, list, body) => {
                let _ = write!(out, "for {v} in ");
                list.print(out);
                out.push_str(" do\n");
                print_block(out, body, level + 1);
                indent(out, level);
                out.push_str("end;\n");
            }
            Stmt::Write(e) => {
                out.push_str("write ");
                e.print(out, 0);
                out.push_str(";\n");
            }
            Stmt::TextOut(t) => {
                let _ = writeln!(out, "TextOut({t});");
            }
            Stmt::Empty => out.push_str(";\n"),
            Stmt::Label(_) => {}
        }
    }
}

fn print_sig(out: &mut String, sig: &Sig) {
    let kind = if sig.function {
        "function"
    } else {
        "procedure"
    };
    let _ = write!(out, "{kind} {}(", sig.name);
    for (n, (p, list)) in sig.params.iter().enumerate() {
        if n > 0 {
            out.push_str(", ");
        }
        if *list {
            out.push_str("list ");
        }
        out.push_str(p);
    }
    out.push(')');
}

impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        for item in &self.items {
            match item {
                Item::IncludeStdlib => out.push_str("include stdlib.che\n"),
                Item::Comment(c) => {
                    let _ = writeln!(out, "# {c}");
                }
                Item::Const(name, e) => {
                    let _ = write!(out, "const {name} := ");
                    e.print(&mut out, ASSIGN);
                    out.push_str(";\n");
                }
                Item::Var(vars) => print_vars(&mut out, vars),
                Item::List { name, size, init } => {
                    let _ = write!(out, "list {name}");
                    if let Some(s) = size {
                        out.push('[');
                        s.print(&mut out, 0);
                        out.push(']');
                    }
                    if let Some(items) = init {
                        out.push_str(" := ");
                        print_items(&mut out, items);
                    }
                    out.push_str(";\n");
                }
                Item::Text(name, text) => {
                    let escaped = text.replace('\\', "\\\\").replace('"', "\\\"");
                    let _ = writeln!(out, "text {name} \"{escaped}\";");
                }
                Item::Extern(sig) => {
                    out.push_str("extern ");
                    print_sig(&mut out, sig);
                    out.push_str(";\n");
                }
                Item::Routine(r) => {
                    print_sig(&mut out, &r.sig);
                    out.push('\n');
                    for l in &r.locals {
                        match l {
                            Local::Var(vars) => print_vars(&mut out, vars),
                            Local::Const(name, e) => {
                                let _ = write!(out, "const {name} := ");
                                e.print(&mut out, ASSIGN);
                                out.push_str(";\n");
                            }
                        }
                    }
                    out.push_str("begin\n");
                    print_block(&mut out, &r.body, 1);
                    out.push_str("end;\n\n");
                }
            }
        }
        f.write_str(&out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(e: Expr) -> String {
        let mut s = String::new();
        e.print(&mut s, 0);
        s
    }

    fn int(v: i32) -> Box<Expr> {
        Box::new(Expr::Int(v, false))
    }

    #[test]
    fn parentheses_follow_precedence() {
        let sum = Expr::Binary("+", int(1), int(2));
        assert_eq!(
            show(Expr::Binary("*", Box::new(sum.clone()), int(3))),
            "(1 + 2) * 3"
        );
        assert_eq!(
            show(Expr::Binary("-", int(1), Box::new(sum.clone()))),
            "1 - (1 + 2)"
        );
        assert_eq!(show(Expr::Binary("-", Box::new(sum), int(3))), "1 + 2 - 3");
        assert_eq!(show(Expr::Unary("-", int(-1))), "- -1");
        assert_eq!(show(Expr::Unary("!", int(-1))), "!-1");
        let assign = Expr::Assign(Box::new(Expr::Name("x".into())), int(4));
        assert_eq!(
            show(Expr::Binary("<>", Box::new(assign), int(0))),
            "(x := 4) <> 0"
        );
        assert_eq!(show(Expr::Int(-1, true)), "0xFFFFFFFF");
        let mut s = String::new();
        Arg(vec![
            Expr::Int(1, false),
            Expr::Int(-2, false),
            Expr::Name("k".into()),
            Expr::Int(-1, false),
        ])
        .print(&mut s);
        assert_eq!(s, "1 (-2) k 0xFFFFFFFF");
    }
}
