//! What the playground's requests do, as plain functions (no HTTP): compile and run a program on
//! a position with each backend, and ask the engine for a move with the program loaded. Both take
//! a [`SearchControl`] whose stop request cancels the work (a run before its next backend, a
//! search at once); what they answer is bounded by the [`Limits`] (output kept per run) and by
//! the front ends' caps on diagnostics (`cvm_frontend::diag`).

use super::limits::Limits;
use super::output::CappedOutput;
use crate::advice_json::advice_json;
use crate::advice_svg::advice_svg;
use che_engine::advisor::{AdviceMode, ProgramSource};
use che_engine::engine::{Engine, EngineEvent};
use che_engine::host::AdviceHost;
use che_engine::options::EngineOptions;
use che_engine::search::{GoParams, SearchControl};
use che_pipeline::{Compilation, Dialect, Options, Purpose};
use chess_core::Position;
use cvm::{Backend, Program};
use jit::Prepared;
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// `POST /api/run`: a program, a position and the backends to run it on.
#[derive(Clone, Debug, Deserialize)]
pub struct RunRequest {
    /// Program source, in the language `dialect` names.
    pub source: String,
    /// A dialect of advice programs by its registry name: `che++` (the default) or `che3` (the
    /// Nimzo 3 Che dialect).
    #[serde(default)]
    pub dialect: Option<String>,
    /// The position (FEN).
    pub fen: String,
    /// `interp`, `jit`, `auto`, or `all` (the default; `both` is an older
    /// name for it): every backend.
    #[serde(default)]
    pub backend: Option<String>,
}

/// A compiler message placed in the source.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct DiagnosticOut {
    /// `error` or `warning`.
    pub severity: String,
    /// Line, from 1 (0 when the message has no place).
    pub line: u32,
    /// Column, from 1.
    pub col: u32,
    /// The message.
    pub message: String,
    /// The full rendering with the source line and caret.
    pub rendered: String,
}

/// The outcome of one backend's run.
#[derive(Clone, Debug, Serialize)]
pub struct BackendRun {
    /// `interp` or `jit`.
    pub backend: String,
    /// Preparation time (the JIT's compilation), milliseconds.
    pub prepare_ms: f64,
    /// Time of `main()`, milliseconds.
    pub run_ms: f64,
    /// The lines the program printed (the first [`Limits::output_lines`] of them, at most
    /// [`Limits::output_bytes`] bytes).
    pub output: Vec<String>,
    /// Lines printed beyond those kept.
    pub output_dropped: u64,
    /// The runtime error, rendered with its source line, if the run failed.
    pub error: Option<String>,
    /// Line of the runtime error, if known.
    pub error_line: Option<u32>,
    /// The advice table as JSON (as `che advice` prints it).
    pub advice: Option<serde_json::Value>,
    /// The advice as an SVG picture.
    pub svg: Option<String>,
}

/// The answer to `POST /api/run`.
#[derive(Clone, Debug, Serialize)]
pub struct RunResponse {
    /// Whether the program compiled.
    pub compiled: bool,
    /// Every compiler message.
    pub diagnostics: Vec<DiagnosticOut>,
    /// Compile time (front end and optimizer), milliseconds.
    pub compile_ms: f64,
    /// The CVM listing of the optimized program.
    pub listing: String,
    /// One entry per backend run.
    pub runs: Vec<BackendRun>,
}

/// `POST /api/move`: the engine's move with the program as its advice.
#[derive(Clone, Debug, Deserialize)]
pub struct MoveRequest {
    /// Program source (empty: no advice), in the language `dialect` names.
    #[serde(default)]
    pub source: String,
    /// A dialect of advice programs by its registry name: `che++` (the default) or `che3`.
    #[serde(default)]
    pub dialect: Option<String>,
    /// The position (FEN).
    pub fen: String,
    /// Search depth (capped by the limits; default 8).
    #[serde(default)]
    pub depth: Option<u32>,
}

/// The answer to `POST /api/move`.
#[derive(Clone, Debug, Serialize)]
pub struct MoveResponse {
    /// The move in UCI notation, if there is a legal move.
    pub bestmove: Option<String>,
    /// The move in SAN.
    pub san: Option<String>,
    /// The principal variation in SAN.
    pub pv: Vec<String>,
    /// The score for the side to move, centipawns.
    pub score: i32,
    /// The depth reached.
    pub depth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// Notes of the engine (the program's output, errors).
    pub notes: Vec<String>,
}

/// The engine's notes one move answers at most.
const MAX_NOTES: usize = 100;

/// The longest note kept, in characters (a program's diagnostics come as one note).
const MAX_NOTE_CHARS: usize = 64 * 1024;

/// Why a request was refused before any work.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RequestError {
    /// The position is not a valid FEN.
    #[error("invalid FEN: {0}")]
    Fen(String),
    /// An unknown backend name.
    #[error("unknown backend `{0}`: expected interp, jit, auto or all")]
    Backend(String),
    /// A name that is not a dialect of advice programs.
    #[error("unknown dialect `{0}`: expected one of {names}", names = che_pipeline::dialect_names(Purpose::Advice))]
    Dialect(String),
    /// A name that is not a language the debugger takes (the dialects of advice programs and
    /// CHEG).
    #[error("unknown dialect `{0}`: expected one of {names}", names = debug_dialect_names())]
    DebugDialect(String),
    /// A debugging request's resumptions are not understood.
    #[error("{0}")]
    Actions(String),
}

/// The dialect of advice programs a request names (the registry's first when none is named).
pub(super) fn parse_dialect(name: Option<&str>) -> Result<&'static dyn Dialect, RequestError> {
    match name.map(str::trim) {
        None | Some("") => che_pipeline::for_purpose(Purpose::Advice)
            .next()
            .ok_or_else(|| RequestError::Dialect(String::new())),
        Some(name) => che_pipeline::by_name(name)
            .filter(|d| d.purpose() == Purpose::Advice)
            .ok_or_else(|| RequestError::Dialect(name.to_string())),
    }
}

/// The names of the dialects the debugger takes, in the registry's order.
pub(super) fn debug_dialect_names() -> String {
    che_pipeline::DIALECTS
        .iter()
        .filter(|d| che_editor::analysis::Language::of_dialect(**d).is_some())
        .map(|d| d.name())
        .collect::<Vec<_>>()
        .join(", ")
}

pub(super) fn parse_fen(fen: &str) -> Result<Position, RequestError> {
    Position::from_fen(fen.trim()).map_err(|e| RequestError::Fen(e.to_string()))
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1000.0
}

/// Compiles `source` as a program held in memory (`che_pipeline::compile_text`: `include` finds
/// the dialect's bundled files and nothing on disk), optimized.
pub(super) fn compile(source: &str, dialect: &dyn Dialect) -> Compilation {
    compile_as(source, dialect, true)
}

/// [`compile`], with the optimizer or without it (the debugger steps
/// through the program as written).
pub(super) fn compile_as(source: &str, dialect: &dyn Dialect, optimize: bool) -> Compilation {
    che_pipeline::compile_text(
        dialect,
        source,
        &Options {
            optimize,
            ..Options::default()
        },
    )
}

pub(super) fn diagnostics(c: &Compilation) -> Vec<DiagnosticOut> {
    c.diagnostics
        .iter()
        .map(|d| {
            let (line, col) = d.span.map_or((0, 0), |s| c.sources.line_col(s));
            DiagnosticOut {
                severity: d.severity.to_string(),
                line,
                col,
                message: chepp::diag::clip(&d.message, chepp::diag::MAX_MESSAGE).into_owned(),
                rendered: d.render(&c.sources),
            }
        })
        .collect()
}

/// Compiles and runs the program of `req` on each backend asked for; once `control` is
/// stopped, the backends not yet run are skipped.
pub fn run_program(
    req: &RunRequest,
    limits: &Limits,
    control: &SearchControl,
) -> Result<RunResponse, RequestError> {
    let pos = parse_fen(&req.fen)?;
    let backends: Vec<Backend> = match req.backend.as_deref().map(str::trim) {
        None | Some("") | Some("all") | Some("both") => Backend::ALL.to_vec(),
        Some(name) => vec![name
            .parse::<Backend>()
            .map_err(|_| RequestError::Backend(name.to_string()))?],
    };
    let started = Instant::now();
    let dialect = parse_dialect(req.dialect.as_deref())?;
    let compilation = compile(&req.source, dialect);
    let diags = diagnostics(&compilation);
    let Some(program) = compilation.program.clone() else {
        return Ok(RunResponse {
            compiled: false,
            diagnostics: diags,
            compile_ms: ms(started),
            listing: String::new(),
            runs: Vec::new(),
        });
    };
    let compile_ms = ms(started);
    let listing = cvm::asm::disassemble(program.module());
    let mut runs = Vec::new();
    for b in backends {
        if control.stop_requested() {
            break;
        }
        runs.push(run_on(&program, b, &pos, &compilation, limits));
    }
    Ok(RunResponse {
        compiled: true,
        diagnostics: diags,
        compile_ms,
        listing,
        runs,
    })
}

fn run_on(
    program: &Program,
    backend: Backend,
    pos: &Position,
    compilation: &Compilation,
    limits: &Limits,
) -> BackendRun {
    let mut run = BackendRun {
        backend: backend.name().to_string(),
        prepare_ms: 0.0,
        run_ms: 0.0,
        output: Vec::new(),
        output_dropped: 0,
        error: None,
        error_line: None,
        advice: None,
        svg: None,
    };
    let started = Instant::now();
    let roots = Prepared::entry_points(program, &[]);
    let prepared = match Prepared::for_entries(program.clone(), backend, &roots) {
        Ok(p) => p,
        Err(e) => {
            run.error = Some(format!("JIT compilation failed: {e}"));
            return run;
        }
    };
    run.prepare_ms = ms(started);
    let mut vm = prepared.instance();
    vm.set_limits(cvm::Limits {
        fuel: Some(limits.fuel),
        ..cvm::Limits::default()
    });
    let mut host = AdviceHost::new(pos);
    let mut out = CappedOutput::new(limits.output_lines, limits.output_bytes);
    let started = Instant::now();
    let result = vm.run_entry(&mut host, &mut out);
    run.run_ms = ms(started);
    run.output = out.lines.iter().map(|l| l.to_string()).collect();
    run.output_dropped = out.dropped;
    match result {
        Ok(_) => {
            let table = vm.advice().clone();
            run.advice = Some(advice_json(&table, &out.lines));
            run.svg = Some(advice_svg(pos, &table, &out.lines));
        }
        Err(e) => {
            run.error_line = e.pos.as_ref().map(|p| p.line);
            run.error = Some(compilation.render_runtime_error(&e));
        }
    }
    run
}

/// Searches the position of `req` with the program as the engine's advice; `control` stops the
/// search.
pub fn engine_move(
    req: &MoveRequest,
    limits: &Limits,
    control: &SearchControl,
) -> Result<MoveResponse, RequestError> {
    let pos = parse_fen(&req.fen)?;
    let options = EngineOptions {
        hash_mb: 8,
        program: ProgramSource::Text {
            dialect: parse_dialect(req.dialect.as_deref())?.name(),
            text: req.source.as_str().into(),
        },
        advice_mode: if req.source.trim().is_empty() {
            AdviceMode::Off
        } else {
            AdviceMode::Root
        },
        ..EngineOptions::default()
    };
    let mut engine = Engine::new(options);
    let mut notes = Vec::new();
    if let Some(e) = engine.program_error() {
        if !req.source.trim().is_empty() {
            let note = format!("error: advice program: {e}");
            notes.push(chepp::diag::clip(&note, MAX_NOTE_CHARS).into_owned());
        }
    }
    let _ = engine.set_position(pos, &[]);
    let go = GoParams {
        depth: Some(req.depth.unwrap_or(8).clamp(1, limits.max_depth)),
        move_time: Some(limits.move_time),
        ..GoParams::default()
    };
    let result = engine.think(&go, control, &mut |event| {
        if let EngineEvent::Note(n) = event {
            if notes.len() < MAX_NOTES {
                notes.push(chepp::diag::clip(&n, MAX_NOTE_CHARS).into_owned());
            }
        }
    });
    let mut p = pos;
    let mut pv = Vec::new();
    for &m in &result.pv {
        if !p.is_legal(m) {
            break;
        }
        pv.push(p.san(m));
        p.play(m);
    }
    Ok(MoveResponse {
        bestmove: result.best.map(|m| m.to_string()),
        san: result.best.map(|m| pos.san(m)),
        pv,
        score: result.score,
        depth: result.depth,
        nodes: result.nodes,
        notes,
    })
}
