//! Reading a file a user named, within a bound.
//!
//! Every reader of a file whose name comes from outside (a program on the
//! command line, an `include`, the engine's `CheProgram`, `EndgameProgram`
//! and `BookFile` options, the PGN files of a book build) reads it through
//! [`read_bounded`]. It refuses what is not a regular file (a directory, a
//! FIFO, a device such as `/dev/zero`, a socket) before opening it, and a
//! file larger than the caller's limit, without reading more than one byte
//! past that limit (so a file that grows while it is read, or a file that
//! reports size 0 but has content, is still bounded).
//!
//! The limits: [`SOURCE_LIMIT`] for programs (source, `.cmp`, `.asm`) and
//! [`DATA_LIMIT`] for chess data (Polyglot books, PGN game files).

use std::fmt;
use std::io::Read;
use std::path::Path;

/// The largest program file read: 4 MiB (the largest shipped program, a
/// generated CHEG table, is about 0.5 MB; compiling a file of the limit's
/// size of hostile text takes about a second and at most about 500 MB).
pub const SOURCE_LIMIT: u64 = 4 * 1024 * 1024;

/// The largest chess data file read (a Polyglot book, a PGN file of games
/// for a book build): 64 MiB (a Polyglot book of four million entries).
pub const DATA_LIMIT: u64 = 64 * 1024 * 1024;

/// Why a file was not read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The name is not a regular file.
    #[error("{0}, not a regular file")]
    NotAFile(FileKind),
    /// The file holds more bytes than the limit.
    #[error("larger than the limit of {limit} bytes{}", mib(*limit))]
    TooLarge {
        /// The limit, in bytes.
        limit: u64,
    },
    /// The file system refused (no such file, no permission, ...).
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

impl From<ReadError> for std::io::Error {
    fn from(e: ReadError) -> std::io::Error {
        match e {
            ReadError::Io(e) => e,
            other => std::io::Error::other(other.to_string()),
        }
    }
}

/// What a name that is not a regular file names.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FileKind {
    /// A directory.
    Directory,
    /// A named pipe.
    Fifo,
    /// A character device (`/dev/zero`, a terminal).
    CharDevice,
    /// A block device.
    BlockDevice,
    /// A Unix socket.
    Socket,
    /// Anything else that is not a regular file.
    Other,
}

impl fmt::Display for FileKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FileKind::Directory => "a directory",
            FileKind::Fifo => "a named pipe (FIFO)",
            FileKind::CharDevice => "a character device",
            FileKind::BlockDevice => "a block device",
            FileKind::Socket => "a socket",
            FileKind::Other => "a special file",
        })
    }
}

/// A whole number of MiB for messages (` (16 MiB)`), else nothing.
fn mib(bytes: u64) -> String {
    const MIB: u64 = 1024 * 1024;
    if bytes >= MIB && bytes % MIB == 0 {
        format!(" ({} MiB)", bytes / MIB)
    } else {
        String::new()
    }
}

/// The kind of a file type that is not a regular file.
fn kind_of(t: std::fs::FileType) -> FileKind {
    if t.is_dir() {
        return FileKind::Directory;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return FileKind::Fifo;
        }
        if t.is_char_device() {
            return FileKind::CharDevice;
        }
        if t.is_block_device() {
            return FileKind::BlockDevice;
        }
        if t.is_socket() {
            return FileKind::Socket;
        }
    }
    FileKind::Other
}

/// The bytes of the regular file at `path` (symbolic links followed),
/// at most `limit` of them: anything else is refused with a [`ReadError`]
/// before more than `limit + 1` bytes are read.
pub fn read_bounded(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    // Checked before opening: opening a FIFO for reading blocks until a
    // writer comes.
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(ReadError::NotAFile(kind_of(meta.file_type())));
    }
    if meta.len() > limit {
        return Err(ReadError::TooLarge { limit });
    }
    let file = std::fs::File::open(path)?;
    let opened = file.metadata()?;
    if !opened.is_file() {
        return Err(ReadError::NotAFile(kind_of(opened.file_type())));
    }
    let capacity = usize::try_from(opened.len().min(limit)).unwrap_or(0);
    let mut bytes = Vec::with_capacity(capacity);
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge { limit });
    }
    Ok(bytes)
}

/// Whether `a` and `b` name the same existing file (the same device and
/// inode on Unix, the same canonical path elsewhere): a tool refuses to
/// write its output over one of its inputs.
pub fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (std::fs::metadata(a), std::fs::metadata(b)) {
            (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
            (Ok(x), Ok(y)) => x == y,
            _ => false,
        }
    }
}

/// A program file ([`read_bounded`] with [`SOURCE_LIMIT`]).
pub fn read_program(path: &Path) -> Result<Vec<u8>, ReadError> {
    read_bounded(path, SOURCE_LIMIT)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("cvm-frontend-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }

    #[test]
    fn regular_files_within_the_limit_are_read() {
        let path = temp("ok.che", b"write 1;");
        assert_eq!(read_bounded(&path, 8).unwrap(), b"write 1;");
        let e = read_bounded(&path, 7).unwrap_err();
        assert!(matches!(e, ReadError::TooLarge { limit: 7 }), "{e}");
        assert_eq!(e.to_string(), "larger than the limit of 7 bytes");
    }

    #[test]
    fn special_files_are_refused_without_reading() {
        let dir = std::env::temp_dir();
        assert!(matches!(
            read_program(&dir),
            Err(ReadError::NotAFile(FileKind::Directory))
        ));
        #[cfg(unix)]
        {
            let e = read_program(Path::new("/dev/zero")).unwrap_err();
            assert!(
                matches!(e, ReadError::NotAFile(FileKind::CharDevice)),
                "{e}"
            );
            assert_eq!(e.to_string(), "a character device, not a regular file");
        }
        assert!(matches!(
            read_program(Path::new("/no/such/file.che")),
            Err(ReadError::Io(_))
        ));
    }

    #[test]
    fn same_files_are_recognised_through_other_names() {
        let path = temp("same.che", b"x");
        let dir = path.parent().unwrap().to_path_buf();
        let other = dir.join(".").join("same.che");
        assert!(same_file(&path, &other));
        assert!(!same_file(&path, &temp("other.che", b"x")));
        assert!(!same_file(&path, &dir.join("missing.che")));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn files_that_report_no_size_are_still_bounded() {
        // /proc files say their size is 0 but have content.
        let e = read_bounded(Path::new("/proc/self/maps"), 4).unwrap_err();
        assert!(matches!(e, ReadError::TooLarge { limit: 4 }), "{e}");
    }
}
