//! The engine: a game, the settings, and a search that obeys the advice program.
//!
//! [`Engine`] is what the UCI loop and the terminal game drive. It holds the game (the start
//! position and the moves since, for repetitions), the options, the transposition table and the
//! advice program. [`Engine::think`] does what Nimzo did before each search: run the program's
//! `main()` on the root position, turn its advice table into evaluation parameters, move bonuses
//! and style settings (falling back to the user's settings for the next root, as section IV.6 of
//! the Che++ document asks), then search, calling the program's `Evaluate()` at every leaf in
//! [`AdviceMode::Node`].
//!
//! The engine is not `Send` (the JIT's compiled code is tied to its thread); the front ends run it
//! on a worker thread ([`crate::worker`]).

use crate::advisor::{AdviceMode, Advisor, FuelBudget};
use crate::book::choose::weighted_choice;
use crate::book::Book;
pub use crate::endgame::EndgameRunError;
use crate::endgame::{EndgameProgram, Progress, RootAt, RootRun, TryLimits, Turn};
use crate::eval::{Breakdown, EvalParams};
use crate::host::AdviceHost;
use crate::native::{NativeAdvice, NativeHook};
use crate::options::{Change, EngineOptions, OptionError};
use crate::search::{
    self, GoParams, Report, SearchControl, SearchOptions, SearchResult, SearchSetup, SearchState,
    TimePlan, TranspositionTable,
};
use chess_core::chess_move::Move;
use chess_core::position::Position;
use cvm_chess::advice_table::AdviceTable;
use cvm_chess::style::{self, STYLE_COUNT};
use std::time::Duration;

pub use crate::search::EngineEvent;

/// Positions of the `bench` command: the six perft positions of the Chess Programming Wiki and
/// six of the Bratko-Kopec test, covering openings, middlegames and endgames.
pub const BENCH_POSITIONS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "3r1k2/4npp1/1ppr3p/p6P/P2PPPP1/1NR5/5K2/2R5 w - - 0 1",
    "r1b2rk1/2q1b1pp/p2ppn2/1p6/3QP3/1BN1B3/PPP3PP/R4RK1 w - - 0 1",
    "2r3k1/pppR1pp1/4p3/4P1P1/5P2/1P4K1/P1P5/8 w - - 0 1",
    "4b3/p3kp2/6p1/3pP2p/2pP1P2/4K1P1/P3N2P/8 w - - 0 1",
    "r3r1k1/ppqb1ppp/8/4p1NQ/8/2P5/PP3PPP/R3R1K1 b - - 0 1",
    "r2q1rk1/4bppp/p2p4/2pP4/3pP3/3Q4/PP1B1PPP/R3R1K1 w - - 0 1",
];

/// The default depth of `bench`.
pub const BENCH_DEPTH: u32 = 10;

/// Totals of a `bench` run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BenchSummary {
    /// Positions searched.
    pub positions: usize,
    /// Nodes searched in all.
    pub nodes: u64,
    /// Time spent searching.
    pub elapsed: Duration,
}

impl BenchSummary {
    /// Nodes per second.
    pub fn nps(&self) -> u64 {
        nps(self.nodes, self.elapsed)
    }
}

/// Nodes per second (0 for no time).
pub fn nps(nodes: u64, elapsed: Duration) -> u64 {
    (u128::from(nodes) * 1_000_000)
        .checked_div(elapsed.as_micros())
        .map_or(0, |v| v as u64)
}

/// The game the engine is playing.
#[derive(Clone, Debug)]
struct GameState {
    start: Position,
    moves: Vec<Move>,
    /// Hashes of the positions before the current one.
    hashes: Vec<u64>,
    current: Position,
}

impl GameState {
    fn new(start: Position) -> GameState {
        GameState {
            start,
            moves: Vec::new(),
            hashes: Vec::new(),
            current: start,
        }
    }
}

/// Megabytes of the transposition table of the endgame program's own lookahead (its searches
/// are a few plies deep).
const ENDGAME_HASH_MB: usize = 2;

/// The chess engine.
pub struct Engine {
    options: EngineOptions,
    /// The transposition table, evaluator, history and bonuses searches share.
    state: SearchState,
    advisor: Option<Advisor>,
    advisor_error: Option<String>,
    /// A Rust twin that stands in for the advice program (measurement only).
    native: Option<Box<dyn NativeAdvice>>,
    host: AdviceHost,
    game: GameState,
    searches: u64,
    book: Option<Book>,
    book_error: Option<String>,
    /// The endgame programs, in the order they are consulted (one, or all of `<all>`).
    endgame: Vec<EndgameProgram>,
    endgame_error: Option<String>,
    /// The search state of the endgame program's own lookahead (created on first use).
    endgame_state: Option<SearchState>,
    /// The endgame programs' values of the game's roots (a following program's window).
    endgame_progress: Progress,
}

impl Engine {
    /// An engine with `options`, at the start position. A program that fails to load leaves the
    /// engine without advice; [`Engine::program_error`] says why.
    pub fn new(options: EngineOptions) -> Engine {
        let start = Position::startpos();
        let mut engine = Engine {
            state: SearchState::new(options.hash_mb),
            advisor: None,
            advisor_error: None,
            native: None,
            host: AdviceHost::new(&start),
            game: GameState::new(start),
            searches: 0,
            book: None,
            book_error: None,
            endgame: Vec::new(),
            endgame_error: None,
            endgame_state: None,
            endgame_progress: Progress::default(),
            options,
        };
        engine.load_program();
        engine.load_endgame();
        engine.load_book();
        engine.sync_style_defaults();
        engine
    }

    /// The current options.
    pub fn options(&self) -> &EngineOptions {
        &self.options
    }

    /// Why the advice program is not loaded, if it is not.
    pub fn program_error(&self) -> Option<&str> {
        self.advisor_error.as_deref()
    }

    /// Lets a Rust twin of the advice program stand in for the CVM program (`None` goes back to
    /// the program): while one is set and `AdviceMode` is not `off`, every search takes its root
    /// advice from [`NativeAdvice::root`] and, in node mode, its leaf values from
    /// [`NativeAdvice::evaluate`], exactly where the program's would go. For the experiment
    /// harness, which measures the advice language against the same knowledge written natively.
    pub fn set_native_advice(&mut self, native: Option<Box<dyn NativeAdvice>>) {
        self.native = native;
    }

    /// The loaded advice program, if any.
    pub fn advisor(&self) -> Option<&Advisor> {
        self.advisor.as_ref()
    }

    fn load_program(&mut self) {
        match Advisor::load(&self.options.program) {
            Ok(mut advisor) => {
                self.advisor_error = advisor
                    .prepare(self.options.backend)
                    .err()
                    .map(|e| e.to_string());
                self.advisor = Some(advisor);
            }
            Err(e) => {
                self.advisor = None;
                self.advisor_error = Some(e.to_string());
            }
        }
    }

    fn load_endgame(&mut self) {
        self.endgame_progress.clear();
        match EndgameProgram::load_set(&self.options.endgame) {
            Ok(mut programs) => {
                let backend = self.options.backend;
                self.endgame_error = programs.iter_mut().find_map(|p| p.prepare(backend).err());
                self.endgame = programs;
            }
            Err(e) => {
                self.endgame = Vec::new();
                self.endgame_error = Some(e);
            }
        }
    }

    /// The loaded endgame program, if any (the first of `<all>`).
    pub fn endgame(&self) -> Option<&EndgameProgram> {
        self.endgame.first()
    }

    /// Every loaded endgame program, in the order they are consulted: a search uses the first
    /// whose ENTRY matches its root.
    pub fn endgames(&self) -> &[EndgameProgram] {
        &self.endgame
    }

    /// Why the endgame program is not loaded (or not prepared for the backend), if it is not.
    pub fn endgame_error(&self) -> Option<&str> {
        self.endgame_error.as_deref()
    }

    fn load_book(&mut self) {
        match Book::load(&self.options.book_file) {
            Ok(book) => {
                self.book = Some(book);
                self.book_error = None;
            }
            Err(e) => {
                self.book = None;
                self.book_error = Some(e.to_string());
            }
        }
    }

    /// Why the opening book is not loaded, if it is not.
    pub fn book_error(&self) -> Option<&str> {
        self.book_error.as_deref()
    }

    /// The book's moves in the current position with their weights (empty without a book).
    pub fn book_moves(&self) -> Vec<(Move, u16)> {
        self.book
            .as_ref()
            .map_or_else(Vec::new, |b| b.moves(&self.game.current))
    }

    /// A move from the book for `go`, when `OwnBook` is on, the search is an ordinary one (not
    /// infinite, not restricted to some moves, not a mate search) and the position is in the
    /// book. The choice is weighted by the book and seeded by `RandomSeed`, the search count and
    /// the position.
    fn book_move(
        &mut self,
        go: &GoParams,
        sink: &mut dyn FnMut(EngineEvent),
    ) -> Option<SearchResult> {
        if !self.options.own_book || go.infinite || go.mate.is_some() || !go.search_moves.is_empty()
        {
            return None;
        }
        let moves = self.book_moves();
        let seed = self.options.random_seed
            ^ self.searches.wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ chess_core::polyglot_key(&self.game.current);
        let mv = weighted_choice(&moves, seed)?;
        let total: u32 = moves.iter().map(|&(_, w)| u32::from(w)).sum();
        let weight = moves.iter().find(|&&(m, _)| m == mv).map_or(0, |&(_, w)| w);
        self.searches += 1;
        sink(EngineEvent::Note(format!(
            "book move {mv} (weight {weight} of {total}, {} book moves)",
            moves.len()
        )));
        Some(SearchResult {
            best: Some(mv),
            pv: vec![mv],
            choices: 1,
            book: true,
            ..SearchResult::default()
        })
    }

    /// `GetStyle` reports the user's settings.
    fn sync_style_defaults(&mut self) {
        for id in 0..STYLE_COUNT as i32 {
            if id != style::ST_LEARNFLG {
                self.host.set_style_default(id, self.options.styles.get(id));
            }
        }
    }

    /// Sets an option and acts on it; returns remarks for the user (such as a program that
    /// failed to load).
    pub fn set_option(&mut self, name: &str, value: &str) -> Result<Vec<String>, OptionError> {
        let old_hash = self.options.hash_mb;
        let change = self.options.set(name, value)?;
        let mut notes = Vec::new();
        match change {
            Change::Plain => self.sync_style_defaults(),
            Change::Hash => {
                if self.options.hash_mb != old_hash {
                    self.state.tt = TranspositionTable::new(self.options.hash_mb);
                }
            }
            Change::ClearHash => self.state.tt.clear(),
            Change::Book => {
                self.load_book();
                match (&self.book_error, &self.book) {
                    (Some(e), _) => notes.push(format!("error: opening book: {e}")),
                    (None, Some(b)) => notes.push(format!(
                        "opening book {} loaded ({} entries)",
                        self.options.book_file,
                        b.entries().len()
                    )),
                    (None, None) => {}
                }
            }
            Change::Endgame => {
                self.load_endgame();
                match (&self.endgame_error, self.endgame.as_slice()) {
                    (Some(e), _) => notes.push(format!("error: endgame program: {e}")),
                    (None, []) => notes.push("endgame program off".to_string()),
                    (None, [p]) => notes.push(format!(
                        "endgame program {} loaded for the {} backend ({} ENTRY lines)",
                        p.source(),
                        self.options.backend,
                        p.program().entries.len()
                    )),
                    (None, all) => notes.push(format!(
                        "endgame programs {} loaded for the {} backend ({} ENTRY lines; a search uses the first that matches)",
                        all.iter().map(|p| p.source().to_string()).collect::<Vec<_>>().join(", "),
                        self.options.backend,
                        all.iter().map(|p| p.program().entries.len()).sum::<usize>()
                    )),
                }
            }
            Change::Program | Change::Backend => {
                if change == Change::Backend && !self.endgame.is_empty() {
                    let backend = self.options.backend;
                    self.endgame_error = self
                        .endgame
                        .iter_mut()
                        .find_map(|p| p.prepare(backend).err());
                    if let Some(e) = &self.endgame_error {
                        notes.push(format!("error: endgame program: {e}"));
                    }
                }
                if change == Change::Program {
                    self.load_program();
                } else if let Some(advisor) = self.advisor.as_mut() {
                    self.advisor_error = advisor
                        .prepare(self.options.backend)
                        .err()
                        .map(|e| e.to_string());
                }
                match (&self.advisor_error, &self.advisor) {
                    (Some(e), _) => notes.push(format!("error: advice program: {e}")),
                    (None, Some(a)) => notes.push(format!(
                        "advice program {} loaded for the {} backend{}",
                        a.source(),
                        self.options.backend,
                        if a.has_hook() {
                            ", with an Evaluate() hook"
                        } else {
                            ""
                        }
                    )),
                    (None, None) => {}
                }
            }
        }
        Ok(notes)
    }

    /// Starts a new game: forgets the transposition table, history scores and the score history
    /// `GetScore` reads.
    pub fn new_game(&mut self) {
        self.state.tt.clear();
        self.state.history.clear();
        if let Some(own) = self.endgame_state.as_mut() {
            own.tt.clear();
            own.history.clear();
        }
        self.endgame_progress.clear();
        self.host.clear_scores();
        self.searches = 0;
        self.game = GameState::new(Position::startpos());
    }

    /// Sets the game to `start` followed by `moves`. Stops at the first illegal move and returns
    /// its index (the position is then the one before it).
    pub fn set_position(&mut self, start: Position, moves: &[Move]) -> Result<(), usize> {
        let mut game = GameState::new(start);
        let mut result = Ok(());
        for (i, &mv) in moves.iter().enumerate() {
            if !game.current.is_legal(mv) {
                result = Err(i);
                break;
            }
            game.hashes.push(game.current.hash());
            game.current.play(mv);
            game.moves.push(mv);
        }
        self.game = game;
        result
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        &self.game.current
    }

    /// The game's starting position.
    pub fn start_position(&self) -> &Position {
        &self.game.start
    }

    /// The moves played since the start position.
    pub fn moves(&self) -> &[Move] {
        &self.game.moves
    }

    /// Searches the current position within `go`'s limits. `control` carries the stop flag (not
    /// reset here: a stop that arrived before the search began is honoured) and receives the
    /// depth limit and deadlines. Events go to `sink` as they happen.
    pub fn think(
        &mut self,
        go: &GoParams,
        control: &SearchControl,
        sink: &mut dyn FnMut(EngineEvent),
    ) -> SearchResult {
        if let Some(result) = self.book_move(go, sink) {
            return result;
        }
        let root = self.game.current;
        let plan = go.plan(
            root.side_to_move(),
            Duration::from_millis(self.options.move_overhead_ms),
        );
        control.init(go.depth.or(go.mate.map(|m| m.saturating_mul(2))), plan);

        let mut search_moves = Vec::new();
        for text in &go.search_moves {
            match root.parse_uci(text) {
                Ok(mv) => search_moves.push(mv),
                Err(e) => sink(EngineEvent::Note(format!("error: searchmoves: {e}"))),
            }
        }
        self.searches += 1;
        let random = self.options.random.then(|| {
            (
                self.options.random_seed ^ self.searches.wrapping_mul(0x9E37_79B9_7F4A_7C15),
                self.options.random_margin,
            )
        });
        let setup = SearchSetup {
            root,
            history: self.game.hashes.clone(),
            node_limit: go.nodes,
            mate: go.mate,
            infinite: go.infinite,
            search_moves,
            options: SearchOptions {
                null_move: self.options.null_move,
                lmr: self.options.lmr,
                random,
            },
        };

        // The time left on a game clock, after the move overhead.
        let left = match (go.infinite, go.move_time) {
            (false, None) => go.time[root.side_to_move().index()]
                .map(|t| t.saturating_sub(Duration::from_millis(self.options.move_overhead_ms))),
            _ => None,
        };
        if let Some(result) = self.endgame_search(&setup, (plan, left), control, sink) {
            self.host.push_score(result.score);
            return result;
        }

        let mode = self.options.advice_mode;
        let mut notes = Vec::new();
        let result = 'search: {
            if mode == AdviceMode::Off {
                break 'search None;
            }
            if let Some(native) = self.native.as_deref_mut() {
                let mut table = Box::<AdviceTable>::default();
                self.host.set_position(&root);
                native.root(self.host.board_view(), &mut table, &mut |line| {
                    notes.push(format!("che: {line}"));
                });
                if self.options.verbose || table.verbose != 0 {
                    notes.push(suggestions(&root, &table.move_bonus));
                }
                self.state.bonuses.load(&table.move_bonus);
                let params =
                    EvalParams::new(&self.options.styles.with_advice(&table), Some(&table));
                let use_hook = mode == AdviceMode::Node && native.has_hook();
                if mode == AdviceMode::Node && !use_hook {
                    notes.push(format!(
                        "AdviceMode node: the native twin {} has no Evaluate(); advice runs at the root only",
                        native.name()
                    ));
                }
                for n in notes.drain(..) {
                    sink(EngineEvent::Note(n));
                }
                let mut hook = NativeHook {
                    advice: native,
                    host: &mut self.host,
                };
                let mut report = |r: &Report| sink(EngineEvent::Report(r.clone()));
                let ctx = self.state.context(
                    &params,
                    if use_hook { Some(&mut hook) } else { None },
                    control,
                );
                break 'search Some(search::run(ctx, &setup, &mut report));
            }
            {
                let Some(advisor) = self.advisor.as_mut() else {
                    notes.push(format!(
                        "error: advice program not loaded ({}); searching without advice",
                        self.advisor_error.as_deref().unwrap_or("no program")
                    ));
                    break 'search None;
                };
                let mut session = match advisor.session(self.options.backend, &mut self.host) {
                    Ok(s) => s,
                    Err(e) => {
                        notes.push(format!("error: advice program: {e}"));
                        break 'search None;
                    }
                };
                let budget = FuelBudget::for_deadline(plan.hard);
                let params = match session.run_root_within(&root, budget) {
                    Ok(run) => {
                        let table = session.advice();
                        let verbose = self.options.verbose || table.verbose != 0;
                        for line in &run.output {
                            notes.push(format!("che: {line}"));
                        }
                        if verbose {
                            notes.push(suggestions(&root, &table.move_bonus));
                        }
                        self.state.bonuses.load(&table.move_bonus);
                        EvalParams::new(&self.options.styles.with_advice(table), Some(table))
                    }
                    Err(e) => {
                        notes.push(format!(
                            "error: advice program failed at the root ({} units of fuel): {e}; searching without its advice",
                            budget.root
                        ));
                        self.state.bonuses.clear();
                        EvalParams::new(&self.options.styles, None)
                    }
                };
                let use_hook = mode == AdviceMode::Node && session.has_hook();
                if mode == AdviceMode::Node && !use_hook {
                    notes.push(
                        "AdviceMode node: the program has no Evaluate() hook; advice runs at the root only"
                            .to_string(),
                    );
                }
                for n in notes.drain(..) {
                    sink(EngineEvent::Note(n));
                }
                let mut report = |r: &Report| sink(EngineEvent::Report(r.clone()));
                let ctx = self.state.context(
                    &params,
                    if use_hook { Some(&mut session) } else { None },
                    control,
                );
                let result = search::run(ctx, &setup, &mut report);
                if result.hook_failed {
                    notes.push(format!(
                        "error: the Evaluate() hook failed during the search ({} units of fuel a call): {}; it was switched off",
                        budget.node,
                        session.hook_error().unwrap_or("no value")
                    ));
                }
                break 'search Some(result);
            }
        };
        let result = match result {
            Some(r) => r,
            None => {
                self.state.bonuses.clear();
                let params = EvalParams::new(&self.options.styles, None);
                for n in notes.drain(..) {
                    sink(EngineEvent::Note(n));
                }
                let ctx = self.state.context(&params, None, control);
                let mut report = |r: &Report| sink(EngineEvent::Report(r.clone()));
                search::run(ctx, &setup, &mut report)
            }
        };
        for n in notes {
            sink(EngineEvent::Note(n));
        }
        self.host.push_score(result.score);
        result
    }

    /// The endgame program's turn (see [`crate::endgame`]): `None` when there is no program, no
    /// ENTRY matches the root, or the program failed at the root (reported to `sink`); otherwise
    /// the move it answered with, or the engine's search with its values at the nodes.
    fn endgame_search(
        &mut self,
        setup: &SearchSetup,
        (plan, left): (TimePlan, Option<Duration>),
        control: &SearchControl,
        sink: &mut dyn FnMut(EngineEvent),
    ) -> Option<SearchResult> {
        let root = setup.root;
        let backend = self.options.backend;
        if !setup.search_moves.is_empty() {
            return None;
        }
        let index = self.endgame.iter().position(|p| p.matches(&root))?;
        if let Err(e) = self.endgame[index].prepare(backend) {
            sink(EngineEvent::Note(format!(
                "error: endgame program: {e}; searching without it"
            )));
            return None;
        }
        let own = self
            .endgame_state
            .get_or_insert_with(|| SearchState::new(ENDGAME_HASH_MB));
        self.endgame_progress.select(index);
        crate::endgame::search(
            &self.endgame[index],
            (&mut self.state, own),
            backend,
            &self.options.styles,
            setup,
            Turn {
                plan,
                left,
                control,
                progress: &mut self.endgame_progress,
            },
            sink,
        )
    }

    /// The static evaluation of the current position with its parts, under the root advice when
    /// advice is on (for the `eval` command).
    pub fn evaluate(&mut self) -> Breakdown {
        let root = self.game.current;
        let mut params = EvalParams::new(&self.options.styles, None);
        if self.options.advice_mode != AdviceMode::Off {
            if let Some(advisor) = self.advisor.as_mut() {
                if let Ok(mut session) = advisor.session(self.options.backend, &mut self.host) {
                    if session.run_root(&root).is_ok() {
                        let table = session.advice();
                        params =
                            EvalParams::new(&self.options.styles.with_advice(table), Some(table));
                    }
                }
            }
        }
        self.state.eval.breakdown(&root, &params)
    }

    /// Runs the loaded endgame program once at the top level on `pos`, as `che run prog.cheg`
    /// does: TRY, PLAYB and PLAN value each move with the engine's own search, as `go depth
    /// depth` would (`depth - 1` plies below the tried move, at least one), re-entering the
    /// program at the nodes with [`crate::endgame::NODE_FUEL`] units a run; the run itself is
    /// limited to `fuel` units (`None`: no limit). `pos` is the whole game. The report is the
    /// program's (BREAK lines, the move, the value); the engine's position and game are left as
    /// they were.
    pub fn endgame_run(
        &mut self,
        pos: &Position,
        depth: u32,
        fuel: Option<u64>,
    ) -> Result<cheg::Report, EndgameRunError> {
        let (index, at) = self.endgame_root(pos, depth, fuel)?;
        let control = SearchControl::new();
        match crate::endgame::root_run(
            &self.endgame[index],
            &mut self.state,
            (self.options.backend, &self.options.styles),
            at,
            &control,
        ) {
            Ok(RootRun {
                run: Ok(report), ..
            }) => Ok(report),
            Ok(RootRun {
                run: Err(failure), ..
            }) => Err(EndgameRunError::Failed {
                breaks: failure.report.breaks.clone(),
                error: failure.error,
            }),
            Err(e) => Err(EndgameRunError::NoProgram(e)),
        }
    }

    /// Hands `run` the searcher behind TRY, PLAYB and PLAN that [`Engine::endgame_run`] gives
    /// the loaded endgame program on `pos` at `depth`, for a host that runs the program itself
    /// (a debugger stepping through it): the moves it tries are valued as `che run` values
    /// them.
    pub fn with_endgame_searcher<R>(
        &mut self,
        pos: &Position,
        depth: u32,
        run: impl FnOnce(&mut dyn cheg::search::Searcher) -> R,
    ) -> Result<R, EndgameRunError> {
        let (index, at) = self.endgame_root(pos, depth, None)?;
        let control = SearchControl::new();
        crate::endgame::root_search(
            &self.endgame[index],
            &mut self.state,
            (self.options.backend, &self.options.styles),
            at,
            &control,
            run,
        )
        .map(|(result, _)| result)
        .map_err(EndgameRunError::NoProgram)
    }

    /// The program of a top-level run on `pos` (the first whose ENTRY matches, prepared for
    /// the backend) and where the run happens.
    fn endgame_root(
        &mut self,
        pos: &Position,
        depth: u32,
        fuel: Option<u64>,
    ) -> Result<(usize, RootAt), EndgameRunError> {
        let backend = self.options.backend;
        if self.endgame.is_empty() {
            return Err(EndgameRunError::NoProgram(
                self.endgame_error
                    .clone()
                    .unwrap_or_else(|| "no endgame program is set".to_string()),
            ));
        }
        let index = self
            .endgame
            .iter()
            .position(|p| p.matches(pos))
            .unwrap_or(0);
        self.endgame[index]
            .prepare(backend)
            .map_err(EndgameRunError::NoProgram)?;
        let limits = TryLimits {
            depth: Some(depth.saturating_sub(1).max(1)),
            ..TryLimits::default()
        };
        let at = RootAt {
            root: *pos,
            game: vec![pos.hash()],
            limits,
            fuel: (fuel, crate::endgame::NODE_FUEL),
            options: SearchSetup::default().options,
        };
        Ok((index, at))
    }

    /// Replaces the endgame program (`None`: none) until the `EndgameProgram` option is set
    /// again; it is prepared for the current backend (the error, if any, is
    /// [`Engine::endgame_error`]). For a program compiled elsewhere, as `che run` does.
    pub fn set_endgame_program(&mut self, program: Option<EndgameProgram>) {
        self.endgame = program.into_iter().collect();
        let backend = self.options.backend;
        self.endgame_error = self
            .endgame
            .iter_mut()
            .find_map(|p| p.prepare(backend).err());
    }

    /// Searches every [`BENCH_POSITIONS`] entry to `depth` from a cleared table, reporting each
    /// position's result through `sink`; the game is restored afterwards.
    pub fn bench(
        &mut self,
        depth: u32,
        control: &SearchControl,
        sink: &mut dyn FnMut(EngineEvent),
    ) -> BenchSummary {
        let saved = self.game.clone();
        self.new_game();
        let mut summary = BenchSummary::default();
        let go = GoParams {
            depth: Some(depth),
            ..GoParams::default()
        };
        for (i, fen) in BENCH_POSITIONS.iter().enumerate() {
            if control.stop_requested() {
                break;
            }
            let Ok(pos) = Position::from_fen(fen) else {
                continue;
            };
            self.game = GameState::new(pos);
            let result = self.think(&go, control, &mut |_| {});
            summary.positions += 1;
            summary.nodes += result.nodes;
            summary.elapsed += result.elapsed;
            sink(EngineEvent::Note(format!(
                "bench position {}/{}: {} nodes, best {}, {}",
                i + 1,
                BENCH_POSITIONS.len(),
                result.nodes,
                result.best.map_or("(none)".to_string(), |m| m.to_string()),
                fen
            )));
        }
        self.game = saved;
        summary
    }
}

/// The advice move bonuses of the side to move's legal moves, best first: what the program
/// suggests.
fn suggestions(root: &Position, table: &[[[i32; 64]; 64]; 2]) -> String {
    let us = root.side_to_move();
    let mut moves: Vec<(Move, i32)> = root
        .legal_moves()
        .iter()
        .map(|&m| (m, table[us.index()][m.from().index()][m.to().index()]))
        .filter(|&(_, b)| b != 0)
        .collect();
    moves.sort_by_key(|&(m, b)| (-b, m.to_string()));
    if moves.is_empty() {
        return "che suggests no move".to_string();
    }
    let list: Vec<String> = moves.iter().map(|(m, b)| format!("{m} {b:+}")).collect();
    format!("che suggests {}", list.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bench_positions_are_valid() {
        for fen in BENCH_POSITIONS {
            assert!(Position::from_fen(fen).is_ok(), "{fen}");
        }
    }

    #[test]
    fn set_position_reports_the_first_illegal_move() {
        let mut e = Engine::new(EngineOptions {
            hash_mb: 1,
            ..EngineOptions::default()
        });
        let p = Position::startpos();
        let e4 = p.parse_uci("e2e4").unwrap();
        let e5 = p.after(e4).parse_uci("e7e5").unwrap();
        assert_eq!(e.set_position(p, &[e4, e5, e4]), Err(2));
        assert_eq!(e.moves().len(), 2);
        assert_eq!(e.position(), &p.after(e4).after(e5));
    }

    #[test]
    fn suggestions_list_the_bonused_moves() {
        let pos = Position::startpos();
        let mut t = [[[0; 64]; 64]; 2];
        t[0][12][28] = 20; // e2e4
        t[0][3][11] = -20; // d1d2: not legal, not listed
        t[0][11][27] = 30; // d2d4
        assert_eq!(suggestions(&pos, &t), "che suggests d2d4 +30 e2e4 +20");
    }
}
