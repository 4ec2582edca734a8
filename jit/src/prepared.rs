//! A program made ready for the backend of the user's choice.
//!
//! Hosts that let their user pick a backend (the `che` command line's
//! `--backend`, the engine's `CheBackend` option, the test oracles) do it
//! through [`Prepared`]: give it a verified program and a [`Backend`], and
//! ask it for instances. The interpreter needs no preparation; the JIT
//! compiles the program once here, and every instance shares the code; the
//! tiered backend ([`Backend::Auto`]) starts on the interpreter and compiles
//! hot functions later, sharing them likewise.

use crate::compile::JitProgram;
use crate::error::JitError;
use crate::tiered::{TierConfig, TieredProgram};
use cvm::{Backend, Interpreter, Program, Vm};

/// A verified program, ready to run on one backend.
///
/// ```
/// use cvm::{asm, Backend, CollectOutput, NoHost, Program};
/// use jit::Prepared;
///
/// let program = Program::new(asm::assemble("
/// .entry main
/// .func main params 0 lists 0 locals 0 stack 1 proc
///     push 7
///     write
///     ret
/// .end
/// ").unwrap()).unwrap();
/// for backend in Backend::ALL {
///     let prepared = Prepared::new(program.clone(), backend).unwrap();
///     let mut vm = prepared.instance();
///     let mut out = CollectOutput::default();
///     vm.run_entry(&mut NoHost, &mut out).unwrap();
///     assert_eq!(out.lines[0].to_string(), "7 0x00000007");
///     assert_eq!(vm.backend(), backend);
/// }
/// ```
pub struct Prepared {
    inner: Inner,
}

enum Inner {
    Interp(Program),
    Jit(Box<JitProgram>),
    Auto(Box<TieredProgram>),
}

impl std::fmt::Debug for Prepared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Prepared")
            .field("backend", &self.backend())
            .finish_non_exhaustive()
    }
}

impl Prepared {
    /// Prepares `program` for `backend`: nothing to do for the
    /// interpreter; the JIT compiles it (the only step that can fail).
    pub fn new(program: Program, backend: Backend) -> Result<Prepared, JitError> {
        let inner = match backend {
            Backend::Interp => Inner::Interp(program),
            Backend::Jit => Inner::Jit(Box::new(JitProgram::compile(&program)?)),
            Backend::Auto => {
                Inner::Auto(Box::new(TieredProgram::new(program, TierConfig::DEFAULT)))
            }
        };
        Ok(Prepared { inner })
    }

    /// Prepares `program` for `backend` when the caller knows which
    /// functions it will call: the JIT compiles the closure of `roots` now
    /// with the baseline code generator, any other function the first time
    /// it is called, and the closure with Cranelift on a background thread,
    /// whose code calls run once it is there ([`JitProgram::compile_quick`];
    /// [`JitProgram::compile_on_demand`] on a host without the baseline
    /// generator); the other backends are prepared as by [`Prepared::new`].
    /// Results, output, fuel and errors are the same as with
    /// [`Prepared::new`]; only when the compile time is paid, and how fast
    /// the code is until Cranelift's arrives, differ.
    ///
    /// ```
    /// use cvm::{asm, Backend, CollectOutput, NoHost, Program};
    /// use jit::Prepared;
    ///
    /// let program = Program::new(asm::assemble("
    /// .entry main
    /// .func main params 0 lists 0 locals 0 stack 1 value
    ///     push 7
    ///     retv
    /// .end
    /// .func unused params 0 lists 0 locals 0 stack 1 value
    ///     push 8
    ///     retv
    /// .end
    /// ").unwrap()).unwrap();
    /// let prepared = Prepared::for_entries(program, Backend::Jit, &[0]).unwrap();
    /// assert_eq!(prepared.jit().unwrap().stats().functions, 1);
    /// let mut vm = prepared.instance();
    /// let seven = vm.run_entry(&mut NoHost, &mut CollectOutput::default()).unwrap();
    /// assert_eq!(seven.value(), Some(7));
    /// ```
    pub fn for_entries(
        program: Program,
        backend: Backend,
        roots: &[u32],
    ) -> Result<Prepared, JitError> {
        match backend {
            Backend::Jit => Ok(Prepared {
                inner: Inner::Jit(Box::new(JitProgram::compile_quick(&program, roots)?)),
            }),
            Backend::Interp | Backend::Auto => Prepared::new(program, backend),
        }
    }

    /// Prepares `program` for the JIT as [`Prepared::for_entries`] did
    /// before the JIT started on baseline code: the closure of `roots`
    /// compiled by Cranelift now, every other function by Cranelift at its
    /// first call ([`JitProgram::compile_on_demand`]). For measurements of
    /// Cranelift's code and compile time.
    pub fn cranelift_for_entries(program: Program, roots: &[u32]) -> Result<Prepared, JitError> {
        Ok(Prepared {
            inner: Inner::Jit(Box::new(JitProgram::compile_on_demand(&program, roots)?)),
        })
    }

    /// The entry points a host that runs the module's entry and calls the
    /// functions named in `hooks` uses, for [`Prepared::for_entries`]: the
    /// entry (if the module has one) and each hook the module defines.
    pub fn entry_points(program: &Program, hooks: &[&str]) -> Vec<u32> {
        let module = program.module();
        let mut roots: Vec<u32> = module.entry.into_iter().collect();
        roots.extend(hooks.iter().filter_map(|h| module.function_index(h)));
        roots
    }

    /// Prepares `program` for the JIT backend compiled by the baseline
    /// code generator ([`JitProgram::compile_baseline`]); the backend is
    /// [`Backend::Jit`].
    pub fn baseline(program: Program) -> Result<Prepared, JitError> {
        Ok(Prepared {
            inner: Inner::Jit(Box::new(JitProgram::compile_baseline(&program)?)),
        })
    }

    /// Prepares `program` for the tiered backend ([`Backend::Auto`]) with
    /// thresholds of the caller's choice.
    pub fn tiered(program: Program, config: TierConfig) -> Prepared {
        Prepared {
            inner: Inner::Auto(Box::new(TieredProgram::new(program, config))),
        }
    }

    /// The backend the program was prepared for.
    pub fn backend(&self) -> Backend {
        match self.inner {
            Inner::Interp(_) => Backend::Interp,
            Inner::Jit(_) => Backend::Jit,
            Inner::Auto(_) => Backend::Auto,
        }
    }

    /// The verified program.
    pub fn program(&self) -> &Program {
        match &self.inner {
            Inner::Interp(p) => p,
            Inner::Jit(j) => j.program(),
            Inner::Auto(t) => t.program(),
        }
    }

    /// The compiled program, when prepared for the JIT (for its
    /// compilation statistics).
    pub fn jit(&self) -> Option<&JitProgram> {
        match &self.inner {
            Inner::Interp(_) | Inner::Auto(_) => None,
            Inner::Jit(j) => Some(j),
        }
    }

    /// The tiered program, when prepared for [`Backend::Auto`] (to see what
    /// it compiled).
    pub fn tiered_program(&self) -> Option<&TieredProgram> {
        match &self.inner {
            Inner::Auto(t) => Some(t),
            _ => None,
        }
    }

    /// A new instance: the module's initial memory, an empty advice table
    /// and the default limits.
    pub fn instance(&self) -> Box<dyn Vm + '_> {
        match &self.inner {
            Inner::Interp(p) => Box::new(Interpreter::new(p)),
            Inner::Jit(j) => Box::new(j.instance()),
            Inner::Auto(t) => Box::new(t.instance()),
        }
    }
}
