//! Search limits and time management.
//!
//! UCI's `go` states the limits in several ways (a fixed depth, node count or time per move, the
//! clocks with increments and moves to the next time control, or no limit until `stop`); this
//! module turns them into two deadlines. After the *soft* deadline no new iteration starts (one
//! that began would likely not finish); at the *hard* deadline the search stops wherever it is.
//! Deadlines and the depth limit live in atomics ([`SearchControl`]) so that another thread (the
//! UCI reader, the terminal's input) can stop the search or change its limits while it runs, as
//! Tiny Chess 86 let its player change the level during the machine's thinking.

use chess_core::colour::Colour;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::time::Duration;

/// The limits of one `go`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GoParams {
    /// Time left on White's and Black's clocks.
    pub time: [Option<Duration>; 2],
    /// Increments per move.
    pub increment: [Option<Duration>; 2],
    /// Moves to the next time control.
    pub moves_to_go: Option<u32>,
    /// Exactly this long per move.
    pub move_time: Option<Duration>,
    /// Search at most this many plies.
    pub depth: Option<u32>,
    /// Search at most this many nodes.
    pub nodes: Option<u64>,
    /// Look for a mate in this many moves.
    pub mate: Option<u32>,
    /// Search until stopped.
    pub infinite: bool,
    /// Only these root moves (UCI text; empty: all).
    pub search_moves: Vec<String>,
}

/// The deadlines of one search, measured from its start.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimePlan {
    /// Do not start another iteration after this.
    pub soft: Option<Duration>,
    /// Stop at once after this.
    pub hard: Option<Duration>,
}

/// Moves assumed to remain when the clock gives no moves-to-go.
const DEFAULT_MOVES_TO_GO: u64 = 30;

impl GoParams {
    /// The deadlines for `side`, keeping `overhead` in reserve for communication.
    pub fn plan(&self, side: Colour, overhead: Duration) -> TimePlan {
        if self.infinite {
            return TimePlan::default();
        }
        if let Some(t) = self.move_time {
            let t = t.saturating_sub(overhead).max(Duration::from_millis(1));
            return TimePlan {
                soft: Some(t),
                hard: Some(t),
            };
        }
        let Some(left) = self.time[side.index()] else {
            return TimePlan::default();
        };
        let inc = self.increment[side.index()].unwrap_or_default();
        let avail_ms = (left.saturating_sub(overhead).as_millis() as u64).max(1);
        let mtg = self
            .moves_to_go
            .map_or(DEFAULT_MOVES_TO_GO, |m| u64::from(m).clamp(1, 50));
        let inc_ms = inc.as_millis() as u64;
        let base = (avail_ms / mtg)
            .saturating_add(inc_ms / 4 * 3)
            .min(avail_ms);
        let hard = base.saturating_mul(3).min(avail_ms / 10 * 8).max(1);
        let soft = (base / 10 * 6).min(hard).max(1);
        TimePlan {
            soft: Some(Duration::from_millis(soft)),
            hard: Some(Duration::from_millis(hard)),
        }
    }
}

/// No limit, in the millisecond atomics.
const NONE: u64 = u64::MAX;

/// The state a running search shares with the outside: the stop flag and limits that may change
/// while it runs.
#[derive(Debug)]
pub struct SearchControl {
    stop: AtomicBool,
    max_depth: AtomicU32,
    soft_ms: AtomicU64,
    hard_ms: AtomicU64,
    /// Set when the depth was changed from outside since [`SearchControl::arm`].
    depth_adjusted: AtomicBool,
    /// Set when the deadlines were changed from outside since [`SearchControl::arm`].
    plan_adjusted: AtomicBool,
}

impl Default for SearchControl {
    fn default() -> Self {
        SearchControl::new()
    }
}

impl SearchControl {
    /// No stop request, no limits.
    pub fn new() -> SearchControl {
        SearchControl {
            stop: AtomicBool::new(false),
            max_depth: AtomicU32::new(u32::MAX),
            soft_ms: AtomicU64::new(NONE),
            hard_ms: AtomicU64::new(NONE),
            depth_adjusted: AtomicBool::new(false),
            plan_adjusted: AtomicBool::new(false),
        }
    }

    /// Asks the running search to stop as soon as possible.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Whether a stop was requested.
    #[inline(always)]
    pub fn stop_requested(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Clears the stop request and the limits for the next search (queued, not yet started).
    pub fn arm(&self, max_depth: Option<u32>, plan: TimePlan) {
        self.stop.store(false, Ordering::Relaxed);
        self.depth_adjusted.store(false, Ordering::Relaxed);
        self.plan_adjusted.store(false, Ordering::Relaxed);
        self.set_depth(max_depth);
        self.set_plan(plan);
    }

    /// Sets the depth limit.
    pub fn set_depth(&self, max_depth: Option<u32>) {
        self.max_depth
            .store(max_depth.unwrap_or(u32::MAX), Ordering::Relaxed);
    }

    /// Sets the deadlines (they count from the search's start).
    pub fn set_plan(&self, plan: TimePlan) {
        let ms = |d: Option<Duration>| d.map_or(NONE, |d| d.as_millis() as u64);
        self.soft_ms.store(ms(plan.soft), Ordering::Relaxed);
        self.hard_ms.store(ms(plan.hard), Ordering::Relaxed);
    }

    /// Changes the depth limit from outside while a search is queued or running; the search's
    /// own start-up ([`SearchControl::init`]) then keeps it.
    pub fn adjust_depth(&self, max_depth: Option<u32>) {
        self.depth_adjusted.store(true, Ordering::Relaxed);
        self.set_depth(max_depth);
    }

    /// Changes the deadlines from outside while a search is queued or running.
    pub fn adjust_plan(&self, plan: TimePlan) {
        self.plan_adjusted.store(true, Ordering::Relaxed);
        self.set_plan(plan);
    }

    /// Sets the limits a search starts with, except those adjusted from outside since it was
    /// queued (a change typed between queueing and starting must not be lost).
    pub fn init(&self, max_depth: Option<u32>, plan: TimePlan) {
        if !self.depth_adjusted.load(Ordering::Relaxed) {
            self.set_depth(max_depth);
        }
        if !self.plan_adjusted.load(Ordering::Relaxed) {
            self.set_plan(plan);
        }
    }

    /// The depth limit.
    #[inline]
    pub fn max_depth(&self) -> u32 {
        self.max_depth.load(Ordering::Relaxed)
    }

    /// The soft deadline in milliseconds, if any.
    #[inline]
    pub fn soft_ms(&self) -> Option<u64> {
        Some(self.soft_ms.load(Ordering::Relaxed)).filter(|&v| v != NONE)
    }

    /// The hard deadline in milliseconds, if any.
    #[inline]
    pub fn hard_ms(&self) -> Option<u64> {
        Some(self.hard_ms.load(Ordering::Relaxed)).filter(|&v| v != NONE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans() {
        let ms = Duration::from_millis;
        let none = Duration::ZERO;
        let fixed = GoParams {
            move_time: Some(ms(500)),
            ..GoParams::default()
        };
        assert_eq!(fixed.plan(Colour::White, ms(10)).hard, Some(ms(490)));
        let clock = GoParams {
            time: [Some(ms(60_000)), Some(ms(1_000))],
            increment: [Some(ms(1_000)), None],
            ..GoParams::default()
        };
        let w = clock.plan(Colour::White, none);
        // 60000/30 + 750 = 2750 base: soft 1650, hard 8250.
        assert_eq!(w.soft, Some(ms(1650)));
        assert_eq!(w.hard, Some(ms(8250)));
        let b = clock.plan(Colour::Black, none);
        assert!(b.hard.is_some_and(|h| h <= ms(800)));
        assert_eq!(
            GoParams::default().plan(Colour::White, none),
            TimePlan::default()
        );
        let last = GoParams {
            time: [Some(ms(1000)), None],
            moves_to_go: Some(1),
            ..GoParams::default()
        };
        assert_eq!(last.plan(Colour::White, none).hard, Some(ms(800)));
        let c = SearchControl::new();
        c.arm(Some(5), w);
        assert_eq!(c.max_depth(), 5);
        assert_eq!(c.hard_ms(), Some(8250));
        c.stop();
        assert!(c.stop_requested());
        c.arm(None, TimePlan::default());
        assert!(!c.stop_requested() && c.soft_ms().is_none());
        c.adjust_depth(Some(3));
        c.init(Some(9), w);
        assert_eq!((c.max_depth(), c.hard_ms()), (3, Some(8250)));
    }
}
