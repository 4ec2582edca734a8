//! CHEG endgame programs inside the engine.
//!
//! In Greenblatt's MIT program an endgame program took over when one of its `ENTRY` lines matched
//! the material on the board. This module does the same for the engine (option
//! `EndgameProgram`, terminal command `endgame`): when an ENTRY matches the root position (read,
//! as CHEG reads every position, from the side to move's point of view), the program runs at the
//! root before any search of the engine's own:
//!
//! * a move answer (PLAY, PLAYB, DONE, RETBET) is played at once;
//! * TRY, PLAYB and PLAN value each move with the engine's own search ([`EngineSearcher`]): the
//!   position after the move is searched to the search's depth minus one, and at every node of
//!   that search where an ENTRY matches the program is run again ([`NodeHook`], DEPTH = the
//!   node's ply from the root + 1; at nodes with the root's side to move and a plan in force, the
//!   run starts at the plan's tag, with the plan variable as X);
//! * the value of VALRET, VALRUT or VALON at a node replaces the engine's static evaluation
//!   there ([`score_of`]: a certain win is 20,000 plus the clamped difference, below mate
//!   scores, above every material score);
//! * the rules of the game come first where the search does not apply them itself: a tried
//!   move or a node that brings back a position the game has had twice is a draw, one the game
//!   has had once keeps half its score ([`return_score`]), and a node without legal moves is
//!   mate or stalemate whatever the program's value;
//! * LEAVE, or a run that ends without a move, hands back: the engine searches as usual, with the
//!   program's values still feeding the evaluation at the nodes where an ENTRY matches.
//!
//! A runtime error or running out of fuel at the root is reported (`info string` under UCI) and
//! the engine searches without the program for that move; one at a node switches the program's
//! values off for the rest of that search, also with a report. The mapping, DEPTH and the cost
//! are documented in `docs/cheg.md` ("The program inside the engine").

use crate::advisor::FuelBudget;
use crate::eval::{EvalParams, StyleSettings};
use crate::search::time::{SearchControl, TimePlan};
use crate::search::value::{MATE, MATE_BOUND};
use crate::search::{
    self, EngineEvent, LeafHook, Report, SearchOptions, SearchResult, SearchSetup, SearchState,
};
use che_pipeline::{Input, ModuleError, ModuleKind, Options};
use cheg::ast::Program as ChegProgram;
use cheg::search::{FixedDepth, Plan, Searched, Searcher, TryMove};
use chess_core::chess_move::Move;
use chess_core::colour::Colour;
use chess_core::position::Position;
use cvm::{Backend, Limits, Program, Vm};
use cvm_frontend::FsLoader;
use jit::Prepared;
use std::collections::HashMap;
use std::fmt;
use std::path::PathBuf;

pub use cheg::runtime::score_of;

const KQK: &str = include_str!("../endgames/kqk.cheg");
const KRK: &str = include_str!("../endgames/krk.cheg");
const KBNK: &str = include_str!("../endgames/kbnk.cheg");
/// The KBNK program's value tables, generated (`che-tablebase`'s example `kbnk_tables`).
const KBNK_TABLES: &str = include_str!("../endgames/kbnk_tables.cheg");
const KPK: &str = include_str!("../endgames/kpk.cheg");
const KPKP: &str = include_str!("../endgames/kpkp.cheg");

/// The endgame programs shipped with the engine: `(name, parts)`. The option value `<name>`
/// selects one (`EndgameProgram <kqk>`). A program of several parts is their sources one after
/// the other, each part's `END` line left out but the last one's ([`builtin_source`]): the
/// first part's ENTRYs come first, and a pawn ending carries the programs of the endings its
/// promotions and captures lead to, so the values stay on one scale after a promotion. The
/// parts use disjoint tags.
pub const BUILTIN: &[(&str, &[&str])] = &[
    ("kqk", &[KQK]),
    ("krk", &[KRK]),
    ("kbnk", &[KBNK, KBNK_TABLES]),
    ("kpk", &[KPK, KQK]),
    ("kpkp", &[KPKP, KPK, KQK]),
];

/// Who chooses the move when a program's ENTRY matches the root and the engine's own search
/// finds no forced mate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// The program's move is played: its values are written (or trained) for its own
    /// [`PROGRAM_DEPTH`]-ply choice and nothing else.
    Plays,
    /// The engine's search chooses, and the program guards it: the engine's move is played
    /// when, by the program's own lookahead, it keeps at least the program's value of the root
    /// or is worth as much as the program's move; otherwise the program's move is played. The
    /// values are progress measures (the KQK and KRK box, the KPK known wins), and a return to
    /// a position of the game keeps only half its value, so the search cannot walk the game
    /// back. Only the side with material is guarded; the bare king's defence is the program's.
    Guards,
    /// As [`Role::Guards`], but while the program's value of the root is higher than it was
    /// [`PROGRESS_WINDOW`] of our moves ago (or the game is shorter), the engine's search gets
    /// the whole move first and its move is played, without the program's lookahead, once it
    /// completed [`TRUSTED_DEPTH`] plies: the engine's deep search with its own evaluation
    /// mates KQK and KRK faster than the program's two-ply measure allows, and the window still
    /// stops it walking round in circles. (The KPK program's known wins are knowledge the
    /// search lacks, so KPK keeps the plain guard.)
    Follows,
}

/// The role of the shipped program `name` ([`Role::Plays`] for any other name). The KBNK
/// program's tables are fitted to its own two-ply choices, which the engine's search alone
/// never finds; the KPKP program is not measured against a table.
pub fn builtin_role(name: &str) -> Role {
    match name {
        "kqk" | "krk" => Role::Follows,
        "kpk" => Role::Guards,
        _ => Role::Plays,
    }
}

/// The source of the shipped program `name` (see [`BUILTIN`]), `None` for an unknown name.
pub fn builtin_source(name: &str) -> Option<String> {
    let (_, parts) = BUILTIN.iter().find(|(n, _)| *n == name)?;
    let mut text = String::new();
    for (i, part) in parts.iter().enumerate() {
        if i + 1 == parts.len() {
            text.push_str(part);
        } else {
            for line in part.lines() {
                if line.trim_end() == "END" {
                    break;
                }
                text.push_str(line);
                text.push('\n');
            }
        }
    }
    Some(text)
}

/// Fuel (calls and backward jumps) for the program's run at the root.
pub const ROOT_FUEL: u64 = 5_000_000;
/// Fuel for one run of the program at a node of the search. The shipped KBNK program's piece
/// check takes up to about 244,000 units at a node (measured with `che run --fuel` on the
/// positions a model of its cost ranks worst; about 28,000 is usual), so a node run has four
/// times that.
pub const NODE_FUEL: u64 = 1_000_000;

/// Where the endgame program comes from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum EndgameSource {
    /// No endgame program (the option's empty value, or `off`).
    #[default]
    Off,
    /// One of [`BUILTIN`], by name.
    Builtin(&'static str),
    /// A `.cheg` file (or a `.cmp`/`.asm` module compiled from CHEG).
    File(PathBuf),
    /// Every program of [`BUILTIN`] at once (`<all>`): each search uses the first, in the order
    /// of [`BUILTIN`], whose ENTRY matches the root.
    All,
}

impl EndgameSource {
    /// Reads the option's value: empty, `off` or `<none>` is [`EndgameSource::Off`], `<name>` a
    /// built-in program (an unknown name is an error), anything else a file.
    pub fn parse(text: &str) -> Result<EndgameSource, String> {
        let t = text.trim();
        if t.is_empty() || t.eq_ignore_ascii_case("off") || t.eq_ignore_ascii_case("<none>") {
            return Ok(EndgameSource::Off);
        }
        if let Some(name) = t.strip_prefix('<').and_then(|r| r.strip_suffix('>')) {
            if name.eq_ignore_ascii_case("all") {
                return Ok(EndgameSource::All);
            }
            return BUILTIN
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(name))
                .map(|(n, _)| EndgameSource::Builtin(n))
                .ok_or_else(|| {
                    let names: Vec<String> =
                        BUILTIN.iter().map(|(n, _)| format!("<{n}>")).collect();
                    format!(
                        "no built-in endgame program {t} (there are {} and <all>)",
                        names.join(", ")
                    )
                });
        }
        Ok(EndgameSource::File(PathBuf::from(t)))
    }
}

impl fmt::Display for EndgameSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EndgameSource::Off => f.write_str("off"),
            EndgameSource::Builtin(n) => write!(f, "<{n}>"),
            EndgameSource::File(p) => write!(f, "{}", p.display()),
            EndgameSource::All => f.write_str("<all>"),
        }
    }
}

/// A loaded, verified endgame program.
pub struct EndgameProgram {
    source: EndgameSource,
    program: ChegProgram,
    verified: Program,
    sources: cheg::SourceMap,
    prepared: Vec<Prepared>,
}

impl fmt::Debug for EndgameProgram {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EndgameProgram")
            .field("source", &self.source)
            .field("entries", &self.program.entries.len())
            .finish_non_exhaustive()
    }
}

impl EndgameProgram {
    /// Loads the program `source` names: `Ok(None)` for [`EndgameSource::Off`], an error with the
    /// rendered diagnostics when it does not compile or load. Source goes through the one
    /// front-end interface (optimized); a `.cmp` or `.asm` module must embed the checked program
    /// (as the CHEG compiler's modules do) and is optimized too.
    pub fn load(source: &EndgameSource) -> Result<Option<EndgameProgram>, String> {
        let options = Options::default();
        let compilation = match source {
            EndgameSource::Off => return Ok(None),
            EndgameSource::All => {
                return Err(
                    "<all> names several programs: load them with EndgameProgram::load_set"
                        .to_string(),
                )
            }
            EndgameSource::Builtin(name) => {
                let text = builtin_source(name)
                    .ok_or_else(|| format!("no built-in endgame program <{name}>"))?;
                let name = format!("<{name}>.cheg");
                let input = Input::Text {
                    name: &name,
                    text: &text,
                };
                che_pipeline::compile(&cheg::CHEG, input, &FsLoader, &options)
            }
            EndgameSource::File(path) => match ModuleKind::of(path) {
                Some(kind) => {
                    let shown = path.display();
                    let file = che_pipeline::read_module(path, kind).map_err(|e| match e {
                        ModuleError::Read(e) => format!("cannot read {shown}: {e}"),
                        e => format!("{shown}: {e}"),
                    })?;
                    let checked = match cheg::embed::from_module(file.module()) {
                        Some(Ok(p)) => p,
                        Some(Err(e)) => return Err(format!("{source}: {e}")),
                        None => return Err(format!("{source} was not compiled from CHEG")),
                    };
                    let verified = file.verify().map_err(|e| format!("{source}: {e}"))?;
                    let (optimized, _) = cvm::opt::optimize(&verified);
                    return Ok(Some(EndgameProgram::from_parts(
                        source.clone(),
                        checked,
                        optimized,
                        cheg::SourceMap::new(),
                    )));
                }
                None => che_pipeline::compile(&cheg::CHEG, Input::File(path), &FsLoader, &options),
            },
        };
        let (Some(verified), Some(checked)) =
            (compilation.program.clone(), cheg::checked(&compilation))
        else {
            return Err(format!(
                "the endgame program {source} does not compile:\n{}",
                compilation.render_diagnostics()
            ));
        };
        Ok(Some(EndgameProgram::from_parts(
            source.clone(),
            checked.clone(),
            verified,
            compilation.sources,
        )))
    }

    /// Loads every program `source` names, in the order in which they are consulted: none for
    /// [`EndgameSource::Off`], every program of [`BUILTIN`] in its order for
    /// [`EndgameSource::All`], else the one program ([`EndgameProgram::load`]).
    pub fn load_set(source: &EndgameSource) -> Result<Vec<EndgameProgram>, String> {
        match source {
            EndgameSource::All => BUILTIN
                .iter()
                .map(|(name, _)| {
                    EndgameProgram::load(&EndgameSource::Builtin(name))?
                        .ok_or_else(|| format!("no built-in endgame program <{name}>"))
                })
                .collect(),
            other => Ok(EndgameProgram::load(other)?.into_iter().collect()),
        }
    }

    /// An endgame program from its parts: the checked program, the verified program compiled
    /// from it (or loaded from a `.cmp`/`.asm` file that embeds it), taken as it is, and the
    /// sources runtime errors are rendered with (empty when not at hand). `source` only names
    /// the program in reports.
    pub fn from_parts(
        source: EndgameSource,
        program: ChegProgram,
        verified: Program,
        sources: cheg::SourceMap,
    ) -> EndgameProgram {
        EndgameProgram {
            source,
            program,
            verified,
            sources,
            prepared: Vec::new(),
        }
    }

    /// Where the program came from.
    pub fn source(&self) -> &EndgameSource {
        &self.source
    }

    /// Who chooses the move when an ENTRY matches ([`Role`]): [`builtin_role`] for a shipped
    /// program, [`Role::Plays`] for any other.
    pub fn role(&self) -> Role {
        match &self.source {
            EndgameSource::Builtin(name) => builtin_role(name),
            _ => Role::Plays,
        }
    }

    /// The checked program (its ENTRY table and literals).
    pub fn program(&self) -> &ChegProgram {
        &self.program
    }

    /// Whether an ENTRY matches `pos` with its side to move as the program's "White".
    pub fn matches(&self, pos: &Position) -> bool {
        cheg::runtime::matching_entry(&self.program, pos).is_some()
    }

    /// Prepares the program for `backend` (the JIT compiles it once and keeps it).
    pub fn prepare(&mut self, backend: Backend) -> Result<(), String> {
        if self.prepared.iter().any(|p| p.backend() == backend) {
            return Ok(());
        }
        let p = Prepared::new(self.verified.clone(), backend)
            .map_err(|e| format!("JIT compilation of the endgame program failed: {e}"))?;
        self.prepared.push(p);
        Ok(())
    }

    /// The program prepared for `backend`, if [`EndgameProgram::prepare`] succeeded for it.
    pub fn prepared(&self, backend: Backend) -> Option<&Prepared> {
        self.prepared.iter().find(|p| p.backend() == backend)
    }

    /// A fresh instance of the program prepared for `backend`, limited to `fuel`.
    fn instance(&self, backend: Backend, fuel: u64) -> Result<Box<dyn Vm + '_>, String> {
        let prepared = self
            .prepared(backend)
            .ok_or_else(|| "the endgame program is not prepared".to_string())?;
        let mut vm = prepared.instance();
        vm.set_limits(Limits {
            fuel: Some(fuel),
            ..Limits::default()
        });
        Ok(vm)
    }

    /// A runtime error rendered with its source line (when the source is at hand).
    pub fn render_error(&self, error: &cvm::RuntimeError) -> String {
        chepp::render_runtime_error(error, &self.sources)
            .trim_end()
            .replace('\n', " | ")
    }

    /// Runs the program once on `pos` at the top level (DEPTH 1), valuing tried moves with
    /// `searcher`, on `backend` with `fuel`.
    pub fn run_root(
        &mut self,
        backend: Backend,
        pos: &Position,
        searcher: &mut dyn Searcher,
        fuel: u64,
    ) -> Result<cheg::Report, String> {
        self.prepare(backend)?;
        let mut vm = self.instance(backend, fuel)?;
        cheg::run(&mut *vm, &self.program, *pos, searcher).map_err(|f| self.render_error(&f.error))
    }
}

/// The score of a position the game has had `earlier` times before, whose own score (engine
/// scale, the side to move's point of view) is `score`. Twice: its third occurrence, a draw by
/// rule. Once: half its score, so the game goes on (the side ahead stays ahead, and a move that
/// must return is still worth more than a piece thrown away or a draw) while a move that makes
/// progress is preferred to one that brings a position back. Mate scores stand (a mate found
/// through a return is a mate). Never: the score itself.
pub fn return_score(score: i32, earlier: u32) -> i32 {
    match earlier {
        0 => score,
        1 if crate::search::value::is_mate(score) => score,
        1 => score / 2,
        _ => crate::search::value::DRAW,
    }
}

/// Converts a score of the CHEG scale (mates as `cheg::search::MATE` minus plies) to the
/// engine's (mates as [`MATE`] minus plies); other scores are the same on both.
pub fn engine_score(cheg_score: i32) -> i32 {
    let cm = cheg::search::MATE;
    let reach = MATE - MATE_BOUND;
    if cheg_score >= cm - reach {
        MATE - (cm - cheg_score)
    } else if cheg_score <= -(cm - reach) {
        -MATE + (cm + cheg_score)
    } else {
        cheg_score
    }
}

/// Converts an engine score to the CHEG scale (the inverse of [`engine_score`]).
pub fn cheg_score(engine_score: i32) -> i32 {
    let cm = cheg::search::MATE;
    if engine_score >= MATE_BOUND {
        cm - (MATE - engine_score)
    } else if engine_score <= -MATE_BOUND {
        -cm + (MATE + engine_score)
    } else {
        engine_score
    }
}

/// The program at the nodes of a search: a [`LeafHook`] that runs it wherever an ENTRY matches
/// and lets its value replace the static evaluation.
pub struct NodeHook<'p> {
    vm: Box<dyn Vm + 'p>,
    program: &'p EndgameProgram,
    root_side: Colour,
    /// Plies between the program's root and the root of the search this hook serves.
    ply_offset: usize,
    plan: Option<Plan>,
    cache: HashMap<(u64, usize), Option<i32>>,
    game: HashMap<u64, u32>,
    error: Option<String>,
    runs: u64,
}

impl<'p> NodeHook<'p> {
    /// A hook running `program` (prepared for `backend`) with `fuel` per run, for searches below a
    /// root where `root_side` is to move.
    pub fn new(
        program: &'p EndgameProgram,
        backend: Backend,
        root_side: Colour,
        fuel: u64,
    ) -> Result<NodeHook<'p>, String> {
        let vm = program.instance(backend, fuel)?;
        Ok(NodeHook {
            vm,
            program,
            root_side,
            ply_offset: 0,
            plan: None,
            cache: HashMap::new(),
            game: HashMap::new(),
            error: None,
            runs: 0,
        })
    }

    /// Sets the plies between the program's root and the search's root, and the plan in force.
    pub fn set_context(&mut self, ply_offset: usize, plan: Option<Plan>) {
        if ply_offset != self.ply_offset || plan != self.plan {
            self.cache.clear();
        }
        self.ply_offset = ply_offset;
        self.plan = plan;
    }

    /// The hashes of the game's positions up to the root: a node that brings one of them back is
    /// valued by [`return_score`] (see [`NodeHook::leaf`]).
    pub fn set_game(&mut self, game: &[u64]) {
        self.game.clear();
        for &h in game {
            *self.game.entry(h).or_default() += 1;
        }
    }

    /// Why a run at a node failed, if one did.
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// Runs of the program so far (not counting answers from the cache).
    pub fn runs(&self) -> u64 {
        self.runs
    }

    /// The program's score at `pos`, `ply` plies below the search's root: `Ok(None)` when no ENTRY
    /// matches or the program gave no value.
    pub fn value(&mut self, pos: &Position, ply: usize) -> Result<Option<i32>, String> {
        if !self.program.matches(pos) {
            return Ok(None);
        }
        let depth = ply + self.ply_offset + 1;
        let key = (pos.hash(), depth);
        if let Some(v) = self.cache.get(&key) {
            return Ok(*v);
        }
        let plan = if pos.side_to_move() == self.root_side {
            self.plan.clone()
        } else {
            None
        };
        // At deeper plies a TRY values its moves by material one ply ahead: a full search at
        // every node would multiply the tree by itself.
        let mut nested = FixedDepth { depth: 1 };
        self.runs += 1;
        let report = cheg::run_at(
            &mut *self.vm,
            &self.program.program,
            *pos,
            &mut nested,
            i32::try_from(depth).unwrap_or(i32::MAX),
            plan,
        )
        .map_err(|f| self.program.render_error(&f.error))?;
        let v = report.value.map(|[w, l, c]| score_of(w, l, c));
        self.cache.insert(key, v);
        Ok(v)
    }
}

impl LeafHook for NodeHook<'_> {
    fn evaluate(&mut self, pos: &Position) -> Option<i32> {
        self.leaf(pos, 0, 0)
    }

    fn leaf(&mut self, pos: &Position, ply: usize, static_eval: i32) -> Option<i32> {
        if self.error.is_some() {
            return None;
        }
        // A program's value stands for the position's prospects, not for a position without
        // moves: the search's pruning may return a static evaluation before it looks for moves,
        // and a stalemate must not pass for the certain win the program would give it.
        if self.program.matches(pos) && !pos.has_legal_move() {
            return Some(if pos.is_check() {
                crate::search::value::mated_in(ply)
            } else {
                crate::search::value::DRAW
            });
        }
        // A node that brings back a position of the game: the search's own repetition rule is
        // not applied at the horizon, and a program's plateaus would let the defender walk the
        // attacker round in circles (four plies and back) until the fifty-move rule.
        let earlier = if self.program.matches(pos) {
            self.game.get(&pos.hash()).copied().unwrap_or(0)
        } else {
            0
        };
        if earlier >= 2 {
            return Some(crate::search::value::DRAW);
        }
        match self.value(pos, ply) {
            Ok(v) => Some(return_score(v.unwrap_or(static_eval), earlier)),
            Err(e) => {
                self.error = Some(e);
                None
            }
        }
    }
}

/// The limits of the searches behind TRY at the root.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TryLimits {
    /// Depth of each search (the position after the tried move is its root).
    pub depth: Option<u32>,
    /// Nodes of each search.
    pub nodes: Option<u64>,
    /// Deadlines of each search.
    pub time: TimePlan,
}

/// The engine's search behind the program's TRY, PLAYB and PLAN at the root: the position after
/// the tried move is searched with the engine's own search, the program re-entered at its nodes
/// through a [`NodeHook`].
pub struct EngineSearcher<'a, 'p> {
    /// The engine's transposition table, evaluator, history and move
    /// bonuses (none for endgame searches).
    pub state: &'a mut SearchState,
    /// Evaluation parameters.
    pub params: &'a EvalParams,
    /// The program at the nodes.
    pub hook: &'a mut NodeHook<'p>,
    /// The outer search's control (its `stop` does not interrupt the lookahead).
    pub control: &'a SearchControl,
    /// The game's position hashes up to and including the root.
    pub game: Vec<u64>,
    /// Limits of each search (`limits.time.hard` counts from the first search, see
    /// [`EngineSearcher::deadline`]).
    pub limits: TryLimits,
    /// When every search must be over (`None`: no deadline): each tried move's search stops
    /// there, however many moves the program tries.
    pub deadline: Option<std::time::Instant>,
    /// Nodes searched so far.
    pub nodes: u64,
    /// Whether the hook failed in a search (it is then left out of the later ones).
    pub hook_failed: bool,
    /// Whether a search stopped before its depth (deadline, node limit or `stop`).
    pub interrupted: bool,
    /// Search switches.
    pub options: search::SearchOptions,
    /// The moves tried at the root (DEPTH 1) with their values (engine scale).
    pub tried: Vec<(Move, i32)>,
}

impl Searcher for EngineSearcher<'_, '_> {
    fn value_of(&mut self, request: &TryMove<'_>) -> i32 {
        self.search(request).value
    }

    fn search(&mut self, request: &TryMove<'_>) -> Searched {
        let child = request.position.after(request.mv);
        // A move back to a position of the game: the searches below start at the child, where
        // the search's own repetition rule does not look, and a program whose values have
        // plateaus would otherwise circle until the fifty-move rule.
        let key = child.hash();
        let earlier = self.game.iter().filter(|&&h| h == key).count() as u32;
        if earlier >= 2 {
            self.nodes += 1;
            if request.depth == 1 {
                self.tried.push((request.mv, crate::search::value::DRAW));
            }
            return Searched { value: 0, nodes: 1 };
        }
        let inner = SearchControl::new();
        let time = match self.deadline {
            Some(d) => {
                let left = d.saturating_duration_since(std::time::Instant::now());
                TimePlan {
                    soft: Some(left),
                    hard: Some(left),
                }
            }
            None => self.limits.time,
        };
        inner.arm(self.limits.depth, time);
        // A `stop` does not cut the lookahead short (it is bounded by its fuel and deadline,
        // and a move chosen without it is no move of the program's): it ends the engine's
        // search that follows.
        if time.hard.is_some_and(|t| t.is_zero()) {
            inner.stop();
            self.interrupted = true;
        }
        self.hook.set_context(
            usize::try_from(request.depth).unwrap_or(1),
            request.plan.cloned(),
        );
        let setup = SearchSetup {
            root: child,
            history: self.game.clone(),
            node_limit: self.limits.nodes,
            options: self.options,
            ..SearchSetup::default()
        };
        let hook: Option<&mut dyn LeafHook> = if self.hook_failed {
            None
        } else {
            Some(&mut *self.hook)
        };
        let ctx = self.state.context(self.params, hook, &inner);
        let result = search::run(ctx, &setup, &mut |_| {});
        self.nodes += result.nodes;
        self.hook_failed |= result.hook_failed;
        if self.limits.depth.is_some_and(|d| result.depth < d) && result.choices > 0 {
            self.interrupted = true;
        }
        let value = return_score(-result.score, earlier);
        if request.depth == 1 {
            self.tried.push((request.mv, value));
        }
        Searched {
            value: cheg_score(value),
            nodes: result.nodes.max(1),
        }
    }
}

/// What the engine's search brings to the endgame program's turn.
pub(crate) struct Turn<'a> {
    /// The move's time.
    pub plan: TimePlan,
    /// The time left on a game clock (after the move overhead), if the move has one.
    pub left: Option<std::time::Duration>,
    /// Stops the search.
    pub control: &'a SearchControl,
    /// The program's values of the game's earlier roots (a following program's window).
    pub progress: &'a mut Progress,
}

/// Own moves over which a following program ([`Role::Follows`]) lets the engine's search make
/// its progress: the search's move is played, whatever the program's lookahead makes of it, while
/// the program's value of the root is higher than it was this many of our moves ago.
pub const PROGRESS_WINDOW: usize = 4;

/// The depth from which the engine's own search is trusted with the window of
/// [`PROGRESS_WINDOW`] moves; a shallower search's move must make progress by itself (a
/// shallow search trusted over the window walks the game round in circles).
pub const TRUSTED_DEPTH: u32 = 8;

/// Roots remembered in a [`Progress`] before it forgets them all (a game has far fewer).
const PROGRESS_CAPACITY: usize = 4096;

/// The roots of the game so far (by position hash, with the program that met them) and, once
/// asked for, the program's values of them, for the window of a following program
/// ([`PROGRESS_WINDOW`]); a root is valued only when a later root is compared with it, so the
/// first moves of a game cost no program run. Cleared at a new game.
#[derive(Debug, Default)]
pub struct Progress {
    roots: HashMap<u64, (usize, Position, Option<i32>)>,
    program: usize,
}

impl Progress {
    /// Forgets every root.
    pub fn clear(&mut self) {
        self.roots.clear();
    }

    /// Sets the program whose roots are remembered and compared from now on (its index among
    /// the engine's programs): roots another program met are never compared with its own.
    pub fn select(&mut self, program: usize) {
        self.program = program;
    }

    /// Remembers `root` for the selected program (a root met before keeps its value).
    pub fn remember(&mut self, root: &Position) {
        if self.roots.len() >= PROGRESS_CAPACITY {
            self.roots.clear();
        }
        let program = self.program;
        let entry = self
            .roots
            .entry(root.hash())
            .or_insert((program, *root, None));
        if entry.0 != program {
            *entry = (program, *root, None);
        }
    }

    /// Our root `moves` of our moves before the present one, in a game whose earlier positions
    /// are `history` (oldest first, the present root not included), when the selected program
    /// met it.
    pub fn root_before(&self, history: &[u64], moves: usize) -> Option<Position> {
        let back = moves.checked_mul(2)?;
        let at = history.len().checked_sub(back)?;
        match self.roots.get(&history[at]) {
            Some(&(program, root, _)) if program == self.program => Some(root),
            _ => None,
        }
    }

    /// Whether the program's value of `root` (remembered here) is higher than at our root
    /// [`PROGRESS_WINDOW`] of our moves before, in a game whose earlier positions are
    /// `history`: `None` when the game has no such root of the selected program, `Some(false)`
    /// when either root cannot be valued. Values come from those given before, else from
    /// `value`.
    pub fn rose(
        &mut self,
        root: &Position,
        history: &[u64],
        value: &mut dyn FnMut(&Position) -> Option<i32>,
    ) -> Option<bool> {
        self.remember(root);
        let before = self.root_before(history, PROGRESS_WINDOW)?;
        let now = self.value(root, value);
        let before = self.value(&before, value);
        Some(matches!((now, before), (Some(now), Some(before)) if now > before))
    }

    /// The program's value of the remembered root `root`: the one given before, else
    /// `value(root)`, kept when it is one. `None` for a root not remembered.
    pub fn value(
        &mut self,
        root: &Position,
        value: &mut dyn FnMut(&Position) -> Option<i32>,
    ) -> Option<i32> {
        let entry = self.roots.get_mut(&root.hash())?;
        if entry.2.is_none() {
            entry.2 = value(root);
        }
        entry.2
    }
}

/// Where and how a root run of the program happens ([`root_run`]).
pub(crate) struct RootAt {
    /// The root position.
    pub root: Position,
    /// The hashes of the game's positions up to and including the root.
    pub game: Vec<u64>,
    /// The limits of each tried move's search.
    pub limits: TryLimits,
    /// Fuel of the root run (`None`: no limit) and of every run at a node.
    pub fuel: (Option<u64>, u64),
    /// The search options.
    pub options: SearchOptions,
}

/// One run of the endgame program at the root ([`root_run`]).
pub(crate) struct RootRun<'p> {
    /// The hook that re-entered the program at the nodes (kept for the search that follows).
    pub hook: NodeHook<'p>,
    /// The run.
    pub run: Result<cheg::Report, cheg::RunFailure>,
    /// Nodes the searches of the tried moves visited.
    pub tried_nodes: u64,
    /// Whether a search of a tried move was cut short (its deadline, or `stop`) before its
    /// depth: the values the program compared are then not those of its lookahead.
    pub interrupted: bool,
    /// The root's moves the program tried, with the values its lookahead gave them (engine
    /// scale, the mover's point of view).
    pub tried: Vec<(Move, i32)>,
}

/// Why [`crate::engine::Engine::endgame_run`] gave no report.
#[derive(Clone, Debug, thiserror::Error)]
pub enum EndgameRunError {
    /// No endgame program is loaded, or it could not be prepared for the backend.
    #[error("{0}")]
    NoProgram(String),
    /// The program failed (a runtime error or out of fuel).
    #[error("{error}")]
    Failed {
        /// The BREAK lines printed before the failure.
        breaks: Vec<String>,
        /// The error, with its source position.
        error: cvm::RuntimeError,
    },
}

/// The plies the program looks ahead at the root in a game: every tried move and every reply,
/// then the quiescence search, with the program's values at the leaves. The shipped programs'
/// values are progress measures written for this lookahead (a deeper search of them loses its
/// way, see `docs/cheg.md`), so it does not grow with the clock; the engine's own search, with
/// the rest of the move's time, looks for a forced mate instead ([`search`]).
pub const PROGRAM_DEPTH: u32 = 2;

/// The least time the program's lookahead is given under a clock, however short the move's
/// deadline: the lookahead is what makes progress in the ending, and cut short it gives no
/// move at all. The KBNK program's, the slowest, takes about 20 ms in a release build; the
/// time a short deadline loses is taken from the engine's search that follows.
pub const LOOKAHEAD_FLOOR: std::time::Duration = std::time::Duration::from_millis(250);

/// Deadlines shortened by the time already `spent` of the move (never below a millisecond, so
/// that the search still completes its first iteration).
fn after_spending(plan: TimePlan, spent: std::time::Duration) -> TimePlan {
    let left = |d: Option<std::time::Duration>| {
        d.map(|d| {
            d.saturating_sub(spent)
                .max(std::time::Duration::from_millis(1))
        })
    };
    TimePlan {
        soft: left(plan.soft),
        hard: left(plan.hard),
    }
}

/// The endgame program's turn with `program` (prepared for `backend`; the engine's evaluation
/// with `styles`): `None` when it failed at the root (reported to `sink`; the deadlines in
/// `turn.control` are then shortened by the time it took); otherwise the move of the turn.
///
/// 0. A following program ([`Role::Follows`]) whose value of the root rose over the window
///    first lets the engine's search have the whole move ([`follow`]); a mate it finds, or its
///    move after [`TRUSTED_DEPTH`] plies, is played without the steps below.
/// 1. The program runs at the root with a fixed lookahead of [`PROGRAM_DEPTH`] plies, whatever
///    the `go` limits: the searches behind its TRY, PLAYB and PLAN use `own`, a search state of
///    their own (so the deeper searches of the game leave no entries in their table), and share
///    the move's hard deadline (at least [`LOOKAHEAD_FLOOR`], but no more than half of what a
///    game clock has left, `turn.left`); a run that deadline interrupts
///    gives no move. A `stop` waits for the lookahead and ends step 2.
/// 2. The engine's own search (`state`, no program at the leaves) then gets the rest of the
///    move's time, nodes or depth, and `go infinite` waits for `stop` there. It reports its
///    `info` lines as it goes, with the depth it searched and `score mate N` once a mate is found.
/// 3. A forced mate found by that search is played (the shortest way home). Under a program
///    that guards ([`Role::Guards`], [`Role::Follows`]) the side with material, the search's
///    move is played when the program's lookahead valued it at least as high as the program's
///    value of the root, or as the program's move; under one that follows, also when the
///    search reached [`TRUSTED_DEPTH`] and the root's value rose over the last
///    [`PROGRESS_WINDOW`] of our moves (`turn.progress` keeps the values of the game's roots).
///    Otherwise the program's move is played, reported with the depth the engine
///    searched and the program's score for it. When the program answers no move (LEAVE), the
///    engine's search runs instead with the program's values at its nodes.
pub(crate) fn search(
    program: &EndgameProgram,
    (state, own): (&mut SearchState, &mut SearchState),
    backend: Backend,
    styles: &StyleSettings,
    setup: &SearchSetup,
    turn: Turn<'_>,
    sink: &mut dyn FnMut(EngineEvent),
) -> Option<SearchResult> {
    let Turn {
        plan,
        left,
        control,
        progress,
    } = turn;
    let root = setup.root;
    let start = std::time::Instant::now();
    // The live deadlines (a terminal `time` command may have changed them since `go`).
    let live = TimePlan {
        soft: control.soft_ms().map(std::time::Duration::from_millis),
        hard: control.hard_ms().map(std::time::Duration::from_millis),
    };
    let hard = live.hard.or(plan.hard);
    // Fuel: without a deadline the fixed amounts; under a clock the root run may spend up to
    // half the move's hard deadline at FUEL_PER_MS (never more than the fixed amount, never
    // below the advisor's floor). A node run keeps the fixed amount: one that runs out switches
    // the program off for the whole turn, and only one can.
    let root_fuel = match hard {
        None => ROOT_FUEL,
        Some(h) => (h.as_millis() as u64 / 2)
            .saturating_mul(crate::advisor::FUEL_PER_MS)
            .clamp(
                FuelBudget::for_deadline(hard).root.min(ROOT_FUEL),
                ROOT_FUEL,
            ),
    };
    let node_fuel = NODE_FUEL;
    let mut game = setup.history.clone();
    game.push(root.hash());
    let limits = TryLimits {
        depth: Some(PROGRAM_DEPTH - 1),
        nodes: None,
        time: TimePlan {
            soft: None,
            // The floor, but never more than half of what a game clock has left.
            hard: hard.map(|h| {
                let floored = h.max(LOOKAHEAD_FLOOR);
                left.map_or(floored, |l| floored.min(h.max(l / 2)))
            }),
        },
    };
    let at = RootAt {
        root,
        game,
        limits,
        fuel: (Some(root_fuel), node_fuel),
        options: setup.options,
    };
    // A guard serves the side with material; the bare king's defence is the program's.
    let bare = root.by_colour(root.side_to_move()).count() == 1;
    // (Not under a node budget: a search that stops short of the trusted depth would leave the
    // lookahead and the guarded search none.)
    if program.role() == Role::Follows
        && !bare
        && setup.node_limit.is_none()
        && control.max_depth() >= TRUSTED_DEPTH
    {
        let followed = follow(
            program,
            (state, progress),
            (backend, styles),
            setup,
            &at.game,
            control,
            sink,
        );
        if followed.is_some() {
            return followed;
        }
        // Not followed: the program's lookahead and the guard, with what is left of the move.
        control.set_plan(after_spending(live, start.elapsed()));
    }
    let root_run = root_run(program, own, (backend, styles), at, control);
    let spend = |control: &SearchControl| {
        control.set_plan(after_spending(live, start.elapsed()));
    };
    let RootRun {
        mut hook,
        run,
        tried_nodes,
        interrupted,
        tried,
    } = match root_run {
        Ok(r) => r,
        Err(e) => {
            sink(EngineEvent::Note(format!(
                "error: endgame program: {e}; searching without it"
            )));
            spend(control);
            return None;
        }
    };
    let params = EvalParams::new(styles, None);
    let report = match run {
        Ok(report) => report,
        Err(failure) => {
            sink(EngineEvent::Note(format!(
                "error: endgame program {} failed at the root ({root_fuel} units of fuel): {}; searching without it",
                program.source(),
                program.render_error(&failure.error)
            )));
            spend(control);
            return None;
        }
    };
    if let Some(e) = hook.error() {
        sink(EngineEvent::Note(format!(
            "error: endgame program {} failed at a node of the search ({node_fuel} units of fuel a run): {e}; its values were switched off",
            program.source()
        )));
    }
    for line in &report.breaks {
        sink(EngineEvent::Note(format!("cheg: {line}")));
    }
    spend(control);
    state.bonuses.clear();
    let answer = match report.chosen {
        Some(mv) if !root.is_legal(mv) => {
            sink(EngineEvent::Note(format!(
                "error: endgame program {} answered {mv}, not a legal move; searching on",
                program.source()
            )));
            None
        }
        Some(mv) if interrupted => {
            sink(EngineEvent::Note(format!(
                "endgame program {} answered {mv} but its lookahead was cut short (time or stop); the search decides",
                program.source()
            )));
            None
        }
        Some(mv) => {
            let score = match (report.best, report.value) {
                (Some((m, s)), _) if m == mv => engine_score(s),
                (_, Some([w, l, c])) => score_of(w, l, c),
                _ => 0,
            };
            Some((mv, score))
        }
        None => None,
    };
    let Some((mv, score)) = answer else {
        // No move: the engine searches, the program's values feeding its evaluation.
        hook.set_context(0, None);
        let use_hook = hook.error().is_none() && report.chosen.is_none();
        let ctx = state.context(
            &params,
            if use_hook { Some(&mut hook) } else { None },
            control,
        );
        let mut forward = |r: &Report| {
            sink(EngineEvent::Report(Report {
                nodes: r.nodes + tried_nodes,
                ..r.clone()
            }))
        };
        let mut result = search::run(ctx, setup, &mut forward);
        if result.hook_failed && use_hook {
            if let Some(e) = hook.error() {
                sink(EngineEvent::Note(format!(
                    "error: endgame program {} failed at a node of the search ({node_fuel} units of fuel a run): {e}; its values were switched off",
                    program.source()
                )));
            }
        }
        result.nodes += tried_nodes;
        result.hook_failed = false;
        return Some(result);
    };
    sink(EngineEvent::Note(format!(
        "endgame program {} answered {mv} ({PROGRAM_DEPTH}-ply lookahead)",
        program.source()
    )));
    let guards = program.role() != Role::Plays && !bare && hook.error().is_none();
    let follows = program.role() == Role::Follows;
    // The engine's own search with the rest of the move: a forced mate it finds is played, and
    // under a guarding program its move when the program's lookahead values it as progress.
    let ctx = state.context(&params, None, control);
    let mut seldepth = 0;
    let mut forward = |r: &Report| {
        seldepth = seldepth.max(r.seldepth);
        sink(EngineEvent::Report(Report {
            nodes: r.nodes + tried_nodes,
            ..r.clone()
        }))
    };
    let result = search::run(ctx, setup, &mut forward);
    let nodes = result.nodes + tried_nodes;
    let searched = result.depth;
    if let Some(best) = result.best.filter(|&b| root.is_legal(b)) {
        if result.score >= MATE_BOUND {
            if best != mv {
                sink(EngineEvent::Note(format!(
                    "the search found a mate in {}: {best} instead of the program's {mv}",
                    crate::search::value::mate_moves(result.score),
                )));
            }
            return Some(SearchResult { nodes, ..result });
        }
        if guards {
            if follows {
                // Valued when a later root is compared with it.
                progress.remember(&root);
            }
            if best == mv {
                return Some(SearchResult { nodes, ..result });
            }
            hook.set_context(0, None);
            // The program's value of a root with our side to move, as at the nodes of its
            // lookahead two plies down.
            let mut value = |p: &Position| hook.value(p, 1).ok().flatten();
            let now = if follows {
                progress.value(&root, &mut value)
            } else {
                value(&root)
            };
            let of = |m: Move| tried.iter().find(|(t, _)| *t == m).map(|&(_, v)| v);
            // The move itself loses nothing by the program's measure two plies on...
            let step = match (of(best), of(mv), now) {
                (Some(v), Some(p), Some(now)) => v >= now || v >= p,
                (Some(v), Some(p), None) => v >= p,
                _ => false,
            };
            // ... or a deep search's moves have raised the measure over the window (a game
            // shorter than the window gives them the benefit).
            let moving = follows
                && searched >= TRUSTED_DEPTH
                && progress
                    .rose(&root, &setup.history, &mut value)
                    .unwrap_or(true);
            if step || moving {
                return Some(SearchResult { nodes, ..result });
            }
            sink(EngineEvent::Note(format!(
                "endgame program {}: the search's {best} makes no progress by the program's values; playing {mv}",
                program.source()
            )));
        }
    }
    let depth = searched.max(PROGRAM_DEPTH);
    let elapsed = start.elapsed();
    sink(EngineEvent::Report(Report {
        depth,
        seldepth: seldepth.max(depth),
        score,
        bound: None,
        nodes,
        elapsed,
        hashfull: state.tt.hashfull(),
        pv: vec![mv],
    }));
    Some(SearchResult {
        best: Some(mv),
        ponder: None,
        score,
        depth,
        nodes,
        elapsed,
        pv: vec![mv],
        choices: 1,
        ..SearchResult::default()
    })
}

/// The turn of a following program ([`Role::Follows`]) before its lookahead: when the program's
/// value of the root rose over the last [`PROGRESS_WINDOW`] of our moves (or the game is
/// shorter), the engine's own search gets the whole move, and its move is played when it found
/// a mate or completed [`TRUSTED_DEPTH`] plies. `None` otherwise (the time it took is spent),
/// and when the program cannot value the root.
fn follow(
    program: &EndgameProgram,
    (state, progress): (&mut SearchState, &mut Progress),
    (backend, styles): (Backend, &StyleSettings),
    setup: &SearchSetup,
    game: &[u64],
    control: &SearchControl,
    sink: &mut dyn FnMut(EngineEvent),
) -> Option<SearchResult> {
    let root = setup.root;
    progress.remember(&root);
    let compared = progress
        .root_before(&setup.history, PROGRESS_WINDOW)
        .is_some();
    if compared {
        // The program runs only when there is an earlier root to compare with.
        let mut hook = NodeHook::new(program, backend, root.side_to_move(), NODE_FUEL).ok()?;
        hook.set_game(game);
        hook.set_context(0, None);
        let mut value = |p: &Position| hook.value(p, 1).ok().flatten();
        if progress.rose(&root, &setup.history, &mut value) != Some(true) {
            return None;
        }
    }
    state.bonuses.clear();
    let params = EvalParams::new(styles, None);
    let ctx = state.context(&params, None, control);
    let mut forward = |r: &Report| sink(EngineEvent::Report(r.clone()));
    let result = search::run(ctx, setup, &mut forward);
    let best = result.best.filter(|&b| root.is_legal(b))?;
    (result.score >= MATE_BOUND || result.depth >= TRUSTED_DEPTH).then(|| {
        let why = if compared {
            format!("the program's value rose over the last {PROGRESS_WINDOW} moves")
        } else {
            format!("the game is shorter than {PROGRESS_WINDOW} moves")
        };
        sink(EngineEvent::Note(format!(
            "endgame program {} follows the search's {best} (depth {}): {why}",
            program.source(),
            result.depth
        )));
        result
    })
}

/// Runs `program` once at the top level on `at.root`, the engine's search behind its TRY,
/// PLAYB and PLAN (`at.limits` for each tried move's search, the program re-entered at the
/// nodes), limited to `at.fuel.0` units (`None`: no limit) and every run at a node to
/// `at.fuel.1`; `at.game` holds the hashes of the game's positions up to and including the
/// root.
/// `backend` runs it, `styles` set the evaluation. An error when the program is not prepared for
/// the backend.
pub(crate) fn root_run<'p>(
    program: &'p EndgameProgram,
    state: &mut SearchState,
    (backend, styles): (Backend, &StyleSettings),
    at: RootAt,
    control: &SearchControl,
) -> Result<RootRun<'p>, String> {
    let prepared = program
        .prepared(backend)
        .ok_or_else(|| "the endgame program is not prepared".to_string())?;
    let mut vm = prepared.instance();
    vm.set_limits(cvm::Limits {
        fuel: at.fuel.0,
        ..cvm::Limits::default()
    });
    let root = at.root;
    let (run, searched) =
        root_search(program, state, (backend, styles), at, control, |searcher| {
            cheg::run(&mut *vm, program.program(), root, searcher)
        })?;
    Ok(RootRun {
        hook: searched.hook,
        run,
        tried_nodes: searched.nodes,
        interrupted: searched.interrupted,
        tried: searched.tried,
    })
}

/// What the searcher of a root run did ([`root_search`]).
pub(crate) struct RootSearched<'p> {
    /// The hook that re-entered the program at the nodes.
    pub hook: NodeHook<'p>,
    /// Nodes the searches of the tried moves visited.
    pub nodes: u64,
    /// Whether a search of a tried move was cut short before its depth.
    pub interrupted: bool,
    /// The root's moves the program tried, with their values.
    pub tried: Vec<(Move, i32)>,
}

/// Hands `run` the searcher behind TRY, PLAYB and PLAN of a run of `program` at the top level
/// on `at.root` (as [`root_run`] describes; `at.fuel.0` is not used here), for the caller to
/// run the program with it; its result and what the searcher did.
pub(crate) fn root_search<'p, R>(
    program: &'p EndgameProgram,
    state: &mut SearchState,
    (backend, styles): (Backend, &StyleSettings),
    at: RootAt,
    control: &SearchControl,
    run: impl FnOnce(&mut dyn Searcher) -> R,
) -> Result<(R, RootSearched<'p>), String> {
    let RootAt {
        root,
        game,
        limits,
        fuel,
        options,
    } = at;
    let mut hook = NodeHook::new(program, backend, root.side_to_move(), fuel.1)?;
    hook.set_game(&game);
    state.bonuses.clear();
    let params = EvalParams::new(styles, None);
    let deadline = limits.time.hard.map(|h| std::time::Instant::now() + h);
    let mut searcher = EngineSearcher {
        state,
        params: &params,
        hook: &mut hook,
        control,
        game,
        limits,
        deadline,
        nodes: 0,
        hook_failed: false,
        interrupted: false,
        options,
        tried: Vec::new(),
    };
    let result = run(&mut searcher);
    let nodes = searcher.nodes;
    let interrupted = searcher.interrupted;
    let tried = std::mem::take(&mut searcher.tried);
    Ok((
        result,
        RootSearched {
            hook,
            nodes,
            interrupted,
            tried,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn option_values() {
        assert_eq!(EndgameSource::parse(""), Ok(EndgameSource::Off));
        assert_eq!(EndgameSource::parse(" OFF "), Ok(EndgameSource::Off));
        assert_eq!(
            EndgameSource::parse("<KQK>"),
            Ok(EndgameSource::Builtin("kqk"))
        );
        assert!(EndgameSource::parse("<kxk>").is_err());
        assert_eq!(
            EndgameSource::parse("a.cheg"),
            Ok(EndgameSource::File("a.cheg".into()))
        );
        assert_eq!(EndgameSource::Builtin("krk").to_string(), "<krk>");
    }

    #[test]
    fn mate_scores_convert_both_ways() {
        assert_eq!(engine_score(cheg::search::MATE - 3), MATE - 3);
        assert_eq!(engine_score(-(cheg::search::MATE - 4)), -(MATE - 4));
        assert_eq!(engine_score(20_123), 20_123);
        assert_eq!(cheg_score(MATE - 5), cheg::search::MATE - 5);
        assert_eq!(cheg_score(-MATE + 6), -cheg::search::MATE + 6);
        assert_eq!(cheg_score(-150), -150);
        // A certain win stays below every mate on both scales.
        assert!(score_of(500, 0, 1000) < MATE_BOUND);
        assert!(score_of(500, 0, 1000) < cheg::search::MATE - 128);
    }

    #[test]
    fn returns_keep_half_a_score_and_a_third_occurrence_is_a_draw() {
        use crate::search::value::{mated_in, DRAW};
        assert_eq!(return_score(7_400, 0), 7_400);
        assert_eq!(return_score(7_400, 1), 3_700);
        assert_eq!(return_score(-7_401, 1), -3_700);
        // Half an estimate still beats a piece thrown away (the KBNK program's 1000).
        assert!(return_score(7_000, 1) > 1_000);
        assert_eq!(return_score(MATE - 7, 1), MATE - 7);
        assert_eq!(return_score(mated_in(4), 1), mated_in(4));
        assert_eq!(return_score(7_400, 2), DRAW);
        assert_eq!(return_score(MATE - 7, 3), DRAW);
    }

    #[test]
    fn every_builtin_program_compiles() {
        for (name, _) in BUILTIN {
            let p = EndgameProgram::load(&EndgameSource::Builtin(name));
            assert!(matches!(p, Ok(Some(_))), "{name}: {:?}", p.err());
        }
        assert!(EndgameProgram::load(&EndgameSource::File("/nonexistent/x.cheg".into())).is_err());
    }

    #[test]
    fn progress_looks_back_at_our_own_roots_of_the_same_program() {
        let mut p = Progress::default();
        p.select(1);
        // Our roots are the positions 2, 4, 6 ... plies before the present one.
        let mut pos = Position::startpos();
        let mut history = Vec::new();
        for _ in 0..10 {
            p.remember(&pos);
            history.push(pos.hash());
            let mv = pos.legal_moves().as_slice()[0];
            pos = pos.after(mv);
        }
        let mut runs = 0;
        let mut value = |q: &Position| {
            runs += 1;
            history
                .iter()
                .position(|&h| h == q.hash())
                .map(|i| i as i32)
        };
        let one = p.root_before(&history, 1).expect("a root");
        assert_eq!(p.value(&one, &mut value), Some(8));
        assert_eq!(p.value(&one, &mut value), Some(8), "kept");
        let four = p.root_before(&history, 4).expect("a root");
        assert_eq!(p.value(&four, &mut value), Some(2));
        assert!(p.root_before(&history, 5).is_some());
        assert!(
            p.root_before(&history, 6).is_none(),
            "before the game began"
        );
        assert_eq!(runs, 2, "a root is valued once, when asked");
        p.select(2);
        assert!(
            p.root_before(&history, 1).is_none(),
            "another program's roots"
        );
        p.remember(&one);
        assert!(p.root_before(&history, 1).is_some());
        // The present root against ours four moves before (history[2], valued 2 above under
        // program 1; program 2 never met it).
        let index = |q: &Position| history.iter().position(|&h| h == q.hash());
        let mut high = |q: &Position| Some(index(q).map_or(100, |i| i as i32));
        assert_eq!(
            p.rose(&pos, &history, &mut high),
            None,
            "program 2: no earlier root"
        );
        p.select(1);
        assert_eq!(p.rose(&pos, &history, &mut high), Some(true));
        let mut unknown = |_: &Position| None;
        assert_eq!(
            p.rose(&pos, &history[..8], &mut unknown),
            Some(false),
            "history[0] has no value"
        );
        assert_eq!(p.rose(&pos, &history[..7], &mut unknown), None, "too short");
        p.clear();
        assert!(p.root_before(&history, 1).is_none());
    }
}

#[cfg(test)]
mod node_tests {
    use super::*;

    #[test]
    fn kqk_values_at_nodes() {
        let mut p = EndgameProgram::load(&EndgameSource::Builtin("kqk"))
            .expect("loads")
            .expect("a program");
        p.prepare(Backend::Interp).expect("prepares");
        let mut hook = NodeHook::new(&p, Backend::Interp, Colour::White, NODE_FUEL).expect("hook");
        for fen in [
            "8/8/8/3k4/8/8/8/QK6 w - - 0 1",
            "8/8/8/3k4/8/8/8/QK6 b - - 0 1",
        ] {
            let pos = Position::from_fen(fen).expect("fen");
            for ply in 0..3 {
                let v = hook.value(&pos, ply);
                assert!(v.is_ok(), "{fen} {ply}: {v:?}");
            }
        }
    }

    /// The KBNK program's piece check at a node (our side to move): a fork that no move of ours
    /// undoes is a piece lost (1000, below every estimate of the distance to mate), a fork that
    /// one move undoes keeps an estimate; the same on both backends and for either colour.
    #[test]
    fn kbnk_values_a_lost_piece_below_every_estimate() {
        let mut p = EndgameProgram::load(&EndgameSource::Builtin("kbnk"))
            .expect("loads")
            .expect("a program");
        let cases = [
            // The bare king c4 attacks the bishop b4 (guarded by the knight) and the knight d3
            // (unguarded); a knight's move leaves the bishop, a bishop's move the knight, and our
            // king b6 guards neither square it can reach: lost.
            ("8/8/1K6/8/1Bk5/3N4/8/8 w - - 0 1", true),
            ("8/8/3n4/1bK5/8/1k6/8/8 b - - 0 1", true),
            // The bare king c8 attacks the bishop d8 (unguarded) and the knight c7 (guarded by
            // the bishop); Ne6 alone keeps both (it guards the bishop from a square the king
            // does not reach), but Kd7 then attacks the knight, which nothing guards, and no
            // move of ours keeps both: lost a move later.
            ("2kB4/2N5/8/8/8/1K6/8/8 w - - 0 1", true),
            ("8/8/1k6/8/8/8/2n5/2Kb4 b - - 0 1", true),
            // The bare king a3 attacks the knight a2; Nb4, Nc1 and Bb3 keep it, but each leaves
            // the bare king without a move (stalemate): lost.
            ("8/8/8/8/8/k1K5/N7/3B4 w - - 0 1", true),
            ("3b4/n7/K1k5/8/8/8/8/8 b - - 0 1", true),
            // The bare king c7 attacks the knight b7; Nc5, Na5 and Ba6 keep it, and after each
            // Kb6 attacks both pieces again with no move that keeps them: lost a move later.
            ("8/1Nk5/5K2/1B6/8/8/8/8 w - - 0 1", true),
            ("8/8/8/8/1b6/5k2/1nK5/8 b - - 0 1", true),
            // The bare king b7 attacks the knight a8; Nc7 alone keeps it (the bishop d6 guards
            // c7), and no step of the bare king after it wins a piece: saved.
            ("N7/1k6/3B4/8/8/8/1K6/8 w - - 0 1", false),
            ("8/1k6/8/8/8/3b4/1K6/n7 b - - 0 1", false),
        ];
        for backend in [Backend::Interp, Backend::Jit] {
            p.prepare(backend).expect("prepares");
            let mut hook = NodeHook::new(&p, backend, Colour::White, NODE_FUEL).expect("hook");
            for (fen, lost) in cases {
                let pos = Position::from_fen(fen).expect("fen");
                let v = hook.value(&pos, 1).expect("runs").expect("a value");
                if lost {
                    assert_eq!(v, 1000, "{backend:?} {fen}");
                } else {
                    assert!((7000..9000).contains(&v), "{backend:?} {fen}: {v}");
                }
            }
        }
    }
}
