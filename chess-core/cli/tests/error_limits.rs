//! Error reports stay bounded and linear for hostile sources, in every language `che run`
//! reads: at most 100 errors per file then one `aborting after 100 errors` line, each source
//! line shown as a window of at most 120 characters, messages cut at 200 characters, and the
//! time linear in the input (a generous deadline catches the quadratic behaviour: 20,000
//! `@ ` on one line took 52 s and wrote 1.2 GB before).

#[path = "common/bounded.rs"]
mod bounded;

use bounded::{folder, run};
use std::time::Duration;

const CHE: &str = env!("CARGO_BIN_EXE_che");
const DEADLINE: Duration = Duration::from_secs(60);

/// A deterministic byte stream (xorshift64*).
fn random_bytes(n: usize, mut state: u64) -> Vec<u8> {
    (0..n)
        .map(|_| {
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            (state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 56) as u8
        })
        .collect()
}

/// Hostile sources by name: the extension picks the language.
fn sources() -> Vec<(&'static str, Vec<u8>)> {
    let long_names = |line: &dyn Fn(usize) -> String| -> Vec<u8> {
        (0..30).map(line).collect::<String>().into_bytes()
    };
    vec![
        ("at.che", "@ ".repeat(20_000).into_bytes()),
        ("at.che3", "@ ".repeat(20_000).into_bytes()),
        ("at.cheg", "@ ".repeat(20_000).into_bytes()),
        ("quoted.che", "\"@ \"".repeat(20_000).into_bytes()),
        ("quoted.che3", "\"@ \"".repeat(20_000).into_bytes()),
        ("quoted.cheg", "\"@ \"".repeat(20_000).into_bytes()),
        ("braces.che", "{".repeat(50_000).into_bytes()),
        ("braces.che3", "{".repeat(50_000).into_bytes()),
        (
            "rule.che3",
            format!("rule r {}", "{".repeat(50_000)).into_bytes(),
        ),
        (
            "advice.che3",
            format!("advice a {}", "{".repeat(50_000)).into_bytes(),
        ),
        ("random.che", random_bytes(1 << 20, 1)),
        ("random.che3", random_bytes(1 << 20, 2)),
        ("random.cheg", random_bytes(1 << 20, 3)),
        (
            "names.che",
            long_names(&|_| {
                format!(
                    "procedure main() begin {} {}; end;\n",
                    "y".repeat(30_000),
                    "z".repeat(30_000)
                )
            }),
        ),
        (
            "names.che3",
            long_names(&|_| format!("rule {} {{ {} }}\n", "y".repeat(30_000), "z".repeat(30_000))),
        ),
        (
            "names.cheg",
            long_names(&|i| {
                format!(
                    "{}L{}{}:\tJUMP {}\n",
                    if i == 0 { "ENTRY K&P,K\n" } else { "" },
                    i,
                    "y".repeat(30_000),
                    "z".repeat(30_000)
                )
            }),
        ),
    ]
}

#[test]
fn hostile_sources_give_bounded_reports_quickly() {
    let dir = folder("errors");
    for (name, bytes) in sources() {
        let path = dir.join(name);
        std::fs::write(&path, &bytes).expect("write");
        let ran = run(CHE, &["run", path.to_str().expect("utf-8")], "", DEADLINE);
        assert_eq!(
            ran.code,
            Some(1),
            "{name}: {}",
            &ran.stderr[..ran.stderr.len().min(2000)]
        );
        // 100 errors of at most a few hundred bytes each, and the summary.
        assert!(
            ran.stderr_bytes < 200_000,
            "{name}: {} bytes of errors",
            ran.stderr_bytes
        );
        let longest = ran
            .stderr
            .lines()
            .map(|l| l.chars().count())
            .max()
            .unwrap_or(0);
        assert!(longest <= 400, "{name}: a line of {longest} characters");
        let headlines = ran
            .stderr
            .lines()
            .filter(|l| l.contains(": error: ") || l.starts_with("error: "))
            .count();
        assert!((1..=102).contains(&headlines), "{name}: {headlines} errors");
    }
}

#[test]
fn too_many_errors_end_with_the_count_left_out() {
    let dir = folder("abort");
    // 300 lines with one error each.
    let path = dir.join("many.che");
    std::fs::write(
        &path,
        "procedure main()\nvar x;\nbegin\n".to_string() + &"  x := ;\n".repeat(300) + "end;\n",
    )
    .expect("write");
    let ran = run(CHE, &["run", path.to_str().expect("utf-8")], "", DEADLINE);
    assert_eq!(ran.code, Some(1));
    let shown = ran
        .stderr
        .lines()
        .filter(|l| l.contains(": error: expected"))
        .count();
    assert_eq!(shown, 100, "{}", ran.stderr);
    assert!(
        ran.stderr
            .contains("error: aborting after 100 errors in this file; 200 more not reported"),
        "{}",
        &ran.stderr[ran.stderr.len().saturating_sub(2000)..]
    );
}
