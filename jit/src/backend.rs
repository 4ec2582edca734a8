//! The JIT as a [`cvm::testkit::Backend`], so the conformance cases that
//! hold the interpreter to the specification hold the JIT to it too, and as
//! a [`cvm::oracle::Engine`], so the differential property tests and fuzz
//! targets can run any program on it next to the interpreter.

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

impl cvm::oracle::Instance for crate::JitInstance<'_> {
    fn set_limits(&mut self, limits: Limits) {
        crate::JitInstance::set_limits(self, limits);
    }
    fn call(
        &mut self,
        func: u32,
        args: &[i32],
        host: &mut dyn cvm::Host,
        output: &mut dyn cvm::Output,
    ) -> Result<Completion, RuntimeError> {
        crate::JitInstance::call(self, func, args, host, output)
    }
    fn fuel_used(&self) -> u64 {
        crate::JitInstance::fuel_used(self)
    }
    fn memory(&self) -> &cvm::Memory {
        crate::JitInstance::memory(self)
    }
    fn advice(&self) -> &cvm::chess::advice::AdviceTable {
        crate::JitInstance::advice(self)
    }
}

/// The JIT as a [`cvm::oracle::Engine`], for differential tests and fuzz
/// targets: a fresh compilation and instance per scenario. A call that ran
/// on the interpreter instead of compiled code (see
/// [`crate::JitInstance::call`]) makes the run an error, because it would
/// compare the interpreter with itself, unless the call passed lists (one
/// of them may be a list the compiler folded into constants).
#[derive(Copy, Clone, Debug, Default)]
pub struct JitEngine;

/// An instance that remembers whether every accepted call ran compiled
/// code.
struct Tracked<'a, 'j> {
    vm: &'a mut crate::JitInstance<'j>,
    interpreted: bool,
}

impl cvm::oracle::Instance for Tracked<'_, '_> {
    fn set_limits(&mut self, limits: Limits) {
        self.vm.set_limits(limits);
    }
    fn call(
        &mut self,
        func: u32,
        args: &[i32],
        host: &mut dyn cvm::Host,
        output: &mut dyn cvm::Output,
    ) -> Result<Completion, RuntimeError> {
        let result = self.vm.call(func, args, host, output);
        let refused = matches!(&result, Err(e) if matches!(e.kind, TrapKind::BadCall(_)));
        // A list argument may be one the compiler folded into constants,
        // which the instance rightly runs on the interpreter.
        let lists_passed = self
            .vm
            .program()
            .module()
            .functions
            .get(func as usize)
            .is_some_and(|f| f.list_params > 0);
        if !refused && !lists_passed && !self.vm.ran_compiled() {
            self.interpreted = true;
        }
        result
    }
    fn fuel_used(&self) -> u64 {
        self.vm.fuel_used()
    }
    fn memory(&self) -> &cvm::Memory {
        self.vm.memory()
    }
    fn advice(&self) -> &cvm::chess::advice::AdviceTable {
        self.vm.advice()
    }
}

impl cvm::oracle::Engine for JitEngine {
    fn name(&self) -> &str {
        "jit"
    }
    fn run(
        &mut self,
        program: &Program,
        scenario: &cvm::oracle::Scenario,
    ) -> Result<Vec<cvm::oracle::Observation>, String> {
        let jit =
            JitProgram::compile(program).map_err(|e| format!("JIT compilation failed: {e}"))?;
        let mut vm = jit.instance();
        let mut tracked = Tracked {
            vm: &mut vm,
            interpreted: false,
        };
        let seen = cvm::oracle::observe(&mut tracked, program, scenario);
        if tracked.interpreted {
            return Err("the JIT ran a call on the interpreter".into());
        }
        Ok(seen)
    }
}
