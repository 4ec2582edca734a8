//! The project's main job in one call: compile the bundled Che++ advice
//! program, run its `main()` on a position with every backend (interp, jit,
//! auto), and show
//! what it wrote and advised, side by side (`che demo`).
//!
//! The backends must agree exactly; [`Demo::agree`] says whether they
//! did, and the report prints the advice once when they do, with the time
//! each backend took to prepare (translate or compile) and to run.

use che_engine::host::AdviceHost;
use chess_core::{FenError, Position};
use cvm::interp::Profiler;
use cvm::{Backend, CollectOutput, Interpreter, OutputLine, Program};
use cvm_chess::advice_table::AdviceTable;
use cvm_chess::lit;
use cvm_chess::style::STYLE_PARAMS;
use jit::Prepared;
use std::fmt;
use std::time::{Duration, Instant};

/// A Colle-system position (1.d4 d5 2.Nf3 Nf6 3.e3 e6 4.Bd3 c5 5.c3), which
/// the bundled program recognises: the demo's default.
pub const COLLE_FEN: &str = "rnbqkb1r/pp3ppp/4pn2/2pp4/3P4/2PBPN2/PP3PPP/RNBQK2R b KQkq - 0 5";

/// Why the demo could not run.
#[derive(Debug, thiserror::Error)]
pub enum DemoError {
    /// The position is not valid FEN.
    #[error("invalid FEN: {0}")]
    Fen(#[from] FenError),
    /// The bundled program did not compile (a build defect).
    #[error("the bundled program does not compile:\n{0}")]
    Compile(String),
    /// The JIT could not compile the program.
    #[error("JIT compilation failed: {0}")]
    Jit(String),
    /// `main()` failed at run time.
    #[error("{0}")]
    Runtime(String),
}

/// One backend's run.
#[derive(Clone, Debug)]
pub struct BackendRun {
    /// The backend.
    pub backend: Backend,
    /// Time to translate (interpreter) or compile (JIT) the program.
    pub prepare: Duration,
    /// Time of the `main()` call.
    pub run: Duration,
    /// What `main()` wrote.
    pub output: Vec<OutputLine>,
    /// The advice it gave.
    pub advice: AdviceTable,
}

/// The result of [`run`].
#[derive(Clone, Debug)]
pub struct Demo {
    /// The position, as FEN.
    pub fen: String,
    /// The program's files.
    pub files: Vec<String>,
    /// CVM instructions before optimization.
    pub instructions: usize,
    /// CVM instructions after the loophole optimizer (inlining can make
    /// this larger than [`Demo::instructions`]).
    pub optimized_instructions: usize,
    /// CVM instructions the interpreter executes running `main()` on the
    /// unoptimized program.
    pub executed: u64,
    /// The same count for the optimized program.
    pub optimized_executed: u64,
    /// One run per backend, in the order of [`Backend::ALL`].
    pub runs: Vec<BackendRun>,
}

impl Demo {
    /// True when every backend wrote the same lines and gave the same
    /// advice.
    pub fn agree(&self) -> bool {
        self.runs
            .windows(2)
            .all(|w| w[0].output == w[1].output && w[0].advice == w[1].advice)
    }
}

/// Counts executed instructions.
#[derive(Default)]
struct StepCount(u64);

impl Profiler for StepCount {
    fn step(&mut self, _: u32) {
        self.0 += 1;
    }
}

/// Runs `main()` of `program` on the interpreter, counting executed CVM
/// instructions.
fn count_executed(
    program: &Program,
    position: &Position,
    compiled: &chepp::Compilation,
) -> Result<u64, DemoError> {
    let entry = program
        .module()
        .entry
        .ok_or_else(|| DemoError::Compile("the program has no main()".into()))?;
    let mut host = AdviceHost::new(position);
    let mut interp = Interpreter::new(program);
    let mut steps = StepCount::default();
    interp
        .call_profiled(
            entry,
            &[],
            &mut host,
            &mut CollectOutput::default(),
            &mut steps,
        )
        .map_err(|e| DemoError::Runtime(compiled.render_runtime_error(&e)))?;
    Ok(steps.0)
}

fn count_instructions(program: &Program) -> usize {
    program
        .function_infos()
        .iter()
        .map(|f| f.instrs.len())
        .sum()
}

/// Compiles the bundled example program and runs it on `fen` with every
/// backend.
pub fn run(fen: &str) -> Result<Demo, DemoError> {
    let position = Position::from_fen(fen)?;
    let loader = chepp::examples::loader();
    let compiled = che_pipeline::compile(
        &chepp::CHEPP,
        che_pipeline::Input::File(std::path::Path::new(chepp::examples::MAIN)),
        &loader,
        &che_pipeline::Options {
            optimize: false,
            ..che_pipeline::Options::default()
        },
    );
    // The demo shows the program before and after the optimizer.
    let plain = compiled
        .program
        .clone()
        .ok_or_else(|| DemoError::Compile(compiled.render_diagnostics()))?;
    let (program, _) = cvm::opt::optimize(&plain);
    let mut host = AdviceHost::new(&position);
    let mut runs = Vec::new();
    for backend in Backend::ALL {
        let copy = program.clone();
        let started = Instant::now();
        let roots = Prepared::entry_points(&copy, &[]);
        let prepared = Prepared::for_entries(copy, backend, &roots)
            .map_err(|e| DemoError::Jit(e.to_string()))?;
        let mut vm = prepared.instance();
        let prepare = started.elapsed();
        let mut out = CollectOutput::default();
        let started = Instant::now();
        vm.run_entry(&mut host, &mut out)
            .map_err(|e| DemoError::Runtime(compiled.render_runtime_error(&e)))?;
        runs.push(BackendRun {
            backend,
            prepare,
            run: started.elapsed(),
            output: out.lines,
            advice: vm.advice().clone(),
        });
    }

    Ok(Demo {
        fen: position.to_fen(),
        files: chepp::examples::EXAMPLES
            .iter()
            .map(|(name, _)| name.to_string())
            .chain(std::iter::once(chepp::STDLIB_NAME.to_string()))
            .collect(),
        instructions: count_instructions(&plain),
        optimized_instructions: count_instructions(&program),
        executed: count_executed(&plain, &position, &compiled)?,
        optimized_executed: count_executed(&program, &position, &compiled)?,
        runs,
    })
}

const PIECES: [&str; 6] = ["P", "N", "B", "R", "Q", "K"];
const COLOURS: [&str; 2] = ["w", "b"];

fn square(sq: usize) -> String {
    lit::square_name(sq as i32).unwrap_or_default()
}

/// One line per non-empty part of the advice table.
pub fn describe(advice: &AdviceTable) -> Vec<String> {
    let mut lines = Vec::new();
    for (c, colour) in COLOURS.iter().enumerate() {
        let moves: Vec<String> = (0..64)
            .flat_map(|from| (0..64).map(move |to| (from, to)))
            .filter(|&(f, t)| advice.move_bonus[c][f][t] != 0)
            .map(|(f, t)| {
                format!(
                    "{}{} {:+}",
                    square(f),
                    square(t),
                    advice.move_bonus[c][f][t]
                )
            })
            .collect();
        if !moves.is_empty() {
            lines.push(format!("move bonuses, {colour}: {}", moves.join(", ")));
        }
    }
    for (label, table) in [
        ("square bonuses", &advice.square_bonus),
        ("control bonuses", &advice.control_bonus),
    ] {
        for (c, colour) in COLOURS.iter().enumerate() {
            for (k, piece) in PIECES.iter().enumerate() {
                let squares: Vec<String> = (0..64)
                    .filter(|&sq| table[c][k][sq] != 0)
                    .map(|sq| format!("{} {:+}", square(sq), table[c][k][sq]))
                    .collect();
                if !squares.is_empty() {
                    lines.push(format!("{label}, {colour}{piece}: {}", squares.join(", ")));
                }
            }
        }
    }
    let values: Vec<String> = (0..2)
        .flat_map(|c| (0..6).map(move |k| (c, k)))
        .filter(|&(c, k)| advice.piece_value[c][k] != 0)
        .map(|(c, k)| format!("{}{} {:+}", COLOURS[c], PIECES[k], advice.piece_value[c][k]))
        .collect();
    if !values.is_empty() {
        lines.push(format!("piece values: {}", values.join(", ")));
    }
    let styles: Vec<String> = STYLE_PARAMS
        .iter()
        .enumerate()
        .filter(|(id, _)| advice.style_set & (1 << id) != 0)
        .map(|(id, p)| format!("{} = {}", p.name, advice.style[id]))
        .collect();
    if !styles.is_empty() {
        lines.push(format!("style: {}", styles.join(", ")));
    }
    if advice.style_defaults != 0 {
        lines.push("style: engine defaults requested".into());
    }
    if lines.is_empty() {
        lines.push("(no advice for this position)".into());
    }
    lines
}

fn micros(d: Duration) -> String {
    format!("{:.1} us", d.as_secs_f64() * 1e6)
}

impl fmt::Display for Demo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "Che++ program: {}", self.files.join(", "))?;
        writeln!(
            f,
            "CVM instructions: {} compiled, {} after the loophole optimizer",
            self.instructions, self.optimized_instructions
        )?;
        writeln!(
            f,
            "CVM instructions executed by main(): {} compiled, {} optimized",
            self.executed, self.optimized_executed
        )?;
        writeln!(f, "Position: {}", self.fen)?;
        writeln!(f)?;
        writeln!(
            f,
            "{:<10} {:>14} {:>14}",
            "backend", "prepare", "run main()"
        )?;
        for r in &self.runs {
            writeln!(
                f,
                "{:<10} {:>14} {:>14}",
                r.backend.name(),
                micros(r.prepare),
                micros(r.run)
            )?;
        }
        writeln!(f)?;
        let shown = if self.agree() { 1 } else { self.runs.len() };
        for r in &self.runs[..shown] {
            if !self.agree() {
                writeln!(f, "--- {} ---", r.backend)?;
            }
            writeln!(f, "Output:")?;
            if r.output.is_empty() {
                writeln!(f, "  (none)")?;
            }
            for line in &r.output {
                writeln!(f, "  {line}")?;
            }
            writeln!(f, "Advice:")?;
            for line in describe(&r.advice) {
                writeln!(f, "  {line}")?;
            }
        }
        if self.agree() {
            writeln!(
                f,
                "\nEvery backend wrote the same lines and gave the same advice."
            )
        } else {
            writeln!(f, "\nTHE BACKENDS DISAGREE.")
        }
    }
}
