//! The cache file: round trips, and every kind of damage is detected and repaired by
//! `load_or_generate`.

use che_tablebase::{cache_path, CacheError, FormatProblem, Material, Outcome, Side, Table};
use chess_core::{PieceKind, Position};
use std::fs;
use std::path::PathBuf;

/// A fresh directory for one test under Cargo's per-target scratch space.
fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("che-tablebase-cache-tests")
        .join(name);
    let _ = fs::remove_dir_all(&dir);
    dir
}

fn same_values(a: &Table, b: &Table) {
    assert_eq!(a.material(), b.material());
    for side in Side::BOTH {
        assert_eq!(a.counts(side), b.counts(side));
    }
}

fn format_problem(result: Result<Table, CacheError>) -> FormatProblem {
    match result {
        Err(CacheError::Format { problem, .. }) => problem,
        Err(other) => panic!("expected a format error, got {other}"),
        Ok(_) => panic!("expected a format error, got a table"),
    }
}

#[test]
fn load_or_generate_writes_then_reads_the_same_table() {
    let dir = scratch("round_trip");
    assert!(matches!(
        Table::load(Material::Krk, &dir),
        Err(CacheError::Io { .. })
    ));
    let generated = Table::load_or_generate(Material::Krk, &dir).expect("writable");
    assert!(cache_path(&dir, Material::Krk).is_file());
    let loaded = Table::load(Material::Krk, &dir).expect("just written");
    same_values(&generated, &loaded);
    same_values(&generated, &Table::generate(Material::Krk));
}

#[test]
fn a_cached_kpk_table_brings_its_promotion_tables() {
    let dir = scratch("kpk");
    let generated = Table::load_or_generate(Material::Kpk, &dir).expect("writable");
    for material in [Material::Kqk, Material::Krk, Material::Kpk] {
        assert!(cache_path(&dir, material).is_file(), "{material}");
    }
    let loaded = Table::load(Material::Kpk, &dir).expect("just written");
    same_values(&generated, &loaded);
    // The loaded table still answers moves into KQK: a promotion with mate in one.
    let pos = Position::from_fen("k7/2P5/1K6/8/8/8/8/8 w - - 0 1").expect("valid");
    let best = loaded.best_move(&pos).expect("a move");
    assert!(matches!(
        best.promotion_kind(),
        Some(PieceKind::Queen | PieceKind::Rook)
    ));
    assert_eq!(
        loaded.probe_after(&pos.after(best)),
        Some(Outcome::Loss { plies: 0 })
    );
}

#[test]
fn damaged_files_are_reported_and_regenerated() {
    let dir = scratch("damage");
    let table = Table::load_or_generate(Material::Kqk, &dir).expect("writable");
    let path = cache_path(&dir, Material::Kqk);
    let good = fs::read(&path).expect("written");
    let damage = |edit: &dyn Fn(&mut Vec<u8>)| {
        let mut bytes = good.clone();
        edit(&mut bytes);
        fs::write(&path, &bytes).expect("writable");
        format_problem(Table::load(Material::Kqk, &dir))
    };
    assert_eq!(damage(&|b| b.truncate(10)), FormatProblem::Truncated);
    assert_eq!(damage(&|b| b[0] ^= 1), FormatProblem::Magic);
    assert_eq!(
        damage(&|b| b[8] = b[8].wrapping_add(1)),
        FormatProblem::Version {
            found: che_tablebase::FORMAT_VERSION + 1
        }
    );
    assert_eq!(damage(&|b| b[12] = 2), FormatProblem::Material { found: 2 });
    assert!(matches!(
        damage(&|b| {
            b.pop();
        }),
        FormatProblem::Length { .. }
    ));
    assert_eq!(damage(&|b| b[100] ^= 0x10), FormatProblem::Checksum);

    // load_or_generate repairs the damaged file.
    let repaired = Table::load_or_generate(Material::Kqk, &dir).expect("writable");
    same_values(&table, &repaired);
    assert_eq!(fs::read(&path).expect("rewritten"), good);

    // A KRK file under the KQK name is the wrong ending.
    let krk = Table::generate(Material::Krk);
    krk.save(&dir).expect("writable");
    fs::copy(cache_path(&dir, Material::Krk), &path).expect("copy");
    assert_eq!(
        format_problem(Table::load(Material::Kqk, &dir)),
        FormatProblem::Material { found: 2 }
    );
}
