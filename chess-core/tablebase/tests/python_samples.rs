//! Spot checks against python-chess: `tests/data/samples.txt` holds positions of every ending
//! (a third of them with the colours swapped, so the strong side is Black) with the value
//! `gen_reference.py` found for them with python-chess alone: exact distances for KQK, KRK and KPK
//! from its own retrograde analysis over python-chess's move generator, and for KBNK exact
//! distances of short mates, draws by stalemate or by capturing into insufficient material, or
//! "no mate within N plies" from an exhaustive python-chess search.

mod common;

use che_tablebase::{Material, Outcome};
use chess_core::Position;
use common::{samples, tablebase, Expected};
use std::collections::BTreeMap;

#[test]
fn every_sample_has_the_value_python_chess_found() {
    let samples = samples();
    let mut per_material: BTreeMap<&str, usize> = BTreeMap::new();
    let mut exact_kbnk_mates = 0;
    for sample in &samples {
        let pos = Position::from_fen(&sample.fen).expect("python-chess writes legal FENs");
        let (material, _) = Material::identify(&pos).expect("one of the four endings");
        *per_material.entry(material.name()).or_insert(0) += 1;
        let value = tablebase()
            .probe(&pos)
            .unwrap_or_else(|| panic!("no value for {}", sample.fen));
        match sample.expected {
            Expected::Exact(expected) => {
                assert_eq!(value, expected, "{}", sample.fen);
                if material == Material::Kbnk && expected != Outcome::Draw {
                    exact_kbnk_mates += 1;
                }
            }
            Expected::NoMateWithin(limit) => match value {
                Outcome::Draw => {}
                Outcome::Win { plies } | Outcome::Loss { plies } => {
                    assert!(plies > limit, "{}: {value:?} within {limit}", sample.fen)
                }
            },
        }
    }
    for material in Material::ALL {
        let count = per_material.get(material.name()).copied().unwrap_or(0);
        assert!(count >= 300, "{material}: only {count} samples");
    }
    assert!(
        exact_kbnk_mates >= 20,
        "only {exact_kbnk_mates} KBNK samples check a distance"
    );
}
