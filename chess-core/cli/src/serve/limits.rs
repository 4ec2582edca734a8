//! The playground's limits: what one request may cost.

use std::time::Duration;

/// Bounds on each request, so that bad input (huge sources, endless programs) gets a clear error
/// and the server stays up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Largest request body, in bytes (the source and the position travel in it).
    pub body_bytes: usize,
    /// Fuel of one run of `main()` (`docs/cvm.md`, "Fuel").
    pub fuel: u64,
    /// Wall-clock time one request may take before it is answered with an error.
    pub request_time: Duration,
    /// Thinking time of the engine for one move.
    pub move_time: Duration,
    /// Deepest search the engine may be asked for.
    pub max_depth: u32,
    /// Requests worked on at the same time; more wait (within their time limit).
    pub concurrent: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            body_bytes: 64 * 1024,
            fuel: 20_000_000,
            request_time: Duration::from_secs(5),
            move_time: Duration::from_millis(1500),
            max_depth: 12,
            concurrent: 2,
        }
    }
}
