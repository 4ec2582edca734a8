//! The converter against the direct compilation: for generated Che
//! programs, the Che++ that `che convert` writes compiles without a
//! warning and leaves the same advice table as the direct compilation, on
//! every test position, on both backends, with and without the optimizer.

mod common;

use cvm_testkit::che3_programs::{self, check_conversion};
use cvm_testkit::programs::{board, seed_bytes, POSITIONS};

#[test]
fn generated_programs_convert_to_equivalent_chepp() {
    let (mut checked, mut advised) = (0, 0);
    for seed in 0..150u64 {
        let data = seed_bytes(0xC3 + seed, 60 + (seed as usize % 10) * 50);
        let source = che3_programs::generate(&data);
        // Every fixed position, the empty board and random boards in turn.
        for n in 0..3u8 {
            let selector =
                ((seed as u8).wrapping_mul(3).wrapping_add(n)) % (POSITIONS.len() as u8 + 3);
            let b = board(selector, seed * 7 + u64::from(n));
            match check_conversion(&source, &b) {
                Ok(table) => advised += usize::from(!common::entries(&table).is_empty()),
                Err(e) => panic!("seed {seed}, board {selector}:\n{source}\n{e}"),
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 450);
    // Most runs advise something: the comparison is not of empty tables.
    assert!(
        advised > 200,
        "{advised} of {checked} runs advised something"
    );
}

/// The converter's reserved words include every name `stdlib.che`
/// declares, so no converted name can clash with one.
#[test]
fn every_stdlib_name_is_reserved() {
    let mut n = 0;
    for line in chepp::STDLIB_SOURCE.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        if let [kw, name, ..] = words.as_slice() {
            if ["const", "function", "procedure"].contains(kw) {
                let name = name.split(['(', ':', ';']).next().unwrap_or("");
                assert!(
                    che3::names::STDLIB_NAMES.contains(&name),
                    "{name} is missing from che3::names::STDLIB_NAMES"
                );
                n += 1;
            }
        }
    }
    assert_eq!(n, che3::names::STDLIB_NAMES.len());
}

/// The bonuses of `che3::lower` are the standard library's constants (and
/// twice them for strong and bad moves): a Che++ program prints each
/// constant the converter names.
#[test]
fn bonuses_are_the_stdlib_values() {
    use che3::lower::Bonus;
    let mut source = String::from("include stdlib.che\nconst STRONGMVBONUS := 2 * CHE_MVBONUS;\nconst BADMVMALUS := 2 * CHE_MVMALUS;\nprocedure main()\nbegin\n");
    for b in Bonus::ALL {
        source.push_str(&format!("  write {};\n", che3::convert::bonus_name(b)));
    }
    source.push_str("end;\n");
    let c = chepp::compile_str("bonus.che", &source, &chepp::CompileOptions::default());
    let program = c.program.expect("compiles");
    use cvm::Vm;
    let mut out = cvm::CollectOutput::default();
    cvm::Interpreter::new(&program)
        .run_entry(&mut cvm::NoHost, &mut out)
        .unwrap();
    let values: Vec<String> = Bonus::ALL
        .iter()
        .map(|b| cvm::format_value(b.value()))
        .collect();
    let printed: Vec<String> = out.lines.iter().map(|l| l.to_string()).collect();
    assert_eq!(printed, values);
}

#[test]
fn awkward_names_are_escaped() {
    let source = "pattern begin { } { };\npattern w { begin } { };\nadvice main goodsqrs(wN d4);\nadvice GoodSqrs.x main;\nadvice 01 GoodSqrs.x;\nrule end { w } 01;\n";
    let (text, _) = che3_programs::convert(source).unwrap_or_else(|e| panic!("{e}"));
    for routine in [
        "function che_begin()",
        "function che_w()",
        "procedure che_main()",
        "procedure GoodSqrs_x()",
        "procedure che_01()",
    ] {
        assert!(text.contains(routine), "{routine}:\n{text}");
    }
    let board = cvm_chess::BoardView::from_fen(common::START).unwrap();
    let table = check_conversion(source, &board).unwrap();
    assert_eq!(table.square_bonus[0][1][27], 20);
}
