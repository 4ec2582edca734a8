//! `che-lab run --all --quick` from the outside: every experiment writes a CSV of the documented
//! shape (provenance columns, its own columns, one row per measured unit), an SVG plot and a
//! Markdown section; shards split the work and `merge` puts it back; `report` fills the template.
//! Shapes and contents only: no timing is asserted.

use std::path::{Path, PathBuf};
use std::process::Command;

const LAB: &str = env!("CARGO_BIN_EXE_che-lab");

const EXPERIMENTS: [(&str, &str); 7] = [
    ("cost", "Cost per call"),
    ("breakeven", "Break-even of the JIT"),
    ("search", "Advice inside the search"),
    ("strength", "Playing strength"),
    ("optimizer", "Optimizer on and off"),
    ("safety", "Cost of the fuel and bounds checks"),
    ("endgame", "CHEG endgame programs against search alone"),
];

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("che-lab-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn lab(args: &[&str]) {
    // The endgame experiment's tables: one cache for every test binary of this target directory.
    let tables = Path::new(env!("CARGO_TARGET_TMPDIR")).join("tablebase");
    let out = Command::new(LAB)
        .args(args)
        .env("CHE_TABLEBASE_DIR", tables)
        .output()
        .expect("run che-lab");
    assert!(
        out.status.success(),
        "che-lab {args:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The CSV's lines split into cells (the test files have no quoted commas in these columns
/// except `machine`, which is checked separately).
fn csv(path: &Path) -> (Vec<String>, Vec<String>) {
    let text = read(path);
    let mut lines = text.lines();
    let header: Vec<String> = lines
        .next()
        .expect("header")
        .split(',')
        .map(str::to_string)
        .collect();
    (header, lines.map(str::to_string).collect())
}

fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 20
        && b[4] == b'-'
        && b[7] == b'-'
        && b[10] == b'T'
        && b[19] == b'Z'
        && s[..4].parse::<u32>().is_ok_and(|y| y >= 2024)
}

#[test]
fn quick_run_writes_every_experiments_files() {
    let dir = temp("quick");
    let d = dir.to_str().expect("utf-8 path");
    lab(&["run", "--all", "--quick", "--seed", "7", "--out", d]);
    for (name, title) in EXPERIMENTS {
        let (header, rows) = csv(&dir.join(format!("{name}.csv")));
        assert_eq!(
            header[..5],
            ["commit", "machine", "date", "seed", "shard"],
            "{name}"
        );
        assert!(header.len() > 5, "{name}: no columns of its own");
        assert!(!rows.is_empty(), "{name}: no rows");
        for row in &rows {
            let cells: Vec<&str> = row.split(',').collect();
            assert_eq!(cells.len(), header.len(), "{name}: {row}");
            assert!(
                !cells[0].is_empty() && cells[0] != "unknown",
                "{name}: commit"
            );
            assert!(cells[1].ends_with("cpus"), "{name}: machine {}", cells[1]);
            assert!(is_date(cells[2]), "{name}: date {}", cells[2]);
            assert_eq!(cells[3], "7", "{name}: seed");
            assert_eq!(cells[4], "1/1", "{name}: shard");
        }
        let svg = read(&dir.join(format!("{name}.svg")));
        assert!(
            svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"),
            "{name}"
        );
        let md = read(&dir.join(format!("{name}.md")));
        assert!(md.starts_with(&format!("## {title}\n")), "{name}: {md}");
        assert!(md.contains("| ---"), "{name}: no table");
        assert!(
            md.contains(&format!("]({name}.svg)")),
            "{name}: no plot link"
        );
    }

    // Contents: every backend and the twin in the cost table, with the twin checked on the
    // oracle's 240 positions; every configuration of the search at both limits; both matches.
    let (h, rows) = csv(&dir.join("cost.csv"));
    let col = |name: &str| h.iter().position(|c| c == name).expect(name);
    let backends: Vec<String> = rows
        .iter()
        .map(|r| r.split(',').nth(col("backend")).unwrap_or("").to_string())
        .collect();
    for b in ["interp", "jit", "native"] {
        assert!(backends.iter().any(|x| x == b), "cost: no {b} row");
    }
    assert!(rows
        .iter()
        .all(|r| r.split(',').nth(col("twin_checked_positions")) == Some("240")));
    let search = read(&dir.join("search.csv"));
    for config in [
        "off,-",
        "root,interp",
        "root,jit",
        "root,native",
        "node,interp",
        "node,jit",
        "node,native",
    ] {
        assert!(
            search.contains(&format!("depth 5,{config},")),
            "search: {config}"
        );
        assert!(
            search.contains(&format!("movetime 25,{config},")),
            "search: {config}"
        );
    }
    // Every ending with its program on every backend and without one, at the quick limits
    // (`<all>` under the fixed time a move);
    // every game ended in one of the three documented ways.
    let (h, rows) = csv(&dir.join("endgame.csv"));
    let col = |name: &str| h.iter().position(|c| c == name).expect(name);
    let cell = |r: &String, name: &str| r.split(',').nth(col(name)).unwrap_or("").to_string();
    for ending in ["KQK won", "KRK won", "KBNK won", "KPK won", "KPK drawn"] {
        for (limit, backend) in [
            ("depth 2", "interp"),
            ("depth 2", "jit"),
            ("depth 2", "auto"),
            ("depth 2", "none"),
            ("nodes 1000", "interp"),
            ("nodes 1000", "none"),
            ("movetime 10", "interp"),
            ("movetime 10", "jit"),
            ("movetime 10", "auto"),
            ("movetime 10", "none"),
        ] {
            let n = rows
                .iter()
                .filter(|r| {
                    cell(r, "ending") == ending
                        && cell(r, "limit") == limit
                        && cell(r, "backend") == backend
                })
                .count();
            assert_eq!(n, 2, "endgame: {ending} {limit} {backend}");
        }
    }
    for r in &rows {
        let result = cell(r, "result");
        assert!(["mate", "held", "failed"].contains(&result.as_str()), "{r}");
        assert_eq!(
            result == "held",
            cell(r, "ending") == "KPK drawn" && result != "failed",
            "{r}"
        );
        assert_eq!(result == "mate", !cell(r, "engine_moves").is_empty(), "{r}");
    }
    let strength = read(&dir.join("strength.md"));
    assert!(strength.contains("| root vs off | 2 |") && strength.contains("| node vs root | 2 |"));

    // The report fills every placeholder of the template and copies the data beside it.
    let docs = dir.join("docs");
    std::fs::create_dir_all(&docs).expect("docs dir");
    let report = docs.join("experiments.md");
    lab(&[
        "report",
        "--from",
        d,
        "--to",
        report.to_str().expect("path"),
    ]);
    let text = read(&report);
    assert!(!text.contains("{{"), "a placeholder was left: {text}");
    for (name, _) in EXPERIMENTS {
        assert!(
            text.contains(&format!("(experiments/{name}.svg)")),
            "{name}"
        );
        assert!(docs
            .join("experiments")
            .join(format!("{name}.csv"))
            .is_file());
        assert!(docs
            .join("experiments")
            .join(format!("{name}.svg"))
            .is_file());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn shards_split_the_work_and_merge_puts_it_back() {
    let dir = temp("shards");
    let shard = |k: &str| dir.join(format!("shard{}", &k[..1]));
    for k in ["1/2", "2/2"] {
        let out = shard(k);
        lab(&[
            "breakeven",
            "--quick",
            "--shard",
            k,
            "--out",
            out.to_str().expect("path"),
        ]);
    }
    let (_, one) = csv(&shard("1/2").join("breakeven.csv"));
    let (_, two) = csv(&shard("2/2").join("breakeven.csv"));
    assert!(!one.is_empty() && !two.is_empty());
    assert!(one.iter().all(|r| r.contains(",1/2,")));
    assert!(two.iter().all(|r| r.contains(",2/2,")));
    let merged = dir.join("merged");
    lab(&[
        "merge",
        shard("1/2").to_str().expect("path"),
        shard("2/2").to_str().expect("path"),
        "--out",
        merged.to_str().expect("path"),
    ]);
    let (_, all) = csv(&merged.join("breakeven.csv"));
    assert_eq!(all.len(), one.len() + two.len());
    // Every (program, rep) unit is measured exactly once across the shards.
    let mut units: Vec<String> = all
        .iter()
        .map(|r| {
            let c: Vec<&str> = r.split(',').collect();
            format!("{}#{}", c[c.len() - 10], c[c.len() - 9])
        })
        .collect();
    units.sort();
    let n = units.len();
    units.dedup();
    assert_eq!(units.len(), n, "a unit was measured twice");
    assert!(read(&merged.join("breakeven.md")).contains("shards 1/2, 2/2"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn timed_games_sets_the_endgame_sample_at_the_time_limits_only() {
    let dir = temp("timed");
    let d = dir.to_str().expect("path");
    lab(&["endgame", "--quick", "--timed-games", "1", "--out", d]);
    let (h, rows) = csv(&dir.join("endgame.csv"));
    let col = |name: &str| h.iter().position(|c| c == name).expect(name);
    let cell = |r: &String, name: &str| r.split(',').nth(col(name)).unwrap_or("").to_string();
    for ending in ["KQK won", "KRK won", "KBNK won", "KPK won", "KPK drawn"] {
        for (limit, backend, n) in [
            ("depth 2", "interp", 2),
            ("nodes 1000", "none", 2),
            ("movetime 10", "jit", 1),
            ("movetime 10", "none", 1),
        ] {
            let played: Vec<String> = rows
                .iter()
                .filter(|r| {
                    cell(r, "ending") == ending
                        && cell(r, "limit") == limit
                        && cell(r, "backend") == backend
                })
                .map(|r| cell(r, "position"))
                .collect();
            assert_eq!(played.len(), n, "{ending} {limit} {backend}");
            // The smaller sample is the start of the larger one: the same first position.
            assert_eq!(played[0], "0", "{ending} {limit} {backend}");
        }
    }
    let md = read(&dir.join("endgame.md"));
    assert!(
        md.contains("2 at depth 2, nodes 1000; 1 at movetime 10"),
        "the section states both sample sizes:\n{md}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_arguments_are_refused_with_a_message() {
    for args in [
        vec!["run", "--out", "/tmp/x"],
        vec!["run", "nosuch", "--out", "/tmp/x"],
        vec!["run", "--all", "--shard", "3/2", "--out", "/tmp/x"],
    ] {
        let out = Command::new(LAB).args(&args).output().expect("run che-lab");
        assert!(!out.status.success(), "{args:?}");
        assert!(!out.stderr.is_empty(), "{args:?}");
    }
}
