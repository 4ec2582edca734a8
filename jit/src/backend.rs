//! The JIT as a [`cvm::testkit::Backend`], so the conformance cases that
//! hold the interpreter to the specification hold the JIT to it too.

use crate::compile::JitProgram;
use cvm::testkit::Backend;
use cvm::{CollectOutput, Completion, Limits, NoHost, Program, RuntimeError, TrapKind};

/// Compiles and runs programs with the JIT (a fresh compilation and
/// instance per run).
#[derive(Copy, Clone, Debug, Default)]
pub struct JitBackend;

impl Backend for JitBackend {
    fn run(
        &mut self,
        program: &Program,
        func: u32,
        args: &[i32],
        limits: Limits,
        out: &mut CollectOutput,
    ) -> Result<Completion, RuntimeError> {
        let jit = JitProgram::compile(program).map_err(|e| RuntimeError {
            kind: TrapKind::BadCall(format!("JIT compilation failed: {e}")),
            offset: 0,
            pos: None,
        })?;
        let mut vm = jit.instance();
        vm.set_limits(limits);
        vm.call(func, args, &mut NoHost, out)
    }
}
