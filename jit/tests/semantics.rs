//! Hand-computed edge cases of the JIT's semantics, each also run on the
//! interpreter: fuel on self-loops, the depth limit (tiny, huge, on small
//! threads), halts deep in the call chain, division corner cases,
//! intrinsic errors, panics in embedder code, direct memory changes and the
//! embedder API.

use cvm::Vm;
use cvm::{
    asm, CollectOutput, Completion, Host, Interpreter, Limits, NoHost, Output, OutputLine, Program,
    RuntimeError, TrapKind,
};
use cvm_chess::board::BoardView;
use jit::JitProgram;

fn program(src: &str) -> Program {
    Program::new(asm::assemble(src).unwrap_or_else(|e| panic!("{e}"))).expect("verifies")
}

/// Runs `func` with `args` on both backends; returns the JIT's outcome
/// after checking that the interpreter's is the same.
fn both(
    p: &Program,
    func: &str,
    args: &[i32],
    limits: Limits,
) -> (Result<Completion, RuntimeError>, Vec<OutputLine>, u64) {
    let mut interp = Interpreter::new(p);
    interp.set_limits(limits);
    let mut want = CollectOutput::default();
    let r1 = interp.call_by_name(func, args, &mut NoHost, &mut want);
    let code = JitProgram::compile(p).expect("compiles");
    let mut vm = code.instance();
    vm.set_limits(limits);
    let mut got = CollectOutput::default();
    let r2 = vm.call_by_name(func, args, &mut NoHost, &mut got);
    assert_eq!(r2, r1);
    assert_eq!(got.lines, want.lines);
    assert_eq!(vm.fuel_used(), interp.fuel_used());
    (r2, got.lines, vm.fuel_used())
}

fn fuel(n: u64) -> Limits {
    Limits {
        fuel: Some(n),
        ..Limits::default()
    }
}

#[test]
fn a_jump_to_itself_is_charged() {
    let p = program(
        "
.func main params 0 lists 0 locals 0 stack 1 proc
    push 7
    write
L:
    jmp L
.end
",
    );
    let (r, out, used) = both(&p, "main", &[], fuel(10));
    let e = r.expect_err("runs out of fuel");
    assert_eq!(e.kind, TrapKind::OutOfFuel);
    assert_eq!(e.offset, 3); // push (2 words), write (1), then the jmp
    assert_eq!(out, vec![OutputLine::Value(7)]);
    assert_eq!(used, 10);
}

#[test]
fn conditional_backward_jumps_charge_only_when_taken() {
    // Counts i from 0 to 5: the backward jlt is taken 5 times.
    let p = program(
        "
.func main params 0 lists 0 locals 1 stack 2 value
L:
    incl 0
    jlt.li 0 6 L
    ldl 0
    retv
.end
",
    );
    let (r, _, used) = both(&p, "main", &[], fuel(100));
    assert_eq!(r, Ok(Completion::Returned(Some(6))));
    // The entry of the 4-instruction main (1) and five jumps back over 2
    // instructions (1 each).
    assert_eq!(used, 6);
    // With exactly 5 units the fifth taken jump fails.
    let (r, _, _) = both(&p, "main", &[], fuel(5));
    assert_eq!(r.expect_err("fuel").kind, TrapKind::OutOfFuel);
}

const RECURSION: &str = "
.func down params 1 lists 0 locals 0 stack 2 value
    jgt.li 0 0 L_rec
    push 0
    retv
L_rec:
    ldl 0
    add.i -1
    call down
    add.i 1
    retv
.end
";

#[test]
fn the_depth_limit_is_exact() {
    let p = program(RECURSION);
    // down(n) nests n + 1 frames.
    let limits = |d| Limits {
        fuel: None,
        max_depth: d,
    };
    let (r, _, _) = both(&p, "down", &[9], limits(10));
    assert_eq!(r, Ok(Completion::Returned(Some(9))));
    let (r, _, used) = both(&p, "down", &[10], limits(10));
    let e = r.expect_err("too deep");
    assert_eq!(e.kind, TrapKind::CallDepth(10));
    assert_eq!(e.offset, 11); // the `call down`
                              // The entry and nine calls of the 8-instruction down, 1 + 8/8 = 2 each.
    assert_eq!(used, 20);
    let (r, _, _) = both(&p, "down", &[1], limits(0));
    assert_eq!(
        r.expect_err("limit 0 acts as 1").kind,
        TrapKind::CallDepth(1)
    );
}

/// One instance called again and again, its limits changed between the
/// calls: every call keeps the limits set last, as a fresh interpreter
/// does (the instance reuses what it worked out for an earlier call of
/// the same function only while the limits stay).
#[test]
fn repeated_calls_follow_changed_limits() {
    let p = program(RECURSION);
    let code = JitProgram::compile(&p).expect("compiles");
    let mut vm = code.instance();
    let limits = |fuel, max_depth| Limits { fuel, max_depth };
    let steps = [
        (limits(None, 100), 50),
        (limits(None, 100), 60),
        (limits(None, 10), 20),
        (limits(None, 10), 9),
        (limits(Some(20), 1000), 9),
        (limits(Some(19), 1000), 9),
        (limits(Some(19), 1000), 3),
        (limits(None, 3), 3),
        (limits(None, 300_000), 250_000),
        (limits(None, 2), 250_000),
    ];
    for (limits, n) in steps {
        let mut interp = Interpreter::new(&p);
        interp.set_limits(limits);
        let want = interp.call_by_name("down", &[n], &mut NoHost, &mut CollectOutput::default());
        vm.set_limits(limits);
        let got = vm.call_by_name("down", &[n], &mut NoHost, &mut CollectOutput::default());
        assert_eq!(got, want, "down({n}) under {limits:?}");
        assert_eq!(
            vm.fuel_used(),
            interp.fuel_used(),
            "down({n}) under {limits:?}"
        );
    }
}

/// An instance keeps its run context between calls; moving the
/// instance, replacing its memory and stopping a run with an error must
/// not leave anything behind that the next call would see: each call
/// agrees with the interpreter, which the same calls are made on.
#[test]
fn calls_after_a_move_a_new_memory_and_an_error_agree() {
    let p = program(
        "
.list l 3
.global total 0
.func f params 1 lists 0 locals 0 stack 3 value
    ldg total
    ldl 0
    add
    stg total
    push 1
    ldl 0
    ste l
    push 100
    ldl 0
    div
    ldg total
    add
    retv
.end
",
    );
    let code = JitProgram::compile(&p).expect("compiles");
    let mut interp = Interpreter::new(&p);
    let mut vms = vec![code.instance()];
    for (step, arg) in [5, 0, 7, 0, 0, 3, 9].into_iter().enumerate() {
        let mut vm = vms.pop().expect("an instance");
        if step == 4 {
            // A memory of the same layout in new allocations.
            let mut fresh = vm.memory().clone();
            fresh.globals[0] = 1000;
            *vm.memory_mut() = fresh.clone();
            *interp.memory_mut() = fresh;
        }
        let want = interp.call(0, &[arg], &mut NoHost, &mut CollectOutput::default());
        let got = vm.call(0, &[arg], &mut NoHost, &mut CollectOutput::default());
        assert_eq!(got, want, "step {step}: f({arg})");
        assert_eq!(vm.fuel_used(), interp.fuel_used(), "step {step}");
        assert_eq!(vm.memory(), interp.memory(), "step {step}");
        // Moved into a box and back out before the next call.
        let boxed = Box::new(vm);
        vms.push(*boxed);
    }
}

#[test]
fn deep_recursion_runs_natively_on_a_small_thread() {
    let p = program(RECURSION);
    let result = std::thread::Builder::new()
        .stack_size(1024 * 1024)
        .spawn(move || {
            let code = JitProgram::compile(&p).expect("compiles");
            let mut vm = code.instance();
            vm.set_limits(Limits {
                fuel: None,
                max_depth: 300_000,
            });
            let r = vm.call_by_name(
                "down",
                &[250_000],
                &mut NoHost,
                &mut CollectOutput::default(),
            );
            (r, vm.ran_compiled())
        })
        .expect("thread")
        .join()
        .expect("no panic");
    assert_eq!(result, (Ok(Completion::Returned(Some(250_000))), true));
}

#[test]
fn huge_depth_limits_stay_exact() {
    let p = program(RECURSION);
    let code = JitProgram::compile(&p).expect("compiles");
    let mut vm = code.instance();
    vm.set_limits(Limits {
        fuel: None,
        max_depth: u32::MAX,
    });
    let r = vm.call_by_name("down", &[1000], &mut NoHost, &mut CollectOutput::default());
    assert_eq!(r, Ok(Completion::Returned(Some(1000))));
    // Recursive code under a limit no native stack could back runs on the
    // interpreter.
    assert!(!vm.ran_compiled());

    // Without recursion the depth is bounded by the call chain: native.
    let flat = program(
        "
.func main params 0 lists 0 locals 0 stack 1 value
    call one
    retv
.end
.func one params 0 lists 0 locals 0 stack 1 value
    push 1
    retv
.end
",
    );
    let code = JitProgram::compile(&flat).expect("compiles");
    let mut vm = code.instance();
    vm.set_limits(Limits {
        fuel: None,
        max_depth: u32::MAX,
    });
    let r = vm.call_by_name("main", &[], &mut NoHost, &mut CollectOutput::default());
    assert_eq!(r, Ok(Completion::Returned(Some(1))));
    assert!(vm.ran_compiled());
}

#[test]
fn halt_stops_every_frame() {
    let p = program(
        "
.global g 0
.func main params 0 lists 0 locals 0 stack 1 proc
    call a
    push 99
    write
    ret
.end
.func a params 0 lists 0 locals 0 stack 1 proc
    incg g
    push 1
    write
    call b
    push 98
    write
    ret
.end
.func b params 0 lists 0 locals 0 stack 1 proc
    incg g
    halt
.end
",
    );
    let (r, out, used) = both(&p, "main", &[], fuel(100));
    assert_eq!(r, Ok(Completion::Halted));
    assert_eq!(out, vec![OutputLine::Value(1)]);
    // The entry of main, the calls of a and b, and the write: 1 each.
    assert_eq!(used, 4);
}

#[test]
fn division_corner_cases() {
    let p = program(
        "
.func div params 2 lists 0 locals 0 stack 2 value
    ldl 0
    ldl 1
    div
    retv
.end
.func rem params 2 lists 0 locals 0 stack 2 value
    ldl 0
    ldl 1
    mod
    retv
.end
.func constants params 1 lists 0 locals 0 stack 2 value
    ldl 0
    push -1
    div
    push 7
    mod
    retv
.end
",
    );
    let v = |f: &str, args: &[i32]| both(&p, f, args, Limits::default()).0;
    assert_eq!(
        v("div", &[i32::MIN, -1]),
        Ok(Completion::Returned(Some(i32::MIN)))
    );
    assert_eq!(v("rem", &[i32::MIN, -1]), Ok(Completion::Returned(Some(0))));
    assert_eq!(v("div", &[-7, 2]), Ok(Completion::Returned(Some(-3))));
    assert_eq!(v("rem", &[-7, 2]), Ok(Completion::Returned(Some(-1))));
    assert_eq!(
        v("constants", &[i32::MIN]),
        Ok(Completion::Returned(Some(-2)))
    );
    let e = v("rem", &[5, 0]).expect_err("zero divisor");
    assert_eq!((e.kind, e.offset), (TrapKind::DivisionByZero, 10));
}

struct BoardHost(BoardView);

impl Host for BoardHost {
    fn board(&self) -> Option<&BoardView> {
        Some(&self.0)
    }
}

#[test]
fn intrinsic_errors_stop_the_run_at_the_call() {
    // GetPcOnSqrs finds three white pawns; the list holds one.
    let p = program(
        "
.entry main
.list out 1
.func main params 0 lists 0 locals 0 stack 2 value
    push 512
    lref out
    intr GetPcOnSqrs
    retv
.end
",
    );
    let mut board = BoardView::EMPTY;
    board.pieces[0][0] = 0b111 << 8;
    let code = JitProgram::compile(&p).expect("compiles");
    let mut vm = code.instance();
    let e = vm
        .run_entry(&mut BoardHost(board), &mut CollectOutput::default())
        .expect_err("too short");
    assert_eq!(
        e.kind,
        TrapKind::ListOverflow {
            needed: 3,
            capacity: 1
        }
    );
    assert_eq!(e.offset, 4);
    let mut interp = Interpreter::new(&p);
    let want = interp.run_entry(&mut BoardHost(board), &mut CollectOutput::default());
    assert_eq!(Err(e), want);
}

struct PanickyOutput;

impl Output for PanickyOutput {
    fn write_value(&mut self, value: i32) {
        panic!("output refused {value}");
    }
    fn write_text(&mut self, _: &str) {}
}

#[test]
fn panics_in_embedder_code_reach_the_embedder() {
    let p = program(
        "
.entry main
.global g 0
.func main params 0 lists 0 locals 0 stack 1 proc
    incg g
    call w
    ret
.end
.func w params 0 lists 0 locals 0 stack 1 proc
    push 5
    write
    incg g
    ret
.end
",
    );
    let code = JitProgram::compile(&p).expect("compiles");
    let mut vm = code.instance();
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        vm.run_entry(&mut NoHost, &mut PanickyOutput)
    }));
    let message = caught
        .expect_err("the panic propagates")
        .downcast::<String>()
        .map(|s| *s)
        .unwrap_or_default();
    assert_eq!(message, "output refused 5");
    // The instance stays usable; memory shows how far the run got.
    assert_eq!(vm.memory().globals, vec![1]);
    vm.reset();
    let r = vm.run_entry(&mut NoHost, &mut CollectOutput::default());
    assert_eq!(r, Ok(Completion::Returned(None)));
    assert_eq!(vm.memory().globals, vec![2]);
}

const PATTERN: &str = "
.entry main
.list sq 1 = 28
.func main params 0 lists 0 locals 0 stack 2 value
    push 512
    lref sq
    intr PcOnSqrs
    retv
.end
";

#[test]
fn changing_a_folded_list_falls_back_to_the_interpreter() {
    let p = program(PATTERN);
    let code = JitProgram::compile(&p).expect("compiles");
    assert_eq!(code.stats().native_intrinsics, 1);
    let mut board = BoardView::EMPTY;
    board.pieces[0][0] = 1 << 12; // a white pawn on e2, not on e4 (28)
    let mut vm = code.instance();
    let run = |vm: &mut jit::JitInstance<'_>| {
        vm.run_entry(&mut BoardHost(board), &mut CollectOutput::default())
    };
    assert_eq!(run(&mut vm), Ok(Completion::Returned(Some(0))));
    assert!(vm.ran_compiled());
    vm.memory_mut().list_mut(0)[0] = 12; // the list now names e2
    assert_eq!(run(&mut vm), Ok(Completion::Returned(Some(1))));
    assert!(!vm.ran_compiled());
    vm.reset();
    assert_eq!(run(&mut vm), Ok(Completion::Returned(Some(0))));
    assert!(vm.ran_compiled());
    // Touching memory without changing the list keeps native code.
    vm.memory_mut();
    assert_eq!(run(&mut vm), Ok(Completion::Returned(Some(0))));
    assert!(vm.ran_compiled());
}

#[test]
fn a_changed_memory_layout_is_refused() {
    let p = program(PATTERN);
    let code = JitProgram::compile(&p).expect("compiles");
    let mut vm = code.instance();
    vm.memory_mut().heap.push(0);
    let e = vm
        .run_entry(&mut NoHost, &mut CollectOutput::default())
        .expect_err("refused");
    assert!(matches!(e.kind, TrapKind::BadCall(_)));
    vm.reset();
    assert!(vm
        .run_entry(&mut NoHost, &mut CollectOutput::default())
        .is_ok());
}

#[test]
fn arguments_memory_and_bad_calls() {
    let p = program(
        "
.list l 3 = 1 2 3
.global total 0
.func sum params 1 lists 1 locals 1 stack 2 value
L:
    forx 1 2 E
    ldg total
    add
    stg total
    jmp L
E:
    ldg total
    add.l 0
    retv
.end
",
    );
    let (r, _, _) = both(&p, "sum", &[10, 0], Limits::default());
    assert_eq!(r, Ok(Completion::Returned(Some(16))));
    let code = JitProgram::compile(&p).expect("compiles");
    let mut vm = code.instance();
    let mut out = CollectOutput::default();
    // Globals persist across calls until reset.
    let first = vm.call(0, &[0, 0], &mut NoHost, &mut out);
    let second = vm.call(0, &[0, 0], &mut NoHost, &mut out);
    assert_eq!(first, Ok(Completion::Returned(Some(6))));
    assert_eq!(second, Ok(Completion::Returned(Some(12))));
    vm.reset();
    assert_eq!(vm.memory().globals, vec![0]);
    // Bad calls fail as on the interpreter.
    let mut interp = Interpreter::new(&p);
    for args in [&[1][..], &[1, 5], &[1, -1]] {
        let want = interp.call(0, args, &mut NoHost, &mut out);
        let got = vm.call(0, args, &mut NoHost, &mut out);
        assert!(matches!(
            got,
            Err(RuntimeError {
                kind: TrapKind::BadCall(_),
                ..
            })
        ));
        assert_eq!(got, want);
    }
    assert_eq!(
        vm.call_by_name("nope", &[], &mut NoHost, &mut out),
        interp.call_by_name("nope", &[], &mut NoHost, &mut out)
    );
    assert_eq!(
        vm.run_entry(&mut NoHost, &mut out),
        interp.run_entry(&mut NoHost, &mut out)
    );
}
