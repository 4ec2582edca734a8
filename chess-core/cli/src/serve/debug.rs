//! `POST /api/debug`: breakpoints and stepping in the playground, over the
//! debugger core of `che dap` (`che_editor::debug`).
//!
//! The server keeps no session: the page sends the program, the position,
//! its breakpoints and the resumptions it asked for so far (`continue`,
//! `next`, `stepIn`, `stepOut`), and the server runs the program from its
//! start through them ([`che_editor::debug::replay`]) and answers the stop
//! they lead to, with the stack, the locals, the globals, the lists and
//! the advice table there, and the output so far; or the end of the run.
//! The run is bounded like `/api/run`'s (fuel, output, time), and the
//! number of resumptions by [`MAX_ACTIONS`].
//!
//! It takes the three languages: the dialects of advice programs, whose
//! `main()` fills the advice table, and CHEG, whose program runs on the
//! position as `che run` runs it (its moves valued by the engine's search
//! at [`CHEG_DEPTH`]), with its BREAK lines and its closing `move` and
//! `value` lines as output and a BREAK as a stop.

use super::limits::Limits;
use super::work::{self, DiagnosticOut, RequestError};
use che_editor::analysis::Language;
use che_editor::debug::replay::{replay, ReplayOptions};
use che_editor::debug::session::{with_cheg_host, Prepared, Resume, Snapshot, StopReason, Var};
use che_engine::host::AdviceHost;
use che_engine::search::SearchControl;
use che_pipeline::Dialect;
use serde::{Deserialize, Serialize};

/// The most resumptions one request may carry.
pub const MAX_ACTIONS: usize = 10_000;

/// The depth of the search behind CHEG's TRY, PLAYB and PLAN (`che run`'s
/// and `che dap`'s default).
pub const CHEG_DEPTH: u32 = 2;

/// `POST /api/debug`.
#[derive(Clone, Debug, Deserialize)]
pub struct DebugRequest {
    /// Program source, in the language `dialect` names.
    pub source: String,
    /// `che++` (the default), `che3` or `cheg`.
    #[serde(default)]
    pub dialect: Option<String>,
    /// The position (FEN).
    pub fen: String,
    /// Lines of the program with a breakpoint.
    #[serde(default)]
    pub breakpoints: Vec<u32>,
    /// The resumptions so far, one per stop: `continue`, `next`, `stepIn`,
    /// `stepOut`.
    #[serde(default)]
    pub actions: Vec<String>,
    /// Stop before the first instruction.
    #[serde(default)]
    pub stop_on_entry: bool,
}

/// A named value; a list carries its elements.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct DebugVar {
    /// The name.
    pub name: String,
    /// The value as shown.
    pub value: String,
    /// A list's elements.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub elements: Vec<String>,
}

/// One frame of the stack, innermost first.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct DebugFrame {
    /// The routine.
    pub name: String,
    /// The file (the program, or an included example or the standard
    /// library).
    pub file: String,
    /// The line.
    pub line: u32,
    /// Its parameters, locals and operand stack.
    pub locals: Vec<DebugVar>,
}

/// Where the run stopped.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct DebugStop {
    /// `entry`, `breakpoint`, `step` or `exception`.
    pub reason: String,
    /// The runtime error of an `exception` stop; the line CHEG's BREAK
    /// printed at a `breakpoint` stop after it.
    pub text: Option<String>,
    /// The stack.
    pub frames: Vec<DebugFrame>,
    /// Globals and lists.
    pub globals: Vec<DebugVar>,
    /// The advice table's entries that are set.
    pub advice: Vec<DebugVar>,
}

/// The answer to `POST /api/debug`.
#[derive(Clone, Debug, Serialize)]
pub struct DebugResponse {
    /// Whether the program compiled.
    pub compiled: bool,
    /// Every compiler message.
    pub diagnostics: Vec<DiagnosticOut>,
    /// Where the breakpoints went (a line without code moves to the next
    /// line with code; one past the last is dropped).
    pub breakpoints: Vec<u32>,
    /// The stop, or `None` when the run ended.
    pub stopped: Option<DebugStop>,
    /// What the program printed up to the stop or the end.
    pub output: Vec<String>,
    /// Lines printed beyond those kept.
    pub output_dropped: u64,
    /// `che run`'s exit status once the run ended: 0, or 2 after a
    /// runtime error.
    pub exit_code: Option<i32>,
    /// The runtime error that ended the run, rendered.
    pub error: Option<String>,
}

fn resume(name: &str) -> Result<Resume, RequestError> {
    match name {
        "continue" => Ok(Resume::Continue),
        "next" => Ok(Resume::Next),
        "stepIn" => Ok(Resume::StepIn),
        "stepOut" => Ok(Resume::StepOut),
        other => Err(RequestError::Actions(format!(
            "unknown action `{other}`: expected continue, next, stepIn or stepOut"
        ))),
    }
}

fn vars(snapshot: &Snapshot, reference: u32) -> Vec<DebugVar> {
    snapshot
        .variables(reference)
        .unwrap_or(&[])
        .iter()
        .map(|v: &Var| DebugVar {
            name: v.name.clone(),
            value: v.value.clone(),
            elements: match v.children {
                0 => Vec::new(),
                r => snapshot
                    .variables(r)
                    .unwrap_or(&[])
                    .iter()
                    .map(|e| e.value.clone())
                    .collect(),
            },
        })
        .collect()
}

fn scope(snapshot: &Snapshot, frame: usize, name: &str) -> Vec<DebugVar> {
    snapshot
        .frames
        .get(frame)
        .and_then(|f| f.scopes.iter().find(|(n, _)| n == name))
        .map_or_else(Vec::new, |&(_, r)| vars(snapshot, r))
}

fn stop_of(reason: &StopReason, snapshot: &Snapshot) -> DebugStop {
    let (reason, text) = match reason {
        StopReason::Entry => ("entry", None),
        StopReason::Breakpoint => ("breakpoint", None),
        StopReason::Break(line) => ("breakpoint", Some(line.clone())),
        StopReason::Step => ("step", None),
        StopReason::Pause => ("pause", None),
        StopReason::Exception(m) => ("exception", Some(m.clone())),
    };
    DebugStop {
        reason: reason.into(),
        text,
        frames: snapshot
            .frames
            .iter()
            .enumerate()
            .map(|(i, f)| DebugFrame {
                name: f.name.clone(),
                file: f
                    .path
                    .as_ref()
                    .and_then(|p| p.file_name())
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                line: f.line,
                locals: scope(snapshot, i, "Locals"),
            })
            .collect(),
        globals: scope(snapshot, 0, "Globals"),
        advice: scope(snapshot, 0, "Advice"),
    }
}

/// The dialect a debugging request names and its language: a dialect of
/// advice programs (the registry's first when none is named) or CHEG.
fn debug_dialect(name: Option<&str>) -> Result<(&'static dyn Dialect, Language), RequestError> {
    let name = name.map(str::trim).unwrap_or("");
    let dialect = if name.is_empty() {
        work::parse_dialect(None)?
    } else {
        che_pipeline::by_name(name).ok_or_else(|| RequestError::DebugDialect(name.into()))?
    };
    let language =
        Language::of_dialect(dialect).ok_or_else(|| RequestError::DebugDialect(name.into()))?;
    Ok((dialect, language))
}

/// Compiles the program of `req` (without the optimizer) and runs it to
/// the stop its resumptions lead to; `control` cancels the run.
pub fn debug_program(
    req: &DebugRequest,
    limits: &Limits,
    control: &SearchControl,
) -> Result<DebugResponse, RequestError> {
    let pos = work::parse_fen(&req.fen)?;
    let (dialect, language) = debug_dialect(req.dialect.as_deref())?;
    if req.actions.len() > MAX_ACTIONS {
        return Err(RequestError::Actions(format!(
            "{} resumptions; at most {MAX_ACTIONS} are replayed",
            req.actions.len()
        )));
    }
    let actions = req
        .actions
        .iter()
        .map(|a| resume(a.trim()))
        .collect::<Result<Vec<_>, _>>()?;
    let compiled = work::compile_as(&req.source, dialect, false);
    let diagnostics = work::diagnostics(&compiled);
    let mut response = DebugResponse {
        compiled: false,
        diagnostics,
        breakpoints: Vec::new(),
        stopped: None,
        output: Vec::new(),
        output_dropped: 0,
        exit_code: None,
        error: None,
    };
    let cheg_program = cheg::checked(&compiled).cloned();
    let Some(program) = compiled.program else {
        return Ok(response);
    };
    let name = dialect.text_name();
    let prepared = Prepared::from_program(
        language,
        program,
        compiled.sources,
        cheg_program,
        String::new(),
    );
    response.compiled = true;
    let main = prepared
        .program
        .module()
        .lines
        .files
        .iter()
        .position(|f| *f == name)
        .map(|i| i as u32);
    let mut breakpoints = std::collections::HashSet::new();
    if let Some(file) = main {
        for &line in &req.breakpoints {
            if let Some(at) = prepared.breakpoint_line(file, line) {
                breakpoints.insert((file, at));
                response.breakpoints.push(at);
            }
        }
    }
    response.breakpoints.sort_unstable();
    response.breakpoints.dedup();
    let options = ReplayOptions {
        breakpoints,
        actions,
        stop_on_entry: req.stop_on_entry,
        fuel: Some(limits.fuel),
        output_lines: limits.output_lines,
        output_bytes: limits.output_bytes,
    };
    let cancel = || control.stop_requested();
    let done = match &prepared.cheg {
        None => replay(&prepared, &mut AdviceHost::new(&pos), &options, &cancel),
        Some(program) => {
            // TRY, PLAYB and PLAN value moves with the engine's search, as
            // `che run` does.
            let run = with_cheg_host(
                &prepared,
                program,
                name.clone().into(),
                pos,
                CHEG_DEPTH,
                |host| replay(&prepared, host, &options, &cancel),
            );
            match run {
                Ok(done) => done,
                Err(e) => {
                    // The program could not be prepared for its run: status 1,
                    // as `che run`.
                    response.exit_code = Some(1);
                    response.error = Some(format!("che: {e}"));
                    return Ok(response);
                }
            }
        }
    };
    response.stopped = done.stop.as_ref().map(|(r, s)| stop_of(r, s));
    response.output = done.output;
    response.output_dropped = done.output_dropped;
    response.exit_code = done.exit_code;
    response.error = done.error;
    Ok(response)
}
