//! Counted loops (`jit/src/loops.rs`, docs/jit.md "Counted loops"): loops
//! that take the fast copy and loops that must fall back to the checked one
//! (fuel running out mid-loop, an index leaving its list mid-loop, the
//! depth limit hit by an `enter` in the loop, a bound written in the loop,
//! negative steps, steps that wrap around, slot steps of either sign or
//! zero, for-in copies between lists of different sizes), each run on the
//! interpreter and the JIT under sweeps of the fuel and the depth limit,
//! which must agree exactly: result or error kind, code offset and source
//! position, output, fuel used, memory. Each test also checks which copy
//! the sweep ran, so that a fast path that is never taken (or never left)
//! cannot pass unnoticed. A generator of random counted loops covers the
//! combinations.

mod common;

use common::{program, sweep};
use cvm::Vm;
use cvm::{Interpreter, Limits, NoHost, NullOutput, Program, TrapKind};
use jit::LoopEntries;

/// Every fuel from 0 to `n`, and unbounded.
fn fuels_upto(n: u64) -> Vec<Option<u64>> {
    (0..=n).map(Some).chain([None]).collect()
}

/// The interpreter's outcome with unbounded fuel: the error kind, if any,
/// and the fuel used.
fn outcome(p: &Program, depth: u32) -> (Option<TrapKind>, u64) {
    let mut vm = Interpreter::new(p);
    vm.set_limits(Limits {
        fuel: None,
        max_depth: depth,
    });
    let r = vm.run_entry(&mut NoHost, &mut NullOutput);
    (r.err().map(|e| e.kind), vm.fuel_used())
}

/// Asserts that the interpreter stops `p` with a bounds error at `index`.
fn assert_index_error(p: &Program, index: i32) {
    let (err, _) = outcome(p, 4);
    assert!(
        matches!(err, Some(TrapKind::ListIndex { index: i, .. }) if i == index),
        "{err:?}"
    );
}

/// Fills `a` with multiples of 3, then sums it with a loop that reads the
/// end-marker slot too (the index reaches the last slot exactly).
const FILL: &str = r#"
.list a 10
.entry main
.func main params 0 lists 0 locals 2 stack 2 value
.slots i s
L:
    ldl i
    mul.i 3
    ste.l a i
    inc.jlt.li i 10 L
    push 0
    stl i
M:
    lde.l a i
    add.l s
    stl s
    incl i
    jlt.li i 11 M
    ldl s
    retv
.end
"#;

#[test]
fn loops_that_fit_take_the_fast_copy() {
    let p = program(FILL);
    let (err, used) = outcome(&p, 16);
    assert_eq!(err, None);
    let e = sweep(&p, &[16], &fuels_upto(used + 2));
    // Enough fuel: both loops fast on both runs; too little: checked.
    assert!(e.fast >= 4, "{e:?}");
    assert!(e.checked > 0, "{e:?}");
}

/// The second loop reads two slots past the list: a bounds error in its
/// twelfth iteration, which only the checked copy may raise.
const OVERRUN: &str = r#"
.list a 10
.entry main
.func main params 0 lists 0 locals 2 stack 2 value
.slots i s
L:
    ldl i
    ste.l a i
    inc.jlt.li i 10 L
    push 0
    stl i
M:
    lde.l a i
    add.l s
    stl s
    incl i
    jlt.li i 13 M
    ldl s
    retv
.end
"#;

#[test]
fn an_index_leaving_its_list_mid_loop_falls_back() {
    let p = program(OVERRUN);
    let (err, used) = outcome(&p, 16);
    assert!(
        matches!(
            err,
            Some(TrapKind::ListIndex {
                index: 11,
                slots: 11
            })
        ),
        "{err:?}"
    );
    let e = sweep(&p, &[16], &fuels_upto(used + 2));
    // The fill loop is fast with enough fuel; the reading loop never is.
    let runs = 2 * (used + 4);
    assert!(e.fast > 0 && e.fast < runs, "{e:?}");
    assert!(e.checked >= runs - 2, "{e:?}");
}

/// Negative steps: a fill from the top down to slot 0, and a read with
/// step -2 at index i - 1, both ending exactly at the list's edge; `LOW`
/// sets how far down the second loop goes (0: exact, -2: one step too
/// far, reading index -2).
fn downward(low: i32) -> String {
    format!(
        r#"
.list a 8
.entry main
.func main params 0 lists 0 locals 2 stack 2 value
.slots i s
    push 8
    stl i
L:
    ldl i
    ste.l a i
    decl i
    jge.li i 0 L
    push 9
    stl i
M:
    ldl.add.i i -1
    lde a
    add.l s
    stl s
    ldl i
    add.i -2
    stl i
    jgt.li i {low} M
    ldl s
    retv
.end
"#
    )
}

#[test]
fn negative_steps() {
    let p = program(&downward(0));
    let (err, used) = outcome(&p, 8);
    assert_eq!(err, None);
    let e = sweep(&p, &[8], &fuels_upto(used + 2));
    assert!(e.fast >= 4 && e.checked > 0, "{e:?}");

    let p = program(&downward(-2));
    let (err, used) = outcome(&p, 8);
    assert!(
        matches!(err, Some(TrapKind::ListIndex { index: -2, .. })),
        "{err:?}"
    );
    let e = sweep(&p, &[8], &fuels_upto(used + 2));
    assert!(e.fast > 0 && e.checked > 0, "{e:?}");
}

/// Induction variables near the end of the int range: `start`, `step` and
/// the `jlt.li` bound. When a step would carry the variable past
/// `i32::MAX` it wraps around, stays below the bound and the loop runs
/// until the fuel is gone: the guard must not take the fast copy.
fn near_max(start: i32, step: i32, bound: i32) -> String {
    format!(
        r#"
.entry main
.func main params 0 lists 0 locals 2 stack 2 value
.slots i n
    push {start}
    stl i
L:
    incl n
    ldl i
    add.i {step}
    stl i
    jlt.li i {bound} L
    ldl n
    retv
.end
"#
    )
}

#[test]
fn steps_that_wrap_around_fall_back() {
    // Wraps: 2147483600 + 7k jumps over 2147483647.
    let p = program(&near_max(2_147_483_600, 7, i32::MAX));
    let e = sweep(&p, &[4], &[Some(0), Some(5), Some(7), Some(8), Some(1000)]);
    assert_eq!(e.fast, 0, "{e:?}");
    assert!(e.checked > 0, "{e:?}");
    // Ends exactly at i32::MAX without wrapping: fast with enough fuel.
    let p = program(&near_max(2_147_483_600, 1, i32::MAX));
    let (err, used) = outcome(&p, 4);
    // 46 taken jumps back over 5 instructions (1 each) and the entry of
    // the 9-instruction main (2).
    assert_eq!((err, used), (None, 48));
    let e = sweep(&p, &[4], &fuels_upto(used + 1));
    assert!(e.fast >= 4 && e.checked > 0, "{e:?}");
    // The bound is i32::MIN + something, stepping down past i32::MIN.
    let p = program(
        r#"
.entry main
.func main params 0 lists 0 locals 2 stack 2 value
.slots i n
    push -2147483600
    stl i
L:
    incl n
    ldl i
    add.i -11
    stl i
    jgt.li i -2147483645 L
    ldl n
    retv
.end
"#,
    );
    let e = sweep(&p, &[4], &[Some(3), Some(12), Some(500)]);
    assert_eq!(e.fast, 0, "{e:?}");
}

/// A step held in a slot (the sieve's `j := j + i`), of any sign: 0 never
/// ends (the fuel does), a negative step walks out of the list's front.
fn slot_step(step: i32, start: i32) -> String {
    format!(
        r#"
.list a 20
.entry main
.func main params 0 lists 0 locals 3 stack 2 value
.slots j i c
    push {step}
    stl i
    push {start}
    stl j
L:
    push 1
    ste.l a j
    incl c
    ldl j
    add.l i
    stl j
    jlt.li j 20 L
    ldl c
    retv
.end
"#
    )
}

#[test]
fn slot_steps_of_any_sign() {
    let mut total = LoopEntries::default();
    for (step, start) in [(3, 2), (1, 0), (7, 19), (4, 20), (5, -1), (0, 4), (-2, 6)] {
        let p = program(&slot_step(step, start));
        // Some of these loops never end: bounded fuel only.
        let fuels: Vec<Option<u64>> = (0..=12).chain([200]).map(Some).collect();
        let e = sweep(&p, &[4], &fuels);
        total.fast += e.fast;
        total.checked += e.checked;
        if step <= 0 || !(0..=20).contains(&start) {
            assert_eq!(e.fast, 0, "step {step}, start {start}: {e:?}");
        }
    }
    assert!(total.fast > 0 && total.checked > 0, "{total:?}");
}

/// The for-in copy of the list-copy benchmark, between lists of the given
/// capacities, the source filled with `fill` values (then its initial
/// contents, `.list` values after `=`).
fn copy(to: u32, from: u32, init: &str, fill: u32) -> String {
    format!(
        r#"
.list src {from}{init}
.list dst {to}
.entry main
.func copy params 0 lists 2 locals 2 stack 1 proc
.slots to from j cur
    forx from cur E
B:
    stx.l to j
    incl j
    forx.b from cur B
    fuel 1
E:
    push -1
    stx.l to j
    ret
.end
.func main params 0 lists 0 locals 1 stack 2 value
.slots i
    jge.li i {fill} C
F:
    ldl i
    ste.l src i
    inc.jlt.li i {fill} F
C:
    lref dst
    lref src
    call copy
    push 0
    lde dst
    retv
.end
"#
    )
}

#[test]
fn for_in_copies_between_lists_of_any_size() {
    let mut total = LoopEntries::default();
    // (to, from, initial source values, filled): equal sizes; an end
    // marker early in the source; a destination too short (bounds error
    // in the copy); a source whose last slot is overwritten too.
    for (to, from, init, fill) in [
        (8, 8, "", 8),
        (8, 8, " = 5 6 7 -1 9", 0),
        (8, 8, "", 3),
        (5, 8, "", 8),
        (7, 8, "", 6),
        (8, 8, "", 9),
        (0, 3, "", 3),
    ] {
        let p = program(&copy(to, from, init, fill));
        let e = sweep(
            &p,
            &[2, 3, 8],
            &fuels_upto(24)
                .into_iter()
                .chain([Some(1000)])
                .collect::<Vec<_>>(),
        );
        total.fast += e.fast;
        total.checked += e.checked;
    }
    assert!(total.fast > 0 && total.checked > 0, "{total:?}");
}

/// Inlined leaf calls (`enter k`) and an inlined non-leaf body
/// (`enter.f` ... `leave`) in the loop: their depth tests decide between
/// the copies.
const DEPTH: &str = r#"
.entry main
.func main params 0 lists 0 locals 2 stack 2 value
.slots i s
L:
    enter 2
    enter.f
    enter 1
    incl s
    leave
    inc.jlt.li i 5 L
    enter 3
    ldl s
    retv
.end
"#;

#[test]
fn the_depth_limit_hit_in_the_loop_falls_back() {
    let p = program(DEPTH);
    for depth in 1..4 {
        let (err, _) = outcome(&p, depth);
        assert!(matches!(err, Some(TrapKind::CallDepth(_))), "depth {depth}");
    }
    // Five iterations of three `enter`s, four jumps back over 6
    // instructions, the last `enter` and the entry of the 9-instruction
    // main (2): 15 + 4 + 1 + 2.
    assert_eq!(outcome(&p, 4), (None, 22));
    let e = sweep(&p, &[1, 2, 3, 4, 5, 6, 100], &fuels_upto(24));
    assert!(e.fast > 0 && e.checked > 0, "{e:?}");
    // Too shallow for the loop: never fast.
    let e = sweep(&p, &[1, 2], &[None, Some(100)]);
    assert_eq!(e.fast, 0, "{e:?}");
}

/// The bound is written in the loop: no counted loop at all.
const MOVING_BOUND: &str = r#"
.list a 30
.entry main
.func main params 0 lists 0 locals 2 stack 2 value
.slots i n
    push 20
    stl n
L:
    ldl i
    ste.l a i
    decl n
    incl i
    ldl2 i n
    jlt L
    ldl n
    retv
.end
"#;

#[test]
fn a_bound_written_in_the_loop_is_not_counted() {
    let p = program(MOVING_BOUND);
    let e = sweep(&p, &[4], &fuels_upto(12));
    assert_eq!(e, LoopEntries::default());
}

/// A division by zero in the sixth iteration of a fast loop: the fast copy
/// keeps the test, with the fuel used exact.
const DIVIDE: &str = r#"
.entry main
.func main params 0 lists 0 locals 2 stack 2 value
.slots i s
L:
    push 100
    ldl.add.i i -5
    div
    add.l s
    stl s
    inc.jlt.li i 10 L
    ldl s
    retv
.end
"#;

#[test]
fn errors_in_the_fast_copy_keep_their_offset_and_fuel() {
    let p = program(DIVIDE);
    let (err, used) = outcome(&p, 4);
    // Five taken jumps (1 each) and the entry of the 8-instruction main (2).
    assert_eq!((err, used), (Some(TrapKind::DivisionByZero), 7));
    let e = sweep(&p, &[4], &fuels_upto(14));
    assert!(e.fast > 0 && e.checked > 0, "{e:?}");
}

/// A loop tested at the top (the test before the accesses: they run in
/// full iterations only), with a break on an element, output in the loop,
/// and a halt on its way out.
const TOP_TESTED: &str = r#"
.list a 11 = 4 8 15 16 23 42 7 1 2 3 5
.entry main
.func main params 0 lists 0 locals 3 stack 2 value
.slots i s lim
    push 11
    stl lim
L:
    ldl2 i lim
    jge E
    lde.l a i
    dup
    write
    dup
    jeq.i 7 B
    add.l s
    stl s
    incl i
    jmp L
B:
    pop
    ldl s
    jgt.i 200 H
E:
    ldl s
    retv
H:
    halt
.end
"#;

#[test]
fn top_tested_loops_breaks_output_and_halt() {
    let p = program(TOP_TESTED);
    let e = sweep(&p, &[4], &fuels_upto(14));
    assert!(e.fast > 0 && e.checked > 0, "{e:?}");
    let halts = TOP_TESTED.replace("jgt.i 200 H", "jgt.i 10 H");
    let e = sweep(&program(&halts), &[4], &fuels_upto(14));
    assert!(e.fast > 0, "{e:?}");
    // Without the break, a limit of 12 reads a[11], the end marker slot,
    // which is in bounds; a limit of 13 reads one slot past it.
    for (lim, ok) in [(13, false), (12, true), (11, true)] {
        let src = TOP_TESTED
            .replace("jeq.i 7 B", "jeq.i 1000 B")
            .replace("push 11\n    stl lim", &format!("push {lim}\n    stl lim"));
        let p = program(&src);
        let (err, _) = outcome(&p, 4);
        assert_eq!(err.is_none(), ok, "lim {lim}: {err:?}");
        sweep(&p, &[4], &fuels_upto(16));
    }
}

/// Two induction variables, one stepping by 2 through a list twice as
/// long, and accesses at offsets from them, before and after their steps.
const TWO_IVS: &str = r#"
.list a 9
.list b 19
.entry main
.func main params 0 lists 0 locals 3 stack 3 value
.slots i j s
    push 1
    stl i
L:
    ldl.add.i i -1
    ldl j
    ste a
    ldl j
    add.i 2
    stl j
    ldl.add.i j -1
    ldl i
    ste b
    ldl i
    add.i 1
    lde a
    add.l s
    stl s
    incl i
    jle.li i 8 L
    ldl s
    retv
.end
"#;

#[test]
fn several_induction_variables_and_offsets() {
    let p = program(TWO_IVS);
    let (err, used) = outcome(&p, 4);
    assert_eq!(err, None);
    let e = sweep(&p, &[4], &fuels_upto(used + 1));
    assert!(e.fast > 0 && e.checked > 0, "{e:?}");
    // One slot too far in each list.
    for (from, to) in [
        ("jle.li i 8 L", "jle.li i 9 L"),
        ("ldl.add.i i -1", "ldl.add.i i -2"),
    ] {
        let p = program(&TWO_IVS.replace(from, to));
        let (err, _) = outcome(&p, 4);
        assert!(
            matches!(err, Some(TrapKind::ListIndex { .. })),
            "{to}: {err:?}"
        );
        let e = sweep(&p, &[4], &fuels_upto(used + 3));
        assert_eq!(e.fast, 0, "{to}: {e:?}");
    }
}

/// The Che++ benchmark twins and their optimized forms, whose hot loops
/// are all counted, on a few fuels (the full runs are long for a sweep).
#[test]
fn the_benchmark_programs_agree() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../benches/che");
    let mut total = LoopEntries::default();
    for name in ["sieve", "listcopy", "calls", "loop"] {
        let path = dir.join(format!("{name}.che"));
        let compiled = chepp::compile_file(&path, &chepp::CompileOptions::default());
        let p = compiled.program.clone().expect("compiles");
        let (o, _) = cvm::opt::optimize(&p);
        for q in [&p, &o] {
            let e = sweep(
                q,
                &[3, 100],
                &[Some(0), Some(50), Some(9_999), Some(200_000)],
            );
            total.fast += e.fast;
            total.checked += e.checked;
        }
    }
    assert!(total.fast > 0 && total.checked > 0, "{total:?}");
}

/// A small random generator of counted loops: start, step (constant or in
/// a slot), comparison and bound (constant or in a slot), the test at the
/// top or the bottom, an access at an offset before or after the step, a
/// list of random size, and random fuel.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[(self.next() % xs.len() as u64) as usize]
    }
    fn range(&mut self, lo: i32, hi: i32) -> i32 {
        lo + (self.next() % (hi - lo + 1) as u64) as i32
    }
}

fn random_loop(g: &mut Gen) -> String {
    let cap = g.range(0, 12);
    let up = g.next() % 2 == 0;
    let step = if up {
        g.pick(&[1, 1, 2, 3, 5])
    } else {
        g.pick(&[-1, -1, -2, -3])
    };
    let start = g.range(-3, cap + 3);
    let bound = g.range(-3, cap + 3);
    let cmp = if up {
        g.pick(&["lt", "le", "ne"])
    } else {
        g.pick(&["gt", "ge", "ne"])
    };
    let off = g.range(-2, 2);
    let slot_step = g.next() % 3 == 0;
    let slot_bound = g.next() % 3 == 0;
    let store = g.next() % 2 == 0;
    let access = format!(
        "    ldl.add.i i {off}\n{}",
        if store {
            "    ldl i\n    ste a\n"
        } else {
            "    lde a\n    add.l s\n    stl s\n"
        }
    );
    let stepping = match (slot_step, step) {
        (true, _) => "    ldl i\n    add.l st\n    stl i\n".to_string(),
        (false, 1) => "    incl i\n".to_string(),
        (false, -1) => "    decl i\n".to_string(),
        (false, k) => format!("    ldl i\n    add.i {k}\n    stl i\n"),
    };
    let (before, after) = if g.next() % 2 == 0 {
        (access.clone(), String::new())
    } else {
        (String::new(), access.clone())
    };
    // The test as a fused compare-and-branch on a slot and a constant, on
    // two slots, or (as unoptimized code has it) a comparison and `jnz` or
    // `jz` with the comparison negated.
    let form = g.next() % 4;
    let negate = |cmp: &str| match cmp {
        "lt" => "ge",
        "le" => "gt",
        "gt" => "le",
        "ge" => "lt",
        _ => "eq",
    };
    let test = |cmp: &str, target: &str| match (form, slot_bound) {
        (2, _) => format!("    ldl2 i n\n    {cmp}\n    jnz {target}\n"),
        (3, _) => format!("    ldl2 i n\n    {}\n    jz {target}\n", negate(cmp)),
        (_, true) => format!("    ldl2 i n\n    j{cmp} {target}\n"),
        (_, false) => format!("    j{cmp}.li i {bound} {target}\n"),
    };
    let body = if g.next() % 2 == 0 {
        // Bottom-tested.
        format!("L:\n{before}{stepping}{after}{}", test(cmp, "L"))
    } else {
        // Top-tested.
        format!(
            "L:\n{}{before}{stepping}{after}    jmp L\nE:\n",
            test(negate(cmp), "E")
        )
    };
    format!(
        r#"
.list a {cap}
.entry main
.func main params 0 lists 0 locals 4 stack 3 value
.slots i s st n
    push {step}
    stl st
    push {bound}
    stl n
    push {start}
    stl i
{body}    ldl s
    ldl i
    add
    retv
.end
"#
    )
}

#[test]
fn random_counted_loops_agree() {
    let mut g = Gen(0x9E37_79B9_7F4A_7C15);
    let mut total = LoopEntries::default();
    for _ in 0..600 {
        let src = random_loop(&mut g);
        let p = program(&src);
        let fuels = [Some(g.next() % 8), Some(g.next() % 40), Some(400)];
        let e = sweep(&p, &[3], &fuels);
        total.fast += e.fast;
        total.checked += e.checked;
    }
    assert!(total.fast > 200 && total.checked > 200, "{total:?}");
}

/// Loops the analysis must not count, and the edges of what it proves:
/// each program here would go wrong if the guard or the analysis were off
/// by one somewhere (a conditional step taken for a steady one, a test
/// that not every iteration makes, a boundary of `>=` with a negative
/// step, a tested value that wraps while its variable does not, `sub` for
/// `add`, a constant index equal to a list parameter's slot count).
#[test]
fn conditional_steps_and_tests_and_guard_edges() {
    // The step of i is taken every third iteration only: not counted.
    let conditional_step = r#"
.list a 10
.entry main
.func main params 0 lists 0 locals 3 stack 2 value
.slots i k s
L:
    incl k
    ldl k
    mod.i 3
    jnz S
    incl i
S:
    lde.l a i
    add.l s
    stl s
    jlt.li i 9 L
    ldl s
    retv
.end
"#;
    let p = program(conditional_step);
    assert_eq!(sweep(&p, &[4], &fuels_upto(40)), LoopEntries::default());

    // The test is made when i is a multiple of 4 only: the loop reads
    // a[7] of a list of 7 slots. Not counted.
    let conditional_test = r#"
.list a 6
.entry main
.func main params 0 lists 0 locals 2 stack 2 value
.slots i s
L:
    ldl i
    mod.i 4
    jnz S
    jge.li i 5 E
S:
    lde.l a i
    add.l s
    stl s
    incl i
    jmp L
E:
    ldl s
    retv
.end
"#;
    let p = program(conditional_test);
    assert_index_error(&p, 7);
    assert_eq!(sweep(&p, &[4], &fuels_upto(12)), LoopEntries::default());

    // Stepping down to 0 with `>=` reads index -1 at the end.
    let down_to_minus_one = r#"
.list a 8
.entry main
.func main params 0 lists 0 locals 2 stack 2 value
.slots i s
    push 5
    stl i
L:
    ldl.add.i i -1
    lde a
    add.l s
    stl s
    decl i
    jge.li i 0 L
    ldl s
    retv
.end
"#;
    let p = program(down_to_minus_one);
    assert_index_error(&p, -1);
    assert_eq!(sweep(&p, &[4], &fuels_upto(8)).fast, 0);

    // i + 100 wraps around (i steps by 3 over i32::MAX - 100) while i
    // itself does not: the loop goes on until the fuel is gone.
    let tested_value_wraps = r#"
.entry main
.func main params 0 lists 0 locals 2 stack 2 value
.slots i n
    push 2147483500
    stl i
L:
    incl n
    ldl i
    add.i 3
    stl i
    ldl.add.i i 100
    jlt.i 2147483647 L
    ldl n
    retv
.end
"#;
    let p = program(tested_value_wraps);
    let e = sweep(&p, &[4], &[Some(10), Some(16), Some(17), Some(300)]);
    assert_eq!(e.fast, 0, "{e:?}");

    // `ldl i; push 1; sub` is i - 1: index -1 in the first iteration.
    let subtracts = r#"
.list a 8
.entry main
.func main params 0 lists 0 locals 2 stack 3 value
.slots i s
L:
    ldl i
    push 1
    sub
    lde a
    add.l s
    stl s
    inc.jlt.li i 5 L
    ldl s
    retv
.end
"#;
    let p = program(subtracts);
    assert_index_error(&p, -1);
    assert_eq!(sweep(&p, &[4], &fuels_upto(3)).fast, 0);
    let p = program(&subtracts.replace("push 1\n    sub", "push -1\n    sub"));
    let (err, _) = outcome(&p, 4);
    assert_eq!(err, None);
    assert!(sweep(&p, &[4], &fuels_upto(6)).fast > 0);

    // A constant index into a list parameter: in bounds (2 of 3 slots)
    // and one past the end (3 of 3).
    for (index, fits) in [(2, true), (3, false)] {
        let src = format!(
            r#"
.list a 2
.entry main
.func f params 0 lists 1 locals 2 stack 2 value
.slots l i s
L:
    ldl l
    push {index}
    ldx
    add.l s
    stl s
    inc.jlt.li i 4 L
    ldl s
    retv
.end
.func main params 0 lists 0 locals 0 stack 1 value
    lref a
    call f
    retv
.end
"#
        );
        let p = program(&src);
        let (err, _) = outcome(&p, 4);
        assert_eq!(err.is_none(), fits, "{err:?}");
        let e = sweep(&p, &[4], &fuels_upto(6));
        assert_eq!(e.fast > 0, fits, "{e:?}");
    }
}

/// Unoptimized Che++ tests its loops with a comparison and `jz` at the top
/// and steps by `i := i + k` or `j := j + i`: those loops are counted too,
/// on their own and through the optimizer.
#[test]
fn unoptimized_che_loops_are_counted() {
    let src = r#"
list a[12];

function main()
var i, j, k, s;
begin
  i := 0;
  while i < 12 do
    a[i] := i * 3;
    i := i + 1;
  end;
  k := 3;
  j := 1;
  while j <= 12 do
    s := s + a[j - 1];
    j := j + k;
  end;
  i := 11;
  while 0 <= i do
    s := s + a[i];
    i := i - 2;
  end;
  write s;
  return s;
end;
"#;
    let compiled = chepp::compile_str("t.che", src, &chepp::CompileOptions::default());
    let p = compiled
        .program
        .clone()
        .unwrap_or_else(|| panic!("{}", compiled.render_diagnostics()));
    let (err, used) = outcome(&p, 4);
    assert_eq!(err, None);
    let e = sweep(&p, &[4], &fuels_upto(used + 1));
    // Three loops, two runs, enough fuel in the last two sweeps.
    assert!(e.fast >= 12, "{e:?}\n{}", cvm::asm::disassemble(p.module()));
    assert!(e.checked > 0, "{e:?}");
    let (o, _) = cvm::opt::optimize(&p);
    let e = sweep(&o, &[4], &fuels_upto(used + 1));
    assert!(e.fast >= 12, "{e:?}\n{}", cvm::asm::disassemble(o.module()));
}

/// A for-in step whose exit is the loop's back edge and whose
/// fall-through (an element found) leaves the loop: the fast copy must
/// continue in the ordinary code there (found by the Che++ program
/// generator).
#[test]
fn a_for_in_step_that_falls_out_of_the_loop() {
    for inner in ["", " = 5 6"] {
        let src = format!(
            r#"
.list a 3 = 1 2 3
.list b 2{inner}
.entry main
.func main params 0 lists 0 locals 4 stack 2 value
.slots c1 c2 s x
H:
    forl a c1 E
    add.l s
    stl s
    push 0
    stl c2
    forl b c2 H
    stl x
    ldl x
    add.l s
    retv
E:
    ldl s
    retv
.end
"#
        );
        let p = program(&src);
        let e = sweep(&p, &[4], &fuels_upto(6));
        assert!(e.fast > 0 && e.checked > 0, "{inner}: {e:?}");
    }
}

/// A loop closed by `incl` and `jlt.li` (not fused) summing `0..n`, left
/// by a break at `stop`: unrolled, its latches are plain compare-and-branch
/// instructions rather than a rotated counter.
fn unfused_loop(n: i32, stop: i32) -> String {
    format!(
        r#"
.entry main
.func main params 0 lists 0 locals 2 stack 2 value
.slots i s
L:
    ldl i
    jeq.i {stop} B
    ldl i
    add.l s
    stl s
    incl i
    jlt.li i {n} L
B:
    ldl i
    mul.i 1000
    add.l s
    retv
.end
"#
    )
}

#[test]
fn unrolled_loops_leave_from_every_copy() {
    for n in 1..=9 {
        for stop in [-1, 0, 1, 2, 3, 5] {
            let p = program(&unfused_loop(n, stop));
            let e = sweep(&p, &[4], &fuels_upto(40));
            assert!(e.fast > 0, "{n} {stop}: {e:?}");
        }
    }
}

/// A loop closed by `inc.jlt.li` from `start` to `bound` whose counter the
/// body reads (summing it), which leaves early when the counter reaches
/// `stop`, divides by `counter - trap` (an error when it gets there), and
/// returns `counter * 1000 + sum` (wrapping), so the counter's value in the
/// body, at the break, at the error and after the loop all show.
fn counter_loop(start: i32, bound: i32, stop: i32, trap: i32) -> String {
    format!(
        r#"
.entry main
.func main params 0 lists 0 locals 2 stack 2 value
.slots i s
    push {start}
    stl i
L:
    ldl i
    jeq.i {stop} B
    push 1
    ldl i
    add.i {neg_trap}
    div
    pop
    ldl i
    add.l s
    stl s
    inc.jlt.li i {bound} L
B:
    ldl i
    mul.i 1000
    add.l s
    retv
.end
"#,
        neg_trap = trap.wrapping_neg()
    )
}

#[test]
fn counters_closing_the_loop_keep_their_value_everywhere() {
    // The fast copy moves the increment of an `inc.jlt.li` counter to the
    // top of the loop; every place the counter is seen must agree.
    let none = i32::MIN + 7;
    let cases = [
        (0, 10, none, none),
        (0, 10, 6, none),
        (0, 10, none, 4),
        (9, 3, none, none),
        (5, 6, none, none),
        (i32::MAX - 6, i32::MAX, none, none),
        (i32::MAX - 6, i32::MAX, i32::MAX - 2, none),
        (i32::MIN, i32::MIN + 5, none, none),
        (-3, 4, none, 0),
    ];
    // Fast copies of small loops are unrolled four times: leave from every
    // copy, by the test, a break or an error.
    let short: Vec<(i32, i32, i32, i32)> = (1..=9)
        .flat_map(|bound| {
            (0..=bound).flat_map(move |at| [(0, bound, at, none), (0, bound, none, at)])
        })
        .collect();
    for (start, bound, stop, trap) in cases.into_iter().chain(short) {
        let p = program(&counter_loop(start, bound, stop, trap));
        let e = sweep(&p, &[4], &fuels_upto(40));
        assert!(e.fast > 0, "{start} {bound} {stop} {trap}: {e:?}");
    }
    // A loop of the one instruction.
    for (start, bound) in [(0, 50), (49, 50), (70, 50), (i32::MAX - 3, i32::MAX)] {
        let p = program(&format!(
            r#"
.entry main
.func main params 0 lists 0 locals 1 stack 1 value
.slots i
    push {start}
    stl i
L:
    inc.jlt.li i {bound} L
    ldl i
    retv
.end
"#
        ));
        let e = sweep(&p, &[4], &fuels_upto(60));
        assert!(e.fast > 0, "{start} {bound}: {e:?}");
    }
}
