//! Why a program could not be compiled.

/// A compilation failure. Verified programs compile on every supported host,
/// so these report an unsupported machine or a defect in the code
/// generator, never a property of the program.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum JitError {
    /// Cranelift has no backend for this machine (or it is not 64-bit).
    #[error("the JIT does not support this machine: {0}")]
    UnsupportedHost(String),
    /// Cranelift refused a setting.
    #[error("code generator settings: {0}")]
    Settings(String),
    /// Cranelift failed on one function.
    #[error("compiling function {function} ({name}): {message}")]
    Function {
        /// Function index.
        function: u32,
        /// Function name.
        name: String,
        /// Cranelift's message.
        message: String,
    },
    /// Declaring, linking or finalizing the compiled code failed.
    #[error("linking compiled code: {0}")]
    Link(String),
}
