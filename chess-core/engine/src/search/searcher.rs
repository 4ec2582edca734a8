//! Iterative deepening principal variation search.
//!
//! Each iteration searches the root one ply deeper, inside an aspiration window around the last
//! score (widened on failure), reusing the previous iterations through the transposition table,
//! the root move order and the history scores. Below the root a node tries, in order: draw rules,
//! mate-distance pruning, a transposition-table cut-off, reverse futility ("static null move")
//! pruning, a null-move search, and then the moves, best-ordered first. The first move gets a full
//! window; later ones a null window, reduced for late quiet moves (LMR) and searched again at full
//! depth and window when they surprise. Quiet moves near the horizon that cannot reach alpha are
//! skipped (futility, late-move pruning). Checks extend the line one ply, as does a single legal
//! reply or a mate threat revealed by the null move (when the style switches say so). At the
//! horizon a quiescence search resolves captures.
//!
//! Advice enters in three places: the static evaluation (square bonuses, piece values, control
//! weights and styles, all inside [`EvalParams`]), move bonuses on the edges of the tree (decayed
//! with the ply, [`MoveBonuses`]) and in move ordering, and the optional per-leaf [`LeafHook`].

use super::bonus::MoveBonuses;
use super::ordering::{
    is_bad_capture_score, is_tactical, History, Killers, OrderingContext, Picker,
};
use super::see::{captured_value, SEE_VALUE};
use super::time::SearchControl;
use super::tt::{Bound, Entry, TranspositionTable};
use super::value::{
    from_tt, is_mate, mated_in, to_tt, with_bonus, without_bonus, DRAW, INFINITE, MATE, MATE_BOUND,
    MAX_PLY,
};
use crate::eval::{EvalParams, Evaluator};
use chess_core::chess_move::Move;
use chess_core::movelist::MoveList;
use chess_core::piece::PieceKind;
use chess_core::position::Position;
use std::time::{Duration, Instant};

/// A per-leaf evaluation supplied from outside (the advice program's `Evaluate()` hook in
/// `AdviceMode node`): centipawns for the side to move, added to the static evaluation.
pub trait LeafHook {
    /// The hook's value for `pos`, or `None` when it failed (the search then stops calling it).
    fn evaluate(&mut self, pos: &Position) -> Option<i32>;

    /// The evaluation the search uses at `pos`, `ply` plies below the root, given the engine's
    /// own `static_eval` there; `None` when the hook failed. By default the hook's value (clamped
    /// to +-10,000) is added to the static evaluation; an endgame program's value replaces it
    /// (see `crate::endgame`).
    fn leaf(&mut self, pos: &Position, ply: usize, static_eval: i32) -> Option<i32> {
        let _ = ply;
        self.evaluate(pos)
            .map(|x| static_eval.saturating_add(x.clamp(-10_000, 10_000)))
    }
}

/// Switches of the search that are not style parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchOptions {
    /// Null-move pruning.
    pub null_move: bool,
    /// Late-move reductions.
    pub lmr: bool,
    /// Choose at random among root moves scoring at least the best score minus the margin:
    /// `Some((seed, margin))`.
    pub random: Option<(u64, i32)>,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            null_move: true,
            lmr: true,
            random: None,
        }
    }
}

/// What the engine keeps from one search to the next and lends to each:
/// the transposition table, the evaluator (its pawn cache), the history
/// scores and the advice move bonuses of the current root.
pub struct SearchState {
    /// The transposition table.
    pub tt: TranspositionTable,
    /// The evaluator.
    pub eval: Evaluator,
    /// History scores.
    pub history: History,
    /// Advice move bonuses for the current root.
    pub bonuses: MoveBonuses,
}

impl SearchState {
    /// Empty state with a transposition table of `hash_mb` megabytes.
    pub fn new(hash_mb: usize) -> SearchState {
        SearchState {
            tt: TranspositionTable::new(hash_mb),
            eval: Evaluator::new(),
            history: History::default(),
            bonuses: MoveBonuses::new(),
        }
    }

    /// The context of one search: this state with the root's evaluation
    /// parameters, the leaf hook (if any) and the control.
    pub fn context<'a>(
        &'a mut self,
        params: &'a EvalParams,
        hook: Option<&'a mut dyn LeafHook>,
        control: &'a SearchControl,
    ) -> SearchContext<'a> {
        SearchContext {
            tt: &mut self.tt,
            eval: &mut self.eval,
            history: &mut self.history,
            params,
            bonuses: &self.bonuses,
            hook,
            control,
        }
    }
}

/// The engine state a search borrows.
pub struct SearchContext<'a> {
    /// The transposition table.
    pub tt: &'a mut TranspositionTable,
    /// The evaluator (its pawn cache).
    pub eval: &'a mut Evaluator,
    /// History scores, kept between searches.
    pub history: &'a mut History,
    /// Evaluation parameters for this root.
    pub params: &'a EvalParams,
    /// Advice move bonuses for this root.
    pub bonuses: &'a MoveBonuses,
    /// The per-leaf hook, if any.
    pub hook: Option<&'a mut dyn LeafHook>,
    /// Stop flag and live limits.
    pub control: &'a SearchControl,
}

/// What to search.
#[derive(Clone, Debug, Default)]
pub struct SearchSetup {
    /// The root position.
    pub root: Position,
    /// Hashes of the game's positions before the root, oldest first (for repetitions).
    pub history: Vec<u64>,
    /// Stop after this many nodes.
    pub node_limit: Option<u64>,
    /// Stop once a mate in this many moves (or fewer) is found.
    pub mate: Option<u32>,
    /// Do not return before a stop request, even when the depth limit is reached.
    pub infinite: bool,
    /// Search only these root moves (empty: all).
    pub search_moves: Vec<Move>,
    /// Search switches.
    pub options: SearchOptions,
}

/// One completed iteration (or a changed best line), for `info` lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// Nominal depth.
    pub depth: u32,
    /// Deepest ply reached.
    pub seldepth: u32,
    /// Score for the side to move at the root.
    pub score: i32,
    /// `Some(Bound::Lower/Upper)` when the score is only a bound (aspiration failure).
    pub bound: Option<Bound>,
    /// Nodes searched so far.
    pub nodes: u64,
    /// Time since the search started.
    pub elapsed: Duration,
    /// Permille of the hash table in use.
    pub hashfull: u32,
    /// The principal variation.
    pub pv: Vec<Move>,
}

/// The outcome of a search.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchResult {
    /// The move to play (`None` when there is no legal move).
    pub best: Option<Move>,
    /// The expected reply.
    pub ponder: Option<Move>,
    /// The best move's score for the side to move.
    pub score: i32,
    /// The last completed depth.
    pub depth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// Time taken.
    pub elapsed: Duration,
    /// The principal variation of the last completed iteration.
    pub pv: Vec<Move>,
    /// Number of root moves judged equally good when a random choice was made (1 otherwise).
    pub choices: usize,
    /// Whether the per-leaf hook failed during the search (and was dropped).
    pub hook_failed: bool,
    /// Whether the move came from the opening book (no search was made).
    pub book: bool,
}

/// A root move with its latest score.
#[derive(Clone, Copy, Debug)]
struct RootMove {
    mv: Move,
    score: i32,
}

/// Margins of futility pruning one and two plies before the horizon.
const FUTILITY_MARGIN: [i32; 3] = [0, 150, 400];
/// Margin per ply of reverse futility pruning.
const REVERSE_FUTILITY_MARGIN: i32 = 90;
/// How often (in nodes) the clock and the stop flag are looked at.
const CHECK_INTERVAL: u64 = 1024;
/// Quiet moves remembered per node for history penalties.
const MAX_QUIETS: usize = 64;

/// Late-move reduction in plies for remaining depth `d` and move number `n`.
fn lmr_table() -> Box<[[u8; 64]; 64]> {
    let mut t = Box::new([[0u8; 64]; 64]);
    for (d, row) in t.iter_mut().enumerate().skip(1) {
        for (n, r) in row.iter_mut().enumerate().skip(1) {
            let v = 0.75 + (d as f64).ln() * (n as f64).ln() / 2.25;
            *r = v.clamp(0.0, 20.0) as u8;
        }
    }
    t
}

/// A small deterministic generator for the random move choice (xorshift64*).
pub(crate) fn next_random(state: &mut u64) -> u64 {
    let mut x = *state;
    if x == 0 {
        x = 0x9E37_79B9_7F4A_7C15;
    }
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    x.wrapping_mul(0x2545_F491_4F6C_DD1D)
}

struct Searcher<'a, 'r> {
    tt: &'a mut TranspositionTable,
    eval: &'a mut Evaluator,
    history: &'a mut History,
    params: &'a EvalParams,
    bonuses: &'a MoveBonuses,
    hook: Option<&'a mut dyn LeafHook>,
    control: &'a SearchControl,
    report: &'r mut dyn FnMut(&Report),
    options: SearchOptions,
    node_limit: u64,
    killers: Box<Killers>,
    lmr: Box<[[u8; 64]; 64]>,
    /// Hashes of the positions from the game's start to the current node's parent.
    path: Vec<u64>,
    /// Index in `path` of the root position (entries before it are game history).
    root_index: usize,
    /// Index in `path` after the last null move of the current line (0 if none).
    null_floor: usize,
    pv: Box<[[Move; MAX_PLY + 1]; MAX_PLY + 1]>,
    pv_len: [usize; MAX_PLY + 1],
    nodes: u64,
    seldepth: usize,
    root_depth: i32,
    start: Instant,
    stopped: bool,
    hook_failed: bool,
}

/// Runs a search on `setup.root`, calling `report` after every iteration.
pub fn run(
    ctx: SearchContext<'_>,
    setup: &SearchSetup,
    report: &mut dyn FnMut(&Report),
) -> SearchResult {
    let mut path = Vec::with_capacity(setup.history.len() + MAX_PLY + 2);
    path.extend_from_slice(&setup.history);
    let root_index = path.len();
    let mut s = Searcher {
        tt: ctx.tt,
        eval: ctx.eval,
        history: ctx.history,
        params: ctx.params,
        bonuses: ctx.bonuses,
        hook: ctx.hook,
        control: ctx.control,
        report,
        options: setup.options,
        node_limit: setup.node_limit.unwrap_or(u64::MAX),
        killers: Box::default(),
        lmr: lmr_table(),
        path,
        root_index,
        null_floor: 0,
        pv: Box::new(
            [[Move::normal(chess_core::Square::A1, chess_core::Square::A1); MAX_PLY + 1];
                MAX_PLY + 1],
        ),
        pv_len: [0; MAX_PLY + 1],
        nodes: 0,
        seldepth: 0,
        root_depth: 0,
        start: Instant::now(),
        stopped: false,
        hook_failed: false,
    };
    s.tt.new_search();
    s.eval.new_search();
    s.history.age();
    let result = s.iterate(setup);
    SearchResult {
        hook_failed: s.hook_failed,
        ..result
    }
}

impl Searcher<'_, '_> {
    // ----- driver -----

    fn iterate(&mut self, setup: &SearchSetup) -> SearchResult {
        let root = setup.root;
        let legal = root.legal_moves();
        let mut root_moves: Vec<RootMove> = legal
            .iter()
            .filter(|m| setup.search_moves.is_empty() || setup.search_moves.contains(m))
            .map(|&mv| RootMove {
                mv,
                score: -INFINITE,
            })
            .collect();
        if root_moves.is_empty() {
            let score = if root.is_check() { mated_in(0) } else { DRAW };
            self.wait_if_infinite(setup);
            return SearchResult {
                score,
                elapsed: self.start.elapsed(),
                choices: 0,
                ..SearchResult::default()
            };
        }
        // Initial order: the table's move, then by the usual ordering.
        {
            let mut list = MoveList::new();
            for rm in &root_moves {
                list.push(rm.mv);
            }
            let ctx = OrderingContext {
                tt_move: self.tt.probe(root.hash()).and_then(|e| e.mv),
                killers: [None; 2],
                history: self.history,
                bonuses: self.bonuses,
                ply: 0,
            };
            let mut picker = Picker::new(&root, &list, &ctx);
            let mut ordered = Vec::with_capacity(root_moves.len());
            while let Some((mv, _)) = picker.next_move() {
                ordered.push(RootMove {
                    mv,
                    score: -INFINITE,
                });
            }
            root_moves = ordered;
        }

        let mut best = SearchResult {
            best: Some(root_moves[0].mv),
            pv: vec![root_moves[0].mv],
            choices: 1,
            ..SearchResult::default()
        };
        let mut score = 0;
        let mut depth: i32 = 0;
        loop {
            depth += 1;
            if depth as u32 > self.control.max_depth() || depth >= MAX_PLY as i32 - 8 {
                break;
            }
            self.root_depth = depth;
            self.seldepth = 0;
            let mut delta = 25;
            let (mut alpha, mut beta) = if depth >= 4 && !is_mate(score) {
                (score - delta, score + delta)
            } else {
                (-INFINITE, INFINITE)
            };
            let iteration_score = loop {
                let v = self.root_search(&root, &mut root_moves, depth, alpha, beta);
                if self.stopped {
                    break v;
                }
                if v <= alpha {
                    self.emit(depth, v, Some(Bound::Upper), &root_moves);
                    beta = (alpha + beta) / 2;
                    alpha = (v - delta).max(-INFINITE);
                } else if v >= beta {
                    self.emit(depth, v, Some(Bound::Lower), &root_moves);
                    beta = (v + delta).min(INFINITE);
                } else {
                    break v;
                }
                delta += delta;
                if delta > 1000 {
                    alpha = -INFINITE;
                    beta = INFINITE;
                }
            };
            if self.stopped {
                // A move that beat the last iteration's best before the stop is better still.
                let first = root_moves[0];
                if Some(first.mv) != best.best && first.score > best.score && depth > 1 {
                    best.best = Some(first.mv);
                    best.score = first.score;
                    best.pv = vec![first.mv];
                }
                break;
            }
            score = iteration_score;
            best.best = Some(root_moves[0].mv);
            best.score = score;
            best.depth = depth as u32;
            best.pv = self.pv[0][..self.pv_len[0]].to_vec();
            if best.pv.first() != Some(&root_moves[0].mv) {
                best.pv = vec![root_moves[0].mv];
            }
            self.emit(depth, score, None, &root_moves);

            if let Some(m) = setup.mate {
                if score >= MATE_BOUND && super::value::mate_moves(score) <= m as i32 {
                    break;
                }
            }
            let elapsed = self.start.elapsed().as_millis() as u64;
            if !setup.infinite {
                if self.control.soft_ms().is_some_and(|soft| elapsed >= soft) {
                    break;
                }
                // A forced line needs no more time; neither does a proven mate.
                if self.control.soft_ms().is_some() && root_moves.len() == 1 {
                    break;
                }
                if is_mate(score)
                    && depth >= (MATE - score.abs()) + 4
                    && self.control.soft_ms().is_some()
                {
                    break;
                }
            }
        }

        if let (Some((seed, margin)), false) = (self.options.random, is_mate(best.score)) {
            if best.depth >= 1 && root_moves.len() > 1 {
                self.choose_at_random(&root, &root_moves, &mut best, seed, margin);
            }
        }
        self.wait_if_infinite(setup);
        best.ponder = best.pv.get(1).copied();
        best.nodes = self.nodes;
        best.elapsed = self.start.elapsed();
        best
    }

    /// In `go infinite` the answer waits for `stop`.
    fn wait_if_infinite(&self, setup: &SearchSetup) {
        if setup.infinite {
            while !self.control.stop_requested() {
                std::thread::sleep(Duration::from_millis(2));
            }
        }
    }

    fn emit(&mut self, depth: i32, score: i32, bound: Option<Bound>, root_moves: &[RootMove]) {
        let mut pv: Vec<Move> = self.pv[0][..self.pv_len[0]].to_vec();
        if pv.first() != root_moves.first().map(|r| &r.mv) {
            pv = root_moves.first().map(|r| vec![r.mv]).unwrap_or_default();
        }
        let report = Report {
            depth: depth as u32,
            seldepth: self.seldepth.max(depth as usize) as u32,
            score,
            bound,
            nodes: self.nodes,
            elapsed: self.start.elapsed(),
            hashfull: self.tt.hashfull(),
            pv,
        };
        (self.report)(&report);
    }

    /// Tests the other root moves against the best score minus `margin` with null-window searches
    /// at the last completed depth and picks one of those that pass at random.
    fn choose_at_random(
        &mut self,
        root: &Position,
        root_moves: &[RootMove],
        best: &mut SearchResult,
        seed: u64,
        margin: i32,
    ) {
        let target = best.score - margin.max(0);
        let depth = best.depth as i32;
        let us = root.side_to_move();
        let mut candidates = vec![root_moves[0].mv];
        for rm in &root_moves[1..] {
            if self.control.stop_requested() {
                break;
            }
            let child = root.after(rm.mv);
            let ext = i32::from(child.is_check());
            let b = self.bonuses.at(us, rm.mv, 0);
            let t = without_bonus(target, b);
            self.path.push(root.hash());
            let v = with_bonus(
                -self.search(&child, depth - 1 + ext, -t, -t + 1, 1, false, true),
                b,
            );
            self.path.pop();
            if self.stopped {
                self.stopped = false;
                break;
            }
            if v >= target {
                candidates.push(rm.mv);
            }
        }
        let mut state = seed ^ root.hash();
        let pick = (next_random(&mut state) % candidates.len() as u64) as usize;
        let chosen = candidates[pick];
        best.choices = candidates.len();
        if Some(chosen) != best.best {
            best.best = Some(chosen);
            best.pv = vec![chosen];
        }
    }

    // ----- bookkeeping -----

    /// True when the search must stop (checked at every node; the clock every few nodes).
    #[inline]
    fn should_stop(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        if self.nodes >= self.node_limit {
            self.stopped = true;
            return true;
        }
        if self.nodes % CHECK_INTERVAL == 0 {
            // The depth limit may have been lowered while searching (the terminal's `depth`).
            let stop = self.control.stop_requested()
                || self.root_depth as u32 > self.control.max_depth()
                || self
                    .control
                    .hard_ms()
                    .is_some_and(|hard| self.start.elapsed().as_millis() as u64 >= hard);
            // Depth 1 is always finished so that there is a move to play.
            if stop && (self.root_depth > 1 || self.control.stop_requested()) {
                self.stopped = true;
            }
        }
        self.stopped
    }

    #[inline]
    fn evaluate(&mut self, pos: &Position, ply: usize) -> i32 {
        let mut v = self.eval.evaluate(pos, self.params);
        if let Some(hook) = self.hook.as_deref_mut() {
            match hook.leaf(pos, ply, v) {
                Some(x) => v = x,
                None => {
                    self.hook = None;
                    self.hook_failed = true;
                }
            }
        }
        v.clamp(-MATE_BOUND + 1, MATE_BOUND - 1)
    }

    /// Draw by rule at a node below the root: insufficient material, fifty moves (unless this
    /// is mate), or a repetition (of a position in the search, or a third occurrence counting the
    /// game before the root).
    fn is_draw(&self, pos: &Position) -> bool {
        if pos.is_insufficient_material() {
            return true;
        }
        if pos.halfmove_clock() >= 100 && (!pos.is_check() || pos.has_legal_move()) {
            return true;
        }
        let len = self.path.len();
        // Positions before a null move in the line cannot repeat (the null move is no move).
        let reach = (pos.halfmove_clock() as usize).min(len - self.null_floor.min(len));
        let key = pos.hash();
        let mut earlier = 0;
        let mut back = 4;
        while back <= reach {
            let j = len - back;
            if self.path[j] == key {
                if j >= self.root_index {
                    return true;
                }
                earlier += 1;
                if earlier >= 2 {
                    return true;
                }
            }
            back += 2;
        }
        false
    }

    fn update_pv(&mut self, ply: usize, mv: Move) {
        let child_len = self.pv_len.get(ply + 1).copied().unwrap_or(ply + 1);
        self.pv[ply][ply] = mv;
        for i in ply + 1..child_len.min(MAX_PLY) {
            self.pv[ply][i] = self.pv[ply + 1][i];
        }
        self.pv_len[ply] = child_len.max(ply + 1).min(MAX_PLY);
    }

    // ----- the root -----

    fn root_search(
        &mut self,
        root: &Position,
        root_moves: &mut [RootMove],
        depth: i32,
        mut alpha: i32,
        beta: i32,
    ) -> i32 {
        let us = root.side_to_move();
        let key = root.hash();
        let mut best = -INFINITE;
        let mut best_index = 0;
        self.pv_len[0] = 0;
        self.killers.clear_ply(1);
        for (i, root_move) in root_moves.iter_mut().enumerate() {
            let mv = root_move.mv;
            let child = root.after(mv);
            let ext = i32::from(child.is_check());
            let b = self.bonuses.at(us, mv, 0);
            self.path.push(key);
            let mut score;
            if i == 0 {
                score = with_bonus(
                    -self.search(
                        &child,
                        depth - 1 + ext,
                        -without_bonus(beta, b),
                        -without_bonus(alpha, b),
                        1,
                        true,
                        true,
                    ),
                    b,
                );
            } else {
                let a = without_bonus(alpha, b);
                score = with_bonus(
                    -self.search(&child, depth - 1 + ext, -a - 1, -a, 1, false, true),
                    b,
                );
                if score > alpha && score < beta && !self.stopped {
                    score = with_bonus(
                        -self.search(
                            &child,
                            depth - 1 + ext,
                            -without_bonus(beta, b),
                            -a,
                            1,
                            true,
                            true,
                        ),
                        b,
                    );
                }
            }
            self.path.pop();
            if self.stopped {
                break;
            }
            root_move.score = if i == 0 || score > alpha {
                score
            } else {
                -INFINITE
            };
            best = best.max(score);
            if score > alpha {
                best_index = i;
                alpha = score;
                self.update_pv(0, mv);
                if score >= beta {
                    break;
                }
            }
        }
        // The best move goes first; the others keep their order.
        root_moves[..=best_index].rotate_right(1);
        if !self.stopped {
            self.tt.store(
                key,
                Entry {
                    mv: Some(root_moves[0].mv),
                    score: to_tt(best, 0),
                    eval: 0,
                    depth,
                    bound: if best >= beta {
                        Bound::Lower
                    } else {
                        Bound::Exact
                    },
                },
            );
        }
        best
    }

    // ----- interior nodes -----

    #[allow(clippy::too_many_arguments)]
    fn search(
        &mut self,
        pos: &Position,
        depth: i32,
        mut alpha: i32,
        mut beta: i32,
        ply: usize,
        pv_node: bool,
        allow_null: bool,
    ) -> i32 {
        if ply <= MAX_PLY {
            self.pv_len[ply] = ply;
        }
        if depth <= 0 {
            return self.qsearch(pos, alpha, beta, ply);
        }
        if self.should_stop() {
            return 0;
        }
        self.nodes += 1;
        self.seldepth = self.seldepth.max(ply);
        if ply >= MAX_PLY - 1 {
            return self.evaluate(pos, ply);
        }
        if self.is_draw(pos) {
            return DRAW;
        }
        // Mate-distance pruning: no line from here can beat a mate already found nearer the root.
        alpha = alpha.max(mated_in(ply));
        beta = beta.min(MATE - ply as i32 - 1);
        if alpha >= beta {
            return alpha;
        }

        let original_alpha = alpha;
        let us = pos.side_to_move();
        let in_check = pos.is_check();
        let key = pos.hash();
        let entry = self.tt.probe(key);
        let tt_move = entry.and_then(|e| e.mv);
        if let Some(e) = entry {
            if !pv_node && e.depth >= depth {
                let s = from_tt(e.score, ply);
                match e.bound {
                    Bound::Exact => return s,
                    Bound::Lower if s >= beta => return s,
                    Bound::Upper if s <= alpha => return s,
                    _ => {}
                }
            }
        }
        // (The table's stored evaluation is not reused: it may come from a search with other
        // advice, and the leaf hook must see every evaluation.)
        let static_eval = if in_check {
            -INFINITE
        } else {
            self.evaluate(pos, ply)
        };

        // Reverse futility: far above beta near the horizon, assume a quiet move keeps it there.
        if !pv_node
            && !in_check
            && depth <= 3
            && !is_mate(beta)
            && static_eval - REVERSE_FUTILITY_MARGIN * depth >= beta
        {
            return static_eval;
        }

        // Null move: if passing still beats beta, a real move will too.
        let mut threat = false;
        if self.options.null_move
            && allow_null
            && !pv_node
            && !in_check
            && depth >= 2
            && static_eval >= beta
            && !is_mate(beta)
            && has_officers(pos)
        {
            // The null search keeps at least one ply of its own, so that a quiet mate the
            // opponent threatens (which the quiescence search would not see) stops the pruning.
            let r = (2 + depth / 4 + ((static_eval - beta) / 200).min(2)).min(depth - 2);
            let mut child = *pos;
            child.play_null();
            self.path.push(key);
            let floor = std::mem::replace(&mut self.null_floor, self.path.len());
            let s = -self.search(
                &child,
                depth - 1 - r,
                -beta,
                -beta + 1,
                ply + 1,
                false,
                false,
            );
            self.null_floor = floor;
            self.path.pop();
            if self.stopped {
                return 0;
            }
            if s >= beta {
                return if is_mate(s) { beta } else { s };
            }
            threat = self.params.switches.threat_extension && s <= -MATE_BOUND;
        }

        let moves = pos.legal_moves();
        if moves.is_empty() {
            return if in_check { mated_in(ply) } else { DRAW };
        }
        let may_extend = ply < 2 * self.root_depth.max(1) as usize;
        let node_extension = i32::from(
            may_extend
                && (threat || (self.params.switches.single_reply_extension && moves.len() == 1)),
        );

        let ctx = OrderingContext {
            tt_move,
            killers: self.killers.get(ply),
            history: self.history,
            bonuses: self.bonuses,
            ply,
        };
        let mut picker = Picker::new(pos, &moves, &ctx);
        let killers = ctx.killers;
        self.killers.clear_ply(ply + 1);

        let mut best = -INFINITE;
        let mut best_move = None;
        let mut searched = 0usize;
        let mut quiets = [Move::normal(chess_core::Square::A1, chess_core::Square::A1); MAX_QUIETS];
        let mut quiet_count = 0;

        while let Some((mv, order)) = picker.next_move() {
            // Asked before the move is played: a move pruned below is never played.
            let gives_check = pos.gives_check(mv);
            let quiet = !is_tactical(pos, mv);

            if !pv_node && !in_check && searched > 0 && best > -MATE_BOUND && !gives_check {
                if quiet {
                    let switches = self.params.switches;
                    let futile = match depth {
                        1 => switches.futility1,
                        2 => switches.futility2,
                        _ => false,
                    };
                    if futile && static_eval + FUTILITY_MARGIN[depth as usize] <= alpha {
                        continue;
                    }
                    if depth <= 3 && searched as i32 >= 4 + 3 * depth * depth {
                        continue;
                    }
                } else if depth <= 2 && is_bad_capture_score(order) {
                    continue;
                }
            }

            let child = pos.after(mv);
            let extension = node_extension.max(i32::from(gives_check && may_extend));
            let new_depth = depth - 1 + extension;
            let b = self.bonuses.at(us, mv, ply);
            self.path.push(key);
            let score = if searched == 0 {
                with_bonus(
                    -self.search(
                        &child,
                        new_depth,
                        -without_bonus(beta, b),
                        -without_bonus(alpha, b),
                        ply + 1,
                        pv_node,
                        true,
                    ),
                    b,
                )
            } else {
                let mut r = 0;
                if self.options.lmr
                    && depth >= 3
                    && searched >= 2
                    && quiet
                    && !in_check
                    && !gives_check
                    && Some(mv) != killers[0]
                    && Some(mv) != killers[1]
                {
                    r = i32::from(self.lmr[depth.min(63) as usize][searched.min(63)]);
                    if pv_node {
                        r -= 1;
                    }
                    if self.history.get(us, mv) > super::ordering::HISTORY_MAX / 2 {
                        r -= 1;
                    }
                    r = r.clamp(0, (new_depth - 1).max(0));
                }
                let a = without_bonus(alpha, b);
                let mut s = with_bonus(
                    -self.search(&child, new_depth - r, -a - 1, -a, ply + 1, false, true),
                    b,
                );
                if s > alpha && r > 0 && !self.stopped {
                    s = with_bonus(
                        -self.search(&child, new_depth, -a - 1, -a, ply + 1, false, true),
                        b,
                    );
                }
                if pv_node && s > alpha && s < beta && !self.stopped {
                    s = with_bonus(
                        -self.search(
                            &child,
                            new_depth,
                            -without_bonus(beta, b),
                            -a,
                            ply + 1,
                            true,
                            true,
                        ),
                        b,
                    );
                }
                s
            };
            self.path.pop();
            if self.stopped {
                return 0;
            }
            searched += 1;

            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    best_move = Some(mv);
                    if pv_node {
                        self.update_pv(ply, mv);
                    }
                    if score >= beta {
                        if quiet {
                            self.killers.store(ply, mv);
                            let bonus = depth * depth;
                            self.history.update(us, mv, bonus);
                            for &q in &quiets[..quiet_count] {
                                self.history.update(us, q, -bonus);
                            }
                        }
                        break;
                    }
                }
            }
            if quiet && quiet_count < MAX_QUIETS {
                quiets[quiet_count] = mv;
                quiet_count += 1;
            }
        }

        let bound = if best >= beta {
            Bound::Lower
        } else if best > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.tt.store(
            key,
            Entry {
                mv: best_move,
                score: to_tt(best, ply),
                eval: if in_check { 0 } else { static_eval },
                depth,
                bound,
            },
        );
        best
    }

    // ----- quiescence -----

    fn qsearch(&mut self, pos: &Position, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        if self.should_stop() {
            return 0;
        }
        self.nodes += 1;
        self.seldepth = self.seldepth.max(ply);
        if ply >= MAX_PLY - 1 {
            return self.evaluate(pos, ply);
        }
        if pos.is_insufficient_material() {
            return DRAW;
        }
        let us = pos.side_to_move();
        let in_check = pos.is_check();
        let mut best;
        let stand_pat;
        let mut picker;
        if in_check {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                return mated_in(ply);
            }
            stand_pat = -INFINITE;
            best = -INFINITE;
            let ctx = OrderingContext {
                tt_move: None,
                killers: [None; 2],
                history: self.history,
                bonuses: self.bonuses,
                ply,
            };
            picker = Picker::new(pos, &moves, &ctx);
        } else {
            // A side with nothing but king and pawns may be stalemated: the horizon must not
            // mistake that for a win.
            let officers =
                pos.by_colour(us) & !pos.by_kind(PieceKind::Pawn) & !pos.by_kind(PieceKind::King);
            if officers.is_empty() && !pos.has_legal_move() {
                return DRAW;
            }
            stand_pat = self.evaluate(pos, ply);
            if stand_pat >= beta {
                return stand_pat;
            }
            alpha = alpha.max(stand_pat);
            best = stand_pat;
            let mut tactical = MoveList::new();
            chess_core::movegen::legal_tactical_into(pos, &mut tactical);
            picker = Picker::tactical(pos, &tactical);
        }

        while let Some((mv, order)) = picker.next_move() {
            if !in_check {
                if is_bad_capture_score(order) {
                    continue;
                }
                let promotion = mv.promotion_kind().map_or(0, |k| {
                    SEE_VALUE[k.index()] - SEE_VALUE[PieceKind::Pawn.index()]
                });
                if promotion == 0 && stand_pat + captured_value(pos, mv) + 200 <= alpha {
                    continue;
                }
            }
            let child = pos.after(mv);
            let b = self.bonuses.at(us, mv, ply);
            let score = with_bonus(
                -self.qsearch(
                    &child,
                    -without_bonus(beta, b),
                    -without_bonus(alpha, b),
                    ply + 1,
                ),
                b,
            );
            if self.stopped {
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        best
    }
}

/// True if the side to move has a piece other than pawns and king (null-move zugzwang guard).
fn has_officers(pos: &Position) -> bool {
    let us = pos.side_to_move();
    (pos.by_colour(us) & !pos.by_kind(PieceKind::Pawn) & !pos.by_kind(PieceKind::King)).any()
}
