//! The search: iterative deepening alpha-beta over legal moves.
//!
//! * [`searcher`]: principal variation search with aspiration windows, a transposition table
//!   ([`tt`]), null-move pruning, late-move reductions, futility pruning, check and single-reply
//!   extensions, a quiescence search over captures ordered and pruned by static exchange
//!   ([`see`]), killer and history move ordering ([`ordering`]), mate scores ([`value`]) and draw
//!   detection (repetition against the game's history, fifty moves, insufficient material).
//! * [`bonus`]: the advice program's move bonuses, decayed along the line as Nimzo did.
//! * [`time`]: UCI limits, deadlines, and the stop flag shared with other threads.
//!
//! The search is single-threaded and allocation-free per node; it is given everything it reads
//! (evaluation parameters, bonuses, an optional per-leaf hook) through [`SearchContext`].

pub mod bonus;
pub mod ordering;
pub mod searcher;
pub mod see;
pub mod time;
pub mod tt;
pub mod value;

pub use bonus::MoveBonuses;
pub use ordering::History;
pub use searcher::{
    run, LeafHook, Report, SearchContext, SearchOptions, SearchResult, SearchSetup, SearchState,
};
pub use time::{GoParams, SearchControl, TimePlan};
pub use tt::TranspositionTable;

/// Something the engine has to say while it works.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineEvent {
    /// A finished iteration (UCI `info depth ...`).
    Report(Report),
    /// A remark for the user (UCI `info string ...`).
    Note(String),
}
