//! A program prepared for debugging, and the rules of a debug session that
//! do not depend on the protocol: where source lines start in the code,
//! which breakpoint lines have code, when a step ends, and what the
//! machine's state looks like as named, nested values.

use crate::analysis::{normalize, Language};
use crate::debug::machine::{Machine, Stepped};
use cvm::{Host, Output, Program, RuntimeError};
use cvm_frontend::SourceMap;
use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};

/// What a debug session runs.
#[derive(Clone, Debug)]
pub struct LaunchConfig {
    /// The program's source file.
    pub program: PathBuf,
    /// The position, as FEN.
    pub fen: String,
    /// The language, when not the file's extension's.
    pub dialect: Option<Language>,
    /// CHEG only: print each executed instruction with its operands'
    /// values.
    pub trace: bool,
    /// Folders searched by `include` (the command line's `-I`).
    pub include_dirs: Vec<PathBuf>,
    /// CHEG only: the depth of the search behind TRY, PLAYB and PLAN.
    pub depth: u32,
}

/// A compiled program with what a debugger needs to show it.
pub struct Prepared {
    /// The language it was written in.
    pub language: Language,
    /// The verified program (not optimized: every statement keeps its
    /// code and its line).
    pub program: Program,
    /// The sources it was compiled from (to render runtime errors).
    pub sources: SourceMap,
    /// For CHEG: the parsed program the runtime needs.
    pub cheg: Option<cheg::ast::Program>,
    /// The file of each line-table file entry.
    pub files: Vec<PathBuf>,
    /// The front end's warnings, rendered.
    pub warnings: String,
}

/// Compiles the program of `config` as `che run` would, without the
/// optimizer; `Err` holds the rendered diagnostics.
pub fn prepare(config: &LaunchConfig) -> Result<Prepared, String> {
    let path = &config.program;
    if config.dialect.is_none()
        && matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("cmp" | "asm")
        )
    {
        return Err(format!(
            "{} is a compiled module; the debugger runs source programs (.che, .che3, .cheg), whose lines it can show\n",
            path.display()
        ));
    }
    let language = config.dialect.unwrap_or_else(|| Language::of_path(path));
    let options = che_pipeline::Options {
        include_dirs: config.include_dirs.clone(),
        optimize: false,
    };
    let c = che_pipeline::compile(
        language.front_end(),
        che_pipeline::Input::File(path),
        &che_pipeline::FsLoader,
        &options,
    );
    let diagnostics = c.render_diagnostics();
    let cheg_program = cheg::checked(&c).cloned();
    let Some(program) = c.program else {
        return Err(diagnostics);
    };
    Ok(Prepared::from_program(
        language,
        program,
        c.sources,
        cheg_program,
        diagnostics,
    ))
}

/// The file a line-table name stands for: the source map's file of that
/// name, the copy of the standard library, or the name as a path.
fn file_of(sources: &SourceMap, name: &str) -> PathBuf {
    let file = sources.find(name).and_then(|id| sources.get(id));
    match file.and_then(|f| f.path.clone()) {
        Some(p) => normalize(&p),
        None if name == chepp::STDLIB_NAME => {
            crate::lsp::stdlib_file().unwrap_or_else(|| PathBuf::from(name))
        }
        None => normalize(Path::new(name)),
    }
}

impl Prepared {
    /// A program compiled elsewhere (from `sources`, without the
    /// optimizer, for every statement to keep its line).
    pub fn from_program(
        language: Language,
        program: Program,
        sources: SourceMap,
        cheg: Option<cheg::ast::Program>,
        warnings: String,
    ) -> Prepared {
        let files = program
            .module()
            .lines
            .files
            .iter()
            .map(|name| file_of(&sources, name))
            .collect();
        Prepared {
            language,
            program,
            sources,
            cheg,
            files,
            warnings,
        }
    }

    /// The (file index, line) of the code at `offset`.
    pub fn line_at(&self, offset: u32) -> Option<(u32, u32)> {
        let entries = &self.program.module().lines.entries;
        let i = entries.partition_point(|e| e.offset <= offset);
        let e = entries.get(i.checked_sub(1)?)?;
        Some((e.file, e.line))
    }

    /// The index of `path` among the line table's files.
    pub fn file_index(&self, path: &Path) -> Option<u32> {
        let path = normalize(path);
        self.files.iter().position(|f| *f == path).map(|i| i as u32)
    }

    /// The lines of file `file` that have code.
    pub fn code_lines(&self, file: u32) -> BTreeSet<u32> {
        self.program
            .module()
            .lines
            .entries
            .iter()
            .filter(|e| e.file == file)
            .map(|e| e.line)
            .collect()
    }

    /// Where a breakpoint asked for at `line` goes: that line when it has
    /// code, else the next line that has.
    pub fn breakpoint_line(&self, file: u32, line: u32) -> Option<u32> {
        self.code_lines(file).range(line..).next().copied()
    }

    /// A runtime error rendered as the command line shows it.
    pub fn render_error(&self, error: &RuntimeError) -> String {
        cvm_frontend::render_runtime_error(error, &self.sources)
    }
}

/// Why a run stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// Before the first instruction (`stopOnEntry`).
    Entry,
    /// At a breakpoint's line.
    Breakpoint,
    /// A step ended.
    Step,
    /// The client asked for a pause.
    Pause,
    /// CHEG's BREAK ran (its `break` line).
    Break(String),
    /// A runtime error (the rendered message).
    Exception(String),
}

/// How the client resumes a stopped run.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Resume {
    /// Run to the next breakpoint.
    Continue,
    /// Step over: stop at the next line of this routine or a caller.
    Next,
    /// Step in: stop at the next line anywhere.
    StepIn,
    /// Step out: stop at the next line of a caller.
    StepOut,
}

/// Decides, before each instruction, whether the run stops there.
///
/// A line starts (a *boundary*) when the instruction's line differs from
/// the last line executed in the same frame; the first instruction of a
/// call is one, the rest of the caller's line after a call returns is not.
/// Breakpoints and steps stop at boundaries only.
#[derive(Clone, Debug, Default)]
pub struct Stepper {
    mode: Mode,
    frame_lines: Vec<Option<(u32, u32)>>,
    /// Breakpoints as (line-table file, line).
    pub breakpoints: HashSet<(u32, u32)>,
}

#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
enum Mode {
    #[default]
    Run,
    Entry,
    StepIn,
    Over(usize),
    Out(usize),
}

impl Stepper {
    /// A stepper that stops before the first instruction when `on_entry`.
    pub fn new(on_entry: bool) -> Stepper {
        Stepper {
            mode: if on_entry { Mode::Entry } else { Mode::Run },
            ..Stepper::default()
        }
    }

    /// Whether the run stops before an instruction at `pos` in a frame
    /// `depth` deep (1 for the entry routine).
    pub fn check(&mut self, depth: usize, pos: Option<(u32, u32)>) -> Option<StopReason> {
        let depth = depth.max(1);
        self.frame_lines.truncate(depth);
        self.frame_lines.resize(depth, None);
        let boundary = pos.is_some() && self.frame_lines[depth - 1] != pos;
        if pos.is_some() {
            self.frame_lines[depth - 1] = pos;
        }
        if self.mode == Mode::Entry {
            self.mode = Mode::Run;
            return Some(StopReason::Entry);
        }
        if !boundary {
            return None;
        }
        if pos.is_some_and(|p| self.breakpoints.contains(&p)) {
            self.mode = Mode::Run;
            return Some(StopReason::Breakpoint);
        }
        let stop = match self.mode {
            Mode::Run | Mode::Entry => false,
            Mode::StepIn => true,
            Mode::Over(d) => depth <= d,
            Mode::Out(d) => depth < d,
        };
        if stop {
            self.mode = Mode::Run;
            return Some(StopReason::Step);
        }
        None
    }

    /// Resumes a run stopped in a frame `depth` deep.
    pub fn resume(&mut self, how: Resume, depth: usize) {
        self.mode = match how {
            Resume::Continue => Mode::Run,
            Resume::StepIn => Mode::StepIn,
            Resume::Next => Mode::Over(depth),
            Resume::StepOut => Mode::Out(depth),
        };
    }
}

/// One named value of the variables view; `children` is the index of the
/// nested list (0 for none, as the protocol's `variablesReference`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Var {
    /// The name.
    pub name: String,
    /// The value as shown.
    pub value: String,
    /// The reference of its elements, or 0.
    pub children: u32,
}

/// One frame of the stack view.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FrameView {
    /// The routine.
    pub name: String,
    /// The source file, when the code has a line.
    pub path: Option<PathBuf>,
    /// 1-based line (0 without one).
    pub line: u32,
    /// 1-based column (0 without one).
    pub column: u32,
    /// The scopes: (name, reference).
    pub scopes: Vec<(String, u32)>,
}

/// The state of a stopped run, as the client sees it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Snapshot {
    /// The frames, innermost first.
    pub frames: Vec<FrameView>,
    /// The variable lists; reference `r` is `vars[r - 1]`.
    pub vars: Vec<Vec<Var>>,
}

impl Snapshot {
    fn add(&mut self, vars: Vec<Var>) -> u32 {
        self.vars.push(vars);
        self.vars.len() as u32
    }

    /// The variables behind reference `r`.
    pub fn variables(&self, r: u32) -> Option<&[Var]> {
        self.vars
            .get((r as usize).checked_sub(1)?)
            .map(Vec::as_slice)
    }
}

const COLOURS: [&str; 2] = ["w", "b"];
const KINDS: [char; 6] = ['P', 'N', 'B', 'R', 'Q', 'K'];

fn square(i: usize) -> String {
    cvm_chess::lit::square_name(i as i32).unwrap_or_else(|| i.to_string())
}

/// Builds the view of a stopped machine. `global` shows a global's value
/// (CHEG's globals hold handles into its runtime's heap).
pub fn snapshot(
    prepared: &Prepared,
    machine: &Machine<'_>,
    global: &dyn Fn(usize, i32) -> String,
) -> Snapshot {
    let module = prepared.program.module();
    let memory = machine.memory();
    let mut s = Snapshot::default();
    let list_vars = |s: &mut Snapshot, id: i32| -> (String, u32) {
        let Some(def) = module.lists.get(id as usize) else {
            return (format!("list {id}"), 0);
        };
        let elements = memory.list_elements(id as u32);
        let vars = elements
            .iter()
            .enumerate()
            .map(|(i, v)| Var {
                name: format!("[{i}]"),
                value: v.to_string(),
                children: 0,
            })
            .collect();
        let r = s.add(vars);
        (
            format!(
                "{} ({} of {} elements)",
                def.name,
                elements.len(),
                def.capacity
            ),
            r,
        )
    };
    // Globals and lists, shared by every frame.
    let mut globals: Vec<Var> = module
        .globals
        .iter()
        .enumerate()
        .map(|(i, g)| Var {
            // CHEG's variable i is global i (named `v.NAME` in the module).
            name: prepared
                .cheg
                .as_ref()
                .and_then(|p| p.variables.get(i).cloned())
                .unwrap_or_else(|| g.name.clone()),
            value: global(i, memory.globals.get(i).copied().unwrap_or(0)),
            children: 0,
        })
        .collect();
    for id in 0..module.lists.len() {
        let (value, children) = list_vars(&mut s, id as i32);
        globals.push(Var {
            name: module.lists[id].name.clone(),
            value,
            children,
        });
    }
    let globals_ref = s.add(globals);
    let advice = advice_vars(machine.advice());
    let advice_ref = s.add(advice);
    for frame in machine.frames().iter().rev() {
        let f = &module.functions[frame.func as usize];
        let mut locals = Vec::new();
        for (i, &v) in frame.slots.iter().enumerate() {
            let name = f
                .slot_names
                .get(i)
                .cloned()
                .unwrap_or_else(|| format!("slot {i}"));
            if f.slot_type(i as u32) == Some(cvm::isa::Ty::List) {
                let (value, children) = list_vars(&mut s, v);
                locals.push(Var {
                    name,
                    value,
                    children,
                });
            } else {
                locals.push(Var {
                    name,
                    value: v.to_string(),
                    children: 0,
                });
            }
        }
        if !frame.stack.is_empty() {
            let items: Vec<String> = frame.stack.iter().map(i32::to_string).collect();
            locals.push(Var {
                name: "(operand stack)".into(),
                value: format!("[{}]", items.join(", ")),
                children: 0,
            });
        }
        let locals_ref = s.add(locals);
        let pos = module.source_pos(frame.pc);
        let path = prepared
            .line_at(frame.pc)
            .and_then(|(file, _)| prepared.files.get(file as usize).cloned());
        s.frames.push(FrameView {
            name: f.name.clone(),
            path,
            line: pos.as_ref().map_or(0, |p| p.line),
            column: pos.as_ref().map_or(0, |p| p.col),
            scopes: vec![
                ("Locals".into(), locals_ref),
                ("Globals".into(), globals_ref),
                ("Advice".into(), advice_ref),
            ],
        });
    }
    s
}

/// The advice table's entries that are set, one a line.
fn advice_vars(t: &cvm::AdviceTable) -> Vec<Var> {
    let mut out = Vec::new();
    let mut push = |name: String, v: i32| {
        out.push(Var {
            name,
            value: v.to_string(),
            children: 0,
        })
    };
    for (c, colour) in COLOURS.iter().enumerate() {
        for (k, kind) in KINDS.iter().enumerate() {
            for sq in 0..64 {
                let v = t.square_bonus[c][k][sq];
                if v != 0 {
                    push(format!("square bonus {colour}{kind} {}", square(sq)), v);
                }
            }
        }
    }
    for (c, colour) in COLOURS.iter().enumerate() {
        for from in 0..64 {
            for to in 0..64 {
                let v = t.move_bonus[c][from][to];
                if v != 0 {
                    push(
                        format!("move bonus {colour} {}{}", square(from), square(to)),
                        v,
                    );
                }
            }
        }
    }
    for (c, colour) in COLOURS.iter().enumerate() {
        for (k, kind) in KINDS.iter().enumerate() {
            let v = t.piece_value[c][k];
            if v != 0 {
                push(format!("piece value {colour}{kind}"), v);
            }
            for sq in 0..64 {
                let v = t.control_bonus[c][k][sq];
                if v != 0 {
                    push(format!("control bonus {colour}{kind} {}", square(sq)), v);
                }
            }
        }
    }
    for (i, p) in cvm_chess::style::STYLE_PARAMS.iter().enumerate() {
        if t.style_set & (1 << i) != 0 {
            push(format!("style {}", p.name), t.style[i]);
        }
    }
    if t.verbose != 0 {
        push("verbose".into(), t.verbose);
    }
    out
}

/// What a debugger shows of the host a program runs on: CHEG's globals
/// and predefined variables are values of its runtime, its BREAK lines and
/// its closing lines (the move and value) are output.
pub trait HostView {
    /// A global's value as shown.
    fn global(&self, _index: usize, value: i32) -> String {
        value.to_string()
    }
    /// A CHEG predefined variable's value as shown.
    fn predefined(&self, _p: cheg::table::Predefined) -> Option<String> {
        None
    }
    /// CHEG's `break` lines so far.
    fn breaks(&self) -> &[String] {
        &[]
    }
    /// The lines `che run` prints at the end (CHEG's move and value).
    fn summary(&self) -> Vec<String> {
        Vec::new()
    }
}

impl HostView for che_engine::host::AdviceHost {}

impl HostView for cheg::ChegHost<'_> {
    fn global(&self, _index: usize, value: i32) -> String {
        self.value(value).to_string()
    }

    fn predefined(&self, p: cheg::table::Predefined) -> Option<String> {
        Some(self.predefined_value(p).to_string())
    }

    fn breaks(&self) -> &[String] {
        &self.report().breaks
    }

    fn summary(&self) -> Vec<String> {
        self.report().summary_lines()
    }
}

/// Whether the instruction at `at` is `intr HostCall` for `service` (the
/// service number is the fourth value from the top of the stack).
fn is_host_call(machine: &Machine<'_>, at: u32, service: i32) -> bool {
    let code = &machine.program().module().code;
    let Ok(instr) = cvm::isa::Instr::decode(code, at as usize) else {
        return false;
    };
    if instr.opcode != cvm::isa::Opcode::Intr
        || instr.operand_words().first().copied() != Some(cvm::intrinsics::HOST_CALL)
    {
        return false;
    }
    let Some(frame) = machine.frames().last() else {
        return false;
    };
    frame
        .stack
        .len()
        .checked_sub(4)
        .and_then(|i| frame.stack.get(i))
        .is_some_and(|&s| s == service)
}

/// Whether the instruction at `at` is CHEG's BREAK (the host call of its
/// service).
fn is_break(machine: &Machine<'_>, at: u32) -> bool {
    let service = cheg::service::INSTRUCTION + cheg::table::Instr::Break.index() as i32;
    is_host_call(machine, at, service)
}

/// Follows the BREAK lines a CHEG run prints, step by step: each new one is
/// output, and a BREAK instruction stops the run after it.
#[derive(Default)]
pub struct BreakWatch {
    /// BREAK lines already seen.
    seen: usize,
}

impl BreakWatch {
    /// Steps `machine` (at code offset `at`) once on `host` and hands each
    /// BREAK line the step printed to `emit`; returns the step and, when
    /// the step was a CHEG BREAK, the stop it makes before the next
    /// instruction.
    pub fn step<H: Host + HostView>(
        &mut self,
        machine: &mut Machine<'_>,
        at: u32,
        cheg: bool,
        host: &mut H,
        out: &mut dyn Output,
        emit: &mut dyn FnMut(&str),
    ) -> (Stepped, Option<StopReason>) {
        let at_break = cheg && is_break(machine, at);
        let stepped = machine.step(host, out);
        let breaks = host.breaks();
        let mut stop = None;
        if breaks.len() > self.seen {
            for line in &breaks[self.seen..] {
                emit(line);
            }
            if at_break {
                stop = breaks.last().map(|line| StopReason::Break(line.clone()));
            }
            self.seen = breaks.len();
        }
        (stepped, stop)
    }
}

/// Runs `run` with the host of CHEG program `program` (of `prepared`,
/// read from `source`) on `position`, whose TRY, PLAYB and PLAN value the
/// moves they try with the engine's search at `depth`, as `che run` does
/// (`Engine::with_endgame_searcher`); an error when the program cannot be
/// prepared for the run.
pub fn with_cheg_host<R>(
    prepared: &Prepared,
    program: &cheg::ast::Program,
    source: PathBuf,
    position: chess_core::Position,
    depth: u32,
    run: impl FnOnce(&mut cheg::ChegHost<'_>) -> R,
) -> Result<R, che_engine::engine::EndgameRunError> {
    let mut engine = che_engine::engine::Engine::new(
        che_engine::options::EngineOptions::endgame_run(cvm::Backend::Interp),
    );
    engine.set_endgame_program(Some(che_engine::endgame::EndgameProgram::from_parts(
        che_engine::endgame::EndgameSource::File(source),
        program.clone(),
        prepared.program.clone(),
        prepared.sources.clone(),
    )));
    engine.with_endgame_searcher(&position, depth, |searcher| {
        let mut host = cheg::ChegHost::new(program, position, searcher);
        host.set_context(1, None);
        run(&mut host)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_stop_at_line_starts_by_depth() {
        let mut s = Stepper::new(true);
        assert_eq!(s.check(1, Some((0, 5))), Some(StopReason::Entry));
        s.resume(Resume::Next, 1);
        // The rest of line 5, a call (line 1 in the callee), back on 5.
        assert_eq!(s.check(1, Some((0, 5))), None);
        assert_eq!(s.check(2, Some((0, 1))), None);
        assert_eq!(s.check(2, Some((0, 2))), None);
        assert_eq!(s.check(1, Some((0, 5))), None);
        assert_eq!(s.check(1, Some((0, 6))), Some(StopReason::Step));
        s.resume(Resume::StepIn, 1);
        assert_eq!(s.check(2, Some((0, 1))), Some(StopReason::Step));
        s.resume(Resume::StepOut, 2);
        assert_eq!(s.check(2, Some((0, 2))), None);
        assert_eq!(s.check(1, Some((0, 6))), None);
        assert_eq!(s.check(1, Some((0, 7))), Some(StopReason::Step));
        s.breakpoints.insert((0, 2));
        s.resume(Resume::Continue, 1);
        assert_eq!(s.check(2, Some((0, 1))), None);
        assert_eq!(s.check(2, Some((0, 2))), Some(StopReason::Breakpoint));
        assert_eq!(s.check(2, Some((0, 2))), None);
    }
}
