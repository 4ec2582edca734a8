//! The experiment interface, the run configuration, and the registry of experiments.
//!
//! Adding an experiment: write a type implementing [`Experiment`] in `experiments/`, and add it
//! to [`registry`]. Its units are numbered by [`Experiment::units`], measured one at a time by
//! [`Experiment::measure`] (one or more CSV rows each), and its section and plot are drawn by
//! [`Experiment::render`] from the CSV alone, so that shards merge and reports regenerate.

use super::error::LabError;
use super::experiments;
use super::meta::RunMeta;
use super::shard::Shard;
use super::table::Table;
use std::path::{Path, PathBuf};

/// How much work a run does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// The small version of every experiment (`--quick`: the whole harness in under three
    /// minutes); otherwise the full one.
    pub quick: bool,
    /// The seed of everything random.
    pub seed: u64,
    /// Games per match in the playing-strength experiment and positions per ending in the
    /// endgame experiment (`None`: the experiment's default).
    pub games: Option<u32>,
    /// Positions per ending at the endgame experiment's time limits (`movetime`, game clock),
    /// the first of the same sample (`None`: as many as at its other limits).
    pub timed_games: Option<u32>,
    /// The UCI engine the match driver starts: a program and its arguments (default: this
    /// harness's own `uci` subcommand, the engine library of this commit).
    pub engine: Vec<String>,
    /// This machine's share of the work.
    pub shard: Shard,
    /// Where the files go.
    pub out: PathBuf,
}

/// What a measurement step sees.
pub struct Context<'a> {
    /// The configuration.
    pub config: &'a Config,
    /// The provenance written into every row.
    pub meta: &'a RunMeta,
}

/// One experiment.
pub trait Experiment {
    /// The subcommand and file stem (`cost` writes `cost.csv`, `cost.svg`, `cost.md`).
    fn name(&self) -> &'static str;

    /// The heading of its section.
    fn title(&self) -> &'static str;

    /// One line for `--help` and the report's list.
    fn about(&self) -> &'static str;

    /// Its own columns (the provenance columns come first, added by the runner).
    fn columns(&self) -> Vec<&'static str>;

    /// Names of the units of work, in a fixed order (the shards split by position here).
    fn units(&self, config: &Config) -> Vec<String>;

    /// Measures unit number `unit`: the rows' own cells (as many as [`Experiment::columns`]).
    fn measure(&self, ctx: &Context<'_>, unit: usize) -> Result<Vec<Vec<String>>, LabError>;

    /// Prepares a measurement run once before the units (installs tools, checks twins): a failure
    /// here stops the experiment before any timing.
    fn prepare(&self, _ctx: &Context<'_>) -> Result<(), LabError> {
        Ok(())
    }

    /// The Markdown section body for `table` (the runner adds the heading), with the plot drawn
    /// to `plot` and linked as `plot_link`.
    fn render(&self, table: &Table, plot: &Path, plot_link: &str) -> Result<String, LabError>;
}

/// Every experiment, in report order.
pub fn registry() -> Vec<Box<dyn Experiment>> {
    vec![
        Box::new(experiments::cost::Cost),
        Box::new(experiments::breakeven::BreakEven),
        Box::new(experiments::search::Search),
        Box::new(experiments::strength::Strength),
        Box::new(experiments::optimizer::Optimizer),
        Box::new(experiments::safety::Safety),
        Box::new(experiments::endgame::Endgame::default()),
    ]
}

/// The experiment called `name`.
pub fn find(name: &str) -> Option<Box<dyn Experiment>> {
    registry().into_iter().find(|e| e.name() == name)
}
