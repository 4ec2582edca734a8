//! The tiered backend (`Backend::Auto`, `jit::TieredProgram`): hot
//! functions switch to native code in the middle of a run, synchronously
//! or from the background compiler, and nothing observable changes. The
//! expected values are computed by hand (fib(20) = 6765 with 21,891 calls)
//! and against the interpreter.

use cvm::{
    asm, BoardView, CollectOutput, Completion, Host, Interpreter, Limits, NoHost, Program,
    TrapKind, Vm,
};
use jit::{CodeGen, JitProgram, TierConfig, TieredProgram};

const FIB: &str = "
.entry main
.func fib params 1 lists 0 locals 0 stack 2 value
.slots n
    jge.li n 2 L_rec
    ldl n
    retv
L_rec:
    ldl n
    add.i -1
    call fib
    ldl n
    add.i -2
    call fib
    add
    retv
.end

.func main params 0 lists 0 locals 0 stack 1 value
    push 20
    call fib
    retv
.end
";

fn program(src: &str) -> Program {
    Program::new(asm::assemble(src).unwrap_or_else(|e| panic!("{e}"))).expect("verifies")
}

/// The fuel the interpreter alone spends on `p`'s entry.
fn interpreter_fuel(p: &Program) -> u64 {
    let mut interp = Interpreter::new(p);
    interp
        .run_entry(&mut NoHost, &mut CollectOutput::default())
        .expect("runs");
    interp.fuel_used()
}

#[test]
fn a_hot_function_switches_in_the_middle_of_a_run() {
    let p = program(FIB);
    let tiered = TieredProgram::new(
        p.clone(),
        TierConfig {
            call_threshold: 100,
            background: false,
            baseline_call_threshold: u32::MAX,
            baseline_fuel_threshold: u64::MAX,
            ..TierConfig::DEFAULT
        },
    );
    let mut vm = tiered.instance();
    let done = vm
        .run_entry(&mut NoHost, &mut CollectOutput::default())
        .expect("runs");
    assert_eq!(done.value(), Some(6765));
    // The same fuel as the interpreter alone spends.
    assert_eq!(vm.fuel_used(), interpreter_fuel(&p));
    assert!(vm.ran_compiled(), "fib never ran native code");
    // fib's closure is fib alone; main stayed interpreted.
    assert_eq!(tiered.compiled_functions(), 1);
    let compiled = JitProgram::compile_closure(&p, &[0]).expect("compiles");
    assert!(compiled.has_function(0) && !compiled.has_function(1));
}

#[test]
fn baseline_code_comes_first_and_cranelift_code_replaces_it() {
    if !jit::baseline::supported() {
        return;
    }
    let p = program(FIB);
    let want_fuel = interpreter_fuel(&p);
    // fib is hot after ten calls (baseline code, at once); main's runs
    // spend more than the fuel threshold by the end of the second run
    // (Cranelift's code for main and fib, synchronously here).
    let tiered = TieredProgram::new(
        p,
        TierConfig {
            call_threshold: u32::MAX,
            fuel_threshold: want_fuel + 1,
            background: false,
            baseline_call_threshold: 10,
            baseline_fuel_threshold: u64::MAX,
            ..TierConfig::DEFAULT
        },
    );
    let mut vm = tiered.instance();
    let mut seen = Vec::new();
    for _ in 0..3 {
        let done = vm
            .run_entry(&mut NoHost, &mut CollectOutput::default())
            .expect("runs");
        assert_eq!(done.value(), Some(6765));
        assert_eq!(vm.fuel_used(), want_fuel);
        assert!(vm.ran_compiled());
        seen.push((
            tiered.functions_on(CodeGen::Baseline),
            tiered.functions_on(CodeGen::Cranelift),
        ));
    }
    // After the first run fib has baseline code; after the second both
    // have Cranelift's, which the third runs.
    assert_eq!(seen, [(1, 0), (0, 2), (0, 2)]);
}

#[test]
fn errors_inside_switched_code_match_the_interpreter() {
    let p = program(FIB);
    // The depth error comes at the 12th call (main, then fib down to
    // depth 12), so only the first 11 calls can switch.
    for (limits, kind, switch_points) in [
        (
            Limits {
                fuel: Some(5_000),
                max_depth: 100,
            },
            TrapKind::OutOfFuel,
            &[0, 1, 2, 5, 11, 40, 999][..],
        ),
        (
            Limits {
                fuel: None,
                max_depth: 12,
            },
            TrapKind::CallDepth(12),
            &[0, 1, 2, 5, 10][..],
        ),
    ] {
        let mut interp = Interpreter::new(&p);
        interp.set_limits(limits);
        let want = interp.run_entry(&mut NoHost, &mut CollectOutput::default());
        assert_eq!(want.as_ref().map_err(|e| &e.kind), Err(&kind));
        for &at in switch_points {
            let tiered = TieredProgram::new(p.clone(), TierConfig::switch_at(at));
            let mut vm = tiered.instance();
            vm.set_limits(limits);
            let got = vm.run_entry(&mut NoHost, &mut CollectOutput::default());
            assert_eq!(got, want, "switch at call {at}");
            assert_eq!(vm.fuel_used(), interp.fuel_used(), "switch at call {at}");
            assert!(vm.ran_compiled(), "switch at call {at} never happened");
        }
    }
}

#[test]
fn the_background_compiler_delivers_and_results_stay_the_same() {
    let p = program(FIB);
    let tiered = TieredProgram::new(
        p.clone(),
        TierConfig {
            call_threshold: 0,
            fuel_threshold: 0,
            ..TierConfig::DEFAULT
        },
    );
    let mut vm = tiered.instance();
    let want_fuel = interpreter_fuel(&p);
    let mut switched = false;
    for _ in 0..2_000 {
        let done = vm
            .run_entry(&mut NoHost, &mut CollectOutput::default())
            .expect("runs");
        assert_eq!(done.value(), Some(6765));
        assert_eq!(vm.fuel_used(), want_fuel);
        if vm.ran_compiled() {
            switched = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    assert!(switched, "no native code arrived in 10 s");
}

struct BoardHost(BoardView);

/// A run of `main()` on a board with a white pawn on e2 (not on e4,
/// square 28, which the folded-list programs below name).
fn run_with_pawn_on_e2(vm: &mut jit::TieredInstance<'_>) -> Result<Completion, cvm::RuntimeError> {
    let mut board = BoardView::EMPTY;
    board.pieces[0][0] = 1 << 12;
    vm.run_entry(&mut BoardHost(board), &mut CollectOutput::default())
}

impl Host for BoardHost {
    fn board(&self) -> Option<&BoardView> {
        Some(&self.0)
    }
}

#[test]
fn a_changed_folded_list_sends_calls_back_to_the_interpreter() {
    // `sq` only ever goes straight to an intrinsic, so the JIT folds it
    // into a mask; an embedder that changes it must see the change.
    let p = program(
        "
.entry main
.list sq 1 = 28
.func main params 0 lists 0 locals 0 stack 2 value
    push 512
    lref sq
    intr PcOnSqrs
    retv
.end
",
    );
    let tiered = TieredProgram::new(p, TierConfig::switch_at(0));
    let mut vm = tiered.instance();
    let run = run_with_pawn_on_e2;
    assert_eq!(run(&mut vm), Ok(Completion::Returned(Some(0))));
    assert!(vm.ran_compiled());
    vm.memory_mut().list_mut(0)[0] = 12; // the list now names e2
    assert_eq!(run(&mut vm), Ok(Completion::Returned(Some(1))));
    assert!(!vm.ran_compiled(), "native code used a stale folded list");
    vm.reset();
    assert_eq!(run(&mut vm), Ok(Completion::Returned(Some(0))));
    assert!(vm.ran_compiled(), "reset did not bring native code back");
}

#[test]
fn a_changed_folded_list_keeps_an_interpreted_caller_off_native_callees() {
    // As above, but the folded list is read by `f`, which gets native code
    // while `main`, the embedder's call, stays interpreted: the check is
    // then made by the call-dispatch hook when it first finds native code.
    let p = program(
        "
.entry main
.list sq 1 = 28
.func main params 0 lists 0 locals 0 stack 1 value
    call f
    retv
.end
.func f params 0 lists 0 locals 0 stack 2 value
    push 512
    lref sq
    intr PcOnSqrs
    retv
.end
",
    );
    // Call 0 is the embedder's `main`, call 1 its `call f`.
    let tiered = TieredProgram::new(p, TierConfig::switch_at(1));
    let mut vm = tiered.instance();
    let run = run_with_pawn_on_e2;
    assert_eq!(run(&mut vm), Ok(Completion::Returned(Some(0))));
    assert!(vm.ran_compiled(), "f did not switch");
    assert_eq!(run(&mut vm), Ok(Completion::Returned(Some(0))));
    assert!(vm.ran_compiled(), "f's native code was not used again");
    vm.memory_mut().list_mut(0)[0] = 12; // the list now names e2
    assert_eq!(run(&mut vm), Ok(Completion::Returned(Some(1))));
    assert!(!vm.ran_compiled(), "native code used a stale folded list");
    vm.memory_mut().list_mut(0)[0] = 28; // back to its initial value
    assert_eq!(run(&mut vm), Ok(Completion::Returned(Some(0))));
    assert!(
        vm.ran_compiled(),
        "the restored list did not bring native code back"
    );
}

#[test]
fn instances_share_hotness_and_code() {
    // An embedder that makes a new instance per call (as the engine does
    // per search) still gets its function compiled.
    let p = program(FIB);
    let tiered = TieredProgram::new(
        p,
        TierConfig {
            call_threshold: 3,
            fuel_threshold: u64::MAX,
            background: false,
            baseline_call_threshold: u32::MAX,
            baseline_fuel_threshold: u64::MAX,
            ..TierConfig::DEFAULT
        },
    );
    let main = 1;
    let mut native = Vec::new();
    for _ in 0..6 {
        let mut vm = tiered.instance();
        let done = vm
            .call(main, &[], &mut NoHost, &mut CollectOutput::default())
            .expect("runs");
        assert_eq!(done.value(), Some(6765));
        native.push(vm.ran_compiled());
    }
    // fib's calls cross the threshold in the first run; main's four calls
    // (one per instance) cross it in the fourth.
    assert_eq!(native, [true, true, true, true, true, true]);
    assert_eq!(tiered.compiled_functions(), 2);
}

#[test]
fn siblings_reuse_compiled_closures() {
    // Every switch point of one program as a sibling: a closure is compiled
    // once, later switches into it take that code, and every run still
    // matches the interpreter (fib(20), its fuel and its memory).
    let p = program(FIB);
    let want_fuel = interpreter_fuel(&p);
    let first = TieredProgram::new(p, TierConfig::switch_at(0));
    for at in 0..6 {
        let tiered = first.sibling(TierConfig::switch_at(at));
        assert_eq!(tiered.compiled_functions(), 0, "a sibling starts empty");
        let mut vm = tiered.instance();
        let done = vm
            .run_entry(&mut NoHost, &mut CollectOutput::default())
            .expect("runs");
        assert_eq!(done.value(), Some(6765), "switch at call {at}");
        assert_eq!(vm.fuel_used(), want_fuel, "switch at call {at}");
        assert!(vm.ran_compiled(), "switch at call {at}");
    }
    // Call 0 enters main (its closure is main and fib); every later call
    // enters fib (its closure is fib alone): two compilations in all.
    assert_eq!(first.compilations(), 2);
    assert_eq!(first.compiled_functions(), 0, "the first was never run");
}

/// One long loop in `main()`, with a value on the operand stack across it:
/// the sum of 0..200,000 modulo 1,000,003, plus 5 (by hand: 19,999,900,000
/// mod 1,000,003 = 840,003, plus 5).
const LONG_LOOP: &str = "
.entry main
.func main params 0 lists 0 locals 2 stack 3 value
.slots i s
    push 5
L_top:
    ldl s
    ldl i
    add
    push 1000003
    mod
    stl s
    incl i
    ldl i
    push 200000
    lt
    jnz L_top
    ldl s
    add
    retv
.end
";

#[test]
fn a_long_loop_moves_to_native_code_while_it_runs() {
    let p = program(LONG_LOOP);
    let want_fuel = interpreter_fuel(&p);
    let mut configs = vec![(
        "Cranelift only",
        TierConfig {
            background: false,
            baseline_fuel_threshold: u64::MAX,
            ..TierConfig::DEFAULT
        },
        CodeGen::Cranelift,
    )];
    if jit::baseline::supported() {
        configs.push((
            "baseline only",
            TierConfig {
                background: false,
                fuel_threshold: u64::MAX,
                ..TierConfig::DEFAULT
            },
            CodeGen::Baseline,
        ));
        // Interpreter, then baseline code, whose polls at the back edge
        // ask for Cranelift's code and continue the frame there.
        configs.push((
            "baseline, then Cranelift",
            TierConfig {
                background: false,
                ..TierConfig::DEFAULT
            },
            CodeGen::Cranelift,
        ));
    }
    for (name, config, codegen) in configs {
        let tiered = TieredProgram::new(p.clone(), config);
        let mut vm = tiered.instance();
        vm.set_limits(Limits {
            fuel: Some(want_fuel + 10),
            ..Limits::default()
        });
        let done = vm
            .run_entry(&mut NoHost, &mut CollectOutput::default())
            .expect("runs");
        assert_eq!(done.value(), Some(840_008), "{name}");
        assert_eq!(vm.fuel_used(), want_fuel, "{name}");
        assert!(
            vm.ran_compiled(),
            "{name}: the loop never left the interpreter"
        );
        assert_eq!(tiered.functions_on(codegen), 1, "{name}");
        if name == "baseline, then Cranelift" {
            // Both compilations were made in the one run.
            assert_eq!(tiered.compilations(), 2, "{name}");
        }
        // Too little fuel: the same error at the same place, on native
        // code after the switch.
        vm.set_limits(Limits {
            fuel: Some(want_fuel - 1),
            ..Limits::default()
        });
        let mut interp = Interpreter::new(&p);
        interp.set_limits(vm.limits());
        let want = interp
            .run_entry(&mut NoHost, &mut CollectOutput::default())
            .expect_err("runs out");
        let got = vm
            .run_entry(&mut NoHost, &mut CollectOutput::default())
            .expect_err("runs out");
        assert_eq!(got.kind, TrapKind::OutOfFuel, "{name}");
        assert_eq!(got.offset, want.offset, "{name}");
        assert_eq!(vm.fuel_used(), interp.fuel_used(), "{name}");
    }
}

#[test]
fn every_back_edge_of_a_long_loop_can_switch() {
    let p = program(LONG_LOOP);
    let want_fuel = interpreter_fuel(&p);
    for &codegen in CodeGen::available() {
        for at in [0, 1, 2, 17, 199_998] {
            let tiered =
                TieredProgram::new(p.clone(), TierConfig::switch_at_back_edge(at, codegen));
            let mut vm = tiered.instance();
            let done = vm
                .run_entry(&mut NoHost, &mut CollectOutput::default())
                .expect("runs");
            assert_eq!(done.value(), Some(840_008), "{codegen:?} at {at}");
            assert_eq!(vm.fuel_used(), want_fuel, "{codegen:?} at {at}");
            assert!(vm.ran_compiled(), "{codegen:?} at {at}");
        }
        // The last back edge is number 199,998: no switch after it.
        let tiered =
            TieredProgram::new(p.clone(), TierConfig::switch_at_back_edge(199_999, codegen));
        let mut vm = tiered.instance();
        vm.run_entry(&mut NoHost, &mut CollectOutput::default())
            .expect("runs");
        assert!(!vm.ran_compiled());
        assert_eq!(tiered.compiled_functions(), 0);
    }
}

#[test]
fn the_hosts_jit_runs_a_long_loop_exactly_whenever_cranelift_code_arrives() {
    let p = program(&LONG_LOOP.replace("200000", "3000000"));
    let want = {
        let mut interp = Interpreter::new(&p);
        let done = interp
            .run_entry(&mut NoHost, &mut CollectOutput::default())
            .expect("runs");
        (done.value(), interp.fuel_used())
    };
    for _ in 0..3 {
        let jit = JitProgram::compile_quick(&p, &[0]).expect("compiles");
        let mut vm = jit.instance();
        let done = vm
            .run_entry(&mut NoHost, &mut CollectOutput::default())
            .expect("runs");
        assert_eq!((done.value(), vm.fuel_used()), want);
    }
}

/// `hot` adds its argument to a global, stores it in a list, gives a
/// square bonus of it through a folded list and returns a pattern test on
/// that list plus the global; `cold` reads what `hot` wrote and counts
/// itself in the global.
const MOVING_STATE: &str = "
.global g 0
.list sq 1 = 28
.list buf 4
.entry main
.func hot params 1 lists 0 locals 1 stack 3 value
.slots x z
    ldl x
    ldg g
    add
    stg g
    ldl x
    ste.l buf z
    push 512
    ldl x
    lref sq
    intr SetSqrs
    push 512
    lref sq
    intr PcOnSqrs
    ldg g
    add
    retv
.end
.func cold params 0 lists 0 locals 0 stack 2 value
    incg g
    push 0
    lde buf
    ldg g
    add
    retv
.end
.func main params 0 lists 0 locals 0 stack 1 value
    push 1
    call hot
    retv
.end
";

/// What [`moving_state`] saw: calls of `hot` and of `cold` that ran
/// native code, calls of `cold` that did not, and the generator of each
/// function's code at the end.
struct Moved {
    on_native: (u32, u32),
    cold_interpreted: u32,
    codegen: (Option<CodeGen>, Option<CodeGen>),
}

/// Without a forced switch point, the embedder's calls of a function with
/// native code run on an instance of that code, and the memory and advice
/// table move between it and the interpreter (and between instances).
/// Runs [`MOVING_STATE`] on `config`: calls of `hot` and of `cold`,
/// embedder writes to a list, to a folded list and to the advice table,
/// and resets, side by side with the interpreter alone, which every
/// result, fuel count, memory and advice table must match.
fn moving_state(config: TierConfig) -> Moved {
    let p = program(MOVING_STATE);
    let tiered = TieredProgram::new(p.clone(), config);
    let (hot, cold) = (0, 1);
    assert_eq!(p.module().function_index("hot"), Some(hot));
    assert_eq!(p.module().function_index("cold"), Some(cold));
    let mut vm = tiered.instance();
    let mut interp = Interpreter::new(&p);
    let mut board = BoardView::EMPTY;
    board.pieces[0][0] = 1 << 12; // a white pawn on e2
    let mut host = BoardHost(board);
    let mut on_native = (0, 0);
    let mut cold_interpreted = 0;
    for i in 0..200i32 {
        let (func, args): (u32, Vec<i32>) = if i % 7 == 3 {
            (cold, vec![])
        } else {
            (hot, vec![i])
        };
        let want = interp.call(func, &args, &mut host, &mut CollectOutput::default());
        let got = vm.call(func, &args, &mut host, &mut CollectOutput::default());
        assert_eq!(got, want, "call {i}");
        assert_eq!(vm.fuel_used(), interp.fuel_used(), "fuel of call {i}");
        match (func == hot, vm.ran_compiled()) {
            (true, true) => on_native.0 += 1,
            (false, true) => on_native.1 += 1,
            (false, false) => cold_interpreted += 1,
            (true, false) => {}
        }
        assert_eq!(vm.memory(), interp.memory(), "memory after call {i}");
        assert_eq!(
            vm.advice().square_bonus,
            interp.advice().square_bonus,
            "advice after call {i}"
        );
        // The folded list names e2 for a while (the reset below restores
        // it); the other list gets a value now and then.
        let write = match i % 50 {
            30 => Some((0, 0, 12)),
            _ if i % 13 == 5 => Some((1, 2, i)),
            _ => None,
        };
        if let Some((list, at, v)) = write {
            vm.memory_mut().list_mut(list)[at] = v;
            interp.memory_mut().list_mut(list)[at] = v;
        }
        if i % 11 == 4 {
            vm.advice_mut().square_bonus[0][0][7] += i;
            interp.advice_mut().square_bonus[0][0][7] += i;
        }
        if i % 50 == 40 {
            vm.reset();
            interp.reset();
        }
    }
    // `hot` ran native code from its 21st call on; `cold` (called at every
    // seventh step) from its 21st, so the state also moved between the two
    // functions' instances of Cranelift's code.
    assert_eq!(tiered.codegen_of(2), None, "main was never called");
    Moved {
        on_native,
        cold_interpreted,
        codegen: (tiered.codegen_of(hot), tiered.codegen_of(cold)),
    }
}

#[test]
fn calls_on_cranelift_code_share_memory_and_advice_with_interpreted_calls() {
    let moved = moving_state(TierConfig::by_calls(20, u32::MAX));
    // `hot` ran Cranelift's code from its 21st call on; `cold` (called at
    // every seventh step) from its 21st, so the state also moved between
    // the two functions' instances.
    let Moved {
        on_native,
        cold_interpreted,
        codegen,
    } = moved;
    let cranelift = Some(CodeGen::Cranelift);
    assert_eq!(codegen, (cranelift, cranelift));
    assert!(on_native.0 > 100, "native calls of hot: {}", on_native.0);
    assert!(on_native.1 >= 5, "native calls of cold: {}", on_native.1);
    assert!(
        cold_interpreted >= 15,
        "interpreted calls of cold: {cold_interpreted}"
    );
}

#[test]
fn calls_on_baseline_code_share_memory_and_advice_and_move_on_to_cranelift() {
    if !jit::baseline::supported() {
        return;
    }
    let moved = moving_state(TierConfig::by_calls(60, 5));
    // `hot` (172 calls) ran baseline code from its 6th call and
    // Cranelift's from its 61st; `cold` (28 calls) baseline code from its
    // 6th; neither while the folded list was changed (steps 30 to 39 of
    // every 50).
    let Moved {
        on_native,
        cold_interpreted,
        codegen,
    } = moved;
    assert_eq!(codegen, (Some(CodeGen::Cranelift), Some(CodeGen::Baseline)));
    assert!(on_native.0 > 120, "native calls of hot: {}", on_native.0);
    assert!(on_native.1 >= 15, "native calls of cold: {}", on_native.1);
    assert!(
        (5..=12).contains(&cold_interpreted),
        "interpreted calls of cold: {cold_interpreted}"
    );
}
