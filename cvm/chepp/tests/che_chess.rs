//! Che++ programs that call the chess intrinsics: the `NxtSqr`/`PrvSqr`
//! loops of section IV.3.b, the `Get...Sqrs` examples, the standard
//! library's game phases, the example program (`shanny.che` with its
//! middlegame and endgame files) on hand-made positions, and the golden
//! diagnostics of chess calls (`tests/che/diag_chess/`). Expected values
//! come from the document and from the positions, worked out by hand.

use chepp::{compile_str, compile_with, examples, CompileOptions, MemLoader};
use cvm::Vm;
use cvm::{CollectOutput, Host, Interpreter, Limits, Program, RuntimeError, TrapKind};
use cvm_chess::board::{kind, BoardView, BLACK, WHITE};
use cvm_chess::lit::parse_square;
use std::path::Path;

/// A host holding a board given by the piece-placement field of a FEN.
struct Board(BoardView);

impl Host for Board {
    fn board(&self) -> Option<&BoardView> {
        Some(&self.0)
    }
}

fn board(placement: &str) -> Board {
    let mut view = BoardView::EMPTY;
    for (i, row) in placement.split('/').enumerate() {
        let rank = 7 - i as u32;
        let mut file = 0u32;
        for c in row.chars() {
            if let Some(d) = c.to_digit(10) {
                file += d;
                continue;
            }
            let colour = if c.is_ascii_uppercase() { WHITE } else { BLACK };
            let k = match c.to_ascii_lowercase() {
                'p' => kind::PAWN,
                'n' => kind::KNIGHT,
                'b' => kind::BISHOP,
                'r' => kind::ROOK,
                'q' => kind::QUEEN,
                _ => kind::KING,
            };
            view.pieces[colour][k] |= 1u64 << (rank * 8 + file);
            file += 1;
        }
    }
    Board(view)
}

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";

fn sq(s: &str) -> i32 {
    parse_square(s).unwrap()
}

struct Run {
    lines: Vec<String>,
    values: Vec<i32>,
    advice: Box<cvm_chess::advice_table::AdviceTable>,
}

fn run_on(src: &str, placement: &str, fuel: Option<u64>) -> Result<Run, RuntimeError> {
    let c = compile_str("chess.che", src, &CompileOptions::default());
    let program = c
        .program
        .clone()
        .unwrap_or_else(|| panic!("compile errors:\n{}", c.render_diagnostics()));
    run_module(program, placement, fuel)
}

fn run_module(program: Program, placement: &str, fuel: Option<u64>) -> Result<Run, RuntimeError> {
    let mut vm = Interpreter::new(&program);
    vm.set_limits(Limits {
        fuel,
        ..Limits::default()
    });
    let mut out = CollectOutput::default();
    vm.run_entry(&mut board(placement), &mut out)?;
    let lines: Vec<String> = out.lines.iter().map(|l| l.to_string()).collect();
    let values = lines
        .iter()
        .filter_map(|l| l.split(' ').next()?.parse().ok())
        .collect();
    Ok(Run {
        lines,
        values,
        advice: Box::new(vm.advice().clone()),
    })
}

fn values(src: &str) -> Vec<i32> {
    run_on(src, START, None)
        .unwrap_or_else(|e| panic!("{e}"))
        .values
}

#[test]
fn nxtsqr_loop_visits_every_square_after_a1() {
    let src = "include stdlib.che
procedure main()
var sqr;
begin
sqr:=a1;
while (sqr:=NxtSqr(sqr))<> CHE_INVSQR do
write sqr;
end;
end;";
    let v = values(src);
    assert_eq!(v.len(), 63);
    assert_eq!(v[0], sq("b1"));
    assert_eq!(v[6], sq("h1"));
    assert_eq!(v[7], sq("a2"), "NxtSqr(h1) is a2");
    assert_eq!(v[62], sq("h8"));
}

#[test]
fn prvsqr_loop_as_written_has_an_unbalanced_parenthesis() {
    let as_written = "include stdlib.che
procedure main()
var sqr;
begin
sqr:=h8;
while ((sqr:=PrvSqr(sqr)) <> CHE_INVSQR do
write sqr;
end;
end;";
    let c = compile_str("prv.che", as_written, &CompileOptions::default());
    let errs: Vec<String> = c.errors().map(|d| d.headline(&c.sources)).collect();
    assert_eq!(
        errs,
        vec!["prv.che:6:41: error: expected `)`, found keyword `do`"]
    );
    let fixed = as_written.replace("while ((sqr", "while (sqr");
    let v = values(&fixed);
    assert_eq!(v.len(), 63);
    assert_eq!((v[0], v[62]), (sq("g8"), sq("a1")));
}

#[test]
fn nxtsqr_loop_without_parentheses_never_ends() {
    // The document: without the parentheses `<>` binds first, sqr gets
    // the comparison's 1 each time and the loop never ends.
    let src = "include stdlib.che
procedure main()
var sqr;
begin
sqr:=a1;
while sqr:=NxtSqr(sqr)<> CHE_INVSQR do
end;
end;";
    let err = run_on(src, START, Some(10_000))
        .err()
        .expect("runs out of fuel");
    assert_eq!(err.kind, TrapKind::OutOfFuel);
}

#[test]
fn square_functions_of_section_iv3() {
    let src = "include stdlib.che
list sqrlist;
procedure main()
begin
  write NxtSqr(h1); write NxtSqr(a.); write NxtSqr(.7);
  write NxtSqr(..) = CHE_INVSQR; write NxtSqr(h8) = CHE_INVSQR;
  write NxtSqr(h.) = CHE_INVSQR; write NxtSqr(.8) = CHE_INVSQR;
  write GetLSqrs(c4,sqrlist); write sqrlist[0]; write sqrlist[1]; write sqrlist[2]; write sqrlist[3];
  write GetRSqrs(h1,sqrlist); write sqrlist[0];
  write GetDwnSqrs(e4,sqrlist); write sqrlist[3];
  write GetUpSqrs(e4,sqrlist); write sqrlist[4];
  write ListLen(sqrlist);
end;";
    assert_eq!(
        values(src),
        vec![
            sq("a2"),
            sq("b."),
            sq(".8"),
            1,
            1,
            1,
            1,
            3,
            sq("c4"),
            sq("b4"),
            sq("a4"),
            -1,
            1,
            sq("h1"),
            4,
            sq("e1"),
            5,
            sq("e8"),
            5
        ]
    );
}

#[test]
fn pattern_examples_on_the_initial_position() {
    let src = "include stdlib.che
list ksidelist[3];
procedure main()
begin
  write PcOnSqrs(wP,e2 d2);
  write PcOnSqrs(wP,e4 d2);
  write orPcOnSqrs(wP,e4 d2);
  write PcOnSqrs(?O,..);
  write !PcOnSqrs(??,.7);
  write CmpNrPcs(wP,>=,2,c.);
  write CmpNrPcs(??,<=,4,..);
  write CmpNrPcs(?Q,>=,1,..) and CmpNrPcs(?O,>,4,..);
  write ListLen(e2 e3);
end;";
    assert_eq!(values(src), vec![1, 0, 1, 1, 0, 0, 0, 1, 2]);
}

#[test]
fn stdlib_game_phases() {
    let src = "include stdlib.che
procedure main()
begin
  write GamePhase();
  write IsPwnEndGame();
end;";
    let phase = |placement: &str| run_on(src, placement, None).unwrap().values;
    assert_eq!(phase(START), vec![0, 0], "MIDGAME");
    assert_eq!(phase("4k3/8/8/8/8/8/4P3/4K3"), vec![3, 1], "PAWNENDGAME");
    assert_eq!(
        phase("4k3/r7/8/8/8/8/4P3/4K2R"),
        vec![2, 0],
        "LATEENDGAME: two rooks"
    );
    assert_eq!(
        phase("3nk3/r7/8/8/8/8/4P3/3BK2R"),
        vec![1, 0],
        "ENDGAME: four officers, no queen"
    );
}

#[test]
fn stdlib_list_helpers() {
    let src = "include stdlib.che
list src := 1 2 3;
list dst[8];
procedure main()
begin
  CopyList(dst, src);
  write ListLen(dst);
  AppendList(dst, 7 8);
  write ListLen(dst); write dst[4];
  write InList(8, dst); write InList(9, dst);
  write IsEmptyList(dst);
  ClearList(dst);
  write IsEmptyList(dst);
  write OtherColour(w) = b; write OtherColour(b) = w;
end;";
    assert_eq!(values(src), vec![3, 5, 8, 1, 0, 0, 1, 1, 1]);
}

const COLLE: &str = "r1bqkb1r/pp3ppp/2n1pn2/2pp4/3P4/2PBPN2/PP3PPP/RNBQK2R";

fn compile_example() -> Program {
    let c = compile_with(
        &examples::loader(),
        Path::new(examples::MAIN),
        &CompileOptions::default(),
    );
    assert!(c.diagnostics.is_empty(), "{}", c.render_diagnostics());
    c.program.unwrap()
}

#[test]
fn example_program_detects_the_colle_system() {
    let r = run_module(compile_example(), COLLE, None).unwrap();
    assert_eq!(r.lines, vec!["white Colle Position"]);
    let bishop = &r.advice.square_bonus[WHITE][kind::BISHOP];
    for s in ["d3", "e4", "f5", "g6", "h7"] {
        assert_eq!(bishop[sq(s) as usize], 30, "SetDiags(wB,30,d3h7) on {s}");
    }
    assert_eq!(bishop[sq("c2") as usize], 0);
    let queen = &r.advice.square_bonus[WHITE][kind::QUEEN];
    assert_eq!(
        (queen[sq("c2") as usize], queen[sq("e2") as usize]),
        (20, 20)
    );
}

#[test]
fn example_program_gives_opening_advice_only_in_the_opening() {
    let r = run_module(compile_example(), START, None).unwrap();
    assert!(r.lines.is_empty());
    let white = &r.advice.move_bonus[WHITE];
    assert_eq!(white[sq("e2") as usize][sq("e4") as usize], 20);
    assert_eq!(white[sq("d2") as usize][sq("d4") as usize], 20);
    assert_eq!(
        white[sq("d1") as usize][sq("d3") as usize],
        -20,
        "SetMvs(w,-20,d1..)"
    );
    let colle = run_module(compile_example(), COLLE, None).unwrap();
    assert_eq!(
        colle.advice.move_bonus[WHITE][sq("e2") as usize][sq("e4") as usize],
        0
    );
}

#[test]
fn example_program_puts_rooks_behind_passed_pawns() {
    // White passed pawn on e6, rooks on h1 and a2: a late endgame. The six
    // squares e1..e6 get 6 * 5 = 30 for rooks of both colours (?R).
    let r = run_module(compile_example(), "4k3/8/4P3/8/8/8/r7/4K2R", None).unwrap();
    for colour in [WHITE, BLACK] {
        let rook = &r.advice.square_bonus[colour][kind::ROOK];
        for s in ["e1", "e2", "e3", "e4", "e5", "e6"] {
            assert_eq!(rook[sq(s) as usize], 30, "rook on {s}");
        }
        assert_eq!(rook[sq("e7") as usize], 0);
        assert_eq!(
            r.advice.square_bonus[colour][kind::KING][sq("d4") as usize],
            20
        );
    }
    // A black passed pawn on c3 adds GetUpSqrs(c3) = c3..c8, 6 squares.
    let r = run_module(compile_example(), "4k3/8/4P3/8/8/2p5/r7/4K2R", None).unwrap();
    assert_eq!(
        r.advice.square_bonus[WHITE][kind::ROOK][sq("c8") as usize],
        30
    );
    assert_eq!(
        r.advice.square_bonus[BLACK][kind::ROOK][sq("c3") as usize],
        30
    );
}

#[test]
fn golden_chess_diagnostics() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/che/diag_chess");
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    let mut failures = Vec::new();
    for path in entries
        .iter()
        .filter(|p| p.extension().and_then(|e| e.to_str()) == Some("che"))
    {
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        let source = std::fs::read_to_string(path).unwrap();
        let expected = std::fs::read_to_string(path.with_extension("stderr")).unwrap();
        let loader = MemLoader::with(&[(name.as_str(), source.as_str())]);
        let c = compile_with(&loader, Path::new(&name), &CompileOptions::default());
        let actual = c.render_diagnostics();
        if actual != expected {
            failures.push(format!(
                "=== {name}: expected\n{expected}=== actual\n{actual}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
