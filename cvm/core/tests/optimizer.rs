//! The loophole optimizer: unit tests of each rewrite on small sequences,
//! and a property test that optimized programs behave like the originals
//! (results, output, memory and error kinds; a run out of fuel by its
//! output, which must be a prefix of the other's: fuel follows the code's
//! lengths, which the optimizer changes, `docs/optimizer.md`), and that
//! both keep fuel's bound on executed instructions.

use cvm::asm::assemble;
use cvm::isa::Opcode;
use cvm::opt::optimize;
use cvm::Vm;
use cvm::{CollectOutput, Interpreter, Limits, NoHost, Program};
use proptest::prelude::*;

/// Optimizes `main` of a small program and returns its opcodes.
fn opt_ops(body: &str, header: &str) -> Vec<Opcode> {
    let src = format!(".list l 4\n.global g 0\n.func main {header}\n{body}\n.end\n");
    let p = Program::new(assemble(&src).unwrap_or_else(|e| panic!("{e}"))).expect("verifies");
    let (o, report) = optimize(&p);
    assert!(!report.fell_back);
    o.function_info(0)
        .instrs
        .iter()
        .map(|i| i.instr.opcode)
        .collect()
}

const H: &str = "params 1 lists 1 locals 2 stack 4 value";

#[test]
fn constant_folding() {
    use Opcode::*;
    assert_eq!(
        opt_ops("    push 6\n    push 7\n    mul\n    retv", H),
        vec![Push, RetV]
    );
    assert_eq!(
        opt_ops(
            "    push 7\n    push 2\n    div\n    push 1\n    add\n    retv",
            H
        ),
        vec![Push, RetV]
    );
    // A trapping division is never folded (its immediate form traps the
    // same way).
    assert_eq!(
        opt_ops("    push 7\n    push 0\n    div\n    retv", H),
        vec![Push, DivI, RetV]
    );
    assert_eq!(
        opt_ops("    push 5\n    neg\n    bnot\n    lnot\n    retv", H),
        vec![Push, RetV]
    );
    // Constant conditions become jumps or disappear, and dead code goes.
    assert_eq!(
        opt_ops(
            "    push 0\n    jz L\n    push 1\n    retv\nL:\n    push 2\n    retv",
            H
        ),
        vec![Push, RetV]
    );
}

#[test]
fn algebraic_simplification_and_strength_reduction() {
    use Opcode::*;
    assert_eq!(
        opt_ops(
            "    ldl 0\n    push 0\n    add\n    push 1\n    mul\n    retv",
            H
        ),
        vec![RetVL]
    );
    assert_eq!(
        opt_ops("    ldl 0\n    push 2\n    mul\n    retv", H),
        vec![Ldl, Dup, Add, RetV]
    );
    assert_eq!(
        opt_ops("    ldl 0\n    push -1\n    mul\n    retv", H),
        vec![Ldl, Neg, RetV]
    );
    assert_eq!(
        opt_ops("    ldl 0\n    neg\n    neg\n    retv", H),
        vec![RetVL]
    );
    assert_eq!(
        opt_ops(
            "    ldl 0\n    push 3\n    add\n    push 4\n    sub\n    retv",
            H
        ),
        vec![LdlAddI, RetV]
    );
    assert_eq!(
        opt_ops("    ldl 0\n    pop\n    push 1\n    retv", H),
        vec![Push, RetV]
    );
}

#[test]
fn compare_and_branch_fusion() {
    use Opcode::*;
    let loop_ = "L:\n    ldl 2\n    push 10\n    lt\n    jz E\n    incl 2\n    jmp L\nE:\n    ldl 2\n    retv";
    // The loop is also inverted: the test is copied to the bottom, where it
    // fuses with the increment; `fuel 1` keeps fuel exact on the way out.
    assert_eq!(opt_ops(loop_, H), vec![JGeLI, IncJLtLI, Fuel, RetVL]);
    let eq =
        "    ldl 0\n    push 3\n    eq\n    jz E\n    push 1\n    retv\nE:\n    push 2\n    retv";
    assert_eq!(opt_ops(eq, H), vec![JNeLI, Push, RetV, Push, RetV]);
    let lnot = "    ldl 0\n    lnot\n    jz E\n    push 1\n    retv\nE:\n    push 2\n    retv";
    assert_eq!(opt_ops(lnot, H), vec![Ldl, Jnz, Push, RetV, Push, RetV]);
}

#[test]
fn operand_forms() {
    use Opcode::*;
    assert_eq!(
        opt_ops("    ldl 0\n    push 7\n    mul\n    retv", H),
        vec![Ldl, MulI, RetV]
    );
    assert_eq!(
        opt_ops("    ldl 0\n    push 7\n    mod\n    retv", H),
        vec![Ldl, ModI, RetV]
    );
    assert_eq!(
        opt_ops("    push 20\n    push 7\n    mod\n    retv", H),
        vec![Push, RetV]
    );
    // ldl pairs form last, after the rules that want single loads.
    assert_eq!(
        opt_ops(
            "    ldl 0\n    ldl 2\n    sub\n    ldl 3\n    ldl 0\n    mul\n    add\n    retv",
            H
        ),
        vec![Ldl, SubL, Ldl, MulL, Add, RetV]
    );
    assert_eq!(
        opt_ops("    ldl 0\n    ldl 2\n    write\n    retv", H),
        vec![Ldl2, Write, RetV]
    );
    // A list parameter is never paired.
    assert_eq!(
        opt_ops(
            "    ldl 1\n    ldl 1\n    pop\n    pop\n    ldl 0\n    retv",
            H
        ),
        vec![RetVL]
    );
    assert_eq!(
        opt_ops("    ldl 0\n    ldl 2\n    add\n    retv", H),
        vec![Ldl, AddL, RetV]
    );
    assert_eq!(
        opt_ops("    ldl 2\n    lde l\n    retv", H),
        vec![LdeL, RetV]
    );
    assert_eq!(
        opt_ops("    ldl 1\n    ldl 2\n    ldx\n    retv", H),
        vec![LdxL, RetV]
    );
    assert_eq!(
        opt_ops("    ldl 2\n    ldl 0\n    ste l\n    push 0\n    retv", H),
        vec![Ldl, SteL, Push, RetV]
    );
    assert_eq!(
        opt_ops(
            "    ldl 1\n    ldl 2\n    push 5\n    stx\n    push 0\n    retv",
            H
        ),
        vec![Push, StxL, Push, RetV]
    );
}

#[test]
fn jump_clean_ups() {
    use Opcode::*;
    // Branch over jump: jz A; jmp B; A: ... becomes jnz B.
    let src = "    ldl 0\n    jz A\n    jmp B\nA:\n    push 1\n    retv\nB:\n    push 2\n    retv";
    assert_eq!(opt_ops(src, H), vec![Ldl, Jnz, Push, RetV, Push, RetV]);
    // Threading a forward jump through a forward jump.
    let src = "    ldl 0\n    jz A\n    push 1\n    retv\nA:\n    jmp B\n    nop\nB:\n    push 2\n    retv";
    let ops = opt_ops(src, H);
    assert_eq!(ops, vec![Ldl, Jz, Push, RetV, Push, RetV]);
    // A jump to the next instruction disappears.
    assert_eq!(
        opt_ops("    jmp N\nN:\n    push 1\n    retv", H),
        vec![Push, RetV]
    );
}

#[test]
fn constant_pattern_lists_fold_into_masks() {
    use Opcode::*;
    let src = |list: &str, intr: &str| {
        format!(".list c {} = {list}\n.func main params 0 lists 0 locals 0 stack 2 value\n    push 512\n    lref c\n    intr {intr}\n    retv\n.end\n", list.split_whitespace().count())
    };
    let ops = |text: String| {
        let p = Program::new(assemble(&text).expect("ok")).expect("ok");
        let (o, _) = optimize(&p);
        o.function_info(0)
            .instrs
            .iter()
            .map(|i| i.instr.opcode)
            .collect::<Vec<_>>()
    };
    // Concrete squares, and form: one mask, all must hold.
    assert_eq!(ops(src("12 28", "PcOnSqrs")), vec![Push, PatAll, RetV]);
    // A single wildcard element, and form: some square of it.
    assert_eq!(ops(src("76", "PcOnSqrs")), vec![Push, PatAny, RetV]);
    // Or form: the union.
    assert_eq!(ops(src("12 76", "orPcOnSqrs")), vec![Push, PatAny, RetV]);
    // Mixed and-list: not one mask, left alone.
    assert_eq!(ops(src("12 76", "PcOnSqrs")), vec![Push, Lref, Intr, RetV]);
    // Not a square value: left alone (the intrinsic answers false).
    assert_eq!(
        ops(src("12 999", "orPcOnSqrs")),
        vec![Push, Lref, Intr, RetV]
    );
    // A list the program writes is not constant.
    let written = ".list c 2 = 12 28\n.func main params 0 lists 0 locals 0 stack 2 value\n    push 0\n    push 5\n    ste c\n    push 512\n    lref c\n    intr PcOnSqrs\n    retv\n.end\n".to_string();
    assert!(ops(written).contains(&Intr));
}

#[test]
fn loop_inversion_keeps_behaviour_under_every_fuel_limit() {
    // Loops of 0..4 iterations, with and without a break, under every fuel
    // limit around what they need: results, errors, output and memory
    // agree where neither runs out of fuel, and the one that does printed
    // a prefix of the other's output.
    for trips in 0..4 {
        for brk in [false, true] {
            let body = if brk {
                "    ldl i\n    jeq.i 2 E\n"
            } else {
                ""
            };
            let src = format!(".entry main\n.func main params 0 lists 0 locals 1 stack 2 value\n.slots i\nL:\n    ldl i\n    push {trips}\n    lt\n    jz E\n{body}    incl i\n    jmp L\nE:\n    ldl i\n    retv\n.end\n");
            let p = Program::new(assemble(&src).expect("ok")).expect("ok");
            let (o, _) = optimize(&p);
            assert!(o
                .function_info(0)
                .instrs
                .iter()
                .any(|i| i.instr.opcode == Opcode::IncJLtLI));
            for fuel in 0..12 {
                let limits = Limits {
                    fuel: Some(fuel),
                    ..Limits::default()
                };
                if let Err(e) = agree(&run(&p, limits), &run(&o, limits)) {
                    panic!("trips {trips} break {brk} fuel {fuel}: {e}");
                }
            }
            // With fuel enough for both, they agree in everything but fuel.
            let plenty = Limits {
                fuel: Some(1_000),
                ..Limits::default()
            };
            let (a, b) = (run(&p, plenty), run(&o, plenty));
            assert!(a.0.is_ok(), "trips {trips} break {brk}: {:?}", a.0);
            assert_eq!(without_fuel(&a), without_fuel(&b));
        }
    }
}

#[test]
fn threading_keeps_behaviour_under_every_fuel_limit() {
    // jz forward to a backward jmp: threading would turn one charged jump
    // into a forward (free) one only if the target were after the jz; here
    // the loop head is before, so the threaded jump stays backward.
    let src = ".entry main\n.func main params 0 lists 0 locals 1 stack 2 value\n.slots i\nL:\n    incl i\n    ldl i\n    push 5\n    lt\n    jz E\n    ldl i\n    push 100\n    lt\n    jz X\n    jmp L\nX:\n    jmp L\nE:\n    ldl i\n    retv\n.end\n";
    let p = Program::new(assemble(src).expect("ok")).expect("ok");
    let (o, _) = optimize(&p);
    let plenty = Limits {
        fuel: Some(1_000),
        ..Limits::default()
    };
    let (a, b) = (run(&p, plenty), run(&o, plenty));
    assert_eq!(a.0, Ok(Some(5)));
    assert_eq!(without_fuel(&a), without_fuel(&b));
    for fuel in 0..16 {
        let limits = Limits {
            fuel: Some(fuel),
            ..Limits::default()
        };
        if let Err(e) = agree(&run(&p, limits), &run(&o, limits)) {
            panic!("fuel {fuel}: {e}");
        }
    }
}

/// An outcome without the fuel used: result, output, globals, heap.
type Behaviour<'a> = (
    &'a Result<Option<i32>, String>,
    &'a [cvm::OutputLine],
    &'a [i32],
    &'a [i32],
);

/// An outcome without the fuel used.
fn without_fuel(o: &Outcome) -> Behaviour<'_> {
    (&o.0, &o.1, &o.2, &o.3)
}

/// The relation `docs/optimizer.md` promises between a run of a program
/// (`want`) and the same run of its optimized form (`got`): where neither
/// ran out of fuel they agree in everything but the fuel used; a run that
/// ran out printed a prefix of the other's output (both a prefix of one
/// another when both ran out).
fn agree(want: &Outcome, got: &Outcome) -> Result<(), String> {
    let oof = |o: &Outcome| o.0.as_ref().err().is_some_and(|k| k == "out-of-fuel");
    let ok = match (oof(want), oof(got)) {
        (false, false) => without_fuel(want) == without_fuel(got),
        (true, false) => got.1.starts_with(&want.1),
        (false, true) => want.1.starts_with(&got.1),
        (true, true) => want.1.starts_with(&got.1) || got.1.starts_with(&want.1),
    };
    if ok {
        Ok(())
    } else {
        Err(format!("optimized {got:?}, original {want:?}"))
    }
}

type Outcome = (
    Result<Option<i32>, String>,
    Vec<cvm::OutputLine>,
    Vec<i32>,
    Vec<i32>,
    u64,
);

fn run(p: &Program, limits: Limits) -> Outcome {
    let mut vm = Interpreter::new(p);
    vm.set_limits(limits);
    let mut out = CollectOutput::default();
    let r = vm
        .run_entry(&mut NoHost, &mut out)
        .map(|c| c.value())
        .map_err(|e| cvm_testkit::conformance::kind_name(&e.kind).to_string());
    let fuel = vm.fuel_used();
    (
        r,
        out.lines,
        vm.memory().globals.clone(),
        vm.memory().heap.clone(),
        fuel,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1500))]

    #[test]
    fn optimized_programs_behave_identically(data in proptest::collection::vec(any::<u8>(), 0..600)) {
        let p = Program::new(cvm_testkit::programs::generate(&data)).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let (o, report) = optimize(&p);
        prop_assert!(!report.fell_back, "optimizer produced an unverifiable module");
        let limits = Limits { fuel: Some(3_000), max_depth: 40 };
        agree(&run(&p, limits), &run(&o, limits)).map_err(TestCaseError::fail)?;
        // Optimizing twice changes nothing more than optimizing once would
        // still verify and behave the same.
        let (o2, _) = optimize(&o);
        agree(&run(&o, limits), &run(&o2, limits)).map_err(TestCaseError::fail)?;
        // Fuel bounds the instructions executed, optimized or not.
        let scenario = cvm_testkit::oracle::Scenario::new(limits);
        for q in [&p, &o] {
            cvm_testkit::oracle::check_fuel_bound(q, &scenario).map_err(TestCaseError::fail)?;
        }
        // Inlining stays within the program's growth budget.
        let bound = growth_bound(&p);
        prop_assert!(instructions(&o) <= bound, "{} instructions, bound {bound}", instructions(&o));
    }
}

/// Instructions of a program.
fn instructions(p: &Program) -> usize {
    p.function_infos().iter().map(|f| f.instrs.len()).sum()
}

/// The most instructions the optimizer may turn `p` into: the bound
/// `docs/optimizer.md` documents, twice the size plus 256 (the other
/// rewrites only shrink code).
fn growth_bound(p: &Program) -> usize {
    2 * instructions(p) + 256
}

/// Functions calling the next level `fanout` times each, `levels` deep: the
/// shape that made unbudgeted inlining grow exponentially.
fn call_tree(levels: usize, fanout: usize) -> Program {
    let mut text = String::from(".entry main\n");
    text.push_str(".func f0 params 1 lists 0 locals 0 stack 2 value\n    ldl 0\n    add.i 1\n    retv\n.end\n");
    for level in 1..levels {
        text.push_str(&format!(
            ".func f{level} params 1 lists 0 locals 0 stack 2 value\n    ldl 0\n"
        ));
        for _ in 0..fanout {
            text.push_str(&format!("    call f{}\n", level - 1));
        }
        text.push_str("    retv\n.end\n");
    }
    text.push_str(&format!(
        ".func main params 0 lists 0 locals 0 stack 2 value\n    push 1\n    call f{}\n    retv\n.end\n",
        levels - 1
    ));
    Program::new(assemble(&text).expect("assembles")).expect("verifies")
}

/// `callers` functions each calling one 20-instruction leaf `calls` times:
/// every call is worth inlining on its own, and together they would make the
/// program about twenty times larger.
fn wide_calls(callers: usize, calls: usize) -> Program {
    let mut text = String::from(
        ".entry main\n.func leaf params 1 lists 0 locals 0 stack 2 value\n    ldl 0\n",
    );
    for k in 0..18 {
        text.push_str(&format!("    add.i {}\n", k + 1));
    }
    text.push_str("    retv\n.end\n");
    for c in 0..callers {
        text.push_str(&format!(
            ".func c{c} params 1 lists 0 locals 0 stack 2 value\n    ldl 0\n"
        ));
        for _ in 0..calls {
            text.push_str("    call leaf\n");
        }
        text.push_str("    retv\n.end\n");
    }
    text.push_str(".func main params 0 lists 0 locals 0 stack 2 value\n    push 1\n");
    for c in 0..callers {
        text.push_str(&format!("    call c{c}\n"));
    }
    text.push_str("    retv\n.end\n");
    Program::new(assemble(&text).expect("assembles")).expect("verifies")
}

#[test]
fn inlining_stays_within_the_growth_budget() {
    let shapes = [(4, 3), (6, 3), (8, 4), (12, 2)]
        .map(|(levels, fanout)| (format!("tree {levels}x{fanout}"), call_tree(levels, fanout)));
    let wide = [(10, 10), (40, 40)].map(|(c, k)| (format!("wide {c}x{k}"), wide_calls(c, k)));
    for (name, p) in shapes.into_iter().chain(wide) {
        let (o, report) = optimize(&p);
        assert!(!report.fell_back);
        assert!(report.inlined > 0, "nothing inlined for {name}");
        let (n, bound) = (instructions(&o), growth_bound(&p));
        assert!(n <= bound, "{name}: {n} instructions, bound {bound}");
        let limits = Limits {
            fuel: Some(1_000_000),
            max_depth: 100,
        };
        let (a, b) = (run(&p, limits), run(&o, limits));
        assert!(a.0.is_ok(), "{name}: {:?}", a.0);
        assert_eq!(without_fuel(&a), without_fuel(&b), "{name}");
    }
}
