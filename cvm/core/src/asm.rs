//! The `.asm` text form of a module: [`disassemble`] writes it, [`assemble`]
//! reads it back. For every verified module `m`,
//! `assemble(&disassemble(&m)) == Ok(m)`.
//!
//! # Syntax
//! One directive or instruction per line; `;` starts a comment.
//!
//! ```text
//! .file "main.che"                    ; source files, numbered from 0
//! .global counter 0                   ; name, initial value
//! .list pwns 16 = 1 2 3               ; name, capacity, optional initial values
//! .text hello "Hello, \"world\"\n"    ; name, quoted text
//! .entry main                         ; entry function (optional)
//!
//! .func fac params 1 lists 0 locals 0 stack 3 value   ; or `proc`
//! .slots n                            ; optional names of all frame slots
//!     .loc 0 12 5                     ; file index, line, column
//!     ldl n
//!     push 1
//!     le
//!     jz L9
//!     ...
//! L9:
//!     ...
//! .end
//! ```
//!
//! Operands are written symbolically: frame slots, globals, lists, texts,
//! functions and intrinsics by name (a plain number is accepted for each and
//! means that index), jump targets by label. The disassembler names each jump target `L<offset>` after its code
//! offset.

use crate::intrinsics::INTRINSICS;
use crate::isa::{instructions, Instr, Opcode, OperandKind};
use crate::module::{Function, Global, LineEntry, ListDef, Module, TextDef};
use std::collections::{BTreeSet, HashMap};
use std::fmt::Write as _;

/// An error in `.asm` text, with its 1-based line.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct AsmError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Writes a module as `.asm` text.
pub fn disassemble(module: &Module) -> String {
    let mut out = String::new();
    out.push_str("; CVM assembly\n");
    for f in &module.lines.files {
        let _ = writeln!(out, ".file {}", quote(f));
    }
    for g in &module.globals {
        let _ = writeln!(out, ".global {} {}", g.name, g.init);
    }
    for l in &module.lists {
        let _ = write!(out, ".list {} {}", l.name, l.capacity);
        if !l.init.is_empty() {
            out.push_str(" =");
            for v in &l.init {
                let _ = write!(out, " {v}");
            }
        }
        out.push('\n');
    }
    for t in &module.texts {
        let _ = writeln!(out, ".text {} {}", t.name, quote(&t.text));
    }
    if let Some(e) = module.entry {
        if let Some(f) = module.functions.get(e as usize) {
            let _ = writeln!(out, ".entry {}", f.name);
        }
    }
    let lines: HashMap<u32, &LineEntry> =
        module.lines.entries.iter().map(|e| (e.offset, e)).collect();
    for f in &module.functions {
        out.push('\n');
        let _ = writeln!(
            out,
            ".func {} params {} lists {} locals {} stack {} {}",
            f.name,
            f.value_params,
            f.list_params,
            f.locals,
            f.max_stack,
            if f.returns_value { "value" } else { "proc" }
        );
        if !f.slot_names.is_empty() {
            let _ = writeln!(out, ".slots {}", f.slot_names.join(" "));
        }
        let decoded: Vec<(usize, Instr)> =
            instructions(&module.code, f.start as usize, f.end() as usize)
                .map_while(|(at, r)| r.ok().map(|i| (at, i)))
                .collect();
        let targets: BTreeSet<u32> = decoded.iter().filter_map(|(_, i)| i.target()).collect();
        for (at, instr) in decoded {
            let at32 = at as u32;
            if targets.contains(&at32) {
                let _ = writeln!(out, "L{at}:");
            }
            if let Some(e) = lines.get(&at32) {
                let _ = writeln!(out, "    .loc {} {} {}", e.file, e.line, e.col);
            }
            let _ = write!(out, "    {}", instr.opcode.mnemonic());
            for (kind, &value) in instr.opcode.info().operands.iter().zip(&instr.operands) {
                out.push(' ');
                out.push_str(&operand_text(module, f, *kind, value));
            }
            let _ = writeln!(out, "    ; {at}");
        }
        out.push_str(".end\n");
    }
    out
}

fn operand_text(module: &Module, f: &Function, kind: OperandKind, value: u32) -> String {
    let named = |name: Option<&String>| name.cloned().unwrap_or_else(|| value.to_string());
    match kind {
        OperandKind::Imm => (value as i32).to_string(),
        OperandKind::Local | OperandKind::IntLocal | OperandKind::ListLocal => {
            named(f.slot_names.get(value as usize))
        }
        OperandKind::Global => named(module.globals.get(value as usize).map(|g| &g.name)),
        OperandKind::List => named(module.lists.get(value as usize).map(|g| &g.name)),
        OperandKind::Text => named(module.texts.get(value as usize).map(|g| &g.name)),
        OperandKind::Func => named(module.functions.get(value as usize).map(|g| &g.name)),
        OperandKind::Intrinsic => INTRINSICS
            .get(value as usize)
            .map(|i| i.name.to_string())
            .unwrap_or_else(|| value.to_string()),
        OperandKind::Target => format!("L{value}"),
    }
}

/// Splits a line into tokens: bare words and quoted strings (unescaped).
fn tokenize(line: &str, lineno: usize) -> Result<Vec<Token>, AsmError> {
    let err = |m: &str| AsmError {
        line: lineno,
        message: m.to_string(),
    };
    let mut tokens = Vec::new();
    let mut chars = line.char_indices().peekable();
    while let Some(&(_, c)) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
        } else if c == ';' {
            break;
        } else if c == '"' {
            chars.next();
            let mut s = String::new();
            let mut closed = false;
            while let Some((_, c)) = chars.next() {
                match c {
                    '"' => {
                        closed = true;
                        break;
                    }
                    '\\' => match chars.next().map(|(_, c)| c) {
                        Some('"') => s.push('"'),
                        Some('\\') => s.push('\\'),
                        Some('n') => s.push('\n'),
                        Some('t') => s.push('\t'),
                        Some('r') => s.push('\r'),
                        Some('u') => {
                            if chars.next().map(|(_, c)| c) != Some('{') {
                                return Err(err("expected { after \\u"));
                            }
                            let mut hex = String::new();
                            loop {
                                match chars.next().map(|(_, c)| c) {
                                    Some('}') => break,
                                    Some(h) if h.is_ascii_hexdigit() && hex.len() < 6 => {
                                        hex.push(h)
                                    }
                                    _ => return Err(err("bad \\u{...} escape")),
                                }
                            }
                            let ch = u32::from_str_radix(&hex, 16)
                                .ok()
                                .and_then(char::from_u32)
                                .ok_or_else(|| err("bad \\u{...} escape"))?;
                            s.push(ch);
                        }
                        _ => return Err(err("unknown escape in string")),
                    },
                    c => s.push(c),
                }
            }
            if !closed {
                return Err(err("unterminated string"));
            }
            tokens.push(Token::Str(s));
        } else {
            let mut s = String::new();
            while let Some(&(_, c)) = chars.peek() {
                if c.is_whitespace() || c == ';' || c == '"' {
                    break;
                }
                s.push(c);
                chars.next();
            }
            tokens.push(Token::Word(s));
        }
    }
    Ok(tokens)
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Token {
    Word(String),
    Str(String),
}

struct Line {
    no: usize,
    tokens: Vec<Token>,
}

impl Line {
    fn err(&self, message: impl Into<String>) -> AsmError {
        AsmError {
            line: self.no,
            message: message.into(),
        }
    }

    fn word(&self, i: usize, what: &str) -> Result<&str, AsmError> {
        match self.tokens.get(i) {
            Some(Token::Word(w)) => Ok(w),
            _ => Err(self.err(format!("expected {what}"))),
        }
    }

    fn string(&self, i: usize, what: &str) -> Result<&str, AsmError> {
        match self.tokens.get(i) {
            Some(Token::Str(s)) => Ok(s),
            _ => Err(self.err(format!("expected {what} (a quoted string)"))),
        }
    }

    fn number<T: std::str::FromStr>(&self, i: usize, what: &str) -> Result<T, AsmError> {
        self.word(i, what)?
            .parse()
            .map_err(|_| self.err(format!("expected {what} (a number)")))
    }

    fn keyword(&self, i: usize, kw: &str) -> Result<(), AsmError> {
        if self.word(i, kw)? == kw {
            Ok(())
        } else {
            Err(self.err(format!("expected `{kw}`")))
        }
    }

    fn expect_len(&self, n: usize) -> Result<(), AsmError> {
        if self.tokens.len() == n {
            Ok(())
        } else {
            Err(self.err(format!(
                "expected {} fields, found {}",
                n,
                self.tokens.len()
            )))
        }
    }
}

fn parse_int(word: &str) -> Option<i64> {
    let (neg, digits) = match word.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, word),
    };
    let v = if let Some(hex) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        i64::from_str_radix(hex, 16).ok()?
    } else {
        digits.parse::<i64>().ok()?
    };
    Some(if neg { -v } else { v })
}

/// Reads `.asm` text into a module. The result is not verified; pass it to
/// [`crate::Program::new`] before running it.
pub fn assemble(text: &str) -> Result<Module, AsmError> {
    assemble_with_labels(text).map(|(m, _)| m)
}

/// Like [`assemble`], also returning the code offset of every label, keyed
/// `function:label`.
pub fn assemble_with_labels(text: &str) -> Result<(Module, HashMap<String, u32>), AsmError> {
    let mut all_labels = HashMap::new();
    let mut lines = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let tokens = tokenize(raw, i + 1)?;
        if !tokens.is_empty() {
            lines.push(Line { no: i + 1, tokens });
        }
    }
    let mut module = Module::default();

    // Pass 1: every function header, so calls can name later functions.
    let mut func_names: HashMap<String, u32> = HashMap::new();
    for line in &lines {
        if line.tokens[0] == Token::Word(".func".into()) {
            let name = line.word(1, "function name")?;
            let idx = func_names.len() as u32;
            if func_names.insert(name.to_string(), idx).is_some() {
                return Err(line.err(format!("duplicate function {name}")));
            }
        }
    }

    let mut entry_name: Option<(String, usize)> = None;
    let mut i = 0;
    while i < lines.len() {
        let line = &lines[i];
        let head = line.word(0, "a directive")?;
        match head {
            ".file" => {
                line.expect_len(2)?;
                module
                    .lines
                    .files
                    .push(line.string(1, "file name")?.to_string());
            }
            ".global" => {
                line.expect_len(3)?;
                let init = parse_int(line.word(2, "initial value")?)
                    .and_then(|v| i32::try_from(v).ok())
                    .ok_or_else(|| line.err("initial value out of range"))?;
                module.globals.push(Global {
                    name: line.word(1, "global name")?.to_string(),
                    init,
                });
            }
            ".list" => {
                let name = line.word(1, "list name")?.to_string();
                let capacity: u32 = line.number(2, "list capacity")?;
                let mut init = Vec::new();
                if line.tokens.len() > 3 {
                    line.keyword(3, "=")?;
                    for k in 4..line.tokens.len() {
                        let v = parse_int(line.word(k, "list value")?)
                            .and_then(|v| i32::try_from(v).ok())
                            .ok_or_else(|| line.err("list value out of range"))?;
                        init.push(v);
                    }
                }
                module.lists.push(ListDef {
                    name,
                    capacity,
                    init,
                });
            }
            ".text" => {
                line.expect_len(3)?;
                module.texts.push(TextDef {
                    name: line.word(1, "text name")?.to_string(),
                    text: line.string(2, "text")?.to_string(),
                });
            }
            ".entry" => {
                line.expect_len(2)?;
                entry_name = Some((line.word(1, "entry function")?.to_string(), line.no));
            }
            ".func" => {
                let end = lines[i..]
                    .iter()
                    .position(|l| l.tokens[0] == Token::Word(".end".into()))
                    .map(|p| i + p)
                    .ok_or_else(|| line.err("function without .end"))?;
                assemble_function(&mut module, &func_names, &lines[i..end], &mut all_labels)?;
                lines[end].expect_len(1)?;
                i = end;
            }
            other => return Err(line.err(format!("unknown directive {other}"))),
        }
        i += 1;
    }
    if let Some((name, no)) = entry_name {
        let idx = func_names.get(&name).ok_or_else(|| AsmError {
            line: no,
            message: format!("unknown entry function {name}"),
        })?;
        module.entry = Some(*idx);
    }
    Ok((module, all_labels))
}

fn assemble_function(
    module: &mut Module,
    func_names: &HashMap<String, u32>,
    lines: &[Line],
    all_labels: &mut HashMap<String, u32>,
) -> Result<(), AsmError> {
    let header = &lines[0];
    header.expect_len(11)?;
    let name = header.word(1, "function name")?.to_string();
    header.keyword(2, "params")?;
    let value_params: u32 = header.number(3, "parameter count")?;
    header.keyword(4, "lists")?;
    let list_params: u32 = header.number(5, "list parameter count")?;
    header.keyword(6, "locals")?;
    let locals: u32 = header.number(7, "local count")?;
    header.keyword(8, "stack")?;
    let max_stack: u32 = header.number(9, "stack size")?;
    let returns_value = match header.word(10, "`value` or `proc`")? {
        "value" => true,
        "proc" => false,
        _ => return Err(header.err("expected `value` or `proc`")),
    };
    let mut slot_names = Vec::new();
    let mut body = &lines[1..];
    if let Some(first) = body.first() {
        if first.tokens[0] == Token::Word(".slots".into()) {
            for k in 1..first.tokens.len() {
                slot_names.push(first.word(k, "slot name")?.to_string());
            }
            body = &body[1..];
        }
    }
    let start = module.code.len() as u32;

    // Pass 1: label positions.
    let mut labels: HashMap<&str, u32> = HashMap::new();
    let mut at = start;
    for line in body {
        let w = line.word(0, "an instruction")?;
        if let Some(label) = w.strip_suffix(':') {
            line.expect_len(1)?;
            if labels.insert(label, at).is_some() {
                return Err(line.err(format!("duplicate label {label}")));
            }
        } else if w != ".loc" {
            let op = Opcode::from_mnemonic(w)
                .ok_or_else(|| line.err(format!("unknown instruction {w}")))?;
            at += op.size() as u32;
        }
    }

    for (label, at) in &labels {
        all_labels.insert(format!("{name}:{label}"), *at);
    }

    // Pass 2: encode.
    for line in body {
        let w = line.word(0, "an instruction")?;
        if w.ends_with(':') {
            continue;
        }
        if w == ".loc" {
            line.expect_len(4)?;
            module.lines.entries.push(LineEntry {
                offset: module.code.len() as u32,
                file: line.number(1, "file index")?,
                line: line.number(2, "line")?,
                col: line.number(3, "column")?,
            });
            continue;
        }
        let op =
            Opcode::from_mnemonic(w).ok_or_else(|| line.err(format!("unknown instruction {w}")))?;
        let kinds = op.info().operands;
        line.expect_len(1 + kinds.len())?;
        let mut operands = Vec::with_capacity(kinds.len());
        for (k, kind) in kinds.iter().enumerate() {
            let word = line.word(k + 1, kind.name())?;
            let index_of = |names: &mut dyn Iterator<Item = &str>| -> Option<u32> {
                for (i, n) in names.enumerate() {
                    if n == word {
                        return Some(i as u32);
                    }
                }
                None
            };
            let number = || word.parse::<u32>().ok();
            let value = match kind {
                OperandKind::Imm => parse_int(word)
                    .filter(|v| *v >= i64::from(i32::MIN) && *v <= i64::from(u32::MAX))
                    .map(|v| v as u32),
                OperandKind::Local | OperandKind::IntLocal | OperandKind::ListLocal => {
                    index_of(&mut slot_names.iter().map(|s| s.as_str())).or_else(number)
                }
                OperandKind::Global => {
                    index_of(&mut module.globals.iter().map(|g| g.name.as_str())).or_else(number)
                }
                OperandKind::List => {
                    index_of(&mut module.lists.iter().map(|g| g.name.as_str())).or_else(number)
                }
                OperandKind::Text => {
                    index_of(&mut module.texts.iter().map(|g| g.name.as_str())).or_else(number)
                }
                OperandKind::Func => func_names.get(word).copied().or_else(number),
                OperandKind::Intrinsic => {
                    index_of(&mut INTRINSICS.iter().map(|i| i.name)).or_else(number)
                }
                OperandKind::Target => labels.get(word).copied(),
            };
            let value =
                value.ok_or_else(|| line.err(format!("unknown {} operand {word}", kind.name())))?;
            operands.push(value);
        }
        Instr::new(op, &operands).encode(&mut module.code);
    }
    let len = module.code.len() as u32 - start;
    module.functions.push(Function {
        name,
        value_params,
        list_params,
        locals,
        max_stack,
        start,
        len,
        returns_value,
        slot_names,
    });
    Ok(())
}
