//! Runs every conformance case in `tests/conformance/` on the interpreter.
//! The `jit` crate runs the same files on the JIT.

use cvm::Backend;
use cvm_testkit::conformance::Case;

#[test]
fn conformance_cases_pass_on_the_interpreter() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("conformance directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "asm"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 30, "conformance cases missing");
    let mut failures = Vec::new();
    for path in &paths {
        let name = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let text = std::fs::read_to_string(path).expect("readable case");
        match Case::parse(&name, &text) {
            Ok(case) => {
                if let Err(e) = case.check(Backend::Interp) {
                    failures.push(e);
                }
            }
            Err(e) => failures.push(e),
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
