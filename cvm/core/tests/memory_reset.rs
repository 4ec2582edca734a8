//! `Memory::reset_to` against `Memory::reset` and `Memory::new`: whatever
//! a run or an embedder wrote (globals, list slots, the list table itself),
//! the memory afterwards is the module's initial memory, and the
//! interpreter's `reset` leaves a program to run as on a fresh instance.

use cvm::asm::assemble;
use cvm::runtime::{ListSlice, Memory};
use cvm::{CollectOutput, Completion, Interpreter, NoHost, Program, Vm};

/// Two globals and three lists, one with initial elements, one empty and
/// one partly filled, and a `main` that writes all of them and returns
/// what it read first (so a second run shows whether the reset happened).
const SOURCE: &str = "\
.global g 7
.global h -3
.list a 4 = 1 2 3
.list b 2
.list c 5 = 9
.entry main
.func main params 0 lists 0 locals 0 stack 3 value
    ldg g
    push 100
    stg g
    push 55
    stg h
    push 0
    push 40
    ste a
    push 1
    push 41
    ste b
    push 4
    push 42
    ste c
    retv
.end
";

fn program() -> Program {
    let module = assemble(SOURCE).expect("the test module assembles");
    Program::new(module).expect("the test module verifies")
}

/// A memory with every global, every slot and the list table written.
fn scribbled(initial: &Memory) -> Memory {
    let mut m = initial.clone();
    for g in &mut m.globals {
        *g = 1234;
    }
    for s in &mut m.heap {
        *s = -77;
    }
    if let Some(l) = m.lists.first_mut() {
        *l = ListSlice { base: 1, slots: 1 };
    }
    m
}

#[test]
fn reset_to_restores_what_reset_restores() {
    let p = program();
    let initial = Memory::new(p.module());
    let mut by_module = scribbled(&initial);
    by_module.lists = initial.lists.clone();
    by_module.reset(p.module());
    let mut by_image = scribbled(&initial);
    by_image.reset_to(&initial);
    assert_eq!(by_image, initial);
    assert_eq!(by_module, initial);
}

#[test]
fn reset_to_restores_a_resized_memory() {
    let p = program();
    let initial = Memory::new(p.module());
    let mut grown = scribbled(&initial);
    grown.heap.push(5);
    grown.globals.pop();
    grown.lists.push(ListSlice { base: 0, slots: 2 });
    grown.reset_to(&initial);
    assert_eq!(grown, initial);
}

#[test]
fn interpreter_reset_repeats_the_first_run() {
    let p = program();
    let mut vm = Interpreter::new(&p);
    let fresh = vm.memory().clone();
    let run = |vm: &mut Interpreter| {
        let mut out = CollectOutput::default();
        vm.run_entry(&mut NoHost, &mut out).expect("main runs")
    };
    let first = run(&mut vm);
    assert_eq!(first, Completion::Returned(Some(7)));
    assert_ne!(vm.memory(), &fresh, "the run wrote the memory");
    // Without a reset the second run reads the global the first wrote.
    assert_eq!(run(&mut vm), Completion::Returned(Some(100)));
    vm.reset();
    assert_eq!(vm.memory(), &fresh);
    assert_eq!(run(&mut vm), first);
}
