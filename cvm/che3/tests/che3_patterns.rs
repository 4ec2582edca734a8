//! Every pattern function against an independent oracle, and the ways
//! patterns combine (negation, AND- and OR-lists, patterns built on
//! patterns, rules with several patterns, guards in advices).
//!
//! `tests/data/patterns.jsonl` holds 312 calls of the fifteen pattern
//! functions (some negated) and, for 300 positions reached by seeded random
//! play plus a few chosen ones, the truth of every call, computed with
//! python-chess from the definitions in `docs/che3.md`
//! (`tests/data/gen_patterns.py`). The tests compile one Che program
//! holding every call as a pattern and check each answer on every
//! position, on both backends, with and without the optimizer.

mod common;

use common::CONFIGS;
use cvm::runtime::{Limits, NullOutput};
use cvm_chess::board::BoardView;
use cvm_testkit::oracle::ScenarioHost;
use serde_json::Value;
use std::fmt::Write;

const DATA: &str = include_str!("data/patterns.jsonl");

struct Case {
    fen: String,
    pieces: [[u64; 6]; 2],
    truth: Vec<bool>,
}

fn data() -> (Vec<String>, Vec<Case>) {
    let mut lines = DATA.lines();
    let head: Value = serde_json::from_str(lines.next().expect("header")).expect("json");
    let calls: Vec<String> = head["calls"]
        .as_array()
        .expect("calls")
        .iter()
        .map(|c| c.as_str().expect("call").to_string())
        .collect();
    let cases = lines
        .map(|line| {
            let j: Value = serde_json::from_str(line).expect("json");
            let mut pieces = [[0u64; 6]; 2];
            for (c, row) in pieces.iter_mut().enumerate() {
                for (k, p) in row.iter_mut().enumerate() {
                    *p = j["pieces"][c][k].as_u64().expect("mask");
                }
            }
            Case {
                fen: j["fen"].as_str().expect("fen").to_string(),
                pieces,
                truth: j["truth"]
                    .as_str()
                    .expect("truth")
                    .chars()
                    .map(|c| c == '1')
                    .collect(),
            }
        })
        .collect();
    (calls, cases)
}

/// A small deterministic generator for the combinations.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// A combined pattern: AND entries and OR entries over the oracle's calls.
struct Combo {
    and: Vec<(bool, usize)>,
    or: Vec<(bool, usize)>,
}

impl Combo {
    fn holds(&self, truth: &[bool]) -> bool {
        self.and.iter().all(|&(neg, i)| truth[i] != neg)
            && (self.or.is_empty() || self.or.iter().any(|&(neg, i)| truth[i] != neg))
    }
}

fn entry((neg, i): (bool, usize)) -> String {
    format!("{}t.{i}", if neg { "!" } else { "" })
}

/// Square-bonus entry `n` (0 ..= 767): its piece and square, unique.
fn mark(n: usize) -> (String, usize, usize, usize) {
    let (c, k, s) = (n / 384, (n / 64) % 6, n % 64);
    let piece = format!("{}{}", ["w", "b"][c], ["P", "N", "B", "R", "Q", "K"][k]);
    let square = cvm_chess::lit::square_name(s as i32).expect("square");
    (format!("{piece} {square}"), c, k, s)
}

#[test]
fn every_pattern_function_agrees_with_python_chess() {
    let (calls, cases) = data();
    assert_eq!(calls.len(), 312);
    assert_eq!(cases.len(), 300);
    let mut rng = Rng(0x5EED);
    let mut source = String::new();
    for (i, call) in calls.iter().enumerate() {
        let _ = writeln!(source, "pattern t.{i} {{ {call} }} {{ }};");
    }
    // Combinations: AND- and OR-lists over earlier patterns, negated or not.
    let combos: Vec<Combo> = (0..120)
        .map(|_| {
            let (a, o) = (rng.below(4), rng.below(4));
            let mut pick = |n: usize| -> Vec<(bool, usize)> {
                (0..n)
                    .map(|_| (rng.below(3) == 0, rng.below(calls.len())))
                    .collect()
            };
            let and = pick(a);
            Combo { and, or: pick(o) }
        })
        .collect();
    for (j, c) in combos.iter().enumerate() {
        let and: Vec<String> = c.and.iter().map(|&e| entry(e)).collect();
        let or: Vec<String> = c.or.iter().map(|&e| entry(e)).collect();
        let _ = writeln!(
            source,
            "pattern c.{j} {{ {} }} {{ {} }};",
            and.join(" "),
            or.join(" ")
        );
    }
    // Rules with several patterns, each running an advice that sets one
    // square-bonus entry of its own.
    let rules: Vec<Vec<usize>> = (0..60)
        .map(|_| (0..rng.below(4)).map(|_| rng.below(calls.len())).collect())
        .collect();
    for (k, pats) in rules.iter().enumerate() {
        let names: Vec<String> = pats.iter().map(|&p| format!("t.{p}")).collect();
        let _ = writeln!(source, "advice m.{k} goodsqrs({});", mark(k).0);
        let _ = writeln!(source, "rule r.{k} {{ {} }} m.{k};", names.join(" "));
    }
    // Guards: `{ A } first { !B } second`: the first entry needs A, the
    // second A and not B.
    let guards: Vec<(usize, usize)> = (0..60)
        .map(|_| (rng.below(calls.len()), rng.below(calls.len())))
        .collect();
    for (k, &(a, b)) in guards.iter().enumerate() {
        let _ = writeln!(
            source,
            "advice g.{k} {{ t.{a} }} goodsqrs({}) {{ !t.{b} }} goodsqrs({});\nrule rg.{k} {{ }} g.{k};",
            mark(60 + 2 * k).0,
            mark(61 + 2 * k).0
        );
    }
    let program = common::compile(&source);
    let mut checks = 0usize;
    for (backend, optimize) in CONFIGS {
        let prepared = common::prepare(&program, backend, optimize);
        let mut vm = prepared.instance();
        vm.set_limits(Limits {
            fuel: Some(10_000_000),
            ..Limits::default()
        });
        for case in &cases {
            let board = BoardView::from_fen(&case.fen).expect("oracle FEN");
            assert_eq!(board.pieces, case.pieces, "{}", case.fen);
            let mut host = ScenarioHost { board };
            let mut call = |name: String| -> bool {
                let done = vm
                    .call_by_name(&name, &[], &mut host, &mut NullOutput)
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
                match done.value() {
                    Some(0) => false,
                    Some(1) => true,
                    other => panic!("{name} returned {other:?}"),
                }
            };
            for (i, c) in calls.iter().enumerate() {
                let got = call(format!("pattern.t.{i}"));
                assert_eq!(
                    got, case.truth[i],
                    "{c} on {} ({backend}, optimized {optimize})",
                    case.fen
                );
                checks += 1;
            }
            for (j, combo) in combos.iter().enumerate() {
                assert_eq!(
                    call(format!("pattern.c.{j}")),
                    combo.holds(&case.truth),
                    "combination {j} on {}",
                    case.fen
                );
                checks += 1;
            }
            vm.reset();
            vm.run_entry(&mut host, &mut NullOutput)
                .unwrap_or_else(|e| panic!("main: {e}"));
            let table = vm.advice().clone();
            for (k, pats) in rules.iter().enumerate() {
                let (_, c, kind, s) = mark(k);
                let want = pats.iter().all(|&p| case.truth[p]);
                assert_eq!(
                    table.square_bonus[c][kind][s],
                    if want { 20 } else { 0 },
                    "rule {k}"
                );
                checks += 1;
            }
            for (k, &(a, b)) in guards.iter().enumerate() {
                let (_, c1, k1, s1) = mark(60 + 2 * k);
                let (_, c2, k2, s2) = mark(61 + 2 * k);
                let first = case.truth[a];
                let second = first && !case.truth[b];
                assert_eq!(
                    table.square_bonus[c1][k1][s1],
                    if first { 20 } else { 0 },
                    "guard {k}"
                );
                assert_eq!(
                    table.square_bonus[c2][k2][s2],
                    if second { 20 } else { 0 },
                    "guard {k}"
                );
                checks += 2;
            }
        }
    }
    assert_eq!(checks, 4 * 300 * (312 + 120 + 60 + 120));
}

#[test]
fn every_pattern_function_is_in_the_oracle() {
    let (calls, cases) = data();
    for f in che3::functions::FUNCTIONS
        .iter()
        .filter(|f| f.role == che3::functions::Role::Pattern)
    {
        let of_f: Vec<usize> = calls
            .iter()
            .enumerate()
            .filter(|(_, c)| {
                c.trim_start_matches('!')
                    .starts_with(&format!("{}(", f.name))
            })
            .map(|(i, _)| i)
            .collect();
        assert!(!of_f.is_empty(), "{}", f.name);
        // Each function is true somewhere and false somewhere.
        let any_true = of_f.iter().any(|&i| cases.iter().any(|c| c.truth[i]));
        let any_false = of_f.iter().any(|&i| cases.iter().any(|c| !c.truth[i]));
        assert!(any_true && any_false, "{}", f.name);
    }
}
