//! Golden tests of the Che front end's diagnostics: every `NAME.che3` in
//! `tests/diag/` is compiled and its rendered diagnostics must equal
//! `NAME.stderr` byte for byte. Each file shows one family of problems;
//! most show several independent errors reported in one run, in source
//! order, without follow-on errors.

use std::fs;
use std::path::Path;

#[test]
fn golden_diagnostics() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/diag");
    let mut paths: Vec<_> = fs::read_dir(&dir)
        .expect("diag folder")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().and_then(|e| e.to_str()) == Some("che3"))
        .collect();
    paths.sort();
    let mut failures = Vec::new();
    for path in &paths {
        let name = path.file_name().and_then(|n| n.to_str()).expect("name");
        let source = fs::read_to_string(path).expect("source");
        let expected = fs::read_to_string(path.with_extension("stderr"))
            .unwrap_or_else(|_| panic!("{name}: no .stderr file"));
        let loader = che3::MemLoader::with(&[(name, source.as_str())]);
        let c = che3::compile_with(&loader, Path::new(name), &che3::CompileOptions::default());
        let actual = c.render_diagnostics();
        if actual != expected {
            failures.push(format!(
                "=== {name}: expected\n{expected}=== actual\n{actual}"
            ));
        }
        assert_eq!(
            c.program.is_some(),
            c.errors().next().is_none(),
            "{name}: a module exactly when there is no error"
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(paths.len() >= 10, "only {} cases", paths.len());
}
