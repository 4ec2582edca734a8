//! The native patterns (`src/patterns.rs`) against the Rust intrinsics: random programs
//! of pattern calls on constant lists (valid and invalid pieces, colours,
//! compoperators, squares, wildcards, end markers), with constant and
//! run-time counts, run on random boards by both backends. Every call's
//! result is written, so any difference shows in the output.

mod common;

use common::{random_board, Rng};
use cvm::Vm;
use cvm::{asm, CollectOutput, Host, Interpreter, Program};
use cvm_chess::board::BoardView;
use cvm_testkit::hosts::MovingHost;
use jit::JitProgram;

struct BoardHost(BoardView);

impl Host for BoardHost {
    fn board(&self) -> Option<&BoardView> {
        Some(&self.0)
    }
}

fn piece(rng: &mut Rng) -> i32 {
    match rng.below(10) {
        0 => rng.pick(&[5, -1, 0x200 + 3 * 8, 0x200 + 24 + 2]),
        _ => 0x200 + rng.below(3) as i32 * 8 + rng.below(8) as i32,
    }
}

fn colour(rng: &mut Rng) -> i32 {
    if rng.below(10) == 0 {
        rng.pick(&[3, -1, 0x200])
    } else {
        rng.below(3) as i32
    }
}

fn compop(rng: &mut Rng) -> i32 {
    if rng.below(10) == 0 {
        rng.pick(&[0x306, 0, -1])
    } else {
        0x300 + rng.below(6) as i32
    }
}

fn square(rng: &mut Rng) -> i32 {
    match rng.below(12) {
        0 => rng.pick(&[81, -2, 1000, 0x10000]),
        1 => -1,
        2..=4 => 64 + rng.below(17) as i32,
        _ => rng.below(64) as i32,
    }
}

fn column(rng: &mut Rng) -> i32 {
    match rng.below(10) {
        0 => rng.pick(&[0x319, 0x30F, 3]),
        1 => -1,
        _ => 0x310 + rng.below(9) as i32,
    }
}

fn side(rng: &mut Rng) -> i32 {
    match rng.below(10) {
        0 => rng.pick(&[0x335, 0x32F, 7]),
        1 => -1,
        _ => 0x330 + rng.below(5) as i32,
    }
}

/// A program of `calls` pattern calls, each on its own constant list, the
/// results written one per line. Also returns how many calls the JIT
/// should be able to compile to native code.
fn random_program(rng: &mut Rng, calls: usize) -> (String, usize) {
    let mut lists = String::new();
    let mut body = String::new();
    let mut inlinable = 0;
    for i in 0..calls {
        let len = rng.below(5) as usize;
        let which = rng.below(9);
        let elem: fn(&mut Rng) -> i32 = match which {
            6 => column,
            7 => side,
            _ => square,
        };
        let values: Vec<String> = (0..len).map(|_| elem(rng).to_string()).collect();
        if values.is_empty() {
            lists.push_str(&format!(".list l{i} 1\n"));
        } else {
            lists.push_str(&format!(".list l{i} {len} = {}\n", values.join(" ")));
        }
        // A run-time count (from a global) half of the time.
        let n = if rng.below(2) == 0 {
            format!("push {}", rng.below(4))
        } else {
            "ldg n".to_string()
        };
        let or = if rng.below(2) == 0 { "or" } else { "" };
        let call = match which {
            0 => format!("push {}\n lref l{i}\n intr {or}PcOnSqrs", piece(rng)),
            1 => format!(
                "push {}\n push {}\n {n}\n lref l{i}\n intr CmpNrPcs",
                piece(rng),
                compop(rng)
            ),
            2 => format!("push {}\n lref l{i}\n intr {or}DblPwns", colour(rng)),
            3 => format!("push {}\n lref l{i}\n intr {or}Passed", colour(rng)),
            4 => format!("push {}\n lref l{i}\n intr {or}Control", piece(rng)),
            5 => format!("push {}\n lref l{i}\n intr {or}ExchngCtrl", colour(rng)),
            6 => format!(
                "push {}\n push {}\n {n}\n lref l{i}\n intr {or}POnLine",
                colour(rng),
                compop(rng)
            ),
            7 => format!("push {}\n lref l{i}\n intr {or}KingPos", colour(rng)),
            _ => format!("push {}\n intr NxtSqr", square(rng)),
        };
        inlinable += 1;
        body.push_str(&format!("    {call}\n    write\n"));
    }
    let src = format!(
        ".entry main\n.global n {}\n{lists}.func main params 0 lists 0 locals 0 stack 4 proc\n{body}    ret\n.end\n",
        rng.below(4)
    );
    (src, inlinable)
}

fn outputs_agree(src: &str, boards: &[BoardView], expect_native: usize) {
    let module = asm::assemble(src).unwrap_or_else(|e| panic!("{e}\n{src}"));
    let program = Program::new(module).expect("verifies");
    let jit = JitProgram::compile(&program).expect("compiles");
    assert_eq!(jit.stats().native_intrinsics, expect_native, "{src}");
    let mut vm = jit.instance();
    let mut reference = Interpreter::new(&program);
    for board in boards {
        let mut host = BoardHost(*board);
        let (mut want, mut got) = (CollectOutput::default(), CollectOutput::default());
        let r1 = reference.run_entry(&mut host, &mut want);
        let r2 = vm.run_entry(&mut host, &mut got);
        assert!(vm.ran_compiled());
        assert_eq!(r1, r2);
        assert_eq!(got.lines, want.lines, "{src}\nboard {board:?}");
    }
}

#[test]
fn native_patterns_agree_with_the_intrinsics() {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    for _ in 0..150 {
        let calls = 1 + rng.below(25) as usize;
        let (src, inlinable) = random_program(&mut rng, calls);
        let boards: Vec<BoardView> = (0..6).map(|_| random_board(&mut rng)).collect();
        outputs_agree(&src, &boards, inlinable);
    }
}

#[test]
fn hand_checked_patterns() {
    // Start position: White pawns on rank 2, knights b1 g1, king e1; Black
    // mirrored. Expected values follow the document's definitions.
    let mut b = BoardView::EMPTY;
    b.pieces[0][0] = 0xFF00;
    b.pieces[0][1] = (1 << 1) | (1 << 6);
    b.pieces[0][5] = 1 << 4;
    b.pieces[1][0] = 0x00FF_0000_0000_0000;
    b.pieces[1][5] = 1 << 60;
    let src = "
.entry main
.list e2d2 2 = 12 11
.list e2e4 2 = 12 28
.list rank2 1 = 65
.list kside 1 = 816
.list aline 1 = 784
.func main params 0 lists 0 locals 0 stack 4 proc
    push 512
    lref e2d2
    intr PcOnSqrs
    write
    push 512
    lref e2e4
    intr PcOnSqrs
    write
    push 512
    lref e2e4
    intr orPcOnSqrs
    write
    push 512
    push 768
    push 8
    lref rank2
    intr CmpNrPcs
    write
    push 0
    lref kside
    intr KingPos
    write
    push 2
    push 768
    push 2
    lref aline
    intr POnLine
    write
    push 7
    intr NxtSqr
    write
    ret
.end
";
    // wP on e2 d2: 1; on e2 e4: 0; or-form: 1; eight white pawns on rank 2:
    // 1; White's king on e1 is on the king side (e-h): 1; two pawns (one of
    // each colour) on the a-file, `?` counts both: 1; NxtSqr(h1) = a2 = 8.
    let module = asm::assemble(src).expect("assembles");
    let program = Program::new(module).expect("verifies");
    let jit = JitProgram::compile(&program).expect("compiles");
    assert_eq!(jit.stats().native_intrinsics, 7);
    let mut vm = jit.instance();
    let mut out = CollectOutput::default();
    vm.run_entry(&mut BoardHost(b), &mut out).expect("runs");
    let values: Vec<String> = out.lines.iter().map(|l| l.to_string()).collect();
    let want: Vec<String> = [1, 0, 1, 1, 1, 1, 8]
        .iter()
        .map(|v| cvm::format_value(*v))
        .collect();
    assert_eq!(values, want);
}

/// A program of `calls` `Get` intrinsics on lists of random capacities
/// (some too short for the set, which must fail alike), each count
/// written.
fn random_get_program(rng: &mut Rng, calls: usize) -> String {
    let mut lists = String::new();
    let mut body = String::new();
    for i in 0..calls {
        lists.push_str(&format!(".list l{i} {}\n", rng.pick(&[0, 1, 3, 8, 16, 64])));
        let call = match rng.below(5) {
            0 => format!("push {}\n lref l{i}\n intr GetPcOnSqrs", piece(rng)),
            1 => format!("push {}\n lref l{i}\n intr GetDblPwns", colour(rng)),
            2 => format!("push {}\n lref l{i}\n intr GetPassed", colour(rng)),
            3 => format!("push {}\n lref l{i}\n intr GetControl", piece(rng)),
            _ => format!("push {}\n lref l{i}\n intr GetExchngCtrl", colour(rng)),
        };
        body.push_str(&format!("    {call}\n    write\n"));
    }
    format!(".entry main\n{lists}.func main params 0 lists 0 locals 0 stack 4 proc\n{body}    ret\n.end\n")
}

#[test]
fn get_forms_agree_with_the_intrinsics() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for _ in 0..150 {
        let calls = 1 + rng.below(12) as usize;
        let src = random_get_program(&mut rng, calls);
        let module = asm::assemble(&src).unwrap_or_else(|e| panic!("{e}\n{src}"));
        let program = Program::new(module).expect("verifies");
        let jit = JitProgram::compile(&program).expect("compiles");
        // Every Get form with known arguments is compiled, not called.
        assert_eq!(jit.stats().native_intrinsics, calls, "{src}");
        let mut vm = jit.instance();
        let mut reference = Interpreter::new(&program);
        // Several runs on one instance: a shorter set leaves the slots
        // after its end marker as the longer one before wrote them.
        for _ in 0..6 {
            let mut host = BoardHost(random_board(&mut rng));
            let mut outs: [CollectOutput; 2] = Default::default();
            let r1 = reference.run_entry(&mut host, &mut outs[0]);
            let r2 = vm.run_entry(&mut host, &mut outs[1]);
            assert_eq!(r1, r2, "{src}");
            assert_eq!(outs[0].lines, outs[1].lines, "{src}");
            assert_eq!(reference.fuel_used(), vm.fuel_used(), "{src}");
            assert_eq!(reference.memory(), vm.memory(), "{src}");
        }
    }
}

/// Runs `main()` of Che++ program `src` on the interpreter and on Cranelift's
/// code, 50 times, each with a host that moves between `boards` random
/// boards at every host service (`HostCall(1, ...)`); the results and the
/// memory must agree, and the call must run compiled code.
fn agrees_on_a_moving_host(name: &str, src: &str, boards: usize, seed: u64) {
    let compiled = chepp::compile_str(name, src, &chepp::CompileOptions::default());
    let program = compiled.program.expect("compiles");
    let jit = JitProgram::compile(&program).expect("compiles");
    let mut rng = Rng(seed);
    for _ in 0..50 {
        let boards: Vec<BoardView> = (0..boards).map(|_| random_board(&mut rng)).collect();
        let mut interp = Interpreter::new(&program);
        let mut host = MovingHost::new(boards.clone());
        let want = interp.call_by_name("main", &[], &mut host, &mut CollectOutput::default());
        let mut vm = jit.instance();
        let mut host = MovingHost::new(boards);
        let got = vm.call_by_name("main", &[], &mut host, &mut CollectOutput::default());
        assert_eq!(got, want);
        assert!(vm.ran_compiled());
        assert_eq!(vm.memory(), interp.memory());
    }
}

/// Inline `Get` forms before and after a host service that moves the host
/// to another position see the position the interpreter sees there:
/// compiled code takes the host's board again after the service.
#[test]
fn a_host_service_that_moves_the_host_is_seen_by_inline_forms() {
    let src = "
list wn[65];
list wc[65];
function main()
var n1; var n2; var n3; var n4;
begin
  n1 := GetPcOnSqrs(wN, wn);
  n2 := GetControl(wN, wc);
  HostCall(1, 0, 0, 0);
  n3 := GetPcOnSqrs(wN, wn);
  n4 := GetControl(wN, wc);
  return ((n1 * 100 + n2) * 100 + n3) * 100 + n4;
end;
";
    agrees_on_a_moving_host("moving.che", src, 2, 0x05ee_d0fb_0a2d);
}

/// A loop whose body reads the board before a host service that moves
/// the host: every turn after the first sees the board the service moved
/// to, as on the interpreter (the board pointer is not kept across the
/// service, not even in a loop that reaches the read again).
#[test]
fn a_loop_reads_the_board_a_host_service_moved_to() {
    let src = "
list wc[65];
function main()
var i; var n;
begin
  i := 0;
  n := 0;
  while i < 5 do
    n := n * 70 + GetControl(wN, wc) + PcOnSqrs(wN, e4 d5 f3 c6);
    HostCall(1, 0, 0, 0);
    i := i + 1;
  end;
  return n;
end;
";
    agrees_on_a_moving_host("moving_loop.che", src, 3, 0x10_0b0a_4d5e);
}

/// Intrinsic calls that compiled code leaves to the shim charge what the
/// interpreter charges, however their cost is found: known when compiled
/// (constant arguments, charged in the code), from a constant list's work
/// measured beforehand (a list parameter), by reading a list the program
/// writes, or with verbose mode on; and a `CmpNrPcs` whose list is too
/// long to compile inline is charged once. Under every fuel limit from 0
/// to the whole run the result, memory, advice table and fuel agree, so
/// each charge lands on the same call.
#[test]
fn shim_calls_charge_what_the_interpreter_charges() {
    let src = "
        list ctl[65];
        procedure Squares(piece, list squares)
        begin
          SetSqrs(piece, 5, squares);
        end;
        procedure Moves(colour, list moves)
        begin
          SetMvs(colour, 7, moves);
        end;
        function main()
        var n, x;
        begin
          SetSqrs(wN, 3, e4 d4 e5 d5);
          Squares(wB, c4 f4 c5 f5);
          Squares(bQ, d1 d8 .4);
          Moves(w, e2e4 d2d4 ..f3);
          n := GetControl(wN, ctl);
          Squares(wN, ctl);
          x := CmpNrPcs(wP, >=, 1, a2 b2 c2 d2 e2 f2 g2 h2 a3 b3 c3 d3 e3 f3 g3 h3 a4 b4);
          SetVerbose(1);
          Moves(b, e7e5 ..c6);
          SetMvs(?, 2, d7d5);
          return 100 * n + x;
        end;";
    let compiled = chepp::compile_str("charges.che", src, &chepp::CompileOptions::default());
    let program = compiled.program.expect("compiles");
    let jit = JitProgram::compile(&program).expect("compiles");
    // The run's result and output lines.
    let run = |vm: &mut dyn Vm, board: BoardView| {
        let mut out = CollectOutput::default();
        let result = vm.call_by_name("main", &[], &mut BoardHost(board), &mut out);
        (result, out.lines)
    };
    let mut rng = Rng(0x0C4A_96E5);
    for _ in 0..4 {
        let board = random_board(&mut rng);
        let mut interp = Interpreter::new(&program);
        let (whole, lines) = run(&mut interp, board);
        assert!(whole.is_ok(), "{whole:?}");
        // Verbose mode reports the advice it gives.
        assert!(!lines.is_empty());
        let total = interp.fuel_used();
        for fuel in 0..=total {
            let limits = cvm::Limits {
                fuel: Some(fuel),
                ..cvm::Limits::default()
            };
            let mut interp = Interpreter::new(&program);
            interp.set_limits(limits);
            let want = run(&mut interp, board);
            let mut vm = jit.instance();
            vm.set_limits(limits);
            let got = run(&mut vm, board);
            assert_eq!(got, want, "fuel {fuel}");
            assert!(vm.ran_compiled());
            assert_eq!(vm.fuel_used(), interp.fuel_used(), "fuel {fuel}");
            assert_eq!(vm.memory(), interp.memory(), "fuel {fuel}");
            assert_eq!(vm.advice(), interp.advice(), "fuel {fuel}");
        }
    }
}
