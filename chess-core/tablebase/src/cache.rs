//! Cached tables on disk: a small binary file per ending, with a version header and a checksum.
//!
//! Layout (little-endian):
//!
//! | bytes | field |
//! | --- | --- |
//! | 8 | magic `CHETB\r\n\x1a` |
//! | 4 | format version ([`FORMAT_VERSION`]; raised whenever the generator's output changes) |
//! | 1 | material tag (1 KQK, 2 KRK, 3 KBNK, 4 KPK) |
//! | 3 | zero |
//! | 8 | number of value bytes |
//! | n | the value bytes, one per index |
//! | 8 | FNV-1a 64 of everything before it |
//!
//! A KPK file holds only the KPK values; its KQK and KRK tables are the neighbouring files. Files
//! are written to a temporary name and renamed, so a reader never sees half a file even when test
//! binaries race. Generated tables are build products: keep them under `target/`, never in git.

use crate::layout;
use crate::material::Material;
use crate::outcome::{INVALID, MAX_PLIES};
use crate::table::Table;
use std::error::Error;
use std::fmt;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// The version written to and required of cache files.
pub const FORMAT_VERSION: u32 = 1;

const MAGIC: [u8; 8] = *b"CHETB\r\n\x1a";
const HEADER_LEN: usize = 24;

/// Why a cache file could not be read or written.
#[derive(Debug)]
pub enum CacheError {
    /// The operating system refused a read, write, rename or directory creation.
    Io {
        /// The file or directory concerned.
        path: PathBuf,
        /// What the operating system said.
        source: io::Error,
    },
    /// The file exists but is not a valid table of the expected ending.
    Format {
        /// The file concerned.
        path: PathBuf,
        /// What is wrong with it.
        problem: FormatProblem,
    },
}

/// What is wrong with a cache file's contents.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FormatProblem {
    /// Shorter than a header and a checksum.
    Truncated,
    /// The first eight bytes are not the magic number.
    Magic,
    /// Written by another format version.
    Version {
        /// The version in the file.
        found: u32,
    },
    /// A table of another ending.
    Material {
        /// The tag in the file.
        found: u8,
    },
    /// The value count does not match the ending's index size.
    Length {
        /// The count in the file.
        found: u64,
        /// The count the ending needs.
        expected: u64,
    },
    /// The checksum does not match the contents.
    Checksum,
    /// A value byte no generator writes.
    Value {
        /// Its index.
        index: usize,
        /// The byte.
        byte: u8,
    },
}

impl fmt::Display for CacheError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CacheError::Io { path, source } => {
                write!(f, "tablebase cache {}: {source}", path.display())
            }
            CacheError::Format { path, problem } => {
                write!(f, "tablebase cache {}: {problem}", path.display())
            }
        }
    }
}

impl Error for CacheError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            CacheError::Io { source, .. } => Some(source),
            CacheError::Format { .. } => None,
        }
    }
}

impl fmt::Display for FormatProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FormatProblem::Truncated => f.write_str("file is truncated"),
            FormatProblem::Magic => f.write_str("not a tablebase file (bad magic number)"),
            FormatProblem::Version { found } => write!(
                f,
                "format version {found}, this build reads version {FORMAT_VERSION}"
            ),
            FormatProblem::Material { found } => write!(f, "wrong ending (tag {found})"),
            FormatProblem::Length { found, expected } => {
                write!(f, "{found} values, the ending has {expected}")
            }
            FormatProblem::Checksum => f.write_str("checksum mismatch"),
            FormatProblem::Value { index, byte } => {
                write!(f, "invalid value byte {byte} at index {index}")
            }
        }
    }
}

/// The directory tables are cached in by default: `$CHE_TABLEBASE_DIR` if set, else
/// `$CARGO_TARGET_DIR/tablebase`, else `target/tablebase` under the current directory.
pub fn default_cache_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("CHE_TABLEBASE_DIR") {
        return PathBuf::from(dir);
    }
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| PathBuf::from("target"), PathBuf::from);
    target.join("tablebase")
}

/// The cache file of `material` in `dir`, e.g. `dir/kbnk.chetb`.
pub fn cache_path(dir: &Path, material: Material) -> PathBuf {
    dir.join(format!("{}.chetb", material.name().to_ascii_lowercase()))
}

/// FNV-1a, 64 bits.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

impl Table {
    /// Writes this table (for KPK: only its own values) to [`cache_path`]`(dir, material)`,
    /// creating `dir` if needed.
    pub fn save(&self, dir: &Path) -> Result<(), CacheError> {
        let io_error = |path: &Path| {
            let path = path.to_path_buf();
            move |source| CacheError::Io { path, source }
        };
        fs::create_dir_all(dir).map_err(io_error(dir))?;
        let mut bytes = Vec::with_capacity(HEADER_LEN + self.values.len() + 8);
        bytes.extend_from_slice(&MAGIC);
        bytes.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        bytes.extend_from_slice(&[self.material.tag(), 0, 0, 0]);
        bytes.extend_from_slice(&(self.values.len() as u64).to_le_bytes());
        bytes.extend_from_slice(&self.values);
        let checksum = fnv1a(&bytes);
        bytes.extend_from_slice(&checksum.to_le_bytes());
        let path = cache_path(dir, self.material);
        // Unique per process and per call, so concurrent writers never share a temporary file.
        static WRITES: AtomicU64 = AtomicU64::new(0);
        let serial = WRITES.fetch_add(1, Ordering::Relaxed);
        let temporary = path.with_extension(format!("tmp{}-{serial}", std::process::id()));
        fs::write(&temporary, &bytes).map_err(io_error(&temporary))?;
        fs::rename(&temporary, &path).map_err(io_error(&path))
    }

    /// Reads the table of `material` from `dir` (for KPK also the KQK and KRK files).
    pub fn load(material: Material, dir: &Path) -> Result<Table, CacheError> {
        let promotions = if material.has_pawn() {
            vec![
                Table::load(Material::Kqk, dir)?,
                Table::load(Material::Krk, dir)?,
            ]
        } else {
            Vec::new()
        };
        let path = cache_path(dir, material);
        let bytes = fs::read(&path).map_err(|source| CacheError::Io {
            path: path.clone(),
            source,
        })?;
        let values = parse(material, &bytes).map_err(|problem| CacheError::Format {
            path: path.clone(),
            problem,
        })?;
        Ok(Table {
            material,
            values,
            promotions,
        })
    }

    /// Reads the table of `material` from `dir`, or generates it and writes the file when it is
    /// missing or unreadable (wrong version, corrupt). Errors only when a generated table cannot
    /// be written.
    pub fn load_or_generate(material: Material, dir: &Path) -> Result<Table, CacheError> {
        if let Ok(table) = Table::load(material, dir) {
            return Ok(table);
        }
        let promotions = if material.has_pawn() {
            vec![
                Table::load_or_generate(Material::Kqk, dir)?,
                Table::load_or_generate(Material::Krk, dir)?,
            ]
        } else {
            Vec::new()
        };
        let table = Table::solve(material, promotions);
        table.save(dir)?;
        Ok(table)
    }
}

/// The value bytes of a cache file's contents, checked.
fn parse(material: Material, bytes: &[u8]) -> Result<Vec<u8>, FormatProblem> {
    if bytes.len() < HEADER_LEN + 8 {
        return Err(FormatProblem::Truncated);
    }
    let (body, checksum) = bytes.split_at(bytes.len() - 8);
    let word = |range: std::ops::Range<usize>| {
        let mut buf = [0u8; 8];
        let len = range.len();
        buf[..len].copy_from_slice(&body[range]);
        u64::from_le_bytes(buf)
    };
    if body[..8] != MAGIC {
        return Err(FormatProblem::Magic);
    }
    let version = word(8..12) as u32;
    if version != FORMAT_VERSION {
        return Err(FormatProblem::Version { found: version });
    }
    if body[12] != material.tag() {
        return Err(FormatProblem::Material { found: body[12] });
    }
    let expected = layout::size(material) as u64;
    let found = word(16..24);
    if found != expected || (body.len() - HEADER_LEN) as u64 != expected {
        return Err(FormatProblem::Length { found, expected });
    }
    if fnv1a(body) != word_of(checksum) {
        return Err(FormatProblem::Checksum);
    }
    let values = &body[HEADER_LEN..];
    if let Some((index, &byte)) = values
        .iter()
        .enumerate()
        .find(|&(_, &byte)| byte != INVALID && byte > MAX_PLIES + 1)
    {
        return Err(FormatProblem::Value { index, byte });
    }
    Ok(values.to_vec())
}

fn word_of(bytes: &[u8]) -> u64 {
    let mut buf = [0u8; 8];
    buf.copy_from_slice(&bytes[..8]);
    u64::from_le_bytes(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_matches_the_published_test_vectors() {
        // From the FNV reference (Fowler, Noll, Vo): FNV-1a 64 of "" and "a".
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}
