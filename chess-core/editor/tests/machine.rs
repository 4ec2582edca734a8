//! The debugger's machine agrees with the interpreter: the same result,
//! output lines, error kind and code offset, fuel, memory and advice, on
//! every conformance case of the core and on the bundled Che++ examples
//! (plain and optimized), and on the expectations the cases state.

use che_editor::debug::Machine;
use cvm::{
    BoardView, CollectOutput, Completion, Host, HostAnswer, Interpreter, Limits, Program,
    RuntimeError, TrapKind, Vm,
};
use cvm_testkit::conformance::Case;
use std::path::Path;

/// A host with a board and the services of the conformance cases: one
/// that reports its work, one that echoes its budget, one that gives up
/// and one that fails.
struct TestHost(Option<BoardView>);

impl Host for TestHost {
    fn board(&self) -> Option<&BoardView> {
        self.0.as_ref()
    }

    fn extension_metered(
        &mut self,
        service: i32,
        [a, b, _]: [i32; 3],
        budget: u64,
    ) -> Result<HostAnswer, TrapKind> {
        Ok(match service {
            1 => HostAnswer::costing(a, u64::try_from(b).unwrap_or(0)),
            2 => HostAnswer::free(i32::try_from(budget).unwrap_or(i32::MAX)),
            3 => return Err(TrapKind::OutOfFuel),
            4 => return Err(TrapKind::Intrinsic(format!("failed after {a} units"))),
            _ => HostAnswer::free(0),
        })
    }
}

/// Everything a run leaves that a program or embedder can observe.
#[derive(Debug, PartialEq)]
struct Observed {
    result: Result<Completion, RuntimeError>,
    output: CollectOutput,
    fuel: u64,
    memory: cvm::Memory,
    advice: cvm::AdviceTable,
}

fn on_interpreter(
    program: &Program,
    func: u32,
    args: &[i32],
    limits: Limits,
    board: Option<BoardView>,
) -> Observed {
    let mut vm = Interpreter::new(program);
    vm.set_limits(limits);
    let mut output = CollectOutput::default();
    let result = vm.call(func, args, &mut TestHost(board), &mut output);
    Observed {
        result,
        output,
        fuel: vm.fuel_used(),
        memory: vm.memory().clone(),
        advice: vm.advice().clone(),
    }
}

fn on_machine(
    program: &Program,
    func: u32,
    args: &[i32],
    limits: Limits,
    board: Option<BoardView>,
) -> Observed {
    let mut m = Machine::new(program);
    m.set_limits(limits);
    let mut output = CollectOutput::default();
    let mut host = TestHost(board);
    let result = m
        .start(func, args)
        .and_then(|()| m.run_to_end(&mut host, &mut output));
    Observed {
        result,
        output,
        fuel: m.fuel_used(),
        memory: m.memory().clone(),
        advice: m.advice().clone(),
    }
}

fn conformance_cases() -> Vec<Case> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../cvm/core/tests/conformance");
    let mut cases = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .expect("the core's conformance cases")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "asm"))
        .collect();
    entries.sort();
    for path in entries {
        let text = std::fs::read_to_string(&path).expect("readable case");
        let name = path.display().to_string();
        cases.push(Case::parse(&name, &text).expect("a valid case"));
    }
    cases
}

#[test]
fn conformance_cases_agree_with_the_interpreter_and_their_expectations() {
    let cases = conformance_cases();
    assert!(cases.len() > 20, "only {} cases found", cases.len());
    for case in &cases {
        let program = Program::new(case.module.clone()).expect("verifies");
        let module = program.module();
        let func = match &case.func {
            Some(name) => module.function_index(name).expect("the case's function"),
            None => module
                .entry
                .or_else(|| module.function_index("main"))
                .expect("an entry point"),
        };
        let interp = on_interpreter(&program, func, &case.args, case.limits, case.board);
        let machine = on_machine(&program, func, &case.args, case.limits, case.board);
        assert_eq!(machine, interp, "{}", case.name);
        match (&case.expect.error, &machine.result) {
            (Some((kind, offset)), Err(e)) => {
                assert_eq!(
                    (cvm_testkit::conformance::kind_name(&e.kind), e.offset),
                    (kind.as_str(), *offset),
                    "{}",
                    case.name
                );
            }
            (None, Ok(done)) => assert_eq!(Some(*done), case.expect.completion, "{}", case.name),
            (expected, got) => panic!("{}: expected {expected:?}, got {got:?}", case.name),
        }
        assert_eq!(
            machine.output.lines, case.expect.output,
            "{}: output",
            case.name
        );
    }
}

#[test]
fn bundled_examples_agree_with_the_interpreter_plain_and_optimized() {
    let fens = [
        chess_core::STARTPOS_FEN,
        "r1bqk2r/pp2bppp/2nppn2/8/3NP3/2N1B3/PPPQ1PPP/R3KB1R w KQkq - 2 8",
        "8/5k2/8/3P4/8/8/5K2/8 w - - 0 1",
    ];
    let mut runs = 0;
    {
        let name = chepp::examples::MAIN;
        let compiled = chepp::compile_with(
            &chepp::examples::loader(),
            Path::new(name),
            &chepp::CompileOptions::default(),
        );
        assert!(compiled.is_ok(), "{}", compiled.render_diagnostics());
        let plain = compiled.program.expect("the example compiles");
        let optimized = cvm::opt::optimize(&plain).0;
        for program in [&plain, &optimized] {
            let entry = program.module().entry.expect("main");
            for fen in fens {
                let board = BoardView::from_fen(fen).ok();
                let a = on_interpreter(program, entry, &[], Limits::default(), board);
                let b = on_machine(program, entry, &[], Limits::default(), board);
                assert_eq!(b, a, "{name} on {fen}");
                runs += 1;
            }
        }
    }
    assert_eq!(runs, 6, "{runs} runs");
}

#[test]
fn fuel_and_depth_limits_stop_at_the_interpreters_offset() {
    let source = "
function f(n)
begin
  if n = 0 then return 0; end;
  return 1 + f(n - 1);
end;
procedure main()
var i, s;
begin
  s := 0;
  i := 1;
  while i <= 50 do s := s + f(i); write s; i := i + 1; end;
end;
";
    let compiled = chepp::compile_str("limits.che", source, &chepp::CompileOptions::default());
    assert!(compiled.is_ok(), "{}", compiled.render_diagnostics());
    let plain = compiled.program.expect("compiles");
    let optimized = cvm::opt::optimize(&plain).0;
    for program in [&plain, &optimized] {
        let entry = program.module().entry.expect("main");
        for fuel in [0, 1, 5, 17, 100, 333, 1000, 5000] {
            for depth in [3, 10, 40, 1000] {
                let limits = Limits {
                    fuel: Some(fuel),
                    max_depth: depth,
                };
                let a = on_interpreter(program, entry, &[], limits, None);
                let b = on_machine(program, entry, &[], limits, None);
                assert_eq!(b, a, "fuel {fuel} depth {depth}");
            }
        }
    }
}

#[test]
fn the_che_example_agrees_with_the_interpreter() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../cvm/che3/examples/french.che3");
    let compiled = che3::compile_file(&path, &che3::CompileOptions::default());
    assert!(compiled.is_ok(), "{}", compiled.render_diagnostics());
    let plain = compiled.program.expect("compiles");
    let optimized = cvm::opt::optimize(&plain).0;
    let french = "rnbqkbnr/ppp2ppp/4p3/3pP3/3P4/8/PPP2PPP/RNBQKBNR b KQkq - 0 3";
    for program in [&plain, &optimized] {
        let entry = program.module().entry.expect("main");
        for fen in [chess_core::STARTPOS_FEN, french] {
            let board = BoardView::from_fen(fen).ok();
            let a = on_interpreter(program, entry, &[], Limits::default(), board);
            let b = on_machine(program, entry, &[], Limits::default(), board);
            assert_eq!(b, a, "french.che3 on {fen}");
        }
    }
}

/// A CHEG program's run on `position` through its runtime: the result,
/// the report and the output, on the interpreter or the machine.
fn cheg_run(
    program: &Program,
    ast: &cheg::ast::Program,
    position: chess_core::Position,
    machine: bool,
) -> (
    Result<Completion, RuntimeError>,
    cheg::Report,
    CollectOutput,
) {
    let mut searcher = cheg::search::FixedDepth { depth: 1 };
    let mut host = cheg::ChegHost::new(ast, position, &mut searcher);
    host.set_context(1, None);
    let mut out = CollectOutput::default();
    let result = if machine {
        let mut m = Machine::new(program);
        m.start_entry()
            .and_then(|()| m.run_to_end(&mut host, &mut out))
    } else {
        Interpreter::new(program).run_entry(&mut host, &mut out)
    };
    (result, host.into_report(), out)
}

#[test]
fn the_shipped_cheg_programs_agree_with_the_interpreter() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../engine/endgames");
    // Positions each program's ENTRY lines match, both sides to move.
    // (kbnk.cheg is completed by kbnk_tables.cheg, which the engine appends.)
    let programs: [(&str, &[&str]); 4] = [
        (
            "kqk",
            &[
                "8/8/8/4k3/8/8/3QK3/8",
                "k7/8/1K6/8/8/8/8/6Q1",
                "7k/8/8/8/8/8/Q7/K7",
            ],
        ),
        ("krk", &["8/8/8/4k3/8/8/3RK3/8", "k7/8/1K6/8/8/8/8/7R"]),
        (
            "kpk",
            &[
                "8/8/8/4k3/8/8/3PK3/8",
                "8/8/8/8/8/k7/P7/K7",
                "4k3/8/4K3/4P3/8/8/8/8",
            ],
        ),
        (
            "kpkp",
            &["8/3p4/8/4k3/8/8/3PK3/8", "8/8/2k5/2p5/2P5/2K5/8/8"],
        ),
    ];
    let mut runs = 0;
    for (name, boards) in programs {
        let compiled = cheg::compile_file(&dir.join(format!("{name}.cheg")));
        assert!(compiled.is_ok(), "{}", compiled.render_diagnostics());
        let ast = cheg::checked(&compiled).cloned().expect("the program");
        let plain = compiled.program.clone().expect("a program");
        let optimized = cvm::opt::optimize(&plain).0;
        for program in [&plain, &optimized] {
            for board in boards {
                for side in ["w", "b"] {
                    let fen = format!("{board} {side} - - 0 1");
                    let position = chess_core::Position::from_fen(&fen).expect("fen");
                    let a = cheg_run(program, &ast, position, false);
                    let b = cheg_run(program, &ast, position, true);
                    assert_eq!(b, a, "{name}.cheg on {fen}");
                    assert!(
                        a.1.chosen.is_some() || a.1.value.is_some() || a.0.is_err(),
                        "{name}.cheg decided nothing on {fen}: {a:?}"
                    );
                    runs += 1;
                }
            }
            // No ENTRY matches the initial position.
            let start = chess_core::Position::from_fen(chess_core::STARTPOS_FEN).expect("fen");
            let a = cheg_run(program, &ast, start, false);
            assert_eq!(cheg_run(program, &ast, start, true), a, "{name}.cheg");
        }
    }
    assert_eq!(runs, 40);
}
