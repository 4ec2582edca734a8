//! A CVM module in memory: the function table, globals, the data segment
//! (lists and texts), the code words, the entry point and the debug tables.
//!
//! A [`Module`] is plain data. It is produced by the Che++ compiler, by the
//! assembler ([`crate::asm`]) or by the `.cmp` loader ([`crate::binary`]), and
//! it must pass the verifier ([`crate::verify`]) before either backend runs
//! it. The [`Module::check_tables`] method enforces the structural rules that
//! do not need code analysis (names, ranges, limits); the loader and the
//! verifier both call it.

use crate::isa::Ty;

/// Upper bound on the words of code in one module.
pub const MAX_CODE_WORDS: usize = 1 << 24;
/// Upper bound on the number of functions, globals, lists or texts.
pub const MAX_TABLE_ENTRIES: usize = 1 << 20;
/// Upper bound on the frame slots (parameters + locals) of one function.
pub const MAX_FRAME_SLOTS: u32 = 4096;
/// Upper bound on the declared operand stack of one function.
pub const MAX_STACK: u32 = 1024;
/// Upper bound on the total number of list slots in a module (all lists
/// together, each with its end-marker slot).
pub const MAX_LIST_SLOTS: u64 = 1 << 24;
/// Upper bound on the length of a name or a text, in bytes.
pub const MAX_STRING_BYTES: usize = 1 << 16;

/// A whole CVM module.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Module {
    /// The functions, whose code ranges tile [`Module::code`] in order.
    pub functions: Vec<Function>,
    /// The global variables.
    pub globals: Vec<Global>,
    /// The lists of the data segment.
    pub lists: Vec<ListDef>,
    /// The texts of the data segment.
    pub texts: Vec<TextDef>,
    /// The code words of all functions.
    pub code: Vec<u32>,
    /// The function the embedder runs by default (`main`), if any.
    pub entry: Option<u32>,
    /// Maps code offsets to source positions (may be empty).
    pub lines: LineTable,
}

/// One function or procedure.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Function {
    /// Its name, unique among the module's functions.
    pub name: String,
    /// Number of value (int) parameters; they occupy the first frame slots.
    pub value_params: u32,
    /// Number of list parameters; they follow the value parameters.
    pub list_params: u32,
    /// Number of further int frame slots (locals), initialised to 0.
    pub locals: u32,
    /// The largest operand-stack depth the code may reach.
    pub max_stack: u32,
    /// First code word of the function.
    pub start: u32,
    /// Number of code words.
    pub len: u32,
    /// Whether the function returns a value (a function) or not (a
    /// procedure).
    pub returns_value: bool,
    /// Optional names of the frame slots, for listings: either empty or one
    /// per slot (parameters, then locals).
    pub slot_names: Vec<String>,
}

impl Function {
    /// Number of parameters of both kinds.
    pub fn arity(&self) -> u32 {
        self.value_params.saturating_add(self.list_params)
    }

    /// Number of frame slots: parameters plus locals.
    pub fn frame_slots(&self) -> u32 {
        self.arity().saturating_add(self.locals)
    }

    /// The type of a frame slot, or `None` when the slot does not exist.
    pub fn slot_type(&self, slot: u32) -> Option<Ty> {
        if slot < self.value_params {
            Some(Ty::Int)
        } else if slot < self.arity() {
            Some(Ty::List)
        } else if slot < self.frame_slots() {
            Some(Ty::Int)
        } else {
            None
        }
    }

    /// The end of the function's code range (exclusive).
    pub fn end(&self) -> u32 {
        self.start.saturating_add(self.len)
    }
}

/// A global variable.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Global {
    /// Its name, unique among the globals.
    pub name: String,
    /// Its value when an instance starts.
    pub init: i32,
}

/// A list of the data segment.
///
/// A list declared with `capacity` N owns N + 1 slots: N elements and one
/// more slot that starts as the end marker -1 (`CHE_LISTEND`). All N + 1
/// slots can be read and written; scans (for-in, `ListLen`) stop at the
/// first -1 or at the last slot, whichever comes first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ListDef {
    /// Its name, unique among the lists.
    pub name: String,
    /// Declared number of elements.
    pub capacity: u32,
    /// Initial values of the first elements (at most `capacity`); the other
    /// slots start as -1.
    pub init: Vec<i32>,
}

impl ListDef {
    /// Number of slots the list occupies (capacity plus the end-marker slot).
    pub fn slots(&self) -> u64 {
        u64::from(self.capacity) + 1
    }
}

/// A text of the data segment.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TextDef {
    /// Its name, unique among the texts.
    pub name: String,
    /// The text written by `textout`.
    pub text: String,
}

/// Source positions for code offsets.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LineTable {
    /// Source file names; entries refer to them by index.
    pub files: Vec<String>,
    /// Entries sorted by strictly increasing code offset. An offset maps to
    /// the last entry at or before it.
    pub entries: Vec<LineEntry>,
}

/// One line-table entry: from `offset` on, code comes from this position.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct LineEntry {
    /// Code offset in words.
    pub offset: u32,
    /// Index into [`LineTable::files`].
    pub file: u32,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
}

/// A resolved source position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourcePos {
    /// The file name.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
}

impl std::fmt::Display for SourcePos {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.col)
    }
}

impl LineTable {
    /// The source position of a code offset, if the table covers it.
    pub fn lookup(&self, offset: u32) -> Option<SourcePos> {
        let idx = self.entries.partition_point(|e| e.offset <= offset);
        let entry = self.entries.get(idx.checked_sub(1)?)?;
        let file = self.files.get(entry.file as usize)?;
        Some(SourcePos {
            file: file.clone(),
            line: entry.line,
            col: entry.col,
        })
    }
}

/// A structural defect of a module's tables, found without analysing code.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TableError {
    /// A name is empty, too long or not an identifier.
    #[error("{what} {index}: invalid name {name:?}")]
    BadName {
        /// Which table.
        what: &'static str,
        /// Entry index.
        index: usize,
        /// The offending name.
        name: String,
    },
    /// Two entries of one table share a name.
    #[error("{what} {index}: duplicate name {name:?}")]
    DuplicateName {
        /// Which table.
        what: &'static str,
        /// Entry index of the second occurrence.
        index: usize,
        /// The name.
        name: String,
    },
    /// A table or the code exceeds an implementation limit.
    #[error("{what} exceeds the limit of {limit}")]
    Limit {
        /// What is too big.
        what: &'static str,
        /// The limit.
        limit: u64,
    },
    /// Function code ranges do not tile the code in order.
    #[error("function {index} ({name}): code range {start}..{end} does not follow the previous function (expected start {expected})")]
    CodeRange {
        /// Function index.
        index: usize,
        /// Function name.
        name: String,
        /// Its start.
        start: u32,
        /// Its end.
        end: u64,
        /// Where it should start.
        expected: u32,
    },
    /// Functions do not cover the whole code.
    #[error("code words {covered}..{len} belong to no function")]
    UncoveredCode {
        /// End of the last function.
        covered: u32,
        /// Code length.
        len: usize,
    },
    /// A function has an empty code range.
    #[error("function {0} has no code")]
    EmptyFunction(String),
    /// A list has more initial values than its capacity.
    #[error("list {name}: {given} initial values exceed its capacity {capacity}")]
    ListInit {
        /// The list.
        name: String,
        /// Number of initial values.
        given: usize,
        /// Declared capacity.
        capacity: u32,
    },
    /// `slot_names` has the wrong length.
    #[error("function {name}: {given} slot names for {slots} frame slots")]
    SlotNames {
        /// The function.
        name: String,
        /// Number of names.
        given: usize,
        /// Number of frame slots.
        slots: u32,
    },
    /// The entry point does not exist or takes parameters.
    #[error("entry point {0} is not a function without parameters")]
    BadEntry(u32),
    /// A line-table entry is out of order, out of range or names no file.
    #[error("line table entry {0} is out of order or out of range")]
    BadLineEntry(usize),
}

/// True when `s` may name a function, global, list, text or frame slot:
/// ASCII letters, digits, `_`, `$` and `.`, not starting with a digit.
pub fn is_valid_name(s: &str) -> bool {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' || c == '$' || c == '.' => {}
        _ => return false,
    }
    s.len() <= 255 && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$' || c == '.')
}

fn check_names<'a>(
    what: &'static str,
    names: impl Iterator<Item = &'a str>,
) -> Result<(), TableError> {
    let mut seen = std::collections::HashSet::new();
    for (index, name) in names.enumerate() {
        if !is_valid_name(name) {
            return Err(TableError::BadName {
                what,
                index,
                name: name.to_string(),
            });
        }
        if !seen.insert(name) {
            return Err(TableError::DuplicateName {
                what,
                index,
                name: name.to_string(),
            });
        }
    }
    Ok(())
}

impl Module {
    /// Checks every structural rule that needs no code analysis: names,
    /// limits, code ranges, list initialisers, the entry point and the line
    /// table. The verifier calls this first.
    pub fn check_tables(&self) -> Result<(), TableError> {
        let limit = |what: &'static str, n: usize, max: usize| {
            if n > max {
                Err(TableError::Limit {
                    what,
                    limit: max as u64,
                })
            } else {
                Ok(())
            }
        };
        limit("code", self.code.len(), MAX_CODE_WORDS)?;
        limit("function table", self.functions.len(), MAX_TABLE_ENTRIES)?;
        limit("global table", self.globals.len(), MAX_TABLE_ENTRIES)?;
        limit("list table", self.lists.len(), MAX_TABLE_ENTRIES)?;
        limit("text table", self.texts.len(), MAX_TABLE_ENTRIES)?;
        check_names("function", self.functions.iter().map(|f| f.name.as_str()))?;
        check_names("global", self.globals.iter().map(|g| g.name.as_str()))?;
        check_names("list", self.lists.iter().map(|l| l.name.as_str()))?;
        check_names("text", self.texts.iter().map(|t| t.name.as_str()))?;
        for t in &self.texts {
            limit("text length", t.text.len(), MAX_STRING_BYTES)?;
        }
        let mut expected = 0u32;
        for (index, f) in self.functions.iter().enumerate() {
            if f.value_params > MAX_FRAME_SLOTS
                || f.list_params > MAX_FRAME_SLOTS
                || f.locals > MAX_FRAME_SLOTS
                || f.frame_slots() > MAX_FRAME_SLOTS
            {
                return Err(TableError::Limit {
                    what: "frame slots",
                    limit: u64::from(MAX_FRAME_SLOTS),
                });
            }
            if f.max_stack > MAX_STACK {
                return Err(TableError::Limit {
                    what: "operand stack",
                    limit: u64::from(MAX_STACK),
                });
            }
            let end = u64::from(f.start) + u64::from(f.len);
            if f.start != expected || end > self.code.len() as u64 {
                return Err(TableError::CodeRange {
                    index,
                    name: f.name.clone(),
                    start: f.start,
                    end,
                    expected,
                });
            }
            if f.len == 0 {
                return Err(TableError::EmptyFunction(f.name.clone()));
            }
            if !f.slot_names.is_empty() {
                if f.slot_names.len() != f.frame_slots() as usize {
                    return Err(TableError::SlotNames {
                        name: f.name.clone(),
                        given: f.slot_names.len(),
                        slots: f.frame_slots(),
                    });
                }
                check_names("frame slot", f.slot_names.iter().map(|s| s.as_str()))?;
            }
            expected = end as u32;
        }
        if expected as usize != self.code.len() {
            return Err(TableError::UncoveredCode {
                covered: expected,
                len: self.code.len(),
            });
        }
        let mut total_slots = 0u64;
        for l in &self.lists {
            if l.init.len() as u64 > u64::from(l.capacity) {
                return Err(TableError::ListInit {
                    name: l.name.clone(),
                    given: l.init.len(),
                    capacity: l.capacity,
                });
            }
            total_slots += l.slots();
            if total_slots > MAX_LIST_SLOTS {
                return Err(TableError::Limit {
                    what: "list slots",
                    limit: MAX_LIST_SLOTS,
                });
            }
        }
        if let Some(entry) = self.entry {
            match self.functions.get(entry as usize) {
                Some(f) if f.arity() == 0 => {}
                _ => return Err(TableError::BadEntry(entry)),
            }
        }
        let mut prev: Option<u32> = None;
        for (i, e) in self.lines.entries.iter().enumerate() {
            let ordered = prev.is_none_or(|p| e.offset > p);
            if !ordered
                || e.offset as usize >= self.code.len().max(1)
                || e.file as usize >= self.lines.files.len()
            {
                return Err(TableError::BadLineEntry(i));
            }
            prev = Some(e.offset);
        }
        for f in &self.lines.files {
            limit("file name length", f.len(), MAX_STRING_BYTES)?;
        }
        Ok(())
    }

    /// Finds a function by name.
    pub fn function_index(&self, name: &str) -> Option<u32> {
        self.functions
            .iter()
            .position(|f| f.name == name)
            .map(|i| i as u32)
    }

    /// The function whose code range contains `offset`.
    pub fn function_at(&self, offset: u32) -> Option<u32> {
        let idx = self.functions.partition_point(|f| f.start <= offset);
        let i = idx.checked_sub(1)?;
        let f = &self.functions[i];
        (offset < f.end()).then_some(i as u32)
    }

    /// The source position of a code offset, through the line table.
    pub fn source_pos(&self, offset: u32) -> Option<SourcePos> {
        self.lines.lookup(offset)
    }
}
