//! `reset` on every backend: a reset copies back only the lists the program
//! can write while nothing else wrote memory, and everything once something
//! else did (the embedder, a call passing a list to a function that writes
//! through its list parameter). Either way the memory afterwards is the
//! module's initial memory, and the next run is the first run again.

mod common;

use cvm::{list_facts, CollectOutput, Completion, Interpreter, NoHost, Program, ResetPlan, Vm};
use jit::JitProgram;

/// `keep` is constant (only read, and passed to `show`, which reads it);
/// `scratch` and the global are written by `main`; `fill` writes through
/// its list parameter, so a list the embedder passes to it changes.
const SOURCE: &str = "\
.global g 7
.list keep 4 = 20 21 22
.list scratch 3 = 5
.entry main
.func main params 0 lists 0 locals 0 stack 3 value
    ldg g
    push 100
    stg g
    push 0
    push 41
    ste scratch
    lref keep
    call show
    add
    retv
.end
.func show params 0 lists 1 locals 0 stack 2 value
    ldl 0
    push 0
    ldx
    retv
.end
.func fill params 1 lists 1 locals 0 stack 3 proc
    ldl 1
    push 0
    ldl 0
    stx
    ret
.end
";

fn run(vm: &mut dyn Vm) -> Completion {
    vm.run_entry(&mut NoHost, &mut CollectOutput::default())
        .expect("main runs")
}

/// The scenario on one backend: runs, resets, writes a constant list
/// through the embedder and through `fill`, resets again.
fn check(vm: &mut dyn Vm, fresh: &cvm::Memory) {
    let first = run(vm);
    assert_eq!(first, Completion::Returned(Some(27)));
    assert_eq!(run(vm), Completion::Returned(Some(120)));
    vm.reset();
    assert_eq!(vm.memory(), fresh);
    assert_eq!(run(vm), first);
    // The embedder writes the constant list: the reset restores it.
    vm.memory_mut().list_mut(0)[0] = 99;
    vm.reset();
    assert_eq!(vm.memory(), fresh);
    assert_eq!(run(vm), first);
    // `fill` writes the constant list it is passed.
    let fill = vm.program().module().function_index("fill").expect("fill");
    vm.call(fill, &[-5, 0], &mut NoHost, &mut CollectOutput::default())
        .expect("fill runs");
    assert_eq!(vm.memory().list(0)[0], -5);
    vm.reset();
    assert_eq!(vm.memory(), fresh);
    assert_eq!(run(vm), first);
    // And after the full resets, the plain ones still restore what `main`
    // writes.
    run(vm);
    vm.reset();
    assert_eq!(vm.memory(), fresh);
}

#[test]
fn the_plan_copies_the_written_lists() {
    let p = common::program(SOURCE);
    let facts = list_facts(&p);
    assert_eq!(facts.constant, vec![true, false]);
    assert!(facts.writes_through_refs);
    let initial = cvm::Memory::new(p.module());
    let plan = ResetPlan::new(&initial, &facts.constant);
    assert_eq!(plan.slots(), 4, "scratch's four slots");
    let mut m = initial.clone();
    m.globals[0] = 1;
    m.list_mut(1).fill(3);
    m.reset_written_to(&initial, &plan);
    assert_eq!(m, initial);
}

#[test]
fn every_backend_resets_to_the_initial_memory() {
    let p: Program = common::program(SOURCE);
    let fresh = cvm::Memory::new(p.module());
    check(&mut Interpreter::new(&p), &fresh);
    let cranelift = JitProgram::compile(&p).expect("compiles");
    check(&mut cranelift.instance(), &fresh);
    let baseline = JitProgram::compile_baseline(&p).expect("compiles");
    check(&mut baseline.instance(), &fresh);
}
