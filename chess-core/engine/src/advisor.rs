//! The advisor: loads the Che++ advice program and runs it for the engine.
//!
//! Nimzo loaded one compiled Che file (named by `CheCodeName`) and ran it at the root of every
//! search; the program's advice then shaped the search below. [`Advisor`] does the same for any
//! program source — a `.che` file (compiled and optimised here), a `.cmp` module, a `.asm` listing,
//! or one of the programs built into the engine — on any backend ([`Backend`]), through the one
//! VM interface ([`cvm::Vm`]).
//!
//! A [`Session`] is one search's use of the program: [`Session::run_root`] resets the program's
//! memory, points the board view at the root and runs `main()`; the resulting advice table is then
//! read by the engine. In [`AdviceMode::Node`] the session also serves as the search's
//! [`LeafHook`], calling the program's `Evaluate()` function (see [`HOOK_NAME`]) at every static
//! evaluation. A leaf call reuses the one VM instance and updates the board view in place, so it
//! does not allocate.
//!
//! The JIT's compiled program cannot move between threads, so an advisor lives on the engine's
//! worker thread; the JIT compilation happens on first use and is kept.

use crate::host::AdviceHost;
use crate::search::LeafHook;
use che_pipeline::{Dialect, Input, ModuleError, ModuleKind, Options};
use chepp::{examples, MemLoader};
use chess_core::colour::Colour;
use chess_core::position::Position;
use cvm::{CollectOutput, Limits, NullOutput, OutputLine, Program, Vm};
use cvm_chess::advice_table::AdviceTable;
use cvm_frontend::Loader;
use jit::Prepared;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// The name of the optional per-leaf evaluation function: `function Evaluate()`, no parameters,
/// returning centipawns from White's point of view (Che++ has no function for the side to move).
pub const HOOK_NAME: &str = "Evaluate";

/// Fuel (calls and backward jumps by the code they pay for, output, and the intrinsics' work) for one run of `main()` at the root when
/// the search has no deadline (`go depth`, `go infinite`, `go nodes`).
pub const ROOT_FUEL: u64 = 50_000_000;
/// Fuel for one call of the leaf hook when the search has no deadline.
pub const NODE_FUEL: u64 = 200_000;

/// Fuel that runs for at most a millisecond: 100 ns per unit. The slowest times per unit measured
/// by `benches/src/bin/fuelrate.rs` (every intrinsic with its heaviest arguments on five boards,
/// straight-line functions of 1,000 and 4,000 instructions, and 1,200 generated programs, on both
/// backends, release build) are about 27 ns for an intrinsic, 19 ns for straight-line code (a
/// call or backward jump charges one unit per 8 instructions under it) and 32 ns for a generated
/// program, so 100 ns leaves a margin of about 3 over every kind of work (`docs/cvm.md`, "Fuel",
/// has the figures). Fuel is deterministic, so the budget is the same on both backends.
pub const FUEL_PER_MS: u64 = 10_000;
/// The share of the move's time the root run of `main()` may take, in percent.
pub const ROOT_SHARE_PERCENT: u64 = 5;
/// The share of the move's time one call of the leaf hook may take, per mille.
pub const NODE_SHARE_PER_MILLE: u64 = 1;
/// The least fuel a run gets, however short the time: enough for every bundled program.
pub const MIN_FUEL: u64 = 10_000;

/// The fuel of the root run and of one leaf-hook call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FuelBudget {
    /// Fuel for `main()` at the root.
    pub root: u64,
    /// Fuel for one call of `Evaluate()`.
    pub node: u64,
}

impl FuelBudget {
    /// The budget for a search that must end by `deadline` (its hard time limit), or the fixed
    /// [`ROOT_FUEL`] and [`NODE_FUEL`] without one. The root run gets [`ROOT_SHARE_PERCENT`] of
    /// the time and each hook call [`NODE_SHARE_PER_MILLE`], converted at [`FUEL_PER_MS`], never
    /// less than [`MIN_FUEL`] and never more than the fixed amounts.
    ///
    /// ```
    /// use che_engine::advisor::{FuelBudget, FUEL_PER_MS};
    /// use std::time::Duration;
    /// let b = FuelBudget::for_deadline(Some(Duration::from_millis(1000)));
    /// assert_eq!(b.root, 50 * FUEL_PER_MS); // 5% of a second
    /// assert_eq!(FuelBudget::for_deadline(None), FuelBudget::UNBOUNDED);
    /// ```
    pub fn for_deadline(deadline: Option<std::time::Duration>) -> FuelBudget {
        let Some(hard) = deadline else {
            return FuelBudget::UNBOUNDED;
        };
        let ms = u64::try_from(hard.as_millis()).unwrap_or(u64::MAX);
        let fuel =
            |share: u64, per: u64| ms.saturating_mul(share).saturating_mul(FUEL_PER_MS) / per;
        FuelBudget {
            root: fuel(ROOT_SHARE_PERCENT, 100).clamp(MIN_FUEL, ROOT_FUEL),
            node: fuel(NODE_SHARE_PER_MILLE, 1000).clamp(MIN_FUEL, NODE_FUEL),
        }
    }

    /// The budget without a deadline.
    pub const UNBOUNDED: FuelBudget = FuelBudget {
        root: ROOT_FUEL,
        node: NODE_FUEL,
    };
}

/// The example program with a leaf hook (`chess-core/engine/che/evaluate.che`), next to the compiler's
/// examples it includes.
const EVALUATE_SOURCE: &str = include_str!("../che/evaluate.che");

/// Which VM runs the advice program: the one backend choice of the project.
pub use cvm::Backend;

/// When the engine consults the advice program.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AdviceMode {
    /// Never: the engine plays on its own parameters.
    Off,
    /// `main()` once at the root of every search, as Nimzo did.
    #[default]
    Root,
    /// As `Root`, and the program's `Evaluate()` at every static evaluation.
    Node,
}

impl FromStr for AdviceMode {
    type Err = String;
    fn from_str(s: &str) -> Result<AdviceMode, String> {
        match s.to_ascii_lowercase().as_str() {
            "off" => Ok(AdviceMode::Off),
            "root" => Ok(AdviceMode::Root),
            "node" => Ok(AdviceMode::Node),
            _ => Err(format!(
                "unknown advice mode `{s}` (expected off, root or node)"
            )),
        }
    }
}

impl fmt::Display for AdviceMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            AdviceMode::Off => "off",
            AdviceMode::Root => "root",
            AdviceMode::Node => "node",
        })
    }
}

/// Where the advice program comes from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum ProgramSource {
    /// The compiler's example program, `shanny.che` (the default; written `<shanny>`).
    #[default]
    Shanny,
    /// The example program plus an `Evaluate()` leaf hook (written `<shanny-eval>`).
    ShannyEval,
    /// A file: `.cmp` module, `.asm` listing, `.che3` Che (Nimzo 3) source, or Che++ source.
    File(PathBuf),
    /// Source text held in memory (the web playground's editor) in the dialect the registry
    /// calls `dialect` (`che_pipeline::by_name`), compiled by `che_pipeline::compile_text`:
    /// `include` finds the dialect's bundled files and nothing on disk.
    Text {
        /// The dialect's name.
        dialect: &'static str,
        /// The program.
        text: std::sync::Arc<str>,
    },
}

impl ProgramSource {
    /// Reads an option value: `<shanny>`, `<shanny-eval>`, or a path.
    pub fn parse(text: &str) -> ProgramSource {
        match text.trim() {
            "" | "<shanny>" | "<bundled>" | "<default>" => ProgramSource::Shanny,
            "<shanny-eval>" => ProgramSource::ShannyEval,
            path => ProgramSource::File(PathBuf::from(path)),
        }
    }
}

impl fmt::Display for ProgramSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProgramSource::Shanny => f.write_str("<shanny>"),
            ProgramSource::ShannyEval => f.write_str("<shanny-eval>"),
            ProgramSource::File(p) => write!(f, "{}", p.display()),
            ProgramSource::Text { dialect, .. } => write!(f, "<{dialect} text>"),
        }
    }
}

/// Why an advice program could not be loaded or prepared.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AdviceError {
    /// The file could not be read.
    #[error("cannot read {path}: {message}")]
    Read {
        /// The file.
        path: String,
        /// The system's message.
        message: String,
    },
    /// Che++ source did not compile; the message holds the rendered diagnostics.
    #[error("{0}")]
    Compile(String),
    /// A `.cmp` or `.asm` file is malformed, or the module fails verification.
    #[error("{path}: {message}")]
    Module {
        /// The file.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// The JIT could not compile the program.
    #[error("JIT: {0}")]
    Jit(String),
}

/// A loaded, verified advice program.
pub struct Advisor {
    source: ProgramSource,
    /// The program prepared for each backend used so far, in the order of first use (the
    /// interpreter's costs nothing; the JIT's is compiled once and kept).
    prepared: Vec<Prepared>,
    program: Program,
    hook: Option<u32>,
    hook_note: Option<String>,
}

impl fmt::Debug for Advisor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Advisor")
            .field("source", &self.source)
            .field("hook", &self.hook)
            .finish_non_exhaustive()
    }
}

/// The program of a compilation through the one front-end interface (optimized), or the rendered
/// diagnostics.
fn compiled(
    dialect: &dyn Dialect,
    loader: &dyn Loader,
    path: &Path,
) -> Result<Program, AdviceError> {
    let options = Options::default();
    che_pipeline::compile(dialect, Input::File(path), loader, &options)
        .into_result()
        .map_err(|e| AdviceError::Compile(e.rendered))
}

impl Advisor {
    /// Loads, verifies and (for source) compiles and optimises the program.
    pub fn load(source: &ProgramSource) -> Result<Advisor, AdviceError> {
        let program = match source {
            ProgramSource::Shanny => compiled(
                &chepp::CHEPP,
                &examples::loader(),
                Path::new(examples::MAIN),
            )?,
            ProgramSource::ShannyEval => {
                let mut files: Vec<(&str, &str)> = examples::EXAMPLES.to_vec();
                files.push(("evaluate.che", EVALUATE_SOURCE));
                compiled(
                    &chepp::CHEPP,
                    &MemLoader::with(&files),
                    Path::new("evaluate.che"),
                )?
            }
            ProgramSource::File(path) => Advisor::load_file(path)?,
            // A Che (Nimzo 3) program has no `Evaluate()`: node mode runs it as root mode does.
            ProgramSource::Text { dialect, text } => {
                let front_end = che_pipeline::by_name(dialect)
                    .filter(|d| d.purpose() == che_pipeline::Purpose::Advice)
                    .ok_or_else(|| {
                        AdviceError::Compile(format!(
                            "unknown dialect `{dialect}`: expected one of {}",
                            che_pipeline::dialect_names(che_pipeline::Purpose::Advice)
                        ))
                    })?;
                che_pipeline::compile_text(front_end, text, &Options::default())
                    .into_result()
                    .map_err(|e| AdviceError::Compile(e.rendered))?
            }
        };
        let (hook, hook_note) = match program.module().function_index(HOOK_NAME) {
            None => (None, None),
            Some(i) => {
                let f = &program.module().functions[i as usize];
                if f.arity() == 0 && f.returns_value {
                    (Some(i), None)
                } else {
                    (
                        None,
                        Some(format!(
                            "{HOOK_NAME}() must be a function without parameters to serve as the leaf hook"
                        )),
                    )
                }
            }
        };
        Ok(Advisor {
            source: source.clone(),
            program,
            prepared: Vec::new(),
            hook,
            hook_note,
        })
    }

    /// A program file: a `.cmp` or `.asm` module, else source in the dialect its extension
    /// names (Che++ unless another advice dialect claims it).
    fn load_file(path: &Path) -> Result<Program, AdviceError> {
        let shown = path.display().to_string();
        let module_error = |message: String| AdviceError::Module {
            path: shown.clone(),
            message,
        };
        if let Some(kind) = ModuleKind::of(path) {
            return match che_pipeline::read_module(path, kind) {
                Err(ModuleError::Read(e)) => Err(AdviceError::Read {
                    path: shown.clone(),
                    message: e.to_string(),
                }),
                Err(e) => Err(module_error(e.to_string())),
                Ok(file) => file.verify().map_err(|e| module_error(e.to_string())),
            };
        }
        if !path.is_file() {
            // The reason, as the file reader words it.
            if let Err(e) = cvm_frontend::file::read_program(path) {
                return Err(AdviceError::Read {
                    path: shown,
                    message: e.to_string(),
                });
            }
        }
        let dialect = match che_pipeline::by_path(path) {
            d if d.name() == cheg::NAME => &chepp::CHEPP,
            d => d,
        };
        compiled(dialect, &cvm_frontend::FsLoader, path)
    }

    /// Where the program came from.
    pub fn source(&self) -> &ProgramSource {
        &self.source
    }

    /// The verified program.
    pub fn program(&self) -> &Program {
        &self.program
    }

    /// Whether the program has a usable `Evaluate()` hook.
    pub fn has_hook(&self) -> bool {
        self.hook.is_some()
    }

    /// Why an `Evaluate` function found in the program cannot serve as the hook, if it cannot.
    pub fn hook_note(&self) -> Option<&str> {
        self.hook_note.as_deref()
    }

    /// Prepares the program for `backend` now (otherwise done by the first session on it): the
    /// JIT compiles it.
    pub fn prepare(&mut self, backend: Backend) -> Result<&Prepared, AdviceError> {
        let at = match self.prepared.iter().position(|p| p.backend() == backend) {
            Some(at) => at,
            None => {
                // The JIT compiles what `main()` and the hook reach; the
                // rest only if something calls it.
                let mut roots: Vec<u32> = self.program.module().entry.into_iter().collect();
                roots.extend(self.hook);
                let prepared = Prepared::for_entries(self.program.clone(), backend, &roots)
                    .map_err(|e| AdviceError::Jit(e.to_string()))?;
                self.prepared.push(prepared);
                self.prepared.len() - 1
            }
        };
        Ok(&self.prepared[at])
    }

    /// A session on `backend` answering the program's questions through `host`.
    pub fn session<'a>(
        &'a mut self,
        backend: Backend,
        host: &'a mut AdviceHost,
    ) -> Result<Session<'a>, AdviceError> {
        let hook = self.hook;
        let vm = self.prepare(backend)?.instance();
        Ok(Session {
            vm,
            hook_error: None,
            host,
            hook,
            board_sign: 1,
        })
    }
}

/// What one run of `main()` at the root produced besides the advice table.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RootRun {
    /// The lines the program printed (`write`, `TextOut`, verbose reports), in order.
    pub output: Vec<String>,
    /// The value `main()` returned, if it returns one.
    pub value: Option<i32>,
}

/// One search's use of the advice program.
pub struct Session<'a> {
    vm: Box<dyn Vm + 'a>,
    /// Why the last failed hook call failed.
    hook_error: Option<String>,
    host: &'a mut AdviceHost,
    hook: Option<u32>,
    /// +1 when White is to move at the leaf, -1 for Black (set per call).
    board_sign: i32,
}

impl Session<'_> {
    /// Resets the program, runs `main()` on `root` with the unbounded budget, and returns what
    /// it printed; see [`Session::run_root_within`].
    pub fn run_root(&mut self, root: &Position) -> Result<RootRun, String> {
        self.run_root_within(root, FuelBudget::UNBOUNDED)
    }

    /// Resets the program, runs `main()` on `root` with `budget.root` fuel, and returns what it
    /// printed; the advice is then in [`Session::advice`], and later hook calls get `budget.node`
    /// fuel each. A runtime error (running out of fuel included) is returned as its rendered
    /// message.
    pub fn run_root_within(
        &mut self,
        root: &Position,
        budget: FuelBudget,
    ) -> Result<RootRun, String> {
        self.vm.reset();
        self.vm.set_limits(Limits {
            fuel: Some(budget.root),
            ..Limits::default()
        });
        self.host.set_position(root);
        let mut out = CollectOutput::default();
        let result = self.vm.run_entry(self.host, &mut out);
        self.vm.set_limits(Limits {
            fuel: Some(budget.node),
            ..Limits::default()
        });
        match result {
            Ok(done) => Ok(RootRun {
                output: out.lines.iter().map(OutputLine::to_string).collect(),
                value: done.value(),
            }),
            Err(e) => Err(e.to_string()),
        }
    }

    /// The advice table of the last root run.
    pub fn advice(&self) -> &AdviceTable {
        self.vm.advice()
    }

    /// Whether the program has a leaf hook.
    pub fn has_hook(&self) -> bool {
        self.hook.is_some()
    }

    /// Calls the leaf hook on `pos`: centipawns for the side to move, or `None` on a runtime
    /// error (or without a hook).
    pub fn call_hook(&mut self, pos: &Position) -> Option<i32> {
        let hook = self.hook?;
        self.host.set_position(pos);
        self.board_sign = match pos.side_to_move() {
            Colour::White => 1,
            Colour::Black => -1,
        };
        let done = match self.vm.call(hook, &[], self.host, &mut NullOutput) {
            Ok(done) => done,
            Err(e) => {
                self.hook_error = Some(e.to_string());
                return None;
            }
        };
        done.value().map(|v| v.saturating_mul(self.board_sign))
    }

    /// Why the last failed call of the leaf hook failed (a runtime error, running out of fuel
    /// included), if one did.
    pub fn hook_error(&self) -> Option<&str> {
        self.hook_error.as_deref()
    }
}

impl LeafHook for Session<'_> {
    fn evaluate(&mut self, pos: &Position) -> Option<i32> {
        self.call_hook(pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_programs_load_on_every_backend() {
        let mut shanny = Advisor::load(&ProgramSource::Shanny).unwrap();
        assert!(!shanny.has_hook());
        let mut with_hook = Advisor::load(&ProgramSource::ShannyEval).unwrap();
        assert!(with_hook.has_hook());
        let pos = Position::startpos();
        for backend in Backend::ALL {
            let mut host = AdviceHost::new(&pos);
            let mut s = shanny.session(backend, &mut host).unwrap();
            s.run_root(&pos).unwrap();
            // OpeningAdvices: SetMvs(w, 20, e2e4 d2d4).
            assert_eq!(s.advice().move_bonus[0][12][28], 20);
            assert_eq!(s.call_hook(&pos), None);
            let mut host = AdviceHost::new(&pos);
            let mut s = with_hook.session(backend, &mut host).unwrap();
            s.run_root(&pos).unwrap();
            // The start position is symmetric: the hook says 0 for either side to move.
            assert_eq!(s.call_hook(&pos), Some(0));
        }
    }

    #[test]
    fn option_spellings() {
        assert_eq!(ProgramSource::parse("<shanny>"), ProgramSource::Shanny);
        assert_eq!(ProgramSource::parse(""), ProgramSource::Shanny);
        assert_eq!(
            ProgramSource::parse("<shanny-eval>"),
            ProgramSource::ShannyEval
        );
        assert_eq!(
            ProgramSource::parse("x.cmp"),
            ProgramSource::File(PathBuf::from("x.cmp"))
        );
        assert_eq!("JIT".parse::<Backend>(), Ok(Backend::Jit));
        assert!("vm".parse::<Backend>().is_err());
        assert_eq!("node".parse::<AdviceMode>(), Ok(AdviceMode::Node));
        assert!(Advisor::load(&ProgramSource::File("/nonexistent/x.che".into())).is_err());
    }
}
