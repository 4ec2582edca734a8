//! The harness's errors.

use std::path::PathBuf;

/// Why a harness command failed.
#[derive(Debug, thiserror::Error)]
pub enum LabError {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// A CSV file is malformed or does not fit its experiment.
    #[error("{path}: {message}")]
    Csv {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A command-line value is malformed.
    #[error("{0}")]
    Usage(String),
    /// A program failed to load, compile or run.
    #[error("{0}")]
    Program(String),
    /// The native twin and the advice program disagree.
    #[error(transparent)]
    Twin(#[from] crate::lab::twin::TwinError),
    /// An external tool (python-chess, the match driver) failed.
    #[error("{0}")]
    External(String),
    /// A plot could not be drawn.
    #[error("plot {path}: {message}")]
    Plot {
        /// The file.
        path: PathBuf,
        /// The backend's message.
        message: String,
    },
}

impl LabError {
    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> LabError {
        LabError::Io {
            path: path.into(),
            source,
        }
    }
}
