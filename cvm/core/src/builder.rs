//! A convenient way to build modules from Rust: declare globals, lists,
//! texts and functions by name, emit code with symbolic labels, and let the
//! builder lay the functions out, resolve jump targets and compute each
//! function's operand-stack maximum.
//!
//! The Che++ code generator, the test suites and the benchmarks use it.
//!
//! ```
//! use cvm::builder::ModuleBuilder;
//! use cvm::isa::Opcode;
//!
//! let mut b = ModuleBuilder::new();
//! let main = b.declare_function("main", 0, 0, true).unwrap();
//! let mut f = b.body(main);
//! f.emit(Opcode::Push, &[6]);
//! f.emit(Opcode::Push, &[7]);
//! f.emit(Opcode::Mul, &[]);
//! f.emit(Opcode::RetV, &[]);
//! f.finish().unwrap();
//! b.set_entry(main);
//! let program = b.finish().unwrap();
//! assert_eq!(program.module().functions[0].max_stack, 2);
//! ```

use crate::isa::{Instr, Opcode, OperandKind};
use crate::module::{Function, Global, LineEntry, ListDef, Module, TextDef};
use crate::verify::{Program, VerifyError};
use std::collections::HashMap;

/// A label inside one function body.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Label(u32);

/// Why a module could not be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    /// A name is used twice in one table.
    #[error("duplicate {what} name {name:?}")]
    Duplicate {
        /// Which table.
        what: &'static str,
        /// The name.
        name: String,
    },
    /// A declared function never got a body.
    #[error("function {0} was declared but has no body")]
    MissingBody(String),
    /// A label was used but never bound.
    #[error("function {function}: label {label} used but never bound")]
    UnboundLabel {
        /// The function.
        function: String,
        /// The label number.
        label: u32,
    },
    /// The finished module does not verify.
    #[error(transparent)]
    Verify(#[from] VerifyError),
}

#[derive(Clone, Debug, Default)]
struct Body {
    code: Vec<u32>,
    /// Positions (relative) of target operands, to relocate.
    targets: Vec<usize>,
    locals: u32,
    slot_names: Vec<String>,
    lines: Vec<(u32, u32, u32, u32)>,
    defined: bool,
}

/// Builds a [`Module`].
#[derive(Debug, Default)]
pub struct ModuleBuilder {
    module: Module,
    bodies: Vec<Body>,
    files: HashMap<String, u32>,
}

impl ModuleBuilder {
    /// An empty builder.
    pub fn new() -> ModuleBuilder {
        ModuleBuilder::default()
    }

    fn unique<'a>(
        what: &'static str,
        mut names: impl Iterator<Item = &'a str>,
        name: &str,
    ) -> Result<(), BuildError> {
        if names.any(|n| n == name) {
            Err(BuildError::Duplicate {
                what,
                name: name.to_string(),
            })
        } else {
            Ok(())
        }
    }

    /// Adds a global with an initial value; returns its index.
    pub fn global(&mut self, name: &str, init: i32) -> Result<u32, BuildError> {
        Self::unique(
            "global",
            self.module.globals.iter().map(|g| g.name.as_str()),
            name,
        )?;
        self.module.globals.push(Global {
            name: name.to_string(),
            init,
        });
        Ok(self.module.globals.len() as u32 - 1)
    }

    /// Adds a list with a capacity and initial values; returns its index.
    pub fn list(&mut self, name: &str, capacity: u32, init: Vec<i32>) -> Result<u32, BuildError> {
        Self::unique(
            "list",
            self.module.lists.iter().map(|g| g.name.as_str()),
            name,
        )?;
        self.module.lists.push(ListDef {
            name: name.to_string(),
            capacity,
            init,
        });
        Ok(self.module.lists.len() as u32 - 1)
    }

    /// Adds a text; returns its index.
    pub fn text(&mut self, name: &str, text: &str) -> Result<u32, BuildError> {
        Self::unique(
            "text",
            self.module.texts.iter().map(|g| g.name.as_str()),
            name,
        )?;
        self.module.texts.push(TextDef {
            name: name.to_string(),
            text: text.to_string(),
        });
        Ok(self.module.texts.len() as u32 - 1)
    }

    /// Registers a source file name for line information; returns its index.
    pub fn file(&mut self, name: &str) -> u32 {
        if let Some(&i) = self.files.get(name) {
            return i;
        }
        let i = self.module.lines.files.len() as u32;
        self.module.lines.files.push(name.to_string());
        self.files.insert(name.to_string(), i);
        i
    }

    /// Declares a function (its body comes later through [`Self::body`]);
    /// returns its index.
    pub fn declare_function(
        &mut self,
        name: &str,
        value_params: u32,
        list_params: u32,
        returns_value: bool,
    ) -> Result<u32, BuildError> {
        Self::unique(
            "function",
            self.module.functions.iter().map(|g| g.name.as_str()),
            name,
        )?;
        self.module.functions.push(Function {
            name: name.to_string(),
            value_params,
            list_params,
            returns_value,
            ..Function::default()
        });
        self.bodies.push(Body::default());
        Ok(self.module.functions.len() as u32 - 1)
    }

    /// The index of a declared function.
    pub fn function_index(&self, name: &str) -> Option<u32> {
        self.module.function_index(name)
    }

    /// Sets the entry point.
    pub fn set_entry(&mut self, function: u32) {
        self.module.entry = Some(function);
    }

    /// Starts (or restarts) the body of a declared function.
    pub fn body(&mut self, function: u32) -> FunctionBuilder<'_> {
        let f = &self.module.functions[function as usize];
        let arity = f.arity();
        FunctionBuilder {
            body: &mut self.bodies[function as usize],
            arity,
            labels: Vec::new(),
            fixups: Vec::new(),
        }
        .reset()
    }

    /// Lays out the code, resolves targets and verifies the result, which
    /// computes each function's stack maximum: the verified program.
    pub fn finish(mut self) -> Result<Program, BuildError> {
        let mut code = Vec::new();
        let mut entries = Vec::new();
        for (f, body) in self.module.functions.iter_mut().zip(&self.bodies) {
            if !body.defined {
                return Err(BuildError::MissingBody(f.name.clone()));
            }
            let start = code.len() as u32;
            let mut words = body.code.clone();
            for &t in &body.targets {
                words[t] = words[t].wrapping_add(start);
            }
            code.extend_from_slice(&words);
            f.start = start;
            f.len = words.len() as u32;
            f.locals = body.locals;
            f.slot_names = body.slot_names.clone();
            for &(off, file, line, col) in &body.lines {
                entries.push(LineEntry {
                    offset: start + off,
                    file,
                    line,
                    col,
                });
            }
        }
        self.module.code = code;
        self.module.lines.entries = entries;
        Ok(Program::sized(self.module)?)
    }
}

/// Emits the code of one function.
pub struct FunctionBuilder<'a> {
    body: &'a mut Body,
    arity: u32,
    labels: Vec<Option<u32>>,
    fixups: Vec<(usize, Label)>,
}

impl FunctionBuilder<'_> {
    fn reset(self) -> Self {
        *self.body = Body::default();
        self
    }

    /// The current code position, relative to the function start.
    pub fn position(&self) -> u32 {
        self.body.code.len() as u32
    }

    /// Adds a local (int) frame slot; returns its slot number.
    pub fn local(&mut self) -> u32 {
        self.body.locals += 1;
        self.arity + self.body.locals - 1
    }

    /// Names every frame slot (parameters, then locals) for listings. The
    /// names must be identifiers, one per slot, when the body is finished.
    pub fn set_slot_names(&mut self, names: Vec<String>) {
        self.body.slot_names = names;
    }

    /// Records that the code emitted from here on comes from a source
    /// position.
    pub fn loc(&mut self, file: u32, line: u32, col: u32) {
        let at = self.position();
        if let Some(last) = self.body.lines.last_mut() {
            if last.0 == at {
                *last = (at, file, line, col);
                return;
            }
            if (last.1, last.2, last.3) == (file, line, col) {
                return;
            }
        }
        self.body.lines.push((at, file, line, col));
    }

    /// A new, unbound label.
    pub fn new_label(&mut self) -> Label {
        self.labels.push(None);
        Label(self.labels.len() as u32 - 1)
    }

    /// Binds a label to the current position.
    pub fn bind(&mut self, label: Label) {
        self.labels[label.0 as usize] = Some(self.position());
    }

    /// Emits an instruction without a target operand (or with a target given
    /// as a relative position).
    pub fn emit(&mut self, opcode: Opcode, operands: &[u32]) {
        let at = self.body.code.len();
        Instr::new(opcode, operands).encode(&mut self.body.code);
        if let Some(i) = opcode
            .info()
            .operands
            .iter()
            .position(|k| *k == OperandKind::Target)
        {
            self.body.targets.push(at + 1 + i);
        }
    }

    /// Emits an instruction whose target operand is a label; `operands`
    /// gives the other operands in order.
    pub fn emit_jump(&mut self, opcode: Opcode, operands: &[u32], label: Label) {
        let info = opcode.info();
        let mut words = Vec::with_capacity(info.operands.len());
        let mut others = operands.iter();
        let mut target_pos = 0;
        for (i, k) in info.operands.iter().enumerate() {
            if *k == OperandKind::Target {
                target_pos = i;
                words.push(0);
            } else {
                words.push(others.next().copied().unwrap_or(0));
            }
        }
        let at = self.body.code.len();
        self.emit(opcode, &words);
        self.fixups.push((at + 1 + target_pos, label));
    }

    /// Finishes the body: resolves labels.
    pub fn finish(self) -> Result<(), BuildError> {
        for (pos, label) in &self.fixups {
            match self.labels[label.0 as usize] {
                Some(p) => self.body.code[*pos] = p,
                None => {
                    return Err(BuildError::UnboundLabel {
                        function: String::new(),
                        label: label.0,
                    })
                }
            }
        }
        self.body.defined = true;
        Ok(())
    }
}
