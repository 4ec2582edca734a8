//! `che dap`: the Debug Adapter Protocol over standard input and output
//! for Che++, Nimzo 3 Che and CHEG programs.
//!
//! A session: `initialize`; `launch` with `{"program": PATH, "fen": FEN}`
//! and optionally `"backend"` (`interp`, `jit`, `auto`: every backend
//! debugs on the debugger's machine, and the others say so in an output
//! event), `"dialect"` (`che++`, `che3`, `cheg`), `"trace"` (CHEG: each
//! executed instruction with its operands' values as output),
//! `"stopOnEntry"`, `"includeDirs"` and `"depth"` (CHEG's search depth,
//! default 2); the `initialized` event follows the answer to
//! `initialize`; `setBreakpoints` by source line (a line without code
//! moves to the next line that has code; set before the launch, they are
//! placed at it and reported by `breakpoint` events); `configurationDone`
//! starts the run (before the launch: once launched).
//!
//! The run goes on a thread of its own on [`crate::debug::Machine`], the
//! unoptimized program (every statement keeps its line). It stops with a
//! `stopped` event for `entry`, `breakpoint`, `step`, `pause`, a CHEG
//! `BREAK` (reason `breakpoint`, the `break` line as its text) and a
//! runtime error (reason `exception`, the message as the command line
//! renders it); `threads`, `stackTrace`, `scopes` (locals with the
//! operand stack, globals with the lists and their elements, the advice
//! table), `variables` and `evaluate` (a variable's name) answer from the
//! state at the stop; `next`,
//! `stepIn`, `stepOut` and `continue` resume; `pause` stops a running
//! program before its next instruction; `disconnect` ends the session.
//! The program's output comes as `output` events (category `stdout`), and
//! the end as `exited` with the status `che run` gives (0, or 2 after a
//! runtime error) and `terminated`.

use crate::analysis::Language;
use crate::debug::machine::{Machine, Stepped};
use crate::debug::session::{
    prepare, snapshot, with_cheg_host, BreakWatch, HostView, LaunchConfig, Prepared, Resume,
    Snapshot, Stepper, StopReason,
};
use crate::framing::{read_message, write_message, FramingError};
use cvm::{Backend, Completion, Host, Output};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex, MutexGuard};

/// Why the adapter stopped abnormally.
#[derive(Debug, thiserror::Error)]
pub enum DapError {
    /// A message could not be read.
    #[error(transparent)]
    Framing(#[from] FramingError),
}

/// Writes messages with increasing sequence numbers; shared by the
/// adapter and the run's thread.
pub struct Writer {
    inner: Mutex<(Box<dyn Write + Send>, i64)>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Writer {
    /// A writer on `out`.
    pub fn new(out: Box<dyn Write + Send>) -> Writer {
        Writer {
            inner: Mutex::new((out, 1)),
        }
    }

    /// Sends `message` with the next sequence number. A closed output is
    /// ignored: the client is gone, and the input's end stops the adapter.
    fn send(&self, mut message: Value) {
        let mut guard = lock(&self.inner);
        message["seq"] = json!(guard.1);
        guard.1 += 1;
        let _ = write_message(&mut guard.0, &message);
    }

    fn event(&self, event: &str, body: Value) {
        self.send(json!({"type": "event", "event": event, "body": body}));
    }

    fn output(&self, category: &str, text: &str) {
        self.event("output", json!({"category": category, "output": text}));
    }

    fn respond(&self, req: &Value, result: Result<Value, String>) {
        let mut r = json!({
            "type": "response",
            "request_seq": req["seq"],
            "command": req["command"],
            "success": result.is_ok(),
        });
        match result {
            Ok(body) => r["body"] = body,
            Err(message) => r["message"] = json!(message),
        }
        self.send(r);
    }
}

/// What the adapter and the run's thread share.
#[derive(Default)]
struct Shared {
    pause: AtomicBool,
    abort: AtomicBool,
    breakpoints: Mutex<HashMap<u32, Vec<u32>>>,
    /// Bumped at every change of `breakpoints`.
    breakpoints_version: AtomicU64,
    snapshot: Mutex<Option<Snapshot>>,
}

/// What the client sends a stopped run.
enum Command {
    Resume(Resume),
    Abort,
}

/// Runs the adapter on standard input and output until `disconnect` or
/// the end of the input.
pub fn run_stdio() -> Result<(), DapError> {
    let writer = Arc::new(Writer::new(Box::new(std::io::stdout())));
    let mut input = std::io::BufReader::new(std::io::stdin());
    let mut adapter = Adapter::new(writer);
    while let Some(message) = read_message(&mut input)? {
        if !adapter.handle(&message) {
            break;
        }
    }
    adapter.shutdown();
    Ok(())
}

/// The adapter's state between requests.
pub struct Adapter {
    out: Arc<Writer>,
    shared: Arc<Shared>,
    launch: Option<(LaunchConfig, bool)>,
    prepared: Option<Arc<Prepared>>,
    commands: Option<Sender<Command>>,
    worker: Option<std::thread::JoinHandle<()>>,
    /// Breakpoints set before the launch (source path, lines, the ids
    /// answered): placed when the program is known.
    early_breakpoints: Vec<(String, Vec<(usize, u32)>)>,
    /// Breakpoint ids answered so far.
    breakpoint_ids: usize,
    /// `configurationDone` came before the launch: the run starts at it.
    start_at_launch: bool,
}

impl Adapter {
    /// An adapter writing to `out`.
    pub fn new(out: Arc<Writer>) -> Adapter {
        Adapter {
            out,
            shared: Arc::new(Shared::default()),
            launch: None,
            prepared: None,
            commands: None,
            worker: None,
            early_breakpoints: Vec::new(),
            breakpoint_ids: 0,
            start_at_launch: false,
        }
    }

    /// Handles one message; false when the session is over.
    pub fn handle(&mut self, message: &Value) -> bool {
        if message["type"] != "request" {
            return true;
        }
        let args = &message["arguments"];
        let command = message["command"].as_str().unwrap_or("");
        let result = match command {
            "initialize" => Ok(json!({
                "supportsConfigurationDoneRequest": true,
                "supportsTerminateRequest": true,
                "supportsEvaluateForHovers": true,
            })),
            "launch" => self.launch(args),
            "setBreakpoints" => self.set_breakpoints(args),
            "setExceptionBreakpoints" => Ok(json!({})),
            "configurationDone" => {
                if self.prepared.is_none() && self.launch.is_none() {
                    // A client that configures before it launches: the run
                    // starts once the launch has prepared it.
                    self.start_at_launch = true;
                    Ok(json!({}))
                } else {
                    self.start()
                }
            }
            "threads" => Ok(json!({"threads": [{"id": 1, "name": "main"}]})),
            "stackTrace" => self.stack_trace(),
            "scopes" => self.scopes(args),
            "variables" => self.variables(args),
            "evaluate" => self.evaluate(args),
            "continue" => self
                .resume(Resume::Continue)
                .map(|()| json!({"allThreadsContinued": true})),
            "next" => self.resume(Resume::Next).map(|()| json!({})),
            "stepIn" => self.resume(Resume::StepIn).map(|()| json!({})),
            "stepOut" => self.resume(Resume::StepOut).map(|()| json!({})),
            "pause" => {
                // A stopped run stays as it is; a running one stops before
                // its next instruction.
                if lock(&self.shared.snapshot).is_none() {
                    self.shared.pause.store(true, Ordering::SeqCst);
                }
                Ok(json!({}))
            }
            "disconnect" | "terminate" => {
                self.shutdown();
                self.out.respond(message, Ok(json!({})));
                if command == "terminate" {
                    self.out.event("terminated", json!({}));
                    return true;
                }
                return false;
            }
            other => Err(format!("che dap does not support `{other}`")),
        };
        let ok = result.is_ok();
        self.out.respond(message, result);
        if command == "initialize" && ok {
            // Ready for configuration requests, before or after the launch.
            self.out.event("initialized", json!({}));
        }
        if command == "launch" && self.prepared.is_some() {
            self.place_early_breakpoints();
            if std::mem::take(&mut self.start_at_launch) {
                if let Err(e) = self.start() {
                    self.out.output("stderr", &format!("{e}\n"));
                }
            }
        }
        true
    }

    /// Stops the run (if any) and waits for its thread.
    pub fn shutdown(&mut self) {
        self.shared.abort.store(true, Ordering::SeqCst);
        if let Some(tx) = self.commands.take() {
            let _ = tx.send(Command::Abort);
        }
        if let Some(worker) = self.worker.take() {
            let _ = worker.join();
        }
    }

    fn launch(&mut self, args: &Value) -> Result<Value, String> {
        let program = args["program"]
            .as_str()
            .ok_or("launch needs \"program\": the path of the program")?;
        let fen = args["fen"]
            .as_str()
            .unwrap_or(chess_core::STARTPOS_FEN)
            .to_string();
        chess_core::Position::from_fen(&fen).map_err(|e| format!("invalid fen: {e}"))?;
        let dialect = match args["dialect"].as_str() {
            None => None,
            Some(name) => Some(Language::by_name(name).ok_or_else(|| {
                let names: Vec<&str> = che_pipeline::DIALECTS.iter().map(|d| d.name()).collect();
                format!("unknown dialect `{name}` (expected {})", names.join(", "))
            })?),
        };
        let backend = match args["backend"].as_str() {
            None => Backend::Interp,
            Some(name) => name.parse::<Backend>().map_err(|e| e.to_string())?,
        };
        let config = LaunchConfig {
            program: PathBuf::from(program),
            fen,
            dialect,
            trace: args["trace"].as_bool().unwrap_or(false),
            include_dirs: args["includeDirs"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|d| d.as_str().map(PathBuf::from))
                        .collect()
                })
                .unwrap_or_default(),
            depth: args["depth"]
                .as_u64()
                .and_then(|d| u32::try_from(d).ok())
                .unwrap_or(2),
        };
        let prepared = match prepare(&config) {
            Ok(p) => p,
            Err(diagnostics) => {
                self.out.output("stderr", &diagnostics);
                return Err(format!("{program} does not compile:\n{diagnostics}"));
            }
        };
        if !prepared.warnings.is_empty() {
            self.out.output("stderr", &prepared.warnings);
        }
        if backend != Backend::Interp {
            self.out.output(
                "console",
                &format!(
                    "che dap: the {backend} backend cannot stop between instructions; debugging on the interpreter (the debugger's stepping machine, which runs programs as the interpreter does)\n"
                ),
            );
        }
        let on_entry = args["stopOnEntry"].as_bool().unwrap_or(false);
        self.launch = Some((config, on_entry));
        self.prepared = Some(Arc::new(prepared));
        Ok(json!({}))
    }

    fn set_breakpoints(&mut self, args: &Value) -> Result<Value, String> {
        let path = args["source"]["path"]
            .as_str()
            .ok_or("setBreakpoints needs source.path")?;
        let lines: Vec<u32> = match args["breakpoints"].as_array() {
            Some(b) => b
                .iter()
                .filter_map(|b| b["line"].as_u64())
                .map(|l| l as u32)
                .collect(),
            None => args["lines"]
                .as_array()
                .map(|l| {
                    l.iter()
                        .filter_map(Value::as_u64)
                        .map(|l| l as u32)
                        .collect()
                })
                .unwrap_or_default(),
        };
        let first = self.breakpoint_ids + 1;
        self.breakpoint_ids += lines.len();
        let numbered: Vec<(usize, u32)> = lines
            .iter()
            .enumerate()
            .map(|(i, &line)| (first + i, line))
            .collect();
        if self.prepared.is_none() {
            // Before the launch: kept, and placed (with a `breakpoint`
            // event each) when the program is known.
            let unverified: Vec<Value> = numbered
                .iter()
                .map(|&(id, l)| json!({"id": id, "verified": false, "line": l, "message": "placed when the program is launched"}))
                .collect();
            self.early_breakpoints.retain(|(p, _)| p != path);
            self.early_breakpoints.push((path.to_string(), numbered));
            return Ok(json!({"breakpoints": unverified}));
        }
        let answers = self.place_breakpoints(path, &numbered);
        Ok(json!({"breakpoints": answers}))
    }

    /// Places the breakpoints set before the launch and tells the client
    /// where each went (`breakpoint` events).
    fn place_early_breakpoints(&mut self) {
        for (path, numbered) in std::mem::take(&mut self.early_breakpoints) {
            for answer in self.place_breakpoints(&path, &numbered) {
                self.out.event(
                    "breakpoint",
                    json!({"reason": "changed", "breakpoint": answer}),
                );
            }
        }
    }

    /// Places breakpoints `(id, line)` in the source `path` of the launched
    /// program (each on its line or the next line with code) and answers
    /// for each where it went.
    fn place_breakpoints(&mut self, path: &str, numbered: &[(usize, u32)]) -> Vec<Value> {
        let Some(prepared) = &self.prepared else {
            return Vec::new();
        };
        let file = prepared.file_index(std::path::Path::new(path));
        let mut set = Vec::new();
        let answers: Vec<Value> = numbered
            .iter()
            .map(|&(id, line)| {
                match file.and_then(|f| prepared.breakpoint_line(f, line)) {
                    Some(at) => {
                        set.push(at);
                        json!({"id": id, "verified": true, "line": at})
                    }
                    None => json!({
                        "id": id,
                        "verified": false,
                        "line": line,
                        "message": if file.is_some() { "no code on or after this line" } else { "the program does not use this file" },
                    }),
                }
            })
            .collect();
        if let Some(f) = file {
            lock(&self.shared.breakpoints).insert(f, set);
            self.shared
                .breakpoints_version
                .fetch_add(1, Ordering::SeqCst);
        }
        answers
    }

    fn start(&mut self) -> Result<Value, String> {
        if self.worker.is_some() {
            return Ok(json!({}));
        }
        let (Some((config, on_entry)), Some(prepared)) =
            (self.launch.clone(), self.prepared.clone())
        else {
            return Err("configurationDone before a successful launch".into());
        };
        let (tx, rx) = channel();
        self.commands = Some(tx);
        let out = self.out.clone();
        let shared = self.shared.clone();
        self.worker = Some(std::thread::spawn(move || {
            let run = Run {
                prepared: &prepared,
                config: &config,
                out: &out,
                shared: &shared,
                commands: rx,
            };
            run.run(on_entry);
        }));
        Ok(json!({}))
    }

    fn stopped_snapshot(&self) -> Result<Snapshot, String> {
        lock(&self.shared.snapshot)
            .clone()
            .ok_or_else(|| "the program is not stopped".to_string())
    }

    fn stack_trace(&self) -> Result<Value, String> {
        let s = self.stopped_snapshot()?;
        let frames: Vec<Value> = s
            .frames
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let mut v =
                    json!({"id": i + 1, "name": f.name, "line": f.line, "column": f.column});
                if let Some(p) = &f.path {
                    v["source"] = json!({
                        "name": p.file_name().map(|n| n.to_string_lossy().into_owned()),
                        "path": p.display().to_string(),
                    });
                }
                v
            })
            .collect();
        Ok(json!({"stackFrames": frames, "totalFrames": s.frames.len()}))
    }

    fn scopes(&self, args: &Value) -> Result<Value, String> {
        let s = self.stopped_snapshot()?;
        let id = args["frameId"].as_u64().unwrap_or(0) as usize;
        let frame = id
            .checked_sub(1)
            .and_then(|i| s.frames.get(i))
            .ok_or_else(|| format!("no frame {id}"))?;
        let scopes: Vec<Value> = frame
            .scopes
            .iter()
            .map(|(name, r)| json!({"name": name, "variablesReference": r, "expensive": false}))
            .collect();
        Ok(json!({"scopes": scopes}))
    }

    fn variables(&self, args: &Value) -> Result<Value, String> {
        let s = self.stopped_snapshot()?;
        let r = args["variablesReference"].as_u64().unwrap_or(0) as u32;
        let vars = s.variables(r).ok_or_else(|| format!("no variables {r}"))?;
        let out: Vec<Value> = vars
            .iter()
            .map(|v| json!({"name": v.name, "value": v.value, "variablesReference": v.children}))
            .collect();
        Ok(json!({"variables": out}))
    }

    /// A name of the frame's locals or of the globals, with its value.
    fn evaluate(&self, args: &Value) -> Result<Value, String> {
        let s = self.stopped_snapshot()?;
        let name = args["expression"].as_str().unwrap_or("").trim();
        let frame = args["frameId"]
            .as_u64()
            .and_then(|id| (id as usize).checked_sub(1))
            .unwrap_or(0);
        let scopes = s.frames.get(frame).map_or(&[][..], |f| &f.scopes[..]);
        scopes
            .iter()
            .filter(|(scope, _)| scope != "Advice")
            .filter_map(|&(_, r)| s.variables(r))
            .flat_map(|vars| vars.iter())
            .find(|v| v.name == name)
            .map(|v| json!({"result": v.value, "variablesReference": v.children}))
            .ok_or_else(|| format!("no variable `{name}` in this frame or the globals"))
    }

    fn resume(&mut self, how: Resume) -> Result<(), String> {
        if lock(&self.shared.snapshot).take().is_none() {
            return Err("the program is not stopped".into());
        }
        match &self.commands {
            Some(tx) => tx
                .send(Command::Resume(how))
                .map_err(|_| "the program has ended".to_string()),
            None => Err("the program is not running".into()),
        }
    }
}

/// Sends what the program writes as output events.
struct EventOutput<'a>(&'a Writer);

impl Output for EventOutput<'_> {
    fn write_value(&mut self, value: i32) {
        self.0
            .output("stdout", &format!("{}\n", cvm::format_value(value)));
    }

    fn write_text(&mut self, text: &str) {
        self.0.output("stdout", &format!("{text}\n"));
    }
}

/// One run on its thread.
struct Run<'a> {
    prepared: &'a Prepared,
    config: &'a LaunchConfig,
    out: &'a Writer,
    shared: &'a Shared,
    commands: Receiver<Command>,
}

/// What the run does after a stop.
enum After {
    Go(Resume),
    Abort,
}

impl Run<'_> {
    fn run(self, on_entry: bool) {
        let position = match chess_core::Position::from_fen(&self.config.fen) {
            Ok(p) => p,
            Err(e) => {
                self.out.output("stderr", &format!("invalid fen: {e}\n"));
                self.exit(1);
                return;
            }
        };
        let mut stepper = Stepper::new(on_entry);
        let code = match &self.prepared.cheg {
            Some(program) => {
                // TRY, PLAYB and PLAN value moves with the engine's search,
                // as `che run` does.
                let run = with_cheg_host(
                    self.prepared,
                    program,
                    self.config.program.clone(),
                    position,
                    self.config.depth,
                    |host| self.execute(host, &mut stepper, Some(program)),
                );
                match run {
                    Ok(code) => code,
                    Err(e) => {
                        self.out.output("stderr", &format!("che: {e}\n"));
                        Some(1)
                    }
                }
            }
            None => {
                let mut host = che_engine::host::AdviceHost::new(&position);
                self.execute(&mut host, &mut stepper, None)
            }
        };
        if let Some(code) = code {
            self.exit(code);
        }
    }

    fn exit(&self, code: i32) {
        self.out.event("exited", json!({"exitCode": code}));
        self.out.event("terminated", json!({}));
    }

    /// Stops: publishes the state and waits for the client's word.
    fn stop(&self, machine: &Machine<'_>, reason: &StopReason, host: &dyn HostView) -> After {
        let view = snapshot(self.prepared, machine, &|i, v| host.global(i, v));
        *lock(&self.shared.snapshot) = Some(view);
        let (reason, text) = match reason {
            StopReason::Entry => ("entry", None),
            StopReason::Breakpoint => ("breakpoint", None),
            StopReason::Step => ("step", None),
            StopReason::Pause => ("pause", None),
            StopReason::Break(line) => ("breakpoint", Some(line.clone())),
            StopReason::Exception(message) => ("exception", Some(message.clone())),
        };
        let mut body = json!({"reason": reason, "threadId": 1, "allThreadsStopped": true});
        if let Some(text) = text {
            body["text"] = json!(text);
            body["description"] = json!(text.lines().next().unwrap_or(""));
        }
        self.out.event("stopped", body);
        match self.commands.recv() {
            Ok(Command::Resume(how)) => After::Go(how),
            Ok(Command::Abort) | Err(_) => After::Abort,
        }
    }

    /// Runs the program; the exit status, or `None` when aborted.
    fn execute<H: Host + HostView>(
        &self,
        host: &mut H,
        stepper: &mut Stepper,
        cheg_program: Option<&cheg::ast::Program>,
    ) -> Option<i32> {
        let prepared = self.prepared;
        let mut machine = Machine::new(&prepared.program);
        let mut output = EventOutput(self.out);
        if let Err(e) = machine.start_entry() {
            self.out.output("stderr", &prepared.render_error(&e));
            return Some(2);
        }
        let trace = match cheg_program {
            Some(p) if self.config.trace => statement_starts(prepared, p),
            _ => HashMap::new(),
        };
        let mut breaks = BreakWatch::default();
        let mut pending: Option<StopReason> = None;
        let mut seen_version = u64::MAX;
        let result = loop {
            if self.shared.abort.load(Ordering::SeqCst) {
                return None;
            }
            let Some(at) = machine.offset() else {
                break Ok(Completion::Halted);
            };
            let depth = machine.frames().len();
            let version = self.shared.breakpoints_version.load(Ordering::SeqCst);
            if version != seen_version {
                let breakpoints = lock(&self.shared.breakpoints);
                stepper.breakpoints = breakpoints
                    .iter()
                    .flat_map(|(f, lines)| lines.iter().map(move |l| (*f, *l)))
                    .collect();
                seen_version = version;
            }
            if let (Some(p), Some(&s)) = (cheg_program, trace.get(&at)) {
                self.out.output(
                    "console",
                    &format!("{}\n", trace_line(prepared, p, s, &machine, host)),
                );
            }
            let mut reason = stepper.check(depth, prepared.line_at(at));
            if let Some(r) = pending.take() {
                reason = Some(r);
            }
            if self.shared.pause.swap(false, Ordering::SeqCst) {
                reason = Some(StopReason::Pause);
            }
            if let Some(r) = reason {
                match self.stop(&machine, &r, host) {
                    After::Go(how) => stepper.resume(how, depth),
                    After::Abort => return None,
                }
            }
            let (stepped, stop) = breaks.step(
                &mut machine,
                at,
                cheg_program.is_some(),
                host,
                &mut output,
                &mut |line| self.out.output("stdout", &format!("{line}\n")),
            );
            pending = stop;
            match stepped {
                Stepped::Running => {}
                Stepped::Done(r) => break r,
            }
        };
        match result {
            Ok(_) => {
                for line in host.summary() {
                    self.out.output("stdout", &format!("{line}\n"));
                }
                Some(0)
            }
            Err(e) => {
                let message = prepared.render_error(&e);
                if let After::Abort =
                    self.stop(&machine, &StopReason::Exception(message.clone()), host)
                {
                    return None;
                }
                self.out.output("stderr", &message);
                Some(2)
            }
        }
    }
}

/// The code offsets where a CHEG statement's code starts, with the
/// statement's index.
fn statement_starts(prepared: &Prepared, program: &cheg::ast::Program) -> HashMap<u32, usize> {
    let by_line: HashMap<u32, usize> = program
        .statements
        .iter()
        .enumerate()
        .map(|(i, s)| (s.line, i))
        .collect();
    let mut out = HashMap::new();
    let mut last_line = None;
    for e in &prepared.program.module().lines.entries {
        if Some(e.line) != last_line {
            if let Some(&i) = by_line.get(&e.line) {
                out.entry(e.offset).or_insert(i);
            }
        }
        last_line = Some(e.line);
    }
    out
}

/// A CHEG instruction about to run, as written, with the values of the
/// variables it names.
fn trace_line(
    prepared: &Prepared,
    program: &cheg::ast::Program,
    index: usize,
    machine: &Machine<'_>,
    host: &dyn HostView,
) -> String {
    use cheg::ast::{Arg, Operand};
    let s = &program.statements[index];
    let written = prepared
        .sources
        .get(s.span.file)
        .map(|f| crate::analysis::line_text(&f.text, s.span.lo as usize))
        .unwrap_or("");
    let written = written.split(';').next().unwrap_or("").trim();
    let values: Vec<String> = s
        .args
        .iter()
        .enumerate()
        .filter_map(|(i, a)| match a {
            Arg::Value(Operand::Var(v)) => {
                let name = program.variables.get(*v)?;
                let value = machine
                    .memory()
                    .globals
                    .get(*v)
                    .map_or_else(|| "?".to_string(), |&h| host.global(*v, h));
                Some(format!("{name}={value}"))
            }
            Arg::Value(Operand::Pre(p)) => {
                let name = prepared.sources.text(*s.arg_spans.get(i)?).trim();
                let value = match p {
                    // The subroutine argument: the running routine's local X.
                    cheg::table::Predefined::X => machine.frames().last().and_then(|f| {
                        let slots = &prepared
                            .program
                            .module()
                            .functions
                            .get(f.func as usize)?
                            .slot_names;
                        let slot = slots.iter().position(|n| n == name)?;
                        f.slots.get(slot).map(|&h| host.global(0, h))
                    }),
                    p => host.predefined(*p),
                };
                Some(format!("{name}={}", value.unwrap_or_else(|| "?".into())))
            }
            _ => None,
        })
        .collect();
    let mut text = format!("trace {}: {written}", s.line);
    if !values.is_empty() {
        text.push_str(&format!("  [{}]", values.join(" ")));
    }
    text
}
