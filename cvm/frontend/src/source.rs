//! Source files, spans and file loading, shared by every front end.
//!
//! Every byte a front end reads lives in one [`SourceMap`]: the main file
//! and every file it includes. Tokens, syntax nodes and diagnostics refer to
//! text by [`Span`] (file and byte range), so a message can always show the
//! line it is about, and a code generator can turn a span into the
//! `file:line:col` of the CVM line table.
//!
//! Files are read through a [`Loader`], so tests and embedders compile from
//! memory ([`MemLoader`]) exactly as the command line compiles from disk
//! ([`FsLoader`]). Bytes become text through [`decode`]: UTF-8 when valid,
//! otherwise Latin-1 (the Nimzo files were written on DOS machines with
//! German comments), and a byte-order mark is dropped. Where an `include`
//! looks is each front end's own rule.

use codespan_reporting::files::{self, Files};
use std::collections::HashMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// Index of a file in a [`SourceMap`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct FileId(pub u32);

/// A byte range of one source file.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Span {
    /// The file.
    pub file: FileId,
    /// First byte.
    pub lo: u32,
    /// One past the last byte.
    pub hi: u32,
}

impl Span {
    /// A span from `lo` to `hi` in `file`.
    pub fn new(file: FileId, lo: usize, hi: usize) -> Span {
        Span {
            file,
            lo: lo as u32,
            hi: hi.max(lo) as u32,
        }
    }

    /// The smallest span covering `self` and `other` (same file assumed;
    /// otherwise `self`).
    pub fn to(self, other: Span) -> Span {
        if self.file != other.file {
            return self;
        }
        Span {
            file: self.file,
            lo: self.lo.min(other.lo),
            hi: self.hi.max(other.hi),
        }
    }

    /// The byte range.
    pub fn range(self) -> Range<usize> {
        self.lo as usize..self.hi as usize
    }
}

/// One loaded source file.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// The name shown in diagnostics and recorded in the line table.
    pub name: String,
    /// Where the file came from (for resolving its own includes); `None`
    /// for the bundled standard library.
    pub path: Option<PathBuf>,
    /// The text.
    pub text: String,
    line_starts: Vec<usize>,
}

/// The byte-order mark some editors put at the start of a UTF-8 file.
const BOM: char = '\u{feff}';

/// The text of a source file's bytes: UTF-8 when they are valid UTF-8,
/// otherwise Latin-1 (every byte is the character with the same code, so
/// `ä` written as the single byte `0xE4` reads as `ä`). A leading
/// byte-order mark is dropped.
pub fn decode(mut bytes: Vec<u8>) -> String {
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        bytes.drain(..3);
    }
    match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => e.into_bytes().iter().map(|&b| char::from(b)).collect(),
    }
}

impl SourceFile {
    fn new(name: String, path: Option<PathBuf>, mut text: String) -> SourceFile {
        if text.starts_with(BOM) {
            text.drain(..BOM.len_utf8());
        }
        let line_starts = files::line_starts(&text).collect();
        SourceFile {
            name,
            path,
            text,
            line_starts,
        }
    }

    /// The 0-based line containing byte `at`.
    fn line_of(&self, at: usize) -> usize {
        match self.line_starts.binary_search(&at) {
            Ok(line) => line,
            Err(next) => next.saturating_sub(1),
        }
    }

    /// The byte range of 0-based line `line`, without its line break.
    fn line_range(&self, line: usize) -> Option<Range<usize>> {
        let start = *self.line_starts.get(line)?;
        let end = self
            .line_starts
            .get(line + 1)
            .copied()
            .unwrap_or(self.text.len());
        let text = self.text.get(start..end)?;
        let trimmed = text.trim_end_matches(['\n', '\r']).len();
        Some(start..start + trimmed)
    }
}

/// All source files of one compilation.
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    /// An empty map.
    pub fn new() -> SourceMap {
        SourceMap::default()
    }

    /// Adds a file; returns its id. A leading byte-order mark is dropped.
    pub fn add(&mut self, name: &str, path: Option<PathBuf>, text: String) -> FileId {
        self.files
            .push(SourceFile::new(name.to_string(), path, text));
        FileId(self.files.len() as u32 - 1)
    }

    /// The file with id `id`.
    pub fn get(&self, id: FileId) -> Option<&SourceFile> {
        self.files.get(id.0 as usize)
    }

    /// All files, by id.
    pub fn files(&self) -> &[SourceFile] {
        &self.files
    }

    /// The first file with the given display name.
    pub fn find(&self, name: &str) -> Option<FileId> {
        self.files
            .iter()
            .position(|f| f.name == name)
            .map(|i| FileId(i as u32))
    }

    /// The 1-based line and column (in characters) of the start of a span.
    pub fn line_col(&self, span: Span) -> (u32, u32) {
        let Some(file) = self.get(span.file) else {
            return (1, 1);
        };
        let at = (span.lo as usize).min(file.text.len());
        let line = file.line_of(at);
        let start = file.line_starts.get(line).copied().unwrap_or(0);
        let col = file.text.get(start..at).map_or(0, |s| s.chars().count());
        (line as u32 + 1, col as u32 + 1)
    }

    /// The span of 1-based `line` and `col` in `file`, one character wide
    /// (clamped to the line).
    pub fn span_at(&self, file: FileId, line: u32, col: u32) -> Option<Span> {
        let f = self.get(file)?;
        let range = f.line_range((line as usize).checked_sub(1)?)?;
        let text = f.text.get(range.clone())?;
        let mut lo = range.end;
        let mut hi = range.end;
        for (i, (at, c)) in text.char_indices().enumerate() {
            if i + 1 == col as usize {
                lo = range.start + at;
                hi = lo + c.len_utf8();
                break;
            }
        }
        Some(Span::new(file, lo, hi))
    }

    /// The byte offset where the line holding the start of `span` starts,
    /// and that line's text (without its line break).
    pub fn line_text_of(&self, span: Span) -> Option<(usize, &str)> {
        let f = self.get(span.file)?;
        let at = (span.lo as usize).min(f.text.len());
        let range = f.line_range(f.line_of(at))?;
        Some((range.start, f.text.get(range.clone())?))
    }

    /// The text of a span.
    pub fn text(&self, span: Span) -> &str {
        self.get(span.file)
            .and_then(|f| f.text.get(span.range()))
            .unwrap_or("")
    }
}

impl<'a> Files<'a> for SourceMap {
    type FileId = FileId;
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, id: FileId) -> Result<&'a str, files::Error> {
        self.get(id)
            .map(|f| f.name.as_str())
            .ok_or(files::Error::FileMissing)
    }

    fn source(&'a self, id: FileId) -> Result<&'a str, files::Error> {
        self.get(id)
            .map(|f| f.text.as_str())
            .ok_or(files::Error::FileMissing)
    }

    fn line_index(&'a self, id: FileId, byte_index: usize) -> Result<usize, files::Error> {
        let f = self.get(id).ok_or(files::Error::FileMissing)?;
        Ok(f.line_of(byte_index))
    }

    fn line_range(&'a self, id: FileId, line_index: usize) -> Result<Range<usize>, files::Error> {
        let f = self.get(id).ok_or(files::Error::FileMissing)?;
        if line_index == f.line_starts.len() {
            return Ok(f.text.len()..f.text.len());
        }
        let start = *f
            .line_starts
            .get(line_index)
            .ok_or(files::Error::LineTooLarge {
                given: line_index,
                max: f.line_starts.len().saturating_sub(1),
            })?;
        let end = f
            .line_starts
            .get(line_index + 1)
            .copied()
            .unwrap_or(f.text.len());
        Ok(start..end)
    }
}

/// Reads source files for the compiler.
pub trait Loader {
    /// The text of the file at `path` (file bytes go through [`decode`]).
    fn load(&self, path: &Path) -> std::io::Result<String>;

    /// A key that is equal for two paths naming the same file (used to
    /// include each file once). The default is the path itself.
    fn identity(&self, path: &Path) -> PathBuf {
        path.to_path_buf()
    }
}

/// Reads files from the file system, through [`crate::file::read_program`]
/// (special files and files over [`crate::file::SOURCE_LIMIT`] are refused).
#[derive(Copy, Clone, Debug, Default)]
pub struct FsLoader;

impl Loader for FsLoader {
    fn load(&self, path: &Path) -> std::io::Result<String> {
        Ok(decode(crate::file::read_program(path)?))
    }

    fn identity(&self, path: &Path) -> PathBuf {
        std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
    }
}

/// Serves files from memory, keyed by path; for tests and embedders.
#[derive(Clone, Debug, Default)]
pub struct MemLoader {
    files: HashMap<PathBuf, String>,
}

impl MemLoader {
    /// An empty loader.
    pub fn new() -> MemLoader {
        MemLoader::default()
    }

    /// Adds (or replaces) a file.
    pub fn add(&mut self, path: impl Into<PathBuf>, text: impl Into<String>) -> &mut Self {
        self.files.insert(normalize(&path.into()), text.into());
        self
    }

    /// A loader holding the given files.
    pub fn with(files: &[(&str, &str)]) -> MemLoader {
        let mut l = MemLoader::new();
        for (p, t) in files {
            l.add(*p, *t);
        }
        l
    }
}

impl Loader for MemLoader {
    fn load(&self, path: &Path) -> std::io::Result<String> {
        self.files
            .get(&normalize(path))
            .cloned()
            .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, "no such file"))
    }

    fn identity(&self, path: &Path) -> PathBuf {
        normalize(path)
    }
}

/// Removes `.` components and folds `dir/..` pairs, without touching the
/// file system.
fn normalize(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The display name for a file found at `path`.
pub fn display_name(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

/// The folder of a file path (empty for a bare file name).
pub fn folder_of(path: &Path) -> PathBuf {
    path.parent().map(Path::to_path_buf).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_are_utf8_or_latin1_without_bom() {
        assert_eq!(decode("Läufer ß".as_bytes().to_vec()), "Läufer ß");
        assert_eq!(decode(b"L\xE4ufer \xDF".to_vec()), "Läufer ß");
        assert_eq!(decode(b"\xEF\xBB\xBFwrite".to_vec()), "write");
        assert_eq!(decode(b"\xEF\xBB\xBF\xE4".to_vec()), "ä");
        assert_eq!(decode(b"\xEF\xBB".to_vec()), "ï»");
        let mut map = SourceMap::new();
        let id = map.add("bom.che", None, "\u{feff}x\n\u{e4}y z".to_string());
        let f = map.get(id).unwrap();
        assert_eq!(f.text, "x\n\u{e4}y z");
        let z = f.text.find('z').unwrap();
        assert_eq!(map.line_col(Span::new(id, z, z + 1)), (2, 4));
    }

    #[test]
    fn memory_paths_are_normalized() {
        let l = MemLoader::with(&[("dir/a.che3", "x")]);
        assert_eq!(l.load(Path::new("dir/./sub/../a.che3")).unwrap(), "x");
        assert!(l.load(Path::new("a.che3")).is_err());
    }
}
