//! Intrinsic calls whose arguments the interpreter's translation knows: a
//! charge fixed by constant arguments, a `Get` form computing and writing
//! its squares itself, `KingPos` on a constant list of board sides as one
//! mask test, a pattern on a constant list folded into one mask (by the
//! translation, or by the optimizer as `pat.all`/`pat.any`). On boards of every kind, the form that runs and the plain
//! form of profiled runs (every charge worked out as the call runs) agree
//! on the result, the error and its code offset, the fuel spent and the
//! memory, under fuel limits around every charge; and when the embedder
//! changes a list a charge or a test was worked out from, calls follow the
//! list's new contents until a reset.

mod support;

use cvm::{asm, Host, Interpreter, Limits, Program, Vm};
use cvm_chess::board::BoardView;
use cvm_chess::lit;
use cvm_testkit::hosts::MovingHost;
use proptest::prelude::*;

struct BoardHost(BoardView);

impl Host for BoardHost {
    fn board(&self) -> Option<&BoardView> {
        Some(&self.0)
    }
}

/// Everything a call of `main()` on `vm` shows on `board`, as text.
fn call(vm: &mut Interpreter<'_>, board: &BoardView, profiled: bool) -> String {
    support::account(vm, &mut BoardHost(*board), profiled)
}

fn run(program: &Program, board: &BoardView, fuel: Option<u64>, profiled: bool) -> String {
    let mut vm = Interpreter::new(program);
    vm.set_limits(Limits {
        fuel,
        ..Limits::default()
    });
    call(&mut vm, board, profiled)
}

/// Runs `source` on both forms on `board`, unlimited and under fuel limits
/// around what it spends (every limit for short runs); returns the
/// unlimited run's account.
fn agree(source: &str, board: &BoardView) -> String {
    let module = asm::assemble(source).unwrap_or_else(|e| panic!("{e}\n{source}"));
    let program = Program::new(module).unwrap_or_else(|e| panic!("{e}\n{source}"));
    let fast = run(&program, board, None, false);
    assert_eq!(
        fast,
        run(&program, board, None, true),
        "unlimited\n{source}"
    );
    let mut vm = Interpreter::new(&program);
    let _ = call(&mut vm, board, false);
    let spent = vm.fuel_used();
    let limits: Vec<u64> = if spent <= 200 {
        (0..=spent).collect()
    } else {
        let mut l: Vec<u64> = (0..40).chain(spent - 40..=spent).collect();
        l.extend((40..spent - 40).step_by(97));
        l
    };
    for fuel in limits {
        assert_eq!(
            run(&program, board, Some(fuel), false),
            run(&program, board, Some(fuel), true),
            "fuel {fuel}\n{source}"
        );
    }
    fast
}

fn piece(name: &str) -> i32 {
    lit::parse_piece(name).expect("piece")
}

fn side(name: &str) -> i32 {
    let i = lit::SIDE_NAMES
        .iter()
        .position(|&s| s == name)
        .expect("side");
    lit::SIDE_BASE + i as i32
}

fn square(name: &str) -> i32 {
    lit::parse_square(name).expect("square")
}

/// A `Get` call of `name` on `arg` into a list of `capacity`, then a
/// second call into the same list, the two counts summed.
fn get_program(name: &str, arg: i32, capacity: u32, second: i32) -> String {
    format!(
        ".list out {capacity}
.func main params 0 lists 0 locals 0 stack 3 value
    push {arg}
    lref out
    intr {name}
    push {second}
    lref out
    intr {name}
    add
    retv
.end
"
    )
}

/// `name` (`KingPos`, `orKingPos`) of `colour` on a constant list of
/// `elements`, then `PcOnSqrs` of a white pawn on a constant square list
/// (a charge that reads the list's contents), the answers summed.
fn king_program(name: &str, colour: i32, elements: &[i32], squares: &[i32]) -> String {
    let list = |v: &[i32]| {
        let mut s: Vec<String> = v.iter().map(i32::to_string).collect();
        s.push("-1".into());
        s.join(" ")
    };
    format!(
        ".list sides {} = {}
.list sq {} = {}
.func main params 0 lists 0 locals 0 stack 3 value
    push {colour}
    lref sides
    intr {name}
    push {}
    lref sq
    intr PcOnSqrs
    add
    retv
.end
",
        elements.len() + 2,
        list(elements),
        squares.len().max(14) + 2,
        list(squares),
        piece("wP"),
    )
}

/// Pattern `name` of `arg` on a constant list of `elements`, twice (the
/// second time of `second`), the answers summed: the translation folds
/// such a list into one mask when the folded form means and charges the
/// same (`cvm::intrinsics::fold_mask`), and calls the intrinsic otherwise.
fn pattern_program(name: &str, arg: i32, second: i32, elements: &[i32]) -> String {
    let mut list: Vec<String> = elements.iter().map(i32::to_string).collect();
    list.push("-1".into());
    format!(
        ".list sq {} = {}
.func main params 0 lists 0 locals 0 stack 3 value
    push {arg}
    lref sq
    intr {name}
    push {second}
    lref sq
    intr {name}
    add
    retv
.end
",
        elements.len() + 1,
        list.join(" "),
    )
}

/// The optimizer's folded form of pattern `name`, `pat.all` or `pat.any`
/// (`any`) on `mask`, of `arg` pushed as a constant and of `second` read
/// from a local (a value the translation does not know), the answers
/// summed.
fn folded_program(name: &str, any: bool, mask: u64, arg: i32, second: i32) -> String {
    let op = if any { "pat.any" } else { "pat.all" };
    let (lo, hi) = (mask as u32 as i32, (mask >> 32) as u32 as i32);
    format!(
        ".func main params 0 lists 0 locals 1 stack 3 value
    push {second}
    stl 0
    push {arg}
    {op} {name} {lo} {hi}
    ldl 0
    {op} {name} {lo} {hi}
    add
    retv
.end
"
    )
}

/// Boards of every kind: the start, a middlegame, an ending, and piece
/// sets that overlap, with several kings or none.
fn boards() -> impl Strategy<Value = BoardView> {
    let fens = [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP2BPPP/R2QKB1R w KQ - 0 8",
        "8/5pk1/6p1/1P6/P7/6PK/8/8 b - - 0 50",
        "6k1/5ppp/8/8/8/8/5PPP/6K1 w - - 0 1",
    ];
    let known = prop::sample::select(
        fens.iter()
            .map(|f| BoardView::from_fen(f).expect("fen"))
            .collect::<Vec<_>>(),
    );
    let random = prop::array::uniform12(any::<u64>()).prop_map(|sets| {
        let mut b = BoardView::EMPTY;
        for (i, s) in sets.iter().enumerate() {
            b.pieces[i / 6][i % 6] = if i % 2 == 0 {
                s & s.rotate_left(17) & s.rotate_left(31)
            } else {
                *s
            };
        }
        b
    });
    prop_oneof![known, random]
}

/// The pattern intrinsics with a folded form (`pat.all`/`pat.any`).
const FOLDED_PATTERNS: [&str; 10] = [
    "PcOnSqrs",
    "orPcOnSqrs",
    "DblPwns",
    "orDblPwns",
    "Passed",
    "orPassed",
    "Control",
    "orControl",
    "ExchngCtrl",
    "orExchngCtrl",
];

/// Scalar arguments: colours, pieces, wildcards and invalid values.
fn scalar() -> impl Strategy<Value = i32> {
    prop_oneof![
        Just(lit::WHITE),
        Just(lit::BLACK),
        Just(lit::ANY_COLOUR),
        Just(3),
        Just(-1),
        prop::sample::select(vec![
            "wP", "bP", "wN", "bN", "wK", "bK", "w?", "?Q", "bO", "??"
        ])
        .prop_map(piece),
        Just(lit::PIECE_BASE - 1),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn get_forms_agree_with_the_plain_form(
        board in boards(),
        name in prop::sample::select(vec![
            "GetPcOnSqrs", "GetDblPwns", "GetPassed", "GetControl", "GetExchngCtrl",
        ]),
        arg in scalar(),
        second in scalar(),
        capacity in prop::sample::select(vec![0u32, 1, 3, 5, 6, 8, 63, 64]),
    ) {
        agree(&get_program(name, arg, capacity, second), &board);
    }

    #[test]
    fn king_tests_on_constant_lists_agree_with_the_plain_form(
        board in boards(),
        name in prop::sample::select(vec!["KingPos", "orKingPos"]),
        colour in prop_oneof![Just(0), Just(1), Just(2), Just(5)],
        elements in prop::collection::vec(
            prop_oneof![
                prop::sample::select(vec!["kside", "qside", "centre", "kkside", "qqside"])
                    .prop_map(side),
                Just(lit::SIDE_BASE + 5),
                Just(7),
            ],
            0..4,
        ),
        squares in prop::collection::vec(0..81i32, 0..5),
    ) {
        agree(&king_program(name, colour, &elements, &squares), &board);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn folded_patterns_agree_with_the_plain_form(
        board in boards(),
        name in prop::sample::select(FOLDED_PATTERNS.to_vec()),
        any in any::<bool>(),
        mask in prop_oneof![any::<u64>(), (0..64u32).prop_map(|s| 1u64 << s), Just(0u64)],
        arg in scalar(),
        second in scalar(),
    ) {
        agree(&folded_program(name, any, mask, arg, second), &board);
    }

    #[test]
    fn patterns_on_constant_lists_agree_with_the_plain_form(
        board in boards(),
        name in prop::sample::select(FOLDED_PATTERNS.to_vec()),
        arg in scalar(),
        second in scalar(),
        // Concrete squares, wildcard squares (files, ranks, `??`) and
        // values that are no square; up to ten, so that some lists cost
        // more to scan than their folded form and are not folded.
        elements in prop::collection::vec(
            prop_oneof![4 => 0..64i32, 2 => 64..81i32, 1 => Just(-5), 1 => Just(200)],
            0..10,
        ),
    ) {
        agree(&pattern_program(name, arg, second, &elements), &board);
    }
}

#[test]
fn folded_patterns_give_the_documented_answers() {
    // White pawns on f2 g2 h2, a white king on g1, black king on g8.
    let board = BoardView::from_fen("6k1/8/8/8/8/8/5PPP/6K1 w - - 0 1").expect("fen");
    let squares = |names: &[&str]| -> Vec<i32> { names.iter().map(|n| square(n)).collect() };
    let wp = piece("wP");
    // Every listed square holds a white pawn: 1 + 1.
    let home = squares(&["f2", "g2", "h2"]);
    let got = agree(&pattern_program("PcOnSqrs", wp, wp, &home), &board);
    assert!(got.starts_with("Returned(Some(2))"), "{got}");
    // Not every one: 0; but one of them: 1 + 1 for the or form.
    let some = squares(&["f2", "e2"]);
    let got = agree(&pattern_program("PcOnSqrs", wp, wp, &some), &board);
    assert!(got.starts_with("Returned(Some(0))"), "{got}");
    let got = agree(&pattern_program("orPcOnSqrs", wp, wp, &some), &board);
    assert!(got.starts_with("Returned(Some(2))"), "{got}");
    // An invalid piece is false in both forms.
    let got = agree(&pattern_program("PcOnSqrs", -1, wp, &home), &board);
    assert!(got.starts_with("Returned(Some(1))"), "{got}");
}

#[test]
fn a_get_form_reached_by_a_jump() {
    let board = BoardView::from_fen("4k3/8/8/8/8/8/8/1N2K1N1 w - - 0 1").expect("fen");
    // The first call is a jump target: its list reference may come from
    // any path that jumps there, so it is called as written.
    let r = agree(
        &format!(
            ".list out 8
.list other 8
.func main params 0 lists 0 locals 0 stack 3 value
    push {wn}
    lref out
    jmp L1
L1:
    intr GetControl
    push {wn}
    lref other
    intr GetControl
    add
    retv
.end
",
            wn = piece("wN")
        ),
        &board,
    );
    assert!(r.starts_with("Returned(Some(12))"), "{r}");
}

#[test]
fn a_get_form_into_a_list_too_short_traps_and_writes_nothing() {
    let board = BoardView::from_fen("4k3/8/8/8/8/8/8/1N2K1N1 w - - 0 1").expect("fen");
    let r = agree(&get_program("GetControl", piece("wN"), 3, 0), &board);
    assert!(
        r.starts_with("ListOverflow { needed: 6, capacity: 3 }"),
        "{r}"
    );
    assert!(r.contains("heap: [-1, -1, -1, -1]"), "{r}");
}

#[test]
fn a_get_form_fills_a_list_exactly_to_its_capacity() {
    // Six squares for the white knights, two passed pawns for White: the
    // forms that compute these sets in place check the list's room like
    // the intrinsic, one square short traps, an exact fit fills.
    let board = BoardView::from_fen("4k3/8/8/8/8/8/P6P/1N2K1N1 w - - 0 1").expect("fen");
    let cases = [
        ("GetControl", piece("wN"), 6u32),
        ("GetControl", piece("?N"), 6),
        ("GetPassed", lit::WHITE, 2),
    ];
    for (name, arg, squares) in cases {
        let fits = agree(&get_program(name, arg, squares, -1), &board);
        assert!(
            fits.starts_with(&format!("Returned(Some({squares}))")),
            "{name}: {fits}"
        );
        let short = agree(&get_program(name, arg, squares - 1, -1), &board);
        let trap = format!(
            "ListOverflow {{ needed: {squares}, capacity: {} }}",
            squares - 1
        );
        assert!(short.starts_with(&trap), "{name}: {short}");
    }
}

#[test]
fn calls_follow_a_constant_list_the_embedder_changed() {
    let source = king_program(
        "KingPos",
        lit::WHITE,
        &[side("kside")],
        &[square("f2"), square("g2")],
    );
    let program = Program::new(asm::assemble(&source).expect("asm")).expect("verify");
    let board = BoardView::from_fen("6k1/5ppp/8/8/8/8/5PPP/6K1 w - - 0 1").expect("fen");
    let mut vm = Interpreter::new(&program);
    let before = call(&mut vm, &board, false);
    assert!(before.starts_with("Returned(Some(2))"), "{before}");
    // The king's side and the pawn squares change, and the squares grow
    // (the charge of `PcOnSqrs` reads them).
    let change = |vm: &mut Interpreter<'_>| {
        let memory = vm.memory_mut();
        memory.fill_list(0, &[side("qside")]).expect("sides");
        memory
            .fill_list(1, &[square("f2"), square("g2"), square("h2")].repeat(4))
            .expect("squares");
    };
    change(&mut vm);
    let after = call(&mut vm, &board, false);
    let mut plain = Interpreter::new(&program);
    change(&mut plain);
    assert_eq!(after, call(&mut plain, &board, true));
    assert!(after.starts_with("Returned(Some(1))"), "{after}");
    assert_ne!(fuel_of(&before), fuel_of(&after));
    // Back to the initial memory: the first account again.
    vm.reset();
    assert_eq!(call(&mut vm, &board, false), before);
}

fn fuel_of(account: &str) -> &str {
    account
        .split("; ")
        .find(|p| p.starts_with("fuel"))
        .unwrap_or("")
}

#[test]
fn king_tests_give_the_documented_answers() {
    // White king on g1, black king on g8.
    let board = BoardView::from_fen("6k1/5ppp/8/8/8/8/5PPP/6K1 w - - 0 1").expect("fen");
    let s = side;
    let cases: [(&str, i32, Vec<i32>, i32); 10] = [
        ("KingPos", lit::WHITE, vec![s("kside"), s("kkside")], 1),
        ("KingPos", lit::WHITE, vec![s("kside"), s("qside")], 0),
        ("KingPos", lit::WHITE, vec![s("kside"), s("centre")], 0),
        ("KingPos", lit::ANY_COLOUR, vec![s("kkside")], 1),
        ("KingPos", lit::BLACK, vec![s("qside")], 0),
        ("KingPos", lit::WHITE, vec![], 1),
        ("KingPos", lit::WHITE, vec![s("kside"), 7], 0),
        ("KingPos", 5, vec![s("kside")], 0),
        ("orKingPos", lit::WHITE, vec![s("kside"), s("kside")], 1),
        ("orKingPos", lit::WHITE, vec![s("qside"), s("kkside")], 1),
    ];
    for (name, colour, elements, answer) in cases {
        // `PcOnSqrs` of an empty list holds: one more.
        let r = agree(&king_program(name, colour, &elements, &[]), &board);
        let want = format!("Returned(Some({}))", answer + 1);
        assert!(r.starts_with(&want), "{name} {colour} {elements:?}: {r}");
    }
}

#[test]
fn a_changed_memory_layout_is_refused_until_a_reset() {
    let source = get_program("GetPassed", lit::WHITE, 8, lit::BLACK);
    let program = Program::new(asm::assemble(&source).expect("asm")).expect("verify");
    let board = BoardView::from_fen("8/5pk1/6p1/1P6/P7/6PK/8/8 b - - 0 50").expect("fen");
    let mut vm = Interpreter::new(&program);
    let first = call(&mut vm, &board, false);
    for change in [
        |m: &mut cvm::Memory| m.heap.push(0),
        |m: &mut cvm::Memory| m.lists.clear(),
        |m: &mut cvm::Memory| m.heap.clear(),
    ] {
        change(vm.memory_mut());
        for _ in 0..2 {
            let refused = call(&mut vm, &board, false);
            assert!(refused.starts_with("BadCall"), "{refused}");
        }
        vm.reset();
        assert_eq!(call(&mut vm, &board, false), first);
    }
}

/// `f(p)` stores `..` (every square) into `p[1]`, over the end marker
/// of `sq`, whose one square grows to 65, and then gives the white pawns a
/// bonus on `sq`'s squares: the charge of `SetSqrs` reads the squares, and
/// the fast form works it out from `sq`'s initial contents.
fn writes_through_a_parameter() -> String {
    format!(
        "
.list sq 3 = 28
.func f params 0 lists 1 locals 1 stack 3 value
.slots p i
    incl i
    push {wild}
    stx.l p i
    push 512
    push 5
    lref sq
    intr SetSqrs
    push 512
    lref sq
    intr orPcOnSqrs
    retv
.end
",
        wild = square("..")
    )
}

#[test]
fn a_call_that_writes_a_constant_list_through_a_parameter_charges_what_it_reads() {
    // Found by the `che_programs` fuzz target: the embedder passes the
    // constant list to a function that writes through its list parameter,
    // so the charge worked out from the initial contents went stale in the
    // call itself, and in the calls after it.
    let source = writes_through_a_parameter();
    let program = Program::new(asm::assemble(&source).expect("asm")).expect("verify");
    let board = BoardView::from_fen("8/8/8/8/8/8/4P3/4K2k w - - 0 1").expect("fen");
    let run = |profiled: bool| -> Vec<String> {
        let mut vm = Interpreter::new(&program);
        let mut host = BoardHost(board);
        (0..3)
            .map(|_| {
                let mut out = cvm::CollectOutput::default();
                let result = if profiled {
                    vm.call_profiled(0, &[0], &mut host, &mut out, &mut support::Quiet)
                } else {
                    vm.call(0, &[0], &mut host, &mut out)
                };
                format!(
                    "{result:?}; fuel {}; memory {:?}",
                    vm.fuel_used(),
                    vm.memory()
                )
            })
            .collect()
    };
    let (fast, plain) = (run(false), run(true));
    assert_eq!(fast, plain);
    // The list grew to every square: the pawn on e2 is found.
    assert!(
        plain[0].starts_with("Ok(Returned(Some(1)))"),
        "{}",
        plain[0]
    );
}

/// A test a conditional branch reads: `KingPos`/`orKingPos` on a constant
/// list of sides, a pattern on a constant list of squares, or the
/// optimizer's `pat.all`/`pat.any` of a constant scalar.
#[derive(Clone, Debug)]
enum Test {
    King(&'static str, i32, Vec<i32>),
    Pattern(&'static str, i32, Vec<i32>),
    Folded(&'static str, bool, u64, i32),
}

impl Test {
    /// The lists the test reads, and its instructions (one value pushed).
    fn parts(&self) -> (String, String) {
        let list = |name: &str, v: &[i32]| {
            let mut s: Vec<String> = v.iter().map(i32::to_string).collect();
            s.push("-1".into());
            format!(".list {name} {} = {}\n", v.len() + 1, s.join(" "))
        };
        match self {
            Test::King(name, colour, sides) => (
                list("sides", sides),
                format!("    push {colour}\n    lref sides\n    intr {name}\n"),
            ),
            Test::Pattern(name, arg, squares) => (
                list("sq", squares),
                format!("    push {arg}\n    lref sq\n    intr {name}\n"),
            ),
            Test::Folded(name, any, mask, arg) => {
                let op = if *any { "pat.any" } else { "pat.all" };
                let (lo, hi) = (*mask as u32 as i32, (*mask >> 32) as u32 as i32);
                (
                    String::new(),
                    format!("    push {arg}\n    {op} {name} {lo} {hi}\n"),
                )
            }
        }
    }
}

/// How a branch reads the test: forward (1 when the branch falls through,
/// 2 when it jumps), backward to a loop head (the loop runs while the
/// branch jumps, three times at most: 7 when it ran out, else 100 plus the
/// count left), or as a jump target that another path also reaches with a
/// value of its own (10 plus a slot the paths set apart).
#[derive(Copy, Clone, Debug)]
enum Shape {
    Forward,
    Backward,
    Target,
}

fn branch_program(test: &Test, jnz: bool, shape: Shape) -> String {
    let (lists, code) = test.parts();
    let br = if jnz { "jnz" } else { "jz" };
    let body = match shape {
        Shape::Forward => format!(
            "{code}    {br} Lt
    push 1
    retv
Lt:
    push 2
    retv
"
        ),
        Shape::Backward => format!(
            "    push 3
    stl n
L0:
    ldl n
    add.i -1
    stl n
    ldl n
    jz Ldone
{code}    {br} L0
    push 100
    ldl n
    add
    retv
Ldone:
    push 7
    retv
"
        ),
        Shape::Target => format!(
            "    push 5
    stl n
{code}Lj:
    {br} Lt
    ldl n
    jz Lend
    push 0
    stl n
    push {}
    jmp Lj
Lend:
    push 3
    retv
Lt:
    ldl n
    push 10
    add
    retv
",
            i32::from(jnz)
        ),
    };
    format!(
        "{lists}.func main params 0 lists 0 locals 1 stack 3 value
.slots n
{body}.end
"
    )
}

fn tests() -> impl Strategy<Value = Test> {
    let king = (
        prop::sample::select(vec!["KingPos", "orKingPos"]),
        prop_oneof![Just(0), Just(1), Just(2), Just(5)],
        prop::collection::vec(
            prop_oneof![
                prop::sample::select(vec!["kside", "qside", "centre", "kkside", "qqside"])
                    .prop_map(side),
                Just(7),
            ],
            0..3,
        ),
    )
        .prop_map(|(n, c, s)| Test::King(n, c, s));
    let pattern = (
        prop::sample::select(FOLDED_PATTERNS.to_vec()),
        scalar(),
        prop::collection::vec(
            prop_oneof![4 => 0..64i32, 1 => 64..81i32, 1 => Just(-5)],
            0..5,
        ),
    )
        .prop_map(|(n, a, s)| Test::Pattern(n, a, s));
    let folded = (
        prop::sample::select(FOLDED_PATTERNS.to_vec()),
        any::<bool>(),
        prop_oneof![any::<u64>(), (0..64u32).prop_map(|s| 1u64 << s)],
        scalar(),
    )
        .prop_map(|(n, any, m, a)| Test::Folded(n, any, m, a));
    prop_oneof![king, pattern, folded]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// A one-mask test the translation fuses with the `jz` or `jnz` after
    /// it, on every path a branch can take, under fuel limits around every
    /// charge (a backward branch's charge included).
    #[test]
    fn tests_fused_with_their_branch_agree_with_the_plain_form(
        board in boards(),
        test in tests(),
        jnz in any::<bool>(),
        shape in prop_oneof![Just(Shape::Forward), Just(Shape::Backward), Just(Shape::Target)],
    ) {
        agree(&branch_program(&test, jnz, shape), &board);
    }
}

#[test]
fn tests_fused_with_their_branch_give_the_documented_answers() {
    // White king on g1, white pawns on f2 g2 h2; black king on g8.
    let board = BoardView::from_fen("6k1/5ppp/8/8/8/8/5PPP/6K1 w - - 0 1").expect("fen");
    let home: Vec<i32> = ["f2", "g2", "h2"].iter().map(|n| square(n)).collect();
    let home_mask = home.iter().fold(0u64, |m, &s| m | 1 << s);
    let holds = [
        Test::King("KingPos", lit::WHITE, vec![side("kkside")]),
        Test::Pattern("PcOnSqrs", piece("wP"), home.clone()),
        Test::Folded("PcOnSqrs", false, home_mask, piece("wP")),
    ];
    let fails = [
        Test::King("KingPos", lit::WHITE, vec![side("qside")]),
        Test::Pattern("PcOnSqrs", piece("bP"), home.clone()),
        Test::Folded("PcOnSqrs", true, home_mask, piece("bP")),
    ];
    let answer = |test: &Test, jnz: bool, shape: Shape| {
        let r = agree(&branch_program(test, jnz, shape), &board);
        let v = r
            .strip_prefix("Returned(Some(")
            .and_then(|r| r.split(')').next())
            .unwrap_or_else(|| panic!("{r}"));
        v.parse::<i32>().unwrap_or_else(|_| panic!("{r}"))
    };
    for (test, held) in holds
        .iter()
        .map(|t| (t, true))
        .chain(fails.iter().map(|t| (t, false)))
    {
        for jnz in [false, true] {
            let jumps = held == jnz;
            let what = format!("{test:?} jnz {jnz}");
            assert_eq!(
                answer(test, jnz, Shape::Forward),
                if jumps { 2 } else { 1 },
                "{what}"
            );
            // The loop goes round while the branch jumps: out of count (7),
            // or out at once with two left.
            assert_eq!(
                answer(test, jnz, Shape::Backward),
                if jumps { 7 } else { 102 },
                "{what}"
            );
            // A jump lands on the branch too, with a value that takes it.
            assert_eq!(
                answer(test, jnz, Shape::Target),
                if jumps { 15 } else { 10 },
                "{what}"
            );
        }
    }
}

#[test]
fn tests_and_get_forms_see_the_board_a_host_service_moved_to() {
    // White king on g1 (inside `kkside`) and one white knight, then the
    // king on b1 and two knights.
    let boards = [
        "6k1/8/8/8/8/8/8/1N4K1 w - - 0 1",
        "6k1/8/8/8/8/8/8/NKN5 w - - 0 1",
    ]
    .map(|f| BoardView::from_fen(f).expect("fen"));
    let white = lit::WHITE;
    let knights = piece("wN");
    let kkside = side("kkside");
    // A fused test, a one-mask test kept as a value, and a `Get` form, each
    // before and after the service; the first reads of the board come only
    // after a first service in `moved_first`.
    let reads = |label: &str| {
        format!(
            "    push {white}
    lref sides
    intr KingPos
    jz {label}
    ldl r
    push 1
    add
    stl r
{label}:
    push {white}
    lref sides
    intr KingPos
    push 10
    mul
    ldl r
    add
    stl r
    push {knights}
    lref sq
    intr GetControl
    push 100
    mul
    ldl r
    add
    stl r
"
        )
    };
    let service = "    push 1
    push 0
    push 0
    push 0
    intr HostCall
    pop
";
    let source = |moved_first: bool| {
        let first = if moved_first { service } else { "" };
        format!(
            ".list sides 2 = {kkside} -1
.list sq 65
.func main params 0 lists 0 locals 2 stack 4 value
.slots r s
{first}{}    ldl r
    stl s
    push 0
    stl r
{service}{}    ldl s
    push 1000
    mul
    ldl r
    add
    retv
.end
",
            reads("La"),
            reads("Lb")
        )
    };
    for (moved_first, want) in [
        // First board: 1 + 10 + 100 * 3 (a knight on b1 controls a3 c3 d2);
        // second: 0 + 0 + 100 * 5 (knights on a1 and c1: b3 c2, a2 b3 d3 e2).
        (false, 311 * 1000 + 500),
        (true, 500 * 1000 + 311),
    ] {
        let src = source(moved_first);
        let module = asm::assemble(&src).unwrap_or_else(|e| panic!("{e}\n{src}"));
        let program = Program::new(module).unwrap_or_else(|e| panic!("{e}\n{src}"));
        let runs: Vec<String> = [false, true]
            .iter()
            .map(|&profiled| {
                let mut vm = Interpreter::new(&program);
                let mut host = MovingHost::new(boards.to_vec());
                support::account(&mut vm, &mut host, profiled)
            })
            .collect();
        assert_eq!(runs[0], runs[1], "{src}");
        assert!(
            runs[0].starts_with(&format!("Returned(Some({want}))")),
            "moved first {moved_first}: {}",
            runs[0]
        );
    }
}
