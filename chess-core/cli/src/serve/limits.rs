//! The playground's limits: what one request and one connection may cost.

use std::time::Duration;

/// Bounds on each request and connection, so that bad input (huge sources, endless programs,
/// idle or slow connections, floods) gets a clear error and the server stays up and answers
/// others.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Largest request body, in bytes (the source and the position travel in it).
    pub body_bytes: usize,
    /// Fuel of one run of `main()` (`docs/cvm.md`, "Fuel").
    pub fuel: u64,
    /// Wall-clock time one request may work (from the moment it gets a slot) before it is
    /// answered with an error; the work is cancelled then (a run between backends, a search at
    /// once), and its slot stays taken until it has ended.
    pub request_time: Duration,
    /// How long a request may wait for a slot before it is answered 503.
    pub queue_time: Duration,
    /// Requests of one kind (runs, engine moves) waiting for a slot at most; more are answered
    /// 503 at once.
    pub queue_len: usize,
    /// Thinking time of the engine for one move.
    pub move_time: Duration,
    /// Deepest search the engine may be asked for.
    pub max_depth: u32,
    /// Requests worked on at the same time. Each kind of request (runs, engine moves) gets at
    /// most `concurrent - 1` of them (at least one), so one kind cannot starve the other.
    pub concurrent: usize,
    /// Output lines one run keeps; the rest are counted, not kept.
    pub output_lines: usize,
    /// Output bytes one run keeps.
    pub output_bytes: usize,
    /// Time a connection may take to send a request's head (idle keep-alive time included),
    /// and the longest a connection may make no progress reading or writing.
    pub idle_time: Duration,
    /// Time a request's body may take to arrive.
    pub body_time: Duration,
    /// Open connections at most; more wait in the listener's backlog.
    pub connections: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            body_bytes: 64 * 1024,
            fuel: 20_000_000,
            request_time: Duration::from_secs(5),
            queue_time: Duration::from_secs(20),
            queue_len: 16,
            move_time: Duration::from_millis(1500),
            max_depth: 12,
            concurrent: 2,
            output_lines: 10_000,
            output_bytes: 256 * 1024,
            idle_time: Duration::from_secs(10),
            body_time: Duration::from_secs(10),
            connections: 256,
        }
    }
}
