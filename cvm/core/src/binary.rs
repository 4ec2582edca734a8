//! The `.cmp` file format: writer and loader.
//!
//! A `.cmp` file is the stable binary form of a [`Module`]. Everything is
//! little-endian. The file starts with the magic bytes `7F 43 56 4D`
//! (`"\x7fCVM"`), the format version ([`FORMAT_VERSION`]) and a flags word
//! (0). Seven sections follow in a fixed order, each introduced by a four-byte
//! tag and the byte length of its payload:
//!
//! | tag    | payload |
//! |--------|---------|
//! | `FUNC` | count; per function: name, value params, list params, locals, max stack, code start, code length, flags (bit 0: returns a value), slot-name count, slot names |
//! | `GLOB` | count; per global: name, initial value |
//! | `LIST` | count; per list: name, capacity, initial-value count, initial values |
//! | `TEXT` | count; per text: name, text |
//! | `CODE` | word count; the code words |
//! | `ENTR` | entry function index, or `0xFFFFFFFF` for none |
//! | `LINE` | file count, file names; entry count; per entry: offset, file, line, column |
//!
//! Strings are a 32-bit byte length followed by UTF-8 bytes. Nothing may
//! follow the last section. The loader turns every defect into a typed
//! [`FormatError`]; it never allocates more than the input could describe.

use crate::module::{Function, Global, LineEntry, LineTable, ListDef, Module, TextDef};

/// The four magic bytes at the start of every `.cmp` file.
pub const MAGIC: [u8; 4] = *b"\x7fCVM";
/// The format version this crate writes and reads.
pub const FORMAT_VERSION: u32 = 1;

const SECTION_TAGS: [[u8; 4]; 7] = [
    *b"FUNC", *b"GLOB", *b"LIST", *b"TEXT", *b"CODE", *b"ENTR", *b"LINE",
];

const NO_ENTRY: u32 = u32::MAX;

/// Why bytes are not a well-formed `.cmp` file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FormatError {
    /// The file does not start with the magic bytes.
    #[error("not a CVM module (bad magic number)")]
    BadMagic,
    /// The file has a format version this crate does not read.
    #[error("unsupported .cmp format version {0} (this build reads version {FORMAT_VERSION})")]
    UnsupportedVersion(u32),
    /// The flags word is not zero.
    #[error("unknown flags 0x{0:08X} in the header")]
    UnknownFlags(u32),
    /// The input ends in the middle of something.
    #[error("unexpected end of file at byte {at} while reading {what}")]
    UnexpectedEof {
        /// Byte offset.
        at: usize,
        /// What was being read.
        what: &'static str,
    },
    /// A section is missing or out of order.
    #[error("expected section {expected} at byte {at}, found {found:?}")]
    BadSection {
        /// Byte offset.
        at: usize,
        /// The expected tag.
        expected: String,
        /// The bytes found instead.
        found: [u8; 4],
    },
    /// A section's payload is shorter or longer than its header says.
    #[error("section {tag} declares {declared} bytes but its contents take {used}")]
    SectionLength {
        /// The section tag.
        tag: String,
        /// Declared payload length.
        declared: usize,
        /// Bytes its contents take.
        used: usize,
    },
    /// A count is larger than the remaining input could hold.
    #[error("{what} count {count} at byte {at} is larger than the file")]
    CountTooLarge {
        /// Byte offset.
        at: usize,
        /// What is counted.
        what: &'static str,
        /// The count.
        count: u32,
    },
    /// A string is not UTF-8.
    #[error("{what} at byte {at} is not valid UTF-8")]
    BadUtf8 {
        /// Byte offset.
        at: usize,
        /// What the string is.
        what: &'static str,
    },
    /// A flags field has unknown bits.
    #[error("function {0}: unknown flag bits")]
    BadFunctionFlags(usize),
    /// Bytes follow the last section.
    #[error("{0} unexpected bytes after the last section")]
    TrailingBytes(usize),
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], FormatError> {
        if self.remaining() < n {
            return Err(FormatError::UnexpectedEof { at: self.pos, what });
        }
        let s = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    fn u32(&mut self, what: &'static str) -> Result<u32, FormatError> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn i32(&mut self, what: &'static str) -> Result<i32, FormatError> {
        Ok(self.u32(what)? as i32)
    }

    /// Reads a count whose items each take at least `min_item_bytes`.
    fn count(&mut self, what: &'static str, min_item_bytes: usize) -> Result<usize, FormatError> {
        let at = self.pos;
        let count = self.u32(what)?;
        if (count as usize).saturating_mul(min_item_bytes) > self.remaining() {
            return Err(FormatError::CountTooLarge { at, what, count });
        }
        Ok(count as usize)
    }

    fn string(&mut self, what: &'static str) -> Result<String, FormatError> {
        let len = self.count(what, 1)?;
        let at = self.pos;
        let bytes = self.take(len, what)?;
        String::from_utf8(bytes.to_vec()).map_err(|_| FormatError::BadUtf8 { at, what })
    }
}

struct Writer {
    bytes: Vec<u8>,
}

impl Writer {
    fn u32(&mut self, v: u32) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }

    fn i32(&mut self, v: i32) {
        self.u32(v as u32);
    }

    fn string(&mut self, s: &str) {
        self.u32(s.len() as u32);
        self.bytes.extend_from_slice(s.as_bytes());
    }

    fn section(&mut self, tag: [u8; 4], body: impl FnOnce(&mut Writer)) {
        self.bytes.extend_from_slice(&tag);
        let len_at = self.bytes.len();
        self.u32(0);
        let start = self.bytes.len();
        body(self);
        let len = (self.bytes.len() - start) as u32;
        self.bytes[len_at..len_at + 4].copy_from_slice(&len.to_le_bytes());
    }
}

/// Serialises a module to `.cmp` bytes.
///
/// ```
/// use cvm::{asm, binary};
///
/// let module = asm::assemble(".func main params 0 lists 0 locals 0 stack 0 proc\n    ret\n.end\n").unwrap();
/// let bytes = binary::write(&module);
/// assert_eq!(&bytes[..4], &binary::MAGIC);
/// assert_eq!(binary::read(&bytes), Ok(module));
/// assert!(binary::read(&bytes[..bytes.len() - 1]).is_err());
/// ```
pub fn write(module: &Module) -> Vec<u8> {
    let mut w = Writer { bytes: Vec::new() };
    w.bytes.extend_from_slice(&MAGIC);
    w.u32(FORMAT_VERSION);
    w.u32(0);
    w.section(SECTION_TAGS[0], |w| {
        w.u32(module.functions.len() as u32);
        for f in &module.functions {
            w.string(&f.name);
            w.u32(f.value_params);
            w.u32(f.list_params);
            w.u32(f.locals);
            w.u32(f.max_stack);
            w.u32(f.start);
            w.u32(f.len);
            w.u32(u32::from(f.returns_value));
            w.u32(f.slot_names.len() as u32);
            for n in &f.slot_names {
                w.string(n);
            }
        }
    });
    w.section(SECTION_TAGS[1], |w| {
        w.u32(module.globals.len() as u32);
        for g in &module.globals {
            w.string(&g.name);
            w.i32(g.init);
        }
    });
    w.section(SECTION_TAGS[2], |w| {
        w.u32(module.lists.len() as u32);
        for l in &module.lists {
            w.string(&l.name);
            w.u32(l.capacity);
            w.u32(l.init.len() as u32);
            for v in &l.init {
                w.i32(*v);
            }
        }
    });
    w.section(SECTION_TAGS[3], |w| {
        w.u32(module.texts.len() as u32);
        for t in &module.texts {
            w.string(&t.name);
            w.string(&t.text);
        }
    });
    w.section(SECTION_TAGS[4], |w| {
        w.u32(module.code.len() as u32);
        for word in &module.code {
            w.u32(*word);
        }
    });
    w.section(SECTION_TAGS[5], |w| w.u32(module.entry.unwrap_or(NO_ENTRY)));
    w.section(SECTION_TAGS[6], |w| {
        w.u32(module.lines.files.len() as u32);
        for f in &module.lines.files {
            w.string(f);
        }
        w.u32(module.lines.entries.len() as u32);
        for e in &module.lines.entries {
            w.u32(e.offset);
            w.u32(e.file);
            w.u32(e.line);
            w.u32(e.col);
        }
    });
    w.bytes
}

/// Parses `.cmp` bytes into a module.
///
/// This checks the byte-level format only; callers normally go through
/// [`crate::load`], which also checks the tables and verifies the code.
pub fn read(bytes: &[u8]) -> Result<Module, FormatError> {
    let mut r = Reader { bytes, pos: 0 };
    if r.take(4, "magic").map_err(|_| FormatError::BadMagic)? != MAGIC {
        return Err(FormatError::BadMagic);
    }
    let version = r.u32("format version")?;
    if version != FORMAT_VERSION {
        return Err(FormatError::UnsupportedVersion(version));
    }
    let flags = r.u32("flags")?;
    if flags != 0 {
        return Err(FormatError::UnknownFlags(flags));
    }
    let mut module = Module::default();
    section(&mut r, SECTION_TAGS[0], |r| {
        let n = r.count("function", 36)?;
        for index in 0..n {
            let name = r.string("function name")?;
            let value_params = r.u32("value parameter count")?;
            let list_params = r.u32("list parameter count")?;
            let locals = r.u32("local count")?;
            let max_stack = r.u32("max stack")?;
            let start = r.u32("code start")?;
            let len = r.u32("code length")?;
            let flags = r.u32("function flags")?;
            if flags > 1 {
                return Err(FormatError::BadFunctionFlags(index));
            }
            let n_names = r.count("slot name", 4)?;
            let mut slot_names = Vec::with_capacity(n_names);
            for _ in 0..n_names {
                slot_names.push(r.string("slot name")?);
            }
            module.functions.push(Function {
                name,
                value_params,
                list_params,
                locals,
                max_stack,
                start,
                len,
                returns_value: flags == 1,
                slot_names,
            });
        }
        Ok(())
    })?;
    section(&mut r, SECTION_TAGS[1], |r| {
        let n = r.count("global", 8)?;
        for _ in 0..n {
            let name = r.string("global name")?;
            let init = r.i32("global value")?;
            module.globals.push(Global { name, init });
        }
        Ok(())
    })?;
    section(&mut r, SECTION_TAGS[2], |r| {
        let n = r.count("list", 12)?;
        for _ in 0..n {
            let name = r.string("list name")?;
            let capacity = r.u32("list capacity")?;
            let n_init = r.count("list initial value", 4)?;
            let mut init = Vec::with_capacity(n_init);
            for _ in 0..n_init {
                init.push(r.i32("list value")?);
            }
            module.lists.push(ListDef {
                name,
                capacity,
                init,
            });
        }
        Ok(())
    })?;
    section(&mut r, SECTION_TAGS[3], |r| {
        let n = r.count("text", 8)?;
        for _ in 0..n {
            let name = r.string("text name")?;
            let text = r.string("text")?;
            module.texts.push(TextDef { name, text });
        }
        Ok(())
    })?;
    section(&mut r, SECTION_TAGS[4], |r| {
        let n = r.count("code word", 4)?;
        module.code.reserve_exact(n);
        for _ in 0..n {
            module.code.push(r.u32("code word")?);
        }
        Ok(())
    })?;
    section(&mut r, SECTION_TAGS[5], |r| {
        let entry = r.u32("entry point")?;
        module.entry = (entry != NO_ENTRY).then_some(entry);
        Ok(())
    })?;
    section(&mut r, SECTION_TAGS[6], |r| {
        let n_files = r.count("file name", 4)?;
        for _ in 0..n_files {
            module.lines.files.push(r.string("file name")?);
        }
        let n = r.count("line entry", 16)?;
        for _ in 0..n {
            module.lines.entries.push(LineEntry {
                offset: r.u32("line entry offset")?,
                file: r.u32("line entry file")?,
                line: r.u32("line entry line")?,
                col: r.u32("line entry column")?,
            });
        }
        Ok(())
    })?;
    if r.remaining() != 0 {
        return Err(FormatError::TrailingBytes(r.remaining()));
    }
    if module.lines.files.is_empty() && module.lines.entries.is_empty() {
        module.lines = LineTable::default();
    }
    Ok(module)
}

fn section(
    r: &mut Reader<'_>,
    tag: [u8; 4],
    body: impl FnOnce(&mut Reader<'_>) -> Result<(), FormatError>,
) -> Result<(), FormatError> {
    let at = r.pos;
    let found = r.take(4, "section tag")?;
    if found != tag {
        let mut f = [0u8; 4];
        f.copy_from_slice(found);
        return Err(FormatError::BadSection {
            at,
            expected: String::from_utf8_lossy(&tag).into_owned(),
            found: f,
        });
    }
    let declared = r.u32("section length")? as usize;
    if declared > r.remaining() {
        return Err(FormatError::UnexpectedEof {
            at: r.pos,
            what: "section payload",
        });
    }
    // Parse the payload from a reader limited to the declared length, so a
    // section can never read into the next one.
    let mut inner = Reader {
        bytes: &r.bytes[..r.pos + declared],
        pos: r.pos,
    };
    body(&mut inner)?;
    let used = inner.pos - r.pos;
    if used != declared {
        return Err(FormatError::SectionLength {
            tag: String::from_utf8_lossy(&tag).into_owned(),
            declared,
            used,
        });
    }
    r.pos += declared;
    Ok(())
}
