//! The interpreter's two translations agree: the form that runs (loads
//! elided, results forwarded into frame slots, fused ops) and the plain form
//! of profiled runs (one op per CVM instruction). Each program below is
//! written to hit one rewrite of the fast form, including the cases where
//! it must not apply; every program runs under every fuel limit from 0 up to
//! what it needs, and the two forms must agree on the result, the error and
//! its code offset, the output, the fuel spent and the memory.

mod support;

use cvm::{asm, CollectOutput, Interpreter, Limits, NoHost, Program, Vm};
use support::{account, main_of, Quiet};

/// Everything a run under a fuel limit shows, as text (errors with their
/// code offsets).
fn run(program: &Program, fuel: Option<u64>, profiled: bool) -> String {
    run_limited(
        program,
        Limits {
            fuel,
            ..Limits::default()
        },
        profiled,
    )
}

/// Everything a run under `limits` shows, as text.
fn run_limited(program: &Program, limits: Limits, profiled: bool) -> String {
    let mut vm = Interpreter::new(program);
    vm.set_limits(limits);
    account(&mut vm, &mut NoHost, profiled)
}

/// Runs `source` on both forms, unlimited and under every fuel limit up to
/// what the unlimited run spent; returns the unlimited run's account.
fn agree(source: &str) -> String {
    let module = asm::assemble(source).unwrap_or_else(|e| panic!("{e}\n{source}"));
    let program = Program::new(module).unwrap_or_else(|e| panic!("{e}\n{source}"));
    let fast = run(&program, None, false);
    assert_eq!(fast, run(&program, None, true), "unlimited\n{source}");
    let mut vm = Interpreter::new(&program);
    let main = main_of(&program);
    let _ = vm.call(main, &[], &mut NoHost, &mut CollectOutput::default());
    for fuel in 0..=vm.fuel_used() {
        assert_eq!(
            run(&program, Some(fuel), false),
            run(&program, Some(fuel), true),
            "fuel {fuel}\n{source}"
        );
    }
    fast
}

/// Runs `source` on both forms under every depth limit below `limits`: they
/// must agree, and every limit below `fails_below` must stop the calls.
fn agree_under_depth_limits(source: &str, limits: u32, fails_below: u32) {
    let module = asm::assemble(source).expect("assembles");
    let program = Program::new(module).expect("verifies");
    for max_depth in 1..limits {
        let limits = Limits {
            max_depth,
            ..Limits::default()
        };
        let accounts = [false, true].map(|profiled| run_limited(&program, limits, profiled));
        assert_eq!(accounts[0], accounts[1], "max_depth {max_depth}");
        if max_depth < fails_below {
            assert!(accounts[0].starts_with("CallDepth"), "{}", accounts[0]);
        }
    }
}

#[test]
fn a_slot_written_while_its_old_value_waits_on_the_stack() {
    // `ldl x` leaves x's old value on the stack; `stl x` must not change it.
    let r = agree(
        ".func main params 0 lists 0 locals 2 stack 3 value
    push 7
    stl 0
    ldl 0
    ldl 0
    push 5
    add
    stl 0
    ldl 0
    add
    write
    ldl 0
    incl 0
    ldl 0
    sub
    retv
.end
",
    );
    // 7 + 12 written, then 12 - 13.
    assert!(
        r.starts_with("Returned(Some(-1)); output [Value(19)]"),
        "{r}"
    );
}

#[test]
fn results_forwarded_through_in_place_ops_and_tee() {
    let r = agree(
        ".func main params 0 lists 0 locals 3 stack 3 value
    push 100
    stl 0
    push 3
    stl 1
    ldl 0
    ldl 1
    mul
    add.i 5
    mod.i 7
    neg
    stl 2
    ldl 2
    write
    ldl 0
    ldl 1
    sub
    tee 0
    ldl 0
    add
    write
    ldl 0
    div.i 0
    retv
.end
",
    );
    // (300 + 5) % 7 = 4, negated; tee: 97 + 97; then a division by zero.
    assert!(r.contains("output [Value(-4), Value(194)]"), "{r}");
    assert!(r.starts_with("DivisionByZero"), "{r}");
}

#[test]
fn lazy_values_duplicated_swapped_and_kept_across_branches() {
    let r = agree(
        ".func main params 0 lists 0 locals 2 stack 4 value
    push 4
    stl 0
    push 9
    stl 1
    ldl 0
    ldl 1
    swap
    sub
    write
    ldl 0
    dup
    push 2
    swap
    sub
    add
    write
    ldl 1
    ldl 0
    jz L1
    incl 1
    ldl 1
    add
L1:
    retv
.end
",
    );
    // 9 - 4; 4 + (2 - 4); the old 9 plus the new 10.
    assert!(
        r.starts_with("Returned(Some(19)); output [Value(5), Value(2)]"),
        "{r}"
    );
}

#[test]
fn constant_stores_and_element_tests_against_constants() {
    let r = agree(
        ".list flags 6
.func main params 0 lists 0 locals 2 stack 2 value
    push 0
    stl 0
L0:
    push 1
    ste.l flags 0
    inc.jlt.li 0 6 L0
    push 3
    push 0
    ste flags
    push 0
    stl 0
    push 0
    stl 1
L1:
    lde.l flags 0
    jeq.i 0 L2
    incl 1
L2:
    incl 0
    ldl 0
    lde flags
    jne.i 1 L3
    jmp L1
L3:
    ldl 1
    write
    push 9
    lde flags
    retv
.end
",
    );
    // Three ones before the zero at index 3; then index 9 is out of bounds.
    assert!(r.contains("output [Value(3)]"), "{r}");
    assert!(r.starts_with("ListIndex"), "{r}");
}

#[test]
fn referenced_lists_with_constant_stores_and_tests() {
    let r = agree(
        ".list a 4
.func fill params 1 lists 1 locals 0 stack 3 proc
.slots n l
    ldl l
    ldl n
    push 1
    stx
    push 0
    stx.l l n
    ldl l
    ldl n
    ldx
    jne.i 0 L1
    ldl l
    ldl n
    push 2
    stx
L1:
    ret
.end
.func main params 0 lists 0 locals 1 stack 3 value
    push 0
    stl 0
L0:
    ldl 0
    lref a
    call fill
    inc.jlt.li 0 6 L0
    push 0
    retv
.end
",
    );
    // Index 4 is the end marker's slot; 5 is out of bounds.
    assert!(r.starts_with("ListIndex"), "{r}");
    assert!(r.contains("2, 2, 2, 2, 2"), "{r}");
}

#[test]
fn for_in_loops_with_the_element_stored_and_the_counter_fused() {
    // The shape of Che++'s CopyList after the optimizer: the element
    // arrives at the loop head (`tee i`) from both for-in steps, and the
    // `incl` before the inverted step is fused into it.
    let r = agree(
        ".list src 5 = 3 1 4 1 5
.list dst 6
.func copy params 0 lists 2 locals 3 stack 1 proc
.slots to from i j cur
    push 0
    stl j
    push 0
    stl cur
    forx from cur L9
L1:
    tee i
    stx.l to j
    incl j
    forx.b from cur L1
    fuel 1
L9:
    ldl i
    stx.l to j
    ret
.end
.func main params 0 lists 0 locals 3 stack 2 value
.slots i s cur
    lref dst
    lref src
    call copy
    push 0
    stl cur
    forl src cur L8
L2:
    stl i
    ldl s
    ldl i
    add
    stl s
    forl.b src cur L2
L8:
    ldl s
    ldl i
    mul
    retv
.end
",
    );
    // The copy ends with the last element after it; the sum 14 times the
    // last element 5.
    assert!(r.starts_with("Returned(Some(70))"), "{r}");
    assert!(r.contains("3, 1, 4, 1, 5, 5"), "{r}");
}

#[test]
fn a_for_in_target_also_reached_by_a_jump_keeps_its_stack_value() {
    // L1 is reached by the step and by a `jmp` that pushed its own value,
    // so the element cannot go straight into `i`.
    let r = agree(
        ".list src 3 = 7 8 9
.func main params 0 lists 0 locals 3 stack 2 value
.slots i s cur
    push 0
    stl cur
    push 100
    jmp L1
L0:
    forl.b src cur L1
    ldl s
    retv
L1:
    stl i
    ldl s
    ldl i
    add
    stl s
    jmp L0
.end
",
    );
    assert!(r.starts_with("Returned(Some(124))"), "{r}");
}

#[test]
fn counted_loops_with_a_bound_in_a_slot_and_returns_of_a_sum() {
    let r = agree(
        ".func sum params 2 lists 0 locals 0 stack 2 value
.slots a b
    ldl2 a b
    add
    retv
.end
.func main params 0 lists 0 locals 3 stack 3 value
.slots c n acc
    push 7
    stl n
    push 0
    stl c
L0:
    ldl acc
    ldl c
    call sum
    stl acc
    incl c
    ldl2 c n
    jlt L0
    incl c
    ldl c
    ldl n
    jlt L0
    ldl acc
    retv
.end
",
    );
    // 0 + 1 + ... + 6 = 21; the second test sees c = 8 and falls out.
    assert!(r.starts_with("Returned(Some(21))"), "{r}");
}

/// A loop so long that its backward charge does not fit the 16 bits a
/// compare-and-branch op keeps it in: the charge is still the span's
/// (`length_charge` of the instructions from the target to the branch),
/// every time the branch is taken, and running out of fuel reports the
/// branch's offset.
#[test]
fn a_backward_branch_whose_charge_does_not_fit_sixteen_bits() {
    // The loop: `L: nop × N; incl c; ldl2 c n; jlt L` (the counted step is
    // fused) and, in a second function, the same with `ldl c; jnz.i`-style
    // test (`jlt.i`), so both the fused and the plain branch go far.
    let n = 600_000usize;
    let body = "    nop\n".repeat(n);
    let source = format!(
        ".func main params 0 lists 0 locals 2 stack 2 value
.slots c k
    push 0
    stl c
    push 3
    stl k
L0:
{body}    incl c
    ldl2 c k
    jlt L0
L1:
{body}    incl c
    ldl c
    jlt.i 6 L1
    ldl c
    retv
.end
"
    );
    let module = asm::assemble(&source).expect("assembles");
    let program = Program::new(module).expect("verifies");
    let main = 0u32;
    // Offsets: push, stl, push, stl, then the first loop.
    let info = program.function_info(0);
    let first = &info.instrs;
    let l0 = 4;
    let jlt = l0 + n + 2;
    let l1 = jlt + 1;
    let jlti = l1 + n + 2;
    assert_eq!(first[jlt].instr.opcode, cvm::isa::Opcode::JLt);
    assert_eq!(first[jlti].instr.opcode, cvm::isa::Opcode::JLtI);
    let span0 = (jlt - l0 + 1) as u64;
    let span1 = (jlti - l1 + 1) as u64;
    let charge0 = cvm::fuel::length_charge(span0);
    let charge1 = cvm::fuel::length_charge(span1);
    assert!(charge0 > u64::from(u16::MAX) && charge1 > u64::from(u16::MAX));
    let entry = cvm::fuel::length_charge(first.len() as u64);
    // c: 1, 2 (jump), 3 (out); then 4, 5 (jump), 6 (out).
    let total = entry + 2 * charge0 + 2 * charge1;
    for profiled in [false, true] {
        let mut vm = Interpreter::new(&program);
        let mut out = CollectOutput::default();
        let r = if profiled {
            vm.call_profiled(main, &[], &mut NoHost, &mut out, &mut Quiet)
        } else {
            vm.call(main, &[], &mut NoHost, &mut out)
        };
        assert_eq!(format!("{r:?}"), "Ok(Returned(Some(6)))");
        assert_eq!(vm.fuel_used(), total, "profiled {profiled}");
        // One unit short of the last backward jump: out of fuel at it.
        let short = total - 1;
        let mut vm = Interpreter::new(&program);
        vm.set_limits(Limits {
            fuel: Some(short),
            ..Limits::default()
        });
        let e = vm
            .call(main, &[], &mut NoHost, &mut CollectOutput::default())
            .expect_err("runs out of fuel");
        assert_eq!(format!("{:?}", e.kind), "OutOfFuel");
        assert_eq!(e.offset, first[jlti].offset);
        // Short of the first loop's second jump.
        let mut vm = Interpreter::new(&program);
        vm.set_limits(Limits {
            fuel: Some(entry + 2 * charge0 - 1),
            ..Limits::default()
        });
        let e = vm
            .call(main, &[], &mut NoHost, &mut CollectOutput::default())
            .expect_err("runs out of fuel");
        assert_eq!(e.offset, first[jlt].offset);
    }
}

/// List indices computed by `add` (and `add.i`) just before the list
/// instruction, in module lists and referenced lists, for loads, stores,
/// constant stores and element tests; bitwise operations with constant
/// operands; calls whose arguments are runs of frame slots. The last
/// call's index is out of bounds: the error names the list instruction.
#[test]
fn computed_indices_constant_bit_operands_and_argument_runs() {
    let r = agree(
        ".list a 6
.list b 6
.func body params 2 lists 1 locals 1 stack 4 value
.slots x y l t
    ldl l
    ldl x
    ldl y
    add
    push 7
    stx
    ldl l
    ldl x
    ldl y
    add
    add.i -1
    ldl x
    push 5
    bxor
    stx
    ldl l
    ldl x
    ldl y
    add
    ldx
    jne.i 7 L1
    ldl t
    push 256
    bor
    stl t
L1:
    ldl x
    ldl y
    add
    add.i -1
    ldl t
    ste b
    ldl x
    ldl y
    add
    push 3
    ste b
    ldl x
    ldl y
    add
    lde b
    jeq.i 3 L2
    push 99
    retv
L2:
    ldl t
    ldl x
    ldl y
    add
    add.i -1
    lde b
    add
    ldl l
    ldl y
    ldl x
    add
    add.i -1
    ldx
    add
    push 1048575
    band
    retv
.end
.func main params 0 lists 0 locals 3 stack 6 value
.slots i one acc
    push 1
    stl one
    push 0
    stl i
L0:
    ldl acc
    ldl i
    ldl one
    lref a
    call body
    add
    stl acc
    inc.jlt.li i 7 L0
    ldl acc
    retv
.end
",
    );
    assert!(r.starts_with("ListIndex"), "{r}");
}

#[test]
fn diagonal_indices_of_three_registers() {
    // `x - y + n - 1` and its variants as the index of element tests and
    // constant stores through a list reference: the sub and the adds fold
    // into the list op, except across a jump target, with a constant that
    // needs more than a byte, or where the add reads the sub's result
    // twice. The last call's index runs below zero and traps at the test.
    let body = ".func body params 3 lists 1 locals 1 stack 5 value
.slots x y n l t
    ldl l
    ldl x
    sub.l y
    add.l n
    add.i -1
    push 1
    stx
    ldl l
    ldl x
    ldl y
    sub
    ldl n
    add
    push 200
    stx
    ldl l
    ldl x
    sub.l y
    add.l n
    add.i -1
    ldx
    jne.i 1 L1
    ldl t
    add.i 16
    stl t
L1:
    ldl l
    ldl n
    ldl x
    sub.l y
    add
    ldx
    jeq.i 200 L2
    ldl t
    add.i 256
    stl t
L2:
    ldl l
    ldl x
    sub.l y
    dup
    add
    add.i 7
    push 3
    stx
    ldl l
    ldl x
    sub.l y
L3:
    add.l n
    push -1
    stx
    ldl l
    ldl x
    sub.l y
    add.l n
    add.i -1
    ldx
    jeq.i 0 L4
    ldl t
    add.i 4096
    stl t
L4:
    ldl t
    retv
.end
";
    let main = ".func main params 0 lists 0 locals 3 stack 6 value
.slots i n acc
    push 4
    stl n
    push 0
    stl i
L0:
    ldl acc
    push 2
    ldl i
    ldl n
    lref a
    call body
    add
    stl acc
    ldl acc
    write
    inc.jlt.li i 7 L0
    ldl acc
    retv
.end
";
    let r = agree(&format!(".list a 12\n{body}{main}"));
    assert!(r.starts_with("ListIndex"), "{r}");
}

#[test]
fn a_copy_loop_into_a_list_too_short_traps_at_its_store() {
    // The CopyList body (one `stx.l`, then `incl` and the inverted step)
    // runs as one op; the store's index trap keeps the store's offset,
    // and under every fuel limit the step's charge traps at the step.
    let r = agree(
        ".list src 5 = 3 1 4 1 5
.list dst 3
.func copy params 0 lists 2 locals 3 stack 1 proc
.slots to from i j cur
    forx from cur L9
L1:
    tee i
    stx.l to j
    incl j
    forx.b from cur L1
L9:
    ret
.end
.func main params 0 lists 0 locals 0 stack 2 value
    lref dst
    lref src
    call copy
    push 1
    retv
.end
",
    );
    assert!(r.starts_with("ListIndex"), "{r}");
    assert!(r.contains("3, 1, 4"), "{r}");
}

#[test]
fn recursive_calls_whose_argument_is_a_slot_plus_a_constant() {
    // `f(n - 1) + f(n - 2)`: the argument's `add.i` joins the call. The
    // depth limit and every fuel limit stop such calls where the plain
    // form does.
    let source = ".func fib params 1 lists 0 locals 0 stack 2 value
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
    push 12
    call fib
    retv
.end
";
    let r = agree(source);
    assert!(r.starts_with("Returned(Some(144))"), "{r}");
    agree_under_depth_limits(source, 14, 5);
}

#[test]
fn a_computed_first_argument_joins_the_call_after_the_moves_of_the_others() {
    // `walk(row + 1, n, k)`: the `add.i` of the first argument comes before
    // the moves of the other two; the moves go first and the addition joins
    // the call. Under the depth limit and every fuel limit the calls stop
    // where the plain form's do.
    let source = ".func walk params 3 lists 0 locals 0 stack 4 value
.slots row n k
    ldl row
    ldl n
    jlt L_deeper
    ldl k
    retv
L_deeper:
    ldl row
    add.i 1
    ldl n
    ldl k
    add.i 3
    call walk
    ldl row
    add
    retv
.end
.func main params 0 lists 0 locals 0 stack 3 value
    push 0
    push 9
    push 5
    call walk
    retv
.end
";
    let r = agree(source);
    // k grows by 3 at each of 9 levels; the rows 0..=8 are added on the way back.
    assert!(r.starts_with("Returned(Some(68))"), "{r}");
    agree_under_depth_limits(source, 13, 10);
    // Moves that read the computed argument must stay after it: `pair(a + 1,
    // a + 1)` by `dup`, and a run whose source is the computed register.
    let r = agree(
        ".func pair params 2 lists 0 locals 0 stack 2 value
.slots x y
    ldl x
    push 100
    mul
    ldl y
    add
    retv
.end
.func main params 0 lists 0 locals 1 stack 3 value
.slots a
    push 6
    stl a
    ldl a
    add.i 1
    dup
    call pair
    ldl a
    add.i 2
    ldl a
    call pair
    add
    retv
.end
",
    );
    assert!(r.starts_with("Returned(Some(1513))"), "{r}");
}

#[test]
fn a_call_that_moves_its_arguments_and_computes_one_then_a_call_just_after() {
    // `pair(a, b + 1) + pair(b, c + 1)`: the addition joins each call. The
    // second call's first move continues the first call's move (registers
    // and sources both next in line) but must stay after the first call:
    // merged into a run before it, it would be lost to the second call.
    let r = agree(
        ".func pair params 2 lists 0 locals 0 stack 2 value
.slots x y
    ldl x
    push 100
    mul
    ldl y
    add
    retv
.end
.func main params 0 lists 0 locals 3 stack 4 value
.slots a b c
    push 3
    stl a
    push 5
    stl b
    push 7
    stl c
    ldl a
    ldl b
    add.i 1
    call pair
    ldl b
    ldl c
    add.i 1
    call pair
    add
    retv
.end
",
    );
    assert!(r.starts_with("Returned(Some(814))"), "{r}");
}

#[test]
fn a_loop_exit_charge_that_falls_into_a_return() {
    // The exit's `fuel` falls through to the `retv`, which the test before
    // the loop also jumps to; charges of one, a few and over 16 bits. Every
    // fuel limit stops the run where the plain form does.
    for charge in [1, 3, 70_000] {
        let source = format!(
            ".func count params 1 lists 0 locals 1 stack 2 value
.slots n c
    push 0
    tee c
    ldl n
    jge L_out
L_loop:
    incl c
    ldl2 c n
    jlt L_loop
    fuel {charge}
L_out:
    retv.l c
.end
.func main params 0 lists 0 locals 0 stack 2 value
    push 4
    call count
    push 0
    call count
    add
    retv
.end
"
        );
        let r = agree(&source);
        assert!(r.starts_with("Returned(Some(4))"), "{r}");
    }
}

#[test]
fn stores_of_zero_into_locals_still_zero_from_the_entry() {
    // `a` still holds the entry's 0 at its `tee`; `b` at the loop head
    // does not (the previous iteration wrote it), nor does a parameter.
    let r = agree(
        ".func keep params 1 lists 0 locals 0 stack 1 value
.slots x
    push 0
    stl x
    ldl x
    retv
.end
.func main params 0 lists 0 locals 3 stack 2 value
.slots a b i
    push 0
    tee a
    add.i 5
    stl i
L_top:
    push 0
    stl b
    ldl b
    ldl i
    add
    stl b
    ldl a
    ldl b
    add
    stl a
    decl i
    jgt.li i 0 L_top
    ldl a
    push 7
    call keep
    add
    retv
.end
",
    );
    // 5 + 4 + 3 + 2 + 1, plus `keep(7)`'s 0.
    assert!(r.starts_with("Returned(Some(15))"), "{r}");
}

#[test]
fn counted_scans_over_lists_and_a_loop_stepping_by_a_register() {
    // Skipping element tests at the head of counted loops (list parameters
    // and module lists, skipped when zero and when not, bounds in a slot
    // and constant), a loop counting up by a register, and a scan that
    // runs off its list and traps at the test.
    let r = agree(
        ".list cols 8
.list flags 8
.entry main

.func skipset params 1 lists 1 locals 2 stack 2 value
.slots n col c k
    push 0
    stl k
    push 0
    tee c
    ldl n
    jge L33
L12:
    ldx.l col c
    jne.i 0 L24
    ldl k
    add.l c
    stl k
L24:
    incl c
    ldl2 c n
    jlt L12
    fuel 1
L33:
    retv.l k
.end

.func skipclear params 1 lists 1 locals 2 stack 2 value
.slots n col c k
    push 0
    stl k
    push 0
    tee c
    ldl n
    jge L68
L47:
    ldx.l col c
    jeq.i 0 L59
    ldl k
    add.l c
    stl k
L59:
    incl c
    ldl2 c n
    jlt L47
    fuel 1
L68:
    retv.l k
.end

.func main params 0 lists 0 locals 3 stack 2 value
.slots i count j
    push 0
    stl i
    jge.li i 8 L107
L78:
    jge.li i 3 L89
    push 0
    ste.l flags i
    jmp L94
L89:
    ldl i
    ste.l flags i
L94:
    ldl2 i i
    add.i -5
    ste cols
    inc.jlt.li i 8 L78
    fuel 1
L107:
    push 0
    stl count
    push 0
    stl i
    jge.li i 8 L133
L119:
    lde.l flags i
    jeq.i 0 L127
    incl count
L127:
    inc.jlt.li i 8 L119
    fuel 1
L133:
    ldl count
    write
    push 1
    stl i
    jge.li i 8 L161
L144:
    lde.l flags i
    jne.i 0 L155
    ldl.add.i count 10
    stl count
L155:
    inc.jlt.li i 8 L144
    fuel 1
L161:
    ldl count
    write
    push 1
    stl j
    jge.li j 200 L187
L172:
    ldl j
    write
    ldl j
    add.l count
    stl j
    jlt.li j 200 L172
    fuel 1
L187:
    push 8
    lref cols
    call skipset
    write
    push 8
    lref flags
    call skipclear
    write
    push 8
    lref flags
    call skipset
    write
    push 11
    lref cols
    call skipclear
    retv
.end
",
    );
    // The list has its 8 elements and the end marker.
    let expected = "ListIndex { index: 9, slots: 9 } at 47;";
    assert!(r.starts_with(expected), "{r}");
    assert!(
        r.contains(
            "output [Value(5), Value(25), Value(1), Value(26), Value(51), Value(76), \
             Value(101), Value(126), Value(151), Value(176), Value(5), Value(25), Value(3)]"
        ),
        "{r}"
    );
}

#[test]
fn commutative_ops_with_a_constant_on_either_side() {
    // `k * (a - b)` pushes its constant first; the fast form folds it into
    // one op whichever side it is on, for `mul`, `add` (a 16-bit constant;
    // a wider one keeps two ops) and the bit operations; `sub` is not
    // commutative and keeps its operand order. A difference only the `mul`
    // reads is computed in the same op (not when a frame slot keeps it, or
    // when a jump lands between the two, as in `g`). Results go to a slot (the `stl`
    // after) or stay on the stack; products and sums wrap.
    let r = agree(
        ".func f params 2 lists 0 locals 1 stack 4 value
.slots a b t
    push 4
    ldl a
    ldl b
    sub
    mul
    stl t
    ldl t
    push -3
    mul
    push 30000
    ldl t
    add
    add
    push 100000
    ldl b
    add
    add
    push 255
    ldl a
    band
    add
    push 4096
    ldl b
    bor
    bxor
    push 65535
    ldl a
    bxor
    push 1000
    ldl b
    sub
    sub
    add
    push 65537
    ldl a
    mul
    push 2
    mul
    add
    ldl a
    ldl b
    sub
    push 5
    mul
    add
    ldl a
    ldl b
    sub
    tee t
    push 3
    mul
    add
    ldl t
    add
    push 6
    ldl b
    ldl a
    sub
    jmp Lm
Lm:
    mul
    add
    retv
.end
.func g params 2 lists 0 locals 0 stack 3 value
.slots a b
    ldl a
    jz Lz
    ldl a
    ldl b
    sub
Lk:
    push 6
    mul
    retv
Lz:
    push 100
    jmp Lk
.end
.func main params 0 lists 0 locals 1 stack 4 value
.slots acc
    push 7
    push 2
    call g
    push 0
    push 5
    call g
    add
    push 7
    push 2
    call f
    add
    push -2147483648
    push 1
    call f
    add
    push 123456789
    push -987654321
    call f
    add
    retv
.end
",
    );
    // The same sums worked out in Rust with the VM's wrapping arithmetic.
    let f = |a: i32, b: i32| -> i32 {
        let t = 4i32.wrapping_mul(a.wrapping_sub(b));
        let mut v = t.wrapping_mul(-3).wrapping_add(30000i32.wrapping_add(t));
        v = v.wrapping_add(100000i32.wrapping_add(b));
        v = v.wrapping_add(255 & a);
        v ^= 4096 | b;
        let w = (65535 ^ a).wrapping_sub(1000i32.wrapping_sub(b));
        v = v.wrapping_add(w);
        v = v.wrapping_add(65537i32.wrapping_mul(a).wrapping_mul(2));
        v = v.wrapping_add(a.wrapping_sub(b).wrapping_mul(5));
        let t = a.wrapping_sub(b);
        v = v.wrapping_add(t.wrapping_mul(3)).wrapping_add(t);
        v.wrapping_add(6i32.wrapping_mul(b.wrapping_sub(a)))
    };
    let g = |a: i32, b: i32| {
        if a == 0 {
            600
        } else {
            a.wrapping_sub(b).wrapping_mul(6)
        }
    };
    let want = (g(7, 2) + g(0, 5))
        .wrapping_add(f(7, 2))
        .wrapping_add(f(i32::MIN, 1))
        .wrapping_add(f(123456789, -987654321));
    assert!(
        r.starts_with(&format!("Returned(Some({want}))")),
        "{r} (want {want})"
    );
}
