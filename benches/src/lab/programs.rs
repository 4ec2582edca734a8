//! The programs the experiments run, how one "run" of each is defined, and the backends.
//!
//! Adding a program row (for example the CHEG programs once they land): add a [`LabProgram`]
//! to [`programs`]. Adding a backend row: add it to `cvm::Backend::ALL`; every experiment that
//! compares backends iterates over that list.

use super::error::LabError;
use che_engine::host::AdviceHost;
use che_pipeline::{FsLoader, Loader};
use che_pipeline::{Input, Options};
use chepp::{examples, MemLoader};
use chess_core::Position;
use cvm::{NullOutput, Program, Vm};
use std::path::Path;

/// The leaf hook of the bundled program, as the engine bundles it.
pub const EVALUATE_SOURCE: &str = include_str!("../../../chess-core/engine/che/evaluate.che");

/// What one run of a program is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entry {
    /// A benchmark workload: reset, then `main()` (no position).
    Workload,
    /// An advice program's root run: reset, board view of the next suite position, `main()`.
    Main,
    /// The leaf hook: board view of the next suite position, `Evaluate()` (no reset, as in the
    /// search).
    Hook,
}

/// Where a program's source is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// `benches/programs/NAME.asm`, hand-written assembly.
    Asm(&'static str),
    /// A Che++ file under `benches/`.
    Che(&'static str),
    /// The bundled example `shanny.che` (with its includes).
    Shanny,
    /// The bundled example with the leaf hook, `<shanny-eval>`.
    ShannyEval,
}

/// A program as the experiments run it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LabProgram {
    /// Name in tables.
    pub name: &'static str,
    /// Source.
    pub source: Source,
    /// What one run is.
    pub entry: Entry,
}

/// Every program of the break-even and optimizer experiments, small to large.
pub fn programs() -> Vec<LabProgram> {
    use Entry::*;
    use Source::*;
    let w = |name, source| LabProgram {
        name,
        source,
        entry: Workload,
    };
    vec![
        w("asm/calls", Asm("calls")),
        w("asm/loop", Asm("loop")),
        w("asm/fib", Asm("fib")),
        w("asm/listcopy", Asm("listcopy")),
        w("asm/sieve", Asm("sieve")),
        w("che/calls", Che("che/calls.che")),
        w("che/loop", Che("che/loop.che")),
        w("che/fib", Che("che/fib.che")),
        w("che/listcopy", Che("che/listcopy.che")),
        w("che/sieve", Che("che/sieve.che")),
        LabProgram {
            name: "patterns main()",
            source: Che("advice/patterns.che"),
            entry: Main,
        },
        LabProgram {
            name: "shanny main()",
            source: Shanny,
            entry: Main,
        },
        LabProgram {
            name: "shanny-eval Evaluate()",
            source: ShannyEval,
            entry: Hook,
        },
    ]
}

/// Compiles Che++ `path` (read through `loader`) through the one front-end interface.
fn compiled(
    loader: &dyn Loader,
    path: &Path,
    what: &str,
    optimize: bool,
) -> Result<Program, LabError> {
    let options = Options {
        optimize,
        ..Options::default()
    };
    che_pipeline::compile(&chepp::CHEPP, Input::File(path), loader, &options)
        .into_result()
        .map_err(|e| LabError::Program(format!("{what}: {}", e.rendered)))
}

impl LabProgram {
    /// The verified program, through the loophole optimizer when `optimize` (as the engine and
    /// `che run` load programs).
    pub fn load(&self, optimize: bool) -> Result<Program, LabError> {
        match self.source {
            Source::Asm(name) => {
                let path = crate::crate_dir()
                    .join("programs")
                    .join(format!("{name}.asm"));
                let text =
                    std::fs::read_to_string(&path).map_err(|e| LabError::io(path.clone(), e))?;
                let module = cvm::asm::assemble(&text)
                    .map_err(|e| LabError::Program(format!("{}: {e}", path.display())))?;
                let program = Program::new(module)
                    .map_err(|e| LabError::Program(format!("{}: {e}", path.display())))?;
                Ok(if optimize {
                    cvm::opt::optimize(&program).0
                } else {
                    program
                })
            }
            Source::Che(file) => {
                let path = crate::crate_dir().join(file);
                compiled(&FsLoader, &path, file, optimize)
            }
            Source::Shanny => compiled(
                &examples::loader(),
                Path::new(examples::MAIN),
                "shanny.che",
                optimize,
            ),
            Source::ShannyEval => {
                let mut files: Vec<(&str, &str)> = examples::EXAMPLES.to_vec();
                files.push(("evaluate.che", EVALUATE_SOURCE));
                compiled(
                    &MemLoader::with(&files),
                    Path::new("evaluate.che"),
                    "evaluate.che",
                    optimize,
                )
            }
        }
    }

    /// The function a run calls.
    pub fn function(&self, program: &Program) -> Result<u32, LabError> {
        let module = program.module();
        let f = match self.entry {
            Entry::Workload | Entry::Main => module.entry,
            Entry::Hook => module.function_index(che_engine::advisor::HOOK_NAME),
        };
        f.ok_or_else(|| LabError::Program(format!("{}: no such function", self.name)))
    }
}

/// Runs a program: one VM instance, the host, the suite positions and a cursor into them.
pub struct Runner<'a> {
    vm: Box<dyn Vm + 'a>,
    host: AdviceHost,
    func: u32,
    entry: Entry,
    positions: &'a [Position],
    next: usize,
}

impl<'a> Runner<'a> {
    /// A runner of `program`'s run `entry` on `vm`.
    pub fn new(
        vm: Box<dyn Vm + 'a>,
        func: u32,
        entry: Entry,
        positions: &'a [Position],
    ) -> Runner<'a> {
        Runner {
            vm,
            host: AdviceHost::new(&Position::startpos()),
            func,
            entry,
            positions,
            next: 0,
        }
    }

    /// One run; returns the value the function returned (0 for none).
    pub fn run(&mut self) -> Result<i32, LabError> {
        if self.entry != Entry::Hook {
            self.vm.reset();
        }
        if self.entry != Entry::Workload && !self.positions.is_empty() {
            let pos = &self.positions[self.next % self.positions.len()];
            self.next += 1;
            self.host.set_position(pos);
        }
        let done = self
            .vm
            .call(self.func, &[], &mut self.host, &mut NullOutput)
            .map_err(|e| LabError::Program(e.to_string()))?;
        Ok(done.value().unwrap_or(0))
    }
}

/// Thread CPU time of `f`, in nanoseconds, with its result.
pub fn cpu_ns<T>(f: impl FnOnce() -> T) -> (u64, T) {
    let start = cpu_time::ThreadTime::now();
    let out = f();
    let ns = u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX);
    (ns, out)
}
