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
