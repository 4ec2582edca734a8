//! Every pattern intrinsic against an independent oracle.
//!
//! `tests/data/oracle/oracle.jsonl` holds 240 positions reached by seeded
//! random play, with attack sets, passed and doubled pawns, pawn counts per
//! file, king sides and exchange control computed by python-chess
//! (`tests/data/oracle/gen_oracle.py`). Each test here loads the positions
//! through chess-core's FEN reader and [`AdviceHost`], calls the intrinsics
//! through the CVM's intrinsic table exactly as the interpreter does, and
//! compares every answer with the oracle's.

use che_engine::host::{board_view, AdviceHost};
use chess_core::Position;
use cvm::intrinsics::{by_name, Ctx};
use cvm::runtime::ListSlice;
use cvm::{Memory, NullOutput};
use cvm_chess::advice_table::AdviceTable;
use cvm_chess::lit;
use serde_json::Value;

const ORACLE: &str = include_str!("data/oracle/oracle.jsonl");
const IN: i32 = 0;
const OUT: i32 = 1;
const OPS: [&str; 6] = ["=", "<>", "<", "<=", ">", ">="];
const SIDES: [&str; 5] = ["kside", "qside", "centre", "kkside", "qqside"];

struct Case {
    fen: String,
    pieces: [[u64; 6]; 2],
    attacks: [[u64; 6]; 2],
    passed: [u64; 2],
    doubled: [u64; 2],
    pawn_files: [[i32; 8]; 2],
    king_sides: [Vec<String>; 2],
    exchange: [u64; 2],
}

fn u64s(v: &Value) -> Vec<u64> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|x| x.as_u64().expect("u64"))
        .collect()
}

fn pair<T>(v: &Value, f: impl Fn(&Value) -> T) -> [T; 2] {
    [f(&v[0]), f(&v[1])]
}

fn cases() -> Vec<Case> {
    let six = |v: &Value| -> [u64; 6] { u64s(v).try_into().expect("six kinds") };
    ORACLE
        .lines()
        .map(|line| {
            let j: Value = serde_json::from_str(line).expect("oracle line");
            Case {
                fen: j["fen"].as_str().expect("fen").to_string(),
                pieces: pair(&j["pieces"], six),
                attacks: pair(&j["attacks"], six),
                passed: pair(&j["passed"], |v| v.as_u64().expect("mask")),
                doubled: pair(&j["doubled"], |v| v.as_u64().expect("mask")),
                pawn_files: pair(&j["pawn_files"], |v| {
                    let c: Vec<i32> = u64s(v).iter().map(|&n| n as i32).collect();
                    c.try_into().expect("eight files")
                }),
                king_sides: pair(&j["king_sides"], |v| {
                    v.as_array()
                        .expect("sides")
                        .iter()
                        .map(|s| s.as_str().expect("side").to_string())
                        .collect()
                }),
                exchange: pair(&j["exchange"], |v| v.as_u64().expect("mask")),
            }
        })
        .collect()
}

/// Runs intrinsics by name on one position, with an input list (0) and an
/// output list (1) of 64 elements each.
struct Harness {
    memory: Memory,
    host: AdviceHost,
    advice: AdviceTable,
}

impl Harness {
    fn new(case: &Case) -> Harness {
        let pos = Position::from_fen(&case.fen).expect("oracle FEN");
        Harness {
            memory: Memory {
                globals: Vec::new(),
                heap: vec![-1; 130],
                lists: vec![
                    ListSlice { base: 0, slots: 65 },
                    ListSlice {
                        base: 65,
                        slots: 65,
                    },
                ],
            },
            host: AdviceHost::new(&pos),
            advice: AdviceTable::default(),
        }
    }

    fn call(&mut self, name: &str, args: &[i32]) -> i32 {
        let (_, info) = by_name(name).unwrap_or_else(|| panic!("no intrinsic {name}"));
        let mut out = NullOutput;
        let mut ctx = Ctx {
            memory: &mut self.memory,
            output: &mut out,
            host: &mut self.host,
            advice: &mut self.advice,
        };
        (info.func)(&mut ctx, args).unwrap_or_else(|e| panic!("{name}: {e}"))
    }

    /// Calls a pattern whose last argument is the input list `elements`.
    fn test(&mut self, name: &str, args: &[i32], elements: &[i32]) -> bool {
        self.memory
            .fill_list(IN as u32, elements)
            .expect("input list fits");
        let mut all = args.to_vec();
        all.push(IN);
        match self.call(name, &all) {
            0 => false,
            1 => true,
            v => panic!("{name} returned {v}"),
        }
    }

    /// Calls a `Get` form and returns the list it filled, checking the count.
    fn get(&mut self, name: &str, args: &[i32]) -> Vec<i32> {
        let mut all = args.to_vec();
        all.push(OUT);
        let n = self.call(name, &all);
        let got = self.memory.list_elements(OUT as u32).to_vec();
        assert_eq!(n as usize, got.len(), "{name} count");
        got
    }
}

fn squares(mask: u64) -> Vec<i32> {
    (0..64).filter(|s| mask & (1u64 << s) != 0).collect()
}

fn piece(name: &str) -> i32 {
    lit::parse_piece(name).expect("piece")
}

fn op(name: &str) -> i32 {
    lit::parse_compop(name).expect("op")
}

fn compare(a: i32, op: &str, b: i32) -> bool {
    match op {
        "=" => a == b,
        "<>" => a != b,
        "<" => a < b,
        "<=" => a <= b,
        ">" => a > b,
        ">=" => a >= b,
        _ => unreachable!(),
    }
}

/// The file wildcards `a.`..`h.` and rank wildcards `.1`..`.8` with their masks.
fn wildcards() -> Vec<(i32, u64)> {
    let mut w = Vec::new();
    for f in 0..8 {
        w.push((lit::FILE_WILDCARD + f, 0x0101_0101_0101_0101u64 << f));
    }
    for r in 0..8 {
        w.push((lit::RANK_WILDCARD + r, 0xFFu64 << (8 * r)));
    }
    w.push((lit::ALL_SQUARES, u64::MAX));
    w
}

const COLOUR_NAMES: [char; 2] = ['w', 'b'];
const KIND_NAMES: [char; 6] = ['P', 'N', 'B', 'R', 'Q', 'K'];

/// Checks a square-set pattern (and, or and Get forms) against the set the
/// oracle gives for its first argument.
fn check_square_pattern(h: &mut Harness, name: &str, arg: i32, expect: u64, what: &str) {
    assert_eq!(
        h.get(&format!("Get{name}"), &[arg]),
        squares(expect),
        "Get{name} {what}"
    );
    for s in 0..64 {
        let bit = expect & (1u64 << s) != 0;
        assert_eq!(h.test(name, &[arg], &[s]), bit, "{name} {what} {s}");
        assert_eq!(
            h.test(&format!("or{name}"), &[arg], &[s]),
            bit,
            "or{name} {what} {s}"
        );
    }
    for (w, m) in wildcards() {
        assert_eq!(
            h.test(name, &[arg], &[w]),
            expect & m != 0,
            "{name} {what} wildcard {w}"
        );
    }
    // Multi-element lists: the and form needs all, the or form one.
    let all = squares(expect);
    let none = squares(!expect);
    if !all.is_empty() && !none.is_empty() {
        let mixed = [all[0], none[0]];
        assert!(!h.test(name, &[arg], &mixed), "{name} {what} mixed and");
        assert!(
            h.test(&format!("or{name}"), &[arg], &mixed),
            "{name} {what} mixed or"
        );
    }
    assert!(h.test(name, &[arg], &all), "{name} {what} all of the set");
    assert!(h.test(name, &[arg], &[]), "{name} empty and");
    assert!(
        !h.test(&format!("or{name}"), &[arg], &[]),
        "{name} empty or"
    );
}

#[test]
fn the_oracle_has_enough_positions() {
    assert!(cases().len() >= 200);
}

#[test]
fn board_view_matches_the_oracle_placement() {
    for case in cases() {
        let pos = Position::from_fen(&case.fen).expect("oracle FEN");
        assert_eq!(board_view(&pos).pieces, case.pieces, "{}", case.fen);
    }
}

#[test]
fn control_matches_python_chess_attacks() {
    for case in cases() {
        let mut h = Harness::new(&case);
        for (c, cn) in COLOUR_NAMES.iter().enumerate() {
            for (k, kn) in KIND_NAMES.iter().enumerate() {
                let name = format!("{cn}{kn}");
                check_square_pattern(
                    &mut h,
                    "Control",
                    piece(&name),
                    case.attacks[c][k],
                    &format!("{name} {}", case.fen),
                );
            }
        }
        let union = |cs: &[usize], ks: &[usize]| {
            cs.iter()
                .flat_map(|&c| ks.iter().map(move |&k| (c, k)))
                .fold(0, |acc, (c, k)| acc | case.attacks[c][k])
        };
        for (name, cs, ks) in [
            ("w?", &[0][..], &[0, 1, 2, 3, 4, 5][..]),
            ("b?", &[1], &[0, 1, 2, 3, 4, 5]),
            ("??", &[0, 1], &[0, 1, 2, 3, 4, 5]),
            ("wO", &[0], &[1, 2, 3, 4]),
            ("?O", &[0, 1], &[1, 2, 3, 4]),
            ("?P", &[0, 1], &[0]),
            ("?R", &[0, 1], &[3]),
        ] {
            let expect = union(cs, ks);
            check_square_pattern(
                &mut h,
                "Control",
                piece(name),
                expect,
                &format!("{name} {}", case.fen),
            );
        }
    }
}

#[test]
fn passed_and_doubled_pawns_match() {
    for case in cases() {
        let mut h = Harness::new(&case);
        for (c, name) in [(0, "w"), (1, "b")] {
            let colour = lit::parse_colour(name).expect("colour");
            check_square_pattern(
                &mut h,
                "Passed",
                colour,
                case.passed[c],
                &format!("{name} {}", case.fen),
            );
            check_square_pattern(
                &mut h,
                "DblPwns",
                colour,
                case.doubled[c],
                &format!("{name} {}", case.fen),
            );
        }
        // `?` is "a white or a black" passed / doubled pawn.
        check_square_pattern(
            &mut h,
            "Passed",
            lit::ANY_COLOUR,
            case.passed[0] | case.passed[1],
            &case.fen,
        );
        check_square_pattern(
            &mut h,
            "DblPwns",
            lit::ANY_COLOUR,
            case.doubled[0] | case.doubled[1],
            &case.fen,
        );
    }
}

#[test]
fn exchange_control_matches_the_python_exchange_evaluation() {
    for case in cases() {
        let mut h = Harness::new(&case);
        check_square_pattern(
            &mut h,
            "ExchngCtrl",
            lit::WHITE,
            case.exchange[0],
            &format!("w {}", case.fen),
        );
        check_square_pattern(
            &mut h,
            "ExchngCtrl",
            lit::BLACK,
            case.exchange[1],
            &format!("b {}", case.fen),
        );
        // `?`: both sides have exchange control.
        check_square_pattern(
            &mut h,
            "ExchngCtrl",
            lit::ANY_COLOUR,
            case.exchange[0] & case.exchange[1],
            &case.fen,
        );
    }
}

#[test]
fn pawns_on_lines_match_the_file_counts() {
    for case in cases() {
        let mut h = Harness::new(&case);
        for colour in [lit::WHITE, lit::BLACK, lit::ANY_COLOUR] {
            let counts: Vec<i32> = (0..8)
                .map(|f| match colour {
                    lit::WHITE => case.pawn_files[0][f],
                    lit::BLACK => case.pawn_files[1][f],
                    _ => case.pawn_files[0][f] + case.pawn_files[1][f],
                })
                .collect();
            for o in OPS {
                for n in 0..=3 {
                    let args = [colour, op(o), n];
                    let expect: Vec<i32> = (0..8)
                        .filter(|&f| compare(counts[f as usize], o, n))
                        .map(|f| lit::COLUMN_BASE + f)
                        .collect();
                    assert_eq!(
                        h.get("GetPOnLine", &args),
                        expect,
                        "GetPOnLine {colour} {o} {n} {}",
                        case.fen
                    );
                    for f in 0..8 {
                        let hit = compare(counts[f as usize], o, n);
                        assert_eq!(h.test("POnLine", &args, &[lit::COLUMN_BASE + f]), hit);
                        assert_eq!(h.test("orPOnLine", &args, &[lit::COLUMN_BASE + f]), hit);
                    }
                    let every = expect.len() == 8;
                    let some = !expect.is_empty();
                    let all_columns: Vec<i32> = (0..8).map(|f| lit::COLUMN_BASE + f).collect();
                    assert_eq!(h.test("POnLine", &args, &all_columns), every);
                    assert_eq!(h.test("orPOnLine", &args, &all_columns), some);
                    // `.line` is satisfied by any file.
                    assert_eq!(h.test("POnLine", &args, &[lit::COLUMN_BASE + 8]), some);
                }
            }
        }
    }
}

#[test]
fn king_positions_match_the_king_sides() {
    let side =
        |name: &str| lit::SIDE_BASE + SIDES.iter().position(|&s| s == name).expect("side") as i32;
    for case in cases() {
        let mut h = Harness::new(&case);
        for (c, colour) in [(0, lit::WHITE), (1, lit::BLACK)] {
            let expect: Vec<i32> = case.king_sides[c].iter().map(|s| side(s)).collect();
            assert_eq!(h.get("GetKingPos", &[colour]), expect, "{}", case.fen);
            for s in SIDES {
                let on = case.king_sides[c].iter().any(|k| k == s);
                assert_eq!(h.test("KingPos", &[colour], &[side(s)]), on);
                assert_eq!(h.test("orKingPos", &[colour], &[side(s)]), on);
            }
        }
        // `?`: both kings, per element, also in the or form.
        let both = |s: &str| case.king_sides.iter().all(|ks| ks.iter().any(|k| k == s));
        for s in SIDES {
            assert_eq!(h.test("KingPos", &[lit::ANY_COLOUR], &[side(s)]), both(s));
        }
        assert_eq!(
            h.test(
                "orKingPos",
                &[lit::ANY_COLOUR],
                &[side("kkside"), side("qqside")]
            ),
            both("kkside") || both("qqside"),
            "{}",
            case.fen
        );
    }
}

/// A small deterministic generator for random lists.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

#[test]
fn pieces_on_squares_and_counts_match_the_placement() {
    let mut rng = Lcg(7);
    for case in cases() {
        let mut h = Harness::new(&case);
        for (c, cn) in COLOUR_NAMES.iter().enumerate() {
            for (k, kn) in KIND_NAMES.iter().enumerate() {
                let name = format!("{cn}{kn}");
                check_square_pattern(
                    &mut h,
                    "PcOnSqrs",
                    piece(&name),
                    case.pieces[c][k],
                    &case.fen,
                );
            }
        }
        let all_pieces = case.pieces.iter().flatten().fold(0, |a, &b| a | b);
        check_square_pattern(&mut h, "PcOnSqrs", piece("??"), all_pieces, &case.fen);
        let officers = (1..5).fold(0, |a, k| a | case.pieces[0][k] | case.pieces[1][k]);
        check_square_pattern(&mut h, "PcOnSqrs", piece("?O"), officers, &case.fen);
        // CmpNrPcs counts per element; PcOnSqrs(p, l) = CmpNrPcs(p, >, 0, l).
        for (p, set) in [
            ("?O", officers),
            ("??", all_pieces),
            ("wP", case.pieces[0][0]),
            ("bP", case.pieces[1][0]),
        ] {
            for (w, m) in wildcards() {
                let count = (set & m).count_ones() as i32;
                for o in OPS {
                    for n in [0, 1, 2, 4] {
                        let got = h.test("CmpNrPcs", &[piece(p), op(o), n], &[w]);
                        assert_eq!(
                            got,
                            compare(count, o, n),
                            "CmpNrPcs({p},{o},{n},{w}) {}",
                            case.fen
                        );
                    }
                }
            }
            for _ in 0..8 {
                let len = rng.next(5) as usize;
                let list: Vec<i32> = (0..len).map(|_| rng.next(81) as i32).collect();
                let a = h.test("PcOnSqrs", &[piece(p)], &list);
                let b = h.test("CmpNrPcs", &[piece(p), op(">"), 0], &list);
                assert_eq!(
                    a, b,
                    "PcOnSqrs = CmpNrPcs(>,0) for {p} {list:?} {}",
                    case.fen
                );
            }
        }
    }
}
