//! What the interpreter's test files share: calling `main()` on either of
//! the interpreter's translations and writing down everything the call
//! shows, so that two runs compare as text.

use cvm::{CollectOutput, Host, Interpreter, Program, Vm};

/// A profiler that ignores what it is shown: a profiled call runs the
/// plain translation (one op per CVM instruction).
pub struct Quiet;

impl cvm::interp::Profiler for Quiet {
    fn step(&mut self, _: u32) {}
}

/// The index of the program's `main()`.
pub fn main_of(program: &Program) -> u32 {
    program
        .module()
        .functions
        .iter()
        .position(|f| f.name == "main")
        .expect("main") as u32
}

/// Calls `main()` on `vm` with `host`, through the plain translation when
/// `profiled`, and returns everything the call shows: the result (or the
/// error and its code offset), the output, the fuel spent and the memory.
pub fn account(vm: &mut Interpreter<'_>, host: &mut dyn Host, profiled: bool) -> String {
    let main = main_of(vm.program());
    let mut out = CollectOutput::default();
    let result = if profiled {
        vm.call_profiled(main, &[], host, &mut out, &mut Quiet)
    } else {
        vm.call(main, &[], host, &mut out)
    };
    let result = match result {
        Ok(c) => format!("{c:?}"),
        Err(e) => format!("{:?} at {}", e.kind, e.offset),
    };
    format!(
        "{result}; output {:?}; fuel {}; memory {:?}",
        out.lines,
        vm.fuel_used(),
        vm.memory()
    )
}
