//! `che`: the Che++ tool chain on the command line.
//!
//! ```text
//! che compile FILE.che [-I DIR]... [--no-opt] [-o FILE.cmp]
//! che asm FILE.che|FILE.cmp|FILE.asm [-I DIR]... [--no-opt] [-o FILE.asm]
//! che assemble FILE.asm [-o FILE.cmp]
//! che run FILE [--backend interp|jit|auto] [--fen FEN] [--fuel N] [--no-opt] [-I DIR]...
//! che advice FILE [--backend interp|jit|auto] [--fen FEN] [--fuel N] [--no-opt] [-I DIR]...
//! che convert FILE.che3 [-I DIR]... [-o FILE.che]
//! che lsp
//! che dap
//! ```
//!
//! A `.cheg` file is a CHEG endgame program: `compile`, `asm` and `run`
//! take it too (`run` also reads `--depth N`, the depth of the engine's
//! search behind TRY, PLAYB and PLAN as `go depth N` gives it, default 2;
//! `--depth` with any other program is refused as a bad argument, status
//! 1); see `che_cli::cheg_cmd`.
//!
//! A program is read by its extension: `.cmp` is a compiled module, `.asm`
//! CVM assembler, `.che3` a program in Nimzo 3's Che dialect, anything else
//! Che++ source; `--dialect che3` (or `che++`) reads any file as source of
//! that dialect. `convert` writes a Che program as Che++. Source goes through the
//! loophole optimizer unless `--no-opt` is given (so `asm` shows the
//! optimized listing); `.cmp` and `.asm` input runs as it is. Diagnostics go to standard
//! error as `file:line:col: error: message` with the source line and a
//! caret. `run` prints one line per `write` (`decimal 0xHHHHHHHH`) and per
//! `TextOut`; `advice` prints the advice table as JSON.
//!
//! Exit status: 0 on success, 1 for compile errors (and unreadable files or
//! bad arguments), 2 for runtime errors.
//!
//! Files named on the command line and by `include` are read through
//! `cvm_frontend::file`: a directory, FIFO or device is refused, and so is a
//! file over 4 MiB. An output file (`-o`, `--svg`) that is one of the
//! inputs (the same file under any name) is refused before anything is
//! written, with exit status 1.
//!
//! Nothing here panics on a closed pipe: a closed standard error is ignored,
//! and a closed standard output ends the command with `che: cannot write the
//! output: ...` on standard error and exit status 1 (the status of a compile
//! or runtime error found first is kept).

use che_cli::advice_json::advice_json;
use che_cli::cheg_cmd;
use che_engine::host::AdviceHost;
use che_pipeline::{Input, ModuleError, ModuleFile, ModuleKind, Options};
use chess_core::{Position, STARTPOS_FEN};
use clap::builder::TypedValueParser as _;
use clap::{Args, Parser, Subcommand};
use cvm::{
    asm, binary, Backend, CollectOutput, Limits, Module, Output, Program, RuntimeError,
    WriterOutput,
};
use cvm_chess::advice_table::AdviceTable;
use cvm_frontend::{FsLoader, SourceMap};
use jit::Prepared;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The Che++ and Che compiler, assembler, runner and converter.
#[derive(Parser)]
#[command(name = "che", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Compile Che++ or Che source to a .cmp module.
    Compile {
        /// The main source file.
        file: PathBuf,
        #[command(flatten)]
        includes: Includes,
        /// Output file (default: FILE with the extension .cmp).
        #[arg(short = 'o')]
        output: Option<PathBuf>,
    },
    /// Write the CVM assembler listing of a program.
    Asm {
        /// A .che, .che3, .cmp or .asm file.
        file: PathBuf,
        #[command(flatten)]
        includes: Includes,
        /// Output file (default: standard output).
        #[arg(short = 'o')]
        output: Option<PathBuf>,
    },
    /// Assemble a .asm listing into a .cmp module.
    Assemble {
        /// The .asm file.
        file: PathBuf,
        /// Output file (default: FILE with the extension .cmp).
        #[arg(short = 'o')]
        output: Option<PathBuf>,
    },
    /// Run main() on a position and print what it writes.
    Run(RunArgs),
    /// Run main() on a position and print the advice table as JSON.
    Advice {
        #[command(flatten)]
        run: RunArgs,
        /// Also draw the advice as an SVG picture into this file.
        #[arg(long, value_name = "FILE")]
        svg: Option<PathBuf>,
    },
    /// Serve the web playground on 127.0.0.1 (editor, board, both backends, the engine).
    Serve {
        /// The port (0 picks a free one).
        #[arg(long, default_value_t = 8022)]
        port: u16,
    },
    /// Convert a Che (Nimzo 3) program to Che++.
    Convert {
        /// The Che program (read as Che whatever its extension).
        file: PathBuf,
        #[command(flatten)]
        includes: Includes,
        /// Output file (default: standard output).
        #[arg(short = 'o')]
        output: Option<PathBuf>,
    },
    /// Serve the Language Server Protocol on standard input and output (for editors).
    Lsp,
    /// Serve the Debug Adapter Protocol on standard input and output (for editors).
    Dap,
    /// Compile the bundled example advice program and run it on a position
    /// with both backends, side by side.
    Demo {
        /// The position (default: a Colle-system opening position).
        #[arg(long, default_value = DEMO_FEN)]
        fen: String,
    },
}

/// The demo's default position: after 1.d4 d5 2.Nf3 Nf6 3.e3 e6 4.Bd3 c5
/// 5.c3, a Colle system, which the example program recognises.
const DEMO_FEN: &str = che_cli::demo::COLLE_FEN;

/// How source is compiled.
#[derive(Args)]
struct Includes {
    /// Folder searched by `include` after the including file's folder.
    #[arg(short = 'I', value_name = "DIR")]
    dirs: Vec<PathBuf>,
    /// Do not run the loophole optimizer on compiled source.
    #[arg(long)]
    no_opt: bool,
    /// Read the file as source of this dialect, whatever its extension
    /// (default: `.che3` is Che, `.cheg` is CHEG, `.cmp` and `.asm` are modules, anything
    /// else Che++). CHEG programs are recognised by their extension (or a module's contents).
    #[arg(long, value_parser = DialectParser)]
    dialect: Option<SourceDialect>,
}

/// A dialect `--dialect` names: one of the registry's (`che_pipeline::DIALECTS`) whose programs
/// run as `main()` on a position.
#[derive(Copy, Clone)]
struct SourceDialect(&'static dyn che_pipeline::Dialect);

/// The registry's dialects `--dialect` offers: those of advice programs, not CHEG, whose
/// programs are endgame programs with their own runner (`che_cli::cheg_cmd`), chosen by the
/// file's extension.
fn source_dialects() -> impl Iterator<Item = &'static dyn che_pipeline::Dialect> {
    che_pipeline::for_purpose(che_pipeline::Purpose::Advice)
}

/// Parses `--dialect` through the registry (`che_pipeline::by_name`, so every name and alias it
/// knows), offering the names of [`source_dialects`].
#[derive(Copy, Clone)]
struct DialectParser;

impl clap::builder::TypedValueParser for DialectParser {
    type Value = SourceDialect;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        _arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<SourceDialect, clap::Error> {
        let name = value.to_string_lossy();
        che_pipeline::by_name(&name)
            .filter(|d| d.purpose() == che_pipeline::Purpose::Advice)
            .map(SourceDialect)
            .ok_or_else(|| {
                clap::Error::raw(
                    clap::error::ErrorKind::InvalidValue,
                    format!(
                        "invalid value '{name}' for '--dialect <DIALECT>': expected one of {}\n",
                        che_pipeline::dialect_names(che_pipeline::Purpose::Advice)
                    ),
                )
                .with_cmd(cmd)
            })
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(
            source_dialects().map(|d| clap::builder::PossibleValue::new(d.name())),
        ))
    }
}

#[derive(Args)]
struct RunArgs {
    /// A .che, .che3, .cmp or .asm file.
    file: PathBuf,
    #[command(flatten)]
    includes: Includes,
    /// The execution backend.
    #[arg(long, default_value = "interp", value_parser = backend_parser())]
    backend: Backend,
    /// The position (default: the initial position).
    #[arg(long, default_value = STARTPOS_FEN)]
    fen: String,
    /// Fuel bound: calls and backward jumps by the code they run, output, intrinsics' work (default: unbounded).
    #[arg(long)]
    fuel: Option<u64>,
    /// CHEG programs only: the depth of the engine's search behind TRY, PLAYB and PLAN, as
    /// `go depth` takes it (default 2).
    #[arg(long)]
    depth: Option<u32>,
}

/// The plies of a CHEG run's search when `--depth` is not given.
const DEFAULT_CHEG_DEPTH: u32 = 2;

impl RunArgs {
    /// Refuses `--depth` for a program that is not CHEG: it would do
    /// nothing there.
    fn refuse_depth(&self) -> Result<(), Failed> {
        match self.depth {
            Some(_) => Err(fail(format!(
                "--depth sets the search of CHEG programs (.cheg) and does nothing for {}; leave it out",
                self.file.display()
            ))),
            None => Ok(()),
        }
    }
}

/// Reads `--backend`: the names [`Backend`] knows, listed in the help.
fn backend_parser() -> impl clap::builder::TypedValueParser<Value = Backend> {
    clap::builder::PossibleValuesParser::new(Backend::ALL.map(Backend::name))
        .try_map(|name| name.parse::<Backend>())
}

/// How a command failed: the exit status, after the message was printed.
struct Failed(u8);

const COMPILE_ERROR: Failed = Failed(1);
const RUNTIME_ERROR: Failed = Failed(2);

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 1 } else { 0 });
        }
    };
    match run(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failed(code)) => ExitCode::from(code),
    }
}

/// Writes to standard error; a closed standard error is ignored (there is
/// no one left to tell).
fn to_stderr(text: &str) {
    let _ = std::io::stderr().write_all(text.as_bytes());
}

/// Writes to standard output; a write error (a closed pipe) is reported as
/// a failure.
fn to_stdout(text: &str) -> Result<(), Failed> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| fail(format!("cannot write the output: {e}")))
}

fn fail(message: impl std::fmt::Display) -> Failed {
    to_stderr(&format!("che: {message}\n"));
    COMPILE_ERROR
}

/// A loaded program: source compiled through the one front-end interface,
/// or a module file.
enum Loaded {
    /// Source that compiled: its program (optimized unless `--no-opt`)
    /// and the files it was read from, for error messages.
    Compiled {
        /// The verified program.
        program: Program,
        /// The sources.
        sources: SourceMap,
    },
    /// A `.cmp` or `.asm` file, as it is.
    Module(ModuleFile),
}

impl Loaded {
    /// The module.
    fn module(&self) -> &Module {
        match self {
            Loaded::Compiled { program, .. } => program.module(),
            Loaded::Module(m) => m.module(),
        }
    }

    /// The sources, for compiled source.
    fn sources(&self) -> Option<&SourceMap> {
        match self {
            Loaded::Compiled { sources, .. } => Some(sources),
            Loaded::Module(_) => None,
        }
    }
}

fn read(path: &Path) -> Result<Vec<u8>, Failed> {
    cvm_frontend::file::read_program(path)
        .map_err(|e| fail(format!("cannot read {}: {e}", path.display())))
}

/// Compiles `path` through the one front-end interface, in the dialect
/// `--dialect` names, else the one its extension names.
fn compile(path: &Path, includes: &Includes) -> Result<Loaded, Failed> {
    let dialect = match includes.dialect {
        Some(d) => d.0,
        None => che_pipeline::by_path(path),
    };
    let options = Options {
        include_dirs: includes.dirs.clone(),
        optimize: !includes.no_opt,
    };
    let compiled = che_pipeline::compile(dialect, Input::File(path), &FsLoader, &options);
    to_stderr(&compiled.render_diagnostics());
    match compiled.program {
        Some(program) => Ok(Loaded::Compiled {
            program,
            sources: compiled.sources,
        }),
        None => Err(compile_failed(compiled.errors().count(), path)),
    }
}

fn compile_failed(n: usize, path: &Path) -> Failed {
    to_stderr(&format!(
        "che: {} error{} in {}\n",
        n,
        if n == 1 { "" } else { "s" },
        path.display()
    ));
    COMPILE_ERROR
}

/// `che convert`: the Che program at `path` as Che++, and the files it was
/// read from.
fn convert(path: &Path, includes: &Includes) -> Result<(String, SourceMap), Failed> {
    if let Some(d) = includes.dialect.filter(|d| d.0.name() != che3::NAME) {
        return Err(fail(format!(
            "convert reads Che (Nimzo 3) programs; --dialect {} does not apply",
            d.0.name()
        )));
    }
    let options = che3::CompileOptions {
        include_dirs: includes.dirs.clone(),
    };
    let converted = che3::convert_file(path, &options);
    to_stderr(&converted.render_diagnostics());
    let errors = converted.errors().count();
    match converted.chepp {
        Some(text) => Ok((text, converted.sources)),
        None => Err(compile_failed(errors, path)),
    }
}

fn load(path: &Path, includes: &Includes) -> Result<Loaded, Failed> {
    if includes.dialect.is_some() {
        return compile(path, includes);
    }
    let Some(kind) = ModuleKind::of(path) else {
        return compile(path, includes);
    };
    let shown = path.display();
    che_pipeline::read_module(path, kind)
        .map(Loaded::Module)
        .map_err(|e| match e {
            ModuleError::Read(e) => fail(format!("cannot read {shown}: {e}")),
            ModuleError::Cmp(e) => fail(format!("{shown}: {e}")),
            ModuleError::Asm(e) => fail(format!("{shown}:{e}")),
        })
}

/// Refuses an output path that names the same file as one of the inputs
/// (the input would be lost).
fn refuse_overwrite<'a>(
    output: &Path,
    inputs: impl IntoIterator<Item = &'a Path>,
) -> Result<(), Failed> {
    for input in inputs {
        if cvm_frontend::file::same_file(output, input) {
            return Err(fail(format!(
                "the output {} is the input {}; choose another output file",
                output.display(),
                input.display()
            )));
        }
    }
    Ok(())
}

/// The files a program was read from: the file named and, for source, every
/// file it included.
fn input_files<'a>(file: &'a Path, sources: Option<&'a SourceMap>) -> Vec<&'a Path> {
    let mut files = vec![file];
    if let Some(s) = sources {
        files.extend(s.files().iter().filter_map(|f| f.path.as_deref()));
    }
    files
}

fn write_file(path: &Path, bytes: &[u8]) -> Result<(), Failed> {
    std::fs::write(path, bytes).map_err(|e| fail(format!("cannot write {}: {e}", path.display())))
}

/// The verified program and, for source, the files it was read from: a
/// compiled or loaded program is verified already; an assembled one is
/// verified here.
fn verify(loaded: Loaded) -> Result<(Program, Option<SourceMap>), Failed> {
    match loaded {
        Loaded::Compiled { program, sources } => Ok((program, Some(sources))),
        Loaded::Module(m) => m
            .verify()
            .map(|p| (p, None))
            .map_err(|e| fail(format!("invalid module: {e}"))),
    }
}

/// Renders a runtime error with its source line: from the compilation's
/// sources, or else from the file the line table names, if readable.
fn report_runtime(error: &RuntimeError, sources: Option<&SourceMap>) {
    let text = match (sources, &error.pos) {
        (Some(s), _) => cvm_frontend::render_runtime_error(error, s),
        (None, Some(pos)) => {
            let mut s = chepp::SourceMap::new();
            if let Ok(bytes) = cvm_frontend::file::read_program(Path::new(&pos.file)) {
                s.add(&pos.file, None, chepp::source::decode(bytes));
            }
            chepp::render_runtime_error(error, &s)
        }
        (None, None) => format!("{error}\n"),
    };
    to_stderr(&text);
}

/// `che run` for a CHEG program: the report's lines on standard output.
fn run_cheg(args: &RunArgs) -> Result<(), Failed> {
    let options = cheg_cmd::RunOptions {
        fen: &args.fen,
        backend: args.backend,
        fuel: args.fuel,
        depth: args.depth.unwrap_or(DEFAULT_CHEG_DEPTH),
        no_opt: args.includes.no_opt,
    };
    match cheg_cmd::run(&args.file, &options) {
        Ok((lines, warnings)) => {
            to_stderr(&warnings);
            to_stdout(&lines.iter().map(|l| format!("{l}\n")).collect::<String>())
        }
        Err(cheg_cmd::ChegError::Runtime { lines, message }) => {
            to_stdout(&lines.iter().map(|l| format!("{l}\n")).collect::<String>())?;
            to_stderr(&message);
            Err(RUNTIME_ERROR)
        }
        Err(e) => {
            to_stderr(&e.to_string());
            Err(COMPILE_ERROR)
        }
    }
}

/// Runs `main()` of the program named by `args`; returns the advice table.
fn execute(args: &RunArgs, output: &mut dyn Output) -> Result<AdviceTable, Failed> {
    let position =
        Position::from_fen(&args.fen).map_err(|e| fail(format!("invalid --fen: {e}")))?;
    let (program, sources) = verify(load(&args.file, &args.includes)?)?;
    let limits = Limits {
        fuel: args.fuel,
        ..Limits::default()
    };
    let mut host = AdviceHost::new(&position);
    let roots = Prepared::entry_points(&program, &[]);
    let prepared = Prepared::for_entries(program, args.backend, &roots)
        .map_err(|e| fail(format!("JIT compilation failed: {e}")))?;
    let mut vm = prepared.instance();
    vm.set_limits(limits);
    let ran = vm.run_entry(&mut host, output).map(|_| vm.advice().clone());
    match ran {
        Ok(advice) => Ok(advice),
        Err(e) => {
            report_runtime(&e, sources.as_ref());
            Err(RUNTIME_ERROR)
        }
    }
}

fn run(command: Command) -> Result<(), Failed> {
    match command {
        Command::Serve { port } => {
            che_cli::serve::run(port, che_cli::serve::limits::Limits::default(), |addr| {
                to_stderr(&format!(
                    "che serve: the playground is at http://{addr}/ (Ctrl-C to stop)\n"
                ));
            })
            .map_err(fail)
        }
        Command::Lsp => che_editor::lsp::run_stdio().map_err(fail),
        Command::Dap => che_editor::dap::run_stdio().map_err(fail),
        Command::Demo { fen } => match che_cli::demo::run(&fen) {
            Ok(demo) => {
                to_stdout(&demo.to_string())?;
                if demo.agree() {
                    Ok(())
                } else {
                    Err(RUNTIME_ERROR)
                }
            }
            Err(che_cli::demo::DemoError::Runtime(text)) => {
                to_stderr(&text);
                Err(RUNTIME_ERROR)
            }
            Err(e) => Err(fail(e)),
        },
        Command::Compile {
            file,
            includes,
            output,
        } => {
            let loaded = compile(&file, &includes)?;
            let out = output.unwrap_or_else(|| file.with_extension("cmp"));
            refuse_overwrite(&out, input_files(&file, loaded.sources()))?;
            write_file(&out, &binary::write(loaded.module()))
        }
        Command::Asm {
            file,
            includes,
            output,
        } => {
            let loaded = load(&file, &includes)?;
            let text = asm::disassemble(loaded.module());
            match output {
                Some(out) => {
                    refuse_overwrite(&out, input_files(&file, loaded.sources()))?;
                    write_file(&out, text.as_bytes())
                }
                None => to_stdout(&text),
            }
        }
        Command::Assemble { file, output } => {
            let bytes = read(&file)?;
            let module = asm::assemble(&String::from_utf8_lossy(&bytes))
                .map_err(|e| fail(format!("{}:{e}", file.display())))?;
            let program = Program::new(module).map_err(|e| fail(format!("invalid module: {e}")))?;
            let out = output.unwrap_or_else(|| file.with_extension("cmp"));
            refuse_overwrite(&out, [file.as_path()])?;
            write_file(&out, &binary::write(program.module()))
        }
        Command::Run(args)
            if cheg_cmd::is_cheg(&args.file) || cheg_cmd::is_cheg_module(&args.file) =>
        {
            run_cheg(&args)
        }
        Command::Run(args) => {
            args.refuse_depth()?;
            let mut out = WriterOutput::new(std::io::stdout().lock());
            execute(&args, &mut out)?;
            match out.error {
                Some(e) => Err(fail(format!("cannot write the output: {e}"))),
                None => Ok(()),
            }
        }
        Command::Advice { run: args, .. } if cheg_cmd::is_cheg(&args.file) => Err(fail(
            "advice runs Che++ programs; a CHEG program runs with `che run`",
        )),
        Command::Advice { run: args, svg } => {
            args.refuse_depth()?;
            let mut out = CollectOutput::default();
            let table = execute(&args, &mut out)?;
            if let Some(path) = svg {
                let position = Position::from_fen(&args.fen)
                    .map_err(|e| fail(format!("invalid --fen: {e}")))?;
                let picture = che_cli::advice_svg::advice_svg(&position, &table, &out.lines);
                refuse_overwrite(&path, [args.file.as_path()])?;
                write_file(&path, picture.as_bytes())?;
            }
            let json = advice_json(&table, &out.lines);
            let text = serde_json::to_string_pretty(&json).map_err(fail)?;
            to_stdout(&format!("{text}\n"))
        }
        Command::Convert {
            file,
            includes,
            output,
        } => {
            let (text, sources) = convert(&file, &includes)?;
            match output {
                Some(out) => {
                    refuse_overwrite(&out, input_files(&file, Some(&sources)))?;
                    write_file(&out, text.as_bytes())
                }
                None => to_stdout(&text),
            }
        }
    }
}
