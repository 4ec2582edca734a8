//! Golden tests of the compiler's diagnostics: every `NAME.che` in
//! `tests/che/diag/` is compiled and its rendered diagnostics must equal
//! `NAME.stderr` byte for byte. The expected files were written by hand
//! from the message catalogue in `docs/che-reference.md`; each covers one
//! kind of diagnostic (several files show that one run reports several
//! independent errors).

use chepp::{compile_with, CompileOptions, MemLoader};
use std::fs;
use std::path::Path;

fn check_dir(dir: &Path) -> usize {
    let mut failures = Vec::new();
    let mut n = 0;
    let mut entries: Vec<_> = fs::read_dir(dir)
        .expect("diag folder")
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for path in entries {
        if path.extension().and_then(|e| e.to_str()) != Some("che") {
            continue;
        }
        n += 1;
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        let source = fs::read_to_string(&path).unwrap();
        let expected = fs::read_to_string(path.with_extension("stderr"))
            .unwrap_or_else(|_| panic!("{name}: no .stderr file"));
        let loader = MemLoader::with(&[(name.as_str(), source.as_str())]);
        let c = compile_with(&loader, Path::new(&name), &CompileOptions::default());
        let actual = c.render_diagnostics();
        if actual != expected {
            failures.push(format!(
                "=== {name}: expected\n{expected}=== actual\n{actual}"
            ));
        }
        let has_errors = c.errors().next().is_some();
        assert_eq!(
            c.is_ok(),
            !has_errors,
            "{name}: a module exactly when there is no error"
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    n
}

#[test]
fn golden_diagnostics() {
    let n = check_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/che/diag"));
    assert!(n >= 18, "only {n} cases found");
}
