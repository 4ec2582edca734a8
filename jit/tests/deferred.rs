//! Deferred list fills (`src/deferred.rs`): Cranelift's code keeps the set
//! of a `Get` form or a line walker as a bitboard when only such fills
//! write its list and only `SetSqrs` reads it, and writes the squares when
//! someone may look. Whatever the order of calls, fills, errors, resets,
//! pokes into memory and looks at it, every backend must show the
//! interpreter's memory, results, output, advice and fuel: random programs
//! that fill the same lists again and again (longer and shorter sets, sets
//! too long for the list, ascending and descending fills, a position that
//! changes in the middle of a run, selectors and squares known only at run
//! time, whose calls the shim makes) and hand them to `SetSqrs` are run
//! side by side with the interpreter on Cranelift's code,
//! baseline code, baseline code upgraded in the middle of a run, and the
//! tiered backend.

mod common;

use common::{random_board, Rng};
use cvm::runtime::Limits;
use cvm::{asm, CollectOutput, Host, Interpreter, Program, TrapKind, Vm};
use cvm_chess::board::BoardView;
use jit::tiered::{TierConfig, TieredProgram};
use jit::JitProgram;

/// A host whose service 1 moves it to its next position and whose service
/// 2 has Cranelift's code of `upgrade` arrive (nothing without one).
struct Moving<'a> {
    boards: Vec<BoardView>,
    at: usize,
    upgrade: Option<&'a JitProgram>,
}

impl Moving<'_> {
    /// A host on the empty board that never moves.
    fn still() -> Moving<'static> {
        Moving {
            boards: vec![BoardView::EMPTY],
            at: 0,
            upgrade: None,
        }
    }
}

impl Host for Moving<'_> {
    fn board(&self) -> Option<&BoardView> {
        self.boards.get(self.at)
    }

    fn extension(&mut self, service: i32, _args: [i32; 3]) -> Result<i32, TrapKind> {
        match service {
            1 => self.at = (self.at + 1) % self.boards.len(),
            2 => {
                if let Some(jit) = self.upgrade {
                    jit.upgrade_now();
                }
            }
            _ => {}
        }
        Ok(0)
    }
}

/// Runs the entry on `interp` and on `vm` on the positions `boards` (the
/// VM's host may have Cranelift's code of `upgrade` arrive), checking that
/// the results, the output and the fuel agree.
fn run_both(
    interp: &mut Interpreter,
    vm: &mut dyn Vm,
    boards: Vec<BoardView>,
    upgrade: Option<&JitProgram>,
    what: &str,
) {
    let mut outs: [CollectOutput; 2] = Default::default();
    let want = interp.run_entry(
        &mut Moving {
            boards: boards.clone(),
            at: 0,
            upgrade: None,
        },
        &mut outs[0],
    );
    let got = vm.run_entry(
        &mut Moving {
            boards,
            at: 0,
            upgrade,
        },
        &mut outs[1],
    );
    assert_eq!(got, want, "{what}");
    assert_eq!(outs[1].lines, outs[0].lines, "{what}");
    assert_eq!(vm.fuel_used(), interp.fuel_used(), "{what}");
    assert!(vm.advice() == interp.advice(), "advice differs: {what}");
}

/// Lists `d0`..`d5` only `Get` forms and line walkers fill and only
/// `SetSqrs` reads (six: every one deferred), `r` is also read element by
/// element (never deferred).
const DEFERRED: usize = 6;

/// One statement of a function body.
fn statement(rng: &mut Rng) -> String {
    let list = if rng.below(6) == 0 {
        "r".to_string()
    } else {
        format!("d{}", rng.below(DEFERRED as u64))
    };
    // Pieces are 0x200 + 8 * colour (2: either) + kind (6 and 7: any);
    // now and then one that names nothing (an empty set).
    let piece = if rng.below(12) == 0 {
        rng.pick(&[5, -1, 0x200 + 3 * 8])
    } else {
        0x200 + rng.below(3) as i32 * 8 + rng.below(8) as i32
    };
    let colour = rng.pick(&[0, 1, 2]);
    // A square for the line walkers: concrete, a wildcard or no square.
    let square = if rng.below(6) == 0 {
        rng.pick(&[64, 72, 80, -1, 99])
    } else {
        rng.below(64) as i32
    };
    let walker = rng.pick(&["GetDwnSqrs", "GetUpSqrs", "GetLSqrs", "GetRSqrs"]);
    match rng.below(18) {
        // `SetSqrs` of a literal list: distinct squares (given to the shim
        // as a bitboard), a square twice, a wildcard.
        16 | 17 => format!(
            "    push {piece}\n    push 4\n    lref c{}\n    intr SetSqrs\n",
            rng.below(3)
        ),
        // A walker from a square known when compiling, or read from a
        // global only at run time.
        11 => format!("    push {square}\n    lref {list}\n    intr {walker}\n    write\n"),
        12 => format!("    ldg square\n    lref {list}\n    intr {walker}\n    write\n"),
        13 | 14 => format!("    push {piece}\n    push 3\n    lref {list}\n    intr SetSqrs\n"),
        15 => format!("    ldg piece\n    push -2\n    lref {list}\n    intr SetSqrs\n"),
        0 => "    push 1\n    push 0\n    push 0\n    push 0\n    intr HostCall\n    pop\n".into(),
        1 => "    push 2\n    push 0\n    push 0\n    push 0\n    intr HostCall\n    pop\n".into(),
        2 => "    push 0\n    lde r\n    write\n".into(),
        3 => format!("    push {piece}\n    lref {list}\n    intr GetControl\n    write\n"),
        4 => format!("    push {colour}\n    lref {list}\n    intr GetPassed\n    write\n"),
        5 => format!("    push {colour}\n    lref {list}\n    intr GetDblPwns\n    write\n"),
        // A selector known only at run time: the call is left to the shim
        // (its cost, which does not depend on the selector, charged in the
        // code), which writes the list's waiting fill first.
        6 => format!("    ldg piece\n    lref {list}\n    intr GetPcOnSqrs\n    write\n"),
        7 => format!("    ldg colour\n    lref {list}\n    intr GetDblPwns\n    write\n"),
        _ => format!("    push {piece}\n    lref {list}\n    intr GetPcOnSqrs\n    write\n"),
    }
}

/// `main` (the entry) and `g` fill the lists; `main` calls `g` between
/// its own statements; `reader` returns the first element of the list it
/// is passed.
fn random_program(rng: &mut Rng) -> String {
    let mut src = String::from(".entry main\n");
    src.push_str(&format!(
        ".global piece {}\n.global colour {}\n.global square {}\n",
        0x200 + rng.below(3) as i32 * 8 + rng.below(8) as i32,
        rng.below(3),
        rng.pick(&[0, 7, 12, 36, 56, 63, 71, -1])
    ));
    for i in 0..DEFERRED {
        src.push_str(&format!(".list d{i} {}\n", rng.pick(&[0, 1, 3, 8, 16, 64])));
    }
    src.push_str(".list r 16\n");
    src.push_str(".list c0 4 = 12 28 36\n.list c1 3 = 12 12 5\n.list c2 2 = 64 3\n");
    let body = |rng: &mut Rng, n: u64| (0..n).map(|_| statement(rng)).collect::<String>();
    let n = 1 + rng.below(8);
    let a = body(rng, n);
    let n = rng.below(6);
    let b = body(rng, n);
    let n = 1 + rng.below(8);
    let c = body(rng, n);
    src.push_str(&format!(
        ".func main params 0 lists 0 locals 0 stack 5 value\n{a}    call g\n    write\n{b}    call g\n    retv\n.end\n"
    ));
    src.push_str(&format!(
        ".func g params 0 lists 0 locals 0 stack 5 value\n{c}    push 7\n    retv\n.end\n"
    ));
    src.push_str(".func reader params 0 lists 1 locals 0 stack 2 value\n    ldl 0\n    push 0\n    ldx\n    retv\n.end\n");
    src
}

/// Runs one random sequence of the embedder's actions on `vm` and on a
/// fresh interpreter, checking that they agree after each.
fn agree(
    program: &Program,
    src: &str,
    vm: &mut dyn Vm,
    upgrade: Option<&JitProgram>,
    rng: &mut Rng,
) {
    let mut interp = Interpreter::new(program);
    let reader = program
        .module()
        .functions
        .iter()
        .position(|f| f.name == "reader")
        .expect("reader") as u32;
    let lists = program.module().lists.len() as u64;
    for step in 0..12 {
        match rng.below(8) {
            0 => {
                let list = rng.below(lists) as i32;
                let want = interp.call(
                    reader,
                    &[list],
                    &mut Moving::still(),
                    &mut CollectOutput::default(),
                );
                let got = vm.call(
                    reader,
                    &[list],
                    &mut Moving::still(),
                    &mut CollectOutput::default(),
                );
                assert_eq!(got, want, "step {step}: reader of list {list}\n{src}");
            }
            1 => {
                // The embedder writes a slot of some list.
                let list = rng.below(lists) as usize;
                let slice = program.module().lists[list].slots();
                let slot = rng.below(slice) as usize;
                let value = rng.pick(&[-1, 0, 5, 63]);
                for memory in [interp.memory_mut(), vm.memory_mut()] {
                    let base = memory.lists[list].base as usize;
                    memory.heap[base + slot] = value;
                }
            }
            2 => {
                interp.reset();
                vm.reset();
            }
            _ => {
                let fuel = if rng.below(3) == 0 {
                    Some(rng.below(400))
                } else {
                    None
                };
                let limits = Limits {
                    fuel,
                    ..Limits::default()
                };
                interp.set_limits(limits);
                vm.set_limits(limits);
                let boards: Vec<BoardView> = (0..3).map(|_| random_board(rng)).collect();
                run_both(
                    &mut interp,
                    vm,
                    boards,
                    upgrade,
                    &format!("step {step}\n{src}"),
                );
            }
        }
        // Looking at memory writes waiting fills; not looking leaves them
        // waiting into the next action.
        if rng.below(2) == 0 {
            assert_eq!(vm.memory(), interp.memory(), "step {step}\n{src}");
        }
    }
    assert_eq!(vm.memory(), interp.memory(), "at the end\n{src}");
}

fn programs(seed: u64, n: usize) -> Vec<(String, Program)> {
    let mut rng = Rng(seed);
    (0..n)
        .map(|_| {
            let src = random_program(&mut rng);
            let module = asm::assemble(&src).unwrap_or_else(|e| panic!("{e}\n{src}"));
            (src, Program::new(module).expect("verifies"))
        })
        .collect()
}

#[test]
fn cranelift_code_shows_the_interpreters_memory() {
    let mut rng = Rng(0x0def_e55e_d0f1_115a);
    let mut deferring = 0;
    for (src, program) in programs(0x1357_9bdf_0246_8ace, 60) {
        let jit = JitProgram::compile(&program).expect("compiles");
        deferring += usize::from(!jit.deferred_lists().is_empty());
        let mut vm = jit.instance();
        agree(&program, &src, &mut vm, None, &mut rng);
    }
    // The lists `d0`..`d5` are deferred whenever a statement names them.
    assert!(
        deferring >= 55,
        "only {deferring} of 60 programs defer a fill"
    );
}

#[test]
fn baseline_code_and_an_upgrade_in_the_middle_of_a_run_agree() {
    let mut rng = Rng(0x2468_ace0_1357_9bdf);
    for (src, program) in programs(0x0bad_cafe_f00d_1234, 40) {
        let baseline = JitProgram::compile_baseline(&program).expect("compiles");
        let mut vm = baseline.instance();
        agree(&program, &src, &mut vm, None, &mut rng);
        // Baseline code first; Cranelift's code arrives when a statement
        // asks for it (service 2), maybe in the middle of a run.
        let quick = JitProgram::compile_quick_deferred(&program, &[0]).expect("compiles");
        let mut vm = quick.instance();
        agree(&program, &src, &mut vm, Some(&quick), &mut rng);
    }
}

#[test]
fn the_tiered_backend_agrees_at_every_switch() {
    let mut rng = Rng(0x5eed_0000_2222_4444);
    for (src, program) in programs(0x7777_1111_3333_5555, 12) {
        for switch in 0..4 {
            let config = TierConfig {
                switch_at: Some(switch),
                ..TierConfig::DEFAULT
            };
            let tier = TieredProgram::new(program.clone(), config);
            let mut vm = tier.instance();
            agree(&program, &src, &mut vm, None, &mut rng);
        }
    }
}

/// Baseline code that fills a list Cranelift's code left a fill waiting
/// for: the intrinsic shim writes the waiting fill first, so the slots
/// past the new fill's end marker hold the waiting fill's squares, as on
/// the interpreter (eight pawns, then the king: the king's square, the end
/// marker, then pawns three to eight).
#[test]
fn baseline_code_writes_over_a_fill_cranelift_code_left_waiting() {
    let src = "
.entry main
.list d 16
.func main params 0 lists 0 locals 0 stack 5 value
    push 2
    push 0
    push 0
    push 0
    intr HostCall
    pop
    call g
    pop
    push 517
    lref d
    intr GetPcOnSqrs
    retv
.end
.func g params 0 lists 0 locals 0 stack 5 value
    push 512
    lref d
    intr GetPcOnSqrs
    retv
.end
";
    let program = Program::new(asm::assemble(src).expect("assembles")).expect("verifies");
    let mut board = BoardView::EMPTY;
    board.pieces[0][0] = 0xff00;
    board.pieces[0][5] = 1 << 4;
    let quick = JitProgram::compile_quick_deferred(&program, &[0]).expect("compiles");
    assert_eq!(quick.deferred_lists(), &[0]);
    let mut vm = quick.instance();
    let mut interp = Interpreter::new(&program);
    let mut host = Moving {
        boards: vec![board],
        at: 0,
        upgrade: Some(&quick),
    };
    let got = vm.run_entry(&mut host, &mut CollectOutput::default());
    let want = interp.run_entry(
        &mut Moving {
            boards: vec![board],
            at: 0,
            upgrade: None,
        },
        &mut CollectOutput::default(),
    );
    assert_eq!(got, want);
    assert_eq!(quick.entry_switches(), 1, "g ran on Cranelift's code");
    assert_eq!(
        &interp.memory().heap[..10],
        &[4, -1, 10, 11, 12, 13, 14, 15, -1, -1]
    );
    assert_eq!(vm.memory(), interp.memory());
}

/// Forty-one fills of one list in one run, longer and shorter sets one
/// after the other (other pieces, boards changing between the fills): the
/// memory is the interpreter's after the runs, looked at after every
/// second run.
#[test]
fn many_fills_of_one_list_in_one_run_agree() {
    let mut body = String::new();
    for k in 0..41 {
        if k % 3 == 0 {
            body.push_str(
                "    push 1\n    push 0\n    push 0\n    push 0\n    intr HostCall\n    pop\n",
            );
        }
        let piece = 0x200 + (k % 3) * 8 + (k % 8);
        body.push_str(&format!(
            "    push {piece}\n    lref d\n    intr GetPcOnSqrs\n    write\n"
        ));
    }
    let src = format!(
        ".entry main\n.list d 64\n.func main params 0 lists 0 locals 0 stack 5 value\n{body}    push 0\n    retv\n.end\n"
    );
    let program = Program::new(asm::assemble(&src).expect("assembles")).expect("verifies");
    let jit = JitProgram::compile(&program).expect("compiles");
    assert_eq!(jit.deferred_lists(), &[0]);
    let mut vm = jit.instance();
    let mut interp = Interpreter::new(&program);
    let mut rng = Rng(0x0f11_1f11_1f11_1f11);
    for run in 0..5 {
        let boards: Vec<BoardView> = (0..7).map(|_| random_board(&mut rng)).collect();
        run_both(&mut interp, &mut vm, boards, None, &format!("run {run}"));
        if run % 2 == 1 {
            assert_eq!(vm.memory(), interp.memory(), "run {run}");
        }
    }
    assert_eq!(vm.memory(), interp.memory());
}

/// A run whose second fill of a list is shorter than the one waiting
/// writes the waiting one into memory on the way (ascending fills inline,
/// a list with descending fills through the shim): a reset right after
/// the run, memory not looked at, must copy that list back as well, on
/// Cranelift's code and on baseline code.
#[test]
fn a_reset_after_a_run_that_wrote_a_waiting_fill_restores_the_list() {
    // White pawns (eight squares), then the white king (one): ascending.
    let ascending = "    push 512\n    lref d\n    intr GetPcOnSqrs\n    pop\n    push 517\n    lref d\n    intr GetPcOnSqrs\n    pop\n";
    // Down the h-file from h8 (eight squares, descending), then up from
    // h8 (one square).
    let mixed = "    push 63\n    lref d\n    intr GetDwnSqrs\n    pop\n    push 63\n    lref d\n    intr GetUpSqrs\n    pop\n";
    let mut board = BoardView::EMPTY;
    board.pieces[0][0] = 0xff00;
    board.pieces[0][5] = 1 << 4;
    for body in [ascending, mixed] {
        let src = format!(
            ".entry main\n.list d 16\n.func main params 0 lists 0 locals 0 stack 5 value\n{body}    push 0\n    retv\n.end\n"
        );
        let program = Program::new(asm::assemble(&src).expect("assembles")).expect("verifies");
        let compiled = [
            JitProgram::compile(&program).expect("compiles"),
            JitProgram::compile_baseline(&program).expect("compiles"),
        ];
        for jit in &compiled {
            assert_eq!(jit.deferred_lists(), &[0]);
            let mut vm = jit.instance();
            let mut interp = Interpreter::new(&program);
            run_both(&mut interp, &mut vm, vec![board], None, &src);
            vm.reset();
            interp.reset();
            assert_eq!(vm.memory(), interp.memory(), "{src}");
            run_both(&mut interp, &mut vm, vec![board], None, &src);
            assert_eq!(vm.memory(), interp.memory(), "{src}");
        }
    }
}

/// `SetSqrs` compiled inline (a waiting fill, a literal list) adds with
/// saturation as the intrinsic does: bonuses at the ends of the `i32`
/// range, twice over, on a table the embedder filled near the ends, on
/// Cranelift's code and on baseline code.
#[test]
fn set_sqrs_inline_saturates_as_the_intrinsic_does() {
    let src = "
.entry main
.global bonus 0
.list d 16
.list c 4 = 12 28 36
.func main params 0 lists 0 locals 0 stack 5 value
    push 36
    lref d
    intr GetDwnSqrs
    pop
    push 515
    ldg bonus
    lref d
    intr SetSqrs
    push 531
    ldg bonus
    lref c
    intr SetSqrs
    push 0
    retv
.end
";
    let program = Program::new(asm::assemble(src).expect("assembles")).expect("verifies");
    let compiled = [
        JitProgram::compile(&program).expect("compiles"),
        JitProgram::compile_baseline(&program).expect("compiles"),
    ];
    for jit in &compiled {
        for bonus in [i32::MAX, i32::MIN, i32::MAX - 3, -7] {
            let mut vm = jit.instance();
            let mut interp = Interpreter::new(&program);
            for table in [vm.advice_mut(), interp.advice_mut()] {
                table.square_bonus[0][3][12] = i32::MAX - 5;
                table.square_bonus[1][3][28] = i32::MIN + 5;
            }
            let global = |m: &mut cvm::Memory| m.globals[0] = bonus;
            global(vm.memory_mut());
            global(interp.memory_mut());
            for run in 0..2 {
                run_both(
                    &mut interp,
                    &mut vm,
                    vec![BoardView::EMPTY],
                    None,
                    &format!("{bonus} {run}"),
                );
            }
        }
    }
}

/// `SetSqrs` compiled inline on a literal list that its squares fill to its
/// declared length charges, writes and returns what the intrinsic does:
/// one list per length from 1 to 9 (the `Slots` and `Squares` terms of the
/// cost cross a multiple of their divisor 8 in that range), on Cranelift's
/// code and on baseline code.
#[test]
fn set_sqrs_inline_charges_a_full_list_as_the_intrinsic_does() {
    let squares = [12, 28, 36, 0, 7, 63, 33, 45, 50];
    for n in 1..=squares.len() {
        let elements: Vec<String> = squares[..n].iter().map(|s| s.to_string()).collect();
        let src = format!(
            "
.entry main
.list c {n} = {}
.func main params 0 lists 0 locals 0 stack 3 value
    push 531
    push 5
    lref c
    intr SetSqrs
    push 0
    retv
.end
",
            elements.join(" ")
        );
        let program = Program::new(asm::assemble(&src).expect("assembles")).expect("verifies");
        let compiled = [
            JitProgram::compile(&program).expect("compiles"),
            JitProgram::compile_baseline(&program).expect("compiles"),
        ];
        for jit in &compiled {
            let mut vm = jit.instance();
            let mut interp = Interpreter::new(&program);
            run_both(&mut interp, &mut vm, vec![BoardView::EMPTY], None, &src);
        }
    }
}
