//! Source files, spans and where included files are found.
//!
//! A Che program is a main file and the files it includes. All of their
//! text lives in one [`SourceMap`]; everything after the lexer refers to
//! text by [`Span`] (a file and a byte range), so that a diagnostic can show
//! its line and the code generator can record `file:line:col` in the line
//! table.
//!
//! Files are read through a [`Loader`]: [`FsLoader`] reads the disk (the
//! command line, the engine), [`MemLoader`] serves files from memory (tests,
//! fuzzing, embedders). Nimzo 3's files were written on DOS machines, so a
//! file that is not valid UTF-8 is read as Latin-1 ([`decode`]).

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
    /// The span from byte `lo` to byte `hi` of `file`.
    pub fn new(file: FileId, lo: usize, hi: usize) -> Span {
        Span {
            file,
            lo: lo as u32,
            hi: hi.max(lo) as u32,
        }
    }

    /// The smallest span covering both (or `self` when the files differ).
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

/// One loaded file.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// The name shown in diagnostics and stored in the line table.
    pub name: String,
    /// Where the file was read from; its folder is searched first by the
    /// file's own `include` lines.
    pub path: Option<PathBuf>,
    /// The decoded text.
    pub text: String,
    line_starts: Vec<usize>,
}

impl SourceFile {
    fn new(name: String, path: Option<PathBuf>, mut text: String) -> SourceFile {
        if text.starts_with('\u{feff}') {
            text.drain(..'\u{feff}'.len_utf8());
        }
        let line_starts = files::line_starts(&text).collect();
        SourceFile {
            name,
            path,
            text,
            line_starts,
        }
    }

    fn line_of(&self, at: usize) -> usize {
        match self.line_starts.binary_search(&at) {
            Ok(line) => line,
            Err(next) => next.saturating_sub(1),
        }
    }

    /// The byte range of 0-based `line` without its line break.
    fn line_range(&self, line: usize) -> Option<Range<usize>> {
        let start = *self.line_starts.get(line)?;
        let end = self
            .line_starts
            .get(line + 1)
            .copied()
            .unwrap_or(self.text.len());
        let text = self.text.get(start..end)?;
        Some(start..start + text.trim_end_matches(['\n', '\r']).len())
    }
}

/// The text of a file's bytes: UTF-8 when the bytes are valid UTF-8,
/// otherwise Latin-1, each byte being the character of the same number (so
/// a German comment written on DOS reads as written). A byte-order mark at
/// the start is dropped.
pub fn decode(mut bytes: Vec<u8>) -> String {
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        bytes.drain(..3);
    }
    match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => e.into_bytes().iter().map(|&b| char::from(b)).collect(),
    }
}

/// Every file of one compilation.
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    /// An empty map.
    pub fn new() -> SourceMap {
        SourceMap::default()
    }

    /// Adds a file and returns its id; a leading byte-order mark is dropped.
    pub fn add(&mut self, name: &str, path: Option<PathBuf>, text: String) -> FileId {
        self.files
            .push(SourceFile::new(name.to_string(), path, text));
        FileId(self.files.len() as u32 - 1)
    }

    /// The file with id `id`.
    pub fn get(&self, id: FileId) -> Option<&SourceFile> {
        self.files.get(id.0 as usize)
    }

    /// All files, in the order they were read.
    pub fn files(&self) -> &[SourceFile] {
        &self.files
    }

    /// The first file shown under `name`.
    pub fn find(&self, name: &str) -> Option<FileId> {
        self.files
            .iter()
            .position(|f| f.name == name)
            .map(|i| FileId(i as u32))
    }

    /// The 1-based line and column (counted in characters) where a span
    /// starts.
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

    /// A one-character span at 1-based `line` and `col` of `file` (clamped
    /// to the end of the line).
    pub fn span_at(&self, file: FileId, line: u32, col: u32) -> Option<Span> {
        let f = self.get(file)?;
        let range = f.line_range((line as usize).checked_sub(1)?)?;
        let text = f.text.get(range.clone())?;
        let (mut lo, mut hi) = (range.end, range.end);
        if let Some((at, c)) = text.char_indices().nth((col as usize).saturating_sub(1)) {
            lo = range.start + at;
            hi = lo + c.len_utf8();
        }
        Some(Span::new(file, lo, hi))
    }

    /// The text a span covers.
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
        Ok(self
            .get(id)
            .ok_or(files::Error::FileMissing)?
            .line_of(byte_index))
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
    /// The text of the file at `path`, its bytes passed through [`decode`].
    fn load(&self, path: &Path) -> std::io::Result<String>;

    /// A key that two paths naming the same file share (files are included
    /// once); the path itself by default.
    fn identity(&self, path: &Path) -> PathBuf {
        path.to_path_buf()
    }
}

/// Reads files from the file system.
#[derive(Copy, Clone, Debug, Default)]
pub struct FsLoader;

impl Loader for FsLoader {
    fn load(&self, path: &Path) -> std::io::Result<String> {
        if path.is_dir() {
            return Err(std::io::Error::other("is a directory"));
        }
        std::fs::read(path).map(decode)
    }

    fn identity(&self, path: &Path) -> PathBuf {
        std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
    }
}

/// Serves files from memory, by path.
#[derive(Clone, Debug, Default)]
pub struct MemLoader {
    files: HashMap<PathBuf, String>,
}

impl MemLoader {
    /// A loader without files.
    pub fn new() -> MemLoader {
        MemLoader::default()
    }

    /// Adds or replaces a file.
    pub fn add(&mut self, path: impl Into<PathBuf>, text: impl Into<String>) -> &mut Self {
        self.files.insert(normalize(&path.into()), text.into());
        self
    }

    /// A loader holding the given `(path, text)` pairs.
    pub fn with(files: &[(&str, &str)]) -> MemLoader {
        let mut loader = MemLoader::new();
        for (path, text) in files {
            loader.add(*path, *text);
        }
        loader
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

/// Drops `.` components and folds `dir/..`, without the file system.
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

/// The folder of a file (empty for a bare file name).
pub fn folder_of(path: &Path) -> PathBuf {
    path.parent().map(Path::to_path_buf).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latin1_and_bom() {
        assert_eq!(decode(b"# L\xE4ufer".to_vec()), "# Läufer");
        assert_eq!(decode("# Läufer".as_bytes().to_vec()), "# Läufer");
        assert_eq!(decode(b"\xEF\xBB\xBFrule".to_vec()), "rule");
        let mut map = SourceMap::new();
        let id = map.add("x.che3", None, "\u{feff}a\n\u{e4}b c".to_string());
        let text = &map.get(id).unwrap().text;
        let c = text.find('c').unwrap();
        assert_eq!(map.line_col(Span::new(id, c, c + 1)), (2, 4));
        assert_eq!(map.span_at(id, 2, 4), Some(Span::new(id, c, c + 1)));
    }

    #[test]
    fn memory_paths_are_normalized() {
        let l = MemLoader::with(&[("dir/a.che3", "x")]);
        assert_eq!(l.load(Path::new("dir/./sub/../a.che3")).unwrap(), "x");
        assert!(l.load(Path::new("a.che3")).is_err());
    }
}
