//! Compiling on demand (`docs/jit.md`, "Compiling on demand"): the closure
//! of the roots is compiled at once, every other function at its first
//! call (with what it calls), and results, output, fuel and errors are
//! those of the interpreter either way.

mod common;

use common::program;
use cvm::{Backend, CollectOutput, Completion, Interpreter, Limits, NoHost, Vm};
use jit::{JitProgram, Prepared};

/// `main` calls `helper`; `lonely` calls `leaf`; `leaf` is called by
/// nobody else; `loop_sum` loops and writes.
const SRC: &str = "
.entry main
.func main params 0 lists 0 locals 0 stack 2 value
    push 20
    call helper
    push 1
    add
    retv
.end
.func helper params 1 lists 0 locals 0 stack 2 value
    ldl 0
    push 2
    mul
    retv
.end
.func lonely params 1 lists 0 locals 0 stack 2 value
    ldl 0
    call leaf
    push 100
    add
    retv
.end
.func leaf params 1 lists 0 locals 0 stack 2 value
    ldl 0
    push 3
    sub
    retv
.end
.func loop_sum params 1 lists 0 locals 1 stack 2 value
    push 0
    stl 1
L_top:
    ldl 1
    ldl 0
    add
    stl 1
    ldl 0
    push 1
    sub
    stl 0
    ldl 0
    push 0
    jgt L_top
    ldl 1
    dup
    write
    retv
.end
";

/// The interpreter's answer to calling `name` with `args`.
fn interpreted(p: &cvm::Program, name: &str, args: &[i32], fuel: u64) -> (Completion, u64) {
    let mut vm = Interpreter::new(p);
    vm.set_limits(Limits {
        fuel: Some(fuel),
        ..Limits::default()
    });
    let r = vm
        .call_by_name(name, args, &mut NoHost, &mut CollectOutput::default())
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    (r, vm.fuel_used())
}

#[test]
fn only_the_roots_closure_is_compiled_at_first() {
    let p = program(SRC);
    let jit = JitProgram::compile_on_demand(&p, &[0]).expect("compiles");
    let compiled: Vec<bool> = (0..5).map(|f| jit.has_function(f)).collect();
    assert_eq!(compiled, [true, true, false, false, false]);
    assert_eq!(jit.stats().functions, 2);
    assert!(jit.later_compilations().is_empty());
    // The eager compilation compiles all five.
    assert_eq!(
        JitProgram::compile(&p).expect("compiles").stats().functions,
        5
    );
}

#[test]
fn other_functions_compile_at_their_first_call_and_agree() {
    let p = program(SRC);
    let jit = JitProgram::compile_on_demand(&p, &[0]).expect("compiles");
    let mut vm = jit.instance();
    vm.set_limits(Limits {
        fuel: Some(10_000),
        ..Limits::default()
    });
    let call = |vm: &mut jit::JitInstance<'_>, name: &str, args: &[i32]| {
        let r = vm
            .call_by_name(name, args, &mut NoHost, &mut CollectOutput::default())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(vm.ran_compiled(), "{name} ran on the interpreter");
        (r, vm.fuel_used())
    };
    assert_eq!(
        call(&mut vm, "main", &[]),
        interpreted(&p, "main", &[], 10_000)
    );
    assert!(
        jit.later_compilations().is_empty(),
        "main was compiled already"
    );

    assert_eq!(
        call(&mut vm, "lonely", &[5]),
        interpreted(&p, "lonely", &[5], 10_000)
    );
    let later = jit.later_compilations();
    assert_eq!(later.len(), 1);
    assert_eq!(later[0].functions, 2, "lonely and leaf: {:?}", later[0]);

    // A second call reuses the code; `leaf` alone is its own closure.
    assert_eq!(
        call(&mut vm, "lonely", &[9]),
        interpreted(&p, "lonely", &[9], 10_000)
    );
    assert_eq!(jit.later_compilations().len(), 1);
    assert_eq!(
        call(&mut vm, "leaf", &[9]),
        interpreted(&p, "leaf", &[9], 10_000)
    );
    assert_eq!(jit.later_compilations().len(), 2);

    // A loop compiled on demand, with output, and a run out of fuel.
    let mut out = CollectOutput::default();
    let r = vm.call_by_name("loop_sum", &[10], &mut NoHost, &mut out);
    assert_eq!(
        r.map_err(|e| e.to_string()),
        Ok(Completion::Returned(Some(55)))
    );
    assert_eq!(out.lines.len(), 1);
    let mut interp = Interpreter::new(&p);
    let mut outcomes = Vec::new();
    for vm in [&mut vm as &mut dyn Vm, &mut interp] {
        vm.set_limits(Limits {
            fuel: Some(3),
            ..Limits::default()
        });
        let r = vm.call_by_name(
            "loop_sum",
            &[1000],
            &mut NoHost,
            &mut CollectOutput::default(),
        );
        outcomes.push((
            r.map_err(|e| (e.kind.to_string(), e.offset)),
            vm.fuel_used(),
        ));
    }
    let (got, want) = (&outcomes[0], &outcomes[1]);
    assert!(want.0.is_err());
    assert_eq!(got, want);
}

#[test]
fn no_roots_compiles_everything_on_demand() {
    let p = program(SRC);
    let jit = JitProgram::compile_on_demand(&p, &[]).expect("compiles");
    assert_eq!(jit.stats().functions, 0);
    // Two instances share what either compiled.
    let mut a = jit.instance();
    let mut b = jit.instance();
    let ra = a
        .run_entry(&mut NoHost, &mut CollectOutput::default())
        .expect("runs");
    let rb = b
        .run_entry(&mut NoHost, &mut CollectOutput::default())
        .expect("runs");
    assert_eq!(ra, Completion::Returned(Some(41)));
    assert_eq!(ra, rb);
    assert!(a.ran_compiled() && b.ran_compiled());
    assert_eq!(jit.later_compilations().len(), 1);
}

#[test]
fn prepared_for_entries_runs_like_the_other_backends() {
    let p = program(SRC);
    let roots = Prepared::entry_points(&p, &["leaf", "no_such_hook"]);
    assert_eq!(roots, [0, 3]);
    for backend in Backend::ALL {
        let prepared = Prepared::for_entries(p.clone(), backend, &roots).expect("prepares");
        assert_eq!(prepared.backend(), backend);
        let mut vm = prepared.instance();
        let r = vm
            .run_entry(&mut NoHost, &mut CollectOutput::default())
            .expect("runs");
        assert_eq!(r, Completion::Returned(Some(41)), "{backend}");
        let r = vm
            .call_by_name("lonely", &[1], &mut NoHost, &mut CollectOutput::default())
            .expect("runs");
        assert_eq!(r, Completion::Returned(Some(98)), "{backend}");
        if let Some(jit) = prepared.jit() {
            assert_eq!(jit.stats().functions, 3, "main, helper and leaf");
            assert_eq!(jit.later_compilations().len(), 1, "lonely");
        }
    }
}

/// A global counted up by every call of `main`, and a loop that charges
/// fuel: the instance's memory and every figure must carry on unchanged
/// across the switch from baseline code to Cranelift's.
const COUNTER: &str = "
.entry main
.global count 0
.func main params 0 lists 0 locals 1 stack 2 value
    incg 0
    push 0
    stl 0
L:
    incl 0
    ldl 0
    push 50
    jlt L
    ldg 0
    ldl 0
    add
    retv
.end
";

#[test]
fn quick_compilation_switches_to_cranelift_code_without_a_seam() {
    let p = program(COUNTER);
    let jit = JitProgram::compile_quick(&p, &[0]).expect("compiles");
    if jit::baseline::supported() {
        let stats = jit.stats();
        assert_eq!(
            stats.unoptimized_functions, stats.functions,
            "baseline code first"
        );
    }
    let mut interp = Interpreter::new(&p);
    let mut vm = jit.instance();
    let step = |vm: &mut dyn Vm, interp: &mut Interpreter| {
        let want = interp
            .run_entry(&mut NoHost, &mut CollectOutput::default())
            .expect("runs");
        let got = vm
            .run_entry(&mut NoHost, &mut CollectOutput::default())
            .expect("runs");
        assert_eq!(got, want);
        assert_eq!(vm.fuel_used(), interp.fuel_used());
        assert_eq!(vm.memory(), interp.memory());
        assert!(vm.ran_compiled());
    };
    for _ in 0..3 {
        step(&mut vm, &mut interp);
    }
    // A generous bound: only a stalled compiler thread takes this long.
    assert!(
        jit.wait_for_upgrade(std::time::Duration::from_secs(60)) || !jit::baseline::supported(),
        "Cranelift's code never arrived"
    );
    for _ in 0..3 {
        step(&mut vm, &mut interp);
    }
    assert_eq!(vm.memory().globals[0], 6);
}

#[test]
fn the_jit_backend_of_the_hosts_starts_on_baseline_code() {
    let p = program(SRC);
    let prepared = Prepared::for_entries(p, Backend::Jit, &[0]).expect("prepares");
    let jit = prepared.jit().expect("a JIT compilation");
    assert_eq!(jit.stats().functions, 2, "main and helper");
    let mut vm = prepared.instance();
    let done = vm
        .run_entry(&mut NoHost, &mut CollectOutput::default())
        .expect("runs");
    assert_eq!(done, Completion::Returned(Some(41)));
    assert!(vm.ran_compiled());
}

/// `main` calls `sq` three times and writes after the first call.
const CALLS_AFTER_WRITE: &str = "
.entry main
.func main params 0 lists 0 locals 0 stack 3 value
    push 5
    call sq
    dup
    write
    push 6
    call sq
    add
    push 7
    call sq
    add
    retv
.end
.func sq params 1 lists 0 locals 0 stack 2 value
    ldl 0
    ldl 0
    mul
    retv
.end
";

/// An output that, at the first `write`, has Cranelift's code of a
/// deferred quick compilation compiled.
struct UpgradeAtFirstWrite<'a> {
    jit: &'a JitProgram,
    lines: Vec<i32>,
}

impl cvm::Output for UpgradeAtFirstWrite<'_> {
    fn write_value(&mut self, value: i32) {
        if self.lines.is_empty() {
            assert!(self.jit.upgrade_now(), "Cranelift compiles the closure");
        }
        self.lines.push(value);
    }

    fn write_text(&mut self, _: &str) {}
}

#[test]
fn baseline_callers_enter_cranelift_code_once_it_has_arrived() {
    if !jit::baseline::supported() {
        return;
    }
    let p = program(CALLS_AFTER_WRITE);
    let jit = JitProgram::compile_quick_deferred(&p, &[0]).expect("compiles");
    assert!(!jit.upgraded());
    let mut vm = jit.instance();
    let mut out = UpgradeAtFirstWrite {
        jit: &jit,
        lines: Vec::new(),
    };
    let got = vm.run_entry(&mut NoHost, &mut out).expect("runs");
    // 5*5 + 6*6 + 7*7, by hand.
    assert_eq!(got, Completion::Returned(Some(110)));
    assert_eq!(out.lines, vec![25]);
    // `main` started on baseline code and stays there; its two calls of
    // `sq` after the write run Cranelift's code from their entry.
    assert_eq!(jit.entry_switches(), 2);
    let mut interp = Interpreter::new(&p);
    interp
        .run_entry(&mut NoHost, &mut CollectOutput::default())
        .expect("runs");
    assert_eq!(vm.fuel_used(), interp.fuel_used());
    assert_eq!(vm.memory(), interp.memory());
    // The next embedder call runs Cranelift's code from the start: no
    // baseline code is left to switch.
    vm.run_entry(&mut NoHost, &mut out).expect("runs");
    assert_eq!(jit.entry_switches(), 2);
}

#[test]
fn a_call_switched_at_its_entry_runs_out_of_fuel_as_interpreted() {
    if !jit::baseline::supported() {
        return;
    }
    let p = program(CALLS_AFTER_WRITE);
    for fuel in 0..=12 {
        let limits = Limits {
            fuel: Some(fuel),
            ..Limits::default()
        };
        let jit = JitProgram::compile_quick_deferred(&p, &[0]).expect("compiles");
        let mut vm = jit.instance();
        vm.set_limits(limits);
        let mut out = UpgradeAtFirstWrite {
            jit: &jit,
            lines: Vec::new(),
        };
        let got = vm.run_entry(&mut NoHost, &mut out);
        let mut interp = Interpreter::new(&p);
        interp.set_limits(limits);
        let mut want_out = CollectOutput::default();
        let want = interp.run_entry(&mut NoHost, &mut want_out);
        assert_eq!(got, want, "fuel {fuel}");
        assert_eq!(vm.fuel_used(), interp.fuel_used(), "fuel {fuel}");
        let want_lines: Vec<i32> = want_out
            .lines
            .iter()
            .filter_map(|l| match l {
                cvm::OutputLine::Value(v) => Some(*v),
                cvm::OutputLine::Text(_) => None,
            })
            .collect();
        assert_eq!(out.lines, want_lines, "fuel {fuel}");
    }
}

/// `main` writes, then sums `0..5000` in a loop of 5,000 back edges.
const WRITE_THEN_LOOP: &str = "
.entry main
.func main params 0 lists 0 locals 2 stack 2 value
    push 7
    write
L_top:
    ldl 1
    ldl 0
    add
    stl 1
    ldl 0
    push 1
    add
    stl 0
    ldl 0
    push 5000
    jlt L_top
    ldl 1
    retv
.end
";

#[test]
fn a_baseline_frame_moves_to_cranelift_code_at_a_back_edge() {
    if !jit::baseline::supported() {
        return;
    }
    let p = program(WRITE_THEN_LOOP);
    // Unbounded, then out of fuel before and after the first poll (the
    // 1,024th back edge) and at the end.
    for fuel in [None, Some(500), Some(5_000), Some(20_000), Some(25_008)] {
        let limits = Limits {
            fuel,
            ..Limits::default()
        };
        let jit = JitProgram::compile_quick_deferred(&p, &[0]).expect("compiles");
        let mut vm = jit.instance();
        vm.set_limits(limits);
        let mut out = UpgradeAtFirstWrite {
            jit: &jit,
            lines: Vec::new(),
        };
        let got = vm.run_entry(&mut NoHost, &mut out);
        let mut interp = Interpreter::new(&p);
        interp.set_limits(limits);
        let want = interp.run_entry(&mut NoHost, &mut CollectOutput::default());
        assert_eq!(got, want, "fuel {fuel:?}");
        assert_eq!(vm.fuel_used(), interp.fuel_used(), "fuel {fuel:?}");
        assert_eq!(vm.memory(), interp.memory(), "fuel {fuel:?}");
        assert_eq!(out.lines, vec![7]);
        if fuel.is_none() {
            // 0 + 1 + ... + 4999, by hand.
            assert_eq!(got, Ok(Completion::Returned(Some(12_497_500))));
        }
        // The frame started on baseline code and moved once Cranelift's
        // code was there, at the first poll, unless fuel ran out first.
        let moved = u64::from(interp.fuel_used() > 1_100);
        assert_eq!(jit.back_edge_switches(), moved, "fuel {fuel:?}");
        assert_eq!(jit.entry_switches(), 0);
    }
}
