//! Che++'s include rule on top of the shared source map.
//!
//! The source map, spans and loaders are the shared ones of
//! [`cvm_frontend::source`], re-exported here. What is Che++'s own is where
//! `include NAME` looks: the including file's folder, then each `-I`
//! folder in order, and finally the copy of `stdlib.che` built into the
//! library.

pub use cvm_frontend::source::*;
use std::path::{Path, PathBuf};

/// The name under which the bundled standard library is included.
pub const STDLIB_NAME: &str = "stdlib.che";

/// The text of the bundled standard library.
pub const STDLIB_SOURCE: &str = include_str!("../stdlib.che");

/// The result of looking for an included file.
#[derive(Clone, Debug)]
pub enum Found {
    /// A file on the loader's storage.
    File {
        /// The path it was found at.
        path: PathBuf,
        /// Its identity key.
        identity: PathBuf,
        /// Its text.
        text: String,
    },
    /// The bundled standard library.
    Stdlib,
}

/// Why an include could not be satisfied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IncludeError {
    /// No folder holds the file.
    NotFound {
        /// The folders searched, in order.
        searched: Vec<PathBuf>,
    },
    /// The file exists but could not be read.
    Unreadable {
        /// The path.
        path: PathBuf,
        /// The reason.
        reason: String,
    },
}

/// Looks for `name` as included from a file in folder `from_dir` (`None`
/// for the bundled library): that folder first, then each of `include_dirs`,
/// then the bundled `stdlib.che`.
pub fn find_include(
    loader: &dyn Loader,
    from_dir: Option<&Path>,
    include_dirs: &[PathBuf],
    name: &str,
) -> Result<Found, IncludeError> {
    let mut searched = Vec::new();
    let dirs = from_dir
        .into_iter()
        .map(Path::to_path_buf)
        .chain(include_dirs.iter().cloned());
    for dir in dirs {
        let path = dir.join(name);
        match loader.load(&path) {
            Ok(text) => {
                let identity = loader.identity(&path);
                return Ok(Found::File {
                    path,
                    identity,
                    text,
                });
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => searched.push(dir),
            Err(e) => {
                return Err(IncludeError::Unreadable {
                    path,
                    reason: e.to_string(),
                })
            }
        }
    }
    if name == STDLIB_NAME {
        return Ok(Found::Stdlib);
    }
    Err(IncludeError::NotFound { searched })
}
